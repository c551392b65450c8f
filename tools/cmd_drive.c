/* `botwire drive`: drive a robot and print its state as JSON Lines. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "commands.h"
#include "botwire/view.h"

#define PRINT_PERIOD 0.1
#define ONLINE_WAIT 3.0  /* s to wait for the robot to answer */
/* s to let the robot come to rest after the stop (it ends when the robot is
 * at rest): a RoboBuggy rolling at 2 m/s brakes for half a second once its
 * Mega has heard the stop, and a robot behind a slow line or an emulated
 * chip that runs behind real time takes longer to say so. */
#define SETTLE_MAX 2.0

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire drive URL [--v M/S] [--w RAD/S] [--for SECONDS] [--square SIDE] [--fast]\n"
            "                         [--view [HOST:]PORT] [--led N=COLOUR]... [--sound N]\n"
            "                         [--tone HZ:SECONDS]\n"
            "\n"
            "Drives a robot and prints one JSON line of state every 100 ms: t (s), x, y (m),\n"
            "theta (rad), v (m/s), w (rad/s), bumper, cliff (bit masks), battery (V), online,\n"
            "and where the base has them: mode, brake, faults, raw_x, raw_y (the position\n"
            "in encoder counts), bump_switches (one boolean per switch), dock_ir (right,\n"
            "centre, left), buoys (a Create's receivers: omni, left, right; bits red 1,\n"
            "green 2, force field 4) and self_driving (seeking its dock), joystick, power.\n"
            "Events are printed as they happen: the link's as {\"t\":..,\"event\":\"offline\"}\n"
            "(or \"online\"), the others (bump, cliff, wheel_drop, stall, ...) as\n"
            "{\"t\":..,\"event\":..,\"on\":..,\"mask\":..}; a reflex (the base's own controller\n"
            "moved, e.g. lobot backing off a bump) adds detail, distance (m) and angle (rad).\n"
            "Then the robot is stopped; the last line is the final state, with what the\n"
            "link let through: frames, rejected (bad checksum or length), skipped_bytes,\n"
            "implausible (good checksum, values the robot cannot have), and where the\n"
            "driver estimated the motion of frames lost (a Create's distance and angle),\n"
            "estimated_time (s). Ctrl-C stops the robot and ends the run.\n"
            "\n"
            "%s"
            "\n"
            "  --v M/S          forward speed (default 0; with --square the leg speed, 0.2)\n"
            "  --w RAD/S        turn rate, counter-clockwise positive (default 0; with\n"
            "                   --square the turn rate, 0.8)\n"
            "  --for SECONDS    drive this long (default: until Ctrl-C, or the square ends)\n"
            "  --square SIDE    drive a square of SIDE metres by odometry, turning left: a\n"
            "                   {\"event\":\"corner\"} line at each corner, and a last line\n"
            "                   {\"summary\":\"square\",...} with the distance, the time and\n"
            "                   how far from the start it closed; a bump, cliff or wheel drop\n"
            "                   stops it early (exit status 1)\n"
            "  --fast           sim: URLs only: run in virtual time, as fast as possible\n"
            CLI_VIEW_HELP
            "                   (a client's drive command overrides --v and --w while it\n"
            "                   lasts, 0.5 s)\n"
            "  --led N=COLOUR   once the robot is online, set its LED N (numbered as on the\n"
            "                   robot: a Kobuki's are 1 and 2) to green, red, orange or off;\n"
            "                   repeatable\n"
            "  --sound N        ...play its built-in sound N (a Kobuki's: 0 on, 1 off,\n"
            "                   2 recharge, 3 button, 4 error, 5 cleaning start, 6 cleaning\n"
            "                   end)\n"
            "  --tone HZ:SECONDS  ...play a tone (a Kobuki's: 255 ms at most; a Pioneer's:\n"
            "                   the nearest MIDI note, up to 10 s)\n"
            "                   A robot without LEDs or sound, or a value it does not have:\n"
            "                   one line saying so, the robot stopped, exit status 2\n"
            "  -h, --help       this help\n",
            cli_url_help);
}

