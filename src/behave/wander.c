/* Wandering on any base: a reflex, sonar avoidance and a random cruise
 * under drive-base (behave.h). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "botwire/behave.h"

#define BACK_TIME 0.7   /* s backing away after a hazard */
#define TURN_TIME 0.5   /* s turning away after that */
#define BACK_SPEED 0.1  /* m/s */
#define TURN_RATE 1.2   /* rad/s */
#define AVOID_AT 0.5    /* m of room ahead below which the sonars steer */
#define AVOID_SECTOR (45 * BW_PI / 180)
#define DRIFT_EVERY 2.0 /* s between changes of the wander's turn */
#define KEEP_STEP 0.05  /* m between the points a keep-out zone's edges are taken as */
#define KEEP_STOP 0.25  /* m short of a keep-out zone the cruise stops going on */
#define MEMORY 8.0      /* s a ping is remembered */
#define DRIFT_MAX 0.4   /* rad/s */
#define DETOUR_TIME 1.5 /* s going round something in the way to a goal */
#define OTHER_BERTH 0.1 /* m more room kept from another robot than from a wall */

static uint64_t next_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x ? x : 0x9E3779B97F4A7C15ull;
    return x * 0x2545F4914F6CDD1Dull;
}

static double uniform(uint64_t *s) { return (double)(next_rand(s) >> 11) * 0x1p-53; }

/* The motion, with passive braking where the base takes motor vectors. */
static bw_beh_out_t go(const bw_grl_t *g, double v, double w)
{
    if (bw_base_caps(g->base) & BW_CAP_MOTOR_VECTOR)
        return bw_beh_motor(bw_passive_braking(g, bw_rt(v, w)));
    return bw_beh_rt(bw_rt(v, w));
}

/* The robot's radius: the farthest range sensor from its centre and a
 * margin for the body around it, or 0.2 m on a base without them. */
static double radius_of(const bw_base_state_t *st)
{
    double r = 0;
    for (unsigned i = 0; i < st->nranges; i++)
        r = fmax(r, hypot(st->ranges[i].mount.x, st->ranges[i].mount.y));
    return r > 0 ? r + 0.05 : 0.2;
}

/* Another robot the fleet told of, in the way of backing (v < 0) or going
 * on (v > 0): in the band the body sweeps that way, within the distance
 * the reflex covers of its edge. */
static bool other_that_way(const bw_wander_t *w, const bw_grl_t *g, double v)
{
    if (!w->nothers)
        return false;
    bw_pose_t p = g->st->pose;
    double c = cos(p.theta), sn = sin(p.theta), reach = BACK_SPEED * BACK_TIME + 0.03;
    double radius = radius_of(g->st);
    for (unsigned i = 0; i < w->nothers; i++) {
        double dx = w->others[i].x - p.x, dy = w->others[i].y - p.y;
        double ex = c * dx + sn * dy, ey = -sn * dx + c * dy;
        if (ex * v > 0 && fabs(ey) < radius && fabs(ex) < radius + reach)
            return true; /* in the band the body sweeps, within reach */
    }
    return false;
}

static bw_beh_out_t reflex(const bw_behavior_t *self, const bw_grl_t *g)
{
    bw_wander_t *w = self->ctx;
    const bw_base_state_t *st = g->st;
    bool hazard = st->bumpers || st->cliffs || st->wheel_drops;
    double since = g->now - w->reflex_from;
    if (hazard && !(since < BACK_TIME)) {
        /* Away from the side hit: a hit on the left turns right. */
        uint32_t left = BW_BUMP_FRONT_LEFT | BW_CLIFF_LEFT | BW_CLIFF_FRONT_LEFT;
        uint32_t right = BW_BUMP_FRONT_RIGHT | BW_CLIFF_RIGHT | BW_CLIFF_FRONT_RIGHT;
        uint32_t bits = st->bumpers | st->cliffs;
        w->reflex_turn = (bits & left) && !(bits & right) ? -TURN_RATE
                         : (bits & right) && !(bits & left) ? TURN_RATE
                         : (uniform(&w->rng) < 0.5 ? -TURN_RATE : TURN_RATE);
        w->reflex_from = g->now;
        w->reflexes++;
        since = 0;
    }
    if (since < BACK_TIME) {
        double v = (st->bumpers & (BW_BUMP_REAR | BW_BUMP_REAR_LEFT | BW_BUMP_REAR_RIGHT)) &&
                           !(st->bumpers & (BW_BUMP_FRONT | BW_BUMP_FRONT_LEFT | BW_BUMP_FRONT_RIGHT))
                       ? BACK_SPEED
                       : -BACK_SPEED;
        if (!other_that_way(w, g, v))
            return go(g, v, 0);
        w->reflex_from = g->now - BACK_TIME; /* no room that way: only the turn */
        since = BACK_TIME;
    }
    if (since < BACK_TIME + TURN_TIME)
        return go(g, 0, w->reflex_turn);
    return bw_beh_inactive();
}

