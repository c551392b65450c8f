/* The RWI reflex host driver (B21r, ATRV-Jr): what the public rflex drivers
 * do, behind the base API, made to survive a bad cable.
 *
 * On open: the motors' defaults, system reports of both axes every 100 ms,
 * DIO reports, the sonar on (B21r), the brake released, a status request
 * (then one a second, for the voltage and the brake, with the DIO request
 * again). drive(v, w) is a set-direction per axis with the base's standard
 * acceleration and torque, resent every 200 ms while moving; bw_base_motor
 * sends the caller's acceleration and torque instead. On close, and when
 * the base falls silent: both axes stopped and the brake set; on the next
 * drive after it reports again, the brake is released again.
 *
 * Every request is sent once and may be lost on the way, so the driver
 * watches for what it asked for: no system report of an axis for three
 * report periods asks for the reports again, a quiet sonar is started
 * again, a release the status says has not arrived is sent again.
 *
 * No motion without odometry: until both axes have reported (the first
 * report of each is the reference), and whenever an axis has not reported
 * for five periods, the driver is blind. It does not drive a blind base: it
 * sends both axes zero velocity (every 200 ms while asked to move) and v, w
 * say 0, marked estimated, until the reports come again; then the commanded
 * twist goes out at once. The reports' positions are the base's own
 * counters, so the pose catches up exactly with whatever moved meanwhile.
 * The link stays online meanwhile (status and sonar frames still come): the
 * link's supervision says whether the base is there, the hold whether it
 * can be driven.
 *
 * Frames the XOR let through with damage are set aside before they reach
 * the state (counted by bw_base_implausible): a report whose position moved
 * more or less than its axis can between the two reports' velocities in
 * the time between their timestamps, or whose velocity is beyond the
 * base's top speed; a status whose brake byte is not 0 or 1 or whose
 * voltage jumped; any frame stamped later than the base's clock can be
 * now. The stamps are taken as milliseconds (the emulator's; no public
 * source gives the unit) only once a second of reports has shown them to
 * run at that rate; until then the elapsed time is the host's, with 100 ms
 * of slack. The host's time of a frame is a span: after the poll before
 * the one that read it, by that one (a caller polling at 10 Hz reads a
 * frame up to 100 ms after it came). Three set-aside reports of an axis in a row that agree with
 * each other are believed (the base's counters were reset): the latest
 * becomes the reference, its jump not integrated.
 *
 * A base whose reported velocity moves away from the one commanded (a
 * set-direction damaged on the way in, that the XOR let through) is sent
 * the command again at once, not at the next resend.
 *
 * The brake and the bump panels come in their own messages, a status a
 * second and a DIO report per change, not with every frame, so frame_ok's
 * agreement of two frames in a row cannot be left to do it alone: handed
 * a status's brake, the motor report after it would confirm one damaged
 * status. The brake changes when two status messages in a row agree (a
 * status that differs asks for another at once); a brake engaged while
 * our release has not been confirmed is not shown before the release has
 * been sent RELEASE_TRIES times more, one per status answer (it was lost on
 * the line, most likely, and a shown brake would be an event the base did
 * not have). The panels' values (one message each: the base sends no
 * second to agree with) and the brake so agreed are handed to the state
 * before every frame_ok, so a press shows with the next frame; a DIO frame
 * whose damage the XOR and the stamp check let through would show too.
 *
 * The pose comes from the system reports' positions (distance and bearing
 * in counts), their velocities, accelerations and torques go to
 * state.trans and state.rot; the 24 sonars of the body ring are range
 * sensors with the odometry pose of each reading, mounted where Player's
 * stock B21r configuration puts them (rflex.h); the 14 bump panels of that
 * configuration are bumpers by where they face (panel_bits), and each is
 * a bump switch by its number (address - 0x40, Player's bumper index).
 *
 * GRL's low-level signals (docs/rflex.md): the encoders are the reports'
 * own counters (translation, rotation), unwrapped from the wire's 32 bits;
 * the base API turns the pose into counts. The B21r's IR ring is turned on
 * with the sonar and its readings are ranges of kind IR after the sonars,
 * as many as the state holds (those facing ahead first). The joystick is
 * asked for every JSTK_PERIOD, as Player's driver does when its
 * rflex_joystick is set; a base that answers has BW_CAP_JOYSTICK. It is
 * reported, never obeyed: the host decides.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../../base/base_internal.h"
#include "botwire/rflex.h"

#define RESEND 0.2          /* s between set-directions while moving */
#define STATUS_PERIOD 1.0   /* s between status requests */
#define STATUS_RECHECK 0.05 /* s between status requests that confirm a changed brake */
#define RELEASE_TRIES 3     /* releases again, a status apart, before a brake is shown */
#define TRANS_ACCEL 0.7     /* m/s^2: the public drivers' usual translational acceleration */
#define STALL_CMD 0.05      /* m/s: a command to move */
#define STALL_SPEED 0.03    /* m/s: ...and the axis barely moves */
#define STALL_TORQUE 0.9    /* ...at this share of the torque it may use */
#define SONAR_MAX_M 5.0
#define PANELS BW_RFLEX_B21R_BUMPER_COUNT
#define REPORT_S (BW_RFLEX_REPORT_PERIOD / 1e6) /* s between system reports */
#define REREQUEST (3 * REPORT_S) /* s without a report of an axis before asking again */
#define STALE (5 * REPORT_S)     /* s without a report of an axis: blind */
#define SONAR_SLACK 0.3     /* s beyond three sonar cycles before starting it again */
/* Plausibility. */
#define SPARE 1.5           /* times the base's top speed a velocity may read */
#define M0_TRANS 0.005      /* m a report's distance may miss its velocities by */
#define M0_ROT 0.01         /* rad */
#define A_TRANS 2.0         /* m/s^2 the base can change speed at (its brake) */
#define A_ROT 6.0           /* rad/s^2 */
#define JITTER 0.1          /* s the host's time of a frame may be off, stamps unconfirmed */
#define CLOCK_SPAN 1.0      /* s of reports that confirm the stamps count milliseconds */
#define CLOCK_TOL 0.05      /* ...within this fraction */
#define LEAD_SLACK 0.05     /* s a stamp may run ahead of the least-delayed frame yet */
#define LEAD_DRIFT 0.001    /* s/s the base's clock may drift from the host's */
#define OBEY_TRANS 0.02     /* m/s a report may stray further from the command */
#define OBEY_ROT 0.05       /* rad/s */
#define VOLT_JUMP 3.0       /* V between two status messages */
#define VOLT_MAX 100.0      /* V */
#define JSTK_PERIOD REPORT_S /* s between joystick requests */
#define IR_RESTART 1.0      /* s without an IR report (it comes every 150 ms) before starting it again */
/* IR sensors the state has room for after the 24 sonars: the ones facing
 * ahead, body sonar positions FIRST_IR.. (all 24 once the state holds 48). */
