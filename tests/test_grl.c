/* The GRL layer's operations with values worked out by hand, and its
 * arbitration on real (emulated) bases. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"
#include "run.h"

#define DEG (BW_PI / 180)

static void near(double got, double want, double tol)
{
    if (fabs(got - want) > tol)
        fail_msg("got %.9f, want %.9f (tolerance %g)", got, want, tol);
}

/* A robot at (1, 2) facing +y (90 degrees): a point 1 m ahead is (1, 3),
 * the global point (2, 2) is 1 m to its right: (0, -1). */
static void test_transforms(void **state)
{
    (void)state;
    bw_pose_t robot = bw_pose_make(1, 2, 90 * DEG);
    bw_vec2_t g = bw_egocentric_to_global(robot, (bw_vec2_t){ 1, 0 });
    near(g.x, 1, 1e-12);
    near(g.y, 3, 1e-12);
    bw_vec2_t e = bw_global_to_egocentric(robot, (bw_vec2_t){ 2, 2 });
    near(e.x, 0, 1e-12);
    near(e.y, -1, 1e-12);
    /* A pose 1 m ahead facing back: globally (1, 3) facing -y. */
    bw_pose_t p = bw_egocentric_to_global_pose(robot, bw_pose_make(1, 0, 180 * DEG));
    near(p.x, 1, 1e-12);
    near(p.y, 3, 1e-12);
    near(bw_angle_diff(p.theta, -90 * DEG), 0, 1e-12);
    /* Round trips. */
    for (int i = 0; i < 50; i++) {
        bw_pose_t r = bw_pose_make(i * 0.37 - 5, 3 - i * 0.21, i * 0.5);
        bw_pose_t q = bw_pose_make(i * 0.11, -i * 0.3, -i * 0.7);
        bw_pose_t back = bw_global_to_egocentric_pose(r, bw_egocentric_to_global_pose(r, q));
        near(back.x, q.x, 1e-9);
        near(back.y, q.y, 1e-9);
        near(bw_angle_diff(back.theta, q.theta), 0, 1e-9);
        bw_vec2_t v = bw_global_to_egocentric(r, bw_egocentric_to_global(r, (bw_vec2_t){ q.x, q.y }));
        near(v.x, q.x, 1e-9);
        near(v.y, q.y, 1e-9);
    }
    bw_pose_t c = bw_pose_xy((bw_vec2_t){ 4, 5 }, 1);
    near(c.x, 4, 0);
    near(c.y, 5, 0);
    near(c.theta, 1, 0);
    bw_vec2_t pos = bw_pose_position(c);
    near(pos.x, 4, 0);
    near(pos.y, 5, 0);
}

/* Tolerances: 0.1 m and 5 degrees; either part may be left out. */
static void test_tolerance(void **state)
{
    (void)state;
    bw_pose_t a = bw_pose_make(0, 0, 0), b = bw_pose_make(0.06, 0.08, 10 * DEG); /* 0.1 m */
    assert_true(bw_pose_equal(a, b, bw_pose_tolerance(11 * DEG, 0.1)));
    assert_false(bw_pose_equal(a, b, bw_pose_tolerance(9 * DEG, 0.1)));
    assert_false(bw_pose_equal(a, b, bw_pose_tolerance(11 * DEG, 0.099)));
    assert_true(bw_pose_equal(a, b, bw_pose_tolerance(NAN, 0.1)));       /* angle: don't care */
    assert_true(bw_pose_equal(a, b, bw_pose_tolerance(10.5 * DEG, NAN))); /* distance: don't care */
    assert_true(bw_pose_equal(a, bw_pose_make(9, 9, 3), bw_pose_tolerance(NAN, NAN)));
    /* Angles wrap: 179 and -179 degrees are 2 apart. */
    assert_true(bw_pose_equal(bw_pose_make(0, 0, 179 * DEG), bw_pose_make(0, 0, -179 * DEG),
                              bw_pose_tolerance(2.1 * DEG, NAN)));
}

