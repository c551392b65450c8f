/* The bare Create host driver: the Open Interface straight from the host, as
 * libcreate speaks it. Start, Full (or Safe), Drive Direct, sensor group 6
 * streamed every 15 ms.
 *
 * Every Stream frame is a report of the distance and angle since the last
 * one, so a frame lost on the line loses its 15 ms of motion for good. The
 * driver counts the frames lost (a frame's worth of bytes skipped by the
 * parser is a frame rejected; time without frames once they come at their
 * pace again is frames that never came) and estimates their motion from
 * the wheel speeds the robot said it was asked for, before and after, and
 * when this side sent a command in between (st.estimated, st.estimated_time:
 * an estimate never passes as a measurement). A frame the checksum let
 * through with values no Create has, or more motion than it can make in
 * 15 ms, is set aside (st.link.implausible) and estimated the same way.
 *
 * The OI has no watchdog: a Create drives on its last command until told
 * otherwise. The driver stops it when closed and when the link is lost; a
 * host that dies cannot (docs/create.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../base/base_internal.h"
#include "botwire/create.h"
#include "host.h"

#define STREAM_PERIOD 0.015 /* s: the Create's stream, the time of one frame */
#define RESEND 0.2          /* s between Drive Directs while moving (a line may lose one) */
#define STARTUP 0.5         /* s without a frame after which the stream is asked again */
/* s after a Drive Direct by which the frames' requested speeds show it: if
 * two frames then still disagree, it was lost or damaged on the way. */
#define ECHO_LAG 0.05
/* s a frame may come after its time (a busy host, a USB adapter's latency)
 * before the time without frames counts as frames that never came. */
#define LATE 0.045

typedef struct {
    bw_create_stream_parser_t parser;
    bw_parse_stats_t sub_stats;
    bool safe;              /* ?mode=safe */
    double last_send, last_ask;
    bool have_frame;        /* a frame came since the port opened */
    bool have_last;         /* ...and one was taken: last, odo */
    bw_create_odo_t odo;
    bw_create_sensors_t last; /* the last frame taken */
    /* Frames: each one the motion of 15 ms, measured or estimated. */
    double clock;           /* when the last frame came (or should have), on our clock */
    double arrived;         /* when the last frame came */
    uint64_t skipped;       /* the parser's skipped bytes then */
    size_t frame_bytes;     /* a frame's size on the wire */
    unsigned pending;       /* frames since the last one taken whose motion is unmeasured */
    double first_send;      /* the first command sent since the last frame taken (INFINITY: none) */
    /* What the robot should be doing: the wheel speeds of the twist. */
    int16_t want_right, want_left;
    unsigned echo_off;      /* frames in a row whose requested speeds are not those */
    bool was_online;
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
    return 0;
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
}

static void send(bw_base_t *b, const uint8_t *bytes, size_t n, double now)
{
    bw_base_send(b, bytes, n, now);
    D(b)->last_send = now;
}

/* Start, the mode, and group 6 streamed. */
static void start(bw_base_t *b, double now)
{
    uint8_t cmd[] = { BW_CREATE_OP_START, D(b)->safe ? BW_CREATE_OP_SAFE : BW_CREATE_OP_FULL,
                      BW_CREATE_OP_STREAM, 1, BW_CREATE_GROUP_6 };
    send(b, cmd, sizeof cmd, now);
    sent(D(b), 0, 0, now); /* Start: Passive mode, the wheels stopped */
    D(b)->last_ask = now;
}

static void on_open(bw_base_t *b, double now)
{
    create_drv_t *c = D(b);
    bw_create_stream_parser_init(&c->parser, BW_CREATE_SUM_WITH_HEADER);
    memset(&c->sub_stats, 0, sizeof c->sub_stats);
    c->have_frame = c->have_last = false;
    c->pending = 0;
    c->first_send = INFINITY;
    c->echo_off = 0;
    memset(&c->odo, 0, sizeof c->odo);
    start(b, now);
}

