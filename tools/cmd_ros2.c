/* `botwire ros2`: bases as ROS 2 nodes over Cyclone DDS (botwire/ros2.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "botwire/behave.h"
#include "botwire/ros2.h"
#include "cli.h"
#include "commands.h"

#define FIRST_PORT 8101 /* where `botwire sim` serves its first robot */
#define MAX_ROBOTS 10000
/* --robots: a grid of rooms, each 4 x 4 places 1.5 m apart (0.75 m from
 * its walls), 25 rooms to a row: robot K's place is K's alone, so hosts
 * that each serve part of one fleet agree where its robots are. */
#define ROOM_PLACES 4
#define ROOM_SIDE 6.0
#define ROOM_COLUMNS 25
#define WANDER_TICK 0.05 /* s between a wanderer's behaviour ticks, as `botwire wander` */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire ros2 URL... [options]\n"
            "       botwire ros2 --world FILE [--tcp [HOST:]PORT | --pty LINK] [options]\n"
            "       botwire ros2 --robots N|FIRST-LAST [--family F | --world FILE] [--wander]\n"
            "       botwire ros2 list | echo TOPIC   (the graph without ROS 2: --help each)\n"
            "\n"
            "Each robot as a ROS 2 node over Cyclone DDS, with nothing of ROS 2 installed:\n"
            "`ros2 node list` shows /NS/botwire, `ros2 topic echo /NS/odom` reads it.\n"
            "Topics (relative to the node's namespace): cmd_vel (geometry_msgs/msg/\n"
            "TwistStamped from Kilted, else Twist: --cmd-vel; the robot stops when none\n"
            "came within --cmd-vel-timeout), odom (nav_msgs/msg/Odometry), /tf and\n"
            "/tf_static (NS/odom -> NS/base_footprint -> NS/range_N), range/N\n"
            "(sensor_msgs/msg/Range), bumper, cliff, wheel_drop (std_msgs/msg/UInt32,\n"
            "latched), events (std_msgs/msg/String), battery\n"
            "(sensor_msgs/msg/BatteryState), imu (a gyro's), joint_states (wheel\n"
            "encoders'), reset_odometry (std_msgs/msg/Empty, in), /diagnostics; /rosout\n"
            "(the node's lines, as on stderr), /parameter_events and the parameter services\n"
            "(`ros2 param list /NS/botwire`: cmd_vel_timeout, cmd_vel_type, ...). One URL:\n"
            "the root namespace unless --ns; several, or --world: robot1, robot2, ...\n"
            "(--ns-prefix).\n"
            "\n"
            "  --ns NAME            the one robot's namespace (frames NAME/odom, ...)\n"
            "  --ns-prefix P        a fleet's namespaces P1, P2, ... (default robot)\n"
            "  --world FILE         the robots of a world file's robot lines, as `botwire\n"
            "                       sim --world FILE` serves them\n"
            "  --robots N           N emulated robots in this process, robot1 ... robotN, in\n"
            "                       a grid of rooms (16 to a room), a DDS participant to 250\n"
            "  --robots FIRST-LAST  robots FIRST to LAST of a fleet: each host of a fleet\n"
            "                       serves its part (--robots 1-500 here, 501-1000 there)\n"
            "  --family F[/MODEL]   with --robots: the robots' family (default kobuki)\n"
            "  --world FILE         with --robots: its robot lines FIRST to LAST, emulated\n"
            "                       here, in its walls\n"
            "  --wander             with --robots: each robot wanders (`botwire wander`'s\n"
            "                       stack) while no cmd_vel drives it\n"
            "  --threads N          step the robots' emulation and drivers on N threads,\n"
            "                       50 robots a thread at least; one publishes (default:\n"
            "                       with --robots one a core, else 1)\n"
            "  --tcp [HOST:]PORT    with --world: robot 1 there (default 127.0.0.1:8101),\n"
            "                       robot K on PORT+K-1\n"
            "  --pty LINK           with --world: the robots are on LINK1, LINK2, ...\n"
            "  --domain N           the DDS domain (default: ROS_DOMAIN_ID, else 0)\n"
            "  --distro NAME        the wire of ROS 2 humble, jazzy, kilted or lyrical\n"
            "                       (default lyrical; docs/ros2.md says what differs)\n"
            "  --humble             --distro humble\n"
            "  --cmd-vel TYPE       cmd_vel as twist (geometry_msgs/msg/Twist) or stamped\n"
            "                       (TwistStamped; default: stamped from kilted on, as Nav2\n"
            "                       sends it); a writer of the other type is told of\n"
            "  --cmd-vel-timeout S  stop a robot S s after its last cmd_vel (default 0.6;\n"
            "                       stamped: S s after its stamp, older ones refused)\n"
            "  --diagnostic-period S  /diagnostics and battery every S s (default 1)\n"
            "  --rate HZ            how often each robot is looked at (default 50)\n"
            "  --odom-rate HZ       odom, imu and joint_states at most HZ (default: each\n"
            "                       report the robot gives, a Kobuki's 50 Hz)\n"
            "  --tf-rate HZ         odom -> base_footprint on tf at most HZ (default: each)\n"
            "  --range-rate HZ      each range/N at most HZ (default: each)\n"
            "  --tf prefixed        each robot's frames prefixed with its namespace on /tf\n"
            "                       and /tf_static, one tree (the default)\n"
            "  --tf namespaced      each robot's tree on NS/tf and NS/tf_static, frames odom,\n"
            "                       base_footprint (Nav2's multi-robot bringup)\n"
            "  --no-tf              leave odom -> base_footprint off tf\n"
            "  --for S              end after S seconds (default: until interrupted)\n"
            "%s"
            "  -h, --help           this help\n"
            "\n"
            "Cyclone's configuration is its own (CYCLONEDDS_URI); ROS_DOMAIN_ID,\n"
            "ROS_LOCALHOST_ONLY, ROS_AUTOMATIC_DISCOVERY_RANGE and ROS_STATIC_PEERS are\n"
            "read as ROS 2 reads them. The robots stop when the command ends.\n"
            "\n"
            "  botwire ros2 sim:kobuki --ns robot1\n"
            "  botwire ros2 --robots 100 --wander\n"
            "  botwire sim --world fleet.world --detach && botwire ros2 --world fleet.world\n",
            cli_service_help(23));
}

