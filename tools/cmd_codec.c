/* `botwire decode` and `botwire encode`: bytes <-> JSON Lines. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "botwire/json.h"
#include "botwire/wire.h"
#include "cli.h"
#include "commands.h"

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
            "The input is raw bytes, or a file made by `botwire record` (JSON Lines or MCAP,\n"
            "recognised by its first bytes), whose messages also get \"t\" (s) and \"from\"\n"
            "(robot or host); of an MCAP file, the bytes on /wire/robot and /wire/host.\n"
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
            "                   at a record's first damaged line or MCAP chunk (without\n"
            "                   it, each is reported with its line or offset, passed over\n"
            "                   and counted: damaged_lines)\n"
            "  -h, --help       this help\n",
            bw_json_protocols());
}

typedef struct {
    const char *path;
    bool strict;
} decode_ctx_t;

/* A damaged record line: passed over and counted, or with --strict the end
 * (no stats line: the counts would describe a partial read). */
static void said(const char *text, void *ctx)
{
    const decode_ctx_t *c = ctx;
    if (c->strict)
        cli_error("decode", "%s: %s", c->path, text);
    else
        fprintf(stderr, "botwire decode: %s: %s (%spassed over)\n", c->path, text,
                strncmp(text, "offset ", 7) == 0 ? "" : "line ");
}

/* The family a record names in its opening bytes (a JSON Lines record's
 * header line, an MCAP record's "botwire" metadata), into out; false if
 * these bytes are no record's opening. */
