/*
 * botwire records: the bytes of a robot link, both ways, with their times
 * (docs/record-format.md), in one of two formats. JSON Lines: a header
 * line, then one line per chunk as it crossed the link,
 *
 *     {"botwire_record":1,"url":"kobuki:/dev/ttyUSB0","family":"kobuki","start":"..."}
 *     {"t":0.012345,"from":"robot","data":"aa5504..."}
 *
 * or MCAP (botwire/mcap.h): the header as the Metadata record "botwire",
 * and each chunk a message on /wire/robot or /wire/host (schemaless,
 * message encoding botwire/<family>, log time the start plus t).
 *
 * The writer is what `botwire record -o FILE` writes with; the reader is
 * what `botwire decode`, bw_json_decoder (botwire/json.h) and the tests
 * read with. A layer of its own above the base API (src/record/), built
 * into the tool and libbotwire_json; not installed.
 *
 * Memory: a writer and a reader allocate (their buffers grow with the
 * longest line). Threads: one writer or reader per thread. Time: the
 * caller's, passed in (s since the record's start).
 */
#ifndef BOTWIRE_RECORD_H
#define BOTWIRE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "botwire/mcap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- writing ---------------------------------------------------------------- */

typedef struct bw_record_writer bw_record_writer_t;

typedef enum { BW_RECORD_JSONL = 0, BW_RECORD_MCAP } bw_record_format_t;

/* The format a path's name asks for: MCAP for *.mcap, else JSON Lines. */
bw_record_format_t bw_record_format_of(const char *path);

typedef struct {
    bw_record_format_t format;
    bw_mcap_compression_t compression; /* MCAP's chunks (zstd, the default) */
    const char *url;    /* the robot's URL, as given (the header's "url") */
    uint64_t start_ns;  /* MCAP: the start in ns since 1970, precise (0: start's second) */
    const char *family; /* its family, lower case */
    time_t start;       /* wall-clock start (the header's "start", UTC) */
    /* Called once, before the writer blocks, when path is a FIFO nobody
     * reads yet (as tee, it waits for a reader). NULL: nothing said. */
    void (*waiting_for_reader)(const char *path, void *ctx);
    void *ctx;
} bw_record_options_t;

/*
 * Opens `path` to record into, as tee would: "-" is standard output; a
 * regular file or a new name is written in place (a symlink followed); a
 * FIFO, a terminal or a device is streamed into. Nothing is ever renamed
 * over what was named, and a file is not touched until
 * bw_record_writer_commit: until then what is written (the header first)
 * waits in memory; a stream gets the header at once. Returns 0, or
 * BW_EINVAL (a directory) / BW_EIO (cannot be written) with the reason in
 * err ("cannot write PATH: ...").
 */
int bw_record_writer_open(bw_record_writer_t **w, const char *path,
                          const bw_record_options_t *opt, char *err, size_t errlen);
/* The robot is open: a file is emptied and what waited goes into it; from
 * now on it is written directly. 0, or BW_EIO with err. */
int bw_record_writer_commit(bw_record_writer_t *w, char *err, size_t errlen);
/* The robot could not be opened: a file is left as it was (one this writer
 * made is removed), and the writer freed. NULL is fine. */
void bw_record_writer_abandon(bw_record_writer_t *w);
/* One chunk as it crossed the link, t seconds from the start. A failed
 * write is kept (bw_record_writer_error) and the rest dropped. */
void bw_record_writer_chunk(bw_record_writer_t *w, double t, bool from_robot,
                            const uint8_t *data, size_t n);
/* MCAP only: one message of the robot as ROS 2 sees it, on its topic
 * (a channel made at its first message: message encoding cdr, its schema
 * as ros2msg, its offered_qos_profiles and topic_type_hash, as rosbag2
 * writes them), at log_time (ns since 1970). 0, or -1 (not an MCAP record;
 * the error kept). */
/* An MCAP record's message on a wire channel: 1 (/wire/robot) or 0
 * (/wire/host), with *data and *len the bytes that crossed the line (a
 * botwire_msgs/msg/Wire's, in CDR; botwire's older records: the message
 * bare); -1 for a message of another channel; -2 for a wire message that is
 * no Wire (damaged: err says so). */
int bw_record_mcap_wire(const bw_mcap_message_t *m, const uint8_t **data, size_t *len, char *err,
                        size_t errlen);
