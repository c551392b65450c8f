/* The lobot driver and the emulated Create with its Command Module, in
 * virtual time over sim:lobot: the acceptance runs of the base API. */
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
#include "../create/line.h"

/* "sim:lobot?world=<tests/data/worlds/NAME>" */
static void world_url(char *out, size_t n, const char *name)
{
    const char *slash = strrchr(__FILE__, '/');
    snprintf(out, n, "sim:lobot?world=%.*s/../data/worlds/%s",
             (int)(slash ? slash - __FILE__ : 1), slash ? __FILE__ : ".", name);
}

static void test_online_and_state(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:lobot");
    run_for(&r, 0.5);
    assert_true(bw_base_caps(r.b) & BW_CAP_REFLEXES);
    assert_true(fabs(r.st->battery - 16.5) < 0.2);
    assert_true(r.st->battery_capacity > 2.0);
    assert_string_equal(r.st->mode, "full");
    assert_int_equal(r.st->link.checksum_errors + r.st->link.skipped_bytes, 0);
    bw_base_close(r.b, r.now);
}

/* A 1 m square by odometry ends within 3 cm and 3 degrees, and odometry
 * stays within 1 cm of the truth on the way. */
static void test_square(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:lobot");
    /* Odometry against the truth as a SENSORS comes: between two the robot
     * moves on for a cycle and the line's 10 ms (run_square looks at every
     * step, docs/pacing.md). */
    bw_square_t sq;
    bw_square_init(&sq, r.st->pose, 1.0, 0.2, 0.5);
    double cv, cw, worst = 0;
    while (bw_square_step(&sq, r.st->pose, &cv, &cw)) {
        bw_base_drive(r.b, cv, cw, r.now);
        run_step(&r);
        bw_pose_t o = run_odo_world(&r);
        if (r.st->t == r.now)
            worst = fmax(worst, hypot(o.x - r.sim->body.pose.x, o.y - r.sim->body.pose.y));
        assert_true(r.now < 200);
    }
    bw_base_stop(r.b, r.now);
    run_for(&r, 1.0);
    printf("lobot square: end %.4f m, %.3f deg from the start by odometry; odometry within "
           "%.4f m of the truth as each SENSORS came\n",
           hypot(r.st->pose.x, r.st->pose.y), r.st->pose.theta * 180 / BW_PI, worst);
    assert_true(hypot(r.st->pose.x, r.st->pose.y) < 0.03);
    assert_true(fabs(r.st->pose.theta) < 3 * BW_PI / 180);
    assert_true(worst < 0.01);
    assert_true(r.sim->travelled > 3.9);
    bw_base_close(r.b, r.now);
}

/* The bare sum of the SENSORS' angles, read off the wire. */
typedef struct {
    bw_lobot_ack_parser_t p;
    long angle_sum; /* degrees */
} tap_t;

static void tap(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    (void)now;
    tap_t *t = ctx;
    bw_lobot_ack_frame_t f;
    bw_lobot_ack_t a;
    while (from_robot && bw_lobot_ack_parse(&t->p, &data, &n, &f) > 0)
        if (bw_lobot_decode_ack(f.id, f.data, f.len, &a) == 0 && a.id == BW_LOBOT_ACK_SENSORS)
            t->angle_sum += a.u.sensors.oi.angle;
}

/* 30 s at 0.1 rad/s: each SENSORS' angle is truncated to whole degrees, so
 * the bare sum falls far behind; the driver's heading stays within 3
 * degrees of the true one. */
static void test_slow_turn(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:lobot");
    tap_t t;
    memset(&t, 0, sizeof t);
    bw_lobot_ack_parser_init(&t.p);
    bw_base_set_tap(r.b, tap, &t);
    double th0 = r.sim->body.pose.theta, turned = 0, prev = th0, worst = 0;
    for (double end = r.now + 30; r.now < end;) {
        bw_base_drive(r.b, 0, 0.1, r.now);
        run_step(&r);
        turned += bw_angle_diff(r.sim->body.pose.theta, prev);
        prev = r.sim->body.pose.theta;
        worst = fmax(worst, fabs(run_heading_error(&r)));
    }
    bw_base_stop(r.b, r.now);
    run_for(&r, 1.0);
    turned += bw_angle_diff(r.sim->body.pose.theta, prev);
    double true_deg = turned * 180 / BW_PI;
    printf("lobot slow turn: true %.1f deg, bare sum %ld deg, driver off by at most %.2f deg\n",
           true_deg, t.angle_sum, worst * 180 / BW_PI);
    assert_true(true_deg > 150);
    assert_true(fabs(true_deg - (double)t.angle_sum) > 10);
    assert_true(worst < 3 * BW_PI / 180);
    assert_true(fabs(run_heading_error(&r)) < 3 * BW_PI / 180);
    bw_base_close(r.b, r.now);
}

