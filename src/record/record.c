/* The record writer `botwire record` uses, in JSON Lines or MCAP (through
 * mcap.c), and the JSON Lines reader every decoder of records uses
 * (botwire/record.h, docs/record-format.md). */
#include "botwire/record.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "botwire/botwire.h"
#include "botwire/wire.h"

/* ---- writing ---------------------------------------------------------------- */

struct bw_record_writer {
    FILE *f;
    bool regular;   /* a file (synced to the disk at each flush), not a stream */
    int fd;         /* a file's descriptor, while what comes first waits in memory */
    bool created;   /* the file did not exist before */
    char *mem;      /* ...that memory (open_memstream) */
    size_t memlen;
    char *path;
    uint64_t bytes[2]; /* from host, from robot */
    int error;      /* errno of the first failed write, 0 while none */
    bw_mcap_writer_t *mcap; /* an MCAP record's, NULL for JSON Lines */
    int wire[2];    /* its channels: /wire/host, /wire/robot */
    uint64_t start_ns; /* its log times' origin */
    /* its CDR channels, by topic, with what rosbag2's metadata says of them */
    struct {
        char *topic, *type, *qos, *hash;
        int channel;
        uint64_t count;
    } *cdr;
    size_t ncdr;
    uint64_t wire_count[2], messages, first_ns, last_ns;
    uint8_t *buf; /* a wire chunk as a botwire_msgs/msg/Wire's CDR */
    size_t cap;
};

/* A record's wire channels carry botwire_msgs/msg/Wire: the bytes of one
 * read from the robot or one write of the host (the channel says which),
 * as a ROS 2 message, so that rosbag2 finds a schema and one serialization
 * (cdr) on every channel (docs/record-format.md). Its RIHS01 hash, as
 * tests/ros2/rihs01.py computes it from the definition. */
#define WIRE_TYPE "botwire_msgs/msg/Wire"
#define WIRE_SCHEMA "uint8[] data\n"
#define WIRE_HASH "RIHS01_479ea1b8ee065a555dc94ae403fa7a61b7b2eecb8942a372fa9827d6cefb4789"
/* ...offered as rosbag2 writes a reliable, volatile keep-last-1000 profile */
#define INFINITE "\n    sec: 9223372036\n    nsec: 854775807"
#define WIRE_QOS                                                                              \
    "- history: 1\n  depth: 1000\n  reliability: 1\n  durability: 2\n  deadline:" INFINITE   \
    "\n  lifespan:" INFINITE "\n  liveliness: 1\n  liveliness_lease_duration:" INFINITE       \
    "\n  avoid_ros_namespace_conventions: false\n"

bw_record_format_t bw_record_format_of(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcmp(path + n - 5, ".mcap") == 0 ? BW_RECORD_MCAP : BW_RECORD_JSONL;
}

static void failed(bw_record_writer_t *w, int e)
{
    if (!w->error)
        w->error = e ? e : EIO;
}

int bw_record_writer_flush(bw_record_writer_t *w)
{
    if (w->mcap && bw_mcap_end_chunk(w->mcap) < 0)
        failed(w, bw_mcap_error(w->mcap));
    if (fflush(w->f) != 0 || (w->regular && fsync(fileno(w->f)) != 0))
        failed(w, errno);
    return w->error;
}

static void free_writer(bw_record_writer_t *w)
{
    for (size_t i = 0; i < w->ncdr; i++) {
        free(w->cdr[i].topic);
        free(w->cdr[i].type);
        free(w->cdr[i].qos);
        free(w->cdr[i].hash);
    }
    free(w->cdr);
    free(w->buf);
    bw_mcap_writer_free(w->mcap);
    free(w->path);
    free(w);
}

/* MCAP's bytes go where the record's do. */
static int mcap_sink(void *ctx, const void *data, size_t n)
{
    bw_record_writer_t *w = ctx;
    if (fwrite(data, 1, n, w->f) != n)
        return errno ? errno : EIO;
    return 0;
}

