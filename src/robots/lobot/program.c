/* The Command Module's low-level program: a state machine over one USART, a
 * select line and a millisecond clock (lobot.h). Codec core: it runs in the
 * emulator and, unchanged, in the ATmega168's firmware. */
#include "botwire/lobot.h"

#include <string.h>

#define UPDATE_DELAY 50  /* ms between cycles */
#define REPLY_WAIT 40    /* ms for the Create's answer (52 bytes at 57600 baud: 9 ms) */
#define BACKUP_SPEED 225 /* mm/s */
#define SPIN_SPEED 150   /* mm/s, each wheel */
#define HALF_BASE 129    /* mm, half the Create's wheelbase */
#define REMOTE_SPEED 200 /* mm/s forward under the remote */
#define SETTLE 300       /* ms for the Create to come to rest after a stop */

/* Group 6 byte offsets (create.h: packets 7..42). */
enum {
    G6_BUMPS = 0,
    G6_CLIFF_LEFT = 2,
    G6_CLIFF_FRONT_LEFT = 3,
    G6_CLIFF_FRONT_RIGHT = 4,
    G6_CLIFF_RIGHT = 5,
    G6_IR = 10,
    G6_DISTANCE = 12,
    G6_ANGLE = 14,
    G6_CARGO_DIGITAL = 36,
};
#define CARGO_REAR_RIGHT 0x01 /* where the rear bumper switches are wired */
#define CARGO_REAR_LEFT 0x02

enum {
    S_START,
    S_REQUEST,  /* ask the Create for group 6 */
    S_SENSORS,  /* collect it */
    S_REACT,
    S_HALT,     /* stop, and let the robot come to rest */
    S_MOVE,     /* start a back-up or a spin */
    S_MOVING,   /* until it should be done */
    S_SETTLE,   /* stopped: at rest, ask how far it went */
    S_MEASURE,  /* collect distance and angle */
    S_TO_HOST,
    S_ACKS,
    S_WAIT,     /* the window for a command */
    S_TO_CREATE,
    S_EXECUTE,
    S_DELAY,
};

/* Deployed firmware's cliff reactions, by the CLIFFS flags (bit 3 left,
 * 2 front left, 1 front right, 0 right): back-up mm, spin degrees. (The
 * deployed code lets front right alone fall through to front right and
 * right; the table's own entry is used here.) */
static const BW_ROM int16_t cliff_moves[16][2] = {
    { 0, 0 },       { -100, 15 },  { -125, 30 },   { -150, 45 },
    { -125, -30 },  { -175, 60 },  { -200, 90 },   { -150, 75 },
    { -100, -15 },  { -100, 180 }, { -175, -60 },  { -125, 90 },
    { -150, -45 },  { -175, -120 }, { -150, -75 }, { -300, 180 },
};

int bw_lobot_reaction(uint8_t id, uint8_t flags, int16_t *backup, int16_t *spin)
{
    int16_t b, a;
    if (id == BW_LOBOT_ACK_CLIFFS && flags >= 1 && flags <= 15) {
        b = cliff_moves[flags][0];
        a = cliff_moves[flags][1];
    } else if (id != BW_LOBOT_ACK_BUMPS) {
        return BW_EINVAL;
    } else if (flags == (BW_CREATE_BUMP_LEFT | BW_CREATE_BUMP_RIGHT)) {
        b = -300, a = -30;
    } else if (flags == BW_CREATE_BUMP_LEFT) {
        b = -150, a = -15;
    } else if (flags == BW_CREATE_BUMP_RIGHT) {
        b = -150, a = 15;
    } else if (flags == BW_LOBOT_BUMP_ACK_REAR_BOTH) {
        b = 25, a = 20;
    } else if (flags == BW_LOBOT_BUMP_ACK_REAR_LEFT) {
        b = 75, a = 10;
    } else if (flags == BW_LOBOT_BUMP_ACK_REAR_RIGHT) {
        b = 75, a = -10;
    } else {
        return BW_EINVAL;
    }
    *backup = b;
    *spin = a;
    return 0;
}

static bool after(uint32_t now, uint32_t t) { return (int32_t)(now - t) >= 0; }

static void enter(bw_lobot_cm_t *cm, uint8_t state, uint32_t now, uint32_t wait)
{
    cm->state = state;
    cm->started = now;
    cm->wake = now + wait;
}