#define NIR (BW_BASE_MAX_RANGES - BW_RFLEX_B21R_SONARS_PER_RING < BW_RFLEX_B21R_IR_COUNT \
                 ? BW_BASE_MAX_RANGES - BW_RFLEX_B21R_SONARS_PER_RING                  \
                 : BW_RFLEX_B21R_IR_COUNT)
#define FIRST_IR (BW_RFLEX_B21R_IR_COUNT / 2 - NIR / 2)

typedef struct {
    const char *name;
    double counts_per_m, counts_per_rad;
    double top_v, top_w; /* m/s, rad/s */
    bool sonar;          /* and the IR ring: the B21r's body */
} rmodel_t;

static const rmodel_t rmodels[] = {
    { "b21r", BW_RFLEX_B21R_COUNTS_PER_M, BW_RFLEX_B21R_COUNTS_PER_RAD, 1.0, 2.0, true },
    { "atrvjr", BW_RFLEX_ATRVJR_COUNTS_PER_M, BW_RFLEX_ATRVJR_COUNTS_PER_RAD, 1.5, 2.0, false },
};

/* One axis's report as the plausibility check needs it. */
typedef struct {
    int32_t pos, vel; /* counts, counts/s */
    uint32_t stamp;   /* the base's clock */
    double since, t;  /* host time it came: after since (the poll before), by t */
} sample_t;

typedef struct {
    bool have;        /* ref is the reference: positions count from it */
    bool provisional; /* ...but no report has fitted it yet: one that does not replaces it */
    sample_t ref;
    unsigned run;     /* reports in a row that did not fit ref */
    sample_t cand;    /* the latest of them */
    double heard;     /* host time of the last report of this axis, fitting or not */
} axis_t;

typedef struct {
    const rmodel_t *m;
    bw_rflex_parser_t parser;
    bw_parse_stats_t sub_stats;
    double last_send, last_status, last_req, last_recheck, last_firm;
    bool released;          /* the brake released by us since open or the last stop */
    bool release_pending;   /* ...and no status has said so since */
    unsigned release_tries; /* releases sent again since */
    bool was_online;
    bool silenced;          /* stopped and braked because the base fell silent */
    bool held;              /* no motion sent: silenced, or no fresh odometry */
    axis_t ax[2];
    bool firm[2];            /* correcting a velocity the host did not command */
    double pending_ds;       /* m of a translation frame waiting for its rotation frame */
    /* The base's clock: stamps confirmed to count ms against the host's
     * clock from (stamp0, t0); lead, the largest stamp - host time yet, in
     * s from there, at lead_t. t0 is the earliest stamp0 can have come (the
     * poll before the one that read it), t0_read when it was read: a caller
     * polling at its own rate reads a frame up to a poll period after it
     * came, so only a stamp beyond the earliest is from the future. */
    bool clock_have, clock_ms;
    uint32_t stamp0;
    double t0, t0_read, lead, lead_t;
    /* Status. */
    bool have_volts;
    double volts;
    unsigned status_run;
    double cand_volts;
    int brake_seen;          /* the last status's brake (-1: none yet) */
    bool brake;              /* as two status messages in a row agreed */
    /* Sonar: what we asked for. */
    bool sonar_on;
    uint32_t echo_us, ping_us, set_us;
    double sonar_sent, sonar_heard;
    uint16_t panel[PANELS];
    /* The encoders: the last accepted report's counter of each axis. */
    bool enc_have[2];
    uint32_t enc_last[2];
    double ir_sent, ir_heard, jstk_sent;
    bool stuck;        /* the last translation report: told to go, full torque, at rest */
} rflex_drv_t;

static rflex_drv_t *D(const bw_base_t *b) { return b->drv; }

static bool moving(const bw_base_t *b) { return b->cmd_v != 0 || b->cmd_w != 0 || b->cmd_vector; }

