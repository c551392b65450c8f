/* The rflex driver on a link the test controls, in virtual time: a relay
 * between the driver and the emulated B21r that can lose the host's frames
 * of a type, mute the base's, or change a base frame and send it on with a
 * good checksum (damage the XOR lets through). Each test is a regression
 * test of one defect, judged against the emulated robot's true pose and
 * state. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"

#define EVENTS 256

typedef struct relay relay_t;
/* Changes a base frame on its way (true: send it on, changed or not). */
typedef bool (*mangle_fn)(relay_t *l, bw_rflex_msg_t *m);

struct relay {
    bw_device_t *dev;
    bw_port_t *far;
    bw_base_t *b;
    const bw_base_state_t *st;
    const bw_sim_t *sim;
    double now;
    bw_pose_t origin;
    bw_rflex_parser_t up, down;
    /* Host to base: frames of a type to lose (a count), and what came. */
    unsigned drop_up[BW_RFLEX_TYPE_COUNT];
    unsigned seen_up[BW_RFLEX_TYPE_COUNT];
    unsigned moves_up; /* set-directions with a velocity */
    /* Base to host. */
    bool mute;                             /* nothing reaches the host */
    bool mute_down[BW_RFLEX_TYPE_COUNT];   /* frames of these types do not */
    mangle_fn mangle;
    unsigned mangled;
    bw_event_t events[EVENTS];
    size_t nevents;
    /* Odometry against the truth, taken when a rotation report (the second
     * of a period's two) has just reached the driver: a report is up to a
     * period old otherwise. The largest yet: m and degrees. */
    bool reported;
    uint64_t implausible; /* as at the last such time */
    double worst, worst_deg;
};

static void relay_open(relay_t *l)
{
    memset(l, 0, sizeof *l);
    char err[256];
    assert_int_equal(bw_device_create(&l->dev, "rflex", NULL, 0, err, sizeof err), 0);
    bw_port_t *near;
    assert_int_equal(bw_port_pair(&near, &l->far, 1 << 16), 0);
    assert_int_equal(bw_base_open_port(&l->b, "rflex", near, NULL, 0, err, sizeof err), 0);
    l->st = bw_base_state(l->b);
    l->sim = bw_device_sim(l->dev);
    l->origin = l->sim->body.pose;
    bw_rflex_parser_init(&l->up);
    bw_rflex_parser_init(&l->down);
}

static void relay_close(relay_t *l)
{
    bw_base_close(l->b, l->now);
    bw_port_close(l->far);
    bw_device_destroy(l->dev);
}

static bw_pose_t odo_world(const relay_t *l) { return bw_pose_compose(l->origin, l->st->pose); }

static double odo_error(const relay_t *l)
{
    bw_pose_t o = odo_world(l);
    return hypot(o.x - l->sim->body.pose.x, o.y - l->sim->body.pose.y);
}

static double heading_error_deg(const relay_t *l)
{
    return fabs(bw_angle_diff(odo_world(l).theta, l->sim->body.pose.theta)) * 180 / BW_PI;
}

static void frame_to(const bw_rflex_frame_t *f, uint8_t *buf, size_t cap, int *n)
{
    *n = bw_rflex_frame_data(buf, cap, f->port, f->id, f->opcode, f->data, f->len);
    assert_true(*n > 0);
}

/* Host bytes to the base, a frame at a time, less the ones to lose. */
static void pass_up(relay_t *l)
{
    uint8_t buf[8192];
    int n;
    while ((n = bw_port_read(l->far, buf, sizeof buf)) > 0) {
        const uint8_t *d = buf;
        size_t left = (size_t)n;
        bw_rflex_frame_t f;
        int rc;
        while ((rc = bw_rflex_parse(&l->up, &d, &left, &f)) != 0) {
            assert_true(rc > 0);
            bw_rflex_msg_t m;
            assert_int_equal(bw_rflex_decode(&f, &m), 0);
            l->seen_up[m.type]++;
            if (m.type == BW_RFLEX_MOT_SET_DIR && m.u.mot_set_dir.velocity != 0)
                l->moves_up++;
            if (l->drop_up[m.type]) {
                l->drop_up[m.type]--;
                continue;
            }
            uint8_t out[BW_RFLEX_MAX_FRAME];
            int k;
            frame_to(&f, out, sizeof out, &k);
            bw_device_input(l->dev, out, (size_t)k, l->now);
        }
    }
}

