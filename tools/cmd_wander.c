/* `botwire wander`: the GRL layer's behaviour stack on any base. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "commands.h"
#include "botwire/svg.h"
#include "botwire/view.h"

#define TICK 0.05          /* s between behaviour ticks */
#define PROGRESS 1.0       /* s between progress lines */
#define SETTLE_MAX 3.0     /* s the robot is given to come to rest at the end */
#define MAX_POINTS 40000

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire wander URL [--for SECONDS] [--fast] [--speed M/S] [--seed N]\n"
            "                      [--stack NAMES] [--svg FILE] [--keep-out X0,Y0,X1,Y1]...\n"
            "                      [--view [HOST:]PORT]\n"
            "\n"
            "Wanders with the GRL behaviour stack on any base: a reflex after a bump, a\n"
            "cliff or a wheel drop (back away, turn away), sonar avoidance on bases with\n"
            "sonar, a cruise whose turn drifts at random; each guarded by sonar-safe, under\n"
            "drive-base, with passive braking where the base takes motor vectors. Prints a\n"
            "progress line a second, {\"t\":..,\"x\":..,\"y\":..,\"distance\":..,\"collisions\":..},\n"
            "with GRL's low-level signals where the base has them: raw_x, raw_y (the\n"
            "position in encoder counts: raw-base-x/y), bump_switches (one boolean per\n"
            "switch: bump-switch-state), dock_ir, buoys, joystick, power; then stops the robot;\n"
            "the last line is the summary\n"
            "{\"distance\":m,\"collisions\":n,\"min_clearance\":m,\"time\":s,...}. On a sim: URL the\n"
            "distance is the true path, collisions are touches of a wall in the world and the\n"
            "clearance is to the nearest wall; on a real robot they come from odometry, bump\n"
            "events and the sonars. Stairs a base cannot sense are kept out of: on a sim:\n"
            "URL the world's drop-offs, on a real robot the boxes given with --keep-out.\n"
            "\n"
            "%s"
            "\n"
            "  --for SECONDS    wander this long (default: until Ctrl-C)\n"
            "  --fast           virtual time, as fast as the machine goes (sim: URLs)\n"
            "  --speed M/S      cruising speed (default 0.25)\n"
            "  --seed N         the wander's random seed (default 1)\n"
            "  --stack NAMES    the behaviour stack (" CLI_STACK_HELP ")\n"
            "  --svg FILE       draw the world, the path and the sonar pings (sim: URLs)\n"
            "  --keep-out X0,Y0,X1,Y1  a box to stay out of, in the odometry frame (the\n"
            "                   start is 0,0 facing +x); up to 8\n"
            CLI_VIEW_HELP
            "                   (to watch: the behaviours drive, not the view's clients)\n"
            "  -h, --help       this help\n",
            cli_url_help);
}

/* The live view (--view), served as the robot is. */
static bw_view_t *wander_view;

typedef struct {
    double distance;
    unsigned long collisions;
    double min_clearance; /* INFINITY until known */
    bool touching;
    bw_pose_t last;
    unsigned long bumps;
} tally_t;

static json_t *tally_json(const tally_t *t, double time)
{
    json_t *o = json_object();
    json_object_set_new(o, "distance", json_real(round(t->distance * 1000) / 1000));
    json_object_set_new(o, "collisions", json_integer((json_int_t)t->collisions));
    json_object_set_new(o, "min_clearance", isfinite(t->min_clearance)
                                                ? json_real(round(t->min_clearance * 1000) / 1000)
                                                : json_null());
    json_object_set_new(o, "time", json_real(round(time * 1000) / 1000));
    return o;
}

static void print_line(json_t *o)
{
    json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(6));
    fputc('\n', stdout);
    json_decref(o);
}

