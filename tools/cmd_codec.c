/* `botwire decode` and `botwire encode`: bytes <-> JSON Lines. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static void decode_usage(FILE *f)
{
    fprintf(f,
            "usage: botwire decode --proto P [--from robot|host] [--hex] [--frames] [--strict] [FILE|-]\n"
            "\n"
            "Reads protocol bytes (from FILE, or standard input) and writes JSON Lines:\n"
            "one object per message with \"type\" and its fields in wire units, then a final\n"
            "{\"type\":\"stats\",...} line counting frames, checksum_errors, length_errors,\n"
            "skipped_bytes and unknown messages. Bad bytes are counted, never fatal.\n"
            "The input is raw bytes, or a file made by `botwire record` (recognised by its\n"
            "first line), whose messages also get \"t\" (s) and \"from\" (robot or host).\n"
            "\n"
            "  --proto P        protocol: %s\n"
            "  --from SIDE      who sent the bytes: robot or host (raw input: robot by\n"
            "                   default; a record: both unless given)\n"
            "  --hex            the input is hex text (\"aa 55 ...\"; '#' comments)\n"
            "  --frames         one JSON array per frame instead of one object per message\n"
            "  --strict         exit with status 1 if anything was rejected or unknown\n"
            "  -h, --help       this help\n",
            cli_codec_names());
}

typedef struct {
    FILE *out;
    bool failed;
    /* Record files: each message says when and from whom. */
    bool annotate;
    double t;
    const char *from;
} emit_ctx_t;

static void annotate(json_t *msg, const emit_ctx_t *e)
{
    if (json_is_array(msg)) {
        size_t i;
        json_t *m;
        json_array_foreach(msg, i, m) annotate(m, e);
        return;
    }
    json_object_set_new(msg, "t", json_real(e->t));
    json_object_set_new(msg, "from", json_string(e->from));
}

static int emit_line(json_t *msg, void *ctx)
{
    emit_ctx_t *e = ctx;
    if (e->annotate)
        annotate(msg, e);
    int rc = json_dumpf(msg, e->out, JSON_COMPACT | JSON_REAL_PRECISION(10));
    json_decref(msg);
    if (rc < 0 || fputc('\n', e->out) == EOF) {
        e->failed = true;
        return -1;
    }
    return 0;
}

/* The first line of a `botwire record` file. */
static const char record_magic[] = "{\"botwire_record\":";

typedef struct {
    const cli_codec_t *codec;
    void *state[2]; /* [0] bytes from the host, [1] from the robot */
    bool use[2];
    emit_ctx_t ctx;
    const char *path;
    size_t line_no;
} record_t;

/* One line of a record file: {"t":..,"from":"robot"|"host","data":"hex"}. */
static int record_line(record_t *r, const char *line, size_t n, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *o = json_loadb(line, n, 0, &jerr);
    if (!o) {
        snprintf(err, errlen, "line %zu: malformed JSON: %s", r->line_no, jerr.text);
        return -1;
    }
    int rc = -1;
    uint8_t *bytes = NULL;
    json_t *t = json_object_get(o, "t"), *from = json_object_get(o, "from");
    json_t *data = json_object_get(o, "data");
    if (r->line_no == 1) {
        json_t *v = json_object_get(o, "botwire_record");
        if (!json_is_integer(v) || json_integer_value(v) != 1) {
            snprintf(err, errlen, "line 1: not a version 1 botwire record");
            goto out;
        }
        rc = 0;
        goto out;
    }
    if (!json_is_number(t) || !json_is_string(from) || !json_is_string(data) ||
        (strcmp(json_string_value(from), "robot") && strcmp(json_string_value(from), "host"))) {
        snprintf(err, errlen, "line %zu: expected {\"t\":SECONDS,\"from\":\"robot\"|\"host\",\"data\":\"HEX\"}",
                 r->line_no);
        goto out;
    }
    int dir = strcmp(json_string_value(from), "robot") == 0;
    size_t len = json_string_length(data) / 2 + 1, got;
    char why[CLI_ERRLEN];
    bytes = malloc(len);
    if (!bytes) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (jm_get_hex(o, "data", bytes, len, &got, why, sizeof why) < 0) {
        snprintf(err, errlen, "line %zu: %.200s", r->line_no, why);
        goto out;
    }
    rc = 0;
    if (r->use[dir]) {
        r->ctx.t = json_number_value(t);
        r->ctx.from = dir ? "robot" : "host";
        rc = r->codec->push(r->state[dir], bytes, got, emit_line, &r->ctx);
    }
out:
    free(bytes);
    json_decref(o);
    return rc;
}

