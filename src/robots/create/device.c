/* The emulated iRobot Create on the shared sim: a Create 1 (Open Interface),
 * or with model "create2" a Create 2 (Roomba 600 Open Interface): its
 * opcodes and packets (create.h), the encoder counts from the wheels' true
 * turning, its light bumper, motor currents and stasis. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/device_internal.h"
#include "botwire/create.h"

#define STREAM_PERIOD 0.015  /* s between Stream frames, as the Create sends them */
#define CONTROL_PERIOD 0.005 /* s: the wheel and sensor loop */
#define WHEELBASE 0.258      /* m; a Create 2's: BW_CREATE2_WHEELBASE_M */
#define BODY_RADIUS 0.165    /* m */
#define BODY_RADIUS2 0.17    /* m: a Create 2 is 340 mm across */
#define LIGHT_RANGE 0.15     /* m a light bumper sensor sees */
#define LIGHT_NEAR 0.05      /* m: its bit in packet 45 */
#define WHEEL_MA 100         /* mA a wheel motor draws turning, and more at full speed: */
#define WHEEL_FULL_MA 400
#define MAIN_BRUSH_MA 300    /* mA of the cleaning motors, on */
#define SIDE_BRUSH_MA 100
#define BUTTON_TIME (1.0 / 6) /* s a Buttons command holds them pushed (Create 2 OI) */
#define CAPACITY 2700        /* mAh */
#define VOLTS_FULL 16.5
#define VOLTS_EMPTY 12.0
#define WALL_RANGE 0.15      /* m the wall sensor sees */
#define WALL_NEAR 0.08       /* m: the wall bit */
#define CLIFF_FLOOR 1500     /* cliff signal over the floor */
#define IDLE_MA 250          /* mA the robot draws standing still */
#define DRIVE_MA 1200        /* mA more at full speed */
#define CHARGE_MA 1500       /* mA on the dock */

/* Where the four cliff sensors sit (body cliff bits 0..3) and the wall
 * sensor looks: a Create 1's front edge. */
static const bw_vec2_t cliff_at[4] = {
    { 0.075, 0.130 },  /* left */
    { 0.145, 0.035 },  /* front left */
    { 0.145, -0.035 }, /* front right */
    { 0.075, -0.130 }, /* right */
};
static const bw_pose_t wall_mount = { 0.10, -0.10, -1.05 }; /* right, looking out */
/* A Create 2's light bumper: six sensors on the front arc, looking out, left
 * to right (packets 46..51, bits 0..5 of packet 45). */
static const double light_at[6] = { 1.15, 0.62, 0.20, -0.20, -0.62, -1.15 }; /* rad */

typedef struct {
    uint8_t model;           /* bw_create_model_t */
    bw_create_cmd_parser_t parser;
    bw_create_sensors_t s;   /* what the sensors say now (distance and angle aside) */
    double distance, angle;  /* mm, degrees since the last read, not yet truncated */
    double last_left, last_right; /* encoder travel already counted, m */
    double t0;
    unsigned long ticks;
    unsigned long next_stream; /* tick of the next Stream frame */
    bool streaming, stream_paused;
    uint8_t stream_ids[BW_CREATE2_MAX_PACKETS];
    uint8_t nstream;
    double charge;           /* mAh */
    bw_create_note_t songs[16][BW_CREATE_MAX_SONG];
    uint8_t song_len[16];
    uint32_t songs_played;
    uint8_t leds[3];
    uint8_t remote;          /* the IR byte the receiver hears */
    bool stepped;            /* a step has run: the notice of init is out */
    double odo0_left, odo0_right; /* wheel travel at power-up, m: the encoders' zero */
    uint8_t motors;          /* Create 2: Motors' bits (BW_CREATE2 Motors command) */
    uint8_t digits[4];       /* Create 2: what the digit LEDs show */
    unsigned long buttons_until; /* Create 2: tick the pushed buttons are let go */
    bool stasis;             /* Create 2: the caster's toggle */
    /* Requests for a packet the model does not have, by packet id: not
     * answered, as the robot does not, and listed when the emulator stops. */
    uint32_t unknown_packets[256];
} create_dev_t;

