/* `botwire sim`: serve an emulated robot on a pseudo-terminal or TCP, in
 * real time. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

#define P2OS_TCP_PORT 8101 /* where P2OS simulators conventionally listen */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire sim FAMILY [--model M] [--world FILE] [--pty LINK | --tcp [HOST:]PORT]\n"
            "                  [--noise X] [--seed N] [--ber X] [--drop P] [--insert P]\n"
            "                  [--window MS] [--push M/S] [--slope DEG] [--idle S] [--for S]\n"
            "                  [--detach]\n"
            "\n"
            "Runs the emulated robot of FAMILY (kobuki, p2os, lobot, create, rbsm, rflex) in\n"
            "a simulated world, in real time, speaking its protocol where any program can\n"
            "connect: a pseudo-terminal (opened like a serial port; the default for all but\n"
            "p2os) or TCP (the default for p2os, on 127.0.0.1:%d, one client at a time).\n"
            "lobot is an iRobot Create with the Robolocust Command Module program; create,\n"
            "a bare Create speaking the Open Interface; rbsm, a CMU RoboBuggy (its Mega and\n"
            "drive encoder on one link) in a 60 m x 40 m lot; rflex, an RWI B21r with its\n"
            "sonar ring (or an ATRV-Jr). The first line of output says where, e.g.\n"
            "  botwire sim: kobuki on /dev/pts/5 (link /tmp/kobuki)\n"
            "  botwire sim: p2os p2dx on tcp://127.0.0.1:%d\n"
            "Ctrl-C stops it (and removes the link); it ends with a line of what it\n"
            "received, including every command it ignored or did not know, by number.\n"
            "Clients connect with the URLs FAMILY:LINK (a pty) or p2os:tcp://HOST:PORT, e.g.\n"
            "  botwire drive kobuki:/tmp/kobuki --v 0.2 --for 2\n"
            "\n"
            "  --model M        the model (p2os: p2dx, p2pb, p2at; default p2dx; rflex:\n"
            "                   b21r, atrvjr; default b21r); rbsm: the protocol's variant,\n"
            "                   seed (default) or deployed\n"
            "  --window MS      lobot: how long the Command Module waits for a command\n"
            "                   after each READY (default 1500, the protocol's; the\n"
            "                   deployed program waited 250); silence is STOP\n"
            "  --push M/S       rbsm: the speed the pusher runs the buggy up to when its\n"
            "                   brake is released at rest (default 3)\n"
            "  --slope DEG      rbsm: the course's slope, downhill positive (default 0: it\n"
            "                   coasts down slowly)\n"
            "  --world FILE     the world to move in (default: the built-in 5 m x 4 m room)\n"
            "  --pty LINK       serve on a pty, and make LINK a symlink to it\n"
            "  --tcp [HOST:]PORT  serve on TCP (HOST default 127.0.0.1)\n"
            "  --noise X        wheel slip and encoder noise, 1 = nominal (default 0)\n"
            "  --ber X          a bad cable, both ways: each bit flipped with probability X\n"
            "                   (0..0.1; 1e-3 is a poor line)\n"
            "  --drop P, --insert P   ...each byte lost, or a random byte slipped in,\n"
            "                   with probability P (0..0.5)\n"
            "  --seed N         seed of the noise and the line noise (default 1)\n"
            "  --for S          stop after S seconds (default: run until stopped)\n"
            "  --idle S         close a TCP client that has no session (P2OS: no OPEN) for\n"
            "                   S seconds, so one that says nothing cannot hold the only\n"
            "                   place (default 10)\n"
            "  --detach         once serving, go on in the background and return (the first\n"
            "                   line then ends with its pid, to stop it: kill PID)\n"
            "  -h, --help       this help\n",
            P2OS_TCP_PORT, P2OS_TCP_PORT);
}

typedef struct {
    bw_device_t *dev;
    bool noisy;              /* --ber, --drop, --insert */
    bw_line_t up, down;      /* the bad cable: host to robot, robot to host */
    uint64_t dropped; /* output bytes nobody took */
    bool served;      /* it got as far as serving (else the error alone is said) */
    bool detach;      /* --detach */
    double idle;      /* --idle: s a TCP client may hold the slot without a session */
} server_t;

/* The first line: where it serves. With --detach the serving goes on in a
 * child, and this process returns once that line is out. */
static void announce(server_t *s, const char *line)
{
    fflush(NULL);
    if (s->detach) {
        pid_t pid = fork();
        if (pid > 0) {
            printf("%s (pid %ld)\n", line, (long)pid);
            fflush(stdout);
            _exit(0); /* the child owns the pty link and the port now */
        }
        if (pid == 0) {
            setsid();
            int null = open("/dev/null", O_RDWR);
            if (null >= 0) {
                dup2(null, STDIN_FILENO);
                dup2(null, STDOUT_FILENO);
                close(null);
            }
        } else {
            cli_error("sim", "cannot go to the background: %s; serving here", strerror(errno));
            printf("%s\n", line);
        }
    } else {
        printf("%s\n", line);
    }
    fflush(stdout);
    s->served = true;
}

/* Host bytes in, time forward, robot bytes out (nowhere when nobody is
 * there to read them). Returns what the port said (0, or BW_ECLOSED when the
 * client left). */
static int pump(server_t *s, bw_port_t *port, bool listener, double now)
{
    uint8_t buf[4096], noisy[2 * sizeof buf];
    int n = 0;
    while (port && (n = bw_port_read(port, buf, sizeof buf)) > 0) {
        if (s->noisy)
            bw_device_input(s->dev, noisy, bw_line_pass(&s->up, buf, (size_t)n, noisy, sizeof noisy),
                            now);
        else
            bw_device_input(s->dev, buf, (size_t)n, now);
    }
    bw_device_step(s->dev, now);
    size_t out;
    while ((out = bw_device_output(s->dev, buf, sizeof buf)) > 0) {
        const uint8_t *bytes = buf;
        if (s->noisy) {
            out = bw_line_pass(&s->down, buf, out, noisy, sizeof noisy);
            bytes = noisy;
        }
        int w = port && listener && n >= 0 ? bw_port_write(port, bytes, out) : 0;
        /* Nobody reading: the rest is lost, as on a real line. */
        if (w < (int)out)
            s->dropped += out - (size_t)(w > 0 ? w : 0);
    }
    char line[256];
    while (bw_device_next_notice(s->dev, line, sizeof line))
        fprintf(stderr, "botwire sim: %s\n", line);
    return n < 0 ? n : 0;
}

/* Runs until interrupted, the end time, or the host asking the emulator
 * to exit. */
static bool running(const server_t *s, double end)
{
    return !cli_interrupted && cli_now() < end && !bw_device_exit_requested(s->dev, NULL);
}

/* Waits for any of the descriptors (-1 entries ignored) or the deadline. */
static void wait_any(const int *fds, int nfds, double until)
{
    struct pollfd p[4];
    nfds_t k = 0;
    for (int i = 0; i < nfds; i++)
        if (fds[i] >= 0)
            p[k++] = (struct pollfd){ fds[i], POLLIN, 0 };
    double left = until - cli_now();
    if (left > 0)
        poll(p, k, (int)ceil(fmin(left, 3600.0) * 1000.0));
}

static int serve_pty(server_t *s, const char *family, const char *model, const char *link,
                     double end)
{
    char err[512], slave[256];
    bw_port_t *pty;
    if (bw_pty_open(&pty, slave, sizeof slave, link, err, sizeof err) < 0) {
        cli_error("sim", "%s", err);
        return 1;
    }
    char line[640];
    snprintf(line, sizeof line, "botwire sim: %s%s%s on %s%s%s%s", family, model ? " " : "",
             model ? model : "", slave, link ? " (link " : "", link ? link : "", link ? ")" : "");
    announce(s, line);
    int status = 0;
    /* Clients come and go as over TCP when the system says who has the pty
     * open; otherwise the line is always taken to be listened to. */
    int clients = bw_pty_clients(pty, NULL);
    while (running(s, end)) {
        int fds[2] = { bw_port_fd(pty), bw_pty_watch_fd(pty) };
        wait_any(fds, 2, fmin(bw_device_next_deadline(s->dev), end));
        double now = cli_now();
        if (clients >= 0) {
            int was = clients;
            bool emptied;
            clients = bw_pty_clients(pty, &emptied);
            if (emptied) {
                /* The last words of the client that left are its own. */
                pump(s, pty, false, now);
                fprintf(stderr, "botwire sim: the last client closed %s\n", slave);
                bw_device_link(s->dev, false, now);
            }
            if (clients > 0 && (was == 0 || emptied)) {
                fprintf(stderr, "botwire sim: a client opened %s\n", slave);
                bw_device_link(s->dev, true, now);
            }
            if (clients > 1 && clients > was)
                fprintf(stderr, "botwire sim: %d programs have %s open: their commands mix and "
                                "they will fight over the robot\n",
                        clients, slave);
        }
        int rc = pump(s, pty, clients != 0, now);
        if (rc < 0) {
            cli_error("sim", "pty failed: %s", bw_strerror(rc));
            status = 1;
            break;
        }
    }
    bw_port_close(pty);
    return status;
}

/* The TCP client's turn: its bytes in, the robot's out; it goes when it has
 * left, or has held the place for the idle time without a session. */
static void serve_client(server_t *s, bw_port_t **client, double *quiet_since, double now)
{
    int rc = pump(s, *client, true, now);
    if (!*client)
        return;
    if (bw_device_in_session(s->dev))
        *quiet_since = now;
    bool idle = now - *quiet_since >= s->idle;
    if (rc == 0 && !idle)
        return;
    if (idle)
        fprintf(stderr, "botwire sim: client %s started no session in %g s: closed\n",
                bw_port_name(*client), s->idle);
    else
        fprintf(stderr, "botwire sim: client %s left\n", bw_port_name(*client));
    bw_device_link(s->dev, false, now);
    bw_port_close(*client);
    *client = NULL;
}

static int serve_tcp(server_t *s, const char *family, const char *model, const char *host,
                     int port, double end)
{
    char err[512];
    bw_listener_t *l;
    if (bw_listener_open(&l, host, port, err, sizeof err) < 0) {
        cli_error("sim", "%s%s", err,
                  strstr(err, "in use") ? " (another emulator there? --tcp PORT picks another)" : "");
        return 1;
    }
    char line[640];
    snprintf(line, sizeof line, "botwire sim: %s%s%s on tcp://%s:%d", family, model ? " " : "",
             model ? model : "", host && *host ? host : "127.0.0.1", bw_listener_port(l));
    announce(s, line);
    bw_port_t *client = NULL;
    double quiet_since = 0; /* when the client last had no session */
    while (running(s, end)) {
        int fds[2] = { bw_listener_fd(l), client ? bw_port_fd(client) : -1 };
        double until = fmin(bw_device_next_deadline(s->dev), end);
        if (client && !bw_device_in_session(s->dev))
            until = fmin(until, quiet_since + s->idle);
        wait_any(fds, 2, until);
        double now = cli_now();
        /* The client first: one that has just left makes room for the next
         * one knocking (a client reconnecting at once is not refused). */
        serve_client(s, &client, &quiet_since, now);
        bw_port_t *c;
        while (bw_listener_accept(l, &c) == 1) {
            /* Someone knocks: is the one we have still there? */
            serve_client(s, &client, &quiet_since, now);
            if (client) {
                /* One client at a time: a second one is told so by a close. */
                fprintf(stderr, "botwire sim: refused %s: a client is connected\n",
                        bw_port_name(c));
                bw_port_close(c);
                continue;
            }
            client = c;
            quiet_since = now;
            fprintf(stderr, "botwire sim: client %s connected\n", bw_port_name(client));
            bw_device_link(s->dev, true, now);
        }
    }
    bw_port_close(client);
    bw_listener_close(l);
    return 0;
}

/* "; ignored: 62 batteryinfo x1, 92 soundtog x1" */
static void print_counts(const bw_device_t *dev, const char *what, const uint32_t *by_id)
{
    bool first = true;
    for (unsigned id = 0; id < 256; id++) {
        if (!by_id[id])
            continue;
        const char *name = bw_device_command_name(dev, id);
        if (first)
            fprintf(stderr, "; %s: ", what);
        else
            fprintf(stderr, ", ");
        fprintf(stderr, "%u%s%s x%lu", id, name ? " " : "", name ? name : "",
                (unsigned long)by_id[id]);
        first = false;
    }
}

/* "[HOST:]PORT" */
static int parse_hostport(const char *text, char *host, size_t cap, int *port)
{
    const char *colon = strrchr(text, ':');
    const char *num = colon ? colon + 1 : text;
    char *end;
    long p = strtol(num, &end, 10);
    if (!*num || *end || p < 0 || p > 65535)
        return -1;
    size_t n = colon ? (size_t)(colon - text) : 0;
    if (n >= cap)
        return -1;
    memcpy(host, text, n);
    host[n] = 0;
    *port = (int)p;
    return 0;
}