/* What the link let through and what it did not: frames taken, rejected by
 * their checksum or length, bytes skipped, frames set aside as implausible. */
static void put_link(json_t *o, const bw_parse_stats_t *l)
{
    json_object_set_new(o, "frames", json_integer((json_int_t)l->frames));
    json_object_set_new(o, "rejected",
                        json_integer((json_int_t)(l->checksum_errors + l->length_errors)));
    json_object_set_new(o, "skipped_bytes", json_integer((json_int_t)l->skipped_bytes));
    json_object_set_new(o, "implausible", json_integer((json_int_t)l->implausible));
}

/* A state line; the last one also says how the link went. */
static void print_state(FILE *out, const bw_base_t *b, const bw_base_state_t *s, double t,
                        bool last)
{
    json_t *o = json_object();
    json_object_set_new(o, "t", json_real(round(t * 1000) / 1000));
    json_object_set_new(o, "x", json_real(s->pose.x));
    json_object_set_new(o, "y", json_real(s->pose.y));
    json_object_set_new(o, "theta", json_real(s->pose.theta));
    /* Offline, the motion is not known: no stale velocity passes for one. */
    json_object_set_new(o, "v", s->online ? json_real(s->v) : json_null());
    json_object_set_new(o, "w", s->online ? json_real(s->w) : json_null());
    if (s->estimated)
        json_object_set_new(o, "estimated", json_true());
    json_object_set_new(o, "bumper", json_integer(s->bumpers));
    json_object_set_new(o, "cliff", json_integer(s->cliffs));
    json_object_set_new(o, "battery", json_real(s->battery));
    json_object_set_new(o, "online", json_boolean(s->online));
    /* What only some bases have. */
    if (s->mode[0])
        json_object_set_new(o, "mode", json_string(s->mode));
    if (bw_base_caps(b) & BW_CAP_BRAKE)
        json_object_set_new(o, "brake", json_boolean(s->brake));
    if (bw_base_caps(b) & BW_CAP_FAULTS)
        json_object_set_new(o, "faults", json_integer(s->faults));
    if (s->commands_ignored)
        json_object_set_new(o, "commands_ignored", json_true());
    cli_put_sensors(o, b, s);
    if (last) {
        put_link(o, &s->link);
        if (s->estimated_time > 0) /* how much of the pose is the driver's guess */
            json_object_set_new(o, "estimated_time", json_real(round(s->estimated_time * 1000) / 1000));
    }
    json_dumpf(o, out, JSON_COMPACT | JSON_REAL_PRECISION(6));
    fputc('\n', out);
    json_decref(o);
}

static void print_json(FILE *out, json_t *o)
{
    json_dumpf(o, out, JSON_COMPACT | JSON_REAL_PRECISION(6));
    fputc('\n', out);
    json_decref(o);
}

static void print_event(FILE *out, const bw_event_t *ev, double t0)
{
    json_t *o = json_object();
    json_object_set_new(o, "t", json_real(round((ev->t - t0) * 1000) / 1000));
    json_object_set_new(o, "event", json_string(bw_event_name(ev->type)));
    /* The link's events are their names ({"event":"offline"}), not a
     * "false" of something; the others say on or off and which bits. */
    if (ev->type != BW_EV_ONLINE && ev->type != BW_EV_OFFLINE) {
        json_object_set_new(o, "on", json_boolean(ev->on));
        json_object_set_new(o, "mask", json_integer(ev->mask));
    }
    if (ev->type == BW_EV_REFLEX) {
        /* What the base's own controller did: what set it off (the family's
         * flags), how far it moved (m) and turned (rad). */
        json_object_set_new(o, "detail", json_integer(ev->detail));
        json_object_set_new(o, "distance", json_real(round(ev->distance * 1000) / 1000));
        json_object_set_new(o, "angle", json_real(round(ev->angle * 1e4) / 1e4));
    }
    print_json(out, o);
}

/* {"t":..,"event":"corner","corner":N,"x":..,"y":..,"theta":..}: the square
 * reached corner N (4 is back at the start). */
