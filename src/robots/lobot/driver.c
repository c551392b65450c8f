/* The lobot host driver: the Robolocust high level's side of the Command
 * Module protocol. One command per READY, always inside the window (NOP
 * when there is nothing to change); SENSORS to the robot model; every
 * reflex of the low level as an event.
 *
 * A twist is driven as FORWARD/REVERSE at a LEFT/RIGHT radius or STRAIGHT.
 * A pure rotation goes, by default, as a turn in place (a radius below
 * 100 mm) at the wheel speed that turns w: the rate stays under control and
 * the requested speeds in each SENSORS keep the heading estimate right
 * (bw_create_odometry). With ?turn=spin it goes as SPIN, the way the
 * Robolocust high level turns: SPIN is a move by an angle that holds the
 * program until it is done (the robot halts, turns, halts, and the actual
 * turn comes back in the next SENSORS with the spin flag), so the driver
 * sends the angle the rate has owed since the last one, at least 5 degrees
 * at a time; the robot turns at w on average, in steps.
 *
 * The ACKs have no checksum. On a bad cable (docs/lobot.md):
 *  - a SENSORS with values the Create cannot report, or more motion than
 *    the time since the last allows, is set aside (st.link.implausible) and
 *    its motion estimated, as is that of a cycle whose SENSORS never came
 *    (what the program sends at once, a burst, without one);
 *  - an event ACK is believed when the SENSORS right behind it agrees (the
 *    program sends them together), or, for BUMPS and CLIFFS, when what it
 *    measured is the move the program makes for its flags; else it is a
 *    data byte read as an id, and no reflex happened;
 *  - the requested speed and radius each SENSORS carries show whether the
 *    last command was heard (a flipped bit is a bad parity: the program
 *    stops): when they are not what this side believes, the command goes
 *    again;
 *  - a burst without its READY (lost to noise) is answered all the same:
 *    the program may be waiting in its window.
 * The link is lost after 0.5 s of silence, but for the silence of a SPIN
 * this side sent (bw_base_expect_quiet); a reflex is a silence nobody can
 * foresee, and the link is reported offline during a long one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/base_internal.h"
#include "../create/host.h"
#include "botwire/lobot.h"

#define STRAIGHT_BELOW 0.02 /* rad/s: slower turns drive straight */
#define IN_PLACE_BELOW 0.01 /* m/s: slower drives turn in place */
#define MIN_RADIUS 100      /* mm: the program takes smaller radii as "in place" */
#define SPIN_MIN 5.0        /* degrees: the smallest SPIN sent (?turn=spin) */
#define LINK_TIMEOUT 0.5    /* s of silence the program never keeps but in a move */
/* s of quiet that ends what the program sends at once (an event ACK,
 * SENSORS, READY: 55 bytes, under 10 ms at 57600 baud); its cycles are 50 ms
 * and more apart. */
#define BURST_GAP 0.03
#define BURST_SENSORS 30    /* bytes: a burst this long had a SENSORS in it */
/* s a cycle takes at most without a move or a wait for a command (50 ms
 * delay, the Create's answer, this side's): a SENSORS longer after the last
 * one covers only the program's last cycle, the cycles before it lost. */
#define CYCLE_MAX 0.3
#define WINDOW_DEFAULT 1.5  /* s: the program's wait for a command (the seed's) */
/* The program's moves (program.c): spins at 150 mm/s a wheel, 300 ms to
 * settle at each end, then a measurement and a cycle's delay. */
#define SPIN_WHEEL 150.0
#define HALF_BASE_MM 129.0
#define SPIN_OVERHEAD 0.75
#define SPIN_SPARE 0.25
#define LOG_MAX 16          /* commands kept for an estimate (a few cycles' worth) */
/* s the time a SENSORS covers may be off the time between two (the
 * Create counts in steps of 5 ms; a host reads a little late) */
#define MOTION_SLACK 0.008

typedef struct {
    bw_lobot_ack_parser_t parser;
    bw_parse_stats_t sub_stats;
    /* What the program drives by, as far as this side has told it. */
    int16_t speed;        /* mm/s */
    int16_t radius;       /* 0 straight, +1/-1 in place CCW/CW, else mm (CCW positive) */
    bool known;           /* speed and radius are known (not before the first) */
    bool turn_spin;       /* ?turn=spin: pure rotations as SPIN */
    bool spinning;        /* a pure rotation is going as SPINs */
    double spin_owed;     /* degrees asked for and not yet sent */
    double spin_t;        /* when spin_owed was brought up to date */
    double spin_sent;     /* degrees of SPIN sent whose turn no SENSORS has carried yet */
    bool reflexed;        /* a reflex came since the last SENSORS */
    double window;        /* s: the program's wait for a command */
    /* SENSORS and odometry. */
    bw_create_sensors_t last; /* the last SENSORS taken */
    bool have_sensors;
    bw_create_odo_t odo;
    bool blocked;         /* counts short of the drive were believed: a robot held back */
    double cycle_t;       /* when the motion the next SENSORS counts began */
    double done_t;        /* up to when the pose has the motion, measured or estimated */
    double unmeasured;    /* s of motion since done_t no SENSORS measured */
    double turn_unmeasured; /* degrees of SPIN in it (its SENSORS set aside) */
    double answered_t;    /* when the last command went */
    /* The Create's requested speed and radius (OI form) from done_t on, had
     * the program heard every command since: they begin as the last SENSORS
     * said, and each command is logged with what it makes them. */
    int16_t start_speed, start_radius; /* as the SENSORS at done_t said */
    int16_t echo_speed, echo_radius, prog_radius;
    unsigned nlog;
    /* The speeds and radii the robot can have had since done_t: its own
     * then, and every one sent since (a command not heard is a STOP). */
    int16_t speeds[LOG_MAX + 1], radii[LOG_MAX + 1];
    unsigned nspeeds, nradii;
    struct {
        double t;
        int16_t speed, radius;
    } log[LOG_MAX];
    /* What the program sends at once. */
    double input_t;       /* when bytes last came */
    bool burst, burst_sensors, burst_ready, burst_hold, answered, answer_due;
    size_t burst_bytes;
    /* An event ACK, until the SENSORS behind it says whether it was one. */
    bool held;
    bw_lobot_ack_t ack;
    bw_count_t ack_frames, ack_skipped; /* the parser's counts right after it */
    /* Seeking the dock (bw_base_seek_dock): the Create's own Seek Dock
     * program (create/seek.c), run here on what each SENSORS says, its
     * wheels driven through the commands; `seek_pose` is the pose its
     * odometry was last brought to. */
    bool seeking;
    int seek_reflex;      /* a reflex's ACK id since the program's last step (0 none) */
    double seek_t0;
    bw_pose_t seek_pose;
    bw_create_robot_t prog;
} lobot_drv_t;