static int init(bw_base_t *b, const bw_url_t *url, char *err, size_t errlen)
{
    const char *model = bw_url_param(url, "model");
    const char *want = model ? model : "b21r";
    for (size_t i = 0; i < sizeof rmodels / sizeof rmodels[0]; i++)
        if (strcasecmp(rmodels[i].name, want) == 0)
            D(b)->m = &rmodels[i];
    if (!D(b)->m) {
        snprintf(err, errlen, "model=%s: not an rflex model (b21r or atrvjr)", want);
        return BW_EINVAL;
    }
    bw_base_state_t *st = &b->st;
    snprintf(st->hardware, sizeof st->hardware, "RWI %s", D(b)->m->name);
    st->counts_per_m = D(b)->m->counts_per_m;
    st->nbump_switches = PANELS;
    if (D(b)->m->sonar) {
        b->caps |= BW_CAP_SONAR | BW_CAP_SONAR_TIMING | BW_CAP_IR;
        /* The sonars, then the IR sensors: each IR is posed as the body
         * sonar of its number in Player's configuration. */
        st->nranges = BW_RFLEX_B21R_SONARS_PER_RING + NIR;
        for (unsigned k = 0; k < st->nranges; k++) {
            bool ir = k >= BW_RFLEX_B21R_SONARS_PER_RING;
            unsigned i = ir ? FIRST_IR + k - BW_RFLEX_B21R_SONARS_PER_RING : k;
            double a = bw_rflex_b21r_sonar_deg(i) * BW_PI / 180;
            bw_range_t *rg = &st->ranges[k];
            rg->mount = (bw_pose_t){ BW_RFLEX_B21R_SONAR_RADIUS_M * cos(a),
                                     BW_RFLEX_B21R_SONAR_RADIUS_M * sin(a), a };
            rg->max_range = ir ? BW_RFLEX_B21R_IR_MAX_M : SONAR_MAX_M;
            rg->kind = ir ? BW_RANGE_IR : BW_RANGE_SONAR;
        }
    }
    return 0;
}

static void send_msg(bw_base_t *b, const bw_rflex_msg_t *m, double now)
{
    uint8_t f[BW_RFLEX_MAX_FRAME];
    int n = bw_rflex_encode_frame(f, sizeof f, m);
    if (n > 0)
        bw_base_send(b, f, (size_t)n, now);
}

static void send_type(bw_base_t *b, bw_rflex_type_t type, double now)
{
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, type);
    send_msg(b, &m, now);
}

static void sonar_run(bw_base_t *b, double now)
{
    rflex_drv_t *r = D(b);
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_SONAR_RUN);
    m.u.sonar_run = (bw_rflex_sonar_run_t){ r->sonar_on ? r->echo_us : 0, r->ping_us, r->set_us,
                                            r->sonar_on ? BW_RFLEX_RUN_ON : BW_RFLEX_RUN_OFF };
    send_msg(b, &m, now);
    r->sonar_sent = now;
}

static void request_reports(bw_base_t *b, double now)
{
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_MOT_SYSTEM_REPORT_REQ);
    m.u.mot_system_report_req.period = BW_RFLEX_REPORT_PERIOD;
    m.u.mot_system_report_req.mask = BW_RFLEX_MASK_TRANS | BW_RFLEX_MASK_ROT;
    send_msg(b, &m, now);
    D(b)->last_req = now;
}

/* The IR ring on (with the drivers' words) or off. */
static void ir_run(bw_base_t *b, bool on, double now)
{
    static const uint32_t params[5] = BW_RFLEX_IR_ON_PARAMS;
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_IR_RUN);
    if (on) {
        memcpy(m.u.ir_run.params, params, sizeof params);
        m.u.ir_run.mode = BW_RFLEX_RUN_ON;
    }
    send_msg(b, &m, now);
    D(b)->ir_sent = now;
}

static void request_dio(bw_base_t *b, double now)
{
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_DIO_REPORTS_REQ);
    m.u.dio_reports_req.period = BW_RFLEX_REPORT_PERIOD;
    send_msg(b, &m, now);
}

static void release_brake(bw_base_t *b, double now)
{
    send_type(b, BW_RFLEX_MOT_BRAKE_RELEASE, now);
    D(b)->released = D(b)->release_pending = true;
    D(b)->release_tries = 0;
}

static void on_open(bw_base_t *b, double now)
{
    rflex_drv_t *r = D(b);
    bw_rflex_parser_init(&r->parser);
    memset(&r->sub_stats, 0, sizeof r->sub_stats);
    for (int a = 0; a < 2; a++)
        r->ax[a] = (axis_t){ .heard = -INFINITY };
    r->pending_ds = 0;
    r->firm[0] = r->firm[1] = false;
    r->last_firm = -INFINITY;
    r->was_online = false;
    r->silenced = false;
    r->held = true;
    r->clock_have = r->clock_ms = false;
    r->have_volts = false;
    r->status_run = 0;
    r->brake_seen = -1;
    r->last_recheck = -INFINITY;
    send_type(b, BW_RFLEX_MOT_SET_DEFAULTS, now);
    request_reports(b, now);
    request_dio(b, now);
    if (r->m->sonar) {
        r->sonar_on = true;
        r->echo_us = BW_RFLEX_SONAR_ECHO_DELAY;
        r->ping_us = r->set_us = 0;
        r->sonar_heard = -INFINITY;
        sonar_run(b, now);
        r->ir_heard = -INFINITY;
        ir_run(b, true, now);
    }
    r->enc_have[0] = r->enc_have[1] = false;
    release_brake(b, now);
    send_type(b, BW_RFLEX_SYS_STATUS_REQ, now);
    r->last_status = now;
    send_type(b, BW_RFLEX_JSTK_STATE_REQ, now);
    r->jstk_sent = now;
    r->last_send = now;
}

static void set_dir(bw_base_t *b, uint8_t axis, double vel, double accel, double torque,
                    double now)
{
    rflex_drv_t *r = D(b);
    double per = axis == BW_RFLEX_AXIS_TRANS ? r->m->counts_per_m : r->m->counts_per_rad;
    double std = axis == BW_RFLEX_AXIS_TRANS ? BW_RFLEX_STD_TRANS_TORQUE : BW_RFLEX_STD_ROT_TORQUE;
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_MOT_SET_DIR);
    double v = fmax(-2e9, fmin(2e9, vel * per));
    m.u.mot_set_dir = bw_rflex_set_dir(axis, (int32_t)lround(v),
                                       (uint32_t)lround(fmin(4e9, accel * per)),
                                       (uint32_t)lround(fmin(4e9, torque * std)));
    send_msg(b, &m, now);
}

