/* The GRL control layer over the base API (behave.h). */
#include <math.h>
#include <string.h>

#include "botwire/behave.h"

#define FOOTPRINT_MARGIN 0.1 /* m each side of the footprint sonar-safe keeps clear */

/* ---- data types ---------------------------------------------------------------- */

bw_pose_t bw_pose_xy(bw_vec2_t position, double orientation)
{
    return (bw_pose_t){ position.x, position.y, orientation };
}

bw_pose_t bw_pose_make(double x, double y, double orientation)
{
    return (bw_pose_t){ x, y, orientation };
}

bw_vec2_t bw_pose_position(bw_pose_t p) { return (bw_vec2_t){ p.x, p.y }; }

bw_vec2_t bw_egocentric_to_global(bw_pose_t robot, bw_vec2_t v) { return bw_pose_to_global(robot, v); }
bw_vec2_t bw_global_to_egocentric(bw_pose_t robot, bw_vec2_t v) { return bw_pose_to_local(robot, v); }

bw_pose_t bw_egocentric_to_global_pose(bw_pose_t robot, bw_pose_t p)
{
    return bw_pose_compose(robot, p);
}

bw_pose_t bw_global_to_egocentric_pose(bw_pose_t robot, bw_pose_t p)
{
    return bw_pose_relative(robot, p);
}

bw_pose_tol_t bw_pose_tolerance(double angular, double distance)
{
    return (bw_pose_tol_t){ angular, distance };
}

bool bw_pose_equal(bw_pose_t a, bw_pose_t b, bw_pose_tol_t tol)
{
    if (!isnan(tol.distance) && hypot(a.x - b.x, a.y - b.y) > tol.distance)
        return false;
    if (!isnan(tol.angular) && fabs(bw_angle_diff(a.theta, b.theta)) > tol.angular)
        return false;
    return true;
}

bw_pose_t bw_latch_pose(bw_latch_pose_t *l, bw_pose_t pose, bool condition)
{
    if (condition) {
        l->held = pose;
        l->ever = true;
    }
    return l->ever ? l->held : pose;
}

bool bw_true_nearby(bw_true_nearby_t *n, bool condition, bw_pose_t pose, bw_pose_tol_t tol)
{
    bw_pose_t then = bw_latch_pose(&n->at, pose, condition);
    return n->at.ever && bw_pose_equal(then, pose, tol);
}

/* ---- motor vectors -------------------------------------------------------------- */

bw_motor_defaults_t bw_motor_defaults(void)
{
    return (bw_motor_defaults_t){ { 0.5, 1.5 }, { 1.0, 1.0 } };
}

bw_motor_vector_t bw_motor_vector(bw_rt_t velocity, const bw_rt_t *acceleration,
                                  const bw_rt_t *torque, const bw_motor_defaults_t *d)
{
    bw_motor_defaults_t def = d ? *d : bw_motor_defaults();
    return (bw_motor_vector_t){ velocity, acceleration ? *acceleration : def.acceleration,
                                torque ? *torque : def.torque };
}

bw_motor_vector_t bw_limp_motor_vector(void)
{
    return (bw_motor_vector_t){ { 0, 0 }, { 0, 0 }, { 0, 0 } };
}

/* ---- the base ------------------------------------------------------------------- */

void bw_grl_init(bw_grl_t *g, bw_base_t *base)
{
    memset(g, 0, sizeof *g);
    g->base = base;
    g->st = bw_base_state(base);
    g->defaults = bw_motor_defaults();
    g->winner = -1;
}

bw_rt_t bw_grl_measured_velocity(const bw_grl_t *g)
{
    if (bw_base_caps(g->base) & BW_CAP_MOTOR_REPORT)
        return bw_rt(g->st->trans.velocity, g->st->rot.velocity);
    return bw_rt(g->st->v, g->st->w);
}