static lobot_drv_t *D(const bw_base_t *b) { return b->drv; }

static int init(bw_base_t *b, const bw_url_t *url, char *err, size_t errlen)
{
    lobot_drv_t *l = D(b);
    const char *turn = bw_url_param(url, "turn");
    if (turn && strcmp(turn, "spin") != 0 && strcmp(turn, "inplace") != 0) {
        snprintf(err, errlen, "turn=%s: pure rotations go as inplace (the default) or spin", turn);
        return BW_EINVAL;
    }
    l->turn_spin = turn && strcmp(turn, "spin") == 0;
    const char *window = bw_url_param(url, "window");
    if (url->kind != BW_URL_SIM && window) {
        snprintf(err, errlen, "window= sets the emulated Command Module's window (sim:lobot only)");
        return BW_EINVAL;
    }
    /* The emulated module's window (the base checks the number); a real
     * one's is taken to be the seed's. */
    l->window = window && atof(window) > 0 ? atof(window) / 1000 : WINDOW_DEFAULT;
    return 0;
}

static void on_open(bw_base_t *b, double now)
{
    lobot_drv_t *l = D(b);
    bw_lobot_ack_parser_init(&l->parser);
    memset(&l->sub_stats, 0, sizeof l->sub_stats);
    l->known = false;
    l->have_sensors = false;
    l->held = false;
    l->burst = l->answer_due = false;
    l->unmeasured = l->turn_unmeasured = 0;
    l->nlog = 0;
    l->blocked = false;
    l->seeking = false;
    l->seek_reflex = 0;
    memset(&l->odo, 0, sizeof l->odo);
    (void)now;
}

static void add_value(int16_t *set, unsigned *n, int16_t v)
{
    for (unsigned i = 0; i < *n; i++)
        if (set[i] == v)
            return;
    if (*n <= LOG_MAX)
        set[(*n)++] = v;
}

/* What a command makes the Create's requested speed and radius, as the
 * program carries it out (program.c: execute), logged. */
static void log_cmd(lobot_drv_t *l, uint8_t id, int16_t p, double now)
{
    int16_t speed = l->echo_speed;
    switch (id) {
    case BW_LOBOT_CMD_FORWARD:
    case BW_LOBOT_CMD_REVERSE: {
        int16_t v = (int16_t)(p < 0 ? 0 : p > BW_CREATE_MAX_SPEED ? BW_CREATE_MAX_SPEED : p);
        speed = id == BW_LOBOT_CMD_FORWARD ? v : (int16_t)-v;
        break;
    }
    case BW_LOBOT_CMD_STOP: speed = 0; break;
    case BW_LOBOT_CMD_LEFT:
    case BW_LOBOT_CMD_RIGHT: {
        int16_t r = (int16_t)(p < 0 ? 0 : p > BW_CREATE_MAX_RADIUS ? BW_CREATE_MAX_RADIUS : p);
        if (r < MIN_RADIUS)
            l->prog_radius = id == BW_LOBOT_CMD_LEFT ? BW_CREATE_RADIUS_CCW : BW_CREATE_RADIUS_CW;
        else
            l->prog_radius = id == BW_LOBOT_CMD_LEFT ? r : (int16_t)-r;
        break;
    }
    case BW_LOBOT_CMD_STRAIGHT: l->prog_radius = BW_CREATE_RADIUS_STRAIGHT; break;
    case BW_LOBOT_CMD_SPIN:
        /* It ends with the robot halted straight; its turn comes flagged. */
        l->echo_speed = 0;
        l->echo_radius = BW_CREATE_RADIUS_STRAIGHT;
        goto logged;
    default: return; /* NOP, 'e', 'd': no Drive */
    }
    l->echo_speed = speed;
    l->echo_radius = l->prog_radius;
logged:
    add_value(l->speeds, &l->nspeeds, l->echo_speed);
    add_value(l->radii, &l->nradii, l->prog_radius);
    if (l->nlog < LOG_MAX) {
        l->log[l->nlog].t = now;
        l->log[l->nlog].speed = l->echo_speed;
        l->log[l->nlog].radius = l->echo_radius;
    }
    l->nlog++;
}

