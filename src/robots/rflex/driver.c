/* The RWI reflex host driver (B21r, ATRV-Jr): what the public rflex drivers
 * do, behind the base API.
 *
 * On open: the motors' defaults, system reports of both axes every 100 ms,
 * DIO reports, the sonar on (B21r), the brake released, a status request
 * (then one a second, for the voltage and the brake). drive(v, w) is a
 * set-direction per axis with the base's standard acceleration and torque,
 * resent every 200 ms while moving; bw_base_motor sends the caller's
 * acceleration and torque instead. On close, and when the base falls
 * silent: both axes stopped and the brake set; no motion is sent while it
 * stays silent; on the next drive after it reports again, the brake is
 * released again.
 *
 * The pose comes from the system reports' positions (distance and bearing
 * in counts), their velocities, accelerations and torques go to
 * state.trans and state.rot; the 24 sonars of the body ring are range
 * sensors with the odometry pose of each reading; the bump panels are
 * bumpers by where they face.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../../base/base_internal.h"
#include "botwire/rflex.h"

#define RESEND 0.2          /* s between set-directions while moving */
#define STATUS_PERIOD 1.0   /* s between status requests */
#define TRANS_ACCEL 0.7     /* m/s^2: the public drivers' usual translational acceleration */
#define SONAR_MAX_M 5.0
#define PANELS 8

typedef struct {
    const char *name;
    double counts_per_m, counts_per_rad;
    bool sonar;
} rmodel_t;

static const rmodel_t rmodels[] = {
    { "b21r", BW_RFLEX_B21R_COUNTS_PER_M, BW_RFLEX_B21R_COUNTS_PER_RAD, true },
    { "atrvjr", BW_RFLEX_ATRVJR_COUNTS_PER_M, BW_RFLEX_ATRVJR_COUNTS_PER_RAD, false },
};

typedef struct {
    const rmodel_t *m;
    bw_rflex_parser_t parser;
    bw_parse_stats_t sub_stats;
    double last_send, last_status;
    bool released;          /* the brake released by us since open or the last stop */
    bool was_online;
    bool silenced;          /* stopped and braked because the base fell silent */
    bool have_pos[2];
    int32_t pos[2];          /* the last report's positions, counts */
    double pending_ds;       /* m of a translation frame waiting for its rotation frame */
    uint16_t panel[PANELS];
} rflex_drv_t;

