/* What the live view publishes on each channel (internal.h): the
 * robots' state, ranges and link, the world, the scene, the transforms,
 * the log of events; and when it is due. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "internal.h"

static json_t *jtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    json_t *o = json_object();
    json_object_set_new(o, "sec", json_integer((json_int_t)ts.tv_sec));
    json_object_set_new(o, "nsec", json_integer((json_int_t)ts.tv_nsec));
    return o;
}

static json_t *jvec3(double x, double y, double z)
{
    json_t *o = json_object();
    json_object_set_new(o, "x", json_real(x));
    json_object_set_new(o, "y", json_real(y));
    json_object_set_new(o, "z", json_real(z));
    return o;
}

static json_t *jquat_yaw(double theta)
{
    json_t *o = json_object();
    json_object_set_new(o, "x", json_real(0));
    json_object_set_new(o, "y", json_real(0));
    json_object_set_new(o, "z", json_real(sin(theta / 2)));
    json_object_set_new(o, "w", json_real(cos(theta / 2)));
    return o;
}

static json_t *jpose3(double x, double y, double z, double theta)
{
    json_t *o = json_object();
    json_object_set_new(o, "position", jvec3(x, y, z));
    json_object_set_new(o, "orientation", jquat_yaw(theta));
    return o;
}

static json_t *jpose2(bw_pose_t p)
{
    json_t *o = json_object();
    json_object_set_new(o, "x", json_real(p.x));
    json_object_set_new(o, "y", json_real(p.y));
    json_object_set_new(o, "theta", json_real(p.theta));
    return o;
}

static json_t *jcolor(double r, double g, double b, double a)
{
    json_t *o = json_object();
    json_object_set_new(o, "r", json_real(r));
    json_object_set_new(o, "g", json_real(g));
    json_object_set_new(o, "b", json_real(b));
    json_object_set_new(o, "a", json_real(a));
    return o;
}

/* ---- what is published ------------------------------------------------------------ */

static bw_pose_t truth_of(const robot_t *r)
{
    return bw_device_sim(r->dev)->body.pose;
}

static bw_pose_t compose(bw_pose_t a, bw_pose_t b)
{
    return (bw_pose_t){ a.x + b.x * cos(a.theta) - b.y * sin(a.theta),
                        a.y + b.x * sin(a.theta) + b.y * cos(a.theta),
                        bw_angle_norm(a.theta + b.theta) };
}

/* Where the robot is drawn: its true pose when emulated, else its
 * odometry (in its odometry frame). */
static bw_pose_t drawn_pose(const robot_t *r, const char **frame)
{
    if (r->dev) {
        *frame = "world";
        return truth_of(r);
    }
    *frame = NULL;
    return bw_base_state(r->base)->pose;
}

static json_t *pose_in_frame(const char *frame, bw_pose_t p)
{
    json_t *o = json_object();
    json_object_set_new(o, "timestamp", jtime());
    json_object_set_new(o, "frame_id", json_string(frame));
    json_object_set_new(o, "pose", jpose3(p.x, p.y, 0, p.theta));
    return o;
}

static json_t *transform(const char *parent, const char *child, bw_pose_t p)
{
    json_t *o = json_object();
    json_object_set_new(o, "timestamp", jtime());
    json_object_set_new(o, "parent_frame_id", json_string(parent));
    json_object_set_new(o, "child_frame_id", json_string(child));
    json_object_set_new(o, "translation", jvec3(p.x, p.y, 0));
    json_object_set_new(o, "rotation", jquat_yaw(p.theta));
    return o;
}

