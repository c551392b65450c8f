/* The bare Create driver and the emulated Create, in virtual time over
 * sim:create: the Open Interface straight from the host. */
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
#include "line.h"

static void test_online_and_state(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create");
    assert_true(r.now < 0.1); /* the first stream frame, 15 ms after the ask */
    run_for(&r, 0.5);
    assert_string_equal(r.st->mode, "full");
    assert_true(fabs(r.st->battery - 16.5) < 0.2);
    assert_true(r.st->battery_capacity > 2.0);
    assert_true(r.st->link.frames >= 30);
    assert_int_equal(r.st->link.checksum_errors + r.st->link.skipped_bytes, 0);
    bw_base_close(r.b, r.now);
}

/* The same 1 m square as lobot's: within 3 cm and 3 degrees, odometry
 * within 1 cm of the truth on the way. */
static void test_square(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create");
    double worst = run_square(&r, "create", 1.0, 0.2, 0.5, 200);
    assert_true(hypot(r.st->pose.x, r.st->pose.y) < 0.03);
    assert_true(fabs(r.st->pose.theta) < 3 * BW_PI / 180);
    assert_true(worst < 0.01);
    assert_true(r.sim->travelled > 3.9);
    bw_base_close(r.b, r.now);
}

/* ---- a Create 2 -------------------------------------------------------------- */

/* sim:create?model=create2: a Create 2 at 115200 baud, group 100 streamed,
 * odometry from its encoder counts: the 1 m square within 2 cm, odometry
 * within 5 mm of the truth on the way, the heading within a degree. */
static void test_create2_square(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create?model=create2");
    bw_device_line_t ln;
    bw_device_line(bw_base_device(r.b), &ln);
    assert_int_equal(ln.baud, 115200);
    assert_true(r.st->link.frames >= 1);
    double worst = run_square(&r, "create2", 1.0, 0.2, 0.5, 200);
    assert_true(hypot(r.st->pose.x, r.st->pose.y) < 0.02);
    assert_true(worst < 0.005);
    assert_true(fabs(run_heading_error(&r)) < 1 * BW_PI / 180);
    assert_true(r.sim->travelled > 3.9);
    assert_int_equal(r.st->link.checksum_errors + r.st->link.skipped_bytes +
                         r.st->link.unknown + r.st->link.implausible, 0);
    assert_false(r.st->estimated);
    assert_true(r.st->estimated_time == 0);
    bw_base_close(r.b, r.now);
}

/* The slow turn that truncates a Create 1's every angle to 0: the counts
 * hold it. */
static void test_create2_slow_turn(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create?model=create2");
    double worst = 0;
    for (double end = r.now + 30; r.now < end;) {
        bw_base_drive(r.b, 0, 0.1, r.now);
        run_step(&r);
        worst = fmax(worst, fabs(run_heading_error(&r)));
    }
    printf("create2 slow turn: driver off by at most %.3f deg\n", worst * 180 / BW_PI);
    assert_true(worst < 0.5 * BW_PI / 180); /* a count over 235 mm, and a frame late */
    bw_base_close(r.b, r.now);
}

/* A bad cable (test_noisy's levels and limits, its square): frames lost
 * lose no motion, the next frame's counts hold it. */
