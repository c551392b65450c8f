/* The bare Create host driver: the Open Interface straight from the host, as
 * libcreate speaks it. Start, Full (or Safe), Drive Direct, sensor group 6
 * streamed every 15 ms.
 *
 * Every Stream frame is a report of the distance and angle since the last
 * one, so a frame lost on the line loses its 15 ms of motion for good. The
 * driver counts the frames lost (a frame's worth of bytes skipped by the
 * parser is a frame rejected; a silence of the line, less the bytes that
 * come after it, is frames that never came) and estimates their motion from
 * the commands it sent meanwhile when the frame after shows the robot heard
 * them, else from the wheel speeds the frames before and after say were
 * requested (st.estimated, st.estimated_time: an estimate never passes as a
 * measurement). A frame the checksum let through with values no Create has,
 * or more motion than it can make in 15 ms, is set aside
 * (st.link.implausible) and estimated the same way.
 *
 * The line damages commands too: a frame's requested speeds that stay off
 * what was sent make the driver send it again; Full (or Safe) and the
 * Stream are asked again when a frame, or the silence, shows them lost.
 *
 * The OI has no watchdog: a Create drives on its last command until told
 * otherwise. The driver stops it when closed and when the link is lost; a
 * host that dies cannot (docs/create.md).
 *
 * ?model=create2 (a Create 2, Roomba 600 OI; 115200 baud unless ?baud=):
 * group 100 streamed, and odometry from its encoder counts (packets 43 and
 * 44: cumulative, 16-bit, wrapping), not from distance and angle (truncated
 * per read, and wrong in some of its firmwares: the Create 2 OI's
 * appendix). A frame lost costs no motion: the next one's counts hold it
 * (docs/create2.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../base/base_internal.h"
#include "botwire/create.h"
#include "botwire/create_base.h"
#include "host.h"

#define STREAM_PERIOD 0.015 /* s: the Create's stream, the time of one frame */
#define RESEND 0.2          /* s between Drive Directs while moving (a line may lose one) */
#define STARTUP 0.5         /* s without a frame after which the stream is asked again */
/* s after a Drive Direct by which the frames' requested speeds show it: if
 * two frames then still disagree, it was lost or damaged on the way. */
#define ECHO_LAG 0.05
/* s of silence of the line (a busy host, a USB adapter's latency) before
 * the frames its time holds count as frames that never came. */
#define LATE 0.045
/* s without a frame, online, after which the stream is asked for again (a
 * Stream or a Pause damaged on the way stops it): before the link times out */
#define STREAM_QUIET 0.08
#define LOG_MAX 32 /* commands kept (half a second of changes, at most one a frame) */
#define MODE_RESEND 0.2 /* s between mode commands while the mode asked is not reached */
/* s a frame's 15 ms may be off (the Create counts in steps of its own) */
#define MOTION_SLACK 0.005

typedef struct {
    bw_create_stream_parser_t parser;
    bw_parse_stats_t sub_stats;
    bool safe;              /* ?mode=safe */
    bool two;               /* ?model=create2 */
    double last_send, last_ask;
    bool have_frame;        /* a frame came since the port opened */
    bool have_last;         /* ...and one was taken: last, odo */
    bw_create_odo_t odo;
    bw_create_sensors_t last; /* the last frame taken */
    /* Frames: each one the motion of 15 ms, measured or estimated. */
    double arrived;         /* when the last frame came */
    uint64_t skipped;       /* the parser's skipped bytes then */
    size_t frame_bytes;     /* a frame's size on the wire */
    unsigned pending;       /* frames since the last one taken whose motion is unmeasured */
    double taken_t;         /* when the last frame taken came */
    double first_send;      /* the first command sent since the last frame taken (INFINITY: none) */
    unsigned nlog;          /* commands sent: the last LOG_MAX kept, when, what they ask */
    struct sent_cmd {
        double t;
        int16_t right, left;
    } log[LOG_MAX];
    /* What the robot should be doing: the wheel speeds of the twist. */
    int16_t want_right, want_left;
    unsigned echo_off;      /* frames in a row whose requested speeds are not those */
    bool was_online;
    bool mode_reached;      /* a frame showed the mode asked for (Safe may fall back later) */
    double last_mode;       /* when the mode was last asked */
    double last_stream;     /* when the stream was last asked */
    double last_bytes;      /* when bytes last came */
    unsigned silent;        /* frames that never came, for the next frame to count */
    bool have_enc;          /* st.encoder holds a Create 2's counts */
    /* Seek Dock sent: the robot is left in Passive (driving itself, then
     * charging on its dock) until the host drives it or stops it seeking. */
    bool hands_off;
    /* Passive asked by the host (bw_create_base_mode): the robot stands,
     * and drives are not sent (it would not obey them) until Safe or Full. */
    bool passive;
} create_drv_t;

