/* A home-built base (firmware/base, built as a Kobuki or a Create 2) on its wheels: two DC motors driven by
 * timer 4's PWM (OC4A left, OC4B right) and a direction pin each (PH5,
 * PH6), with a first-order lag, friction and a load; quadrature encoders on
 * INT4/INT5 (PE4, PE5: left A, B) and INT2/INT3 (PD2, PD3: right A, B);
 * bumpers on PA0..PA2 (low when pressed), cliff sensors on PA3..PA5 (low:
 * floor), wheel drops on PA6, PA7 (high: on the ground), the battery on
 * ADC0 through a 4:1 divider. The plant's true pose is integrated from the
 * wheels every 25 us of the chip's clock, and an optional wall across the
 * way (--wall X, in metres ahead of the start) presses the bumpers of the side that meets it,
 * and a floor's edge (--cliff X) shows under the cliff sensors that pass it.
 * The geometry is firmware/base/hardware.h's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <avr_adc.h>
#include <avr_timer.h>
#include <sim_cycle_timers.h>
#include <sim_time.h>

#include "board.h"

/* firmware/base/hardware.h */
#define COUNTS_PER_TURN 1320.0
#define WHEEL_RADIUS 0.0325  /* m */
#define TRACK 0.200          /* m */
#define PWM_STEPS 800.0      /* TOP + 1 */
/* the plant */
#define TICK_US 25
#define V_FULL 1.0           /* m/s of a free wheel at full PWM, 12 V */
#define LAG 0.08             /* s: the motor's time constant */
#define FRICTION 0.6         /* m/s^2 of the rim: the gearbox and the floor */
#define RIGHT_GAIN 0.92      /* the right motor is the weaker: a closed loop must make up for it */
#define BODY_RADIUS 0.15     /* m: where the bumper is, from the centre */
#define BATTERY_V 14.8

typedef struct {
    double v[2];             /* the rims' speeds, m/s */
    double turned[2];        /* the wheels' angles, in counts of their encoders */
    long long count[2];      /* counts the encoder lines have shown */
    int ocr[2], dir[2];
    double x, y, theta;      /* truth */
    double path, turn;       /* how far the centre went, how far the body turned (rad) */
    double wall;             /* x of a wall across the way, or NAN */
    double edge;             /* x where the floor ends (a stair), or NAN */
    unsigned bumper;         /* bits 0..2: right, centre, left, as the pins are wired */
    unsigned cliff;          /* bits 0..2: right, centre, left cliff sensors over the drop */
    unsigned bumps;          /* presses */
    /* the watch on the host: when it last sent, and when the wheels came to
     * rest after it fell silent while they turned */
    double host_last, quiet_moving, drive_cut, at_rest;
    bool told_rest, told_driving;
    uint64_t to_host, from_host;
    /* What the firmware's feedback says, read as a Kobuki's: the pose its
     * ticks alone give over a Kobuki's 230 mm (no gyro), to judge the
     * ticks the firmware makes up from its encoders. */
    bw_kobuki_parser_t told;
    bool have_ticks;
    uint16_t last_ticks[2];
    double tx, ty, ttheta;
    unsigned long frames;
} base_t;

static base_t *B(harness_t *h) { return h->priv; }

static double duty(const base_t *b, int i)
{
    return (b->dir[i] ? 1.0 : -1.0) * fmin(b->ocr[i], PWM_STEPS) / PWM_STEPS;
}

/* The pins of encoder i for its count: 00, 10, 11, 01 forward (A, B). */
static void lines(harness_t *h, int i)
{
    static const int A[4] = { 0, 1, 1, 0 }, Bl[4] = { 0, 0, 1, 1 };
    int phase = (int)(B(h)->count[i] & 3);
    avr_raise_irq(harness_pin(h, i ? 'D' : 'E', i ? 2 : 4), (uint32_t)A[phase]);
    avr_raise_irq(harness_pin(h, i ? 'D' : 'E', i ? 3 : 5), (uint32_t)Bl[phase]);
}

static void press(harness_t *h, unsigned bits)
{
    base_t *b = B(h);
    if (bits & ~b->bumper)
        b->bumps++;
    for (int i = 0; i < 3; i++)
        avr_raise_irq(harness_pin(h, 'A', i), bits >> i & 1 ? 0 : 1);
    b->bumper = bits;
}

