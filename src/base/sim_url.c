/* The robots of sim: URLs, emulated in this process (base.h): each one's
 * device made from the URL's parameters, its world, and the worlds robots
 * of one ?fleet=NAME share. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base_internal.h"

/* ---- shared worlds: sim: URLs with ?fleet=NAME ------------------------------- */

/* The robots of sim: URLs that name the same fleet live in one world and see
 * each other. The first one makes the world (its world= or its family's own),
 * the last one to close frees it. Robots without start= are placed along
 * the world's start, 0.6 m apart to the left. */
#define SHARED_SPACING 0.6

typedef struct bw_shared_world {
    struct bw_shared_world *next;
    char name[32];
    char world_path[224]; /* its world= ("": the first family's own world) */
    unsigned refs, joined;
    bw_world_t world;
    bw_fleet_t fleet;
} shared_world_t;

static shared_world_t *shared_worlds;

static int join_shared(bw_base_t *b, const char *name, const char *world, char *err, size_t errlen)
{
    shared_world_t *sh = shared_worlds;
    while (sh && strcmp(sh->name, name) != 0)
        sh = sh->next;
    if (sh) {
        if (world && strcmp(world, sh->world_path) != 0) {
            snprintf(err, errlen, "fleet=%s is already in the world %s, not %s", name,
                     *sh->world_path ? sh->world_path : "(its first robot's own)", world);
            return BW_EINVAL;
        }
    } else {
        if (strlen(name) >= sizeof sh->name || !*name) {
            snprintf(err, errlen, "fleet=%s: a name of 1 to %zu characters", name,
                     sizeof sh->name - 1);
            return BW_EINVAL;
        }
        sh = calloc(1, sizeof *sh);
        if (!sh) {
            snprintf(err, errlen, "out of memory");
            return BW_ENOMEM;
        }
        snprintf(sh->name, sizeof sh->name, "%s", name);
        snprintf(sh->world_path, sizeof sh->world_path, "%s", world ? world : "");
        int rc = world ? bw_world_load(&sh->world, world, err, errlen)
                       : bw_device_default_world(b->url.family, &sh->world);
        if (rc < 0) {
            if (!world)
                snprintf(err, errlen, "no emulated robot for family \"%s\"", b->url.family);
            free(sh);
            return rc;
        }
        bw_fleet_init(&sh->fleet, &sh->world);
        sh->next = shared_worlds;
        shared_worlds = sh;
    }
    sh->refs++;
    b->shared = sh;
    return 0;
}

void bw_base_leave_shared(bw_base_t *b)
{
    shared_world_t *sh = b->shared;
    if (!sh || --sh->refs > 0)
        return;
    for (shared_world_t **p = &shared_worlds; *p; p = &(*p)->next)
        if (*p == sh) {
            *p = sh->next;
            break;
        }
    free(sh);
}

/* start=X,Y,DEG: metres, metres, degrees. */
static int start_param(const bw_base_t *b, bw_pose_t *pose, char *err, size_t errlen)
{
    const char *text = bw_url_param(&b->url, "start");
    if (!text)
        return 0;
    char extra;
    double x, y, deg;
    if (sscanf(text, "%lf,%lf,%lf%c", &x, &y, &deg, &extra) != 3 || !isfinite(x) ||
        !isfinite(y) || !isfinite(deg) || fabs(x) > 1e6 || fabs(y) > 1e6) {
        snprintf(err, errlen, "start=%s: expected X,Y,DEGREES (metres, metres, degrees)", text);
        return BW_EINVAL;
    }
    *pose = (bw_pose_t){ x, y, deg * BW_PI / 180 };
    return 1;
}

int bw_base_open_sim(bw_base_t *b, double now, char *err, size_t errlen)
{
    bw_device_options_t o;
    bw_device_options_init(&o);
    const char *world = bw_url_param(&b->url, "world");
    const char *fleet = bw_url_param(&b->url, "fleet");
    o.model = bw_url_param(&b->url, "model");
    int src = start_param(b, &o.start, err, errlen);
    if (src < 0)
        return src;
    o.has_start = src > 0;
    if (b->opt.fleet) {
        if (fleet || world || !b->opt.world) {
            snprintf(err, errlen, "%s", fleet || world ? "fleet= and world= come from the options here"
                                                       : "a fleet in the options needs its world");
            return BW_EINVAL;
        }
        o.fleet = b->opt.fleet;
        o.world = b->opt.world;
    } else if (fleet) {
        if (b->opt.world) {
            snprintf(err, errlen, "fleet=%s: the fleet's world comes from the URL, not the options",
                     fleet);
            return BW_EINVAL;
        }
        int rc = join_shared(b, fleet, world, err, errlen);
        if (rc < 0)
            return rc;
        o.fleet = &b->shared->fleet;
        o.world = &b->shared->world;
        if (!o.has_start) {
            bw_pose_t s = b->shared->world.start;
            double k = SHARED_SPACING * b->shared->joined;
            o.start = (bw_pose_t){ s.x - k * sin(s.theta), s.y + k * cos(s.theta), s.theta };
            o.has_start = true;
        }
        b->shared->joined++;
    } else if (b->opt.world) {
        o.world = b->opt.world;
    } else if (world) {
        b->world = malloc(sizeof *b->world);
        if (!b->world)
            return BW_ENOMEM;
        int rc = bw_world_load(b->world, world, err, errlen);
        if (rc < 0)
            return rc;
        o.world = b->world;
    }
    /* The same ranges as `botwire sim`'s options. */
    double seed = 1, ber = 0, drop = 0, insert = 0, window = 0, battery = 1;
    int rc;
    if ((rc = bw_base_number_param(b, "noise", 0, 100, false, &o.noise, err, errlen)) < 0 ||
        (rc = bw_base_number_param(b, "window", 10, 60000, false, &window, err, errlen)) < 0 ||
        (rc = bw_base_number_param(b, "push", 0.1, 15, false, &o.push, err, errlen)) < 0 ||
        (rc = bw_base_number_param(b, "slope", -20, 20, false, &o.slope, err, errlen)) < 0 ||
        (rc = bw_base_number_param(b, "seed", 0, 1e15, true, &seed, err, errlen)) < 0 ||
        (rc = bw_base_number_param(b, "ber", 0, 0.1, false, &ber, err, errlen)) < 0 ||
        (rc = bw_base_number_param(b, "drop", 0, 0.5, false, &drop, err, errlen)) < 0 ||
        (rc = bw_base_number_param(b, "insert", 0, 0.5, false, &insert, err, errlen)) < 0 ||
        (rc = bw_base_number_param(b, "battery", 0, 1, false, &battery, err, errlen)) < 0)
        return rc;
    o.has_battery = bw_url_param(&b->url, "battery") != NULL;
    o.battery = battery;
    o.seed = (uint64_t)seed;
    o.command_timeout = window / 1000; /* lobot: ms, the Command Module's window */
    b->noisy = ber > 0 || drop > 0 || insert > 0;
    (void)bw_line_init(&b->line_up, ber, drop, insert, o.seed * 2 + 1);
    (void)bw_line_init(&b->line_down, ber, drop, insert, o.seed * 2 + 2);
    /* The robot's serial line: the family's rate, or ?baud=. */
    o.baud = b->baud;
    rc = bw_device_create(&b->device, b->url.family, &o, now, err, errlen);
    if (rc < 0)
        return rc;
    rc = bw_port_pair(&b->port, &b->dev_port, 1 << 16);
    if (rc < 0) {
        snprintf(err, errlen, "out of memory");
        return rc;
    }
    return 0;
}