/* Into the box's corner with the left half of the bumper: the low level
 * backs up and spins right (clockwise); the driver reports it as a reflex
 * event with what the low level said, and its odometry follows. */
static void test_bump_reflex(void **state)
{
    (void)state;
    char url[1024];
    world_url(url, sizeof url, "box_corner_left.world");
    run_t r;
    run_open(&r, url);
    run_drive(&r, 0.3, 0, 10);
    size_t i = run_find_event(&r, BW_EV_REFLEX, true, 0);
    assert_int_not_equal(i, SIZE_MAX);
    const bw_event_t *e = &r.events[i];
    assert_int_equal(e->mask, BW_REFLEX_BUMP);
    assert_int_equal(e->detail, BW_CREATE_BUMP_LEFT);
    printf("lobot bump reflex: backed %.3f m, turned %.1f deg\n", e->distance,
           e->angle * 180 / BW_PI);
    assert_true(e->distance < -0.12 && e->distance > -0.2);
    assert_true(e->angle < -10 * BW_PI / 180 && e->angle > -20 * BW_PI / 180);
    assert_true(run_find_event(&r, BW_EV_BUMP, true, 0) != SIZE_MAX);
    /* Odometry took the low level's own moves in. */
    assert_true(fabs(run_heading_error(&r)) < 3 * BW_PI / 180);
    bw_pose_t o = run_odo_world(&r);
    assert_true(hypot(o.x - r.sim->body.pose.x, o.y - r.sim->body.pose.y) < 0.03);
    bw_base_close(r.b, r.now);
}

/* To the stair edge (the drop-off at the room's top left): CLIFFS, the
 * robot backed away and still on the floor. */
static void test_cliff_reflex(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:lobot");
    run_drive(&r, 0, 0.5, BW_PI / 2 / 0.5 + 0.3); /* face +y, roughly */
    run_drive(&r, 0.2, 0, 14);
    size_t i = run_find_event(&r, BW_EV_REFLEX, true, 0);
    assert_int_not_equal(i, SIZE_MAX);
    assert_int_equal(r.events[i].mask, BW_REFLEX_CLIFF);
    assert_true(r.events[i].distance < 0);
    assert_true(run_find_event(&r, BW_EV_CLIFF, true, 0) != SIZE_MAX);
    assert_false(r.sim->body.drop_left || r.sim->body.drop_right);
    assert_true(r.sim->body.pose.y < 3.2);
    bw_base_close(r.b, r.now);
}

/* ?turn=spin: a pure rotation goes as SPIN moves, and the heading stays
 * right because each SPIN's measured turn comes back flagged. */
static void test_turn_by_spin(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:lobot?turn=spin");
    double th0 = r.sim->body.pose.theta;
    run_drive(&r, 0, 0.5, 6);
    bw_base_stop(r.b, r.now);
    run_for(&r, 3);
    double turned = bw_angle_diff(r.sim->body.pose.theta, th0);
    printf("lobot turn=spin: 0.5 rad/s for 6 s turned %.1f deg; odometry off by %.2f deg\n",
           turned * 180 / BW_PI, run_heading_error(&r) * 180 / BW_PI);
    assert_true(fabs(turned - 3.0 + 2 * BW_PI) < 0.6 || fabs(turned - 3.0) < 0.6);
    assert_true(fabs(run_heading_error(&r)) < 2 * BW_PI / 180);
    assert_true(hypot(r.st->pose.x, r.st->pose.y) < 0.01);
    bw_base_close(r.b, r.now);
}

/* ---- a bad cable, a dead link --------------------------------------------------- */

/* A cycle's ACKs as they leave the robot in the square (no reflex): SENSORS
 * then READY, 55 bytes; group 6's byte i at 1 + i. */