/* The wheel speeds of the commanded twist, mm/s: Drive Direct's. */
static void twist_wheels(const bw_base_t *b, int16_t *right, int16_t *left)
{
    double half = BW_CREATE_WHEELBASE_M / 2;
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

static void on_drive(bw_base_t *b, double now) { send_twist(b, now); }

/* What a frame cannot be: values no Create has, a battery that jumps, more
 * motion than 15 ms allows. */
static bool implausible(const create_drv_t *c, const bw_create_stream_frame_t *f,
                        const bw_create_sensors_t *s)
{
    const uint8_t *group6 = f->len == 1 + BW_CREATE_GROUP6_SIZE ? f->body + 1 : NULL;
    return !bw_create_values_ok(s, group6, 0, false) ||
           (c->have_last && bw_create_battery_jump(&c->last, s)) ||
           !bw_create_motion_ok(&c->odo, c->have_last ? &c->last : NULL, s, STREAM_PERIOD, false);
}

/* The motion of the frames lost since the last one taken, up to this one:
 * at the speeds the last frame said were requested until the first command
 * sent since (when these differ from this frame's), then at this frame's.
 * Without a command in between, the change is taken half way. */
static void estimate_lost(bw_base_t *b, const bw_create_sensors_t *s)
{
    create_drv_t *c = D(b);
    double span = c->pending * STREAM_PERIOD;
    double from = c->clock - STREAM_PERIOD - span; /* when the lost frames began */
    double t1 = span / 2;
    int16_t l0, r0, l1, r1;
    l0 = c->last.requested_left_speed, r0 = c->last.requested_right_speed;
    l1 = s->requested_left_speed, r1 = s->requested_right_speed;
    bool same = l0 == l1 && r0 == r1 && c->last.requested_speed == s->requested_speed &&
                c->last.requested_radius == s->requested_radius;
    if (same)
        t1 = span;
    else if (c->first_send >= from && c->first_send <= from + span)
        t1 = c->first_send - from;
    bw_base_state_t *st = &b->st;
    bw_create_estimate(&c->odo, &st->pose, &st->v, &st->w, &c->last, t1, s, span - t1,
                       STREAM_PERIOD);
    st->estimated_time += span;
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

static void on_frame(bw_base_t *b, const bw_create_stream_frame_t *f, double now)
{
    create_drv_t *c = D(b);
    bw_base_state_t *st = &b->st;
    bw_create_sensors_t s = c->last;
    if (bw_create_decode_stream(f, &s) < 0) {
        c->sub_stats.length_errors++;
        return;
    }
    /* Frames lost since the last one: a frame's worth of bytes skipped each
     * (a rejected frame), and, once frames come at their pace again (not in
     * a burst a busy host reads at once), the time no frame came in. */
    uint64_t skipped = c->parser.stats.skipped_bytes;
    size_t size = 3u + f->len;
    if (c->have_frame) {
        unsigned lost = (unsigned)lround((double)(skipped - c->skipped) / (double)c->frame_bytes);
        double due = c->clock + (lost + 1) * STREAM_PERIOD;
        if (now - c->arrived >= STREAM_PERIOD / 2 && now - due > LATE)
            lost = (unsigned)lround((now - c->clock) / STREAM_PERIOD) - 1;
        c->clock = fmin(now, c->clock + (lost + 1) * STREAM_PERIOD);
        c->pending += lost;
    } else {
        c->clock = now;
    }
    c->have_frame = true;
    c->arrived = now;
    c->skipped = skipped;
    c->frame_bytes = size;

    if (bw_base_implausible(b, implausible(c, f, &s))) {
        c->pending++; /* set aside: its 15 ms are estimated with the next frame's */
        return;
    }
    bw_create_to_state(st, &s, 0);
    st->estimated = false;
    if (c->have_last && c->pending) {
        estimate_lost(b, &s);
        st->estimated = true;
    }
    c->pending = 0;
    /* Each frame covers one stream period, however late it is read. */
    bw_create_odometry(&c->odo, &st->pose, &st->v, &st->w, &s, STREAM_PERIOD, false, NAN);
    c->last = s;
    c->have_last = true;
    c->first_send = INFINITY;
    bw_base_frame_ok(b, now);
    check_echo(b, &s, now);
}

static void on_input(bw_base_t *b, const uint8_t *data, size_t n, double now)
{
    create_drv_t *c = D(b);
    bw_create_stream_frame_t f;
    int rc;
    while (b->port && (rc = bw_create_stream_parse(&c->parser, &data, &n, &f)) != 0)
        if (rc > 0)
            on_frame(b, &f, now);
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
    else if (online && (b->cmd_v != 0 || b->cmd_w != 0) && now >= c->last_send + RESEND)
        send_twist(b, now);
}

static double next_deadline(const bw_base_t *b)
{
    const create_drv_t *c = D(b);
    double t = b->st.online ? INFINITY : c->last_ask + STARTUP;
    if (b->st.online && (b->cmd_v != 0 || b->cmd_w != 0))
        t = fmin(t, c->last_send + RESEND);
    return t;
}

static size_t stop_bytes(const bw_base_t *b, uint8_t *buf, size_t cap)
{
    (void)b;
    int n = bw_create_encode_drive_direct(buf, cap, 0, 0);
    return n > 0 ? (size_t)n : 0;
}

/* The stream paused and the OI back in passive mode, as the robot is left
 * for a person to pick up. */
static void on_close(bw_base_t *b, double now)
{
    static const uint8_t bye[] = { BW_CREATE_OP_PAUSE_RESUME_STREAM, 0, BW_CREATE_OP_START };
    send(b, bye, sizeof bye, now);
}

static const char *const params[] = { "mode", NULL };

const bw_driver_ops_t bw_create_driver_ops = {
    .family = "create",
    .size = sizeof(create_drv_t),
    .caps = BW_CAP_DRIVE | BW_CAP_ODOMETRY | BW_CAP_BUMPERS | BW_CAP_CLIFFS |
            BW_CAP_WHEEL_DROPS | BW_CAP_BUTTONS | BW_CAP_BATTERY | BW_CAP_CHARGING,
    .params = params,
    .max_v = 0.5,
    .max_w = 0.5 / (BW_CREATE_WHEELBASE_M / 2),
    .link_timeout = 0.2,
    .baud = 57600,
    .init = init,
    .on_open = on_open,
    .on_input = on_input,
    .on_tick = on_tick,
    .on_drive = on_drive,
    .stop_bytes = stop_bytes,
    .on_close = on_close,
    .next_deadline = next_deadline,
};