/* Both axes to zero velocity at the standard rates, and the brake set if
 * asked: needs no state but the model. */
static size_t stop_frames(const bw_base_t *b, bool brake, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    for (uint8_t axis = 0; axis < 2; axis++) {
        bw_rflex_msg_t m;
        bw_rflex_msg_init(&m, BW_RFLEX_MOT_SET_DIR);
        double acc = axis == BW_RFLEX_AXIS_TRANS ? TRANS_ACCEL * D(b)->m->counts_per_m
                                                 : BW_RFLEX_STD_ROT_ACC;
        m.u.mot_set_dir = bw_rflex_set_dir(axis, 0, (uint32_t)acc,
                                           axis ? BW_RFLEX_STD_ROT_TORQUE : BW_RFLEX_STD_TRANS_TORQUE);
        int k = bw_rflex_encode_frame(buf + n, cap - n, &m);
        if (k < 0)
            return n;
        n += (size_t)k;
    }
    if (!brake)
        return n;
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_MOT_BRAKE_SET);
    int k = bw_rflex_encode_frame(buf + n, cap - n, &m);
    return k < 0 ? n : n + (size_t)k;
}

static size_t stop_bytes(const bw_base_t *b, uint8_t *buf, size_t cap)
{
    return stop_frames(b, true, buf, cap);
}

static void send_stop(bw_base_t *b, bool brake, double now)
{
    uint8_t buf[64];
    size_t n = stop_frames(b, brake, buf, sizeof buf);
    if (n)
        bw_base_send(b, buf, n, now);
    if (brake)
        D(b)->released = D(b)->release_pending = false;
}

/* The commanded twist, or, while the driver is held (a silent base, or no
 * fresh odometry), zero velocity in its place: a base is not driven blind,
 * and the stop goes out as often as the twist would, so one lost on the
 * line is sent again (and the deadline moves on). */
static void send_twist(bw_base_t *b, double now)
{
    rflex_drv_t *r = D(b);
    r->last_send = now;
    if (moving(b) && r->held) {
        send_stop(b, false, now);
        return;
    }
    if (moving(b) && !r->released)
        release_brake(b, now);
    /* A firm correction back to the command: at the most the base can. */
    double fa_t = r->firm[0] ? A_TRANS : 0, fa_r = r->firm[1] ? A_ROT : 0;
    if (b->cmd_vector) {
        const bw_axis_t *t = &b->cmd_axis[0], *w = &b->cmd_axis[1];
        set_dir(b, BW_RFLEX_AXIS_TRANS, t->velocity, fmax(t->acceleration, fa_t), t->torque, now);
        set_dir(b, BW_RFLEX_AXIS_ROT, w->velocity, fmax(w->acceleration, fa_r), w->torque, now);
    } else {
        set_dir(b, BW_RFLEX_AXIS_TRANS, b->cmd_v, fmax(TRANS_ACCEL, fa_t), 1, now);
        set_dir(b, BW_RFLEX_AXIS_ROT, b->cmd_w,
                fmax(BW_RFLEX_STD_ROT_ACC / r->m->counts_per_rad, fa_r), 1, now);
    }
}

static void on_drive(bw_base_t *b, double now) { send_twist(b, now); }

/* ---- what came, and when ----------------------------------------------------- */

/* The older of the two axes' last accepted reports: how fresh the odometry
 * is (-INFINITY: an axis has no reference yet). */
static double odometry_time(const rflex_drv_t *r)
{
    double t = INFINITY;
    for (int a = 0; a < 2; a++)
        t = fmin(t, r->ax[a].have ? r->ax[a].ref.t : -INFINITY);
    return t;
}

/* When the reports are asked for again: REREQUEST after the request or the
 * last report of the axis heard least recently, whichever is later. */
static double rerequest_at(const rflex_drv_t *r)
{
    return fmax(r->last_req, fmin(r->ax[0].heard, r->ax[1].heard)) + REREQUEST;
}

/* When a running sonar that has not reported is started again: three
 * cycles of its timing after it was started or last heard. */
static double sonar_restart_at(const rflex_drv_t *r)
{
    double cycle = (r->echo_us + r->ping_us) * 1e-6 * BW_RFLEX_B21R_BODY_SONARS_PER_BANK +
                   r->set_us * 1e-6;
    return fmax(r->sonar_sent, r->sonar_heard) + 3 * cycle + SONAR_SLACK;
}

static bool want_sonar(const bw_base_t *b)
{
    return D(b)->m->sonar && D(b)->sonar_on;
}

static double ir_restart_at(const rflex_drv_t *r)
{
    return fmax(r->ir_sent, r->ir_heard) + IR_RESTART;
}

static void on_tick(bw_base_t *b, double now)
{
    rflex_drv_t *r = D(b);
    bw_base_state_t *st = &b->st;
    /* The base went silent: whatever it was doing, stop it and brake. */
    if (r->was_online && !st->online) {
        send_stop(b, true, now);
        r->silenced = true;
    }
    if (st->online)
        r->silenced = false;
    r->was_online = st->online;
    if (now >= rerequest_at(r))
        request_reports(b, now);
    if (want_sonar(b) && now >= sonar_restart_at(r))
        sonar_run(b, now);
    if (r->m->sonar && now >= ir_restart_at(r))
        ir_run(b, true, now);
    if (now >= r->jstk_sent + JSTK_PERIOD) {
        send_type(b, BW_RFLEX_JSTK_STATE_REQ, now);
        r->jstk_sent = now;
    }
    if (now >= r->last_status + STATUS_PERIOD) {
        send_type(b, BW_RFLEX_SYS_STATUS_REQ, now);
        request_dio(b, now); /* a lost DIO request leaves no trace: it goes again */
        r->last_status = now;
    }

    bool was_held = r->held;
    r->held = r->silenced || now > odometry_time(r) + STALE;
    if (r->held) {
        /* Nothing measures the motion now: claim none. */
        st->v = st->w = 0;
        st->trans.velocity = st->rot.velocity = 0;
        st->estimated = true;
    } else if (was_held) {
        st->estimated = false;
    }
    if (moving(b) && (r->held != was_held || now >= r->last_send + RESEND))
        send_twist(b, now);
}

