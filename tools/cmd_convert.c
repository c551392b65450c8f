/* `botwire convert IN OUT`: a record from one format to the other (JSON Lines
 * and MCAP), the wire byte for byte. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "botwire/base.h"
#include "botwire/mcap.h"
#include "botwire/port.h"
#include "botwire/record.h"
#include "botwire/ros2.h"
#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire convert IN OUT [--format jsonl|mcap] [--compression C]\n"
            "\n"
            "Writes the record IN (made by `botwire record`: JSON Lines or MCAP, told by its\n"
            "first bytes) as OUT in the other format: MCAP for an OUT named *.mcap (or\n"
            "--format mcap), else JSON Lines (docs/record-format.md). The link's bytes and\n"
            "their times (to the microsecond, as both keep them) come across byte for byte:\n"
            "JSON Lines -> MCAP -> JSON Lines gives the same file. To MCAP, the ROS 2 topics\n"
            "`record` writes (/odom, /tf, ...) are made again from the robot's bytes, by the\n"
            "family's driver on the record's clock; from MCAP, only the wire comes across\n"
            "(JSON Lines holds nothing else: the ROS 2 topics left out are counted). A\n"
            "damaged part of IN is said (its line or offset), passed over, and\n"
            "the exit status is 1. OUT is written as `record -o` writes (- for standard\n"
            "output; a symlink followed; never renamed over).\n"
            "\n"
            "  --format F       jsonl or mcap (default: by OUT's name)\n"
            "  --compression C  MCAP's chunks: zstd (default), lz4 or none\n"
            "  -h, --help       this help\n");
}

#define FLUSH_PERIOD 0.25 /* s of record time a chunk, as `record` writes them */

typedef struct {
    const char *in_path;
    bw_record_writer_t *w;
    const char *out_path;
    bw_record_options_t ro;
    double next_flush;
    bool in_mcap;
    unsigned long long chunks, bytes[2], left_out, damaged, ros2;
    /* to MCAP: the family's driver, fed the robot's bytes at their times
     * through a port pair (what it sends goes nowhere), and the ROS 2
     * messages the recorder makes of it */
    bw_base_t *base;
    bw_port_t *robot; /* the pair's far end: the robot's side */
    bw_ros2_cdr_t *view;
    uint64_t start_ns;
} convert_t;

static void ros2_message(void *ctx, const bw_ros2_cdr_msg_t *m)
{
    convert_t *c = ctx;
    char qos[512];
    if (bw_ros2_qos_yaml(m->qos, m->depth, qos, sizeof qos) < 0)
        qos[0] = 0;
    if (bw_record_writer_cdr(c->w, m->topic, m->type, m->schema, qos, m->type_hash, m->stamp_ns,
                             m->data, m->len) == 0)
        c->ros2++;
}

/* The driver for the record's robot: its family, with the URL's options
 * (a model). Without it (a build without Cyclone DDS, a family unknown)
 * the wire alone goes across, as `record` does then. */
static void open_driver(convert_t *c, const bw_record_head_t *h)
{
    char family[300], err[300];
    const char *query = h->url ? strchr(h->url, '?') : NULL;
    snprintf(family, sizeof family, "%s%s", h->family ? h->family : "", query ? query : "");
    bw_port_t *near;
    if (bw_port_pair(&near, &c->robot, 1 << 20) < 0)
        return;
    bw_base_options_t bo;
    memset(&bo, 0, sizeof bo);
    if (bw_base_open_port(&c->base, family, near, &bo, 0, err, sizeof err) < 0 ||
        bw_ros2_cdr_open(&c->view, c->base, NULL, h->url, NULL, ros2_message, c, err,
                         sizeof err) < 0) {
        fprintf(stderr, "botwire convert: %s: the wire alone, no ROS 2 topics\n", err);
        bw_base_close(c->base, 0);
        bw_port_close(c->robot);
        c->base = NULL;
        c->robot = NULL;
    }
}

/* The driver at t: the robot's bytes of a chunk (if any) in, what it
 * sends drained, its state and events as ROS 2 messages stamped with the
 * record's clock. */
static void drive_to(convert_t *c, double t, const uint8_t *data, size_t n)
{
    if (!c->view)
        return;
    if (n)
        bw_port_write(c->robot, data, n);
    uint8_t sink[4096];
    bw_ros2_cdr_clock(c->view, c->start_ns + (uint64_t)(t > 0 ? t * 1e9 : 0));
    bw_base_poll(c->base, t);
    while (bw_port_read(c->robot, sink, sizeof sink) > 0)
        ;
    bw_ros2_cdr_step(c->view, t);
    bw_event_t ev;
    while (bw_base_next_event(c->base, &ev) > 0)
        bw_ros2_cdr_event(c->view, &ev);
}

static time_t parse_start(const char *text)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!text || !strptime(text, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return 0;
    return timegm(&tm);
}

/* The header: IN's format told, OUT opened. 0; 2 for the same format; 1
 * after saying why OUT cannot be written. */