static json_t *state_json(bw_view_t *v, robot_t *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "timestamp", jtime());
    json_object_set_new(o, "robot", json_string(r->name));
    json_object_set_new(o, "url", json_string(r->url));
    json_object_set_new(o, "family", json_string(r->family));
    json_object_set_new(o, "radius", json_real(r->radius));
    json_object_set_new(o, "max_v", json_real(r->max_v));
    json_object_set_new(o, "max_w", json_real(r->max_w));
    json_object_set_new(o, "steer", json_boolean(r->steer));
    json_object_set_new(o, "emulated", json_boolean(r->dev != NULL));
    if (r->dev) {
        json_object_set_new(o, "truth", jpose2(truth_of(r)));
        json_object_set_new(o, "origin", jpose2(r->origin));
    }
    if (r->base) {
        const bw_base_state_t *s = bw_base_state(r->base);
        json_object_set_new(o, "online", json_boolean(s->online));
        json_object_set_new(o, "odometry", jpose2(s->pose));
        json_object_set_new(o, "v", json_real(s->v));
        json_object_set_new(o, "w", json_real(s->w));
        json_object_set_new(o, "estimated", json_boolean(s->estimated));
        json_object_set_new(o, "bumpers", json_integer(s->bumpers));
        json_object_set_new(o, "cliffs", json_integer(s->cliffs));
        json_object_set_new(o, "wheel_drops", json_integer(s->wheel_drops));
        json_object_set_new(o, "battery", json_real(s->battery));
        if (s->battery_fraction > 0)
            json_object_set_new(o, "fraction", json_real(s->battery_fraction));
        if (bw_base_caps(r->base) & BW_CAP_CHARGING) {
            static const char *const charge[] = { "unknown", "discharging", "charging", "charged" };
            json_object_set_new(o, "charging", json_string(charge[s->charging <= BW_CHARGE_CHARGED
                                                                      ? s->charging
                                                                      : 0]));
        }
        if (s->self_driving)
            json_object_set_new(o, "self_driving", json_true());
        if (s->mode[0])
            json_object_set_new(o, "mode", json_string(s->mode));
    } else {
        const bw_body_t *b = &bw_device_sim(r->dev)->body;
        json_object_set_new(o, "online", json_true());
        json_object_set_new(o, "v", json_real(b->v));
        json_object_set_new(o, "w", json_real(b->w));
        json_object_set_new(o, "bumpers", json_integer(b->contact ? BW_BUMP_FRONT : 0));
        json_object_set_new(o, "cliffs", json_integer(b->cliff));
        json_object_set_new(o, "wheel_drops",
                            json_integer((b->drop_left ? BW_DROP_LEFT : 0u) |
                                         (b->drop_right ? BW_DROP_RIGHT : 0u)));
        json_object_set_new(o, "battery", json_real(b->battery));
        json_object_set_new(o, "docked", json_boolean(b->docked));
    }
    if (r->steer) {
        json_t *c = json_object();
        json_object_set_new(c, "v", json_real(r->tv));
        json_object_set_new(c, "w", json_real(r->tw));
        json_object_set_new(c, "age", isfinite(r->tt) ? json_real(v->now - r->tt) : json_null());
        json_object_set_new(o, "command", c);
    }
    return o;
}

static json_t *ranges_json(robot_t *r)
{
    const bw_base_state_t *s = bw_base_state(r->base);
    json_t *o = json_object(), *a = json_array();
    json_object_set_new(o, "timestamp", jtime());
    char frame[48];
    snprintf(frame, sizeof frame, "%s/base_link", r->name);
    json_object_set_new(o, "frame_id", json_string(frame));
    for (unsigned i = 0; i < s->nranges; i++) {
        const bw_range_t *g = &s->ranges[i];
        json_t *e = json_object();
        json_object_set_new(e, "kind", json_string(g->kind == BW_RANGE_IR ? "ir" : "sonar"));
        json_object_set_new(e, "mount", jpose2(g->mount));
        json_object_set_new(e, "at", jpose2(g->at)); /* odometry when it was heard */
        json_object_set_new(e, "range", g->t > 0 ? json_real(g->range) : json_null());
        json_object_set_new(e, "max_range", json_real(g->max_range));
        json_object_set_new(e, "age", g->t > 0 ? json_real(s->t - g->t) : json_null());
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "ranges", a);
    return o;
}

