/* The emulated RWI reflex base: a B21r (or an ATRV-Jr) speaking rflex.
 *
 * Two axes, translation and rotation, each driven toward the velocity of
 * its last set-direction at that command's acceleration, within the base's
 * top speed; the torque limits how hard (a torque of 0 leaves the axis to
 * coast and friction slows it; the standard torque gets the full
 * acceleration). The brake, engaged at power-up and by BRAKE_SET, stops
 * both axes and holds them until BRAKE_RELEASE. Odometry in raw counts
 * (B21r: 103000 per metre, 35000 per radian; ATRV-Jr 90810 and 37000).
 *
 * Reports: MOT system reports, one frame per axis in the mask, every period
 * microseconds (the drivers ask for 100000); sonar reports while the sonar
 * runs: each echo delay (microseconds) every bank of the B21r's body ring
 * fires its next transducer, ray-cast in the world, six readings a report;
 * after the four transducers of a bank, the set delay. The sonars look where
 * Player's stock B21r configuration has them (rflex.h: sonar i at 172.5 -
 * 15 i degrees). DIO reports when a bump panel is pressed or let go (value
 * 3: two corners), at the addresses of that configuration: a wall the base
 * touches presses the base panel (0x46..0x4D, 45 degrees each, from 157.5
 * degrees clockwise) it touches, and both of a seam's. The body's panels
 * (0x40..0x45) stand 1 cm inside the base's, where no wall of a flat world
 * reaches: they never press here. SYS status on request. The base ring of
 * sonars and the ATRV-Jr's sonars are not emulated.
 *
 * IR (B21r): once an ir_run turns it on, a report of all six banks every
 * repeat delay (its fifth word, taken as ms: 150 from the drivers), each
 * sensor ray-cast from body sonar i's pose (Player's B21r configuration
 * poses its IR there) and its byte the inverse of Player's calibration,
 * sqrt(4000 / range), up to 255; 0 when nothing is within IR_SENSE_M.
 * The joystick: a jstk_state_req is answered with what the stick reads
 * (idle: 0, 0, no buttons; bw_rflex_device_joystick moves it).
 *
 * The failsafe: a base that hears no set-direction for FAILSAFE seconds
 * while an axis is asked to move stops both axes (each at its last
 * command's acceleration), as Player's rflex driver says the rflex does
 * ("a built in failsafe mode where if no move command is received in a
 * certain interval the robot stops"); the ROS B21 node relies on it, never
 * sending a zero velocity itself. No public source gives the interval:
 * FAILSAFE is an assumption, long enough for the ROS node's 10 Hz resends.
 * Other messages (status requests) do not count as move commands. The
 * brake is not set.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../../sim/device_internal.h"
#include "botwire/rflex.h"

#define LOOP 0.010              /* s */
#define SONAR_MAX_M 5.0         /* what a ping hears back from */
#define BRAKE_TRANS 2.0         /* m/s^2 the brake stops translation at */
#define BRAKE_ROT 6.0           /* rad/s^2 */
#define FRICTION_TRANS 0.3      /* m/s^2 a coasting axis slows at */
#define FRICTION_ROT 1.0        /* rad/s^2 */
#define PANELS BW_RFLEX_B21R_BUMPER_COUNT /* body and base */
#define BUMP_VALUE 0x3u         /* a pressed panel: two of its corners */
/* A contact this close to a panel's edge presses it too: a flat wall on the
 * seam of two panels presses both (1 mm of a panel's travel is 5 degrees of
 * the base's 0.26 m round). */
#define SEAM_DEG 5.0
#define FAILSAFE 1.0            /* s without a set-direction before the base stops itself */
#define IR_SENSE_M 1.0          /* beyond this an IR sensor sees nothing (raw 0) */
#define IR_MIN_PERIOD 0.01      /* s: the fastest IR reports come */

typedef struct {
    const char *name;
    double counts_per_m, counts_per_rad;
    double radius, track;      /* m */
    double max_v, max_w;       /* m/s, rad/s */
    double volts_full, volts_empty, volts_offset;
    bool sonar;
    bool ir;
} model_t;