void bw_lobot_cm_init(bw_lobot_cm_t *cm, const bw_lobot_cm_config_t *cfg, uint32_t now_ms)
{
    memset(cm, 0, sizeof *cm);
    cm->cfg = *cfg;
    if (cm->cfg.window_ms == 0)
        cm->cfg.window_ms = 1500;
    cm->radius = BW_CREATE_RADIUS_STRAIGHT;
    bw_lobot_cmd_parser_init(&cm->cmd);
    enter(cm, S_START, now_ms, 0);
}

uint32_t bw_lobot_cm_next_ms(const bw_lobot_cm_t *cm) { return cm->wake; }

/* Output, bounded by the caller's buffer. */
typedef struct {
    uint8_t *p;
    size_t n, cap;
} out_t;

static void put(out_t *o, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n && o->n < o->cap; i++)
        o->p[o->n++] = b[i];
}

static void drive(out_t *o, int16_t speed, int16_t radius)
{
    uint8_t b[5];
    (void)bw_create_encode_drive(b, sizeof b, speed, radius);
    put(o, b, sizeof b);
}

static int16_t be16(const uint8_t *p) { return (int16_t)(uint16_t)((p[0] << 8) | p[1]); }

static int16_t sat_add(int16_t a, int16_t b)
{
    int32_t s = (int32_t)a + b;
    return (int16_t)(s > 32767 ? 32767 : s < -32768 ? -32768 : s);
}

/* A reaction or a spin: up to two moves, measured as they go. */
static void plan(bw_lobot_cm_t *cm, int16_t backup, int16_t spin, uint32_t now)
{
    cm->moves = 0;
    cm->move = 0;
    cm->spins = 0;
    if (backup)
        cm->target[cm->moves++] = backup;
    if (spin) {
        cm->spins = (uint8_t)(cm->spins | (1u << cm->moves));
        cm->target[cm->moves++] = spin;
    }
    cm->measured[0] = cm->measured[1] = 0;
    enter(cm, cm->moves ? S_HALT : S_TO_HOST, now, 0);
}

/* Wheel drop > cliff > bump > remote, as the deployed program looks. */
static void react(bw_lobot_cm_t *cm, out_t *o, uint32_t now)
{
    const uint8_t *s = cm->sensors;
    cm->hold_off = false;
    cm->ack_id = 0;
    if (!cm->have_sensors) {
        enter(cm, S_TO_HOST, now, 0);
        return;
    }
    uint8_t drops = s[G6_BUMPS] & (BW_CREATE_WHEEL_DROP_RIGHT | BW_CREATE_WHEEL_DROP_LEFT |
                                   BW_CREATE_WHEEL_DROP_CASTER);
    if (drops) {
        cm->speed = 0;
        drive(o, 0, BW_CREATE_RADIUS_STRAIGHT);
        cm->ack_id = BW_LOBOT_ACK_WHEEL_DROPS;
        cm->ack[0] = drops;
        cm->hold_off = true;
        enter(cm, S_TO_HOST, now, 0);
        return;
    }
    uint8_t cliffs = (uint8_t)((s[G6_CLIFF_LEFT] ? BW_LOBOT_CLIFF_LEFT : 0) |
                               (s[G6_CLIFF_FRONT_LEFT] ? BW_LOBOT_CLIFF_FRONT_LEFT : 0) |
                               (s[G6_CLIFF_FRONT_RIGHT] ? BW_LOBOT_CLIFF_FRONT_RIGHT : 0) |
                               (s[G6_CLIFF_RIGHT] ? BW_LOBOT_CLIFF_RIGHT : 0));
    if (cliffs) {
        cm->speed = 0;
        cm->ack_id = BW_LOBOT_ACK_CLIFFS;
        cm->ack[0] = cliffs;
        cm->hold_off = true;
        int16_t backup = 0, spin = 0;
        (void)bw_lobot_reaction(BW_LOBOT_ACK_CLIFFS, cliffs, &backup, &spin);
        plan(cm, backup, spin, now);
        return;
    }
    uint8_t front = s[G6_BUMPS] & (BW_CREATE_BUMP_LEFT | BW_CREATE_BUMP_RIGHT);
    uint8_t rear = cm->rear_enabled ? s[G6_CARGO_DIGITAL] & (CARGO_REAR_RIGHT | CARGO_REAR_LEFT) : 0;
    if (front || rear) {
        uint8_t flags = front ? front
                              : (uint8_t)(((rear & CARGO_REAR_RIGHT) ? BW_LOBOT_BUMP_ACK_REAR_RIGHT : 0) |
                                          ((rear & CARGO_REAR_LEFT) ? BW_LOBOT_BUMP_ACK_REAR_LEFT : 0));
        int16_t backup = 0, spin = 0;
        (void)bw_lobot_reaction(BW_LOBOT_ACK_BUMPS, flags, &backup, &spin);
        cm->speed = 0;
        cm->ack_id = BW_LOBOT_ACK_BUMPS;
        cm->ack[0] = flags;
        plan(cm, backup, spin, now);
        return;
    }
    uint8_t ir = s[G6_IR];
    if (ir == BW_CREATE_IR_FORWARD || ir == BW_CREATE_IR_LEFT || ir == BW_CREATE_IR_RIGHT ||
        ir == BW_CREATE_IR_DRIVE_STOP || ir == BW_CREATE_IR_PAUSE) {
        /* The remote drives: the host waits until it lets go. */
        if (ir == BW_CREATE_IR_FORWARD) {
            cm->speed = REMOTE_SPEED;
            cm->radius = BW_CREATE_RADIUS_STRAIGHT;
        } else if (ir == BW_CREATE_IR_LEFT || ir == BW_CREATE_IR_RIGHT) {
            cm->speed = SPIN_SPEED;
            cm->radius = ir == BW_CREATE_IR_LEFT ? BW_CREATE_RADIUS_CCW : BW_CREATE_RADIUS_CW;
        } else {
            cm->speed = 0;
        }
        drive(o, cm->speed, cm->radius);
        cm->ack_id = BW_LOBOT_ACK_REMOTE;
        cm->ack[0] = ir;
        cm->hold_off = true;
    }
    enter(cm, S_TO_HOST, now, 0);
}

