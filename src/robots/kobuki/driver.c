/* The Kobuki host driver: feedback to the robot model, twist to Base Control. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/base_internal.h"
#include "botwire/kobuki.h"

#define VERSION_RETRY 0.5 /* s between requests until the versions arrive */
/* What a Kobuki can do between two frames, with room to spare: its wheels
 * and gyro at half again their top speeds, a volt of battery, the firmware's
 * clock within a second of ours. Beyond it a frame is corrupt. */
#define SPARE 1.5
#define SLACK 0.1         /* s added to the elapsed time */
#define BATTERY_JUMP 10   /* 0.1 V */
#define STAMP_SLIP 1000   /* ms */

typedef struct {
    bw_kobuki_parser_t parser;
    bw_parse_stats_t sub_stats;
    bool have_last;      /* encoder and gyro baselines are set */
    bool have_offset;    /* gyro_offset holds: the gyro's own reference is unchanged */
    uint16_t last_left, last_right, last_stamp;
    uint8_t last_battery;
    double last_heading; /* gyro, rad */
    double last_time;    /* host time of the last frame taken */
    double gyro_offset;  /* gyro heading minus odometry heading */
    double next_version_request;
} kobuki_drv_t;

static kobuki_drv_t *D(const bw_base_t *b) { return b->drv; }

static void send_msg(bw_base_t *b, const bw_kobuki_msg_t *m, double now)
{
    uint8_t frame[32];
    int n = bw_kobuki_encode_frame(frame, sizeof frame, m, 1);
    if (n > 0)
        bw_base_send(b, frame, (size_t)n, now);
}

static void request_versions(bw_base_t *b, double now)
{
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_REQUEST_EXTRA);
    m.u.request_extra.flags = BW_KOBUKI_EXTRA_HARDWARE_VERSION | BW_KOBUKI_EXTRA_FIRMWARE_VERSION;
    send_msg(b, &m, now);
    D(b)->next_version_request = now + VERSION_RETRY;
}

static void on_open(bw_base_t *b, double now)
{
    kobuki_drv_t *k = D(b);
    bw_kobuki_parser_init(&k->parser);
    memset(&k->sub_stats, 0, sizeof k->sub_stats);
    k->have_last = false; /* the robot may have restarted: new baselines, same pose */
    k->have_offset = false;
    request_versions(b, now);
}

static void send_command(bw_base_t *b, double now)
{
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_BASE_CONTROL);
    m.u.base_control = bw_kobuki_base_control_from_twist(b->cmd_v, b->cmd_w);
    send_msg(b, &m, now);
}

static void on_drive(bw_base_t *b, double now) { send_command(b, now); }

static size_t stop_bytes(const bw_base_t *b, uint8_t *buf, size_t cap)
{
    (void)b;
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_BASE_CONTROL);
    int n = bw_kobuki_encode_frame(buf, cap, &m, 1);
    return n > 0 ? (size_t)n : 0;
}

static bw_charge_t charge_state(uint8_t charger)
{
    switch (charger) {
    case BW_KOBUKI_CHARGER_DISCHARGING: return BW_CHARGE_DISCHARGING;
    case BW_KOBUKI_CHARGER_DOCKING_CHARGED:
    case BW_KOBUKI_CHARGER_ADAPTER_CHARGED: return BW_CHARGE_CHARGED;
    case BW_KOBUKI_CHARGER_DOCKING_CHARGING:
    case BW_KOBUKI_CHARGER_ADAPTER_CHARGING: return BW_CHARGE_CHARGING;
    default: return BW_CHARGE_UNKNOWN;
    }
}

static void version_string(char *out, size_t cap, const bw_kobuki_version_t *v)
{
    snprintf(out, cap, "%u.%u.%u", v->major, v->minor, v->patch);
}

/* One feedback frame: the core data and the gyro heading of the same frame
 * make one odometry step. */