static const model_t models[] = {
    { "b21r", BW_RFLEX_B21R_COUNTS_PER_M, BW_RFLEX_B21R_COUNTS_PER_RAD, 0.26, 0.40, 1.0, 2.0,
      50.0, 44.0, BW_RFLEX_B21R_VOLTAGE_OFFSET, true, true },
    { "atrvjr", BW_RFLEX_ATRVJR_COUNTS_PER_M, BW_RFLEX_ATRVJR_COUNTS_PER_RAD, 0.40, 0.55, 1.5,
      2.0, 26.0, 22.0, BW_RFLEX_B21R_VOLTAGE_OFFSET, false, false },
};

typedef struct {
    double target, accel, torque; /* m/s or rad/s, per s, fraction of standard */
    double v;                     /* the axis's speed now */
    double pos;                   /* counts */
} axis_t;

typedef struct {
    const model_t *m;
    bw_rflex_parser_t parser;
    double t0;
    unsigned long loops;
    axis_t ax[2];
    bool brake;
    double last_odo_d, last_odo_th; /* body odometry already counted */
    double last_heading;            /* the body's heading at the last count */
    /* Reports. */
    double report_period;        /* s; 0: off */
    uint32_t report_mask;
    double next_report;
    bool sonar_on;
    double echo, ping, set;      /* s */
    unsigned sonar_k;            /* transducer of each bank that fires next */
    double next_ping;
    bool dio_on;
    uint16_t panel[PANELS];
    double last_move;            /* when the last set-direction came */
    bool failsafe;               /* stopped by the failsafe since */
    bool ir_on;
    double ir_period, next_ir;   /* s */
    bw_rflex_jstk_state_t jstk;  /* what the stick reads (timestamp unused) */
} rflex_dev_t;

static rflex_dev_t *X(const bw_device_t *d) { return d->priv; }

static double time_of(const rflex_dev_t *x, unsigned long loop) { return x->t0 + (double)loop * LOOP; }

static int init(bw_device_t *d, const bw_device_options_t *o, double t0, char *err,
                size_t errlen)
{
    rflex_dev_t *x = X(d);
    const char *want = o->model && *o->model ? o->model : "b21r";
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcasecmp(models[i].name, want) == 0)
            x->m = &models[i];
    if (!x->m) {
        if (err)
            snprintf(err, errlen, "no rflex model \"%s\" (b21r, atrvjr)", want);
        return BW_EUNKNOWN;
    }
    bw_body_params_t *b = &d->sim.body.prm;
    b->wheelbase = x->m->track;
    b->radius = x->m->radius;
    b->max_wheel_speed = x->m->max_v + x->m->max_w * x->m->track / 2;
    b->max_accel = 0; /* the axes' own profiles */
    b->ncliff = 0;
    b->slip = 0.01 * o->noise;
    b->encoder_noise = 0.002 * o->noise;
    b->seed = o->seed ? o->seed : 1;
    b->battery_full = x->m->volts_full;
    b->battery_empty = x->m->volts_empty;
    b->drain_idle = 0.0005;
    b->drain_motion = 0.002;
    d->sim.body.battery = x->m->volts_full;
    d->sim.rng = b->seed;
    bw_rflex_parser_init(&x->parser);
    x->t0 = t0;
    x->brake = true; /* as it powers up */
    x->echo = BW_RFLEX_SONAR_ECHO_DELAY / 1e6;
    const bw_body_t *body = &d->sim.body;
    x->last_odo_d = (body->odo_left + body->odo_right) / 2;
    x->last_odo_th = 0;
    x->last_heading = body->pose.theta;
    x->last_move = t0;
    bw_device_notice(d, "rflex %s: stops both axes when no set-direction comes for %.1f s "
                        "(the base's failsafe; interval assumed); hosts resend while moving",
                     x->m->name, FAILSAFE);
    return 0;
}

static uint32_t ms_of(const rflex_dev_t *x, double t)
{
    return (uint32_t)(uint64_t)llround((t - x->t0) * 1000);
}

