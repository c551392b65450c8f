/* libFuzzer harness for the MCAP reader (botwire/mcap.h), and a round trip
 * through the writer. The input is read as a file, pushed in two pieces
 * (where the first byte says): every message comes on a known channel with
 * its bytes inside the input's decompressed size, every error names an
 * offset, and the reader ends. `record --recover` of the input gives a
 * finished file of every message read, which reads without an error; as
 * a record of either format, its header comes once, first. Then
 * the input's bytes are written as
 * messages (in pieces the input chooses, compressed as its last byte
 * chooses) and read back: the same messages, in order, and a finished
 * file. */
#include <stdlib.h>
#include <string.h>

#include "botwire/mcap.h"
#include "botwire/record.h"
#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    uint8_t *p;
    size_t len, cap;
} out_t;

static int sink(void *ctx, const void *data, size_t n)
{
    out_t *o = ctx;
    if (o->len + n > o->cap) {
        size_t cap = (o->len + n) * 2;
        uint8_t *p = realloc(o->p, cap);
        if (!p)
            return 12;
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->len, data, n);
    o->len += n;
    return 0;
}

/* Reads the input as a file; the messages read. */
static size_t read_any(const uint8_t *data, size_t size)
{
    size_t messages = 0;
    bw_mcap_reader_t *r = bw_mcap_reader_new();
    CHECK(r);
    size_t cut = size ? data[0] % (size + 1) : 0;
    char err[256];
    bw_mcap_message_t m;
    CHECK(bw_mcap_reader_push(r, data, cut) == 0);
    int k, steps = 0;
    while ((k = bw_mcap_next(r, &m, err, sizeof err)) != 0) {
        if (k < 0)
            CHECK(strncmp(err, "offset ", 7) == 0);
        CHECK(++steps < 1000000);
    }
    CHECK(bw_mcap_reader_push(r, data + cut, size - cut) == 0);
    bw_mcap_reader_end(r);
    while ((k = bw_mcap_next(r, &m, err, sizeof err)) != 0) {
        if (k < 0) {
            CHECK(strncmp(err, "offset ", 7) == 0);
        } else {
            CHECK(m.topic && m.message_encoding);
            CHECK(m.len == 0 || m.data);
            messages++;
        }
        CHECK(++steps < 1000000);
    }
    CHECK(bw_mcap_next(r, &m, err, sizeof err) == 0);
    bw_mcap_reader_free(r);
    return messages;
}

static void no_word(void *ctx, const char *why)
{
    (void)ctx;
    CHECK(strncmp(why, "offset ", 7) == 0);
}

/* --recover of the input: a finished file of every message read, which
 * reads again without an error. */
static void recover(const uint8_t *data, size_t size, size_t messages)
{
    FILE *in = size ? fmemopen((void *)data, size, "rb") : NULL;
    if (!in)
        return;
    out_t o = { 0 };
    bw_mcap_recover_t rep;
    char err[256];
    int rc = bw_mcap_recover(in, NULL, sink, &o, no_word, &rep, err, sizeof err);
    fclose(in);
    if (rc == 0) {
        CHECK(rep.messages == messages && rep.size == size && rep.read_to <= size);
        bw_mcap_reader_t *r = bw_mcap_reader_new();
        CHECK(r && bw_mcap_reader_push(r, o.p, o.len) == 0);
        bw_mcap_reader_end(r);
        bw_mcap_message_t m;
        size_t n = 0;
        int k;
        while ((k = bw_mcap_next(r, &m, err, sizeof err)) == 1)
            n++;
        CHECK(k == 0 && n == messages && bw_mcap_finished(r));
        bw_mcap_reader_free(r);
    } else {
        CHECK(messages == 0);
    }
    free(o.p);
}

static int any_head(void *ctx, const bw_record_head_t *h)
{
    int *heads = ctx;
    CHECK(h && ++*heads == 1);
    return 0;
}

static int any_chunk(void *ctx, const bw_record_chunk_t *c)
{
    CHECK(*(int *)ctx == 1); /* the header first */
    CHECK(!c || c->len == 0 || c->data);
    return 0;
}

/* The input as a record of either format (bw_record_read): the header
 * once, before any chunk; an error is one line. */
static void read_record_any(const uint8_t *data, size_t size)
{
    FILE *in = size ? fmemopen((void *)data, size, "rb") : NULL;
    if (!in)
        return;
    int heads = 0;
    bw_record_visitor_t v = { .head = any_head, .chunk = any_chunk, .ctx = &heads };
    char err[256];
    if (bw_record_read(in, &v, err, sizeof err) < 0)
        CHECK(err[0] && !strchr(err, '\n'));
    fclose(in);
}

static void round_trip(const uint8_t *data, size_t size)
{
    out_t o = { 0 };
    bw_mcap_options_t opt = { .profile = "", .library = "fuzz",
                              .compression = (bw_mcap_compression_t)(size ? data[size - 1] % 3 : 0),
                              .chunk_size = 64 };
    bw_mcap_writer_t *w = bw_mcap_writer_new(&opt, sink, &o);
    CHECK(w);
    const char *k[] = { "k" }, *v[] = { "v" };
    int a = bw_mcap_channel(w, 0, "/a", "x", NULL, NULL, 0);
    int b = bw_mcap_channel(w, 0, "/b", "y", k, v, 1);
    CHECK(a == 0 && b == 1 && bw_mcap_metadata(w, "m", k, v, 1) == 0);
    /* pieces: each byte's low bits say how long the next message is */
    size_t at = 0, n = 0;
    while (at < size) {
        size_t len = (size_t)(data[at] & 15);
        if (len > size - at)
            len = size - at;
        CHECK(bw_mcap_message(w, (int)(n & 1), n * 1000, data + at, len) == 0);
        if (data[at] & 16)
            CHECK(bw_mcap_end_chunk(w) == 0);
        at += len ? len : 1;
        n++;
    }
    CHECK(bw_mcap_finish(w) == 0);
    bw_mcap_writer_free(w);

    bw_mcap_reader_t *r = bw_mcap_reader_new();
    CHECK(r && bw_mcap_reader_push(r, o.p, o.len) == 0);
    bw_mcap_reader_end(r);
    char err[256];
    bw_mcap_message_t m;
    at = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(bw_mcap_next(r, &m, err, sizeof err) == 1);
        size_t len = (size_t)(data[at] & 15);
        if (len > size - at)
            len = size - at;
        CHECK(m.channel == (int)(i & 1) && m.log_time == i * 1000 && m.len == len);
        CHECK(!strcmp(m.topic, i & 1 ? "/b" : "/a"));
        CHECK(len == 0 || memcmp(m.data, data + at, len) == 0);
        at += len ? len : 1;
    }
    CHECK(bw_mcap_next(r, &m, err, sizeof err) == 0);
    CHECK(bw_mcap_finished(r));
    CHECK(bw_mcap_meta(r, "m", "k") && !strcmp(bw_mcap_meta(r, "m", "k"), "v"));
    bw_mcap_reader_free(r);
    free(o.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t messages = read_any(data, size);
    recover(data, size, messages);
    read_record_any(data, size);
    if (size <= 512) /* longer inputs make longer runs, not other paths */
        round_trip(data, size);
    return 0;
}
