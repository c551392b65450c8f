/* Robots in one world that see each other (sim.h): membership, a hashed
 * grid of 1 m cells, the snapshot of where the members are, and the lookups
 * the body's motion and sensors make. */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "botwire/sim.h"

#define CELL 1.0 /* m */
#define MIN_BUCKETS 64u

static int32_t cell_of(double v)
{
    double q = v / CELL;
    if (!(q < 1e9 && q > -1e9)) /* far off, or NaN: the outermost cell */
        return q > 0 ? 1000000000 : -1000000000;
    /* floor() without the call: truncate, then one down for negatives */
    int32_t c = (int32_t)q;
    return (double)c > q ? c - 1 : c;
}

/* Row by row, each row's cells in buckets side by side (a row as wide as
 * the world, in a power of two): the cells a query looks at are a few
 * rows of neighbours, whose bucket heads (and, frozen, whose members)
 * then share cache lines. Cells beyond wrap round onto others' buckets,
 * as any hash's collisions do: a cell is told by its own coordinates. */
static unsigned bucket(const bw_fleet_t *f, int32_t cx, int32_t cy)
{
    uint32_t h = (uint32_t)cy * f->row + (uint32_t)cx;
    return h & (f->nbuckets - 1);
}

/* The row width for nb buckets: the world's width in cells and a margin,
 * in a power of two, at most a quarter of nb (a wider world's rows wrap
 * onto each other's buckets, shifted, rather than all onto the same). */
static unsigned row_width(const bw_fleet_t *f, unsigned nb)
{
    double cells = f->world ? (f->world->max_x - f->world->min_x) / CELL + 3 : 0;
    unsigned row = 16;
    while (row < nb / 4 && (double)row < cells)
        row *= 2;
    return row;
}

static bw_fleet_body_t body_of(const bw_sim_t *s)
{
    return (bw_fleet_body_t){ s->body.pose.x, s->body.pose.y, s->body.prm.radius };
}

static void link_in(bw_fleet_t *f, unsigned i)
{
    f->gen++;
    f->runs_ok = false;
    f->cell[i][0] = cell_of(f->at[i].x);
    f->cell[i][1] = cell_of(f->at[i].y);
    unsigned k = bucket(f, f->cell[i][0], f->cell[i][1]);
    f->next[i] = f->head[k];
    f->head[k] = (int32_t)i;
}

static void unlink_from(bw_fleet_t *f, unsigned i)
{
    f->gen++;
    f->runs_ok = false;
    int32_t *p = &f->head[bucket(f, f->cell[i][0], f->cell[i][1])];
    while (*p >= 0 && *p != (int32_t)i)
        p = &f->next[*p];
    if (*p == (int32_t)i)
        *p = f->next[i];
}

/* Every member into the grid anew (after the buckets changed). */
static void relink_all(bw_fleet_t *f)
{
    for (unsigned k = 0; k < f->nbuckets; k++)
        f->head[k] = -1;
    for (unsigned i = 0; i < f->n; i++)
        link_in(f, i);
}

void bw_fleet_init(bw_fleet_t *f, const bw_world_t *world)
{
    memset(f, 0, sizeof *f);
    f->world = world;
}

void bw_fleet_free(bw_fleet_t *f)
{
    for (unsigned i = 0; i < f->n; i++)
        f->member[i]->fleet = NULL;
    free(f->member);
    free(f->at);
    free(f->moved);
    free(f->cell);
    free(f->next);
    free(f->head);
    free(f->runs);
    free(f->start);
    const bw_world_t *w = f->world;
    bool frozen = f->frozen;
    uint64_t gen = f->gen;
    bw_fleet_init(f, w);
    f->frozen = frozen;
    f->gen = gen + 1;
}

