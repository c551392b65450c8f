/* Shared pieces of the `botwire` command. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "botwire %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_write_failed(const char *cmd, int err)
{
    if (err == EPIPE)
        return 141;
    cli_error(cmd, "cannot write the output: %s", strerror(err ? err : EIO));
    return 1;
}

int cli_flush_out(const char *cmd)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    return cli_write_failed(cmd, errno);
}

int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
               const struct option *longopts)
{
    char opts[64];
    snprintf(opts, sizeof opts, ":%s", shortopts);
    opterr = 0;
    int c = getopt_long(argc, argv, opts, longopts, NULL);
    if (c != '?' && c != ':')
        return c;
    /* optind has moved past the culprit, its value included or not. */
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    char name[64];
    if (strncmp(arg, "--", 2) == 0)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    else
        snprintf(name, sizeof name, "-%c", optopt ? optopt : '?');
    if (c == ':')
        cli_error(cmd, "%s needs a value (botwire %s --help)", name, cmd);
    else
        cli_error(cmd, "unknown option %s (botwire %s --help lists them)", name, cmd);
    return '?';
}

const char cli_url_help[] =
    "Robot URLs:\n"
    "  kobuki:/dev/ttyUSB0        a Kobuki on a serial port (115200 baud)\n"
    "  p2os:/dev/ttyS0            a Pioneer on a serial port (9600 baud; ?baud=38400\n"
    "                             or 115200 for robots set so)\n"
    "  lobot:/dev/ttyUSB0         an iRobot Create with the Robolocust Command Module\n"
    "                             (57600 baud); ?turn=spin: pure turns as SPIN moves\n"
    "  create:/dev/ttyUSB0        a bare Create 1 or Roomba 500 over its Open Interface\n"
    "                             (57600 baud; ?baud=115200 for a Roomba 500);\n"
    "                             ?mode=safe drives in Safe mode (default Full);\n"
    "                             ?model=create2 a Create 2 / Roomba 600 (115200\n"
    "                             baud; odometry from its encoder counts)\n"
    "  create2:/dev/ttyUSB0       the same as create:...?model=create2 (create2 names\n"
    "                             the Create 2 wherever a family is named)\n"
    "  rbsm:/dev/ttyACM0          a CMU RoboBuggy's Mega (76800 baud); steered, not\n"
    "                             driven: --v 0 brakes; ?model=deployed for the\n"
    "                             deployed firmware's units and ids (57600 baud)\n"
    "  rflex:/dev/ttyS0           an RWI B21r (115200 baud; ?model=atrvjr for an\n"
    "                             ATRV-Jr)\n"
    "  FAMILY:/path/to/pty        an emulator's pty (botwire sim FAMILY --pty PATH)\n"
    "  p2os:tcp://HOST:PORT       a Pioneer or simulator over TCP (8101 by default\n"
    "                             for simulators)\n"
    "  sim:FAMILY                 the emulated robot in this process, e.g. sim:kobuki,\n"
    "                             sim:p2os; options after ?, joined by &:\n"
    "                             world=FILE, noise=X (1 nominal), seed=N,\n"
    "                             model=M (p2os: p2dx, p2pb, p2at; rflex: b21r,\n"
    "                             atrvjr; rbsm: seed, deployed), window=MS\n"
    "                             (lobot: the wait for a command after READY),\n"
    "                             push=M/S, slope=DEG (rbsm: the buggy's course),\n"
    "                             battery=F (how full it starts, 0..1), and\n"
    "                             a bad cable: ber=X (bit errors), drop=P, insert=P\n"
    "  Serial URLs take ?baud=N. Families: kobuki, p2os, lobot, create, rbsm, rflex\n"
    "  (any case).\n";

static void check_limit(const char *cmd, const bw_base_t *b, const char *opt, double value,
                        double max, const char *unit)
{
    if (max > 0 && fabs(value) > max + 1e-9) /* 0: no fixed top */
        cli_error(cmd, "warning: %s %g is above the %s's top speed of %.2f %s; it will go at most "
                       "that",
                  opt, value, bw_base_family(b), max, unit);
}

