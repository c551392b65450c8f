/* The RoboBuggy driver and the emulated buggy, in virtual time over
 * sim:rbsm, and over a relay the test controls (to silence the host). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"
#include "../run.h"

/* drive(v, w) for the w that holds a steering angle at the measured speed. */
static void hold_angle(run_t *r, double deg, double seconds)
{
    for (double end = r->now + seconds; r->now < end;) {
        double w = r->st->v > 0.05 ? r->st->v * tan(deg * BW_PI / 180) / BW_RBSM_WHEELBASE_M
                                   : copysign(0.1, deg);
        bw_base_drive(r->b, 1, w, r->now);
        run_step(r);
    }
}

static void test_online_and_caps(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rbsm");
    run_for(&r, 0.3);
    uint32_t caps = bw_base_caps(r.b);
    assert_true(caps & BW_CAP_STEER);
    assert_false(caps & BW_CAP_DRIVE); /* its speed is not commanded */
    assert_true(caps & BW_CAP_BRAKE);
    assert_true(r.st->brake); /* it stands braked */
    assert_string_equal(r.st->mode, "auton");
    assert_false(r.st->commands_ignored);
    assert_true(fabs(r.st->battery - 12.6) < 0.05);
    assert_int_equal(r.st->faults, 0);
    assert_int_equal(r.st->link.skipped_bytes + r.st->link.length_errors, 0);
    bw_base_close(r.b, r.now);
}

/* 10 degrees held: the true path and the odometry are both circles of
 * wheelbase / tan(10 degrees), within 2 %. */
static void test_circle(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rbsm");
    hold_angle(&r, 10, 4);
    double tx[512], ty[512], ox[512], oy[512];
    size_t n = 0;
    while (n < 512) {
        hold_angle(&r, 10, 0.04);
        tx[n] = r.sim->body.pose.x;
        ty[n] = r.sim->body.pose.y;
        ox[n] = r.st->pose.x;
        oy[n++] = r.st->pose.y;
    }
    double want = BW_RBSM_WHEELBASE_M / tan(10 * BW_PI / 180);
    double rt = run_fit_radius(tx, ty, n), ro = run_fit_radius(ox, oy, n);
    printf("rbsm circle at 10 degrees: true radius %.3f m, odometry %.3f m, wheelbase / tan "
           "%.3f m\n",
           rt, ro, want);
    assert_true(fabs(rt - want) / want < 0.02);
    assert_true(fabs(ro - want) / want < 0.02);
    bw_base_close(r.b, r.now);
}

/* v = 0 brakes: the buggy stops, the brake event says so; the odometry ends
 * within 5 cm of the true pose after the roll and the stop. */
static void test_brake_and_odometry(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rbsm");
    run_drive(&r, 1, 0.25, 6);
    assert_false(r.st->brake);
    assert_true(r.st->v > 2);
    size_t from = r.nevents;
    run_drive(&r, 0, 0, 2);
    assert_true(r.sim->body.v < 1e-9);
    assert_true(r.st->brake);
    assert_true(run_find_event(&r, BW_EV_BRAKE, true, from) != SIZE_MAX);
    bw_pose_t o = run_odo_world(&r);
    double err = hypot(o.x - r.sim->body.pose.x, o.y - r.sim->body.pose.y);
    printf("rbsm: rolled %.2f m; odometry %.3f m from the true pose, heading %.2f deg\n",
           r.sim->travelled, err, run_heading_error(&r) * 180 / BW_PI);
    assert_true(r.sim->travelled > 10);
    assert_true(err < 0.05);
    assert_true(fabs(run_heading_error(&r)) < 2 * BW_PI / 180);
    bw_base_close(r.b, r.now);
}

/* The RC switch thrown: the driver says its commands are ignored (mode rc,
 * an event), and says so again when the host has the buggy back. */
static void test_rc(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rbsm");
    run_drive(&r, 1, 0, 1);
    assert_int_equal(bw_rbsm_device_rc(bw_base_device(r.b), true, false), 0);
    size_t from = r.nevents;
    run_drive(&r, 0, 0, 0.5);
    assert_true(r.st->commands_ignored);
    assert_string_equal(r.st->mode, "rc");
    size_t i = run_find_event(&r, BW_EV_REFLEX, true, from);
    assert_int_not_equal(i, SIZE_MAX);
    assert_int_equal(r.events[i].mask, BW_REFLEX_REMOTE);
    assert_true(r.sim->body.v > 1); /* the host's brake is not obeyed */
    assert_int_equal(bw_rbsm_device_rc(bw_base_device(r.b), false, false), 0);
    run_drive(&r, 0, 0, 1.5);
    assert_false(r.st->commands_ignored);
    assert_true(run_find_event(&r, BW_EV_REFLEX, false, from) != SIZE_MAX);
    assert_true(r.sim->body.v < 1e-9);
    bw_base_close(r.b, r.now);
}

/* The host falls silent (its bytes stop reaching the Mega): a second later
 * the brake is down and the fault event carries the auton-lost bit. The
 * driver believes an error word when two error messages agree, and the Mega
 * repeats it every tenth loop: the event comes within 0.1 s of the
 * watchdog's second, plus two loops. */