/* Room for cap members, the buckets at least twice that. */
static int grow(bw_fleet_t *f, unsigned cap)
{
    bw_sim_t **member = realloc(f->member, cap * sizeof *member);
    if (member)
        f->member = member;
    bw_fleet_body_t *at = realloc(f->at, cap * sizeof *at);
    if (at)
        f->at = at;
    bw_fleet_body_t *moved = realloc(f->moved, cap * sizeof *moved);
    if (moved)
        f->moved = moved;
    int32_t(*cell)[2] = realloc(f->cell, cap * sizeof *cell);
    if (cell)
        f->cell = cell;
    int32_t *next = realloc(f->next, cap * sizeof *next);
    if (next)
        f->next = next;
    f->runs_ok = false;
    bw_fleet_entry_t *runs = realloc(f->runs, cap * sizeof *runs);
    if (runs)
        f->runs = runs;
    if (!member || !at || !moved || !cell || !next || !runs)
        return BW_ENOMEM; /* what did grow stays, harmlessly larger */
    unsigned nb = f->nbuckets ? f->nbuckets : MIN_BUCKETS;
    while (nb < 2 * (uint64_t)cap)
        nb *= 2;
    if (nb != f->nbuckets) {
        int32_t *head = malloc(nb * sizeof *head);
        uint32_t *start = realloc(f->start, ((size_t)nb + 1) * sizeof *start);
        if (start)
            f->start = start;
        if (!head || !start) {
            free(head);
            return BW_ENOMEM;
        }
        free(f->head);
        f->head = head;
        f->nbuckets = nb;
        f->row = row_width(f, nb);
        relink_all(f);
    }
    f->cap = cap;
    return 0;
}

int bw_fleet_join(bw_fleet_t *f, bw_sim_t *s)
{
    if (s->fleet == f && s->fleet_slot < f->n && f->member[s->fleet_slot] == s)
        return 0;
    if (f->n >= (unsigned)INT32_MAX)
        return BW_ENOSPC;
    if (f->n == f->cap) {
        uint64_t cap = f->cap < 16 ? 16 : (uint64_t)f->cap * 2;
        int rc = grow(f, cap > INT32_MAX ? (unsigned)INT32_MAX : (unsigned)cap);
        if (rc < 0)
            return rc;
    }
    unsigned i = f->n++;
    f->member[i] = s;
    s->fleet = f;
    s->fleet_slot = i;
    if (s->body.prm.radius > f->max_radius)
        f->max_radius = s->body.prm.radius;
    f->at[i] = f->moved[i] = body_of(s);
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
        f->at[i] = f->at[last];
        f->moved[i] = f->moved[last];
        link_in(f, i);
    }
    f->n--;
    s->fleet = NULL;
    if (f->n == 0)
        bw_fleet_free(f); /* the last one out: nothing is held for an empty fleet */
}

/* Member i is seen at `at[i]` from now on. */
static void show(bw_fleet_t *f, unsigned i)
{
    if (f->moved[i].radius > f->max_radius)
        f->max_radius = f->moved[i].radius;
    f->at[i] = f->moved[i];
    f->gen++;
    if (cell_of(f->at[i].x) == f->cell[i][0] && cell_of(f->at[i].y) == f->cell[i][1])
        return;
    unlink_from(f, i);
    link_in(f, i);
}

void bw_fleet_moved(bw_fleet_t *f, bw_sim_t *s)
{
    unsigned i = s->fleet_slot;
    if (s->fleet != f || i >= f->n || f->member[i] != s)
        return;
    /* Frozen, this is all it writes: its own entry, which no query reads. */
    f->moved[i] = body_of(s);
    if (!f->frozen)
        show(f, i);
}

/* The grid's runs anew from its chains (frozen: nothing changes it until
 * the next sync). */
static void make_runs(bw_fleet_t *f)
{
    if (!f->runs || !f->start || !f->nbuckets || (f->runs_ok && f->runs_gen == f->gen))
        return;
    uint32_t pos = 0;
    for (unsigned k = 0; k < f->nbuckets; k++) {
        f->start[k] = pos;
        for (int32_t i = f->head[k]; i >= 0; i = f->next[i])
            f->runs[pos++] = (bw_fleet_entry_t){ f->at[i], f->cell[i][0], f->cell[i][1], i };
    }
    f->start[f->nbuckets] = pos;
    f->runs_ok = true;
    f->runs_gen = f->gen;
}

