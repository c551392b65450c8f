/* The P2OS host driver: handshake, SIPs to the robot model, twist to VEL
 * and RVEL. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/base_internal.h"
#include "botwire/p2os.h"

#define SYNC_TIMEOUT 1.0   /* s for the server to echo a SYNC */
#define CLOSE_SETTLE 0.3   /* s after closing a stale session before syncing */
#define SIP_GAP 0.1        /* s between SIPs */
#define PULSE_IDLE 0.5     /* s without a command before a PULSE (or the twist again) */
#define SONAR_MAX 5.0      /* m */
/* What a Pioneer can do between two SIPs, with room to spare (its top
 * speeds: 2 m/s, 360 deg/s; a volt of battery). Beyond it a SIP is corrupt. */
#define TOP_V 2.0          /* m/s */
#define TOP_W (2 * BW_PI)  /* rad/s */
#define SLACK 0.1          /* s added to the elapsed time */
#define BATTERY_JUMP 10    /* 0.1 V */
/* s after input that left a frame half in, before the driver looks again:
 * just past the line gap (ops.line_gap), so a caller that waits for the
 * next deadline sees the silence after a broken frame, if there is one,
 * and the bytes after it start afresh. A long frame (the config packet
 * takes 117 ms at 9600 baud) still coming is no silence: the look reads
 * more of it. */
#define LINE_GAP 0.05
#define HELD_WATCH (LINE_GAP + 0.001)

typedef enum { H_SYNC0, H_SYNC1, H_SYNC2, H_CLOSING, H_READY } handshake_t;

/* The fields the deadline and a SIP read first, the parser (and its
 * buffer) last. */
typedef struct {
    handshake_t hs;
    double hs_deadline;
    double last_send, last_sip;
    const bw_p2os_model_t *model;
    bool model_forced; /* ?model= in the URL */
    bool have_last;
    bool had_session;  /* this driver opened the robot's session (it may still run) */
    uint16_t last_x, last_y;
    int16_t last_th;
    uint8_t last_battery;
    double last_time;
    double rot; /* odometry heading minus the robot's own heading */
    /* The encoder packets (ENCODER 2): the last counts as sent, to unwrap. */
    bool have_enc;
    int32_t last_enc[2];
    double last_input;  /* when bytes last came */
    bool watch;         /* a frame is half in: look again at last_input + HELD_WATCH */
    bw_parse_stats_t sub_stats;
    bw_p2os_parser_t parser;
} p2os_drv_t;

static p2os_drv_t *D(const bw_base_t *b) { return b->drv; }

static int init(bw_base_t *b, const bw_url_t *url, char *err, size_t errlen)
{
    const char *model = bw_url_param(url, "model");
    if (model) {
        D(b)->model = bw_p2os_model(model);
        if (!D(b)->model) {
            snprintf(err, errlen, "model=%s: not a P2OS model (p2dx, p2pb or p2at)", model);
            return BW_EINVAL;
        }
        D(b)->model_forced = true;
    }
    return 0;
}

static void send_frame(bw_base_t *b, const uint8_t *frame, int n, double now)
{
    if (n > 0)
        bw_base_send(b, frame, (size_t)n, now);
    D(b)->last_send = now;
}

static void send_cmd(bw_base_t *b, uint8_t cmd, double now)
{
    uint8_t f[8];
    send_frame(b, f, bw_p2os_encode_cmd(f, sizeof f, cmd), now);
}

static void send_int(bw_base_t *b, uint8_t cmd, int32_t value, double now)
{
    uint8_t f[16];
    send_frame(b, f, bw_p2os_encode_cmd_int(f, sizeof f, cmd, value), now);
}

/* SYNC0 is PULSE to a robot in session: harmless if the session is still
 * there, only silent for a while. The baseline is kept until a new session
 * restarts the robot's odometry (OPEN): until then its positions continue. */
static void start_sync(bw_base_t *b, double now)
{
    p2os_drv_t *p = D(b);
    p->hs = H_SYNC0;
    p->hs_deadline = now + SYNC_TIMEOUT;
    send_cmd(b, 0, now); /* SYNC0 */
}

static void on_open(bw_base_t *b, double now)
{
    bw_p2os_parser_init(&D(b)->parser);
    memset(&D(b)->sub_stats, 0, sizeof D(b)->sub_stats);
    start_sync(b, now);
}

