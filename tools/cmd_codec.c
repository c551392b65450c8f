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
            "Reads raw protocol bytes (from FILE, or standard input) and writes JSON Lines:\n"
            "one object per message with \"type\" and its fields in wire units, then a final\n"
            "{\"type\":\"stats\",...} line counting frames, checksum_errors, length_errors,\n"
            "skipped_bytes and unknown messages. Bad bytes are counted, never fatal.\n"
            "\n"
            "  --proto P        protocol: %s\n"
            "  --from SIDE      who sent the bytes: robot (default) or host\n"
            "  --hex            the input is hex text (\"aa 55 ...\"; '#' comments)\n"
            "  --frames         one JSON array per frame instead of one object per message\n"
            "  --strict         exit with status 1 if anything was rejected or unknown\n"
            "  -h, --help       this help\n",
            cli_codec_names());
}

typedef struct {
    FILE *out;
    bool failed;
} emit_ctx_t;

static int emit_line(json_t *msg, void *ctx)
{
    emit_ctx_t *e = ctx;
    int rc = json_dumpf(msg, e->out, JSON_COMPACT);
    json_decref(msg);
    if (rc < 0 || fputc('\n', e->out) == EOF) {
        e->failed = true;
        return -1;
    }
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
    const char *proto = NULL, *from = "robot";
    bool hex = false, frames = false, strict = false;
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': proto = optarg; break;
        case 'f': from = optarg; break;
        case 'x': hex = true; break;
        case 'F': frames = true; break;
        case 's': strict = true; break;
        case 'h': decode_usage(stdout); return 0;
        default: decode_usage(stderr); return 2;
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
    if (strcmp(from, "robot") != 0 && strcmp(from, "host") != 0) {
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
    void *state = calloc(1, codec->state_size);
    if (!state) {
        cli_error("decode", "out of memory");
        return 1;
    }
    codec->init(state, strcmp(from, "robot") == 0, frames);

    /* Streams: each read is decoded and written at once, so a live serial
     * port piped in shows up as it arrives. */
    emit_ctx_t ctx = { stdout, false };
    cli_hex_reader_t hr;
    cli_hex_init(&hr);
    cli_buf_t raw = { 0 };
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
        if (codec->push(state, bytes, len, emit_line, &ctx) < 0 || fflush(stdout) != 0)
            break;
    }
    if (fd != STDIN_FILENO)
        close(fd);
    bw_parse_stats_t stats;
    /* After an input error the counters would describe a partial read: the
     * stats line is left out and the exit status says why. */
    if (status == 0) {
        codec->finish(state, emit_line, &ctx, &stats);
        if (!ctx.failed)
            emit_line(jm_stats(&stats), &ctx);
    }
    free(state);
    cli_buf_free(&raw);
    if (fflush(stdout) != 0 || ctx.failed) {
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
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'p': proto = optarg; break;
        case 'x': hex = true; break;
        case 'o': output = optarg; break;
        case 'h': encode_usage(stdout); return 0;
        default: encode_usage(stderr); return 2;
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
    bool ok = fwrite(out.p, 1, out.len, f) == out.len;
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