/* --detach, --log, --pidfile (cli.h); its `who` names the lines on stderr. */
static cli_service_t svc;

/* The node's own lines, on stderr as they come. */
static void say_line(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "botwire %s: %s\n", svc.who, line);
}

/* --distro NAME for cmd: 0, or -1 after saying what it takes. */
static int distro_opt(const char *cmd, const char *name, bw_ros2_distro_t *distro)
{
    if (bw_ros2_distro_parse(name, distro) == 0)
        return 0;
    cli_error(cmd, "--distro %s: humble, jazzy, kilted or lyrical", name);
    return -1;
}

/* `botwire ros2 list` and `botwire ros2 echo TOPIC`: the graph as the
 * ros2 tools see it, on the node's domain and discovery settings. */
static int look(int argc, char **argv)
{
    bool echo = !strcmp(argv[1], "echo");
    static const struct option opts[] = {
        { "domain", required_argument, NULL, 'D' },
        { "distro", required_argument, NULL, 'R' },
        { "humble", no_argument, NULL, 'H' },
        { "for", required_argument, NULL, 'f' },
        { "count", required_argument, NULL, 'n' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    bw_ros2_options_t ro = { .domain = -1, .distro = BW_ROS2_LYRICAL };
    double domain = -1, seconds = echo ? 10 : 2, count = echo ? 0 : 0;
    int c;
    optind = 1;
    const char *cmd = echo ? "ros2 echo" : "ros2 list";
    while ((c = cli_getopt(cmd, argc - 1, argv + 1, "h", opts)) != -1) {
        switch (c) {
        case 'D':
            if (cli_number(cmd, "--domain", optarg, 0, 232, &domain) < 0)
                return 2;
            break;
        case 'R':
            if (distro_opt(cmd, optarg, &ro.distro) < 0)
                return 2;
            break;
        case 'H': ro.distro = BW_ROS2_HUMBLE; break;
        case 'f':
            if (cli_number(cmd, "--for", optarg, 0.1, 1e6, &seconds) < 0)
                return 2;
            break;
        case 'n':
            if (!echo || cli_number(cmd, "--count", optarg, 1, 1e9, &count) < 0) {
                if (!echo)
                    cli_error(cmd, "--count goes with echo");
                return 2;
            }
            break;
        case 'h':
            printf(echo ? "usage: botwire ros2 echo TOPIC [--count N] [--for S] [--domain N] [--distro D]\n"
                          "\n"
                          "Each message on TOPIC (/robot1/odom) as `ros2 topic echo` prints it, from\n"
                          "the node's CDR and its type's ros2msg schema, for --for S (default 10) or\n"
                          "--count N messages; the type from a publisher's discovery data (one botwire\n"
                          "knows: what `botwire ros2` publishes and takes). The domain and discovery\n"
                          "settings are the node's (ROS_DOMAIN_ID, ROS_AUTOMATIC_DISCOVERY_RANGE, ...,\n"
                          "CYCLONEDDS_URI).\n"
                          "\n"
                          "  botwire ros2 echo /robot1/odom --count 1\n"
                        : "usage: botwire ros2 list [--for S] [--domain N] [--distro D]\n"
                          "\n"
                          "The ROS 2 graph as `ros2 node list` and `ros2 topic list -t` see it, without\n"
                          "ROS 2: the nodes (ros_discovery_info), the topics with their types,\n"
                          "publishers, subscribers and the publishers' QoS, and the services, heard for\n"
                          "--for S (default 2) on the node's domain and discovery settings.\n"
                          "\n"
                          "  botwire ros2 list\n");
            return 0;
        default: return 2;
        }
    }
    argc--, argv++;
    if (echo && optind != argc - 1) {
        cli_error(cmd, "which topic? (botwire ros2 echo /robot1/odom)");
        return 2;
    }
    if (!echo && optind != argc) {
        cli_error(cmd, "no arguments but options (botwire ros2 list --for 3)");
        return 2;
    }
    ro.domain = (int)domain;
    char err[512];
    int rc = echo ? bw_ros2_echo(&ro, argv[optind], seconds, (long)count, stdout, err, sizeof err)
                  : bw_ros2_list(&ro, seconds, stdout, err, sizeof err);
    if (rc < 0) {
        cli_error(cmd, "%s", err);
        return 1;
    }
    return cli_flush_out(cmd) != 0;
}

/* A robot that wanders while nobody commands it (--wander). */
typedef struct {
    bw_grl_t g;
    bw_wander_t w; /* last: large, and mostly untouched */
} wanderer_t;

/* Robot k's (from 1) place in the grid of rooms, and its room's row and
 * column. */
static bw_pose_t grid_place(size_t k, size_t *row, size_t *col)
{
    size_t i = k - 1, per_room = ROOM_PLACES * ROOM_PLACES;
    size_t room = i / per_room, spot = i % per_room;
    *row = room / ROOM_COLUMNS;
    *col = room % ROOM_COLUMNS;
    return (bw_pose_t){ (double)*col * ROOM_SIDE + 0.75 + 1.5 * (double)(spot % ROOM_PLACES),
                        (double)*row * ROOM_SIDE + 0.75 + 1.5 * (double)(spot / ROOM_PLACES), 0 };
}

/* The rooms of robots 1 to last: the grid's walls, each a line across the
 * whole grid. */
static int grid_world(bw_world_t *w, size_t last)
{
    size_t row, col;
    (void)grid_place(last, &row, &col);
    size_t rows = row + 1, cols = row > 0 ? ROOM_COLUMNS : col + 1;
    double width = (double)cols * ROOM_SIDE, height = (double)rows * ROOM_SIDE;
    bw_world_init(w);
    int rc = 0;
    for (size_t c = 0; c <= cols && rc == 0; c++)
        rc = bw_world_add_wall(w, (bw_vec2_t){ (double)c * ROOM_SIDE, 0 },
                               (bw_vec2_t){ (double)c * ROOM_SIDE, height });
    for (size_t r = 0; r <= rows && rc == 0; r++)
        rc = bw_world_add_wall(w, (bw_vec2_t){ 0, (double)r * ROOM_SIDE },
                               (bw_vec2_t){ width, (double)r * ROOM_SIDE });
    w->start = grid_place(1, &row, &col);
    return rc;
}

/* --robots N or FIRST-LAST: 0, or -1 after saying what it takes. */
static int robots_opt(const char *text, size_t *first, size_t *last)
{
    char *end;
    errno = 0;
    unsigned long a = strtoul(text, &end, 10), b = a;
    bool range = *end == '-';
    if (range)
        b = strtoul(end + 1, &end, 10);
    if (errno || *end || !(*text >= '0' && *text <= '9') || a < 1 || b < a || b > MAX_ROBOTS) {
        cli_error("ros2", "--robots %s: a number of robots (1 to %d) or FIRST-LAST (1-500)", text,
                  MAX_ROBOTS);
        return -1;
    }
    *first = range ? a : 1;
    *last = b;
    return 0;
}

int cmd_ros2(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "list") || !strcmp(argv[1], "echo")))
        return look(argc, argv);
    static const struct option opts[] = {
        { "ns", required_argument, NULL, 'n' },
        { "ns-prefix", required_argument, NULL, 'N' },
        { "world", required_argument, NULL, 'W' },
        { "tcp", required_argument, NULL, 't' },
        { "pty", required_argument, NULL, 'p' },
        { "domain", required_argument, NULL, 'D' },
        { "humble", no_argument, NULL, 'H' },
        { "distro", required_argument, NULL, 'R' },
        { "cmd-vel", required_argument, NULL, 'C' },
        { "tf", required_argument, NULL, 'F' },
        { "cmd-vel-timeout", required_argument, NULL, 'T' },
        { "diagnostic-period", required_argument, NULL, 'd' },
        { "rate", required_argument, NULL, 'r' },
        { "no-tf", no_argument, NULL, 'X' },
        { "robots", required_argument, NULL, 'B' },
        { "odom-rate", required_argument, NULL, 'O' },
        { "tf-rate", required_argument, NULL, 'G' },
        { "range-rate", required_argument, NULL, 'A' },
        { "family", required_argument, NULL, 'M' },
        { "wander", no_argument, NULL, 'w' },
        { "threads", required_argument, NULL, 'j' },
        { "for", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        CLI_SERVICE_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    bw_ros2_options_t ro = { .domain = -1, .distro = BW_ROS2_LYRICAL, .log = say_line };
    const char *robots = NULL, *family = NULL;
    bool wander = false;
    double domain = -1, timeout = 0.6, diag = 1, rate = 50, seconds = INFINITY, threads = 0;
    const char *ns = NULL, *prefix = "robot", *world_path = NULL, *tcp = NULL, *link = NULL;
    int c;
    optind = 0;
    cli_service_init(&svc, "ros2");
    while ((c = cli_getopt("ros2", argc, argv, "h", opts)) != -1) {
        if (cli_service_option(&svc, c, optarg))
            continue;
        switch (c) {
        case 'n': ns = optarg; break;
        case 'N': prefix = optarg; break;
        case 'W': world_path = optarg; break;
        case 't': tcp = optarg; break;
        case 'p': link = optarg; break;
        case 'B': robots = optarg; break;
        case 'O':
        case 'G':
        case 'A': {
            double hz;
            const char *name = c == 'O' ? "--odom-rate" : c == 'G' ? "--tf-rate" : "--range-rate";
            if (cli_number("ros2", name, optarg, 0.01, 1000, &hz) < 0)
                return 2;
            *(c == 'O' ? &ro.odom_rate : c == 'G' ? &ro.tf_rate : &ro.range_rate) = hz;
            break;
        }
        case 'M': family = optarg; break;
        case 'w': wander = true; break;
        case 'D':
            if (cli_number("ros2", "--domain", optarg, 0, 232, &domain) < 0)
                return 2;
            break;
        case 'H': ro.distro = BW_ROS2_HUMBLE; break;
        case 'R':
            if (distro_opt("ros2", optarg, &ro.distro) < 0)
                return 2;
            break;
        case 'C':
            if (!strcmp(optarg, "twist"))
                ro.cmd_vel = BW_ROS2_CMD_VEL_TWIST;
            else if (!strcmp(optarg, "stamped"))
                ro.cmd_vel = BW_ROS2_CMD_VEL_STAMPED;
            else {
                cli_error("ros2", "--cmd-vel %s: twist or stamped", optarg);
                return 2;
            }
            break;
        case 'T':
            if (cli_number("ros2", "--cmd-vel-timeout", optarg, 0.05, 60, &timeout) < 0)
                return 2;
            break;
        case 'd':
            if (cli_number("ros2", "--diagnostic-period", optarg, 0.05, 3600, &diag) < 0)
                return 2;
            break;
        case 'r':
            if (cli_number("ros2", "--rate", optarg, 1, 1000, &rate) < 0)
                return 2;
            break;
        case 'X': ro.no_tf = true; break;
        case 'F':
            if (!strcmp(optarg, "namespaced") || !strcmp(optarg, "prefixed"))
                ro.tf_namespaced = !strcmp(optarg, "namespaced");
            else {
                cli_error("ros2", "--tf %s: prefixed or namespaced", optarg);
                return 2;
            }
            break;
        case 'j':
            if (cli_number("ros2", "--threads", optarg, 1, 64, &threads) < 0)
                return 2;
            if (threads != floor(threads)) {
                cli_error("ros2", "--threads wants a whole number from 1 to 64");
                return 2;
            }
            break;
        case 'f':
            if (cli_number("ros2", "--for", optarg, 0.01, 1e9, &seconds) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (domain != floor(domain)) {
        cli_error("ros2", "--domain wants a whole number from 0 to 232");
        return 2;
    }
    ro.domain = (int)domain;
    ro.cmd_vel_timeout = timeout;
    ro.diagnostic_period = diag;
    ro.rate = rate;
    /* A fleet emulated here: a thread a core by default; robots on
     * links: the loop's alone. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    ro.threads = threads > 0 ? (unsigned)threads : robots && cores > 1 ? (unsigned)cores : 1;

    /* The robots: emulated here (--robots), URLs, or a world file's robot
     * lines where sim serves them. */
    static bw_world_t world;
    static bw_fleet_t fleet;
    char err[512];
    size_t n = 0, first = 1, last = 0;
    char **urls = NULL;
    if (!robots && (family || wander)) {
        cli_error("ros2", "%s goes with --robots (the robots emulated here)",
                  family ? "--family" : "--wander");
        return 2;
    }
    if (robots) {
        if (robots_opt(robots, &first, &last) < 0)
            return 2;
        if (optind < argc) {
            cli_error("ros2", "--robots makes its robots: no URLs with it");
            return 2;
        }
        if (tcp || link) {
            cli_error("ros2", "--tcp and --pty say where `botwire sim` serves a world's robots; "
                              "--robots emulates them here");
            return 2;
        }
        if (ns) {
            cli_error("ros2", "--robots names its robots P1, P2, ... (--ns-prefix P), not --ns");
            return 2;
        }
        if (family && world_path) {
            cli_error("ros2", "--family or --world: the world's robot lines name their families");
            return 2;
        }
        char fam[64];
        snprintf(fam, sizeof fam, "%s", family ? family : "kobuki");
        char *model = strchr(fam, '/');
        if (model)
            *model++ = 0;
        const char *alias_family, *alias_model;
        if (bw_family_alias(fam, &alias_family, &alias_model)) { /* create2: create/create2 */
            if (model && strcmp(model, alias_model) != 0) {
                cli_error("ros2", "--family %s: %s is the %s family's model %s", family, fam,
                          alias_family, alias_model);
                return 2;
            }
            snprintf(fam, sizeof fam, "%s/%s", alias_family, alias_model);
            model = strchr(fam, '/');
            *model++ = 0;
        }
        if (world_path) {
            if (bw_world_load(&world, world_path, err, sizeof err) < 0) {
                cli_error("ros2", "%s", err);
                return 1;
            }
            if (last > world.nrobots) {
                cli_error("ros2", "%s has %zu robot line%s: no robot %zu (--robots %s)", world_path,
                          world.nrobots, world.nrobots == 1 ? "" : "s", last, robots);
                return 2;
            }
        } else if (grid_world(&world, last) < 0) {
            cli_error("ros2", "--robots %s: more rooms than a world holds", robots);
            return 2;
        }
        bw_fleet_init(&fleet, &world);
        n = last - first + 1;
        urls = calloc(n, sizeof *urls);
        for (size_t i = 0; urls && i < n; i++) {
            size_t k = first + i, row, col;
            const char *f = fam, *m = model;
            bw_pose_t at;
            if (world_path) {
                f = world.robots[k - 1].family;
                m = *world.robots[k - 1].model ? world.robots[k - 1].model : NULL;
                at = world.robots[k - 1].pose;
            } else {
                at = grid_place(k, &row, &col);
            }
            urls[i] = malloc(256);
            if (urls[i])
                snprintf(urls[i], 256, "sim:%s?start=%.3f,%.3f,%.2f%s%s", f, at.x, at.y,
                         at.theta * 180 / BW_PI, m ? "&model=" : "", m ? m : "");
        }
    } else if (world_path) {
        if (optind < argc) {
            cli_error("ros2", "--world names the robots: no URLs with it");
            return 2;
        }
        if (tcp && link) {
            cli_error("ros2", "--pty and --tcp: one or the other, as for botwire sim");
            return 2;
        }
        if (bw_world_load(&world, world_path, err, sizeof err) < 0) {
            cli_error("ros2", "%s", err);
            return 1;
        }
        if (world.nrobots == 0) {
            cli_error("ros2", "%s has no robot lines (robot FAMILY[/MODEL] X Y HEADING)", world_path);
            return 1;
        }
        char host[128] = "127.0.0.1";
        int port = FIRST_PORT;
        if (tcp && cli_host_port(tcp, host, sizeof host, &port) < 0) {
            cli_error("ros2", "--tcp wants [HOST:]PORT, not \"%s\"", tcp);
            return 2;
        }
        n = world.nrobots;
        if (!link && port + (int)n - 1 > 65535) {
            cli_error("ros2", "%zu robots from port %d go beyond port 65535", n, port);
            return 2;
        }
        urls = calloc(n, sizeof *urls);
        for (size_t i = 0; urls && i < n; i++) {
            urls[i] = malloc(512);
            if (!urls[i])
                break;
            int k = link ? snprintf(urls[i], 512, "%s:%s%zu", world.robots[i].family, link, i + 1)
                         : snprintf(urls[i], 512, "%s:tcp://%s:%d", world.robots[i].family, host,
                                    port + (int)i);
            if (world.robots[i].model[0] && k > 0 && k < 512)
                snprintf(urls[i] + k, 512 - (size_t)k, "?model=%s", world.robots[i].model);
        }
    } else {
        if (tcp || link) {
            cli_error("ros2", "--tcp and --pty go with --world; a URL says where its robot is");
            return 2;
        }
        if (optind == argc) {
            cli_error("ros2", "which robot? a URL (sim:kobuki, kobuki:/dev/ttyUSB0, ...) or "
                              "--world FILE");
            return 2;
        }
        n = (size_t)(argc - optind);
        urls = calloc(n, sizeof *urls);
        for (size_t i = 0; urls && i < n; i++)
            urls[i] = strdup(argv[optind + (int)i]);
    }
    if (n > MAX_ROBOTS) {
        cli_error("ros2", "%zu robots: one process serves at most %d", n, MAX_ROBOTS);
        return 2;
    }
    if (ns && n > 1) {
        cli_error("ros2", "--ns names one robot's namespace; a fleet's are --ns-prefix P1, P2, ...");
        return 2;
    }
    for (size_t i = 0; urls && i < n; i++)
        if (!urls[i]) {
            free(urls);
            urls = NULL;
        }
    if (!urls) {
        cli_error("ros2", "out of memory");
        return 1;
    }

    /* Detached, the serving process owns the DDS participant: forked
     * before it is made (its threads would not follow a fork). */
    int begun = cli_service_begin(&svc);
    if (begun) {
        for (size_t i = 0; i < n; i++)
            free(urls[i]);
        free(urls);
        return begun;
    }
    bw_ros2_t *node;
    if (bw_ros2_open(&node, &ro, err, sizeof err) < 0) {
        cli_error("ros2", "%s", err);
        cli_service_end(&svc);
        return 1;
    }
    /* exit() stops every robot; a signal ends the loop, which stops them
     * and says what was published (the command's own handlers, last). */
    bw_base_stop_on_exit();
    cli_catch_signals();
    bw_base_t **bases = calloc(n, sizeof *bases);
    int status = 0;
    double now = cli_now();
    bw_base_options_t bo;
    memset(&bo, 0, sizeof bo);
    bo.command_timeout = timeout; /* the base's own supervision, as a second line */
    if (robots) { /* one world, where they see each other */
        bo.world = &world;
        bo.fleet = &fleet;
    }
    for (size_t i = 0; bases && i < n && status == 0; i++) {
        if (bw_base_open(&bases[i], urls[i], &bo, now, err, sizeof err) < 0) {
            cli_error("ros2", "%s", err);
            status = 1;
            break;
        }
        char name[128];
        if (n == 1 && !robots)
            snprintf(name, sizeof name, "%s", ns ? ns : "");
        else
            snprintf(name, sizeof name, "%s%zu", prefix, first + i);
        if (bw_ros2_add(node, bases[i], name, NULL, urls[i], err, sizeof err) < 0) {
            cli_error("ros2", "%s", err);
            status = 2;
            break;
        }
        while (*name == '/')
            memmove(name, name + 1, strlen(name));
        printf("botwire ros2: /%s%sbotwire on %s (%s)\n", name, *name ? "/" : "", urls[i],
               bw_base_family(bases[i]));
    }
    if (!bases) {
        cli_error("ros2", "out of memory");
        status = 1;
    }
    if (status == 0) {
        char line[256], what[64];
        unsigned th = bw_ros2_threads(node);
        char threads_said[32] = "";
        if (th > 1)
            snprintf(threads_said, sizeof threads_said, ", stepped on %u threads", th);
        snprintf(line, sizeof line, "botwire ros2: %zu node%s on DDS domain %d, ROS 2 %s layout, "
                 "cmd_vel %s%s", n, n == 1 ? "" : "s", bw_ros2_domain(node),
                 bw_ros2_distro_name(ro.distro),
                 bw_ros2_cmd_vel_of(&ro) == BW_ROS2_CMD_VEL_STAMPED ? "geometry_msgs/msg/TwistStamped"
                                                                    : "geometry_msgs/msg/Twist",
                 threads_said);
        if (cli_flush_out("ros2") != 0) /* the robots' lines */
            status = 1;
        snprintf(what, sizeof what, "%zu node%s", n, n == 1 ? "" : "s");
        cli_service_announce(&svc, line, what);
    }
    /* Emulated here: where each one started (the truth said at the end),
     * and with --wander its behaviour stack. */
    bw_pose_t *from = robots ? calloc(n, sizeof *from) : NULL;
    wanderer_t *wd = wander ? calloc(n, sizeof *wd) : NULL;
    if ((robots && !from) || (wander && !wd)) {
        cli_error("ros2", "out of memory");
        status = 1;
    }
    for (size_t i = 0; status == 0 && from && i < n; i++) {
        const bw_sim_t *sim = bw_device_sim(bw_base_device(bases[i]));
        from[i] = sim->body.pose;
        if (!wd)
            continue;
        bw_grl_init(&wd[i].g, bases[i]);
        bw_wander_init(&wd[i].w, &wd[i].g, first + i, 0.3);
        /* Drop-offs a base cannot sense, as `botwire wander` marks them:
         * keep-out zones in its odometry frame (the start is its origin). */
        for (size_t k = 0; !(bw_base_caps(bases[i]) & BW_CAP_CLIFFS) && k < world.ndrops; k++) {
            const bw_polygon_t *d = &world.drops[k];
            bw_vec2_t poly[BW_WORLD_MAX_POLY];
            for (unsigned v = 0; v < d->n && v < BW_WORLD_MAX_POLY; v++)
                poly[v] = bw_pose_to_local(from[i], d->v[v]);
            (void)bw_wander_keep_out(&wd[i].w, poly, d->n);
        }
    }
    /* Stepped on several threads, the robots see each other where they
     * were when the step began (a frozen fleet, synced after each step). */
    bool frozen = robots && ro.threads > 1;
    if (frozen)
        bw_fleet_freeze(&fleet, true);
    double started = cli_now(), end = now + seconds, period = 1 / rate;
    struct pollfd *fds = calloc(n ? n : 1, sizeof *fds);
    if (!fds)
        status = 1;
    double next = now, next_tick = now;
    bool ready = false;
    while (status == 0 && !cli_interrupted && (now = cli_now()) < end) {
        if (now >= next) {
            /* Robots emulated here move to the step's own time, on its grid
             * of periods, not to when the loop woke: each then gives one
             * frame a step at its 50 Hz, never none in a step that woke
             * early and two in the next (the first of them not published:
             * a step publishes a robot's latest). */
            bw_ros2_step(node, robots ? next : now);
            if (frozen)
                bw_fleet_sync(&fleet);
            next += period;
            if (next < now)
                next = now + period; /* fell behind: no burst to catch up */
        }
        if (wd && now >= next_tick) { /* each robot nobody commands wanders */
            for (size_t i = 0; i < n; i++)
                if (!bw_ros2_commanded(node, i)) {
                    wd[i].g.now = now;
                    bw_wander_tick(&wd[i].w);
                }
            next_tick += WANDER_TICK;
            if (next_tick < now)
                next_tick = now + WANDER_TICK;
        }
        double until = fmin(fmin(next, end), cli_service_watchdog(now));
        if (wd)
            until = fmin(until, next_tick);
        /* Robots on links: each read when its bytes come, or its driver's
         * time is due. Robots emulated here (--robots) have no link to wait
         * on: each step moves them to its time, so the loop wakes at the
         * steps alone, not at each robot's frames (a thousand robots'
         * frames, each on its own phase, would wake it every few
         * microseconds to look at all of them). */
        nfds_t k = 0;
        for (size_t i = 0; !robots && i < n; i++) {
            until = fmin(until, bw_base_next_deadline(bases[i]));
            int fd = bw_base_fd(bases[i]);
            if (fd >= 0)
                fds[k++] = (struct pollfd){ fd, POLLIN, 0 };
        }
        cli_ppoll(fds, k, until); /* to the microsecond: a step is due at its time */
        now = cli_now();
        size_t online = 0;
        for (size_t i = 0; i < n && (!robots || !ready); i++) {
            if (!robots)
                bw_base_poll(bases[i], now); /* what came, read when it came */
            online += bw_base_state(bases[i])->online;
        }
        if (!ready && online == n) { /* a service is ready once its robots are online */
            char say[64];
            snprintf(say, sizeof say, "%zu robot%s online", n, n == 1 ? "" : "s");
            cli_service_ready(say);
            ready = true;
        }
    }
    now = cli_now();
    if (status == 0) {
        bw_ros2_stats_t st;
        bw_ros2_stats(node, &st);
        double ran = now - started;
        fprintf(stderr,
                "botwire %s: %llu messages published in %.1f s (%.0f/s), %llu not sent (no "
                "reader); %llu cmd_vel taken, "
                "%llu not finite and ignored, %llu stamped too long ago and refused; %llu "
                "cmd_vel writers of the other type\n",
                svc.who, st.published, ran, ran > 0 ? (double)st.published / ran : 0.0, st.unread, st.cmd_vel,
                st.cmd_vel_ignored, st.cmd_vel_stale, st.cmd_vel_other_type);
    }
    bw_ros2_close(node, now); /* stops every robot */
    if (status == 0 && from) { /* the emulators' truth: who moved, and where to */
        size_t moved = 0;
        for (size_t i = 0; i < n; i++) {
            const bw_body_t *body = &bw_device_sim(bw_base_device(bases[i]))->body;
            bw_pose_t p = body->pose;
            if (hypot(p.x - from[i].x, p.y - from[i].y) < 0.005 &&
                fabs(remainder(p.theta - from[i].theta, 2 * BW_PI)) < 0.01)
                continue;
            moved++;
            fprintf(stderr,
                    "botwire %s: /%s%zu: robot at (%.3f, %.3f, %.1f deg), from (%.3f, %.3f, "
                    "%.1f deg)%s\n",
                    svc.who, prefix, first + i, p.x, p.y, p.theta * 180 / BW_PI, from[i].x, from[i].y,
                    from[i].theta * 180 / BW_PI, body->docked ? ", on a dock" : "");
        }
        fprintf(stderr, "botwire %s: %zu of %zu robots moved (the emulators' truth)\n", svc.who,
                moved, n);
    }
    free(from);
    free(wd);
    for (size_t i = 0; bases && i < n; i++)
        if (bases[i])
            bw_base_close(bases[i], now);
    for (size_t i = 0; i < n; i++)
        free(urls[i]);
    free(urls);
    free(bases);
    free(fds);
    cli_service_end(&svc);
    if (status == 0 && cli_interrupted)
        return 128 + cli_interrupted; /* the robots stopped all the same */
    return status;
}