static create_dev_t *C(const bw_device_t *d) { return d->priv; }

static const char *command_name2(unsigned id);

/* A Create 2's: bw_create_device_ops but for the names of its commands. */
static bw_device_ops_t create2_ops;

static bool is_create(const bw_device_t *d)
{
    return d && (d->ops == &bw_create_device_ops || d->ops == &create2_ops);
}

static double tick_time(const create_dev_t *c, unsigned long tick)
{
    return c->t0 + (double)tick * CONTROL_PERIOD;
}

static int init(bw_device_t *d, const bw_device_options_t *o, double t0, char *err,
                size_t errlen)
{
    create_dev_t *c = C(d);
    if (o->model && *o->model && strcmp(o->model, "create") != 0 &&
        strcmp(o->model, "create1") != 0 && strcmp(o->model, "create2") != 0) {
        if (err)
            snprintf(err, errlen, "no Create model \"%s\" (create, create2)", o->model);
        return BW_EUNKNOWN;
    }
    c->model = o->model && strcmp(o->model, "create2") == 0 ? BW_CREATE_MODEL_2 : BW_CREATE_MODEL_1;
    bool two = c->model == BW_CREATE_MODEL_2;
    if (two) { /* its names in what the emulator lists */
        create2_ops = bw_create_device_ops;
        create2_ops.command_name = command_name2;
        d->ops = &create2_ops;
    }
    bw_body_params_t *b = &d->sim.body.prm;
    b->wheelbase = two ? BW_CREATE2_WHEELBASE_M : WHEELBASE;
    b->radius = two ? BODY_RADIUS2 : BODY_RADIUS;
    b->max_wheel_speed = BW_CREATE_MAX_SPEED / 1000.0;
    b->max_accel = 1.0;
    b->ncliff = 4;
    memcpy(b->cliff, cliff_at, sizeof cliff_at);
    b->slip = 0.01 * o->noise;
    b->encoder_noise = 0.002 * o->noise;
    b->seed = o->seed ? o->seed : 1;
    b->battery_full = VOLTS_FULL;
    b->battery_empty = VOLTS_EMPTY;
    d->sim.rng = b->seed;
    bw_create_cmd_parser_init(&c->parser);
    bw_create_cmd_parser_model(&c->parser, (bw_create_model_t)c->model);
    /* What is no opcode of the model is listed by number when the emulator stops. */
    bw_create_cmd_parser_tally(&c->parser, d->stats.unknown_by_id);
    c->t0 = t0;
    c->charge = CAPACITY;
    c->remote = BW_CREATE_IR_NONE;
    c->s.oi_mode = BW_CREATE_MODE_OFF;
    c->s.battery_capacity = CAPACITY;
    c->s.battery_temp = 25;
    c->last_left = c->odo0_left = d->sim.body.odo_left;
    c->last_right = c->odo0_right = d->sim.body.odo_right;
    /* The first thing `botwire sim create` says after where it serves. */
    bw_device_notice(d, "a Create has no watchdog: it drives on its last Drive until told "
                        "otherwise, when its host has gone too (docs/create.md)");
    return 0;
}

/* Wheel speeds (mm/s) of a Drive: the OI's radius rules. */
static void drive_wheels(double wheelbase, int16_t v, int16_t r, double *left, double *right)
{
    double vel = fmax(-BW_CREATE_MAX_SPEED, fmin(BW_CREATE_MAX_SPEED, v));
    double half = wheelbase * 1000 / 2;
    if (r == BW_CREATE_RADIUS_STRAIGHT || r == BW_CREATE_RADIUS_STRAIGHT_ALT || r == 0) {
        *left = *right = vel;
    } else if (r == BW_CREATE_RADIUS_CCW || r == BW_CREATE_RADIUS_CW) {
        *right = r == BW_CREATE_RADIUS_CCW ? vel : -vel;
        *left = -*right;
    } else {
        double rad = fmax(-BW_CREATE_MAX_RADIUS, fmin(BW_CREATE_MAX_RADIUS, r));
        *right = vel * (rad + half) / rad;
        *left = vel * (rad - half) / rad;
        double top = fmax(fabs(*left), fabs(*right)); /* the outer wheel sets the pace */
        if (top > BW_CREATE_MAX_SPEED) {
            *left *= BW_CREATE_MAX_SPEED / top;
            *right *= BW_CREATE_MAX_SPEED / top;
        }
    }
}

