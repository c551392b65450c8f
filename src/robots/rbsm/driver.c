/* The RoboBuggy host driver: steering and brake commands to the Mega every
 * 50 ms; the Mega's and the encoder's telemetry into the state.
 *
 * A buggy has no motor: drive(v, w) steers and brakes. v = 0 (or below)
 * puts the brake down; any other v lets the buggy roll at whatever speed it
 * has. The steering angle is the one whose curvature gives w at the speed
 * the encoder measures (tan(angle) = w L / v); at rest, full lock the way w
 * turns. The capabilities say so (BW_CAP_STEER, not BW_CAP_DRIVE).
 *
 * Odometry. The encoder counts one tick per 87 mm, too coarse to give a
 * position by itself: after n ticks the buggy has rolled between n and n+1
 * ticks. The driver estimates the speed from the times the count changed,
 * carries the distance on at that speed between ticks (slowing it at the
 * brake's deceleration while the brake is down), and keeps the estimate
 * inside the interval the count allows. The heading follows the bicycle
 * model with the steering angle the Mega measures: dtheta = ds tan(angle) / L.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../base/base_internal.h"
#include "botwire/rbsm.h"

#define SEND_PERIOD 0.05  /* s between commands: the 1 s watchdog sees 20 */
#define SPEED_SPAN 0.25   /* s of count changes the speed is measured over */
#define STALE 0.5         /* s without a count change: the speed decays to the count's bound */
#define RING 64           /* steering values remembered: 0.64 s of 10 ms loops */
#define BRAKE_DECEL 4.0   /* m/s^2 the brake takes off (the emulator's; the real one's is near) */

typedef struct {
    bw_rbsm_parser_t parser;
    bw_parse_stats_t sub_stats;
    bw_rbsm_variant_t variant;
    bool deployed;
    double last_send;
    /* The encoder, on the encoder's clock (its timestamps, s). */
    uint32_t pending;        /* enc_ticks_reset, waiting for its enc_timestamp */
    bool have_pending;
    uint32_t last_ms;        /* the last enc_timestamp */
    double clock;            /* s, enc_timestamp unwrapped */
    bool have_ticks;
    uint32_t ticks;          /* enc_ticks_reset, as last read */
    uint64_t total;          /* ticks since open (the Mega's count may be reset) */
    double est;              /* m rolled since open, the estimate */
    double speed;            /* m/s */
    double last_est_t;       /* when est was carried on */
    double change_t[8];      /* times of the last count changes, and the totals then */
    uint64_t change_n[8];
    unsigned nchange;
    double steer_fb;         /* rad, the angle the Mega measured */
    double steer_prev;       /* ...and at the encoder reading before */
    double steer_t[RING];    /* ...its recent values, on the encoder's clock */
    double steer_tan[RING];
    unsigned steer_head, nsteer;
    /* The brake and the error word as their last messages said: the state
     * shows them once two cycles agree (bw_base_frame_ok), so each cycle
     * hands them over again. */
    bool brake;
    uint32_t faults;
} rbsm_drv_t;

static rbsm_drv_t *D(const bw_base_t *b) { return b->drv; }

static int init(bw_base_t *b, const bw_url_t *url, char *err, size_t errlen)
{
    const char *model = bw_url_param(url, "model");
    if (model && strcmp(model, "seed") != 0 && strcmp(model, "deployed") != 0) {
        snprintf(err, errlen, "model=%s: the RBSM variant is seed or deployed", model);
        return BW_EINVAL;
    }
    D(b)->deployed = model && strcmp(model, "deployed") == 0;
    D(b)->variant = D(b)->deployed ? BW_RBSM_VARIANT_DEPLOYED : BW_RBSM_VARIANT_SEED;
    if (url->kind != BW_URL_SIM && (bw_url_param(url, "push") || bw_url_param(url, "slope"))) {
        snprintf(err, errlen, "push= and slope= set the emulated buggy's course (sim:rbsm only)");
        return BW_EINVAL;
    }
    return 0;
}

static void send_command(bw_base_t *b, double now);

static void on_open(bw_base_t *b, double now)
{
    rbsm_drv_t *r = D(b);
    bw_rbsm_parser_init(&r->parser);
    memset(&r->sub_stats, 0, sizeof r->sub_stats);
    r->have_ticks = false;
    r->have_pending = false;
    r->nchange = 0;
    r->nsteer = 0;
    r->speed = 0;
    send_command(b, now); /* the brake down and the steering centred, until told */
}

/* The steering angle for the commanded twist. */
static double steer_for(const bw_base_t *b)
{
    const rbsm_drv_t *r = D(b);
    double lim = BW_RBSM_STEER_LIMIT_DEG * BW_PI / 180, w = b->cmd_w;
    if (w == 0)
        return 0;
    double a = r->speed > 0.05 ? atan(w * BW_RBSM_WHEELBASE_M / r->speed) : copysign(lim, w);
    return fmax(-lim, fmin(lim, a));
}

