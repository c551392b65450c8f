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
 * at a time; the robot turns at w on average, in steps. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../base/base_internal.h"
#include "../create/host.h"
#include "botwire/lobot.h"

#define STRAIGHT_BELOW 0.02 /* rad/s: slower turns drive straight */
#define IN_PLACE_BELOW 0.01 /* m/s: slower drives turn in place */
#define MIN_RADIUS 100      /* mm: the program takes smaller radii as "in place" */
#define SPIN_MIN 5.0        /* degrees: the smallest SPIN sent (?turn=spin) */

typedef struct {
    bw_lobot_ack_parser_t parser;
    bw_parse_stats_t sub_stats;
    /* What the program drives by, as far as this side has told it. */
    int16_t speed;        /* mm/s */
    int16_t radius;       /* 0 straight, +1/-1 in place CCW/CW, else mm (CCW positive) */
    bool known;           /* speed and radius are known (not before the first) */
    double last_sensors;
    bool have_sensors;
    bool turn_spin;       /* ?turn=spin: pure rotations as SPIN */
    bool spinning;        /* a pure rotation is going as SPINs */
    double spin_owed;     /* degrees asked for and not yet sent */
    double spin_t;        /* when spin_owed was brought up to date */
    double spin_sent;     /* degrees of SPIN sent whose turn no SENSORS has carried yet */
    bool reflexed;        /* a reflex came since the last SENSORS */
    bw_create_sensors_t last; /* the last SENSORS */
    bw_create_odo_t odo;
} lobot_drv_t;

static lobot_drv_t *D(const bw_base_t *b) { return b->drv; }

static int init(bw_base_t *b, const bw_url_t *url, char *err, size_t errlen)
{
    const char *turn = bw_url_param(url, "turn");
    if (turn && strcmp(turn, "spin") != 0 && strcmp(turn, "inplace") != 0) {
        snprintf(err, errlen, "turn=%s: pure rotations go as inplace (the default) or spin", turn);
        return BW_EINVAL;
    }
    D(b)->turn_spin = turn && strcmp(turn, "spin") == 0;
    if (url->kind != BW_URL_SIM && bw_url_param(url, "window")) {
        snprintf(err, errlen, "window= sets the emulated Command Module's window (sim:lobot only)");
        return BW_EINVAL;
    }
    return 0;
}

static void on_open(bw_base_t *b, double now)
{
    lobot_drv_t *l = D(b);
    bw_lobot_ack_parser_init(&l->parser);
    memset(&l->sub_stats, 0, sizeof l->sub_stats);
    l->known = false;
    l->have_sensors = false;
    memset(&l->odo, 0, sizeof l->odo);
    (void)now;
}

static void send_cmd(bw_base_t *b, uint8_t id, int16_t param, double now)
{
    uint8_t f[BW_LOBOT_CMD_SIZE];
    if (bw_lobot_encode_cmd(f, sizeof f, id, param) > 0)
        bw_base_send(b, f, sizeof f, now);
}

/* The one command of this window: the radius first, then the speed. */
static void answer_ready(bw_base_t *b, double now)
{
    lobot_drv_t *l = D(b);
    b->st.commands_ignored = false;
    double v = b->cmd_v, w = b->cmd_w;
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

/* The sensors into the state, the rear bumpers from SENSORS byte 0's bits. */
static void to_state(bw_base_t *b, const bw_create_sensors_t *oi)
{
    uint8_t rear = oi->bumps_wheel_drops;
    bw_create_to_state(&b->st, oi,
                       ((rear & BW_LOBOT_BUMP_REAR_LEFT) ? BW_BUMP_REAR_LEFT : 0u) |
                           ((rear & BW_LOBOT_BUMP_REAR_RIGHT) ? BW_BUMP_REAR_RIGHT : 0u));
}

static void on_sensors(bw_base_t *b, const bw_lobot_sensors_t *s, double now)
{
    lobot_drv_t *l = D(b);
    bw_base_state_t *st = &b->st;
    l->last = s->oi;
    to_state(b, &s->oi);
    double dt = l->have_sensors ? now - l->last_sensors : 0;
    /* A SPIN of ours and no reflex since: the flagged angle is that SPIN's. */
    bool flagged = s->spin_flag != 0;
    double spin = flagged && l->spin_sent != 0 && !l->reflexed ? l->spin_sent : NAN;
    bw_create_odometry(&l->odo, &st->pose, &st->v, &st->w, &s->oi, dt, flagged, spin);
    l->spin_sent = 0; /* carried, or never heard */
    l->reflexed = false;
    l->last_sensors = now;
    l->have_sensors = true;
    bw_base_frame_ok(b, now);
}

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
    reflex_state(b, a, now);
    D(b)->reflexed = true;
    switch (a->id) {
    case BW_LOBOT_ACK_BUMPS:
        bw_base_reflex(b, BW_REFLEX_BUMP, a->u.bumps.flags, a->u.bumps.distance / 1000.0,
                       a->u.bumps.angle * BW_PI / 180, now);
        break;
    case BW_LOBOT_ACK_CLIFFS:
        bw_base_reflex(b, BW_REFLEX_CLIFF, a->u.cliffs.flags, a->u.cliffs.distance / 1000.0,
                       a->u.cliffs.angle * BW_PI / 180, now);
        break;
    case BW_LOBOT_ACK_WHEEL_DROPS:
        bw_base_reflex(b, BW_REFLEX_WHEEL_DROP, a->u.wheel_drops.flags, 0, 0, now);
        break;
    case BW_LOBOT_ACK_REMOTE:
        /* The remote drives; READY (answer_ready) says it let go. */
        b->st.commands_ignored = true;
        break;
    default: break;
    }
    /* The low level drove on its own: what it drives by now is unknown. */
    D(b)->known = false;
}

static void on_input(bw_base_t *b, const uint8_t *data, size_t n, double now)
{
    lobot_drv_t *l = D(b);
    bw_lobot_ack_frame_t f;
    while (b->port && bw_lobot_ack_parse(&l->parser, &data, &n, &f) > 0) {
        bw_lobot_ack_t a;
        if (bw_lobot_decode_ack(f.id, f.data, f.len, &a) < 0) {
            l->sub_stats.length_errors++;
            continue;
        }
        if (a.id == BW_LOBOT_ACK_READY)
            answer_ready(b, now);
        else if (a.id == BW_LOBOT_ACK_SENSORS)
            on_sensors(b, &a.u.sensors, now);
        else
            reflex(b, &a, now);
    }
    b->st.link = l->parser.stats;
    bw_parse_stats_add(&b->st.link, &l->sub_stats);
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
            BW_CAP_REFLEXES,
    .max_v = 0.5,
    .max_w = 0.5 / (BW_CREATE_WHEELBASE_M / 2),
    /* The low level says nothing while it reacts: up to about 5 s (all four
     * cliffs: back 300 mm, spin 180 degrees, halting around each). */
    .link_timeout = 6.0,
    .baud = 57600,
    .on_open = on_open,
    .on_input = on_input,
    .on_drive = on_drive,
    .stop_bytes = stop_bytes,
};