static void print_corner(FILE *out, int corner, bw_pose_t p, double t)
{
    json_t *o = json_object();
    json_object_set_new(o, "t", json_real(round(t * 1000) / 1000));
    json_object_set_new(o, "event", json_string("corner"));
    json_object_set_new(o, "corner", json_integer(corner));
    json_object_set_new(o, "x", json_real(p.x));
    json_object_set_new(o, "y", json_real(p.y));
    json_object_set_new(o, "theta", json_real(p.theta));
    print_json(out, o);
}


/* ---- --led, --sound, --tone: what the base has besides driving ---------- */

#define MAX_LEDS 8

typedef struct {
    unsigned index;
    bw_led_t colour;
    const char *text; /* as given, for the messages */
} led_opt_t;

static const char *const colour_names[] = { "off", "green", "red", "orange" };

/* "N=COLOUR": 0, or -1 after one line on what is wrong. */
static int parse_led(const char *text, led_opt_t *out)
{
    const char *eq = strchr(text, '=');
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (!eq || end != eq || end == text || errno || n < 1 || n > 255) {
        cli_error("drive", "--led wants N=COLOUR (an LED number from 1, then green, red, orange "
                           "or off), not \"%s\"",
                  text);
        return -1;
    }
    for (size_t c = 0; c < sizeof colour_names / sizeof colour_names[0]; c++)
        if (strcasecmp(eq + 1, colour_names[c]) == 0) {
            *out = (led_opt_t){ (unsigned)n, (bw_led_t)c, text };
            return 0;
        }
    cli_error("drive", "--led %s: the colours are green, red, orange and off", text);
    return -1;
}

/* "HZ:SECONDS" */
static int parse_tone(const char *text, double *hz, double *seconds)
{
    char *end;
    errno = 0;
    *hz = strtod(text, &end);
    if (end == text || *end != ':' || errno || !(*hz > 0 && *hz < 1e5)) {
        cli_error("drive", "--tone wants HZ:SECONDS (HZ in (0, 100000)), not \"%s\"", text);
        return -1;
    }
    return cli_number("drive", "--tone's SECONDS", end + 1, 0.001, 10, seconds);
}

/* What each family's LEDs and sounds are, for the one line that says a value
 * is not among them. */
static const struct {
    const char *family, *leds, *sounds, *tones;
} extras_said[] = {
    { "kobuki", "1 and 2",
      "0..6 (0 on, 1 off, 2 recharge, 3 button, 4 error, 5 cleaning start, 6 cleaning end)",
      "5.6 Hz and up, for 1 to 255 ms" },
    { "p2os", NULL, NULL, "8.7 Hz to 12.5 kHz (MIDI notes), 20 ms to 10 s" },
};

static const char *said(const bw_base_t *b, int what)
{
    for (size_t i = 0; i < sizeof extras_said / sizeof extras_said[0]; i++)
        if (strcmp(extras_said[i].family, bw_base_family(b)) == 0)
            return what == 0 ? extras_said[i].leds
                   : what == 1 ? extras_said[i].sounds
                               : extras_said[i].tones;
    return NULL;
}

/* Sends the --led, --sound and --tone asked for, once the robot is online.
 * Every one is checked against the base's caps before any is sent. Returns
 * 0, or the exit status after one line. */