static void send_cmd(bw_base_t *b, uint8_t id, int16_t param, double now)
{
    lobot_drv_t *l = D(b);
    uint8_t f[BW_LOBOT_CMD_SIZE];
    if (bw_lobot_encode_cmd(f, sizeof f, id, param) > 0)
        bw_base_send(b, f, sizeof f, now);
    l->answered_t = now;
    log_cmd(l, id, param, now);
}

/* The silence of a SPIN: the program halts, turns, halts and measures
 * before its next SENSORS. */
static void spin_quiet(bw_base_t *b, double deg, double now)
{
    double arc = fabs(deg) * BW_PI / 180 * HALF_BASE_MM;
    bw_base_expect_quiet(b, now + SPIN_OVERHEAD + arc / SPIN_WHEEL + SPIN_SPARE);
}

/* The one command of this window: the radius first, then the speed. */
static void answer_ready(bw_base_t *b, double now)
{
    lobot_drv_t *l = D(b);
    b->st.commands_ignored = false;
    double v = b->cmd_v, w = b->cmd_w;
    if (l->seeking && !b->st.self_driving)
        l->seeking = false; /* the host took the robot back, or the link went */
    if (l->seeking) { /* the program's wheels */
        v = (l->prog.wheel[0] + l->prog.wheel[1]) / 2000.0;
        w = (l->prog.wheel[1] - l->prog.wheel[0]) / 1000.0 / BW_CREATE_WHEELBASE_M;
    }
    int16_t speed, radius = 0;
    bool pure = fabs(v) < IN_PLACE_BELOW && fabs(w) >= STRAIGHT_BELOW;
    if (pure && l->turn_spin) {
        if (!l->spinning) {
            l->spinning = true;
            l->spin_owed = 0;
            l->spin_t = b->cmd_t;
        }
        l->spin_owed += w * (now - l->spin_t) * 180 / BW_PI;
        l->spin_t = now;
        if (fabs(l->spin_owed) < SPIN_MIN) {
            send_cmd(b, BW_LOBOT_CMD_NOP, 0, now);
            return;
        }
        double deg = fmax(-360, fmin(360, round(l->spin_owed)));
        send_cmd(b, BW_LOBOT_CMD_SPIN, (int16_t)deg, now);
        spin_quiet(b, deg, now);
        l->spin_owed -= deg;
        l->spin_sent += deg;
        if (l->known)
            l->speed = 0; /* SPIN leaves the program stopped */
        return;
    }
    l->spinning = false;
    if (pure) {
        speed = (int16_t)lround(fmin(BW_CREATE_MAX_SPEED, fabs(w) * BW_CREATE_WHEELBASE_M / 2 * 1000));
        radius = w > 0 ? 1 : -1;
    } else {
        speed = (int16_t)lround(fmax(-BW_CREATE_MAX_SPEED, fmin(BW_CREATE_MAX_SPEED, v * 1000)));
        if (fabs(w) >= STRAIGHT_BELOW && speed != 0) {
            double r = v * 1000 / w; /* mm, CCW positive */
            if (fabs(r) <= BW_CREATE_MAX_RADIUS)
                radius = (int16_t)lround(copysign(fmax(MIN_RADIUS, fabs(r)), r));
        }
    }
    if (speed == 0)
        radius = l->known ? l->radius : 0; /* stopping: the radius does not matter */
    if (!l->known || radius != l->radius) {
        if (radius == 0)
            send_cmd(b, BW_LOBOT_CMD_STRAIGHT, 0, now);
        else
            send_cmd(b, radius > 0 ? BW_LOBOT_CMD_LEFT : BW_LOBOT_CMD_RIGHT,
                     (int16_t)(radius == 1 || radius == -1 ? 0 : radius > 0 ? radius : -radius),
                     now);
        if (!l->known)
            l->speed = INT16_MIN; /* unknown: the speed goes next */
        l->radius = radius;
        l->known = true;
        return;
    }
    if (speed != l->speed) {
        if (speed == 0)
            send_cmd(b, BW_LOBOT_CMD_STOP, 0, now);
        else
            send_cmd(b, speed > 0 ? BW_LOBOT_CMD_FORWARD : BW_LOBOT_CMD_REVERSE,
                     (int16_t)(speed > 0 ? speed : -speed), now);
        l->speed = speed;
        return;
    }
    send_cmd(b, BW_LOBOT_CMD_NOP, 0, now);
}

/* The sensors into the state, the rear bumpers from SENSORS byte 0's bits.
 * Each switch by number as the BUMPS ACK packs them in its flags' low four
 * bits (seed 000): 0 front right, 1 front left, 2 rear right, 3 rear left. */
static void to_state(bw_base_t *b, const bw_create_sensors_t *oi)
{
    uint8_t bits = oi->bumps_wheel_drops;
    bw_create_to_state(&b->st, oi,
                       ((bits & BW_LOBOT_BUMP_REAR_LEFT) ? BW_BUMP_REAR_LEFT : 0u) |
                           ((bits & BW_LOBOT_BUMP_REAR_RIGHT) ? BW_BUMP_REAR_RIGHT : 0u));
    b->st.bump_switches = (bits & (BW_CREATE_BUMP_RIGHT | BW_CREATE_BUMP_LEFT)) |
                          ((bits & BW_LOBOT_BUMP_REAR_RIGHT) ? BW_LOBOT_BUMP_ACK_REAR_RIGHT : 0u) |
                          ((bits & BW_LOBOT_BUMP_REAR_LEFT) ? BW_LOBOT_BUMP_ACK_REAR_LEFT : 0u);
    b->st.nbump_switches = 4;
}

