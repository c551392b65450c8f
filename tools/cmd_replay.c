/* `botwire replay FILE --pty PATH|--tcp [HOST:]PORT`: the robot's side of a
 * record played back, at its recorded times, to a program that connects as
 * to the robot; what the program sends compared with what the record's host
 * sent. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "botwire/json.h"
#include "botwire/port.h"
#include "botwire/record.h"
#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire replay FILE (--pty PATH | --tcp [HOST:]PORT) [--speed X]\n"
            "                      [--model M] [--detach [--log FILE]] [--pidfile FILE]\n"
            "\n"
            "Plays the robot's side of a record (made by `botwire record`: JSON Lines or\n"
            "MCAP) back to a program that connects to it as to the robot: on a new\n"
            "pseudo-terminal (PATH a symlink to it, as `botwire sim --pty` makes) or on a\n"
            "TCP port. The first line on standard output says where. The robot's bytes go\n"
            "out at their recorded times (divided by --speed), counted from when the\n"
            "program connects; when the record starts with the host's bytes (a robot that\n"
            "waits to be spoken to, as a Pioneer waits for SYNC0), from the program's\n"
            "first bytes, in step with the record.\n"
            "\n"
            "What the program sends is decoded with the record's protocol and compared\n"
            "with what the record's host sent: each message the record's host never sent\n"
            "is said (the first 10, with their times). It ends when the record is played\n"
            "out (0.5 s after its last bytes), when the program leaves, or on Ctrl-C; the\n"
            "exit status is 1 when the program sent a message the record's host never\n"
            "did, 0 when every one was in the record (with --detach, its last line in\n"
            "--log says so).\n"
            "\n"
            "  --pty PATH         serve on a new pty, PATH a symlink to it\n"
            "  --tcp [HOST:]PORT  serve on TCP (HOST 127.0.0.1 unless given; PORT 0: a\n"
            "                     free one, said on the first line)\n"
            "  --speed X          play X times as fast (0.01 to 100; default 1)\n"
            "  --model M          the robot model the host's messages are decoded for\n"
            "                     (default: the record URL's model=, else the family's)\n"
            "%s"
            "  -h, --help         this help\n",
            cli_service_help(21));
}

#define TAIL 0.5       /* s after the last bytes before the replay ends */
#define SAY_AT_MOST 10 /* differing messages said one by one */

/* --detach, --log, --pidfile (cli.h); its `who` names the lines on stderr. */
static cli_service_t svc;

typedef struct {
    double t;
    size_t at, len; /* in robot[] */
} piece_t;

typedef struct {
    const char *path;
    char family[32], model[32];
    piece_t *pieces; /* the robot's chunks, in order */
    size_t npieces, cap;
    uint8_t *robot; /* their bytes */
    size_t nrobot, robot_cap;
    bw_json_decoder_t *host; /* the record's host's bytes, decoded */
    double first_host;       /* t of the record's first host bytes (-1: none) */
    bool host_first;         /* the record starts with the host's bytes */
    unsigned long long damaged;
} record_t;

static bool append(uint8_t **p, size_t *n, size_t *cap, const uint8_t *data, size_t len)
{
    if (*n + len > *cap) {
        size_t c = (*n + len) * 2 + 4096;
        uint8_t *q = realloc(*p, c);
        if (!q)
            return false;
        *p = q;
        *cap = c;
    }
    memcpy(*p + *n, data, len);
    *n += len;
    return true;
}

static int on_head(void *ctx, const bw_record_head_t *h)
{
    record_t *r = ctx;
    char err[256];
    bw_url_t u;
    if (!h->family || !bw_json_protocol_name(h->family)) {
        cli_error("replay", "%s: the record names no robot family botwire knows (\"%s\")", r->path,
                  h->family ? h->family : "");
        return 1;
    }
    snprintf(r->family, sizeof r->family, "%s", h->family);
    if (!*r->model && h->url && bw_url_parse(h->url, &u, err, sizeof err) == 0 &&
        bw_url_param(&u, "model"))
        snprintf(r->model, sizeof r->model, "%s", bw_url_param(&u, "model"));
    if (bw_json_decoder_new(&r->host, r->family, *r->model ? r->model : NULL, "host", false, err,
                            sizeof err) < 0 ||
        bw_json_decoder_options(r->host, BW_JSON_RAW) < 0) {
        cli_error("replay", "%s: %s", r->path, err);
        return 1;
    }
    return 0;
}