static void test_silent_host(void **state)
{
    (void)state;
    bw_device_t *dev;
    char err[256];
    assert_int_equal(bw_device_create(&dev, "rbsm", NULL, 0, err, sizeof err), 0);
    bw_port_t *near, *far;
    assert_int_equal(bw_port_pair(&near, &far, 1 << 16), 0);
    bw_base_t *b;
    assert_int_equal(bw_base_open_port(&b, "rbsm", near, NULL, 0, err, sizeof err), 0);
    const bw_base_state_t *st = bw_base_state(b);
    bool cut = false;
    double now = 0, cut_at = 3;
    bool fault = false;
    uint8_t buf[4096];
    while (now < 6) {
        now += 0.01;
        int n;
        while ((n = bw_port_read(far, buf, sizeof buf)) > 0)
            if (!cut)
                bw_device_input(dev, buf, (size_t)n, now);
        bw_device_step(dev, now);
        size_t out;
        while ((out = bw_device_output(dev, buf, sizeof buf)) > 0)
            bw_port_write(far, buf, out);
        bw_base_drive(b, now < cut_at ? 1 : 1, 0, now);
        bw_base_poll(b, now);
        bw_event_t ev;
        while (bw_base_next_event(b, &ev))
            if (ev.type == BW_EV_FAULT && ev.on && (ev.mask & BW_RBSM_ERR_AUTON_LOST)) {
                fault = true;
                printf("rbsm: host silent at %.2f s, fault event at %.2f s\n", cut_at, ev.t);
                assert_true(ev.t - cut_at >= 0.99 && ev.t - cut_at < 1.15);
            }
        if (now >= cut_at)
            cut = true;
    }
    assert_true(fault);
    assert_true(st->brake);
    assert_true(st->faults & BW_RBSM_ERR_AUTON_LOST);
    assert_true(bw_device_sim(dev)->body.v < 1e-9);
    bw_base_close(b, now);
    bw_port_close(far);
    bw_device_destroy(dev);
}

/* How far the odometry ends from the buggy's true pose: m, and degrees. */
static void run_error(const run_t *r, double *m, double *deg)
{
    bw_pose_t o = run_odo_world(r);
    *m = hypot(o.x - r->sim->body.pose.x, o.y - r->sim->body.pose.y);
    *deg = fabs(run_heading_error(r)) * 180 / BW_PI;
}

/* The deployed firmware's dialect end to end (a regression test: the
 * driver timed its readings by enc_timestamp, id 2, which the deployed Mega
 * never sends; it now times enc_ticks_reset by mega_timestamp, 253). Pushed
 * off, steered left (the word negative), an encoder reset on the way,
 * braked: the odometry ends within centimetres of the truth, nothing set
 * aside. */
static void test_deployed(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rbsm?model=deployed");
    run_for(&r, 0.1);
    assert_true(r.st->brake);
    run_drive(&r, 1, 0.25, 3);
    assert_true(r.st->v > 2);
    assert_true(r.st->w > 0.1 && r.sim->body.w > 0.1); /* left: the word negative */
    uint8_t req[BW_RBSM_MSG_LEN];
    assert_int_equal(bw_rbsm_encode(req, sizeof req, BW_RBSM_MID_ENC_RESET_REQUEST, 1), 6);
    bw_device_input(bw_base_device(r.b), req, sizeof req, r.now);
    run_drive(&r, 1, 0.25, 3);
    run_drive(&r, 0, 0, 2);
    assert_true(r.sim->body.v < 1e-9);
    assert_true(r.st->brake);
    double m, deg;
    run_error(&r, &m, &deg);
    printf("rbsm deployed: rolled %.2f m; odometry %.4f m %.2f deg from the truth; %llu "
           "implausible, %.3f s estimated\n",
           r.sim->travelled, m, deg, (unsigned long long)r.st->link.implausible,
           r.st->estimated_time);
    assert_string_equal(r.st->firmware, "0b07e00d");
    assert_string_equal(r.st->mode, "auton");
    assert_true(r.sim->travelled > 10);
    assert_true(m < 0.05 && deg < 2); /* as the seed's test_brake_and_odometry */
    assert_true(r.st->estimated_time > 0 && r.st->estimated_time < 0.05); /* the reset's loop */
    assert_int_equal(r.st->link.implausible, 0);
    assert_int_equal(r.st->link.skipped_bytes + r.st->link.length_errors + r.st->link.unknown, 0);
    bw_base_close(r.b, r.now);
    /* Steered right: the word positive, the buggy turns clockwise. */
    run_open(&r, "sim:rbsm?model=deployed");
    hold_angle(&r, -8, 4);
    assert_true(r.st->w < -0.3 && r.sim->body.w < -0.3);
    bw_base_close(r.b, r.now);
}

/* The deployed dialect on a bad cable, as test_noisy runs the seed's:
 * pushed off at 2 m/s, steered at 0.2 rad/s for 6 s, braked; at a bit
 * error rate of 1e-4, three seeds, the odometry within 3 cm and 3 degrees
 * of the truth and the events of the clean run, no other. */