/* Starts move cm->move: a back-up (mm, straight) or a spin (degrees, in
 * place), for as long as it should take at its speed. Every move starts and
 * ends at rest, so the speed-up and the slow-down cancel and the time
 * gives the distance. */
static void start_move(bw_lobot_cm_t *cm, out_t *o, uint32_t now)
{
    int16_t t = cm->target[cm->move];
    bool spin = ((unsigned)cm->spins >> cm->move) & 1u;
    uint32_t ms;
    if (spin) {
        drive(o, SPIN_SPEED, t > 0 ? BW_CREATE_RADIUS_CCW : BW_CREATE_RADIUS_CW);
        uint32_t arc = (uint32_t)((t < 0 ? -t : t) * 31416L * HALF_BASE / 1800000L); /* mm */
        ms = arc * 1000u / SPIN_SPEED;
    } else {
        drive(o, t > 0 ? BACKUP_SPEED : -BACKUP_SPEED, BW_CREATE_RADIUS_STRAIGHT);
        ms = (uint32_t)(t < 0 ? -t : t) * 1000u / BACKUP_SPEED;
    }
    enter(cm, S_MOVING, now, ms);
}

/* At rest after a move: ask how far it went. */
static void ask_measure(bw_lobot_cm_t *cm, out_t *o, uint32_t now)
{
    static const uint8_t ask[] = { BW_CREATE_OP_QUERY_LIST, 2, BW_CREATE_PKT_DISTANCE,
                                   BW_CREATE_PKT_ANGLE };
    put(o, ask, sizeof ask);
    cm->got = 0;
    enter(cm, S_MEASURE, now, REPLY_WAIT);
}

static void measured(bw_lobot_cm_t *cm, uint32_t now)
{
    int16_t dist = cm->got == 4 ? be16(cm->reply) : 0;
    int16_t angle = cm->got == 4 ? be16(cm->reply + 2) : 0;
    cm->measured[0] = sat_add(cm->measured[0], dist);
    cm->measured[1] = sat_add(cm->measured[1], angle);
    /* Reading them reset the Create's counts: the next SENSORS carries them. */
    cm->odo_distance = sat_add(cm->odo_distance, dist);
    cm->odo_angle = sat_add(cm->odo_angle, angle);
    cm->spin_flag = true;
    if (++cm->move < cm->moves) {
        enter(cm, S_MOVE, now, 0);
        return;
    }
    if (cm->ack_id == BW_LOBOT_ACK_BUMPS || cm->ack_id == BW_LOBOT_ACK_CLIFFS) {
        cm->ack[1] = (uint8_t)((uint16_t)cm->measured[0] >> 8);
        cm->ack[2] = (uint8_t)cm->measured[0];
        cm->ack[3] = (uint8_t)((uint16_t)cm->measured[1] >> 8);
        cm->ack[4] = (uint8_t)cm->measured[1];
        enter(cm, S_TO_HOST, now, 0);
    } else {
        enter(cm, S_DELAY, now, UPDATE_DELAY); /* a SPIN command */
    }
}

