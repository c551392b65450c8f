/* The emulated RoboBuggy: the Arduino Mega (steering, brake, the RC/auton
 * switch, the battery) and the drive encoder, on one link, as the deployed
 * buggy wires them (the Mega reads the encoder). Each loop, every 10 ms,
 * each device names itself (device_id) and sends its messages:
 *
 *   device_id mega, mega_steer_angle (the angle commanded), mega_steer_feedback
 *   (the angle the servo reached), mega_brake_state, mega_auton_state; every
 *   tenth loop also mega_battery_level (mV) and error (the error word);
 *   device_id drive_encoder, enc_ticks_last, enc_ticks_reset, enc_timestamp.
 *
 * The deployed variant (--model deployed) speaks the deployed firmware's
 * dialect: hundredths of a degree, 1 = brake engaged, id 19 a steering word
 * and id 18 the brake, and every tenth loop its extra telemetry (17, 18, 30,
 * 253).
 *
 * The buggy has no motor. It stands braked until the host releases the
 * brake; then a pusher runs it up to the push speed and lets go, and it
 * coasts (rolling resistance, the course's slope) until the brake stops it
 * or a wall does. Steering sets the curvature: a bicycle with 1.13 m between
 * its axles, the pose at the rear axle. The servo turns at a limited rate.
 *
 * In autonomous mode the host's steering and brake commands must keep
 * coming: one second without them drops the brake and sets the auton-lost
 * bit of the error word, and the brake stays down until the host commands
 * it down itself (the deployed firmware waits for the RC operator's brake).
 * With the RC switch on the operator drives: the host's commands are read
 * and not obeyed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/device_internal.h"
#include "../../sim/rng.h"
#include "botwire/rbsm.h"

#define LOOP 0.010           /* s: the Mega's loop */
#define SLOW_EVERY 10        /* loops between the slow telemetry */
#define WATCHDOG 1.0         /* s of host silence in auton before the brake drops */
#define STEER_RATE 120.0     /* degrees/s the steering servo turns at most */
#define PUSH_ACCEL 2.0       /* m/s^2 while pushed */
#define DEFAULT_PUSH 3.0     /* m/s the pusher lets go at */
#define ROLLING 0.05         /* m/s^2 rolling resistance */
#define BRAKE_DECEL 4.0      /* m/s^2 with the brake down */
#define GRAVITY 9.81
#define BODY_RADIUS 0.45     /* m: the collision circle around the rear axle */
#define VOLTS_FULL 12.6
#define VOLTS_EMPTY 11.0

typedef struct {
    bw_rbsm_parser_t parser;
    bw_rbsm_variant_t variant;
    bool deployed;
    double t0;
    unsigned long loops;
    /* Commands, and when they last came. */
    double steer_cmd;        /* rad, as commanded (clamped) */
    bool brake_cmd;          /* the host wants the brake down */
    double last_steer, last_brake;
    bool needs_reset;        /* the watchdog dropped the brake */
    /* The buggy. */
    bool rc;                 /* the operator drives */
    bool rc_brake;           /* ...holding the brake down */
    double steer;            /* rad, the servo's angle */
    double v;                /* m/s along the heading */
    bool pushing;
    double push, slope;      /* m/s, rad */
    /* The encoder. */
    double enc_dist;         /* m rolled since reset (the encoder counts either way) */
    uint32_t ticks_sent;     /* enc_ticks_reset in the last message */
    double last_odo;         /* body odometry already counted, m */
    uint32_t errors;         /* the error word */
    uint32_t errors_sent;
    double pot_noise;        /* rad, the steering feedback's standard deviation */
    uint64_t rng;
} rbsm_dev_t;

static rbsm_dev_t *R(const bw_device_t *d) { return d->priv; }

/* A lot 60 m x 40 m with a few cones, room for a buggy's circles. */
static void default_world(bw_world_t *w)
{
    bw_world_init(w);
    (void)bw_world_add_box(w, 0.0, 0.0, 60.0, 40.0);
    (void)bw_world_add_box(w, 40.0, 8.0, 41.0, 9.0);
    (void)bw_world_add_box(w, 40.0, 31.0, 41.0, 32.0);
    w->start = (bw_pose_t){ 10.0, 20.0, 0.0 };
    (void)bw_world_add_label(w, (bw_vec2_t){ 40.5, 9.6 }, "cone");
    (void)bw_world_add_label(w, (bw_vec2_t){ 40.5, 32.6 }, "cone");
}

