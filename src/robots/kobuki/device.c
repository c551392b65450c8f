/* The emulated Kobuki: the robot's own program (program.c) on the shared
 * sim, which gives it its sensors and moves its wheels. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/device_internal.h"
#include "botwire/kobuki.h"

#define FEEDBACK_PERIOD 0.020  /* 50 Hz */
#define GYRO_RATE_HZ 108.0     /* L3G4200D output rate: 2-3 samples a frame */
#define DEFAULT_CMD_TIMEOUT (BW_KOBUKI_ROBOT_TIMEOUT_MS / 1000.0)
#define NOMINAL_SLIP 0.01
#define NOMINAL_ENCODER_NOISE 0.002
/* Arbitrary power-on encoder counts, so the host's 16-bit wrap handling is
 * exercised within minutes rather than never. */
#define ENC_LEFT_AT_BOOT 65000u
#define ENC_RIGHT_AT_BOOT 500u
#define PSD_FLOOR 2100   /* cliff ADC over the floor */
#define PSD_DROP 150     /* ... and over a drop */
#define DOCK_RANGE 2.5   /* m, IR reach */
#define DOCK_NEAR 0.8    /* m, near field */

typedef struct {
    bw_kobuki_parser_t parser;
    bw_kobuki_robot_t robot; /* the robot's program */
    bw_kobuki_device_io_t io; /* what the host set, as the program holds it */
    double t0;
    unsigned long frames;   /* feedback frames sent */
    double heading0;        /* true heading at power-on: the gyro's zero */
    unsigned long gyro_samples; /* raw gyro samples sent */
} kobuki_dev_t;

static kobuki_dev_t *K(const bw_device_t *d) { return d->priv; }

/* bw_kobuki_device_io's view of what the program holds. */
static void sync_io(kobuki_dev_t *k)
{
    const bw_kobuki_robot_t *r = &k->robot;
    k->io = (bw_kobuki_device_io_t){ r->gp_output,   r->gp_outputs, r->sound_sequence,
                                     r->sound_note,  r->sound_duration, r->sounds,
                                     r->gain,        r->command,    { r->udid[0], r->udid[1],
                                                                      r->udid[2] } };
}

static int init(bw_device_t *d, const bw_device_options_t *o, double t0, char *err, size_t errlen)
{
    kobuki_dev_t *k = K(d);
    if (o->model && *o->model && strcmp(o->model, "kobuki") != 0) {
        if (err)
            snprintf(err, errlen, "no Kobuki model \"%s\" (there is only \"kobuki\")", o->model);
        return BW_EUNKNOWN;
    }
    /* The default body is Kobuki-sized; only the noise is the model's own. */
    bw_body_params_t *p = &d->sim.body.prm;
    p->slip = NOMINAL_SLIP * o->noise;
    p->encoder_noise = NOMINAL_ENCODER_NOISE * o->noise;
    p->seed = o->seed ? o->seed : 1;
    /* The small battery's 1.5 hours from empty to full (docs/kobuki.md). */
    p->charge_rate = (p->battery_full - p->battery_empty) / (1.5 * 3600);
    d->sim.rng = p->seed;
    bw_kobuki_parser_init(&k->parser);
    k->t0 = t0;
    k->heading0 = d->sim.body.pose.theta;
    double timeout = o->command_timeout == 0 ? DEFAULT_CMD_TIMEOUT : o->command_timeout;
    const uint32_t udid[3] = { 0x4B4F4255u /* "KOBU" */, (uint32_t)p->seed,
                               (uint32_t)(p->seed >> 32) };
    /* in the program's ms: a timeout under one is one, not never (0) */
    uint32_t timeout_ms = timeout > 0 ? (uint32_t)fmax(1, (double)llround(timeout * 1000)) : 0;
    bw_kobuki_robot_init(&k->robot, 0, timeout_ms, udid);
    sync_io(k);
    return 0;
}

/* The program's clock: ms since power-on. */
static uint32_t ms_of(const kobuki_dev_t *k, double t)
{
    return (uint32_t)(uint64_t)llround((t - k->t0) * 1000.0);
}

/* The wheels to the command in force. */
static void set_wheels(bw_device_t *d)
{
    double l, r;
    bw_kobuki_base_control_to_wheels(K(d)->robot.command, &l, &r);
    bw_sim_set_wheels(&d->sim, l / 1000.0, r / 1000.0);
}

static void handle(bw_device_t *d, const bw_kobuki_msg_t *m, double now)
{
    kobuki_dev_t *k = K(d);
    int rc = bw_kobuki_robot_command(&k->robot, m, ms_of(k, now));
    if (rc == BW_EUNKNOWN)
        bw_device_unknown(d, m->id); /* counted by its number */
    else if (rc == 0)
        bw_device_ignored(d, m->id); /* feedback sent by a host */
    else if (m->type == BW_KOBUKI_BASE_CONTROL)
        set_wheels(d);
    sync_io(k);
}