/* latch-pose and true-nearby over a scripted run along x: the condition is
 * true at x = 1 and 2 only. */
static void test_latch_and_nearby(void **state)
{
    (void)state;
    bw_latch_pose_t l = { 0 };
    bw_true_nearby_t n = { 0 };
    bw_pose_tol_t tol = bw_pose_tolerance(NAN, 0.5);
    static const struct {
        double x;
        bool cond;
        double latched; /* what latch-pose answers */
        bool nearby;
    } steps[] = {
        { 0.0, false, 0.0, false }, /* never true: follows, and not nearby */
        { 1.0, true, 1.0, true },   /* true here: nearby itself */
        { 1.3, false, 1.0, true },  /* 0.3 m from where it was true */
        { 1.6, false, 1.0, false }, /* 0.6 m: too far */
        { 2.0, true, 2.0, true },
        { 2.4, false, 2.0, true },
        { 5.0, false, 2.0, false },
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        bw_pose_t p = bw_pose_make(steps[i].x, 0, 0);
        near(bw_latch_pose(&l, p, steps[i].cond).x, steps[i].latched, 0);
        assert_int_equal(bw_true_nearby(&n, steps[i].cond, p, tol), steps[i].nearby);
    }
}

static void test_motor_vectors(void **state)
{
    (void)state;
    bw_motor_defaults_t d = bw_motor_defaults();
    bw_motor_vector_t m = bw_motor_vector(bw_rt(0.3, -0.2), NULL, NULL, &d);
    near(m.acceleration.t, 0.5, 0);
    near(m.acceleration.r, 1.5, 0);
    near(m.torque.t, 1, 0);
    near(m.torque.r, 1, 0);
    bw_rt_t acc = { 0.1, 0.2 };
    m = bw_motor_vector(bw_rt(0.3, -0.2), &acc, NULL, &d);
    near(m.acceleration.t, 0.1, 0);
    near(m.torque.t, 1, 0);
    bw_motor_vector_t limp = bw_limp_motor_vector();
    near(limp.velocity.t, 0, 0);
    near(limp.velocity.r, 0, 0);
    near(limp.torque.t, 0, 0);
    near(limp.torque.r, 0, 0);
}

/* Behaviours for arbitration: inactive, a constant rt-vector, a motor
 * vector; and the operators' functions. */
static bw_beh_out_t never(const bw_behavior_t *self, const bw_grl_t *g)
{
    (void)self;
    (void)g;
    return bw_beh_inactive();
}

static bw_beh_out_t constant_rt(const bw_behavior_t *self, const bw_grl_t *g)
{
    (void)g;
    const double *v = self->ctx;
    return bw_beh_rt(bw_rt(v[0], v[1]));
}

static bw_beh_out_t constant_mv(const bw_behavior_t *self, const bw_grl_t *g)
{
    const double *v = self->ctx;
    bw_rt_t torque = { v[2], v[2] };
    return bw_beh_motor(bw_motor_vector(bw_rt(v[0], v[1]), NULL, &torque, &g->defaults));
}

static double halve(double x, void *ctx)
{
    (void)ctx;
    return x / 2;
}

static double negate(double x, void *ctx)
{
    (void)ctx;
    return -x;
}

/* drive-base: the leftmost active behaviour wins, motor and rt mixed; none
 * active limps (torque 0 where the base takes it, a stop elsewhere). */
