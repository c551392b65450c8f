/* `botwire record`: save the bytes of a robot link, both ways, with times. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "botwire/record.h"
#include "botwire/ros2.h"
#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire record URL -o FILE [--format jsonl|mcap] [--compression C]\n"
            "                      [--for SECONDS] [--v M/S] [--w RAD/S]\n"
            "       botwire record --recover FILE.mcap [--compression C]\n"
            "\n"
            "Connects to a robot and saves every byte of the link, both ways, with its time,\n"
            "until --for runs out or Ctrl-C (the robot is stopped either way). The file is\n"
            "JSON Lines (docs/record-format.md): a header, then\n"
            "{\"t\":SECONDS,\"from\":\"robot\"|\"host\",\"data\":\"HEX\"} per chunk; or,\n"
            "for a FILE named *.mcap or with --format mcap, MCAP (Foxglove's and ROS 2's\n"
            "log format): the bytes as messages on /wire/robot and /wire/host, and the\n"
            "robot as the ROS 2 node publishes it (/odom, /tf, /tf_static, /range/N,\n"
            "/battery, /diagnostics, /events, ... as CDR with their ros2msg schemas), in\n"
            "chunks, with the summary and indexes indexed readers seek by.\n"
            "`botwire decode --proto P FILE` decodes either.\n"
            "\n"
            "%s"
            "\n"
            "  -o, --output F   where to write (required): a file, written in place\n"
            "                   (created, or emptied first; a symlink is followed), a\n"
            "                   FIFO, a terminal or a device streamed into, or - for\n"
            "                   standard output. Flushed every 0.25 s (MCAP: a chunk\n"
            "                   closed): a recorder killed leaves what it had, and what\n"
            "                   it left decodes.\n"
            "  --format F       jsonl or mcap (default: mcap for a FILE named *.mcap,\n"
            "                   else jsonl)\n"
            "  --compression C  MCAP's chunks: zstd (default), lz4 or none\n"
            "  --for SECONDS    how long to record (default: until Ctrl-C)\n"
            "  --v M/S, --w RAD/S   drive meanwhile (default: stand still)\n"
            "  --recover FILE   an MCAP record whose recorder was killed (no summary, its\n"
            "                   last chunk cut off) or that is damaged: rewritten in place\n"
            "                   with everything readable, its summary and indexes (the\n"
            "                   new file is written beside it, then renamed over it; a\n"
            "                   regular file only). Damaged parts are said and left out;\n"
            "                   a complete file is left as it is.\n"
            "  -h, --help       this help\n",
            cli_url_help);
}

#define FLUSH_PERIOD 0.25 /* s of link time between flushes: what a kill can lose */
#define REST_WAIT 0.5     /* s after the stop for the odometry to say the robot is at rest */

typedef struct {
    bw_record_writer_t *w;
    double t0;
} recorder_t;

/* A message of the robot as ROS 2 sees it, into an MCAP record. */
static void ros2_message(void *ctx, const bw_ros2_cdr_msg_t *m)
{
    recorder_t *r = ctx;
    char qos[512];
    if (bw_ros2_qos_yaml(m->qos, m->depth, qos, sizeof qos) < 0)
        qos[0] = 0;
    bw_record_writer_cdr(r->w, m->topic, m->type, m->schema, qos, m->type_hash, m->stamp_ns,
                         m->data, m->len);
}

static void tap(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    recorder_t *r = ctx;
    bw_record_writer_chunk(r->w, now - r->t0, from_robot, data, n);
}

static void waiting(const char *path, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "botwire record: waiting for a reader on the FIFO %s\n", path);
}

/* ---- --recover --------------------------------------------------------------- */

typedef struct {
    FILE *out;
    const char *path;
} recovering_t;

static int recover_sink(void *ctx, const void *data, size_t n)
{
    recovering_t *v = ctx;
    return fwrite(data, 1, n, v->out) == n ? 0 : errno ? errno : EIO;
}

static void recover_damaged(void *ctx, const char *why)
{
    recovering_t *v = ctx;
    fprintf(stderr, "botwire record: %s: %s (left out)\n", v->path, why);
}

/* `record --recover PATH`: the file rewritten with its summary, beside it
 * and renamed over it; what was there stays if anything fails. */
