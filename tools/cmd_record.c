/* `botwire record`: save the bytes of a robot link, both ways, with times. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
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
            "  -o, --output F   where to write (required): a file, written in place\n"
            "                   (created, or emptied first; a symlink is followed), a\n"
            "                   FIFO, a terminal or a device streamed into, or - for\n"
            "                   standard output. Flushed every 0.25 s: a recorder killed\n"
            "                   leaves what it had, and what it left decodes.\n"
            "  --for SECONDS    how long to record (default: until Ctrl-C)\n"
            "  --v M/S, --w RAD/S   drive meanwhile (default: stand still)\n"
            "  -h, --help       this help\n",
            cli_url_help);
}

#define FLUSH_PERIOD 0.25 /* s of link time between flushes: what a kill can lose */

typedef struct {
    FILE *f;
    bool regular;   /* a file (synced to the disk at each flush), not a stream */
    int fd;         /* a file's descriptor, while what comes first waits in memory */
    bool created;   /* the file did not exist before */
    char *mem;      /* ...that memory (open_memstream) */
    size_t memlen;
    double t0;
    uint64_t bytes[2]; /* from host, from robot */
    bool failed;
    int error;      /* errno of the first failed write */
} recorder_t;

/* Pushes what is written to the file (and, for a file, to the disk). */
static bool flush_out(recorder_t *r)
{
    if (fflush(r->f) != 0 || (r->regular && fsync(fileno(r->f)) != 0)) {
        if (!r->failed)
            r->error = errno;
        r->failed = true;
    }
    return !r->failed;
}

/* Opens where the user asked, as tee would: "-" is standard output; a
 * regular file or a new name is written in place (a symlink followed); a
 * FIFO, a terminal or a device is streamed into. Nothing is ever renamed
 * over what the user named, and nothing is touched when it cannot be used:
 * a file is emptied only once the robot is open (take_file); until then
 * what is recorded waits in memory. */
static bool open_output(recorder_t *r, const char *path)
{
    if (strcmp(path, "-") == 0) {
        r->f = stdout;
        return true;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        cli_error("record", "%s is a directory: -o names the file to write", path);
        return false;
    }
    r->created = lstat(path, &sb) != 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0 && errno == ENXIO) {
        /* a FIFO nobody reads yet: wait for the reader, as tee does */
        fprintf(stderr, "botwire record: waiting for a reader on the FIFO %s\n", path);
        fd = open(path, O_WRONLY | O_CLOEXEC);
    }
    if (fd < 0) {
        cli_error("record", "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        r->regular = true;
        r->fd = fd;
        r->f = open_memstream(&r->mem, &r->memlen);
    } else {
        r->f = fdopen(fd, "w");
    }
    if (!r->f) {
        cli_error("record", "cannot write %s: %s", path, strerror(errno));
        close(fd);
        return false;
    }
    return true;
}

/* The robot is open: the file is emptied and what waited in memory goes
 * into it; from now on the file is written directly. */
static bool take_file(recorder_t *r)
{
    if (!r->regular)
        return true;
    bool ok = fflush(r->f) == 0;
    FILE *f = ok && ftruncate(r->fd, 0) == 0 ? fdopen(r->fd, "w") : NULL;
    if (!f || (r->memlen && fwrite(r->mem, 1, r->memlen, f) != r->memlen)) {
        r->error = errno;
        r->failed = true;
    }
    fclose(r->f);
    free(r->mem);
    r->mem = NULL;
    if (!f) {
        close(r->fd);
        r->f = NULL;
        return false;
    }
    r->f = f;
    return flush_out(r);
}

/* The robot could not be opened: the file is left as it was (and a file
 * this run made is removed). */
static void give_up_file(recorder_t *r, const char *path)
{
    if (r->f && r->f != stdout)
        fclose(r->f);
    if (r->regular) {
        free(r->mem);
        close(r->fd);
        if (r->created)
            unlink(path);
    }
}