static json_t *link_json(bw_view_t *v, robot_t *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "timestamp", jtime());
    json_object_set_new(o, "robot", json_string(r->name));
    const bw_parse_stats_t *l;
    if (r->base) {
        const bw_base_state_t *s = bw_base_state(r->base);
        l = &s->link;
        json_object_set_new(o, "side", json_string("host"));
        json_object_set_new(o, "online", json_boolean(s->online));
        json_object_set_new(o, "reconnects", json_integer((json_int_t)s->reconnects));
    } else {
        l = &bw_device_stats(r->dev)->link;
        json_object_set_new(o, "side", json_string("robot"));
        json_object_set_new(o, "dropped_bytes", json_integer((json_int_t)bw_device_dropped(r->dev)));
    }
    json_object_set_new(o, "frames", json_integer((json_int_t)l->frames));
    json_object_set_new(o, "rejected", json_integer((json_int_t)(l->checksum_errors + l->length_errors)));
    json_object_set_new(o, "skipped_bytes", json_integer((json_int_t)l->skipped_bytes));
    json_object_set_new(o, "unknown", json_integer((json_int_t)l->unknown));
    json_object_set_new(o, "implausible", json_integer((json_int_t)l->implausible));
    if (r->last_link_t > 0 && v->now > r->last_link_t)
        r->frame_rate = (double)(l->frames - r->last_frames) / (v->now - r->last_link_t);
    r->last_frames = l->frames;
    r->last_link_t = v->now;
    json_object_set_new(o, "frame_rate", json_real(round(r->frame_rate * 10) / 10));
    return o;
}

json_t *view_world_json(bw_view_t *v)
{
    const bw_world_t *w = v->world;
    json_t *o = json_object(), *walls = json_array(), *drops = json_array(), *labels = json_array();
    json_object_set_new(o, "frame_id", json_string("world"));
    json_object_set_new(o, "extent", json_pack("[ffff]", w->min_x, w->min_y, w->max_x, w->max_y));
    for (size_t i = 0; i < w->nwalls; i++)
        json_array_append_new(walls, json_pack("[ffff]", w->walls[i].a.x, w->walls[i].a.y,
                                               w->walls[i].b.x, w->walls[i].b.y));
    for (size_t i = 0; i < w->ndrops; i++) {
        json_t *poly = json_array();
        for (unsigned k = 0; k < w->drops[i].n; k++)
            json_array_append_new(poly, json_pack("{sfsf}", "x", w->drops[i].v[k].x, "y",
                                                  w->drops[i].v[k].y));
        json_array_append_new(drops, poly);
    }
    for (size_t i = 0; i < w->nlabels; i++)
        json_array_append_new(labels, json_pack("{sfsfss}", "x", w->labels[i].at.x, "y",
                                                w->labels[i].at.y, "text", w->labels[i].text));
    json_object_set_new(o, "walls", walls);
    json_object_set_new(o, "drops", drops);
    json_object_set_new(o, "labels", labels);
    /* "dock": the first (as before there were several); "docks": all */
    json_object_set_new(o, "dock", w->ndocks ? jpose2(w->docks[0].pose) : json_null());
    json_t *docks = json_array();
    for (size_t i = 0; i < w->ndocks; i++)
        json_array_append_new(docks, json_pack("{sfsfsfss}", "x", w->docks[i].pose.x, "y",
                                               w->docks[i].pose.y, "theta", w->docks[i].pose.theta,
                                               "family", w->docks[i].family));
    json_object_set_new(o, "docks", docks);
    return o;
}

