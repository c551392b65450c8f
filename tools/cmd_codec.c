/* `botwire decode` and `botwire encode`: bytes <-> JSON Lines. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "json/jw.h"

static void decode_usage(FILE *f)
{
    fprintf(f,
            "usage: botwire decode --proto P [--model M] [--from robot|host] [--hex] [--frames]\n"
            "                      [--strict] [FILE|-]\n"
            "\n"
            "Reads protocol bytes (from FILE, or standard input) and writes JSON Lines:\n"
            "one object per message with \"type\" and its fields in wire units, then a final\n"
            "{\"type\":\"stats\",...} line counting frames, checksum_errors, length_errors,\n"
            "skipped_bytes and unknown messages. Bad bytes are counted, never fatal.\n"
            "The input is raw bytes, or a file made by `botwire record` (recognised by its\n"
            "first line), whose messages also get \"t\" (s) and \"from\" (robot or host).\n"
            "\n"
            "  --proto P        protocol: %s\n"
            "  --model M        the robot model's dialect (rbsm: seed, the default, or\n"
            "                   deployed; create: create, the default, or create2); a\n"
            "                   record's url's model= unless given\n"
            "  --from SIDE      who sent the bytes: robot or host (raw input: robot by\n"
            "                   default; a record: both unless given)\n"
            "  --hex            the input is hex text (\"aa 55 ...\"; '#' comments)\n"
            "  --frames         one JSON array per frame instead of one object per message\n"
            "  --strict         exit with status 1 if anything was rejected or unknown, or\n"
            "                   at a record's first damaged line (without it, each damaged\n"
            "                   line is reported, passed over and counted: damaged_lines)\n"
            "  -h, --help       this help\n",
            cli_codec_names());
}

/* The first line of a `botwire record` file. */
static const char record_magic[] = "{\"botwire_record\":";

typedef struct {
    const jw_decoder_t *dec;
    void *state[2]; /* [0] bytes from the host, [1] from the robot */
    bool use[2];
    jw_t *w;
    const char *path;
    size_t line_no;
    long damaged; /* lines that could not be read, reported and passed over */
    bool strict;
    uint8_t *bytes; /* a line's data */
    size_t cap;
    bool model_given; /* --model: a record's url does not change it */
} record_t;

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Room for n bytes of a line's data in r->bytes. */
static bool record_room(record_t *r, size_t n)
{
    if (n <= r->cap)
        return true;
    uint8_t *p = realloc(r->bytes, n);
    if (!p)
        return false;
    r->bytes = p;
    r->cap = n;
    return true;
}

/*
 * A data line as `botwire record` writes it, read without a JSON parser:
 * exactly {"t":NUMBER,"from":"robot"|"host","data":"HEX"}, the number
 * without an exponent, the hex of even length. Returns 1 with its time (and
 * the length of its text, from line + 5), side and bytes (in r->bytes); 0
 * for a line of any other shape, which jansson reads, so that such lines
 * mean what they meant and fail as they failed.
 */