/* ---- event ACKs ---------------------------------------------------------------- */

/* A reflex ACK says what set it off: as good a frame for those bits as a
 * SENSORS, and the only one while the hazard lasts a single cycle (the low
 * level backs away from it at once). */
static void reflex_state(bw_base_t *b, const bw_lobot_ack_t *a, double now)
{
    lobot_drv_t *l = D(b);
    bw_create_sensors_t oi = l->last;
    uint8_t f, *bits = &oi.bumps_wheel_drops;
    switch (a->id) {
    case BW_LOBOT_ACK_BUMPS:
        f = a->u.bumps.flags;
        *bits = (uint8_t)((*bits & ~(BW_CREATE_BUMP_LEFT | BW_CREATE_BUMP_RIGHT |
                                     BW_LOBOT_BUMP_REAR_BOTH)) |
                          (f & (BW_CREATE_BUMP_LEFT | BW_CREATE_BUMP_RIGHT)) |
                          ((f & BW_LOBOT_BUMP_ACK_REAR_LEFT) ? BW_LOBOT_BUMP_REAR_LEFT : 0) |
                          ((f & BW_LOBOT_BUMP_ACK_REAR_RIGHT) ? BW_LOBOT_BUMP_REAR_RIGHT : 0));
        break;
    case BW_LOBOT_ACK_CLIFFS:
        f = a->u.cliffs.flags;
        oi.cliff_left = (f & BW_LOBOT_CLIFF_LEFT) != 0;
        oi.cliff_front_left = (f & BW_LOBOT_CLIFF_FRONT_LEFT) != 0;
        oi.cliff_front_right = (f & BW_LOBOT_CLIFF_FRONT_RIGHT) != 0;
        oi.cliff_right = (f & BW_LOBOT_CLIFF_RIGHT) != 0;
        break;
    case BW_LOBOT_ACK_WHEEL_DROPS:
        *bits = (uint8_t)((*bits & ~(BW_CREATE_WHEEL_DROP_LEFT | BW_CREATE_WHEEL_DROP_RIGHT |
                                     BW_CREATE_WHEEL_DROP_CASTER)) |
                          a->u.wheel_drops.flags);
        break;
    default: return;
    }
    if (!l->have_sensors)
        return; /* nothing else of the state is known yet */
    to_state(b, &oi);
    bw_base_frame_ok(b, now);
}

static void reflex(bw_base_t *b, const bw_lobot_ack_t *a, double now)
{
    lobot_drv_t *l = D(b);
    reflex_state(b, a, now);
    l->reflexed = true;
    if (l->seeking || b->st.self_driving)
        l->seek_reflex = a->id;
    switch (a->id) {
    case BW_LOBOT_ACK_BUMPS:
        bw_base_reflex(b, BW_REFLEX_BUMP, a->u.bumps.flags, a->u.bumps.distance / 1000.0,
                       a->u.bumps.angle * BW_PI / 180, now);
        break;
    case BW_LOBOT_ACK_CLIFFS:
        l->burst_hold = true;
        bw_base_reflex(b, BW_REFLEX_CLIFF, a->u.cliffs.flags, a->u.cliffs.distance / 1000.0,
                       a->u.cliffs.angle * BW_PI / 180, now);
        break;
    case BW_LOBOT_ACK_WHEEL_DROPS:
        l->burst_hold = true;
        bw_base_reflex(b, BW_REFLEX_WHEEL_DROP, a->u.wheel_drops.flags, 0, 0, now);
        break;
    case BW_LOBOT_ACK_REMOTE:
        /* The remote drives; READY (answer_ready) says it let go. */
        l->burst_hold = true;
        b->st.commands_ignored = true;
        break;
    default: break;
    }
    /* The low level drove on its own: what it drives by now is unknown. */
    l->known = false;
}

/* A BUMPS or CLIFFS whose measured move is the one the program makes for
 * its flags (to 30 % and 15 mm, 5 degrees): no data bytes read as an ACK
 * look like that. */
static bool move_fits(const bw_lobot_ack_t *a)
{
    const bw_lobot_motion_t *m = a->id == BW_LOBOT_ACK_BUMPS ? &a->u.bumps : &a->u.cliffs;
    int16_t backup, spin;
    if ((a->id != BW_LOBOT_ACK_BUMPS && a->id != BW_LOBOT_ACK_CLIFFS) ||
        bw_lobot_reaction(a->id, m->flags, &backup, &spin) < 0)
        return false;
    return abs(m->distance - backup) <= 0.3 * abs(backup) + 15 &&
           abs(m->angle - spin) <= 0.3 * abs(spin) + 5;
}

/* The SENSORS the program sends right behind an event ACK carries the
 * sensor read that set it off, and the moves it made. */