static void send_acks(bw_lobot_cm_t *cm, out_t *o, uint32_t now)
{
    if (cm->ack_id) {
        uint8_t b[6];
        int n = bw_lobot_encode_ack_bytes(b, sizeof b, cm->ack_id, cm->ack);
        if (n > 0)
            put(o, b, (size_t)n);
        cm->ack_id = 0;
    }
    if (cm->have_sensors) {
        uint8_t b[BW_LOBOT_SENSORS_SIZE + 1];
        memcpy(b + 1, cm->sensors, sizeof cm->sensors);
        uint8_t *g = b + 1;
        g[G6_BUMPS] = (uint8_t)(g[G6_BUMPS] & ~BW_LOBOT_BUMP_REAR_BOTH);
        if (g[G6_CARGO_DIGITAL] & CARGO_REAR_RIGHT)
            g[G6_BUMPS] |= BW_LOBOT_BUMP_REAR_RIGHT;
        if (g[G6_CARGO_DIGITAL] & CARGO_REAR_LEFT)
            g[G6_BUMPS] |= BW_LOBOT_BUMP_REAR_LEFT;
        int16_t d = sat_add(be16(g + G6_DISTANCE), cm->odo_distance);
        int16_t a = sat_add(be16(g + G6_ANGLE), cm->odo_angle);
        g[G6_DISTANCE] = (uint8_t)((uint16_t)d >> 8);
        g[G6_DISTANCE + 1] = (uint8_t)d;
        g[G6_ANGLE] = (uint8_t)((uint16_t)a >> 8);
        g[G6_ANGLE + 1] = (uint8_t)a;
        (void)bw_lobot_encode_sensors_bytes(b, sizeof b, b + 1, cm->spin_flag);
        put(o, b, sizeof b);
        cm->odo_distance = cm->odo_angle = 0;
        cm->spin_flag = false;
        cm->have_sensors = false;
    }
    if (cm->hold_off) {
        enter(cm, S_TO_CREATE, now, 0);
        return;
    }
    static const uint8_t ready = BW_LOBOT_ACK_READY;
    put(o, &ready, 1);
    /* A command cut by the last window is nobody's now. */
    bw_lobot_cmd_parser_finish(&cm->cmd);
    enter(cm, S_WAIT, now, cm->cfg.window_ms);
}

/* The window: the first whole command is the one; a bad one, or none, is
 * STOP (the deployed program does the same). */
static void wait_command(bw_lobot_cm_t *cm, const uint8_t *rx, size_t nrx, uint32_t now)
{
    bw_lobot_cmd_t c;
    int rc;
    while ((rc = bw_lobot_cmd_parse(&cm->cmd, &rx, &nrx, &c)) != 0) {
        cm->next = c;
        if (rc < 0 || !c.known) {
            cm->next.id = BW_LOBOT_CMD_STOP;
            cm->next.param = 0;
        }
        enter(cm, S_TO_CREATE, now, 0);
        return;
    }
    if (after(now, cm->wake)) {
        cm->next.id = BW_LOBOT_CMD_STOP;
        cm->next.param = 0;
        enter(cm, S_TO_CREATE, now, 0);
    }
}

static void execute(bw_lobot_cm_t *cm, out_t *o, uint32_t now)
{
    bw_lobot_cmd_t c = cm->next;
    cm->next.id = BW_LOBOT_CMD_NOP;
    int16_t p = c.param;
    switch (c.id) {
    case BW_LOBOT_CMD_FORWARD:
    case BW_LOBOT_CMD_REVERSE: {
        int16_t v = (int16_t)(p < 0 ? 0 : p > BW_CREATE_MAX_SPEED ? BW_CREATE_MAX_SPEED : p);
        cm->speed = c.id == BW_LOBOT_CMD_FORWARD ? v : (int16_t)-v;
        break;
    }
    case BW_LOBOT_CMD_STOP: cm->speed = 0; break;
    case BW_LOBOT_CMD_LEFT:
    case BW_LOBOT_CMD_RIGHT: {
        int16_t r = (int16_t)(p < 0 ? 0 : p > BW_CREATE_MAX_RADIUS ? BW_CREATE_MAX_RADIUS : p);
        if (r < 100) /* below 100 mm: in place */
            cm->radius = c.id == BW_LOBOT_CMD_LEFT ? BW_CREATE_RADIUS_CCW : BW_CREATE_RADIUS_CW;
        else
            cm->radius = c.id == BW_LOBOT_CMD_LEFT ? r : (int16_t)-r;
        break;
    }
    case BW_LOBOT_CMD_STRAIGHT: cm->radius = BW_CREATE_RADIUS_STRAIGHT; break;
    case BW_LOBOT_CMD_SPIN: {
        int16_t deg = (int16_t)(p > 360 ? 360 : p < -360 ? -360 : p);
        cm->speed = 0;
        cm->ack_id = 0;
        plan(cm, 0, deg, now);
        if (cm->state == S_TO_HOST) /* SPIN 0: nothing to do */
            enter(cm, S_DELAY, now, UPDATE_DELAY);
        return;
    }
    case BW_LOBOT_CMD_ENABLE_REAR_BUMPS: cm->rear_enabled = true; break;
    case BW_LOBOT_CMD_DISABLE_REAR_BUMPS: cm->rear_enabled = false; break;
    default: break; /* NOP */
    }
    if (c.id != BW_LOBOT_CMD_NOP && c.id != BW_LOBOT_CMD_ENABLE_REAR_BUMPS &&
        c.id != BW_LOBOT_CMD_DISABLE_REAR_BUMPS)
        drive(o, cm->speed, cm->radius);
    enter(cm, S_DELAY, now, UPDATE_DELAY);
}