/* An MCAP record's opening: the magic and Header, the header's fields as
 * the Metadata record "botwire", the two wire channels (botwire_msgs/msg/
 * Wire in CDR). */
static int mcap_header(bw_record_writer_t *w, const bw_record_options_t *opt, const char *when)
{
    bw_mcap_options_t mo = { .profile = "ros2", .library = "botwire " BOTWIRE_VERSION,
                             .compression = opt->compression };
    if (!(w->mcap = bw_mcap_writer_new(&mo, mcap_sink, w)))
        return BW_ENOMEM;
    char start_ns[32], encoding[64];
    w->start_ns = opt->start_ns ? opt->start_ns : (uint64_t)opt->start * 1000000000u;
    snprintf(start_ns, sizeof start_ns, "%llu", (unsigned long long)w->start_ns);
    const char *keys[] = { "botwire_record", "url", "family", "start", "start_ns" };
    const char *values[] = { "1", opt->url ? opt->url : "", opt->family ? opt->family : "", when,
                             start_ns };
    snprintf(encoding, sizeof encoding, "botwire/%s", opt->family ? opt->family : "");
    (void)encoding;
    const char *ck[] = { "from", "offered_qos_profiles", "topic_type_hash" };
    const char *robot[] = { "robot", WIRE_QOS, WIRE_HASH }, *host[] = { "host", WIRE_QOS, WIRE_HASH };
    int schema = -1;
    if (bw_mcap_metadata(w->mcap, "botwire", keys, values, 5) < 0 ||
        (schema = bw_mcap_schema(w->mcap, WIRE_TYPE, "ros2msg", WIRE_SCHEMA,
                                 sizeof WIRE_SCHEMA - 1)) < 0 ||
        (w->wire[1] = bw_mcap_channel(w->mcap, schema, "/wire/robot", "cdr", ck, robot, 3)) < 0 ||
        (w->wire[0] = bw_mcap_channel(w->mcap, schema, "/wire/host", "cdr", ck, host, 3)) < 0)
        failed(w, bw_mcap_error(w->mcap) ? bw_mcap_error(w->mcap) : ENOMEM);
    return 0;
}

/* A double-quoted YAML scalar of text. */
static void yaml_quoted(FILE *y, const char *text)
{
    fputc('"', y);
    for (const char *c = text; *c; c++) {
        if (*c == '\n')
            fputs("\\n", y);
        else if (*c == '"' || *c == '\\')
            fprintf(y, "\\%c", *c);
        else if ((unsigned char)*c < 0x20)
            fprintf(y, "\\x%02x", (unsigned char)*c);
        else
            fputc(*c, y);
    }
    fputc('"', y);
}

/* A message counted for rosbag2's metadata. */
static void counted(bw_record_writer_t *w, uint64_t at)
{
    if (w->messages++ == 0 || at < w->first_ns)
        w->first_ns = at;
    if (at > w->last_ns)
        w->last_ns = at;
}

/* rosbag2's own metadata record ("rosbag2", serialized_metadata: its
 * BagMetadata as YAML), as rosbag2's MCAP writer puts it last; version 8
 * (the QoS as a string, as Humble's rosbag2 reads it too; Jazzy's reads
 * any). A reader takes the counts and times from the summary. */
