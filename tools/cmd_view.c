/* `botwire view`: robots opened as drive opens them, served live to
 * Foxglove and to the built-in page, and steered from there. */
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "botwire/view.h"

#define ONLINE_WAIT 3.0 /* s to wait for each robot to answer */
#define MAX_URLS 64

/* --detach, --log, --pidfile (cli.h); its `who` names the lines on stderr. */
static cli_service_t svc;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire view URL... [--listen [HOST:]PORT] [--view-token T] [--view-readonly]\n"
            "                   [--for SECONDS] [--detach [--log FILE]] [--pidfile FILE]\n"
            "\n"
            "Opens each robot as botwire drive does and serves them live: the Foxglove\n"
            "WebSocket protocol (Foxglove Studio connects to ws://HOST:PORT) and, at\n"
            "http://HOST:PORT/, a page that draws the world to scale (for sim: URLs), each\n"
            "robot with its heading, trail, sonar and bumpers, odometry against the true\n"
            "pose where the robot is emulated, the link's statistics, and drives the robot\n"
            "chosen with the arrow keys or the buttons. The first line says where, e.g.\n"
            "  botwire view: serving http://127.0.0.1:8765/ (robot1 kobuki:/tmp/kobuki)\n"
            "A robot runs only while commands come (the driver's command timeout); the page\n"
            "that drives it going away stops it at once. Ctrl-C stops every robot and ends\n"
            "the run with a line per robot (its true pose where emulated) and one of what\n"
            "was served. docs/view.md has the channels.\n"
            "\n"
            "%s"
            "\n"
            "  --listen [HOST:]PORT  where to serve (default 127.0.0.1:8765; port 0: any\n"
            "                   free port)\n"
            "  --view-token T   the secret clients must present (?token=T); needed to bind\n"
            "                   beyond 127.0.0.1, else one is generated and printed\n"
            "  --view-readonly  serve without the command channel\n"
            "  --for SECONDS    stop after this long (default: until Ctrl-C)\n"
            "%s"
            "  -h, --help       this help\n",
            cli_url_help, cli_service_help(19));
}