static double next_deadline(const bw_base_t *b)
{
    const rflex_drv_t *r = D(b);
    double t = fmin(fmin(r->last_status + STATUS_PERIOD, rerequest_at(r)),
                    r->jstk_sent + JSTK_PERIOD);
    if (want_sonar(b))
        t = fmin(t, sonar_restart_at(r));
    if (r->m->sonar)
        t = fmin(t, ir_restart_at(r));
    if (moving(b)) {
        t = fmin(t, r->last_send + RESEND);
        if (!r->held)
            t = fmin(t, odometry_time(r) + STALE + 1e-6);
    }
    return t;
}

static void on_close(bw_base_t *b, double now)
{
    rflex_drv_t *r = D(b);
    send_stop(b, true, now);
    if (r->m->sonar) {
        r->sonar_on = false;
        sonar_run(b, now);
        ir_run(b, false, now);
    }
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_MOT_SYSTEM_REPORT_REQ); /* period 0, mask 0: off */
    send_msg(b, &m, now);
}

static int sonar_timing(bw_base_t *b, double echo, double ping, double set, double now)
{
    rflex_drv_t *r = D(b);
    r->sonar_on = true;
    r->echo_us = (uint32_t)lround(echo * 1e6);
    r->ping_us = (uint32_t)lround(ping * 1e6);
    r->set_us = (uint32_t)lround(set * 1e6);
    sonar_run(b, now);
    return 0;
}

/* ---- plausibility ------------------------------------------------------------ */

/* A stamp in s from the clock's reference, less the host time since it. */
static double stamp_offset(const rflex_drv_t *r, uint32_t stamp, double now)
{
    return (int32_t)(stamp - r->stamp0) / 1000.0 - (now - r->t0);
}

/* A frame stamped later than the base's clock can read now: its stamp is
 * damaged, and so may the rest of it be. Without a confirmed clock nothing
 * can be said. */
static bool stamp_from_future(const rflex_drv_t *r, uint32_t stamp, double now)
{
    if (!r->clock_ms)
        return false;
    double lead = r->lead - LEAD_DRIFT * (now - r->lead_t);
    return stamp_offset(r, stamp, now) > lead + LEAD_SLACK;
}

/* An accepted frame's stamp: the clock learns its rate and its lead. */
static void clock_learn(rflex_drv_t *r, uint32_t stamp, double since, double now)
{
    if (!r->clock_have) {
        r->clock_have = true;
        r->stamp0 = stamp;
        r->t0 = since;
        r->t0_read = now;
        return;
    }
    if (!r->clock_ms) {
        if (now - r->t0_read < CLOCK_SPAN)
            return;
        /* The time between the two frames coming lies between the shortest
         * and the longest their polls allow; ms fit within the tolerance. */
        double ms = (int32_t)(stamp - r->stamp0) / 1000.0;
        if (ms < (since - r->t0_read) * (1 - CLOCK_TOL) || ms > (now - r->t0) * (1 + CLOCK_TOL)) {
            /* not ms, or a damaged stamp: start again */
            r->stamp0 = stamp;
            r->t0 = since;
            r->t0_read = now;
            return;
        }
        r->clock_ms = true;
        r->lead = fmax(0, stamp_offset(r, stamp, now));
        r->lead_t = now;
        return;
    }
    r->lead = fmax(r->lead - LEAD_DRIFT * (now - r->lead_t), stamp_offset(r, stamp, now));
    r->lead_t = now;
}

/* Whether report s can follow report from on the same axis: its velocity
 * within the top speed, and the distance between them one the axis covers
 * between the two velocities they report in the time between them (their
 * stamps' once the clock is confirmed, else the host's, give or take
 * JITTER), give or take a margin for the encoders and for a speed that
 * turned within the interval. */
static bool fits(const bw_base_t *b, unsigned a, const sample_t *from, const sample_t *s)
{
    const rflex_drv_t *r = D(b);
    bool trans = a == BW_RFLEX_AXIS_TRANS;
    double per = trans ? r->m->counts_per_m : r->m->counts_per_rad;
    double top = (trans ? r->m->top_v : r->m->top_w) * SPARE * per;
    if (fabs((double)s->vel) > top)
        return false;
    double tlo, thi;
    if (r->clock_ms) {
        int32_t ms = (int32_t)(s->stamp - from->stamp);
        if (ms < 0)
            return false;
        tlo = thi = ms / 1000.0;
    } else {
        /* Between when the two can have come, give or take JITTER. */
        tlo = fmax(0, s->since - from->t - JITTER);
        thi = s->t - from->since + JITTER;
    }
    double v0 = fmin(from->vel, s->vel), v1 = fmax(from->vel, s->vel);
    double lo = fmin(fmin(v0 * tlo, v0 * thi), fmin(v1 * tlo, v1 * thi));
    double hi = fmax(fmax(v0 * tlo, v0 * thi), fmax(v1 * tlo, v1 * thi));
    double accel = trans ? A_TRANS : A_ROT;
    if (b->cmd_vector)
        accel = fmax(accel, b->cmd_axis[a].acceleration);
    double margin = ((trans ? M0_TRANS : M0_ROT) + accel * thi * thi / 4) * per;
    double d = (int32_t)((uint32_t)s->pos - (uint32_t)from->pos);
    return d >= lo - margin && d <= hi + margin;
}