int cli_check_writable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "cannot write %s: it is a directory", path);
            return -1;
        }
        if (access(path, W_OK) != 0) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (errno != ENOENT) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    /* A new file: its folder must be there and writable. */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: no folder %s", path, dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* A number the base may not have given: null rather than NaN. */
static json_t *real_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

void cli_put_sensors(json_t *o, const bw_base_t *b, const bw_base_state_t *s)
{
    uint32_t caps = bw_base_caps(b);
    if (caps & BW_CAP_ENCODERS) {
        json_object_set_new(o, "raw_x", json_real(round(s->raw_x)));
        json_object_set_new(o, "raw_y", json_real(round(s->raw_y)));
    }
    if ((caps & BW_CAP_BUMP_SWITCHES) && s->nbump_switches) {
        json_t *a = json_array();
        for (unsigned i = 0; i < s->nbump_switches && i < 64; i++)
            json_array_append_new(a, json_boolean((s->bump_switches >> i) & 1u));
        json_object_set_new(o, "bump_switches", a);
    }
    if (caps & BW_CAP_DOCK_IR) {
        json_t *a = json_array();
        for (unsigned i = 0; i < 3; i++)
            json_array_append_new(a, json_integer(s->dock_ir[i]));
        json_object_set_new(o, "dock_ir", a);
    }
    if (caps & BW_CAP_SEEK_DOCK) {
        json_t *a = json_array();
        for (unsigned i = 0; i < 3; i++)
            json_array_append_new(a, json_integer(s->buoys[i]));
        json_object_set_new(o, "buoys", a);
        json_object_set_new(o, "self_driving", json_boolean(s->self_driving));
    }
    if ((caps & BW_CAP_JOYSTICK) && s->joystick.active) {
        json_t *j = json_object();
        /* Not "x" and "y": the state line's x and y are the pose's. */
        json_object_set_new(j, "turn", json_real(s->joystick.x));
        json_object_set_new(j, "forward", json_real(s->joystick.y));
        json_object_set_new(j, "buttons", json_integer(s->joystick.buttons));
        json_object_set_new(o, "joystick", j);
    }
    if (caps & BW_CAP_POWER) {
        json_t *p = json_object();
        json_object_set_new(p, "voltage", real_or_null(s->power.voltage));
        json_object_set_new(p, "logic_voltage", real_or_null(s->power.logic_voltage));
        json_object_set_new(p, "current", real_or_null(s->power.current));
        json_object_set_new(p, "status", json_integer(s->power.status));
        json_object_set_new(o, "power", p);
    }
}

void cli_check_limits(const char *cmd, const bw_base_t *b, double v, double w)
{
    double max_v, max_w;
    bw_base_limits(b, &max_v, &max_w);
    if (!(bw_base_caps(b) & BW_CAP_DRIVE) && (bw_base_caps(b) & BW_CAP_STEER) && v > 0)
        cli_error(cmd, "note: the %s base is steered, not driven: --v above 0 only releases the brake "
                       "(it rolls at its own speed), 0 brakes",
                  bw_base_family(b));
    check_limit(cmd, b, "--v", v, max_v, "m/s");
    check_limit(cmd, b, "--w", w, max_w, "rad/s");
}

bool cli_base_settled(const bw_base_t *b)
{
    bw_base_heard_t h;
    bw_base_heard(b, &h);
    if (h.wrong || h.closed_unheard >= 2)
        return true;
    return bw_base_state(b)->online && (h.sure || h.bytes >= BW_BASE_HEARD_MAX);
}

/* url with family in place of its own and none of its parameters but the
 * baud rate (the others are the first family's). */
static void url_as(char *out, size_t cap, const char *url, const char *family)
{
    const char *loc = strchr(url, ':');
    loc = loc ? loc + 1 : url;
    size_t len = strcspn(loc, "?");
    const char *baud = strstr(loc + len, "baud=");
    if (baud && baud[-1] != '?' && baud[-1] != '&')
        baud = NULL;
    snprintf(out, cap, "%s:%.*s%s%.*s", family, (int)len, loc, baud ? "?" : "",
             baud ? (int)strcspn(baud, "&") : 0, baud ? baud : "");
}