/* Writes the command of the twist in force: 6 or 12 bytes. */
static size_t command_bytes(const rbsm_drv_t *r, double steer, bool brake, uint8_t *buf)
{
    if (r->deployed) {
        int32_t w;
        (void)bw_rbsm_steer_from_rad(r->variant, steer, &w);
        (void)bw_rbsm_encode(buf, 6, BW_RBSM_MID_MEGA_COMMAND, (uint32_t)w);
        (void)bw_rbsm_encode(buf + 6, 6, BW_RBSM_MID_BRAKE_COMMAND,
                             bw_rbsm_brake_to_wire(r->variant, brake));
        return 12;
    }
    bw_rbsm_msg_t m;
    (void)bw_rbsm_command_from(r->variant, steer, brake, &m);
    return bw_rbsm_encode_msg(buf, 6, &m) == 6 ? 6 : 0;
}

static void send_command(bw_base_t *b, double now)
{
    rbsm_drv_t *r = D(b);
    uint8_t buf[12];
    size_t n = command_bytes(r, steer_for(b), b->cmd_v <= 0, buf);
    if (n)
        bw_base_send(b, buf, n, now);
    r->last_send = now;
}

static void on_drive(bw_base_t *b, double now) { send_command(b, now); }

static void on_tick(bw_base_t *b, double now)
{
    if (now >= D(b)->last_send + SEND_PERIOD)
        send_command(b, now);
}

static double next_deadline(const bw_base_t *b) { return D(b)->last_send + SEND_PERIOD; }

/* Carries the distance estimate on to t at the estimated speed (slowing at
 * the brake's deceleration while the brake is down), inside the interval
 * the count allows. Returns how far the count pushed it up (m): distance
 * that happened since the last count change, not just now. */
static double carry(rbsm_drv_t *r, double t, bool braking)
{
    double dt = t - r->last_est_t;
    if (dt > 0) {
        double v1 = braking ? fmax(0, r->speed - BRAKE_DECEL * dt) : r->speed;
        r->est += (r->speed + v1) / 2 * dt;
        r->speed = v1;
        r->last_est_t = t;
    }
    double lo = (double)r->total * BW_RBSM_M_PER_TICK;
    double hi = lo + BW_RBSM_M_PER_TICK * 0.999;
    double up = r->est < lo ? lo - r->est : 0;
    r->est = r->est < lo ? lo : r->est > hi ? hi : r->est;
    return up;
}

/* The mean of tan(steering) the Mega measured since t0 (the last one if
 * none is that recent). */
static double mean_tan_since(const rbsm_drv_t *r, double t0)
{
    double sum = 0;
    unsigned n = 0;
    for (unsigned i = 0; i < r->nsteer; i++) {
        unsigned k = (r->steer_head + RING - 1 - i) % RING;
        if (r->steer_t[k] < t0)
            break;
        sum += r->steer_tan[k];
        n++;
    }
    return n ? sum / (double)n : tan(r->steer_fb);
}

/* Moves the pose ds along the bicycle's arc with tan(steering) k. */
static void advance_pose(bw_pose_t *p, double ds, double k)
{
    double dth = ds * k / BW_RBSM_WHEELBASE_M;
    double mid = p->theta + dth / 2;
    p->x += ds * cos(mid);
    p->y += ds * sin(mid);
    p->theta = bw_angle_norm(p->theta + dth);
}

/* A cycle of the Mega's messages is complete (its encoder reading closes
 * it): the brake and the errors as they stand go to the state. */
static void cycle_ok(bw_base_t *b, double now)
{
    b->st.brake = D(b)->brake;
    b->st.faults = D(b)->faults;
    bw_base_frame_ok(b, now);
}

/* The encoder's count at its time t (s): the distance, the speed, and the
 * pose with them. */