/* ---- frames -------------------------------------------------------------------- */

/* The bumper bits of panel p, from where it faces: the six sides are 60
 * degrees each round ahead (front), 60 (front left), 120 (rear left), 180
 * (rear), -120, -60; a panel is the side its centre lies in, and both sides
 * when it lies on their border (the body's panels, 60 degrees wide, centred
 * at 30, 90 and 150 degrees, span two sides each). So the base's front
 * pair (0x49, 0x4A, at +-22.5) is the front, its rear pair (0x46, 0x4D,
 * at +-157.5) the rear. */
static uint32_t panel_bits(unsigned p)
{
    static const struct {
        double deg;
        uint32_t bit;
    } sides[] = { { 0, BW_BUMP_FRONT },         { 60, BW_BUMP_FRONT_LEFT },
                  { 120, BW_BUMP_REAR_LEFT },   { 180, BW_BUMP_REAR },
                  { -120, BW_BUMP_REAR_RIGHT }, { -60, BW_BUMP_FRONT_RIGHT } };
    double a = bw_rflex_b21r_panel_deg(p) * BW_PI / 180;
    uint32_t bits = 0;
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++)
        if (fabs(bw_angle_diff(a, sides[i].deg * BW_PI / 180)) <= BW_PI / 6 + 1e-9)
            bits |= sides[i].bit;
    return bits;
}

/* The fields that come in their own messages, as the driver holds them,
 * handed to the state before every frame_ok, so each frame carries them. */
static void frame_ok(bw_base_t *b, double now)
{
    rflex_drv_t *r = D(b);
    uint32_t bits = 0;
    uint64_t switches = 0;
    for (unsigned i = 0; i < PANELS; i++)
        if (r->panel[i]) {
            bits |= panel_bits(i);
            switches |= 1ull << i;
        }
    b->st.bumpers = bits;
    b->st.bump_switches = switches;
    b->st.brake = r->brake;
    b->st.stalled = r->stuck; /* every frame: the base's filter wants two that agree */
    bw_base_frame_ok(b, now);
}

/* Integrates d counts of axis a. A report comes as a translation frame,
 * then a rotation frame: the distance waits for the turn, and goes along
 * the mean heading. */
static void integrate(bw_base_t *b, unsigned a, double d)
{
    rflex_drv_t *r = D(b);
    bw_pose_t *pose = &b->st.pose;
    if (a == BW_RFLEX_AXIS_TRANS) {
        if (r->pending_ds != 0) { /* no rotation frame came for the last one */
            pose->x += r->pending_ds * cos(pose->theta);
            pose->y += r->pending_ds * sin(pose->theta);
        }
        r->pending_ds = d / r->m->counts_per_m;
    } else {
        double dth = d / r->m->counts_per_rad, mid = pose->theta + dth / 2;
        pose->x += r->pending_ds * cos(mid);
        pose->y += r->pending_ds * sin(mid);
        r->pending_ds = 0;
        pose->theta = bw_angle_norm(pose->theta + dth);
    }
}

/* The velocity axis a was told to go at (0 while held), in counts/s, or
 * NAN when it is left to coast. */
static double commanded(const bw_base_t *b, unsigned a)
{
    const rflex_drv_t *r = D(b);
    double per = a == BW_RFLEX_AXIS_TRANS ? r->m->counts_per_m : r->m->counts_per_rad;
    if (r->held)
        return 0;
    if (b->cmd_vector)
        return b->cmd_axis[a].torque > 0 ? b->cmd_axis[a].velocity * per : NAN;
    return (a == BW_RFLEX_AXIS_TRANS ? b->cmd_v : b->cmd_w) * per;
}

/* A velocity beyond the command (faster than asked, or the wrong way; a
 * speed between rest and the command is one on its way to it, or held
 * back) and further from it than the report before: the base goes at a
 * velocity the host did not send, a set-direction damaged on the way in.
 * The command goes again now (once a report period), with the most
 * acceleration the base has, until the velocity is back. */
static void check_obeyed(bw_base_t *b, unsigned a, int32_t before, int32_t vel, double now)
{
    rflex_drv_t *r = D(b);
    double cmd = commanded(b, a);
    double per = a == BW_RFLEX_AXIS_TRANS ? r->m->counts_per_m : r->m->counts_per_rad;
    double tol = (a == BW_RFLEX_AXIS_TRANS ? OBEY_TRANS : OBEY_ROT) * per;
    bool beyond = !isnan(cmd) && (vel > fmax(0, cmd) + tol || vel < fmin(0, cmd) - tol);
    if (!beyond) {
        r->firm[a] = false;
        return;
    }
    if (fabs(vel - cmd) <= fabs(before - cmd) + tol)
        return;
    r->firm[a] = true;
    if (now >= r->last_firm + REPORT_S) {
        r->last_firm = now;
        send_twist(b, now);
    }
}