static avr_cycle_count_t tick(avr_t *avr, avr_cycle_count_t when, void *param)
{
    harness_t *h = param;
    base_t *b = B(h);
    const double dt = TICK_US * 1e-6;
    for (int i = 0; i < 2; i++) {
        double pull = (duty(b, i) * V_FULL * (i ? RIGHT_GAIN : 1.0) - b->v[i]) / LAG;
        double v = b->v[i];
        if (v == 0 && fabs(pull) <= FRICTION) {
            continue; /* held by friction */
        }
        double dv = (pull - copysign(FRICTION, v != 0 ? v : pull)) * dt;
        if (v != 0 && (v + dv) * v < 0)
            dv = -v; /* friction stops a wheel, it does not turn it back */
        b->v[i] = v + dv;
        b->turned[i] += b->v[i] * dt / (2 * BW_PI * WHEEL_RADIUS) * COUNTS_PER_TURN;
        long long want = (long long)floor(b->turned[i]);
        if (want != b->count[i]) { /* one edge a tick: 40000 counts/s, far above the top speed */
            b->count[i] += want > b->count[i] ? 1 : -1;
            lines(h, i);
        }
    }
    double v = (b->v[0] + b->v[1]) / 2, w = (b->v[1] - b->v[0]) / TRACK;
    double mid = b->theta + w * dt / 2;
    b->path += fabs(v) * dt;
    b->turn += fabs(w) * dt;
    b->x += v * dt * cos(mid);
    b->y += v * dt * sin(mid);
    b->theta = bw_angle_norm(b->theta + w * dt);
    if (!isnan(b->wall)) {
        unsigned bits = 0;
        if (b->x + BODY_RADIUS >= b->wall) {
            b->x = b->wall - BODY_RADIUS; /* the body stops; the wheels slip */
            double bearing = bw_angle_diff(0, b->theta);   /* the wall's normal, from the heading */
            bits = fabs(bearing) < 0.35 ? 2u : bearing > 0 ? 4u : 1u;
        }
        if (bits != b->bumper)
            press(h, bits);
    }
    if (!isnan(b->edge)) {
        /* the floor sensors at the front, right, centre, left */
        static const double at[3][2] = { { 0.12, -0.08 }, { 0.15, 0 }, { 0.12, 0.08 } };
        unsigned bits = 0;
        for (int i = 0; i < 3; i++)
            if (b->x + cos(b->theta) * at[i][0] - sin(b->theta) * at[i][1] >= b->edge)
                bits |= 1u << i;
        if (bits != b->cliff) {
            for (int i = 0; i < 3; i++)
                avr_raise_irq(harness_pin(h, 'A', 3 + i), bits >> i & 1);
            b->cliff = bits;
        }
    }
    double t = harness_time(h);
    bool turning = fabs(b->v[0]) > 1e-4 || fabs(b->v[1]) > 1e-4;
    if (isnan(b->quiet_moving) && turning && t - b->host_last > 0.1)
        b->quiet_moving = b->host_last;
    if (!isnan(b->quiet_moving) && isnan(b->drive_cut) && duty(b, 0) * b->v[0] <= 0 &&
        duty(b, 1) * b->v[1] <= 0)
        b->drive_cut = t;
    if (!isnan(b->quiet_moving) && isnan(b->at_rest) && !turning && b->ocr[0] == 0 &&
        b->ocr[1] == 0)
        b->at_rest = t;
    (void)avr;
    return when + avr_usec_to_cycles(h->avr, TICK_US);
}

static void on_pwm(struct avr_irq_t *irq, uint32_t value, void *param)
{
    harness_t *h = param;
    B(h)->ocr[irq->irq == TIMER_IRQ_OUT_PWM0 ? 0 : 1] = (int)value;
}

static void on_dir(struct avr_irq_t *irq, uint32_t value, void *param)
{
    harness_t *h = param;
    B(h)->dir[irq->irq == 5 ? 0 : 1] = value != 0;
}

static int init(harness_t *h, const bw_device_options_t *opt, char *err, size_t errlen)
{
    (void)opt;
    (void)err;
    (void)errlen;
    static base_t b;
    b.quiet_moving = b.drive_cut = b.at_rest = NAN;
    bw_kobuki_parser_init(&b.told);
    b.wall = harness_wall;
    b.edge = harness_edge;
    h->priv = &b;
    h->avr->avcc = h->avr->vcc = h->avr->aref = 5000;
    avr_irq_register_notify(avr_io_getirq(h->avr, (uint32_t)AVR_IOCTL_TIMER_GETIRQ('4'), TIMER_IRQ_OUT_PWM0),
                            on_pwm, h);
    avr_irq_register_notify(avr_io_getirq(h->avr, (uint32_t)AVR_IOCTL_TIMER_GETIRQ('4'), TIMER_IRQ_OUT_PWM1),
                            on_pwm, h);
    avr_irq_register_notify(harness_pin(h, 'H', 5), on_dir, h);
    avr_irq_register_notify(harness_pin(h, 'H', 6), on_dir, h);
    for (int i = 0; i < 3; i++)
        avr_raise_irq(harness_pin(h, 'A', i), 1);     /* bumpers: released */
    for (int i = 3; i < 6; i++)
        avr_raise_irq(harness_pin(h, 'A', i), 0);     /* cliffs: the floor is there */
    for (int i = 6; i < 8; i++)
        avr_raise_irq(harness_pin(h, 'A', i), 1);     /* wheels down */
    avr_raise_irq(avr_io_getirq(h->avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0),
                  (uint32_t)lround(BATTERY_V * 1000 / 4));
    avr_cycle_timer_register_usec(h->avr, TICK_US, tick, h);
    return 0;
}