/* Room around the robot, from the sonar pings and the keep-out zones'
 * edges, in the robot's frame: ahead (within the sector), to the left and
 * right (m from the footprint), and in the path straight ahead. */
typedef struct {
    double ahead, left, right, path;
} room_t;

static void consider(room_t *r, bw_vec2_t e, double radius, bool path_only)
{
    if (e.x > 0 && fabs(e.y) < radius + 0.05)
        r->path = fmin(r->path, e.x - radius);
    /* Not ahead (x <= 0, signed zeros and NaN included): atan2 gives an
     * angle no sector below takes, so neither it nor the distance is
     * needed. */
    if (path_only || !(e.x > 0))
        return;
    double a = atan2(e.y, e.x), d = hypot(e.x, e.y) - radius;
    if (fabs(a) < AVOID_SECTOR)
        r->ahead = fmin(r->ahead, d);
    if (a > 0 && a < BW_PI / 2)
        r->left = fmin(r->left, d);
    if (a < 0 && a > -BW_PI / 2)
        r->right = fmin(r->right, d);
}

/* A remembered ping farther than this from the robot's centre cannot put
 * the path under KEEP_STOP (the only thing asked of `path`): e.x - radius <
 * KEEP_STOP with |e.y| < radius + 0.05 bounds its distance. */
static double memory_reach2(double radius)
{
    double ahead = radius + KEEP_STOP, side = radius + 0.05;
    return ahead * ahead + side * side + 1e-6;
}

/* The remembered pings near enough to matter: those within reach +
 * NEAR_SLACK of where the robot was when the list was made (near_at).
 * While the robot stays within NEAR_SLACK of there, a ping within reach of
 * it is on the list (the triangle inequality), so a tick looks at a few
 * dozen pings, not every one of the last seconds; pings remembered since
 * join the list as they come (near_note). */
#define NEAR_SLACK 0.5 /* m */

static void near_add(bw_wander_t *w, unsigned i)
{
    uint64_t bit = 1ull << (i % 64);
    if (w->near_in[i / 64] & bit)
        return;
    w->near_in[i / 64] |= bit;
    w->near_slot[i] = (uint16_t)w->nnear;
    w->near_seen[w->nnear++] = w->seen[i];
}

static bool near_enough(const bw_wander_t *w, bw_vec2_t p)
{
    double dx = p.x - w->near_at.x, dy = p.y - w->near_at.y, r = w->near_reach + 1e-6;
    return dx * dx + dy * dy <= r * r;
}

static void near_build(bw_wander_t *w, bw_pose_t pose, double radius, double reach)
{
    memset(w->near_in, 0, sizeof w->near_in);
    w->nnear = 0;
    w->near_at = (bw_vec2_t){ pose.x, pose.y };
    w->near_radius = radius;
    w->near_reach = reach;
    w->near_ok = true;
    for (unsigned i = 0; i < w->nseen; i++)
        if (near_enough(w, w->seen[i].at))
            near_add(w, i);
}

/* Ping i has just been remembered. The list keeps copies, so a tick reads
 * them side by side, not scattered over the memory: a place of the memory
 * on the list that takes a new ping has its copy follow. */
static void near_note(bw_wander_t *w, unsigned i)
{
    if (w->near_in[i / 64] & (1ull << (i % 64)))
        w->near_seen[w->near_slot[i]] = w->seen[i];
    else if (w->near_ok && near_enough(w, w->seen[i].at))
        near_add(w, i);
}