static void set_wheels(bw_device_t *d, double left, double right)
{
    bw_sim_set_wheels(&d->sim, left / 1000, right / 1000);
}

static void stop(bw_device_t *d)
{
    create_dev_t *c = C(d);
    c->s.requested_speed = c->s.requested_radius = 0;
    c->s.requested_right_speed = c->s.requested_left_speed = 0;
    set_wheels(d, 0, 0);
}

static bool can_drive(const create_dev_t *c)
{
    return c->s.oi_mode == BW_CREATE_MODE_SAFE || c->s.oi_mode == BW_CREATE_MODE_FULL;
}

/* Counts of an encoder whose wheel has turned travel metres since power-up:
 * the raw count, cumulative, wrapping at 16 bits (Create 2 OI, packets 43
 * and 44: N counts * pi * 72.0 / 508.8 = mm). */
static int16_t encoder_counts(double travel)
{
    double counts = floor(travel / (BW_PI * BW_CREATE2_WHEEL_DIAMETER_M) * BW_CREATE2_COUNTS_PER_TURN);
    return (int16_t)(uint16_t)((uint64_t)(int64_t)counts & 0xFFFFu);
}

/* A wheel motor's current, mA: positive driving forward (the OI's sign). */
static int16_t wheel_current(double speed)
{
    if (fabs(speed) < 1e-6)
        return 0;
    double ma = WHEEL_MA + WHEEL_FULL_MA * fabs(speed) / (BW_CREATE_MAX_SPEED / 1000.0);
    return (int16_t)lround(speed > 0 ? ma : -ma);
}

/* A Create 2's own packets, from the wheels and the world. */
static void sense2(bw_device_t *d)
{
    create_dev_t *c = C(d);
    const bw_body_t *b = &d->sim.body;
    bw_create_sensors_t *s = &c->s;
    /* No caster drop switch, no cargo bay. */
    s->bumps_wheel_drops &= (uint8_t)~BW_CREATE_WHEEL_DROP_CASTER;
    s->cargo_bay_digital_inputs = 0;
    s->cargo_bay_analog_signal = 0;
    s->left_encoder_counts = encoder_counts(b->odo_left - c->odo0_left);
    s->right_encoder_counts = encoder_counts(b->odo_right - c->odo0_right);
    uint16_t *sig[6] = { &s->light_bump_left_signal,         &s->light_bump_front_left_signal,
                         &s->light_bump_center_left_signal,  &s->light_bump_center_right_signal,
                         &s->light_bump_front_right_signal,  &s->light_bump_right_signal };
    uint8_t bits = 0;
    for (int i = 0; i < 6; i++) {
        double a = light_at[i];
        bw_pose_t at = { BODY_RADIUS2 * 0.9 * cos(a), BODY_RADIUS2 * 0.9 * sin(a), a };
        double r = bw_sim_range(&d->sim, at, LIGHT_RANGE);
        *sig[i] = (uint16_t)lround(fmax(0, 4095 * (1 - r / LIGHT_RANGE)));
        if (r < LIGHT_NEAR)
            bits |= (uint8_t)(1u << i);
    }
    s->light_bumper = bits;
    s->infrared_left = s->infrared_right = c->remote;
    s->left_motor_current = wheel_current(b->left);
    s->right_motor_current = wheel_current(b->right);
    s->main_brush_motor_current = (int16_t)(c->motors & 0x04 ? MAIN_BRUSH_MA : 0);
    s->side_brush_motor_current = (int16_t)(c->motors & 0x01 ? SIDE_BRUSH_MA : 0);
    /* The caster's toggle flips as the robot rolls forward. */
    if ((b->left + b->right) / 2 > 0.01 && !b->contact)
        c->stasis = !c->stasis;
    s->stasis = c->stasis ? BW_CREATE2_STASIS_TOGGLING : 0;
}

/* What the sensors say now, from the world; distance and angle follow the
 * encoders as they turn (step). */