void bw_fleet_sync(bw_fleet_t *f)
{
    if (!f->frozen)
        return;
    for (unsigned i = 0; i < f->n; i++)
        if (memcmp(&f->moved[i], &f->at[i], sizeof f->at[i]) != 0)
            show(f, i);
    make_runs(f);
}

void bw_fleet_freeze(bw_fleet_t *f, bool frozen)
{
    /* Anything moved without a word to the fleet (a body placed by hand
     * before joining) is taken as it is now. */
    for (unsigned i = 0; i < f->n; i++)
        f->moved[i] = body_of(f->member[i]);
    f->frozen = false;
    for (unsigned i = 0; i < f->n; i++)
        show(f, i);
    f->frozen = frozen;
    if (frozen)
        make_runs(f);
}

/* The other members in the cells a box covers, one at a time. */
typedef struct {
    const bw_fleet_t *f;
    int32_t self;
    int32_t x0, x1, y1, cx, cy, i;
    bool every; /* a box of more cells than members: go through them all */
    bool runs;  /* the frozen grid's runs: i counts up to end */
    unsigned j;
    uint32_t end;
} near_t;

static void near_begin(near_t *it, const bw_fleet_t *f, const bw_sim_t *self, double x0, double y0,
                       double x1, double y1)
{
    int32_t me = self && self->fleet == f && self->fleet_slot < f->n &&
                         f->member[self->fleet_slot] == self
                     ? (int32_t)self->fleet_slot
                     : -1;
    *it = (near_t){ f, me, cell_of(x0), cell_of(x1), cell_of(y1), cell_of(x0), cell_of(y0), -1,
                    false, f->frozen && f->runs_ok, 0, 0 };
    double cells = ((double)it->x1 - it->x0 + 1) * ((double)it->y1 - it->cy + 1);
    it->every = !(cells <= f->n);
    if (!it->every && f->n) {
        unsigned k = bucket(f, it->cx, it->cy);
        if (it->runs) {
            it->i = (int32_t)f->start[k];
            it->end = f->start[k + 1];
        } else {
            it->i = f->head[k];
        }
    } else {
        it->every = true;
    }
}

/* near_next over the runs: the same members in the same order as the
 * chains give them. */
static const bw_fleet_body_t *near_next_run(near_t *it)
{
    const bw_fleet_t *f = it->f;
    for (;;) {
        while ((uint32_t)it->i >= it->end) { /* the next cell */
            if (++it->cx > it->x1) {
                it->cx = it->x0;
                if (++it->cy > it->y1)
                    return NULL;
            }
            unsigned k = bucket(f, it->cx, it->cy);
            it->i = (int32_t)f->start[k];
            it->end = f->start[k + 1];
        }
        const bw_fleet_entry_t *e = &f->runs[it->i++];
        if (e->cx == it->cx && e->cy == it->cy && e->slot != it->self)
            return &e->at;
    }
}

/* The next member's snapshot, or NULL. */
static const bw_fleet_body_t *near_next(near_t *it)
{
    const bw_fleet_t *f = it->f;
    if (it->every) {
        while (it->j < f->n) {
            unsigned j = it->j++;
            if ((int32_t)j != it->self)
                return &f->at[j];
        }
        return NULL;
    }
    if (it->runs)
        return near_next_run(it);
    for (;;) {
        while (it->i < 0) { /* the next cell */
            if (++it->cx > it->x1) {
                it->cx = it->x0;
                if (++it->cy > it->y1)
                    return NULL;
            }
            it->i = f->head[bucket(f, it->cx, it->cy)];
        }
        int32_t i = it->i;
        it->i = f->next[i];
        if (f->cell[i][0] == it->cx && f->cell[i][1] == it->cy && i != it->self)
            return &f->at[i];
    }
}

