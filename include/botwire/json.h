/*
 * botwire JSON: `botwire decode` and `botwire encode` as a library, for
 * programs (and the Python package) that want the command's JSON without
 * running it. The text is the command's, byte for byte: the same code
 * writes it (the command's JSON writers, built into libbotwire_json).
 *
 *     bw_json_decoder_t *d;
 *     bw_json_decoder_new(&d, "kobuki", NULL, NULL, false, err, sizeof err);
 *     bw_json_decoder_push(d, bytes, n);          any split
 *     text = bw_json_decoder_text(d, &len);       complete JSON lines
 *     bw_json_decoder_finish(d);                  the end: the stats line
 *     bw_json_decoder_free(d);
 *
 * Link: -lbotwire_json (with -lbotwire). Not in libbotwire itself: it needs
 * jansson, and the codec core stays dependency-free. The layer's code is
 * src/text/ (its records read by src/record/). Memory: a decoder allocates
 * on creation and as its output grows. Threads: one decoder per thread;
 * bw_json_encode is reentrant.
 */
#ifndef BOTWIRE_JSON_H
#define BOTWIRE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "botwire/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bw_json_decoder bw_json_decoder_t;

/*
 * A decoder of protocol `proto` ("kobuki", ... any case), as `botwire decode
 * --proto P [--model M] [--from SIDE] [--frames]`: model NULL for the
 * protocol's default (or a record's url's model=); from "robot", "host" or
 * NULL (raw bytes: from the robot; a record: both sides). Returns 0, or
 * BW_EUNKNOWN (protocol), BW_EINVAL (side, model) with a one-line reason in
 * err, BW_ENOMEM.
 */
int bw_json_decoder_new(bw_json_decoder_t **d, const char *proto, const char *model,
                        const char *from, bool frames, char *err, size_t errlen);
void bw_json_decoder_free(bw_json_decoder_t *d);

/* Options, before the first push: BW_JSON_RAW, the input is raw bytes
 * whatever its first bytes (`decode --hex`: hex text is never a record);
 * BW_JSON_STRICT, a record's damaged line ends the decoding (push and
 * finish return BW_EINVAL, the reason the next warning) instead of being
 * passed over and counted (`decode --strict`). Returns 0; BW_ESTATE once
 * input has come; BW_EINVAL for an unknown flag. */
#define BW_JSON_RAW 1u
#define BW_JSON_STRICT 2u
#define BW_JSON_TAPE 4u
#define BW_JSON_COLUMNS 8u
int bw_json_decoder_options(bw_json_decoder_t *d, unsigned flags);

/*
 * BW_JSON_TAPE: bw_json_decoder_text gives the same lines as typed entries
 * instead of text, for a program that builds its own objects from them
 * (the Python package's dicts, columns) with no text to format and parse.
 * The members, values and their order are the text's, entry for entry.
 * Each entry is a tag byte, then its payload, unaligned, in the machine's
 * byte order:
 *   '{' '[' '}' ']'  an object or array opens, closes
 *   'M' pointer      a message object opens with its "type": the pointer's
 *                    NUL-terminated name
 *   'K' pointer      a member's key, NUL-terminated
 *   'i' int32        'I' int64 (an integer: 'i' when it fits)
 *   'R' double       a real, as the text's number reads back
 *   'T' 'F'          true, false
 *   'D' pointer, uint32 n, then int64s   the members of a descriptor table
 *                    (bw_field_t, botwire/wire.h: the pointer's first n):
 *                    for each field but BW_FT_PAD ones, its name as a key and
 *                    its value, or an array of its `count` values, one int64
 *                    each, in order
 *   'S' uint32 n, n bytes   a string, UTF-8
 *   'H' uint32 n, n bytes   bytes the text shows as a string of lowercase hex
 *   '\n'             the end of a line
 * The pointers of 'M', 'K' and 'D' point into the library and stay valid while
 * it is loaded: a program may keep what it made of them by the pointer.
 */
enum {
    BW_TAPE_OBJ = '{', BW_TAPE_ARR = '[', BW_TAPE_END_OBJ = '}', BW_TAPE_END_ARR = ']',
    BW_TAPE_MSG = 'M', BW_TAPE_KEY = 'K', BW_TAPE_INT32 = 'i', BW_TAPE_INT = 'I', BW_TAPE_REAL = 'R',
    BW_TAPE_TRUE = 'T', BW_TAPE_FALSE = 'F', BW_TAPE_STR = 'S', BW_TAPE_HEX = 'H',
    BW_TAPE_FIELDS = 'D', BW_TAPE_LINE = '\n'
};

/*
 * Pushes input, in any split: raw protocol bytes, or the text of a
 * `botwire record` file, told apart by its first line as the command does
 * (until enough bytes have come to tell, they wait). Returns 0; BW_EINVAL
 * at a damaged record line with BW_JSON_STRICT (what decoded before it is
 * in the text); BW_ENOMEM (the decoder is then unusable).
 */
int bw_json_decoder_push(bw_json_decoder_t *d, const uint8_t *data, size_t n);
/* The end of input: what held bytes still give, then the stats line. Once
 * only; pushes after it are refused (BW_ESTATE). */
int bw_json_decoder_finish(bw_json_decoder_t *d);
/* After the finish, the parser's counts over both sides (the stats
 * line's): what `decode --strict` looks at. Zero before it. */