/* A SceneEntity with every list Foxglove's schema has. */
static json_t *entity(const char *frame, const char *id)
{
    json_t *e = json_object();
    json_object_set_new(e, "timestamp", jtime());
    json_object_set_new(e, "frame_id", json_string(frame));
    json_object_set_new(e, "id", json_string(id));
    json_object_set_new(e, "lifetime", json_pack("{sisi}", "sec", 0, "nsec", 0));
    json_object_set_new(e, "frame_locked", json_false());
    const char *lists[] = { "metadata", "arrows", "cubes", "spheres", "cylinders",
                            "lines", "triangles", "texts", "models" };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        json_object_set_new(e, lists[i], json_array());
    return e;
}

static json_t *line(int type, double thickness, json_t *points, json_t *color)
{
    json_t *l = json_object();
    json_object_set_new(l, "type", json_integer(type));
    json_object_set_new(l, "pose", jpose3(0, 0, 0, 0));
    json_object_set_new(l, "thickness", json_real(thickness));
    json_object_set_new(l, "scale_invariant", json_false());
    json_object_set_new(l, "points", points);
    json_object_set_new(l, "color", color);
    json_object_set_new(l, "colors", json_array());
    json_object_set_new(l, "indices", json_array());
    return l;
}

static json_t *scene_world(bw_view_t *v)
{
    const bw_world_t *w = v->world;
    json_t *e = entity("world", "world");
    json_t *pts = json_array();
    for (size_t i = 0; i < w->nwalls; i++) {
        json_array_append_new(pts, jvec3(w->walls[i].a.x, w->walls[i].a.y, 0));
        json_array_append_new(pts, jvec3(w->walls[i].b.x, w->walls[i].b.y, 0));
    }
    json_t *lines = json_object_get(e, "lines");
    json_array_append_new(lines, line(2, 0.04, pts, jcolor(0.25, 0.25, 0.3, 1)));
    for (size_t i = 0; i < w->ndrops; i++) {
        json_t *p = json_array();
        for (unsigned k = 0; k < w->drops[i].n; k++)
            json_array_append_new(p, jvec3(w->drops[i].v[k].x, w->drops[i].v[k].y, 0));
        json_array_append_new(lines, line(1, 0.03, p, jcolor(0.85, 0.2, 0.15, 1)));
    }
    for (size_t i = 0; i < w->ndocks; i++) { /* each dock's body, behind its face */
        const bw_pose_t *d = &w->docks[i].pose;
        double back = BW_DOCK_BACK + 0.06;
        json_t *c = json_object();
        json_object_set_new(c, "pose", jpose3(d->x - back * cos(d->theta), d->y - back * sin(d->theta),
                                              0.05, d->theta));
        json_object_set_new(c, "size", jvec3(0.12, BW_DOCK_WIDTH, 0.1));
        json_object_set_new(c, "color", jcolor(0.1, 0.6, 0.3, 1));
        json_array_append_new(json_object_get(e, "cubes"), c);
    }
    for (size_t i = 0; i < w->nlabels; i++) {
        json_t *t = json_object();
        json_object_set_new(t, "pose", jpose3(w->labels[i].at.x, w->labels[i].at.y, 0.2, 0));
        json_object_set_new(t, "billboard", json_true());
        json_object_set_new(t, "font_size", json_real(14));
        json_object_set_new(t, "scale_invariant", json_true());
        json_object_set_new(t, "color", jcolor(0.2, 0.2, 0.2, 1));
        json_object_set_new(t, "text", json_string(w->labels[i].text));
        json_array_append_new(json_object_get(e, "texts"), t);
    }
    return e;
}

