/* The RoboBuggy's Mega on the buggy: the servo pulse (timer 1's compare
 * register, in 0.5 us ticks) and the brake relay (PA0) move the emulated
 * buggy; the potentiometer (ADC1), the battery (ADC0), the encoder (INT0
 * edges on PD0) and the RC switches (PA1, PA2) read it. */
#include <math.h>
#include <stdio.h>

#include <avr_adc.h>
#include <avr_timer.h>

#include "board.h"

#define SERVO_CENTRE 3000.0 /* ticks: 1.5 ms */
#define SERVO_SPAN 1000.0   /* ticks to BW_RBSM_STEER_LIMIT_DEG */
#define POT_DEG 30.0

typedef struct {
    bw_device_t *buggy;
    double steer;           /* rad, as the servo pulse asks */
    bool brake;             /* down */
    uint32_t ticks;         /* encoder edges given to the chip */
    bool level;             /* the encoder line is high */
    uint64_t pulses;        /* servo pulse widths set */
    uint64_t to_host, from_host;
    bw_rbsm_parser_t told;  /* what the firmware tells the host */
    int64_t told_ticks;     /* its last ticks-since-reset, -1 before any */
} mega_t;

static mega_t *M(harness_t *h) { return h->priv; }

static void actuate(harness_t *h)
{
    (void)bw_rbsm_device_actuate(M(h)->buggy, M(h)->steer, M(h)->brake);
}

static void on_servo(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    harness_t *h = param;
    M(h)->steer = ((double)value - SERVO_CENTRE) / SERVO_SPAN * BW_RBSM_STEER_LIMIT_DEG * BW_PI / 180;
    M(h)->pulses++;
    actuate(h);
}

static void on_brake(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    harness_t *h = param;
    M(h)->brake = value == 0; /* the relay released only while PA0 is high */
    actuate(h);
}

static int init(harness_t *h, const bw_device_options_t *opt, char *err, size_t errlen)
{
    static mega_t m;
    h->priv = &m;
    bw_device_options_t o = *opt;
    o.model = "buggy";
    int rc = bw_device_create(&m.buggy, "rbsm", &o, 0.0, err, errlen);
    if (rc < 0)
        return rc;
    m.brake = true;
    bw_rbsm_parser_init(&m.told);
    m.told_ticks = -1;
    h->avr->avcc = h->avr->vcc = h->avr->aref = 5000;
    avr_irq_register_notify(
        avr_io_getirq(h->avr, (uint32_t)AVR_IOCTL_TIMER_GETIRQ('1'), TIMER_IRQ_OUT_PWM0), on_servo, h);
    avr_irq_register_notify(harness_pin(h, 'A', 0), on_brake, h);
    avr_raise_irq(harness_pin(h, 'A', 1), 1); /* auton: the host drives */
    avr_raise_irq(harness_pin(h, 'A', 2), 1); /* the operator's brake: not held */
    /* The encoder line is low from reset; the first tick is its first edge
     * (driving it before the firmware has set INT0 up would latch a
     * spurious interrupt in simavr). */
    return 0;
}

static void chip_byte(harness_t *h, uint8_t b)
{
    harness_to_host(h, &b, 1);
    M(h)->to_host++;
    const uint8_t *p = &b;
    size_t n = 1;
    bw_rbsm_frame_t f;
    while (n)
        if (bw_rbsm_parse(&M(h)->told, &p, &n, &f) == 1 && f.id == BW_RBSM_MID_ENC_TICKS_RESET)
            M(h)->told_ticks = f.word;
}

static void host_bytes(harness_t *h, const uint8_t *b, size_t n)
{
    M(h)->from_host += n;
    harness_to_chip(h, b, n);
}

/* The buggy to t, and what the Mega's pins read of it. */
static void step(harness_t *h, double t)
{
    mega_t *m = M(h);
    bw_device_step(m->buggy, t);
    bw_rbsm_buggy_t b;
    (void)bw_rbsm_device_buggy(m->buggy, &b);
    /* simavr's ADC truncates (reading = mV * 1023 / 5000): half a step up
     * makes it the nearest reading, as a real converter's */
    double pot = 2500 + b.steer * 180 / BW_PI / POT_DEG * 2500 + 5000.0 / 1023 / 2;
    avr_raise_irq(avr_io_getirq(h->avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC1),
                  (uint32_t)fmax(0, fmin(5000, pot)));
    avr_raise_irq(avr_io_getirq(h->avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0),
                  (uint32_t)lround(b.battery * 1000 / 3));
    avr_raise_irq(harness_pin(h, 'A', 1), b.rc ? 0 : 1);
    avr_raise_irq(harness_pin(h, 'A', 2), b.rc_brake ? 0 : 1);
    /* One edge per millisecond at most, the line low in between, so that
     * each one is an interrupt of its own (500 ticks/s: 43 m/s). */
    if (m->level) {
        avr_raise_irq(harness_pin(h, 'D', 0), 0);
        m->level = false;
    } else if (m->ticks != b.enc_ticks) {
        avr_raise_irq(harness_pin(h, 'D', 0), 1);
        m->level = true;
        m->ticks++;
    }
}

static void report(harness_t *h)
{
    mega_t *m = M(h);
    const bw_sim_t *s = bw_device_sim(m->buggy);
    bw_rbsm_buggy_t b;
    (void)bw_rbsm_device_buggy(m->buggy, &b);
    printf("botwire-avr: the buggy at x %.3f m, y %.3f m, heading %.1f degrees (truth), "
           "steering %.2f degrees, %.2f m/s, brake %s, %u encoder ticks (the firmware's last "
           "report: %lld)\n",
           s->body.pose.x, s->body.pose.y, s->body.pose.theta * 180 / BW_PI,
           b.steer * 180 / BW_PI, b.v, b.braked ? "down" : "up", (unsigned)b.enc_ticks,
           (long long)m->told_ticks);
    printf("botwire-avr: USART bytes: %llu to the host, %llu from it; %llu servo pulses set\n",
           (unsigned long long)m->to_host, (unsigned long long)m->from_host,
           (unsigned long long)m->pulses);
}

static void destroy(harness_t *h) { bw_device_destroy(M(h)->buggy); }

const board_t board_rbsm_mega = {
    .name = "rbsm-mega",
    .mcu = "atmega2560",
    .family = "rbsm",
    .hz = 16000000,
    .uart = '0',
    .busy_port = 'B',
    .busy_bit = 7,
    .busy_high = true,
    .init = init,
    .chip_byte = chip_byte,
    .host_bytes = host_bytes,
    .step = step,
    .report = report,
    .destroy = destroy,
};