double bw_fleet_clearance(const bw_fleet_t *f, const bw_sim_t *s, bw_vec2_t p, double horizon,
                          bw_vec2_t *closest)
{
    double best = INFINITY;
    double reach = horizon + f->max_radius;
    near_t it;
    near_begin(&it, f, s, p.x - reach, p.y - reach, p.x + reach, p.y + reach);
    for (const bw_fleet_body_t *other; (other = near_next(&it)) != NULL;) {
        double dx = p.x - other->x, dy = p.y - other->y;
        /* Most are beyond the horizon: no square root for them. */
        double far = horizon + other->radius;
        if (dx * dx + dy * dy > far * far)
            continue;
        double d = sqrt(dx * dx + dy * dy);
        double gap = d - other->radius;
        if (gap < best && gap <= horizon) {
            best = gap;
            if (closest) {
                double ux = d > 0 ? dx / d : 1, uy = d > 0 ? dy / d : 0;
                *closest = (bw_vec2_t){ other->x + ux * other->radius,
                                        other->y + uy * other->radius };
            }
        }
    }
    return best;
}

size_t bw_fleet_near(const bw_fleet_t *f, const bw_sim_t *s, bw_vec2_t p, double horizon,
                     double *gap, bw_vec2_t *closest, size_t cap)
{
    size_t n = 0;
    double reach = horizon + f->max_radius;
    near_t it;
    near_begin(&it, f, s, p.x - reach, p.y - reach, p.x + reach, p.y + reach);
    for (const bw_fleet_body_t *other; cap > 0 && (other = near_next(&it)) != NULL;) {
        double dx = p.x - other->x, dy = p.y - other->y;
        double far = horizon + other->radius;
        if (dx * dx + dy * dy > far * far)
            continue;
        double d = sqrt(dx * dx + dy * dy), g = d - other->radius;
        if (g > horizon || (n == cap && !(g < gap[n - 1])))
            continue;
        size_t k = n < cap ? n++ : n - 1; /* in its place among the nearest (insertion) */
        while (k > 0 && g < gap[k - 1]) {
            gap[k] = gap[k - 1];
            closest[k] = closest[k - 1];
            k--;
        }
        double ux = d > 0 ? dx / d : 1, uy = d > 0 ? dy / d : 0;
        gap[k] = g;
        closest[k] = (bw_vec2_t){ other->x + ux * other->radius, other->y + uy * other->radius };
    }
    return n;
}

/* The segments a ray is searched in: the cells of a long ray's bounding
 * box are mostly far from it, and a hit in the first segments ends it. */
#define RAY_SEGMENT 2.5 /* m: a 5 m sonar ray in two boxes */

double bw_fleet_raycast(const bw_fleet_t *f, const bw_sim_t *s, bw_vec2_t o, double angle,
                        double max_range)
{
    double ux = cos(angle), uy = sin(angle), best = max_range, r = f->max_radius;
    /* A member the ray hits at t has its centre within r of the ray's point
     * at t, so within the box of the segment holding t: segment by segment,
     * every member hit before `best` is seen once its segment is, and the
     * search ends when best is before the next segment. A member in two
     * boxes is looked at twice, to the same answer. */
    for (double from = 0; from < max_range && best > from; from += RAY_SEGMENT) {
        double to = fmin(from + RAY_SEGMENT, max_range);
        double ax = o.x + ux * from, ay = o.y + uy * from, bx = o.x + ux * to, by = o.y + uy * to;
        near_t it;
        near_begin(&it, f, s, fmin(ax, bx) - r, fmin(ay, by) - r, fmax(ax, bx) + r,
                   fmax(ay, by) + r);
        for (const bw_fleet_body_t *other; (other = near_next(&it)) != NULL;) {
            /* |o + t u - c| = radius: t^2 - 2 t (u.(c - o)) + |c - o|^2 - radius^2 = 0 */
            double cx = other->x - o.x, cy = other->y - o.y;
            double along = cx * ux + cy * uy;
            double disc = along * along - (cx * cx + cy * cy - other->radius * other->radius);
            if (disc < 0)
                continue;
            double root = sqrt(disc), t = along - root;
            if (t < 0)
                t = along + root > 0 ? 0 : -1; /* inside the circle: it is right here */
            if (t >= 0 && t < best)
                best = t;
        }
        if (it.every)
            break; /* that was every member */
    }
    return best;
}