bw_rt_t bw_grl_measured_acceleration(const bw_grl_t *g)
{
    if (bw_base_caps(g->base) & BW_CAP_MOTOR_REPORT)
        return bw_rt(g->st->trans.acceleration, g->st->rot.acceleration);
    return bw_rt(NAN, NAN); /* not reported: not known */
}

bw_rt_t bw_grl_measured_torque(const bw_grl_t *g)
{
    if (bw_base_caps(g->base) & BW_CAP_MOTOR_REPORT)
        return bw_rt(g->st->trans.torque, g->st->rot.torque);
    return bw_rt(NAN, NAN);
}

bw_motor_vector_t bw_passive_braking(const bw_grl_t *g, bw_rt_t target)
{
    double v = bw_grl_measured_velocity(g).t;
    /* Slowing down: toward zero from the same side, or to rest. */
    bool slowing = fabs(target.t) < fabs(v) && (target.t == 0 || (target.t > 0) == (v > 0));
    bw_rt_t torque = { slowing ? 0 : g->defaults.torque.t, g->defaults.torque.r };
    return bw_motor_vector(target, &g->defaults.acceleration, &torque, &g->defaults);
}

bw_beh_out_t bw_beh_inactive(void)
{
    bw_beh_out_t o;
    memset(&o, 0, sizeof o);
    return o;
}

bw_beh_out_t bw_beh_rt(bw_rt_t v)
{
    bw_beh_out_t o = bw_beh_inactive();
    o.kind = BW_BEH_RT;
    o.rt = v;
    return o;
}

bw_beh_out_t bw_beh_motor(bw_motor_vector_t mv)
{
    bw_beh_out_t o = { BW_BEH_MOTOR, mv.velocity, mv };
    return o;
}

bw_beh_out_t bw_behavior_run(const bw_behavior_t *b, const bw_grl_t *g)
{
    return b && b->fn ? b->fn(b, g) : bw_beh_inactive();
}

/* The velocity of an answer, whichever kind it is. */
static bw_rt_t *velocity_of(bw_beh_out_t *o)
{
    return o->kind == BW_BEH_MOTOR ? &o->mv.velocity : &o->rt;
}

static bw_beh_out_t composed_rotation(const bw_behavior_t *self, const bw_grl_t *g)
{
    bw_beh_out_t o = bw_behavior_run(self->inner, g);
    if (o.kind != BW_BEH_INACTIVE) {
        bw_rt_t *v = velocity_of(&o);
        v->r = self->f(v->r, self->ctx);
        o.rt = *v;
    }
    return o;
}

static bw_beh_out_t composed_translation(const bw_behavior_t *self, const bw_grl_t *g)
{
    bw_beh_out_t o = bw_behavior_run(self->inner, g);
    if (o.kind != BW_BEH_INACTIVE) {
        bw_rt_t *v = velocity_of(&o);
        v->t = self->f(v->t, self->ctx);
        o.rt = *v;
    }
    return o;
}

bw_behavior_t bw_compose_rotation(double (*f)(double, void *), void *ctx, const bw_behavior_t *b)
{
    return (bw_behavior_t){ composed_rotation, ctx, b, f, 0 };
}

bw_behavior_t bw_compose_translation(double (*f)(double, void *), void *ctx,
                                     const bw_behavior_t *b)
{
    return (bw_behavior_t){ composed_translation, ctx, b, f, 0 };
}

/* ---- calibrated pings ----------------------------------------------------------- */

/* One ping, with the sine and cosine of the pose it is seen from given
 * (the same numbers bw_pose_to_local computes), its placement taken from
 * `place` when that holds this very reading (else computed, and kept
 * there). */