size_t bw_lobot_cm_step(bw_lobot_cm_t *cm, uint32_t now_ms, const uint8_t *rx, size_t nrx,
                        uint8_t *tx, size_t cap)
{
    out_t o = { tx, 0, cap };
    /* Bytes that came: the state that listens takes them; others drop them
     * (a reply cut short, a host talking out of turn). */
    if (cm->state == S_SENSORS || cm->state == S_MEASURE) {
        size_t want = cm->state == S_SENSORS ? 52u : 4u;
        for (size_t i = 0; i < nrx && cm->got < want; i++)
            cm->reply[cm->got++] = rx[i];
    } else if (cm->state == S_WAIT) {
        wait_command(cm, rx, nrx, now_ms);
        return o.n;
    }
    for (int guard = 0; guard < 8; guard++) {
        if (!after(now_ms, cm->wake) && cm->state != S_SENSORS && cm->state != S_MEASURE)
            break;
        switch (cm->state) {
        case S_START: {
            /* Start, Full, and the Play LED with the power LED green. */
            static const uint8_t start[] = { BW_CREATE_OP_START, BW_CREATE_OP_FULL,
                                             BW_CREATE_OP_LEDS, BW_CREATE_LED_PLAY, 0, 255 };
            put(&o, start, sizeof start);
            enter(cm, S_DELAY, now_ms, 100);
            return o.n;
        }
        case S_REQUEST: {
            static const uint8_t ask[] = { BW_CREATE_OP_SENSORS, BW_CREATE_GROUP_6 };
            put(&o, ask, sizeof ask);
            cm->got = 0;
            enter(cm, S_SENSORS, now_ms, REPLY_WAIT);
            return o.n;
        }
        case S_SENSORS:
            if (cm->got == 52) {
                memcpy(cm->sensors, cm->reply, 52);
                cm->have_sensors = true;
                enter(cm, S_REACT, now_ms, 0);
            } else if (after(now_ms, cm->wake)) {
                cm->have_sensors = false; /* no answer: nothing to react to */
                enter(cm, S_TO_HOST, now_ms, 0);
            } else {
                return o.n;
            }
            break;
        case S_REACT: react(cm, &o, now_ms); break;
        case S_HALT:
        case S_MOVING:
            drive(&o, 0, BW_CREATE_RADIUS_STRAIGHT);
            enter(cm, cm->state == S_HALT ? S_MOVE : S_SETTLE, now_ms, SETTLE);
            return o.n;
        case S_MOVE: start_move(cm, &o, now_ms); return o.n;
        case S_SETTLE: ask_measure(cm, &o, now_ms); return o.n;
        case S_MEASURE:
            if (cm->got < 4 && !after(now_ms, cm->wake))
                return o.n;
            measured(cm, now_ms);
            break;
        case S_TO_HOST:
            cm->usb = true;
            enter(cm, S_ACKS, now_ms, 0);
            return o.n;
        case S_ACKS: send_acks(cm, &o, now_ms); return o.n;
        case S_WAIT: wait_command(cm, NULL, 0, now_ms); break;
        case S_TO_CREATE:
            cm->usb = false;
            enter(cm, S_EXECUTE, now_ms, 0);
            return o.n;
        case S_EXECUTE: execute(cm, &o, now_ms); return o.n;
        case S_DELAY: enter(cm, S_REQUEST, now_ms, 0); break;
        default: enter(cm, S_DELAY, now_ms, UPDATE_DELAY); break;
        }
    }
    return o.n;
}
