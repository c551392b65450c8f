/* `botwire ros-launch`: a roslaunch file for a fleet, one botwire_ros node
 * per robot that `botwire sim` serves with the same arguments. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "commands.h"

#define FIRST_PORT 8101 /* where `botwire sim` serves its first robot */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire ros-launch FAMILY --robots N [options]\n"
            "       botwire ros-launch --world FILE [options]\n"
            "\n"
            "Writes a roslaunch file that starts one botwire_ros node per robot of the\n"
            "fleet `botwire sim` serves with the same FAMILY --robots N, or --world FILE\n"
            "(its robot lines), and --tcp or --pty: robot K (from 1) in namespace robotK,\n"
            "its frames robotK/odom, robotK/base_footprint, robotK/range_N, its topics\n"
            "/robotK/odom, /robotK/cmd_vel, ... Each node is on its own: one robot's link\n"
            "failing leaves the others publishing (no node is required).\n"
            "\n"
            "  --robots N        how many robots of FAMILY\n"
            "  --world FILE      the robots of the world file's robot lines, in order\n"
            "  --tcp [HOST:]PORT where the sim serves robot 1 (default 127.0.0.1:8101);\n"
            "                    robot K on PORT+K-1\n"
            "  --pty LINK        the sim's robots are on ptys LINK1, LINK2, ... instead\n"
            "  --first K         start at robot K (default 1): with --count, a share of\n"
            "                    the fleet, for the nodes that run on another machine\n"
            "  --count C         this many robots from --first (default: the rest)\n"
            "  --ns-prefix P     namespaces P1, P2, ... (default robot)\n"
            "  --rate HZ         each node's ~rate (default 50)\n"
            "  --diagnostic-period S  each node's ~diagnostic_period (default 1)\n"
            "  -o, --output FILE write it there (default: standard output)\n"
            "  -h, --help        this help\n"
            "\n"
            "  botwire sim --world fleet.world --detach\n"
            "  botwire ros-launch --world fleet.world -o fleet.launch && roslaunch fleet.launch\n");
}

