/* The RoboBuggy host driver: steering and brake commands to the Mega every
 * 8 ms; the Mega's and the encoder's telemetry into the state.
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
 *
 * The deployed dialect (?model=deployed, the RoboBuggy repository's Mega
 * firmware and ROS host): 57600 baud unless baud= says otherwise; the
 * steering word on id 19 (hundredths, to the right) and the brake on id 18;
 * the Mega's loop sends neither enc_ticks_last nor enc_timestamp, so its
 * loop is closed by mega_timestamp (253, the Mega's millis()) and the
 * encoder's readings are enc_ticks_reset timed by it. Its loop runs at the
 * line's pace (12.5 ms at 57600), not 10 ms: the readings are timed by the
 * stamps, not counted.
 *
 * A bad cable. RBSM has no checksum: a flipped bit in a data byte goes
 * through, and one in an id makes a message another's. What the driver
 * believes, it has from two sources that agree:
 *   - The Mega's loop (every 10 ms) is the unit: its messages, from one
 *     enc_timestamp to the next, are a loop, whole when every message the
 *     Mega sends each loop came once, nothing else twice, none lost or of an
 *     unknown id. A damaged id leaves its own message missing and another
 *     doubled or out of place, so only whole loops say anything of the
 *     brake, the mode, the errors and the battery.
 *   - The brake and the mode (0 or 1 on the wire, anything else a damaged
 *     word) change when two whole loops agree; the error word, the battery
 *     and the firmware hash (every tenth loop) when two of their messages
 *     agree. The Mega's receive-error bits, which a damaged command sets and
 *     the next good one clears, show once they have stood TRANSIENT_HOLD.
 *   - The encoder's count: a reading is believed when linked to the
 *     readings of the loops before and after it (on_reading); its ticks
 *     then count from the last reading applied, once, whatever was lost in
 *     between; a reading the buggy cannot have reached (VMAX) is set aside
 *     (bw_base_implausible), unless believed readings say so three times in
 *     a row (the Mega restarted) or after a reset the Mega confirmed.
 *   - The steering feedback moves no faster than the servo (SERVO_RATE); a
 *     jump is believed when it stays three loops.
 * The host's side has no checksum either: a command a flipped bit damaged
 * is in force until the next, so the driver sends one more often than the
 * Mega loops. The damage then lasts one loop at most, which the brake's
 * two-loop agreement keeps out of the state and the servo cannot turn far
 * in.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../base/base_internal.h"
#include "botwire/rbsm.h"

#define SEND_PERIOD 0.008 /* s between commands: more than one per 10 ms Mega loop */
#define SPEED_SPAN 0.25   /* s of count changes the speed is measured over */
#define STALE 0.5         /* s without a count change: the speed decays to the count's bound */
#define RING 64           /* steering values remembered: 0.64 s of 10 ms loops */
#define BRAKE_DECEL 4.0   /* m/s^2 the brake takes off (the emulator's; the real one's is near) */
/* What a buggy can do, to judge what the line says it did. A pushed buggy
 * rolls at up to about 15 m/s (the emulator's pusher stops there; a race
 * course's hill adds a little): 25 m/s is beyond any run. The steering
 * servo turns 120 degrees a second in the emulator; twice that, plus the
 * potentiometer's noise, is beyond what it moves in a loop. */
#define VMAX 25.0         /* m/s */
#define SERVO_RATE 240.0  /* degrees/s */
#define POT_SLACK 1.0     /* degrees of potentiometer noise on top */
#define CLOCK_SLACK 1.0   /* s the encoder's clock may gain on ours (our reads are late) */
#define CLOCK_DRIFT 0.01  /* ...and the rate it may drift ahead */
#define LOOP_MS BW_RBSM_MEGA_LOOP_MS
/* The Mega's receive-error bits say a command was damaged; the next good
 * one clears them, 8 ms later. Shown only once they have stood this long:
 * then the Mega has truly lost the host's stream. */