/* Feeds complete lines from buf, keeping a partial last line. */
static int record_feed(record_t *r, cli_buf_t *buf, bool at_end, char *err, size_t errlen)
{
    size_t pos = 0;
    for (;;) {
        const uint8_t *nl = memchr(buf->p + pos, '\n', buf->len - pos);
        size_t end = nl ? (size_t)(nl - buf->p) : buf->len;
        if (!nl && !at_end)
            break;
        if (end > pos || nl) {
            r->line_no++;
            if (end > pos && record_line(r, (const char *)buf->p + pos, end - pos, err, errlen) < 0)
                return -1;
        }
        pos = nl ? end + 1 : end;
        if (!nl)
            break;
    }
    memmove(buf->p, buf->p + pos, buf->len - pos);
    buf->len -= pos;
    return 0;
}

int cmd_decode(int argc, char **argv)
{
    static const struct option opts[] = {
        { "proto", required_argument, NULL, 'p' }, { "from", required_argument, NULL, 'f' },
        { "hex", no_argument, NULL, 'x' },         { "frames", no_argument, NULL, 'F' },
        { "strict", no_argument, NULL, 's' },      { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *proto = NULL, *from = NULL;
    bool hex = false, frames = false, strict = false;
    int c;
    optind = 0;
    while ((c = cli_getopt("decode", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'p': proto = optarg; break;
        case 'f': from = optarg; break;
        case 'x': hex = true; break;
        case 'F': frames = true; break;
        case 's': strict = true; break;
        case 'h': decode_usage(stdout); return 0;
        default: return 2;
        }
    }
    if (!proto) {
        cli_error("decode", "--proto is required (one of: %s)", cli_codec_names());
        return 2;
    }
    const cli_codec_t *codec = cli_codec_find(proto);
    if (!codec) {
        cli_error("decode", "unknown protocol \"%s\" (one of: %s)", proto, cli_codec_names());
        return 2;
    }
    if (from && strcmp(from, "robot") != 0 && strcmp(from, "host") != 0) {
        cli_error("decode", "--from must be robot or host, not \"%s\"", from);
        return 2;
    }
    if (argc - optind > 1) {
        cli_error("decode", "more than one input file given");
        return 2;
    }
    const char *path = optind < argc ? argv[optind] : "-";
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cli_error("decode", "cannot open %s: %s", path, strerror(errno));
        return 1;
    }

    /* Two decoders: a record file carries both directions; raw bytes use
     * the one --from names (robot by default). */
    record_t r = { .codec = codec, .path = path };
    r.ctx.out = stdout;
    for (int dir = 0; dir < 2; dir++) {
        r.state[dir] = calloc(1, codec->state_size);
        if (!r.state[dir]) {
            cli_error("decode", "out of memory");
            return 1;
        }
        codec->init(r.state[dir], dir == 1, frames);
    }
    bool from_robot = !from || strcmp(from, "robot") == 0;
    r.use[0] = !from || !from_robot;
    r.use[1] = !from || from_robot;

    /* Streams: each read is decoded and written at once, so a live serial
     * port piped in shows up as it arrives. */
    enum { UNDECIDED, RAW, RECORD } mode = hex ? RAW : UNDECIDED;
    cli_hex_reader_t hr;
    cli_hex_init(&hr);
    cli_buf_t raw = { 0 }, pending = { 0 };
    char err[CLI_ERRLEN];
    int status = 0;
    uint8_t chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cli_error("decode", "cannot read %s: %s", path, strerror(errno));
            status = 1;
            break;
        }
        if (mode != RAW) {
            /* A record file is told by its first line; until enough bytes
             * are in to tell, they wait. */
            if (cli_buf_append(&pending, chunk, (size_t)n) < 0) {
                cli_error("decode", "out of memory");
                status = 1;
                break;
            }
            if (mode == UNDECIDED && (pending.len >= sizeof record_magic - 1 || n == 0))
                mode = pending.len >= sizeof record_magic - 1 &&
                               memcmp(pending.p, record_magic, sizeof record_magic - 1) == 0
                           ? RECORD
                           : RAW;
            if (mode == RECORD) {
                r.ctx.annotate = true;
                if (record_feed(&r, &pending, n == 0, err, sizeof err) < 0) {
                    cli_error("decode", "%s: %s", path, err);
                    status = 1;
                    break;
                }
                if (n == 0)
                    break;
                continue;
            }
            if (mode == UNDECIDED)
                continue;
            /* Raw after all: what waited goes first. */
            int dir = from_robot;
            if (codec->push(r.state[dir], pending.p, pending.len, emit_line, &r.ctx) < 0)
                break;
            pending.len = 0;
            if (n == 0)
                break;
            continue;
        }
        if (n == 0) {
            if (hex && cli_hex_end(&hr, err, sizeof err) < 0) {
                cli_error("decode", "%s: %s", path, err);
                status = 1;
            }
            break;
        }
        const uint8_t *bytes = chunk;
        size_t len = (size_t)n;
        if (hex) {
            raw.len = 0;
            if (cli_hex_feed(&hr, (const char *)chunk, len, &raw, err, sizeof err) < 0) {
                cli_error("decode", "%s: %s", path, err);
                status = 1;
                break;
            }
            bytes = raw.p;
            len = raw.len;
        }
        if (codec->push(r.state[from_robot], bytes, len, emit_line, &r.ctx) < 0 ||
            fflush(stdout) != 0)
            break;
    }
    if (fd != STDIN_FILENO)
        close(fd);
    /* After an input error the counters would describe a partial read: the
     * stats line is left out and the exit status says why. */
    bw_parse_stats_t stats = { 0 };
    if (status == 0) {
        for (int dir = 0; dir < 2; dir++) {
            if (!r.use[dir] || (mode != RECORD && dir != from_robot))
                continue;
            bw_parse_stats_t s;
            r.ctx.from = dir ? "robot" : "host";
            codec->finish(r.state[dir], emit_line, &r.ctx, &s);
            bw_parse_stats_add(&stats, &s);
        }
        r.ctx.annotate = false;
        if (!r.ctx.failed)
            emit_line(jm_stats(&stats), &r.ctx);
    }
    free(r.state[0]);
    free(r.state[1]);
    cli_buf_free(&raw);
    cli_buf_free(&pending);
    if (fflush(stdout) != 0 || r.ctx.failed) {
        cli_error("decode", "cannot write output: %s", strerror(errno));
        return 1;
    }
    if (status == 0 && strict &&
        (stats.skipped_bytes || stats.checksum_errors || stats.length_errors || stats.unknown)) {
        cli_error("decode", "input had rejected bytes or unknown messages (--strict)");
        return 1;
    }
    return status;
}