static void ping(const bw_base_state_t *st, unsigned i, double c, double s, bw_ping_place_t *place,
                 bw_ping_t *p)
{
    const bw_range_t *r = &st->ranges[i];
    p->range = r->range;
    p->orientation = r->mount.theta;
    p->valid = r->t > 0 && r->range > 0 && r->range < r->max_range;
    double key[8] = { r->t, r->range, r->at.x, r->at.y, r->at.theta, r->mount.x, r->mount.y,
                      r->mount.theta };
    if (place && memcmp(place->key, key, sizeof key) == 0) {
        p->global_orientation = place->theta;
        p->global_position = (bw_vec2_t){ place->x, place->y };
    } else {
        /* The transducer's pose at the ping, then the surface along it. */
        bw_pose_t sensor = bw_pose_compose(r->at, r->mount);
        p->global_orientation = sensor.theta;
        p->global_position = (bw_vec2_t){ sensor.x + r->range * cos(sensor.theta),
                                          sensor.y + r->range * sin(sensor.theta) };
        if (place) {
            memcpy(place->key, key, sizeof key);
            place->theta = p->global_orientation;
            place->x = p->global_position.x;
            place->y = p->global_position.y;
        }
    }
    double dx = p->global_position.x - st->pose.x, dy = p->global_position.y - st->pose.y;
    p->egocentric = (bw_vec2_t){ c * dx + s * dy, -s * dx + c * dy };
}

unsigned bw_grl_pings(const bw_base_state_t *st, bw_ping_t *out, unsigned cap)
{
    unsigned n = st->nranges < cap ? st->nranges : cap;
    double c = cos(st->pose.theta), s = sin(st->pose.theta);
    for (unsigned i = 0; i < n; i++)
        ping(st, i, c, s, NULL, &out[i]);
    return n;
}

unsigned bw_grl_pings_of(const bw_grl_t *g, bw_ping_t *out, unsigned cap)
{
    const bw_base_state_t *st = g->st;
    unsigned n = st->nranges < cap ? st->nranges : cap;
    if (n > BW_BASE_MAX_RANGES)
        n = BW_BASE_MAX_RANGES;
    double c = cos(st->pose.theta), s = sin(st->pose.theta);
    for (unsigned i = 0; i < n; i++)
        ping(st, i, c, s, g->places ? &g->places[i] : NULL, &out[i]);
    return n;
}

void bw_grl_pings_at(const bw_base_state_t *st, unsigned i, bw_ping_t *out)
{
    ping(st, i, cos(st->pose.theta), sin(st->pose.theta), NULL, out);
}

void bw_grl_ping_of(const bw_grl_t *g, unsigned i, bw_ping_t *out)
{
    const bw_base_state_t *st = g->st;
    ping(st, i, cos(st->pose.theta), sin(st->pose.theta),
         g->places && i < BW_BASE_MAX_RANGES ? &g->places[i] : NULL, out);
}

/* The footprint's radius: the farthest sensor from the centre (they sit on
 * the body's edge). */
static double footprint(const bw_base_state_t *st)
{
    double r = 0;
    for (unsigned i = 0; i < st->nranges; i++)
        r = fmax(r, hypot(st->ranges[i].mount.x, st->ranges[i].mount.y));
    return r;
}

const bw_ping_view_t *bw_grl_view(const bw_grl_t *g)
{
    bw_ping_view_t *v = g->view;
    if (!v || !g->base || g->st != bw_base_state(g->base))
        return NULL;
    uint64_t changes = bw_base_changes(g->base);
    if (v->ok && v->changes == changes)
        return v;
    bw_ping_t p[BW_BASE_MAX_RANGES];
    unsigned n = bw_grl_pings_of(g, p, BW_BASE_MAX_RANGES);
    v->n = 0;
    for (unsigned i = 0; i < n; i++)
        if (p[i].valid)
            v->egocentric[v->n++] = p[i].egocentric;
    v->footprint = footprint(g->st);
    v->changes = changes;
    v->ok = true;
    return v;
}