static void rosbag2_metadata(bw_record_writer_t *w)
{
    char *text = NULL;
    size_t len = 0;
    FILE *y = open_memstream(&text, &len);
    if (!y) {
        failed(w, ENOMEM);
        return;
    }
    const char *slash = strrchr(w->path, '/');
    const char *file = slash ? slash + 1 : w->path;
    unsigned long long span = w->messages ? w->last_ns - w->first_ns : 0;
    fprintf(y, "version: 8\nstorage_identifier: mcap\nduration:\n  nanoseconds: %llu\n"
               "starting_time:\n  nanoseconds_since_epoch: %llu\nmessage_count: %llu\n"
               "topics_with_message_count:\n",
            span, (unsigned long long)w->first_ns, (unsigned long long)w->messages);
    for (size_t i = 0; i < 2 + w->ncdr; i++) {
        bool wire = i < 2;
        const char *topic = wire ? (i ? "/wire/robot" : "/wire/host") : w->cdr[i - 2].topic;
        const char *type = wire ? WIRE_TYPE : w->cdr[i - 2].type;
        const char *qos = wire ? WIRE_QOS : w->cdr[i - 2].qos;
        const char *hash = wire ? WIRE_HASH : w->cdr[i - 2].hash;
        uint64_t n = wire ? w->wire_count[i] : w->cdr[i - 2].count;
        fprintf(y, "  - topic_metadata:\n      name: %s\n      type: %s\n"
                   "      serialization_format: cdr\n      offered_qos_profiles: ",
                topic, type);
        yaml_quoted(y, qos);
        fprintf(y, "\n      type_description_hash: \"%s\"\n    message_count: %llu\n", hash,
                (unsigned long long)n);
    }
    fputs("compression_format: \"\"\ncompression_mode: \"\"\nrelative_file_paths:\n  - ", y);
    yaml_quoted(y, file);
    fputs("\nfiles:\n  - path: ", y);
    yaml_quoted(y, file);
    fprintf(y, "\n    starting_time:\n      nanoseconds_since_epoch: %llu\n    duration:\n"
               "      nanoseconds: %llu\n    message_count: %llu\ncustom_data: {}\n"
               "ros_distro: jazzy\n",
            (unsigned long long)w->first_ns, span, (unsigned long long)w->messages);
    if (fclose(y) != 0 || !text) {
        free(text);
        failed(w, ENOMEM);
        return;
    }
    const char *keys[] = { "serialized_metadata" };
    const char *values[] = { text };
    if (bw_mcap_metadata(w->mcap, "rosbag2", keys, values, 1) < 0)
        failed(w, bw_mcap_error(w->mcap) ? bw_mcap_error(w->mcap) : ENOMEM);
    free(text);
}

/* The header line (or MCAP's opening), at the head of what is written. */
static int write_header(bw_record_writer_t *w, const bw_record_options_t *opt)
{
    char when[32];
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&opt->start, &tm));
    if (opt->format == BW_RECORD_MCAP)
        return mcap_header(w, opt, when);
    json_t *head = json_pack("{s:i,s:s,s:s,s:s}", "botwire_record", 1, "url",
                             opt->url ? opt->url : "", "family", opt->family ? opt->family : "",
                             "start", when);
    if (!head)
        return BW_ENOMEM;
    json_dumpf(head, w->f, JSON_COMPACT);
    fputc('\n', w->f);
    json_decref(head);
    if (ferror(w->f))
        failed(w, errno);
    return 0;
}

int bw_record_writer_open(bw_record_writer_t **out, const char *path,
                          const bw_record_options_t *opt, char *err, size_t errlen)
{
    *out = NULL;
    bw_record_writer_t *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        snprintf(err, errlen, "out of memory");
        return BW_ENOMEM;
    }
    w->fd = -1;
    if (strcmp(path, "-") == 0) {
        w->f = stdout;
    } else {
        struct stat sb;
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            snprintf(err, errlen, "%s is a directory: -o names the file to write", path);
            free_writer(w);
            return BW_EINVAL;
        }
        w->created = lstat(path, &sb) != 0;
        int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
        if (fd < 0 && errno == ENXIO) {
            /* a FIFO nobody reads yet: wait for the reader, as tee does */
            if (opt->waiting_for_reader)
                opt->waiting_for_reader(path, opt->ctx);
            fd = open(path, O_WRONLY | O_CLOEXEC);
        }
        if (fd < 0) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            free_writer(w);
            return BW_EIO;
        }
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0)
            (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
        if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
            w->regular = true;
            w->fd = fd;
            w->f = open_memstream(&w->mem, &w->memlen);
        } else {
            w->f = fdopen(fd, "w");
        }
        if (!w->f) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            close(fd);
            free_writer(w);
            return BW_EIO;
        }
    }
    /* A stream gets the header at once: a path that cannot take it (a full
     * device) fails before anything moves. */
    if (write_header(w, opt) < 0 || w->error || (!w->regular && bw_record_writer_flush(w))) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(w->error ? w->error : ENOMEM));
        bw_record_writer_abandon(w);
        return BW_EIO;
    }
    *out = w;
    return 0;
}