static int record_line_fast(record_t *r, const char *line, size_t n, double *t, size_t *tlen,
                            int *dir, size_t *got)
{
    static const char head[] = "{\"t\":";
    const char *p = line, *end = line + n;
    if (n < sizeof head || memcmp(p, head, sizeof head - 1) != 0)
        return 0;
    p += sizeof head - 1;
    /* JSON's -?(0|[1-9][0-9]*)(.[0-9]+)?, as jansson reads it: an integer
     * through strtoll, a real through strtod. */
    const char *num = p;
    if (p < end && *p == '-')
        p++;
    const char *int_start = p;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    if (p == int_start || (*int_start == '0' && p - int_start > 1) || p - int_start > 18)
        return 0;
    bool real = p < end && *p == '.';
    if (real) {
        const char *frac = ++p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        if (p == frac || p - num > 40)
            return 0;
    }
    *tlen = (size_t)(p - num);
    /* Up to 15 digits the value is exact in a double, and so is 10^k for
     * k <= 22: one division rounds it as strtod does (the fast path of
     * correct decimal conversion). Beyond, strtod itself. */
    uint64_t m = 0;
    size_t nd = 0, k = 0;
    bool frac = false;
    for (const char *q = int_start; q < p; q++) {
        if (*q == '.') {
            frac = true;
            continue;
        }
        m = m * 10 + (uint64_t)(*q - '0');
        nd++;
        k += frac;
    }
    static const double pow10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
    if (!real) {
        *t = (double)(*num == '-' ? -(int64_t)m : (int64_t)m);
    } else if (nd <= 15 && k <= 22) {
        *t = (double)m / pow10[k];
        if (*num == '-')
            *t = -*t;
    } else {
        char text[48];
        memcpy(text, num, *tlen);
        text[*tlen] = 0;
        *t = strtod(text, NULL);
    }

    static const char robot[] = ",\"from\":\"robot\",\"data\":\"";
    static const char host[] = ",\"from\":\"host\",\"data\":\"";
    if ((size_t)(end - p) >= sizeof robot - 1 && memcmp(p, robot, sizeof robot - 1) == 0) {
        *dir = 1;
        p += sizeof robot - 1;
    } else if ((size_t)(end - p) >= sizeof host - 1 && memcmp(p, host, sizeof host - 1) == 0) {
        *dir = 0;
        p += sizeof host - 1;
    } else {
        return 0;
    }
    if (end - p < 2 || end[-2] != '"' || end[-1] != '}')
        return 0;
    size_t digits = (size_t)(end - 2 - p);
    if (digits % 2 || !record_room(r, digits / 2 + 1))
        return 0;
    for (size_t i = 0; i < digits / 2; i++) {
        int hi = hexval((unsigned char)p[2 * i]), lo = hexval((unsigned char)p[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return 0;
        r->bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    *got = digits / 2;
    return 1;
}

/* Both decoders in a model's dialect. Returns 0, or -1 with err. */
static int set_model(record_t *r, const char *model, char *err, size_t errlen)
{
    if (!r->dec->model) {
        snprintf(err, errlen, "--proto %s has no models", r->dec->name);
        return -1;
    }
    for (int dir = 0; dir < 2; dir++)
        if (r->dec->model(r->state[dir], model, err, errlen) < 0)
            return -1;
    return 0;
}

/* The model= of a record header's url (the robot it was recorded from),
 * unless --model was given. */
static int record_model(record_t *r, const char *url, char *err, size_t errlen)
{
    bw_url_t u;
    char why[8]; /* a url botwire cannot read names no model: not this line's fault */
    const char *model;
    if (r->model_given || !url || !r->dec->model || bw_url_parse(url, &u, why, sizeof why) < 0 ||
        !(model = bw_url_param(&u, "model")))
        return 0;
    if (set_model(r, model, err, errlen) < 0) {
        size_t n = strlen(err);
        snprintf(err + n, errlen - n, " (line 1's url)");
        return -1;
    }
    return 0;
}

/* One line of a record file: {"t":..,"from":"robot"|"host","data":"hex"}.
 * Returns 0; -1 with a message in err for a bad line; -2 when the output
 * failed. */
static int record_line(record_t *r, const char *line, size_t n, char *err, size_t errlen)
{
    double t;
    int dir;
    size_t got, tlen;
    if (r->line_no > 1 && record_line_fast(r, line, n, &t, &tlen, &dir, &got)) {
        if (!r->use[dir])
            return 0;
        jw_set_t(r->w, t, line + 5, tlen);
        r->w->from = dir ? "robot" : "host";
        return r->dec->push(r->state[dir], r->bytes, got, r->w) < 0 ? -2 : 0;
    }
    json_error_t jerr;
    json_t *o = json_loadb(line, n, 0, &jerr);
    if (!o) {
        snprintf(err, errlen, "line %zu: malformed JSON: %s", r->line_no, jerr.text);
        return -1;
    }
    int rc = -1;
    json_t *jt = json_object_get(o, "t"), *from = json_object_get(o, "from");
    json_t *data = json_object_get(o, "data");
    if (r->line_no == 1) {
        json_t *v = json_object_get(o, "botwire_record");
        if (!json_is_integer(v) || json_integer_value(v) != 1) {
            snprintf(err, errlen, "line 1: not a version 1 botwire record");
            goto out;
        }
        rc = record_model(r, json_string_value(json_object_get(o, "url")), err, errlen);
        goto out;
    }
    if (!json_is_number(jt) || !json_is_string(from) || !json_is_string(data) ||
        (strcmp(json_string_value(from), "robot") && strcmp(json_string_value(from), "host"))) {
        snprintf(err, errlen, "line %zu: expected {\"t\":SECONDS,\"from\":\"robot\"|\"host\",\"data\":\"HEX\"}",
                 r->line_no);
        goto out;
    }
    dir = strcmp(json_string_value(from), "robot") == 0;
    size_t len = json_string_length(data) / 2 + 1;
    char why[CLI_ERRLEN];
    if (!record_room(r, len)) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (jm_get_hex(o, "data", r->bytes, len, &got, why, sizeof why) < 0) {
        snprintf(err, errlen, "line %zu: %.200s", r->line_no, why);
        goto out;
    }
    rc = 0;
    if (r->use[dir]) {
        r->w->t = json_number_value(jt);
        r->w->from = dir ? "robot" : "host";
        rc = r->dec->push(r->state[dir], r->bytes, got, r->w) < 0 ? -2 : 0;
    }
out:
    json_decref(o);
    return rc;
}

/* Feeds complete lines from buf, keeping a partial last line. Returns as
 * record_line. */
static int record_feed(record_t *r, cli_buf_t *buf, bool at_end, char *err, size_t errlen)
{
    size_t pos = 0;
    int rc = 0;
    for (;;) {
        const uint8_t *nl = memchr(buf->p + pos, '\n', buf->len - pos);
        size_t end = nl ? (size_t)(nl - buf->p) : buf->len;
        if (!nl && !at_end)
            break;
        if (end > pos || nl) {
            r->line_no++;
            if (end > pos &&
                (rc = record_line(r, (const char *)buf->p + pos, end - pos, err, errlen)) < 0) {
                /* A damaged line (a recorder killed mid-line, a bad copy):
                 * said once, counted, and the rest still read. */
                if (rc != -1 || r->strict)
                    return rc;
                r->damaged++;
                fprintf(stderr, "botwire decode: %s: %s (line passed over)\n", r->path, err);
            }
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
        { "model", required_argument, NULL, 'm' }, { NULL, 0, NULL, 0 },
    };
    const char *proto = NULL, *from = NULL, *model = NULL;
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
        case 'm': model = optarg; break;
        case 'h': decode_usage(stdout); return 0;
        default: return 2;
        }
    }
    if (!proto) {
        cli_error("decode", "--proto is required (one of: %s)", cli_codec_names());
        return 2;
    }
    const cli_codec_t *codec = cli_codec_find(proto);
    const jw_decoder_t *dec = codec ? jw_decoder_find(codec->name) : NULL;
    if (!dec) {
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
    jw_t w;
    jw_init(&w, stdout);
    record_t r = { .dec = dec, .path = path, .w = &w, .strict = strict };
    for (int dir = 0; dir < 2; dir++) {
        r.state[dir] = calloc(1, dec->state_size);
        if (!r.state[dir]) {
            cli_error("decode", "out of memory");
            return 1;
        }
        dec->init(r.state[dir], dir == 1, frames);
    }
    if (dec->pair && !from)
        dec->pair(r.state[0], r.state[1]);
    char err[CLI_ERRLEN];
    r.model_given = model != NULL;
    if (model && set_model(&r, model, err, sizeof err) < 0) {
        cli_error("decode", "%s", err);
        free(r.state[0]);
        free(r.state[1]);
        if (fd != STDIN_FILENO)
            close(fd);
        return 2;
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
                w.annotate = true;
                int rc = record_feed(&r, &pending, n == 0, err, sizeof err);
                if (rc == -1) {
                    cli_error("decode", "%s: %s", path, err);
                    status = 1;
                    break;
                }
                if (rc < 0 || !jw_flush(&w) || n == 0)
                    break;
                continue;
            }
            if (mode == UNDECIDED)
                continue;
            /* Raw after all: what waited goes first. */
            int dir = from_robot;
            if (dec->push(r.state[dir], pending.p, pending.len, &w) < 0)
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
        if (dec->push(r.state[from_robot], bytes, len, &w) < 0 || !jw_flush(&w) ||
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
            w.from = dir ? "robot" : "host";
            dec->finish(r.state[dir], &w, &s);
            bw_parse_stats_add(&stats, &s);
        }
        w.annotate = false;
        if (!w.failed)
            jw_stats_line(&w, &stats, mode == RECORD ? r.damaged : -1);
    }
    free(r.state[0]);
    free(r.state[1]);
    free(r.bytes);
    cli_buf_free(&raw);
    cli_buf_free(&pending);
    bool written = jw_flush(&w);
    jw_free(&w);
    if (fflush(stdout) != 0 || !written)
        return cli_write_failed("decode", errno);
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
        if (output)
            cli_error("encode", "cannot write %s: %s", output, strerror(errno));
        else
            status = cli_write_failed("encode", errno);
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