static int send_extras(bw_base_t *b, const char *url, const led_opt_t *leds, size_t nleds,
                       int sound, bool tone, double hz, double seconds, double now)
{
    const char *family = bw_base_family(b);
    uint32_t caps = bw_base_caps(b);
    if (nleds && !(caps & BW_CAP_LEDS)) {
        cli_error("drive", "--led: a %s base has no LEDs the host can set", family);
        return 2;
    }
    if ((sound >= 0 || tone) && !(caps & BW_CAP_SOUND)) {
        cli_error("drive", "--%s: a %s base has no sound the host can play",
                  sound >= 0 ? "sound" : "tone", family);
        return 2;
    }
    for (size_t i = 0; i < nleds; i++) {
        int rc = bw_base_led(b, leds[i].index, leds[i].colour, now);
        if (rc == BW_EINVAL) {
            const char *l = said(b, 0);
            cli_error("drive", "--led %s: a %s has no LED %u%s%s", leds[i].text, family,
                      leds[i].index, l ? "; its LEDs are " : "", l ? l : "");
            return 2;
        }
        if (rc < 0) {
            cli_error("drive", "--led %s: %s (%s)", leds[i].text, bw_strerror(rc), url);
            return 1;
        }
    }
    if (sound >= 0) {
        int rc = bw_base_sound(b, (unsigned)sound, now);
        if (rc == BW_ENOTSUP) { /* sound, but tones only (a Pioneer's piezo) */
            cli_error("drive", "--sound %d: a %s base has no built-in sounds (it plays tones: "
                      "--tone HZ:SECONDS)", sound, family);
            return 2;
        }
        if (rc == BW_EINVAL) {
            const char *l = said(b, 1);
            cli_error("drive", "--sound %d: a %s has no sound %d%s%s", sound, family, sound,
                      l ? "; its sounds are " : "", l ? l : "");
            return 2;
        }
        if (rc < 0) {
            cli_error("drive", "--sound %d: %s (%s)", sound, bw_strerror(rc), url);
            return 1;
        }
    }
    if (tone) {
        int rc = bw_base_tone(b, hz, seconds, now);
        if (rc == BW_EINVAL) {
            const char *l = said(b, 2);
            cli_error("drive", "--tone %g:%g: a %s cannot play that%s%s", hz, seconds, family,
                      l ? "; it plays tones of " : "", l ? l : "");
            return 2;
        }
        if (rc < 0) {
            cli_error("drive", "--tone: %s (%s)", bw_strerror(rc), url);
            return 1;
        }
    }
    return 0;
}

/* The live view (--view), served as the robot is. */
static bw_view_t *drive_view;

