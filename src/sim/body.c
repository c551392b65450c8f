/* A differential-drive body moving in the world, and its sensors. */
#include <math.h>
#include <string.h>

#include "botwire/sim.h"
#include "rng.h"

#define CONTACT_MARGIN 0.002 /* m beyond the radius that still counts as touching */
/* Steps are counted in units of dt; this much short of a whole step still
 * counts as one, so times computed as k*dt never lose a step to rounding. */
#define STEP_EPS 1e-9

void bw_body_params_default(bw_body_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->wheelbase = 0.230;
    p->radius = 0.177;
    p->max_wheel_speed = 0.7;
    p->max_accel = 1.0;
    p->ncliff = 3;
    p->cliff[0] = (bw_vec2_t){ 0.12, 0.10 };
    p->cliff[1] = (bw_vec2_t){ 0.15, 0.0 };
    p->cliff[2] = (bw_vec2_t){ 0.12, -0.10 };
    p->slip = 0;
    p->encoder_noise = 0;
    p->seed = 1;
    p->battery_full = 16.7;
    p->battery_empty = 13.0;
    p->drain_idle = 2e-5;
    p->drain_motion = 3e-4;
    p->charge_rate = 2e-3;
    memcpy(p->dock_family, "kobuki", sizeof "kobuki");
}

static const bw_world_t *world_of(const bw_sim_t *s)
{
    static const bw_world_t empty; /* read-only, so sharing it is safe */
    return s->world ? s->world : &empty;
}

/* What the body's motion and contact see: the walls, and the other robots
 * of its fleet near enough to matter. Every use of a clearance compares it
 * with the radius (blocking) or the radius and the contact margin
 * (contact), so robots farther than that plus a margin are as good as
 * absent; the smaller the horizon, the fewer grid cells a query visits. */
#define FLEET_HORIZON_MARGIN 0.02

static double clearance(const bw_sim_t *s, bw_vec2_t p, bw_vec2_t *closest)
{
    double c = bw_world_clearance(world_of(s), p, closest);
    if (s->fleet) {
        bw_vec2_t near;
        double horizon = s->body.prm.radius + CONTACT_MARGIN + FLEET_HORIZON_MARGIN;
        double o = bw_fleet_clearance(s->fleet, s, p, horizon, closest ? &near : NULL);
        if (o < c) {
            c = o;
            if (closest)
                *closest = near;
        }
    }
    return c;
}

/* Stepping only what changed: the walls do not move, and the others as the
 * queries see them move only when the fleet's version does (a frozen fleet:
 * at its sync). A query's answer c at p proves nothing within min(c,
 * horizon) of p (beyond the fleet's horizon a query reports no robot, not
 * their distance); at q, nothing within that less |q - p|. While that is
 * beyond the radius and the contact margin the body is neither blocked nor
 * touching, whatever the exact clearance, so the step needs no query. */
static uint64_t fleet_gen(const bw_sim_t *s) { return s->fleet ? s->fleet->gen : 0; }

static void remember_free(bw_sim_t *s, bw_vec2_t p, double c)
{
    double horizon = s->body.prm.radius + CONTACT_MARGIN + FLEET_HORIZON_MARGIN;
    s->free_ok = true;
    s->free_at = p;
    s->free = s->fleet ? fmin(c, horizon) : c;
    s->free_fleet = s->fleet;
    s->free_gen = fleet_gen(s);
}

/* A lower bound of the clearance at p from the last query (-1: none). */
static double free_since(const bw_sim_t *s, bw_vec2_t p)
{
    if (!s->free_ok || s->free_fleet != s->fleet || s->free_gen != fleet_gen(s))
        return -1;
    double dx = p.x - s->free_at.x, dy = p.y - s->free_at.y;
    return s->free - sqrt(dx * dx + dy * dy) - 1e-9;
}

static double gaussian(uint64_t *st, double sd)
{
    double u1 = bw_rng_uniform(st), u2 = bw_rng_uniform(st);
    return sd * sqrt(-2.0 * log(u1)) * cos(2.0 * BW_PI * u2);
}

/* Everything the sensors report for the current pose, its clearance and
 * the nearest point given (from clearance()). */
/* The dock whose contacts the body's touch (sim.h: its front within
 * BW_DOCK_REACH of the face's middle, facing it within BW_DOCK_ANGLE), of
 * a family it charges on; -1 none. */
static int dock_under(const bw_world_t *w, const bw_body_t *b)
{
    if (w->ndocks == 0 || !b->prm.dock_family[0])
        return -1;
    double c = cos(b->pose.theta), s = sin(b->pose.theta);
    bw_vec2_t front = { b->pose.x + b->prm.radius * c, b->pose.y + b->prm.radius * s };
    for (size_t i = 0; i < w->ndocks; i++) {
        const bw_dock_t *d = &w->docks[i];
        if (fabs(front.x - d->pose.x) > BW_DOCK_REACH || fabs(front.y - d->pose.y) > BW_DOCK_REACH)
            continue;
        if (bw_vec2_dist(front, (bw_vec2_t){ d->pose.x, d->pose.y }) <= BW_DOCK_REACH &&
            fabs(bw_angle_norm(b->pose.theta - d->pose.theta - BW_PI)) <= BW_DOCK_ANGLE &&
            bw_dock_serves(d, b->prm.dock_family))
            return (int)i;
    }
    return -1;
}

