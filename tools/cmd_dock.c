/* `botwire dock`: a base onto its dock (or off it), by what its protocol
 * reports of the dock (docs/grl.md). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "commands.h"

#define TICK 0.05         /* s between the behaviour's ticks */
#define PROGRESS 1.0      /* s between progress lines */
#define SETTLE_MAX 3.0    /* s the robot is given to come to rest at the end */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire dock URL [--for SECONDS] [--fast] [--undock]\n"
            "\n"
            "Docks a base that can be docked, by what its protocol reports of its dock: a\n"
            "Kobuki by its three receivers' IR regions (search, face the dock, across to\n"
            "its axis, up it; docs/grl.md); a Create by its own Seek Dock (a Create 1's\n"
            "Cover and Dock), watched, and lobot's Create by the same program run in its\n"
            "driver: it fails when no buoy of a Home Base is heard in 60 s. Done when the\n"
            "charger says the dock. The link down over 6 s fails it (a lobot's reflex is\n"
            "silent up to 5 s). Prints a progress line a second,\n"
            "{\"t\":..,\"state\":..,\"dock_ir\":[right,central,left] (a Create:\n"
            "\"buoys\":[omni,left,right], bits red 1, green 2, force field 4),\n"
            "\"charging\":..}, then stops the robot (one on its dock stays there, charging)\n"
            "and ends with one line,\n"
            "{\"docked\":true|false,\"why\":..,\"time\":s} (on a sim: URL also \"contacts\",\n"
            "the emulator's truth), and the same in words on stderr. Exits 0 docked, 1 not\n"
            "(the robot stopped: the dock not seen, the time limit, bumped, the link lost),\n"
            "2 for bad usage. A base whose protocol reports no dock is not moved.\n"
            "With --undock: backs 0.3 m off the dock and turns round.\n"
            "\n"
            "%s"
            "\n"
            "  --for SECONDS    the time limit (default 120)\n"
            "  --fast           virtual time, as fast as the machine goes (sim: URLs)\n"
            "  --undock         off the dock instead: back off, turn round\n"
            "  -h, --help       this help\n",
            cli_url_help);
}

static const char *charging_name(bw_charge_t c)
{
    switch (c) {
    case BW_CHARGE_DISCHARGING: return "discharging";
    case BW_CHARGE_CHARGING: return "charging";
    case BW_CHARGE_CHARGED: return "charged";
    default: return "unknown";
    }
}

static void print_line(json_t *o)
{
    json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(6));
    fputc('\n', stdout);
    json_decref(o);
}