static create_drv_t *D(const bw_base_t *b) { return b->drv; }

static int init(bw_base_t *b, const bw_url_t *url, char *err, size_t errlen)
{
    const char *mode = bw_url_param(url, "mode");
    if (mode && strcmp(mode, "safe") != 0 && strcmp(mode, "full") != 0) {
        snprintf(err, errlen, "mode=%s: the OI mode to drive in is safe or full", mode);
        return BW_EINVAL;
    }
    D(b)->safe = mode && strcmp(mode, "safe") == 0;
    const char *model = bw_url_param(url, "model");
    if (model && strcmp(model, "create") != 0 && strcmp(model, "create1") != 0 &&
        strcmp(model, "create2") != 0) {
        snprintf(err, errlen, "model=%s: a Create is create (a Create 1) or create2", model);
        return BW_EINVAL;
    }
    D(b)->two = model && strcmp(model, "create2") == 0;
    if (D(b)->two && !bw_url_param(url, "baud"))
        b->baud = BW_CREATE2_BAUD; /* the model's rate, not the family's */
    if (D(b)->two) /* both wheels at 0.5 m/s the other way, 235 mm apart */
        b->max_w = 0.5 / (BW_CREATE2_WHEELBASE_M / 2);
    /* The bumper's two switches as packet 7 numbers them: 0 right, 1 left. */
    b->st.nbump_switches = 2;
    if (D(b)->two) {
        /* Packets 43 and 44: each wheel's counts, 508.8 a turn of a 72 mm
         * wheel (the Create 2 OI). A Create 1 reports mm and degrees only. */
        b->caps |= BW_CAP_ENCODERS;
        b->st.counts_per_m = BW_CREATE2_COUNTS_PER_TURN / (BW_PI * BW_CREATE2_WHEEL_DIAMETER_M);
        b->st.wheel_radius = BW_CREATE2_WHEEL_DIAMETER_M / 2;
    }
    return 0;
}

/* A Create 2's rate (bw_device_model_baud). */
static int model_baud(const char *model)
{
    return strcmp(model, "create2") == 0 ? (int)BW_CREATE2_BAUD : 0;
}

/* The packet streamed: all the model has (7..42, a Create 2's 7..58). */
static uint8_t stream_group(const create_drv_t *c)
{
    return c->two ? BW_CREATE_GROUP_100 : BW_CREATE_GROUP_6;
}

static double wheelbase(const create_drv_t *c)
{
    return c->two ? BW_CREATE2_WHEELBASE_M : BW_CREATE_WHEELBASE_M;
}

/* A command that asks the robot for other wheel speeds (mm/s) than the
 * last frame taken said it had: the first one since is when a change the
 * frames show is taken to have happened, if frames between were lost. (A
 * Drive Direct sent again, the same, changes nothing.) */
static void sent(create_drv_t *c, int16_t right, int16_t left, double now)
{
    bool change = !c->have_last || right != c->last.requested_right_speed ||
                  left != c->last.requested_left_speed;
    if (change && isinf(c->first_send))
        c->first_send = now;
    unsigned i = c->nlog++ % LOG_MAX;
    c->log[i].t = now;
    c->log[i].right = right;
    c->log[i].left = left;
}

/* The i-th command sent back from the last (0: the last), as far as the
 * log goes, or NULL. */
static const struct sent_cmd *sent_back(const create_drv_t *c, unsigned i)
{
    return i < c->nlog && i < LOG_MAX ? &c->log[(c->nlog - 1 - i) % LOG_MAX] : NULL;
}

static void send(bw_base_t *b, const uint8_t *bytes, size_t n, double now)
{
    bw_base_send(b, bytes, n, now);
    D(b)->last_send = now;
}

static void send_twist(bw_base_t *b, double now);

/* Start, the mode, and group 6 streamed; after Seek Dock, Start and the
 * stream alone (Passive: the mode would end the charging on the dock). */
