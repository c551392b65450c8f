/* The Kobuki host driver: feedback to the robot model, twist to Base Control. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/base_internal.h"
#include "botwire/kobuki.h"

#define VERSION_RETRY 0.5 /* s between requests until the versions arrive */
/* Requests of the controller's gains after an open, at most: a firmware
 * that does not answer them is not asked forever. */
#define GAIN_REQUESTS 5
/* What a Kobuki can do between two frames, with room to spare: its wheels
 * and gyro at half again their top speeds, a volt of battery, the firmware's
 * clock never ahead of ours by more than a second, nor going back. Beyond
 * it a frame is corrupt. Its clock may fall behind ours without limit: a
 * host held back (or a USB adapter that holds bytes) reads frames the
 * robot made on time, late and then at once. */
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
    unsigned gain_requests; /* since the port was opened */
    /* The wheel counters, unwrapped: the last raw values taken. */
    bool have_counts;
    uint16_t count_left, count_right;
    /* General Purpose Output: the digital outputs, external power and both
     * LEDs are one command, so what the host set of each is kept here and
     * the whole goes out each time one part changes. */
    uint16_t gpo;
    bool gpo_set;   /* the host has set some of it since the base opened */
    bool gpo_again; /* ...to be sent again: the port was reopened */
} kobuki_drv_t;

static kobuki_drv_t *D(const bw_base_t *b) { return b->drv; }

static void send_msg(bw_base_t *b, const bw_kobuki_msg_t *m, double now)
{
    uint8_t frame[32];
    int n = bw_kobuki_encode_frame(frame, sizeof frame, m, 1);
    if (n > 0)
        bw_base_send(b, frame, (size_t)n, now);
}

static void request_gains(bw_base_t *b, double now)
{
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_GET_CONTROLLER_GAIN);
    send_msg(b, &m, now);
}

/* What the robot says only when asked: its versions and unique id (one
 * request, as the reference driver makes it), and its gains. */
static bool extras_missing(const bw_base_t *b)
{
    return !b->st.firmware[0] || !b->st.hardware[0] || !b->st.unique_id[0] ||
           (!b->st.gains.known && D(b)->gain_requests < GAIN_REQUESTS);
}

static void request_versions(bw_base_t *b, double now)
{
    kobuki_drv_t *k = D(b);
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_REQUEST_EXTRA);
    m.u.request_extra.flags = BW_KOBUKI_EXTRA_HARDWARE_VERSION | BW_KOBUKI_EXTRA_FIRMWARE_VERSION |
                              BW_KOBUKI_EXTRA_UDID;
    send_msg(b, &m, now);
    if (!b->st.gains.known && k->gain_requests < GAIN_REQUESTS) {
        k->gain_requests++;
        request_gains(b, now);
    }
    k->next_version_request = now + VERSION_RETRY;
}

static void send_gpo(bw_base_t *b, double now)
{
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_GENERAL_PURPOSE_OUTPUT);
    m.u.general_purpose_output.flags = D(b)->gpo;
    send_msg(b, &m, now);
    D(b)->gpo_again = false;
}