static void test_create2_noisy(void **state)
{
    (void)state;
    static const struct {
        double ber, pos, deg;
    } levels[] = { { 1e-4, 0.03, 3 }, { 1e-3, 0.10, 5 } };
    for (size_t l = 0; l < 2; l++)
        for (int seed = 1; seed <= 3; seed++) {
            char url[128];
            snprintf(url, sizeof url, "sim:create?model=create2&ber=%g&seed=%d", levels[l].ber, seed);
            run_t r;
            run_open(&r, url);
            bw_square_t sq;
            bw_square_init(&sq, r.st->pose, 1.0, 0.2, 0.8);
            double v, w, end = r.now + 120;
            bool done = false;
            while (r.now < end) {
                if (!bw_square_step(&sq, r.st->pose, &v, &w)) {
                    done = true;
                    break;
                }
                bw_base_drive(r.b, v, w, r.now);
                run_step(&r);
            }
            bw_base_stop(r.b, r.now);
            run_for(&r, 1);
            bw_pose_t odo = run_odo_world(&r), truth = r.sim->body.pose;
            double pos = hypot(odo.x - truth.x, odo.y - truth.y);
            double deg = fabs(run_heading_error(&r)) * 180 / BW_PI;
            double closed = hypot(truth.x - r.origin.x, truth.y - r.origin.y);
            printf("create2 ber %g seed %d: %s odometry %.4f m %.2f deg from the truth, closed "
                   "%.4f m; %llu rejected, %llu implausible\n",
                   levels[l].ber, seed, done ? "" : "NOT DONE,", pos, deg, closed,
                   (unsigned long long)(r.st->link.checksum_errors + r.st->link.length_errors),
                   (unsigned long long)r.st->link.implausible);
            assert_true(done);
            assert_true(pos <= levels[l].pos && deg <= levels[l].deg && closed <= levels[l].pos);
            bw_base_close(r.b, r.now);
        }
}

/* 30 s at 0.1 rad/s, streamed every 15 ms: each frame's angle truncates to
 * 0, and the driver's heading still follows the true one. */
static void test_slow_turn(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create");
    double turned = 0, prev = r.sim->body.pose.theta, worst = 0;
    for (double end = r.now + 30; r.now < end;) {
        bw_base_drive(r.b, 0, 0.1, r.now);
        run_step(&r);
        turned += bw_angle_diff(r.sim->body.pose.theta, prev);
        prev = r.sim->body.pose.theta;
        worst = fmax(worst, fabs(run_heading_error(&r)));
    }
    printf("create slow turn: true %.1f deg, driver off by at most %.2f deg\n",
           turned * 180 / BW_PI, worst * 180 / BW_PI);
    assert_true(turned * 180 / BW_PI > 150);
    assert_true(worst < 3 * BW_PI / 180);
    bw_base_close(r.b, r.now);
}

/* Full mode: into the box, a bump reported, and the Create pushes on as
 * told (no reflexes of its own). */
static void test_bump(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create");
    run_drive(&r, 0.3, 0, 8);
    size_t i = run_find_event(&r, BW_EV_BUMP, true, 0);
    assert_int_not_equal(i, SIZE_MAX);
    assert_int_equal(r.events[i].mask, BW_BUMP_FRONT_LEFT | BW_BUMP_FRONT_RIGHT);
    assert_int_equal(run_find_event(&r, BW_EV_REFLEX, true, 0), SIZE_MAX);
    assert_false(bw_base_caps(r.b) & BW_CAP_REFLEXES);
    bw_base_close(r.b, r.now);
}

/* Safe mode: at the stair edge the Create itself stops and falls back to
 * passive; the driver says so. */
static void test_safe_mode_cliff(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create?mode=safe");
    run_for(&r, 0.1);
    assert_string_equal(r.st->mode, "safe");
    run_drive(&r, 0, 0.5, BW_PI / 2 / 0.5 + 0.2);
    run_drive(&r, 0.2, 0, 14);
    assert_true(run_find_event(&r, BW_EV_CLIFF, true, 0) != SIZE_MAX);
    assert_string_equal(r.st->mode, "passive");
    assert_true(fabs(r.sim->body.v) < 1e-9);
    assert_false(r.sim->body.drop_left || r.sim->body.drop_right);
    bw_base_close(r.b, r.now);
}

/* ---- a bad cable, a dead link: what the frames do not say ------------------ */

/* A Stream frame as it leaves the robot: 19, 53, packet 6, the group's 52
 * bytes, the checksum. */
#define FRAME_SIZE 56
#define G6(i) (3 + (i)) /* where group 6's byte i is in the frame */

typedef struct {
    unsigned every, damaged;
    int how; /* 0: a bit flipped (the checksum fails); 1, 2: values a Create
                cannot report, the checksum made good again */
} damage_t;

