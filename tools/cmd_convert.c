/* `botwire convert IN OUT`: a record from one format to the other (JSON Lines
 * and MCAP), the wire byte for byte. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "botwire/mcap.h"
#include "botwire/record.h"
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
            "JSON Lines -> MCAP -> JSON Lines gives the same file. From MCAP, only the wire\n"
            "comes across (JSON Lines holds nothing else: the ROS 2 topics left out are\n"
            "counted). A damaged part of IN is said (its line or offset), passed over, and\n"
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
    unsigned long long chunks, bytes[2], left_out, damaged;
    int status;
} convert_t;

static time_t parse_start(const char *text)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!text || !strptime(text, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return 0;
    return timegm(&tm);
}

/* The output, once the header is known. 0, or 1 after saying why. */
static int open_out(convert_t *c)
{
    char err[300];
    if (bw_record_writer_open(&c->w, c->out_path, &c->ro, err, sizeof err) < 0 ||
        bw_record_writer_commit(c->w, err, sizeof err) < 0) {
        cli_error("convert", "%s", err);
        if (c->w)
            bw_record_writer_abandon(c->w);
        c->w = NULL;
        return 1;
    }
    return 0;
}

static void chunk(convert_t *c, double t, bool from_robot, const uint8_t *data, size_t n)
{
    while (t >= c->next_flush) {
        bw_record_writer_flush(c->w);
        c->next_flush += FLUSH_PERIOD;
    }
    bw_record_writer_chunk(c->w, t, from_robot, data, n);
    c->chunks++;
    c->bytes[from_robot] += n;
}

static void damaged(convert_t *c, const char *what)
{
    fprintf(stderr, "botwire convert: %s: %s (passed over)\n", c->in_path, what);
    c->damaged++;
}

static int from_jsonl(convert_t *c, FILE *in)
{
    bw_record_reader_t r;
    bw_record_reader_init(&r);
    char *line = NULL, err[300];
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    while ((n = getline(&line, &cap, in)) >= 0) {
        size_t len = (size_t)n;
        if (len && line[len - 1] == '\n')
            len--;
        bw_record_chunk_t ch;
        int k = bw_record_reader_line(&r, line, len, &ch, err, sizeof err);
        if (k == BW_ENOMEM) {
            cli_error("convert", "out of memory");
            rc = 1;
            break;
        }
        if (k < 0) {
            damaged(c, err);
            if (r.line_no == 1)
                break; /* not a record at all */
            continue;
        }
        if (r.line_no == 1 && k == 0) {
            c->ro.url = r.url;
            c->ro.family = r.family;
            c->ro.start = parse_start(r.start);
            if ((rc = open_out(c)) != 0)
                break;
        }
        if (k == 1)
            chunk(c, ch.t, ch.from_robot, ch.data, ch.len);
    }
    free(line);
    if (!rc && !c->w) {
        cli_error("convert", "%s: no botwire record header on its first line", c->in_path);
        rc = 1;
    }
    if (!rc && ferror(in)) {
        cli_error("convert", "cannot read %s: %s", c->in_path, strerror(errno));
        rc = 1;
    }
    bw_record_reader_free(&r);
    return rc;
}