static double time_of(const rbsm_dev_t *r, unsigned long loop) { return r->t0 + (double)loop * LOOP; }

static int init(bw_device_t *d, const bw_device_options_t *o, double t0, char *err,
                size_t errlen)
{
    rbsm_dev_t *r = R(d);
    if (o->model && *o->model && strcmp(o->model, "seed") != 0 &&
        strcmp(o->model, "deployed") != 0) {
        if (err)
            snprintf(err, errlen, "no RBSM variant \"%s\" (seed, deployed)", o->model);
        return BW_EUNKNOWN;
    }
    if (!(o->push >= 0 && o->push <= 15) || !(fabs(o->slope) <= 20)) {
        if (err)
            snprintf(err, errlen, "push %g m/s or slope %g degrees out of range (0..15, -20..20)",
                     o->push, o->slope);
        return BW_EINVAL;
    }
    r->deployed = o->model && strcmp(o->model, "deployed") == 0;
    r->variant = r->deployed ? BW_RBSM_VARIANT_DEPLOYED : BW_RBSM_VARIANT_SEED;
    r->push = o->push > 0 ? o->push : DEFAULT_PUSH;
    r->slope = o->slope * BW_PI / 180;
    bw_body_params_t *b = &d->sim.body.prm;
    b->wheelbase = 0.6; /* the rear wheels' track: the body's turn comes from v and the curvature */
    b->radius = BODY_RADIUS;
    b->max_wheel_speed = 20;
    b->max_accel = 0; /* the speed is the buggy's physics here, not a motor's */
    b->ncliff = 0;
    b->slip = 0.005 * o->noise;
    b->encoder_noise = 0.002 * o->noise;
    b->seed = o->seed ? o->seed : 1;
    b->battery_full = VOLTS_FULL;
    b->battery_empty = VOLTS_EMPTY;
    b->drain_idle = 0.0001;
    b->drain_motion = 0;
    d->sim.body.battery = VOLTS_FULL;
    d->sim.rng = b->seed;
    bw_rbsm_parser_init(&r->parser);
    r->pot_noise = 0.1 * BW_PI / 180 * o->noise;
    r->rng = bw_rng_seed(b->seed ^ 0x5255u);
    r->t0 = t0;
    r->brake_cmd = true; /* standing braked */
    r->last_steer = r->last_brake = t0;
    r->last_odo = (d->sim.body.odo_left + d->sim.body.odo_right) / 2;
    return 0;
}

static void send(bw_device_t *d, uint8_t id, uint32_t word)
{
    uint8_t m[BW_RBSM_MSG_LEN];
    if (bw_rbsm_encode(m, sizeof m, id, word) == BW_RBSM_MSG_LEN)
        bw_device_emit(d, m, sizeof m);
}

static uint32_t steer_word(const rbsm_dev_t *r, double rad)
{
    int32_t w;
    (void)bw_rbsm_steer_from_rad(r->variant, rad, &w);
    return (uint32_t)w;
}

static bool brake_down(const rbsm_dev_t *r)
{
    if (r->rc)
        return r->rc_brake;
    return r->brake_cmd || r->needs_reset;
}

static double clamp_steer(double rad)
{
    double lim = BW_RBSM_STEER_LIMIT_DEG * BW_PI / 180;
    return rad > lim ? lim : rad < -lim ? -lim : rad;
}

static void on_steer(bw_device_t *d, double rad, double now)
{
    rbsm_dev_t *r = R(d);
    if (!isfinite(rad))
        return;
    r->steer_cmd = clamp_steer(rad);
    r->last_steer = now;
}

static void on_brake(bw_device_t *d, bool engaged, double now)
{
    rbsm_dev_t *r = R(d);
    r->brake_cmd = engaged;
    r->last_brake = now;
    if (engaged)
        r->needs_reset = false; /* the host has the brake down itself: armed again */
}