static void send_twist(bw_base_t *b, double now)
{
    send_int(b, BW_P2OS_VEL, (int32_t)lround(fmax(-32767, fmin(32767, b->cmd_v * 1000))), now);
    send_int(b, BW_P2OS_RVEL, (int32_t)lround(fmax(-32767, fmin(32767, b->cmd_w * 180 / BW_PI))),
             now);
}

static void on_drive(bw_base_t *b, double now)
{
    if (D(b)->hs == H_READY)
        send_twist(b, now);
}

/* A tone on the robot's piezo: SAY (#15), a string of up to 20 pairs of a
 * duration (20 ms steps, 1..255) and a MIDI note (1..127), as the
 * Pioneer's operations manual gives it. BW_EINVAL for a frequency beyond
 * the MIDI notes (8.7 Hz .. 12.5 kHz); BW_ECLOSED before the session. */
static int tone(bw_base_t *b, double hz, double seconds, double now)
{
    long note = lround(69 + 12 * log2(hz / 440));
    if (note < 1 || note > 127)
        return BW_EINVAL;
    if (D(b)->hs != H_READY)
        return BW_ECLOSED;
    long steps = lround(seconds / 0.02);
    uint8_t say[40];
    size_t n = 0;
    for (steps = steps < 1 ? 1 : steps; steps > 0 && n + 2 <= sizeof say; steps -= say[n - 2]) {
        say[n++] = (uint8_t)(steps > 255 ? 255 : steps);
        say[n++] = (uint8_t)note;
    }
    uint8_t f[64];
    send_frame(b, f, bw_p2os_encode_cmd_str(f, sizeof f, BW_P2OS_SAY, say, n), now);
    return 0;
}

/* The model is known: sonar mounts, bumpers, names. */
static void adopt_model(bw_base_t *b, const bw_p2os_sync_t *s)
{
    p2os_drv_t *p = D(b);
    bw_base_state_t *st = &b->st;
    if (!p->model_forced) {
        /* A subclass we have no factors for gets the P2-DX's: say so by
         * naming it in `hardware`, and pass ?model= to choose. */
        p->model = s->has_info ? bw_p2os_model(s->subclass) : NULL;
        if (!p->model)
            p->model = bw_p2os_model("p2dx");
    }
    if (s->has_info) {
        snprintf(st->hardware, sizeof st->hardware, "%.15s %.15s", s->cls, s->subclass);
        snprintf(st->name, sizeof st->name, "%.31s", s->name);
    }
    const bw_p2os_model_t *m = p->model;
    st->nranges = m->nsonar < BW_BASE_MAX_RANGES ? m->nsonar : BW_BASE_MAX_RANGES;
    for (unsigned i = 0; i < st->nranges; i++) {
        st->ranges[i] = (bw_range_t){
            .mount = { m->sonar[i].x / 1000.0, m->sonar[i].y / 1000.0,
                       m->sonar[i].heading * BW_PI / 180 },
            .max_range = SONAR_MAX,
        };
    }
    bool bumps = m->front_bumpers || m->rear_bumpers;
    b->caps = b->ops->caps | (bumps ? BW_CAP_BUMPERS | BW_CAP_BUMP_SWITCHES : 0u);
    st->nbump_switches = bumps ? (unsigned)m->front_bumpers + m->rear_bumpers : 0u;
    st->bump_switches = 0;
    /* Counts per metre come from the robot's config packet (TicksMM), not
     * from a table: the encoder cap waits for it and the first counts. */
    st->counts_per_m = 0;
    p->have_enc = false;
}

/* Each switch by number as ARIA and ROSARIA number them: the front ring's
 * switches first, bit 1 of the high byte as switch 0 (the leftmost), then
 * the rear ring's, bit 1 of the low byte first (docs/p2os.md). */
static uint64_t switches(const bw_p2os_model_t *m, uint16_t stall_bump)
{
    uint64_t front = (uint64_t)((stall_bump >> 9) & 0x7Fu) & ((1u << m->front_bumpers) - 1u);
    uint64_t rear = (uint64_t)((stall_bump >> 1) & 0x7Fu) & ((1u << m->rear_bumpers) - 1u);
    return front | rear << m->front_bumpers;
}

