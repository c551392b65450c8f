/* Shared pieces of the `botwire` command: errors, buffers, protocol codecs
 * seen as JSON. Not part of the library's API. */
#ifndef BOTWIRE_TOOLS_CLI_H
#define BOTWIRE_TOOLS_CLI_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "botwire/botwire.h"

#include <getopt.h>

/* Prints "botwire CMD: message" on one line to stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Standard output could not be written (err: its errno). Returns the exit
 * status: 141, quietly, when the reader has gone (EPIPE: `| head`), as
 * SIGPIPE would have it; else 1, after one line saying why. */
int cli_write_failed(const char *cmd, int err);

/* Flushes standard output: 0, or as cli_write_failed. */
int cli_flush_out(const char *cmd);

/* Parses a number option; prints "botwire CMD: --OPT ..." and returns -1
 * unless text is a finite number within [lo, hi]. */
int cli_number(const char *cmd, const char *opt, const char *text, double lo, double hi,
               double *out);

/* Checks a --stack option's behaviour names (bw_wander_set_stack); prints
 * "botwire CMD: --stack ..." and returns -1 unless they make a stack. */
int cli_stack(const char *cmd, const char *names);
#define CLI_STACK_HELP                                                                 \
    "comma-separated, the first active wins: reflex, avoid, safe-avoid,\n"              \
    "                   wander, safe-wander; default reflex,safe-avoid,safe-wander"

/* getopt_long for a subcommand: an unknown option or a missing value gives
 * one line, "botwire CMD: unknown option --x (botwire CMD --help lists
 * them)", and '?'. shortopts without a leading ':'. */
int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
               const struct option *longopts);

/* The robot URLs, for the help of every command that opens one. */
extern const char cli_url_help[];

/* Warns (one line each) about --v and --w beyond what the robot of base
 * goes; it clamps them. */
void cli_check_limits(const char *cmd, const bw_base_t *b, double v, double w);

/* Whether a file can be written at path (created, or replaced) without
 * writing it: 0, or -1 with the reason in err ("cannot write PATH: ..."). */
int cli_check_writable(const char *path, char *err, size_t errlen);

/* Adds to a state line what only some bases report, each where the base has
 * it (caps): raw_x, raw_y (encoder counts: GRL's raw-base-x/y),
 * bump_switches (a boolean per switch: GRL's bump-switch-state), dock_ir
 * (right, centre, left), joystick, power. */
void cli_put_sensors(json_t *o, const bw_base_t *b, const bw_base_state_t *s);

/* Waiting for a robot to come online: true when there is nothing more to
 * wait for: it is online and the base is sure of its family (or has heard
 * as much as it looks at), it speaks another family's protocol, or a TCP
 * server closed two connections in a row at once (another client has it). */
bool cli_base_settled(const bw_base_t *b);
/* Says on one line why the robot of url is not online after `waited` s:
 * the family it speaks instead (and the URL to try), a silent line, bytes
 * in no protocol, or a TCP robot another client holds. */
void cli_base_unheard(const char *cmd, const bw_base_t *b, const char *url, double waited);

/* Monotonic wall-clock seconds. */
double cli_now(void);
/* Waits until fd (if >= 0) is readable or the monotonic time `until`,
 * whichever comes first; returns early when a signal arrives. */
void cli_wait(int fd, double until);
/* SIGINT, SIGTERM, SIGHUP and SIGQUIT set cli_interrupted (to the signal's
 * number) instead of killing the process, so commands can stop the robot
 * and say goodbye; they then exit with 128 + that number. */
extern volatile sig_atomic_t cli_interrupted;
void cli_catch_signals(void);

/* A growable byte buffer. */
typedef struct {
    uint8_t *p;
    size_t len, cap;
} cli_buf_t;

/* Appends n bytes; returns 0 or -1 when out of memory. */
int cli_buf_append(cli_buf_t *b, const void *data, size_t n);
void cli_buf_free(cli_buf_t *b);

/* Reads a whole file ("-" is stdin) into b; on failure returns -1 with a
 * message in err. */
int cli_read_all(const char *path, cli_buf_t *b, char *err, size_t errlen);

/* Hexadecimal text to bytes, fed in pieces: whitespace or commas between
 * bytes are optional, '#' starts a comment to the end of the line. */
typedef struct {
    int hi;       /* pending high nibble, or -1 */
    bool comment; /* inside a '#' comment */
    unsigned line;
} cli_hex_reader_t;

void cli_hex_init(cli_hex_reader_t *h);
/* Appends the bytes of text to out; -1 with a message on bad text. */
int cli_hex_feed(cli_hex_reader_t *h, const char *text, size_t n, cli_buf_t *out, char *err,
                 size_t errlen);
/* End of text: -1 with a message if a byte was left half-written. */
int cli_hex_end(const cli_hex_reader_t *h, char *err, size_t errlen);

/* Writes bytes as lowercase hex pairs separated by spaces, then a newline. */
int cli_write_hex_line(FILE *f, const uint8_t *p, size_t n);

/* Error message buffer size used by codec encoders. */
#define CLI_ERRLEN 1024

/* One robot protocol, seen from the command line as JSON Lines: its name and
 * its encoder (decoding writes JSON directly: json/jw.h). */
typedef struct {
    const char *name;
    const char *summary;
    /* Encodes one JSON line into bytes appended to out. Returns 0, 1 when the
     * line is not a message (a stats line), or -1 with a message in err. */
    int (*encode)(json_t *line, cli_buf_t *out, char *err, size_t errlen);
} cli_codec_t;

const cli_codec_t *cli_codec_find(const char *name);
/* Comma-separated names of every protocol, for help texts. */
const char *cli_codec_names(void);

extern const cli_codec_t cli_codec_kobuki;
extern const cli_codec_t cli_codec_p2os;
extern const cli_codec_t cli_codec_lobot;
extern const cli_codec_t cli_codec_create;
extern const cli_codec_t cli_codec_rbsm;
extern const cli_codec_t cli_codec_rflex;

/* ---- JSON helpers over field descriptors ---------------------------------- */

/* Reads every field of desc from obj into base, range-checked. */
int jm_get_fields(json_t *obj, const bw_msgdesc_t *desc, void *base, char *err, size_t errlen);
/* Reads an integer member within [min, max]. */
int jm_get_int(json_t *obj, const char *key, int64_t min, int64_t max, int64_t *out, char *err,
               size_t errlen);
/* Fails naming the first member of obj that is neither "type", nor "t" or
 * "from" (the annotations of a decoded record), nor a field of desc (may be
 * NULL), nor in the NULL-terminated extra list. */
int jm_check_keys(json_t *obj, const bw_msgdesc_t *desc, const char *const *extra, char *err,
                  size_t errlen);
/* Decodes a hex string member into out (at most cap bytes); -1 with err. */
int jm_get_hex(json_t *obj, const char *key, uint8_t *out, size_t cap, size_t *n, char *err,
               size_t errlen);

#endif