static void test_arbitration(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:rflex");
    bw_grl_t g;
    bw_grl_init(&g, r.b);
    static const double a[2] = { 0.2, 0.1 }, m[3] = { 0.4, -0.3, 0.5 };
    bw_behavior_t off = { never, NULL, NULL, NULL, 0 }, rt = { constant_rt, (void *)a, NULL, NULL, 0 },
                  mv = { constant_mv, (void *)m, NULL, NULL, 0 };
    const bw_behavior_t *l1[] = { &off, &rt, &mv };
    g.now = r.now;
    assert_int_equal(bw_drive_base(&g, l1, 3), 1);
    near(g.sent.velocity.t, 0.2, 0);
    near(g.sent.torque.t, 1, 0); /* an rt-vector takes the defaults */
    const bw_behavior_t *l2[] = { &mv, &rt };
    assert_int_equal(bw_drive_base(&g, l2, 2), 0);
    near(g.sent.velocity.r, -0.3, 0);
    near(g.sent.torque.t, 0.5, 0);
    const bw_behavior_t *l3[] = { &off, &off };
    assert_int_equal(bw_drive_base(&g, l3, 2), -1);
    near(g.sent.torque.t + g.sent.torque.r, 0, 0);
    assert_int_equal(g.winner, -1);
    /* The rflex base takes the vector. */
    for (double end = r.now + 2; r.now < end;) {
        g.now = r.now;
        assert_int_equal(bw_drive_base(&g, l1, 3), 1);
        run_step(&r);
    }
    near(r.st->trans.velocity, 0.2, 0.005);
    assert_int_equal(g.ignored_parts, 0);
    /* The rflex base reports them: numbers, the torque what holding the
     * speed takes (a fraction of the standard). */
    assert_true(isfinite(bw_grl_measured_acceleration(&g).t));
    assert_true(bw_grl_measured_torque(&g).t > 0 && bw_grl_measured_torque(&g).t <= 1);
    bw_base_close(r.b, r.now);

    /* A base without motor vectors: the velocity goes, the rest is counted. */
    run_open(&r, "sim:kobuki");
    bw_grl_init(&g, r.b);
    g.now = r.now;
    const bw_behavior_t *l4[] = { &mv };
    for (double end = r.now + 1; r.now < end;) {
        g.now = r.now;
        assert_int_equal(bw_drive_base(&g, l4, 1), 0);
        run_step(&r);
    }
    assert_true(g.ignored_parts > 0); /* the torque 0.5 could not be given */
    near(r.st->v, 0.4, 0.02);
    /* Seed 003: "base-measured-velocity base-measured-acceleration
     * base-measured-torque - The current rotational/translational velocity,
     * acceleration, and torque reported by the base". The Kobuki reports
     * neither of the last two: they are unknown (NaN), not 0. */
    near(bw_grl_measured_velocity(&g).t, 0.4, 0.02);
    assert_true(isnan(bw_grl_measured_acceleration(&g).t) && isnan(bw_grl_measured_acceleration(&g).r));
    assert_true(isnan(bw_grl_measured_torque(&g).t) && isnan(bw_grl_measured_torque(&g).r));
    assert_true(isnan(r.st->trans.acceleration) && isnan(r.st->rot.torque));
    const bw_behavior_t *l5[] = { &off };
    g.now = r.now;
    assert_int_equal(bw_drive_base(&g, l5, 1), -1); /* limp: a stop here */
    run_for(&r, 1);
    near(r.st->v, 0, 0.01);
    bw_base_close(r.b, r.now);
}

/* Passive braking: full torque to speed up, torque 0 to slow down; the
 * rotation always the defaults. */
