/* `botwire demo`: the main job of `make demo`. An emulated Kobuki drives a
 * square in the built-in room, in virtual time, through the real protocol. */
#include <getopt.h>
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "svg.h"

#define TRACE_PERIOD 0.1 /* s between points of the drawn paths */
#define MAX_POINTS 20000

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire demo [--side M] [--noise X] [--seed N] [--world FILE] [--svg FILE]\n"
            "\n"
            "An emulated Kobuki in the built-in 5 m x 4 m room drives a square by odometry,\n"
            "in virtual time (as fast as the machine goes), speaking the real protocol:\n"
            "Base Control frames out, 50 Hz feedback in. Prints the odometry against the\n"
            "simulated true pose at every corner and draws the room and both paths.\n"
            "\n"
            "  --side M         side of the square (default 1)\n"
            "  --noise X        wheel slip and encoder noise, 1 = nominal (default 1)\n"
            "  --seed N         noise seed (default 1)\n"
            "  --world FILE     another world (see docs/world-format.md)\n"
            "  --svg FILE       the picture (default demo.svg)\n"
            "  -h, --help       this help\n");
}

typedef struct {
    bw_pose_t *truth, *odo;
    size_t n;
} trace_t;

static void trace_add(trace_t *tr, bw_pose_t truth, bw_pose_t odo_world)
{
    if (tr->n < MAX_POINTS) {
        tr->truth[tr->n] = truth;
        tr->odo[tr->n] = odo_world;
        tr->n++;
    }
}

static double deg(double rad) { return rad * 180.0 / BW_PI; }

static void print_row(const char *label, bw_pose_t odo, bw_pose_t truth, bw_pose_t odo_world)
{
    printf("  %-7s %7.3f %7.3f %7.1f     %7.3f %7.3f %7.1f     %6.1f mm %5.2f deg\n", label, odo.x,
           odo.y, deg(odo.theta), truth.x, truth.y, deg(truth.theta),
           1000 * hypot(odo_world.x - truth.x, odo_world.y - truth.y),
           fabs(deg(bw_angle_diff(odo_world.theta, truth.theta))));
}