int cmd_drive(int argc, char **argv)
{
    static const struct option opts[] = {
        { "v", required_argument, NULL, 'v' },      { "w", required_argument, NULL, 'w' },
        { "for", required_argument, NULL, 'f' },    { "square", required_argument, NULL, 's' },
        { "fast", no_argument, NULL, 'F' },         { "help", no_argument, NULL, 'h' },
        { "view", required_argument, NULL, 'V' },   { "view-token", required_argument, NULL, 'K' },
        { "view-readonly", no_argument, NULL, 'Q' },
        { "led", required_argument, NULL, 'L' },    { "sound", required_argument, NULL, 'S' },
        { "tone", required_argument, NULL, 'T' },   { NULL, 0, NULL, 0 },
    };
    double v = 0, w = 0, duration = INFINITY, side = 0;
    bool have_v = false, have_w = false, fast = false;
    bw_view_options_t vo = { .cmd = "drive" };
    led_opt_t leds[MAX_LEDS];
    size_t nleds = 0;
    int sound = -1;
    bool tone = false;
    double tone_hz = 0, tone_s = 0, number;
    int c;
    optind = 0;
    while ((c = cli_getopt("drive", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'v':
            if (cli_number("drive", "--v", optarg, -5, 5, &v) < 0)
                return 2;
            have_v = true;
            break;
        case 'w':
            if (cli_number("drive", "--w", optarg, -20, 20, &w) < 0)
                return 2;
            have_w = true;
            break;
        case 'f':
            if (cli_number("drive", "--for", optarg, 0, 1e6, &duration) < 0)
                return 2;
            break;
        case 's':
            if (cli_number("drive", "--square", optarg, 0.05, 100, &side) < 0)
                return 2;
            break;
        case 'F': fast = true; break;
        case 'V': vo.listen = optarg; break;
        case 'K': vo.token = optarg; break;
        case 'Q': vo.readonly = true; break;
        case 'L':
            if (nleds == MAX_LEDS) {
                cli_error("drive", "at most %d --led options", MAX_LEDS);
                return 2;
            }
            if (parse_led(optarg, &leds[nleds]) < 0)
                return 2;
            nleds++;
            break;
        case 'S':
            if (cli_number("drive", "--sound", optarg, 0, 255, &number) < 0)
                return 2;
            if (number != floor(number)) {
                cli_error("drive", "--sound wants a sound's number, not \"%s\"", optarg);
                return 2;
            }
            sound = (int)number;
            break;
        case 'T':
            if (parse_tone(optarg, &tone_hz, &tone_s) < 0)
                return 2;
            tone = true;
            break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    if (optind != argc - 1) {
        cli_error("drive", optind == argc ? "a robot URL is required (e.g. sim:kobuki)"
                                          : "only one robot URL, please");
        return 2;
    }
    const char *url = argv[optind];
    if (fast && strncasecmp(url, "sim:", 4) != 0) {
        cli_error("drive", "--fast needs a sim: URL (a real robot runs in real time)");
        return 2;
    }
    char verr[512];
    if ((fast || vo.token || vo.readonly) && !vo.listen == !fast) {
        cli_error("drive", fast ? "--view runs in real time, not with --fast"
                                : "--view-token and --view-readonly go with --view [HOST:]PORT");
        return 2;
    }
    if (vo.listen && bw_view_open(&drive_view, &vo, verr, sizeof verr) < 0) {
        cli_error("drive", "%s", verr);
        return strstr(verr, "wants") ? 2 : 1;
    }
    bool square = side > 0;
    if (square) {
        v = have_v ? fabs(v) : 0.2;
        w = have_w ? fabs(w) : 0.8;
        if (v < 0.02 || w < 0.05) {
            cli_error("drive", "--square needs --v >= 0.02 and --w >= 0.05");
            return 2;
        }
    }

    cli_clock_t clk = { fast, fast ? 0.0 : cli_now() };
    /* Online, and the robot's bytes are of its family (a lobot base comes
     * online on a Kobuki's): else one line on what was heard instead. */
    int opened;
    bw_base_t *b = cli_open_online("drive", url, &clk, ONLINE_WAIT, &opened);
    if (!b)
        return opened;
    const bw_base_state_t *st = bw_base_state(b);
    cli_check_limits("drive", b, v, w); /* of the robot that is there */
    int extras = send_extras(b, url, leds, nleds, sound, tone, tone_hz, tone_s, clk.now);
    if (extras) {
        bw_base_close(b, clk.now);
        bw_view_close(drive_view);
        drive_view = NULL;
        return extras;
    }
    if (drive_view) {
        bw_view_add_base(drive_view, b, url, true, clk.now);
        bw_view_start(drive_view);
        fprintf(stderr, "botwire drive: view on %s\n", bw_view_url(drive_view));
    }
    bw_event_t ev;
    while (bw_base_next_event(b, &ev))
        ; /* coming online is the start, not news */

    double t0 = clk.now, next_print = t0, end = t0 + duration;
    bw_square_t sq;
    int corner = 0;
    double travelled = 0;
    bw_pose_t start = st->pose, last = st->pose;
    if (square) {
        bw_square_init(&sq, st->pose, side, v, w);
        corner = bw_square_corner(&sq);
    }
    const char *stopped_by = NULL;
    bool output_gone = false, too_long = false, cut_short = false;
    int out_errno = 0;
    int status = 0;
    /* A square that cannot finish (a robot that does not move) ends anyway. */
    double square_limit = square && !isfinite(duration)
                              ? t0 + fmax(60, 10 * (4 * side / v + 2 * BW_PI / w)) : INFINITY;
    for (;;) {
        while (bw_base_next_event(b, &ev)) {
            print_event(stdout, &ev, t0);
            bool hazard = ev.on && (ev.type == BW_EV_BUMP || ev.type == BW_EV_CLIFF ||
                                    ev.type == BW_EV_WHEEL_DROP);
            if (square && hazard && !stopped_by)
                stopped_by = bw_event_name(ev.type);
        }
        while (clk.now >= next_print - 1e-9) {
            print_state(stdout, b, st, next_print - t0, false);
            next_print += PRINT_PERIOD;
        }
        /* Nobody reads any more (`drive | head`), or the output cannot be
         * written: stop the robot. */
        if (fflush(stdout) != 0 || ferror(stdout)) {
            out_errno = errno;
            output_gone = true;
            break;
        }
        if (clk.now >= square_limit) {
            too_long = true;
            break;
        }
        if (cli_interrupted || stopped_by)
            break;
        if (clk.now >= end) {
            cut_short = square; /* --for ran out before the square closed */
            break;
        }
        travelled += hypot(st->pose.x - last.x, st->pose.y - last.y);
        last = st->pose;
        double cv = v, cw = w;
        if (square) {
            bool going = bw_square_step(&sq, st->pose, &cv, &cw);
            if (bw_square_corner(&sq) != corner) {
                print_corner(stdout, corner, st->pose, clk.now - t0);
                corner = bw_square_corner(&sq);
            }
            if (!going)
                break;
        }
        double tv, tw; /* a client of the view drives, while its command lasts */
        if (bw_view_teleop(drive_view, 0, clk.now, &tv, &tw, NULL)) {
            cv = tv;
            cw = tw;
        }
        bw_base_drive(b, cv, cw, clk.now);
        cli_advance(&clk, b, drive_view, fmin(next_print, end));
    }

    /* Stop, and let the robot come to rest before the final word; a second
     * signal cuts that short. The stop goes first, whatever ended the run.
     * A robot not heard for its link's timeout is waited for too, within
     * the same time: a machine that held this process (or the robot's
     * line) back makes the link look lost, and the final word must be
     * what the robot says, not what it said before. A link truly gone
     * (its port closed) ends the wait. */
    int signalled = cli_interrupted;
    cli_interrupted = 0;
    bool stop_sent = bw_base_stop(b, clk.now) == 0;
    double settle_end = clk.now + SETTLE_MAX;
    do {
        cli_advance(&clk, b, drive_view, fmin(settle_end, clk.now + PRINT_PERIOD));
    } while (clk.now < settle_end && !cli_interrupted &&
             (st->online ? fabs(st->v) > 0.005 || fabs(st->w) > 0.01 : bw_base_fd(b) >= 0));
    while (bw_base_next_event(b, &ev))
        print_event(stdout, &ev, t0);
    print_state(stdout, b, st, clk.now - t0, true);
    if (square) {
        travelled += hypot(st->pose.x - last.x, st->pose.y - last.y);
        json_t *o = json_object();
        json_object_set_new(o, "t", json_real(round((clk.now - t0) * 1000) / 1000));
        json_object_set_new(o, "summary", json_string("square"));
        json_object_set_new(o, "side", json_real(side));
        json_object_set_new(o, "complete",
                            json_boolean(!stopped_by && !signalled && !too_long && !output_gone &&
                                         !cut_short));
        json_object_set_new(o, "distance", json_real(round(travelled * 1000) / 1000));
        json_object_set_new(o, "time", json_real(round((clk.now - t0) * 1000) / 1000));
        json_object_set_new(o, "closure", json_real(round(hypot(st->pose.x - start.x,
                                                                st->pose.y - start.y) * 1e4) / 1e4));
        json_object_set_new(o, "closure_deg",
                            json_real(round(fabs(bw_angle_diff(st->pose.theta, start.theta)) *
                                            180 / BW_PI * 100) / 100));
        put_link(o, &st->link);
        print_json(stdout, o);
    }
    if (!signalled)
        signalled = cli_interrupted;
    if (output_gone) {
        status = cli_write_failed("drive", out_errno);
    } else if (signalled) {
        status = 128 + signalled;
    } else if (stopped_by) {
        cli_error("drive", "square stopped early by a %s event at t=%.2f s", stopped_by,
                  clk.now - t0);
        status = 1;
    } else if (too_long) {
        cli_error("drive", "the square did not finish within %.0f s", square_limit - t0);
        status = 1;
    } else if (cut_short) {
        cli_error("drive", "--for %g s ended the square before it closed (heading for corner %d)",
                  duration, corner);
        status = 1;
    }
    bw_base_close(b, clk.now);
    bw_view_close(drive_view);
    drive_view = NULL;
    if (!stop_sent) {
        cli_error("drive", "could not send the stop: the link to %s is down", url);
        if (status == 0)
            status = 1;
    }
    if (!output_gone && fflush(stdout) != 0)
        return cli_write_failed("drive", errno);
    return status;
}