static json_t *scene_robot(robot_t *r)
{
    const char *frame;
    bw_pose_t p = drawn_pose(r, &frame);
    char odom[48];
    if (!frame) {
        snprintf(odom, sizeof odom, "%s/odom", r->name);
        frame = odom;
    }
    json_t *e = entity(frame, r->name);
    json_t *cy = json_object();
    json_object_set_new(cy, "pose", jpose3(p.x, p.y, 0.05, p.theta));
    json_object_set_new(cy, "size", jvec3(2 * r->radius, 2 * r->radius, 0.1));
    json_object_set_new(cy, "bottom_scale", json_real(1));
    json_object_set_new(cy, "top_scale", json_real(1));
    bool bump = r->base ? bw_base_state(r->base)->bumpers != 0 : bw_device_sim(r->dev)->body.contact;
    json_object_set_new(cy, "color", bump ? jcolor(0.9, 0.2, 0.1, 0.9) : jcolor(0.1, 0.4, 0.8, 0.9));
    json_array_append_new(json_object_get(e, "cylinders"), cy);
    json_t *ar = json_object();
    json_object_set_new(ar, "pose", jpose3(p.x, p.y, 0.12, p.theta));
    json_object_set_new(ar, "shaft_length", json_real(r->radius));
    json_object_set_new(ar, "shaft_diameter", json_real(0.03));
    json_object_set_new(ar, "head_length", json_real(0.08));
    json_object_set_new(ar, "head_diameter", json_real(0.08));
    json_object_set_new(ar, "color", jcolor(1, 0.8, 0.1, 1));
    json_array_append_new(json_object_get(e, "arrows"), ar);
    /* Each range reading as a ray from its mount, where the robot is drawn. */
    if (r->base) {
        const bw_base_state_t *s = bw_base_state(r->base);
        json_t *pts = json_array();
        for (unsigned i = 0; i < s->nranges; i++) {
            const bw_range_t *g = &s->ranges[i];
            if (g->t <= 0)
                continue;
            bw_pose_t m = compose(p, g->mount);
            json_array_append_new(pts, jvec3(m.x, m.y, 0.1));
            json_array_append_new(pts, jvec3(m.x + g->range * cos(m.theta),
                                             m.y + g->range * sin(m.theta), 0.1));
        }
        json_array_append_new(json_object_get(e, "lines"),
                              line(2, 0.01, pts, jcolor(0.95, 0.55, 0.1, 0.8)));
    }
    json_t *t = json_object();
    json_object_set_new(t, "pose", jpose3(p.x, p.y, 0.3, 0));
    json_object_set_new(t, "billboard", json_true());
    json_object_set_new(t, "font_size", json_real(12));
    json_object_set_new(t, "scale_invariant", json_true());
    json_object_set_new(t, "color", jcolor(0.1, 0.1, 0.1, 1));
    json_object_set_new(t, "text", json_string(r->name));
    json_array_append_new(json_object_get(e, "texts"), t);
    return e;
}

json_t *view_scene(bw_view_t *v, bool with_world)
{
    json_t *o = json_object(), *ents = json_array();
    json_object_set_new(o, "deletions", json_array());
    if (with_world && v->world)
        json_array_append_new(ents, scene_world(v));
    for (int i = 0; i < v->nrobots; i++)
        json_array_append_new(ents, scene_robot(&v->robots[i]));
    json_object_set_new(o, "entities", ents);
    return o;
}

static json_t *transforms(bw_view_t *v)
{
    json_t *o = json_object(), *a = json_array();
    for (int i = 0; i < v->nrobots; i++) {
        robot_t *r = &v->robots[i];
        char odom[48], base[48];
        snprintf(odom, sizeof odom, "%s/odom", r->name);
        snprintf(base, sizeof base, "%s/base_link", r->name);
        if (r->base) {
            if (r->has_origin)
                json_array_append_new(a, transform("world", odom, r->origin));
            json_array_append_new(a, transform(odom, base, bw_base_state(r->base)->pose));
        } else {
            json_array_append_new(a, transform("world", base, truth_of(r)));
        }
    }
    json_object_set_new(o, "transforms", a);
    return o;
}

void view_log_event(bw_view_t *v, robot_t *r, int level, const char *fmt, ...)
{
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_t *o = json_object();
    json_object_set_new(o, "timestamp", jtime());
    json_object_set_new(o, "level", json_integer(level));
    json_object_set_new(o, "message", json_string(text));
    json_object_set_new(o, "name", json_string(r->name));
    json_object_set_new(o, "file", json_string(""));
    json_object_set_new(o, "line", json_integer(0));
    view_publish(v, 4, o, NULL);
}