static void send(bw_device_t *d, const bw_rflex_msg_t *m)
{
    uint8_t f[BW_RFLEX_MAX_FRAME];
    int n = bw_rflex_encode_frame(f, sizeof f, m);
    if (n > 0)
        bw_device_emit(d, f, (size_t)n);
}

static void send_status(bw_device_t *d, double now)
{
    rflex_dev_t *x = X(d);
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_SYS_STATUS);
    m.u.sys_status.timestamp = ms_of(x, now);
    double raw = (d->sim.body.battery - x->m->volts_offset) / BW_RFLEX_VOLTS_PER_UNIT;
    m.u.sys_status.voltage = (uint32_t)lround(fmax(0, raw));
    m.u.sys_status.brake = x->brake ? 1 : 0;
    send(d, &m);
}

static void send_jstk(bw_device_t *d, double now)
{
    rflex_dev_t *x = X(d);
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_JSTK_STATE);
    m.u.jstk_state = x->jstk;
    m.u.jstk_state.timestamp = ms_of(x, now);
    send(d, &m);
}

static void command(bw_device_t *d, const bw_rflex_msg_t *m, const bw_rflex_frame_t *f, double now)
{
    rflex_dev_t *x = X(d);
    switch (m->type) {
    case BW_RFLEX_SYS_STATUS_REQ: send_status(d, now); break;
    case BW_RFLEX_MOT_SET_DIR: {
        const bw_rflex_mot_set_dir_t *s = &m->u.mot_set_dir;
        if (s->axis > BW_RFLEX_AXIS_ROT) {
            bw_device_malformed(d);
            break;
        }
        double per = s->axis == BW_RFLEX_AXIS_TRANS ? x->m->counts_per_m : x->m->counts_per_rad;
        double std = s->axis == BW_RFLEX_AXIS_TRANS ? BW_RFLEX_STD_TRANS_TORQUE
                                                    : BW_RFLEX_STD_ROT_TORQUE;
        axis_t *a = &x->ax[s->axis];
        a->target = bw_rflex_set_dir_velocity(s) / per;
        a->accel = s->acceleration / per;
        a->torque = s->torque / std;
        x->last_move = now;
        x->failsafe = false;
        break;
    }
    case BW_RFLEX_MOT_SET_DEFAULTS:
        for (int i = 0; i < 2; i++)
            x->ax[i].target = 0;
        break;
    case BW_RFLEX_MOT_BRAKE_SET: x->brake = true; break;
    case BW_RFLEX_MOT_BRAKE_RELEASE: x->brake = false; break;
    case BW_RFLEX_MOT_SYSTEM_REPORT_REQ:
        x->report_period = m->u.mot_system_report_req.period / 1e6;
        x->report_mask = m->u.mot_system_report_req.mask;
        x->next_report = now;
        break;
    case BW_RFLEX_SONAR_RUN:
        x->sonar_on = m->u.sonar_run.mode != BW_RFLEX_RUN_OFF && x->m->sonar;
        x->echo = fmax(0.001, m->u.sonar_run.echo_delay / 1e6);
        x->ping = m->u.sonar_run.ping_delay / 1e6;
        x->set = m->u.sonar_run.set_delay / 1e6;
        x->sonar_k = 0;
        x->next_ping = now + x->echo;
        if (!x->m->sonar)
            bw_device_ignored(d, f->port);
        break;
    case BW_RFLEX_DIO_REPORTS_REQ: x->dio_on = m->u.dio_reports_req.period > 0; break;
    case BW_RFLEX_IR_RUN:
        if (!x->m->ir) {
            bw_device_ignored(d, f->port);
            break;
        }
        x->ir_on = m->u.ir_run.mode != BW_RFLEX_RUN_OFF;
        x->ir_period = fmax(IR_MIN_PERIOD, m->u.ir_run.params[4] / 1000.0);
        x->next_ir = now + x->ir_period;
        break;
    case BW_RFLEX_JSTK_STATE_REQ: send_jstk(d, now); break;
    case BW_RFLEX_UNKNOWN: bw_device_unknown(d, f->port); break;
    default: bw_device_ignored(d, f->port); break; /* reports: not a host's to send */
    }
}