static void on_report(bw_base_t *b, const bw_rflex_mot_system_report_t *rep, double now)
{
    rflex_drv_t *r = D(b);
    bw_base_state_t *st = &b->st;
    unsigned a = rep->axis;
    if (a > 1) { /* an axis the base does not have: a damaged axis byte */
        bw_base_implausible(b, true);
        return;
    }
    axis_t *x = &r->ax[a];
    x->heard = now;
    sample_t s = { rep->position, rep->velocity, rep->timestamp, b->last_poll, now };
    bool bad = stamp_from_future(r, rep->timestamp, now) ||
               !fits(b, a, x->have ? &x->ref : &s, &s);
    bw_base_implausible(b, bad);
    if (!bad && x->have) {
        x->run = 0;
        x->provisional = false;
        integrate(b, a, (int32_t)((uint32_t)s.pos - (uint32_t)x->ref.pos));
        check_obeyed(b, a, x->ref.vel, s.vel, now);
    } else if (!x->have || x->provisional) {
        /* The first report is the reference at once (the driver holds the
         * base until both axes have one), but only provisionally: until a
         * report fits it, one that does not takes its place, its jump not
         * integrated, so a damaged first report cannot stay the reference. */
        if (bad && !x->have)
            return; /* beyond the base's top speed, or stamped in the future */
        x->have = x->provisional = true;
        x->run = 0;
        integrate(b, a, 0);
    } else {
        /* Set aside. A run of them that fit each other makes a new
         * reference (a base whose counters were reset), its jump not
         * integrated. */
        bool chain = x->run > 0 && !stamp_from_future(r, rep->timestamp, now) &&
                     fits(b, a, &x->cand, &s);
        x->run = chain ? x->run + 1 : 1;
        x->cand = s;
        if (x->run < BW_BASE_IMPLAUSIBLE_RUN)
            return;
        x->run = 0;
        integrate(b, a, 0);
    }
    x->ref = s;
    /* The encoder: the base's counter, unwrapped (a step of more than 2^31
     * counts is not one the base makes between two reports). */
    st->encoder[a] = r->enc_have[a] ? st->encoder[a] + (int32_t)((uint32_t)s.pos - r->enc_last[a])
                                    : (int64_t)s.pos;
    r->enc_last[a] = (uint32_t)s.pos;
    r->enc_have[a] = true;
    clock_learn(r, rep->timestamp, b->last_poll, now);
    double per = a == BW_RFLEX_AXIS_TRANS ? r->m->counts_per_m : r->m->counts_per_rad;
    double std = a == BW_RFLEX_AXIS_TRANS ? BW_RFLEX_STD_TRANS_TORQUE : BW_RFLEX_STD_ROT_TORQUE;
    bw_axis_t *ax = a == BW_RFLEX_AXIS_TRANS ? &st->trans : &st->rot;
    ax->velocity = rep->velocity / per;
    ax->acceleration = rep->acceleration / per;
    ax->torque = rep->torque / std;
    if (a == BW_RFLEX_AXIS_TRANS) {
        /* Stuck: told to go, the whole torque it may use, and still at rest
         * (a wall, a wheel over a drop). Two reports must agree (the base's
         * filter), so the first report of a start is not taken for it. */
        r->stuck = fabs(b->cmd_v) > STALL_CMD && fabs(ax->velocity) < STALL_SPEED &&
                   ax->torque >= STALL_TORQUE * fmin(1, b->cmd_vector ? b->cmd_axis[0].torque : 1);
    }
    st->v = st->trans.velocity;
    st->w = st->rot.velocity;
    frame_ok(b, now);
}

static void on_status(bw_base_t *b, const bw_rflex_sys_status_t *s, double now)
{
    rflex_drv_t *r = D(b);
    double volts = s->voltage * BW_RFLEX_VOLTS_PER_UNIT + BW_RFLEX_B21R_VOLTAGE_OFFSET;
    bool sane = s->brake <= 1 && volts <= VOLT_MAX && !stamp_from_future(r, s->timestamp, now);
    bool bad = !sane || (r->have_volts && fabs(volts - r->volts) > VOLT_JUMP);
    bw_base_implausible(b, bad);
    if (bad) {
        /* Three in a row that agree: the battery was changed, believed. */
        bool chain = sane && r->status_run > 0 && fabs(volts - r->cand_volts) <= VOLT_JUMP;
        r->status_run = chain ? r->status_run + 1 : 1;
        r->cand_volts = volts;
        if (r->status_run < BW_BASE_IMPLAUSIBLE_RUN)
            return;
    }
    r->status_run = 0;
    r->volts = volts;
    r->have_volts = true;
    b->st.battery = volts;
    int brake = s->brake != 0;
    bool retry = false;
    if (!brake) {
        r->release_pending = false;
    } else if (r->release_pending && r->release_tries < RELEASE_TRIES) {
        /* Our release has not arrived (lost on the line): again, and the
         * brake it left is not shown before RELEASE_TRIES of them have
         * failed (each status answer sends at most one). A brake set after
         * a release the base confirmed is someone else's, and stays. */
        send_type(b, BW_RFLEX_MOT_BRAKE_RELEASE, now);
        r->release_tries++;
        retry = true;
    }
    if (brake == r->brake_seen && !retry)
        r->brake = brake;
    if (retry || (brake != r->brake_seen && now >= r->last_recheck + STATUS_RECHECK)) {
        /* A brake that differs from the last message's, or one just
         * released: ask again rather than wait a status period. */
        send_type(b, BW_RFLEX_SYS_STATUS_REQ, now);
        r->last_recheck = now;
    }
    r->brake_seen = brake;
    frame_ok(b, now);
}

static void on_sonar(bw_base_t *b, const bw_rflex_sonar_report_t *rep, double now)
{
    rflex_drv_t *r = D(b);
    bw_base_state_t *st = &b->st;
    bool bad = stamp_from_future(r, rep->timestamp, now);
    bw_base_implausible(b, bad);
    if (bad)
        return;
    r->sonar_heard = now;
    for (unsigned k = 0; k < rep->count; k++) {
        unsigned id = rep->readings[k].id;
        unsigned bank = id / BW_RFLEX_SONAR_IDS_PER_BANK, t = id % BW_RFLEX_SONAR_IDS_PER_BANK;
        if (bank >= BW_RFLEX_B21R_BODY_SONAR_BANKS || t >= BW_RFLEX_B21R_BODY_SONARS_PER_BANK)
            continue; /* the base ring, not mapped */
        bw_range_t *rg = &st->ranges[bank * BW_RFLEX_B21R_BODY_SONARS_PER_BANK + t];
        rg->range = fmin(rg->max_range, rep->readings[k].range / BW_RFLEX_SONAR_COUNTS_PER_M);
        rg->t = now;
        rg->at = st->pose;
    }
}