static void command(bw_device_t *d, const bw_rbsm_frame_t *f, double now)
{
    rbsm_dev_t *r = R(d);
    bw_rbsm_msg_t m;
    int rc = bw_rbsm_decode(f, &m);
    if (rc < 0) {
        bw_device_unknown(d, f->id);
        r->errors |= BW_RBSM_ERR_INVALID_MID;
        return;
    }
    switch (f->id) {
    case BW_RBSM_MID_MEGA_COMMAND:
        if (r->deployed) {
            on_steer(d, bw_rbsm_steer_to_rad(r->variant, (int32_t)f->word), now);
        } else {
            on_steer(d, bw_rbsm_steer_to_rad(r->variant, m.angle), now);
            on_brake(d, bw_rbsm_brake_engaged(r->variant, m.brake), now);
        }
        break;
    case BW_RBSM_MID_MEGA_STEER_ANGLE:
        on_steer(d, bw_rbsm_steer_to_rad(r->variant, (int32_t)f->word), now);
        break;
    case BW_RBSM_MID_BRAKE_COMMAND:
    case BW_RBSM_MID_MEGA_BRAKE_STATE:
        on_brake(d, bw_rbsm_brake_engaged(r->variant, f->word), now);
        break;
    case BW_RBSM_MID_ENC_RESET_REQUEST:
        r->enc_dist = 0;
        r->ticks_sent = 0;
        send(d, BW_RBSM_MID_ENC_RESET_CONFIRM, 1);
        break;
    default:
        /* A message of the protocol the Mega does not take from a host
         * (telemetry ids, the lighting system's). */
        bw_device_ignored(d, f->id);
        return;
    }
    /* A good message: the stream is whole again. */
    r->errors &= ~(uint32_t)(BW_RBSM_ERR_LOST_STREAM | BW_RBSM_ERR_INVALID_MID);
}

static void input(bw_device_t *d, const uint8_t *data, size_t n, double now)
{
    rbsm_dev_t *r = R(d);
    bw_rbsm_frame_t f;
    int rc;
    while ((rc = bw_rbsm_parse(&r->parser, &data, &n, &f)) != 0) {
        if (rc < 0)
            r->errors |= BW_RBSM_ERR_LOST_STREAM;
        else
            command(d, &f, now);
    }
    bw_device_link_stats(d, &r->parser.stats);
}

/* One loop of the buggy's physics and the Mega's watchdog. */
static void physics(bw_device_t *d, double now)
{
    rbsm_dev_t *r = R(d);
    bw_body_t *b = &d->sim.body;
    if (!r->rc && !r->needs_reset &&
        (now - r->last_steer > WATCHDOG || now - r->last_brake > WATCHDOG)) {
        r->needs_reset = true;
        bw_device_notice(d, "no steering or brake command for %.0f s: brake dropped", WATCHDOG);
    }
    if (r->needs_reset)
        r->errors |= BW_RBSM_ERR_AUTON_LOST;
    else
        r->errors &= ~(uint32_t)BW_RBSM_ERR_AUTON_LOST;
    /* The servo. */
    double want = r->rc ? 0 : r->steer_cmd, step = STEER_RATE * BW_PI / 180 * LOOP;
    r->steer += fmax(-step, fmin(step, want - r->steer));
    /* The push, the coast, the brake. */
    bool braked = brake_down(r);
    if (b->blocked)
        r->v = 0; /* into a wall */
    if (!braked && r->v <= 0 && !r->pushing && !b->blocked)
        r->pushing = true; /* released at rest: the pusher runs it off */
    double a = GRAVITY * sin(r->slope);
    if (r->pushing) {
        a += PUSH_ACCEL;
        if (braked || r->v >= r->push) {
            r->pushing = false;
            a -= PUSH_ACCEL;
        }
    }
    if (r->v > 0 || a > 0) {
        if (!r->pushing)
            a -= ROLLING;
        if (braked)
            a -= BRAKE_DECEL;
    }
    r->v = fmax(0, r->v + a * LOOP);
    double curvature = tan(r->steer) / BW_RBSM_WHEELBASE_M;
    bw_sim_set_twist(&d->sim, r->v, r->v * curvature);
}