void cli_advance(cli_clock_t *c, bw_base_t *b, bw_view_t *view, double until)
{
    double next = fmin(bw_base_next_deadline(b), until);
    if (c->fast) {
        c->now = fmax(c->now, next);
    } else {
        bw_view_wait(view, bw_base_fd(b), next);
        c->now = cli_now();
    }
    bw_base_poll(b, c->now);
    bw_view_service(view, c->now);
}

bw_base_t *cli_open_online(const char *cmd, const char *url, cli_clock_t *c, double wait,
                           int *status)
{
    char err[256];
    bw_base_t *b;
    *status = 1;
    if (bw_base_open(&b, url, NULL, c->now, err, sizeof err) < 0) {
        cli_error(cmd, "%s", err);
        return NULL;
    }
    cli_catch_signals();
    for (double give_up = c->now + wait; !cli_base_settled(b) && !cli_interrupted && c->now < give_up;)
        cli_advance(c, b, NULL, give_up);
    if (bw_base_state(b)->online)
        return b;
    if (!cli_interrupted)
        cli_base_unheard(cmd, b, url, wait);
    bw_base_close(b, c->now);
    *status = cli_interrupted ? 128 + cli_interrupted : 1;
    return NULL;
}

void cli_base_unheard(const char *cmd, const bw_base_t *b, const char *url, double waited)
{
    bw_base_heard_t h;
    bw_base_heard(b, &h);
    const char *own = bw_base_family(b);
    char other[512];
    if (h.family && strcmp(h.family, own) != 0)
        url_as(other, sizeof other, url, h.family);
    if (h.wrong && h.sure) {
        cli_error(cmd, "%s speaks %s, not %s: try %s", url, bw_sniff_protocol(h.family),
                  bw_sniff_protocol(own), other);
    } else if (h.closed_unheard > 0 && h.bytes == 0 && strstr(url, "tcp://")) {
        const char *at = strstr(url, "tcp://") + 6;
        cli_error(cmd, "the robot at %.*s is held by another client: %s%u connection%s accepted "
                       "and closed at once, before a byte came",
                  (int)strcspn(at, "/?"), at, h.closed_unheard > 1 ? "each of " : "",
                  h.closed_unheard, h.closed_unheard > 1 ? "s was" : " was");
    } else if (h.bytes == 0) {
        cli_error(cmd, "nothing came from %s within %.0f s: the line is silent (is the robot on? "
                       "P2OS, Create and rflex bases speak only when spoken to in their own "
                       "protocol: check the family and the baud rate)",
                  url, waited);
    } else if (!h.family) {
        cli_error(cmd, "%s: %llu bytes came, in no protocol botwire knows (check the baud rate "
                       "and the family)",
                  url, (unsigned long long)h.bytes);
    } else if (strcmp(h.family, own) != 0) {
        cli_error(cmd, "%s: %llu bytes came that look like %s, not %s: try %s", url,
                  (unsigned long long)h.bytes, bw_sniff_protocol(h.family),
                  bw_sniff_protocol(own), other);
    } else {
        cli_error(cmd, "no answer from %s within %.0f s: %llu bytes of %s came, but the robot "
                       "did not come online",
                  url, waited, (unsigned long long)h.bytes, bw_sniff_protocol(own));
    }
}