/* The room this tick: computed once per tick (avoid and the cruise both ask,
 * on the same readings), with one sine and cosine of the pose for every
 * point (as bw_pose_to_local computes them, so the same numbers). */
static room_t room_around(bw_wander_t *w, const bw_grl_t *g)
{
    if (w->in_tick && w->room_ok)
        return (room_t){ w->room[0], w->room[1], w->room[2], w->room[3] };
    room_t r = { INFINITY, INFINITY, INFINITY, INFINITY };
    double radius;
    const bw_ping_view_t *view = bw_grl_view(g);
    if (view) { /* the same numbers, kept while the state is the same */
        radius = view->footprint > 0 ? view->footprint + 0.05 : 0.2;
        for (unsigned i = 0; i < view->n; i++)
            consider(&r, view->egocentric[i], radius, false);
    } else {
        radius = radius_of(g->st);
        bw_ping_t p[BW_BASE_MAX_RANGES];
        unsigned n = bw_grl_pings_of(g, p, BW_BASE_MAX_RANGES);
        for (unsigned i = 0; i < n; i++)
            if (p[i].valid)
                consider(&r, p[i].egocentric, radius, false);
    }
    bw_pose_t pose = g->st->pose;
    double c = cos(pose.theta), sn = sin(pose.theta);
    for (unsigned i = 0; i < w->nkeep; i++) {
        double dx = w->keep[i].x - pose.x, dy = w->keep[i].y - pose.y;
        consider(&r, (bw_vec2_t){ c * dx + sn * dy, -sn * dx + c * dy }, radius, false);
    }
    /* Another robot moves too (and is told of a moment late): a wider
     * berth than a wall's. */
    for (unsigned i = 0; i < w->nothers; i++) {
        double dx = w->others[i].x - pose.x, dy = w->others[i].y - pose.y;
        consider(&r, (bw_vec2_t){ c * dx + sn * dy, -sn * dx + c * dy }, radius + OTHER_BERTH,
                 false);
    }
    /* What was seen a moment ago guards the path; the steering goes by
     * what the sonars see now. */
    double reach2 = memory_reach2(radius);
    double mx = pose.x - w->near_at.x, my = pose.y - w->near_at.y;
    if (!w->near_ok || radius != w->near_radius || !(mx * mx + my * my <= NEAR_SLACK * NEAR_SLACK))
        near_build(w, pose, radius, sqrt(reach2) + NEAR_SLACK);
    for (unsigned k = 0; k < w->nnear; k++) {
        const bw_wander_seen_t *q = &w->near_seen[k];
        if (!(g->now - q->t < MEMORY))
            continue;
        double dx = q->at.x - pose.x, dy = q->at.y - pose.y;
        if (dx * dx + dy * dy > reach2)
            continue;
        consider(&r, (bw_vec2_t){ c * dx + sn * dy, -sn * dx + c * dy }, radius, true);
    }
    if (w->in_tick) {
        w->room[0] = r.ahead;
        w->room[1] = r.left;
        w->room[2] = r.right;
        w->room[3] = r.path;
        w->room_ok = true;
    }
    return r;
}

/* Keeps each new reading's surface, for MEMORY seconds (a reading is new
 * when its time is: only those are placed, as bw_grl_pings places them). */
static void remember(bw_wander_t *w, const bw_grl_t *g)
{
    const bw_base_state_t *st = g->st;
    /* The same state as at the last look: no new reading. */
    bool own = g->base && st == bw_base_state(g->base);
    uint64_t changes = own ? bw_base_changes(g->base) : 0;
    if (own && w->remembered_ok && w->remembered == changes)
        return;
    w->remembered_ok = own;
    w->remembered = changes;
    unsigned n = st->nranges < BW_BASE_MAX_RANGES ? st->nranges : BW_BASE_MAX_RANGES;
    for (unsigned i = 0; i < n; i++) {
        const bw_range_t *rg = &st->ranges[i];
        double t = rg->t;
        if (t == w->last_read[i] || !(t > 0 && rg->range > 0 && rg->range < rg->max_range))
            continue;
        bw_ping_t p;
        bw_grl_ping_of(g, i, &p); /* placed once: the room's pings find it */
        w->last_read[i] = t;
        w->seen[w->seen_head] = (bw_wander_seen_t){ p.global_position, g->now };
        near_note(w, w->seen_head);
        w->seen_head = (w->seen_head + 1) % BW_WANDER_MAX_SEEN;
        if (w->nseen < BW_WANDER_MAX_SEEN)
            w->nseen++;
    }
}