static int on_chunk(void *ctx, const bw_record_chunk_t *c)
{
    record_t *r = ctx;
    if (!c)
        return 0;
    if (!c->from_robot) {
        if (r->first_host < 0) {
            r->first_host = c->t;
            r->host_first = r->npieces == 0;
        }
        return bw_json_decoder_push(r->host, c->data, c->len) < 0 ? 1 : 0;
    }
    if (r->npieces == r->cap) {
        size_t cap = r->cap * 2 + 256;
        piece_t *p = realloc(r->pieces, cap * sizeof *p);
        if (!p)
            return 1;
        r->pieces = p;
        r->cap = cap;
    }
    r->pieces[r->npieces++] = (piece_t){ c->t, r->nrobot, c->len };
    return append(&r->robot, &r->nrobot, &r->robot_cap, c->data, c->len) ? 0 : 1;
}

static void on_damaged(void *ctx, const char *why)
{
    record_t *r = ctx;
    fprintf(stderr, "botwire replay: %s: %s (passed over)\n", r->path, why);
    r->damaged++;
}

/* ---- the host's messages against the record's -------------------------------- */

typedef struct {
    char **lines; /* the record's host's messages, sorted, each once */
    size_t n;
    unsigned long long sent, as_recorded, differing;
} compare_t;

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each whole line of text (JSON, a message each) but the stats line, to fn. */
static int each_line(const char *text, size_t len, int (*fn)(void *, const char *, size_t),
                     void *ctx)
{
    while (len) {
        const char *nl = memchr(text, '\n', len);
        size_t n = nl ? (size_t)(nl - text) : len;
        if (n && strncmp(text, "{\"type\":\"stats\"", 15) != 0 && fn(ctx, text, n) < 0)
            return -1;
        text += n + (nl ? 1 : 0);
        len -= n + (nl ? 1 : 0);
    }
    return 0;
}

static int keep_line(void *ctx, const char *line, size_t n)
{
    compare_t *c = ctx;
    char **l = realloc(c->lines, (c->n + 1) * sizeof *l);
    if (!l)
        return -1;
    c->lines = l;
    if (!(l[c->n] = strndup(line, n)))
        return -1;
    c->n++;
    return 0;
}

static int load_compare(compare_t *c, bw_json_decoder_t *host)
{
    size_t len;
    if (bw_json_decoder_finish(host) < 0)
        return -1;
    const char *text = bw_json_decoder_text(host, &len);
    if (each_line(text, len, keep_line, c) < 0)
        return -1;
    qsort(c->lines, c->n, sizeof *c->lines, by_text);
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (k && !strcmp(c->lines[k - 1], c->lines[i]))
            free(c->lines[i]);
        else
            c->lines[k++] = c->lines[i];
    }
    c->n = k;
    return 0;
}

typedef struct {
    compare_t *c;
    double t;
} heard_t;

static int check_line(void *ctx, const char *line, size_t n)
{
    heard_t *h = ctx;
    compare_t *c = h->c;
    char *text = strndup(line, n);
    if (!text)
        return -1;
    c->sent++;
    if (bsearch(&text, c->lines, c->n, sizeof *c->lines, by_text)) {
        c->as_recorded++;
    } else {
        if (c->differing++ < SAY_AT_MOST)
            fprintf(stderr, "botwire %s: %.3f s: the host sent %s, which the record's host "
                    "never did\n", svc.who, h->t, text);
        if (c->differing == SAY_AT_MOST + 1)
            fprintf(stderr, "botwire %s: (more such messages are counted, not said)\n", svc.who);
    }
    free(text);
    return 0;
}

/* ---- serving ----------------------------------------------------------------- */

typedef struct {
    bw_port_t *pty, *client;
    bw_listener_t *listener;
    char slave[128];
} link_t;

/* The program's port, once it is there: the pty's master while a client
 * has it open (or always, where the system cannot tell), the TCP client. */