static void start(bw_base_t *b, double now)
{
    uint8_t cmd[] = { BW_CREATE_OP_START, D(b)->safe ? BW_CREATE_OP_SAFE : BW_CREATE_OP_FULL,
                      BW_CREATE_OP_STREAM, 1, stream_group(D(b)) };
    if (D(b)->hands_off || D(b)->passive) {
        cmd[1] = BW_CREATE_OP_STREAM;
        cmd[2] = 1;
        cmd[3] = stream_group(D(b));
    }
    send(b, cmd, D(b)->hands_off || D(b)->passive ? sizeof cmd - 1 : sizeof cmd, now);
    sent(D(b), 0, 0, now); /* Start: Passive mode, the wheels stopped */
    D(b)->last_ask = D(b)->last_mode = D(b)->last_stream = now;
    D(b)->mode_reached = false;
}

/* The stream again: a Stream command damaged on the way (other packets), a
 * Pause read out of a command's data bytes. */
static void ask_stream(bw_base_t *b, double now)
{
    const uint8_t cmd[] = { BW_CREATE_OP_PAUSE_RESUME_STREAM, 1, BW_CREATE_OP_STREAM, 1,
                            stream_group(D(b)) };
    send(b, cmd, sizeof cmd, now);
    D(b)->last_stream = now;
}

/* The mode asked for, until a frame shows it: Full or Safe may be lost on
 * the way, and the OI stays Passive, where it drives nothing. Full is
 * asked again whenever the OI is found out of it (it never leaves Full by
 * itself); Safe only until reached, since the robot leaves it for Passive
 * at a cliff or a wheel drop, and must stay stopped there. */
static void check_mode(bw_base_t *b, const bw_create_sensors_t *s, double now)
{
    create_drv_t *c = D(b);
    if (c->hands_off || c->passive)
        return; /* Passive on purpose: Full or Safe would end the seeking, or the charging */
    uint8_t want = c->safe ? BW_CREATE_MODE_SAFE : BW_CREATE_MODE_FULL;
    if (s->oi_mode == want) {
        c->mode_reached = true;
        return;
    }
    if ((c->mode_reached && c->safe) || now - c->last_mode < MODE_RESEND)
        return;
    uint8_t op = c->safe ? BW_CREATE_OP_SAFE : BW_CREATE_OP_FULL;
    send(b, &op, 1, now);
    c->last_mode = now;
    if (b->cmd_v != 0 || b->cmd_w != 0)
        send_twist(b, now); /* the drive passive mode did not take */
}

static void on_open(bw_base_t *b, double now)
{
    create_drv_t *c = D(b);
    bw_create_stream_parser_init(&c->parser, BW_CREATE_SUM_WITH_HEADER);
    bw_create_stream_parser_model(&c->parser, c->two ? BW_CREATE_MODEL_2 : BW_CREATE_MODEL_1);
    memset(&c->sub_stats, 0, sizeof c->sub_stats);
    c->have_frame = c->have_last = false;
    c->pending = c->silent = 0;
    c->first_send = INFINITY;
    c->nlog = 0;
    c->echo_off = 0;
    memset(&c->odo, 0, sizeof c->odo);
    start(b, now);
}

/* The wheel speeds of the commanded twist, mm/s: Drive Direct's. */
static void twist_wheels(const bw_base_t *b, int16_t *right, int16_t *left)
{
    double half = wheelbase(D(b)) / 2;
    double l = (b->cmd_v - b->cmd_w * half) * 1000, r = (b->cmd_v + b->cmd_w * half) * 1000;
    double top = fmax(fabs(l), fabs(r));
    if (top > BW_CREATE_MAX_SPEED) { /* keep the turn, slow the pace */
        l *= BW_CREATE_MAX_SPEED / top;
        r *= BW_CREATE_MAX_SPEED / top;
    }
    *right = (int16_t)lround(r);
    *left = (int16_t)lround(l);
}

static void send_twist(bw_base_t *b, double now)
{
    create_drv_t *c = D(b);
    twist_wheels(b, &c->want_right, &c->want_left);
    uint8_t cmd[5];
    (void)bw_create_encode_drive_direct(cmd, sizeof cmd, c->want_right, c->want_left);
    send(b, cmd, sizeof cmd, now);
    sent(c, c->want_right, c->want_left, now);
    c->echo_off = 0;
}