#define TRANSIENT_BITS (BW_RBSM_ERR_LOST_STREAM | BW_RBSM_ERR_INVALID_MID)
#define TRANSIENT_HOLD 0.15
#define BATTERY_AGREE_MV 300u
/* The deployed Mega's loops, by its stamps: 10 ms asked, 12.5 ms at the
 * line's pace at 57600, longer when the line backs up. Readings further
 * apart are not linked (one between was lost). */
#define DEPLOYED_LOOP_MIN_MS (LOOP_MS / 2)
#define DEPLOYED_LOOP_MAX_MS (3 * LOOP_MS)

/* One encoder reading: the count and the time of one Mega loop. */
typedef struct {
    bool valid;       /* a count and a time */
    bool have_last;   /* ...and enc_ticks_last, for the link check */
    bool linked_back; /* linked to the reading of the loop before */
    bool committed;   /* judged against the reference... */
    bool applied;     /* ...and made the reference */
    uint32_t last;    /* enc_ticks_last */
    uint32_t ticks;   /* enc_ticks_reset */
    uint32_t ms;      /* enc_timestamp */
    double steer;     /* rad: the steering of its loop (as judged) */
    double now;       /* host time it arrived */
} reading_t;

/* The messages of one Mega loop, from the message after one enc_timestamp
 * to the next enc_timestamp. */
typedef struct {
    uint8_t n[256];   /* messages of each id (saturating) */
    uint8_t dev[2];   /* device_id mega, drive_encoder */
    bool broken;      /* a loss, an id the Mega does not send, a device of no name */
    uint32_t last, ticks, brake, auton, battery, error, hash;
    int32_t steer;
} cycle_t;

typedef struct {
    bw_rbsm_parser_t parser;
    bw_parse_stats_t sub_stats;
    bw_rbsm_variant_t variant;
    bool deployed;
    double last_send;
    uint64_t lost_seen;      /* the receiver's losses at the last message */
    cycle_t cyc;
    /* The encoder. Two readings are linked when they are one loop apart
     * on the encoder's clock and the later one's enc_ticks_reset minus the
     * earlier one's is its enc_ticks_last: no single flipped bit makes a
     * link (it would have to change two values alike). A damaged reading
     * is left out; the next believed one counts its ticks from the
     * reference (the last reading applied), once. */
    reading_t prev;          /* the last reading received */
    reading_t ref;           /* the last reading applied: the reference */
    reading_t pend[8];       /* readings since, not believed (oldest first) */
    unsigned npend;
    bool reset_confirmed;    /* enc_reset_confirm heard: the count may go back to 0 */
    unsigned bad_run;        /* believed readings in a row the reference cannot reach */
    double clock;            /* s, the encoder's clock as applied */
    double clock_lead;       /* ...less ours, at the least (see commit) */
    bool have_ticks;
    uint64_t total;          /* ticks since open (the Mega's count may be reset) */
    double est;              /* m rolled since open, the estimate */
    double speed;            /* m/s */
    double last_est_t;       /* when est was carried on */
    double change_t[8];      /* times of the last count changes, and the totals then */
    uint64_t change_n[8];
    unsigned nchange;
    /* The steering the Mega measured, judged against the servo's speed. */
    bool have_fb;
    double steer_fb;         /* rad, the last believed value */
    unsigned fb_age;         /* loops since it */
    double fb_cand;          /* a jump seen in loops in a row... */
    unsigned fb_cand_n;      /* ...how many */
    double steer_prev;       /* at the encoder reading before */
    double steer_t[RING];    /* ...its recent values, on the encoder's clock */
    double steer_tan[RING];
    unsigned steer_head, nsteer;
    /* Flags as the last whole loop said: the state shows them once two
     * whole loops agree (bw_base_frame_ok), so each loop hands them over
     * again. The mode likewise, here. */
    bool brake;
    uint32_t faults;
    bool have_auton;
    uint32_t auton;          /* the last whole loop's mega_auton_state */
    /* Words the Mega sends every tenth loop: believed when two in a row
     * agree. */
    bool have_battery, have_hash;
    uint32_t error_prev, error_agreed, battery_prev, hash_prev;
    double error_since[BW_RBSM_ERR_BITS]; /* when each bit began to be reported */
} rbsm_drv_t;

static rbsm_drv_t *D(const bw_base_t *b) { return b->drv; }

