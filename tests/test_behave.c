/* The GRL layer on emulated bases, in virtual time: calibrated pings after
 * the robot has moved, sonar-safe at a wall, ten minutes of wander, and
 * docking by the dock's infrared. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>

#include <cmocka.h>

#include "botwire/botwire.h"
#include "run.h"

/* Ping the room from (1, 1), drive 0.5 m, turn 90 degrees left. Those
 * pings, back-projected into the robot's frame now and placed in the world
 * by its true pose, lie on the walls they came from within 3 cm. */
static void calibrated_pings(const char *url)
{
    run_t r;
    run_open(&r, url);
    run_for(&r, 1.5);
    bw_range_t saved[BW_BASE_MAX_RANGES];
    unsigned nr = r.st->nranges;
    assert_true(nr > 0);
    memcpy(saved, r.st->ranges, sizeof saved);
    bw_pose_t start = r.st->pose;
    while (hypot(r.st->pose.x - start.x, r.st->pose.y - start.y) < 0.5) {
        bw_base_drive(r.b, 0.2, 0, r.now);
        run_step(&r);
    }
    while (bw_angle_diff(BW_PI / 2, r.st->pose.theta) > 0.005) {
        bw_base_drive(r.b, 0, 0.3, r.now);
        run_step(&r);
    }
    bw_base_stop(r.b, r.now);
    run_for(&r, 1.0);
    /* The old readings, each with the pose it was taken at, seen from now. */
    bw_base_state_t old = *r.st;
    memcpy(old.ranges, saved, sizeof saved);
    bw_ping_t p[BW_BASE_MAX_RANGES];
    unsigned n = bw_grl_pings(&old, p, BW_BASE_MAX_RANGES);
    int placed = 0, ahead_then = 0;
    double worst = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!p[i].valid)
            continue;
        bw_vec2_t w = bw_pose_to_global(r.sim->body.pose, p[i].egocentric);
        worst = fmax(worst, bw_world_clearance(r.sim->world, w, NULL));
        placed++;
        /* What was ahead then (+x) is to the robot's right now (it faces +y). */
        if (cos(p[i].global_orientation) > 0.9) {
            ahead_then++;
            assert_true(p[i].egocentric.y < -1.0);
        }
    }
    printf("%s: %d pings placed again after the move, the worst %.4f m from a wall\n", url,
           placed, worst);
    assert_true(placed >= 5 && ahead_then >= 1);
    assert_true(worst < 0.03);
    bw_base_close(r.b, r.now);
}

static void test_calibrated_pings_p2os(void **state)
{
    (void)state;
    calibrated_pings("sim:p2os");
}

static void test_calibrated_pings_rflex(void **state)
{
    (void)state;
    calibrated_pings("sim:rflex");
}

/* Straight at the box behind sonar-safe: it stops short, no bump. */
static bw_beh_out_t straight(const bw_behavior_t *self, const bw_grl_t *g)
{
    (void)self;
    (void)g;
    return bw_beh_rt(bw_rt(0.3, 0));
}

static void sonar_safe_at_a_wall(const char *url)
{
    run_t r;
    run_open(&r, url);
    run_for(&r, 0.5);
    bw_grl_t g;
    bw_grl_init(&g, r.b);
    bw_behavior_t go = { straight, NULL, NULL, NULL, 0 }, safe = bw_sonar_safe(&go, 0.3);
    const bw_behavior_t *list[] = { &safe };
    for (double end = r.now + 15; r.now < end;) {
        g.now = r.now;
        bw_drive_base(&g, list, 1);
        run_step(&r);
    }
    double clear = bw_world_clearance(r.sim->world, (bw_vec2_t){ r.sim->body.pose.x, r.sim->body.pose.y },
                                      NULL) - r.sim->body.prm.radius;
    printf("%s: sonar-safe stopped %.3f m from the box (true), at rest: v %.3f\n", url, clear,
           r.sim->body.v);
    assert_true(fabs(r.sim->body.v) < 1e-6);
    assert_true(clear > 0.05 && clear < 0.6);
    assert_int_equal(run_find_event(&r, BW_EV_BUMP, true, 0), SIZE_MAX);
    assert_false(r.sim->body.contact);
    bw_base_close(r.b, r.now);
}

static void test_sonar_safe_p2os(void **state)
{
    (void)state;
    sonar_safe_at_a_wall("sim:p2os?model=p2pb"); /* the PeopleBot: it has bumpers to tell */
}

static void test_sonar_safe_rflex(void **state)
{
    (void)state;
    sonar_safe_at_a_wall("sim:rflex");
}

/* Ten simulated minutes of wander in the built-in room. */
typedef struct {
    double distance;
    unsigned collisions, bumps, cleared_late;
} wander_run_t;