static void on_drive(bw_base_t *b, double now)
{
    create_drv_t *c = D(b);
    if (c->passive)
        return; /* the host's Passive: nothing it would obey */
    if (c->hands_off) {
        /* Standing on its dock (it docked; nothing to stop): left charging
         * in Passive. Else the robot is taken back: the mode first (it
         * stops the robot's own driving), then the twist. */
        if (b->cmd_v == 0 && b->cmd_w == 0 && !b->st.self_driving)
            return;
        c->hands_off = false;
        uint8_t op = c->safe ? BW_CREATE_OP_SAFE : BW_CREATE_OP_FULL;
        send(b, &op, 1, now);
        c->last_mode = now;
        c->mode_reached = false;
    }
    send_twist(b, now);
}

/* Seek Dock (a Create 1's Cover and Dock, the same opcode): the robot
 * Passive and on its own until on the dock. */
static int seek_dock(bw_base_t *b, double now)
{
    static const uint8_t op = BW_CREATE2_OP_SEEK_DOCK;
    send(b, &op, 1, now);
    sent(D(b), 0, 0, now);
    D(b)->hands_off = true;
    D(b)->passive = false;
    return 0;
}

/* What a frame cannot be: values no Create has, a battery that jumps, more
 * motion than 15 ms allows (less is a robot held back: it pushes into a
 * wall as told). */
/* The encoder counts since the last frame taken, mm, as the wheels turned
 * (a 16-bit difference: the counts wrap). */
static void encoder_travel(const bw_create_sensors_t *last, const bw_create_sensors_t *s,
                           double *left, double *right)
{
    const double mm = BW_PI * BW_CREATE2_WHEEL_DIAMETER_M * 1000 / BW_CREATE2_COUNTS_PER_TURN;
    *left = (int16_t)(uint16_t)((uint16_t)s->left_encoder_counts -
                                (uint16_t)last->left_encoder_counts) * mm;
    *right = (int16_t)(uint16_t)((uint16_t)s->right_encoder_counts -
                                 (uint16_t)last->right_encoder_counts) * mm;
}

/* A Create 2's frame: its values as a Create 1's check sees them (its
 * buttons are 8 bits, its byte 15 Dirt Detect), its light bump signals
 * within 4095, and no wheel farther than 500 mm/s takes it in the frames'
 * time since the last taken. */
static bool implausible2(const create_drv_t *c, const bw_create_sensors_t *s)
{
    bw_create_sensors_t v = *s;
    v.buttons = 0;
    const uint16_t sig[] = { s->light_bump_left_signal,         s->light_bump_front_left_signal,
                             s->light_bump_center_left_signal,  s->light_bump_center_right_signal,
                             s->light_bump_front_right_signal,  s->light_bump_right_signal };
    for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++)
        if (sig[i] > 4095)
            return true;
    if (!bw_create_values_ok(&v, NULL, 0, false) || (s->light_bumper & ~0x3Fu) ||
        (s->stasis & ~0x03u) || (c->have_last && bw_create_battery_jump(&c->last, s)))
        return true;
    if (!c->have_last)
        return false;
    double l, r;
    encoder_travel(&c->last, s, &l, &r);
    double most = BW_CREATE_MAX_SPEED * (STREAM_PERIOD * (c->pending + 1) + MOTION_SLACK) + 2;
    return fabs(l) > most || fabs(r) > most;
}

static bool implausible(const create_drv_t *c, const bw_create_stream_frame_t *f,
                        const bw_create_sensors_t *s)
{
    if (c->two)
        return implausible2(c, s);
    const uint8_t *group6 = f->len == 1 + BW_CREATE_GROUP6_SIZE ? f->body + 1 : NULL;
    return !bw_create_values_ok(s, group6, 0, false) ||
           (c->have_last && bw_create_battery_jump(&c->last, s)) ||
           bw_create_motion_check(&c->odo, c->have_last ? &c->last : NULL, s, STREAM_PERIOD,
                                  MOTION_SLACK, false) > 0;
}

/* t seconds at a Drive Direct's wheel speeds, into the pose. */
static void stretch(bw_base_t *b, int16_t right, int16_t left, double t)
{
    create_drv_t *c = D(b);
    bw_create_sensors_t req = c->last;
    req.requested_right_speed = right;
    req.requested_left_speed = left;
    bw_base_state_t *st = &b->st;
    bw_create_estimate(&c->odo, &st->pose, &st->v, &st->w, &req, t, STREAM_PERIOD);
}

/* The motion of the frames lost since the last one taken, up to this one.
 * When the commands sent since end at the speeds this frame says were
 * requested, the robot heard them: each stretch between them at what it
 * asked. Otherwise at the speeds the last frame said until the first
 * command sent since that changes them, then at this frame's; without such
 * a command the change is taken half way. */
