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
 * The deployed variant (--model deployed) is the RoboBuggy repository's
 * Mega firmware (radio_buggy_mega/main.cpp; rbsm.h says what it obeys):
 * hundredths of a degree to the right, 1 = brake engaged, id 19 the
 * steering word and id 18 the brake, and each loop 20, 21, 255 (device id
 * 0), 17, 18, 22, 23, 24, 1, 253, 30, 254, never 0, 2 or device id 1. Its
 * 72 bytes a loop take 12.5 ms at its 57600 baud, more than its 10 ms loop:
 * its putc waits for room in the UART's 128-byte ring, so the loop runs at
 * the line's pace, as here (every 12.5 ms once the ring has filled, the
 * 253 stamps saying so). Its brake needs re-arming from power-up and after
 * each auton timeout, which only the RC operator's brake does; the
 * emulated operator does that (puts the brake down for one loop) whenever
 * the Mega needs it and the host's commands are coming, until a caller
 * takes the RC over with bw_rbsm_device_rc.
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
 *
 * The Mega's part (commands, watchdog, telemetry) is program.c, the code
 * firmware/rbsm-mega runs on the real chip; this file is the buggy around
 * it. The model "buggy" is the buggy alone, for a Mega that runs elsewhere
 * (bw_rbsm_device_actuate, bw_rbsm_device_buggy).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/device_internal.h"
#include "../../sim/rng.h"
#include "botwire/rbsm.h"

#define LOOP (BW_RBSM_MEGA_LOOP_MS / 1000.0) /* s: the Mega's loop */
/* The deployed Mega's UART transmit ring (Fleury's uart library: 128
 * bytes, one kept free). */
#define DEPLOYED_TX_RING 127.0
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
    bw_rbsm_mega_t mega;     /* the Mega's program */
    bool alone;              /* model "buggy": no Mega here */
    double ext_steer;        /* ...the servo and brake as set from outside */
    bool ext_brake;
    double t0;
    unsigned long loops;
    double last_loop;        /* s: when the last one started */
    double next_loop;        /* s: when the next loop starts */
    double tx_free;          /* s: when the deployed Mega's UART has sent all it holds */
    bool operator_auto;      /* the emulated operator re-arms the deployed brake */
    /* The buggy. */
    bool rc;                 /* the operator drives */
    bool rc_brake;           /* ...holding the brake down */
    double steer;            /* rad, the servo's angle */
    double v;                /* m/s along the heading */
    bool braked;             /* the brake as the last loop set it */
    bool pushing;
    double push, slope;      /* m/s, rad */
    double enc_dist;         /* m rolled (the encoder counts either way) */
    double last_odo;         /* body odometry already counted, m */
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


static int init(bw_device_t *d, const bw_device_options_t *o, double t0, char *err,
                size_t errlen)
{
    rbsm_dev_t *r = R(d);
    if (o->model && *o->model && strcmp(o->model, "seed") != 0 &&
        strcmp(o->model, "deployed") != 0 && strcmp(o->model, "buggy") != 0) {
        if (err)
            snprintf(err, errlen, "no RBSM variant \"%s\" (seed, deployed, buggy)", o->model);
        return BW_EUNKNOWN;
    }
    if (!(o->push >= 0 && o->push <= 15) || !(fabs(o->slope) <= 20)) {
        if (err)
            snprintf(err, errlen, "push %g m/s or slope %g degrees out of range (0..15, -20..20)",
                     o->push, o->slope);
        return BW_EINVAL;
    }
    r->alone = o->model && strcmp(o->model, "buggy") == 0;
    bw_rbsm_mega_init(&r->mega, o->model && strcmp(o->model, "deployed") == 0, 0);
    r->operator_auto = r->mega.deployed;
    r->ext_brake = r->braked = true; /* standing braked */
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
    r->last_loop = t0;
    r->next_loop = t0 + LOOP;
    r->tx_free = t0;
    r->last_odo = (d->sim.body.odo_left + d->sim.body.odo_right) / 2;
    return 0;
}

static uint32_t ms_of(const rbsm_dev_t *r, double t)
{
    return (uint32_t)(uint64_t)llround((t - r->t0) * 1000);
}

static void command(bw_device_t *d, const bw_rbsm_frame_t *f, double now)
{
    rbsm_dev_t *r = R(d);
    uint8_t answer[BW_RBSM_MSG_LEN];
    size_t n;
    int rc = bw_rbsm_mega_command(&r->mega, f, ms_of(r, now), answer, sizeof answer, &n);
    if (rc < 0)
        bw_device_unknown(d, f->id);
    else if (rc == 0)
        bw_device_ignored(d, f->id);
    bw_device_emit(d, answer, n);
}

static void input(bw_device_t *d, const uint8_t *data, size_t n, double now)
{
    rbsm_dev_t *r = R(d);
    if (r->alone) { /* no Mega, no link */
        d->body.skipped_bytes += n;
        bw_device_link_stats(d, &r->parser.stats);
        return;
    }
    bw_rbsm_frame_t f;
    int rc;
    while ((rc = bw_rbsm_parse(&r->parser, &data, &n, &f)) != 0) {
        if (rc < 0)
            bw_rbsm_mega_stream_error(&r->mega);
        else
            command(d, &f, now);
    }
    bw_device_link_stats(d, &r->parser.stats);
}

/* One loop of the buggy, dt s long: the servo toward its target, the push,
 * the coast, the brake. */