static void on_open(bw_base_t *b, double now)
{
    kobuki_drv_t *k = D(b);
    bw_kobuki_parser_init(&k->parser);
    memset(&k->sub_stats, 0, sizeof k->sub_stats);
    k->have_last = false; /* the robot may have restarted: new baselines, same pose */
    k->have_offset = false;
    k->gain_requests = 0;
    /* ...and forgotten the LEDs and outputs: they go again with its first
     * frame. */
    k->gpo_again = k->gpo_set;
    b->st.counts_per_m = 1.0 / BW_KOBUKI_M_PER_TICK;
    b->st.wheel_radius = BW_KOBUKI_WHEEL_RADIUS_M;
    b->st.nbump_switches = 3;
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

/* The pose went back to 0: the heading goes on from 0 (the gyro's is the
 * heading plus the offset). */
static void reset_pose(bw_base_t *b, double old_theta)
{
    kobuki_drv_t *k = D(b);
    k->gyro_offset = bw_angle_norm(k->gyro_offset + old_theta);
}

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

/* The seed's docking IR flags as the base's (the same meanings, each
 * mapped by name rather than trusted to share a value). */
static uint8_t dock_bits(uint8_t wire)
{
    static const uint8_t map[][2] = {
        { BW_KOBUKI_DOCK_NEAR_LEFT, BW_DOCK_NEAR_LEFT },
        { BW_KOBUKI_DOCK_NEAR_CENTER, BW_DOCK_NEAR_CENTER },
        { BW_KOBUKI_DOCK_NEAR_RIGHT, BW_DOCK_NEAR_RIGHT },
        { BW_KOBUKI_DOCK_FAR_CENTER, BW_DOCK_FAR_CENTER },
        { BW_KOBUKI_DOCK_FAR_LEFT, BW_DOCK_FAR_LEFT },
        { BW_KOBUKI_DOCK_FAR_RIGHT, BW_DOCK_FAR_RIGHT },
    };
    uint8_t out = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (wire & map[i][0])
            out |= map[i][1];
    return out;
}

static void take_gains(bw_base_state_t *st, const bw_kobuki_gain_t *g)
{
    /* The seed's units: "Kp * 1000", "Ki * 1000", "Kd * 1000". */
    st->gains.known = true;
    st->gains.user = g->gain_type == BW_KOBUKI_GAIN_USER;
    st->gains.p = g->p_gain / 1000.0;
    st->gains.i = g->i_gain / 1000.0;
    st->gains.d = g->d_gain / 1000.0;
}

/* The robot's 16-bit wheel counters carried on past their wrap. */
static void take_counts(bw_base_t *b, uint16_t left, uint16_t right)
{
    kobuki_drv_t *k = D(b);
    if (!k->have_counts) {
        b->st.encoder[0] = left;
        b->st.encoder[1] = right;
        k->have_counts = true;
    } else {
        b->st.encoder[0] += bw_wrap_delta16(left, k->count_left);
        b->st.encoder[1] += bw_wrap_delta16(right, k->count_right);
    }
    k->count_left = left;
    k->count_right = right;
}

/* One feedback frame: the core data and the gyro heading of the same frame
 * make one odometry step. */
static void on_frame(bw_base_t *b, const bw_kobuki_frame_t *f, double now)
{
    kobuki_drv_t *k = D(b);
    bw_base_state_t *st = &b->st;
    bw_kobuki_iter_t it;
    bw_kobuki_msg_t m;
    bool have_core = false, have_gyro = false, have_dock = false;
    bw_kobuki_basic_sensor_data_t core = { 0 };
    bw_kobuki_docking_ir_t dock = { 0, 0, 0 };
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
        case BW_KOBUKI_DOCKING_IR:
            dock = m.u.docking_ir;
            have_dock = true;
            break;
        case BW_KOBUKI_UNIQUE_DEVICE_ID:
            /* As kobuki_core writes it: <UDID0>-<UDID1>-<UDID2>, decimal. */
            snprintf(st->unique_id, sizeof st->unique_id, "%lu-%lu-%lu",
                     (unsigned long)m.u.unique_device_id.udid0,
                     (unsigned long)m.u.unique_device_id.udid1,
                     (unsigned long)m.u.unique_device_id.udid2);
            break;
        case BW_KOBUKI_CONTROLLER_INFO: take_gains(st, &m.u.controller_info); break;
        default: break;
        }
    }
    if (!have_core)
        return;
    /* The robot never sends a mis-sized sub-payload: a frame holding one
     * passed its checksum damaged. */
    malformed = k->sub_stats.length_errors - malformed;
    if (k->have_last) {
        int stamp = bw_wrap_delta16(core.timestamp, k->last_stamp);
        double host_ms = (now - k->last_time) * 1000;
        bool slipped = stamp < 0 || stamp > host_ms + STAMP_SLIP;
        /* The robot's own time between the frames, where it is believable:
         * frames read at once after a host was held back are each 20 ms of
         * the robot's motion, not none. */
        double dt = fmax(now - k->last_time, slipped ? 0 : stamp / 1000.0) + SLACK;
        double ticks = (b->ops->max_v * SPARE * dt / BW_KOBUKI_M_PER_TICK) + 20;
        int dl = bw_wrap_delta16(core.left_encoder, k->last_left);
        int dr = bw_wrap_delta16(core.right_encoder, k->last_right);
        bool gyro_jump = have_gyro && k->have_offset &&
                         fabs(bw_angle_diff(heading, k->last_heading)) > b->ops->max_w * SPARE * dt;
        bool bad = malformed || abs(dl) > ticks || abs(dr) > ticks ||
                   abs((int)core.battery - (int)k->last_battery) > BATTERY_JUMP || slipped ||
                   gyro_jump;
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
    /* Switch i is bit i of the seed's bumper byte: 0 right, 1 central, 2 left. */
    st->bump_switches = core.bumper & (BW_KOBUKI_BUMPER_RIGHT | BW_KOBUKI_BUMPER_CENTRAL |
                                       BW_KOBUKI_BUMPER_LEFT);
    if (have_dock) {
        /* The seed's order on the wire: right, central, left signal. */
        st->dock_ir[0] = dock_bits(dock.right);
        st->dock_ir[1] = dock_bits(dock.central);
        st->dock_ir[2] = dock_bits(dock.left);
    }
    st->wheel_drops = ((core.wheel_drop & BW_KOBUKI_WHEEL_DROP_LEFT) ? BW_DROP_LEFT : 0u) |
                      ((core.wheel_drop & BW_KOBUKI_WHEEL_DROP_RIGHT) ? BW_DROP_RIGHT : 0u);
    st->buttons = core.button;
    st->battery = core.battery / 10.0;
    st->battery_fraction =
        st->battery > 0 ? fmax(0, fmin(1, (st->battery - BW_KOBUKI_BATTERY_EMPTY_V) /
                                              (BW_KOBUKI_BATTERY_FULL_V - BW_KOBUKI_BATTERY_EMPTY_V)))
                        : 0;
    st->charging = charge_state(core.charger);
    /* its state's bits: 0x10 the adapter's, else the dock's */
    st->charge_sources = core.charger == BW_KOBUKI_CHARGER_DISCHARGING ? 0u
                         : (core.charger & 0x10)                       ? BW_SOURCE_INTERNAL
                                                                       : BW_SOURCE_DOCK;
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
    take_counts(b, core.left_encoder, core.right_encoder);
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
    if (k->gpo_again)
        send_gpo(b, now);
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
    if (b->st.online && extras_missing(b) && now >= k->next_version_request)
        request_versions(b, now);
}