static size_t damage(line_t *l, uint8_t *b, size_t n)
{
    damage_t *d = l->ctx;
    if (n != FRAME_SIZE || b[0] != BW_CREATE_STREAM_HEADER || l->chunks % d->every != 0)
        return n;
    d->damaged++;
    if (d->how == 0) {
        b[G6(20)] ^= 0x04; /* a bit of the voltage */
        return n;
    }
    if (d->how == 1)
        b[G6(12)] = (uint8_t)(b[G6(12)] + 1); /* 256 mm more distance in 15 ms */
    else
        b[G6(2)] = 2; /* cliff_left, a 0/1 packet */
    uint8_t sum = 0;
    for (size_t i = 0; i + 1 < n; i++)
        sum = (uint8_t)(sum + b[i]);
    b[n - 1] = (uint8_t)-sum; /* two flips the 8-bit sum cannot see */
    return n;
}

/* Every seventh Stream frame rejected on the line: each would have lost
 * its 15 ms of motion for good (the Create counts distance and angle since
 * its last report). The driver counts them by the bytes skipped and
 * estimates their motion from the requested speeds before and after:
 * odometry stays with the truth, and the estimate is said to be one. */
static void test_lost_frames_estimated(void **state)
{
    (void)state;
    line_t l;
    line_open(&l, "create");
    damage_t d = { 7, 0, 0 };
    l.down = damage;
    l.ctx = &d;
    assert_true(line_square(&l, 60));
    uint64_t rejected = l.st->link.checksum_errors + l.st->link.length_errors;
    printf("create, every 7th frame lost: %u damaged, %llu rejected; odometry %.4f m %.2f deg "
           "from the truth; %.3f s estimated\n",
           d.damaged, (unsigned long long)rejected, line_pos_error(&l),
           line_heading_error(&l) * 180 / BW_PI, l.st->estimated_time);
    assert_true(d.damaged > 300);
    assert_true(line_pos_error(&l) < 0.01);
    assert_true(fabs(line_heading_error(&l)) < 1 * BW_PI / 180);
    assert_true(l.seen_estimated);
    assert_false(l.st->estimated); /* at rest, every frame through */
    assert_true(fabs(l.st->estimated_time - d.damaged * 0.015) < 0.05 * d.damaged * 0.015);
    assert_int_equal(l.st->link.implausible, 0);
    line_close(&l);
}

/* Frames that pass the checksum with values no Create reports (two flips
 * the 8-bit sum cannot see): 256 mm in 15 ms, a cliff bit of 2. Set aside
 * and counted as implausible, their motion estimated; no cliff. */
static void test_false_accepts_set_aside(void **state)
{
    (void)state;
    for (int how = 1; how <= 2; how++) {
        line_t l;
        line_open(&l, "create");
        damage_t d = { 40, 0, how };
        l.down = damage;
        l.ctx = &d;
        assert_true(line_square(&l, 60));
        printf("create, every 40th frame false (%s): %u, %llu implausible; odometry %.4f m "
               "%.2f deg from the truth\n",
               how == 1 ? "distance" : "cliff bit", d.damaged,
               (unsigned long long)l.st->link.implausible, line_pos_error(&l),
               line_heading_error(&l) * 180 / BW_PI);
        assert_true(d.damaged > 40);
        assert_int_equal(l.st->link.implausible, d.damaged);
        assert_int_equal(l.st->link.checksum_errors, 0);
        assert_int_equal(line_count_events(&l, BW_EV_CLIFF, true), 0);
        assert_true(line_pos_error(&l) < 0.01);
        assert_true(fabs(line_heading_error(&l)) < 1 * BW_PI / 180);
        line_close(&l);
    }
}

/* Two seconds without the link, driving on an arc. Cut both ways, the
 * robot hears nothing and drives on (the OI has no watchdog); cut from the
 * robot only, it hears the stop the base sends on going offline. Either
 * way odometry estimates the two seconds from what the frames before and
 * after say was requested, and when this side sent the stop. */
