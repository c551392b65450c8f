/* botwire: the command-line tool. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "botwire/botwire.h"
#include "botwire/json.h"
#include "cli.h"
#include "commands.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    { "demo", cmd_demo, "every emulated robot at its task (virtual time)" },
    { "sim", cmd_sim, "serve an emulated robot on a pty or TCP" },
    { "drive", cmd_drive, "drive a robot, print its state" },
    { "wander", cmd_wander, "wander with the GRL behaviour stack" },
    { "dock", cmd_dock, "dock a robot by what it hears of its dock, or undock it" },
    { "view", cmd_view, "serve robots live: Foxglove, and a page to watch and drive" },
    { "record", cmd_record, "save a robot link's bytes, both ways" },
    { "decode", cmd_decode, "protocol bytes to JSON Lines" },
    { "encode", cmd_encode, "JSON Lines to protocol bytes" },
    { "convert", cmd_convert, "a record from JSON Lines to MCAP, or back" },
    { "ports", cmd_ports, "the serial ports, and which robot answers on each" },
    { "replay", cmd_replay, "play a record's robot side to a driver, on a pty or TCP" },
    { "bench", cmd_bench, "measure codec throughput" },
    { "ros-launch", cmd_roslaunch, "a roslaunch file for a fleet's botwire_ros nodes" },
    { "ros2", cmd_ros2, "robots as ROS 2 nodes over Cyclone DDS (no ROS 2 needed)" },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: botwire <command> [options]   (botwire <command> --help for details)\n"
               "       botwire --version | -V\n"
               "       botwire --help | -h\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nprotocols: %s\n\n%s", bw_json_protocols(), cli_url_help);
}

int main(int argc, char **argv)
{
    /* A closed output pipe is reported as a write error, not a silent death. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        if (argc > 2) {
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (!strcmp(argv[2], commands[i].name)) {
                    char *help[] = { argv[2], "--help", NULL };
                    return commands[i].fn(2, help);
                }
        }
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) {
        printf("botwire %s\n", BOTWIRE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name)) {
            int rc = commands[i].fn(argc - 1, argv + 1);
            /* Whatever a command that succeeded wrote must have reached
             * its reader. */
            return rc ? rc : cli_flush_out(cmd);
        }
    fprintf(stderr, "botwire: unknown command \"%s\" (botwire --help lists them)\n", cmd);
    return 2;
}