int cli_number(const char *cmd, const char *opt, const char *text, double lo, double hi,
               double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (!*text || *end || errno || !isfinite(v) || v < lo || v > hi) {
        cli_error(cmd, "%s must be a number in [%g, %g], not \"%s\"", opt, lo, hi, text);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_stack(const char *cmd, const char *names)
{
    if (bw_wander_set_stack(NULL, names) < 0) {
        cli_error(cmd, "--stack wants behaviours from %s, comma-separated, each once, not \"%s\"",
                  BW_WANDER_STACK_NAMES, names);
        return -1;
    }
    return 0;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_wait(int fd, double until)
{
    double left = until - cli_now();
    if (left <= 0)
        return;
    /* Round up so the wait never ends just short of the deadline. */
    int ms = (int)ceil(fmin(left, 3600.0) * 1000.0);
    struct pollfd p = { fd, POLLIN, 0 };
    poll(&p, fd >= 0 ? 1 : 0, ms);
}

void cli_wait_fds(const int *fds, size_t n, double until)
{
    struct pollfd p[8];
    nfds_t k = 0;
    for (size_t i = 0; i < n && k < 8; i++)
        if (fds[i] >= 0)
            p[k++] = (struct pollfd){ fds[i], POLLIN, 0 };
    cli_ppoll(p, k, until);
}

void cli_ppoll(struct pollfd *p, nfds_t k, double until)
{
    double left = fmin(until - cli_now(), 3600.0);
    if (left <= 0)
        return;
    /* To the microsecond, rounded up: a byte is 87 us at 115200 baud. */
    struct timespec ts = { (time_t)left, (long)((left - floor(left)) * 1e9) + 1 };
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    ppoll(p, k, &ts, NULL);
}

volatile sig_atomic_t cli_interrupted;

static void on_signal(int sig)
{
    cli_interrupted = sig;
}

void cli_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);  /* the terminal closed, the ssh session dropped */
    sigaction(SIGQUIT, &sa, NULL);
}

void cli_hex_init(cli_hex_reader_t *h)
{
    h->hi = -1;
    h->comment = false;
    h->line = 1;
}

int cli_hex_feed(cli_hex_reader_t *h, const char *text, size_t n, uint8_t *out, size_t *len,
                 char *err, size_t errlen)
{
    *len = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)text[i];
        if (c == '\n') {
            h->comment = false;
            h->line++;
        }
        if (h->comment)
            continue;
        if (c == '#')
            h->comment = true;
        if (c == '#' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',') {
            if (h->hi >= 0) {
                snprintf(err, errlen, "hex input line %u: odd number of hex digits", h->line);
                return -1;
            }
            continue;
        }
        int v = bw_hex_value(c);
        if (v < 0) {
            snprintf(err, errlen, "hex input line %u: '%c' is not a hex digit", h->line,
                     c >= 32 && c < 127 ? c : '?');
            return -1;
        }
        if (h->hi < 0) {
            h->hi = v;
            continue;
        }
        out[(*len)++] = (uint8_t)(h->hi << 4 | v);
        h->hi = -1;
    }
    return 0;
}

int cli_hex_end(const cli_hex_reader_t *h, char *err, size_t errlen)
{
    if (h->hi < 0)
        return 0;
    snprintf(err, errlen, "hex input line %u: odd number of hex digits", h->line);
    return -1;
}

int cli_host_port(const char *text, char *host, size_t cap, int *port)
{
    const char *colon = strrchr(text, ':');
    const char *num = colon ? colon + 1 : text;
    char *end;
    long p = strtol(num, &end, 10);
    if (!*num || *end || p < 1 || p > 65535)
        return -1;
    size_t n = colon ? (size_t)(colon - text) : 0;
    if (n >= cap)
        return -1;
    if (n) {
        memcpy(host, text, n);
        host[n] = 0;
    }
    *port = (int)p;
    return 0;
}

int cli_record_format_opt(const char *cmd, int opt, const char *arg, cli_record_format_t *f)
{
    if (opt == 'F') {
        if (strcmp(arg, "jsonl") != 0 && strcmp(arg, "mcap") != 0) {
            cli_error(cmd, "--format %s: jsonl or mcap", arg);
            return -1;
        }
        f->format = arg;
        return 0;
    }
    if (bw_mcap_compression_parse(arg, &f->compression) < 0) {
        cli_error(cmd, "--compression %s: zstd, lz4 or none", arg);
        return -1;
    }
    f->compression_given = true;
    return 0;
}

int cli_record_format(const char *cmd, const cli_record_format_t *f, const char *path,
                      bw_record_format_t *format)
{
    *format = f->format ? (strcmp(f->format, "mcap") == 0 ? BW_RECORD_MCAP : BW_RECORD_JSONL)
                        : bw_record_format_of(path);
    if (f->compression_given && *format != BW_RECORD_MCAP) {
        cli_error(cmd, "--compression is MCAP's (a file named *.mcap, or --format mcap)");
        return -1;
    }
    return 0;
}