/* ---- the extras: LEDs, outputs, sounds, gains ---------------------------- */

static int led(bw_base_t *b, unsigned index, bw_led_t colour, double now)
{
    /* The seed: "0x0100 for red colour of LED1 0x0200 for green colour of
     * LED1 0x0400 for red colour of LED2 0x0800 for green colour of LED2";
     * orange is both, as kobuki_core lights it. */
    if (index < 1 || index > 2)
        return BW_EINVAL;
    uint16_t red = index == 1 ? BW_KOBUKI_GPO_LED1_RED : BW_KOBUKI_GPO_LED2_RED;
    uint16_t green = index == 1 ? BW_KOBUKI_GPO_LED1_GREEN : BW_KOBUKI_GPO_LED2_GREEN;
    uint16_t on = colour == BW_LED_RED      ? red
                  : colour == BW_LED_GREEN  ? green
                  : colour == BW_LED_ORANGE ? (uint16_t)(red | green)
                                            : 0;
    kobuki_drv_t *k = D(b);
    k->gpo = (uint16_t)((k->gpo & ~(red | green)) | on);
    k->gpo_set = true;
    send_gpo(b, now);
    return 0;
}

static int outputs(bw_base_t *b, uint32_t mask, double now)
{
    /* Bits 0-3 the digital outputs, 4-7 the external power channels (3.3 V,
     * 5 V, 12 V/5 A, 12 V/1.5 A), as the seed's flags are. */
    if (mask & ~(uint32_t)(BW_KOBUKI_GPO_OUTPUTS | BW_KOBUKI_GPO_POWER_3V3 |
                           BW_KOBUKI_GPO_POWER_5V | BW_KOBUKI_GPO_POWER_12V_5A |
                           BW_KOBUKI_GPO_POWER_12V_1A5))
        return BW_EINVAL;
    kobuki_drv_t *k = D(b);
    k->gpo = (uint16_t)((k->gpo & 0xFF00u) | mask);
    k->gpo_set = true;
    send_gpo(b, now);
    return 0;
}