static void input(bw_device_t *d, const uint8_t *data, size_t n, double now)
{
    rflex_dev_t *x = X(d);
    bw_rflex_frame_t f;
    int rc;
    while ((rc = bw_rflex_parse(&x->parser, &data, &n, &f)) != 0) {
        if (rc < 0)
            continue;
        bw_rflex_msg_t m;
        if (bw_rflex_decode(&f, &m) < 0) {
            bw_device_malformed(d); /* a known message of the wrong length */
            continue;
        }
        command(d, &m, &f, now);
    }
    bw_device_link_stats(d, &x->parser.stats);
}

/* One axis, one loop: toward its target, or to rest. */
static void drive_axis(axis_t *a, double top, bool brake, double brake_decel, double friction)
{
    double goal, rate;
    if (brake) {
        goal = 0;
        rate = brake_decel;
    } else if (a->torque <= 0) {
        goal = 0;
        rate = friction;
    } else {
        goal = fmax(-top, fmin(top, a->target));
        rate = a->accel * fmin(1, a->torque);
    }
    double step = rate * LOOP;
    a->v += fmax(-step, fmin(step, goal - a->v));
}

static void report(bw_device_t *d, double now)
{
    rflex_dev_t *x = X(d);
    for (uint8_t axis = 0; axis < 2; axis++) {
        if (!(x->report_mask & (1u << axis)))
            continue;
        const axis_t *a = &x->ax[axis];
        double per = axis == BW_RFLEX_AXIS_TRANS ? x->m->counts_per_m : x->m->counts_per_rad;
        double std = axis == BW_RFLEX_AXIS_TRANS ? BW_RFLEX_STD_TRANS_TORQUE : BW_RFLEX_STD_ROT_TORQUE;
        bw_rflex_msg_t m;
        bw_rflex_msg_init(&m, BW_RFLEX_MOT_SYSTEM_REPORT);
        bw_rflex_mot_system_report_t *r = &m.u.mot_system_report;
        r->timestamp = ms_of(x, now);
        r->axis = axis;
        r->position = (int32_t)(int64_t)llround(fmod(a->pos, 4294967296.0));
        r->velocity = (int32_t)lround(a->v * per);
        /* What the motor is doing: the acceleration it is asked for while
         * the speed moves, and the torque that takes; a fraction of it
         * against friction while cruising. */
        bool moving = fabs(a->target - a->v) > 1e-9 && !x->brake && a->torque > 0;
        r->acceleration = moving ? (int32_t)lround(a->accel * per) : 0;
        r->torque = x->brake || a->torque <= 0 ? 0
                    : (int32_t)lround(std * fmin(1, a->torque) * (moving ? 1.0 : 0.1 * (a->v != 0)));
        send(d, &m);
    }
}

/* Each bank fires transducer k: a report of six readings. */
static void ping(bw_device_t *d, double now)
{
    rflex_dev_t *x = X(d);
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_SONAR_REPORT);
    bw_rflex_sonar_report_t *r = &m.u.sonar_report;
    r->timestamp = ms_of(x, now);
    for (unsigned bank = 0; bank < BW_RFLEX_B21R_BODY_SONAR_BANKS; bank++) {
        unsigned i = bank * BW_RFLEX_B21R_BODY_SONARS_PER_BANK + x->sonar_k;
        double ang = bw_rflex_b21r_sonar_deg(i) * BW_PI / 180;
        bw_pose_t mount = { BW_RFLEX_B21R_SONAR_RADIUS_M * cos(ang),
                            BW_RFLEX_B21R_SONAR_RADIUS_M * sin(ang), ang };
        double range = bw_sim_range(&d->sim, mount, SONAR_MAX_M);
        r->readings[r->count].id = bw_rflex_b21r_sonar_id(i);
        r->readings[r->count].range =
            (uint16_t)lround(fmin(range, SONAR_MAX_M) * BW_RFLEX_SONAR_COUNTS_PER_M);
        r->count++;
    }
    send(d, &m);
    x->sonar_k = (x->sonar_k + 1) % BW_RFLEX_B21R_BODY_SONARS_PER_BANK;
    x->next_ping = now + x->echo + x->ping + (x->sonar_k == 0 ? x->set : 0);
}