static void deployed_run(double ber, int seed, double *m, double *deg, bw_event_t *ev, size_t *nev)
{
    char url[128];
    if (ber > 0)
        snprintf(url, sizeof url, "sim:rbsm?model=deployed&push=2&ber=%g&seed=%d", ber, seed);
    else
        snprintf(url, sizeof url, "sim:rbsm?model=deployed&push=2");
    run_t r;
    run_open(&r, url);
    run_drive(&r, 2, 0.2, 6);
    bw_base_stop(r.b, r.now);
    run_for(&r, 2);
    run_error(&r, m, deg);
    memcpy(ev, r.events, r.nevents * sizeof *ev);
    *nev = r.nevents;
    printf("rbsm deployed ber %g seed %d: odometry %.4f m %.2f deg from the truth; %llu "
           "rejected, %llu implausible, %zu events\n",
           ber, seed, *m, *deg,
           (unsigned long long)(r.st->link.length_errors + r.st->link.skipped_bytes),
           (unsigned long long)r.st->link.implausible, r.nevents);
    bw_base_close(r.b, r.now);
}

static size_t count_like(const bw_event_t *ev, size_t n, const bw_event_t *e)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ev[i].type == e->type && ev[i].on == e->on && ev[i].mask == e->mask;
    return k;
}

static void test_deployed_noisy(void **state)
{
    (void)state;
    static bw_event_t clean[RUN_EVENTS], noisy[RUN_EVENTS];
    size_t nclean, nnoisy;
    double m, deg;
    deployed_run(0, 0, &m, &deg, clean, &nclean);
    assert_true(m < 0.03 && deg < 3);
    for (int seed = 1; seed <= 3; seed++) {
        deployed_run(1e-4, seed, &m, &deg, noisy, &nnoisy);
        assert_true(m < 0.03 && deg < 3);
        for (size_t i = 0; i < nnoisy; i++)
            if (count_like(noisy, nnoisy, &noisy[i]) != count_like(clean, nclean, &noisy[i]))
                fail_msg("seed %d: %s %s mask 0x%x at %.2f s, not as in the clean run", seed,
                         bw_event_name(noisy[i].type), noisy[i].on ? "on" : "off",
                         (unsigned)noisy[i].mask, noisy[i].t);
        for (size_t i = 0; i < nclean; i++)
            if (count_like(noisy, nnoisy, &clean[i]) == 0)
                fail_msg("seed %d: %s %s missing", seed, bw_event_name(clean[i].type),
                         clean[i].on ? "on" : "off");
    }
}

/* The line's rate: the deployed firmware and its host run at 57600, the
 * seed dialect at 76800; baud= still says (a regression test: the deployed
 * model opened its line at 76800). */
static int line_baud(const char *url)
{
    run_t r;
    run_open(&r, url);
    bw_device_line_t line;
    bw_device_line(bw_base_device(r.b), &line);
    bw_base_close(r.b, r.now);
    return line.baud;
}

static void test_line_rate(void **state)
{
    (void)state;
    assert_int_equal(line_baud("sim:rbsm"), 76800);
    assert_int_equal(line_baud("sim:rbsm?model=seed"), 76800);
    assert_int_equal(line_baud("sim:rbsm?model=deployed"), 57600);
    assert_int_equal(line_baud("sim:rbsm?model=deployed&baud=115200"), 115200);
    assert_int_equal(line_baud("sim:rbsm?baud=57600"), 57600);
}

static void test_bad_params(void **state)
{
    (void)state;
    bw_base_t *b;
    char err[256];
    assert_int_equal(bw_base_open(&b, "sim:rbsm?model=nixie", NULL, 0, err, sizeof err), BW_EINVAL);
    assert_non_null(strstr(err, "seed or deployed"));
    assert_int_equal(bw_base_open(&b, "sim:rbsm?push=99", NULL, 0, err, sizeof err), BW_EINVAL);
    assert_int_equal(bw_base_open(&b, "rbsm:/dev/null?slope=2", NULL, 0, err, sizeof err), BW_EINVAL);
    assert_non_null(strstr(err, "sim:rbsm only"));
}

/* ---- a bad cable, damage placed by hand ---------------------------------- */

/* The buggy and the driver over a port pair, every message through the
 * test's hands: the line's damage where the test wants it. */
typedef struct relay relay_t;
/* A message from the buggy (6 bytes, its loop): writes what reaches the
 * host into out (up to 12 bytes), returns the count. */
typedef size_t (*down_fn)(relay_t *x, const uint8_t *msg, unsigned loop, uint8_t *out);
/* Bytes from the host, damaged in place. */
typedef void (*up_fn)(relay_t *x, uint8_t *buf, size_t n);

struct relay {
    bw_device_t *dev;
    bw_port_t *near, *far;
    bw_base_t *b;
    const bw_base_state_t *st;
    const bw_sim_t *sim;
    double now;
    unsigned loop;       /* the buggy's loops so far */
    down_fn down;
    up_fn up;
    unsigned damaged;    /* messages the hands damaged */
    unsigned commands;   /* host messages seen */
    bw_pose_t origin;
    bw_event_t events[64];
    size_t nevents;
    unsigned longest_release; /* loops in a row the buggy rolled unbraked at rest... */
    unsigned release_run;
};

