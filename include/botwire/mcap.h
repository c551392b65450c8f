/*
 * MCAP, written and read (docs/record-format.md): the log format of ROS 2's
 * rosbag2 and of Foxglove, from its public specification
 * (https://mcap.dev/spec, format version 0). No MCAP library is packaged
 * in Debian 12; the compression is Debian's libzstd and liblz4 (the LZ4
 * frame format), the CRC zlib's CRC-32, as the specification names them.
 *
 * A layer of its own above the codecs (src/record/, beside the JSON Lines
 * record; nothing of a robot family inside): the record writer writes a
 * robot link through it, `botwire decode` reads one back.
 *
 * Writing: the file starts with the magic and a Header; schemas, channels
 * and metadata go into the data section as they are added; messages are
 * gathered into chunks (compressed as chosen), each written whole with its
 * message indexes after it when it is full or bw_mcap_end_chunk is called,
 * so a writer killed between chunks leaves a file every streaming reader
 * reads up to its last complete chunk. bw_mcap_finish writes the Data End,
 * the summary (schemas, channels, statistics, chunk and metadata indexes),
 * the summary offsets and the footer, so indexed readers seek without
 * scanning.
 *
 * Reading: a streaming reader of the data section, fed bytes as they come,
 * record by record (a chunk decompressed and its CRC checked), that
 * reports a damaged chunk or a cut-off end with the offset and goes on
 * with what is readable.
 *
 * Memory: both allocate (a chunk's buffers). Threads: one writer or reader
 * per thread. Times are nanoseconds (MCAP's log and publish times).
 */
#ifndef BOTWIRE_MCAP_H
#define BOTWIRE_MCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The first and last 8 bytes of an MCAP file. */
#define BW_MCAP_MAGIC "\x89MCAP0\r\n"

typedef enum { BW_MCAP_ZSTD = 0, BW_MCAP_LZ4, BW_MCAP_NONE } bw_mcap_compression_t;

/* "zstd", "lz4", "none" -> *c; -1 for another name. */
int bw_mcap_compression_parse(const char *name, bw_mcap_compression_t *c);

/* ---- writing ---------------------------------------------------------------- */

typedef struct bw_mcap_writer bw_mcap_writer_t;

/* Where the bytes go: 0, or the errno of a failed write (the writer keeps
 * the first and writes nothing more). */
typedef int (*bw_mcap_sink_fn)(void *ctx, const void *data, size_t n);

typedef struct {
    const char *profile;                /* the Header's profile: "ros2", or "" */
    const char *library;                /* the Header's library: who wrote it */
    bw_mcap_compression_t compression;  /* of the chunks */
    size_t chunk_size;                  /* a chunk is closed past this many bytes
                                           of records (0: 1 MiB) */
} bw_mcap_options_t;

/* A writer; the magic and the Header go to the sink at once. NULL when out
 * of memory. */
bw_mcap_writer_t *bw_mcap_writer_new(const bw_mcap_options_t *opt, bw_mcap_sink_fn sink,
                                     void *ctx);
/* A schema (name, encoding as "ros2msg", its text): its id (1...), or -1. */
int bw_mcap_schema(bw_mcap_writer_t *w, const char *name, const char *encoding,
                   const void *data, size_t len);
/* The id of the schema of that name written so far; 0 if none. */
int bw_mcap_schema_id(const bw_mcap_writer_t *w, const char *name);
/* A channel on a topic: schema 0 is none (schemaless); its id (0...), or -1.
 * meta: n key/value pairs (NULL for none). */
int bw_mcap_channel(bw_mcap_writer_t *w, int schema, const char *topic,
                    const char *message_encoding, const char *const *keys,
                    const char *const *values, size_t n);
/* A Metadata record (name, n key/value pairs): 0, or -1. */
int bw_mcap_metadata(bw_mcap_writer_t *w, const char *name, const char *const *keys,
                     const char *const *values, size_t n);
/* One message on a channel; publish time = log time. 0, or -1. */
int bw_mcap_message(bw_mcap_writer_t *w, int channel, uint64_t log_time, const void *data,
                    size_t len);
