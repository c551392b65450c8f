/* The emulated Pioneer, driven the way P2OS clients written elsewhere drive
 * one: raw frames, OPEN and CLOSE with an int argument, CONFIG expected back
 * within a second, PULSE to keep the session alive. Virtual time. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"

typedef struct {
    bw_device_t *dev;
    double now;
    bw_p2os_parser_t parser;
    bw_p2os_msg_t got[64]; /* the latest of what the robot said since take() */
    size_t ngot;
} client_t;

static void open_client_at(client_t *c, const char *model, const bw_pose_t *start)
{
    memset(c, 0, sizeof *c);
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.model = model;
    if (start) {
        o.has_start = true;
        o.start = *start;
    }
    char err[128];
    assert_int_equal(bw_device_create(&c->dev, "p2os", &o, 0.0, err, sizeof err), 0);
    bw_p2os_parser_init(&c->parser);
}

static void open_client(client_t *c, const char *model) { open_client_at(c, model, NULL); }

static void collect(client_t *c)
{
    uint8_t buf[8192];
    size_t n = bw_device_output(c->dev, buf, sizeof buf);
    const uint8_t *d = buf;
    bw_p2os_frame_t f;
    int rc;
    while ((rc = bw_p2os_parse(&c->parser, &d, &n, &f)) != 0) {
        assert_int_equal(rc, 1); /* the robot only ever sends good frames */
        if (c->ngot == 64) { /* keep the latest */
            memmove(c->got, c->got + 1, 63 * sizeof c->got[0]);
            c->ngot--;
        }
        {
            bw_p2os_msg_t *m = &c->got[c->ngot++];
            assert_int_equal(bw_p2os_decode(BW_P2OS_FROM_ROBOT, f.body, f.len, m), 0);
            /* Pointers into buf would dangle. */
            if (m->type == BW_P2OS_SIP)
                m->u.sip.extra = NULL;
            else if (m->type == BW_P2OS_CONFIG_PAC)
                m->u.config.extra = NULL;
            else if (m->type == BW_P2OS_UNKNOWN)
                m->u.unknown.data = NULL;
        }
    }
}

static void send_raw(client_t *c, const uint8_t *frame, size_t n)
{
    bw_device_input(c->dev, frame, n, c->now);
    collect(c);
}

static void cmd(client_t *c, uint8_t number)
{
    uint8_t f[8];
    int n = bw_p2os_encode_cmd(f, sizeof f, number);
    send_raw(c, f, (size_t)n);
}

static void cmd_int(client_t *c, uint8_t number, int32_t v)
{
    uint8_t f[16];
    int n = bw_p2os_encode_cmd_int(f, sizeof f, number, v);
    send_raw(c, f, (size_t)n);
}

static void advance(client_t *c, double seconds)
{
    double end = c->now + seconds;
    while (c->now < end - 1e-9) {
        c->now = fmin(end, c->now + 0.01);
        bw_device_step(c->dev, c->now);
        collect(c);
    }
}

/* Time passes with a PULSE every half second, as a live client sends. */
static void keep_alive(client_t *c, double seconds)
{
    for (double end = c->now + seconds; c->now < end - 1e-9;) {
        advance(c, fmin(0.5, end - c->now));
        cmd(c, BW_P2OS_PULSE);
    }
}

/* Time passes with the motion command renewed every half second, as ARIA
 * and the other stock clients drive. */
static void drive_on(client_t *c, double seconds, uint8_t number, int32_t v)
{
    for (double end = c->now + seconds; c->now < end - 1e-9;) {
        advance(c, fmin(0.5, end - c->now));
        cmd_int(c, number, v);
    }
}

static const bw_p2os_msg_t *last_of(const client_t *c, bw_p2os_type_t t)
{
    for (size_t i = c->ngot; i-- > 0;)
        if (c->got[i].type == t)
            return &c->got[i];
    return NULL;
}

static size_t count_of(const client_t *c, bw_p2os_type_t t)
{
    size_t n = 0;
    for (size_t i = 0; i < c->ngot; i++)
        n += c->got[i].type == t;
    return n;
}

static void take(client_t *c) { c->ngot = 0; }

/* SYNC0, SYNC1, SYNC2, each echoed; then OPEN with an int argument. */
static void connect(client_t *c)
{
    static const uint8_t sync0[] = { 0xFA, 0xFB, 0x03, 0x00, 0x00, 0x00 };
    static const uint8_t sync1[] = { 0xFA, 0xFB, 0x03, 0x01, 0x00, 0x01 };
    static const uint8_t sync2[] = { 0xFA, 0xFB, 0x03, 0x02, 0x00, 0x02 };
    static const uint8_t open1[] = { 0xFA, 0xFB, 0x06, 0x01, 0x3B, 0x01, 0x00, 0x02, 0x3B };
    take(c);
    send_raw(c, sync0, sizeof sync0);
    assert_int_equal(c->ngot, 1);
    assert_int_equal(c->got[0].type, BW_P2OS_SYNC);
    assert_int_equal(c->got[0].u.sync.n, 0);
    send_raw(c, sync1, sizeof sync1);
    assert_int_equal(c->got[1].u.sync.n, 1);
    send_raw(c, sync2, sizeof sync2);
    assert_int_equal(c->got[2].u.sync.n, 2);
    assert_true(c->got[2].u.sync.has_info);
    assert_string_equal(c->got[2].u.sync.cls, "Pioneer");
    advance(c, 0.5);
    assert_int_equal(count_of(c, BW_P2OS_SIP), 0); /* nothing before OPEN */
    send_raw(c, open1, sizeof open1);
    take(c);
}

