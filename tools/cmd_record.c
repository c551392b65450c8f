/* `botwire record`: save the bytes of a robot link, both ways, with times. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire record URL -o FILE [--for SECONDS] [--v M/S] [--w RAD/S]\n"
            "\n"
            "Connects to a robot and saves every byte of the link, both ways, with its time,\n"
            "until --for runs out or Ctrl-C (the robot is stopped either way). The file is\n"
            "JSON Lines (docs/record-format.md): a header, then\n"
            "{\"t\":SECONDS,\"from\":\"robot\"|\"host\",\"data\":\"HEX\"} per chunk.\n"
            "`botwire decode --proto P FILE` decodes it.\n"
            "\n"
            "%s"
            "\n"
            "  -o, --output F   the file to write (required)\n"
            "  --for SECONDS    how long to record (default: until Ctrl-C)\n"
            "  --v M/S, --w RAD/S   drive meanwhile (default: stand still)\n"
            "  -h, --help       this help\n",
            cli_url_help);
}

typedef struct {
    FILE *f;
    double t0;
    uint64_t bytes[2]; /* from host, from robot */
    bool failed;
} recorder_t;

static void tap(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    recorder_t *r = ctx;
    static const char digits[] = "0123456789abcdef";
    if (r->failed)
        return;
    if (fprintf(r->f, "{\"t\":%.6f,\"from\":\"%s\",\"data\":\"", now - r->t0,
                from_robot ? "robot" : "host") < 0)
        r->failed = true;
    for (size_t i = 0; i < n; i++) {
        putc(digits[data[i] >> 4], r->f);
        putc(digits[data[i] & 15], r->f);
    }
    if (fputs("\"}\n", r->f) == EOF)
        r->failed = true;
    r->bytes[from_robot] += n;
}

int cmd_record(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' }, { "for", required_argument, NULL, 'f' },
        { "v", required_argument, NULL, 'v' },      { "w", required_argument, NULL, 'w' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    const char *output = NULL;
    double duration = INFINITY, v = 0, w = 0;
    int c;
    optind = 0;
    while ((c = cli_getopt("record", argc, argv, "ho:", opts)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'f':
            if (cli_number("record", "--for", optarg, 0, 1e7, &duration) < 0)
                return 2;
            break;
        case 'v':
            if (cli_number("record", "--v", optarg, -5, 5, &v) < 0)
                return 2;
            break;
        case 'w':
            if (cli_number("record", "--w", optarg, -20, 20, &w) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (optind != argc - 1 || !output) {
        cli_error("record", !output ? "-o FILE is required" : "one robot URL is required");
        return 2;
    }
    const char *url = argv[optind];
    /* Written aside and renamed into place at the end: a run that fails
     * leaves any existing file as it was. */
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", output, (long)getpid()) >= (int)sizeof tmp) {
        cli_error("record", "output path too long");
        return 2;
    }
    recorder_t r = { 0 };
    r.f = fopen(tmp, "wx");
    if (!r.f) {
        cli_error("record", "cannot create %s: %s", tmp, strerror(errno));
        return 1;
    }
    r.t0 = cli_now();
    char err[256];
    /* The header first, then every byte from the session's start on. */
    bw_url_t u;
    if (bw_url_parse(url, &u, err, sizeof err) == 0) {
        char family[sizeof u.family];
        for (size_t i = 0; i < sizeof family; i++)
            family[i] = (char)tolower((unsigned char)u.family[i]);
        char when[32];
        time_t wall = time(NULL);
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));
        json_t *head = json_pack("{s:i,s:s,s:s,s:s}", "botwire_record", 1, "url", url, "family",
                                 family, "start", when);
        json_dumpf(head, r.f, JSON_COMPACT);
        fputc('\n', r.f);
        json_decref(head);
    }
    bw_base_options_t o = { .tap = tap, .tap_ctx = &r };
    bw_base_t *b;
    if (bw_base_open(&b, url, &o, r.t0, err, sizeof err) < 0) {
        cli_error("record", "%s", err);
        fclose(r.f);
        remove(tmp);
        return 1;
    }
    cli_check_limits("record", b, v, w);
    cli_catch_signals();

    double now = r.t0, end = r.t0 + duration;
    while (!cli_interrupted && now < end && !r.failed) {
        bw_base_drive(b, v, w, now);
        cli_wait(bw_base_fd(b), fmin(bw_base_next_deadline(b), end));
        now = cli_now();
        bw_base_poll(b, now);
        bw_event_t ev;
        while (bw_base_next_event(b, &ev))
            fprintf(stderr, "botwire record: %.2f s: %s%s\n", ev.t - r.t0, bw_event_name(ev.type),
                    ev.on ? "" : " cleared");
    }
    /* The stop first, whatever ended the run. */
    int signalled = cli_interrupted;
    bool stop_sent = bw_base_stop(b, now) == 0;
    bw_base_poll(b, now);
    bw_base_close(b, now);
    int status = signalled ? 128 + signalled : 0;
    if (!stop_sent) {
        cli_error("record", "could not send the stop: the link to %s is down", url);
        status = status ? status : 1;
    }
    bool ok = !r.failed && fflush(r.f) == 0 && fsync(fileno(r.f)) == 0;
    ok = fclose(r.f) == 0 && ok;
    if (!ok || rename(tmp, output) != 0) {
        cli_error("record", "cannot write %s: %s", output, strerror(errno));
        remove(tmp);
        return 1;
    }
    fprintf(stderr, "botwire record: %.1f s, %llu bytes from the robot, %llu from the host, in %s\n",
            now - r.t0, (unsigned long long)r.bytes[1], (unsigned long long)r.bytes[0], output);
    return status;
}