static void estimate_lost(bw_base_t *b, const bw_create_sensors_t *s, double now)
{
    create_drv_t *c = D(b);
    double span = c->pending * STREAM_PERIOD;
    double from = now - STREAM_PERIOD - span; /* when the lost frames began */
    /* The commands sent since the last frame taken, oldest first. */
    unsigned n = 0;
    while (sent_back(c, n) && sent_back(c, n)->t > c->taken_t)
        n++;
    const struct sent_cmd *last = sent_back(c, 0);
    bool drive_direct = s->requested_speed == 0 && c->last.requested_speed == 0;
    if (drive_direct && n > 0 && last->right == s->requested_right_speed &&
        last->left == s->requested_left_speed) {
        int16_t r = c->last.requested_right_speed, l = c->last.requested_left_speed;
        double t = from, end = from + span;
        for (unsigned i = n; i-- > 0 && sent_back(c, i)->t < end;) {
            double at = fmax(t, sent_back(c, i)->t);
            stretch(b, r, l, at - t);
            t = at;
            r = sent_back(c, i)->right;
            l = sent_back(c, i)->left;
        }
        stretch(b, r, l, end - t);
        b->st.estimated_time += span;
        return;
    }
    double t1 = span / 2;
    int16_t l0, r0, l1, r1;
    l0 = c->last.requested_left_speed, r0 = c->last.requested_right_speed;
    l1 = s->requested_left_speed, r1 = s->requested_right_speed;
    bool same = l0 == l1 && r0 == r1 && c->last.requested_speed == s->requested_speed &&
                c->last.requested_radius == s->requested_radius;
    if (same)
        t1 = span;
    else if (isfinite(c->first_send))
        t1 = fmax(0, fmin(span, c->first_send - from));
    bw_base_state_t *st = &b->st;
    bw_create_estimate(&c->odo, &st->pose, &st->v, &st->w, &c->last, t1, STREAM_PERIOD);
    bw_create_estimate(&c->odo, &st->pose, &st->v, &st->w, s, span - t1, STREAM_PERIOD);
    st->estimated_time += span;
}

/* A Create 2's motion since the last frame taken (dt seconds): the
 * encoders' travel, on an arc, into the pose. */
static void encoder_odometry(bw_base_t *b, const bw_create_sensors_t *s, double dt)
{
    create_drv_t *c = D(b);
    bw_base_state_t *st = &b->st;
    double l, r;
    encoder_travel(&c->last, s, &l, &r);
    double ds = (l + r) / 2 / 1000, dth = (r - l) / 1000 / BW_CREATE2_WHEELBASE_M;
    double mid = st->pose.theta + dth / 2;
    st->pose.x += ds * cos(mid);
    st->pose.y += ds * sin(mid);
    st->pose.theta = bw_angle_norm(st->pose.theta + dth);
    st->v = ds / dt;
    st->w = dth / dt;
}

/* A Create 2's counts, unwrapped: 16-bit differences added from the first
 * frame on (step false: a new reference, a robot reset or the port
 * reopened; the counts carry on from where they were, as the pose does). */
static void encoder_counts(create_drv_t *c, bw_base_state_t *st, const bw_create_sensors_t *s,
                           bool step)
{
    const uint16_t cur[2] = { (uint16_t)s->left_encoder_counts,
                              (uint16_t)s->right_encoder_counts };
    const uint16_t last[2] = { (uint16_t)c->last.left_encoder_counts,
                               (uint16_t)c->last.right_encoder_counts };
    for (int i = 0; i < 2; i++) {
        if (!c->have_enc)
            st->encoder[i] = cur[i];
        else if (step)
            st->encoder[i] += (int16_t)(uint16_t)(cur[i] - last[i]);
    }
    c->have_enc = true;
}

/* The robot's requested speeds are not what this side asked: a Drive Direct
 * lost or damaged on the way (or a Start heard, which zeroes them). Two
 * frames in a row, in a mode that drives: sent again. */
static void check_echo(bw_base_t *b, const bw_create_sensors_t *s, double now)
{
    create_drv_t *c = D(b);
    bool drives = s->oi_mode == BW_CREATE_MODE_SAFE || s->oi_mode == BW_CREATE_MODE_FULL;
    bool off = s->requested_right_speed != c->want_right ||
               s->requested_left_speed != c->want_left;
    if (!drives || !off || now - c->last_send < ECHO_LAG) {
        c->echo_off = 0;
        return;
    }
    if (++c->echo_off >= 2)
        send_twist(b, now);
}