static void ticks_odometry(base_t *b, const bw_kobuki_basic_sensor_data_t *d)
{
    uint16_t now[2] = { d->left_encoder, d->right_encoder };
    if (b->have_ticks) {
        double dl = bw_wrap_delta16(now[0], b->last_ticks[0]) * BW_KOBUKI_M_PER_TICK;
        double dr = bw_wrap_delta16(now[1], b->last_ticks[1]) * BW_KOBUKI_M_PER_TICK;
        double dth = (dr - dl) / BW_KOBUKI_WHEELBASE_M, mid = b->ttheta + dth / 2;
        b->tx += (dl + dr) / 2 * cos(mid);
        b->ty += (dl + dr) / 2 * sin(mid);
        b->ttheta = bw_angle_norm(b->ttheta + dth);
    }
    b->have_ticks = true;
    memcpy(b->last_ticks, now, sizeof now);
}

static void chip_byte(harness_t *h, uint8_t byte)
{
    base_t *b = B(h);
    harness_to_host(h, &byte, 1);
    b->to_host++;
    if (h->board != &board_base_kobuki)
        return;
    const uint8_t *p = &byte;
    size_t n = 1;
    bw_kobuki_frame_t f;
    int rc;
    while ((rc = bw_kobuki_parse(&b->told, &p, &n, &f)) != 0) {
        if (rc < 0)
            continue;
        b->frames++;
        bw_kobuki_iter_t it;
        bw_kobuki_msg_t m;
        bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_ROBOT, NULL);
        while ((rc = bw_kobuki_iter_next(&it, &m)) != 0)
            if (rc > 0 && m.type == BW_KOBUKI_BASIC_SENSOR_DATA)
                ticks_odometry(b, &m.u.basic_sensor_data);
    }
}

static void host_bytes(harness_t *h, const uint8_t *b, size_t n)
{
    B(h)->from_host += n;
    B(h)->host_last = harness_time(h);
    B(h)->quiet_moving = B(h)->drive_cut = B(h)->at_rest = NAN;
    B(h)->told_rest = B(h)->told_driving = false;
    harness_to_chip(h, b, n);
}

static void step(harness_t *h, double t)
{
    base_t *b = B(h);
    if (!isnan(b->quiet_moving) && isnan(b->at_rest) && !b->told_driving &&
        t - b->quiet_moving >= 2.0) {
        printf("botwire-avr: the host quiet for 2 s (since %.3f s), the wheels still turning at "
               "%.3f and %.3f m/s\n",
               b->quiet_moving, b->v[0], b->v[1]);
        fflush(stdout);
        b->told_driving = true;
    }
    if (!isnan(b->at_rest) && !b->told_rest) {
        printf("botwire-avr: the host quiet since %.3f s with the wheels turning; their drive cut at "
               "%.3f s, at rest at %.3f s\n",
               b->quiet_moving, b->drive_cut, b->at_rest);
        fflush(stdout);
        b->told_rest = true;
    }
}

static void report(harness_t *h)
{
    base_t *b = B(h);
    printf("botwire-avr: the base at x %.4f m, y %.4f m, heading %.3f degrees (truth), wheels %.3f "
           "%.3f m/s, encoders %lld %lld counts, %u bumps; it went %.3f m and turned %.1f degrees\n",
           b->x, b->y, b->theta * 180 / BW_PI, b->v[0], b->v[1], b->count[0], b->count[1], b->bumps,
           b->path, b->turn * 180 / BW_PI);
    if (h->board == &board_base_kobuki)
        printf("botwire-avr: the firmware's ticks alone (as a Kobuki's, no gyro): x %.4f m, y %.4f "
               "m, heading %.3f degrees, from %lu frames\n",
               b->tx, b->ty, b->ttheta * 180 / BW_PI, b->frames);
    printf("botwire-avr: USART bytes: %llu to the host, %llu from it\n",
           (unsigned long long)b->to_host, (unsigned long long)b->from_host);
}

static void destroy(harness_t *h) { (void)h; }

#define BASE_BOARD(NAME, FAMILY)                                                                   \
    {                                                                                              \
        .name = NAME, .mcu = "atmega2560", .family = FAMILY, .hz = 16000000, .uart = '0',          \
        .busy_port = 'B', .busy_bit = 7, .busy_high = true, .init = init, .chip_byte = chip_byte,  \
        .host_bytes = host_bytes, .step = step, .report = report, .destroy = destroy,              \
    }

const board_t board_base_kobuki = BASE_BOARD("base-kobuki", "kobuki");
const board_t board_base_create2 = BASE_BOARD("base-create2", "create?model=create2");