static void test_stall(void **state)
{
    (void)state;
    for (int both = 0; both < 2; both++) {
        line_t l;
        line_open(&l, "create");
        line_drive(&l, 0.2, 0.3, 2.0);
        l.cut_down = true;
        l.cut_up = both;
        double moved = l.sim->travelled;
        line_drive(&l, 0.2, 0.3, 2.0);
        moved = l.sim->travelled - moved;
        l.cut_down = l.cut_up = false;
        line_drive(&l, 0.2, 0.3, 2.0);
        bw_base_stop(l.b, l.now);
        line_for(&l, 1.0);
        printf("create, 2 s cut %s: the robot went %.3f m meanwhile; odometry %.4f m %.2f deg "
               "from the truth, %.3f s estimated\n",
               both ? "both ways" : "from the robot", moved, line_pos_error(&l),
               line_heading_error(&l) * 180 / BW_PI, l.st->estimated_time);
        assert_true(both ? moved > 0.38 : moved < 0.1);
        assert_true(line_pos_error(&l) < 0.015);
        assert_true(fabs(line_heading_error(&l)) < 1 * BW_PI / 180);
        assert_true(fabs(l.st->estimated_time - 2.0) < 0.1);
        assert_int_equal(line_count_events(&l, BW_EV_OFFLINE, false), 1);
        assert_int_equal(line_count_events(&l, BW_EV_ONLINE, true), 2); /* at the start, and back */
        line_close(&l);
    }
}

/* What the host sends while the robot's frames are cut, kept. */
typedef struct {
    uint8_t bytes[512];
    size_t n;
} sent_log_t;

static size_t log_up(line_t *l, uint8_t *b, size_t n)
{
    sent_log_t *g = l->ctx;
    for (size_t i = 0; l->cut_down && i < n && g->n < sizeof g->bytes; i++)
        g->bytes[g->n++] = b[i];
    return n;
}

/* Whether the commands logged hold opcode op. */
static bool sent_op(const sent_log_t *g, uint8_t op)
{
    bw_create_cmd_parser_t p;
    bw_create_cmd_parser_init(&p);
    const uint8_t *in = g->bytes;
    size_t left = g->n;
    bw_create_cmd_frame_t f;
    int rc;
    while ((rc = bw_create_cmd_parse(&p, &in, &left, &f)) != 0)
        if (rc > 0 && f.bytes[0] == op)
            return true;
    return false;
}

/* A Create seeking its dock whose host loses the link is stopped by what
 * the base sends on going offline: the mode first (it takes the robot back
 * from its own driving), then the wheels. One that has docked is left in
 * Passive, charging, through a lost link and the driver's close: the stop
 * sent then is the wheels' alone. */