static void test_handshake_and_sips(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    /* Out of order: SYNC1 first gets no echo. */
    cmd(&c, 1);
    assert_int_equal(c.ngot, 0);
    connect(&c);
    advance(&c, 1.0);
    /* A SIP every 100 ms, standing still, motors off, sonar on (the
     * client sent no SONAR: OPEN starts the sonar, as on the robot). */
    assert_int_equal(count_of(&c, BW_P2OS_SIP), 10);
    const bw_p2os_sip_t *s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_false(s->moving);
    assert_int_equal(s->flags & BW_P2OS_FLAG_MOTORS, 0);
    assert_int_equal(s->flags & BW_P2OS_FLAG_SONAR, BW_P2OS_FLAG_SONAR);
    assert_int_equal(s->nsonar, 4);
    assert_int_equal(s->battery, 130);
    assert_int_equal(s->ntrailing, 4);
    bw_device_destroy(c.dev);
}

static void test_config_within_a_second(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, "p2pb");
    connect(&c);
    cmd_int(&c, BW_P2OS_CONFIG, 1);
    advance(&c, 1.0);
    const bw_p2os_msg_t *m = last_of(&c, BW_P2OS_CONFIG_PAC);
    assert_non_null(m);
    assert_string_equal(m->u.config.robot_type, "Pioneer");
    assert_string_equal(m->u.config.subtype, "p2pb");
    assert_int_equal(m->u.config.nfields, BW_P2OS_CONFIG_FIELDS);
    assert_int_equal(m->u.config.front_bumps, 5);
    assert_int_equal(m->u.config.watchdog, 2000);
    bw_device_destroy(c.dev);
}

static void test_vel_pulse_and_watchdog(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    cmd_int(&c, BW_P2OS_VEL, 200);
    drive_on(&c, 4.0, BW_P2OS_VEL, 200);
    const bw_p2os_sip_t *s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_true(s->moving);
    assert_int_equal(s->lvel, 200);
    assert_int_equal(s->rvel, 200);
    assert_true(s->flags & BW_P2OS_FLAG_MOTORS);
    /* ~ 0.2 m/s for 4 s less the 300 mm/s^2 ramp: about 733 mm. */
    double x_mm = s->xpos * 0.84;
    assert_true(fabs(x_mm - (800 - 200.0 * 200 / 600)) < 10);
    /* The client falls silent: 2 s later the robot stops by itself. */
    take(&c);
    advance(&c, 1.9);
    assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.lvel, 200);
    advance(&c, 1.0);
    s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_int_equal(s->lvel, 0);
    assert_false(s->moving);
    bw_device_destroy(c.dev);
}

static void test_close_with_int_argument(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    cmd_int(&c, BW_P2OS_VEL, 300);
    advance(&c, 1.0);
    cmd_int(&c, BW_P2OS_CLOSE, 1);
    take(&c);
    advance(&c, 1.0);
    assert_int_equal(count_of(&c, BW_P2OS_SIP), 0); /* session over */
    assert_true(fabs(bw_device_sim(c.dev)->body.v) < 1e-9);
    connect(&c); /* and a new one can start */
    advance(&c, 0.3);
    assert_int_equal(count_of(&c, BW_P2OS_SIP), 3);
    bw_device_destroy(c.dev);
}