static bw_port_t *peer(link_t *l, bool *left)
{
    *left = false;
    if (l->pty) {
        bool emptied = false;
        int n = bw_pty_clients(l->pty, &emptied);
        *left = emptied;
        return n != 0 ? l->pty : NULL;
    }
    if (!l->client)
        bw_listener_accept(l->listener, &l->client);
    return l->client;
}

static void wait_for(link_t *l, double until)
{
    int fds[2] = { -1, -1 };
    if (l->pty) {
        fds[0] = bw_port_fd(l->pty);
        fds[1] = bw_pty_watch_fd(l->pty);
    } else {
        fds[0] = l->client ? bw_port_fd(l->client) : bw_listener_fd(l->listener);
    }
    cli_wait_fds(fds, 2, until);
}

static int load(record_t *r, const char *path)
{
    FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!in) {
        cli_error("replay", "cannot open %s: %s", path, strerror(errno));
        return 1;
    }
    r->first_host = -1;
    bw_record_visitor_t v = { .head = on_head, .chunk = on_chunk, .damaged = on_damaged, .ctx = r };
    char err[300];
    int rc = bw_record_read(in, &v, err, sizeof err);
    if (in != stdin)
        fclose(in);
    if (rc < 0)
        cli_error("replay", "%s: %s", path, err);
    else if (rc > 0 && r->host)
        cli_error("replay", "%s: out of memory", path);
    return rc ? 1 : 0;
}