static void test_seek_dock_link_lost(void **state)
{
    (void)state;
    static bw_world_t w;
    bw_world_default(&w);
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.world = &w;
    o.has_start = true;
    o.start = (bw_pose_t){ 3.0, 2.0, 0.5 };
    o.has_battery = true;
    o.battery = 0.5;
    line_t l;
    line_open_with(&l, "create", &o, NULL, NULL, NULL);
    assert_int_equal(bw_base_seek_dock(l.b, l.now), 0);
    assert_true(l.st->self_driving);
    line_for(&l, 2.0);
    assert_true(fabs(l.sim->body.cmd_left) + fabs(l.sim->body.cmd_right) > 0.05); /* on its own */
    l.cut_down = true;
    line_for(&l, 1.0);
    assert_false(l.st->online);
    assert_true(fabs(l.sim->body.cmd_left) < 1e-9 && fabs(l.sim->body.cmd_right) < 1e-9);
    assert_true(fabs(l.sim->body.v) < 1e-6);
    line_close(&l);

    /* on its dock: the seeking over, the link lost and back, then closed;
     * nothing the host sends meanwhile is Full or Safe */
    o.start = bw_dock_robot_pose(&w.docks[0], 0.165 + 0.03);
    sent_log_t g = { .n = 0 };
    line_open_with(&l, "create", &o, log_up, NULL, &g);
    assert_int_equal(bw_base_seek_dock(l.b, l.now), 0);
    for (double until = l.now + 30; !(l.st->charge_sources & BW_SOURCE_DOCK) && l.now < until;)
        line_step(&l);
    assert_true(l.sim->body.docked);
    line_for(&l, 0.5);
    assert_false(l.st->self_driving);
    l.cut_down = true;
    line_for(&l, 1.0);
    assert_false(l.st->online);
    l.cut_down = false;
    assert_true(sent_op(&g, BW_CREATE_OP_DRIVE_DIRECT)); /* the stop, on going offline */
    assert_false(sent_op(&g, BW_CREATE_OP_FULL) || sent_op(&g, BW_CREATE_OP_SAFE));
    line_for(&l, 1.0);
    assert_true(l.st->online);
    assert_string_equal(l.st->mode, "passive");
    assert_int_equal(l.st->charging, BW_CHARGE_CHARGING);
    assert_int_equal(bw_base_stop(l.b, l.now), 0);
    line_for(&l, 0.5);
    assert_string_equal(l.st->mode, "passive");
    assert_int_equal(l.st->charging, BW_CHARGE_CHARGING);
    line_close(&l);
}

/* The line damages commands too: the first Full (the OI stays Passive,
 * where it drives nothing), a Drive Direct's speed (the robot drives at
 * what it heard), and a Pause read out of a command's data (the stream
 * stops). The frames say so, and the driver sends again: the mode, the
 * Drive Direct, the stream before the link would time out. */
typedef struct {
    bool full_damaged, paused;
    unsigned drives;
} up_damage_t;

static size_t damage_up(line_t *l, uint8_t *b, size_t n)
{
    up_damage_t *d = l->ctx;
    bw_create_cmd_parser_t p; /* where each command begins */
    bw_create_cmd_parser_init(&p);
    const uint8_t *in = b;
    size_t left = n;
    bw_create_cmd_frame_t f;
    bool pause = false;
    while (bw_create_cmd_parse(&p, &in, &left, &f) > 0) {
        uint8_t *c = b + (f.bytes - b);
        if (c[0] == BW_CREATE_OP_FULL && !d->full_damaged) {
            c[0] ^= 0x01; /* 133: no Create 1 opcode */
            d->full_damaged = true;
        }
        if (c[0] == BW_CREATE_OP_DRIVE_DIRECT && ++d->drives == 3)
            c[1] ^= 0x40; /* the right wheel's speed + 16384 mm/s: driven at 500 */
        pause |= c[0] == BW_CREATE_OP_DRIVE_DIRECT && d->drives == 6;
    }
    if (pause) {
        b[n++] = BW_CREATE_OP_PAUSE_RESUME_STREAM; /* a Pause slipped in */
        b[n++] = 0;
        d->paused = true;
    }
    return n;
}

static void test_damaged_commands(void **state)
{
    (void)state;
    line_t l;
    up_damage_t d = { 0 };
    line_open_with(&l, "create", NULL, damage_up, NULL, &d);
    assert_true(line_square(&l, 60));
    printf("create, Full, a Drive Direct and a Pause damaged: odometry %.4f m %.2f deg from the "
           "truth; %zu events\n",
           line_pos_error(&l), line_heading_error(&l) * 180 / BW_PI, l.nevents);
    assert_true(d.full_damaged && d.drives >= 6 && d.paused);
    assert_string_equal(l.st->mode, "full");
    assert_true(line_pos_error(&l) < 0.02);
    assert_true(fabs(line_heading_error(&l)) < 2 * BW_PI / 180);
    assert_int_equal(line_count_events(&l, BW_EV_OFFLINE, false), 0);
    assert_true(hypot(l.sim->body.pose.x - l.origin.x, l.sim->body.pose.y - l.origin.y) < 0.05);
    line_close(&l);
}