static void sense(bw_device_t *d)
{
    create_dev_t *c = C(d);
    const bw_body_t *b = &d->sim.body;
    bw_create_sensors_t *s = &c->s;
    uint8_t bumps = 0;
    if (b->contact && fabs(b->contact_angle) <= BW_PI / 2) {
        /* The bumper spans the front: a hit near the middle closes both. */
        if (b->contact_angle >= -0.17)
            bumps |= BW_CREATE_BUMP_LEFT;
        if (b->contact_angle <= 0.17)
            bumps |= BW_CREATE_BUMP_RIGHT;
    }
    bw_vec2_t caster = bw_pose_to_global(b->pose, (bw_vec2_t){ 0.13, 0 });
    bool caster_down = bw_world_is_drop(d->sim.world, caster);
    s->bumps_wheel_drops = (uint8_t)(bumps | (b->drop_right ? BW_CREATE_WHEEL_DROP_RIGHT : 0) |
                                     (b->drop_left ? BW_CREATE_WHEEL_DROP_LEFT : 0) |
                                     (caster_down ? BW_CREATE_WHEEL_DROP_CASTER : 0));
    /* Rear contact: the cargo bay inputs 0 and 1, where lobot's rear bumper
     * switches are wired (rear right, rear left). */
    uint8_t rear = 0;
    if (b->contact && fabs(b->contact_angle) > BW_PI / 2)
        rear = b->contact_angle < 0 ? 0x01 : 0x02;
    s->cargo_bay_digital_inputs = rear;
    uint8_t *cliff[4] = { &s->cliff_left, &s->cliff_front_left, &s->cliff_front_right,
                          &s->cliff_right };
    uint16_t *signal[4] = { &s->cliff_left_signal, &s->cliff_front_left_signal,
                            &s->cliff_front_right_signal, &s->cliff_right_signal };
    for (int i = 0; i < 4; i++) {
        *cliff[i] = (b->cliff >> i) & 1u;
        *signal[i] = *cliff[i] ? 0 : CLIFF_FLOOR;
    }
    double wall = bw_sim_range(&d->sim, wall_mount, WALL_RANGE);
    s->wall = wall < WALL_NEAR;
    s->wall_signal = (uint16_t)lround(fmax(0, 4095 * (1 - wall / WALL_RANGE)));
    s->infrared_byte = c->remote;
    s->charging_sources = b->docked ? BW_CREATE_SOURCE_HOME_BASE : 0;
    /* Wheels driven against a wall draw more than they may: packet 14's
     * wheel overcurrent bits (left 4, right 3), the OI's sign of a robot that
     * cannot move while told to. */
    bool told = b->cmd_left != 0 || b->cmd_right != 0;
    s->lsd_wheel_oc = (uint8_t)(b->blocked && told ? BW_CREATE_OC_LEFT_WHEEL | BW_CREATE_OC_RIGHT_WHEEL
                                                   : 0);
    double speed = (fabs(b->left) + fabs(b->right)) / 2 / (BW_CREATE_MAX_SPEED / 1000.0);
    double ma = b->docked ? CHARGE_MA : -(IDLE_MA + DRIVE_MA * speed);
    s->current = (int16_t)lround(ma);
    s->charging_state = !b->docked                ? BW_CREATE_CHARGING_NOT
                        : c->charge >= CAPACITY - 1 ? BW_CREATE_CHARGING_TRICKLE
                                                    : BW_CREATE_CHARGING_FULL;
    s->battery_charge = (uint16_t)lround(c->charge);
    s->voltage = (uint16_t)lround(1000 * (VOLTS_EMPTY + (VOLTS_FULL - VOLTS_EMPTY) * c->charge /
                                                         CAPACITY));
    if (c->model == BW_CREATE_MODEL_2)
        sense2(d);
}

/* Distance and angle since the last read, as the Create 1 reports them:
 * truncated toward zero to whole millimetres and degrees, the rest lost.
 * Read often during a slow turn, the angle says less than the robot turned. */
static void take_odometry(create_dev_t *c, bw_create_sensors_t *out)
{
    out->distance = (int16_t)fmax(-32768, fmin(32767, trunc(c->distance)));
    out->angle = (int16_t)fmax(-32768, fmin(32767, trunc(c->angle)));
    c->distance = c->angle = 0;
}