static void sense_with(bw_sim_t *s, double clear, bw_vec2_t near)
{
    bw_body_t *b = &s->body;
    const bw_world_t *w = world_of(s);
    b->contact = clear <= b->prm.radius + CONTACT_MARGIN;
    if (b->contact) {
        bw_vec2_t l = bw_pose_to_local(b->pose, near);
        b->contact_angle = bw_angle_norm(atan2(l.y, l.x));
    } else {
        b->contact_angle = 0;
    }

    /* No drop-offs in the world (a fleet's room): nothing to look for. */
    uint32_t bits = 0;
    if (w->ndrops > 0) {
        unsigned n = b->prm.ncliff > BW_BODY_MAX_CLIFF ? BW_BODY_MAX_CLIFF : b->prm.ncliff;
        for (unsigned i = 0; i < n; i++)
            if (bw_world_is_drop(w, bw_pose_to_global(b->pose, b->prm.cliff[i])))
                bits |= 1u << i;
        bw_vec2_t lw = { 0, b->prm.wheelbase / 2 }, rw = { 0, -b->prm.wheelbase / 2 };
        if (bw_world_is_drop(w, bw_pose_to_global(b->pose, lw)))
            b->drop_left = true;
        if (bw_world_is_drop(w, bw_pose_to_global(b->pose, rw)))
            b->drop_right = true;
    }
    b->cliff = bits;

    b->dock = dock_under(w, b);
    b->docked = b->dock >= 0;
}

static void sense(bw_sim_t *s)
{
    bw_vec2_t near;
    double clear = clearance(s, (bw_vec2_t){ s->body.pose.x, s->body.pose.y }, &near);
    sense_with(s, clear, near);
}

void bw_sim_init(bw_sim_t *s, const bw_world_t *world, const bw_body_params_t *prm,
                 bw_pose_t start, double t0)
{
    memset(s, 0, sizeof *s);
    s->world = world;
    if (prm)
        s->body.prm = *prm;
    else
        bw_body_params_default(&s->body.prm);
    s->body.pose = start;
    s->body.pose.theta = bw_angle_norm(start.theta);
    s->body.battery = s->body.prm.battery_full;
    s->t = t0;
    s->dt = 0.005;
    s->rng = bw_rng_seed(s->body.prm.seed);
    sense(s);
}

/* Puts the body at pose, wherever that is. */
static void put(bw_sim_t *s, bw_pose_t pose)
{
    bw_body_t *b = &s->body;
    b->pose = pose;
    b->pose.theta = bw_angle_norm(pose.theta);
    s->free_ok = false;
    if (s->fleet)
        bw_fleet_moved(s->fleet, s);
    b->cmd_left = b->cmd_right = b->left = b->right = b->v = b->w = 0;
    b->drop_left = b->drop_right = false;
    b->blocked = false;
    sense(s);
}

/* Outside the world's extent, or overlapping a wall. */
static bool off_map(const bw_sim_t *s, bw_pose_t pose)
{
    const bw_world_t *w = world_of(s);
    return pose.x < w->min_x || pose.x > w->max_x || pose.y < w->min_y || pose.y > w->max_y ||
           clearance(s, (bw_vec2_t){ pose.x, pose.y }, NULL) < s->body.prm.radius;
}

int bw_sim_place(bw_sim_t *s, bw_pose_t pose)
{
    if (!isfinite(pose.x) || !isfinite(pose.y) || !isfinite(pose.theta) || off_map(s, pose))
        return BW_ERANGE;
    put(s, pose);
    return 0;
}

int bw_sim_place_anywhere(bw_sim_t *s, bw_pose_t pose)
{
    if (!isfinite(pose.x) || !isfinite(pose.y) || !isfinite(pose.theta))
        return BW_EINVAL;
    bool off = off_map(s, pose);
    put(s, pose);
    return off ? 1 : 0;
}

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

void bw_sim_set_wheels(bw_sim_t *s, double left, double right)
{
    double m = s->body.prm.max_wheel_speed;
    s->body.cmd_left = isnan(left) ? 0 : clamp(left, -m, m);
    s->body.cmd_right = isnan(right) ? 0 : clamp(right, -m, m);
}

void bw_sim_set_twist(bw_sim_t *s, double v, double w)
{
    if (isnan(v) || isnan(w) || isinf(v) || isinf(w)) {
        bw_sim_set_wheels(s, 0, 0);
        return;
    }
    double half = s->body.prm.wheelbase / 2;
    double l = v - w * half, r = v + w * half;
    double big = fmax(fabs(l), fabs(r)), m = s->body.prm.max_wheel_speed;
    if (big > m) {
        /* Scaled together so the arc keeps its curvature. */
        l *= m / big;
        r *= m / big;
    }
    bw_sim_set_wheels(s, l, r);
}