static void test_bad_mode(void **state)
{
    (void)state;
    bw_base_t *b;
    char err[256];
    assert_int_equal(bw_base_open(&b, "sim:create?mode=sport", NULL, 0, err, sizeof err),
                     BW_EINVAL);
    assert_non_null(strstr(err, "mode=sport"));
}

/* ---- GRL's low-level signals ----------------------------------------------- */

/* Seed 003 (GRL): "raw-base-x raw-base-y - The estimated global position of
 * the robot expressed in units of translational shaft encoder counts." A
 * Create 2 streams each wheel's counts (packets 43, 44; 508.8 a turn of a
 * 72 mm wheel): state.encoder is the emulator's true wheel travel in
 * counts, unwrapped across the 16-bit wrap, and raw_x its true travel. */
static void test_create2_encoder_counts(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create?model=create2");
    assert_true(bw_base_caps(r.b) & BW_CAP_ENCODERS);
    const double per_m = 508.8 / (BW_PI * 0.072); /* 2249.4 */
    assert_true(fabs(r.st->counts_per_m - per_m) < 1e-9);
    double x0 = r.sim->body.pose.x;
    /* 1.8 m ahead: about 4000 counts a wheel. */
    run_drive(&r, 0.3, 0, 6);
    run_drive(&r, 0, 0, 0.5);
    double truth = (r.sim->body.pose.x - x0) * per_m;
    printf("create2 raw_x %.0f counts, true travel %.0f, wheels %lld %lld\n", r.st->raw_x, truth,
           (long long)r.st->encoder[0], (long long)r.st->encoder[1]);
    assert_true(fabs(r.st->raw_x - truth) < 3); /* a count a wheel */
    assert_true(fabs(r.st->raw_y) < 3);
    assert_true(fabs((double)r.st->encoder[0] - floor(r.sim->body.odo_left * per_m)) <= 1);
    assert_true(fabs((double)r.st->encoder[1] - floor(r.sim->body.odo_right * per_m)) <= 1);
    /* Spinning in place until each wheel has counted past the 16-bit wrap
     * (32768 counts, 14.6 m), the right forwards, the left backwards: the
     * counts go on, unwrapped. */
    run_drive(&r, 0, 2.0, 75);
    run_drive(&r, 0, 0, 0.5);
    printf("create2 after the spin: wheels %lld %lld\n", (long long)r.st->encoder[0],
           (long long)r.st->encoder[1]);
    assert_true(r.sim->body.odo_right * per_m > 32768 && r.sim->body.odo_left * per_m < -32768);
    assert_true(fabs((double)r.st->encoder[0] - floor(r.sim->body.odo_left * per_m)) <= 1);
    assert_true(fabs((double)r.st->encoder[1] - floor(r.sim->body.odo_right * per_m)) <= 1);
    bw_base_close(r.b, r.now);

    /* A Create 1 reports mm and degrees, no counts: no cap. */
    run_open(&r, "sim:create");
    assert_false(bw_base_caps(r.b) & BW_CAP_ENCODERS);
    bw_base_close(r.b, r.now);
}

/* The bumper's two switches by packet 7's numbering (the OI: "Bump Right"
 * bit 0, "Bump Left" bit 1): switch 0 right, switch 1 left. Head-on into
 * the box both; past its corner, only the side the emulator truly touches. */
