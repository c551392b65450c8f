/* Geometry, the simulated world, the world file format and the body. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/geom.h"
#include "botwire/sim.h"
#include "botwire/wire.h"

#define RADIUS 0.177

static void assert_near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.12g, want %.12g (tolerance %g)", got, want, tol);
}

static bw_vec2_t vec(double x, double y)
{
    bw_vec2_t v = { x, y };
    return v;
}

static bw_pose_t pose(double x, double y, double theta)
{
    bw_pose_t p = { x, y, theta };
    return p;
}

/* The test data directory, found from this source file's path. */
static void data_path(char *out, size_t n, const char *name)
{
    const char *slash = strrchr(__FILE__, '/');
    int dir = slash ? (int)(slash - __FILE__) : 1;
    snprintf(out, n, "%.*s/data/worlds/%s", dir, slash ? __FILE__ : ".", name);
}

/* ---- geometry ------------------------------------------------------------ */

static void test_angle_norm(void **state)
{
    (void)state;
    assert_true(bw_angle_norm(BW_PI) == BW_PI);
    assert_true(bw_angle_norm(-BW_PI) == BW_PI); /* -pi is outside (-pi, pi] */
    assert_true(bw_angle_norm(0.5) == 0.5);
    assert_true(bw_angle_norm(-0.5) == -0.5);
    assert_near(bw_angle_norm(BW_PI + 1e-6), -BW_PI + 1e-6, 1e-12);
    assert_near(bw_angle_norm(-BW_PI - 1e-6), BW_PI - 1e-6, 1e-12);
    assert_near(bw_angle_norm(2 * BW_PI + 0.5), 0.5, 1e-12);
    assert_near(bw_angle_norm(-2 * BW_PI - 0.5), -0.5, 1e-12);
    assert_near(bw_angle_norm(101 * BW_PI + 0.25), -BW_PI + 0.25, 1e-9);
    for (double a = -20; a < 20; a += 0.37) {
        double r = bw_angle_norm(a);
        assert_true(r > -BW_PI && r <= BW_PI);
        assert_near(sin(r), sin(a), 1e-12);
        assert_near(cos(r), cos(a), 1e-12);
    }
    assert_near(bw_angle_diff(0.1, -0.1), 0.2, 1e-15);
    /* The short way round across the +-pi seam. */
    assert_near(bw_angle_diff(BW_PI - 0.1, -BW_PI + 0.1), -0.2, 1e-12);
    assert_near(bw_angle_diff(-BW_PI + 0.1, BW_PI - 0.1), 0.2, 1e-12);
}

static void test_frames(void **state)
{
    (void)state;
    bw_vec2_t g = bw_pose_to_global(pose(1, 2, BW_PI / 2), vec(1, 0));
    assert_near(g.x, 1, 1e-12); /* ahead of a robot facing +y is +y */
    assert_near(g.y, 3, 1e-12);
    g = bw_pose_to_global(pose(1, 2, BW_PI / 2), vec(0, 1));
    assert_near(g.x, 0, 1e-12); /* its left is -x */
    assert_near(g.y, 2, 1e-12);
    bw_vec2_t l = bw_pose_to_local(pose(1, 2, BW_PI / 2), vec(1, 3));
    assert_near(l.x, 1, 1e-12);
    assert_near(l.y, 0, 1e-12);

    const bw_pose_t ps[] = { pose(0, 0, 0), pose(1.5, -2, 0.7), pose(-3, 4, -2.9),
                             pose(0.2, 0.1, BW_PI) };
    const bw_vec2_t vs[] = { vec(0, 0), vec(1, -1), vec(-2.5, 0.3) };
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        for (size_t k = 0; k < sizeof vs / sizeof vs[0]; k++) {
            bw_vec2_t back = bw_pose_to_local(ps[i], bw_pose_to_global(ps[i], vs[k]));
            assert_near(back.x, vs[k].x, 1e-12);
            assert_near(back.y, vs[k].y, 1e-12);
        }
        for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
            bw_pose_t c = bw_pose_compose(ps[i], bw_pose_relative(ps[i], ps[k]));
            assert_true(bw_pose_near(c, ps[k], 1e-12, 1e-12));
            bw_pose_t r = bw_pose_relative(ps[i], bw_pose_compose(ps[i], ps[k]));
            assert_true(bw_pose_near(r, ps[k], 1e-12, 1e-12));
        }
    }
    bw_pose_t c = bw_pose_compose(pose(1, 1, BW_PI / 2), pose(2, 0, BW_PI));
    assert_near(c.x, 1, 1e-12);
    assert_near(c.y, 3, 1e-12);
    assert_near(c.theta, -BW_PI / 2, 1e-12); /* 3pi/2 wrapped */
}

static void test_pose_near(void **state)
{
    (void)state;
    bw_pose_t a = pose(1, 1, BW_PI - 0.01), b = pose(1.03, 1.04, -BW_PI + 0.01);
    assert_near(bw_vec2_dist(vec(1, 1), vec(1.03, 1.04)), 0.05, 1e-12);
    assert_true(bw_pose_near(a, b, 0.051, 0.021)); /* angle across the seam */
    assert_false(bw_pose_near(a, b, 0.049, 0.021));
    assert_false(bw_pose_near(a, b, 0.051, 0.019));
    assert_true(bw_pose_near(a, b, -1, 0.021)); /* distance ignored */
    assert_true(bw_pose_near(a, b, 0.051, -1)); /* angle ignored */
    assert_true(bw_pose_near(pose(0, 0, 0), pose(100, 0, 3), -1, -1));
    assert_false(bw_pose_near(pose(0, 0, 0), pose(100, 0, 0), 1, -1));
}

/* ---- the world ----------------------------------------------------------- */

static void test_default_room(void **state)
{
    (void)state;
    bw_world_t w;
    bw_world_default(&w);
    assert_true(w.min_x == 0 && w.min_y == 0 && w.max_x == 5 && w.max_y == 4);
    assert_int_equal(w.nwalls, 8 + 1); /* the room, the box, the dock's back */
    assert_int_equal(w.ndrops, 1);
    assert_int_equal(w.ndocks, 1);
    assert_true(bw_pose_near(w.docks[0].pose, pose(4.9, 3.0, BW_PI), 1e-12, 1e-12));
    assert_string_equal(w.docks[0].family, ""); /* any family's */
    assert_true(bw_pose_near(w.start, pose(1.0, 1.0, 0), 1e-12, 1e-12));

    bw_vec2_t s = { 1.0, 1.0 };
    assert_near(bw_world_raycast(&w, s, 0, 10), 2.0, 1e-12);          /* the box */
    assert_near(bw_world_raycast(&w, s, BW_PI / 2, 10), 3.0, 1e-12);  /* top wall */
    assert_near(bw_world_raycast(&w, s, BW_PI, 10), 1.0, 1e-12);      /* left wall */
    assert_near(bw_world_raycast(&w, s, -BW_PI / 2, 10), 1.0, 1e-12); /* bottom wall */
    assert_near(bw_world_raycast(&w, s, 0, 1.5), 1.5, 0);             /* out of range */
    /* Just past the box's top edge the ray runs on to the right wall. */
    assert_near(bw_world_raycast(&w, vec(1.0, 1.26), 0, 10), 4.0, 1e-12);
    assert_near(bw_world_raycast(&w, vec(1.0, 1.24), 0, 10), 2.0, 1e-12);
    /* Diagonal, over the box, to the top wall. */
    assert_near(bw_world_raycast(&w, vec(1, 0.5), BW_PI / 4, 10), 3.5 * sqrt(2), 1e-9);

    bw_vec2_t near;
    assert_near(bw_world_clearance(&w, s, &near), 1.0, 1e-12);
    assert_near(bw_world_clearance(&w, vec(2.9, 1.0), &near), 0.1, 1e-12);
    assert_near(near.x, 3.0, 1e-12);
    assert_near(near.y, 1.0, 1e-12);
    /* Nearest to a corner of the box is the corner itself. */
    assert_near(bw_world_clearance(&w, vec(2.9, 1.35), &near), hypot(0.1, 0.1), 1e-12);
    assert_near(near.x, 3.0, 1e-12);
    assert_near(near.y, 1.25, 1e-12);
    assert_near(bw_world_clearance(&w, vec(2.0, 2.5), NULL), 1.5, 1e-12);

    assert_true(bw_world_is_drop(&w, vec(0.5, 3.5)));
    assert_true(bw_world_is_drop(&w, vec(1.19, 3.21)));
    assert_false(bw_world_is_drop(&w, vec(0.5, 3.1)));
    assert_false(bw_world_is_drop(&w, vec(1.3, 3.5)));
    assert_false(bw_world_is_drop(&w, s));
    /* Turning left at the start and driving 2.2 m reaches the stairs. */
    assert_false(bw_world_is_drop(&w, vec(1.0, 1.0 + 2.19)));
    assert_true(bw_world_is_drop(&w, vec(1.0, 1.0 + 2.21)));
}