static void physics(bw_device_t *d, double target, bool braked, double dt)
{
    rbsm_dev_t *r = R(d);
    bw_body_t *b = &d->sim.body;
    double step = STEER_RATE * BW_PI / 180 * dt;
    r->steer += fmax(-step, fmin(step, target - r->steer));
    r->braked = braked;
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
    r->v = fmax(0, r->v + a * dt);
    double curvature = tan(r->steer) / BW_RBSM_WHEELBASE_M;
    bw_sim_set_twist(&d->sim, r->v, r->v * curvature);
}

static uint32_t enc_ticks(const rbsm_dev_t *r) { return (uint32_t)(r->enc_dist / BW_RBSM_M_PER_TICK); }

/* What the Mega's pins read at the end of a loop, and its telemetry. */
/* Bytes a second the deployed Mega's UART sends (8N1): at the line's rate
 * when the device has a line, else at the firmware's 57600 (an unpaced
 * device stands for a Mega at its own rate all the same). */
static double uart_bytes_per_s(const bw_device_t *d)
{
    return (d->baud > 0 ? d->baud : BW_RBSM_DEPLOYED_BAUD) / 10.0;
}

static void telemetry(bw_device_t *d, double now)
{
    rbsm_dev_t *r = R(d);
    double feedback = r->steer;
    if (r->pot_noise > 0) { /* the steering potentiometer's noise */
        double u1 = bw_rng_uniform(&r->rng), u2 = bw_rng_uniform(&r->rng);
        feedback += r->pot_noise * sqrt(-2 * log(u1)) * cos(2 * BW_PI * u2);
    }
    bw_rbsm_mega_inputs_t in = { 0, (uint32_t)lround(d->sim.body.battery * 1000), enc_ticks(r) };
    (void)bw_rbsm_steer_left_to_wire(r->mega.variant, feedback, &in.steer_feedback);
    uint8_t out[BW_RBSM_MEGA_REPORT_MAX];
    size_t n = bw_rbsm_mega_report(&r->mega, ms_of(r, now), &in, out, sizeof out);
    bw_device_emit(d, out, n);
    if (!r->mega.deployed)
        return;
    /* The deployed Mega's putc waits while its ring is full: the loop ends
     * when the ring has taken the last byte, and the next starts no
     * earlier (the bytes still go out at once here; the line's pace is
     * the link's business). */
    double rate = uart_bytes_per_s(d);
    double held = fmax(0, r->tx_free - now) * rate;
    double wait = fmax(0, held + (double)n - DEPLOYED_TX_RING) / rate;
    r->tx_free = fmax(r->tx_free, now) + (double)n / rate;
    r->next_loop = fmax(r->next_loop, now + wait);
}

/* The emulated RC operator of a deployed buggy: the brake switch down for
 * a loop when the Mega needs re-arming and the host's commands come. */
static bool operator_brake(bw_device_t *d, uint32_t ms)
{
    rbsm_dev_t *r = R(d);
    const bw_rbsm_mega_t *m = &r->mega;
    if (!r->operator_auto)
        return r->rc_brake;
    bool fresh = ms - m->last_steer <= BW_RBSM_MEGA_WATCHDOG_MS &&
                 ms - m->last_brake <= BW_RBSM_MEGA_WATCHDOG_MS;
    if (!m->needs_reset || !fresh)
        return false;
    bw_device_notice(d, "the RC operator puts the brake down and up: the Mega's brake is armed");
    return true;
}

static void step(bw_device_t *d, double now)
{
    rbsm_dev_t *r = R(d);
    for (double t; (t = r->next_loop) <= now + 1e-9;) {
        r->loops++;
        double dt = t - r->last_loop;
        r->last_loop = t;
        r->next_loop = t + LOOP;
        bw_sim_step_to(&d->sim, t);
        const bw_body_t *b = &d->sim.body;
        double odo = (b->odo_left + b->odo_right) / 2;
        r->enc_dist += fabs(odo - r->last_odo);
        r->last_odo = odo;
        if (r->alone) {
            physics(d, r->ext_steer, r->ext_brake, dt);
            continue;
        }
        uint32_t ms = ms_of(r, t);
        bool rc_brake = r->mega.deployed ? operator_brake(d, ms) : r->rc_brake;
        if (bw_rbsm_mega_watch(&r->mega, ms, r->rc, rc_brake))
            bw_device_notice(d, "no steering or brake command for %.0f s: brake dropped",
                             BW_RBSM_MEGA_WATCHDOG_MS / 1000.0);
        physics(d, bw_rbsm_steer_left_rad(r->mega.variant, bw_rbsm_mega_steer_target(&r->mega)),
                bw_rbsm_mega_brake_down(&r->mega), dt);
        telemetry(d, t);
    }
    bw_sim_step_to(&d->sim, now);
}

static double next_deadline(const bw_device_t *d) { return R(d)->next_loop; }

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
    R(d)->operator_auto = false; /* the caller is the operator now */
    return 0;
}

int bw_rbsm_device_actuate(bw_device_t *d, double steer_rad, bool brake_down)
{
    if (!d || d->ops != &bw_rbsm_device_ops || !R(d)->alone || !isfinite(steer_rad))
        return BW_EINVAL;
    double lim = BW_RBSM_STEER_LIMIT_DEG * BW_PI / 180 * 2; /* the linkage's stops */
    R(d)->ext_steer = fmax(-lim, fmin(lim, steer_rad));
    R(d)->ext_brake = brake_down;
    return 0;
}

int bw_rbsm_device_buggy(const bw_device_t *d, bw_rbsm_buggy_t *out)
{
    if (!d || d->ops != &bw_rbsm_device_ops)
        return BW_EINVAL;
    const rbsm_dev_t *r = R(d);
    *out = (bw_rbsm_buggy_t){ r->steer, r->v, enc_ticks(r), d->sim.body.battery,
                              r->rc, r->rc_brake, r->braked };
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