static void test_motion_commands(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    const bw_sim_t *sim = bw_device_sim(c.dev);
    cmd_int(&c, BW_P2OS_VEL, 200); /* motors off: nothing moves */
    advance(&c, 1.0);
    assert_true(fabs(sim->body.v) < 1e-9);
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    cmd_int(&c, BW_P2OS_STOP, 0);

    /* HEAD 90: turn to 90 degrees and hold. */
    cmd_int(&c, BW_P2OS_HEAD, 90);
    advance(&c, 4.0);
    const bw_p2os_sip_t *s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_true(abs(s->thpos - 1024) <= 12); /* 90 deg = 1024 units, +-1 deg */
    assert_int_equal(s->control, 1024);
    /* The seed: "Compass heading in 2-degree units": 90 degrees reads 45. */
    assert_true(abs((int)s->compass - 45) <= 1);
    /* DHEAD -45 */
    cmd_int(&c, BW_P2OS_DHEAD, -45);
    advance(&c, 3.0);
    s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_true(abs(s->thpos - 512) <= 12);
    assert_true(abs((int)s->compass - 22) <= 1); /* 45 degrees, in 2-degree units */
    /* MOVE 500 mm (from wherever it is), then stop by itself. */
    double x0 = sim->body.pose.x, y0 = sim->body.pose.y;
    cmd_int(&c, BW_P2OS_MOVE, 500);
    keep_alive(&c, 5.0);
    assert_true(fabs(hypot(sim->body.pose.x - x0, sim->body.pose.y - y0) - 0.5) < 0.005);
    assert_true(fabs(sim->body.v) < 1e-9);
    /* SETV caps VEL; RVEL turns; ESTOP stops at once. */
    cmd_int(&c, BW_P2OS_SETV, 100);
    cmd_int(&c, BW_P2OS_VEL, -500);
    advance(&c, 1.5);
    assert_true(fabs(sim->body.v + 0.1) < 1e-9);
    cmd_int(&c, BW_P2OS_RVEL, 30);
    advance(&c, 1.0);
    assert_true(fabs(sim->body.w - 30 * BW_PI / 180) < 1e-6);
    cmd(&c, BW_P2OS_ESTOP);
    advance(&c, 0.02);
    assert_true(fabs(sim->body.v) < 1e-9 && fabs(sim->body.w) < 1e-9);
    /* VEL2: left 10 x 20 mm/s forward, right 10 x 20 back: turning right. */
    cmd_int(&c, BW_P2OS_VEL2, (int32_t)(int16_t)0x0AF6);
    advance(&c, 2.0);
    assert_true(fabs(sim->body.left - 0.2) < 1e-9 && fabs(sim->body.right + 0.2) < 1e-9);
    /* SETO: the robot's odometry starts again at zero. */
    cmd(&c, BW_P2OS_STOP);
    advance(&c, 2.0);
    cmd(&c, BW_P2OS_SETO);
    advance(&c, 0.2);
    s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_int_equal(s->xpos, 0);
    assert_int_equal(s->ypos, 0);
    assert_int_equal(s->thpos, 0);
    bw_device_destroy(c.dev);
}

static void test_sonar_cycles_and_ranges(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    cmd_int(&c, BW_P2OS_SONAR, 1);
    advance(&c, 0.4);
    /* Every transducer in turn, four a SIP: 16 readings in 0.4 s. */
    unsigned seen = 0;
    double r0 = -1, r7 = -1;
    for (size_t i = 0; i < c.ngot; i++) {
        const bw_p2os_sip_t *s = &c.got[i].u.sip;
        if (c.got[i].type != BW_P2OS_SIP)
            continue;
        assert_true(s->flags & BW_P2OS_FLAG_SONAR);
        for (unsigned k = 0; k < s->nsonar; k++) {
            seen |= 1u << s->sonar[k].number;
            if (s->sonar[k].number == 0)
                r0 = s->sonar[k].range * 0.268;
            if (s->sonar[k].number == 7)
                r7 = s->sonar[k].range * 0.268;
        }
    }
    assert_int_equal(seen, 0xFFFF);
    /* At (1, 1) facing +x, sonar 0 sits at (69, 136) mm facing +y: the wall
     * at y = 4 m is 2864 mm away; sonar 7 faces the wall at y = 0: 864 mm. */
    assert_true(fabs(r0 - 2864) < 1);
    assert_true(fabs(r7 - 864) < 1);
    cmd_int(&c, BW_P2OS_SONAR, 0);
    take(&c);
    advance(&c, 0.3);
    assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.nsonar, 0);
    bw_device_destroy(c.dev);
}

static void test_peoplebot_bumpers_and_stall(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, "p2pb");
    connect(&c);
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    drive_on(&c, 8.0, BW_P2OS_VEL, 300); /* straight at the box */
    const bw_p2os_sip_t *s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_int_equal(s->stall_bump & BW_P2OS_BUMP_FRONT_MASK, 0x0800); /* the middle switch */
    assert_int_equal(s->stall_bump & (BW_P2OS_STALL_LEFT | BW_P2OS_STALL_RIGHT),
                     BW_P2OS_STALL_LEFT | BW_P2OS_STALL_RIGHT);
    assert_true(fabs(bw_device_sim(c.dev)->body.pose.x - (3.0 - 0.26)) < 0.005);
    /* Back away, turn round and back into the box: the rear ring. */
    cmd_int(&c, BW_P2OS_VEL, -200);
    advance(&c, 1.0);
    cmd_int(&c, BW_P2OS_VEL, 0);
    cmd_int(&c, BW_P2OS_HEAD, 180);
    keep_alive(&c, 4.0);
    drive_on(&c, 4.0, BW_P2OS_VEL, -200);
    s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_int_equal(s->stall_bump & BW_P2OS_BUMP_REAR_MASK, 0x0008); /* the middle one */
    assert_int_equal(s->stall_bump & BW_P2OS_BUMP_FRONT_MASK, 0);
    bw_device_destroy(c.dev);
}

/* The stall bits follow the motors' current, which follows the velocity
 * loop's setpoint: against the box and with a wheel over the stairwell's
 * drop they are set while the host drives on, and clear in the SIP after
 * its VEL 0 / RVEL 0 (how ARIA stops), not down the 300 mm/s^2 ramp (they
 * stayed set 0.44-1.1 s). The wheels are told 0 at once. */