/* A frame. The frames lost before it: a frame's worth of bytes skipped
 * each (a rejected frame), and those that never came (c->silent). */
static void on_frame(bw_base_t *b, const bw_create_stream_frame_t *f, double now)
{
    create_drv_t *c = D(b);
    bw_base_state_t *st = &b->st;
    bw_create_sensors_t s = c->last;
    (void)bw_create_decode_stream(f, &s);
    uint64_t skipped = c->parser.stats.skipped_bytes;
    size_t size = 3u + f->len;
    if (c->have_frame)
        c->pending +=
            (unsigned)lround((double)(skipped - c->skipped) / (double)c->frame_bytes) + c->silent;
    c->silent = 0;
    c->have_frame = true;
    c->arrived = now;
    c->skipped = skipped;
    c->frame_bytes = size;

    bool bad = implausible(c, f, &s);
    if (bw_base_implausible(b, bad)) {
        c->pending++; /* set aside: its 15 ms are estimated with the next frame's */
        return;
    }
    bw_create_to_state(st, &s, 0);
    st->bump_switches = s.bumps_wheel_drops & (BW_CREATE_BUMP_RIGHT | BW_CREATE_BUMP_LEFT);
    if (st->self_driving && (st->charge_sources & BW_SOURCE_DOCK)) {
        st->self_driving = false; /* it has docked: its seeking is over */
        bw_base_stop_bytes_changed(b);
    }
    st->estimated = false;
    if (c->two) {
        /* The counts hold every frame's motion, those lost too. A frame
         * believed after a run set aside (a robot reset: its counts from
         * zero) is the new reference, its jump not taken. */
        if (c->have_last && !bad)
            encoder_odometry(b, &s, (c->pending + 1) * STREAM_PERIOD);
        encoder_counts(c, st, &s, c->have_last && !bad);
    } else {
        if (c->have_last && c->pending) {
            estimate_lost(b, &s, now);
            st->estimated = true;
        }
        /* Each frame covers one stream period, however late it is read. */
        bw_create_odometry(&c->odo, &st->pose, &st->v, &st->w, &s, STREAM_PERIOD, false, NAN);
    }
    c->pending = 0;
    c->last = s;
    c->have_last = true;
    c->taken_t = now;
    c->first_send = INFINITY;
    bw_base_frame_ok(b, now);
    check_mode(b, &s, now);
    check_echo(b, &s, now);
}

static void on_input(bw_base_t *b, const uint8_t *data, size_t n, double now)
{
    create_drv_t *c = D(b);
    /* Frames that never came: after a silence of the line (a cut, a robot
     * or emulator stalled), the frames its time holds that these bytes do
     * not bring (they may be the stalled robot's backlog). Counted by bytes,
     * not by the frames the parser gives: it may hold some back behind a
     * damaged length, and a host busy elsewhere reads many at once. */
    if (c->have_frame && now - c->last_bytes > LATE) {
        double missing = (now - c->last_bytes) / STREAM_PERIOD - (double)n / (double)c->frame_bytes;
        if (missing >= 1)
            c->silent += (unsigned)lround(missing);
    }
    c->last_bytes = now;
    bw_create_stream_frame_t f;
    int rc;
    while (b->port && (rc = bw_create_stream_parse(&c->parser, &data, &n, &f)) != 0) {
        if (rc < 0)
            continue;
        size_t want = c->two ? BW_CREATE_GROUP100_SIZE : BW_CREATE_GROUP6_SIZE;
        if (f.len != 1 + want || f.body[0] != stream_group(c)) {
            /* Not the frame asked for: the Stream command was damaged. */
            c->sub_stats.unknown++;
            if (now - c->last_stream >= STREAM_QUIET)
                ask_stream(b, now);
            continue;
        }
        on_frame(b, &f, now);
    }
    b->st.link = c->parser.stats;
    bw_parse_stats_add(&b->st.link, &c->sub_stats);
}

static void on_tick(bw_base_t *b, double now)
{
    create_drv_t *c = D(b);
    bool online = b->st.online;
    if (c->was_online && !online)
        sent(c, 0, 0, now); /* the base has just sent the stop */
    if (!c->was_online && online && (b->cmd_v != 0 || b->cmd_w != 0))
        send_twist(b, now); /* back: the robot may have heard the stop */
    c->was_online = online;
    /* A Create that was off, or a line that lost the start: ask again. A
     * robot that cannot be seen is not driven meanwhile. */
    if (!online && now >= c->last_ask + STARTUP)
        start(b, now);
    else if (online && !c->passive && (b->cmd_v != 0 || b->cmd_w != 0) &&
             now >= c->last_send + RESEND)
        send_twist(b, now);
    if (online && now - c->arrived >= STREAM_QUIET && now - c->last_stream >= STREAM_QUIET)
        ask_stream(b, now);
}