static void relay_open(relay_t *x, down_fn down, up_fn up)
{
    memset(x, 0, sizeof *x);
    char err[256];
    assert_int_equal(bw_device_create(&x->dev, "rbsm", NULL, 0, err, sizeof err), 0);
    assert_int_equal(bw_port_pair(&x->near, &x->far, 1 << 16), 0);
    assert_int_equal(bw_base_open_port(&x->b, "rbsm", x->near, NULL, 0, err, sizeof err), 0);
    x->st = bw_base_state(x->b);
    x->sim = bw_device_sim(x->dev);
    x->origin = x->sim->body.pose;
    x->down = down;
    x->up = up;
}

static void relay_close(relay_t *x)
{
    bw_base_close(x->b, x->now);
    bw_port_close(x->far);
    bw_device_destroy(x->dev);
}

/* 2 ms of the line: the host's bytes to the buggy, the buggy's to the host,
 * the driver's poll. */
static void relay_step(relay_t *x)
{
    x->now += 0.002;
    uint8_t buf[4096], out[2 * sizeof buf];
    int n;
    while ((n = bw_port_read(x->far, buf, sizeof buf)) > 0) {
        x->commands += (unsigned)n / BW_RBSM_MSG_LEN;
        if (x->up)
            x->up(x, buf, (size_t)n);
        bw_device_input(x->dev, buf, (size_t)n, x->now);
    }
    bw_device_step(x->dev, x->now);
    size_t got;
    while ((got = bw_device_output(x->dev, buf, sizeof buf)) > 0) {
        size_t k = 0;
        for (size_t i = 0; i + BW_RBSM_MSG_LEN <= got; i += BW_RBSM_MSG_LEN) {
            uint8_t id = buf[i];
            if (x->down)
                k += x->down(x, buf + i, x->loop, out + k);
            else {
                memcpy(out + k, buf + i, BW_RBSM_MSG_LEN);
                k += BW_RBSM_MSG_LEN;
            }
            if (id == BW_RBSM_MID_ENC_TIMESTAMP)
                x->loop++;
        }
        bw_port_write(x->far, out, k);
    }
    bw_base_poll(x->b, x->now);
    bw_event_t ev;
    while (bw_base_next_event(x->b, &ev))
        if (x->nevents < sizeof x->events / sizeof x->events[0])
            x->events[x->nevents++] = ev;
}

static void relay_drive(relay_t *x, double v, double w, double seconds)
{
    for (double end = x->now + seconds; x->now < end;) {
        bw_base_drive(x->b, v, w, x->now);
        relay_step(x);
    }
}

/* How far the odometry ends from the buggy's true pose: m, and degrees. */
static void relay_error(const relay_t *x, double *m, double *deg)
{
    bw_pose_t o = bw_pose_compose(x->origin, x->st->pose), t = x->sim->body.pose;
    *m = hypot(o.x - t.x, o.y - t.y);
    *deg = fabs(bw_angle_diff(o.theta, t.theta)) * 180 / BW_PI;
}

/* The same events (type, on, mask), in the same order. */
static void same_events(const relay_t *clean, const relay_t *x)
{
    for (size_t i = 0; i < x->nevents; i++)
        printf("  event %s %s 0x%x at %.2f s\n", bw_event_name(x->events[i].type),
               x->events[i].on ? "on" : "off", (unsigned)x->events[i].mask, x->events[i].t);
    assert_int_equal(x->nevents, clean->nevents);
    for (size_t i = 0; i < x->nevents; i++) {
        assert_int_equal(x->events[i].type, clean->events[i].type);
        assert_int_equal(x->events[i].on, clean->events[i].on);
        assert_int_equal(x->events[i].mask, clean->events[i].mask);
    }
}

static uint32_t word_of(const uint8_t *msg)
{
    return (uint32_t)msg[1] << 24 | (uint32_t)msg[2] << 16 | (uint32_t)msg[3] << 8 | msg[4];
}

static void put_word(uint8_t *msg, uint32_t w)
{
    msg[1] = (uint8_t)(w >> 24);
    msg[2] = (uint8_t)(w >> 16);
    msg[3] = (uint8_t)(w >> 8);
    msg[4] = (uint8_t)w;
}

/* One damage: in loop `loop`, the message `id` (the word `value` too when
 * match_value) has its word xor-ed with `word_xor`, its id with `id_xor`,
 * its footer with `footer_xor`, or `add` added to its word; `drop` loses its
 * last byte, `insert` slips a byte 0x0A in after its third. */
typedef struct {
    unsigned loop;
    uint8_t id;
    bool match_value;
    uint32_t value;
    uint32_t word_xor;
    uint8_t id_xor, footer_xor;
    uint32_t add;
    bool drop, insert;
} damage_t;

static const damage_t *damages;
static size_t ndamages;