static void test_stall_bits_clear_at_the_stop(void **state)
{
    (void)state;
    const bw_pose_t by_the_drop = { 0.6, 2.4, BW_PI / 2 }; /* the drop from y = 3.2 */
    for (int over_drop = 0; over_drop < 2; over_drop++) {
        client_t c;
        open_client_at(&c, NULL, over_drop ? &by_the_drop : NULL);
        connect(&c);
        cmd_int(&c, BW_P2OS_ENABLE, 1);
        drive_on(&c, 8.0, BW_P2OS_VEL, 300);
        const bw_body_t *b = &bw_device_sim(c.dev)->body;
        assert_true(over_drop ? (b->drop_left || b->drop_right) : b->blocked);
        const uint16_t stall = BW_P2OS_STALL_LEFT | BW_P2OS_STALL_RIGHT;
        assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.stall_bump & stall, stall);
        cmd_int(&c, BW_P2OS_VEL, 0);
        cmd_int(&c, BW_P2OS_RVEL, 0);
        take(&c);
        advance(&c, 0.1); /* one SIP cycle */
        assert_int_equal(count_of(&c, BW_P2OS_SIP), 1);
        const bw_p2os_sip_t *s = &last_of(&c, BW_P2OS_SIP)->u.sip;
        assert_int_equal(s->stall_bump & stall, 0);
        assert_int_equal(s->lvel, 0);
        assert_int_equal(s->rvel, 0);
        assert_true(b->cmd_left == 0 && b->cmd_right == 0);
        keep_alive(&c, 1.0);
        assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.stall_bump & stall, 0);
        /* Driving on again strains again; backing away is free. */
        drive_on(&c, 1.0, BW_P2OS_VEL, 300);
        assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.stall_bump & stall, stall);
        bw_device_destroy(c.dev);
    }
}

/* SIMSTAT's RealInterval and LastInterval are the gap between the SIPs of
 * one session: the first of a later session says 100 ms, not the idle time
 * since the last session's last SIP (2080-3150 ms were seen with ARIA's
 * simstat). */
static void test_simstat_intervals_per_session(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    for (int session = 0; session < 3; session++) {
        connect(&c);
        cmd_int(&c, BW_P2OS_SIM_STAT, 1); /* before the first SIP */
        const bw_p2os_simstat_t *st = &last_of(&c, BW_P2OS_SIMSTAT_PAC)->u.simstat;
        assert_int_equal(st->real_interval, 100);
        assert_int_equal(st->last_interval, 100);
        cmd_int(&c, BW_P2OS_SIM_STAT, 2);
        take(&c);
        advance(&c, 0.5);
        assert_int_equal(count_of(&c, BW_P2OS_SIMSTAT_PAC), 5);
        for (size_t i = 0; i < c.ngot; i++)
            if (c.got[i].type == BW_P2OS_SIMSTAT_PAC) {
                assert_int_equal(c.got[i].u.simstat.real_interval, 100);
                assert_int_equal(c.got[i].u.simstat.last_interval, 100);
            }
        /* Ended by a CLOSE, then by the client leaving the line. */
        if (session == 0)
            cmd_int(&c, BW_P2OS_CLOSE, 1);
        else
            bw_device_link(c.dev, false, c.now);
        advance(&c, 2.0 + session);
        if (session == 1)
            bw_device_link(c.dev, true, c.now);
    }
    bw_device_destroy(c.dev);
}

static void test_encoder_packets(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    cmd_int(&c, BW_P2OS_ENCODER, 1);
    advance(&c, 0.5);
    assert_int_equal(count_of(&c, BW_P2OS_ENCODER_PAC), 1); /* one, as asked */
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    cmd_int(&c, BW_P2OS_VEL, 100);
    cmd_int(&c, BW_P2OS_ENCODER, 2);
    take(&c);
    advance(&c, 1.0);
    assert_int_equal(count_of(&c, BW_P2OS_ENCODER_PAC), 10); /* with every SIP */
    const bw_p2os_encoder_t *e = &last_of(&c, BW_P2OS_ENCODER_PAC)->u.encoder;
    assert_true(e->left > 0 && e->left == e->right);
    cmd_int(&c, BW_P2OS_ENCODER, 0);
    take(&c);
    advance(&c, 0.5);
    assert_int_equal(count_of(&c, BW_P2OS_ENCODER_PAC), 0);
    bw_device_destroy(c.dev);
}

static void test_client_gone_and_back(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    cmd_int(&c, BW_P2OS_VEL, 200);
    advance(&c, 1.0);
    /* Over TCP the server sees the client go: the session ends at once. */
    bw_device_link(c.dev, false, c.now);
    take(&c);
    advance(&c, 0.5);
    assert_int_equal(count_of(&c, BW_P2OS_SIP), 0);
    assert_true(fabs(bw_device_sim(c.dev)->body.v) < 1e-9);
    connect(&c);
    advance(&c, 0.2);
    assert_int_equal(count_of(&c, BW_P2OS_SIP), 2);
    /* Over a serial line it cannot know: a new client's SYNC0 is a PULSE to
     * the open session, and SIPs keep coming (the client must CLOSE). */
    cmd(&c, 0);
    take(&c);
    advance(&c, 0.3);
    assert_int_equal(count_of(&c, BW_P2OS_SIP), 3);
    assert_int_equal(count_of(&c, BW_P2OS_SYNC), 0);
    bw_device_destroy(c.dev);
}