/* An IR report: every bank, each of its sensors' byte as Player's
 * calibration reads it back (range = 4000 raw^-2), the bank's stamp before
 * them and the reserved 0x80 after. */
static void ir_report(bw_device_t *d, double now)
{
    rflex_dev_t *x = X(d);
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_IR_REPORT);
    bw_rflex_ir_report_t *r = &m.u.ir_report;
    r->count = BW_RFLEX_B21R_IR_BANKS;
    r->nbytes = (uint8_t)(BW_RFLEX_B21R_IR_BANKS * BW_RFLEX_IR_BANK_BYTES);
    uint32_t stamp = ms_of(x, now);
    for (unsigned bank = 0; bank < BW_RFLEX_B21R_IR_BANKS; bank++) {
        uint8_t *b = r->bytes + bank * BW_RFLEX_IR_BANK_BYTES;
        bw_put_be32(b, stamp);
        for (unsigned j = 0; j < BW_RFLEX_B21R_IR_PER_BANK; j++) {
            unsigned i = bank * BW_RFLEX_B21R_IR_PER_BANK + j;
            double ang = bw_rflex_b21r_sonar_deg(i) * BW_PI / 180;
            bw_pose_t mount = { BW_RFLEX_B21R_SONAR_RADIUS_M * cos(ang),
                                BW_RFLEX_B21R_SONAR_RADIUS_M * sin(ang), ang };
            double range = bw_sim_range(&d->sim, mount, IR_SENSE_M);
            double raw = range >= IR_SENSE_M ? 0
                         : range <= 0       ? 255
                                            : sqrt(BW_RFLEX_B21R_IR_CALIB_A / range);
            b[4 + j] = (uint8_t)lround(fmin(255, raw));
        }
        b[BW_RFLEX_IR_BANK_BYTES - 1] = BW_RFLEX_IR_RESERVED;
    }
    send(d, &m);
}

/* Whether a contact at bearing a (rad) presses panel p: base panels only
 * (see the top), within SEAM_DEG of its arc. */
static bool pressed(unsigned p, double a)
{
    if (p < BW_RFLEX_B21R_BODY_PANELS)
        return false;
    double off = fabs(bw_angle_diff(a, bw_rflex_b21r_panel_deg(p) * BW_PI / 180)) * 180 / BW_PI;
    return off <= bw_rflex_b21r_panel_width_deg(p) / 2 + SEAM_DEG;
}

static void bumps(bw_device_t *d, double now)
{
    rflex_dev_t *x = X(d);
    const bw_body_t *b = &d->sim.body;
    for (unsigned p = 0; p < PANELS; p++) {
        uint16_t v = b->contact && pressed(p, b->contact_angle) ? BUMP_VALUE : 0;
        if (v == x->panel[p])
            continue;
        x->panel[p] = v;
        if (!x->dio_on)
            continue;
        bw_rflex_msg_t m;
        bw_rflex_msg_init(&m, BW_RFLEX_DIO_REPORT);
        m.u.dio_report.timestamp = ms_of(x, now);
        m.u.dio_report.address = (uint8_t)(BW_RFLEX_B21R_BUMPER_ADDRESS + p);
        m.u.dio_report.value = v;
        send(d, &m);
    }
}