static size_t damage_down(relay_t *x, const uint8_t *msg, unsigned loop, uint8_t *out)
{
    memcpy(out, msg, BW_RBSM_MSG_LEN);
    for (size_t i = 0; i < ndamages; i++) {
        const damage_t *d = &damages[i];
        if (d->loop != loop || d->id != msg[0] || (d->match_value && word_of(msg) != d->value))
            continue;
        x->damaged++;
        put_word(out, (word_of(msg) ^ d->word_xor) + d->add);
        out[0] ^= d->id_xor;
        out[5] ^= d->footer_xor;
        if (d->drop)
            return BW_RBSM_MSG_LEN - 1;
        if (d->insert) {
            memmove(out + 4, out + 3, 3);
            out[3] = BW_RBSM_FOOTER;
            return BW_RBSM_MSG_LEN + 1;
        }
    }
    return BW_RBSM_MSG_LEN;
}

/* Pushed off, steered at w for 4 s, braked for 2 s, with and without the
 * damage: the damaged run's odometry ends within `m` and `deg` of the true
 * pose, and it raises exactly the clean run's events. */
static void roll_with(const damage_t *list, size_t n, double w, double m, double deg,
                      const char *what)
{
    relay_t clean, x;
    damages = list;
    ndamages = n;
    relay_open(&clean, NULL, NULL);
    relay_drive(&clean, 1, w, 4);
    relay_drive(&clean, 0, 0, 2);
    relay_open(&x, damage_down, NULL);
    relay_drive(&x, 1, w, 4);
    relay_drive(&x, 0, 0, 2);
    double cm, cdeg, em, edeg;
    relay_error(&clean, &cm, &cdeg);
    relay_error(&x, &em, &edeg);
    printf("rbsm, %s: %u messages damaged; odometry %.4f m %.2f deg from the truth (clean "
           "%.4f m %.2f deg), %llu implausible\n",
           what, x.damaged, em, edeg, cm, cdeg, (unsigned long long)x.st->link.implausible);
    assert_true(x.damaged >= n);
    assert_true(x.sim->travelled > 8);
    assert_true(em < m && edeg < deg);
    same_events(&clean, &x);
    relay_close(&clean);
    relay_close(&x);
}

/* Defect 1: an encoder word a flipped bit changed (a high bit of the count
 * was kilometres), a timestamp, an id that makes one encoder message
 * another, two readings damaged alike, a count and its enc_ticks_last
 * changed alike: none moves the odometry. */
static void test_bad_encoder_words(void **state)
{
    (void)state;
    static const damage_t list[] = {
        { .loop = 100, .id = BW_RBSM_MID_ENC_TICKS_RESET, .word_xor = 1u << 20 },
        { .loop = 130, .id = BW_RBSM_MID_ENC_TICKS_RESET, .word_xor = 1u << 0 },
        { .loop = 160, .id = BW_RBSM_MID_ENC_TICKS_RESET, .word_xor = 1u << 2 },
        { .loop = 190, .id = BW_RBSM_MID_ENC_TIMESTAMP, .word_xor = 1u << 12 },
        { .loop = 220, .id = BW_RBSM_MID_ENC_TIMESTAMP, .word_xor = 1u << 3 },
        { .loop = 250, .id = BW_RBSM_MID_ENC_TICKS_LAST, .word_xor = 1u << 1 },
        { .loop = 280, .id = BW_RBSM_MID_ENC_TICKS_LAST, .id_xor = 1 }, /* read as the count */
        { .loop = 310, .id = BW_RBSM_MID_ENC_TICKS_LAST, .id_xor = 2 }, /* ...as the time */
        { .loop = 340, .id = BW_RBSM_MID_ENC_TIMESTAMP, .id_xor = 2 },  /* the time as ticks */
        { .loop = 370, .id = BW_RBSM_MID_ENC_TICKS_RESET, .word_xor = 1u << 31 },
        { .loop = 400, .id = BW_RBSM_MID_ENC_TICKS_RESET, .add = 2 }, /* two alike */
        { .loop = 401, .id = BW_RBSM_MID_ENC_TICKS_RESET, .add = 2 },
        { .loop = 430, .id = BW_RBSM_MID_ENC_TICKS_RESET, .add = 1 }, /* count and ticks_last */
        { .loop = 430, .id = BW_RBSM_MID_ENC_TICKS_LAST, .add = 1 },
        { .loop = 460, .id = BW_RBSM_MID_ENC_TICKS_RESET, .word_xor = 1u << 8 },
        { .loop = 461, .id = BW_RBSM_MID_ENC_TIMESTAMP, .word_xor = 1u << 20 },
    };
    roll_with(list, sizeof list / sizeof list[0], 0.15, 0.03, 0.5, "encoder words damaged");
}

/* Defect 2: flags flipped. A brake state's bit, one out of the Mega's
 * range, the steering angle (0: straight) read as the brake or the mode,
 * the mode's bit, the encoder's device id read as an error word (its 1 the
 * watchdog bit) in two loops in a row, the battery read as the mode, the
 * brake state read as the battery: no event, the state as it was. */
static void test_flipped_flags(void **state)
{
    (void)state;
    static const damage_t list[] = {
        { .loop = 50, .id = BW_RBSM_MID_MEGA_BRAKE_STATE, .word_xor = 1 },
        { .loop = 60, .id = BW_RBSM_MID_MEGA_BRAKE_STATE, .word_xor = 1 },
        { .loop = 61, .id = BW_RBSM_MID_MEGA_BRAKE_STATE, .word_xor = 1u << 16 },
        { .loop = 80, .id = BW_RBSM_MID_MEGA_STEER_ANGLE, .id_xor = 1 }, /* as the brake */
        { .loop = 90, .id = BW_RBSM_MID_MEGA_STEER_ANGLE, .id_xor = 2 }, /* as the mode */
        { .loop = 100, .id = BW_RBSM_MID_MEGA_AUTON_STATE, .word_xor = 1 },
        { .loop = 110, .id = BW_RBSM_MID_MEGA_AUTON_STATE, .word_xor = 1 },
        { .loop = 111, .id = BW_RBSM_MID_MEGA_AUTON_STATE, .word_xor = 1u << 9 },
        { .loop = 130, .id = BW_RBSM_MID_DEVICE_ID, .match_value = true, .value = 1, .id_xor = 1 },
        { .loop = 131, .id = BW_RBSM_MID_DEVICE_ID, .match_value = true, .value = 1, .id_xor = 1 },
        { .loop = 149, .id = BW_RBSM_MID_MEGA_BATTERY_LEVEL, .id_xor = 1 }, /* as the mode */
        { .loop = 159, .id = BW_RBSM_MID_MEGA_BRAKE_STATE, .id_xor = 2 },  /* as the battery */
        { .loop = 169, .id = BW_RBSM_MID_MEGA_BATTERY_LEVEL, .word_xor = 1u << 13 },
        { .loop = 170, .id = BW_RBSM_MID_MEGA_AUTON_STATE, .id_xor = 1 }, /* as the battery */
    };
    relay_t x;
    damages = list;
    ndamages = sizeof list / sizeof list[0];
    relay_open(&x, damage_down, NULL);
    relay_drive(&x, 1, 0, 2.5);
    printf("rbsm, flags damaged: %u messages; brake %d, mode %s, faults 0x%x, battery %.2f V\n",
           x.damaged, x.st->brake, x.st->mode, (unsigned)x.st->faults, x.st->battery);
    assert_int_equal(x.damaged, ndamages);
    for (size_t i = 0; i < x.nevents; i++)
        assert_int_equal(x.events[i].type, BW_EV_ONLINE); /* nothing else */
    assert_false(x.st->brake);
    assert_string_equal(x.st->mode, "auton");
    assert_false(x.st->commands_ignored);
    assert_int_equal(x.st->faults, 0);
    assert_true(fabs(x.st->battery - 12.6) < 0.05);
    assert_true(x.sim->body.v > 1.5);
    relay_close(&x);
}

/* Defect 2: a steering feedback a flipped bit moved further than the servo
 * can in a loop does not bend the odometry. */
static void test_bad_steering_feedback(void **state)
{
    (void)state;
    static const damage_t list[] = {
        { .loop = 100, .id = BW_RBSM_MID_MEGA_STEER_FEEDBACK, .word_xor = 1u << 14 },
        { .loop = 150, .id = BW_RBSM_MID_MEGA_STEER_FEEDBACK, .word_xor = 1u << 13 },
        { .loop = 151, .id = BW_RBSM_MID_MEGA_STEER_FEEDBACK, .word_xor = 1u << 13 },
        { .loop = 200, .id = BW_RBSM_MID_MEGA_STEER_FEEDBACK, .word_xor = 1u << 31 },
        { .loop = 250, .id = BW_RBSM_MID_MEGA_STEER_FEEDBACK, .word_xor = 1u << 12 },
        { .loop = 300, .id = BW_RBSM_MID_MEGA_STEER_FEEDBACK, .word_xor = 1u << 15 },
        { .loop = 350, .id = BW_RBSM_MID_MEGA_STEER_FEEDBACK, .word_xor = 1u << 14 },
    };
    roll_with(list, sizeof list / sizeof list[0], 0.25, 0.03, 0.3, "steering feedback damaged");
}

/* Defect 3: messages lost to a damaged footer (the timestamp that closes a
 * loop, the count, the whole encoder reading, two loops' timestamps in a
 * row), a byte lost, a footer byte slipped in: the odometry neither loses
 * nor doubles a loop. */
static void test_lost_messages(void **state)
{
    (void)state;
    static const damage_t list[] = {
        { .loop = 100, .id = BW_RBSM_MID_ENC_TIMESTAMP, .footer_xor = 1 },
        { .loop = 130, .id = BW_RBSM_MID_ENC_TICKS_RESET, .footer_xor = 4 },
        { .loop = 160, .id = BW_RBSM_MID_ENC_TICKS_LAST, .footer_xor = 8 },
        { .loop = 190, .id = BW_RBSM_MID_ENC_TICKS_LAST, .footer_xor = 1 },
        { .loop = 190, .id = BW_RBSM_MID_ENC_TICKS_RESET, .footer_xor = 1 },
        { .loop = 190, .id = BW_RBSM_MID_ENC_TIMESTAMP, .footer_xor = 1 },
        { .loop = 220, .id = BW_RBSM_MID_ENC_TIMESTAMP, .footer_xor = 2 },
        { .loop = 221, .id = BW_RBSM_MID_ENC_TIMESTAMP, .footer_xor = 2 },
        { .loop = 250, .id = BW_RBSM_MID_MEGA_BRAKE_STATE, .drop = true },
        { .loop = 280, .id = BW_RBSM_MID_ENC_TICKS_RESET, .insert = true },
        { .loop = 310, .id = BW_RBSM_MID_DEVICE_ID, .drop = true },
        { .loop = 340, .id = BW_RBSM_MID_ENC_TICKS_LAST, .drop = true },
    };
    roll_with(list, sizeof list / sizeof list[0], 0.15, 0.03, 0.5, "messages lost");
}

/* The host's commands damaged on their way. One with its brake byte
 * flipped holds for one Mega loop at most (the next command comes before
 * the next loop): the buggy, braked at rest, barely moves, and no event
 * says the brake came off. One with a damaged footer sets the Mega's
 * lost-stream bit until the next: no fault. A stream truly lost (every
 * command damaged for 0.4 s) is a fault, and its end too. */
static double brake_flip_at, footer_at, lost_from, lost_to; /* s; 0: none */

static void damage_up(relay_t *x, uint8_t *buf, size_t n)
{
    for (size_t i = 0; i + BW_RBSM_MSG_LEN <= n; i += BW_RBSM_MSG_LEN) {
        bool lost = x->now >= lost_from && x->now < lost_to;
        if (buf[i] == BW_RBSM_MID_MEGA_COMMAND && brake_flip_at > 0 && x->now >= brake_flip_at) {
            buf[i + 3] ^= 0x01; /* the brake byte: 0 (engaged) reads 1, released */
            brake_flip_at = 0;
            x->damaged++;
        } else if ((footer_at > 0 && x->now >= footer_at) || lost) {
            buf[i + 5] ^= 0x10;
            footer_at = 0;
            x->damaged++;
        }
    }
}

static void test_damaged_commands(void **state)
{
    (void)state;
    relay_t x;
    relay_open(&x, NULL, damage_up);
    relay_drive(&x, 0, 0, 0.5);
    assert_true(x.st->brake);
    size_t from = x.nevents;
    double x0 = x.sim->body.pose.x, worst = 0;
    /* Five commands with the brake byte flipped, each alone, while braked. */
    for (unsigned i = 0; i < 5; i++) {
        brake_flip_at = x.now + 0.05 + 0.003 * i;
        for (double end = x.now + 0.2; x.now < end;) {
            bw_base_drive(x.b, 0, 0, x.now);
            relay_step(&x);
            worst = fmax(worst, x.sim->body.v);
        }
    }
    /* Two commands with a damaged footer, each alone. */
    for (unsigned i = 0; i < 2; i++) {
        footer_at = x.now + 0.05;
        relay_drive(&x, 0, 0, 0.2);
    }
    printf("rbsm, commands damaged: %u; the buggy moved %.4f m, at most %.3f m/s\n", x.damaged,
           x.sim->body.pose.x - x0, worst);
    assert_int_equal(x.damaged, 7);
    assert_true(x.sim->body.pose.x - x0 < 0.002);
    for (size_t i = from; i < x.nevents; i++)
        printf("  event %s %s 0x%x at %.2f s\n", bw_event_name(x.events[i].type),
               x.events[i].on ? "on" : "off", (unsigned)x.events[i].mask, x.events[i].t);
    assert_int_equal(x.nevents, from); /* no brake off, no fault */
    assert_true(x.st->brake);
    /* The stream lost for 0.4 s: the Mega says so, and so does the state. */
    lost_from = x.now + 0.05;
    lost_to = lost_from + 0.4;
    relay_drive(&x, 0, 0, 1);
    size_t on = SIZE_MAX, off = SIZE_MAX;
    for (size_t i = from; i < x.nevents; i++)
        if (x.events[i].type == BW_EV_FAULT && (x.events[i].mask & BW_RBSM_ERR_LOST_STREAM))
            *(x.events[i].on ? &on : &off) = i;
    printf("rbsm, the stream lost for 0.4 s: fault on at %.2f s, off at %.2f s\n",
           on != SIZE_MAX ? x.events[on].t : -1, off != SIZE_MAX ? x.events[off].t : -1);
    assert_true(on != SIZE_MAX && off != SIZE_MAX && off > on);
    relay_close(&x);
}

/* From loop restart_loop on, the count as a Mega restarted there would
 * send it: from 0, with no reset asked or confirmed. */
static unsigned restart_loop;
static uint32_t restart_offset;
static bool restarted;

static size_t restart_down(relay_t *x, const uint8_t *msg, unsigned loop, uint8_t *out)
{
    memcpy(out, msg, BW_RBSM_MSG_LEN);
    if (msg[0] == BW_RBSM_MID_ENC_TICKS_RESET && loop >= restart_loop) {
        if (!restarted)
            restart_offset = word_of(msg);
        restarted = true;
        put_word(out, word_of(msg) - restart_offset);
        x->damaged++;
    }
    return BW_RBSM_MSG_LEN;
}