/* What ARIA does on connect, byte for byte: the handshake, OPEN 1,
 * CONFIG 1 (and waits up to a second for it), BATTERYINFO 1; its examples
 * then send ENABLE 1 and SOUNDTOG 0, and never SONAR. The robot answers as a
 * P2OS robot does: sonar on from OPEN, motors off until ENABLE, CONFIG with
 * its 2 s watchdog; what it does not act on is counted by number. */
static void test_aria_session_start(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    cmd_int(&c, BW_P2OS_CONFIG, 1);
    const bw_p2os_msg_t *cfg = last_of(&c, BW_P2OS_CONFIG_PAC);
    assert_non_null(cfg);
    assert_int_equal(cfg->u.config.watchdog, 2000);
    assert_int_equal(cfg->u.config.sip_cycle, 100);
    cmd_int(&c, BW_P2OS_BATTERYINFO, 1);
    advance(&c, 0.5);
    const bw_p2os_sip_t *s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_int_equal(s->flags & BW_P2OS_FLAG_MOTORS, 0);
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    cmd_int(&c, BW_P2OS_SOUNDTOG, 0);
    cmd_int(&c, BW_P2OS_JOYINFO, 2);
    cmd_int(&c, 199, 1); /* a number nobody defined */
    take(&c);
    advance(&c, 0.4);
    /* Four readings a SIP, every transducer in 0.4 s, each a real range. */
    unsigned seen = 0;
    for (size_t i = 0; i < c.ngot; i++) {
        if (c.got[i].type != BW_P2OS_SIP)
            continue;
        s = &c.got[i].u.sip;
        assert_int_equal(s->flags & BW_P2OS_FLAG_MOTORS, BW_P2OS_FLAG_MOTORS);
        assert_int_equal(s->flags & BW_P2OS_FLAG_SONAR, BW_P2OS_FLAG_SONAR);
        assert_int_equal(s->nsonar, 4);
        for (unsigned k = 0; k < s->nsonar; k++) {
            seen |= 1u << s->sonar[k].number;
            assert_true(s->sonar[k].range * 0.268 > 100 && s->sonar[k].range * 0.268 < 5000);
        }
    }
    assert_int_equal(seen, 0xFFFF);
    /* SONAR 0 still turns the ring off. */
    cmd_int(&c, BW_P2OS_SONAR, 0);
    take(&c);
    advance(&c, 0.2);
    assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.nsonar, 0);
    assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.flags & BW_P2OS_FLAG_SONAR, 0);
    const bw_device_stats_t *st = bw_device_stats(c.dev);
    assert_int_equal(st->ignored, 3);
    assert_int_equal(st->ignored_by_id[BW_P2OS_BATTERYINFO], 1);
    assert_int_equal(st->ignored_by_id[BW_P2OS_SOUNDTOG], 1);
    assert_int_equal(st->ignored_by_id[BW_P2OS_JOYINFO], 1);
    assert_int_equal(st->link.unknown, 1);
    assert_int_equal(st->unknown_by_id[199], 1);
    assert_string_equal(bw_device_command_name(c.dev, BW_P2OS_SOUNDTOG), "soundtog");
    assert_null(bw_device_command_name(c.dev, 199));
    /* A new session starts the same way, whatever the last one left. */
    cmd_int(&c, BW_P2OS_CLOSE, 1);
    connect(&c);
    advance(&c, 0.2);
    s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_int_equal(s->flags & (BW_P2OS_FLAG_MOTORS | BW_P2OS_FLAG_SONAR), BW_P2OS_FLAG_SONAR);
    assert_int_equal(s->nsonar, 4);
    bw_device_destroy(c.dev);
}

/* Velocity commands last while they are renewed: PULSE alone does not keep
 * a robot driving. */
static void test_keepalives_alone_stop_the_robot(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    cmd_int(&c, BW_P2OS_VEL, 200);
    keep_alive(&c, 1.9);
    assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.lvel, 200);
    keep_alive(&c, 1.1); /* 2 s after the VEL: stopping at 300 mm/s^2 */
    keep_alive(&c, 1.0);
    const bw_p2os_sip_t *s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_int_equal(s->lvel, 0);
    assert_false(s->moving);
    /* The session is still open, and the next VEL drives again. */
    cmd_int(&c, BW_P2OS_VEL, 200);
    advance(&c, 1.0);
    assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.lvel, 200);
    /* Position commands finish by themselves: no lease. */
    cmd_int(&c, BW_P2OS_VEL, 0);
    advance(&c, 1.0);
    double x0 = bw_device_sim(c.dev)->body.pose.x;
    cmd_int(&c, BW_P2OS_MOVE, 1000);
    keep_alive(&c, 6.0);
    assert_true(fabs(bw_device_sim(c.dev)->body.pose.x - x0 - 1.0) < 0.01);
    char line[200];
    assert_int_equal(bw_device_next_notice(c.dev, line, sizeof line), 1);
    assert_non_null(strstr(line, "only keep-alives"));
    assert_int_equal(bw_device_next_notice(c.dev, line, sizeof line), 0);
    bw_device_destroy(c.dev);
}