int bw_record_writer_commit(bw_record_writer_t *w, char *err, size_t errlen)
{
    if (!w->regular)
        return 0;
    bool ok = fflush(w->f) == 0;
    FILE *f = ok && ftruncate(w->fd, 0) == 0 ? fdopen(w->fd, "w") : NULL;
    if (!f || (w->memlen && fwrite(w->mem, 1, w->memlen, f) != w->memlen))
        failed(w, errno);
    fclose(w->f);
    free(w->mem);
    w->mem = NULL;
    if (!f)
        close(w->fd);
    w->fd = -1;
    w->f = f;
    if (f)
        bw_record_writer_flush(w);
    if (w->error) {
        snprintf(err, errlen, "cannot write %s: %s", w->path, strerror(w->error));
        return BW_EIO;
    }
    return 0;
}

void bw_record_writer_abandon(bw_record_writer_t *w)
{
    if (!w)
        return;
    if (w->f && w->f != stdout)
        fclose(w->f);
    if (w->regular && w->fd >= 0) {
        free(w->mem);
        close(w->fd);
        if (w->created)
            unlink(w->path);
    }
    free_writer(w);
}

void bw_record_writer_chunk(bw_record_writer_t *w, double t, bool from_robot,
                            const uint8_t *data, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    if (w->error || !w->f)
        return;
    if (w->mcap) {
        /* to the microsecond, as the JSON Lines record writes t: the same
         * bytes give the same times in both formats */
        uint64_t at = w->start_ns + 1000 * (uint64_t)(t > 0 ? t * 1e6 + 0.5 : 0);
        /* CDR: the encapsulation (plain CDR, little endian), the length,
         * the bytes */
        if (n > UINT32_MAX - 8) {
            failed(w, EFBIG);
            return;
        }
        if (8 + n > w->cap) {
            uint8_t *p = realloc(w->buf, 8 + n);
            if (!p) {
                failed(w, ENOMEM);
                return;
            }
            w->buf = p;
            w->cap = 8 + n;
        }
        static const uint8_t cdr_le[4] = { 0x00, 0x01, 0x00, 0x00 };
        memcpy(w->buf, cdr_le, 4);
        bw_put_le32(w->buf + 4, (uint32_t)n);
        if (n)
            memcpy(w->buf + 8, data, n);
        if (bw_mcap_message(w->mcap, w->wire[from_robot], at, w->buf, 8 + n) < 0)
            failed(w, bw_mcap_error(w->mcap) ? bw_mcap_error(w->mcap) : ENOMEM);
        w->bytes[from_robot] += n;
        w->wire_count[from_robot]++;
        counted(w, at);
        return;
    }
    fprintf(w->f, "{\"t\":%.6f,\"from\":\"%s\",\"data\":\"", t, from_robot ? "robot" : "host");
    for (size_t i = 0; i < n; i++) {
        putc(digits[data[i] >> 4], w->f);
        putc(digits[data[i] & 15], w->f);
    }
    fputs("\"}\n", w->f);
    if (ferror(w->f))
        failed(w, errno);
    w->bytes[from_robot] += n;
}