void bw_json_decoder_stats(const bw_json_decoder_t *d, bw_parse_stats_t *out);
/* The JSON Lines written since the last call: whole lines, each ending in
 * '\n'; *len 0 when there is none. Valid until the next call on d. With
 * BW_JSON_TAPE, the same lines as a tape (above). */
const char *bw_json_decoder_text(bw_json_decoder_t *d, size_t *len);
/*
 * BW_JSON_COLUMNS: the decoder keeps the messages as columns instead of
 * text (bw_json_decoder_text then gives none): per message type, per
 * member, a value per message of the type, in order; the same values the
 * text says. A member some messages of the type leave out has `present`;
 * a message inside another's array (a Create stream's packets) is a row of
 * its own type, with the "t" and "from" of the message that holds it. The
 * final stats are a message of type "stats" as in the text.
 */
typedef struct {
    const char *type;    /* the message type */
    const char *name;    /* the member */
    char kind;           /* 'i' int64, 'r' double, 'b' uint8 0/1, 's' strings, 'a' arrays */
    int depth;           /* 'a': 1, arrays of integers; 2, arrays of arrays of integers */
    size_t rows;         /* messages of the type */
    const void *values;  /* i r b: a value per row; s: every row's bytes one after
                            another; a: every integer (int64) one after another */
    size_t nvalues;      /* i r b: rows; s: bytes; a: integers */
    const int64_t *ends; /* s: where each row's bytes end in values */
    const uint8_t *tags; /* s: per row 's' a string, 'h' bytes the text shows as hex,
                            'i' 'r' 'b' a number or boolean as its text (a member of
                            numbers in some messages and strings in others); 0 left out */
    const int32_t *lens; /* a: elements of each row's array */
    const int32_t *inner; /* a, depth 2: integers of each inner array, in order */
    size_t ninner;
    const uint8_t *present; /* a byte per row, 0 where the message left it out;
                               NULL when every message has it (an empty array
                               has it, of length 0) */
} bw_json_column_t;
/* How many columns; column i of them (0, BW_EINVAL past the end, BW_ENOMEM),
 * grouped by type in the order the types came. Valid until the next push,
 * finish or free. BW_EINVAL from push or finish with BW_JSON_COLUMNS: a
 * message the columns cannot hold, its reason the next warning. */
size_t bw_json_decoder_columns(const bw_json_decoder_t *d);
int bw_json_decoder_column(bw_json_decoder_t *d, size_t i, bw_json_column_t *out);
/* The message types the columns have seen, in the order they came: type i
 * and how many messages of it (a type with no members has no column). */
size_t bw_json_decoder_types(const bw_json_decoder_t *d);
const char *bw_json_decoder_type(const bw_json_decoder_t *d, size_t i, size_t *rows);

/* A record line that could not be read ("line N: ..."), which the command
 * reports on stderr and counts (damaged_lines): 1 with the oldest in buf,
 * 0 when there is none left. The last 64 are kept (the older are dropped),
 * each cut at 159 bytes, unless on_warning takes them. */
int bw_json_decoder_next_warning(bw_json_decoder_t *d, char *buf, size_t cap);
/* Each warning to fn as it comes, whole, instead of kept for
 * next_warning (`botwire decode` says every one, in order). */
void bw_json_decoder_on_warning(bw_json_decoder_t *d, void (*fn)(const char *text, void *ctx),
                                void *ctx);

/*
 * One line of `botwire encode --proto P` input (a JSON object: one message;
 * an array of them: one frame carrying them all) into the frame's bytes.
 * Returns 0 with *len bytes in out; 1 when the line is no message (a stats
 * line: nothing written); BW_ENOSPC when cap is too small (*len: the size
 * needed); BW_EINVAL with the command's one-line reason in err for a bad
 * line; BW_EUNKNOWN for an unknown protocol.
 */
int bw_json_encode(const char *proto, const char *json, size_t n, uint8_t *out, size_t cap,
                   size_t *len, char *err, size_t errlen);

/*
 * A record file read whole (botwire/record.h: JSON Lines or MCAP, told by
 * its first bytes; from MCAP the wire, /wire/robot and /wire/host). Returns
 * 0 with *r; BW_EIO (cannot open), BW_EINVAL (not a record, or a damaged
 * part: its reason, "PATH: line N: ..." or "PATH: offset N: ...", in err;
 * `botwire record --recover` mends a killed recorder's MCAP), BW_ENOMEM.
 */
typedef struct bw_json_record bw_json_record_t;
int bw_json_record_read(bw_json_record_t **r, const char *path, char *err, size_t errlen);
/* Its header, one JSON object: botwire_record, url, family, start (and
 * "format":"mcap" for MCAP). Valid until bw_json_record_free. */
const char *bw_json_record_header(const bw_json_record_t *r);
/* How many chunks it holds, and chunk i (t in s from the start, the side,
 * its bytes, valid until bw_json_record_free): 0, or BW_EINVAL past the
 * end. */
size_t bw_json_record_chunks(const bw_json_record_t *r);
int bw_json_record_chunk(const bw_json_record_t *r, size_t i, double *t, int *from_robot,
                         const uint8_t **data, size_t *len);
void bw_json_record_free(bw_json_record_t *r);

/* The protocols' names, comma-separated ("kobuki, p2os, ..."). */
const char *bw_json_protocols(void);
/* The protocol called name (in any case), as bw_json_protocols spells it,
 * or NULL for none. */
const char *bw_json_protocol_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif
