/* `botwire sim`: serve an emulated robot on a pseudo-terminal or TCP, in
 * real time. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "botwire/runner.h"
#include "botwire/view.h"

#define P2OS_TCP_PORT 8101 /* where P2OS simulators conventionally listen */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire sim FAMILY [--model M] [--world FILE] [--pty LINK | --tcp [HOST:]PORT]\n"
            "                  [--noise X] [--seed N] [--ber X] [--drop P] [--insert P]\n"
            "                  [--window MS] [--push M/S] [--slope DEG] [--idle S] [--for S]\n"
            "                  [--detach [--log FILE]] [--pidfile FILE] [--robots N] [--baud N]\n"
            "                  [--view [HOST:]PORT]\n"
            "       botwire sim FAMILY --robots N --fast --for S [--wander | --stack NAMES]\n"
            "                  [--threads N] [--frame S] [--dock-below P [--docks N]]\n"
            "                  [--battery LO[-HI]]\n"
            "       botwire sim --world FILE [...]   (robots of the world file's robot lines)\n"
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
            "received, including every command it ignored or did not know, by number,\n"
            "and on a Kobuki the LED and output commands, the LEDs' colours and the\n"
            "sounds played.\n"
            "Clients connect with the URLs FAMILY:LINK (a pty) or p2os:tcp://HOST:PORT, e.g.\n"
            "  botwire drive kobuki:/tmp/kobuki --v 0.2 --for 2\n"
            "\n"
            "  --model M        the model (p2os: p2dx, p2pb, p2at; default p2dx; rflex:\n"
            "                   b21r, atrvjr; default b21r); rbsm: the protocol's variant,\n"
            "                   seed (default) or deployed; create: create (a Create 1,\n"
            "                   default) or create2 (Roomba 600 OI, 115200 baud)\n"
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
            "  --baud N         the serial line's rate: the robot's bytes reach the host,\n"
            "                   and the host's the robot, a byte per 10 bits of it, as a\n"
            "                   UART sends them (default on a pty: the family's, e.g.\n"
            "                   57600 for create and lobot, 115200 for kobuki and rflex,\n"
            "                   9600 for p2os; on TCP none, as MobileSim: bytes at once)\n"
            "  --for S          stop after S seconds (default: run until stopped)\n"
            "  --idle S         close a TCP client that has no session (P2OS: no OPEN) for\n"
            "                   S seconds, so one that says nothing cannot hold the only\n"
            "                   place (default 10)\n"
            "%s"
            "  --robots N       N robots of FAMILY in one world, as MobileSim serves them:\n"
            "                   each on its own TCP port counting up from the first (8101,\n"
            "                   or --tcp's), or with --pty on its own pty (LINK1, LINK2,\n"
            "                   ...); one line each says where. They see each other: a\n"
            "                   robot is an obstacle to the others' motion, bumpers and\n"
            "                   sonar. Without --world, up to 4 stand 0.6 m apart at the\n"
            "                   family's start, more on a 1.5 m grid in a room made for them\n"
            "                   (at most %d)\n"
            "  A world file's robot lines (robot FAMILY[/MODEL] X Y HEADING) serve a fleet\n"
            "  of any families and models the same way; FAMILY is then not given.\n"
            CLI_VIEW_HELP
            "                   (here: the true poses, the world and each robot's link;\n"
            "                   no driver runs here: steer with botwire view URL)\n"
            "  --fast           with --for S: the robots and their host drivers in this\n"
            "                   process, in virtual time (S seconds of robot time, as fast\n"
            "                   as it goes), each robot's serial line carrying its protocol\n"
            "                   both ways; prints one JSON line: real_time_factor,\n"
            "                   cpu_ms_per_robot_s (ms of CPU per robot per robot-second),\n"
            "                   mem_per_robot_kb, mean_distance_m (a jammed fleet shows),\n"
            "                   min_gap_m (between two robots' outlines), ... (docs/fleet.md)\n"
            "  --wander         with --fast: each robot wanders (`botwire wander`'s stack);\n"
            "                   without it they stand, online\n"
            "  --stack NAMES    with --fast: each robot wanders with this behaviour stack\n"
            "                   (" CLI_STACK_HELP ")\n"
            "  --threads N      with --fast: threads (default: one per core); the same\n"
            "                   seed gives the same run whatever N\n"
            "  --frame S        with --fast: robot time between the snapshots of where the\n"
            "                   robots are that each one sees (default 0.02)\n"
            "  --dock-below P   with --wander: a robot whose battery falls below P percent\n"
            "                   goes to a dock, one robot a dock (the others wait, standing,\n"
            "                   in turn), docks by the dock's infrared, charges until its\n"
            "                   charger says charged and wanders again (Kobuki, Create;\n"
            "                   lobot's Create docks, but its Full mode does not charge);\n"
            "                   adds docking figures to the JSON line and prints progress\n"
            "                   each robot hour (docs/fleet.md)\n"
            "  --docks N        with --dock-below in a made room: N docks along its walls\n"
            "                   (default: one for every ten robots)\n"
            "  --battery LO[-HI] with --fast: each robot's battery at the start, percent of\n"
            "                   the emulated pack, drawn between LO and HI (default: full)\n"
            "  -h, --help       this help\n",
            P2OS_TCP_PORT, P2OS_TCP_PORT, cli_service_help(19), BW_FLEET_MAX);
}

typedef struct {
    bw_device_t *dev;
    bool noisy;              /* --ber, --drop, --insert */
    bw_line_t up, down;      /* the bad cable: host to robot, robot to host */
    uint64_t dropped; /* output bytes nobody took */
    double idle;      /* --idle: s a TCP client may hold the slot without a session */
    char name[32];    /* "" for a lone robot, else "robot 3" */
    /* Where it serves: a pty, or a TCP listener and its one client. */
    bw_port_t *pty;
    char slave[256];
    int clients;      /* on the pty (-1: the system cannot tell) */
    bw_listener_t *listener;
    bw_port_t *client;
    double quiet_since; /* when the TCP client last had no session */
} server_t;

/* Says something of a robot on stderr, named when there are several. */
/* --detach, --log, --pidfile (cli.h); its `who` names the lines on stderr. */
static cli_service_t svc;

static void say(const server_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const server_t *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "botwire %s: %s%s", svc.who, s->name, *s->name ? ": " : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Host bytes to the robot, through the line's noise when it has some. */
static void hear(server_t *s, const uint8_t *buf, size_t n, double now)
{
    uint8_t noisy[2 * 4096];
    while (n > 0) {
        size_t k = n < 4096 ? n : 4096;
        if (s->noisy)
            bw_device_input(s->dev, noisy, bw_line_pass(&s->up, buf, k, noisy, sizeof noisy), now);
        else
            bw_device_input(s->dev, buf, k, now);
        buf += k;
        n -= k;
    }
}

/* Host bytes in, time forward, robot bytes out (nowhere when nobody is
 * there to read them). Returns what the port said (0, or BW_ECLOSED when the
 * client left). */
static int pump(server_t *s, bw_port_t *port, bool listener, double now)
{
    uint8_t buf[4096], noisy[2 * sizeof buf];
    int n = 0;
    while (port && (n = bw_port_read(port, buf, sizeof buf)) > 0) {
        /* The bytes were in by this read, not by the wake before it: a
         * query written between the two would otherwise reach the robot
         * before it was sent, and its reply come faster than the line. */
        now = fmax(now, cli_now());
        hear(s, buf, (size_t)n, now);
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
        say(s, "%s", line);
    return n < 0 ? n : 0;
}

/* Runs until interrupted, the end time, or a host asking the emulator to
 * exit. */
static bool running(server_t *s, size_t n, double end)
{
    if (cli_interrupted || cli_now() >= end)
        return false;
    for (size_t i = 0; i < n; i++)
        if (bw_device_exit_requested(s[i].dev, NULL))
            return false;
    return true;
}

/* Opens where the robot serves; its line for the announcement in line. */
static int open_pty(server_t *s, const char *what, const char *link, char *line, size_t cap)
{
    char err[512];
    if (bw_pty_open(&s->pty, s->slave, sizeof s->slave, link, err, sizeof err) < 0) {
        cli_error(svc.who, "%s", err);
        return -1;
    }
    snprintf(line, cap, "botwire sim: %s%s%s on %s%s%s%s", s->name, *s->name ? ": " : "", what,
             s->slave, link ? " (link " : "", link ? link : "", link ? ")" : "");
    /* Clients come and go as over TCP when the system says who has the pty
     * open; otherwise the line is always taken to be listened to. */
    s->clients = bw_pty_clients(s->pty, NULL);
    return 0;
}

static int open_tcp(server_t *s, const char *what, const char *host, int port, char *line,
                    size_t cap)
{
    char err[512];
    if (bw_listener_open(&s->listener, host, port, err, sizeof err) < 0) {
        cli_error(svc.who, "%s%s", err,
                  strstr(err, "in use") ? " (another emulator there? --tcp PORT picks another)" : "");
        return -1;
    }
    snprintf(line, cap, "botwire sim: %s%s%s on tcp://%s:%d", s->name, *s->name ? ": " : "", what,
             host && *host ? host : "127.0.0.1", bw_listener_port(s->listener));
    return 0;
}

/* The descriptors a robot waits on (up to 2), and until when. */
static int fds_of(const server_t *s, int *fds, double *until)
{
    *until = fmin(*until, bw_device_next_deadline(s->dev));
    if (s->pty) {
        fds[0] = bw_port_fd(s->pty);
        fds[1] = bw_pty_watch_fd(s->pty);
        return 2;
    }
    if (s->client && !bw_device_in_session(s->dev))
        *until = fmin(*until, s->quiet_since + s->idle);
    fds[0] = bw_listener_fd(s->listener);
    fds[1] = s->client ? bw_port_fd(s->client) : -1;
    return 2;
}

/* A pty robot's turn: who has the pty open, then bytes both ways. */
static int pty_turn(server_t *s, double now)
{
    if (s->clients >= 0) {
        int was = s->clients;
        bool emptied;
        s->clients = bw_pty_clients(s->pty, &emptied);
        uint8_t words[4096];
        int nwords = 0;
        bool newcomer = false;
        if (emptied) {
            /* What waits on the line is the last words of the client that
             * left, unless another has opened it since: then it may be the
             * newcomer's first (its open comes before its first byte, so a
             * look at the opens after the read tells), and it is heard on
             * the new link. What the one that left said last then reaches
             * a robot out of session, where it changes nothing. */
            nwords = bw_port_read(s->pty, words, sizeof words);
            if (nwords > 0) /* in by this read (pump says why) */
                now = fmax(now, cli_now());
            bool again = false;
            int later = bw_pty_clients(s->pty, &again);
            if (later >= 0)
                s->clients = later;
            newcomer = s->clients > 0 || again;
            if (nwords > 0 && !newcomer)
                hear(s, words, (size_t)nwords, now);
            pump(s, newcomer ? NULL : s->pty, false, now); /* its answers: nobody's */
            say(s, "the last client closed %s", s->slave);
            bw_device_link(s->dev, false, now);
        }
        if (s->clients > 0 && (was == 0 || emptied)) {
            say(s, "a client opened %s", s->slave);
            bw_device_link(s->dev, true, now);
        }
        if (newcomer && nwords > 0)
            hear(s, words, (size_t)nwords, now);
        if (s->clients > 1 && s->clients > was)
            say(s, "%d programs have %s open: their commands mix and they will fight over the "
                   "robot",
                s->clients, s->slave);
    }
    int rc = pump(s, s->pty, s->clients != 0, now);
    if (rc < 0)
        cli_error(svc.who, "pty failed: %s", bw_strerror(rc));
    return rc;
}

/* The TCP client's turn: its bytes in, the robot's out; it goes when it has
 * left, or has held the place for the idle time without a session. */
static void serve_client(server_t *s, double now)
{
    int rc = pump(s, s->client, true, now);
    if (!s->client)
        return;
    if (bw_device_in_session(s->dev))
        s->quiet_since = now;
    bool idle = now - s->quiet_since >= s->idle;
    if (rc == 0 && !idle)
        return;
    if (idle)
        say(s, "client %s started no session in %g s: closed", bw_port_name(s->client), s->idle);
    else
        say(s, "client %s left", bw_port_name(s->client));
    bw_device_link(s->dev, false, now);
    bw_port_close(s->client);
    s->client = NULL;
}

static void tcp_turn(server_t *s, double now)
{
    /* The client first: one that has just left makes room for the next one
     * knocking (a client reconnecting at once is not refused). */
    serve_client(s, now);
    bw_port_t *c;
    while (bw_listener_accept(s->listener, &c) == 1) {
        /* Someone knocks: is the one we have still there? */
        serve_client(s, now);
        if (s->client) {
            /* One client at a time: a second one is told so by a close
             * before a byte, as P2OS servers do and ARIA clients expect
             * (botwire's driver reads it as "held by another client"). */
            say(s, "refused %s: client %s holds the robot", bw_port_name(c),
                bw_port_name(s->client));
            bw_port_close(c);
            continue;
        }
        s->client = c;
        s->quiet_since = now;
        say(s, "client %s connected", bw_port_name(s->client));
        bw_device_link(s->dev, true, now);
    }
}

/* --fast: the fleet in this process (botwire/runner.h), one JSON line of
 * figures. */
static int sim_fast(const bw_runner_opts_t *o)
{
    char err[512];
    bw_runner_result_t r;
    if (bw_runner_run(o, &r, err, sizeof err) < 0) {
        cli_error("sim", "%s", err);
        return 1;
    }
    /* null: no two robots came within a metre of each other (a lone one) */
    char gap[32] = "null";
    if (isfinite(r.min_gap))
        snprintf(gap, sizeof gap, "%.4f", r.min_gap);
    printf("{\"robots\":%zu,\"threads\":%u,\"online\":%zu,\"sim_s\":%.3f,\"wall_s\":%.3f,"
           "\"real_time_factor\":%.3f,\"cpu_s\":%.3f,\"cpu_ms_per_robot_s\":%.4f,"
           "\"mem_per_robot_kb\":%.1f,\"rss_per_robot_kb\":%.1f,\"mean_distance_m\":%.3f,\"min_gap_m\":%s,"
           "\"sips\":%llu,\"setup_wall_s\":%.3f,\"settle_s\":%.2f,\"poses\":\"%016llx\"",
           r.robots, r.threads, r.online, r.sim_s, r.wall_s, r.real_time_factor, r.cpu_s,
           r.cpu_ms_per_robot_s, r.mem_per_robot_kb, r.rss_per_robot_kb, r.mean_distance, gap,
           (unsigned long long)r.sips, r.setup_wall_s, r.settle_s, (unsigned long long)r.poses_hash);
    if (o->dock_below > 0)
        printf(",\"docks\":%zu,\"dock_attempts\":%llu,\"docked\":%llu,\"dock_failed\":%llu,"
               "\"dock_failures\":\"%s\",\"charges\":%llu,\"under_way\":%zu,\"flat\":%zu,"
               "\"least_charge\":%.3f,\"contacts\":%llu,\"touches\":%llu,\"attempts_open\":%zu,\"docked_untrue\":%llu,\"not_charging\":%llu",
               r.docks, (unsigned long long)r.dock_attempts, (unsigned long long)r.docked,
               (unsigned long long)r.dock_failed, r.dock_reasons, (unsigned long long)r.charges,
               r.under_way, r.flat, r.least_charge, (unsigned long long)r.contacts,
               (unsigned long long)r.touches,
               r.attempts_open, (unsigned long long)r.docked_untrue,
               (unsigned long long)r.not_charging);
    printf("}\n");
    return cli_flush_out("sim");
}

/* The live view (--view), served between the robots' turns. */
static bw_view_t *sim_view;

/* Every robot until the end: wait for any of them, then give each its
 * turn (stepping a robot costs little when nothing is due). */
static int serve(server_t *s, size_t n, double end)
{
    size_t cap = 2 * n + 1;
    struct pollfd *p = calloc(cap, sizeof *p);
    if (!p) {
        cli_error(svc.who, "out of memory");
        return 1;
    }
    int status = 0;
    while (running(s, n, end)) {
        double until = fmin(end, cli_service_watchdog(cli_now()));
        nfds_t k = 0;
        for (size_t i = 0; i < n; i++) {
            int fds[2];
            int m = fds_of(&s[i], fds, &until);
            for (int j = 0; j < m; j++)
                if (fds[j] >= 0)
                    p[k++] = (struct pollfd){ fds[j], POLLIN, 0 };
        }
        if (sim_view) {
            p[k++] = (struct pollfd){ bw_view_fd(sim_view), POLLIN, 0 };
            until = fmin(until, bw_view_next_deadline(sim_view));
        }
        double left = until - cli_now();
        if (left > 0) {
            /* To the microsecond: a byte is 87 us at 115200 baud, and a
             * reply woken a millisecond late is a poller slowed by a fifth. */
            left = fmin(left, 3600.0);
            struct timespec ts = { (time_t)left, (long)((left - floor(left)) * 1e9) + 1 };
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            ppoll(p, k, &ts, NULL);
        }
        double now = cli_now();
        for (size_t i = 0; i < n; i++) {
            if (s[i].pty) {
                if (pty_turn(&s[i], now) < 0) {
                    status = 1;
                    goto done;
                }
            } else {
                tcp_turn(&s[i], now);
            }
        }
        bw_view_service(sim_view, now);
    }
done:
    free(p);
    return status;
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

/* "; LEDs and outputs: 2 commands, LED1 green, LED2 off; sounds: 1": what
 * the host set and played on a robot that has LEDs and sounds (a Kobuki). */
static void print_extras(const bw_device_t *dev)
{
    const bw_create_robot_t *cr = bw_create_device_robot(dev);
    if (cr) { /* a Create's: what it played and shows */
        fprintf(stderr, "; songs played %lu, LEDs 0x%02x, power LED %u/%u",
                (unsigned long)cr->songs_played, cr->leds[0], cr->leds[1], cr->leds[2]);
        if (cr->model == BW_CREATE_MODEL_2) {
            char shown[5];
            for (int i = 0; i < 4; i++)
                shown[i] = cr->digits[i] >= 32 && cr->digits[i] < 127 ? (char)cr->digits[i] : ' ';
            shown[4] = 0;
            fprintf(stderr, ", display \"%s\"", shown);
        }
        return;
    }
    const bw_kobuki_device_io_t *k = bw_kobuki_device_io(dev);
    if (!k)
        return;
    static const char *const colour[] = { "off", "red", "green", "orange" };
    unsigned led1 = (k->gp_output >> 8) & 3u, led2 = (k->gp_output >> 10) & 3u;
    fprintf(stderr, "; LEDs and outputs: %lu command%s, LED1 %s, LED2 %s",
            (unsigned long)k->gp_outputs, k->gp_outputs == 1 ? "" : "s", colour[led1],
            colour[led2]);
    if (k->gp_output & 0xFFu)
        fprintf(stderr, ", outputs 0x%02x", k->gp_output & 0xFFu);
    fprintf(stderr, "; sounds: %lu", (unsigned long)k->sounds);
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
        CLI_SERVICE_OPTIONS,                        { "idle", required_argument, NULL, 'i' },
        { "ber", required_argument, NULL, 'b' },   { "drop", required_argument, NULL, 'd' },
        { "insert", required_argument, NULL, 'I' }, { "window", required_argument, NULL, 'w' },
        { "push", required_argument, NULL, 'P' },   { "slope", required_argument, NULL, 'S' },
        { "robots", required_argument, NULL, 'R' }, { "baud", required_argument, NULL, 'B' },
        { "view", required_argument, NULL, 'V' },   { "view-token", required_argument, NULL, 'K' },
        { "view-readonly", no_argument, NULL, 'Q' },
        { "fast", no_argument, NULL, 'x' },         { "wander", no_argument, NULL, 'X' },
        { "threads", required_argument, NULL, 'T' }, { "frame", required_argument, NULL, 'M' },
        { "stack", required_argument, NULL, 'k' },  { "dock-below", required_argument, NULL, 'U' },
        { "docks", required_argument, NULL, 'Y' },  { "battery", required_argument, NULL, 'Z' },
        { NULL, 0, NULL, 0 },
    };
    const char *world_path = NULL, *link = NULL, *tcp = NULL, *model = NULL;
    double noise = 0, seed = 1, duration = INFINITY;
    double idle = 10, ber = 0, drop = 0, insert = 0, window = 0, push = 0, slope = 0;
    double robots = 0, baud = 0;
    bw_view_options_t vo = { .cmd = svc.who }; /* its lines named as the command's */
    bw_runner_opts_t fast = { 0 }; /* --fast: the fleet in virtual time (src/runner/) */
    bool in_virtual_time = false;
    double threads = 0, frame = 0, dock_below = 0, docks = 0, battery[2] = { 0, 0 };
    int c;
    optind = 0;
    cli_service_init(&svc, "sim");
    while ((c = cli_getopt("sim", argc, argv, "h", opts)) != -1) {
        if (cli_service_option(&svc, c, optarg))
            continue;
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
        case 'R':
            if (cli_number("sim", "--robots", optarg, 1, BW_FLEET_MAX, &robots) < 0)
                return 2;
            if (robots != floor(robots)) {
                cli_error(svc.who, "--robots wants a whole number, not \"%s\"", optarg);
                return 2;
            }
            break;
        case 'B':
            if (cli_number("sim", "--baud", optarg, 50, 4000000, &baud) < 0)
                return 2;
            if (baud != floor(baud)) {
                cli_error(svc.who, "--baud wants a whole number, not \"%s\"", optarg);
                return 2;
            }
            break;
        case 'V': vo.listen = optarg; break;
        case 'K': vo.token = optarg; break;
        case 'Q': vo.readonly = true; break;
        case 'x': in_virtual_time = true; break;
        case 'X': fast.wander = true; break;
        case 'k':
            if (cli_stack(svc.who, optarg) < 0)
                return 2;
            fast.stack = optarg;
            fast.wander = true;
            break;
        case 'T':
            if (cli_number(svc.who, "--threads", optarg, 0, 256, &threads) < 0)
                return 2;
            break;
        case 'M':
            if (cli_number(svc.who, "--frame", optarg, 0.001, 1, &frame) < 0)
                return 2;
            break;
        case 'U':
            if (cli_number(svc.who, "--dock-below", optarg, 1, 99, &dock_below) < 0)
                return 2;
            break;
        case 'Y':
            if (cli_number(svc.who, "--docks", optarg, 1, BW_WORLD_MAX_DOCKS, &docks) < 0)
                return 2;
            if (docks != floor(docks)) {
                cli_error(svc.who, "--docks wants a whole number, not \"%s\"", optarg);
                return 2;
            }
            break;
        case 'Z': {
            char lo[32], *dash = strchr(optarg, '-');
            size_t len = dash ? (size_t)(dash - optarg) : strlen(optarg);
            if (len >= sizeof lo) {
                cli_error(svc.who, "--battery wants LO or LO-HI, percentages, not \"%s\"", optarg);
                return 2;
            }
            memcpy(lo, optarg, len);
            lo[len] = 0;
            if (cli_number(svc.who, "--battery", lo, 1, 100, &battery[0]) < 0 ||
                cli_number(svc.who, "--battery", dash ? dash + 1 : lo, 1, 100, &battery[1]) < 0)
                return 2;
            if (battery[1] < battery[0]) {
                cli_error(svc.who, "--battery %s: LO above HI", optarg);
                return 2;
            }
            break;
        }
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if ((vo.token || vo.readonly) && !vo.listen) {
        cli_error(svc.who, "--view-token and --view-readonly go with --view [HOST:]PORT");
        return 2;
    }
    char err[512];
    static bw_world_t world;
    if (world_path && bw_world_load(&world, world_path, err, sizeof err) < 0) {
        cli_error(svc.who, "%s", err);
        return 1;
    }
    bool from_world = world_path && world.nrobots > 0;
    if (from_world && (optind < argc || robots > 0)) {
        cli_error(svc.who, "%s places its robots (robot lines): no FAMILY or --robots with it",
                  world_path);
        return 2;
    }
    if (!from_world && optind != argc - 1) {
        cli_error(svc.who, optind == argc ? "which robot? (botwire sim FAMILY: kobuki, p2os, lobot, "
                                          "create, rbsm, rflex; or --world FILE with robot lines)"
                                        : "one family at a time (--robots N for several robots)");
        return 2;
    }
    if (link && tcp) {
        cli_error(svc.who, "--pty and --tcp: one or the other");
        return 2;
    }
    const char *family = from_world ? world.robots[0].family : argv[optind];
    const char *alias_family, *alias_model;
    if (!from_world && bw_family_alias(family, &alias_family, &alias_model)) {
        if (model && strcmp(model, alias_model) != 0) {
            cli_error(svc.who, "%s is the %s family's model %s: --model %s says otherwise", family,
                      alias_family, alias_model, model);
            return 2;
        }
        family = alias_family;
        model = alias_model;
    }
    size_t n = from_world ? world.nrobots : robots > 0 ? (size_t)robots : 1;
    if (in_virtual_time || fast.wander || threads > 0 || frame > 0 || dock_below > 0 ||
        docks > 0 || battery[0] > 0) {
        if (!in_virtual_time || !isfinite(duration) || link || tcp || svc.detach || svc.log_path ||
            svc.pid_path) {
            cli_error(svc.who, "--wander, --stack, --threads, --frame, --dock-below, --docks and "
                               "--battery go with --fast, which wants --for S and no --pty, --tcp, "
                               "--detach, --log or --pidfile");
            return 2;
        }
        if (vo.listen) { /* it would serve nothing: the fleet's frames are not the view's */
            cli_error(svc.who, "--view does not go with --fast (the robots run as fast as the "
                               "machine goes, in this process, with no view of them); to watch "
                               "robots, serve them in real time: botwire sim %s --robots N --view %s",
                      family, vo.listen);
            return 2;
        }
        if ((dock_below > 0 && !fast.wander) || (docks > 0 && dock_below == 0)) {
            cli_error(svc.who, dock_below > 0 ? "--dock-below goes with --wander (or --stack): "
                                                "standing robots never need a dock"
                                              : "--docks goes with --dock-below P");
            return 2;
        }
        fast = (bw_runner_opts_t){ .family = family, .model = model, .robots = n,
                                   .world = world_path ? &world : NULL, .seconds = duration,
                                   .wander = fast.wander, .stack = fast.stack,
                                   .seed = (uint64_t)seed, .noise = noise,
                                   .threads = (unsigned)threads, .frame = frame,
                                   .dock_below = dock_below, .docks = (unsigned)docks,
                                   .battery_lo = battery[0] / 100, .battery_hi = battery[1] / 100 };
        return sim_fast(&fast);
    }
    bool fleet = n > 1 || robots > 0 || from_world;
    char host[128] = "127.0.0.1";
    int tcp_port = P2OS_TCP_PORT;
    if (tcp && parse_hostport(tcp, host, sizeof host, &tcp_port) < 0) {
        cli_error(svc.who, "--tcp wants [HOST:]PORT, not \"%s\"", tcp);
        return 2;
    }
    if (fleet && tcp_port + (int)n - 1 > 65535) {
        cli_error(svc.who, "%zu robots from port %d go beyond port 65535", n, tcp_port);
        return 2;
    }
    /* A fleet serves on TCP unless --pty; a lone robot on a pty, but p2os. */
    bool use_tcp = tcp || (!link && (fleet || strcasecmp(family, "p2os") == 0));

    bw_device_options_t o;
    bw_device_options_init(&o);
    if (world_path)
        o.world = &world;
    o.noise = noise;
    o.seed = (uint64_t)seed;
    bool any_lobot = false, any_rbsm = false;
    for (size_t i = 0; i < (from_world ? n : 1); i++) {
        const char *f = from_world ? world.robots[i].family : family;
        any_lobot |= strcasecmp(f, "lobot") == 0;
        any_rbsm |= strcasecmp(f, "rbsm") == 0;
    }
    if (any_lobot)
        o.command_timeout = window / 1000; /* the window after READY */
    else if (window > 0) {
        cli_error(svc.who, "--window is lobot's (the Command Module's window after READY)");
        return 2;
    }
    if ((push > 0 || slope != 0) && !any_rbsm) {
        cli_error(svc.who, "--push and --slope are rbsm's (the buggy's course)");
        return 2;
    }
    o.push = push;
    o.slope = slope;
    o.model = model;

    /* A fleet: one world they all move in, where they see each other. */
    static bw_fleet_t shared;
    if (fleet) {
        if (!world_path) {
            if (n > 4) { /* a room with a 1.5 m grid of places */
                size_t cols = (size_t)ceil(sqrt((double)n));
                double side = 1.5 * (double)cols + 1.5;
                bw_world_init(&world);
                (void)bw_world_add_box(&world, 0, 0, side, side);
                world.start = (bw_pose_t){ 1.5, 1.5, 0 };
            } else if (bw_device_default_world(family, &world) < 0) {
                bw_device_t *none;
                (void)bw_device_create(&none, family, NULL, 0, err, sizeof err);
                cli_error(svc.who, "%s", err);
                return 2;
            }
            o.world = &world;
        }
        bw_fleet_init(&shared, &world);
        o.fleet = &shared;
    }

    int begun = cli_service_begin(&svc); /* detached: from here in the serving process */
    if (begun)
        return begun;
    double t = cli_now();
    server_t *s = calloc(n, sizeof *s);
    char *lines = calloc(n + 1, 768); /* and the view's line */
    if (!s || !lines) {
        free(s);
        free(lines);
        cli_error(svc.who, "out of memory");
        cli_service_end(&svc);
        return 1;
    }
    int status = 0;
    size_t made = 0, served = 0;
    for (; made < n; made++) {
        server_t *r = &s[made];
        r->idle = idle;
        r->noisy = ber > 0 || drop > 0 || insert > 0;
        uint64_t rs = (uint64_t)seed + made; /* each robot's own noise */
        (void)bw_line_init(&r->up, ber, drop, insert, rs * 2 + 1);
        (void)bw_line_init(&r->down, ber, drop, insert, rs * 2 + 2);
        bw_device_options_t ro = o;
        ro.seed = rs;
        const char *f = family;
        if (from_world)
            f = world.robots[made].family;
        if (from_world) {
            ro.model = *world.robots[made].model ? world.robots[made].model : NULL;
            ro.start = world.robots[made].pose;
            ro.has_start = true;
        } else if (fleet && !world_path && n > 4) {
            size_t cols = (size_t)ceil(sqrt((double)n));
            ro.start = (bw_pose_t){ 1.5 + 1.5 * (double)(made % cols), 1.5 + 1.5 * (double)(made / cols), 0 };
            ro.has_start = true;
        } else if (fleet) { /* 0.6 m apart to the left of the start */
            bw_pose_t st = world.start;
            double k = 0.6 * (double)made;
            ro.start = (bw_pose_t){ st.x - k * sin(st.theta), st.y + k * cos(st.theta), st.theta };
            ro.has_start = true;
        }
        /* A pty stands for the robot's serial line: paced at its rate. TCP
         * stands for MobileSim, which gives ARIA hosts their bytes at once:
         * paced only when asked (a serial robot behind a TCP bridge). */
        ro.baud = baud > 0 ? (int)baud : use_tcp ? 0 : bw_device_model_baud(f, ro.model);
        if (ro.baud < 0)
            ro.baud = 0; /* no such family: bw_device_create says so */
        if (fleet)
            snprintf(r->name, sizeof r->name, "robot %zu", made + 1);
        if (bw_device_create(&r->dev, f, &ro, t, err, sizeof err) < 0) {
            cli_error(svc.who, "%s%s%s", r->name, *r->name ? ": " : "", err);
            status = 2;
            break;
        }
        f = bw_device_family(r->dev);
        const char *m = ro.model;
        if (!m && strcmp(f, "p2os") == 0)
            m = "p2dx";
        if (!m && strcmp(f, "rflex") == 0)
            m = "b21r";
        char what[64];
        snprintf(what, sizeof what, "%s%s%s", f, m ? " " : "", m ? m : "");
        char *line = lines + made * 768, linkname[300];
        if (link && fleet)
            snprintf(linkname, sizeof linkname, "%s%zu", link, made + 1);
        int rc = use_tcp ? open_tcp(r, what, host, tcp_port + (fleet ? (int)made : 0), line, 640)
                         : open_pty(r, what, link ? (fleet ? linkname : link) : NULL, line, 640);
        if (rc < 0) {
            status = 1;
            made++;
            break;
        }
    }
    if (status == 0) {
        /* One announcement of every robot's place, in order. */
        for (size_t i = 1; i < n; i++) {
            char *dst = lines + strlen(lines);
            *dst++ = '\n';
            memmove(dst, lines + i * 768, strlen(lines + i * 768) + 1);
        }
        if (vo.listen) {
            if (bw_view_open(&sim_view, &vo, err, sizeof err) < 0) {
                cli_error(svc.who, "%s", err);
                status = 1;
                goto out;
            }
            for (size_t i = 0; i < n; i++)
                bw_view_add_device(sim_view, s[i].dev, s[i].name);
            bw_view_start(sim_view);
            snprintf(lines + strlen(lines), 768, "\nbotwire sim: view on %s", bw_view_url(sim_view));
        }
        /* What each robot says of itself from the start (its model's
         * limits, a watchdog it has or has not) is out before the
         * announcement: whoever reads the announcement and then looks at
         * the log finds it there, however the processes are scheduled. */
        for (size_t i = 0; i < n; i++) {
            char note[256];
            while (bw_device_next_notice(s[i].dev, note, sizeof note))
                say(&s[i], "%s", note);
        }
        char what[64];
        if (n > 1)
            snprintf(what, sizeof what, "%zu robots", n);
        else
            snprintf(what, sizeof what, "%s", family);
        /* A stop may come as soon as the pid file or the first line is
         * there: from then on it ends the serving loop (which removes the
         * pid file), never the process where it stands. */
        cli_catch_signals();
        cli_service_announce(&svc, lines, what);
        cli_service_ready(lines); /* serving: what a client needs is there */
        served = n;
        status = serve(s, n, t + duration);
    }
    for (size_t i = 0; i < served; i++) {
        server_t *r = &s[i];
        const bw_device_stats_t *ds = bw_device_stats(r->dev);
        const bw_parse_stats_t *st = &ds->link;
        const bw_sim_t *sim = bw_device_sim(r->dev);
        fprintf(stderr,
                "botwire %s: %s%sstopped; %llu command frames (%llu rejected), %llu output bytes "
                "unread, robot at (%.3f, %.3f, %.1f deg), its wheels turned %.4f m and %.4f m",
                svc.who, r->name, *r->name ? ": " : "", (unsigned long long)st->frames,
                (unsigned long long)(st->checksum_errors + st->length_errors),
                (unsigned long long)(r->dropped + bw_device_dropped(r->dev)), sim->body.pose.x,
                sim->body.pose.y, sim->body.pose.theta * 180 / BW_PI, sim->body.odo_left,
                sim->body.odo_right);
        bw_device_line_t ln;
        bw_device_line(r->dev, &ln);
        if (ln.out_overrun || ln.in_overrun)
            fprintf(stderr, "; the %d baud line overran: %llu bytes of the robot's, %llu of the "
                            "host's dropped",
                    ln.baud, (unsigned long long)ln.out_overrun,
                    (unsigned long long)ln.in_overrun);
        if (strcmp(bw_device_family(r->dev), "lobot") == 0 && bw_lobot_device_unheard(r->dev))
            fprintf(stderr, "; %llu bytes came outside the window, unheard",
                    (unsigned long long)bw_lobot_device_unheard(r->dev));
        print_extras(r->dev);
        print_counts(r->dev, "ignored", ds->ignored_by_id);
        print_counts(r->dev, "unknown", ds->unknown_by_id);
        const uint32_t *pk = bw_create_device_unknown_packets(r->dev);
        for (unsigned id = 0, first = 1; pk && id < 256; id++)
            if (pk[id]) {
                fprintf(stderr, "%s%u x%lu", first ? "; packets it does not have: " : ", ", id,
                        (unsigned long)pk[id]);
                first = 0;
            }
        fprintf(stderr, "\n");
        int exit_status;
        if (bw_device_exit_requested(r->dev, &exit_status))
            status = exit_status;
    }
out:
    bw_view_close(sim_view);
    sim_view = NULL;
    for (size_t i = 0; i < made && i < n; i++) {
        bw_port_close(s[i].client);
        bw_port_close(s[i].pty);
        bw_listener_close(s[i].listener);
        bw_device_destroy(s[i].dev);
    }
    free(lines);
    free(s);
    cli_service_end(&svc);
    return status;
}