/* Closes the open chunk (written whole, its message indexes after it), if
 * any messages wait: a streaming reader reads everything so far. 0, or -1. */
int bw_mcap_end_chunk(bw_mcap_writer_t *w);
/* The open chunk, the Data End, the summary, the footer and the closing
 * magic. 0, or -1. The writer is then done (free it). */
int bw_mcap_finish(bw_mcap_writer_t *w);
/* The errno of the first failed write (or ENOMEM), 0 while none. */
int bw_mcap_error(const bw_mcap_writer_t *w);
/* Messages written so far. */
uint64_t bw_mcap_messages(const bw_mcap_writer_t *w);
void bw_mcap_writer_free(bw_mcap_writer_t *w);

/* ---- reading ---------------------------------------------------------------- */

typedef struct bw_mcap_reader bw_mcap_reader_t;

typedef struct {
    int channel;
    const char *topic;            /* the channel's */
    const char *message_encoding; /* the channel's */
    uint64_t log_time;
    const uint8_t *data;          /* valid until the next call */
    size_t len;
} bw_mcap_message_t;

/* A reader; NULL when out of memory. */
bw_mcap_reader_t *bw_mcap_reader_new(void);
/* The file's next bytes, as they come (a pipe's, a file's): 0, or -1 when
 * out of memory. */
int bw_mcap_reader_push(bw_mcap_reader_t *r, const void *data, size_t n);
/* No more bytes will come: what is cut off is now an error. */
void bw_mcap_reader_end(bw_mcap_reader_t *r);
/* The next bytes of the file in, pushed: 1; 0 at its end (the reader then
 * ended); -1 with a one-line reason in err (cannot read it, out of
 * memory). */
int bw_mcap_reader_read(bw_mcap_reader_t *r, FILE *in, char *err, size_t errlen);
/*
 * The next message, in file order. 1 with *m; 0 when the bytes pushed hold
 * no more (before bw_mcap_reader_end: push more), or at the end (the
 * footer, or the end of the bytes after complete records); -1 with a
 * one-line reason
 * in err naming the file offset ("offset 1234: chunk's CRC ..."): a damaged
 * chunk is passed over (the next call goes on after it), a file cut off
 * inside a record or not MCAP at all ends the reading (the next call
 * returns 0).
 */
int bw_mcap_next(bw_mcap_reader_t *r, bw_mcap_message_t *m, char *err, size_t errlen);
/* The value of key in the first Metadata record named name seen so far;
 * NULL if none. */
const char *bw_mcap_meta(const bw_mcap_reader_t *r, const char *name, const char *key);
/* Whether the file ended with its footer and closing magic (a finished
 * file, not a recorder killed mid-run). */
bool bw_mcap_finished(const bw_mcap_reader_t *r);
void bw_mcap_reader_free(bw_mcap_reader_t *r);

/* ---- recovering --------------------------------------------------------------- */

typedef struct {
    uint64_t size;      /* bytes of the old file */
    uint64_t read_to;   /* the offset after its last sound record */
    bool finished;      /* it had its footer (a recorder that closed it) */
    uint64_t damaged;   /* damaged or cut-off parts passed over */
    uint64_t messages, channels, schemas, metadata; /* written to the new file */
} bw_mcap_recover_t;

/*
 * Reads the MCAP file `in` as a streaming reader does (a recorder killed
 * mid-run leaves its complete chunks readable) and writes everything
 * readable to sink as a finished file: the same Header, Metadata, schemas,
 * channels (with their metadata) and messages with their log times, in
 * chunks compressed as the old file's were (or as *compression says),
 * then the summary, indexes and footer that indexed readers seek by. Each
 * damaged part is told to damaged(ctx, why) (one line naming the offset)
 * and passed over. 0 with *rep; -1 with a one-line reason in err: in
 * cannot be read, is not MCAP, or the sink failed.
 */
int bw_mcap_recover(FILE *in, const bw_mcap_compression_t *compression, bw_mcap_sink_fn sink,
                    void *ctx, void (*damaged)(void *ctx, const char *why),
                    bw_mcap_recover_t *rep, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