/* The way to turn out of a tight spot: toward the side with more room,
 * chosen once and kept until the way is clear, so it does not dither
 * between two walls. */
static double escape(bw_wander_t *w, const room_t *r)
{
    if (w->escape == 0)
        w->escape = r->left > r->right ? 1 : -1;
    return w->escape * TURN_RATE * 0.7;
}

static bw_beh_out_t avoid(const bw_behavior_t *self, const bw_grl_t *g)
{
    bw_wander_t *w = self->ctx;
    room_t r = room_around(w, g);
    if (!(r.ahead < AVOID_AT)) {
        if (!(r.path < KEEP_STOP))
            w->escape = 0; /* free again */
        return bw_beh_inactive();
    }
    /* Going to a goal: once out of this, on the way it turned before
     * turning to the goal again (else it turns back into the obstacle). */
    if (w->has_goal)
        w->detour_until = g->now + DETOUR_TIME;
    /* Slower the nearer it is (ahead, or in the path: something touching
     * the body's front corner is out of the sector but closes in as it
     * goes on), turning out. */
    double v = w->speed * fmax(0, fmin(1, (fmin(r.ahead, r.path) - 0.15) / (AVOID_AT - 0.15)));
    return go(g, v, escape(w, &r));
}

/* Toward the goal: turning to it, straight on once roughly facing it,
 * slower in its last half metre; standing there. */
static bw_beh_out_t to_goal(bw_wander_t *w, const bw_grl_t *g, const room_t *r)
{
    bw_pose_t pose = g->st->pose;
    double dx = w->goal.x - pose.x, dy = w->goal.y - pose.y, dist = hypot(dx, dy);
    if (dist <= w->goal_tol)
        return go(g, 0, 0);
    double e = bw_angle_diff(atan2(dy, dx), pose.theta);
    double turn = fmax(-TURN_RATE, fmin(TURN_RATE, 2 * e));
    double v = w->speed * fmax(0, cos(e)) * fmin(1, dist / 0.5 + 0.2);
    if (fabs(e) > BW_PI / 4)
        v = 0; /* round first */
    /* Something in the way to it: turn out and go on that way a while
     * before turning to the goal again (else it turns back into it). */
    if (g->now < w->detour_until || (v > 0 && r->path < KEEP_STOP)) {
        if (!(g->now < w->detour_until))
            w->detour_until = g->now + DETOUR_TIME;
        if (r->path < KEEP_STOP)
            return go(g, 0, escape(w, r));
        return go(g, w->speed * 0.7, 0);
    }
    w->escape = 0;
    return go(g, v, turn);
}

static bw_beh_out_t cruise(const bw_behavior_t *self, const bw_grl_t *g)
{
    bw_wander_t *w = self->ctx;
    if (w->has_goal) {
        room_t r = room_around(w, g);
        return to_goal(w, g, &r);
    }
    if (!(g->now < w->next_change)) {
        w->turn = (2 * uniform(&w->rng) - 1) * DRIFT_MAX;
        w->next_change = g->now + DRIFT_EVERY;
    }
    /* Something in the path (a keep-out zone, a remembered ping): no nearer,
     * and turn for the side with more room; sonar-safe guards the rest. */
    room_t r = room_around(w, g);
    if (r.path < KEEP_STOP)
        return go(g, 0, escape(w, &r));
    w->escape = 0;
    return go(g, w->speed, w->turn);
}

void bw_wander_goal(bw_wander_t *w, const bw_vec2_t *goal, double tol)
{
    w->has_goal = goal != NULL;
    w->detour_until = -INFINITY;
    if (goal) {
        w->goal = *goal;
        w->goal_tol = tol;
    }
    w->escape = 0;
}

