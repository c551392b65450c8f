/* `botwire sim`: serve an emulated robot on a pseudo-terminal, in real time. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire sim FAMILY [--world FILE] [--pty LINK] [--noise X] [--seed N] [--for S]\n"
            "\n"
            "Runs the emulated robot of FAMILY (kobuki) in a simulated world, in real time,\n"
            "speaking its protocol on a pseudo-terminal that any program can open as a\n"
            "serial port. The first line of output names the device:\n"
            "  botwire sim: kobuki on /dev/pts/5 (link /tmp/kobuki)\n"
            "Ctrl-C stops it (and removes the link).\n"
            "\n"
            "  --world FILE     the world to move in (default: the built-in 5 m x 4 m room)\n"
            "  --pty LINK       also make LINK a symlink to the pty (replaced if it exists)\n"
            "  --noise X        wheel slip and encoder noise, 1 = nominal (default 0)\n"
            "  --seed N         noise seed (default 1)\n"
            "  --for S          stop after S seconds (default: run until stopped)\n"
            "  -h, --help       this help\n");
}

int cmd_sim(int argc, char **argv)
{
    static const struct option opts[] = {
        { "world", required_argument, NULL, 'W' }, { "pty", required_argument, NULL, 'p' },
        { "noise", required_argument, NULL, 'n' }, { "seed", required_argument, NULL, 's' },
        { "for", required_argument, NULL, 'f' },   { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *world_path = NULL, *link = NULL;
    double noise = 0, seed = 1, duration = INFINITY;
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'W': world_path = optarg; break;
        case 'p': link = optarg; break;
        case 'n':
            if (cli_number("sim", "--noise", optarg, 0, 100, &noise) < 0)
                return 2;
            break;
        case 's':
            if (cli_number("sim", "--seed", optarg, 0, 1e15, &seed) < 0)
                return 2;
            break;
        case 'f':
            if (cli_number("sim", "--for", optarg, 0, 1e9, &duration) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        cli_error("sim", optind == argc ? "which robot? (botwire sim kobuki)" : "one robot at a time");
        return 2;
    }
    const char *family = argv[optind];

    char err[512];
    static bw_world_t world;
    bw_device_options_t o;
    bw_device_options_init(&o);
    if (world_path) {
        if (bw_world_load(&world, world_path, err, sizeof err) < 0) {
            cli_error("sim", "%s", err);
            return 1;
        }
        o.world = &world;
    }
    o.noise = noise;
    o.seed = (uint64_t)seed;

    double t = cli_now();
    bw_device_t *dev;
    if (bw_device_create(&dev, family, &o, t, err, sizeof err) < 0) {
        cli_error("sim", "%s", err);
        return 2;
    }
    bw_port_t *pty;
    char slave[256];
    if (bw_pty_open(&pty, slave, sizeof slave, link, err, sizeof err) < 0) {
        cli_error("sim", "%s", err);
        bw_device_destroy(dev);
        return 1;
    }
    cli_catch_signals();
    if (link)
        printf("botwire sim: %s on %s (link %s)\n", family, slave, link);
    else
        printf("botwire sim: %s on %s\n", family, slave);
    fflush(stdout);

    const double end = t + duration;
    uint64_t dropped = 0;
    int status = 0;
    uint8_t buf[4096];
    while (!cli_interrupted && t < end) {
        cli_wait(bw_port_fd(pty), fmin(bw_device_next_deadline(dev), end));
        t = cli_now();
        int n;
        while ((n = bw_port_read(pty, buf, sizeof buf)) > 0)
            bw_device_input(dev, buf, (size_t)n, t);
        if (n < 0) {
            cli_error("sim", "pty failed: %s", bw_strerror(n));
            status = 1;
            break;
        }
        bw_device_step(dev, t);
        size_t out;
        while ((out = bw_device_output(dev, buf, sizeof buf)) > 0) {
            int w = bw_port_write(pty, buf, out);
            /* Nobody reading: the rest is lost, as on a real line. */
            if (w < (int)out)
                dropped += out - (size_t)(w > 0 ? w : 0);
        }
    }
    const bw_parse_stats_t *s = bw_device_stats(dev);
    const bw_sim_t *sim = bw_device_sim(dev);
    fprintf(stderr,
            "botwire sim: stopped; %llu command frames (%llu rejected), %llu output bytes "
            "unread, robot at (%.3f, %.3f, %.1f deg)\n",
            (unsigned long long)s->frames,
            (unsigned long long)(s->checksum_errors + s->length_errors),
            (unsigned long long)dropped, sim->body.pose.x, sim->body.pose.y,
            sim->body.pose.theta * 180 / BW_PI);
    bw_port_close(pty);
    bw_device_destroy(dev);
    return status;
}
