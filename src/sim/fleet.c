/* Robots in one world that see each other (sim.h): membership, a hashed
 * grid of 1 m cells, and the lookups the body's motion and sensors make. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "botwire/sim.h"

#define CELL 1.0 /* m */

static int32_t cell_of(double v)
{
    double c = floor(v / CELL);
    return c > 1e9 ? 1000000000 : c < -1e9 ? -1000000000 : (int32_t)c;
}

static unsigned bucket(int32_t cx, int32_t cy)
{
    uint32_t h = (uint32_t)cx * 73856093u ^ (uint32_t)cy * 19349663u;
    return h % BW_FLEET_BUCKETS;
}

static void link_in(bw_fleet_t *f, unsigned i)
{
    const bw_body_t *b = &f->member[i]->body;
    f->cell[i][0] = cell_of(b->pose.x);
    f->cell[i][1] = cell_of(b->pose.y);
    unsigned k = bucket(f->cell[i][0], f->cell[i][1]);
    f->next[i] = f->head[k];
    f->head[k] = (int32_t)i;
}

static void unlink_from(bw_fleet_t *f, unsigned i)
{
    int32_t *p = &f->head[bucket(f->cell[i][0], f->cell[i][1])];
    while (*p >= 0 && *p != (int32_t)i)
        p = &f->next[*p];
    if (*p == (int32_t)i)
        *p = f->next[i];
}

void bw_fleet_init(bw_fleet_t *f, const bw_world_t *world)
{
    f->world = world;
    f->n = 0;
    f->max_radius = 0;
    for (unsigned k = 0; k < BW_FLEET_BUCKETS; k++)
        f->head[k] = -1;
}

int bw_fleet_join(bw_fleet_t *f, bw_sim_t *s)
{
    if (s->fleet == f && s->fleet_slot < f->n && f->member[s->fleet_slot] == s)
        return 0;
    if (f->n >= BW_FLEET_MAX)
        return BW_ENOSPC;
    unsigned i = f->n++;
    f->member[i] = s;
    s->fleet = f;
    s->fleet_slot = i;
    if (s->body.prm.radius > f->max_radius)
        f->max_radius = s->body.prm.radius;
    link_in(f, i);
    return 0;
}

void bw_fleet_leave(bw_fleet_t *f, bw_sim_t *s)
{
    unsigned i = s->fleet_slot;
    if (s->fleet != f || i >= f->n || f->member[i] != s)
        return;
    unlink_from(f, i);
    unsigned last = f->n - 1;
    if (i != last) { /* the last member takes the slot */
        unlink_from(f, last);
        f->member[i] = f->member[last];
        f->member[i]->fleet_slot = i;
        link_in(f, i);
    }
    f->n--;
    s->fleet = NULL;
}

void bw_fleet_moved(bw_fleet_t *f, bw_sim_t *s)
{
    unsigned i = s->fleet_slot;
    if (s->fleet != f || i >= f->n || f->member[i] != s)
        return;
    if (s->body.prm.radius > f->max_radius)
        f->max_radius = s->body.prm.radius;
    if (cell_of(s->body.pose.x) == f->cell[i][0] && cell_of(s->body.pose.y) == f->cell[i][1])
        return;
    unlink_from(f, i);
    link_in(f, i);
}

/* The other members in the cells a box covers, one at a time. */
typedef struct {
    const bw_fleet_t *f;
    const bw_sim_t *self;
    int32_t x0, x1, y1, cx, cy, i;
    bool every;  /* a box of more cells than members: go through them all */
    unsigned j;
} near_t;

static void near_begin(near_t *it, const bw_fleet_t *f, const bw_sim_t *self, double x0, double y0,
                       double x1, double y1)
{
    *it = (near_t){ f, self, cell_of(x0), cell_of(x1), cell_of(y1), cell_of(x0), cell_of(y0), -1,
                    false, 0 };
    double cells = ((double)it->x1 - it->x0 + 1) * ((double)it->y1 - it->cy + 1);
    it->every = !(cells <= f->n);
    if (!it->every)
        it->i = f->head[bucket(it->cx, it->cy)];
}

static const bw_body_t *near_next(near_t *it)
{
    const bw_fleet_t *f = it->f;
    if (it->every) {
        while (it->j < f->n) {
            const bw_sim_t *m = f->member[it->j++];
            if (m != it->self)
                return &m->body;
        }
        return NULL;
    }
    for (;;) {
        while (it->i < 0) { /* the next cell */
            if (++it->cx > it->x1) {
                it->cx = it->x0;
                if (++it->cy > it->y1)
                    return NULL;
            }
            it->i = f->head[bucket(it->cx, it->cy)];
        }
        int32_t i = it->i;
        it->i = f->next[i];
        if (f->cell[i][0] == it->cx && f->cell[i][1] == it->cy && f->member[i] != it->self)
            return &f->member[i]->body;
    }
}

double bw_fleet_clearance(const bw_fleet_t *f, const bw_sim_t *s, bw_vec2_t p, double horizon,
                          bw_vec2_t *closest)
{
    double best = INFINITY;
    double reach = horizon + f->max_radius;
    near_t it;
    near_begin(&it, f, s, p.x - reach, p.y - reach, p.x + reach, p.y + reach);
    for (const bw_body_t *other; (other = near_next(&it)) != NULL;) {
        double dx = p.x - other->pose.x, dy = p.y - other->pose.y;
        double d = sqrt(dx * dx + dy * dy);
        double gap = d - other->prm.radius;
        if (gap < best && gap <= horizon) {
            best = gap;
            if (closest) {
                double ux = d > 0 ? dx / d : 1, uy = d > 0 ? dy / d : 0;
                *closest = (bw_vec2_t){ other->pose.x + ux * other->prm.radius,
                                        other->pose.y + uy * other->prm.radius };
            }
        }
    }
    return best;
}

double bw_fleet_raycast(const bw_fleet_t *f, const bw_sim_t *s, bw_vec2_t o, double angle,
                        double max_range)
{
    double ux = cos(angle), uy = sin(angle), best = max_range;
    double ex = o.x + ux * max_range, ey = o.y + uy * max_range, r = f->max_radius;
    near_t it;
    near_begin(&it, f, s, fmin(o.x, ex) - r, fmin(o.y, ey) - r, fmax(o.x, ex) + r, fmax(o.y, ey) + r);
    for (const bw_body_t *other; (other = near_next(&it)) != NULL;) {
        /* |o + t u - c| = radius: t^2 - 2 t (u.(c - o)) + |c - o|^2 - radius^2 = 0 */
        double cx = other->pose.x - o.x, cy = other->pose.y - o.y;
        double along = cx * ux + cy * uy;
        double disc = along * along - (cx * cx + cy * cy - other->prm.radius * other->prm.radius);
        if (disc < 0)
            continue;
        double root = sqrt(disc), t = along - root;
        if (t < 0)
            t = along + root > 0 ? 0 : -1; /* inside the circle: it is right here */
        if (t >= 0 && t < best)
            best = t;
    }
    return best;
}