/* A client dies while the robot drives at 250 mm/s, on a line where the
 * emulator cannot see it go (a serial cable); a fresh client syncs as ARIA
 * does: SYNC0 (the same bytes as PULSE) until a stopped SIP, then CLOSE, then
 * the handshake. The keep-alives do not keep the robot driving: it is
 * stopping within the watchdog time and the client connects within 5 s. */
static void test_stale_session_after_a_client_died(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    drive_on(&c, 3.0, BW_P2OS_VEL, 250);
    assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.lvel, 250);
    double died = c.now, stopping = NAN, stopped = NAN, connected = NAN;
    const bw_sim_t *sim = bw_device_sim(c.dev);
    int state_ = 0;
    while (c.now - died < 5.0 && isnan(connected)) {
        take(&c);
        cmd(&c, (uint8_t)state_);
        advance(&c, 0.1);
        if (isnan(stopping) && sim->body.cmd_left < 0.25)
            stopping = c.now;
        if (isnan(stopped) && fabs(sim->body.v) < 1e-9)
            stopped = c.now;
        const bw_p2os_msg_t *m = c.ngot ? &c.got[0] : NULL;
        if (m && m->type == BW_P2OS_SIP && !m->u.sip.moving) {
            cmd_int(&c, BW_P2OS_CLOSE, 1);
            state_ = 0;
        } else if (m && m->type == BW_P2OS_SYNC && m->u.sync.n == state_) {
            if (++state_ == 3) {
                cmd_int(&c, BW_P2OS_OPEN, 1);
                connected = c.now;
            }
        } else {
            state_ = 0;
        }
    }
    print_message("stale session: stopping after %.1f s, stopped after %.1f s, connected "
                  "after %.1f s\n",
                  stopping - died, stopped - died, connected - died);
    assert_true(stopping - died <= 2.0 + 0.1);
    assert_true(stopped - died <= 2.0 + 0.25 / 0.3 + 0.1);
    assert_true(connected - died < 5.0);
    bw_device_destroy(c.dev);
}

/* Half a frame from a client that went away is not the next client's
 * business. */
static void test_link_change_cleans_the_line(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    static const uint8_t half[] = { 0xFA, 0xFB, 0xC8, 0x0B, 0x3B };
    send_raw(&c, half, sizeof half);
    bw_device_link(c.dev, false, c.now);
    bw_device_link(c.dev, true, c.now);
    connect(&c); /* asserts every echo at once */
    assert_int_equal(bw_device_stats(c.dev)->link.skipped_bytes, sizeof half);
    bw_device_destroy(c.dev);
}

/* The simulator's commands, from the packet layouts of MobileSim/AMRISim
 * and ARIA's ArSimUtil. */