/* The bytes of packets, as a reply or a Stream frame gives them. Reading
 * distance or angle resets them. */
static bool reads_odometry(const uint8_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == BW_CREATE_GROUP_0 || ids[i] == BW_CREATE_GROUP_2 || ids[i] == BW_CREATE_GROUP_6 ||
            ids[i] == BW_CREATE_GROUP_100 || ids[i] == BW_CREATE_PKT_DISTANCE ||
            ids[i] == BW_CREATE_PKT_ANGLE)
            return true;
    return false;
}

/* Whether the model has every packet asked for. One it does not have makes
 * the request go unanswered (the robot cannot size its reply), counted by
 * packet id and said the first time. */
static bool packets_known(bw_device_t *d, uint8_t op, const uint8_t *ids, size_t n)
{
    create_dev_t *c = C(d);
    char list[BW_DEVICE_NOTICE_LEN];
    size_t len = 0, bad = 0;
    bool news = false; /* a packet not asked for before: said, in one line */
    for (size_t i = 0; i < n; i++) {
        if (bw_create_model_packet_size((bw_create_model_t)c->model, ids[i]) >= 0)
            continue;
        news |= c->unknown_packets[ids[i]]++ == 0;
        if (len < sizeof list - 8)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%u", bad ? ", " : "", ids[i]);
        bad++;
    }
    if (!bad)
        return true;
    bw_device_ignored(d, op);
    if (news)
        bw_device_notice(d, "%s asks for packet%s %s, which a %s does not have: not answered",
                         bw_create_op_name(op), bad > 1 ? "s" : "", list,
                         c->model == BW_CREATE_MODEL_2 ? "Create 2" : "Create 1");
    return false;
}

static void reply(bw_device_t *d, const uint8_t *ids, size_t n)
{
    create_dev_t *c = C(d);
    sense(d);
    bw_create_sensors_t s = c->s;
    if (reads_odometry(ids, n))
        take_odometry(c, &s);
    uint8_t out[BW_CREATE2_MAX_PACKETS * BW_CREATE_GROUP100_SIZE];
    int len = bw_create_model_encode_query((bw_create_model_t)c->model, out, sizeof out, ids, n, &s);
    if (len > 0)
        bw_device_emit(d, out, (size_t)len);
}

static void send_stream(bw_device_t *d)
{
    create_dev_t *c = C(d);
    sense(d);
    bw_create_sensors_t s = c->s;
    if (reads_odometry(c->stream_ids, c->nstream))
        take_odometry(c, &s);
    uint8_t out[BW_CREATE_MAX_FRAME];
    int len = bw_create_model_encode_stream((bw_create_model_t)c->model, out, sizeof out,
                                            c->stream_ids, c->nstream, &s, BW_CREATE_SUM_WITH_HEADER);
    if (len > 0)
        bw_device_emit(d, out, (size_t)len);
    /* A request too long for one frame sends nothing, as the robot does. */
}

/* The OI off: the stream stops with it, and the wheels. */
static void oi_off(bw_device_t *d)
{
    create_dev_t *c = C(d);
    stop(d);
    c->streaming = false;
    c->nstream = 0;
    c->s.num_stream_packets = 0;
    c->s.oi_mode = BW_CREATE_MODE_OFF;
}

/* A Create 2's own commands (and its meanings of 135, 136, 138, 143, 144);
 * false for a command both models share. */