#define BURST 55
#define G6_CLIFF_LEFT 2
#define G6_DISTANCE 12
#define G6_OI_MODE 40

typedef struct {
    unsigned every, seen, damaged;
    int how;
} damage_t;

/* SENSORS have no checksum: every n-th one damaged as `how` says. */
static size_t damage_sensors(line_t *l, uint8_t *b, size_t n)
{
    damage_t *d = l->ctx;
    if (n != BURST || b[0] != BW_LOBOT_ACK_SENSORS || ++d->seen % d->every != 0)
        return n;
    d->damaged++;
    switch (d->how) {
    case 0: b[1 + G6_DISTANCE] = (uint8_t)(b[1 + G6_DISTANCE] + 1); break; /* 256 mm more */
    case 1: b[1 + G6_CLIFF_LEFT] = 2; break;                               /* a 0/1 packet */
    case 2: b[1 + G6_OI_MODE] = 9; break;                                   /* modes are 0..3 */
    default:
        /* The id lost, and the data read for ACKs: a CLIFFS, all four. */
        b[0] = 0x00;
        b[1 + 8] = BW_LOBOT_ACK_CLIFFS;
        b[1 + 9] = 0x0F;
        break;
    }
    return n;
}

/* Every 10th SENSORS damaged in a way no checksum catches here: 256 mm more
 * than the robot made, a cliff bit of 2, an OI mode of 9, or its id lost
 * and a data byte read as a CLIFFS ACK. Each is set aside (implausible),
 * its motion estimated; no cliff, no reflex. */
static void test_sensors_set_aside(void **state)
{
    (void)state;
    static const char *const hows[] = { "distance", "cliff bit", "OI mode", "false CLIFFS" };
    for (int how = 0; how < 4; how++) {
        line_t l;
        damage_t d = { 10, 0, 0, how };
        line_open_with(&l, "lobot", NULL, NULL, damage_sensors, &d);
        assert_true(line_square(&l, 60));
        printf("lobot, every 10th SENSORS damaged (%s): %u, %llu implausible; odometry %.4f m "
               "%.2f deg from the truth; %.2f s estimated\n",
               hows[how], d.damaged, (unsigned long long)l.st->link.implausible,
               line_pos_error(&l), line_heading_error(&l) * 180 / BW_PI, l.st->estimated_time);
        assert_true(d.damaged > 40);
        assert_true(l.st->link.implausible >= d.damaged);
        assert_int_equal(line_count_events(&l, BW_EV_CLIFF, true), 0);
        assert_int_equal(line_count_events(&l, BW_EV_REFLEX, true), 0);
        assert_int_equal(line_count_events(&l, BW_EV_OFFLINE, false), 0);
        assert_true(line_pos_error(&l) < 0.01);
        assert_true(fabs(line_heading_error(&l)) < 1 * BW_PI / 180);
        /* A damaged count is estimated; a damaged value leaves the count. */
        assert_true(how == 1 || how == 2 ? l.st->estimated_time == 0 : l.st->estimated_time > 0);
        line_close(&l);
    }
}

typedef struct {
    unsigned every, seen, damaged;
    bool ready; /* lose READYs (else damage commands) */
} lose_t;

/* Every n-th command with a bit flipped on the way (a bad parity: the
 * program stops), or every n-th READY lost. */
static size_t lose_commands(line_t *l, uint8_t *b, size_t n)
{
    lose_t *d = l->ctx;
    if (d->ready || n != 4 || b[0] == BW_LOBOT_CMD_NOP || ++d->seen % d->every != 0)
        return n;
    d->damaged++;
    b[2] ^= 0x01;
    return n;
}

static size_t lose_readies(line_t *l, uint8_t *b, size_t n)
{
    lose_t *d = l->ctx;
    if (!d->ready || n != BURST || b[n - 1] != BW_LOBOT_ACK_READY || ++d->seen % d->every != 0)
        return n;
    d->damaged++;
    return n - 1;
}

/* A command the program does not hear (a bad parity: it stops) left the
 * driver believing its speed in force while the robot stood: the square
 * never finished. The requested speed and radius in the next SENSORS say
 * so, and the command goes again. A READY lost: the program waits for a
 * command all the same, and gets one. */