static bool ack_agrees(const bw_lobot_ack_t *a, const bw_lobot_sensors_t *s)
{
    const bw_create_sensors_t *oi = &s->oi;
    uint8_t bits = oi->bumps_wheel_drops, f;
    switch (a->id) {
    case BW_LOBOT_ACK_BUMPS:
    case BW_LOBOT_ACK_CLIFFS: {
        const bw_lobot_motion_t *m = a->id == BW_LOBOT_ACK_BUMPS ? &a->u.bumps : &a->u.cliffs;
        f = m->flags;
        bool hit = a->id == BW_LOBOT_ACK_BUMPS
                       ? (f & 0x03) == (bits & 0x03) &&
                             (!(f & BW_LOBOT_BUMP_ACK_REAR_LEFT) || (bits & BW_LOBOT_BUMP_REAR_LEFT)) &&
                             (!(f & BW_LOBOT_BUMP_ACK_REAR_RIGHT) || (bits & BW_LOBOT_BUMP_REAR_RIGHT))
                       : f == (uint8_t)((oi->cliff_left ? BW_LOBOT_CLIFF_LEFT : 0) |
                                        (oi->cliff_front_left ? BW_LOBOT_CLIFF_FRONT_LEFT : 0) |
                                        (oi->cliff_front_right ? BW_LOBOT_CLIFF_FRONT_RIGHT : 0) |
                                        (oi->cliff_right ? BW_LOBOT_CLIFF_RIGHT : 0));
        /* The SENSORS adds the cycle before the reaction to the moves. */
        return hit && s->spin_flag == 1 && abs(oi->distance - m->distance) <= 60 &&
               abs(oi->angle - m->angle) <= 10;
    }
    case BW_LOBOT_ACK_WHEEL_DROPS:
        return (bits & (BW_CREATE_WHEEL_DROP_LEFT | BW_CREATE_WHEEL_DROP_RIGHT |
                        BW_CREATE_WHEEL_DROP_CASTER)) == a->u.wheel_drops.flags;
    case BW_LOBOT_ACK_REMOTE: return oi->infrared_byte == a->u.remote.infrared_byte;
    default: return false;
    }
}

/* The held event ACK was one (a reflex), or was not (counted, dropped). */
static void settle_ack(bw_base_t *b, bool real, double now)
{
    lobot_drv_t *l = D(b);
    if (!l->held)
        return;
    l->held = false;
    if (real)
        reflex(b, &l->ack, now);
    else
        (void)bw_base_implausible(b, true);
}

/* ---- SENSORS ----------------------------------------------------------------- */

/* The radius a Drive's special or value means, as this side keeps it. */
static int16_t radius_of(int16_t oi)
{
    if (oi == BW_CREATE_RADIUS_STRAIGHT || oi == BW_CREATE_RADIUS_STRAIGHT_ALT || oi == 0)
        return 0;
    return oi;
}

/* The requested speed and radius a SENSORS can carry: what the commands
 * sent make them if the program heard them, or a stop (a command not
 * heard), unless the program drove on its own since (a reflex, a SPIN, the
 * remote). */
static bool echo_fits(const lobot_drv_t *l, const bw_lobot_sensors_t *s)
{
    const bw_create_sensors_t *oi = &s->oi;
    if (!l->have_sensors || s->spin_flag || l->reflexed || oi->requested_speed == 0)
        return true;
    /* Each command heard, or not (then STOP): a speed and a radius the
     * robot had, or one sent since. */
    bool speed = false, radius = false;
    for (unsigned i = 0; i < l->nspeeds; i++)
        speed |= oi->requested_speed == l->speeds[i];
    for (unsigned i = 0; i < l->nradii; i++)
        radius |= radius_of(oi->requested_radius) == radius_of(l->radii[i]);
    return speed && radius;
}

/* What a SENSORS cannot be: values the Create never reports or the program
 * never asks of it (its Drive within 500 mm/s and 2000 mm; never a Drive
 * Direct; a drive this side did not send), a spin flag other than 0/1, a
 * battery that jumps. */
static bool values_ok(const lobot_drv_t *l, const bw_lobot_sensors_t *s, const uint8_t *data)
{
    const bw_create_sensors_t *oi = &s->oi;
    return bw_create_values_ok(oi, data, BW_LOBOT_BUMP_REAR_BOTH, true) && s->spin_flag <= 1 &&
           oi->requested_right_speed == 0 && oi->requested_left_speed == 0 && echo_fits(l, s) &&
           (!l->have_sensors || !bw_create_battery_jump(&l->last, oi));
}

/* The Create's radius for one this side keeps. */
static int16_t oi_radius(int16_t r) { return r == 0 ? BW_CREATE_RADIUS_STRAIGHT : r; }

/* The robot's requested speed and radius show the command of the last
 * window: when they are not what this side believes it drives by, the
 * command was not heard (a bad parity, a window missed: the program
 * stopped) and the next window sends it again. */
static void check_echo(lobot_drv_t *l, const bw_lobot_sensors_t *s)
{
    if (!l->known || s->spin_flag || l->reflexed || l->speed == INT16_MIN)
        return;
    const bw_create_sensors_t *oi = &s->oi;
    /* The radius matters while either drives (a STOP keeps it). */
    if ((l->speed != 0 || oi->requested_speed != 0) && radius_of(oi->requested_radius) != l->radius)
        l->radius = radius_of(oi->requested_radius);
    if (oi->requested_speed != l->speed)
        l->speed = oi->requested_speed;
}

static bool same_drive(int16_t s1, int16_t r1, int16_t s2, int16_t r2)
{
    return s1 == s2 && (s1 == 0 || radius_of(r1) == radius_of(r2));
}