static void on_frame(bw_base_t *b, const bw_kobuki_frame_t *f, double now)
{
    kobuki_drv_t *k = D(b);
    bw_base_state_t *st = &b->st;
    bw_kobuki_iter_t it;
    bw_kobuki_msg_t m;
    bool have_core = false, have_gyro = false;
    bw_kobuki_basic_sensor_data_t core = { 0 };
    double heading = 0, rate = 0;

    bw_kobuki_iter_init(&it, f, BW_KOBUKI_FROM_ROBOT, &k->sub_stats);
    uint64_t malformed = k->sub_stats.length_errors;
    int rc;
    while ((rc = bw_kobuki_iter_next(&it, &m)) != 0) {
        if (rc < 0)
            continue;
        switch (m.type) {
        case BW_KOBUKI_BASIC_SENSOR_DATA:
            core = m.u.basic_sensor_data;
            have_core = true;
            break;
        case BW_KOBUKI_INERTIAL_SENSOR:
            heading = bw_kobuki_centideg_to_rad(m.u.inertial_sensor.angle);
            rate = bw_kobuki_centideg_to_rad(m.u.inertial_sensor.angle_rate);
            have_gyro = true;
            break;
        case BW_KOBUKI_HARDWARE_VERSION:
            version_string(st->hardware, sizeof st->hardware, &m.u.hardware_version);
            break;
        case BW_KOBUKI_FIRMWARE_VERSION:
            version_string(st->firmware, sizeof st->firmware, &m.u.firmware_version);
            break;
        default: break;
        }
    }
    if (!have_core)
        return;
    /* The robot never sends a mis-sized sub-payload: a frame holding one
     * passed its checksum damaged. */
    malformed = k->sub_stats.length_errors - malformed;
    if (k->have_last) {
        double dt = now - k->last_time + SLACK;
        double ticks = (b->ops->max_v * SPARE * dt / BW_KOBUKI_M_PER_TICK) + 20;
        int dl = bw_wrap_delta16(core.left_encoder, k->last_left);
        int dr = bw_wrap_delta16(core.right_encoder, k->last_right);
        int stamp = bw_wrap_delta16(core.timestamp, k->last_stamp);
        bool gyro_jump = have_gyro && k->have_offset &&
                         fabs(bw_angle_diff(heading, k->last_heading)) > b->ops->max_w * SPARE * dt;
        bool bad = malformed || abs(dl) > ticks || abs(dr) > ticks ||
                   abs((int)core.battery - (int)k->last_battery) > BATTERY_JUMP ||
                   fabs(stamp - (now - k->last_time) * 1000) > STAMP_SLIP || gyro_jump;
        if (bw_base_implausible(b, bad))
            return; /* set aside: nothing of it is believed */
        if (bad) {
            /* Believed after all: a new reference, no jump. The gyro's
             * heading is absolute: unless it is what jumped, its offset
             * stands, and the turn made meanwhile is kept. */
            k->have_last = false;
            k->have_offset = k->have_offset && !gyro_jump;
        }
    }

    st->bumpers = ((core.bumper & BW_KOBUKI_BUMPER_LEFT) ? BW_BUMP_FRONT_LEFT : 0u) |
                  ((core.bumper & BW_KOBUKI_BUMPER_CENTRAL) ? BW_BUMP_FRONT : 0u) |
                  ((core.bumper & BW_KOBUKI_BUMPER_RIGHT) ? BW_BUMP_FRONT_RIGHT : 0u);
    st->cliffs = ((core.cliff & BW_KOBUKI_CLIFF_LEFT) ? BW_CLIFF_LEFT : 0u) |
                 ((core.cliff & BW_KOBUKI_CLIFF_CENTRAL) ? BW_CLIFF_FRONT : 0u) |
                 ((core.cliff & BW_KOBUKI_CLIFF_RIGHT) ? BW_CLIFF_RIGHT : 0u);
    st->wheel_drops = ((core.wheel_drop & BW_KOBUKI_WHEEL_DROP_LEFT) ? BW_DROP_LEFT : 0u) |
                      ((core.wheel_drop & BW_KOBUKI_WHEEL_DROP_RIGHT) ? BW_DROP_RIGHT : 0u);
    st->buttons = core.button;
    st->battery = core.battery / 10.0;
    st->charging = charge_state(core.charger);
    st->stalled = core.overcurrent != 0;

    bw_pose_t *p = &st->pose;
    if (!k->have_last) {
        /* Baselines: the pose carries on from where it was. */
        if (have_gyro && !k->have_offset) {
            k->gyro_offset = bw_angle_diff(heading, p->theta);
            k->have_offset = true;
        }
        if (have_gyro)
            p->theta = bw_angle_norm(heading - k->gyro_offset);
    } else {
        double dl = bw_kobuki_ticks_to_m(bw_wrap_delta16(core.left_encoder, k->last_left));
        double dr = bw_kobuki_ticks_to_m(bw_wrap_delta16(core.right_encoder, k->last_right));
        double ds = (dl + dr) / 2;
        double theta = have_gyro ? bw_angle_norm(heading - k->gyro_offset)
                                 : bw_angle_norm(p->theta + (dr - dl) / BW_KOBUKI_WHEELBASE_M);
        double dtheta = bw_angle_diff(theta, p->theta);
        double mid = p->theta + dtheta / 2;
        p->x += ds * cos(mid);
        p->y += ds * sin(mid);
        p->theta = theta;
        double dt = bw_wrap_delta16(core.timestamp, k->last_stamp) / 1000.0;
        if (dt > 0) {
            st->v = ds / dt;
            st->w = have_gyro ? rate : dtheta / dt;
        }
    }
    k->last_left = core.left_encoder;
    k->last_right = core.right_encoder;
    k->last_stamp = core.timestamp;
    k->last_battery = core.battery;
    if (have_gyro)
        k->last_heading = heading; /* (a frame without it keeps the last) */
    k->last_time = now;
    k->have_last = true;

    bw_base_frame_ok(b, now);
    /* As the reference driver does: the command goes out after every
     * feedback frame, so the robot's watchdog never starves. */
    send_command(b, now);
}