static void test_commands_not_heard(void **state)
{
    (void)state;
    for (int ready = 0; ready < 2; ready++) {
        line_t l;
        lose_t d = { ready ? 20 : 3, 0, 0, ready };
        line_open_with(&l, "lobot", NULL, lose_commands, lose_readies, &d);
        bool done = line_square(&l, 60);
        double closed = hypot(l.sim->body.pose.x - l.origin.x, l.sim->body.pose.y - l.origin.y);
        printf("lobot, %s %u: square %s, truly %.4f m from its start; odometry %.4f m %.2f deg "
               "from the truth\n",
               ready ? "READYs lost" : "commands not heard", d.damaged,
               done ? "done" : "NOT DONE", closed, line_pos_error(&l),
               line_heading_error(&l) * 180 / BW_PI);
        assert_true(d.damaged > 20);
        assert_true(done);
        assert_true(closed < 0.03);
        assert_true(line_pos_error(&l) < 0.01);
        assert_int_equal(line_count_events(&l, BW_EV_OFFLINE, false), 0);
        line_close(&l);
    }
}

/* The link is lost within half a second when the robot stops talking, not
 * six: the program is never silent so long but in a move of its own. */
static void test_link_lost_in_half_a_second(void **state)
{
    (void)state;
    line_t l;
    line_open(&l, "lobot");
    line_drive(&l, 0.2, 0, 1.0);
    double cut = l.now;
    l.cut_down = l.cut_up = true;
    line_drive(&l, 0.2, 0, 2.0);
    size_t i;
    for (i = 0; i < l.nevents && l.events[i].type != BW_EV_OFFLINE; i++)
        ;
    assert_true(i < l.nevents);
    printf("lobot: offline %.0f ms after the link was cut\n", (l.events[i].t - cut) * 1000);
    assert_true(l.events[i].t - cut <= 0.6);
    line_close(&l);
}

/* A SPIN holds the program for its move: a silence this side foresees, not
 * a lost link. Asked 2 rad/s with ?turn=spin: SPINs grow to 360 degrees,
 * each over 6 s of silence. */
static void test_spin_is_no_silence(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:lobot?turn=spin");
    double th = r.sim->body.pose.theta, turned = 0;
    for (double end = r.now + 10; r.now < end;) {
        bw_base_drive(r.b, 0, 2.0, r.now);
        run_step(&r);
        turned += bw_angle_diff(r.sim->body.pose.theta, th);
        th = r.sim->body.pose.theta;
    }
    bw_base_stop(r.b, r.now);
    run_for(&r, 4);
    printf("lobot turn=spin at 2 rad/s: turned %.0f deg in 10 s, %zu events\n",
           turned * 180 / BW_PI, r.nevents);
    assert_true(turned > 2 * BW_PI); /* SPINs of up to 360 degrees, 6 s each */
    assert_int_equal(run_find_event(&r, BW_EV_OFFLINE, false, 0), SIZE_MAX);
    bw_base_close(r.b, r.now);
}

/* Two seconds without the link, driving. The program heard no command for
 * its window (1.5 s here) and stopped; the SENSORS after count only its
 * last cycle. The driver estimates the rest: driving until the window
 * after its last command ran out, then stopping. */
static void test_stall(void **state)
{
    (void)state;
    line_t l;
    line_open(&l, "lobot");
    line_drive(&l, 0.2, 0.2, 2.0);
    l.cut_down = l.cut_up = true;
    double moved = l.sim->travelled;
    line_drive(&l, 0.2, 0.2, 2.0);
    moved = l.sim->travelled - moved;
    l.cut_down = l.cut_up = false;
    line_drive(&l, 0.2, 0.2, 3.0);
    bw_base_stop(l.b, l.now);
    line_for(&l, 1.0);
    printf("lobot, 2 s cut both ways: the robot went %.3f m meanwhile; odometry %.4f m %.2f deg "
           "from the truth, %.3f s estimated\n",
           moved, line_pos_error(&l), line_heading_error(&l) * 180 / BW_PI,
           l.st->estimated_time);
    assert_true(moved > 0.25);
    assert_true(line_pos_error(&l) < 0.02);
    assert_true(fabs(line_heading_error(&l)) < 1 * BW_PI / 180);
    assert_true(l.st->estimated_time > 1.9);
    line_close(&l);
}