static void input(bw_device_t *d, const uint8_t *data, size_t n, double now)
{
    kobuki_dev_t *k = K(d);
    bw_kobuki_frame_t f;
    int rc;
    while ((rc = bw_kobuki_parse(&k->parser, &data, &n, &f)) != 0) {
        if (rc < 0)
            continue;
        bw_kobuki_iter_t it;
        bw_kobuki_msg_t m;
        bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_HOST, NULL);
        while ((rc = bw_kobuki_iter_next(&it, &m)) != 0) {
            if (rc > 0)
                handle(d, &m, now);
            else
                bw_device_malformed(d);
        }
    }
    bw_device_link_stats(d, &k->parser.stats);
}

/* Stops a robot whose host has gone quiet. */
static void watchdog(bw_device_t *d, double now)
{
    kobuki_dev_t *k = K(d);
    if (bw_kobuki_robot_watch(&k->robot, ms_of(k, now))) {
        set_wheels(d);
        sync_io(k);
    }
}

static int16_t sat16(double x)
{
    if (x >= 32767.0)
        return INT16_MAX;
    if (x <= -32768.0)
        return INT16_MIN;
    return (int16_t)lround(x);
}

static uint8_t sat_u8(double x)
{
    return x <= 0 ? 0 : x >= 255 ? 255 : (uint8_t)lround(x);
}

static uint8_t bumper_bits(const bw_body_t *b)
{
    /* Three bumpers across the front half; contact behind touches none. */
    const double a = b->contact_angle;
    if (!b->contact || fabs(a) > BW_PI / 2)
        return 0;
    if (a > BW_PI / 6)
        return BW_KOBUKI_BUMPER_LEFT;
    if (a < -BW_PI / 6)
        return BW_KOBUKI_BUMPER_RIGHT;
    return BW_KOBUKI_BUMPER_CENTRAL;
}

/* Each Kobuki dock's three emitters split the space in front of it into
 * left, central and right regions, each near or far; each of the robot's
 * three receivers sees a dock when it lies within 60 degrees either side
 * of it. Two docks in sight: a receiver hears both (their bits ORed). */
static bw_kobuki_docking_ir_t docking_ir(const bw_device_t *d)
{
    bw_kobuki_docking_ir_t ir = { 0, 0, 0 };
    const bw_world_t *w = d->sim.world;
    const bw_pose_t *pose = &d->sim.body.pose;
    for (size_t k = 0; w && k < w->ndocks; k++) {
        const bw_dock_t *dock = &w->docks[k];
        if (!bw_dock_serves(dock, "kobuki"))
            continue;
        double dist, a, bearing;
        if (!bw_dock_seen_from(dock, *pose, DOCK_RANGE, &dist, &a, &bearing))
            continue;
        bool near = dist < DOCK_NEAR;
        uint8_t sig;
        if (fabs(a) < 0.1)
            sig = near ? BW_KOBUKI_DOCK_NEAR_CENTER : BW_KOBUKI_DOCK_FAR_CENTER;
        else if (a > 0)
            sig = near ? BW_KOBUKI_DOCK_NEAR_LEFT : BW_KOBUKI_DOCK_FAR_LEFT;
        else
            sig = near ? BW_KOBUKI_DOCK_NEAR_RIGHT : BW_KOBUKI_DOCK_FAR_RIGHT;
        const double fov = BW_PI / 3;
        if (fabs(bearing) < fov)
            ir.central |= sig;
        if (bearing > 0 && bearing < 2 * fov)
            ir.left |= sig;
        if (bearing < 0 && bearing > -2 * fov)
            ir.right |= sig;
    }
    return ir;
}

