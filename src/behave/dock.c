/* Docking a base by what its dock's infrared tells (behave.h): the
 * regions a Kobuki dock's emitters light, heard by the robot's three
 * receivers, and the charger's state; or a base that docks itself (a
 * Create), told to and watched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "botwire/behave.h"

#define SEARCH_W 0.6     /* rad/s turning in place, looking for the dock */
#define TURN_W 0.5       /* rad/s turning to a heading */
#define CROSS_V 0.12     /* m/s across the dock's axis, to its central region */
#define ACROSS_TURN (BW_PI / 4) /* rad from facing the dock, to go across */
#define FAR_V 0.10       /* m/s up the axis, far */
#define NEAR_V 0.05      /* m/s near, the last 0.8 m */
#define STEER_W 0.25     /* rad/s back to the axis or to the dock ahead */
#define LOST_S 2.0       /* s without a signal before the search starts again */
#define BACK_S 1.0       /* s backing off a bump */
#define BACK_V 0.08
#define MAX_BUMPS 3
#define HEADING_TOL 0.05 /* rad */

enum { LEFT = BW_DOCK_NEAR_LEFT | BW_DOCK_FAR_LEFT, CENTRAL = BW_DOCK_NEAR_CENTER | BW_DOCK_FAR_CENTER,
       RIGHT = BW_DOCK_NEAR_RIGHT | BW_DOCK_FAR_RIGHT,
       NEAR = BW_DOCK_NEAR_LEFT | BW_DOCK_NEAR_CENTER | BW_DOCK_NEAR_RIGHT };

#define SAY(d, ...) snprintf((d)->why, sizeof (d)->why, __VA_ARGS__)

void bw_docking_init(bw_docking_t *d, bw_grl_t *g, double time_limit)
{
    memset(d, 0, sizeof *d);
    d->g = g;
    d->time_limit = time_limit;
    d->started = g->now;
    d->state = (bw_base_caps(g->base) & (BW_CAP_DOCK_IR | BW_CAP_SEEK_DOCK)) == BW_CAP_SEEK_DOCK
                   ? BW_DOCKING_SEEK
                   : BW_DOCKING_SEARCH;
    d->last_theta = g->st->pose.theta;
    d->heard_at = -INFINITY;
    d->offline_since = -INFINITY;
}

void bw_docking_init_undock(bw_docking_t *d, bw_grl_t *g, double time_limit)
{
    bw_docking_init(d, g, time_limit);
    d->state = BW_DOCKING_OFF;
    d->from = g->st->pose;
    d->toward = bw_angle_norm(d->from.theta + BW_PI);
    if (!bw_docking_charging(g->st)) {
        SAY(d, "not on a dock (its charger says it is not)");
        d->state = BW_DOCKING_FAILED;
    }
}

bool bw_docking_charging(const bw_base_state_t *st)
{
    return (st->charge_sources & BW_SOURCE_DOCK) != 0 ||
           ((st->charging == BW_CHARGE_CHARGING || st->charging == BW_CHARGE_CHARGED) &&
            !(st->charge_sources & BW_SOURCE_INTERNAL));
}

static void go(bw_docking_t *d, int state)
{
    d->state = state;
    d->facing = 0;
    d->since = d->g->now;
    d->turned = 0;
}

/* A heading reached, turning the short way: the twist to it, 0 there. */
static double turn_to(const bw_docking_t *d, double heading)
{
    double e = bw_angle_diff(heading, d->g->st->pose.theta);
    if (fabs(e) < HEADING_TOL)
        return 0;
    return e > 0 ? fmin(TURN_W, 2 * e + 0.05) : fmax(-TURN_W, 2 * e - 0.05);
}

/* A base seeking its dock itself: told once, then watched, never driven. */
static int seek_tick(bw_docking_t *d)
{
    bw_grl_t *g = d->g;
    const bw_base_state_t *st = g->st;
    double now = g->now, took = now - d->started;
    if (bw_docking_charging(st)) {
        SAY(d, "docked and charging after %.1f s", took);
        go(d, BW_DOCKING_DONE);
        return bw_docking_tick(d);
    }
    if (!d->asked) {
        int rc = bw_base_seek_dock(g->base, now);
        if (rc < 0) {
            SAY(d, "the base could not be told to seek its dock (%s)", bw_strerror(rc));
            go(d, BW_DOCKING_FAILED);
            return bw_docking_tick(d);
        }
        d->asked = true;
        d->asks++;
    }
    if (st->buoys[0] | st->buoys[1] | st->buoys[2])
        d->heard_at = now;
    double unheard = fmin(BW_DOCKING_UNHEARD, d->time_limit);
    if (d->heard_at == -INFINITY && took >= unheard) {
        SAY(d, "cannot see the dock: no buoy of it heard in %.0f s", took);
    } else if (st->wheel_drops) {
        SAY(d, "lifted: a wheel dropped (the robot stopped its seeking)");
    } else if (took > d->time_limit) {
        SAY(d, "not docked in %.0f s", took);
    } else {
        return 0;
    }
    go(d, BW_DOCKING_FAILED); /* its tick takes the robot back, stopped */
    return bw_docking_tick(d);
}