/* Text for an XML attribute. */
static void xml_attr(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* A namespace part: letters, digits, '_' (ROS graph resource names). */
static bool name_ok(const char *s)
{
    if (!*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

int cmd_roslaunch(int argc, char **argv)
{
    static const struct option opts[] = {
        { "robots", required_argument, NULL, 'R' }, { "world", required_argument, NULL, 'W' },
        { "tcp", required_argument, NULL, 't' },    { "pty", required_argument, NULL, 'p' },
        { "first", required_argument, NULL, 'F' },  { "count", required_argument, NULL, 'C' },
        { "ns-prefix", required_argument, NULL, 'N' }, { "rate", required_argument, NULL, 'r' },
        { "diagnostic-period", required_argument, NULL, 'd' },
        { "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    double robots = 0, first = 1, count = 0, rate = 50, diag = 1;
    const char *world_path = NULL, *tcp = NULL, *link = NULL, *out = NULL, *ns = "robot";
    int c;
    optind = 0;
    while ((c = cli_getopt("ros-launch", argc, argv, "ho:", opts)) != -1) {
        switch (c) {
        case 'R':
            if (cli_number("ros-launch", "--robots", optarg, 1, BW_FLEET_MAX, &robots) < 0)
                return 2;
            break;
        case 'F':
            if (cli_number("ros-launch", "--first", optarg, 1, BW_FLEET_MAX, &first) < 0)
                return 2;
            break;
        case 'C':
            if (cli_number("ros-launch", "--count", optarg, 1, BW_FLEET_MAX, &count) < 0)
                return 2;
            break;
        case 'r':
            if (cli_number("ros-launch", "--rate", optarg, 0.1, 1000, &rate) < 0)
                return 2;
            break;
        case 'd':
            if (cli_number("ros-launch", "--diagnostic-period", optarg, 0.05, 3600, &diag) < 0)
                return 2;
            break;
        case 'W': world_path = optarg; break;
        case 't': tcp = optarg; break;
        case 'p': link = optarg; break;
        case 'N': ns = optarg; break;
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (robots != floor(robots) || first != floor(first) || count != floor(count)) {
        cli_error("ros-launch", "--robots, --first and --count want whole numbers");
        return 2;
    }
    if (!name_ok(ns)) {
        cli_error("ros-launch", "--ns-prefix wants a ROS name (a letter, then letters, digits, _), "
                                "not \"%s\"",
                  ns);
        return 2;
    }
    if (tcp && link) {
        cli_error("ros-launch", "--pty and --tcp: one or the other, as for botwire sim");
        return 2;
    }
    static bw_world_t world;
    char err[512];
    const char *family = NULL;
    size_t n;
    if (world_path) {
        if (optind < argc || robots > 0) {
            cli_error("ros-launch", "--world places the robots: no FAMILY or --robots with it");
            return 2;
        }
        if (bw_world_load(&world, world_path, err, sizeof err) < 0) {
            cli_error("ros-launch", "%s", err);
            return 1;
        }
        if (world.nrobots == 0) {
            cli_error("ros-launch", "%s has no robot lines (robot FAMILY[/MODEL] X Y HEADING)",
                      world_path);
            return 1;
        }
        n = world.nrobots;
    } else {
        if (optind != argc - 1 || robots == 0) {
            cli_error("ros-launch", optind == argc ? "a FAMILY and --robots N, or --world FILE"
                                    : optind < argc - 1 ? "one FAMILY at a time"
                                                        : "--robots N is required with a FAMILY");
            return 2;
        }
        family = argv[optind];
        if (bw_device_family_baud(family) < 0) {
            cli_error("ros-launch", "no emulated robot for family \"%s\" (emulated: kobuki, p2os, "
                                    "lobot, create, rbsm, rflex)",
                      family);
            return 2;
        }
        n = (size_t)robots;
    }
    size_t from = (size_t)first - 1;
    if (from >= n) {
        cli_error("ros-launch", "--first %zu: the fleet has %zu robots", from + 1, n);
        return 2;
    }
    size_t upto = count > 0 ? from + (size_t)count : n;
    if (upto > n) {
        cli_error("ros-launch", "--first %zu --count %.0f: the fleet has %zu robots", from + 1,
                  count, n);
        return 2;
    }
    char host[128] = "127.0.0.1";
    int port = FIRST_PORT;
    if (tcp && cli_host_port(tcp, host, sizeof host, &port) < 0) {
        cli_error("ros-launch", "--tcp wants [HOST:]PORT, not \"%s\"", tcp);
        return 2;
    }
    if (!link && port + (int)n - 1 > 65535) {
        cli_error("ros-launch", "%zu robots from port %d go beyond port 65535", n, port);
        return 2;
    }
    if (out && cli_check_writable(out, err, sizeof err) < 0) {
        cli_error("ros-launch", "%s", err);
        return 2;
    }
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        cli_error("ros-launch", "cannot write %s: %s", out, strerror(errno));
        return 1;
    }
    /* An XML comment may hold no "--": neither the options nor a path's. */
    fprintf(f, "<!-- botwire_ros for %zu robot%s of ", upto - from, upto - from == 1 ? "" : "s");
    if (world_path) {
        fputs("the world file ", f);
        for (const char *ch = world_path; *ch; ch++)
            fputc(*ch == '-' && (ch[1] == '-' || ch[1] == 0) ? '_' : *ch, f);
    } else {
        fprintf(f, "a fleet of %zu robots of family %s", n, family);
    }
    fputs(" (written by botwire ros-launch) -->\n<launch>\n", f);
    for (size_t i = from; i < upto; i++) {
        const char *fam = world_path ? world.robots[i].family : family;
        const char *model = world_path ? world.robots[i].model : "";
        char url[512];
        int k;
        if (link)
            k = snprintf(url, sizeof url, "%s:%s%zu", fam, link, i + 1);
        else
            k = snprintf(url, sizeof url, "%s:tcp://%s:%d", fam, host, port + (int)i);
        if (*model && k > 0 && (size_t)k < sizeof url)
            snprintf(url + k, sizeof url - (size_t)k, "?model=%s", model);
        fprintf(f, "  <include file=\"$(find botwire_ros)/launch/botwire.launch\">\n"
                   "    <arg name=\"url\" value=\"");
        xml_attr(f, url);
        fprintf(f, "\" />\n    <arg name=\"ns\" value=\"%s%zu\" />\n"
                   "    <arg name=\"rate\" value=\"%g\" />\n"
                   "    <arg name=\"diagnostic_period\" value=\"%g\" />\n"
                   "    <arg name=\"required\" value=\"false\" />\n  </include>\n",
                ns, i + 1, rate, diag);
    }
    fputs("</launch>\n", f);
    if (out ? fclose(f) != 0 : fflush(f) != 0 || ferror(f))
        return out ? (cli_error("ros-launch", "cannot write %s: %s", out, strerror(errno)), 1)
                   : cli_write_failed("ros-launch", errno);
    return 0;
}