int bw_record_writer_cdr(bw_record_writer_t *w, const char *topic, const char *type,
                         const char *schema, const char *offered_qos, const char *type_hash,
                         uint64_t log_time, const uint8_t *data, size_t n)
{
    if (!w->mcap || w->error || !w->f)
        return -1;
    size_t i = 0;
    while (i < w->ncdr && strcmp(w->cdr[i].topic, topic) != 0)
        i++;
    if (i == w->ncdr) { /* its first message: the schema (once a type) and the channel */
        void *grown = realloc(w->cdr, (w->ncdr + 1) * sizeof *w->cdr);
        char *name = strdup(topic), *tname = strdup(type), *q = strdup(offered_qos ? offered_qos : "");
        char *h = strdup(type_hash ? type_hash : "");
        if (!grown || !name || !tname || !q || !h) {
            free(name);
            free(tname);
            free(q);
            free(h);
            if (grown)
                w->cdr = grown;
            failed(w, ENOMEM);
            return -1;
        }
        w->cdr = grown;
        int schema_id = bw_mcap_schema_id(w->mcap, type);
        if (schema_id <= 0)
            schema_id = bw_mcap_schema(w->mcap, type, "ros2msg", schema, schema ? strlen(schema) : 0);
        const char *k[] = { "offered_qos_profiles", "topic_type_hash" }, *v[] = { q, h };
        int ch = schema_id > 0 ? bw_mcap_channel(w->mcap, schema_id, topic, "cdr", k, v, 2) : -1;
        if (ch < 0) {
            free(name);
            free(tname);
            free(q);
            free(h);
            failed(w, bw_mcap_error(w->mcap) ? bw_mcap_error(w->mcap) : ENOMEM);
            return -1;
        }
        w->cdr[i].topic = name;
        w->cdr[i].type = tname;
        w->cdr[i].qos = q;
        w->cdr[i].hash = h;
        w->cdr[i].channel = ch;
        w->cdr[i].count = 0;
        w->ncdr++;
    }
    if (bw_mcap_message(w->mcap, w->cdr[i].channel, log_time, data, n) < 0) {
        failed(w, bw_mcap_error(w->mcap) ? bw_mcap_error(w->mcap) : ENOMEM);
        return -1;
    }
    w->cdr[i].count++;
    counted(w, log_time);
    return 0;
}

int bw_record_writer_error(const bw_record_writer_t *w) { return w->error; }

uint64_t bw_record_writer_bytes(const bw_record_writer_t *w, bool from_robot)
{
    return w->bytes[from_robot];
}

int bw_record_writer_close(bw_record_writer_t *w)
{
    if (w->mcap && w->f && !w->error)
        rosbag2_metadata(w);
    if (w->mcap && w->f && !w->error && bw_mcap_finish(w->mcap) < 0)
        failed(w, bw_mcap_error(w->mcap));
    if (w->f)
        bw_record_writer_flush(w);
    if (w->f && w->f != stdout && fclose(w->f) != 0)
        failed(w, errno);
    int e = w->error;
    free_writer(w);
    return e;
}

/* ---- reading ----------------------------------------------------------------- */

int bw_record_sniff(const uint8_t *data, size_t n)
{
    static const char magic[] = BW_RECORD_MAGIC;
    if (n < sizeof magic - 1)
        return memcmp(data, magic, n) == 0 ? -1 : 0;
    return memcmp(data, magic, sizeof magic - 1) == 0;
}

void bw_record_reader_init(bw_record_reader_t *r) { memset(r, 0, sizeof *r); }

void bw_record_reader_free(bw_record_reader_t *r)
{
    free(r->url);
    free(r->family);
    free(r->start);
    free(r->bytes);
    memset(r, 0, sizeof *r);
}

/* Room for n bytes of a line's data. */
static bool room(bw_record_reader_t *r, size_t n)
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
 * A data line as the writer writes it, read without a JSON parser: exactly
 * {"t":NUMBER,"from":"robot"|"host","data":"HEX"}, the number without an
 * exponent, the hex of even length. Returns 1 with the chunk; 0 for a line
 * of any other shape, which jansson reads, so that such lines mean what
 * they meant and fail as they failed.
 */
