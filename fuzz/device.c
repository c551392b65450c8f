/* libFuzzer harness for the emulated robots: arbitrary host bytes, in
 * arbitrary pieces, between steps of virtual time. The first byte picks the
 * family. The robot never crashes, stays inside its world, and everything it
 * says parses as good frames of its protocol. */
#include <math.h>
#include <stdlib.h>

#include "botwire/botwire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)     \
    do {             \
        if (!(c))    \
            abort(); \
    } while (0)

static const struct {
    const char *family;
    const bw_framing_t *(*framing)(void);
} families[] = {
    { "kobuki", bw_kobuki_framing },
    { "p2os", bw_p2os_framing },
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
    bw_framer_t out;
    bw_framer_init(&out, families[which].framing());
    double now = 0;
    size_t off = 0;
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
        while ((got = bw_device_output(dev, buf, sizeof buf)) > 0) {
            const uint8_t *d = buf, *f;
            size_t fs;
            int rc;
            while ((rc = bw_framer_parse(&out, &d, &got, &f, &fs)) != 0)
                CHECK(rc == 1);
        }
        const bw_body_t *b = &bw_device_sim(dev)->body;
        CHECK(isfinite(b->pose.x) && isfinite(b->pose.y) && isfinite(b->pose.theta));
        CHECK(b->pose.x > 0 && b->pose.x < 5 && b->pose.y > 0 && b->pose.y < 4);
    }
    CHECK(out.stats.skipped_bytes == 0 && out.stats.checksum_errors == 0);
    bw_device_destroy(dev);
    return 0;
}