static void test_simulator_commands(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    const bw_sim_t *sim = bw_device_sim(c.dev);
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    drive_on(&c, 1.0, BW_P2OS_VEL, 200);
    /* SIM_SET_POSE (2500, 2000) mm, 90 degrees, as ARIA sends it: the true
     * pose moves, the robot's odometry does not. */
    static const uint8_t set_pose[] = { 0xFA, 0xFB, 0x10, 0xE0, 0x00, 0xC4, 0x09, 0x00, 0x00, 0xD0,
                                        0x07, 0x00, 0x00, 0x5A, 0x00, 0x00, 0x00, 0xCE, 0x10 };
    uint8_t frame[32];
    assert_int_equal(bw_p2os_encode_sim_set_pose(frame, sizeof frame, 2500, 2000, 90),
                     sizeof set_pose);
    assert_memory_equal(frame, set_pose, sizeof set_pose);
    take(&c);
    advance(&c, 0.1);
    uint16_t x_before = last_of(&c, BW_P2OS_SIP)->u.sip.xpos;
    send_raw(&c, set_pose, sizeof set_pose);
    assert_true(fabs(sim->body.pose.x - 2.5) < 1e-9 && fabs(sim->body.pose.y - 2.0) < 1e-9);
    assert_true(fabs(sim->body.pose.theta - BW_PI / 2) < 1e-9);
    assert_true(fabs(sim->body.v) < 1e-9); /* lifted: the wheels stop */
    take(&c);
    advance(&c, 0.1);
    assert_true(abs((int)last_of(&c, BW_P2OS_SIP)->u.sip.xpos - (int)x_before) < 30);
    char line[200];
    assert_int_equal(bw_device_next_notice(c.dev, line, sizeof line), 1);
    assert_string_equal(line, "client moved the robot to (2500 mm, 2000 mm, 90 deg)");

    /* Into the box, and off the map: MobileSim moves the robot where its
     * client says (ARIA's moveRobotInSim sends such poses); so does the
     * emulator, and says so. SIMSTAT then reports it there. */
    static const struct {
        int32_t x, y;
        bool off;
    } where[] = { { 3250, 1000, true }, { 8000, 1, true }, { -8000, -1000, true },
                  { 2500, 2000, false } };
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        uint8_t f[32];
        int nb = bw_p2os_encode_sim_set_pose(f, sizeof f, where[i].x, where[i].y, 90);
        send_raw(&c, f, (size_t)nb);
        assert_true(fabs(sim->body.pose.x - where[i].x / 1000.0) < 1e-9);
        assert_true(fabs(sim->body.pose.y - where[i].y / 1000.0) < 1e-9);
        assert_int_equal(bw_device_next_notice(c.dev, line, sizeof line), 1);
        assert_true((strstr(line, "off the map or inside a wall") != NULL) == where[i].off);
        take(&c);
        cmd_int(&c, BW_P2OS_SIM_STAT, 1);
        const bw_p2os_simstat_t *ss = &last_of(&c, BW_P2OS_SIMSTAT_PAC)->u.simstat;
        assert_int_equal(ss->true_x, where[i].x);
        assert_int_equal(ss->true_y, where[i].y);
    }
    assert_int_equal(bw_device_stats(c.dev)->ignored_by_id[BW_P2OS_SIM_SET_POSE], 0);

    /* SIM_STAT 1: one SIMSTAT with the true pose. */
    take(&c);
    cmd_int(&c, BW_P2OS_SIM_STAT, 1);
    assert_int_equal(count_of(&c, BW_P2OS_SIMSTAT_PAC), 1);
    const bw_p2os_simstat_t *st = &last_of(&c, BW_P2OS_SIMSTAT_PAC)->u.simstat;
    assert_int_equal(st->nfields, BW_P2OS_SIMSTAT_FIELDS);
    assert_int_equal(st->true_x, 2500);
    assert_int_equal(st->true_y, 2000);
    assert_int_equal(st->true_th, 90);
    assert_int_equal(st->gps_dop, -1);
    /* The intervals are the SIP cycle, as MobileSim's (its cycle is the
     * SIP's), not the emulator's inner 10 ms control step. */
    assert_int_equal(st->sim_interval, 100);
    assert_int_equal(st->real_interval, 100);
    assert_int_equal(st->last_interval, 100);
    /* With no argument, one too (the simulator's documentation). */
    take(&c);
    cmd(&c, BW_P2OS_SIM_STAT);
    assert_int_equal(count_of(&c, BW_P2OS_SIMSTAT_PAC), 1);
    /* SIM_STAT 2: one before every SIP, as ARIA's ArSimUtil asks; 0 stops. */
    cmd_int(&c, BW_P2OS_SIM_STAT, 2);
    take(&c);
    advance(&c, 0.5);
    assert_int_equal(count_of(&c, BW_P2OS_SIMSTAT_PAC), 5);
    for (size_t i = 0; i + 1 < c.ngot; i += 2) {
        assert_int_equal(c.got[i].type, BW_P2OS_SIMSTAT_PAC);
        assert_int_equal(c.got[i + 1].type, BW_P2OS_SIP);
    }
    cmd_int(&c, BW_P2OS_SIM_STAT, 0);
    take(&c);
    advance(&c, 0.5);
    assert_int_equal(count_of(&c, BW_P2OS_SIMSTAT_PAC), 0);

    /* SIM_RESET: back to the start, odometry at zero. */
    cmd(&c, BW_P2OS_SIM_RESET);
    assert_true(fabs(sim->body.pose.x - 1.0) < 1e-9 && fabs(sim->body.pose.y - 1.0) < 1e-9);
    take(&c);
    advance(&c, 0.1);
    assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.xpos, 0);
    assert_int_equal(bw_device_next_notice(c.dev, line, sizeof line), 1);

    /* SIM_MESSAGE as ARIA's comStr sends it (a NUL after the counted text). */
    static const uint8_t msg[] = { 0xEE, 0x2B, 0x05, 'h', 'e', 'l', 'l', 'o', 0x00 };
    uint8_t f2[32];
    int n = bw_p2os_frame_body(f2, sizeof f2, msg, sizeof msg);
    send_raw(&c, f2, (size_t)n);
    assert_int_equal(bw_device_next_notice(c.dev, line, sizeof line), 1);
    assert_string_equal(line, "message from client: hello");

    /* SIM_EXIT 3: the session ends and the emulator is asked to exit. */
    int status = -1;
    assert_false(bw_device_exit_requested(c.dev, &status));
    cmd_int(&c, BW_P2OS_SIM_EXIT, 3);
    assert_true(bw_device_exit_requested(c.dev, &status));
    assert_int_equal(status, 3);
    take(&c);
    advance(&c, 0.3);
    assert_int_equal(count_of(&c, BW_P2OS_SIP), 0);
    /* Nothing was ignored or unknown. */
    assert_int_equal(bw_device_stats(c.dev)->ignored, 0);
    assert_int_equal(bw_device_stats(c.dev)->link.unknown, 0);
    assert_int_equal(bw_device_stats(c.dev)->link.length_errors, 0);
    bw_device_destroy(c.dev);
}