static int line_fast(bw_record_reader_t *r, const char *line, size_t n, bw_record_chunk_t *c)
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
    size_t tlen = (size_t)(p - num);
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
    double t;
    if (!real) {
        t = (double)(*num == '-' ? -(int64_t)m : (int64_t)m);
    } else if (nd <= 15 && k <= 22) {
        t = (double)m / pow10[k];
        if (*num == '-')
            t = -t;
    } else {
        char text[48];
        memcpy(text, num, tlen);
        text[tlen] = 0;
        t = strtod(text, NULL);
    }

    static const char robot[] = ",\"from\":\"robot\",\"data\":\"";
    static const char host[] = ",\"from\":\"host\",\"data\":\"";
    bool from_robot;
    if ((size_t)(end - p) >= sizeof robot - 1 && memcmp(p, robot, sizeof robot - 1) == 0) {
        from_robot = true;
        p += sizeof robot - 1;
    } else if ((size_t)(end - p) >= sizeof host - 1 && memcmp(p, host, sizeof host - 1) == 0) {
        from_robot = false;
        p += sizeof host - 1;
    } else {
        return 0;
    }
    if (end - p < 2 || end[-2] != '"' || end[-1] != '}')
        return 0;
    size_t digits = (size_t)(end - 2 - p);
    if (digits % 2 || !room(r, digits / 2 + 1))
        return 0;
    for (size_t i = 0; i < digits / 2; i++) {
        int hi = bw_hex_value((unsigned char)p[2 * i]);
        int lo = bw_hex_value((unsigned char)p[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return 0;
        r->bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    *c = (bw_record_chunk_t){ .t = t, .t_text = num, .t_len = tlen, .from_robot = from_robot,
                              .data = r->bytes, .len = digits / 2 };
    return 1;
}

/* The "data" member's hex into r->bytes: 0, or -1 with err. */
static int data_hex(bw_record_reader_t *r, json_t *v, size_t *n, char *err, size_t errlen)
{
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (!room(r, len / 2 + 1)) {
        snprintf(err, errlen, "out of memory");
        return BW_ENOMEM;
    }
    if (len % 2) {
        snprintf(err, errlen,
                 "line %zu: field \"data\" must hold an even number of hex digits, at most %zu "
                 "bytes",
                 r->line_no, len / 2 + 1);
        return -1;
    }
    for (size_t i = 0; i < len / 2; i++) {
        int hi = bw_hex_value((unsigned char)s[2 * i]);
        int lo = bw_hex_value((unsigned char)s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            snprintf(err, errlen, "line %zu: field \"data\" is not hexadecimal", r->line_no);
            return -1;
        }
        r->bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    *n = len / 2;
    return 0;
}

int bw_record_reader_line(bw_record_reader_t *r, const char *line, size_t n,
                          bw_record_chunk_t *c, char *err, size_t errlen)
{
    r->line_no++;
    if (n == 0)
        return 0;
    if (r->line_no > 1 && line_fast(r, line, n, c))
        return 1;
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
        const char *url = json_string_value(json_object_get(o, "url"));
        const char *family = json_string_value(json_object_get(o, "family"));
        const char *start = json_string_value(json_object_get(o, "start"));
        free(r->url);
        free(r->family);
        free(r->start);
        r->url = url ? strdup(url) : NULL;
        r->family = family ? strdup(family) : NULL;
        r->start = start ? strdup(start) : NULL;
        rc = (url && !r->url) || (family && !r->family) || (start && !r->start) ? BW_ENOMEM : 0;
        goto out;
    }
    if (!json_is_number(jt) || !json_is_string(from) || !json_is_string(data) ||
        (strcmp(json_string_value(from), "robot") && strcmp(json_string_value(from), "host"))) {
        snprintf(err, errlen,
                 "line %zu: expected {\"t\":SECONDS,\"from\":\"robot\"|\"host\",\"data\":\"HEX\"}",
                 r->line_no);
        goto out;
    }
    size_t got;
    rc = data_hex(r, data, &got, err, errlen);
    if (rc < 0)
        goto out;
    *c = (bw_record_chunk_t){ .t = json_number_value(jt),
                              .from_robot = strcmp(json_string_value(from), "robot") == 0,
                              .data = r->bytes, .len = got };
    rc = 1;
out:
    json_decref(o);
    return rc;
}

/* ---- a whole record, either format ------------------------------------------- */

/* Hands one chunk on, the header first when it has not gone yet. */
static int visit_chunk(const bw_record_visitor_t *v, bw_record_head_t *head, bool *headed,
                       const bw_record_chunk_t *c)
{
    if (!*headed) {
        *headed = true;
        int rc = v->head ? v->head(v->ctx, head) : 0;
        if (rc)
            return rc;
    }
    return v->chunk ? v->chunk(v->ctx, c) : 0;
}

static int read_jsonl(FILE *in, const uint8_t *first, size_t nfirst, const bw_record_visitor_t *v,
                      char *err, size_t errlen)
{
    bw_record_reader_t r;
    bw_record_reader_init(&r);
    bw_record_head_t head = { .format = BW_RECORD_JSONL };
    bool headed = false, eof = false;
    char *buf = NULL, why[300];
    size_t len = 0, cap = 0, at = 0;
    int rc = 0;
    while (!rc) {
        char *nl = at < len ? memchr(buf + at, '\n', len - at) : NULL;
        if (!nl && !eof) { /* more bytes: what is read makes room */
            if (at) {
                memmove(buf, buf + at, len - at);
                len -= at;
                at = 0;
            }
            if (cap - len < 65536) {
                char *p = realloc(buf, cap * 2 + 65536);
                if (!p) {
                    snprintf(err, errlen, "out of memory");
                    rc = -1;
                    break;
                }
                buf = p;
                cap = cap * 2 + 65536;
            }
            size_t n = nfirst;
            if (nfirst) {
                memcpy(buf + len, first, nfirst);
                nfirst = 0;
            } else {
                n = fread(buf + len, 1, cap - len, in);
            }
            if (n == 0) {
                if (ferror(in)) {
                    snprintf(err, errlen, "cannot read it: %s", strerror(errno));
                    rc = -1;
                }
                eof = true;
            }
            len += n;
            continue;
        }
        if (!nl && at == len)
            break; /* the end */
        size_t n = nl ? (size_t)(nl - (buf + at)) : len - at;
        bw_record_chunk_t c;
        int k = bw_record_reader_line(&r, buf + at, n, &c, why, sizeof why);
        at += n + (nl ? 1 : 0);
        if (k == BW_ENOMEM) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        } else if (k < 0 && r.line_no == 1) {
            snprintf(err, errlen, "%s", why); /* not a record at all */
            rc = -1;
        } else if (k < 0) {
            if (v->damaged)
                v->damaged(v->ctx, why);
        } else if (r.line_no == 1) {
            head.url = r.url;
            head.family = r.family;
            head.start = r.start;
        } else if (k == 1) {
            rc = visit_chunk(v, &head, &headed, &c);
        }
    }
    if (!rc && !headed && r.url) /* a record of no chunks */
        rc = visit_chunk(v, &head, &headed, NULL);
    free(buf);
    bw_record_reader_free(&r);
    return rc;
}

/* The header of an MCAP record: its Metadata record "botwire". 0, or -1
 * with err when it has none. */
int bw_record_mcap_wire(const bw_mcap_message_t *m, const uint8_t **data, size_t *len, char *err,
                        size_t errlen)
{
    int dir = !strcmp(m->topic, "/wire/robot") ? 1 : !strcmp(m->topic, "/wire/host") ? 0 : -1;
    if (dir < 0)
        return -1;
    *data = m->data;
    *len = m->len;
    if (!m->message_encoding || strcmp(m->message_encoding, "cdr") != 0)
        return dir; /* the bytes bare, encoding botwire/FAMILY */
    /* plain CDR, little endian: the encapsulation, the length, the bytes */
    uint32_t n = m->len >= 8 ? bw_get_le32(m->data + 4) : 0;
    if (m->len < 8 || m->data[0] != 0x00 || m->data[1] != 0x01 || n > m->len - 8) {
        snprintf(err, errlen, "%s at %llu ns: not a botwire_msgs/msg/Wire in little-endian CDR",
                 m->topic, (unsigned long long)m->log_time);
        return -2;
    }
    *data = m->data + 8;
    *len = n;
    return dir;
}

static int mcap_head(const bw_mcap_reader_t *r, bw_record_head_t *head, char *err, size_t errlen)
{
    const char *ns = bw_mcap_meta(r, "botwire", "start_ns");
    head->start_ns = ns ? strtoull(ns, NULL, 10) : 0;
    head->url = bw_mcap_meta(r, "botwire", "url");
    head->family = bw_mcap_meta(r, "botwire", "family");
    head->start = bw_mcap_meta(r, "botwire", "start");
    if (head->url)
        return 0;
    snprintf(err, errlen, "no botwire metadata: not a record `botwire record` made");
    return -1;
}

static int read_mcap(FILE *in, const uint8_t *first, size_t nfirst, const bw_record_visitor_t *v,
                     char *err, size_t errlen)
{
    bw_mcap_reader_t *r = bw_mcap_reader_new();
    if (!r || bw_mcap_reader_push(r, first, nfirst) < 0) {
        bw_mcap_reader_free(r);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char why[300];
    bw_record_head_t head = { .format = BW_RECORD_MCAP };
    bool headed = false, ended = false;
    int rc = 0;
    while (!rc) {
        bw_mcap_message_t m;
        int k = bw_mcap_next(r, &m, why, sizeof why);
        if (k == 0) {
            if (ended)
                break;
            int got = bw_mcap_reader_read(r, in, err, errlen);
            ended = got == 0;
            rc = got < 0 ? -1 : 0;
            continue;
        }
        if (k < 0) {
            if (v->damaged)
                v->damaged(v->ctx, why);
            continue;
        }
        /* by the first message, the header's metadata is in */
        if (!headed && mcap_head(r, &head, err, errlen) < 0) {
            rc = -1;
            break;
        }
        const uint8_t *bytes;
        size_t len;
        int dir = bw_record_mcap_wire(&m, &bytes, &len, why, sizeof why);
        if (dir == -2) {
            if (v->damaged)
                v->damaged(v->ctx, why);
            continue;
        }
        if (dir < 0) {
            if (!headed && v->head) { /* the header goes before anything */
                headed = true;
                rc = v->head(v->ctx, &head);
            }
            if (!rc && v->other)
                v->other(v->ctx, &m);
            continue;
        }
        bw_record_chunk_t c = { .t = (double)(int64_t)(m.log_time - head.start_ns) / 1e9,
                                .from_robot = dir == 1, .data = bytes, .len = len };
        rc = visit_chunk(v, &head, &headed, &c);
    }
    if (!rc && !headed) /* a record of no wire */
        rc = mcap_head(r, &head, err, errlen) < 0 ? -1 : visit_chunk(v, &head, &headed, NULL);
    bw_mcap_reader_free(r);
    return rc;
}

int bw_record_read(FILE *in, const bw_record_visitor_t *v, char *err, size_t errlen)
{
    uint8_t first[32];
    size_t got = fread(first, 1, sizeof first, in);
    if (got == 0 && ferror(in)) {
        snprintf(err, errlen, "cannot read it: %s", strerror(errno));
        return -1;
    }
    if (got >= 8 && memcmp(first, BW_MCAP_MAGIC, 8) == 0)
        return read_mcap(in, first, got, v, err, errlen);
    if (got > 0 && bw_record_sniff(first, got) != 0)
        return read_jsonl(in, first, got, v, err, errlen);
    snprintf(err, errlen, "not a botwire record (JSON Lines or MCAP)");
    return -1;
}