static double ramp(double cur, double cmd, double lim)
{
    if (!(lim > 0))
        return cmd; /* no limit configured */
    return cur + clamp(cmd - cur, -lim, lim);
}

/* The pose after the wheels' contact points travel gl and gr: the exact arc.
 * The chord is written with sin(h)/h so a near-straight arc does not lose
 * precision to a huge radius. */
static bw_pose_t arc(bw_pose_t p, double gl, double gr, double wheelbase)
{
    double ds = (gl + gr) / 2, dth = (gr - gl) / wheelbase;
    double h = dth / 2;
    double sinc = fabs(h) < 1e-6 ? 1.0 - h * h / 6.0 : sin(h) / h;
    double chord = ds * sinc;
    bw_pose_t q = { p.x + chord * cos(p.theta + h), p.y + chord * sin(p.theta + h),
                    bw_angle_norm(p.theta + dth) };
    return q;
}

static void step(bw_sim_t *s)
{
    bw_body_t *b = &s->body;
    const bw_body_params_t *prm = &b->prm;
    double dt = s->dt;

    if (b->drop_left || b->drop_right) {
        b->left = b->right = 0;
    } else {
        b->left = ramp(b->left, b->cmd_left, prm->max_accel * dt);
        b->right = ramp(b->right, b->cmd_right, prm->max_accel * dt);
    }

    double dl = b->left * dt, dr = b->right * dt;
    double gl = dl, gr = dr;
    /* Noise is drawn in a fixed order whatever happens next, so a run
     * depends on its seed alone. */
    /* Variance proportional to distance: the error of a run does not
     * depend on how finely it is stepped. */
    if (prm->slip > 0) {
        gl = dl + gaussian(&s->rng, prm->slip * sqrt(fabs(dl)));
        gr = dr + gaussian(&s->rng, prm->slip * sqrt(fabs(dr)));
    }
    double nl = 0, nr = 0;
    if (prm->encoder_noise > 0) {
        nl = gaussian(&s->rng, prm->encoder_noise * sqrt(fabs(dl)));
        nr = gaussian(&s->rng, prm->encoder_noise * sqrt(fabs(dr)));
    }

    bw_pose_t next = arc(b->pose, gl, gr, prm->wheelbase);
    bw_vec2_t here = { b->pose.x, b->pose.y }, there = { next.x, next.y }, near_next = there,
              near_here = here;
    /* The clearance where it goes is the one its sensors see there: one
     * query for both (the same for a body at rest, where here is there),
     * or none where the last one proved it free by a margin. */
    double c_next = free_since(s, there);
    if (!(c_next > prm->radius + CONTACT_MARGIN)) {
        c_next = clearance(s, there, &near_next);
        remember_free(s, there, c_next);
    }
    double c_here = INFINITY;
    bool at_rest = there.x == here.x && there.y == here.y;
    /* Only motion that closes in on a wall (or another robot) is refused,
     * so a body that ends up too close (placed there, or turning) can
     * always back away. */
    if (c_next < prm->radius && !at_rest)
        c_here = clearance(s, here, &near_here);
    if (c_next < prm->radius && !at_rest && c_next < c_here) {
        b->blocked = true;
        b->left = b->right = 0;
    } else {
        b->blocked = false;
        b->pose = next;
        if (s->fleet)
            bw_fleet_moved(s->fleet, s);
        b->odo_left += dl + nl;
        b->odo_right += dr + nr;
        s->travelled += fabs((gl + gr) / 2);
    }

    b->v = (b->left + b->right) / 2;
    b->w = (b->right - b->left) / prm->wheelbase;
    if (b->blocked)
        sense_with(s, c_here, near_here);
    else
        sense_with(s, c_next, near_next);

    if (b->docked) {
        b->battery = fmin(b->battery + prm->charge_rate * dt, prm->battery_full);
    } else {
        double drain = prm->drain_idle + prm->drain_motion * (fabs(b->left) + fabs(b->right));
        b->battery = fmax(b->battery - drain * dt, prm->battery_empty);
    }
}

void bw_sim_step_to(bw_sim_t *s, double now)
{
    if (!(now > s->t) || !(s->dt > 0) || !isfinite(s->dt))
        return;
    double steps = floor((now - s->t) / s->dt + STEP_EPS);
    if (!(steps >= 1) || !isfinite(steps))
        return;
    for (double k = 0; k < steps; k++)
        step(s);
    double t = s->t + steps * s->dt;
    /* Land exactly on the caller's time when it is the step boundary, so
     * rounding in t does not build up over many calls. */
    s->t = fabs(now - t) <= STEP_EPS * s->dt ? now : t;
}

double bw_sim_range(const bw_sim_t *s, bw_pose_t mount, double max_range)
{
    bw_pose_t g = bw_pose_compose(s->body.pose, mount);
    bw_vec2_t o = { g.x, g.y };
    double r = bw_world_raycast(world_of(s), o, g.theta, max_range);
    return s->fleet ? bw_fleet_raycast(s->fleet, s, o, g.theta, r) : r;
}