int cmd_demo(int argc, char **argv)
{
    static const struct option opts[] = {
        { "side", required_argument, NULL, 'S' },  { "noise", required_argument, NULL, 'n' },
        { "seed", required_argument, NULL, 's' },  { "world", required_argument, NULL, 'W' },
        { "svg", required_argument, NULL, 'o' },   { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    double side = 1.0, noise = 1, seed = 1;
    const char *world = NULL, *svg = "demo.svg";
    int c;
    optind = 0;
    while ((c = cli_getopt("demo", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'S':
            if (cli_number("demo", "--side", optarg, 0.1, 10, &side) < 0)
                return 2;
            break;
        case 'n':
            if (cli_number("demo", "--noise", optarg, 0, 100, &noise) < 0)
                return 2;
            break;
        case 's':
            if (cli_number("demo", "--seed", optarg, 0, 1e15, &seed) < 0)
                return 2;
            break;
        case 'W': world = optarg; break;
        case 'o': svg = optarg; break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (optind < argc) {
        cli_error("demo", "unexpected argument \"%s\"", argv[optind]);
        return 2;
    }
    char url[1024], err[512];
    int len = snprintf(url, sizeof url, "sim:kobuki?noise=%g&seed=%.0f", noise, seed);
    if (world)
        len += snprintf(url + len, sizeof url - (size_t)len, "&world=%s", world);
    if (len >= (int)sizeof url) {
        cli_error("demo", "world path too long");
        return 2;
    }

    double wall0 = cli_now(), now = 0;
    bw_base_t *b;
    if (bw_base_open(&b, url, NULL, now, err, sizeof err) < 0) {
        cli_error("demo", "%s", err);
        return 1;
    }
    const bw_base_state_t *st = bw_base_state(b);
    const bw_sim_t *sim = bw_device_sim(bw_base_device(b));
    while (!st->online && now < 1.0) {
        now = bw_base_next_deadline(b);
        bw_base_poll(b, now);
    }
    if (!st->online) {
        cli_error("demo", "the emulated robot did not answer");
        bw_base_close(b, now);
        return 1;
    }
    /* Odometry starts at the origin; the world sees it from the true start. */
    const bw_pose_t origin = sim->body.pose;
    trace_t tr = { calloc(MAX_POINTS, sizeof(bw_pose_t)), calloc(MAX_POINTS, sizeof(bw_pose_t)), 0 };
    if (!tr.truth || !tr.odo) {
        cli_error("demo", "out of memory");
        return 1;
    }

    printf("botwire demo: an emulated Kobuki drives a %.1f m square in %s,\n"
           "by odometry, in virtual time, through the real protocol.\n\n",
           side, world ? world : "the built-in 5 m x 4 m room");
    printf("  %-7s %-31s %-31s %s\n", "corner", "odometry (x m, y m, deg)",
           "true pose in the room", "odometry error");
    print_row("start", st->pose, sim->body.pose, bw_pose_compose(origin, st->pose));

    bw_square_t sq;
    bw_square_init(&sq, st->pose, side, 0.2, 0.8);
    int corner = bw_square_corner(&sq);
    double next_trace = now;
    const char *stopped_by = NULL;
    bw_event_t ev;
    for (;;) {
        double v, w;
        int going = bw_square_step(&sq, st->pose, &v, &w);
        if (bw_square_corner(&sq) != corner) {
            char label[16];
            snprintf(label, sizeof label, "%d", corner);
            if (corner < 4) /* the end is shown once the robot is at rest */
                print_row(label, st->pose, sim->body.pose, bw_pose_compose(origin, st->pose));
            corner = bw_square_corner(&sq);
        }
        if (!going)
            break;
        bw_base_drive(b, v, w, now);
        now = fmin(bw_base_next_deadline(b), next_trace);
        bw_base_poll(b, now);
        if (now >= next_trace) {
            trace_add(&tr, sim->body.pose, bw_pose_compose(origin, st->pose));
            next_trace += TRACE_PERIOD;
        }
        while (bw_base_next_event(b, &ev))
            if (ev.on && (ev.type == BW_EV_BUMP || ev.type == BW_EV_CLIFF ||
                          ev.type == BW_EV_WHEEL_DROP || ev.type == BW_EV_OFFLINE))
                stopped_by = bw_event_name(ev.type);
        if (stopped_by || now > 600)
            break;
    }
    bw_base_stop(b, now);
    for (double end = now + 0.5; now < end;) {
        now = bw_base_next_deadline(b);
        bw_base_poll(b, now);
    }
    trace_add(&tr, sim->body.pose, bw_pose_compose(origin, st->pose));
    double wall = cli_now() - wall0;

    bw_pose_t odo_world = bw_pose_compose(origin, st->pose);
    print_row("end", st->pose, sim->body.pose, odo_world);
    printf("\n  back at the start by odometry: %.1f mm and %.2f deg away; the odometry is\n"
           "  %.1f mm and %.2f deg from the true pose.\n",
           1000 * hypot(st->pose.x, st->pose.y), fabs(deg(st->pose.theta)),
           1000 * hypot(odo_world.x - sim->body.pose.x, odo_world.y - sim->body.pose.y),
           fabs(deg(bw_angle_diff(odo_world.theta, sim->body.pose.theta))));
    printf("  %.1f s of robot time in %.3f s (%.0fx real time); %llu feedback frames,\n"
           "  %llu checksum errors, %llu bytes dropped; firmware %s, battery %.1f V.\n",
           now, wall, now / fmax(wall, 1e-6), (unsigned long long)st->link.frames,
           (unsigned long long)st->link.checksum_errors,
           (unsigned long long)st->link.skipped_bytes, st->firmware[0] ? st->firmware : "?",
           st->battery);
    if (stopped_by)
        printf("  the square stopped early: %s.\n", stopped_by);

    const cli_svg_path_t paths[] = {
        { tr.truth, tr.n, "stroke=\"#1565c0\" stroke-width=\"2.5\"", "#1565c0",
          "true path (simulated world)" },
        { tr.odo, tr.n, "stroke=\"#ef6c00\" stroke-width=\"2\" stroke-dasharray=\"6 4\"",
          "#ef6c00", "odometry (what the robot believes)" },
    };
    char title[160], caption[300], close_up[120];
    snprintf(title, sizeof title, "botwire demo: an emulated Kobuki drives a %.1f m square", side);
    if (noise > 0)
        snprintf(caption, sizeof caption,
                 "Arrows show the way it drives, circles where each path ends. Odometry drifts\n"
                 "from the truth with wheel slip and encoder noise x%g (1 = nominal, --noise), "
                 "seed %.0f.",
                 noise, seed);
    else
        snprintf(caption, sizeof caption,
                 "Arrows show the way it drives, circles where each path ends.\n"
                 "No noise (--noise 0): the two paths lie on each other.");
    snprintf(close_up, sizeof close_up, "the end, close up: %.1f mm apart",
             1000 * hypot(odo_world.x - sim->body.pose.x, odo_world.y - sim->body.pose.y));
    int status = 0;
    if (cli_svg_write(svg, sim->world, paths, 2, title, caption, close_up, err, sizeof err) < 0) {
        cli_error("demo", "%s", err);
        status = 1;
    } else {
        char abs[4096];
        const char *shown = svg[0] == '/' || !realpath(svg, abs) ? svg : abs;
        printf("\n  the picture: %s (the room with a metre grid, the true path and the\n"
               "  odometry); open it in a web browser, e.g. xdg-open %s\n",
               shown, shown);
    }
    bw_base_close(b, now);
    free(tr.truth);
    free(tr.odo);
    return stopped_by ? 1 : status;
}