bool bw_wander_arrived(const bw_wander_t *w)
{
    const bw_pose_t *p = &w->g->st->pose;
    return w->has_goal && hypot(w->goal.x - p->x, w->goal.y - p->y) <= w->goal_tol;
}

void bw_wander_others(bw_wander_t *w, const bw_vec2_t *at, unsigned n)
{
    w->nothers = n < BW_WANDER_MAX_OTHERS ? n : BW_WANDER_MAX_OTHERS;
    if (w->nothers)
        memcpy(w->others, at, w->nothers * sizeof *at);
    w->room_ok = false;
}

int bw_wander_keep_out(bw_wander_t *w, const bw_vec2_t *poly, unsigned n)
{
    if (n < 3)
        return BW_EINVAL;
    for (unsigned i = 0; i < n; i++) {
        bw_vec2_t a = poly[i], b = poly[(i + 1) % n];
        double len = hypot(b.x - a.x, b.y - a.y);
        unsigned steps = (unsigned)ceil(len / KEEP_STEP);
        for (unsigned k = 0; k < steps || (steps == 0 && k == 0); k++) {
            if (w->nkeep == BW_WANDER_MAX_KEEP)
                return BW_ENOSPC;
            double f = steps ? (double)k / steps : 0;
            w->keep[w->nkeep++] = (bw_vec2_t){ a.x + f * (b.x - a.x), a.y + f * (b.y - a.y) };
        }
    }
    return 0;
}

void bw_wander_init(bw_wander_t *w, bw_grl_t *g, uint64_t seed, double speed)
{
    /* All but the keep-out points, which are read only below nkeep: a
     * fleet of thousands leaves those 32 KB a robot untouched (not
     * resident). */
    memset(w, 0, offsetof(bw_wander_t, keep));
    w->g = g;
    w->rng = seed * 0x9E3779B97F4A7C15ull + 1;
    w->speed = speed;
    w->next_change = -INFINITY;
    w->reflex_from = -INFINITY;
    w->reflex = (bw_behavior_t){ reflex, w, NULL, NULL, 0 };
    w->avoid = (bw_behavior_t){ avoid, w, NULL, NULL, 0 };
    w->wander = (bw_behavior_t){ cruise, w, NULL, NULL, 0 };
    w->safe_avoid = bw_sonar_safe(&w->avoid, 0.12);
    w->safe_wander = bw_sonar_safe(&w->wander, 0.25);
    w->stack[0] = &w->reflex;
    w->stack[1] = &w->safe_avoid;
    w->stack[2] = &w->safe_wander;
    w->nstack = 3;
    g->places = w->places; /* zeroed: no reading has time 0 and a place */
    g->view = &w->view;
}

int bw_wander_set_stack(bw_wander_t *w, const char *names)
{
    static const char *const known[BW_WANDER_MAX_STACK] = { "reflex", "avoid", "safe-avoid",
                                                            "wander", "safe-wander" };
    if (!names)
        return BW_EINVAL;
    const bw_behavior_t *list[BW_WANDER_MAX_STACK];
    unsigned n = 0, used = 0;
    for (const char *p = names;;) {
        size_t len = strcspn(p, ",");
        unsigned k = 0;
        while (k < BW_WANDER_MAX_STACK && !(strlen(known[k]) == len && !strncmp(p, known[k], len)))
            k++;
        if (k == BW_WANDER_MAX_STACK || (used & (1u << k)))
            return BW_EINVAL; /* not known (an empty name too), or again */
        used |= 1u << k;
        if (w) {
            const bw_behavior_t *b[BW_WANDER_MAX_STACK] = { &w->reflex, &w->avoid, &w->safe_avoid,
                                                            &w->wander, &w->safe_wander };
            list[n] = b[k];
        }
        n++;
        if (!p[len])
            break;
        p += len + 1;
    }
    if (w) {
        memcpy(w->stack, list, n * sizeof list[0]);
        w->nstack = n;
    }
    return 0;
}

int bw_wander_tick(bw_wander_t *w)
{
    remember(w, w->g);
    w->in_tick = true;
    w->room_ok = false;
    int winner = bw_drive_base(w->g, w->stack, w->nstack);
    w->in_tick = false;
    return winner;
}