/* The base's bytes to the host, a frame at a time, muted or changed. */
static void pass_down(relay_t *l)
{
    uint8_t buf[16384];
    size_t n;
    while ((n = bw_device_output(l->dev, buf, sizeof buf)) > 0) {
        const uint8_t *d = buf;
        bw_rflex_frame_t f;
        while (bw_rflex_parse(&l->down, &d, &n, &f) > 0) {
            bw_rflex_msg_t m;
            assert_int_equal(bw_rflex_decode(&f, &m), 0);
            if (l->mute || l->mute_down[m.type])
                continue;
            l->reported |= m.type == BW_RFLEX_MOT_SYSTEM_REPORT && m.u.mot_system_report.axis == 1;
            uint8_t out[BW_RFLEX_MAX_FRAME];
            int k;
            if (l->mangle && l->mangle(l, &m)) {
                k = bw_rflex_encode_frame(out, sizeof out, &m);
                assert_true(k > 0);
            } else {
                frame_to(&f, out, sizeof out, &k);
            }
            bw_port_write(l->far, out, (size_t)k);
        }
    }
}

/* One step of virtual time, to the next deadline of the driver or the base
 * (at most 10 ms). The driver's deadline is never in the past after a poll:
 * a caller waiting on it would spin. */
static void relay_step(relay_t *l)
{
    double next = fmin(bw_base_next_deadline(l->b), bw_device_next_deadline(l->dev));
    l->now = fmin(fmax(next, l->now), l->now + 0.01);
    l->reported = false;
    pass_up(l);
    bw_device_step(l->dev, l->now);
    pass_down(l);
    bw_base_poll(l->b, l->now);
    assert_true(bw_base_next_deadline(l->b) > l->now);
    bw_event_t ev;
    while (bw_base_next_event(l->b, &ev))
        if (l->nevents < EVENTS)
            l->events[l->nevents++] = ev;
    /* ...but not just after a frame was set aside: the odometry lacks its
     * period until the next report of the axis. */
    if (l->reported && l->st->link.implausible == l->implausible) {
        l->worst = fmax(l->worst, odo_error(l));
        l->worst_deg = fmax(l->worst_deg, heading_error_deg(l));
    }
    if (l->reported)
        l->implausible = l->st->link.implausible;
}

static void relay_drive(relay_t *l, double v, double w, double seconds)
{
    for (double end = l->now + seconds; l->now < end;) {
        bw_base_drive(l->b, v, w, l->now);
        relay_step(l);
    }
}

static size_t count_events(const relay_t *l, bw_event_type_t type, bool on)
{
    size_t n = 0;
    for (size_t i = 0; i < l->nevents; i++)
        n += l->events[i].type == type && l->events[i].on == on;
    return n;
}

/* Drives a 1 m square by odometry; true when it said it was done in time. */
static bool relay_square(relay_t *l, double limit)
{
    bw_square_t sq;
    bw_square_init(&sq, l->st->pose, 1.0, 0.2, 0.8);
    double v, w, end = l->now + limit;
    while (l->now < end) {
        if (!bw_square_step(&sq, l->st->pose, &v, &w)) {
            bw_base_stop(l->b, l->now);
            for (double stop = l->now + 1; l->now < stop;)
                relay_step(l);
            return true;
        }
        bw_base_drive(l->b, v, w, l->now);
        relay_step(l);
    }
    return false;
}

/* Defect 1: the one request for system reports was lost on the line. The
 * driver asks again, drives nothing until it has odometry, and the square
 * closes in truth. */
static void test_lost_report_request(void **state)
{
    (void)state;
    relay_t l;
    relay_open(&l);
    l.drop_up[BW_RFLEX_MOT_SYSTEM_REPORT_REQ] = 1;
    bool done = relay_square(&l, 60);
    double closed = hypot(l.sim->body.pose.x - l.origin.x, l.sim->body.pose.y - l.origin.y);
    print_message("report request lost: %s, %u requests, closed %.4f m in truth, odometry "
                  "within %.4f m on the way\n",
                  done ? "done" : "NOT DONE", l.seen_up[BW_RFLEX_MOT_SYSTEM_REPORT_REQ], closed,
                  l.worst);
    assert_true(done);
    assert_true(l.seen_up[BW_RFLEX_MOT_SYSTEM_REPORT_REQ] >= 2);
    assert_true(closed < 0.03);
    assert_true(l.worst < 0.03);
    relay_close(&l);
}

