/* The bare Create host driver: the Open Interface straight from the host, as
 * libcreate speaks it. Start, Full (or Safe), Drive Direct, sensor group 6
 * streamed every 15 ms. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../base/base_internal.h"
#include "botwire/create.h"
#include "host.h"

#define STREAM_PERIOD 0.015 /* s: the Create's stream, the time of one frame */
#define RESEND 0.2          /* s between Drive Directs while moving (a line may lose one) */
#define STARTUP 0.5         /* s without a frame after which the stream is asked again */

typedef struct {
    bw_create_stream_parser_t parser;
    bw_parse_stats_t sub_stats;
    bool safe;              /* ?mode=safe */
    double last_send, last_ask;
    bool have_frame;
    bw_create_odo_t odo;
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
    D(b)->last_ask = now;
}

static void on_open(bw_base_t *b, double now)
{
    create_drv_t *c = D(b);
    bw_create_stream_parser_init(&c->parser, BW_CREATE_SUM_WITH_HEADER);
    memset(&c->sub_stats, 0, sizeof c->sub_stats);
    c->have_frame = false;
    memset(&c->odo, 0, sizeof c->odo);
    start(b, now);
}

static void send_twist(bw_base_t *b, double now)
{
    double half = BW_CREATE_WHEELBASE_M / 2;
    double l = (b->cmd_v - b->cmd_w * half) * 1000, r = (b->cmd_v + b->cmd_w * half) * 1000;
    double top = fmax(fabs(l), fabs(r));
    if (top > BW_CREATE_MAX_SPEED) { /* keep the turn, slow the pace */
        l *= BW_CREATE_MAX_SPEED / top;
        r *= BW_CREATE_MAX_SPEED / top;
    }
    uint8_t cmd[5];
    (void)bw_create_encode_drive_direct(cmd, sizeof cmd, (int16_t)lround(r), (int16_t)lround(l));
    send(b, cmd, sizeof cmd, now);
}

static void on_drive(bw_base_t *b, double now) { send_twist(b, now); }

static void on_frame(bw_base_t *b, const bw_create_stream_frame_t *f, double now)
{
    create_drv_t *c = D(b);
    bw_create_sensors_t s;
    memset(&s, 0, sizeof s);
    if (bw_create_decode_stream(f, &s) < 0) {
        c->sub_stats.length_errors++;
        return;
    }
    bw_base_state_t *st = &b->st;
    bw_create_to_state(st, &s, 0);
    /* Each frame covers one stream period, however late it is read. */
    bw_create_odometry(&c->odo, &st->pose, &st->v, &st->w, &s, STREAM_PERIOD, false, NAN);
    c->have_frame = true;
    bw_base_frame_ok(b, now);
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
    /* A Create that was off, or a line that lost the start: ask again. */
    if (!b->st.online && now >= c->last_ask + STARTUP)
        start(b, now);
    else if ((b->cmd_v != 0 || b->cmd_w != 0) && now >= c->last_send + RESEND)
        send_twist(b, now);
}

static double next_deadline(const bw_base_t *b)
{
    const create_drv_t *c = D(b);
    double t = b->st.online ? INFINITY : c->last_ask + STARTUP;
    if (b->cmd_v != 0 || b->cmd_w != 0)
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