static int recover(const char *path, const bw_mcap_compression_t *compression)
{
    struct stat st;
    if (lstat(path, &st) < 0) {
        cli_error("record", "cannot open %s: %s", path, strerror(errno));
        return 1;
    }
    if (!S_ISREG(st.st_mode)) {
        cli_error("record", "%s is %s: --recover rewrites a regular file in place (name the file "
                  "itself)", path, S_ISLNK(st.st_mode) ? "a symlink" : S_ISDIR(st.st_mode) ?
                  "a directory" : "not a regular file");
        return 2;
    }
    FILE *in = fopen(path, "rb");
    if (!in) {
        cli_error("record", "cannot open %s: %s", path, strerror(errno));
        return 1;
    }
    uint8_t head[32];
    size_t got = fread(head, 1, sizeof head, in);
    if (got < 8 || memcmp(head, BW_MCAP_MAGIC, 8) != 0) {
        cli_error("record", "%s is not MCAP%s", path, got && bw_record_sniff(head, got) == 1
                  ? " but JSON Lines: a killed recorder's JSON Lines need no recovery (every "
                    "complete line reads)" : " (its first bytes are not MCAP's magic)");
        fclose(in);
        return 1;
    }
    rewind(in);
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp) {
        fclose(in);
        cli_error("record", "out of memory");
        return 1;
    }
    snprintf(tmp, n + 16, "%s.recov-XXXXXX", path);
    int fd = mkstemp(tmp);
    recovering_t v = { fd >= 0 ? fdopen(fd, "wb") : NULL, path };
    if (!v.out) {
        cli_error("record", "cannot write beside %s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        fclose(in);
        return 1;
    }
    fchmod(fd, st.st_mode & 07777);
    bw_mcap_recover_t rep;
    char err[300];
    int rc = bw_mcap_recover(in, compression, recover_sink, &v, recover_damaged, &rep, err,
                             sizeof err);
    fclose(in);
    int e = rc < 0 ? 0 : fflush(v.out) != 0 || fsync(fd) != 0 ? errno : 0;
    if (fclose(v.out) != 0 && rc == 0 && !e)
        e = errno;
    if (rc < 0 || e) {
        unlink(tmp);
        free(tmp);
        if (rc < 0)
            cli_error("record", "%s: %s", path, err);
        else
            cli_error("record", "cannot write beside %s: %s", path, strerror(e));
        return 1;
    }
    if (rep.finished && !rep.damaged) {
        unlink(tmp);
        free(tmp);
        fprintf(stderr, "botwire record: %s is complete (its summary and footer are there): "
                "left as it is\n", path);
        return 0;
    }
    if (rename(tmp, path) < 0) {
        cli_error("record", "cannot replace %s: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return 1;
    }
    free(tmp);
    fprintf(stderr, "botwire record: %s recovered: %llu messages on %llu channels, indexed; read "
            "to offset %llu of %llu bytes", path, (unsigned long long)rep.messages,
            (unsigned long long)rep.channels, (unsigned long long)rep.read_to,
            (unsigned long long)rep.size);
    if (rep.damaged)
        fprintf(stderr, ", %llu damaged or cut-off parts left out", (unsigned long long)rep.damaged);
    fputc('\n', stderr);
    return 0;
}

/* The robot's events since the last call, one line each (and into the
 * record's ROS 2 topics). */
static void say_events(bw_base_t *b, double t0, bw_ros2_cdr_t *ros2)
{
    bw_event_t ev;
    while (bw_base_next_event(b, &ev)) {
        fprintf(stderr, "botwire record: %.2f s: %s%s\n", ev.t - t0, bw_event_name(ev.type),
                ev.on || ev.type == BW_EV_OFFLINE ? "" : " cleared");
        if (ros2)
            bw_ros2_cdr_event(ros2, &ev);
    }
}

int cmd_record(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' }, { "for", required_argument, NULL, 'f' },
        { "v", required_argument, NULL, 'v' },      { "w", required_argument, NULL, 'w' },
        { "format", required_argument, NULL, 'F' }, { "compression", required_argument, NULL, 'C' },
        { "recover", required_argument, NULL, 'R' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *output = NULL, *recovering = NULL;
    bool live = false;
    cli_record_format_t rf = { .compression = BW_MCAP_ZSTD };
    double duration = INFINITY, v = 0, w = 0;
    int c;
    optind = 0;
    while ((c = cli_getopt("record", argc, argv, "ho:", opts)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'R': recovering = optarg; break;
        case 'f':
            if (cli_number("record", "--for", optarg, 0, 1e7, &duration) < 0)
                return 2;
            live = true;
            break;
        case 'v':
            if (cli_number("record", "--v", optarg, -5, 5, &v) < 0)
                return 2;
            live = true;
            break;
        case 'w':
            if (cli_number("record", "--w", optarg, -20, 20, &w) < 0)
                return 2;
            live = true;
            break;
        case 'F':
        case 'C':
            if (cli_record_format_opt("record", c, optarg, &rf) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (recovering) {
        if (optind != argc || output || live || rf.format) {
            cli_error("record", "--recover FILE takes no URL, -o, --format, --for, --v or --w "
                      "(only --compression)");
            return 2;
        }
        return recover(recovering, rf.compression_given ? &rf.compression : NULL);
    }
    if (optind != argc - 1 || !output) {
        cli_error("record", !output ? "-o FILE is required" : "one robot URL is required");
        return 2;
    }
    bw_record_format_t fmt;
    if (cli_record_format("record", &rf, output, &fmt) < 0)
        return 2;
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
    char family[sizeof u.family];
    for (size_t i = 0; i < sizeof family; i++)
        family[i] = (char)tolower((unsigned char)u.family[i]);
    /* t = 0: the monotonic clock's t0 and the wall clock's start, read
     * together (MCAP's log times are the wall clock's, as ROS 2's stamps) */
    struct timespec wall;
    r.t0 = cli_now();
    clock_gettime(CLOCK_REALTIME, &wall);
    bw_record_options_t ro = { .format = fmt, .compression = rf.compression,
                               .url = url, .family = family, .start = wall.tv_sec,
                               .start_ns = (uint64_t)wall.tv_sec * 1000000000u +
                                           (uint64_t)wall.tv_nsec,
                               .waiting_for_reader = waiting };
    if (bw_record_writer_open(&r.w, output, &ro, err, sizeof err) < 0) {
        cli_error("record", "%s", err);
        return 1;
    }
    bw_base_options_t o = { .tap = tap, .tap_ctx = &r };
    bw_base_t *b;
    if (bw_base_open(&b, url, &o, r.t0, err, sizeof err) < 0) {
        cli_error("record", "%s", err);
        bw_record_writer_abandon(r.w);
        return 1;
    }
    if (bw_record_writer_commit(r.w, err, sizeof err) < 0) {
        cli_error("record", "%s", err);
        bw_base_close(b, cli_now());
        bw_record_writer_close(r.w);
        return 1;
    }
    cli_check_limits("record", b, v, w);
    cli_catch_signals();
    /* An MCAP record holds the robot as ROS 2 sees it too: the ROS 2 node's
     * messages, serialized by its code. */
    bw_ros2_cdr_t *ros2 = NULL;
    if (fmt == BW_RECORD_MCAP &&
        bw_ros2_cdr_open(&ros2, b, NULL, url, NULL, ros2_message, &r, err, sizeof err) < 0)
        fprintf(stderr, "botwire record: %s: the record holds the wire alone, no ROS 2 topics\n",
                err);

    double now = r.t0, end = r.t0 + duration, next_flush = r.t0 + FLUSH_PERIOD;
    while (!cli_interrupted && now < end && !bw_record_writer_error(r.w)) {
        bw_base_drive(b, v, w, now);
        cli_wait(bw_base_fd(b), fmin(fmin(bw_base_next_deadline(b), end), next_flush));
        now = cli_now();
        bw_base_poll(b, now);
        if (ros2)
            bw_ros2_cdr_step(ros2, now);
        if (now >= next_flush) {
            bw_record_writer_flush(r.w);
            next_flush = now + FLUSH_PERIOD;
        }
        say_events(b, r.t0, ros2);
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
    /* The robot brakes after the stop: the record goes on until its
     * odometry is at rest (half a second at most), so that its last pose is
     * where the robot stayed. */
    double rest_by = now + REST_WAIT, stopped_at = now;
    while (stop_sent && !heard.wrong && now < rest_by && !bw_record_writer_error(r.w)) {
        const bw_base_state_t *st = bw_base_state(b);
        if (st->t > stopped_at && st->v == 0 && st->w == 0)
            break;
        cli_wait(bw_base_fd(b), fmin(bw_base_next_deadline(b), rest_by));
        now = cli_now();
        bw_base_poll(b, now);
        if (ros2)
            bw_ros2_cdr_step(ros2, now);
        say_events(b, r.t0, ros2); /* a robot that came online late says so here */
    }
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
    bw_ros2_cdr_close(ros2);
    bw_base_close(b, now);
    uint64_t from_robot = bw_record_writer_bytes(r.w, true),
             from_host = bw_record_writer_bytes(r.w, false);
    bool to_stdout = strcmp(output, "-") == 0;
    int e = bw_record_writer_close(r.w);
    if (e) {
        if (e == EPIPE && to_stdout)
            return 141; /* `record -o - | head`: the reader went, as SIGPIPE would have it */
        cli_error("record", "cannot write %s: %s", output, strerror(e));
        return 1;
    }
    fprintf(stderr, "botwire record: %.1f s, %llu bytes from the robot, %llu from the host, in %s\n",
            now - r.t0, (unsigned long long)from_robot, (unsigned long long)from_host, output);
    return status;
}