int cmd_view(int argc, char **argv)
{
    static const struct option opts[] = {
        { "listen", required_argument, NULL, 'l' },   { "view-token", required_argument, NULL, 't' },
        { "view-readonly", no_argument, NULL, 'r' }, { "for", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },          CLI_SERVICE_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    bw_view_options_t vo = { .cmd = svc.who }; /* its lines named as the command's */
    double duration = INFINITY;
    int c;
    optind = 0;
    cli_service_init(&svc, "view");
    while ((c = cli_getopt("view", argc, argv, "h", opts)) != -1) {
        if (cli_service_option(&svc, c, optarg))
            continue;
        switch (c) {
        case 'l': vo.listen = optarg; break;
        case 't': vo.token = optarg; break;
        case 'r': vo.readonly = true; break;
        case 'f':
            if (cli_number("view", "--for", optarg, 0, 1e9, &duration) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    int n = argc - optind;
    if (n < 1 || n > MAX_URLS) {
        cli_error("view", n < 1 ? "which robots? (a URL each, e.g. sim:kobuki)"
                                : "at most %d robots", MAX_URLS);
        return 2;
    }
    char err[512];
    bw_view_t *view;
    int begun = cli_service_begin(&svc); /* detached: from here in the serving process */
    if (begun)
        return begun;
    if (bw_view_open(&view, &vo, err, sizeof err) < 0) {
        cli_error("view", "%s", err);
        cli_service_end(&svc);
        return strstr(err, "wants") ? 2 : 1;
    }
    bw_base_t **b = calloc((size_t)n, sizeof *b);
    uint64_t *sent = calloc((size_t)n, sizeof *sent);
    if (!b || !sent) {
        cli_error("view", "out of memory");
        bw_view_close(view);
        free(b);
        free(sent);
        cli_service_end(&svc);
        return 1;
    }
    cli_catch_signals();
    double now = cli_now();
    int status = 0, opened = 0;
    for (; opened < n; opened++) {
        const char *url = argv[optind + opened];
        if (bw_base_open(&b[opened], url, NULL, now, err, sizeof err) < 0) {
            cli_error("view", "%s", err);
            status = 1;
            break;
        }
    }
    /* Every robot online and sure of its family, or one line on what was
     * heard instead. */
    double give_up = now + ONLINE_WAIT;
    for (int i = 0; status == 0 && i < opened; i++) {
        while (!cli_base_settled(b[i]) && !cli_interrupted && now < give_up) {
            double until = fmin(give_up, bw_base_next_deadline(b[i]));
            cli_wait(bw_base_fd(b[i]), until);
            now = cli_now();
            for (int k = 0; k < opened; k++)
                bw_base_poll(b[k], now);
        }
        if (!bw_base_state(b[i])->online) {
            if (!cli_interrupted)
                cli_base_unheard("view", b[i], argv[optind + i], ONLINE_WAIT);
            status = cli_interrupted ? 128 + cli_interrupted : 1;
        }
    }
    if (status) {
        for (int i = 0; i < opened; i++)
            bw_base_close(b[i], now);
        bw_view_close(view);
        free(b);
        free(sent);
        cli_service_end(&svc);
        return status;
    }
    for (int i = 0; i < n; i++) {
        bw_event_t ev;
        while (bw_base_next_event(b[i], &ev))
            ;
        bw_view_add_base(view, b[i], argv[optind + i], true, now);
    }
    bw_view_start(view);
    char line[2048], what[32];
    size_t len = (size_t)snprintf(line, sizeof line, "botwire view: serving %s (", bw_view_url(view));
    for (int i = 0; i < n && len < sizeof line; i++)
        len += (size_t)snprintf(line + len, sizeof line - len, "%srobot%d %s", i ? ", " : "", i + 1,
                                argv[optind + i]);
    if (len < sizeof line)
        snprintf(line + len, sizeof line - len, ")");
    snprintf(what, sizeof what, "%d robot%s", n, n == 1 ? "" : "s");
    cli_service_announce(&svc, line, what);
    cli_service_ready(line);

    struct pollfd *p = calloc((size_t)n + 1, sizeof *p);
    double end = now + duration;
    while (p && !cli_interrupted && now < end) {
        double until = fmin(fmin(end, bw_view_next_deadline(view)), cli_service_watchdog(now));
        nfds_t k = 0;
        for (int i = 0; i < n; i++) {
            until = fmin(until, bw_base_next_deadline(b[i]));
            if (bw_base_fd(b[i]) >= 0)
                p[k++] = (struct pollfd){ bw_base_fd(b[i]), POLLIN, 0 };
        }
        p[k++] = (struct pollfd){ bw_view_fd(view), POLLIN, 0 };
        double left = until - cli_now();
        if (left > 0) {
            left = fmin(left, 3600.0);
            struct timespec ts = { (time_t)left, (long)((left - floor(left)) * 1e9) + 1 };
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            ppoll(p, k, &ts, NULL);
        }
        now = cli_now();
        for (int i = 0; i < n; i++) {
            bw_base_poll(b[i], now);
            bw_event_t ev;
            while (bw_base_next_event(b[i], &ev))
                ; /* the view sees what changed in the state */
        }
        bw_view_service(view, now);
        /* Each command once, as it comes: when they stop coming, the
         * base's own command timeout stops the robot. */
        for (int i = 0; i < n; i++) {
            double v, w;
            uint64_t seq;
            bool on = bw_view_teleop(view, i, now, &v, &w, &seq);
            if (seq != sent[i]) {
                sent[i] = seq;
                if (on)
                    bw_base_drive(b[i], v, w, now);
            }
        }
    }
    free(p);
    int signalled = cli_interrupted;
    now = cli_now();
    for (int i = 0; i < n; i++) {
        bw_base_stop(b[i], now);
        bw_base_poll(b[i], now);
    }
    for (int i = 0; i < n; i++) {
        const bw_base_state_t *s = bw_base_state(b[i]);
        bw_device_t *dev = bw_base_device(b[i]);
        fprintf(stderr, "botwire %s: robot%d: stopped; odometry (%.3f, %.3f, %.1f deg)", svc.who, i + 1,
                s->pose.x, s->pose.y, s->pose.theta * 180 / BW_PI);
        if (dev) {
            const bw_pose_t t = bw_device_sim(dev)->body.pose;
            fprintf(stderr, ", robot at (%.3f, %.3f, %.1f deg)", t.x, t.y, t.theta * 180 / BW_PI);
        }
        fprintf(stderr, "\n");
        bw_base_close(b[i], now);
    }
    bw_view_close(view);
    free(b);
    free(sent);
    cli_service_end(&svc);
    return signalled ? 128 + signalled : 0;
}