int cmd_wander(int argc, char **argv)
{
    static const struct option opts[] = {
        { "for", required_argument, NULL, 'f' },  { "fast", no_argument, NULL, 'F' },
        { "speed", required_argument, NULL, 'v' }, { "seed", required_argument, NULL, 's' },
        { "svg", required_argument, NULL, 'o' },  { "help", no_argument, NULL, 'h' },
        { "keep-out", required_argument, NULL, 'k' }, { "view", required_argument, NULL, 'V' },
        { "view-token", required_argument, NULL, 'T' }, { "view-readonly", no_argument, NULL, 'Q' },
        { "stack", required_argument, NULL, 'S' },
        { NULL, 0, NULL, 0 },
    };
    const char *stack = NULL;
    double keep[8][4];
    unsigned nkeep = 0;
    double duration = INFINITY, speed = 0.25, seed = 1;
    bool fast = false;
    const char *svg = NULL;
    bw_view_options_t vo = { .cmd = "wander" };
    int c;
    optind = 0;
    while ((c = cli_getopt("wander", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'f':
            if (cli_number("wander", "--for", optarg, 0, 1e7, &duration) < 0)
                return 2;
            break;
        case 'F': fast = true; break;
        case 'v':
            if (cli_number("wander", "--speed", optarg, 0.02, 2, &speed) < 0)
                return 2;
            break;
        case 's':
            if (cli_number("wander", "--seed", optarg, 0, 1e15, &seed) < 0)
                return 2;
            break;
        case 'o': svg = optarg; break;
        case 'S':
            if (cli_stack("wander", optarg) < 0)
                return 2;
            stack = optarg;
            break;
        case 'k': {
            double *k = keep[nkeep];
            char extra;
            if (nkeep == 8 || sscanf(optarg, "%lf,%lf,%lf,%lf%c", &k[0], &k[1], &k[2], &k[3], &extra) != 4 ||
                !isfinite(k[0] + k[1] + k[2] + k[3]) || k[0] >= k[2] || k[1] >= k[3]) {
                cli_error("wander", nkeep == 8 ? "at most 8 --keep-out boxes"
                                               : "--keep-out wants X0,Y0,X1,Y1 (m, X0 < X1, Y0 < Y1), "
                                                 "not \"%s\"",
                          optarg);
                return 2;
            }
            nkeep++;
            break;
        }
        case 'V': vo.listen = optarg; break;
        case 'T': vo.token = optarg; break;
        case 'Q': vo.readonly = true; break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if ((fast || vo.token || vo.readonly) && !vo.listen == !fast) {
        cli_error("wander", fast ? "--view runs in real time, not with --fast"
                                 : "--view-token and --view-readonly go with --view [HOST:]PORT");
        return 2;
    }
    if (optind != argc - 1) {
        cli_error("wander", optind == argc ? "a robot URL is required (e.g. sim:p2os)"
                                           : "only one robot URL, please");
        return 2;
    }
    const char *url = argv[optind];
    bool sim_url = strncasecmp(url, "sim:", 4) == 0;
    if (fast && !sim_url) {
        cli_error("wander", "--fast needs a sim: URL (a real robot runs in real time)");
        return 2;
    }
    if (svg && !sim_url) {
        cli_error("wander", "--svg needs a sim: URL (the picture is of its world)");
        return 2;
    }
    char werr[512];
    if (svg && cli_check_writable(svg, werr, sizeof werr) < 0) {
        cli_error("wander", "--svg %s", werr); /* before the run, not after it */
        return 2;
    }

    cli_clock_t clk = { fast, fast ? 0.0 : cli_now() };
    char err[256];
    /* Online, and the robot's bytes are of its family: else one line on
     * what was heard instead. */
    int opened;
    bw_base_t *b = cli_open_online("wander", url, &clk, 5, &opened);
    if (!b)
        return opened;
    const bw_base_state_t *st = bw_base_state(b);
    char verr[512];
    if (vo.listen && bw_view_open(&wander_view, &vo, verr, sizeof verr) < 0) {
        cli_error("wander", "%s", verr);
        bw_base_close(b, clk.now);
        return strstr(verr, "wants") ? 2 : 1;
    }
    if (wander_view) {
        bw_view_add_base(wander_view, b, url, false, clk.now);
        bw_view_start(wander_view);
        fprintf(stderr, "botwire wander: view on %s\n", bw_view_url(wander_view));
    }
    const bw_sim_t *sim = sim_url ? bw_device_sim(bw_base_device(b)) : NULL;
    bw_pose_t origin = sim ? sim->body.pose : (bw_pose_t){ 0, 0, 0 };
    bw_grl_t g;
    bw_grl_init(&g, b);
    static bw_wander_t w;
    bw_wander_init(&w, &g, (uint64_t)seed, speed);
    if (stack)
        (void)bw_wander_set_stack(&w, stack); /* checked with the options */
    /* Drop-offs a base cannot sense (no cliff sensors): on a sim: URL the
     * world's, in the odometry frame, as an operator marks the stairs;
     * --keep-out boxes on any base. */
    for (size_t i = 0; sim && !(bw_base_caps(b) & BW_CAP_CLIFFS) && i < sim->world->ndrops; i++) {
        const bw_polygon_t *d = &sim->world->drops[i];
        bw_vec2_t poly[BW_WORLD_MAX_POLY];
        for (unsigned k = 0; k < d->n; k++)
            poly[k] = bw_pose_to_local(origin, d->v[k]);
        (void)bw_wander_keep_out(&w, poly, d->n);
    }
    for (unsigned i = 0; i < nkeep; i++) {
        bw_vec2_t poly[4] = { { keep[i][0], keep[i][1] }, { keep[i][2], keep[i][1] },
                              { keep[i][2], keep[i][3] }, { keep[i][0], keep[i][3] } };
        if (bw_wander_keep_out(&w, poly, 4) < 0) {
            cli_error("wander", "too many keep-out zones");
            bw_base_close(b, clk.now);
            return 2;
        }
    }
    tally_t tl = { 0, 0, INFINITY, false, st->pose, 0 };
    bw_pose_t *trace = svg ? calloc(MAX_POINTS, sizeof *trace) : NULL;
    bw_vec2_t *pings = svg ? calloc(MAX_POINTS, sizeof *pings) : NULL;
    size_t ntrace = 0, npings = 0;
    if (svg && (!trace || !pings)) {
        cli_error("wander", "out of memory");
        bw_base_close(b, clk.now);
        return 1;
    }

    double t0 = clk.now, end = t0 + duration, next_tick = t0, next_progress = t0 + PROGRESS;
    double next_ping = t0;
    bool output_gone = false;
    int out_errno = 0;
    bw_event_t ev;
    while (!cli_interrupted && clk.now < end) {
        while (bw_base_next_event(b, &ev))
            if (ev.type == BW_EV_BUMP && ev.on) {
                tl.bumps++;
                if (!sim)
                    tl.collisions++;
            }
        if (sim) {
            bool touching = sim->body.contact;
            tl.collisions += touching && !tl.touching;
            tl.touching = touching;
            tl.distance = sim->travelled;
            double clear = bw_world_clearance(sim->world, (bw_vec2_t){ sim->body.pose.x,
                                                                       sim->body.pose.y },
                                              NULL) -
                           sim->body.prm.radius;
            tl.min_clearance = fmin(tl.min_clearance, clear);
        } else {
            tl.distance += hypot(st->pose.x - tl.last.x, st->pose.y - tl.last.y);
            tl.last = st->pose;
            for (unsigned i = 0; i < st->nranges; i++)
                if (st->ranges[i].t > 0 && st->ranges[i].range < st->ranges[i].max_range)
                    tl.min_clearance = fmin(tl.min_clearance, st->ranges[i].range);
        }
        if (clk.now >= next_tick - 1e-9) {
            g.now = clk.now;
            bw_wander_tick(&w);
            next_tick = clk.now + TICK;
            if (trace && ntrace < MAX_POINTS)
                trace[ntrace++] = sim->body.pose;
            if (pings && clk.now >= next_ping) {
                bw_ping_t p[BW_BASE_MAX_RANGES];
                unsigned n = bw_grl_pings(st, p, BW_BASE_MAX_RANGES);
                for (unsigned i = 0; i < n && npings < MAX_POINTS; i++)
                    if (p[i].valid)
                        pings[npings++] = bw_pose_to_global(origin, p[i].global_position);
                next_ping = clk.now + 0.5;
            }
        }
        if (clk.now >= next_progress - 1e-9) {
            json_t *o = json_object();
            json_object_set_new(o, "t", json_real(round((clk.now - t0) * 1000) / 1000));
            json_object_set_new(o, "x", json_real(st->pose.x));
            json_object_set_new(o, "y", json_real(st->pose.y));
            json_object_set_new(o, "distance", json_real(round(tl.distance * 1000) / 1000));
            json_object_set_new(o, "collisions", json_integer((json_int_t)tl.collisions));
            cli_put_sensors(o, b, st);
            print_line(o);
            next_progress += PROGRESS;
            if (fflush(stdout) != 0 || ferror(stdout)) {
                out_errno = errno;
                output_gone = true;
                break;
            }
        }
        cli_advance(&clk, b, wander_view, fmin(fmin(next_tick, next_progress), end));
    }
    int signalled = cli_interrupted;
    cli_interrupted = 0;
    bool stop_sent = bw_base_stop(b, clk.now) == 0;
    double settle_end = clk.now + SETTLE_MAX;
    do {
        cli_advance(&clk, b, wander_view, fmin(settle_end, clk.now + 0.1));
    } while (clk.now < settle_end && !cli_interrupted &&
             (fabs(st->v) > 0.005 || fabs(st->w) > 0.01) && st->online);
    json_t *o = tally_json(&tl, clk.now - t0);
    json_object_set_new(o, "reflexes", json_integer((json_int_t)w.reflexes));
    json_object_set_new(o, "bumps", json_integer((json_int_t)tl.bumps));
    if (g.ignored_parts)
        json_object_set_new(o, "motor_vector_parts_ignored", json_integer((json_int_t)g.ignored_parts));
    print_line(o);
    int status = 0;
    if (svg) {
        bw_svg_path_t path = { trace, ntrace, "stroke=\"#1565c0\" stroke-width=\"2\"", "#1565c0",
                                "true path" };
        bw_svg_points_t marks = { pings, npings, "#d84315" };
        char title[160], note[200];
        snprintf(title, sizeof title, "on %s", url);
        snprintf(note, sizeof note, "%.1f m in %.0f s, %lu collisions;\ndots: the sonar pings, "
                                    "placed where they were heard",
                 tl.distance, clk.now - t0, tl.collisions);
        bw_svg_panel_t panel = { .world = sim->world, .paths = &path, .npaths = 1, .points = &marks,
                                  .npoints = 1, .title = title, .note = note };
        if (bw_svg_write_panels(svg, &panel, 1, 1, "botwire wander", "", err, sizeof err) < 0) {
            cli_error("wander", "%s", err);
            status = 1;
        }
    }
    bw_base_close(b, clk.now);
    bw_view_close(wander_view);
    wander_view = NULL;
    free(trace);
    free(pings);
    if (!signalled)
        signalled = cli_interrupted;
    if (output_gone)
        return cli_write_failed("wander", out_errno);
    if (signalled)
        return 128 + signalled;
    if (!stop_sent) {
        cli_error("wander", "the link was lost: the stop could not be sent");
        return 1;
    }
    return status;
}