static void telemetry(bw_device_t *d, double now)
{
    rbsm_dev_t *r = R(d);
    const bw_body_t *b = &d->sim.body;
    bw_rbsm_variant_t v = r->variant;
    uint32_t ms = (uint32_t)(uint64_t)llround((now - r->t0) * 1000);
    bool slow = r->loops % SLOW_EVERY == 0;
    double feedback = r->steer;
    if (r->pot_noise > 0) { /* the steering potentiometer's noise */
        double u1 = bw_rng_uniform(&r->rng), u2 = bw_rng_uniform(&r->rng);
        feedback += r->pot_noise * sqrt(-2 * log(u1)) * cos(2 * BW_PI * u2);
    }

    send(d, BW_RBSM_MID_DEVICE_ID, BW_RBSM_DID_MEGA);
    send(d, BW_RBSM_MID_MEGA_STEER_ANGLE, steer_word(r, r->rc ? 0 : r->steer_cmd));
    send(d, BW_RBSM_MID_MEGA_STEER_FEEDBACK, steer_word(r, feedback));
    send(d, BW_RBSM_MID_MEGA_BRAKE_STATE, bw_rbsm_brake_to_wire(v, brake_down(r)));
    send(d, BW_RBSM_MID_MEGA_AUTON_STATE, r->rc ? 0 : 1);
    if (slow || r->errors != r->errors_sent) {
        send(d, BW_RBSM_MID_MEGA_BATTERY_LEVEL, (uint32_t)lround(b->battery * 1000));
        send(d, BW_RBSM_MID_ERROR, r->errors);
        r->errors_sent = r->errors;
    }
    if (slow && r->deployed) {
        send(d, BW_RBSM_MID_MEGA_TELEOP_BRAKE_COMMAND, bw_rbsm_brake_to_wire(v, r->rc_brake));
        send(d, BW_RBSM_MID_BRAKE_COMMAND, bw_rbsm_brake_to_wire(v, r->brake_cmd));
        send(d, BW_RBSM_MID_MEGA_FIRMWARE_HASH, 0x0b07e00du);
        send(d, BW_RBSM_MID_MEGA_TIMESTAMP, ms);
    }
    uint32_t ticks = (uint32_t)(r->enc_dist / BW_RBSM_M_PER_TICK);
    send(d, BW_RBSM_MID_DEVICE_ID, BW_RBSM_DID_DRIVE_ENCODER);
    send(d, BW_RBSM_MID_ENC_TICKS_LAST, ticks - r->ticks_sent);
    send(d, BW_RBSM_MID_ENC_TICKS_RESET, ticks);
    send(d, BW_RBSM_MID_ENC_TIMESTAMP, ms);
    r->ticks_sent = ticks;
}

static void step(bw_device_t *d, double now)
{
    rbsm_dev_t *r = R(d);
    for (double t; (t = time_of(r, r->loops + 1)) <= now + 1e-9;) {
        r->loops++;
        bw_sim_step_to(&d->sim, t);
        const bw_body_t *b = &d->sim.body;
        double odo = (b->odo_left + b->odo_right) / 2;
        r->enc_dist += fabs(odo - r->last_odo);
        r->last_odo = odo;
        physics(d, t);
        telemetry(d, t);
    }
    bw_sim_step_to(&d->sim, now);
}

static double next_deadline(const bw_device_t *d)
{
    const rbsm_dev_t *r = R(d);
    return time_of(r, r->loops + 1);
}

static void reset_line(bw_device_t *d)
{
    rbsm_dev_t *r = R(d);
    (void)bw_rbsm_parser_finish(&r->parser);
    bw_device_link_stats(d, &r->parser.stats);
}

static const char *command_name(unsigned id)
{
    return bw_rbsm_known((uint8_t)id) ? bw_rbsm_name((uint8_t)id) : NULL;
}

int bw_rbsm_device_rc(bw_device_t *d, bool rc, bool brake_engaged)
{
    if (!d || d->ops != &bw_rbsm_device_ops)
        return BW_EINVAL;
    R(d)->rc = rc;
    R(d)->rc_brake = brake_engaged;
    return 0;
}

const bw_device_ops_t bw_rbsm_device_ops = {
    .family = "rbsm",
    .size = sizeof(rbsm_dev_t),
    .init = init,
    .input = input,
    .step = step,
    .next_deadline = next_deadline,
    .reset_line = reset_line,
    .command_name = command_name,
    .default_world = default_world,
};