/* A stretch of t seconds at a requested speed and radius, into the pose. */
static void stretch(bw_base_t *b, int16_t speed, int16_t radius, double t)
{
    lobot_drv_t *l = D(b);
    bw_create_sensors_t req = l->last;
    req.requested_speed = speed;
    req.requested_radius = radius;
    req.requested_right_speed = req.requested_left_speed = 0;
    bw_base_state_t *st = &b->st;
    bw_create_estimate(&l->odo, &st->pose, &st->v, &st->w, &req, t, 0.05);
}

static void st_turn(bw_base_t *b, double deg)
{
    bw_pose_t *p = &b->st.pose;
    p->theta = bw_angle_norm(p->theta + deg * BW_PI / 180);
}

/* The motion no SENSORS measured, from done_t on (after: the requested
 * speed and radius the SENSORS that ends it says). When the commands
 * logged since make what it says, the program heard them: the stretches
 * between them go at what each made. Otherwise one was lost: the speed the
 * last SENSORS said until the first command that changes it (or, if the
 * robot stopped with none, until the program's window after the last
 * command ran out: its silence is STOP), then the one this says. */
static void estimate(bw_base_t *b, int16_t speed, int16_t radius)
{
    lobot_drv_t *l = D(b);
    double span = l->unmeasured, from = l->done_t, end = from + span;
    int16_t s0 = l->start_speed, r0 = l->start_radius;
    unsigned n = l->nlog < LOG_MAX ? l->nlog : LOG_MAX;
    bool heard = l->nlog <= LOG_MAX && same_drive(l->echo_speed, l->echo_radius, speed, radius);
    double t = from;
    /* A SPIN's turn whose SENSORS was set aside: as asked. */
    st_turn(b, l->turn_unmeasured);
    l->turn_unmeasured = 0;
    if (heard) {
        for (unsigned i = 0; i < n && l->log[i].t < end; i++) {
            double at = fmax(t, l->log[i].t);
            stretch(b, s0, r0, at - t);
            t = at;
            s0 = l->log[i].speed;
            r0 = l->log[i].radius;
        }
    } else if (!same_drive(s0, r0, speed, radius)) {
        double at = from + span / 2;
        for (unsigned i = 0; i < n; i++)
            if (!same_drive(l->log[i].speed, l->log[i].radius, s0, r0)) {
                at = l->log[i].t;
                break;
            }
        if (speed == 0 && s0 != 0)
            at = fmin(at, l->answered_t + 0.06 + l->window);
        at = fmax(from, fmin(end, at));
        stretch(b, s0, r0, at - t);
        t = at;
        s0 = speed;
        r0 = radius;
    }
    stretch(b, s0, r0, end - t);
    b->st.estimated_time += span;
    b->st.estimated = true;
}

/* The motion is in the pose up to now: the log starts again, from what the
 * robot said it was asked. */
static void restart_log(lobot_drv_t *l, const bw_create_sensors_t *oi)
{
    l->nlog = 0;
    l->start_speed = l->echo_speed = oi->requested_speed;
    l->start_radius = l->echo_radius = oi->requested_radius;
    l->prog_radius =
        l->known && l->radius != INT16_MIN ? oi_radius(l->radius) : oi->requested_radius;
    l->nspeeds = l->nradii = 0;
    add_value(l->speeds, &l->nspeeds, l->echo_speed);
    add_value(l->radii, &l->nradii, l->echo_radius);
    add_value(l->radii, &l->nradii, l->prog_radius);
}

/* ---- seeking the dock ---------------------------------------------------------------- */

/* The program's odometry from this side's: the travel (um, both wheels summed, wrapping, as the program
 * counts it) along the heading and the heading itself (urad). */
static void seek_sense(lobot_drv_t *l, const bw_base_state_t *st)
{
    double dx = st->pose.x - l->seek_pose.x, dy = st->pose.y - l->seek_pose.y;
    double along = dx * cos(l->seek_pose.theta) + dy * sin(l->seek_pose.theta);
    l->prog.odo_travel2_um += (uint32_t)(int32_t)lround(2e6 * along);
    l->prog.heading_urad = (int32_t)lround(bw_angle_norm(st->pose.theta) * 1e6);
    l->seek_pose = st->pose;
    l->prog.s = l->last;
    /* The low level's reflex moved the robot off what it met before the
     * SENSORS: the program hears of it as the Create's own sensors would
     * have told it, and reacts as it does (backs off, turns elsewhere). */
    if (l->seek_reflex == BW_LOBOT_ACK_BUMPS)
        l->prog.s.bumps_wheel_drops |= BW_CREATE_BUMP_LEFT | BW_CREATE_BUMP_RIGHT;
    else if (l->seek_reflex == BW_LOBOT_ACK_CLIFFS)
        l->prog.s.cliff_front_left = l->prog.s.cliff_front_right = true;
    else if (l->seek_reflex == BW_LOBOT_ACK_WHEEL_DROPS)
        l->prog.s.bumps_wheel_drops |= BW_CREATE_WHEEL_DROP_LEFT | BW_CREATE_WHEEL_DROP_RIGHT;
    l->seek_reflex = 0;
}

static uint32_t seek_ms(const lobot_drv_t *l, double now)
{
    return (uint32_t)(int64_t)llround((now - l->seek_t0) * 1000);
}

/* A lobot does not seek its dock itself (its program has no Seek Dock), but
 * the Create under it reports what a Create's own program goes by: the
 * program runs here, its wheels sent as the twist of each command. */