static void test_empty_world(void **state)
{
    (void)state;
    bw_world_t w;
    memset(&w, 0x5a, sizeof w);
    bw_world_init(&w);
    assert_int_equal(w.nwalls, 0);
    assert_int_equal(w.ndrops, 0);
    assert_int_equal(w.ndocks, 0);
    assert_true(w.start.x == 0 && w.start.y == 0 && w.start.theta == 0);
    assert_near(bw_world_raycast(&w, vec(0, 0), 1.0, 7.5), 7.5, 0);
    assert_true(bw_world_clearance(&w, vec(0, 0), NULL) > 1e6);
    assert_false(bw_world_is_drop(&w, vec(0, 0)));
}

static void test_builders(void **state)
{
    (void)state;
    bw_world_t w;
    bw_world_init(&w);
    /* The first shape sets the extent; it need not include the origin. */
    assert_int_equal(bw_world_add_wall(&w, vec(10, 2), vec(12, 3)), 0);
    assert_true(w.min_x == 10 && w.max_x == 12 && w.min_y == 2 && w.max_y == 3);
    assert_int_equal(bw_world_add_box(&w, 11, -1, 13, 0), 0);
    assert_true(w.min_x == 10 && w.max_x == 13 && w.min_y == -1 && w.max_y == 3);
    assert_int_equal(w.nwalls, 5);
    const bw_vec2_t tri[] = { { 9, 0 }, { 10, 5 }, { 11, 0 } };
    assert_int_equal(bw_world_add_polygon(&w, tri, 3), 0);
    assert_int_equal(w.nwalls, 8);
    assert_true(w.min_x == 9 && w.max_y == 5);
    /* The closing edge is there: a ray up from below the base hits it. */
    assert_near(bw_world_raycast(&w, vec(9.5, -0.5), BW_PI / 2, 10), 0.5, 1e-12);
    assert_int_equal(bw_world_add_drop_box(&w, 20, 20, 21, 22), 0);
    assert_true(w.max_x == 21 && w.max_y == 22);
    assert_int_equal(w.ndrops, 1);
    assert_true(bw_world_is_drop(&w, vec(20.5, 21)));
    /* A drop is floor, not a wall. */
    assert_near(bw_world_raycast(&w, vec(19, 21), 0, 5), 5, 0);

    /* Degenerate shapes add nothing. */
    const bw_vec2_t line[] = { { 0, 0 }, { 1, 1 }, { 2, 2 } };
    const bw_vec2_t dup[] = { { 0, 0 }, { 1, 0 }, { 1, 0 }, { 0, 1 } };
    bw_vec2_t many[BW_WORLD_MAX_POLY + 1];
    for (unsigned i = 0; i <= BW_WORLD_MAX_POLY; i++)
        many[i] = vec(15 + cos(i * 0.3), 10 + sin(i * 0.3));
    assert_int_equal(bw_world_add_wall(&w, vec(1, 1), vec(1, 1)), BW_EINVAL);
    assert_int_equal(bw_world_add_wall(&w, vec(NAN, 1), vec(1, 2)), BW_EINVAL);
    assert_int_equal(bw_world_add_wall(&w, vec(0, 1), vec(INFINITY, 2)), BW_EINVAL);
    assert_int_equal(bw_world_add_box(&w, 1, 1, 1, 2), BW_EINVAL);
    assert_int_equal(bw_world_add_box(&w, 1, 1, 2, NAN), BW_EINVAL);
    assert_int_equal(bw_world_add_polygon(&w, tri, 2), BW_EINVAL);
    assert_int_equal(bw_world_add_polygon(&w, line, 3), BW_EINVAL);
    assert_int_equal(bw_world_add_polygon(&w, dup, 4), BW_EINVAL);
    assert_int_equal(bw_world_add_drop(&w, tri, 2), BW_EINVAL);
    assert_int_equal(bw_world_add_drop(&w, many, BW_WORLD_MAX_POLY + 1), BW_EINVAL);
    assert_int_equal(bw_world_add_drop(&w, many, BW_WORLD_MAX_POLY), 0);
    assert_int_equal(bw_world_add_drop_box(&w, 0, 0, 3, 0), BW_EINVAL);
    assert_int_equal(w.nwalls, 8);
    assert_int_equal(w.ndrops, 2);
    assert_true(w.min_x == 9 && w.min_y == -1 && w.max_x == 21 && w.max_y == 22);
}

static void test_builders_full(void **state)
{
    (void)state;
    bw_world_t w;
    bw_world_init(&w);
    while (w.nwalls < BW_WORLD_MAX_WALLS - 3)
        assert_int_equal(bw_world_add_wall(&w, vec(0, (double)w.nwalls), vec(1, 0)), 0);
    /* A box needs four walls and only three are left: nothing is added. */
    assert_int_equal(bw_world_add_box(&w, 5, 5, 6, 6), BW_ENOSPC);
    assert_int_equal(w.nwalls, BW_WORLD_MAX_WALLS - 3);
    assert_true(w.max_x == 1);
    const bw_vec2_t tri[] = { { 5, 0 }, { 6, 0 }, { 5, 1 } };
    assert_int_equal(bw_world_add_polygon(&w, tri, 3), 0);
    assert_int_equal(w.nwalls, BW_WORLD_MAX_WALLS);
    assert_int_equal(bw_world_add_wall(&w, vec(0, 0), vec(1, 1)), BW_ENOSPC);
    assert_int_equal(bw_world_add_polygon(&w, tri, 3), BW_ENOSPC);
    assert_int_equal(w.nwalls, BW_WORLD_MAX_WALLS);

    for (int i = 0; i < BW_WORLD_MAX_DROPS; i++)
        assert_int_equal(bw_world_add_drop_box(&w, i, 10, i + 0.5, 11), 0);
    assert_int_equal(bw_world_add_drop_box(&w, 50, 10, 51, 11), BW_ENOSPC);
    assert_int_equal(w.ndrops, BW_WORLD_MAX_DROPS);
    assert_false(bw_world_is_drop(&w, vec(50.5, 10.5)));
    assert_true(bw_world_is_drop(&w, vec(31.25, 10.5)));
}

/* ---- the world file ------------------------------------------------------ */