/* stack: by name, NULL for the default */
static wander_run_t wander_with(const char *url, double minutes, const char *stack)
{
    run_t r;
    run_open(&r, url);
    bw_grl_t g;
    bw_grl_init(&g, r.b);
    static bw_wander_t w;
    bw_wander_init(&w, &g, 1, 0.25);
    if (stack)
        assert_int_equal(bw_wander_set_stack(&w, stack), 0);
    /* The stairs, marked for a base that cannot see them. */
    for (size_t i = 0; !(bw_base_caps(r.b) & BW_CAP_CLIFFS) && i < r.sim->world->ndrops; i++) {
        const bw_polygon_t *d = &r.sim->world->drops[i];
        bw_vec2_t poly[BW_WORLD_MAX_POLY];
        for (unsigned k = 0; k < d->n; k++)
            poly[k] = bw_pose_to_local(r.origin, d->v[k]);
        assert_int_equal(bw_wander_keep_out(&w, poly, d->n), 0);
    }
    wander_run_t out = { 0 };
    bool touching = false;
    double bump_at = -1, next_tick = r.now;
    size_t seen = r.nevents;
    for (double end = r.now + minutes * 60; r.now < end;) {
        if (r.now >= next_tick) {
            g.now = r.now;
            int winner = bw_wander_tick(&w);
            assert_true(winner >= -1 && winner < (int)w.nstack);
            next_tick = r.now + 0.05;
        }
        run_step(&r);
        out.collisions += r.sim->body.contact && !touching;
        touching = r.sim->body.contact;
        for (; seen < r.nevents; seen++) {
            const bw_event_t *e = &r.events[seen];
            if (e->type != BW_EV_BUMP)
                continue;
            if (e->on && !(bump_at >= 0)) {
                bump_at = e->t;
                out.bumps++;
            } else if (!e->on && bump_at >= 0 && r.st->bumpers == 0) {
                if (e->t - bump_at > 1.0)
                    out.cleared_late++;
                bump_at = -1;
            }
        }
        if (r.nevents > RUN_EVENTS - 8) { /* keep room: only the recent ones matter */
            r.nevents = 0;
            seen = 0;
        }
    }
    out.distance = r.sim->travelled;
    printf("%s%s%s: wandered %.1f m in %.0f min, %u collisions, %u bumps, %u cleared after 1 s\n",
           url, stack ? " with " : "", stack ? stack : "", out.distance, minutes, out.collisions,
           out.bumps, out.cleared_late);
    bw_base_close(r.b, r.now);
    return out;
}

static wander_run_t wander(const char *url, double minutes) { return wander_with(url, minutes, NULL); }

static void test_wander_p2os(void **state)
{
    (void)state;
    wander_run_t w = wander("sim:p2os", 10);
    assert_int_equal(w.collisions, 0);
    assert_true(w.distance >= 20);
}

static void test_wander_rflex(void **state)
{
    (void)state;
    wander_run_t w = wander("sim:rflex", 10);
    assert_int_equal(w.collisions, 0);
    assert_true(w.distance >= 20);
}

/* No sonar: it bumps, and every bump is answered by backing away, the
 * bumper clear within a second. */
static void test_wander_kobuki(void **state)
{
    (void)state;
    wander_run_t w = wander("sim:kobuki", 10);
    assert_true(w.bumps >= 5);
    assert_int_equal(w.cleared_late, 0);
    assert_true(w.distance >= 20);
}