/* Defect 1, the reports stop while the sonar and the status go on: the
 * driver claims no motion, asks for the reports again, stops the base (the
 * link stays online), and goes on where it was when they come back. */
static void test_reports_stop(void **state)
{
    (void)state;
    relay_t l;
    relay_open(&l);
    relay_drive(&l, 0.3, 0, 2.0);
    assert_false(l.st->estimated);
    assert_true(fabs(l.st->v - 0.3) < 0.01);
    unsigned requests = l.seen_up[BW_RFLEX_MOT_SYSTEM_REPORT_REQ];
    double from = l.sim->travelled;
    l.mute_down[BW_RFLEX_MOT_SYSTEM_REPORT] = true;
    relay_drive(&l, 0.3, 0, 2.0);
    double blind = l.sim->travelled - from;
    print_message("2 s without reports at 0.3 m/s: moved %.3f m, v %.2f, %u more requests\n",
                  blind, l.st->v, l.seen_up[BW_RFLEX_MOT_SYSTEM_REPORT_REQ] - requests);
    /* 0.5 s until blind, 0.3 m/s braked at 0.7 m/s^2: 0.21 m at most. */
    assert_true(blind < 0.22);
    assert_true(l.sim->body.v < 1e-9);
    assert_true(l.st->online);
    assert_true(l.st->v == 0 && l.st->estimated);
    assert_true(l.seen_up[BW_RFLEX_MOT_SYSTEM_REPORT_REQ] >= requests + 4);
    l.mute_down[BW_RFLEX_MOT_SYSTEM_REPORT] = false;
    relay_drive(&l, 0.3, 0, 0.3);
    print_message("reports again: odometry %.4f m from the truth (worst at a report %.4f)\n",
                  odo_error(&l), l.worst);
    assert_false(l.st->estimated);
    assert_true(l.worst < 0.005); /* the counters cover the gap */
    double again = l.sim->travelled;
    relay_drive(&l, 0.3, 0, 1.0);
    assert_true(l.sim->travelled - again > 0.15);
    assert_int_equal(count_events(&l, BW_EV_OFFLINE, true) + count_events(&l, BW_EV_OFFLINE, false), 0);
    relay_close(&l);
}

/* Defect 2: a base that falls silent while the host drives. The driver's
 * deadline must move on after every poll (relay_step checks it), or
 * `botwire drive` spins; it sends no motion to the silent base, only the
 * stop; and a base that never answers at all is no different. */
static void test_silent_base_deadlines(void **state)
{
    (void)state;
    relay_t l;
    relay_open(&l);
    relay_drive(&l, 0.3, 0.2, 1.5);
    assert_true(l.st->online);
    l.mute = true;
    unsigned moves = l.moves_up, polls = 0;
    for (double end = l.now + 5; l.now < end; polls++) {
        bw_base_drive(l.b, 0.3, 0.2, l.now);
        relay_step(&l);
    }
    print_message("5 s of a silent base: %u polls, %u set-directions with a velocity\n", polls,
                  l.moves_up - moves);
    assert_false(l.st->online);
    assert_true(l.sim->body.v < 1e-9);
    /* What went in the 0.5 s before the silence was noticed: three resends
     * of both axes at most. */
    assert_true(l.moves_up - moves <= 6);
    relay_close(&l);

    /* Nobody at the far end at all, in virtual time: the deadline moves on
     * by itself, and the driver never drives blind. */
    bw_port_t *near, *far;
    assert_int_equal(bw_port_pair(&near, &far, 1 << 16), 0);
    bw_base_t *b;
    char err[256];
    assert_int_equal(bw_base_open_port(&b, "rflex", near, NULL, 0, err, sizeof err), 0);
    double now = 0;
    unsigned steps = 0;
    bw_rflex_parser_t p;
    bw_rflex_parser_init(&p);
    unsigned blind_moves = 0;
    for (; now < 10; steps++) {
        bw_base_drive(b, 0.3, 0, now);
        bw_base_poll(b, now);
        double next = bw_base_next_deadline(b);
        assert_true(next > now);
        now = next;
        uint8_t buf[4096];
        int n;
        while ((n = bw_port_read(far, buf, sizeof buf)) > 0) {
            const uint8_t *d = buf;
            size_t left = (size_t)n;
            bw_rflex_frame_t f;
            while (bw_rflex_parse(&p, &d, &left, &f) > 0) {
                bw_rflex_msg_t m;
                if (bw_rflex_decode(&f, &m) == 0 && m.type == BW_RFLEX_MOT_SET_DIR &&
                    m.u.mot_set_dir.velocity != 0)
                    blind_moves++;
            }
        }
    }
    print_message("10 s of nobody: %u polls\n", steps);
    assert_true(steps < 200); /* a poll per 0.2 s resend, or so */
    assert_int_equal(blind_moves, 0);
    bw_base_close(b, now);
    bw_port_close(far);
}