static void test_parse_full(void **state)
{
    (void)state;
    static const char text[] =
        "# every keyword once\n"
        "\n"
        "size 6 5\r\n"
        "   wall 1 1 2 1   # a fence\n"
        "box 3 3 3.5 3.5\n"
        "\tpolygon 4 1 5 1 4.5 2\n"
        "drop 0 4 1 5\n"
        "droppoly 5 4 6 4 6 5 5.5 4.8\n"
        "dock 5.9 2.5 180\n"
        "start 1 2 90\n"
        "label 3.25 3.25   the box  \n"
        "# a comment with no newline at the end";
    bw_world_t w;
    bw_world_default(&w); /* parsing starts from an empty world */
    char err[200] = "stale";
    assert_int_equal(bw_world_parse(&w, text, strlen(text), err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_int_equal(w.nwalls, 4 + 1 + 4 + 3 + 1); /* and the dock's back, last */
    assert_int_equal(w.ndrops, 2);
    assert_true(w.min_x == 0 && w.min_y == 0 && w.max_x == 6 && w.max_y == 5);
    assert_true(w.walls[4].a.x == 1 && w.walls[4].a.y == 1);
    assert_true(w.walls[4].b.x == 2 && w.walls[4].b.y == 1);
    assert_int_equal(w.drops[0].n, 4);
    assert_int_equal(w.drops[1].n, 4);
    assert_true(w.drops[1].v[3].x == 5.5 && w.drops[1].v[3].y == 4.8);
    assert_int_equal(w.ndocks, 1);
    assert_true(w.docks[0].pose.x == 5.9 && w.docks[0].pose.y == 2.5 && w.docks[0].pose.theta == BW_PI);
    /* its back: 0.3 m across the way in, 4 cm behind the face */
    assert_near(w.walls[12].a.x, 5.94, 1e-12);
    assert_near(w.walls[12].b.x, 5.94, 1e-12);
    assert_near(fabs(w.walls[12].a.y - w.walls[12].b.y), 0.3, 1e-12);
    assert_true(w.start.x == 1 && w.start.y == 2 && w.start.theta == BW_PI / 2);
    assert_int_equal(w.nlabels, 1);
    assert_string_equal(w.labels[0].text, "the box");
    assert_true(w.labels[0].at.x == 3.25 && w.labels[0].at.y == 3.25);
    /* Walls from `size`, the box and the polygon all stop rays. */
    assert_near(bw_world_raycast(&w, vec(1.5, 2), -BW_PI / 2, 10), 1.0, 1e-12);
    assert_near(bw_world_raycast(&w, vec(3.25, 2), BW_PI / 2, 10), 1.0, 1e-12);
    assert_near(bw_world_raycast(&w, vec(4.5, 0.5), BW_PI / 2, 10), 0.5, 1e-12);
    assert_true(bw_world_is_drop(&w, vec(0.5, 4.5)));
    assert_true(bw_world_is_drop(&w, vec(5.5, 4.3)));

    /* Headings in degrees, wrapped; an empty text is an empty world. */
    static const char h[] = "start 0 0 -90\ndock 0 0 270.5\n";
    assert_int_equal(bw_world_parse(&w, h, strlen(h), err, sizeof err), 0);
    assert_int_equal(w.nwalls, 1); /* the dock's back */
    assert_true(w.start.theta == -BW_PI / 2);
    assert_near(w.docks[0].pose.theta, -89.5 * BW_PI / 180, 1e-12);
    assert_int_equal(bw_world_parse(&w, "", 0, err, sizeof err), 0);
    assert_int_equal(w.ndocks, 0);
    /* Only len bytes count: what follows is not read. */
    assert_int_equal(bw_world_parse(&w, "wall 0 0 1 0xyz", 12, err, sizeof err), 0);
    assert_int_equal(w.nwalls, 1);
}

static void parse_fails(const char *text, const char *want)
{
    bw_world_t w;
    bw_world_default(&w);
    char err[200] = "";
    int rc = bw_world_parse(&w, text, strlen(text), err, sizeof err);
    if (rc != BW_EINVAL)
        fail_msg("'%s' parsed with %d", text, rc);
    assert_string_equal(err, want);
    /* A failed parse leaves the world as it was. */
    assert_int_equal(w.nwalls, 9);
    assert_int_equal(w.ndrops, 1);
}

static void test_parse_errors(void **state)
{
    (void)state;
    parse_fails("size 5 4\n\nfence 1 2 3 4\n", "line 3: unknown keyword 'fence'");
    parse_fails("Wall 0 0 1 1", "line 1: unknown keyword 'Wall'");
    parse_fails("# c\nwall 0 0 1\n", "line 2: wall needs 4 numbers, got 3");
    parse_fails("wall 0 0 1 1 2", "line 1: wall needs 4 numbers, got 5");
    parse_fails("start", "line 1: start needs 3 numbers, got 0");
    parse_fails("dock 1 2", "line 1: dock needs X Y HEADING [FAMILY] (got 2 numbers)");
    parse_fails("dock 1 2 kobuki", "line 1: dock needs X Y HEADING [FAMILY] (got 2 numbers)");
    parse_fails("dock 1 2 0 p2os",
                "line 1: dock family 'p2os': kobuki or create (the Home Base), or none for any");
    parse_fails("dock 1 2 0 kobuki create", "line 1: 'kobuki' is not a number");
    /* Where no robot could stand docked: off the map, in or against a
     * wall (walls after the dock count as much as before). */
    parse_fails("size 6 5\ndock 7 2 180\n",
                "line 2: dock at (7, 2) is off the map (0..6 x 0..5), or a robot docked there "
                "would be");
    parse_fails("dock 5.9 2.5 0\nsize 6 5\n",
                "line 1: dock at (5.9, 2.5) is off the map (0..6 x 0..5), or a robot docked "
                "there would be");
    parse_fails("size 6 5\ndock 3 2.5 0\nbox 3.1 2 3.6 3\n",
                "line 2: dock at (3, 2.5) is in or against a wall: a robot docked there would "
                "stand in it");
    parse_fails("size 6 5\ndock 5.9 4.95 180\n",
                "line 2: dock at (5.9, 4.95) is in or against a wall: a robot docked there would "
                "stand in it");
    parse_fails("size 5", "line 1: size needs 2 numbers, got 1");
    parse_fails("box 0 0 one 1", "line 1: 'one' is not a number");
    parse_fails("box 0 0 1.5x 1", "line 1: '1.5x' is not a number");
    parse_fails("wall 0 0 1 1 extra", "line 1: 'extra' is not a number");
    parse_fails("wall 0 0 1 1,", "line 1: '1,' is not a number");
    parse_fails("wall 0 0 inf 1", "line 1: 'inf' is not a finite number");
    parse_fails("wall 0 0 nan 1", "line 1: 'nan' is not a finite number");
    parse_fails("wall 0 0 1e999 1", "line 1: '1e999' is not a finite number");
    parse_fails("\n\n\nwall 0 0 0 0", "line 4: degenerate wall (zero length)");
    parse_fails("box 0 0 0 1", "line 1: degenerate box (zero width or height)");
    parse_fails("drop 0 1 2 1", "line 1: degenerate drop (zero width or height)");
    parse_fails("size 0 4", "line 1: size needs a positive width and height");
    parse_fails("size 5 -4", "line 1: size needs a positive width and height");
    parse_fails("polygon 0 0 1 1 2", "line 1: polygon needs x y pairs, got 5 numbers");
    parse_fails("polygon 0 0 1 1", "line 1: polygon needs at least 3 vertices, got 2");
    parse_fails("polygon 0 0 1 1 2 2",
                "line 1: degenerate polygon (repeated vertex or no area)");
    parse_fails("droppoly 0 0 1 0 0 0 1 1",
                "line 1: degenerate droppoly (repeated vertex or no area)");
    parse_fails("droppoly 0 0 1 0 2 0 3 0 4 0 5 0 6 0 7 0 8 0 9 0 10 0 11 0 12 0 13 0 "
                "14 0 15 0 16 1",
                "line 1: droppoly has 17 vertices, at most 16");
    /* Long and unprintable tokens are quoted shortened and made printable. */
    parse_fails("wall 0 0 1 abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
                "line 1: 'abcdefghijklmnopqrstuvwxyzABCDEF...' is not a number");
    parse_fails("wall 0 0 1 0.000000000000000000000000000000000000000000000000000000000000001",
                "line 1: '0.000000000000000000000000000000...' is too long for a number");
    parse_fails("wall 0 0 1 1\x01", "line 1: '1?' is not a number");
    parse_fails("label 1 2", "line 1: label needs a text of 1 to 23 characters");
    parse_fails("label 1", "line 1: label needs X Y and a text");
    parse_fails("label 1 x box", "line 1: 'x' is not a number");
    parse_fails("label 1 1 <b>", "line 1: label text must be printable, without < or &");
    parse_fails("label 1 1 a label that is far too long", "line 1: label needs a text of 1 to 23 characters");

    /* One wall too many, on the line that overflows. */
    char big[BW_WORLD_MAX_WALLS * 16 + 64];
    size_t n = 0;
    for (int i = 0; i < BW_WORLD_MAX_WALLS; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "wall 0 %d 1 0\n", i);
    snprintf(big + n, sizeof big - n, "wall 5 5 6 6\n");
    parse_fails(big, "line 513: world full (at most 512 walls)");
    n = 0;
    for (int i = 0; i < BW_WORLD_MAX_DROPS + 1; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "drop %d 0 %d 1\n", i, i + 1);
    parse_fails(big, "line 33: world full (at most 32 drop-offs)");

    /* A short buffer truncates the message but still terminates it. */
    bw_world_t w;
    char err[12];
    assert_int_equal(bw_world_parse(&w, "bogus", 5, err, sizeof err), BW_EINVAL);
    assert_string_equal(err, "line 1: unk");
    assert_int_equal(bw_world_parse(&w, "bogus", 5, NULL, 0), BW_EINVAL);
}

static void test_load(void **state)
{
    (void)state;
    bw_world_t w;
    char err[512], path[1024];
    bw_world_default(&w);
    int rc = bw_world_load(&w, "/nonexistent/botwire/room.world", err, sizeof err);
    assert_int_equal(rc, BW_EIO);
    assert_string_equal(err,
                        "cannot open /nonexistent/botwire/room.world: No such file or directory");
    assert_int_equal(w.nwalls, 9); /* untouched */

    data_path(path, sizeof path, "corridor.world");
    rc = bw_world_load(&w, path, err, sizeof err);
    if (rc != 0)
        fail_msg("%s: %s", path, err);
    assert_int_equal(w.nwalls, 8 + 1); /* and its dock's back */
    assert_int_equal(w.ndrops, 1);
    assert_true(w.max_x == 6 && w.max_y == 1.5);
    assert_true(w.ndocks == 1 && w.docks[0].pose.x == 0.1 && w.docks[0].pose.theta == 0);
    assert_true(w.start.x == 1 && w.start.y == 0.75);
    assert_near(bw_world_raycast(&w, vec(1, 0.75), 0, 10), 1.9, 1e-12);
    assert_true(bw_world_is_drop(&w, vec(5.8, 0.2)));

    data_path(path, sizeof path, "bad_count.world");
    bw_world_default(&w);
    rc = bw_world_load(&w, path, err, sizeof err);
    assert_int_equal(rc, BW_EINVAL);
    char want[1200];
    snprintf(want, sizeof want, "%s: line 4: box needs 4 numbers, got 3", path);
    assert_string_equal(err, want);
    assert_int_equal(w.nwalls, 9);

    /* A directory opens but cannot be read. */
    data_path(path, sizeof path, "");
    rc = bw_world_load(&w, path, err, sizeof err);
    assert_int_equal(rc, BW_EIO);
    assert_non_null(strstr(err, path));
}

/* ---- the body ------------------------------------------------------------ */

/* Field by field: struct padding is not part of the state. */
static void same_body(const bw_body_t *a, const bw_body_t *b)
{
    assert_memory_equal(&a->pose, &b->pose, sizeof a->pose);
    assert_true(a->left == b->left && a->right == b->right);
    assert_true(a->cmd_left == b->cmd_left && a->cmd_right == b->cmd_right);
    assert_true(a->v == b->v && a->w == b->w);
    assert_true(a->odo_left == b->odo_left && a->odo_right == b->odo_right);
    assert_true(a->contact == b->contact && a->contact_angle == b->contact_angle);
    assert_true(a->blocked == b->blocked && a->cliff == b->cliff);
    assert_true(a->drop_left == b->drop_left && a->drop_right == b->drop_right);
    assert_true(a->battery == b->battery && a->docked == b->docked);
}

static bw_world_t open_world;
static bw_world_t room;

static int setup_worlds(void **state)
{
    (void)state;
    bw_world_init(&open_world);
    bw_world_default(&room);
    return 0;
}

static void sim_at(bw_sim_t *s, const bw_world_t *w, bw_pose_t p)
{
    bw_body_params_t prm;
    bw_body_params_default(&prm);
    bw_sim_init(s, w, &prm, p, 0.0);
}

static void test_params_and_init(void **state)
{
    (void)state;
    bw_body_params_t p;
    bw_body_params_default(&p);
    assert_true(p.wheelbase == 0.230 && p.radius == RADIUS);
    assert_true(p.max_wheel_speed == 0.7 && p.max_accel == 1.0);
    assert_int_equal(p.ncliff, 3);
    assert_true(p.cliff[1].x == 0.15 && p.cliff[1].y == 0);
    assert_true(p.cliff[0].y > 0 && p.cliff[2].y < 0); /* left, then right */
    assert_true(p.slip == 0 && p.encoder_noise == 0 && p.seed != 0);
    assert_true(p.battery_full > p.battery_empty);

    bw_sim_t s;
    p.seed = 0; /* still a working generator */
    bw_sim_init(&s, &room, &p, room.start, 12.5);
    assert_true(s.t == 12.5 && s.dt == 0.005);
    assert_true(s.rng != 0);
    assert_true(s.body.battery == p.battery_full);
    assert_true(bw_pose_near(s.body.pose, room.start, 0, 0));
    assert_false(s.body.contact || s.body.blocked || s.body.docked);
    assert_int_equal(s.body.cliff, 0);

    /* Placed over the stairwell: everything reports it at once. */
    sim_at(&s, &room, pose(0.5, 3.6, 0));
    assert_int_equal(s.body.cliff, 7);
    assert_true(s.body.drop_left && s.body.drop_right);
    /* Placed on the dock: docked at once. */
    sim_at(&s, &room, bw_dock_robot_pose(&room.docks[0], s.body.prm.radius));
    assert_true(s.body.docked);
    assert_int_equal(s.body.dock, 0);

    /* Range sensors look out from their mount. */
    sim_at(&s, &room, room.start);
    assert_near(bw_sim_range(&s, pose(0.1, 0, 0), 10), 1.9, 1e-12);
    assert_near(bw_sim_range(&s, pose(0, 0.05, BW_PI / 2), 10), 2.95, 1e-12);
    assert_near(bw_sim_range(&s, pose(0, 0, 0), 1.0), 1.0, 0);
    sim_at(&s, &room, pose(1.0, 1.0, BW_PI / 2)); /* facing +y: mount's "ahead" is up */
    assert_near(bw_sim_range(&s, pose(0.1, 0, 0), 10), 2.9, 1e-12);
    assert_near(bw_sim_range(&s, pose(0, 0, -BW_PI / 2), 10), 2.0, 1e-12);
}

static void test_commands(void **state)
{
    (void)state;
    bw_sim_t s;
    sim_at(&s, &open_world, pose(0, 0, 0));
    bw_sim_set_wheels(&s, 2.0, -0.3);
    assert_true(s.body.cmd_left == 0.7 && s.body.cmd_right == -0.3);
    bw_sim_set_wheels(&s, -5, NAN);
    assert_true(s.body.cmd_left == -0.7 && s.body.cmd_right == 0);
    bw_sim_set_twist(&s, 0.2, 1.0);
    assert_near(s.body.cmd_left, 0.2 - 0.115, 1e-15);
    assert_near(s.body.cmd_right, 0.2 + 0.115, 1e-15);
    /* Over the limit both wheels scale together: the curvature stays. */
    bw_sim_set_twist(&s, 1.0, 2.0);
    assert_near(s.body.cmd_right, 0.7, 1e-15);
    assert_near(s.body.cmd_left, 0.7 * (1.0 - 0.23) / (1.0 + 0.23), 1e-12);
    bw_sim_set_twist(&s, 0, -100);
    assert_near(s.body.cmd_left, 0.7, 1e-15);
    assert_near(s.body.cmd_right, -0.7, 1e-15);
    /* Commands alone do not move anything. */
    assert_true(s.body.left == 0 && s.body.right == 0 && s.body.pose.x == 0);
}

static void test_straight(void **state)
{
    (void)state;
    bw_sim_t s;
    sim_at(&s, &open_world, pose(0, 0, 0));
    bw_sim_set_wheels(&s, 0.2, 0.2);
    /* Reaching 0.2 m/s at 1 m/s^2 takes 0.2 s and costs 0.02 m against
     * cruising all the way: 1 m takes 5.1 s. */
    bw_sim_step_to(&s, 5.1);
    assert_near(s.t, 5.1, 1e-12);
    assert_near(s.body.pose.x, 1.0, 0.001);
    assert_true(s.body.pose.y == 0 && s.body.pose.theta == 0);
    assert_near(s.body.v, 0.2, 1e-12);
    assert_near(s.body.w, 0, 1e-12);
    /* Without noise the encoders see exactly the path travelled. */
    assert_true(s.body.odo_left == s.body.odo_right);
    assert_true(s.body.odo_left == s.travelled);
    assert_near(s.travelled, s.body.pose.x, 1e-12);
    assert_false(s.body.blocked || s.body.contact);

    /* Backwards too; encoders count down. */
    bw_sim_set_wheels(&s, -0.2, -0.2);
    bw_sim_step_to(&s, 20);
    assert_true(s.body.pose.x < -1.5);
    assert_true(s.body.odo_left < -1.5);
    assert_near(s.body.odo_left, s.body.pose.x, 1e-12);
    /* It goes on 2 cm while braking before it backs. */
    assert_near(s.travelled, 2 * 1.02 - s.body.pose.x, 0.002);
}

static void test_rotate_in_place(void **state)
{
    (void)state;
    bw_sim_t s;
    sim_at(&s, &open_world, pose(2, 3, 0));
    bw_sim_set_twist(&s, 0, 1.0); /* wheels +-0.115 m/s, reached after 0.115 s */
    double ramp = 0.115 / 2;      /* time lost to the ramp */
    bw_sim_step_to(&s, BW_PI / 2 + ramp);
    assert_near(s.body.pose.theta, BW_PI / 2, 0.005);
    assert_true(s.body.pose.x == 2 && s.body.pose.y == 3);
    assert_near(s.body.v, 0, 1e-15);
    assert_near(s.body.w, 1.0, 1e-12);
    assert_near(s.body.odo_left, -s.body.odo_right, 1e-15);
    assert_near(s.body.odo_right, 0.115 * BW_PI / 2, 0.001);
    assert_true(s.travelled == 0);
    /* Keep turning: the heading wraps through pi. */
    bw_sim_step_to(&s, BW_PI / 2 + ramp + 2.0);
    assert_near(s.body.pose.theta, BW_PI / 2 + 2.0 - 2 * BW_PI, 0.01);
}

static void test_arc(void **state)
{
    (void)state;
    bw_body_params_t p;
    bw_body_params_default(&p);
    p.max_accel = 1e6; /* speeds at once, so the arc is the analytic one */
    bw_sim_t s;
    bw_pose_t start = pose(1, -1, 0.3);
    bw_sim_init(&s, &open_world, &p, start, 100.0);
    bw_sim_set_wheels(&s, 0.1, 0.2);
    bw_sim_step_to(&s, 102.0);
    double v = 0.15, w = 0.1 / 0.23, r = v / w, th = w * 2.0;
    bw_pose_t want = bw_pose_compose(start, pose(r * sin(th), r * (1 - cos(th)), th));
    assert_near(s.body.pose.x, want.x, 1e-9);
    assert_near(s.body.pose.y, want.y, 1e-9);
    assert_near(s.body.pose.theta, want.theta, 1e-9);
    assert_near(s.travelled, v * 2.0, 1e-12);
    assert_near(s.body.odo_left, 0.2, 1e-12);
    assert_near(s.body.odo_right, 0.4, 1e-12);
    assert_near(s.body.v, v, 1e-15);
    assert_near(s.body.w, w, 1e-12);

    /* Backwards, with the faster wheel on the left: the same arc run in reverse. */
    bw_sim_init(&s, &open_world, &p, pose(0, 0, 0), 0);
    bw_sim_set_wheels(&s, -0.2, -0.1);
    bw_sim_step_to(&s, 2.0);
    assert_near(s.body.pose.x, -r * sin(th), 1e-9);
    assert_near(s.body.pose.y, -r * (1 - cos(th)), 1e-9);
    assert_near(s.body.pose.theta, th, 1e-9);
}

static void test_accel_limit(void **state)
{
    (void)state;
    bw_sim_t s;
    sim_at(&s, &open_world, pose(0, 0, 0));
    bw_sim_set_wheels(&s, 0.5, -0.5);
    bw_sim_step_to(&s, 0.05);
    assert_near(s.body.left, 0.05, 1e-12);
    assert_near(s.body.right, -0.05, 1e-12);
    bw_sim_step_to(&s, 0.1);
    assert_near(s.body.left, 0.1, 1e-12);
    assert_near(s.body.right, -0.1, 1e-12);
    bw_sim_step_to(&s, 1.0);
    assert_near(s.body.left, 0.5, 1e-12); /* reached, not overshot */
    /* Braking is limited the same way. */
    bw_sim_set_wheels(&s, 0, 0);
    bw_sim_step_to(&s, 1.2);
    assert_near(s.body.left, 0.3, 1e-12);
    assert_near(s.body.right, -0.3, 1e-12);
    bw_sim_step_to(&s, 2.0);
    assert_true(s.body.left == 0 && s.body.right == 0);
}

static void test_step_timing(void **state)
{
    (void)state;
    bw_sim_t a, b;
    sim_at(&a, &room, room.start);
    bw_sim_set_twist(&a, 0.25, 0.4);
    bw_sim_step_to(&a, 1.0);
    b = a;
    /* An earlier or equal time, or no time at all, does nothing. */
    bw_sim_step_to(&a, 0.5);
    bw_sim_step_to(&a, 1.0);
    bw_sim_step_to(&a, NAN);
    bw_sim_step_to(&a, 1.0 + 0.004); /* less than a step */
    same_body(&a.body, &b.body);
    assert_true(a.t == 1.0);

    /* Many small calls give exactly what one big call gives. */
    bw_sim_t one, many, odd;
    sim_at(&one, &room, pose(1, 2, 0.3));
    sim_at(&many, &room, pose(1, 2, 0.3));
    sim_at(&odd, &room, pose(1, 2, 0.3));
    bw_sim_set_twist(&one, 0.3, -0.5);
    bw_sim_set_twist(&many, 0.3, -0.5);
    bw_sim_set_twist(&odd, 0.3, -0.5);
    bw_sim_step_to(&one, 7.0);
    for (int i = 1; i <= 7000; i++)
        bw_sim_step_to(&many, i * 0.001);
    for (int i = 1; i <= 5384; i++) /* steps of 1.3 ms, not a divisor of dt */
        bw_sim_step_to(&odd, i * 0.0013);
    bw_sim_step_to(&odd, 7.0);
    assert_near(many.t, 7.0, 1e-12);
    assert_true(odd.t == 7.0);
    assert_memory_equal(&one.body.pose, &many.body.pose, sizeof one.body.pose);
    assert_memory_equal(&one.body.pose, &odd.body.pose, sizeof one.body.pose);
    assert_true(one.body.odo_left == many.body.odo_left);
    assert_true(one.body.odo_left == odd.body.odo_left);
    assert_true(one.travelled == odd.travelled);
    assert_true(one.body.pose.x != 1); /* it did move */
}

static void test_collision_ahead(void **state)
{
    (void)state;
    bw_sim_t s;
    sim_at(&s, &room, room.start);
    bw_sim_set_wheels(&s, 0.3, 0.3);
    bw_sim_step_to(&s, 10.0);
    assert_near(s.body.pose.x, 3.0 - RADIUS, 0.003);
    assert_true(s.body.pose.x <= 3.0 - RADIUS + 1e-12); /* never inside the radius */
    assert_true(s.body.pose.y == 1.0);
    assert_true(s.body.blocked);
    assert_true(s.body.contact);
    assert_near(s.body.contact_angle, 0, 0.01);
    assert_true(s.body.left == 0 && s.body.right == 0 && s.body.v == 0);
    /* Still pushing: the wheels stall and the encoders stand still. */
    double odo_l = s.body.odo_left, odo_r = s.body.odo_right, x = s.body.pose.x;
    bw_sim_step_to(&s, 12.0);
    assert_true(s.body.odo_left == odo_l && s.body.odo_right == odo_r);
    assert_true(s.body.pose.x == x);
    assert_true(s.body.blocked);
    assert_near(s.body.odo_left, x - 1.0, 1e-12);

    /* Backing off frees it. */
    bw_sim_set_wheels(&s, -0.2, -0.2);
    bw_sim_step_to(&s, 12.1);
    assert_false(s.body.blocked);
    assert_true(s.body.pose.x < x);
    bw_sim_step_to(&s, 13.0);
    assert_false(s.body.contact);
    assert_true(s.body.odo_left < odo_l);
    assert_near(s.body.pose.x, 3.0 - RADIUS - 0.18, 0.002);
}

static void test_contact_side(void **state)
{
    (void)state;
    bw_sim_t s;
    /* Heading +x under the top wall: the wall is on the left. */
    sim_at(&s, &room, pose(2.0, 4.0 - RADIUS - 0.001, 0));
    assert_true(s.body.contact);
    assert_near(s.body.contact_angle, BW_PI / 2, 1e-9);
    /* Driving along the wall is not blocked. */
    bw_sim_set_wheels(&s, 0.2, 0.2);
    bw_sim_step_to(&s, 2.0);
    assert_false(s.body.blocked);
    assert_true(s.body.contact);
    assert_near(s.body.pose.x, 2.0 + 0.2 * 2.0 - 0.02, 0.001);
    assert_near(s.body.contact_angle, BW_PI / 2, 1e-9);

    /* Heading -x under the top wall: the wall is on the right. */
    sim_at(&s, &room, pose(2.0, 4.0 - RADIUS - 0.001, BW_PI));
    assert_near(s.body.contact_angle, -BW_PI / 2, 1e-9);
    /* Backing into the left wall: contact behind. */
    sim_at(&s, &room, pose(RADIUS + 0.001, 2.0, 0));
    assert_near(fabs(s.body.contact_angle), BW_PI, 1e-9);
    bw_sim_set_wheels(&s, -0.1, -0.1);
    bw_sim_step_to(&s, 0.5);
    assert_true(s.body.blocked);
    assert_true(s.body.pose.x >= RADIUS);
    /* Far from walls: no contact. */
    sim_at(&s, &room, pose(2.0, 2.5, 0));
    assert_false(s.body.contact);

    /* Placed closer than its radius, it can still turn and back away. */
    sim_at(&s, &room, pose(4.9, 2.0, 0));
    bw_sim_set_twist(&s, 0, 1.0);
    bw_sim_step_to(&s, 1.0);
    assert_false(s.body.blocked);
    assert_true(s.body.pose.theta > 0.5);
    bw_sim_set_wheels(&s, -0.2, -0.2);
    bw_sim_step_to(&s, 3.0);
    assert_false(s.body.blocked);
    assert_true(s.body.pose.x < 4.8);
}

static void test_cliff_then_drop(void **state)
{
    (void)state;
    bw_sim_t s;
    sim_at(&s, &room, pose(1.0, 2.8, BW_PI / 2));
    bw_sim_set_wheels(&s, 0.2, 0.2);
    double t_cliff = -1, t_drop = -1;
    uint32_t first_bits = 0;
    double y_cliff = 0;
    for (int i = 1; i <= 1000 && t_drop < 0; i++) {
        bw_sim_step_to(&s, i * 0.005);
        if (t_cliff < 0 && s.body.cliff) {
            t_cliff = s.t;
            first_bits = s.body.cliff;
            y_cliff = s.body.pose.y;
        }
        if (s.body.drop_left || s.body.drop_right)
            t_drop = s.t;
    }
    assert_true(t_cliff > 0 && t_drop > 0);
    assert_true(t_cliff < t_drop);
    assert_int_equal(first_bits, 2); /* the front sensor sees it first */
    assert_near(y_cliff, 3.2 - 0.15, 0.002);
    assert_near(s.body.pose.y, 3.2, 0.002);
    assert_int_equal(s.body.cliff, 7);
    assert_true(s.body.drop_left && s.body.drop_right);

    /* Fallen: stuck although still commanded, and it stays so. */
    bw_pose_t at = s.body.pose;
    double odo = s.body.odo_left;
    bw_sim_step_to(&s, s.t + 2.0);
    assert_memory_equal(&s.body.pose, &at, sizeof at);
    assert_true(s.body.odo_left == odo);
    assert_true(s.body.left == 0 && s.body.right == 0 && s.body.v == 0);
    assert_true(s.body.drop_left && s.body.drop_right);
    bw_sim_set_wheels(&s, -0.3, -0.3);
    bw_sim_step_to(&s, s.t + 2.0);
    assert_memory_equal(&s.body.pose, &at, sizeof at);
    /* Lifted back onto the floor by hand, the wheels stay dropped. */
    s.body.pose = pose(2.0, 2.0, 0);
    bw_sim_step_to(&s, s.t + 0.1);
    assert_int_equal(s.body.cliff, 0);
    assert_true(s.body.drop_left && s.body.drop_right);
    assert_true(s.body.pose.x == 2.0);

    /* Beside the stairwell's edge only the left wheel drops. */
    sim_at(&s, &room, pose(1.2 + 0.05, 2.8, BW_PI / 2));
    bw_sim_set_wheels(&s, 0.2, 0.2);
    bw_sim_step_to(&s, 4.0);
    assert_false(s.body.drop_right);
    assert_true(s.body.drop_left);
    assert_near(s.body.pose.y, 3.2, 0.002);
}

static void test_battery(void **state)
{
    (void)state;
    bw_sim_t idle, moving, docked;
    sim_at(&idle, &room, pose(2, 2, 0));
    sim_at(&moving, &room, pose(2, 2, 0));
    bw_sim_set_twist(&moving, 0, 1.0); /* turning in place, away from walls */
    bw_sim_step_to(&idle, 10.0);
    bw_sim_step_to(&moving, 10.0);
    assert_near(idle.body.battery, 16.7 - 2e-5 * 10.0, 1e-9);
    /* 0.23 m/s of wheel speed in all, less the ramp. */
    assert_near(moving.body.battery, 16.7 - 2e-5 * 10.0 - 3e-4 * 0.23 * (10.0 - 0.0575),
                1e-6);
    assert_false(idle.body.docked);

    /* No dock in the world: none at its zeroed pose either. */
    bw_sim_t none;
    sim_at(&none, &open_world, pose(0, 0, 0));
    bw_sim_step_to(&none, 1.0);
    assert_false(none.body.docked);
    assert_true(none.body.battery < 16.7);

    /* The floor. */
    idle.body.battery = 13.0 + 1e-5;
    bw_sim_step_to(&idle, 20.0);
    assert_true(idle.body.battery == 13.0);

    /* Charging on the dock, up to full. */
    sim_at(&docked, &room, bw_dock_robot_pose(&room.docks[0], RADIUS));
    docked.body.battery = 15.0;
    bw_sim_step_to(&docked, 10.0);
    assert_true(docked.body.docked);
    assert_near(docked.body.battery, 15.0 + 2e-3 * 10.0, 1e-9);
    docked.body.battery = 16.7 - 0.001;
    bw_sim_step_to(&docked, 20.0);
    assert_true(docked.body.battery == 16.7);

    /* Driving onto the dock: docked once its contacts meet the dock's. */
    sim_at(&docked, &room, pose(4.0, 3.0, 0));
    docked.body.battery = 15.0;
    bw_sim_set_wheels(&docked, 0.3, 0.3);
    bw_sim_step_to(&docked, 6.0);
    assert_true(docked.body.blocked); /* at the dock's back */
    assert_true(docked.body.docked);
    assert_near(docked.body.pose.x, 4.9 + BW_DOCK_BACK - RADIUS, 0.003); /* 4 cm in */
    /* Leaving it stops the charge. */
    bw_sim_set_wheels(&docked, -0.3, -0.3);
    bw_sim_step_to(&docked, 8.0);
    assert_false(docked.body.docked);
    double b = docked.body.battery;
    bw_sim_step_to(&docked, 9.0);
    assert_true(docked.body.battery < b);
}

/* Docks: the contacts touch within BW_DOCK_REACH and BW_DOCK_ANGLE, on a
 * dock of the body's family or of any. */
static void test_docks(void **state)
{
    (void)state;
    bw_world_t w;
    char err[200];
    static const char text[] = "size 6 5\n"
                               "dock 5.9 1 180 kobuki\n"
                               "dock 5.9 2.5 180 create\n"
                               "dock 0.1 4 0\n";
    assert_int_equal(bw_world_parse(&w, text, strlen(text), err, sizeof err), 0);
    assert_int_equal(w.ndocks, 3);
    assert_string_equal(w.docks[0].family, "kobuki");
    assert_string_equal(w.docks[1].family, "create");
    assert_string_equal(w.docks[2].family, "");
    assert_true(bw_dock_serves(&w.docks[0], "kobuki") && !bw_dock_serves(&w.docks[0], "create"));
    assert_true(bw_dock_serves(&w.docks[2], "kobuki") && bw_dock_serves(&w.docks[2], "create"));
    assert_false(bw_dock_serves(&w.docks[1], ""));

    bw_body_params_t prm;
    bw_body_params_default(&prm); /* a Kobuki's dock family */
    bw_sim_t s;
    bw_pose_t on = bw_dock_robot_pose(&w.docks[0], prm.radius);
    assert_true(bw_pose_near(on, pose(5.9 - prm.radius, 1, 0), 1e-12, 1e-12));
    bw_sim_init(&s, &w, &prm, on, 0);
    assert_true(s.body.docked && s.body.dock == 0);
    assert_false(s.body.contact); /* on the contacts, the bumper free */
    /* at the edge of the reach, and past it */
    bw_sim_init(&s, &w, &prm, pose(on.x - BW_DOCK_REACH + 0.002, on.y, 0), 0);
    assert_true(s.body.docked);
    bw_sim_init(&s, &w, &prm, pose(on.x - BW_DOCK_REACH - 0.002, on.y, 0), 0);
    assert_false(s.body.docked);
    bw_sim_init(&s, &w, &prm, pose(on.x, on.y + BW_DOCK_REACH + 0.002, 0), 0);
    assert_false(s.body.docked);
    /* turned away: the front (and its contacts) elsewhere, or askew */
    bw_sim_init(&s, &w, &prm, pose(on.x, on.y, BW_PI), 0);
    assert_false(s.body.docked);
    double turn = BW_DOCK_ANGLE - 0.02, r = prm.radius;
    bw_sim_init(&s, &w, &prm, pose(5.9 - r * cos(turn), 1 - r * sin(turn), turn), 0);
    assert_true(s.body.docked);
    turn = BW_DOCK_ANGLE + 0.02;
    bw_sim_init(&s, &w, &prm, pose(5.9 - r * cos(turn), 1 - r * sin(turn), turn), 0);
    assert_false(s.body.docked);
    /* another family's dock: no charge; any family's: charged */
    bw_sim_init(&s, &w, &prm, bw_dock_robot_pose(&w.docks[1], prm.radius), 0);
    assert_false(s.body.docked);
    assert_int_equal(s.body.dock, -1);
    bw_sim_init(&s, &w, &prm, bw_dock_robot_pose(&w.docks[2], prm.radius), 0);
    assert_true(s.body.docked && s.body.dock == 2);
    memcpy(prm.dock_family, "create", sizeof "create");
    bw_sim_init(&s, &w, &prm, bw_dock_robot_pose(&w.docks[1], prm.radius), 0);
    assert_true(s.body.docked && s.body.dock == 1);
    /* a body of a family without a dock charges nowhere */
    memset(prm.dock_family, 0, sizeof prm.dock_family);
    bw_sim_init(&s, &w, &prm, bw_dock_robot_pose(&w.docks[2], prm.radius), 0);
    assert_false(s.body.docked);

    /* Driven on into the dock: stopped by its back, still on the contacts,
     * and the bumper not pressed (the back is beyond the contact margin of
     * a docked robot's front). */
    bw_body_params_default(&prm);
    bw_sim_init(&s, &w, &prm, pose(5.0, 1, 0), 0);
    bw_sim_set_wheels(&s, 0.2, 0.2);
    bw_sim_step_to(&s, 6.0);
    assert_true(s.body.blocked && s.body.docked);
    assert_near(s.body.pose.x, 5.9 + BW_DOCK_BACK - prm.radius, 0.003);
    assert_true(s.body.contact); /* pushed into the back, the bumper is */

    /* Too many docks, with the line of the first too many. */
    char many[64 * 40] = "size 20 20\n";
    for (int i = 0; i <= BW_WORLD_MAX_DOCKS; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "dock %d 10 90\n", i / 2 + 1);
    assert_int_equal(bw_world_parse(&w, many, strlen(many), err, sizeof err), BW_EINVAL);
    assert_string_equal(err, "line 34: too many docks (at most 32)");
}

static void run_noisy_dt(bw_sim_t *s, uint64_t seed, double slip, double enc, double dt)
{
    bw_body_params_t p;
    bw_body_params_default(&p);
    p.slip = slip;
    p.encoder_noise = enc;
    p.seed = seed;
    bw_sim_init(s, &open_world, &p, pose(0, 0, 0), 0);
    s->dt = dt;
    bw_sim_set_wheels(s, 0.2, 0.2);
    bw_sim_step_to(s, 5.1);
}

static void run_noisy(bw_sim_t *s, uint64_t seed, double slip, double enc)
{
    run_noisy_dt(s, seed, slip, enc, 0.005);
}

static void test_noise(void **state)
{
    (void)state;
    bw_sim_t a, b, c, quiet;
    run_noisy(&a, 7, 0.01, 0.004);
    run_noisy(&b, 7, 0.01, 0.004);
    run_noisy(&c, 8, 0.01, 0.004);
    run_noisy(&quiet, 7, 0, 0);

    same_body(&a.body, &b.body);
    assert_true(a.travelled == b.travelled);
    assert_true(a.body.pose.x != c.body.pose.x);
    assert_true(a.body.odo_left != c.body.odo_left);

    /* Slip bends the path and is invisible to the encoders. */
    assert_true(a.body.pose.y != 0 && a.body.pose.theta != 0);
    double odo = (a.body.odo_left + a.body.odo_right) / 2;
    double diff = fabs(odo - a.travelled);
    /* sigma of each wheel's slip after 1 m is 1 cm */
    assert_true(diff > 1e-6 && diff < 0.04);
    assert_near(a.travelled, 1.0, 0.04);
    assert_near(odo, 1.0, 0.04);

    /* Slip alone: the encoders count the wheels' turning, which slip does
     * not change; only the true path does. */
    run_noisy(&b, 7, 0.01, 0);
    assert_true(b.body.odo_left == quiet.body.odo_left);
    assert_true(b.body.odo_right == quiet.body.odo_right);
    assert_true(b.travelled != quiet.travelled && b.body.pose.y != 0);

    /* No noise: encoders and truth agree exactly. */
    assert_true((quiet.body.odo_left + quiet.body.odo_right) / 2 == quiet.travelled);
    assert_true(quiet.body.pose.y == 0);

    /* Encoder noise alone: the path stays straight, the encoders wander. */
    run_noisy(&a, 7, 0, 0.004);
    assert_true(a.body.pose.y == 0 && a.travelled == quiet.travelled);
    assert_true(a.body.odo_left != quiet.body.odo_left);
    assert_near(a.body.odo_left, quiet.body.odo_left, 0.02);
}

/* The size of the error after a run does not depend on the step size: the
 * standard deviation over many seeds agrees for dt = 5 ms and 1 ms, and with
 * k * sqrt(distance). */
static double slip_spread(double dt)
{
    double sum = 0, sum2 = 0;
    const int n = 60;
    for (int seed = 1; seed <= n; seed++) {
        bw_sim_t s;
        run_noisy_dt(&s, (uint64_t)seed, 0.01, 0, dt);
        double e = s.travelled - (s.body.odo_left + s.body.odo_right) / 2;
        sum += e;
        sum2 += e * e;
    }
    double mean = sum / n;
    return sqrt(sum2 / n - mean * mean);
}

static void test_noise_independent_of_step(void **state)
{
    (void)state;
    double coarse = slip_spread(0.005), fine = slip_spread(0.001);
    /* The mean of two wheels, each 0.01 * sqrt(1 m): 0.0071 m. */
    assert_true(coarse > 0.004 && coarse < 0.011);
    assert_true(fine > 0.004 && fine < 0.011);
    assert_true(coarse / fine > 0.6 && coarse / fine < 1.6);
}

/* The bad cable (bw_line_*): bit errors at the rate asked, spread over the
 * eight bits of a byte, lost and spurious bytes at theirs; what it counts is
 * what it did. A rate off by a bit's gap (1/(1/p + 1) for p) is 5 % low at
 * p = 0.05, well outside these bounds. */
static void test_line_rates(void **state)
{
    (void)state;
    enum { N = 200000 };
    static uint8_t in[N], out[N + N / 2];
    memset(in, 0, sizeof in);
    bw_line_t l;
    assert_int_equal(bw_line_init(&l, 0.05, 0, 0, 11), 0);
    assert_int_equal(bw_line_pass(&l, in, N, out, sizeof out), N);
    unsigned long ones = 0, at[8] = { 0 };
    for (size_t i = 0; i < N; i++)
        for (unsigned b = 0; b < 8; b++)
            if (out[i] >> b & 1u) {
                ones++;
                at[b]++;
            }
    assert_int_equal(ones, l.flipped);
    double expect = 0.05 * 8 * N; /* 80000, a standard deviation of 280 */
    assert_true(fabs((double)ones - expect) < 0.015 * expect);
    for (unsigned b = 0; b < 8; b++)
        assert_true(fabs((double)at[b] - expect / 8) < 0.04 * expect / 8);

    assert_int_equal(bw_line_init(&l, 0, 0.1, 0, 12), 0);
    size_t k = bw_line_pass(&l, in, N, out, sizeof out);
    assert_int_equal(k + l.dropped, N);
    assert_true(fabs((double)l.dropped - 0.1 * N) < 0.03 * 0.1 * N);

    assert_int_equal(bw_line_init(&l, 0, 0, 0.1, 13), 0);
    k = bw_line_pass(&l, in, N, out, sizeof out);
    assert_int_equal(k, N + l.inserted);
    assert_true(fabs((double)l.inserted - 0.1 * N) < 0.03 * 0.1 * N);

    /* A clean line is the identity; rates out of range are refused. */
    for (size_t i = 0; i < 256; i++)
        in[i] = (uint8_t)i;
    assert_int_equal(bw_line_init(&l, 0, 0, 0, 14), 0);
    assert_int_equal(bw_line_pass(&l, in, 256, out, sizeof out), 256);
    assert_memory_equal(in, out, 256);
    assert_int_equal(bw_line_init(&l, 0.2, 0, 0, 1), BW_EINVAL);
    assert_int_equal(bw_line_init(&l, -1e-3, 0, 0, 1), BW_EINVAL);
    assert_int_equal(bw_line_init(&l, 0, 0.6, 0, 1), BW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_angle_norm),
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_pose_near),
        cmocka_unit_test(test_default_room),
        cmocka_unit_test(test_empty_world),
        cmocka_unit_test(test_docks),
        cmocka_unit_test(test_builders),
        cmocka_unit_test(test_builders_full),
        cmocka_unit_test(test_parse_full),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_params_and_init),
        cmocka_unit_test(test_commands),
        cmocka_unit_test(test_straight),
        cmocka_unit_test(test_rotate_in_place),
        cmocka_unit_test(test_arc),
        cmocka_unit_test(test_accel_limit),
        cmocka_unit_test(test_step_timing),
        cmocka_unit_test(test_collision_ahead),
        cmocka_unit_test(test_contact_side),
        cmocka_unit_test(test_cliff_then_drop),
        cmocka_unit_test(test_battery),
        cmocka_unit_test(test_noise),
        cmocka_unit_test(test_noise_independent_of_step),
        cmocka_unit_test(test_line_rates),
    };
    return cmocka_run_group_tests_name("sim", tests, setup_worlds, NULL);
}