static void test_passive_braking(void **state)
{
    (void)state;
    bw_base_state_t st;
    memset(&st, 0, sizeof st);
    run_t r;
    run_open(&r, "sim:kobuki"); /* only for a base to ask caps of */
    bw_grl_t g;
    bw_grl_init(&g, r.b);
    g.st = &st;
    static const struct {
        double v, target, torque;
    } cases[] = {
        { 0.0, 0.3, 1 },   /* from rest: speed up */
        { 0.3, 0.5, 1 },   /* faster */
        { 0.5, 0.3, 0 },   /* slower: coast */
        { 0.5, 0.0, 0 },   /* to rest: coast */
        { 0.5, -0.2, 1 },  /* the other way: drive */
        { -0.4, -0.1, 0 }, /* slower backwards */
        { -0.4, -0.6, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        st.v = cases[i].v;
        bw_motor_vector_t m = bw_passive_braking(&g, bw_rt(cases[i].target, 0.4));
        near(m.torque.t, cases[i].torque, 0);
        near(m.torque.r, 1, 0);
        near(m.velocity.t, cases[i].target, 0);
        near(m.acceleration.r, 1.5, 0);
    }
    bw_base_close(r.b, r.now);
}

/* compose-rotation and compose-translation apply f to one part only, to rt
 * and motor behaviours alike, and leave an inactive behaviour inactive. */
static void test_compose(void **state)
{
    (void)state;
    bw_grl_t g;
    memset(&g, 0, sizeof g);
    g.defaults = bw_motor_defaults();
    static const double a[2] = { 0.2, 0.6 }, m[3] = { 0.4, -0.3, 1 };
    bw_behavior_t rt = { constant_rt, (void *)a, NULL, NULL, 0 },
                  mv = { constant_mv, (void *)m, NULL, NULL, 0 },
                  off = { never, NULL, NULL, NULL, 0 };
    bw_behavior_t r1 = bw_compose_rotation(halve, NULL, &rt);
    bw_beh_out_t o = bw_behavior_run(&r1, &g);
    near(o.rt.t, 0.2, 0);
    near(o.rt.r, 0.3, 0);
    bw_behavior_t t1 = bw_compose_translation(negate, NULL, &mv);
    o = bw_behavior_run(&t1, &g);
    assert_int_equal(o.kind, BW_BEH_MOTOR);
    near(o.mv.velocity.t, -0.4, 0);
    near(o.mv.velocity.r, -0.3, 0);
    bw_behavior_t both = bw_compose_rotation(negate, NULL, &t1);
    o = bw_behavior_run(&both, &g);
    near(o.mv.velocity.t, -0.4, 0);
    near(o.mv.velocity.r, 0.3, 0);
    bw_behavior_t dead = bw_compose_rotation(halve, NULL, &off);
    assert_int_equal(bw_behavior_run(&dead, &g).kind, BW_BEH_INACTIVE);
}

/* Pings placed by hand: a sensor 0.2 m ahead facing ahead reads 1 m from
 * (1, 0, 0): the surface at (2.2, 0). After the robot moves to (1.5, 0)
 * and turns left 90 degrees it lies 0.7 m to its right. */
static void test_pings_by_hand(void **state)
{
    (void)state;
    bw_base_state_t st;
    memset(&st, 0, sizeof st);
    st.nranges = 2;
    st.ranges[0] = (bw_range_t){ .mount = { 0.2, 0, 0 }, .max_range = 5, .range = 1.0, .t = 1.0,
                                 .at = { 1, 0, 0 } };
    st.ranges[1] = (bw_range_t){ .mount = { 0, 0.2, 90 * DEG }, .max_range = 5, .range = 5.0,
                                 .t = 1.0, .at = { 1, 0, 0 } }; /* max: none */
    st.pose = bw_pose_make(1.5, 0, 90 * DEG);
    bw_ping_t p[2];
    assert_int_equal(bw_grl_pings(&st, p, 2), 2);
    assert_true(p[0].valid);
    assert_false(p[1].valid);
    near(p[0].global_position.x, 2.2, 1e-12);
    near(p[0].global_position.y, 0, 1e-12);
    near(p[0].global_orientation, 0, 1e-12);
    near(p[1].global_orientation, 90 * DEG, 1e-12);
    near(p[0].egocentric.x, 0, 1e-12);
    near(p[0].egocentric.y, -0.7, 1e-12);
    /* sonar-safe over such a state: a ping 0.3 m ahead of a 0.2 m
     * footprint blocks forward motion within 0.35 m, not backward. */
    st.pose = bw_pose_make(1.4, 0, 0); /* the surface now 0.8 m ahead, 0.6 from the front */
    bw_grl_t g;
    memset(&g, 0, sizeof g);
    g.st = &st;
    g.defaults = bw_motor_defaults();
    static const double fwd[2] = { 0.3, 0.2 }, back[2] = { -0.3, 0.2 };
    bw_behavior_t f = { constant_rt, (void *)fwd, NULL, NULL, 0 },
                  b = { constant_rt, (void *)back, NULL, NULL, 0 };
    bw_behavior_t sf = bw_sonar_safe(&f, 0.5), sb = bw_sonar_safe(&b, 0.5);
    near(bw_behavior_run(&sf, &g).rt.t, 0.3, 0); /* 0.6 m: clear */
    st.pose = bw_pose_make(1.8, 0, 0);          /* 0.2 m from the front */
    bw_beh_out_t o = bw_behavior_run(&sf, &g);
    near(o.rt.t, 0, 0);
    near(o.rt.r, 0.2, 0); /* turning is still allowed */
    near(bw_behavior_run(&sb, &g).rt.t, -0.3, 0);
}

/* The change count moves with the robot's frames and at a changed drive,
 * not at a repeated one; the host's deadline with the device's is the base's; a
 * kept view of the pings is the same as one made anew, poll after poll of
 * a Pioneer driving past walls. */
static void test_view_and_changes(void **state)
{
    (void)state;
    run_t r;
    run_open(&r, "sim:p2os");
    bw_grl_t g;
    bw_grl_init(&g, r.b);
    static bw_ping_place_t places[BW_BASE_MAX_RANGES];
    static bw_ping_view_t view;
    g.places = places;
    g.view = &view;
    uint64_t c0 = bw_base_changes(r.b);
    assert_int_equal(bw_base_drive(r.b, 0.3, 0.2, r.now), 0);
    uint64_t c1 = bw_base_changes(r.b);
    assert_true(c1 != c0);
    assert_int_equal(bw_base_drive(r.b, 0.3, 0.2, r.now), 0); /* the same: nothing sent */
    assert_true(bw_base_changes(r.b) == c1);
    run_for(&r, 0.2); /* SIPs came */
    assert_true(bw_base_changes(r.b) != c1);
    bw_device_t *dev = bw_base_device(r.b);
    unsigned checked = 0;
    for (int k = 0; k < 400; k++) {
        bw_base_drive(r.b, 0.3, k % 100 < 50 ? 0.2 : -0.3, r.now);
        near(fmin(bw_base_host_deadline(r.b), bw_device_next_deadline(dev)),
             bw_base_next_deadline(r.b), 0);
        run_step(&r);
        const bw_ping_view_t *v = bw_grl_view(&g);
        assert_non_null(v);
        assert_true(bw_grl_view(&g) == v); /* nothing changed since */
        bw_ping_t p[BW_BASE_MAX_RANGES];
        unsigned n = bw_grl_pings(r.st, p, BW_BASE_MAX_RANGES), valid = 0;
        for (unsigned i = 0; i < n; i++) {
            if (!p[i].valid)
                continue;
            assert_true(valid < v->n);
            near(v->egocentric[valid].x, p[i].egocentric.x, 0);
            near(v->egocentric[valid].y, p[i].egocentric.y, 0);
            valid++;
        }
        assert_int_equal(valid, v->n);
        checked += valid;
    }
    assert_true(checked > 0);
    /* A state that is not the base's own has no view. */
    bw_base_state_t other;
    memset(&other, 0, sizeof other);
    g.st = &other;
    assert_null(bw_grl_view(&g));
    bw_base_close(r.b, r.now);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transforms),      cmocka_unit_test(test_tolerance),
        cmocka_unit_test(test_latch_and_nearby), cmocka_unit_test(test_motor_vectors),
        cmocka_unit_test(test_arbitration),     cmocka_unit_test(test_passive_braking),
        cmocka_unit_test(test_compose),         cmocka_unit_test(test_pings_by_hand),
        cmocka_unit_test(test_view_and_changes),
    };
    return cmocka_run_group_tests_name("the GRL layer", tests, NULL, NULL);
}