static void on_input(bw_base_t *b, const uint8_t *data, size_t n, double now)
{
    kobuki_drv_t *k = D(b);
    bw_kobuki_frame_t f;
    int rc;
    while (b->port && (rc = bw_kobuki_parse(&k->parser, &data, &n, &f)) != 0)
        if (rc > 0)
            on_frame(b, &f, now);
    b->st.link = k->parser.stats;
    bw_parse_stats_add(&b->st.link, &k->sub_stats);
}

static void on_tick(bw_base_t *b, double now)
{
    kobuki_drv_t *k = D(b);
    if (b->st.online && !b->st.firmware[0] && now >= k->next_version_request)
        request_versions(b, now);
}

const bw_driver_ops_t bw_kobuki_driver_ops = {
    .family = "kobuki",
    .size = sizeof(kobuki_drv_t),
    .caps = BW_CAP_DRIVE | BW_CAP_ODOMETRY | BW_CAP_GYRO | BW_CAP_BUMPERS | BW_CAP_CLIFFS |
            BW_CAP_WHEEL_DROPS | BW_CAP_BUTTONS | BW_CAP_BATTERY | BW_CAP_CHARGING |
            BW_CAP_DOCK_IR | BW_CAP_STALL | BW_CAP_VERSION,
    .max_v = 0.7,       /* Kobuki: 70 cm/s and 180 deg/s */
    .max_w = BW_PI,
    .link_timeout = 0.100,
    .baud = 115200,
    .init = NULL,
    .on_open = on_open,
    .on_input = on_input,
    .on_tick = on_tick,
    .on_drive = on_drive,
    .stop_bytes = stop_bytes,
    .on_close = NULL,
    .next_deadline = NULL,
};