static void encode_usage(FILE *f)
{
    fprintf(f,
            "usage: botwire encode --proto P [--hex] [-o FILE] [FILE|-]\n"
            "\n"
            "Reads JSON Lines in the schema `botwire decode` writes and writes the frames'\n"
            "bytes. A line holding an array of messages becomes one frame carrying them all\n"
            "(where the protocol allows it); \"stats\" lines are ignored. On any bad line\n"
            "nothing is written and the exit status is 1.\n"
            "\n"
            "  --proto P        protocol: %s\n"
            "  --hex            write hex text, one frame per line, instead of raw bytes\n"
            "  -o, --output F   write to F instead of standard output\n"
            "  -h, --help       this help\n",
            cli_codec_names());
}

int cmd_encode(int argc, char **argv)
{
    static const struct option opts[] = {
        { "proto", required_argument, NULL, 'p' }, { "hex", no_argument, NULL, 'x' },
        { "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *proto = NULL, *output = NULL;
    bool hex = false;
    int c;
    optind = 0;
    while ((c = cli_getopt("encode", argc, argv, "ho:", opts)) != -1) {
        switch (c) {
        case 'p': proto = optarg; break;
        case 'x': hex = true; break;
        case 'o': output = optarg; break;
        case 'h': encode_usage(stdout); return 0;
        default: return 2;
        }
    }
    if (!proto) {
        cli_error("encode", "--proto is required (one of: %s)", cli_codec_names());
        return 2;
    }
    const cli_codec_t *codec = cli_codec_find(proto);
    if (!codec) {
        cli_error("encode", "unknown protocol \"%s\" (one of: %s)", proto, cli_codec_names());
        return 2;
    }
    if (argc - optind > 1) {
        cli_error("encode", "more than one input file given");
        return 2;
    }
    const char *path = optind < argc ? argv[optind] : "-";

    char err[CLI_ERRLEN];
    cli_buf_t in = { 0 }, out = { 0 }, frame = { 0 };
    int status = 1;
    if (cli_read_all(path, &in, err, sizeof err) < 0) {
        cli_error("encode", "%s", err);
        goto done;
    }
    /* Everything is encoded in memory first, so a bad line leaves no output. */
    size_t line_no = 0;
    for (size_t pos = 0; pos < in.len;) {
        const uint8_t *nl = memchr(in.p + pos, '\n', in.len - pos);
        size_t end = nl ? (size_t)(nl - in.p) : in.len;
        const char *line = (const char *)in.p + pos;
        size_t n = end - pos;
        pos = end + 1;
        line_no++;
        size_t k = 0;
        while (k < n && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
            k++;
        if (k == n)
            continue;
        json_error_t jerr;
        json_t *v = json_loadb(line, n, JSON_REJECT_DUPLICATES, &jerr);
        if (!v) {
            cli_error("encode", "line %zu: malformed JSON: %s", line_no, jerr.text);
            goto done;
        }
        frame.len = 0;
        int rc = codec->encode(v, &frame, err, sizeof err);
        json_decref(v);
        if (rc < 0) {
            cli_error("encode", "line %zu: %s", line_no, err);
            goto done;
        }
        if (rc > 0)
            continue;
        if (hex) {
            static const char digits[] = "0123456789abcdef";
            for (size_t i = 0; i < frame.len; i++) {
                char t[3] = { digits[frame.p[i] >> 4], digits[frame.p[i] & 15],
                              i + 1 < frame.len ? ' ' : '\n' };
                if (cli_buf_append(&out, t, 3) < 0)
                    goto oom;
            }
        } else if (cli_buf_append(&out, frame.p, frame.len) < 0) {
            goto oom;
        }
    }

    FILE *f = output ? fopen(output, "wb") : stdout;
    if (!f) {
        cli_error("encode", "cannot create %s: %s", output, strerror(errno));
        goto done;
    }
    bool ok = out.len == 0 || fwrite(out.p, 1, out.len, f) == out.len; /* no NULL to fwrite */
    ok = (output ? fclose(f) : fflush(f)) == 0 && ok;
    if (!ok) {
        cli_error("encode", "cannot write output: %s", strerror(errno));
        goto done;
    }
    status = 0;
    goto done;
oom:
    cli_error("encode", "out of memory");
done:
    cli_buf_free(&in);
    cli_buf_free(&out);
    cli_buf_free(&frame);
    return status;
}