/* The deployed firmware's and its host's rate (bw_device_model_baud). */
static int model_baud(const char *model)
{
    return strcmp(model, "deployed") == 0 ? BW_RBSM_DEPLOYED_BAUD : 0;
}

static int init(bw_base_t *b, const bw_url_t *url, char *err, size_t errlen)
{
    const char *model = bw_url_param(url, "model");
    if (model && strcmp(model, "seed") != 0 && strcmp(model, "deployed") != 0) {
        snprintf(err, errlen, "model=%s: the RBSM variant is seed or deployed", model);
        return BW_EINVAL;
    }
    D(b)->deployed = model && strcmp(model, "deployed") == 0;
    D(b)->variant = D(b)->deployed ? BW_RBSM_VARIANT_DEPLOYED : BW_RBSM_VARIANT_SEED;
    if (D(b)->deployed && !bw_url_param(url, "baud"))
        b->baud = BW_RBSM_DEPLOYED_BAUD; /* the deployed firmware's and its host's */
    if (url->kind != BW_URL_SIM && (bw_url_param(url, "push") || bw_url_param(url, "slope"))) {
        snprintf(err, errlen, "push= and slope= set the emulated buggy's course (sim:rbsm only)");
        return BW_EINVAL;
    }
    /* One drive encoder, a tick per 87 mm of the rear wheel's roll: its
     * ticks are the translational counts (docs/rbsm.md). */
    b->st.counts_per_m = 1.0 / BW_RBSM_M_PER_TICK;
    return 0;
}

static void send_command(bw_base_t *b, double now);