static int on_head(void *ctx, const bw_record_head_t *h)
{
    convert_t *c = ctx;
    c->in_mcap = h->format == BW_RECORD_MCAP;
    if (h->format == c->ro.format) {
        cli_error("convert", "%s is %s already; OUT in the other format: a name ending .%s, or "
                  "--format", c->in_path, c->in_mcap ? "MCAP" : "JSON Lines",
                  c->in_mcap ? "jsonl" : "mcap");
        return 2;
    }
    c->ro.url = h->url;
    c->ro.family = h->family;
    c->ro.start = parse_start(h->start);
    c->ro.start_ns = h->start_ns;
    c->start_ns = h->start_ns ? h->start_ns : (uint64_t)c->ro.start * 1000000000u;
    char err[300];
    if (bw_record_writer_open(&c->w, c->out_path, &c->ro, err, sizeof err) < 0 ||
        bw_record_writer_commit(c->w, err, sizeof err) < 0) {
        cli_error("convert", "%s", err);
        if (c->w)
            bw_record_writer_abandon(c->w);
        c->w = NULL;
        return 1;
    }
    if (c->ro.format == BW_RECORD_MCAP)
        open_driver(c, h);
    return 0;
}

static int on_chunk(void *ctx, const bw_record_chunk_t *ch)
{
    convert_t *c = ctx;
    if (!ch)
        return 0;
    while (ch->t >= c->next_flush) {
        bw_record_writer_flush(c->w);
        c->next_flush += FLUSH_PERIOD;
    }
    bw_record_writer_chunk(c->w, ch->t, ch->from_robot, ch->data, ch->len);
    drive_to(c, ch->t, ch->from_robot ? ch->data : NULL, ch->from_robot ? ch->len : 0);
    c->chunks++;
    c->bytes[ch->from_robot] += ch->len;
    return 0;
}

static void on_damaged(void *ctx, const char *why)
{
    convert_t *c = ctx;
    fprintf(stderr, "botwire convert: %s: %s (passed over)\n", c->in_path, why);
    c->damaged++;
}

static void on_other(void *ctx, const bw_mcap_message_t *m)
{
    (void)m;
    ((convert_t *)ctx)->left_out++;
}

int cmd_convert(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'F' },
        { "compression", required_argument, NULL, 'C' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    cli_record_format_t rf = { .compression = BW_MCAP_ZSTD };
    int c;
    optind = 0;
    while ((c = cli_getopt("convert", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'F':
        case 'C':
            if (cli_record_format_opt("convert", c, optarg, &rf) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (argc - optind != 2) {
        cli_error("convert", "IN and OUT are required (botwire convert run.jsonl run.mcap)");
        return 2;
    }
    convert_t cv = { .in_path = argv[optind], .out_path = argv[optind + 1] };
    if (cli_record_format("convert", &rf, cv.out_path, &cv.ro.format) < 0)
        return 2;
    cv.ro.compression = rf.compression;
    cv.next_flush = FLUSH_PERIOD;
    struct stat a, b;
    if (stat(cv.in_path, &a) == 0 && stat(cv.out_path, &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino) {
        cli_error("convert", "%s and %s are the same file: OUT is written while IN is read",
                  cv.in_path, cv.out_path);
        return 2;
    }
    FILE *in = strcmp(cv.in_path, "-") == 0 ? stdin : fopen(cv.in_path, "rb");
    if (!in) {
        cli_error("convert", "cannot open %s: %s", cv.in_path, strerror(errno));
        return 1;
    }
    bw_record_visitor_t v = { .head = on_head, .chunk = on_chunk, .damaged = on_damaged,
                              .other = on_other, .ctx = &cv };
    char err[300];
    int rc = bw_record_read(in, &v, err, sizeof err);
    if (in != stdin)
        fclose(in);
    if (rc < 0) {
        cli_error("convert", "%s: %s", cv.in_path, err);
        rc = 1;
    }
    bw_ros2_cdr_close(cv.view);
    if (cv.base) {
        bw_base_close(cv.base, 0);
        bw_port_close(cv.robot);
    }
    if (cv.w) {
        int e = bw_record_writer_close(cv.w);
        if (e && !rc) {
            cli_error("convert", "cannot write %s: %s", cv.out_path, strerror(e));
            rc = 1;
        }
    }
    if (rc)
        return rc;
    bool mcap = cv.in_mcap;
    fprintf(stderr,
            "botwire convert: %llu chunks (%llu bytes from the robot, %llu from the host) from "
            "%s (%s) to %s (%s)",
            cv.chunks, cv.bytes[1], cv.bytes[0], cv.in_path, mcap ? "mcap" : "jsonl", cv.out_path,
            mcap ? "jsonl" : "mcap");
    if (cv.left_out)
        fprintf(stderr, "; %llu ROS 2 messages left out (JSON Lines holds the wire alone)",
                cv.left_out);
    if (cv.ros2)
        fprintf(stderr, "; %llu ROS 2 messages made from the robot's bytes", cv.ros2);
    if (cv.damaged)
        fprintf(stderr, "; %llu damaged parts passed over", cv.damaged);
    fputc('\n', stderr);
    return cv.damaged ? 1 : 0;
}
