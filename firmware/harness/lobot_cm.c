/* The Command Module on a Create: PB4 routes the USART (high: the host's
 * pty, low: the emulated Create), PB5 reads the Create's power. */
#include <stdio.h>
#include <stdlib.h>

#include "board.h"

typedef struct {
    bw_device_t *create;
    bool usb;             /* PB4 */
    uint64_t to_create, to_host, from_create, from_host;
} cm_t;

static cm_t *C(harness_t *h) { return h->priv; }

static void on_select(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    harness_t *h = param;
    bool usb = value != 0;
    if (usb != C(h)->usb)
        harness_drop_to_chip(h); /* what the other side was still sending is cut off */
    C(h)->usb = usb;
}

static int init(harness_t *h, const bw_device_options_t *opt, char *err, size_t errlen)
{
    static cm_t cm;
    h->priv = &cm;
    int rc = bw_device_create(&cm.create, "create", opt, 0.0, err, errlen);
    if (rc < 0)
        return rc;
    avr_irq_register_notify(harness_pin(h, 'B', 4), on_select, h);
    avr_raise_irq(harness_pin(h, 'B', 5), 1); /* the Create is on */
    return 0;
}

static void chip_byte(harness_t *h, uint8_t b)
{
    cm_t *c = C(h);
    if (c->usb) {
        harness_to_host(h, &b, 1);
        c->to_host++;
    } else {
        bw_device_input(c->create, &b, 1, harness_time(h));
        c->to_create++;
    }
}

static void host_bytes(harness_t *h, const uint8_t *b, size_t n)
{
    cm_t *c = C(h);
    c->from_host += n;
    if (c->usb)
        harness_to_chip(h, b, n);
    else
        h->lost += n;
}

static void step(harness_t *h, double t)
{
    cm_t *c = C(h);
    bw_device_step(c->create, t);
    uint8_t buf[512];
    size_t n;
    while ((n = bw_device_output(c->create, buf, sizeof buf)) > 0) {
        c->from_create += n;
        if (!c->usb)
            harness_to_chip(h, buf, n);
        else
            h->lost += n;
    }
}

static void report(harness_t *h)
{
    cm_t *c = C(h);
    const bw_sim_t *s = bw_device_sim(c->create);
    printf("botwire-avr: the Create at x %.3f m, y %.3f m, heading %.1f degrees (truth)\n",
           s->body.pose.x, s->body.pose.y, s->body.pose.theta * 180 / BW_PI);
    printf("botwire-avr: USART bytes: %llu to the host, %llu from it; %llu to the Create, "
           "%llu from it\n",
           (unsigned long long)c->to_host, (unsigned long long)c->from_host,
           (unsigned long long)c->to_create, (unsigned long long)c->from_create);
}

static void destroy(harness_t *h) { bw_device_destroy(C(h)->create); }

const board_t board_lobot_cm = {
    .name = "lobot-cm",
    .mcu = "atmega168",
    .family = "lobot",
    .hz = 18432000,
    .uart = '0',
    .busy_port = 'D',
    .busy_bit = 5,
    .busy_high = false,
    .init = init,
    .chip_byte = chip_byte,
    .host_bytes = host_bytes,
    .step = step,
    .report = report,
    .destroy = destroy,
};