static bool command2(bw_device_t *d, const bw_create_cmd_t *cmd)
{
    create_dev_t *c = C(d);
    bw_create_sensors_t *s = &c->s;
    switch (cmd->opcode) {
    case BW_CREATE2_OP_RESET: /* as a battery change: the OI off, counts from zero */
        oi_off(d);
        c->odo0_left = d->sim.body.odo_left;
        c->odo0_right = d->sim.body.odo_right;
        break;
    case BW_CREATE2_OP_STOP: oi_off(d); break;
    case BW_CREATE2_OP_POWER: /* powers down, the OI left in Passive */
        stop(d);
        s->oi_mode = BW_CREATE_MODE_PASSIVE;
        break;
    case BW_CREATE_OP_SPOT:
    case BW_CREATE2_OP_CLEAN:
    case BW_CREATE2_OP_MAX:
    case BW_CREATE2_OP_SEEK_DOCK:
        /* A cleaning mode takes the robot from the host: Passive. Its
         * cleaning is not emulated: the robot stands. */
        stop(d);
        s->oi_mode = BW_CREATE_MODE_PASSIVE;
        bw_device_ignored(d, cmd->opcode);
        break;
    case BW_CREATE2_OP_DRIVE_PWM:
        if (!can_drive(c)) {
            bw_device_ignored(d, cmd->opcode);
            break;
        }
        /* Full PWM taken as full speed: a wheel's speed under a duty
         * cycle depends on its load, which the OI does not say. */
        set_wheels(d, fmax(-255, fmin(255, cmd->u.drive_pwm.left)) * BW_CREATE_MAX_SPEED / 255.0,
                   fmax(-255, fmin(255, cmd->u.drive_pwm.right)) * BW_CREATE_MAX_SPEED / 255.0);
        break;
    case BW_CREATE2_OP_MOTORS:
        if (can_drive(c))
            c->motors = cmd->u.motors;
        else
            bw_device_ignored(d, cmd->opcode);
        break;
    case BW_CREATE2_OP_PWM_MOTORS:
        if (can_drive(c))
            c->motors = (uint8_t)((cmd->u.pwm_motors.side_brush ? 0x01 : 0) |
                                  (cmd->u.pwm_motors.vacuum ? 0x02 : 0) |
                                  (cmd->u.pwm_motors.main_brush ? 0x04 : 0));
        else
            bw_device_ignored(d, cmd->opcode);
        break;
    case BW_CREATE2_OP_DIGIT_LEDS_RAW:
    case BW_CREATE2_OP_DIGIT_LEDS_ASCII: memcpy(c->digits, cmd->u.digits, 4); break;
    case BW_CREATE2_OP_BUTTONS:
        s->buttons = cmd->u.buttons;
        c->buttons_until = c->ticks + (unsigned long)lround(BUTTON_TIME / CONTROL_PERIOD);
        break;
    case BW_CREATE2_OP_SCHEDULING_LEDS:
    case BW_CREATE2_OP_SCHEDULE:
    case BW_CREATE2_OP_SET_DAY_TIME: bw_device_ignored(d, cmd->opcode); break; /* no clock kept */
    default: return false;
    }
    return true;
}