int cmd_dock(int argc, char **argv)
{
    static const struct option opts[] = {
        { "for", required_argument, NULL, 'f' }, { "fast", no_argument, NULL, 'F' },
        { "undock", no_argument, NULL, 'u' },    { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    double limit = 120;
    bool fast = false, off = false;
    int c;
    optind = 0;
    while ((c = cli_getopt("dock", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'f':
            if (cli_number("dock", "--for", optarg, 1, 1e6, &limit) < 0)
                return 2;
            break;
        case 'F': fast = true; break;
        case 'u': off = true; break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (optind != argc - 1) {
        cli_error("dock", optind == argc ? "a robot URL is required (e.g. sim:kobuki)"
                                         : "only one robot URL, please");
        return 2;
    }
    const char *url = argv[optind];
    bool sim_url = strncasecmp(url, "sim:", 4) == 0;
    if (fast && !sim_url) {
        cli_error("dock", "--fast needs a sim: URL (a real robot runs in real time)");
        return 2;
    }
    cli_clock_t clk = { fast, fast ? 0.0 : cli_now() };
    int opened;
    bw_base_t *b = cli_open_online("dock", url, &clk, 5, &opened);
    if (!b)
        return opened;
    const bw_base_state_t *st = bw_base_state(b);
    bool seeks = (bw_base_caps(b) & BW_CAP_SEEK_DOCK) != 0;
    if (!(bw_base_caps(b) & BW_CAP_DOCK_IR) && !seeks) {
        /* Nothing was sent: the robot stands as it stood. */
        cli_error("dock", "%s: a %s base reports no dock botwire can find it by (dock infrared: "
                          "kobuki; Seek Dock: create); not moved",
                  url, bw_base_family(b));
        bw_base_close(b, clk.now);
        return 1;
    }
    const bw_sim_t *sim = sim_url ? bw_device_sim(bw_base_device(b)) : NULL;
    bw_grl_t g;
    bw_grl_init(&g, b);
    g.now = clk.now;
    bw_docking_t d;
    if (off) {
        /* the charger's state is shown once two frames agree on it */
        for (double until = clk.now + 1; st->charging == BW_CHARGE_UNKNOWN && st->online && clk.now < until;)
            cli_advance(&clk, b, NULL, until);
        g.now = clk.now;
        bw_docking_init_undock(&d, &g, limit);
    } else {
        bw_docking_init(&d, &g, limit);
    }
    double t0 = clk.now, next_tick = t0, next_progress = t0 + PROGRESS;
    int rc = 0, out_errno = 0;
    bool output_gone = false;
    char why[128] = "";
    {
        while (rc == 0 && !cli_interrupted) {
            if (clk.now >= next_tick - 1e-9) {
                g.now = clk.now;
                rc = bw_docking_tick(&d);
                next_tick = clk.now + TICK;
            }
            if (clk.now >= next_progress - 1e-9) {
                json_t *o = json_object();
                json_object_set_new(o, "t", json_real(round((clk.now - t0) * 1000) / 1000));
                json_object_set_new(o, "state", json_string(bw_docking_state_name(d.state)));
                if (seeks)
                    json_object_set_new(o, "buoys", json_pack("[iii]", (int)st->buoys[0],
                                                              (int)st->buoys[1], (int)st->buoys[2]));
                else
                    json_object_set_new(o, "dock_ir", json_pack("[iii]", (int)st->dock_ir[0],
                                                                (int)st->dock_ir[1], (int)st->dock_ir[2]));
                json_object_set_new(o, "charging", json_string(charging_name(st->charging)));
                print_line(o);
                next_progress += PROGRESS;
                if (fflush(stdout) != 0 || ferror(stdout)) {
                    out_errno = errno;
                    output_gone = true;
                    rc = -1;
                    snprintf(why, sizeof why, "the output went away");
                    break;
                }
            }
            cli_advance(&clk, b, NULL, fmin(next_tick, next_progress));
        }
        if (!why[0])
            snprintf(why, sizeof why, "%s", cli_interrupted ? "interrupted" : d.why);
    }
    int signalled = cli_interrupted;
    cli_interrupted = 0;
    bool stop_sent = bw_base_stop(b, clk.now) == 0;
    double settle_end = clk.now + SETTLE_MAX;
    do {
        cli_advance(&clk, b, NULL, fmin(settle_end, clk.now + 0.1));
    } while (clk.now < settle_end && !cli_interrupted &&
             (fabs(st->v) > 0.005 || fabs(st->w) > 0.01) && st->online);
    json_t *o = json_object();
    json_object_set_new(o, off ? "undocked" : "docked", json_boolean(rc == 1));
    json_object_set_new(o, "why", json_string(why));
    json_object_set_new(o, "time", json_real(round((clk.now - t0) * 1000) / 1000));
    if (sim)
        json_object_set_new(o, "contacts", json_boolean(sim->body.docked));
    if (!output_gone) {
        print_line(o);
        fflush(stdout);
    } else {
        json_decref(o);
    }
    fprintf(stderr, "botwire dock: %s: %s\n", rc == 1 ? (off ? "undocked" : "docked") : "not done", why);
    bw_base_close(b, clk.now);
    if (output_gone)
        return cli_write_failed("dock", out_errno);
    if (signalled)
        return 128 + signalled;
    if (!stop_sent) {
        cli_error("dock", "the link was lost: the stop could not be sent");
        return 1;
    }
    return rc == 1 ? 0 : 1;
}