static int sound(bw_base_t *b, unsigned sequence, double now)
{
    if (sequence > BW_KOBUKI_SOUND_CLEANING_END)
        return BW_EINVAL;
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_SOUND_SEQUENCE);
    m.u.sound_sequence.sequence = (uint8_t)sequence;
    send_msg(b, &m, now);
    return 0;
}

static int tone(bw_base_t *b, double hz, double seconds, double now)
{
    /* The note is 1 / (f a), a = 0.00000275 (the seed); the duration a byte
     * of milliseconds: a Kobuki tone is 255 ms at most. */
    uint16_t note = bw_kobuki_note_from_hz(hz);
    long ms = lround(seconds * 1000);
    if (note == 0 || ms < 1 || ms > 255)
        return BW_EINVAL;
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_SOUND);
    m.u.sound = (bw_kobuki_sound_t){ note, (uint8_t)ms };
    send_msg(b, &m, now);
    return 0;
}

static int gain_wire(double k, uint32_t *out)
{
    double v = round(k * 1000);
    if (!(v >= 0 && v <= 4294967295.0))
        return BW_EINVAL;
    *out = (uint32_t)v;
    return 0;
}

static int set_gains(bw_base_t *b, const bw_gains_t *g, double now)
{
    bw_kobuki_msg_t m;
    bw_kobuki_msg_init(&m, BW_KOBUKI_SET_CONTROLLER_GAIN);
    bw_kobuki_gain_t *w = &m.u.set_controller_gain;
    if (g->user) {
        w->gain_type = BW_KOBUKI_GAIN_USER;
        if (gain_wire(g->p, &w->p_gain) < 0 || gain_wire(g->i, &w->i_gain) < 0 ||
            gain_wire(g->d, &w->d_gain) < 0)
            return BW_EINVAL;
    } else {
        /* Back to the factory's: its type, and its values as the seed has them. */
        *w = (bw_kobuki_gain_t){ BW_KOBUKI_GAIN_FACTORY, BW_KOBUKI_GAIN_P_DEFAULT,
                                 BW_KOBUKI_GAIN_I_DEFAULT, BW_KOBUKI_GAIN_D_DEFAULT };
    }
    send_msg(b, &m, now);
    /* The robot says nothing of a set: its answer to the request is what
     * state.gains shows. */
    request_gains(b, now);
    return 0;
}

static int request_gains_op(bw_base_t *b, double now)
{
    request_gains(b, now);
    return 0;
}

const bw_driver_ops_t bw_kobuki_driver_ops = {
    .family = "kobuki",
    .size = sizeof(kobuki_drv_t),
    .caps = BW_CAP_DRIVE | BW_CAP_ODOMETRY | BW_CAP_GYRO | BW_CAP_BUMPERS | BW_CAP_CLIFFS |
            BW_CAP_WHEEL_DROPS | BW_CAP_BUTTONS | BW_CAP_BATTERY | BW_CAP_CHARGING |
            BW_CAP_DOCK_IR | BW_CAP_STALL | BW_CAP_VERSION | BW_CAP_ENCODERS |
            BW_CAP_BUMP_SWITCHES | BW_CAP_LEDS | BW_CAP_SOUND | BW_CAP_OUTPUTS | BW_CAP_GAINS |
            BW_CAP_UNIQUE_ID,
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
    .reset_pose = reset_pose,
    .next_deadline = NULL,
    .led = led,
    .sound = sound,
    .tone = tone,
    .outputs = outputs,
    .set_gains = set_gains,
    .request_gains = request_gains_op,
};
