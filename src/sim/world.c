/* The simulated world: walls, drop-offs, docks; ray casting and clearance. */
#include <math.h>
#include <string.h>

#include "botwire/sim.h"
#include "botwire/wire.h"

/* Returned by bw_world_clearance when there is no wall: finite, so callers
 * may do arithmetic with it. */
#define NO_WALL 1e9

void bw_world_init(bw_world_t *w) { memset(w, 0, sizeof *w); }

static bool finite_pt(bw_vec2_t p) { return isfinite(p.x) && isfinite(p.y); }

static bool has_shapes(const bw_world_t *w) { return w->nwalls > 0 || w->ndrops > 0; }

/* The first shape sets the extent, later ones grow it; an empty world's
 * zero extent would otherwise drag the origin into every extent. */
static void extend(bw_world_t *w, bool fresh, const bw_vec2_t *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (fresh && i == 0) {
            w->min_x = w->max_x = p[0].x;
            w->min_y = w->max_y = p[0].y;
            continue;
        }
        w->min_x = fmin(w->min_x, p[i].x);
        w->max_x = fmax(w->max_x, p[i].x);
        w->min_y = fmin(w->min_y, p[i].y);
        w->max_y = fmax(w->max_y, p[i].y);
    }
}

/* Closed outline: finite vertices, no zero-length edge, some area. */
static bool outline_ok(const bw_vec2_t *v, unsigned n)
{
    if (!v || n < 3)
        return false;
    double area2 = 0, scale = 0;
    for (unsigned i = 0; i < n; i++) {
        const bw_vec2_t *a = &v[i], *b = &v[(i + 1) % n];
        if (!finite_pt(*a))
            return false;
        if (a->x == b->x && a->y == b->y)
            return false;
        area2 += a->x * b->y - b->x * a->y;
        scale = fmax(scale, fmax(fabs(a->x), fabs(a->y)));
    }
    /* Relative to the coordinates' size, so collinear outlines far from the
     * origin count as flat despite rounding. */
    return fabs(area2) > 1e-12 * fmax(scale * scale, 1e-6);
}

int bw_world_add_wall(bw_world_t *w, bw_vec2_t a, bw_vec2_t b)
{
    if (!finite_pt(a) || !finite_pt(b) || (a.x == b.x && a.y == b.y))
        return BW_EINVAL;
    if (w->nwalls >= BW_WORLD_MAX_WALLS)
        return BW_ENOSPC;
    bool fresh = !has_shapes(w);
    bw_segment_t *s = &w->walls[w->nwalls++];
    s->a = a;
    s->b = b;
    bw_vec2_t p[2] = { a, b };
    extend(w, fresh, p, 2);
    return 0;
}

int bw_world_add_dock(bw_world_t *w, bw_pose_t pose, const char *family)
{
    if (!isfinite(pose.x) || !isfinite(pose.y) || !isfinite(pose.theta) ||
        (family && strlen(family) >= BW_WORLD_NAME_LEN))
        return BW_EINVAL;
    if (w->ndocks >= BW_WORLD_MAX_DOCKS || w->nwalls >= BW_WORLD_MAX_WALLS)
        return BW_ENOSPC;
    double c = cos(pose.theta), s = sin(pose.theta);
    bw_vec2_t back = { pose.x - BW_DOCK_BACK * c, pose.y - BW_DOCK_BACK * s };
    bw_vec2_t half = { -s * BW_DOCK_WIDTH / 2, c * BW_DOCK_WIDTH / 2 };
    int rc = bw_world_add_wall(w, (bw_vec2_t){ back.x + half.x, back.y + half.y },
                               (bw_vec2_t){ back.x - half.x, back.y - half.y });
    if (rc != 0)
        return rc;
    bw_dock_t *d = &w->docks[w->ndocks++];
    memset(d, 0, sizeof *d);
    d->pose = (bw_pose_t){ pose.x, pose.y, bw_angle_norm(pose.theta) };
    if (family)
        memcpy(d->family, family, strlen(family));
    return 0;
}

bool bw_dock_serves(const bw_dock_t *d, const char *family)
{
    return !d->family[0] || (family && !strcmp(d->family, family));
}

bool bw_dock_seen_from(const bw_dock_t *d, bw_pose_t at, double range, double *dist,
                       double *azimuth, double *bearing)
{
    bw_vec2_t in = bw_pose_to_local(d->pose, (bw_vec2_t){ at.x, at.y });
    double r = hypot(in.x, in.y);
    if (in.x <= 0 || r > range)
        return false;
    bw_vec2_t to = bw_pose_to_local(at, (bw_vec2_t){ d->pose.x, d->pose.y });
    *dist = r;
    *azimuth = atan2(in.y, in.x);
    *bearing = atan2(to.y, to.x);
    return true;
}

bw_pose_t bw_dock_robot_pose(const bw_dock_t *d, double radius)
{
    double c = cos(d->pose.theta), s = sin(d->pose.theta);
    return (bw_pose_t){ d->pose.x + radius * c, d->pose.y + radius * s,
                        bw_angle_norm(d->pose.theta + BW_PI) };
}

int bw_world_add_polygon(bw_world_t *w, const bw_vec2_t *v, unsigned n)
{
    if (!outline_ok(v, n))
        return BW_EINVAL;
    if (n > BW_WORLD_MAX_WALLS - w->nwalls)
        return BW_ENOSPC;
    bool fresh = !has_shapes(w);
    for (unsigned i = 0; i < n; i++) {
        bw_segment_t *s = &w->walls[w->nwalls++];
        s->a = v[i];
        s->b = v[(i + 1) % n];
    }
    extend(w, fresh, v, n);
    return 0;
}