static void test_models(void **state)
{
    (void)state;
    bw_device_t *d;
    char err[128];
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.model = "p2at";
    assert_int_equal(bw_device_create(&d, "p2os", &o, 0, err, sizeof err), 0);
    assert_true(fabs(bw_device_sim(d)->body.prm.radius - 0.40) < 1e-9);
    bw_device_destroy(d);
    o.model = "p3dx";
    assert_int_equal(bw_device_create(&d, "p2os", &o, 0, err, sizeof err), BW_EUNKNOWN);
    assert_non_null(strstr(err, "p3dx"));
}

/* Seed 004: "Compass byte Compass heading in 2-degree units". The compass
 * reads where the robot truly points in the world, not its odometry (which
 * restarts at 0 with the session): a robot put down facing 90 degrees sends
 * 45 while its Th pos says 0; turned to 135 degrees true it sends 67. */
static void test_compass_reads_the_true_heading(void **state)
{
    (void)state;
    client_t c;
    memset(&c, 0, sizeof c);
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.has_start = true;
    o.start = (bw_pose_t){ 1.0, 2.0, BW_PI / 2 };
    assert_int_equal(bw_device_create(&c.dev, "p2os", &o, 0.0, NULL, 0), 0);
    bw_p2os_parser_init(&c.parser);
    connect(&c);
    advance(&c, 0.3);
    const bw_p2os_sip_t *s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_int_equal(s->thpos, 0); /* the robot's odometry starts at 0 */
    assert_int_equal(s->compass, 45);
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    cmd_int(&c, BW_P2OS_HEAD, 45); /* 45 degrees more, by its odometry */
    keep_alive(&c, 4.0);
    s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    double truth = bw_device_sim(c.dev)->body.pose.theta * 180 / BW_PI;
    printf("p2os compass: true heading %.2f deg, compass byte %u\n", truth, s->compass);
    assert_true(fabs(truth - 135) < 1.0);
    assert_int_equal(s->compass, lround(truth) / 2);
    /* Facing -90 degrees true (270): 135. */
    cmd_int(&c, BW_P2OS_HEAD, 180);
    keep_alive(&c, 4.0);
    s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    truth = bw_device_sim(c.dev)->body.pose.theta * 180 / BW_PI;
    assert_true(fabs(truth + 90) < 1.0);
    assert_int_equal(s->compass, lround(truth + 360) / 2);
    bw_device_destroy(c.dev);
}

/* Seed 004, FLAGS: "b0 - motors flag (1=motors enabled) b1 - sonar flag:
 * enabled if 1." The emulator sets bits 1 to 4 together for the sonar, as
 * P2OS firmware does for its sonar arrays and as ARIA reads them
 * (areSonarsEnabled tests bits 1-4; docs/p2os.md): bit 1 alone answers the
 * seed, and bit 5 (ARIA's e-stop) and above stay clear. */
static void test_sip_flags(void **state)
{
    (void)state;
    client_t c;
    open_client(&c, NULL);
    connect(&c);
    advance(&c, 0.3);
    const bw_p2os_sip_t *s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_int_equal(s->flags, 0x001E); /* sonar on from OPEN, motors off */
    assert_true(s->flags & 0x0002);     /* the seed's b1 */
    cmd_int(&c, BW_P2OS_ENABLE, 1);
    advance(&c, 0.3);
    s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_int_equal(s->flags, 0x001F);
    cmd_int(&c, BW_P2OS_SONAR, 0);
    advance(&c, 0.3);
    s = &last_of(&c, BW_P2OS_SIP)->u.sip;
    assert_int_equal(s->flags, 0x0001); /* the seed's b1 clear: sonar off */
    assert_int_equal(s->nsonar, 0);
    cmd_int(&c, BW_P2OS_ENABLE, 0);
    advance(&c, 0.3);
    assert_int_equal(last_of(&c, BW_P2OS_SIP)->u.sip.flags, 0x0000);
    bw_device_destroy(c.dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake_and_sips),
        cmocka_unit_test(test_config_within_a_second),
        cmocka_unit_test(test_vel_pulse_and_watchdog),
        cmocka_unit_test(test_close_with_int_argument),
        cmocka_unit_test(test_motion_commands),
        cmocka_unit_test(test_sonar_cycles_and_ranges),
        cmocka_unit_test(test_peoplebot_bumpers_and_stall),
        cmocka_unit_test(test_stall_bits_clear_at_the_stop),
        cmocka_unit_test(test_simstat_intervals_per_session),
        cmocka_unit_test(test_encoder_packets),
        cmocka_unit_test(test_client_gone_and_back),
        cmocka_unit_test(test_aria_session_start),
        cmocka_unit_test(test_keepalives_alone_stop_the_robot),
        cmocka_unit_test(test_stale_session_after_a_client_died),
        cmocka_unit_test(test_link_change_cleans_the_line),
        cmocka_unit_test(test_simulator_commands),
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_compass_reads_the_true_heading),
        cmocka_unit_test(test_sip_flags),
    };
    return cmocka_run_group_tests_name("emulated pioneer", tests, NULL, NULL);
}