int bw_record_writer_cdr(bw_record_writer_t *w, const char *topic, const char *type,
                         const char *schema, const char *offered_qos, const char *type_hash,
                         uint64_t log_time, const uint8_t *data, size_t n);
/* Pushes what is written to the file (and, for a file, to the disk): what a
 * killed recorder leaves (MCAP: the open chunk is closed and written whole,
 * so every streaming reader reads it). 0, or the errno of the first
 * failure. */
int bw_record_writer_flush(bw_record_writer_t *w);
/* The errno of the first failed write, 0 while none failed. */
int bw_record_writer_error(const bw_record_writer_t *w);
/* Bytes written from the robot (from_robot) or the host. */
uint64_t bw_record_writer_bytes(const bw_record_writer_t *w, bool from_robot);
/* Flushes and closes (standard output is flushed, not closed) and frees
 * the writer; an MCAP file gets its summary and footer. 0, or the errno of
 * the first failure. */
int bw_record_writer_close(bw_record_writer_t *w);

/* ---- reading ----------------------------------------------------------------- */

/* What a record's first bytes are. */
#define BW_RECORD_MAGIC "{\"botwire_record\":"

/* Whether a stream starting with data[0..n) is a record: 1 yes, 0 no, -1
 * too few bytes to tell. */
int bw_record_sniff(const uint8_t *data, size_t n);

typedef struct {
    double t;            /* s from the record's start */
    const char *t_text;  /* the number as the line writes it (t_len bytes);
                            NULL for a line jansson read */
    size_t t_len;
    bool from_robot;
    const uint8_t *data; /* valid until the next call on the reader */
    size_t len;
} bw_record_chunk_t;

typedef struct {
    size_t line_no;      /* lines read so far */
    char *url;           /* the header's url (NULL before it, or none) */
    char *family, *start; /* ... its family and start, as written */
    uint8_t *bytes;      /* a chunk's data */
    size_t cap;
} bw_record_reader_t;

void bw_record_reader_init(bw_record_reader_t *r);
void bw_record_reader_free(bw_record_reader_t *r);
/*
 * One line of a record, without its '\n' (every line, blank ones too, so
 * that line numbers are the file's). Returns 1 with a chunk in *c; 0 for
 * the header or a blank line; -1 with "line N: ..." in err for a line
 * that cannot be read (the header too: "line 1: not a version 1 botwire
 * record"), which the caller reports, counts and passes over; BW_ENOMEM.
 * Lines written as `botwire record` writes them are read without a JSON
 * parser; any other shape goes through jansson, and means (or fails) what
 * it would there.
 */
int bw_record_reader_line(bw_record_reader_t *r, const char *line, size_t n,
                          bw_record_chunk_t *c, char *err, size_t errlen);

/* ---- a whole record, either format ------------------------------------------ */

typedef struct {
    bw_record_format_t format;
    const char *url, *family, *start; /* the header's (NULL where it has none) */
    uint64_t start_ns;                /* MCAP's start to the ns (0: none) */
} bw_record_head_t;

/* What bw_record_read hands on, in the record's order; each may be NULL.
 * A callback's nonzero return ends the reading with that value. */
typedef struct {
    /* the header, once, before anything else (also for a record of no
     * chunks); valid until the reading ends */
    int (*head)(void *ctx, const bw_record_head_t *h);
    /* a chunk of the wire (data valid during the call); NULL never */
    int (*chunk)(void *ctx, const bw_record_chunk_t *c);
    /* a damaged part, passed over: its one-line reason ("line N: ...",
     * "offset N: ...") */
    void (*damaged)(void *ctx, const char *why);
    /* MCAP: a message on another topic (the robot as ROS 2 sees it) */
    void (*other)(void *ctx, const bw_mcap_message_t *m);
    void *ctx;
} bw_record_visitor_t;

/*
 * Reads a whole record from in (a file or a pipe; JSON Lines or MCAP, told
 * by its first bytes) and hands it to v. MCAP's chunk times are its log
 * times less the start (t). 0 at the end; -1 with a one-line reason in err
 * (not a record, no header, cannot be read, out of memory); or what a
 * callback returned.
 */
int bw_record_read(FILE *in, const bw_record_visitor_t *v, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