/* What the robot's sensors read at t, from the simulated body. */
static void emit_feedback(bw_device_t *d, double t)
{
    kobuki_dev_t *k = K(d);
    const bw_body_t *b = &d->sim.body;
    const bw_body_params_t *p = &b->prm;
    bw_kobuki_robot_inputs_t in;
    memset(&in, 0, sizeof in);
    bool moving_cmd = k->robot.command.speed != 0;
    in.timestamp_ms = (uint16_t)(unsigned long)llround((t - k->t0) * 1000.0);
    in.bumper = bumper_bits(b);
    in.wheel_drop = (uint8_t)((b->drop_right ? BW_KOBUKI_WHEEL_DROP_RIGHT : 0) |
                              (b->drop_left ? BW_KOBUKI_WHEEL_DROP_LEFT : 0));
    /* Sim cliff sensors: 0 front-left, 1 front, 2 front-right. */
    in.cliff = (uint8_t)(((b->cliff & 1u) ? BW_KOBUKI_CLIFF_LEFT : 0) |
                         ((b->cliff & 2u) ? BW_KOBUKI_CLIFF_CENTRAL : 0) |
                         ((b->cliff & 4u) ? BW_KOBUKI_CLIFF_RIGHT : 0));
    in.left_encoder = (uint16_t)(ENC_LEFT_AT_BOOT + (uint64_t)(int64_t)floor(b->odo_left / BW_KOBUKI_M_PER_TICK));
    in.right_encoder = (uint16_t)(ENC_RIGHT_AT_BOOT + (uint64_t)(int64_t)floor(b->odo_right / BW_KOBUKI_M_PER_TICK));
    in.left_pwm = (int8_t)sat16(fmax(-127, fmin(127, 127 * b->cmd_left / p->max_wheel_speed)));
    in.right_pwm = (int8_t)sat16(fmax(-127, fmin(127, 127 * b->cmd_right / p->max_wheel_speed)));
    if (b->docked)
        in.charger = b->battery >= p->battery_full - 0.05 ? BW_KOBUKI_CHARGER_DOCKING_CHARGED
                                                          : BW_KOBUKI_CHARGER_DOCKING_CHARGING;
    in.battery = sat_u8(b->battery * 10.0);
    bool straining = b->blocked && moving_cmd;
    in.overcurrent = straining ? (BW_KOBUKI_OVERCURRENT_LEFT | BW_KOBUKI_OVERCURRENT_RIGHT) : 0;
    in.docking_ir = docking_ir(d);
    double heading_cdeg = bw_angle_norm(b->pose.theta - k->heading0) * 18000.0 / BW_PI;
    in.angle = sat16(heading_cdeg >= 17999.5 ? heading_cdeg - 36000.0 : heading_cdeg);
    in.angle_rate = sat16(b->w * 18000.0 / BW_PI);
    in.cliff_adc[0] = (b->cliff & 1u) ? PSD_DROP : PSD_FLOOR;
    in.cliff_adc[1] = (b->cliff & 2u) ? PSD_DROP : PSD_FLOOR + 20;
    in.cliff_adc[2] = (b->cliff & 4u) ? PSD_DROP : PSD_FLOOR - 15;
    in.current[0] = straining ? 200 : sat_u8(5 + 100 * fabs(b->left));
    in.current[1] = straining ? 200 : sat_u8(5 + 100 * fabs(b->right));
    unsigned long due = (unsigned long)floor((t - k->t0) * GYRO_RATE_HZ + 1e-9);
    unsigned n = (unsigned)(due - k->gyro_samples);
    if (n > 3)
        n = 3;
    k->gyro_samples = due;
    in.gyro_samples = (uint8_t)n;
    int16_t z = sat16(b->w * (180.0 / BW_PI) / BW_KOBUKI_GYRO_DPS_PER_DIGIT);
    for (unsigned i = 0; i < n; i++)
        in.gyro[i][2] = z;
    uint8_t frame[BW_KOBUKI_ROBOT_REPORT_MAX];
    size_t len = bw_kobuki_robot_report(&k->robot, &in, frame, sizeof frame);
    if (len > 0)
        bw_device_emit(d, frame, len);
}

static double frame_time(const kobuki_dev_t *k, unsigned long i)
{
    return k->t0 + (double)(i + 1) * FEEDBACK_PERIOD;
}

static void step(bw_device_t *d, double now)
{
    kobuki_dev_t *k = K(d);
    for (double t; (t = frame_time(k, k->frames)) <= now + 1e-9; k->frames++) {
        bw_sim_step_to(&d->sim, t);
        watchdog(d, t);
        emit_feedback(d, t);
    }
    bw_sim_step_to(&d->sim, now);
    watchdog(d, now);
}

static double next_deadline(const bw_device_t *d)
{
    return frame_time(K(d), K(d)->frames);
}

const bw_kobuki_device_io_t *bw_kobuki_device_io(const bw_device_t *d)
{
    return d && d->ops == &bw_kobuki_device_ops ? &K(d)->io : NULL;
}

static void reset_line(bw_device_t *d)
{
    kobuki_dev_t *k = K(d);
    bw_kobuki_frame_t f;
    while (bw_kobuki_parser_finish(&k->parser, &f) != 0)
        ;
    bw_device_link_stats(d, &k->parser.stats);
}

static const char *command_name(unsigned id)
{
    bw_kobuki_type_t t = bw_kobuki_type_of(BW_KOBUKI_FROM_HOST, (uint8_t)id);
    return t == BW_KOBUKI_UNKNOWN ? NULL : bw_kobuki_type_name(t);
}

const bw_device_ops_t bw_kobuki_device_ops = {
    .family = "kobuki",
    .size = sizeof(kobuki_dev_t),
    .init = init,
    .input = input,
    .step = step,
    .next_deadline = next_deadline,
    .reset_line = reset_line,
    .link = NULL,
    .command_name = command_name,
    .dock_family = "kobuki",
};