static int from_mcap(convert_t *c, FILE *in)
{
    bw_mcap_reader_t *r = bw_mcap_reader_new();
    if (!r) {
        cli_error("convert", "out of memory");
        return 1;
    }
    static uint8_t buf[1 << 16];
    char err[300];
    uint64_t start_ns = 0;
    bool ended = false;
    int rc = 0;
    while (!rc) {
        bw_mcap_message_t m;
        int k = bw_mcap_next(r, &m, err, sizeof err);
        if (k == 0) {
            if (ended)
                break;
            size_t n = fread(buf, 1, sizeof buf, in);
            if (n == 0) {
                bw_mcap_reader_end(r);
                ended = true;
            } else if (bw_mcap_reader_push(r, buf, n) < 0) {
                cli_error("convert", "out of memory");
                rc = 1;
            }
            continue;
        }
        if (k < 0) {
            damaged(c, err);
            continue;
        }
        if (!c->w) { /* the first message: the header's metadata is in */
            const char *ns = bw_mcap_meta(r, "botwire", "start_ns");
            start_ns = ns ? strtoull(ns, NULL, 10) : 0;
            c->ro.url = bw_mcap_meta(r, "botwire", "url");
            c->ro.family = bw_mcap_meta(r, "botwire", "family");
            c->ro.start = parse_start(bw_mcap_meta(r, "botwire", "start"));
            c->ro.start_ns = start_ns;
            if ((rc = open_out(c)) != 0)
                break;
        }
        int dir = !strcmp(m.topic, "/wire/robot") ? 1 : !strcmp(m.topic, "/wire/host") ? 0 : -1;
        if (dir < 0) {
            c->left_out++;
            continue;
        }
        chunk(c, (double)(int64_t)(m.log_time - start_ns) / 1e9, dir == 1, m.data, m.len);
    }
    if (!rc && !c->w) {
        if (!bw_mcap_meta(r, "botwire", "url")) {
            cli_error("convert", "%s: no botwire metadata: not a record `botwire record` made",
                      c->in_path);
            rc = 1;
        } else {
            c->ro.url = bw_mcap_meta(r, "botwire", "url");
            c->ro.family = bw_mcap_meta(r, "botwire", "family");
            c->ro.start = parse_start(bw_mcap_meta(r, "botwire", "start"));
            rc = open_out(c);
        }
    }
    if (!rc && ferror(in)) {
        cli_error("convert", "cannot read %s: %s", c->in_path, strerror(errno));
        rc = 1;
    }
    if (rc || !c->w) {
        bw_mcap_reader_free(r);
        return rc ? rc : 1;
    }
    /* the writer holds pointers into the reader's metadata until it closes */
    int e = bw_record_writer_close(c->w);
    c->w = NULL;
    bw_mcap_reader_free(r);
    if (e) {
        cli_error("convert", "cannot write %s: %s", c->out_path, strerror(e));
        return 1;
    }
    return 0;
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
    uint8_t head[8];
    size_t got = fread(head, 1, sizeof head, in);
    bool mcap = got == 8 && memcmp(head, BW_MCAP_MAGIC, 8) == 0;
    bool jsonl = got > 0 && bw_record_sniff(head, got) != 0;
    if (!mcap && !jsonl) {
        cli_error("convert", "%s: not a botwire record (JSON Lines or MCAP)", cv.in_path);
        if (in != stdin)
            fclose(in);
        return 1;
    }
    if ((mcap ? BW_RECORD_MCAP : BW_RECORD_JSONL) == cv.ro.format) {
        cli_error("convert", "%s is %s already; OUT in the other format: a name ending .%s, or "
                  "--format", cv.in_path, mcap ? "MCAP" : "JSON Lines", mcap ? "jsonl" : "mcap");
        if (in != stdin)
            fclose(in);
        return 2;
    }
    /* read again from the start: a file rewinds; a pipe's bytes are kept */
    FILE *all = in;
    char *kept = NULL;
    size_t kept_len = 0;
    if (fseek(in, 0, SEEK_SET) != 0) {
        FILE *mem = open_memstream(&kept, &kept_len);
        static uint8_t buf[1 << 16];
        size_t n;
        if (mem) {
            fwrite(head, 1, got, mem);
            while ((n = fread(buf, 1, sizeof buf, in)) > 0)
                fwrite(buf, 1, n, mem);
            fclose(mem);
        }
        all = mem && !ferror(in) ? fmemopen(kept, kept_len, "rb") : NULL;
        if (!all) {
            cli_error("convert", "cannot read %s: %s", cv.in_path,
                      ferror(in) ? strerror(errno) : "out of memory");
            free(kept);
            return 1;
        }
    }
    int rc = mcap ? from_mcap(&cv, all) : from_jsonl(&cv, all);
    if (all != stdin)
        fclose(all);
    if (all != in && in != stdin)
        fclose(in);
    free(kept);
    if (cv.w) {
        int e = bw_record_writer_close(cv.w);
        if (e && !rc) {
            cli_error("convert", "cannot write %s: %s", cv.out_path, strerror(e));
            rc = 1;
        }
    }
    if (rc)
        return rc;
    fprintf(stderr,
            "botwire convert: %llu chunks (%llu bytes from the robot, %llu from the host) from "
            "%s (%s) to %s (%s)",
            cv.chunks, cv.bytes[1], cv.bytes[0], cv.in_path, mcap ? "mcap" : "jsonl", cv.out_path,
            mcap ? "jsonl" : "mcap");
    if (cv.left_out)
        fprintf(stderr, "; %llu ROS 2 messages left out (JSON Lines holds the wire alone)",
                cv.left_out);
    if (cv.damaged)
        fprintf(stderr, "; %llu damaged parts passed over", cv.damaged);
    fputc('\n', stderr);
    return cv.damaged ? 1 : 0;
}