int cmd_sim(int argc, char **argv)
{
    static const struct option opts[] = {
        { "world", required_argument, NULL, 'W' }, { "pty", required_argument, NULL, 'p' },
        { "tcp", required_argument, NULL, 't' },   { "model", required_argument, NULL, 'm' },
        { "noise", required_argument, NULL, 'n' }, { "seed", required_argument, NULL, 's' },
        { "for", required_argument, NULL, 'f' },   { "help", no_argument, NULL, 'h' },
        { "detach", no_argument, NULL, 'D' },      { "idle", required_argument, NULL, 'i' },
        { "ber", required_argument, NULL, 'b' },   { "drop", required_argument, NULL, 'd' },
        { "insert", required_argument, NULL, 'I' }, { "window", required_argument, NULL, 'w' },
        { "push", required_argument, NULL, 'P' },   { "slope", required_argument, NULL, 'S' },
        { NULL, 0, NULL, 0 },
    };
    const char *world_path = NULL, *link = NULL, *tcp = NULL, *model = NULL;
    double noise = 0, seed = 1, duration = INFINITY;
    bool detach = false;
    double idle = 10, ber = 0, drop = 0, insert = 0, window = 0, push = 0, slope = 0;
    int c;
    optind = 0;
    while ((c = cli_getopt("sim", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'W': world_path = optarg; break;
        case 'p': link = optarg; break;
        case 't': tcp = optarg; break;
        case 'm': model = optarg; break;
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
        case 'D': detach = true; break;
        case 'b':
            if (cli_number("sim", "--ber", optarg, 0, 0.1, &ber) < 0)
                return 2;
            break;
        case 'd':
            if (cli_number("sim", "--drop", optarg, 0, 0.5, &drop) < 0)
                return 2;
            break;
        case 'I':
            if (cli_number("sim", "--insert", optarg, 0, 0.5, &insert) < 0)
                return 2;
            break;
        case 'i':
            if (cli_number("sim", "--idle", optarg, 0.1, 1e6, &idle) < 0)
                return 2;
            break;
        case 'w':
            if (cli_number("sim", "--window", optarg, 10, 60000, &window) < 0)
                return 2;
            break;
        case 'P':
            if (cli_number("sim", "--push", optarg, 0.1, 15, &push) < 0)
                return 2;
            break;
        case 'S':
            if (cli_number("sim", "--slope", optarg, -20, 20, &slope) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (optind != argc - 1) {
        cli_error("sim", optind == argc ? "which robot? (botwire sim FAMILY: kobuki, p2os, lobot, "
                                          "create, rbsm, rflex)"
                                        : "one robot at a time");
        return 2;
    }
    if (link && tcp) {
        cli_error("sim", "--pty and --tcp: one or the other");
        return 2;
    }
    const char *family = argv[optind];
    char host[128] = "127.0.0.1";
    int tcp_port = P2OS_TCP_PORT;
    if (tcp && parse_hostport(tcp, host, sizeof host, &tcp_port) < 0) {
        cli_error("sim", "--tcp wants [HOST:]PORT, not \"%s\"", tcp);
        return 2;
    }
    bool use_tcp = tcp || (!link && strcasecmp(family, "p2os") == 0);

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
    bool lobot = strcasecmp(family, "lobot") == 0;
    if (lobot)
        o.command_timeout = window / 1000; /* the window after READY */
    else if (window > 0) {
        cli_error("sim", "--window is lobot's (the Command Module's window after READY)");
        return 2;
    }
    if ((push > 0 || slope != 0) && strcasecmp(family, "rbsm") != 0) {
        cli_error("sim", "--push and --slope are rbsm's (the buggy's course)");
        return 2;
    }
    o.push = push;
    o.slope = slope;
    o.model = model;

    double t = cli_now();
    server_t s = { 0 };
    s.detach = detach;
    s.idle = idle;
    s.noisy = ber > 0 || drop > 0 || insert > 0;
    (void)bw_line_init(&s.up, ber, drop, insert, (uint64_t)seed * 2 + 1);
    (void)bw_line_init(&s.down, ber, drop, insert, (uint64_t)seed * 2 + 2);
    if (bw_device_create(&s.dev, family, &o, t, err, sizeof err) < 0) {
        cli_error("sim", "%s", err);
        return 2;
    }
    family = bw_device_family(s.dev);
    if (!model && strcmp(family, "p2os") == 0)
        model = "p2dx";
    if (!model && strcmp(family, "rflex") == 0)
        model = "b21r";
    cli_catch_signals();
    int status = use_tcp ? serve_tcp(&s, family, model, host, tcp_port, t + duration)
                         : serve_pty(&s, family, model, link, t + duration);
    if (!s.served) {
        bw_device_destroy(s.dev);
        return status;
    }
    const bw_device_stats_t *ds = bw_device_stats(s.dev);
    const bw_parse_stats_t *st = &ds->link;
    const bw_sim_t *sim = bw_device_sim(s.dev);
    fprintf(stderr,
            "botwire sim: stopped; %llu command frames (%llu rejected), %llu output bytes "
            "unread, robot at (%.3f, %.3f, %.1f deg)",
            (unsigned long long)st->frames,
            (unsigned long long)(st->checksum_errors + st->length_errors),
            (unsigned long long)(s.dropped + bw_device_dropped(s.dev)), sim->body.pose.x,
            sim->body.pose.y,
            sim->body.pose.theta * 180 / BW_PI);
    if (strcmp(family, "lobot") == 0 && bw_lobot_device_unheard(s.dev))
        fprintf(stderr, "; %llu bytes came outside the window, unheard",
                (unsigned long long)bw_lobot_device_unheard(s.dev));
    print_counts(s.dev, "ignored", ds->ignored_by_id);
    print_counts(s.dev, "unknown", ds->unknown_by_id);
    fprintf(stderr, "\n");
    int exit_status;
    if (bw_device_exit_requested(s.dev, &exit_status))
        status = exit_status;
    bw_device_destroy(s.dev);
    return status;
}