static int seek_dock(bw_base_t *b, double now)
{
    lobot_drv_t *l = D(b);
    if (!l->have_sensors)
        return BW_ESTATE; /* nothing heard of the robot yet */
    bw_create_robot_init(&l->prog, BW_CREATE_MODEL_1, (uint16_t)lround(BW_CREATE_WHEELBASE_M * 1000));
    l->seek_t0 = now;
    l->seek_pose = b->st.pose;
    l->prog.heading_urad = (int32_t)lround(bw_angle_norm(b->st.pose.theta) * 1e6);
    l->prog.s = l->last;
    bw_create_seek_start(&l->prog, 0);
    l->seeking = true; /* a reflex that ended the last seeking (offline) is heard in its first step */
    return 0;
}

/* Each SENSORS taken: the program's step, and its end (on the dock, lifted,
 * given up) ends the base's self-driving. */
static void seek_step(bw_base_t *b, double now)
{
    lobot_drv_t *l = D(b);
    if (!l->seeking)
        return;
    if (!b->st.self_driving) {
        l->seeking = false;
        return;
    }
    seek_sense(l, &b->st);
    (void)bw_create_seek_step(&l->prog, seek_ms(l, now));
    if (l->prog.seek.state == BW_CREATE_SEEK_OFF) {
        l->seeking = false;
        b->st.self_driving = false;
        b->cmd_v = b->cmd_w = 0; /* stopped where it ended */
    }
}

static void on_sensors(bw_base_t *b, const bw_lobot_sensors_t *s, const uint8_t *data, double now)
{
    lobot_drv_t *l = D(b);
    bw_base_state_t *st = &b->st;
    bool flagged = s->spin_flag == 1;
    double dt = l->have_sensors ? now - l->cycle_t : 0;
    bool values = values_ok(l, s, data);
    /* A long silence with no move of the program's (a link cut, the program
     * waiting out its window): this SENSORS counts only the last cycle, the
     * ones before were lost. All of it is estimated. */
    bool gap = l->have_sensors && !flagged && dt > CYCLE_MAX;
    int motion = l->have_sensors && !gap
                     ? bw_create_motion_check(&l->odo, &l->last, &s->oi, dt, MOTION_SLACK, flagged)
                     : 0;
    /* Less motion than asked is a robot held back only once believed. */
    bool counts = motion == 0 || (motion < 0 && l->blocked);
    if (l->held) {
        bool behind = l->parser.stats.frames == l->ack_frames + 1 &&
                      l->parser.stats.skipped_bytes == l->ack_skipped;
        settle_ack(b, (behind && values && counts && ack_agrees(&l->ack, s)) || move_fits(&l->ack),
                   now);
    }
    l->burst_sensors = true;
    bool believed = !bw_base_implausible(b, !values || !counts);
    if (believed && motion < 0)
        counts = l->blocked = true;
    if (motion == 0)
        l->blocked = false;
    bool take_values = values || believed;
    /* The requested speeds the motion is modelled by: this SENSORS' when
     * its values hold, else the last one's. */
    bw_create_sensors_t oi = s->oi;
    oi.requested_right_speed = oi.requested_left_speed = 0; /* the program drives by Drive */
    if (!take_values && !(echo_fits(l, s) && abs(oi.requested_speed) <= BW_CREATE_MAX_SPEED)) {
        /* As the commands sent make them: this SENSORS' are damaged. */
        oi.requested_speed = l->echo_speed;
        oi.requested_radius = l->echo_radius;
    }
    l->cycle_t = now;
    if (!l->have_sensors) {
        if (!take_values)
            return;
        l->done_t = now;
        restart_log(l, &oi);
    } else if (gap || !counts) {
        l->unmeasured += dt; /* set aside, or not counted: estimated with the next */
        if (flagged && l->spin_sent != 0 && !l->reflexed)
            l->turn_unmeasured += l->spin_sent; /* a SPIN of ours: the turn asked */
    } else {
        if (l->unmeasured > 0)
            estimate(b, oi.requested_speed, oi.requested_radius);
        else
            st->estimated = false;
        /* A SPIN of ours and no reflex since: the flagged angle is that SPIN's. */
        double spin = flagged && l->spin_sent != 0 && !l->reflexed ? l->spin_sent : NAN;
        bw_create_odometry(&l->odo, &st->pose, &st->v, &st->w, &oi, dt, flagged, spin);
        if (flagged) /* every move of the program's ends at rest */
            l->odo.left = l->odo.right = 0;
        l->unmeasured = 0;
        l->done_t = now;
        restart_log(l, &oi);
    }
    if (gap && take_values) {
        /* The estimate goes now, ended by what this SENSORS says. */
        estimate(b, oi.requested_speed, oi.requested_radius);
        l->unmeasured = 0;
        l->done_t = now;
        restart_log(l, &oi);
    }
    l->spin_sent = 0; /* carried, or never heard */
    if (!take_values)
        return;
    to_state(b, &s->oi);
    check_echo(l, s);
    l->reflexed = false;
    l->last = s->oi;
    l->have_sensors = true;
    seek_step(b, now);
    bw_base_frame_ok(b, now);
}

/* ---- what the program sends at once --------------------------------------------- */

/* The burst is over (the line has been quiet): an event ACK nothing
 * confirmed is judged on its own; a burst that should have had a SENSORS
 * lost its cycle's motion; one without READY (lost, unless the program
 * holds the host off) is answered all the same, as the program may wait. */