static rflex_drv_t *D(const bw_base_t *b) { return b->drv; }

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
    if (D(b)->m->sonar) {
        b->caps |= BW_CAP_SONAR | BW_CAP_SONAR_TIMING;
        st->nranges = BW_RFLEX_B21R_SONARS_PER_RING;
        for (unsigned i = 0; i < st->nranges; i++) {
            double a = i * BW_RFLEX_B21R_SONAR_SPACING_DEG * BW_PI / 180;
            st->ranges[i].mount = (bw_pose_t){ BW_RFLEX_B21R_SONAR_RADIUS_M * cos(a),
                                               BW_RFLEX_B21R_SONAR_RADIUS_M * sin(a), a };
            st->ranges[i].max_range = SONAR_MAX_M;
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

static void sonar_run(bw_base_t *b, uint32_t echo_us, uint32_t ping_us, uint32_t set_us, bool on,
                      double now)
{
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_SONAR_RUN);
    m.u.sonar_run = (bw_rflex_sonar_run_t){ on ? echo_us : 0, ping_us, set_us,
                                            on ? BW_RFLEX_RUN_ON : BW_RFLEX_RUN_OFF };
    send_msg(b, &m, now);
}

static void on_open(bw_base_t *b, double now)
{
    rflex_drv_t *r = D(b);
    bw_rflex_parser_init(&r->parser);
    memset(&r->sub_stats, 0, sizeof r->sub_stats);
    r->have_pos[0] = r->have_pos[1] = false;
    r->pending_ds = 0;
    r->was_online = false;
    r->silenced = false;
    send_type(b, BW_RFLEX_MOT_SET_DEFAULTS, now);
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_MOT_SYSTEM_REPORT_REQ);
    m.u.mot_system_report_req.period = BW_RFLEX_REPORT_PERIOD;
    m.u.mot_system_report_req.mask = BW_RFLEX_MASK_TRANS | BW_RFLEX_MASK_ROT;
    send_msg(b, &m, now);
    bw_rflex_msg_init(&m, BW_RFLEX_DIO_REPORTS_REQ);
    m.u.dio_reports_req.period = BW_RFLEX_REPORT_PERIOD;
    send_msg(b, &m, now);
    if (r->m->sonar)
        sonar_run(b, BW_RFLEX_SONAR_ECHO_DELAY, 0, 0, true, now);
    send_type(b, BW_RFLEX_MOT_BRAKE_RELEASE, now);
    r->released = true;
    send_type(b, BW_RFLEX_SYS_STATUS_REQ, now);
    r->last_status = now;
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

static void send_twist(bw_base_t *b, double now)
{
    rflex_drv_t *r = D(b);
    bool moving = b->cmd_v != 0 || b->cmd_w != 0 || b->cmd_vector;
    /* A silent base is not driven blind: it was stopped and braked when it
     * fell silent, and stays so until it reports again. */
    if (r->silenced && moving)
        return;
    if (moving && !r->released) {
        send_type(b, BW_RFLEX_MOT_BRAKE_RELEASE, now);
        r->released = true;
    }
    if (b->cmd_vector) {
        const bw_axis_t *t = &b->cmd_axis[0], *w = &b->cmd_axis[1];
        set_dir(b, BW_RFLEX_AXIS_TRANS, t->velocity, t->acceleration, t->torque, now);
        set_dir(b, BW_RFLEX_AXIS_ROT, w->velocity, w->acceleration, w->torque, now);
    } else {
        set_dir(b, BW_RFLEX_AXIS_TRANS, b->cmd_v, TRANS_ACCEL, 1, now);
        set_dir(b, BW_RFLEX_AXIS_ROT, b->cmd_w, BW_RFLEX_STD_ROT_ACC / r->m->counts_per_rad, 1, now);
    }
    r->last_send = now;
}

static void on_drive(bw_base_t *b, double now) { send_twist(b, now); }

/* Both axes stopped and the brake set: needs no state but the model. */
static size_t stop_bytes(const bw_base_t *b, uint8_t *buf, size_t cap)
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
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_MOT_BRAKE_SET);
    int k = bw_rflex_encode_frame(buf + n, cap - n, &m);
    return k < 0 ? n : n + (size_t)k;
}

static void stop_and_brake(bw_base_t *b, double now)
{
    uint8_t buf[64];
    size_t n = stop_bytes(b, buf, sizeof buf);
    if (n)
        bw_base_send(b, buf, n, now);
    D(b)->released = false;
}

static void on_tick(bw_base_t *b, double now)
{
    rflex_drv_t *r = D(b);
    /* The base went silent: whatever it was doing, stop it and brake. */
    if (r->was_online && !b->st.online) {
        stop_and_brake(b, now);
        r->silenced = true;
    }
    if (b->st.online)
        r->silenced = false;
    r->was_online = b->st.online;
    if (now >= r->last_status + STATUS_PERIOD) {
        send_type(b, BW_RFLEX_SYS_STATUS_REQ, now);
        r->last_status = now;
    }
    if ((b->cmd_v != 0 || b->cmd_w != 0 || b->cmd_vector) && now >= r->last_send + RESEND)
        send_twist(b, now);
}

static double next_deadline(const bw_base_t *b)
{
    const rflex_drv_t *r = D(b);
    double t = r->last_status + STATUS_PERIOD;
    if (b->cmd_v != 0 || b->cmd_w != 0 || b->cmd_vector)
        t = fmin(t, r->last_send + RESEND);
    return t;
}

static void on_close(bw_base_t *b, double now)
{
    rflex_drv_t *r = D(b);
    stop_and_brake(b, now);
    if (r->m->sonar)
        sonar_run(b, 0, 0, 0, false, now);
    bw_rflex_msg_t m;
    bw_rflex_msg_init(&m, BW_RFLEX_MOT_SYSTEM_REPORT_REQ); /* period 0, mask 0: off */
    send_msg(b, &m, now);
}