static void command(bw_device_t *d, const bw_create_cmd_t *cmd)
{
    create_dev_t *c = C(d);
    bw_create_sensors_t *s = &c->s;
    bool two = c->model == BW_CREATE_MODEL_2;
    if (two && cmd->opcode == BW_CREATE2_OP_RESET) { /* in any mode */
        command2(d, cmd);
        return;
    }
    if (s->oi_mode == BW_CREATE_MODE_OFF && cmd->opcode != BW_CREATE_OP_START) {
        bw_device_ignored(d, cmd->opcode); /* the OI is not started */
        return;
    }
    if (two && command2(d, cmd))
        return;
    switch (cmd->opcode) {
    case BW_CREATE_OP_START:
        s->oi_mode = BW_CREATE_MODE_PASSIVE;
        stop(d);
        break;
    case BW_CREATE_OP_CONTROL:
    case BW_CREATE_OP_SAFE: s->oi_mode = BW_CREATE_MODE_SAFE; break;
    case BW_CREATE_OP_FULL: s->oi_mode = BW_CREATE_MODE_FULL; break;
    case BW_CREATE_OP_DRIVE:
        if (!can_drive(c)) {
            bw_device_ignored(d, cmd->opcode); /* passive: motors are not the host's */
            break;
        }
        {
            double l, r;
            drive_wheels(d->sim.body.prm.wheelbase, cmd->u.drive.velocity, cmd->u.drive.radius, &l, &r);
            s->requested_speed = cmd->u.drive.velocity;
            s->requested_radius = cmd->u.drive.radius;
            set_wheels(d, l, r);
        }
        break;
    case BW_CREATE_OP_DRIVE_DIRECT:
        if (!can_drive(c)) {
            bw_device_ignored(d, cmd->opcode);
            break;
        }
        s->requested_right_speed = cmd->u.drive_direct.right;
        s->requested_left_speed = cmd->u.drive_direct.left;
        set_wheels(d, fmax(-500, fmin(500, cmd->u.drive_direct.left)),
                   fmax(-500, fmin(500, cmd->u.drive_direct.right)));
        break;
    case BW_CREATE_OP_LEDS:
        c->leds[0] = cmd->u.leds.bits;
        c->leds[1] = cmd->u.leds.color;
        c->leds[2] = cmd->u.leds.intensity;
        break;
    case BW_CREATE_OP_SONG:
        if (cmd->u.song.number < 16) {
            c->song_len[cmd->u.song.number] = cmd->u.song.length;
            memcpy(c->songs[cmd->u.song.number], cmd->u.song.notes, sizeof c->songs[0]);
        }
        break;
    case BW_CREATE_OP_PLAY:
        if (cmd->u.play < 16 && c->song_len[cmd->u.play]) {
            s->song_number = cmd->u.play;
            c->songs_played++;
        }
        break;
    case BW_CREATE_OP_SENSORS:
        if (packets_known(d, cmd->opcode, &cmd->u.sensors, 1))
            reply(d, &cmd->u.sensors, 1);
        break;
    case BW_CREATE_OP_QUERY_LIST:
        if (packets_known(d, cmd->opcode, cmd->u.packets.ids, cmd->u.packets.n))
            reply(d, cmd->u.packets.ids, cmd->u.packets.n);
        break;
    case BW_CREATE_OP_STREAM:
        if (!packets_known(d, cmd->opcode, cmd->u.packets.ids, cmd->u.packets.n))
            break; /* the stream goes on as it was */
        c->nstream = cmd->u.packets.n;
        memcpy(c->stream_ids, cmd->u.packets.ids, c->nstream);
        c->streaming = c->nstream > 0;
        c->stream_paused = false;
        s->num_stream_packets = c->nstream;
        c->next_stream = c->ticks + (unsigned long)lround(STREAM_PERIOD / CONTROL_PERIOD);
        break;
    case BW_CREATE_OP_PAUSE_RESUME_STREAM:
        c->stream_paused = cmd->u.pause_resume_stream == 0;
        break;
    case BW_CREATE_OP_BAUD: break; /* a pty or TCP has no baud rate to change */
    default:
        /* Demo modes, cleaning, scripts, low side drivers, IR: known and
         * left alone by this emulation. */
        bw_device_ignored(d, cmd->opcode);
        break;
    }
}

static void input(bw_device_t *d, const uint8_t *data, size_t n, double now)
{
    (void)now;
    create_dev_t *c = C(d);
    bw_create_cmd_frame_t f;
    int rc;
    while ((rc = bw_create_cmd_parse(&c->parser, &data, &n, &f)) != 0) {
        if (rc < 0)
            continue;
        bw_create_cmd_t cmd;
        if (bw_create_model_decode_cmd((bw_create_model_t)c->model, f.bytes, f.len, &cmd) < 0) {
            bw_device_malformed(d);
            continue;
        }
        command(d, &cmd);
    }
    bw_device_link_stats(d, &c->parser.stats);
}

/* Safe mode: a cliff, a wheel drop or the charger stops the robot and puts
 * the OI in passive mode, as the Create does. */
static void safety(bw_device_t *d)
{
    create_dev_t *c = C(d);
    const bw_body_t *b = &d->sim.body;
    if (c->s.oi_mode != BW_CREATE_MODE_SAFE)
        return;
    bool danger = b->cliff || b->drop_left || b->drop_right || b->docked ||
                  (c->s.bumps_wheel_drops & BW_CREATE_WHEEL_DROP_CASTER);
    if (danger && (b->cmd_left != 0 || b->cmd_right != 0)) {
        stop(d);
        c->s.oi_mode = BW_CREATE_MODE_PASSIVE;
    }
}