static void box_corners(bw_vec2_t c[4], double x0, double y0, double x1, double y1)
{
    c[0] = (bw_vec2_t){ x0, y0 };
    c[1] = (bw_vec2_t){ x1, y0 };
    c[2] = (bw_vec2_t){ x1, y1 };
    c[3] = (bw_vec2_t){ x0, y1 };
}

int bw_world_add_box(bw_world_t *w, double x0, double y0, double x1, double y1)
{
    bw_vec2_t c[4];
    box_corners(c, x0, y0, x1, y1);
    return bw_world_add_polygon(w, c, 4);
}

int bw_world_add_drop(bw_world_t *w, const bw_vec2_t *v, unsigned n)
{
    if (n > BW_WORLD_MAX_POLY || !outline_ok(v, n))
        return BW_EINVAL;
    if (w->ndrops >= BW_WORLD_MAX_DROPS)
        return BW_ENOSPC;
    bool fresh = !has_shapes(w);
    bw_polygon_t *d = &w->drops[w->ndrops++];
    memset(d, 0, sizeof *d);
    d->n = n;
    memcpy(d->v, v, n * sizeof v[0]);
    extend(w, fresh, v, n);
    return 0;
}

int bw_world_add_drop_box(bw_world_t *w, double x0, double y0, double x1, double y1)
{
    bw_vec2_t c[4];
    box_corners(c, x0, y0, x1, y1);
    return bw_world_add_drop(w, c, 4);
}

void bw_world_default(bw_world_t *w)
{
    bw_world_init(w);
    (void)bw_world_add_box(w, 0.0, 0.0, 5.0, 4.0);
    (void)bw_world_add_box(w, 3.0, 0.75, 3.5, 1.25);
    (void)bw_world_add_drop_box(w, 0.0, 3.2, 1.2, 4.0);
    (void)bw_world_add_dock(w, (bw_pose_t){ 4.9, 3.0, BW_PI }, "");
    w->start = (bw_pose_t){ 1.0, 1.0, 0.0 };
    (void)bw_world_add_label(w, (bw_vec2_t){ 3.25, 1.0 }, "box");
}

int bw_world_add_label(bw_world_t *w, bw_vec2_t at, const char *text)
{
    size_t n = strlen(text);
    if (n == 0 || n >= BW_WORLD_LABEL_LEN || !isfinite(at.x) || !isfinite(at.y))
        return BW_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (text[i] < 0x20 || text[i] > 0x7E || text[i] == '<' || text[i] == '&')
            return BW_EINVAL; /* drawn into SVG as it is */
    if (w->nlabels == BW_WORLD_MAX_LABELS)
        return BW_ENOSPC;
    bw_label_t *l = &w->labels[w->nlabels++];
    l->at = at;
    memcpy(l->text, text, n + 1);
    return 0;
}

static double cross(double ax, double ay, double bx, double by) { return ax * by - ay * bx; }

double bw_world_raycast(const bw_world_t *w, bw_vec2_t origin, double angle, double max_range)
{
    double dx = cos(angle), dy = sin(angle);
    double best = max_range;
    for (size_t i = 0; i < w->nwalls; i++) {
        const bw_segment_t *s = &w->walls[i];
        double ex = s->b.x - s->a.x, ey = s->b.y - s->a.y;
        double denom = cross(dx, dy, ex, ey);
        /* Parallel (or nearly): a grazing ray hits the segment's neighbours
         * instead, so skipping it loses nothing in a closed outline. */
        if (fabs(denom) <= 1e-12 * hypot(ex, ey))
            continue;
        double wx = s->a.x - origin.x, wy = s->a.y - origin.y;
        double t = cross(wx, wy, ex, ey) / denom;
        double u = cross(wx, wy, dx, dy) / denom;
        if (t >= 0 && u >= 0 && u <= 1 && t < best)
            best = t;
    }
    return best;
}

double bw_world_clearance(const bw_world_t *w, bw_vec2_t p, bw_vec2_t *closest)
{
    /* Squared distances, one square root at the end: this runs for every
     * body at every physics step. */
    double best = NO_WALL * NO_WALL;
    bw_vec2_t at = p;
    for (size_t i = 0; i < w->nwalls; i++) {
        const bw_segment_t *s = &w->walls[i];
        double ex = s->b.x - s->a.x, ey = s->b.y - s->a.y;
        double len2 = ex * ex + ey * ey;
        /* len2 is 0 only for a wall written into the struct by hand. */
        double u = len2 > 0 ? ((p.x - s->a.x) * ex + (p.y - s->a.y) * ey) / len2 : 0;
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        bw_vec2_t q = { s->a.x + u * ex, s->a.y + u * ey };
        double dx = p.x - q.x, dy = p.y - q.y, d2 = dx * dx + dy * dy;
        if (d2 < best) {
            best = d2;
            at = q;
        }
    }
    if (closest)
        *closest = at;
    return best < NO_WALL * NO_WALL ? sqrt(best) : NO_WALL;
}

static bool in_polygon(const bw_polygon_t *poly, bw_vec2_t p)
{
    bool in = false;
    unsigned n = poly->n > BW_WORLD_MAX_POLY ? BW_WORLD_MAX_POLY : poly->n;
    for (unsigned i = 0, j = n - 1; i < n; j = i++) {
        bw_vec2_t a = poly->v[i], b = poly->v[j];
        if ((a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x)
            in = !in;
    }
    return in;
}

bool bw_world_is_drop(const bw_world_t *w, bw_vec2_t p)
{
    for (size_t i = 0; i < w->ndrops; i++)
        if (w->drops[i].n >= 3 && in_polygon(&w->drops[i], p))
            return true;
    return false;
}