static void burst_end(bw_base_t *b, double now)
{
    lobot_drv_t *l = D(b);
    if (!l->burst)
        return;
    if (l->held)
        settle_ack(b, move_fits(&l->ack), now);
    bool sized = l->burst_bytes >= BURST_SENSORS;
    if (!l->burst_sensors && sized && l->have_sensors) {
        l->unmeasured += l->input_t - l->cycle_t; /* its SENSORS lost */
        l->cycle_t = l->input_t;
    }
    if (!l->burst_ready && !l->burst_hold && !l->answered && (sized || l->burst_sensors) &&
        b->port)
        answer_ready(b, now);
    l->burst = l->burst_sensors = l->burst_ready = l->burst_hold = false;
    l->answered = l->answer_due = false;
    l->burst_bytes = 0;
}

/* An ACK. stale: found once its burst was over (the line's reset), when a
 * READY's window is long gone. */
static void on_ack(bw_base_t *b, const bw_lobot_ack_frame_t *f, bool stale, double now)
{
    lobot_drv_t *l = D(b);
    bw_lobot_ack_t a;
    if (bw_lobot_decode_ack(f->id, f->data, f->len, &a) < 0) {
        l->sub_stats.length_errors++;
        return;
    }
    switch (a.id) {
    case BW_LOBOT_ACK_READY:
        if (!stale) {
            l->burst_ready = true;
            l->answer_due = !l->answered;
        }
        break;
    case BW_LOBOT_ACK_SENSORS: on_sensors(b, &a.u.sensors, f->data, now); break;
    default:
        /* Held until the SENSORS behind it, or the burst's end. */
        settle_ack(b, move_fits(&l->ack), now);
        l->ack = a;
        l->held = true;
        l->ack_frames = l->parser.stats.frames;
        l->ack_skipped = l->parser.stats.skipped_bytes;
        break;
    }
}

static void link_stats(bw_base_t *b)
{
    lobot_drv_t *l = D(b);
    b->st.link = l->parser.stats;
    bw_parse_stats_add(&b->st.link, &l->sub_stats);
    b->st.link.implausible = b->implausible; /* (on a tick too: the base sets it after input) */
}

static void on_input(bw_base_t *b, const uint8_t *data, size_t n, double now)
{
    lobot_drv_t *l = D(b);
    if (l->burst && now - l->input_t > BURST_GAP)
        burst_end(b, now);
    l->burst = true;
    l->burst_bytes += n;
    l->input_t = now;
    bw_lobot_ack_frame_t f;
    while (b->port && bw_lobot_ack_parse(&l->parser, &data, &n, &f) > 0)
        on_ack(b, &f, false, now);
    link_stats(b);
}

/* Quiet for longer than a burst lasts: what the parser holds (a data byte
 * read as an ACK id, waiting for data that will not come) is rescanned, and
 * the burst ends. */
static void reset_line(bw_base_t *b, double now)
{
    lobot_drv_t *l = D(b);
    bw_lobot_ack_frame_t f;
    while (bw_lobot_ack_parser_finish(&l->parser, &f) > 0)
        on_ack(b, &f, true, l->input_t);
    burst_end(b, now);
    link_stats(b);
}

static void on_tick(bw_base_t *b, double now)
{
    lobot_drv_t *l = D(b);
    /* One answer for all the READYs of a burst (a data byte read as one is
     * another): the program takes the first command of its window. */
    if (l->answer_due) {
        l->answer_due = false;
        l->answered = true;
        answer_ready(b, now);
    }
    if (l->burst && now - l->input_t > BURST_GAP)
        reset_line(b, now);
}

static double next_deadline(const bw_base_t *b)
{
    const lobot_drv_t *l = D(b);
    return l->burst ? l->input_t + BURST_GAP + 1e-3 : INFINITY;
}

/* Commands go out only after a READY; nothing to do on the change itself. */
static void on_drive(bw_base_t *b, double now)
{
    (void)b;
    (void)now;
}

static size_t stop_bytes(const bw_base_t *b, uint8_t *buf, size_t cap)
{
    (void)b;
    /* Heard only inside a window; otherwise the program's own silence rule
     * stops the robot at its next window. */
    int n = bw_lobot_encode_cmd(buf, cap, BW_LOBOT_CMD_STOP, 0);
    return n > 0 ? (size_t)n : 0;
}

static const char *const params[] = { "turn", "window", NULL };

const bw_driver_ops_t bw_lobot_driver_ops = {
    .family = "lobot",
    .size = sizeof(lobot_drv_t),
    .params = params,
    .init = init,
    .caps = BW_CAP_DRIVE | BW_CAP_ODOMETRY | BW_CAP_BUMPERS | BW_CAP_CLIFFS |
            BW_CAP_WHEEL_DROPS | BW_CAP_BUTTONS | BW_CAP_BATTERY | BW_CAP_CHARGING |
            BW_CAP_REFLEXES | BW_CAP_BUMP_SWITCHES | BW_CAP_SEEK_DOCK,
    .max_v = 0.5,
    .max_w = 0.5 / (BW_CREATE_WHEELBASE_M / 2),
    /* The program is never silent that long but while it moves on its own:
     * a SPIN this side sent (expected), or a reflex (offline meanwhile). */
    .link_timeout = LINK_TIMEOUT,
    .line_gap = BURST_GAP,
    .baud = 57600,
    .on_open = on_open,
    .on_input = on_input,
    .reset_line = reset_line,
    .on_tick = on_tick,
    .on_drive = on_drive,
    .stop_bytes = stop_bytes,
    .next_deadline = next_deadline,
    .seek_dock = seek_dock,
};