static double next_deadline(const bw_base_t *b)
{
    const create_drv_t *c = D(b);
    double t = b->st.online ? INFINITY : c->last_ask + STARTUP;
    if (b->st.online && !c->passive && (b->cmd_v != 0 || b->cmd_w != 0))
        t = fmin(t, c->last_send + RESEND);
    if (b->st.online)
        t = fmin(t, fmax(c->arrived, c->last_stream) + STREAM_QUIET + 1e-6);
    return t;
}

/* The wheels stopped; a robot seeking its dock (Passive, driving itself)
 * is taken back by the mode first. One standing on its dock is left in
 * Passive, charging (Full or Safe would end it). */
static size_t stop_bytes(const bw_base_t *b, uint8_t *buf, size_t cap)
{
    size_t k = 0;
    if (b->st.self_driving && cap > 0)
        buf[k++] = D(b)->safe ? BW_CREATE_OP_SAFE : BW_CREATE_OP_FULL;
    int n = bw_create_encode_drive_direct(buf + k, cap - k, 0, 0);
    return n > 0 ? (size_t)n + k : 0;
}

/* The stream paused and the OI back in passive mode, as the robot is left
 * for a person to pick up. */
static void on_close(bw_base_t *b, double now)
{
    static const uint8_t bye[] = { BW_CREATE_OP_PAUSE_RESUME_STREAM, 0, BW_CREATE_OP_START };
    send(b, bye, sizeof bye, now);
}

static const char *const params[] = { "mode", "model", NULL };

const bw_driver_ops_t bw_create_driver_ops = {
    .family = "create",
    .size = sizeof(create_drv_t),
    .caps = BW_CAP_DRIVE | BW_CAP_ODOMETRY | BW_CAP_BUMPERS | BW_CAP_CLIFFS |
            BW_CAP_WHEEL_DROPS | BW_CAP_BUTTONS | BW_CAP_BATTERY | BW_CAP_CHARGING |
            BW_CAP_BUMP_SWITCHES | BW_CAP_SEEK_DOCK,
    .params = params,
    .max_v = 0.5,
    .max_w = 0.5 / (BW_CREATE_WHEELBASE_M / 2),
    .link_timeout = 0.2,
    .baud = 57600,
    .model_baud = model_baud,
    .init = init,
    .on_open = on_open,
    .on_input = on_input,
    .on_tick = on_tick,
    .on_drive = on_drive,
    .stop_bytes = stop_bytes,
    .on_close = on_close,
    .next_deadline = next_deadline,
    .seek_dock = seek_dock,
};

/* ---- the Create's own, from a base (botwire/create_base.h) ---------------- */

/* The base's Create driver, or NULL for a base of another family. */
static create_drv_t *own(const bw_base_t *b)
{
    return b && b->ops == &bw_create_driver_ops ? D(b) : NULL;
}

/* A command of the Create's own may go: 0, BW_ENOTSUP, BW_ECLOSED. */
static int own_ready(bw_base_t *b)
{
    if (!own(b))
        return BW_ENOTSUP;
    if (!b->port)
        return BW_ECLOSED;
    b->changes++;
    return 0;
}

int bw_create_base_drive_direct(bw_base_t *b, double left, double right, double now)
{
    if (!own(b))
        return BW_ENOTSUP;
    const double top = BW_CREATE_MAX_SPEED / 1000.0;
    if (!(fabs(left) <= top && fabs(right) <= top))
        return BW_EINVAL;
    /* the twist whose wheel speeds these are (twist_wheels' inverse) */
    return bw_base_drive(b, (left + right) / 2, (right - left) / wheelbase(D(b)), now);
}