static void test_bump_switches(void **state)
{
    (void)state;
    static const char *const models[] = { "", "?model=create2" };
    for (int m = 0; m < 2; m++) {
        char url[96];
        run_t r;
        snprintf(url, sizeof url, "sim:create%s", models[m]);
        run_open(&r, url);
        assert_true(bw_base_caps(r.b) & BW_CAP_BUMP_SWITCHES);
        assert_int_equal(r.st->nbump_switches, 2);
        for (int i = 0; i < 400 && !r.st->bump_switches; i++)
            run_drive(&r, 0.3, 0, 0.05);
        printf("%s head-on: switches 0x%llx, contact at %.1f deg\n", url,
               (unsigned long long)r.st->bump_switches, r.sim->body.contact_angle * 180 / BW_PI);
        assert_true(r.sim->body.contact && fabs(r.sim->body.contact_angle) < 0.17);
        assert_int_equal(r.st->bump_switches, 3u);
        /* Back off, turn 60 degrees left, and go on: the box's face now
         * meets the right side of the bumper. */
        run_drive(&r, -0.2, 0, 1.0);
        run_drive(&r, 0, 0.5, BW_PI / 3 / 0.5);
        run_drive(&r, 0, 0, 0.3);
        assert_int_equal(r.st->bump_switches, 0u);
        for (int i = 0; i < 400 && !r.st->bump_switches; i++)
            run_drive(&r, 0.2, -0.3, 0.05);
        run_drive(&r, 0.2, -0.3, 0.05); /* two frames agree */
        printf("%s angled: switches 0x%llx, contact at %.1f deg\n", url,
               (unsigned long long)r.st->bump_switches, r.sim->body.contact_angle * 180 / BW_PI);
        assert_true(r.sim->body.contact);
        uint64_t truth = (r.sim->body.contact_angle >= -0.17 ? 2u : 0u) |
                         (r.sim->body.contact_angle <= 0.17 ? 1u : 0u);
        assert_int_equal(r.st->bump_switches, truth);
        bw_base_close(r.b, r.now);
    }
}

/* The Create's own commands from a base (botwire/create_base.h), each
 * judged by the emulated robot's program (its truth): per-wheel drive, the
 * mode while running (Passive stands deaf to drives, Full drives again),
 * a song stored and played, the LEDs, a Create 2's display, and the
 * packets no other base has, as the robot reported them. */