static void on_open(bw_base_t *b, double now)
{
    rbsm_drv_t *r = D(b);
    bw_rbsm_parser_init(&r->parser);
    memset(&r->sub_stats, 0, sizeof r->sub_stats);
    r->lost_seen = 0;
    memset(&r->cyc, 0, sizeof r->cyc);
    memset(&r->prev, 0, sizeof r->prev);
    r->npend = 0;
    r->reset_confirmed = false;
    r->bad_run = 0;
    r->have_ticks = false;
    r->nchange = 0;
    r->nsteer = 0;
    r->have_fb = false;
    r->fb_cand_n = 0;
    /* The flags as shown stay: the loops of the new session must agree
     * before they change. */
    r->have_auton = r->have_battery = r->have_hash = false;
    r->error_prev = r->error_agreed;
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
        (void)bw_rbsm_steer_left_to_wire(r->variant, steer, &w);
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

/* A whole loop's flags go to the state (two whole loops in a row must
 * agree before the state changes: bw_base_frame_ok). */
static void cycle_ok(bw_base_t *b, double now)
{
    b->st.brake = D(b)->brake;
    b->st.faults = D(b)->faults;
    bw_base_frame_ok(b, now);
}

/* The encoder's count moved d ticks by its time t (s), the steering at
 * steer: the distance, the speed, and the pose with them. */
static void on_ticks(bw_base_t *b, uint64_t d, double t, double steer)
{
    rbsm_drv_t *r = D(b);
    bool braking = b->st.brake;
    /* The steering, remembered for the distance a count change reveals. */
    r->steer_t[r->steer_head] = t;
    /* Over the last loop the steering went from the previous reading to
     * this one: their mean is what the distance of that loop turned by. */
    double k_loop = (tan(r->steer_prev) + tan(steer)) / 2;
    r->steer_prev = steer;
    r->steer_tan[r->steer_head] = k_loop;
    r->steer_head = (r->steer_head + 1) % RING;
    if (r->nsteer < RING)
        r->nsteer++;
    double before = r->est, since = r->nchange ? r->change_t[0] : r->last_est_t;
    (void)carry(r, t, braking);
    double late = 0; /* distance the count revealed late */
    if (d) {
        r->total += d;
        b->st.encoder[0] = (int64_t)r->total;
        /* The count changed between the last reading and this one. */
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
    st->w = r->speed * tan(steer) / BW_RBSM_WHEELBASE_M;
    st->estimated = false;
}

/* The most ticks the buggy can roll in ms milliseconds (the count's
 * rounding adds one). */
static uint32_t max_ticks(uint32_t ms)
{
    return (uint32_t)(VMAX * ms / 1000.0 / BW_RBSM_M_PER_TICK) + 1u;
}

/* Whether the buggy can have gone from the reference to x: the encoder's
 * clock ran forward, and has not gained more than CLOCK_SLACK on ours
 * since the first reference (a Mega restarted counts from 0 again, and a
 * clock that ran ahead would let any count through), and the count moved
 * no more than the buggy can roll. after_reset: the count started again
 * from 0 in between. */
static bool reachable(const rbsm_drv_t *r, const reading_t *x, bool after_reset)
{
    const reading_t *a = &r->ref;
    uint32_t dms = x->ms - a->ms;
    if (dms == 0 || dms > 0x80000000u ||
        r->clock + dms / 1000.0 - x->now > r->clock_lead + CLOCK_SLACK)
        return false;
    uint32_t dticks = after_reset ? x->ticks : x->ticks - a->ticks;
    return dticks <= max_ticks(dms);
}

/* A new reference without integrating a jump (the Mega's count or clock
 * started again): the distance goes on as estimated meanwhile, and says so. */
static void rebase(bw_base_t *b, const reading_t *x)
{
    rbsm_drv_t *r = D(b);
    uint32_t dms = x->ms - r->ref.ms;
    double dt = dms > 0 && dms < 0x80000000u &&
                        r->clock + dms / 1000.0 - x->now <= r->clock_lead + CLOCK_SLACK
                    ? dms / 1000.0
                    : fmax(0, x->now - r->ref.now);
    r->clock += dt;
    r->clock_lead = fmin(r->clock_lead, r->clock - x->now);
    r->npend = 0;
    r->nchange = 0; /* the speed is measured again from here */
    double before = r->est;
    r->est += r->speed * dt;
    r->total = (uint64_t)(r->est / BW_RBSM_M_PER_TICK);
    b->st.encoder[0] = (int64_t)r->total; /* the lost readings' ticks, estimated */
    r->last_est_t = r->clock;
    advance_pose(&b->st.pose, r->est - before, tan(x->steer));
    b->st.estimated = true;
    b->st.estimated_time += dt;
    r->ref = *x;
}

/* A believed reading, judged against the reference: applied, set aside
 * (the count cannot have got there), or, after BW_BASE_IMPLAUSIBLE_RUN
 * believed readings in a row say so (the Mega restarted), or after a reset
 * the Mega confirmed, a new reference. Returns whether it is now the
 * reference. */
static bool commit(bw_base_t *b, reading_t *x)
{
    rbsm_drv_t *r = D(b);
    x->committed = true;
    if (!r->have_ticks) { /* the first: the reference, no motion */
        r->have_ticks = true;
        r->ref = *x;
        r->clock_lead = r->clock - x->now;
        r->last_est_t = r->clock;
        r->est = (double)r->total * BW_RBSM_M_PER_TICK;
        r->steer_prev = x->steer;
        r->npend = 0;
        return true;
    }
    if (reachable(r, x, false)) {
        double host_dt = x->now - r->ref.now;
        r->bad_run = 0;
        /* The readings between, not believed, still say when the count
         * changed, as far as they lie between the two believed ones (a loop
         * or more from each, within reach of both): the speed is measured
         * from those times. */
        for (unsigned i = 0; i < r->npend; i++) {
            const reading_t *u = &r->pend[i];
            uint32_t ums = u->ms - r->ref.ms, uticks = u->ticks - r->ref.ticks;
            uint32_t xms = x->ms - u->ms, xticks = x->ticks - u->ticks;
            if (u->valid && ums >= LOOP_MS / 2 && ums < 0x80000000u && xms >= LOOP_MS / 2 &&
                xms < 0x80000000u && uticks <= max_ticks(ums) && xticks <= max_ticks(xms) &&
                uticks <= x->ticks - r->ref.ticks) {
                r->clock += ums / 1000.0;
                on_ticks(b, uticks, r->clock, u->steer);
                r->ref = *u;
            }
        }
        r->npend = 0;
        r->clock += (x->ms - r->ref.ms) / 1000.0;
        /* Our reads come late by varying amounts, and the two clocks drift
         * apart (a Mega's oscillator by up to a fraction of a percent): the
         * lead follows the least seen, creeping up at 1 %. */
        r->clock_lead = fmin(r->clock - x->now, r->clock_lead + CLOCK_DRIFT * host_dt);
        on_ticks(b, x->ticks - r->ref.ticks, r->clock, x->steer);
        r->ref = *x;
        r->reset_confirmed = false;
        return true;
    }
    if (r->reset_confirmed && reachable(r, x, true)) {
        /* The count went back to 0 as the host asked: the Mega does not
         * count the ticks of the loop it reset in, nor do we; the distance
         * to here is estimated. */
        rebase(b, x);
        r->reset_confirmed = false;
        r->bad_run = 0;
        return true;
    }
    if (++r->bad_run < BW_BASE_IMPLAUSIBLE_RUN)
        return false;
    rebase(b, x);
    r->bad_run = 0;
    return true;
}

/* Whether y is the reading of the loop right after x's and both hold.
 * Seed: one loop apart on the encoder's clock, and the count's difference
 * is y's enc_ticks_last. Deployed (no enc_ticks_last): one loop apart on
 * the Mega's clock, and the count went forward no further than the buggy
 * can roll in that time. A flipped bit in the count's low bits or in the
 * stamp's can pass that on one side; linked on both sides it must also
 * fit the next reading, so at most a few ticks early, which the next
 * readings (counts since reset, not differences) make good. */
static bool linked(const rbsm_drv_t *r, const reading_t *x, const reading_t *y)
{
    uint32_t dms = y->ms - x->ms;
    if (!x->valid || !y->valid)
        return false;
    if (r->deployed)
        return dms >= DEPLOYED_LOOP_MIN_MS && dms <= DEPLOYED_LOOP_MAX_MS &&
               y->ticks - x->ticks <= max_ticks(dms);
    return y->have_last && dms >= LOOP_MS / 2 && dms <= LOOP_MS + LOOP_MS / 2 &&
           y->ticks - x->ticks == y->last;
}

/* An encoder reading has come (its enc_timestamp closed a loop). Returns
 * whether it is one the buggy cannot have reached from the reference.
 *
 * A reading is believed when it is linked on both sides, to the reading
 * before and the reading after: two readings damaged alike (a line's
 * errors meet a periodic stream one message period apart now and then) may
 * link to each other, never to a third, and a reading whose count and
 * enc_ticks_last a flipped bit each changed alike links to the one before,
 * not to the one after. A reading that says the count stood, linked to the
 * reference, is believed at once: if it is wrong the count is only late,
 * which the next believed reading makes good. One that says it moved waits
 * for the next: the count cannot go back, so a step too far could not be
 * undone. */
static bool on_reading(bw_base_t *b, reading_t *x)
{
    rbsm_drv_t *r = D(b);
    reading_t *p = &r->prev;
    bool bad = x->valid && r->have_ticks && !reachable(r, x, false) &&
               !(r->reset_confirmed && reachable(r, x, true));
    x->linked_back = linked(r, p, x);
    if (x->linked_back) {
        bool from = p->applied;
        if (!p->committed && p->linked_back)
            from = p->applied = commit(b, p);
        if (from && x->ticks == p->ticks)
            x->applied = commit(b, x);
    }
    if (!x->applied && x->valid) {
        if (r->npend == sizeof r->pend / sizeof r->pend[0])
            memmove(r->pend, r->pend + 1, sizeof r->pend - sizeof r->pend[0]);
        else
            r->npend++;
        r->pend[r->npend - 1] = *x;
    }
    r->prev = *x;
    return bad;
}

/* The steering feedback of a loop, judged against the last believed value:
 * the servo moves at most so far in a loop. A jump is believed when
 * BW_BASE_IMPLAUSIBLE_RUN loops in a row stay with it. Returns whether the
 * value was set aside. */
static bool on_steer(rbsm_drv_t *r, int32_t wire)
{
    double v = bw_rbsm_steer_left_rad(r->variant, wire);
    double step = (SERVO_RATE * LOOP_MS / 1000.0) * BW_PI / 180;
    double slack = POT_SLACK * BW_PI / 180;
    double lim = 2 * BW_RBSM_STEER_LIMIT_DEG * BW_PI / 180; /* the linkage's stops */
    if (fabs(v) <= lim + slack) {
        if (r->have_fb && fabs(v - r->steer_fb) <= step * (r->fb_age + 1) + slack) {
            r->steer_fb = v;
            r->fb_age = 0;
            r->fb_cand_n = 0;
            return false;
        }
        if (r->fb_cand_n && fabs(v - r->fb_cand) <= step + slack)
            r->fb_cand_n++;
        else
            r->fb_cand_n = 1;
        r->fb_cand = v;
        if (r->fb_cand_n >= (r->have_fb ? BW_BASE_IMPLAUSIBLE_RUN : 2u)) {
            r->have_fb = true; /* the first value, or a jump that stays */
            r->steer_fb = v;
            r->fb_age = 0;
            r->fb_cand_n = 0;
            return false;
        }
    }
    r->fb_age++;
    return r->have_fb; /* before the first value is believed there is nothing to judge */
}

/* The error word of a whole loop: a bit changes when two error messages in
 * a row agree on it; a receive-error bit shows once it has stood for
 * TRANSIENT_HOLD, the last message still saying so. */
static void on_error_word(rbsm_drv_t *r, uint32_t v, double now)
{
    if (v >> BW_RBSM_ERR_BITS) {
        /* Bits the Mega has not: a damaged word, which says nothing. The
         * messages either side of it must not agree across it. */
        r->error_prev = r->error_agreed;
        return;
    }
    for (unsigned i = 0; i < BW_RBSM_ERR_BITS; i++)
        if ((v >> i & 1u) && !(r->error_prev >> i & 1u))
            r->error_since[i] = now;
    uint32_t same = ~(v ^ r->error_prev);
    r->error_agreed = (r->error_agreed & ~same) | (v & same);
    r->error_prev = v;
    uint32_t shown = r->error_agreed;
    for (unsigned i = 0; i < BW_RBSM_ERR_BITS; i++) {
        uint32_t bit = 1u << i;
        if ((bit & TRANSIENT_BITS) && (shown & bit) && !(r->faults & bit) &&
            (!(v & bit) || now - r->error_since[i] < TRANSIENT_HOLD))
            shown &= ~bit;
    }
    r->faults = shown;
}

/* Whether a loop is whole: every message the Mega sends each loop came
 * once (the two device ids, steering angle and feedback, brake, mode, the
 * encoder's three), no other more than once, nothing lost or unknown among
 * them. A message whose id a flipped bit turned into another's leaves its
 * own id missing and the other doubled or out of place. */
static bool whole(const rbsm_drv_t *r, const cycle_t *c)
{
    static const uint8_t every[] = { BW_RBSM_MID_MEGA_STEER_ANGLE,
                                     BW_RBSM_MID_MEGA_STEER_FEEDBACK,
                                     BW_RBSM_MID_MEGA_BRAKE_STATE,
                                     BW_RBSM_MID_MEGA_AUTON_STATE,
                                     BW_RBSM_MID_ENC_TICKS_LAST,
                                     BW_RBSM_MID_ENC_TICKS_RESET,
                                     BW_RBSM_MID_ENC_TIMESTAMP };
    /* The deployed Mega's, every loop (closed by 253, so 30 and 254 are
     * the loop before's). */
    static const uint8_t every_deployed[] = {
        BW_RBSM_MID_MEGA_STEER_ANGLE,    BW_RBSM_MID_MEGA_BRAKE_STATE,
        BW_RBSM_MID_MEGA_TELEOP_BRAKE_COMMAND, BW_RBSM_MID_BRAKE_COMMAND,
        BW_RBSM_MID_MEGA_AUTON_STATE,    BW_RBSM_MID_MEGA_BATTERY_LEVEL,
        BW_RBSM_MID_MEGA_STEER_FEEDBACK, BW_RBSM_MID_ENC_TICKS_RESET,
        BW_RBSM_MID_MEGA_TIMESTAMP,      BW_RBSM_MID_MEGA_FIRMWARE_HASH,
        BW_RBSM_MID_ERROR,
    };
    const uint8_t *ids = r->deployed ? every_deployed : every;
    size_t nids = r->deployed ? sizeof every_deployed : sizeof every;
    if (c->broken || c->dev[0] != 1 || c->dev[1] != (r->deployed ? 0 : 1))
        return false;
    for (size_t i = 0; i < nids; i++)
        if (c->n[ids[i]] != 1)
            return false;
    for (unsigned id = 0; id < 255; id++)
        if (c->n[id] > 1)
            return false;
    return true;
}

/* A loop is complete (its enc_timestamp came). */
static void on_cycle(bw_base_t *b, uint32_t ms, double now)
{
    rbsm_drv_t *r = D(b);
    cycle_t *c = &r->cyc;
    bool ok = whole(r, c);
    bool bad = false;
    /* The steering first: the encoder's reading of the loop turns by it. */
    if (c->n[BW_RBSM_MID_MEGA_STEER_FEEDBACK] == 1)
        bad |= on_steer(r, c->steer);
    else
        r->fb_age++;
    if (ok && c->n[BW_RBSM_MID_ENC_RESET_CONFIRM] == 1)
        r->reset_confirmed = true;
    /* Deployed: the count and the stamp of one loop, so one count (two
     * would be a loop's closing stamp lost, and the count of which?). */
    reading_t x = { .valid = r->deployed ? c->n[BW_RBSM_MID_ENC_TICKS_RESET] == 1
                                         : c->n[BW_RBSM_MID_ENC_TICKS_RESET] >= 1,
                    .have_last = c->n[BW_RBSM_MID_ENC_TICKS_LAST] >= 1,
                    .last = c->last,
                    .ticks = c->ticks,
                    .ms = ms,
                    .steer = r->steer_fb,
                    .now = now };
    bad |= on_reading(b, &x);
    (void)bw_base_implausible(b, bad);
    if (ok) {
        bw_base_state_t *st = &b->st;
        /* The Mega writes 0 or 1 for the brake and the mode; any other
         * value is a damaged word, and says nothing: what is shown is
         * handed over again, so that the loops either side of it cannot
         * agree on a change across it. */
        r->brake = c->brake <= 1 ? bw_rbsm_brake_engaged(r->variant, c->brake) : st->brake;
        if (c->auton <= 1) {
            if (r->have_auton && c->auton == r->auton) {
                st->commands_ignored = c->auton == 0;
                snprintf(st->mode, sizeof st->mode, "%s", c->auton ? "auton" : "rc");
            }
            r->auton = c->auton;
            r->have_auton = true;
        } else {
            r->auton = st->commands_ignored ? 0 : 1;
            r->have_auton = st->mode[0] != 0;
        }
        if (c->n[BW_RBSM_MID_ERROR])
            on_error_word(r, c->error, now);
        if (c->n[BW_RBSM_MID_MEGA_BATTERY_LEVEL] && c->battery > 0 && c->battery < 100000u) {
            uint32_t d = c->battery > r->battery_prev ? c->battery - r->battery_prev
                                                      : r->battery_prev - c->battery;
            if (r->have_battery && d <= BATTERY_AGREE_MV)
                st->battery = c->battery / 1000.0;
            r->battery_prev = c->battery;
            r->have_battery = true;
        }
        if (c->n[BW_RBSM_MID_MEGA_FIRMWARE_HASH]) {
            if (r->have_hash && c->hash == r->hash_prev)
                snprintf(st->firmware, sizeof st->firmware, "%08lx", (unsigned long)c->hash);
            r->hash_prev = c->hash;
            r->have_hash = true;
        }
        cycle_ok(b, now);
    }
    memset(c, 0, sizeof *c);
}

/* Whether the Mega sends messages of this id: not the host's commands, the
 * lighting system's, the reserved id, or an id nobody defined; the
 * deployed Mega only its twelve and the reset confirm. */
static bool from_mega(const rbsm_drv_t *r, uint8_t id)
{
    if (r->deployed)
        switch (id) {
        case BW_RBSM_MID_MEGA_STEER_ANGLE:
        case BW_RBSM_MID_MEGA_BRAKE_STATE:
        case BW_RBSM_MID_DEVICE_ID:
        case BW_RBSM_MID_MEGA_TELEOP_BRAKE_COMMAND:
        case BW_RBSM_MID_BRAKE_COMMAND:
        case BW_RBSM_MID_MEGA_AUTON_STATE:
        case BW_RBSM_MID_MEGA_BATTERY_LEVEL:
        case BW_RBSM_MID_MEGA_STEER_FEEDBACK:
        case BW_RBSM_MID_ENC_TICKS_RESET:
        case BW_RBSM_MID_MEGA_TIMESTAMP:
        case BW_RBSM_MID_MEGA_FIRMWARE_HASH:
        case BW_RBSM_MID_ERROR:
        case BW_RBSM_MID_ENC_RESET_CONFIRM: return true;
        default: return false;
        }
    return bw_rbsm_known(id) && id != BW_RBSM_MID_ENC_RESET_REQUEST &&
           id != BW_RBSM_MID_MEGA_COMMAND && id != BW_RBSM_MID_LIGHTING;
}

static void on_message(bw_base_t *b, const bw_rbsm_frame_t *f, double now)
{
    rbsm_drv_t *r = D(b);
    cycle_t *c = &r->cyc;
    /* Bytes lost since the last message: a message of this loop may be
     * among them, or have made a false one. */
    uint64_t lost = r->parser.stats.length_errors + r->parser.stats.skipped_bytes;
    if (lost != r->lost_seen)
        c->broken = true;
    r->lost_seen = lost;
    if (!from_mega(r, f->id)) {
        if (!bw_rbsm_known(f->id))
            r->sub_stats.unknown++;
        c->broken = true;
        return;
    }
    if (c->n[f->id] < 255)
        c->n[f->id]++;
    switch (f->id) {
    case BW_RBSM_MID_DEVICE_ID:
        if (f->word <= (r->deployed ? BW_RBSM_DID_MEGA : BW_RBSM_DID_DRIVE_ENCODER))
            c->dev[f->word]++;
        else
            c->broken = true;
        break;
    case BW_RBSM_MID_ENC_TICKS_LAST: c->last = f->word; break;
    case BW_RBSM_MID_ENC_TICKS_RESET: c->ticks = f->word; break;
    case BW_RBSM_MID_ENC_TIMESTAMP:
        if (!r->deployed)
            on_cycle(b, f->word, now);
        break;
    case BW_RBSM_MID_MEGA_TIMESTAMP:
        if (r->deployed) /* the deployed loop's stamp */
            on_cycle(b, f->word, now);
        break;
    case BW_RBSM_MID_MEGA_STEER_FEEDBACK: c->steer = (int32_t)f->word; break;
    case BW_RBSM_MID_MEGA_BRAKE_STATE: c->brake = f->word; break;
    case BW_RBSM_MID_MEGA_AUTON_STATE: c->auton = f->word; break;
    case BW_RBSM_MID_MEGA_BATTERY_LEVEL: c->battery = f->word; break;
    case BW_RBSM_MID_ERROR: c->error = f->word; break;
    case BW_RBSM_MID_MEGA_FIRMWARE_HASH: c->hash = f->word; break;
    default: break; /* timestamps, echoes of commands */
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
    .caps = BW_CAP_STEER | BW_CAP_ODOMETRY | BW_CAP_BATTERY | BW_CAP_BRAKE | BW_CAP_FAULTS |
            BW_CAP_ENCODERS,
    .params = params,
    .max_v = 0, /* not commanded */
    .max_w = 0,
    .link_timeout = 0.3,
    /* No line gap: no length byte can hold the receiver back, and the
     * footer rule finds the next message after any gap. */
    .baud = BW_RBSM_BAUD,
    .model_baud = model_baud,
    .init = init,
    .on_open = on_open,
    .on_input = on_input,
    .on_tick = on_tick,
    .on_drive = on_drive,
    .stop_bytes = stop_bytes,
    .next_deadline = next_deadline,
};