/* The Mega's count back to 0 after an encoder reset the host asked for
 * (enc_reset_request, confirmed): the odometry goes on, and no reading is
 * counted implausible. A count that goes back unasked (the Mega restarted)
 * is set aside until believed readings say so three times: counted
 * implausible, the loops between estimated, the odometry goes on. */
static void test_encoder_reset(void **state)
{
    (void)state;
    relay_t x;
    relay_open(&x, NULL, NULL);
    relay_drive(&x, 1, 0.1, 3);
    uint8_t req[BW_RBSM_MSG_LEN];
    assert_int_equal(bw_rbsm_encode(req, sizeof req, BW_RBSM_MID_ENC_RESET_REQUEST, 1), 6);
    bw_rbsm_buggy_t before;
    assert_int_equal(bw_rbsm_device_buggy(x.dev, &before), 0);
    bw_device_input(x.dev, req, sizeof req, x.now);
    relay_drive(&x, 1, 0.1, 1);
    relay_drive(&x, 0, 0, 2);
    double m, deg;
    relay_error(&x, &m, &deg);
    printf("rbsm, encoder reset at %u ticks: odometry %.4f m %.2f deg from the truth, %llu "
           "implausible, %.3f s estimated\n",
           before.enc_ticks, m, deg, (unsigned long long)x.st->link.implausible,
           x.st->estimated_time);
    assert_true(before.enc_ticks > 20);
    assert_int_equal(x.st->link.implausible, 0);
    assert_true(m < 0.05 && deg < 0.5);
    relay_close(&x);

    restart_loop = 300;
    restarted = false;
    relay_open(&x, restart_down, NULL);
    relay_drive(&x, 1, 0.1, 4);
    relay_drive(&x, 0, 0, 2);
    relay_error(&x, &m, &deg);
    printf("rbsm, the count from 0 unasked at %u ticks: odometry %.4f m %.2f deg from the "
           "truth, %llu implausible, %.3f s estimated\n",
           restart_offset, m, deg, (unsigned long long)x.st->link.implausible,
           x.st->estimated_time);
    assert_true(restart_offset > 20);
    assert_true(x.st->link.implausible > 0 && x.st->link.implausible < 10);
    assert_true(x.st->estimated_time > 0);
    assert_true(m < 0.1 && deg < 1);
    relay_close(&x);
}

/* Seed 003 (GRL): "raw-base-x raw-base-y - The estimated global position of
 * the robot expressed in units of translational shaft encoder counts." The
 * buggy's one drive encoder counts a tick per 0.61 / 7 m: rolled straight
 * along x, state.encoder[0] is the emulated encoder's true count (from 0
 * at open) and raw_x the true travel in ticks, within the tick the count
 * cannot resolve. */
static void test_encoder_counts(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rbsm");
    run_for(&r, 0.3);
    assert_true(bw_base_caps(r.b) & BW_CAP_ENCODERS);
    const double per_m = 7.0 / 0.61;
    assert_true(fabs(r.st->counts_per_m - per_m) < 1e-9);
    bw_rbsm_buggy_t bug;
    assert_int_equal(bw_rbsm_device_buggy(bw_base_device(r.b), &bug), 0);
    uint32_t ticks0 = bug.enc_ticks;
    double x0 = r.sim->body.pose.x;
    run_drive(&r, 1, 0, 3);
    run_drive(&r, 0, 0, 2);
    assert_int_equal(bw_rbsm_device_buggy(bw_base_device(r.b), &bug), 0);
    double truth = (r.sim->body.pose.x - x0) * per_m;
    printf("rbsm raw_x %.1f ticks, true travel %.1f ticks; encoder %lld, the emulator's %u\n",
           r.st->raw_x, truth, (long long)r.st->encoder[0], bug.enc_ticks - ticks0);
    assert_true(bug.enc_ticks - ticks0 > 20);
    assert_int_equal(r.st->encoder[0], (int64_t)(bug.enc_ticks - ticks0));
    assert_int_equal(r.st->encoder[1], 0); /* no second encoder */
    assert_true(fabs(r.st->raw_x - truth) < 1.0);
    assert_true(fabs(r.st->raw_y) < 1.0);
    bw_base_close(r.b, r.now);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_online_and_caps), cmocka_unit_test(test_circle),
        cmocka_unit_test(test_brake_and_odometry), cmocka_unit_test(test_rc),
        cmocka_unit_test(test_silent_host),     cmocka_unit_test(test_deployed),
        cmocka_unit_test(test_bad_params),      cmocka_unit_test(test_bad_encoder_words),
        cmocka_unit_test(test_flipped_flags),   cmocka_unit_test(test_bad_steering_feedback),
        cmocka_unit_test(test_lost_messages),   cmocka_unit_test(test_damaged_commands),
        cmocka_unit_test(test_encoder_reset),   cmocka_unit_test(test_deployed_noisy),
        cmocka_unit_test(test_line_rate),
        cmocka_unit_test(test_encoder_counts),
    };
    return cmocka_run_group_tests_name("rbsm driver and emulated buggy", tests, NULL, NULL);
}