/* Defect 5: frames the XOR let through with damage, each sent on with a
 * good checksum at its time: a trans position 2^20 counts off, a rotation
 * 4096 counts (6.7 degrees) off, a trans position 4096 (4 cm) off, a
 * velocity beyond any the base has, a stamp 100 s ahead, a translation
 * frame that says it is the rotation's, a status whose voltage jumped
 * 20 V, one whose brake byte is 2. None reaches the odometry, the battery
 * or the brake. */
static bool damage(relay_t *l, bw_rflex_msg_t *m)
{
    static const double at[] = { 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0 };
    unsigned k = l->mangled;
    if (k >= sizeof at / sizeof at[0] || l->now < at[k])
        return false;
    bw_rflex_mot_system_report_t *r = &m->u.mot_system_report;
    bw_rflex_sys_status_t *s = &m->u.sys_status;
    bool report = m->type == BW_RFLEX_MOT_SYSTEM_REPORT, status = m->type == BW_RFLEX_SYS_STATUS;
    switch (k) {
    case 0: if (!report || r->axis != 0) return false; r->position += 1 << 20; break;
    case 1: if (!report || r->axis != 1) return false; r->position += 1 << 12; break;
    case 2: if (!report || r->axis != 0) return false; r->position += 1 << 12; break;
    case 3: if (!report || r->axis != 0) return false; r->velocity = 1 << 24; break;
    case 4: if (!report || r->axis != 1) return false; r->timestamp += 100000; break;
    case 5: if (!report || r->axis != 0) return false; r->axis = 1; break;
    case 6: if (!status) return false; s->voltage += 2000; break;
    case 7: if (!status) return false; s->brake = 2; break;
    default: return false;
    }
    l->mangled++;
    return true;
}

static void test_false_accepts(void **state)
{
    (void)state;
    relay_t l;
    relay_open(&l);
    l.mangle = damage;
    for (double end = 12; l.now < end;) {
        bw_base_drive(l.b, 0.3, 0.3, l.now);
        relay_step(&l);
        assert_true(fabs(l.st->battery - 50) < 1 || l.st->battery == 0);
    }
    print_message("%u frames damaged: odometry within %.4f m and %.3f deg of the truth, %llu "
                  "implausible\n",
                  l.mangled, l.worst, l.worst_deg, (unsigned long long)l.st->link.implausible);
    assert_int_equal(l.mangled, 8);
    assert_true(l.worst < 0.005);
    assert_true(l.worst_deg < 0.3);
    assert_true(l.st->link.implausible >= 8);
    assert_int_equal(count_events(&l, BW_EV_BRAKE, true), 0);
    assert_false(l.st->brake);
    relay_close(&l);
}

/* Defect 5, the other side: the base's translation counter really jumps (a
 * controller reset) and stays so. After three reports that agree the new
 * counts are believed and the odometry carries on from where it was, the
 * jump not taken: it loses at most those three periods of motion. */
static int32_t counter_offset;
static bool reset_counter(relay_t *l, bw_rflex_msg_t *m)
{
    if (l->now < 3.0 || m->type != BW_RFLEX_MOT_SYSTEM_REPORT || m->u.mot_system_report.axis != 0)
        return false;
    m->u.mot_system_report.position -= counter_offset;
    return true;
}