static void step(bw_device_t *d, double now)
{
    create_dev_t *c = C(d);
    c->stepped = true;
    for (double t; (t = tick_time(c, c->ticks + 1)) <= now + 1e-9;) {
        c->ticks++;
        bw_sim_step_to(&d->sim, t);
        const bw_body_t *b = &d->sim.body;
        double dl = (b->odo_left - c->last_left) * 1000, dr = (b->odo_right - c->last_right) * 1000;
        c->last_left = b->odo_left;
        c->last_right = b->odo_right;
        c->distance += (dl + dr) / 2;
        c->angle += (dr - dl) / (b->prm.wheelbase * 1000) * 180 / BW_PI;
        double ma = b->docked ? CHARGE_MA
                              : -(IDLE_MA + DRIVE_MA * (fabs(b->left) + fabs(b->right)) / 2 /
                                                (BW_CREATE_MAX_SPEED / 1000.0));
        c->charge = fmax(0, fmin(CAPACITY, c->charge + ma * CONTROL_PERIOD / 3600));
        if (c->buttons_until && c->ticks >= c->buttons_until) {
            c->s.buttons = 0; /* the Buttons command's push is over */
            c->buttons_until = 0;
        }
        if (c->ticks % 4 == 0) { /* the sensors, every 20 ms */
            sense(d);
            safety(d);
        }
        if (c->streaming && !c->stream_paused && c->ticks >= c->next_stream) {
            send_stream(d);
            c->next_stream += (unsigned long)lround(STREAM_PERIOD / CONTROL_PERIOD);
        }
    }
    bw_sim_step_to(&d->sim, now);
}

static double next_deadline(const bw_device_t *d)
{
    const create_dev_t *c = C(d);
    if (!c->stepped)
        return c->t0; /* a step at once, so that an emulator says the notice of init first */
    return c->streaming && !c->stream_paused ? tick_time(c, c->next_stream) : INFINITY;
}

static void reset_line(bw_device_t *d)
{
    create_dev_t *c = C(d);
    bw_create_cmd_frame_t f;
    while (bw_create_cmd_parser_finish(&c->parser, &f) != 0)
        ;
    bw_device_link_stats(d, &c->parser.stats);
}

/* A host that goes (its program died, its cable came out): the Create
 * cannot tell. The OI has no watchdog, so it drives on as it was told, and
 * streams on to nobody; only a host that stops it first leaves it standing.
 * Said, since a robot driving off on its own surprises. */
static void link(bw_device_t *d, bool connected, double now)
{
    (void)now;
    const bw_body_t *b = &d->sim.body;
    if (!connected && (b->cmd_left != 0 || b->cmd_right != 0))
        bw_device_notice(d, "the host left the Create driving (left %.0f mm/s, right %.0f mm/s): "
                            "it drives on, as a Create does (no watchdog)",
                         b->cmd_left * 1000, b->cmd_right * 1000);
}

static const char *command_name(unsigned id) { return bw_create_op_name((uint8_t)id); }

/* A Create 2's names: its emulator lists its commands by them. */
static const char *command_name2(unsigned id)
{
    return bw_create_model_op_name(BW_CREATE_MODEL_2, (uint8_t)id);
}

const uint32_t *bw_create_device_unknown_packets(const struct bw_device *d)
{
    if (bw_lobot_create_of((bw_device_t *)d))
        d = bw_lobot_create_of((bw_device_t *)d);
    if (!is_create(d))
        return NULL;
    return C(d)->unknown_packets;
}

const char *bw_create_device_model(const struct bw_device *d)
{
    if (!is_create(d))
        return NULL;
    return C(d)->model == BW_CREATE_MODEL_2 ? "create2" : "create";
}

int bw_create_device_remote(bw_device_t *d, uint8_t ir_byte)
{
    if (bw_lobot_create_of(d))
        d = bw_lobot_create_of(d);
    if (!is_create(d))
        return BW_EINVAL;
    C(d)->remote = ir_byte;
    return 0;
}

const bw_device_ops_t bw_create_device_ops = {
    .family = "create",
    .size = sizeof(create_dev_t),
    .init = init,
    .input = input,
    .step = step,
    .next_deadline = next_deadline,
    .reset_line = reset_line,
    .link = link,
    .command_name = command_name,
};