int cmd_replay(int argc, char **argv)
{
    static const struct option opts[] = {
        { "pty", required_argument, NULL, 'p' },   { "tcp", required_argument, NULL, 't' },
        { "speed", required_argument, NULL, 's' }, { "model", required_argument, NULL, 'm' },
        { "help", no_argument, NULL, 'h' },        CLI_SERVICE_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    const char *pty = NULL, *tcp = NULL;
    double speed = 1;
    record_t r = { 0 };
    int c;
    optind = 0;
    cli_service_init(&svc, "replay");
    while ((c = cli_getopt("replay", argc, argv, "h", opts)) != -1) {
        if (cli_service_option(&svc, c, optarg))
            continue;
        switch (c) {
        case 'p': pty = optarg; break;
        case 't': tcp = optarg; break;
        case 's':
            if (cli_number("replay", "--speed", optarg, 0.01, 100, &speed) < 0)
                return 2;
            break;
        case 'm': snprintf(r.model, sizeof r.model, "%s", optarg); break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (argc - optind != 1 || !pty == !tcp) {
        cli_error("replay", argc - optind != 1 ? "one record FILE is required"
                                                : "where to serve: --pty PATH or --tcp [HOST:]PORT");
        return 2;
    }
    char host[256] = "127.0.0.1";
    int port = 0;
    if (tcp) {
        /* port 0: a free one, said on the first line */
        const char *colon = strrchr(tcp, ':');
        size_t nhost = colon ? (size_t)(colon - tcp) : 0;
        if (!strcmp(colon ? colon + 1 : tcp, "0") && nhost < sizeof host) {
            if (nhost) {
                memcpy(host, tcp, nhost);
                host[nhost] = 0;
            }
        } else if (cli_host_port(tcp, host, sizeof host, &port) < 0) {
            cli_error("replay", "--tcp %s: expected [HOST:]PORT, PORT 0 (a free one) to 65535",
                      tcp);
            return 2;
        }
    }
    r.path = argv[optind];
    compare_t cmp = { 0 };
    link_t l = { 0 };
    char err[512];
    int status = load(&r, r.path);
    if (status)
        goto done;
    if (load_compare(&cmp, r.host) < 0) {
        cli_error("replay", "out of memory");
        status = 1;
        goto done;
    }
    if ((status = cli_service_begin(&svc)) != 0) /* detached: from here in the serving process */
        goto done;
    bw_json_decoder_t *live = NULL;
    if (bw_json_decoder_new(&live, r.family, *r.model ? r.model : NULL, "host", false, err,
                            sizeof err) < 0 ||
        bw_json_decoder_options(live, BW_JSON_RAW) < 0) {
        cli_error("replay", "%s", err);
        bw_json_decoder_free(live);
        status = 1;
        goto done;
    }
    if (pty ? bw_pty_open(&l.pty, l.slave, sizeof l.slave, pty, err, sizeof err) < 0
            : bw_listener_open(&l.listener, host, port, err, sizeof err) < 0) {
        cli_error("replay", "%s", err);
        bw_json_decoder_free(live);
        status = 1;
        goto done;
    }
    double span = r.npieces ? r.pieces[r.npieces - 1].t : 0;
    char line[1024];
    if (pty)
        snprintf(line, sizeof line,
                 "botwire replay: %s (%s, %zu bytes from the robot over %.1f s) on %s (link %s)",
                 r.path, r.family, r.nrobot, span, l.slave, pty);
    else
        snprintf(line, sizeof line,
                 "botwire replay: %s (%s, %zu bytes from the robot over %.1f s) on tcp://%s:%d",
                 r.path, r.family, r.nrobot, span, host, bw_listener_port(l.listener));
    cli_catch_signals(); /* before the pid file and the first line: a stop ends the loop */
    cli_service_announce(&svc, line, r.family);
    cli_service_ready(line);

    /* t0: when the record's t = 0 is, on this clock; set when the program
     * connects (or first speaks, for a record the host begins). */
    double t0 = NAN, last_out = NAN, now = cli_now();
    size_t next = 0;
    bool left = false;
    unsigned long long sent_bytes = 0;
    while (!cli_interrupted && !left) {
        bool gone;
        bw_port_t *p = peer(&l, &gone);
        now = cli_now();
        if (gone && !isnan(t0)) {
            left = true;
            break;
        }
        if (p && isnan(t0) && !r.host_first)
            t0 = now;
        if (p) {
            uint8_t buf[4096];
            int n = bw_port_read(p, buf, sizeof buf);
            if (n < 0 && !l.pty) { /* the TCP program left */
                left = true;
                break;
            }
            if (n > 0) {
                if (isnan(t0)) /* the host's first bytes: the record's first host bytes */
                    t0 = now - r.first_host / speed;
                bw_json_decoder_push(live, buf, (size_t)n);
                size_t len;
                const char *text = bw_json_decoder_text(live, &len);
                heard_t h = { &cmp, (now - t0) * speed };
                each_line(text, len, check_line, &h);
            }
        }
        while (p && !isnan(t0) && next < r.npieces && t0 + r.pieces[next].t / speed <= now) {
            const piece_t *q = &r.pieces[next++];
            int w = bw_port_write(p, r.robot + q->at, q->len);
            if (w > 0)
                sent_bytes += (unsigned long long)w;
            last_out = now;
        }
        if (next == r.npieces && !isnan(t0) &&
            now >= fmax(isnan(last_out) ? now : last_out, t0 + span / speed) + TAIL)
            break;
        double until = now + 1.0;
        if (!isnan(t0) && next < r.npieces)
            until = fmin(until, t0 + r.pieces[next].t / speed);
        else if (!isnan(t0))
            until = fmin(until, fmax(isnan(last_out) ? now : last_out, t0 + span / speed) + TAIL);
        wait_for(&l, fmin(until, cli_service_watchdog(now)));
    }
    bw_json_decoder_finish(live);
    size_t len;
    const char *text = bw_json_decoder_text(live, &len);
    heard_t h = { &cmp, isnan(t0) ? 0 : (cli_now() - t0) * speed };
    each_line(text, len, check_line, &h);
    bw_json_decoder_free(live);
    fprintf(stderr,
            "botwire %s: %zu of %zu chunks of the robot's played (%llu bytes)%s; the host "
            "sent %llu messages: %llu as the record's host did, %llu it never did\n",
            svc.who, next, r.npieces, sent_bytes,
            cli_interrupted ? ", interrupted" : left ? ", the program left" : "", cmp.sent,
            cmp.as_recorded, cmp.differing);
    status = cmp.differing ? 1 : cli_interrupted ? 128 + cli_interrupted : 0;
done:
    if (l.client)
        bw_port_close(l.client);
    if (l.listener)
        bw_listener_close(l.listener);
    if (l.pty)
        bw_port_close(l.pty);
    for (size_t i = 0; i < cmp.n; i++)
        free(cmp.lines[i]);
    free(cmp.lines);
    bw_json_decoder_free(r.host);
    free(r.pieces);
    free(r.robot);
    cli_service_end(&svc);
    return status;
}