static void tap(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    recorder_t *r = ctx;
    static const char digits[] = "0123456789abcdef";
    if (r->failed)
        return;
    fprintf(r->f, "{\"t\":%.6f,\"from\":\"%s\",\"data\":\"", now - r->t0,
            from_robot ? "robot" : "host");
    for (size_t i = 0; i < n; i++) {
        putc(digits[data[i] >> 4], r->f);
        putc(digits[data[i] & 15], r->f);
    }
    fputs("\"}\n", r->f);
    if (ferror(r->f)) {
        r->error = errno;
        r->failed = true;
    }
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
    char err[256];
    bw_url_t u;
    if (bw_url_parse(url, &u, err, sizeof err) < 0) {
        cli_error("record", "%s", err);
        return 2;
    }
    /* Where it goes is checked before the robot is opened, and for a
     * stream the header written: a path that cannot take it (a directory,
     * no permission, a missing folder, a full device) fails before anything
     * moves. A file's header waits in memory until the robot is open, and
     * fails (a full disk) before the robot is driven. */
    recorder_t r = { 0 };
    if (!open_output(&r, output))
        return 1;
    r.t0 = cli_now();
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
    if (ferror(r.f) || (!r.regular && !flush_out(&r))) {
        cli_error("record", "cannot write %s: %s", output, strerror(r.error ? r.error : EIO));
        give_up_file(&r, output);
        return 1;
    }
    bw_base_options_t o = { .tap = tap, .tap_ctx = &r };
    bw_base_t *b;
    if (bw_base_open(&b, url, &o, r.t0, err, sizeof err) < 0) {
        cli_error("record", "%s", err);
        give_up_file(&r, output);
        return 1;
    }
    if (!take_file(&r)) {
        cli_error("record", "cannot write %s: %s", output, strerror(r.error ? r.error : EIO));
        bw_base_close(b, cli_now());
        if (r.f)
            fclose(r.f);
        return 1;
    }
    cli_check_limits("record", b, v, w);
    cli_catch_signals();

    double now = r.t0, end = r.t0 + duration, next_flush = r.t0 + FLUSH_PERIOD;
    while (!cli_interrupted && now < end && !r.failed) {
        bw_base_drive(b, v, w, now);
        cli_wait(bw_base_fd(b), fmin(fmin(bw_base_next_deadline(b), end), next_flush));
        now = cli_now();
        bw_base_poll(b, now);
        if (now >= next_flush) {
            flush_out(&r);
            next_flush = now + FLUSH_PERIOD;
        }
        bw_event_t ev;
        while (bw_base_next_event(b, &ev))
            fprintf(stderr, "botwire record: %.2f s: %s%s\n", ev.t - r.t0, bw_event_name(ev.type),
                    ev.on || ev.type == BW_EV_OFFLINE ? "" : " cleared");
        bw_base_heard_t h;
        bw_base_heard(b, &h);
        if (h.wrong && h.sure)
            break; /* another family's robot: said below, what came is kept */
    }
    /* The stop first, whatever ended the run. */
    int signalled = cli_interrupted;
    bw_base_heard_t heard;
    bw_base_heard(b, &heard);
    bool stop_sent = bw_base_stop(b, now) == 0;
    bw_base_poll(b, now);
    int status = signalled ? 128 + signalled : 0;
    if (heard.wrong) {
        /* Recorded all the same (decode it with the family it speaks);
         * nothing was sent to a robot of another family. */
        cli_base_unheard("record", b, url, now - r.t0);
        status = status ? status : 1;
    } else if (!stop_sent) {
        cli_error("record", "could not send the stop: the link to %s is down", url);
        status = status ? status : 1;
    }
    bw_base_close(b, now);
    bool ok = flush_out(&r);
    if (r.f != stdout && fclose(r.f) != 0 && ok) {
        r.error = errno;
        ok = false;
    }
    if (!ok) {
        if (r.error == EPIPE && r.f == stdout)
            return 141; /* `record -o - | head`: the reader went, as SIGPIPE would have it */
        cli_error("record", "cannot write %s: %s", output, strerror(r.error ? r.error : EIO));
        return 1;
    }
    fprintf(stderr, "botwire record: %.1f s, %llu bytes from the robot, %llu from the host, in %s\n",
            now - r.t0, (unsigned long long)r.bytes[1], (unsigned long long)r.bytes[0], output);
    return status;
}