int bw_create_base_mode(bw_base_t *b, const char *mode, double now)
{
    int rc = own_ready(b);
    if (rc)
        return rc;
    create_drv_t *c = D(b);
    if (!mode || (strcmp(mode, "passive") && strcmp(mode, "safe") && strcmp(mode, "full")))
        return BW_EINVAL;
    c->hands_off = false;
    if (strcmp(mode, "passive") == 0) {
        static const uint8_t op = BW_CREATE_OP_START; /* Start: Passive from any mode */
        send(b, &op, 1, now);
        sent(c, 0, 0, now);
        c->passive = true;
        return 0;
    }
    c->passive = false;
    c->safe = strcmp(mode, "safe") == 0;
    uint8_t op = c->safe ? BW_CREATE_OP_SAFE : BW_CREATE_OP_FULL;
    send(b, &op, 1, now);
    c->last_mode = now;
    c->mode_reached = false;
    if (b->cmd_v != 0 || b->cmd_w != 0)
        send_twist(b, now); /* the drive in force, now obeyed */
    return 0;
}

/* The last song number the model keeps: a Create 1's 15, a Create 2's 4. */
static unsigned last_song(const create_drv_t *c) { return c->two ? 4 : 15; }

int bw_create_base_song(bw_base_t *b, unsigned number, const uint8_t *notes,
                        const double *seconds, size_t n, double now)
{
    if (!own(b))
        return BW_ENOTSUP;
    if (number > last_song(D(b)) || n < 1 || n > BW_CREATE_MAX_SONG || !notes || !seconds)
        return BW_EINVAL;
    uint8_t cmd[3 + 2 * BW_CREATE_MAX_SONG] = { BW_CREATE_OP_SONG, (uint8_t)number, (uint8_t)n };
    for (size_t i = 0; i < n; i++) {
        double t = seconds[i] * 64; /* in 1/64 s */
        if (!(t >= 0 && t <= 255.5))
            return BW_EINVAL;
        cmd[3 + 2 * i] = notes[i];
        cmd[4 + 2 * i] = (uint8_t)lround(t);
    }
    int rc = own_ready(b);
    if (rc == 0)
        send(b, cmd, 3 + 2 * n, now);
    return rc;
}

int bw_create_base_play(bw_base_t *b, unsigned number, double now)
{
    if (own(b) && number > last_song(D(b)))
        return BW_EINVAL;
    int rc = own_ready(b);
    if (rc == 0)
        send(b, (const uint8_t[]){ BW_CREATE_OP_PLAY, (uint8_t)number }, 2, now);
    return rc;
}

int bw_create_base_leds(bw_base_t *b, unsigned bits, unsigned colour, unsigned intensity,
                        double now)
{
    if (own(b) && (bits > 255 || colour > 255 || intensity > 255))
        return BW_EINVAL;
    int rc = own_ready(b);
    if (rc == 0)
        send(b, (const uint8_t[]){ BW_CREATE_OP_LEDS, (uint8_t)bits, (uint8_t)colour,
                                   (uint8_t)intensity }, 4, now);
    return rc;
}

int bw_create_base_digits(bw_base_t *b, const char *text, double now)
{
    if (!own(b) || !D(b)->two)
        return BW_ENOTSUP; /* a Create 1 has no display */
    uint8_t cmd[5] = { BW_CREATE2_OP_DIGIT_LEDS_ASCII, ' ', ' ', ' ', ' ' };
    size_t n = text ? strlen(text) : 0;
    if (!text || n > 4)
        return BW_EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (text[i] < 32 || text[i] > 126)
            return BW_EINVAL;
        cmd[1 + i] = (uint8_t)text[i];
    }
    int rc = own_ready(b);
    if (rc == 0)
        send(b, cmd, sizeof cmd, now);
    return rc;
}

int bw_create_base_value(const bw_base_t *b, const char *name, double *value)
{
    const create_drv_t *c = own(b);
    if (!c)
        return BW_ENOTSUP;
    if (!name || !value)
        return BW_EINVAL;
    const bw_create_sensors_t *s = &c->last;
    bool known = false;
    double v = 0;
#define BW_VALUE(id, member, type)                                                           \
    else if (strcmp(name, #member) == 0) { known = true; v = s->member; }
#define BW_UNUSED(id)
#define BW_VALUE2(id, member, type)                                                          \
    else if (c->two && strcmp(name, #member) == 0) { known = true; v = s->member; }
    if (c->two && strcmp(name, "dirt_detect") == 0) {
        known = true;
        v = s->dirt_detect;
    }
    BW_CREATE_SENSOR_LIST(BW_VALUE, BW_UNUSED)
    BW_CREATE2_SENSOR_LIST(BW_VALUE2)
#undef BW_VALUE
#undef BW_UNUSED
#undef BW_VALUE2
    if (!known)
        return BW_EUNKNOWN;
    if (!c->have_last)
        return BW_ECLOSED; /* no frame yet */
    *value = v;
    return 0;
}