static bw_beh_out_t sonar_safe_run(const bw_behavior_t *self, const bw_grl_t *g)
{
    bw_beh_out_t o = bw_behavior_run(self->inner, g);
    const bw_base_state_t *st = g->st;
    if (o.kind == BW_BEH_INACTIVE || st->nranges == 0)
        return o;
    bw_rt_t *v = velocity_of(&o);
    if (v->t == 0)
        return o;
    bw_ping_t pings[BW_BASE_MAX_RANGES];
    const bw_vec2_t *ego;
    unsigned n;
    double radius;
    const bw_ping_view_t *view = bw_grl_view(g);
    if (view) {
        ego = view->egocentric;
        n = view->n;
        radius = view->footprint;
    } else {
        unsigned all = bw_grl_pings_of(g, pings, BW_BASE_MAX_RANGES);
        n = 0;
        for (unsigned i = 0; i < all; i++)
            if (pings[i].valid)
                pings[n++].egocentric = pings[i].egocentric;
        ego = NULL;
        radius = footprint(st);
    }
    double half = radius + FOOTPRINT_MARGIN;
    for (unsigned i = 0; i < n; i++) {
        bw_vec2_t e = ego ? ego[i] : pings[i].egocentric;
        double ahead = v->t > 0 ? e.x : -e.x; /* along the way it would go */
        if (fabs(e.y) < half && ahead > 0 && ahead - radius < self->arg) {
            v->t = 0; /* refuse that way; turning is still allowed */
            if (o.kind == BW_BEH_MOTOR)
                o.mv.torque.t = g->defaults.torque.t; /* hold, don't coast into it */
            break;
        }
    }
    o.rt = *v;
    return o;
}

bw_behavior_t bw_sonar_safe(const bw_behavior_t *b, double stop)
{
    return (bw_behavior_t){ sonar_safe_run, NULL, b, NULL, stop };
}

/* ---- drive-base ----------------------------------------------------------------- */

int bw_drive_base_motor(bw_grl_t *g, bw_motor_vector_t mv)
{
    g->sent = mv;
    if (bw_base_caps(g->base) & BW_CAP_MOTOR_VECTOR) {
        bw_axis_t t = { mv.velocity.t, mv.acceleration.t, mv.torque.t };
        bw_axis_t r = { mv.velocity.r, mv.acceleration.r, mv.torque.r };
        return bw_base_motor(g->base, &t, &r, g->now);
    }
    /* The velocity is what this base takes; acceleration and torque other
     * than the defaults are counted, not faked. A torque of 0 (limp) is a
     * stop here: there is no way to let it coast. */
    bool limp = mv.torque.t == 0 && mv.torque.r == 0;
    if (!limp && (mv.acceleration.t != g->defaults.acceleration.t ||
                  mv.acceleration.r != g->defaults.acceleration.r ||
                  mv.torque.t != g->defaults.torque.t || mv.torque.r != g->defaults.torque.r))
        g->ignored_parts++;
    return bw_base_drive(g->base, limp ? 0 : mv.velocity.t, limp ? 0 : mv.velocity.r, g->now);
}

int bw_drive_base_rt(bw_grl_t *g, bw_rt_t v)
{
    if (bw_base_caps(g->base) & BW_CAP_MOTOR_VECTOR)
        return bw_drive_base_motor(g, bw_motor_vector(v, NULL, NULL, &g->defaults));
    g->sent = bw_motor_vector(v, NULL, NULL, &g->defaults);
    return bw_base_drive(g->base, v.t, v.r, g->now);
}

int bw_drive_base(bw_grl_t *g, const bw_behavior_t *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        bw_beh_out_t o = bw_behavior_run(list[i], g);
        if (o.kind == BW_BEH_INACTIVE)
            continue;
        g->winner = (int)i;
        if (o.kind == BW_BEH_MOTOR)
            bw_drive_base_motor(g, o.mv);
        else
            bw_drive_base_rt(g, o.rt);
        return (int)i;
    }
    g->winner = -1;
    bw_drive_base_motor(g, bw_limp_motor_vector());
    return -1;
}

int bw_sonar_polling_rate(bw_grl_t *g, double echo, double ping, double set)
{
    return bw_base_sonar_timing(g->base, echo, ping, set, g->now);
}