/* No move command for FAILSAFE while an axis is asked to move: both stop. */
static void failsafe(bw_device_t *d, double t)
{
    rflex_dev_t *x = X(d);
    if (x->failsafe || t - x->last_move < FAILSAFE - 1e-9 ||
        (x->ax[0].target == 0 && x->ax[1].target == 0))
        return;
    for (int i = 0; i < 2; i++) {
        axis_t *a = &x->ax[i];
        a->target = 0;
        if (a->accel <= 0) /* an axis told to hold its speed still stops */
            a->accel = i == BW_RFLEX_AXIS_TRANS ? BRAKE_TRANS : BRAKE_ROT;
    }
    x->failsafe = true;
    bw_device_notice(d, "failsafe: no set-direction for %.1f s while moving: both axes stopped",
                     t - x->last_move);
}

static void step(bw_device_t *d, double now)
{
    rflex_dev_t *x = X(d);
    for (double t; (t = time_of(x, x->loops + 1)) <= now + 1e-9;) {
        x->loops++;
        failsafe(d, t);
        bw_sim_step_to(&d->sim, t);
        const bw_body_t *b = &d->sim.body;
        /* The encoders, in counts: the translation's from the wheels, the
         * rotation's from the steering (a synchro drive turns all its
         * wheels together: its rotation encoder sees the turn itself). */
        double od = (b->odo_left + b->odo_right) / 2;
        double oth = x->last_odo_th + bw_angle_diff(b->pose.theta, x->last_heading);
        x->last_heading = b->pose.theta;
        x->ax[0].pos += (od - x->last_odo_d) * x->m->counts_per_m;
        x->ax[1].pos += (oth - x->last_odo_th) * x->m->counts_per_rad;
        x->last_odo_d = od;
        x->last_odo_th = oth;
        if (b->blocked || b->drop_left || b->drop_right)
            x->ax[0].v = 0; /* into a wall, or a wheel over a drop: the translation stalls */
        if (b->drop_left || b->drop_right)
            x->ax[1].v = 0; /* ...and over a drop the steering cannot turn it either */
        drive_axis(&x->ax[0], x->m->max_v, x->brake, BRAKE_TRANS, FRICTION_TRANS);
        drive_axis(&x->ax[1], x->m->max_w, x->brake, BRAKE_ROT, FRICTION_ROT);
        bw_sim_set_twist(&d->sim, x->ax[0].v, x->ax[1].v);
        bumps(d, t);
        if (x->report_period > 0 && t >= x->next_report - 1e-9) {
            report(d, t);
            x->next_report += x->report_period;
            if (x->next_report < t)
                x->next_report = t + x->report_period;
        }
        if (x->sonar_on && t >= x->next_ping - 1e-9)
            ping(d, t);
        if (x->ir_on && t >= x->next_ir - 1e-9) {
            ir_report(d, t);
            x->next_ir = fmax(x->next_ir + x->ir_period, t);
        }
    }
    bw_sim_step_to(&d->sim, now);
}

static double next_deadline(const bw_device_t *d) { return time_of(X(d), X(d)->loops + 1); }

static void reset_line(bw_device_t *d)
{
    rflex_dev_t *x = X(d);
    bw_rflex_frame_t f;
    while (bw_rflex_parser_finish(&x->parser, &f) != 0)
        ;
    bw_device_link_stats(d, &x->parser.stats);
}

static const char *command_name(unsigned id) { return bw_rflex_port_name((uint8_t)id); }

int bw_rflex_device_counts(const bw_device_t *d, double counts[2])
{
    if (!d || d->ops != &bw_rflex_device_ops)
        return BW_EINVAL;
    counts[0] = X(d)->ax[0].pos;
    counts[1] = X(d)->ax[1].pos;
    return 0;
}

int bw_rflex_device_joystick(bw_device_t *d, int32_t x, int32_t y, uint8_t buttons)
{
    if (!d || d->ops != &bw_rflex_device_ops)
        return BW_EINVAL;
    X(d)->jstk = (bw_rflex_jstk_state_t){ 0, x, y, buttons };
    return 0;
}

const bw_device_ops_t bw_rflex_device_ops = {
    .family = "rflex",
    .size = sizeof(rflex_dev_t),
    .init = init,
    .input = input,
    .step = step,
    .next_deadline = next_deadline,
    .reset_line = reset_line,
    .command_name = command_name,
};