/* The config packet: TicksMM, where the firmware sends it (AROS and later
 * P2OS; older ones end the packet before it), gives counts per metre. */
static void on_config(bw_base_t *b, const bw_p2os_config_t *c)
{
    if (c->nfields >= 36 && c->ticks_mm > 0) /* ticks_mm is the 36th field from sip_cycle */
        b->st.counts_per_m = c->ticks_mm * 1000.0;
}

/* An encoder packet (ENCODER 2: one after every SIP): the left and right
 * wheels' counts, int32 as sent, unwrapped. */
static void on_encoder(bw_base_t *b, const bw_p2os_encoder_t *e)
{
    p2os_drv_t *p = D(b);
    bw_base_state_t *st = &b->st;
    const int32_t cur[2] = { e->left, e->right };
    for (int i = 0; i < 2; i++) {
        if (p->have_enc)
            st->encoder[i] += (int32_t)((uint32_t)cur[i] - (uint32_t)p->last_enc[i]);
        else
            st->encoder[i] = cur[i];
        p->last_enc[i] = cur[i];
    }
    p->have_enc = true;
    if (st->counts_per_m > 0)
        b->caps |= BW_CAP_ENCODERS;
}

/* Bumper switches counted from the robot's left: the left ones, the middle
 * one of an odd ring, the right ones. */
static uint32_t ring(unsigned bits, unsigned n, uint32_t left, uint32_t mid, uint32_t right)
{
    uint32_t out = 0;
    for (unsigned i = 0; i < n && i < 7; i++) {
        if (!(bits & (1u << i)))
            continue;
        if (2 * i + 1 < n)
            out |= left;
        else if (2 * i + 1 == n)
            out |= mid;
        else
            out |= right;
    }
    return out;
}

static void on_sip(bw_base_t *b, const bw_p2os_sip_t *s, double now)
{
    p2os_drv_t *p = D(b);
    bw_base_state_t *st = &b->st;
    const bw_p2os_model_t *m = p->model;
    bw_pose_t *pose = &st->pose;
    if (p->have_last) {
        double dt = now - p->last_time + SLACK;
        double mm = TOP_V * 1000 * dt / m->dist_conv + 20; /* position units */
        double dth = bw_angle_diff(s->thpos * m->angle_conv, p->last_th * m->angle_conv);
        bool bad = abs(bw_p2os_wrap15_delta(s->xpos, p->last_x)) > mm ||
                   abs(bw_p2os_wrap15_delta(s->ypos, p->last_y)) > mm ||
                   fabs(dth) > TOP_W * dt || abs((int)s->battery - (int)p->last_battery) > BATTERY_JUMP;
        if (bw_base_implausible(b, bad))
            return; /* set aside: nothing of it is believed */
        if (bad)
            p->have_last = false; /* believed after all: a new reference, no jump */
    }
    double th = bw_angle_norm(s->thpos * m->angle_conv);
    if (!p->have_last) {
        /* The robot keeps its own odometry; ours carries on from where it
         * was, whatever the robot's says. */
        p->rot = bw_angle_diff(pose->theta, th);
    } else {
        double dx = bw_p2os_wrap15_delta(s->xpos, p->last_x) * m->dist_conv / 1000;
        double dy = bw_p2os_wrap15_delta(s->ypos, p->last_y) * m->dist_conv / 1000;
        pose->x += dx * cos(p->rot) - dy * sin(p->rot);
        pose->y += dx * sin(p->rot) + dy * cos(p->rot);
    }
    pose->theta = bw_angle_norm(th + p->rot);
    p->last_x = s->xpos;
    p->last_y = s->ypos;
    p->last_th = s->thpos;
    p->last_battery = s->battery;
    p->last_time = now;
    p->have_last = true;

    st->v = (s->lvel + s->rvel) / 2.0 * m->vel_conv / 1000;
    st->w = (s->rvel - s->lvel) / 2.0 * m->vel_conv * m->diff_conv;
    st->battery = s->battery / 10.0;
    st->stalled = (s->stall_bump & (BW_P2OS_STALL_LEFT | BW_P2OS_STALL_RIGHT)) != 0;
    st->bumpers = ring((s->stall_bump >> 9) & 0x7Fu, m->front_bumpers, BW_BUMP_FRONT_LEFT,
                       BW_BUMP_FRONT, BW_BUMP_FRONT_RIGHT) |
                  ring((s->stall_bump >> 1) & 0x7Fu, m->rear_bumpers, BW_BUMP_REAR_LEFT,
                       BW_BUMP_REAR, BW_BUMP_REAR_RIGHT);
    st->bump_switches = switches(m, s->stall_bump);
    for (unsigned i = 0; i < s->nsonar; i++) {
        unsigned n = s->sonar[i].number;
        if (n >= st->nranges)
            continue;
        bw_range_t *r = &st->ranges[n];
        r->range = fmin(s->sonar[i].range * m->range_conv / 1000, r->max_range);
        r->t = now;
        r->at = *pose;
    }
    p->last_sip = now;
    bw_base_frame_ok(b, now);
    /* Moving when told to stop: the stop was lost or mangled on the way. */
    if (b->cmd_v == 0 && b->cmd_w == 0 && (s->lvel != 0 || s->rvel != 0) &&
        now - p->last_send >= SIP_GAP)
        send_twist(b, now);
}

