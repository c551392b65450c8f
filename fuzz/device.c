/* libFuzzer harness for the emulated robots: arbitrary host bytes, in
 * arbitrary pieces, between steps of virtual time. The first byte picks the
 * family. The robot never crashes, stays inside its world, and everything it
 * says parses as good frames of its protocol (the bare Create's answers to
 * Sensors and Query List have no framing: it is only run). */
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "botwire/botwire.h"
#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the robot said, checked as it comes. */
typedef struct {
    bw_framer_t framer;          /* kobuki, p2os */
    bw_lobot_ack_parser_t acks;  /* lobot */
    bw_rbsm_parser_t rbsm;       /* rbsm */
} said_t;

static void check_framed(said_t *s, const uint8_t *d, size_t n)
{
    const uint8_t *f;
    size_t fs;
    int rc;
    while ((rc = bw_framer_parse(&s->framer, &d, &n, &f, &fs)) != 0)
        CHECK(rc == 1);
}

static void check_acks(said_t *s, const uint8_t *d, size_t n)
{
    bw_lobot_ack_frame_t f;
    bw_lobot_ack_t a;
    while (bw_lobot_ack_parse(&s->acks, &d, &n, &f) > 0)
        CHECK(bw_lobot_decode_ack(f.id, f.data, f.len, &a) == 0);
}

static void check_rbsm(said_t *s, const uint8_t *d, size_t n)
{
    bw_rbsm_frame_t f;
    int rc;
    while ((rc = bw_rbsm_parse(&s->rbsm, &d, &n, &f)) != 0)
        CHECK(rc == 1);
}

static void ignore(said_t *s, const uint8_t *d, size_t n)
{
    (void)s;
    (void)d;
    (void)n;
}

static const struct {
    const char *family;
    const bw_framing_t *(*framing)(void); /* NULL: not framed */
    void (*check)(said_t *s, const uint8_t *d, size_t n);
} families[] = {
    { "kobuki", bw_kobuki_framing, check_framed },
    { "p2os", bw_p2os_framing, check_framed },
    { "lobot", NULL, check_acks },
    { "create", NULL, ignore },
    { "rbsm", NULL, check_rbsm },
    { "rflex", bw_rflex_framing, check_framed },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t which = data[0] % (sizeof families / sizeof families[0]);
    data++;
    size--;
    bw_device_t *dev;
    if (bw_device_create(&dev, families[which].family, NULL, 0.0, NULL, 0) < 0)
        abort();
    said_t said;
    if (families[which].framing)
        bw_framer_init(&said.framer, families[which].framing());
    bw_lobot_ack_parser_init(&said.acks);
    bw_rbsm_parser_init(&said.rbsm);
    double now = 0;
    size_t off = 0;
    /* A simulator's client may put the robot off the map (SIM_SET_POSE, as
     * MobileSim allows, said in a notice); until then it must stay in. */
    bool placed_out = false;
    while (off < size) {
        /* Each piece: a length byte and a time step, then that many bytes. */
        size_t n = data[off] % 64;
        now += (data[off] >> 6) * 0.015;
        off++;
        if (n > size - off)
            n = size - off;
        bw_device_input(dev, data + off, n, now);
        off += n;
        bw_device_step(dev, now);
        uint8_t buf[4096];
        size_t got;
        while ((got = bw_device_output(dev, buf, sizeof buf)) > 0)
            families[which].check(&said, buf, got);
        const bw_body_t *b = &bw_device_sim(dev)->body;
        CHECK(isfinite(b->pose.x) && isfinite(b->pose.y) && isfinite(b->pose.theta));
        char note[256];
        while (bw_device_next_notice(dev, note, sizeof note))
            placed_out |= strstr(note, "off the map") != NULL;
        const bw_world_t *w = bw_device_sim(dev)->world;
        CHECK(placed_out || (b->pose.x > w->min_x && b->pose.x < w->max_x &&
                             b->pose.y > w->min_y && b->pose.y < w->max_y));
    }
    if (families[which].framing)
        CHECK(said.framer.stats.skipped_bytes == 0 && said.framer.stats.checksum_errors == 0);
    CHECK(said.acks.stats.skipped_bytes == 0);
    /* The buggy's stream starts on a message: the receiver, out of sync at
     * first, skips nothing and never fails. */
    CHECK(said.rbsm.stats.skipped_bytes == 0 && said.rbsm.stats.length_errors == 0);
    bw_device_destroy(dev);
    return 0;
}
