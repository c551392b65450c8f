/* Shared pieces of the `botwire` command: its errors, options, waits and
 * signals, and what several commands print. Not part of the library's
 * API. */
#ifndef BOTWIRE_TOOLS_CLI_H
#define BOTWIRE_TOOLS_CLI_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "botwire/botwire.h"
#include "botwire/record.h"
#include "botwire/view.h"

#include <getopt.h>
#include <poll.h>

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

/* A command's clock: the wall clock, or virtual time that jumps from
 * deadline to deadline (--fast, sim: URLs). */
typedef struct {
    bool fast;
    double now;
} cli_clock_t;
/* On to the base's next deadline or `until`, whichever comes first (at
 * once in virtual time; else waiting on the base and on the view, which
 * may be NULL), then polls the base and serves the view. */
void cli_advance(cli_clock_t *c, bw_base_t *b, bw_view_t *view, double until);
/* Opens url at c->now and waits, up to `wait` s, until it is online and
 * its bytes are its family's (cli_base_settled): the base, or NULL with
 * one line said (cli_base_unheard, or the open's error) and *status the
 * command's exit (1, or 128 + the signal that came). Signals are caught
 * from here on. */
bw_base_t *cli_open_online(const char *cmd, const char *url, cli_clock_t *c, double wait,
                           int *status);

/* "[HOST:]PORT", PORT 1 to 65535: host (left as it is when the text has
 * none) and port; -1 if it is not that. */
int cli_host_port(const char *text, char *host, size_t cap, int *port);

/* Monotonic wall-clock seconds. */
/* The record format options of the commands that write records (record,
 * convert): --format jsonl|mcap ('F') and --compression zstd|lz4|none
 * ('C'), as getopt gives them. 0, or -1 after saying why. */
typedef struct {
    const char *format;
    bw_mcap_compression_t compression;
    bool compression_given;
} cli_record_format_t;
int cli_record_format_opt(const char *cmd, int opt, const char *arg, cli_record_format_t *f);
/* The format to write path in: --format, else by its name. 0, or -1 after
 * saying why (--compression for JSON Lines). */
int cli_record_format(const char *cmd, const cli_record_format_t *f, const char *path,
                      bw_record_format_t *format);

double cli_now(void);
/* Waits until fd (if >= 0) is readable or the monotonic time `until`,
 * whichever comes first; returns early when a signal arrives. */
void cli_wait(int fd, double until);
/* The same for any of up to 8 descriptors (those < 0 left out), to the
 * microsecond. */
void cli_wait_fds(const int *fds, size_t n, double until);
/* ppoll on p[0..k) until the monotonic time `until`, to the microsecond
 * (rounded up: never short of it). */
void cli_ppoll(struct pollfd *p, nfds_t k, double until);
/* SIGINT, SIGTERM, SIGHUP and SIGQUIT set cli_interrupted (to the signal's
 * number) instead of killing the process, so commands can stop the robot
 * and say goodbye; they then exit with 128 + that number. */
extern volatile sig_atomic_t cli_interrupted;
void cli_catch_signals(void);

/* Under systemd (Type=notify, botwire@.service; sd_notify(3)'s protocol
 * over $NOTIFY_SOCKET; nothing when that is not set): the text as one
 * datagram; READY=1 with a STATUS (once, the first call); WATCHDOG=1 when
 * due (twice per $WATCHDOG_USEC), returning when it is next due (INFINITY
 * without a watchdog), for the caller's wait. Times are cli_now()'s. */
void cli_service_notify(const char *text);
void cli_service_ready(const char *status);
double cli_service_watchdog(double now);

/* The options every long-running command (sim, ros2, ros-launch, replay,
 * view) takes to run as a service, in one place: --detach, --log FILE,
 * --pidfile FILE, with their help lines and getopt
 * entries (CLI_SERVICE_OPTIONS, codes CLI_OPT_*, beyond any letter). */
enum { CLI_OPT_DETACH = 0x1000, CLI_OPT_LOG, CLI_OPT_PIDFILE };
#define CLI_SERVICE_OPTIONS                                                                 \
    { "detach", no_argument, NULL, CLI_OPT_DETACH },                                        \
    { "log", required_argument, NULL, CLI_OPT_LOG },                                        \
    { "pidfile", required_argument, NULL, CLI_OPT_PIDFILE }
/* Their help lines, the descriptions from column `col` (the command's). */
const char *cli_service_help(int col);

typedef struct {
    bool detach;
    const char *log_path, *pid_path;
    int log_fd, pid_fd; /* -1: none */
    int announce_fd;    /* detached: the pipe to the caller until the first lines are out */
    /* Who speaks on stderr: the command ("sim"), and once detached
     * "sim [kobuki, pid N]": its lines come into a terminal or a log
     * later, among others, and must say whose they are. */
    char who[96];
} cli_service_t;

void cli_service_init(cli_service_t *sv, const char *cmd);
/* One of the options above: true if c was one (taken). */
bool cli_service_option(cli_service_t *sv, int c, const char *arg);
/* Before the command opens anything it serves (ports, ptys, DDS: what
 * must belong to the process that serves): the options checked, the log
 * and pid file opened, and with --detach the serving process forked off.
 * The caller's process waits there for the first lines, prints them with
 * the serving process's pid and exits (0; or the serving process's own
 * status when it ended before serving, its errors on the caller's
 * stderr). 0 in the serving process, or an exit status after saying why. */
int cli_service_begin(cli_service_t *sv);
/* Serving: the pid file written, the first lines (text, without a final
 * newline) on standard output; detached, they reach the caller, and from
 * here the process's output goes nowhere and its stderr to --log, its lines
 * named "CMD [what, pid N]". Its caller catches signals first
 * (cli_catch_signals): whoever reads the pid or the line may stop it at
 * once, and the stop must reach the loop that removes the pid file. */
void cli_service_announce(cli_service_t *sv, const char *text, const char *what);
/* The end: the pid file removed, the log closed. */
void cli_service_end(cli_service_t *sv);

/* Hexadecimal text to bytes, fed in pieces: whitespace or commas between
 * bytes are optional, '#' starts a comment to the end of the line. */
typedef struct {
    int hi;       /* pending high nibble, or -1 */
    bool comment; /* inside a '#' comment */
    unsigned line;
} cli_hex_reader_t;

void cli_hex_init(cli_hex_reader_t *h);
/* The bytes of text into out (room for n / 2 + 1), *len of them; -1 with a
 * message on bad text. */
int cli_hex_feed(cli_hex_reader_t *h, const char *text, size_t n, uint8_t *out, size_t *len,
                 char *err, size_t errlen);
/* End of text: -1 with a message if a byte was left half-written. */
int cli_hex_end(const cli_hex_reader_t *h, char *err, size_t errlen);

/* The view's options of a command: --view [HOST:]PORT, --view-token T,
 * --view-readonly, with their help lines. */
#define CLI_VIEW_HELP                                                                       \
    "  --view [HOST:]PORT  serve the live view there (Foxglove WebSocket protocol and\n"    \
    "                   the page at /; HOST default 127.0.0.1; docs/view.md)\n"             \
    "  --view-token T   the secret clients must present (?token=T); needed to bind\n"       \
    "                   beyond 127.0.0.1, else one is generated and printed\n"              \
    "  --view-readonly  serve without the command channel\n"

#endif