static void test_bad_params(void **state)
{
    (void)state;
    bw_base_t *b;
    char err[256];
    assert_int_equal(bw_base_open(&b, "sim:lobot?turn=sideways", NULL, 0, err, sizeof err),
                     BW_EINVAL);
    assert_non_null(strstr(err, "turn=sideways"));
    assert_int_equal(bw_base_open(&b, "sim:lobot?window=5", NULL, 0, err, sizeof err), BW_EINVAL);
    assert_non_null(strstr(err, "window=5"));
    assert_int_equal(bw_base_open(&b, "lobot:/dev/null?window=250", NULL, 0, err, sizeof err),
                     BW_EINVAL);
}

/* The rear bumper through the driver (seed 000: "Bits 5 and 6 are for the
 * right and left bump sensors added to the rear of the robot"): backing
 * into the box with only its rear left, then only its rear right, over the
 * box's edge, the base reports BW_BUMP_REAR_LEFT / _RIGHT and switch 3 /
 * switch 2 (numbered as the BUMPS ACK packs them: "Bit #2 is for the rear
 * right bumper and bit #3 for the rear left bumper"), as the emulator truly
 * touches. */
static void test_rear_bump_switches(void **state)
{
    (void)state;
    static const struct {
        const char *url;
        uint32_t place;
        uint64_t sw;
    } sides[] = {
        /* facing -x, its left is -y */
        { "sim:lobot?start=2.6,1.38,180", BW_BUMP_REAR_LEFT, 1u << 3 },
        { "sim:lobot?start=2.6,0.62,180", BW_BUMP_REAR_RIGHT, 1u << 2 },
    };
    for (size_t k = 0; k < 2; k++) {
        run_t r;
        run_open(&r, sides[k].url);
        assert_true(bw_base_caps(r.b) & BW_CAP_BUMP_SWITCHES);
        assert_int_equal(r.st->nbump_switches, 4);
        for (int i = 0; i < 200 && !r.st->bump_switches; i++)
            run_drive(&r, -0.1, 0, 0.05);
        printf("lobot %s: switches 0x%llx, contact at %.1f deg\n", sides[k].url,
               (unsigned long long)r.st->bump_switches, r.sim->body.contact_angle * 180 / BW_PI);
        assert_true(r.sim->body.contact && fabs(r.sim->body.contact_angle) > BW_PI / 2);
        /* The side truly touched: left is a positive angle in the robot frame. */
        assert_true((r.sim->body.contact_angle > 0) == (sides[k].place == BW_BUMP_REAR_LEFT));
        assert_int_equal(r.st->bump_switches, sides[k].sw);
        assert_int_equal(r.st->bumpers, sides[k].place);
        bw_base_close(r.b, r.now);
    }
}

/* The front switches: head on into the box, both (switch 0 "the right bump
 * sensor", switch 1 "the left"), as the emulator touches dead ahead. */
static void test_front_bump_switches(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:lobot");
    /* The low level backs away at once: the truth is where it touched. */
    bool touched = false;
    double angle = 0;
    for (int i = 0; i < 400 && !r.st->bump_switches; i++) {
        run_drive(&r, 0.3, 0, 0.02);
        if (r.sim->body.contact && !touched)
            touched = true, angle = r.sim->body.contact_angle;
    }
    assert_true(touched && fabs(angle) < 0.17);
    assert_int_equal(r.st->bump_switches, 3u);
    bw_base_close(r.b, r.now);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_online_and_state), cmocka_unit_test(test_square),
        cmocka_unit_test(test_slow_turn),        cmocka_unit_test(test_bump_reflex),
        cmocka_unit_test(test_cliff_reflex),     cmocka_unit_test(test_turn_by_spin),
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_sensors_set_aside),
        cmocka_unit_test(test_commands_not_heard),
        cmocka_unit_test(test_link_lost_in_half_a_second),
        cmocka_unit_test(test_spin_is_no_silence),
        cmocka_unit_test(test_stall),
        cmocka_unit_test(test_rear_bump_switches),
        cmocka_unit_test(test_front_bump_switches),
    };
    return cmocka_run_group_tests_name("lobot driver and emulated robot", tests, NULL, NULL);
}