int bw_docking_tick(bw_docking_t *d)
{
    bw_grl_t *g = d->g;
    const bw_base_state_t *st = g->st;
    double now = g->now, v = 0, w = 0;
    if (d->state == BW_DOCKING_DONE || d->state == BW_DOCKING_FAILED) {
        bw_drive_base_rt(g, bw_rt(0, 0));
        return d->state == BW_DOCKING_DONE ? 1 : -1;
    }
    if (!st->online) { /* nothing driven; a while, then failed */
        if (d->offline_since == -INFINITY)
            d->offline_since = now;
        if (now - d->offline_since <= BW_DOCKING_OFFLINE)
            return 0;
        SAY(d, "the link was lost (nothing heard of the robot for %.0f s)", now - d->offline_since);
        go(d, BW_DOCKING_FAILED);
        return bw_docking_tick(d);
    }
    if (d->offline_since != -INFINITY) {
        d->offline_since = -INFINITY;
        if (d->state == BW_DOCKING_SEEK && !st->self_driving)
            d->asked = false; /* its seeking ended with the link: again */
    }
    if (d->state == BW_DOCKING_SEEK)
        return seek_tick(d);
    if (!(bw_base_caps(g->base) & (BW_CAP_DOCK_IR | BW_CAP_SEEK_DOCK))) {
        SAY(d, "this base reports no dock infrared");
        go(d, BW_DOCKING_FAILED);
        return bw_docking_tick(d);
    }
    if (d->state == BW_DOCKING_OFF || d->state == BW_DOCKING_ROUND) {
        double off = hypot(st->pose.x - d->from.x, st->pose.y - d->from.y);
        if (now - d->started > d->time_limit) {
            SAY(d, "not off the dock and turned round in %.0f s", now - d->started);
            go(d, BW_DOCKING_FAILED);
            return bw_docking_tick(d);
        }
        if (d->state == BW_DOCKING_OFF && off >= BW_UNDOCK_BACK)
            go(d, BW_DOCKING_ROUND);
        if (d->state == BW_DOCKING_OFF) {
            v = -BACK_V;
        } else if ((w = turn_to(d, d->toward)) == 0) {
            SAY(d, "%.2f m off the dock, turned round, in %.1f s", off, now - d->started);
            go(d, BW_DOCKING_DONE);
            return bw_docking_tick(d);
        }
        bw_drive_base_rt(g, bw_rt(v, w));
        return 0;
    }
    if (bw_docking_charging(st)) {
        SAY(d, "docked and charging after %.1f s", now - d->started);
        go(d, BW_DOCKING_DONE);
        return bw_docking_tick(d);
    }
    if (now - d->started > d->time_limit) {
        if (d->heard_at == -INFINITY)
            SAY(d, "cannot see the dock: no infrared from it in %.0f s", now - d->started);
        else
            SAY(d, "not docked in %.0f s", now - d->started);
        go(d, BW_DOCKING_FAILED);
        return bw_docking_tick(d);
    }
    d->turned += fabs(bw_angle_diff(st->pose.theta, d->last_theta));
    d->last_theta = st->pose.theta;
    uint32_t right = st->dock_ir[0], mid = st->dock_ir[1], left = st->dock_ir[2];
    uint32_t all = right | mid | left;
    if (all)
        d->heard_at = now;
    /* A bump (the dock's back is no bump: charging came first): back off
     * and look again. */
    if (st->bumpers && d->state != BW_DOCKING_BACK) {
        if (++d->bumps > MAX_BUMPS) {
            SAY(d, "bumped into something %d times on the way", MAX_BUMPS + 1);
            go(d, BW_DOCKING_FAILED);
            return bw_docking_tick(d);
        }
        go(d, BW_DOCKING_BACK);
    }
    switch (d->state) {
    case BW_DOCKING_BACK:
        v = -BACK_V;
        if (now - d->since >= BACK_S)
            go(d, BW_DOCKING_SEARCH);
        break;
    case BW_DOCKING_SEARCH:
        /* Round in place until a receiver hears the dock. */
        if (all) {
            go(d, BW_DOCKING_FACE);
            break;
        }
        if (d->turned > 2 * BW_PI + 0.3) {
            if (d->heard_at == -INFINITY) {
                SAY(d, "cannot see the dock: no infrared from it in a full turn");
                go(d, BW_DOCKING_FAILED);
                return bw_docking_tick(d);
            }
            d->turned = 0;
        }
        w = SEARCH_W;
        break;
    case BW_DOCKING_FACE:
        /* Round toward the side that hears the dock until it is dead
         * ahead: the central receiver alone, or the side ones changing
         * over. Then, from the region: up the axis, or across it. */
        if (!all) {
            if (now - d->heard_at > LOST_S)
                go(d, BW_DOCKING_SEARCH);
            break;
        }
        int heard_on = left && !right ? 1 : right && !left ? -1 : 0;
        if (mid && (heard_on == 0 || heard_on == -d->facing)) { /* ahead */
            if (mid & CENTRAL) {
                go(d, BW_DOCKING_UP);
            } else {
                /* In the dock's left region the axis is to the robot's
                 * left as it faces the dock (the dock's left is its
                 * right): turned that way by ACROSS_TURN, then straight
                 * on, across the axis and nearer the dock (square to the
                 * line of sight, a robot far off the axis would go out of
                 * the beams' reach first). */
                d->side = (mid & LEFT) ? 1 : -1;
                d->toward = bw_angle_norm(st->pose.theta + d->side * ACROSS_TURN);
                go(d, BW_DOCKING_ACROSS);
            }
            d->facing = 0;
            break;
        }
        if (heard_on)
            d->facing = heard_on;
        w = d->facing * (mid ? TURN_W / 3 : TURN_W);
        if (d->turned > 2 * BW_PI)
            go(d, BW_DOCKING_SEARCH);
        break;
    case BW_DOCKING_ACROSS:
        /* Straight on, across, until the central region; then face the
         * dock again. */
        w = turn_to(d, d->toward);
        if (w == 0) {
            v = CROSS_V;
            if (all & CENTRAL)
                go(d, BW_DOCKING_FACE);
            else if (!all && now - d->heard_at > LOST_S)
                go(d, BW_DOCKING_SEARCH);
        }
        break;
    case BW_DOCKING_UP: {
        /* Up the axis: straight on in the central region, back toward it
         * when drifted into a side one (the dock's left region is the
         * robot's right: turn left), the dock kept ahead. */
        if (!all) {
            if (now - d->heard_at > LOST_S)
                go(d, BW_DOCKING_SEARCH);
            break;
        }
        bool near = (all & NEAR) != 0;
        v = near ? NEAR_V : FAR_V;
        if (!mid)
            w = (left ? 1 : -1) * STEER_W, v = 0; /* the dock to a side: face it */
        else if (!(mid & CENTRAL) && (mid & LEFT))
            w = STEER_W * (near ? 0.6 : 1);
        else if (!(mid & CENTRAL) && (mid & RIGHT))
            w = -STEER_W * (near ? 0.6 : 1);
        else if (left && !right)
            w = STEER_W / 3;
        else if (right && !left)
            w = -STEER_W / 3;
        break;
    }
    default: break;
    }
    bw_drive_base_rt(g, bw_rt(v, w));
    return 0;
}

const char *bw_docking_state_name(int state)
{
    static const char *const names[] = { "search",  "across", "face",        "up the axis",
                                         "backing off", "done", "failed", "off the dock",
                                         "turning round", "seeking" };
    return state >= 0 && state < (int)(sizeof names / sizeof names[0]) ? names[state] : "?";
}

struct bw_docking_run {
    bw_grl_t g;
    bw_docking_t d;
};

bw_docking_run_t *bw_docking_run_new(bw_base_t *base, double time_limit, bool undock, double now)
{
    bw_docking_run_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    bw_grl_init(&r->g, base);
    r->g.now = now;
    if (undock)
        bw_docking_init_undock(&r->d, &r->g, time_limit);
    else
        bw_docking_init(&r->d, &r->g, time_limit);
    return r;
}

int bw_docking_run_tick(bw_docking_run_t *r, double now)
{
    r->g.now = now;
    return bw_docking_tick(&r->d);
}

const char *bw_docking_run_state(const bw_docking_run_t *r) { return bw_docking_state_name(r->d.state); }

const char *bw_docking_run_why(const bw_docking_run_t *r) { return r->d.why; }

void bw_docking_run_free(bw_docking_run_t *r) { free(r); }