static void test_counter_reset(void **state)
{
    (void)state;
    relay_t l;
    relay_open(&l);
    counter_offset = 5000000; /* 48.5 m */
    l.mangle = reset_counter;
    relay_drive(&l, 0.2, 0, 3.0);
    uint64_t before = l.st->link.implausible;
    relay_drive(&l, 0.2, 0, 2.0);
    uint64_t set_aside = l.st->link.implausible - before;
    print_message("counter reset: %llu reports set aside, odometry %.4f m from the truth (worst "
                  "%.4f)\n",
                  (unsigned long long)set_aside, odo_error(&l), l.worst);
    assert_true(set_aside >= 2 && set_aside <= 3);
    assert_true(l.worst < 0.065); /* three periods at 0.2 m/s */
    double x = l.st->pose.x, truth = l.sim->travelled;
    relay_drive(&l, 0.2, 0, 1.0);
    print_message("then 1 s at 0.2 m/s: %.4f m (truly %.4f)\n", l.st->pose.x - x,
                  l.sim->travelled - truth);
    assert_true(fabs(l.st->pose.x - x - (l.sim->travelled - truth)) < 0.005); /* counting again */
    assert_true(l.sim->travelled - truth > 0.15);
    relay_close(&l);
}

/* Defect 6: the bump panels and the brake come in their own messages. A
 * real bump shows (it never did: the report after the DIO frame handed the
 * old bumpers back); one damaged status does not set the brake, which a
 * later report would have confirmed; a real brake shows within a status
 * period and a round trip. */
static bool brake_once(relay_t *l, bw_rflex_msg_t *m)
{
    if (l->mangled || l->now < 2.0 || m->type != BW_RFLEX_SYS_STATUS)
        return false;
    m->u.sys_status.brake = 1;
    l->mangled++;
    return true;
}

static void test_bumps_and_brake(void **state)
{
    (void)state;
    relay_t l;
    relay_open(&l);
    l.mangle = brake_once;
    relay_drive(&l, 0, 0, 3.0);
    assert_int_equal(l.mangled, 1);
    assert_int_equal(count_events(&l, BW_EV_BRAKE, true), 0);
    assert_false(l.st->brake);
    /* Into the box 1.75 m ahead. */
    double hit = -1;
    for (double end = l.now + 10; l.now < end && hit < 0;) {
        bw_base_drive(l.b, 0.3, 0, l.now);
        relay_step(&l);
        if (l.sim->body.contact && hit < 0)
            hit = l.now;
    }
    assert_true(hit > 0);
    relay_drive(&l, 0.3, 0, 0.3);
    bw_base_stop(l.b, l.now);
    relay_drive(&l, 0, 0, 0.2);
    print_message("bump events: %zu (contact at %.2f s)\n", count_events(&l, BW_EV_BUMP, true),
                  hit);
    assert_int_equal(count_events(&l, BW_EV_BUMP, true), 1);
    for (size_t i = 0; i < l.nevents; i++)
        if (l.events[i].type == BW_EV_BUMP && l.events[i].on) {
            assert_int_equal(l.events[i].mask, BW_BUMP_FRONT);
            assert_true(l.events[i].t - hit < 0.1);
        }
    /* The brake, set at the base by someone else: it shows. */
    uint8_t f[16];
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_MOT_BRAKE_SET);
    int n = bw_rflex_encode_frame(f, sizeof f, &m);
    bw_device_input(l.dev, f, (size_t)n, l.now);
    double set = l.now;
    while (!l.st->brake && l.now < set + 3)
        relay_step(&l);
    print_message("brake set at the base: shown after %.3f s\n", l.now - set);
    assert_true(l.st->brake);
    assert_true(l.now - set < 1.2);
    assert_int_equal(count_events(&l, BW_EV_BRAKE, true), 1);
    relay_close(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lost_report_request), cmocka_unit_test(test_reports_stop),
        cmocka_unit_test(test_silent_base_deadlines), cmocka_unit_test(test_false_accepts),
        cmocka_unit_test(test_counter_reset),       cmocka_unit_test(test_bumps_and_brake),
    };
    return cmocka_run_group_tests_name("rflex on a link the test controls", tests, NULL, NULL);
}