static void on_body(bw_base_t *b, const bw_p2os_frame_t *f, double now)
{
    p2os_drv_t *p = D(b);
    bw_p2os_msg_t m;
    if (bw_p2os_decode(BW_P2OS_FROM_ROBOT, f->body, f->len, &m) < 0) {
        p->sub_stats.length_errors++;
        return;
    }
    if (m.type == BW_P2OS_UNKNOWN)
        p->sub_stats.unknown++;
    if (p->hs == H_READY) {
        if (m.type == BW_P2OS_SIP)
            on_sip(b, &m.u.sip, now);
        else if (m.type == BW_P2OS_CONFIG_PAC)
            on_config(b, &m.u.config);
        else if (m.type == BW_P2OS_ENCODER_PAC)
            on_encoder(b, &m.u.encoder);
        return;
    }
    if (m.type == BW_P2OS_SIP && p->had_session && p->hs != H_CLOSING) {
        /* Our own session, back after a silence (a stalled line, a port
         * reopened): its positions continue where they were. */
        p->hs = H_READY;
        on_sip(b, &m.u.sip, now);
        send_twist(b, now);
        return;
    }
    if (m.type == BW_P2OS_SIP) {
        /* SIPs during the handshake: a session left open by an earlier
         * client. Close it, let the SIPs stop, start again. */
        if (p->hs != H_CLOSING) {
            send_cmd(b, BW_P2OS_CLOSE, now);
            p->hs = H_CLOSING;
            p->hs_deadline = now + CLOSE_SETTLE;
        }
        return;
    }
    if (m.type != BW_P2OS_SYNC || m.u.sync.n != (unsigned)p->hs)
        return;
    if (p->hs == H_SYNC0 || p->hs == H_SYNC1) {
        p->hs = p->hs == H_SYNC0 ? H_SYNC1 : H_SYNC2;
        p->hs_deadline = now + SYNC_TIMEOUT;
        send_cmd(b, p->hs == H_SYNC1 ? 1 : 2, now);
        return;
    }
    adopt_model(b, &m.u.sync);
    p->hs = H_READY;
    p->had_session = true;
    p->have_last = false; /* OPEN restarts the robot's odometry */
    p->last_sip = now;
    send_cmd(b, BW_P2OS_OPEN, now);
    send_int(b, BW_P2OS_ENABLE, 1, now);
    send_int(b, BW_P2OS_SONAR, 1, now);
    /* TicksMM from the config packet and the wheels' counts with every SIP:
     * the encoder counts (BW_CAP_ENCODERS). A robot without them ignores
     * both, and the cap is not set. */
    send_int(b, BW_P2OS_CONFIG, 1, now);
    send_int(b, BW_P2OS_ENCODER, 2, now);
    send_twist(b, now);
}

static void reset_line(bw_base_t *b, double now)
{
    p2os_drv_t *p = D(b);
    bw_p2os_frame_t f;
    int rc;
    while ((rc = bw_p2os_parser_finish(&p->parser, &f)) != 0)
        if (rc > 0)
            on_body(b, &f, now);
}