static bool record_family(const uint8_t *d, size_t n, char *out, size_t cap)
{
    static const uint8_t magic[8] = { 0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n' };
    if (n >= 8 && !memcmp(d, magic, 8)) {
        /* the metadata's map: each key and value a uint32 length and bytes */
        static const uint8_t key[] = { 6, 0, 0, 0, 'f', 'a', 'm', 'i', 'l', 'y' };
        for (size_t i = 8; i + sizeof key + 4 <= n; i++) {
            if (memcmp(d + i, key, sizeof key) != 0)
                continue;
            uint32_t len = bw_get_le32(d + i + sizeof key);
            if (len == 0 || len >= cap || i + sizeof key + 4 + len > n)
                return false;
            memcpy(out, d + i + sizeof key + 4, len);
            out[len] = 0;
            return true;
        }
        return false;
    }
    const uint8_t *nl = memchr(d, '\n', n);
    if (!nl || n < 17 || memcmp(d, "{\"botwire_record\"", 17) != 0)
        return false;
    json_t *head = json_loadb((const char *)d, (size_t)(nl - d), 0, NULL);
    const char *family = json_string_value(json_object_get(head, "family"));
    bool ok = family && *family && strlen(family) < cap;
    if (ok)
        snprintf(out, cap, "%s", family);
    json_decref(head);
    return ok;
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
    if (proto && !bw_json_protocol_name(proto)) {
        cli_error("decode", "unknown protocol \"%s\" (one of: %s)", proto, bw_json_protocols());
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
    /* Streams: each read is decoded and written at once, so a live serial
     * port piped in shows up as it arrives. Without --proto, the first
     * read must be a record's opening, which names its family. */
    static uint8_t chunk[65536], raw[sizeof chunk / 2 + 1];
    ssize_t first = -1;
    char family[32];
    if (!proto) {
        do
            first = read(fd, chunk, sizeof chunk);
        while (first < 0 && errno == EINTR);
        if (first < 0 || !record_family(chunk, (size_t)first, family, sizeof family) ||
            !bw_json_protocol_name(family)) {
            if (first < 0)
                cli_error("decode", "cannot read %s: %s", path, strerror(errno));
            else
                cli_error("decode", "--proto is required unless the input is a record that names its "
                                    "family (one of: %s)", bw_json_protocols());
            if (fd != STDIN_FILENO)
                close(fd);
            return first < 0 ? 1 : 2;
        }
        proto = family;
    }
    char err[1024];
    bw_json_decoder_t *d;
    int rc = bw_json_decoder_new(&d, proto, model, from, frames, err, sizeof err);
    if (rc < 0) {
        cli_error("decode", "%s", err);
        if (fd != STDIN_FILENO)
            close(fd);
        return rc == BW_ENOMEM ? 1 : 2;
    }
    bw_json_decoder_options(d, (hex ? BW_JSON_RAW : 0) | (strict ? BW_JSON_STRICT : 0));
    decode_ctx_t ctx = { .path = path, .strict = strict };
    bw_json_decoder_on_warning(d, said, &ctx);

    cli_hex_reader_t hr;
    cli_hex_init(&hr);
    int status = 0;
    bool out_ok = true;
    for (;;) {
        ssize_t n = first >= 0 ? first : read(fd, chunk, sizeof chunk);
        first = -1;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cli_error("decode", "cannot read %s: %s", path, strerror(errno));
            status = 1;
            break;
        }
        if (n == 0) {
            if (hex && cli_hex_end(&hr, err, sizeof err) < 0) {
                cli_error("decode", "%s: %s", path, err);
                status = 1;
                break;
            }
            rc = bw_json_decoder_finish(d);
        } else if (hex) {
            size_t len;
            if (cli_hex_feed(&hr, (const char *)chunk, (size_t)n, raw, &len, err, sizeof err) < 0) {
                cli_error("decode", "%s: %s", path, err);
                status = 1;
                break;
            }
            rc = bw_json_decoder_push(d, raw, len);
        } else {
            rc = bw_json_decoder_push(d, chunk, (size_t)n);
        }
        size_t len;
        const char *text = bw_json_decoder_text(d, &len);
        if (len && fwrite(text, 1, len, stdout) != len)
            out_ok = false;
        if (!out_ok || fflush(stdout) != 0 || rc == BW_ENOMEM) {
            out_ok = false;
            break;
        }
        if (rc == BW_EINVAL) { /* --strict, a damaged line: said */
            status = 1;
            break;
        }
        if (n == 0)
            break;
    }
    if (fd != STDIN_FILENO)
        close(fd);
    bw_parse_stats_t stats;
    bw_json_decoder_stats(d, &stats);
    bw_json_decoder_free(d);
    if (!out_ok || fflush(stdout) != 0)
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
            bw_json_protocols());
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
        cli_error("encode", "--proto is required (one of: %s)", bw_json_protocols());
        return 2;
    }
    if (!bw_json_protocol_name(proto)) {
        cli_error("encode", "unknown protocol \"%s\" (one of: %s)", proto, bw_json_protocols());
        return 2;
    }
    if (argc - optind > 1) {
        cli_error("encode", "more than one input file given");
        return 2;
    }
    const char *path = optind < argc ? argv[optind] : "-";
    FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!in) {
        cli_error("encode", "cannot open %s: %s", path, strerror(errno));
        return 1;
    }
    /* Everything is encoded in memory first, so a bad line leaves no output. */
    char err[1024];
    size_t len;
    char *outp = NULL, *line = NULL;
    size_t outlen = 0, linecap = 0, cap = 4096, line_no = 0;
    uint8_t *frame = malloc(cap);
    FILE *out = frame ? open_memstream(&outp, &outlen) : NULL;
    int status = 1;
    if (!out)
        goto oom;
    ssize_t n;
    while ((n = getline(&line, &linecap, in)) >= 0) {
        line_no++;
        size_t k = 0, end = (size_t)n;
        if (end && line[end - 1] == '\n')
            end--;
        while (k < end && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
            k++;
        if (k == end)
            continue;
        int rc;
        while ((rc = bw_json_encode(proto, line, end, frame, cap, &len, err, sizeof err)) ==
               BW_ENOSPC) {
            uint8_t *more = realloc(frame, len);
            if (!more)
                goto oom;
            frame = more;
            cap = len;
        }
        if (rc < 0) {
            cli_error("encode", "line %zu: %s", line_no, err);
            goto done;
        }
        if (rc > 0)
            continue;
        if (hex) {
            static const char digits[] = "0123456789abcdef";
            for (size_t i = 0; i < len; i++) {
                fputc(digits[frame[i] >> 4], out);
                fputc(digits[frame[i] & 15], out);
                fputc(i + 1 < len ? ' ' : '\n', out);
            }
        } else if (len) {
            fwrite(frame, 1, len, out);
        }
    }
    if (ferror(in)) {
        cli_error("encode", "cannot read %s: %s", path, strerror(errno));
        goto done;
    }
    if (fflush(out) != 0 || ferror(out))
        goto oom;

    FILE *f = output ? fopen(output, "wb") : stdout;
    if (!f) {
        cli_error("encode", "cannot create %s: %s", output, strerror(errno));
        goto done;
    }
    bool ok = outlen == 0 || fwrite(outp, 1, outlen, f) == outlen; /* no NULL to fwrite */
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
    if (in != stdin)
        fclose(in);
    if (out)
        fclose(out);
    free(outp);
    free(line);
    free(frame);
    return status;
}