/* Events from what changed since the last publish (the caller's loop takes
 * the base's own events: the view must not steal them). */
static void events(bw_view_t *v, robot_t *r)
{
    bool online;
    uint32_t bumpers, cliffs, drops;
    if (r->base) {
        const bw_base_state_t *s = bw_base_state(r->base);
        online = s->online;
        bumpers = s->bumpers;
        cliffs = s->cliffs;
        drops = s->wheel_drops;
    } else {
        const bw_body_t *b = &bw_device_sim(r->dev)->body;
        online = true;
        bumpers = b->contact ? BW_BUMP_FRONT : 0;
        cliffs = b->cliff;
        drops = (b->drop_left ? BW_DROP_LEFT : 0u) | (b->drop_right ? BW_DROP_RIGHT : 0u);
    }
    if (r->seen) {
        if (online != r->online)
            view_log_event(v, r, online ? 2 : 4, "%s", online ? "online" : "offline");
        if (bumpers != r->bumpers)
            view_log_event(v, r, bumpers ? 3 : 2, "bump %s (bumpers 0x%x)", bumpers ? "on" : "off",
                      bumpers);
        if (cliffs != r->cliffs)
            view_log_event(v, r, cliffs ? 3 : 2, "cliff %s (0x%x)", cliffs ? "on" : "off", cliffs);
        if (drops != r->drops)
            view_log_event(v, r, drops ? 3 : 2, "wheel drop %s (0x%x)", drops ? "on" : "off", drops);
    }
    r->seen = true;
    r->online = online;
    r->bumpers = bumpers;
    r->cliffs = cliffs;
    r->drops = drops;
}

static bool subscribed(const bw_view_t *v, uint32_t id)
{
    for (unsigned i = 0; i < v->nch; i++)
        if (v->ch[i].id == id)
            return v->ch[i].subscribers > 0;
    return false;
}

void view_publish_due(bw_view_t *v)
{
    unsigned t = v->tick++;
    for (int i = 0; i < v->nrobots; i++) {
        robot_t *r = &v->robots[i];
        events(v, r);
        if (r->base && subscribed(v, ROBOT_CHANNEL(i, K_ODOM))) {
            char frame[48];
            snprintf(frame, sizeof frame, "%s/odom", r->name);
            view_publish(v, ROBOT_CHANNEL(i, K_ODOM), pose_in_frame(frame, bw_base_state(r->base)->pose),
                    NULL);
        }
        if (r->dev && subscribed(v, ROBOT_CHANNEL(i, K_TRUTH)))
            view_publish(v, ROBOT_CHANNEL(i, K_TRUTH), pose_in_frame("world", truth_of(r)), NULL);
        if (subscribed(v, ROBOT_CHANNEL(i, K_STATE)))
            view_publish(v, ROBOT_CHANNEL(i, K_STATE), state_json(v, r), NULL);
        if (t % 2 == 0 && r->base && subscribed(v, ROBOT_CHANNEL(i, K_RANGES)))
            view_publish(v, ROBOT_CHANNEL(i, K_RANGES), ranges_json(r), NULL);
        if (t % 10 == 0 && subscribed(v, ROBOT_CHANNEL(i, K_LINK)))
            view_publish(v, ROBOT_CHANNEL(i, K_LINK), link_json(v, r), NULL);
    }
    if (subscribed(v, 1))
        view_publish(v, 1, transforms(v), NULL);
    if (t % 2 == 0 && subscribed(v, 2))
        view_publish(v, 2, view_scene(v, t % 100 == 0), NULL);
    if (t % 100 == 0 && v->world && subscribed(v, 3))
        view_publish(v, 3, view_world_json(v), NULL);
}