static void on_input(bw_base_t *b, const uint8_t *data, size_t n, double now)
{
    p2os_drv_t *p = D(b);
    bw_p2os_frame_t f;
    int rc;
    while (b->port && (rc = bw_p2os_parse(&p->parser, &data, &n, &f)) != 0)
        if (rc > 0)
            on_body(b, &f, now);
    b->st.link = p->parser.stats;
    bw_parse_stats_add(&b->st.link, &p->sub_stats);
    p->last_input = now;
    p->watch = p->parser.held > p->parser.drop;
}

static void on_tick(bw_base_t *b, double now)
{
    p2os_drv_t *p = D(b);
    if (now >= p->last_input + HELD_WATCH)
        p->watch = false; /* looked once: a line gone silent is the gap's business */
    if (p->hs != H_READY) {
        if (now >= p->hs_deadline)
            start_sync(b, now); /* no echo in time, or done closing */
        return;
    }
    if (!b->st.online && now - p->last_sip > b->opt.link_timeout) {
        start_sync(b, now); /* the robot went quiet: connect again */
        return;
    }
    /* Written as the deadline is, so the call at that deadline sends it.
     * While moving, the motion command itself is renewed, as ARIA does: the
     * robot does not drive on keep-alives alone (docs/p2os.md). */
    if (now >= p->last_send + PULSE_IDLE) {
        if (b->cmd_v != 0 || b->cmd_w != 0)
            send_twist(b, now);
        else
            send_cmd(b, BW_P2OS_PULSE, now);
    }
}

static double next_deadline(const bw_base_t *b)
{
    const p2os_drv_t *p = D(b);
    double watch = p->watch ? p->last_input + HELD_WATCH : INFINITY;
    if (p->hs != H_READY)
        return fmin(watch, p->hs_deadline);
    /* (the base's link deadline brings on_tick when offline) */
    return fmin(watch, p->last_send + PULSE_IDLE);
}

/* The pose went back to 0: the heading goes on from 0 (the robot's own
 * is the heading less the rotation between the two). */
static void reset_pose(bw_base_t *b, double old_theta)
{
    p2os_drv_t *p = D(b);
    p->rot = bw_angle_norm(p->rot - old_theta);
}

static size_t stop_bytes(const bw_base_t *b, uint8_t *buf, size_t cap)
{
    (void)b;
    size_t n = 0;
    int k;
    if ((k = bw_p2os_encode_cmd_int(buf + n, cap - n, BW_P2OS_VEL, 0)) > 0)
        n += (size_t)k;
    if ((k = bw_p2os_encode_cmd_int(buf + n, cap - n, BW_P2OS_RVEL, 0)) > 0)
        n += (size_t)k;
    if ((k = bw_p2os_encode_cmd_int(buf + n, cap - n, BW_P2OS_ENABLE, 0)) > 0)
        n += (size_t)k;
    if ((k = bw_p2os_encode_cmd(buf + n, cap - n, BW_P2OS_CLOSE)) > 0)
        n += (size_t)k;
    return n;
}

static void on_close(bw_base_t *b, double now)
{
    if (D(b)->hs != H_READY)
        return;
    send_int(b, BW_P2OS_ENABLE, 0, now);
    send_cmd(b, BW_P2OS_CLOSE, now);
}

static const char *const params[] = { "model", NULL };

const bw_driver_ops_t bw_p2os_driver_ops = {
    .family = "p2os",
    .params = params,
    .size = sizeof(p2os_drv_t),
    .caps = BW_CAP_DRIVE | BW_CAP_ODOMETRY | BW_CAP_BATTERY | BW_CAP_SONAR | BW_CAP_STALL |
            BW_CAP_SOUND,
    .max_v = 1.0,       /* the server's TransVelMax and RotVelMax at connect */
    .max_w = 100 * BW_PI / 180,
    .line_gap = LINE_GAP, /* SIPs 100 ms apart; one goes out whole in 33 ms at 9600 baud */
    /* SIPs come every 100 ms: five missed is a lost link (a noisy one that
     * still brings damaged SIPs stays online longer: base.c). */
    .link_timeout = 0.5,
    .baud = 9600,
    .quiet_tick = true, /* on_tick and on_drive only send (and keep their own times) */
    .init = init,
    .reset_line = reset_line,
    .on_open = on_open,
    .on_input = on_input,
    .on_tick = on_tick,
    .on_drive = on_drive,
    .stop_bytes = stop_bytes,
    .reset_pose = reset_pose,
    .on_close = on_close,
    .next_deadline = next_deadline,
    .tone = tone,
};