static int sonar_timing(bw_base_t *b, double echo, double ping, double set, double now)
{
    sonar_run(b, (uint32_t)lround(echo * 1e6), (uint32_t)lround(ping * 1e6),
              (uint32_t)lround(set * 1e6), true, now);
    return 0;
}

static void on_report(bw_base_t *b, const bw_rflex_mot_system_report_t *rep, double now)
{
    rflex_drv_t *r = D(b);
    bw_base_state_t *st = &b->st;
    unsigned a = rep->axis;
    if (a > 1)
        return;
    double per = a == BW_RFLEX_AXIS_TRANS ? r->m->counts_per_m : r->m->counts_per_rad;
    double std = a == BW_RFLEX_AXIS_TRANS ? BW_RFLEX_STD_TRANS_TORQUE : BW_RFLEX_STD_ROT_TORQUE;
    /* Positions wrap as 32-bit counts: the difference is what moved. */
    int32_t d = r->have_pos[a] ? (int32_t)((uint32_t)rep->position - (uint32_t)r->pos[a]) : 0;
    r->pos[a] = rep->position;
    r->have_pos[a] = true;
    /* A report comes as a translation frame, then a rotation frame: the
     * distance waits for the turn, and goes along the mean heading. */
    if (a == BW_RFLEX_AXIS_TRANS) {
        if (r->pending_ds != 0) { /* no rotation frame came for the last one */
            st->pose.x += r->pending_ds * cos(st->pose.theta);
            st->pose.y += r->pending_ds * sin(st->pose.theta);
        }
        r->pending_ds = d / per;
    } else {
        double dth = d / per, mid = st->pose.theta + dth / 2;
        st->pose.x += r->pending_ds * cos(mid);
        st->pose.y += r->pending_ds * sin(mid);
        r->pending_ds = 0;
        st->pose.theta = bw_angle_norm(st->pose.theta + dth);
    }
    bw_axis_t *ax = a == BW_RFLEX_AXIS_TRANS ? &st->trans : &st->rot;
    ax->velocity = rep->velocity / per;
    ax->acceleration = rep->acceleration / per;
    ax->torque = rep->torque / std;
    st->v = st->trans.velocity;
    st->w = st->rot.velocity;
    bw_base_frame_ok(b, now);
}

static void on_sonar(bw_base_t *b, const bw_rflex_sonar_report_t *rep, double now)
{
    bw_base_state_t *st = &b->st;
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

/* A bump panel, by the way it faces, as the base API's bumpers. */
static uint32_t panel_bumper(unsigned p)
{
    static const uint32_t by[PANELS] = { BW_BUMP_FRONT,      BW_BUMP_FRONT_LEFT, BW_BUMP_FRONT_LEFT,
                                         BW_BUMP_REAR_LEFT,  BW_BUMP_REAR,       BW_BUMP_REAR_RIGHT,
                                         BW_BUMP_FRONT_RIGHT, BW_BUMP_FRONT_RIGHT };
    return by[p];
}

static void on_dio(bw_base_t *b, const bw_rflex_dio_report_t *rep, double now)
{
    rflex_drv_t *r = D(b);
    unsigned p = rep->address - BW_RFLEX_B21R_BUMPER_ADDRESS;
    if (rep->address < BW_RFLEX_B21R_BUMPER_ADDRESS || p >= PANELS)
        return; /* the heading home switch, panels not mapped */
    r->panel[p] = rep->value & 0x0Fu;
    uint32_t bits = 0;
    for (unsigned i = 0; i < PANELS; i++)
        if (r->panel[i])
            bits |= panel_bumper(i);
    b->st.bumpers = bits;
    bw_base_frame_ok(b, now);
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
        case BW_RFLEX_SYS_STATUS:
            b->st.battery = m.u.sys_status.voltage * BW_RFLEX_VOLTS_PER_UNIT +
                            BW_RFLEX_B21R_VOLTAGE_OFFSET;
            b->st.brake = m.u.sys_status.brake != 0;
            bw_base_frame_ok(b, now);
            break;
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
            BW_CAP_MOTOR_REPORT | BW_CAP_MOTOR_VECTOR,
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