static void test_create_own(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:create?model=create2");
    const bw_create_robot_t *robot = bw_create_device_robot(bw_base_device(r.b));
    assert_non_null(robot);
    /* each wheel its own speed, as the robot was asked */
    for (double end = r.now + 1; r.now < end;) {
        assert_int_equal(bw_create_base_drive_direct(r.b, 0.1, 0.3, r.now), 0);
        run_step(&r);
    }
    assert_int_equal(robot->wheel[0], 100);
    assert_int_equal(robot->wheel[1], 300);
    assert_true(fabs(r.sim->body.left - 0.1) < 0.005 && fabs(r.sim->body.right - 0.3) < 0.005);
    /* the motor currents, the same the robot's frame said */
    double current;
    assert_int_equal(bw_create_base_value(r.b, "right_motor_current", &current), 0);
    assert_true(current > 0);
    assert_int_equal(current, robot->s.right_motor_current);
    double bumper = -1;
    assert_int_equal(bw_create_base_value(r.b, "light_bumper", &bumper), 0);
    assert_true(bumper == 0);
    assert_int_equal(bw_create_base_value(r.b, "no_such_packet", &bumper), BW_EUNKNOWN);
    assert_int_equal(bw_create_base_drive_direct(r.b, 0.6, 0, r.now), BW_EINVAL);

    /* Passive: the robot stops and stands, whatever is asked of it */
    assert_int_equal(bw_create_base_mode(r.b, "passive", r.now), 0);
    run_for(&r, 0.3);
    assert_int_equal(robot->s.oi_mode, BW_CREATE_MODE_PASSIVE);
    assert_string_equal(r.st->mode, "passive");
    bw_pose_t at = r.sim->body.pose;
    for (double end = r.now + 1; r.now < end;) {
        bw_create_base_drive_direct(r.b, 0.2, 0.2, r.now);
        run_step(&r);
    }
    assert_true(hypot(r.sim->body.pose.x - at.x, r.sim->body.pose.y - at.y) < 1e-3);
    assert_int_equal(robot->s.oi_mode, BW_CREATE_MODE_PASSIVE);
    /* Full again: the drive in force is obeyed */
    assert_int_equal(bw_create_base_mode(r.b, "full", r.now), 0);
    for (double end = r.now + 1; r.now < end;) {
        bw_create_base_drive_direct(r.b, 0.2, 0.2, r.now);
        run_step(&r);
    }
    assert_int_equal(robot->s.oi_mode, BW_CREATE_MODE_FULL);
    assert_true(hypot(r.sim->body.pose.x - at.x, r.sim->body.pose.y - at.y) > 0.1);
    assert_int_equal(bw_create_base_mode(r.b, "sleep", r.now), BW_EINVAL);
    bw_base_stop(r.b, r.now);

    /* a song, stored and played; the LEDs; the display */
    const uint8_t notes[] = { 72, 76, 79 };
    const double seconds[] = { 0.25, 0.25, 0.5 };
    uint32_t played = robot->songs_played;
    assert_int_equal(bw_create_base_song(r.b, 3, notes, seconds, 3, r.now), 0);
    assert_int_equal(bw_create_base_play(r.b, 3, r.now), 0);
    assert_int_equal(bw_create_base_leds(r.b, 8, 128, 255, r.now), 0);
    assert_int_equal(bw_create_base_digits(r.b, "bw 1", r.now), 0);
    run_for(&r, 0.2);
    assert_int_equal(robot->song_len[3], 3);
    assert_int_equal(robot->songs[3][2].note, 79);
    assert_int_equal(robot->songs[3][2].duration, 32);
    assert_int_equal(robot->songs_played, played + 1);
    assert_memory_equal(robot->leds, ((uint8_t[]){ 8, 128, 255 }), 3);
    assert_memory_equal(robot->digits, "bw 1", 4);
    assert_int_equal(bw_create_base_song(r.b, 5, notes, seconds, 3, r.now), BW_EINVAL); /* 0..4 */
    assert_int_equal(bw_create_base_play(r.b, 5, r.now), BW_EINVAL);
    assert_int_equal(bw_create_base_digits(r.b, "12345", r.now), BW_EINVAL);
    bw_base_close(r.b, r.now);

    /* a Create 1 has no display and no light bumper; a Kobuki none of it */
    run_open(&r, "sim:create");
    assert_int_equal(bw_create_base_digits(r.b, "1", r.now), BW_ENOTSUP);
    assert_int_equal(bw_create_base_play(r.b, 15, r.now), 0);
    assert_int_equal(bw_create_base_play(r.b, 16, r.now), BW_EINVAL);
    assert_int_equal(bw_create_base_value(r.b, "light_bumper", &bumper), BW_EUNKNOWN);
    assert_int_equal(bw_create_base_value(r.b, "infrared_byte", &bumper), 0);
    bw_base_close(r.b, r.now);
    run_open(&r, "sim:kobuki");
    assert_int_equal(bw_create_base_drive_direct(r.b, 0.1, 0.1, r.now), BW_ENOTSUP);
    assert_int_equal(bw_create_base_mode(r.b, "full", r.now), BW_ENOTSUP);
    bw_base_close(r.b, r.now);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_online_and_state), cmocka_unit_test(test_square),
        cmocka_unit_test(test_slow_turn),        cmocka_unit_test(test_bump),
        cmocka_unit_test(test_safe_mode_cliff),  cmocka_unit_test(test_bad_mode),
        cmocka_unit_test(test_lost_frames_estimated),
        cmocka_unit_test(test_false_accepts_set_aside),
        cmocka_unit_test(test_stall),
        cmocka_unit_test(test_seek_dock_link_lost),
        cmocka_unit_test(test_damaged_commands),
        cmocka_unit_test(test_create2_square),
        cmocka_unit_test(test_create2_encoder_counts),
        cmocka_unit_test(test_bump_switches),
        cmocka_unit_test(test_create2_slow_turn),
        cmocka_unit_test(test_create2_noisy),
        cmocka_unit_test(test_create_own),
    };
    return cmocka_run_group_tests_name("create driver and emulated robot", tests, NULL, NULL);
}