static void on_dio(bw_base_t *b, const bw_rflex_dio_report_t *rep, double now)
{
    rflex_drv_t *r = D(b);
    unsigned p = rep->address - BW_RFLEX_B21R_BUMPER_ADDRESS;
    if (rep->address < BW_RFLEX_B21R_BUMPER_ADDRESS || p >= PANELS)
        return; /* the heading home switch, panels not mapped */
    bool bad = stamp_from_future(r, rep->timestamp, now);
    bw_base_implausible(b, bad);
    if (bad)
        return;
    r->panel[p] = rep->value & 0x0Fu;
    frame_ok(b, now);
}

/* An IR report: each sensor the state holds, by Player's reading (bank
 * i / 4, byte i % 4) and calibration. Below its least range Player gives 0;
 * here the least range (0 is "no reading yet" in the state, and something
 * that near is no less near for it). A byte of 0 saw nothing. */
static void on_ir(bw_base_t *b, const bw_rflex_ir_report_t *rep, double now)
{
    rflex_drv_t *r = D(b);
    bw_base_state_t *st = &b->st;
    if (!r->m->sonar)
        return;
    /* No stamp check: the stamps sit inside the data, one a bank. */
    r->ir_heard = now;
    for (unsigned k = 0; k < NIR; k++) {
        unsigned i = FIRST_IR + k;
        int raw = bw_rflex_ir_range(rep, i / BW_RFLEX_B21R_IR_PER_BANK, i % BW_RFLEX_B21R_IR_PER_BANK);
        if (raw < 0)
            continue; /* a short report: the banks it has */
        double m = raw == 0 ? INFINITY
                            : BW_RFLEX_B21R_IR_CALIB_A * pow(raw, BW_RFLEX_B21R_IR_CALIB_B);
        bw_range_t *rg = &st->ranges[BW_RFLEX_B21R_SONARS_PER_RING + k];
        rg->range = fmax(BW_RFLEX_B21R_IR_MIN_M, fmin(rg->max_range, m));
        rg->t = now;
        rg->at = st->pose;
    }
}

/* The joystick's answer: axes to -1..1, left and forward positive. */
static void on_jstk(bw_base_t *b, const bw_rflex_jstk_state_t *j, double now)
{
    rflex_drv_t *r = D(b);
    bool bad = stamp_from_future(r, j->timestamp, now);
    bw_base_implausible(b, bad);
    if (bad)
        return;
    b->caps |= BW_CAP_JOYSTICK;
    bw_joystick_t *js = &b->st.joystick;
    js->active = true;
    js->x = fmax(-1, fmin(1, -j->x / BW_RFLEX_JSTK_FULL_SCALE));
    js->y = fmax(-1, fmin(1, j->y / BW_RFLEX_JSTK_FULL_SCALE));
    js->buttons = j->buttons;
}

static void on_input(bw_base_t *b, const uint8_t *data, size_t n, double now)
{
    rflex_drv_t *r = D(b);
    bw_rflex_frame_t f;
    int rc;
    while (b->port && (rc = bw_rflex_parse(&r->parser, &data, &n, &f)) != 0) {
        if (rc < 0)
            continue;
        bw_rflex_msg_t m;
        if (bw_rflex_decode(&f, &m) < 0) {
            r->sub_stats.length_errors++;
            continue;
        }
        switch (m.type) {
        case BW_RFLEX_MOT_SYSTEM_REPORT: on_report(b, &m.u.mot_system_report, now); break;
        case BW_RFLEX_SONAR_REPORT: on_sonar(b, &m.u.sonar_report, now); break;
        case BW_RFLEX_DIO_REPORT: on_dio(b, &m.u.dio_report, now); break;
        case BW_RFLEX_SYS_STATUS: on_status(b, &m.u.sys_status, now); break;
        case BW_RFLEX_IR_REPORT: on_ir(b, &m.u.ir_report, now); break;
        case BW_RFLEX_JSTK_STATE: on_jstk(b, &m.u.jstk_state, now); break;
        case BW_RFLEX_UNKNOWN: r->sub_stats.unknown++; break;
        default: break;
        }
    }
    b->st.link = r->parser.stats;
    bw_parse_stats_add(&b->st.link, &r->sub_stats);
}

static const char *const params[] = { "model", NULL };

const bw_driver_ops_t bw_rflex_driver_ops = {
    .family = "rflex",
    .size = sizeof(rflex_drv_t),
    .caps = BW_CAP_DRIVE | BW_CAP_ODOMETRY | BW_CAP_BUMPERS | BW_CAP_BATTERY | BW_CAP_BRAKE |
            BW_CAP_STALL |
            BW_CAP_MOTOR_REPORT | BW_CAP_MOTOR_VECTOR | BW_CAP_ENCODERS | BW_CAP_BUMP_SWITCHES,
    .params = params,
    .max_v = 1.0,
    .max_w = 2.0,
    .link_timeout = 0.5,
    .baud = BW_RFLEX_BAUD,
    .init = init,
    .on_open = on_open,
    .on_input = on_input,
    .on_tick = on_tick,
    .on_drive = on_drive,
    .stop_bytes = stop_bytes,
    .on_close = on_close,
    .next_deadline = next_deadline,
    .sonar_timing = sonar_timing,
};