/* A stack by name: the names checked, the list in the order given. */
static void test_wander_stack_names(void **state)
{
    (void)state;
    static const char *const good[] = { BW_WANDER_STACK_DEFAULT, "reflex", "avoid", "safe-avoid",
                                        "wander", "safe-wander",
                                        "safe-wander,safe-avoid,wander,avoid,reflex" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_int_equal(bw_wander_set_stack(NULL, good[i]), 0);
    static const char *const bad[] = { "", ",", "reflex,", ",reflex", "reflex,,wander",
                                       "reflex,reflex", "Reflex", "reflexes", "refle",
                                       "safe-wander,wander,safe-wander", "reflex wander" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bw_wander_set_stack(NULL, bad[i]), BW_EINVAL);
    assert_int_equal(bw_wander_set_stack(NULL, NULL), BW_EINVAL);

    run_t r;
    run_open(&r, "sim:p2os");
    bw_grl_t g;
    bw_grl_init(&g, r.b);
    static bw_wander_t w;
    bw_wander_init(&w, &g, 1, 0.25);
    assert_int_equal(w.nstack, 3); /* the default */
    assert_ptr_equal(w.stack[0], &w.reflex);
    assert_ptr_equal(w.stack[1], &w.safe_avoid);
    assert_ptr_equal(w.stack[2], &w.safe_wander);
    assert_int_equal(bw_wander_set_stack(&w, "safe-wander,reflex"), 0);
    assert_int_equal(w.nstack, 2);
    assert_ptr_equal(w.stack[0], &w.safe_wander);
    assert_ptr_equal(w.stack[1], &w.reflex);
    assert_int_equal(bw_wander_set_stack(&w, "avoid,bogus"), BW_EINVAL);
    assert_int_equal(w.nstack, 2); /* as it was */
    assert_ptr_equal(w.stack[0], &w.safe_wander);
    assert_int_equal(bw_wander_set_stack(&w, "avoid,wander"), 0);
    assert_ptr_equal(w.stack[0], &w.avoid);
    assert_ptr_equal(w.stack[1], &w.wander);
    bw_base_close(r.b, r.now);
}

/* The stack named is the one that drives, in its order. A Kobuki (no
 * sonar) cruising with no reflex pushes against the first wall it meets
 * and stays there; with the reflex first it backs off every bump and goes
 * on; with the reflex after the cruise it never gets a turn (the cruise is
 * always active). A reflex alone has nothing to do: the base stands. */
static void test_wander_stack_drives(void **state)
{
    (void)state;
    wander_run_t bare = wander_with("sim:kobuki", 3, "wander");
    assert_true(bare.collisions >= 1);
    assert_true(bare.distance < 5);
    wander_run_t reflex_first = wander_with("sim:kobuki", 3, "reflex,wander");
    assert_true(reflex_first.bumps >= 5);
    assert_int_equal(reflex_first.cleared_late, 0);
    assert_true(reflex_first.distance >= 20);
    wander_run_t reflex_last = wander_with("sim:kobuki", 3, "safe-wander,reflex");
    assert_true(reflex_last.collisions >= 1);
    assert_true(reflex_last.distance < 5);
    wander_run_t reflex_alone = wander_with("sim:p2os", 1, "reflex");
    assert_true(reflex_alone.distance < 0.01);
}

/* Docks the robot at url by bw_docking (time limit `limit` s); its result,
 * and the contacts' truth in *docked. */
static int dock_run(const char *url, double limit, bool *docked, char *why, size_t cap, double *took)
{
    run_t r;
    run_open(&r, url);
    bw_grl_t g;
    bw_grl_init(&g, r.b);
    g.now = r.now;
    bw_docking_t d;
    bw_docking_init(&d, &g, limit);
    int rc = 0;
    double t0 = r.now;
    while (rc == 0) {
        g.now = r.now;
        rc = bw_docking_tick(&d);
        run_step(&r);
        assert_true(r.now - t0 < limit + 5); /* the limit is its own */
    }
    run_for(&r, 0.5);
    *docked = r.sim->body.docked;
    *took = r.now - t0;
    snprintf(why, cap, "%s", d.why);
    /* stopped, either way */
    assert_true(fabs(r.sim->body.cmd_left) < 1e-9 && fabs(r.sim->body.cmd_right) < 1e-9);
    bw_base_close(r.b, r.now);
    return rc;
}

/* The emulated Kobuki docks from ten poses in front of the built-in room's
 * dock ((4.9, 3.0), facing -x; its left is -y), within 2 m and 60 degrees
 * of its axis, facing every way: each time the contacts' truth says it
 * charges. */
static void test_dock_kobuki(void **state)
{
    (void)state;
    static const struct {
        double r, deg, heading;
    } from[] = {
        { 2.0, 0, 0 },   { 1.5, 30, 90 },  { 2.0, 60, 180 }, { 1.0, -45, -90 }, { 0.8, -60, 45 },
        { 1.8, 45, 0 },  { 1.2, 15, 135 }, { 1.6, -25, 30 }, { 0.6, 50, -150 }, { 1.9, -20, 270 },
    };
    int docked_n = 0;
    for (size_t i = 0; i < sizeof from / sizeof from[0]; i++) {
        double a = from[i].deg * BW_PI / 180;
        char url[128], why[96];
        snprintf(url, sizeof url, "sim:kobuki?start=%.3f,%.3f,%.1f", 4.9 - from[i].r * cos(a),
                 3.0 - from[i].r * sin(a), from[i].heading);
        bool docked;
        double took;
        int rc = dock_run(url, 180, &docked, why, sizeof why, &took);
        printf("%s: %s, %s (%.1f s)\n", url, rc == 1 ? "docked" : "failed", why, took);
        assert_int_equal(rc, 1);
        assert_true(docked);
        docked_n += docked;
    }
    assert_int_equal(docked_n, 10);
}

/* Docking at a sim: URL (`robot`, then `params`) in a world file of
 * `world`'s text, within `limit` s: it must fail, saying it cannot see the
 * dock, the contacts' truth not charging (dock_run: the robot stopped).
 * The seconds it took. */
static double cannot_see(const char *world, const char *robot, const char *params, double limit)
{
    char path[] = "/tmp/botwire-dock-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, world, strlen(world)), (ssize_t)strlen(world));
    close(fd);
    char url[256], why[96];
    snprintf(url, sizeof url, "sim:%s?world=%s&%s", robot, path, params);
    bool docked;
    double took;
    int rc = dock_run(url, limit, &docked, why, sizeof why, &took);
    unlink(path);
    printf("%s: %s (%.1f s)\n", url, why, took);
    assert_int_equal(rc, -1);
    assert_false(docked);
    assert_non_null(strstr(why, "cannot see the dock"));
    return took;
}

/* Behind a dock (one standing in the room, facing +x, the robot at its
 * back): no infrared reaches it; docking says so within its time limit,
 * the robot stopped. */
static void test_dock_from_behind(void **state)
{
    (void)state;
    double took = cannot_see("size 6 5\ndock 3 2.5 0 kobuki\n", "kobuki", "start=2.0,2.5,0", 60);
    assert_true(took <= 60 + 1);
}

/* The emulated Create 1 and Create 2 dock themselves (Seek Dock, Cover and
 * Dock: their own program, by the buoys their omnidirectional receiver
 * hears), told to and watched by bw_docking, from ten poses in front of the
 * built-in room's Home Base within 2 m and 60 degrees of its axis, facing
 * every way: each time the contacts' truth says it charges, the robot is
 * never driven by the host meanwhile, and it is left standing on the dock
 * in Passive, charging. The Create under lobot's Command Module, whose
 * program has no Seek Dock, docks the same way from the same poses: the
 * same program runs in its driver, on what each SENSORS reports, through
 * the module's commands and its own reflexes. */
static void test_dock_create(void **state)
{
    (void)state;
    static const struct {
        double r, deg, heading;
    } from[] = {
        { 2.0, 0, 0 },   { 1.5, 30, 90 },  { 2.0, 50, 180 }, { 1.0, -45, -90 }, { 0.8, -60, 45 },
        { 1.8, 45, 0 },  { 1.2, 15, 135 }, { 1.6, -25, 30 }, { 0.6, 50, -150 }, { 1.9, -20, 270 },
    };
    static const char *const robot[] = { "create?", "create?model=create2&", "lobot?" };
    for (int m = 0; m < 3; m++) {
        int docked_n = 0;
        for (size_t i = 0; i < sizeof from / sizeof from[0]; i++) {
            double a = from[i].deg * BW_PI / 180;
            char url[160], why[96];
            snprintf(url, sizeof url, "sim:%sbattery=0.5&start=%.3f,%.3f,%.1f", robot[m],
                     4.9 - from[i].r * cos(a), 3.0 - from[i].r * sin(a), from[i].heading);
            bool docked;
            double took;
            int rc = dock_run(url, 300, &docked, why, sizeof why, &took);
            printf("%s: %s, %s (%.1f s)\n", url, rc == 1 ? "docked" : "failed", why, took);
            assert_int_equal(rc, 1);
            assert_true(docked);
            assert_non_null(strstr(why, "docked and charging"));
            docked_n += docked;
        }
        assert_int_equal(docked_n, 10);
    }
}

/* A Create behind a partition from its Home Base hears no buoy: docking
 * says it cannot see the dock once BW_DOCKING_UNHEARD has passed, and the
 * robot, which was driving itself, is taken back and stopped. */
static void test_dock_create_unheard(void **state)
{
    (void)state;
    double took = cannot_see("size 6 5\nwall 2.5 0 2.5 5\ndock 3 2.5 0 create\n", "create",
                             "model=create2&start=1.5,2.5,0", 120);
    assert_true(took >= BW_DOCKING_UNHEARD && took <= BW_DOCKING_UNHEARD + 1);
    took = cannot_see("size 6 5\nwall 2.5 0 2.5 5\ndock 3 2.5 0 create\n", "lobot",
                      "start=1.5,2.5,0", 120);
    assert_true(took >= BW_DOCKING_UNHEARD && took <= BW_DOCKING_UNHEARD + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibrated_pings_p2os), cmocka_unit_test(test_calibrated_pings_rflex),
        cmocka_unit_test(test_sonar_safe_p2os),       cmocka_unit_test(test_sonar_safe_rflex),
        cmocka_unit_test(test_wander_p2os),           cmocka_unit_test(test_wander_rflex),
        cmocka_unit_test(test_dock_kobuki),           cmocka_unit_test(test_dock_from_behind),
        cmocka_unit_test(test_dock_create),           cmocka_unit_test(test_dock_create_unheard),
        cmocka_unit_test(test_wander_kobuki),         cmocka_unit_test(test_wander_stack_names),
        cmocka_unit_test(test_wander_stack_drives),
    };
    return cmocka_run_group_tests_name("the GRL layer on emulated bases", tests, NULL, NULL);
}