static void on_ticks(bw_base_t *b, uint32_t ticks, double t, double now)
{
    rbsm_drv_t *r = D(b);
    if (!r->have_ticks) {
        r->have_ticks = true;
        r->ticks = ticks;
        r->last_est_t = t;
        r->est = (double)r->total * BW_RBSM_M_PER_TICK;
        cycle_ok(b, now);
        return;
    }
    bool braking = b->st.brake;
    /* The steering, remembered for the distance a count change reveals. */
    r->steer_t[r->steer_head] = t;
    /* Over the last loop the steering went from the previous reading to
     * this one: their mean is what the distance of that loop turned by. */
    double k_loop = (tan(r->steer_prev) + tan(r->steer_fb)) / 2;
    r->steer_prev = r->steer_fb;
    r->steer_tan[r->steer_head] = k_loop;
    r->steer_head = (r->steer_head + 1) % RING;
    if (r->nsteer < RING)
        r->nsteer++;
    uint32_t d = ticks - r->ticks; /* modulo 2^32; a reset request reads as below */
    if (d > 1000000u)
        d = 0; /* the count went back: the Mega reset it */
    r->ticks = ticks;
    double before = r->est, since = r->nchange ? r->change_t[0] : r->last_est_t;
    (void)carry(r, t, braking);
    double late = 0; /* distance the count revealed late */
    if (d) {
        r->total += d;
        /* The count changed between the last message and this one. */
        memmove(r->change_t + 1, r->change_t, sizeof r->change_t - sizeof r->change_t[0]);
        memmove(r->change_n + 1, r->change_n, sizeof r->change_n - sizeof r->change_n[0]);
        r->change_t[0] = t;
        r->change_n[0] = r->total;
        if (r->nchange < 8)
            r->nchange++;
        /* The speed from the recent count changes; under the brake the
         * model's deceleration is the better guess (an average over the
         * changes lags a speed falling that fast). */
        unsigned k = 1;
        while (k + 1 < r->nchange && r->change_t[0] - r->change_t[k] < SPEED_SPAN)
            k++;
        if (!braking && k < r->nchange && r->change_t[0] > r->change_t[k])
            r->speed = (double)(r->change_n[0] - r->change_n[k]) * BW_RBSM_M_PER_TICK /
                       (r->change_t[0] - r->change_t[k]);
        late = carry(r, t, braking);
    } else if (r->nchange && t - r->change_t[0] > STALE) {
        /* No tick for a while: slower than one tick in that time. */
        r->speed = fmin(r->speed, BW_RBSM_M_PER_TICK / (t - r->change_t[0]));
    }
    /* Into the pose: the bicycle with the measured steering; what the count
     * revealed late turned as the steering did since the last change. */
    bw_base_state_t *st = &b->st;
    double ds = r->est - before - late;
    advance_pose(&st->pose, late, mean_tan_since(r, since));
    advance_pose(&st->pose, ds, k_loop);
    st->v = r->speed;
    st->w = r->speed * tan(r->steer_fb) / BW_RBSM_WHEELBASE_M;
    cycle_ok(b, now);
}

static void on_message(bw_base_t *b, const bw_rbsm_frame_t *f, double now)
{
    rbsm_drv_t *r = D(b);
    bw_base_state_t *st = &b->st;
    bw_rbsm_msg_t m;
    if (bw_rbsm_decode(f, &m) < 0) {
        r->sub_stats.unknown++;
        return;
    }
    switch (f->id) {
    case BW_RBSM_MID_ENC_TICKS_RESET:
        r->pending = f->word;
        r->have_pending = true;
        break;
    case BW_RBSM_MID_ENC_TIMESTAMP:
        /* The count and the time it was read at: the encoder's clock is the
         * one its ticks are timed by. */
        if (r->have_ticks || r->have_pending)
            r->clock += (double)(uint32_t)(f->word - r->last_ms) / 1000.0;
        r->last_ms = f->word;
        if (r->have_pending)
            on_ticks(b, r->pending, r->clock, now);
        r->have_pending = false;
        break;
    case BW_RBSM_MID_MEGA_STEER_FEEDBACK:
        r->steer_fb = bw_rbsm_steer_to_rad(r->variant, (int32_t)f->word);
        break;
    case BW_RBSM_MID_MEGA_BRAKE_STATE: r->brake = bw_rbsm_brake_engaged(r->variant, f->word); break;
    case BW_RBSM_MID_MEGA_AUTON_STATE:
        st->commands_ignored = f->word == 0;
        snprintf(st->mode, sizeof st->mode, "%s", f->word ? "auton" : "rc");
        break;
    case BW_RBSM_MID_MEGA_BATTERY_LEVEL: st->battery = f->word / 1000.0; break;
    case BW_RBSM_MID_ERROR: r->faults = f->word; break;
    case BW_RBSM_MID_MEGA_FIRMWARE_HASH:
        snprintf(st->firmware, sizeof st->firmware, "%08lx", (unsigned long)f->word);
        break;
    default: break; /* device ids, timestamps, echoes of commands */
    }
}

static void on_input(bw_base_t *b, const uint8_t *data, size_t n, double now)
{
    rbsm_drv_t *r = D(b);
    bw_rbsm_frame_t f;
    int rc;
    while (b->port && (rc = bw_rbsm_parse(&r->parser, &data, &n, &f)) != 0)
        if (rc > 0)
            on_message(b, &f, now);
    b->st.link = r->parser.stats;
    bw_parse_stats_add(&b->st.link, &r->sub_stats);
}

/* The brake down, the steering centred: a command needing no state. */
static size_t stop_bytes(const bw_base_t *b, uint8_t *buf, size_t cap)
{
    if (cap < 12)
        return 0;
    return command_bytes(D(b), 0, true, buf);
}

static const char *const params[] = { "model", "push", "slope", NULL };

const bw_driver_ops_t bw_rbsm_driver_ops = {
    .family = "rbsm",
    .size = sizeof(rbsm_drv_t),
    .caps = BW_CAP_STEER | BW_CAP_ODOMETRY | BW_CAP_BATTERY | BW_CAP_BRAKE | BW_CAP_FAULTS,
    .params = params,
    .max_v = 0, /* not commanded */
    .max_w = 0,
    .link_timeout = 0.3,
    /* No line gap: no length byte can hold the receiver back, and the
     * footer rule finds the next message after any gap. */
    .baud = BW_RBSM_BAUD,
    .init = init,
    .on_open = on_open,
    .on_input = on_input,
    .on_tick = on_tick,
    .on_drive = on_drive,
    .stop_bytes = stop_bytes,
    .next_deadline = next_deadline,
};
