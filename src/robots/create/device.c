/* The emulated iRobot Create on the shared sim: a Create 1 (Open Interface),
 * or with model "create2" a Create 2 (Roomba 600 Open Interface). What it
 * obeys and answers is the Create's own program (program.c,
 * bw_create_robot_*, which a firmware runs too); this file gives it the
 * simulated body and world: the wheels it moves, the sensors it reads (the
 * encoder counts from the wheels' true turning, its light bumper, motor
 * currents and stasis), the battery. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/device_internal.h"
#include "botwire/create.h"

#define CONTROL_PERIOD 0.005 /* s: the wheel and sensor loop */
#define CONTROL_MS 5u        /* the same, in the program's milliseconds */
#define WHEELBASE 0.258      /* m; a Create 2's: BW_CREATE2_WHEELBASE_M */
#define BODY_RADIUS 0.165    /* m */
#define BODY_RADIUS2 0.17    /* m: a Create 2 is 340 mm across */
#define LIGHT_RANGE 0.15     /* m a light bumper sensor sees */
#define LIGHT_NEAR 0.05      /* m: its bit in packet 45 */
#define WHEEL_MA 100         /* mA a wheel motor draws turning, and more at full speed: */
#define WHEEL_FULL_MA 400
#define MAIN_BRUSH_MA 300    /* mA of the cleaning motors, on */
#define SIDE_BRUSH_MA 100
#define CAPACITY 2700        /* mAh */
#define VOLTS_FULL 16.5
#define VOLTS_EMPTY 12.0
#define WALL_RANGE 0.15      /* m the wall sensor sees */
#define WALL_NEAR 0.08       /* m: the wall bit */
#define CLIFF_FLOOR 1500     /* cliff signal over the floor */
#define IDLE_MA 250          /* mA the robot draws standing still */
#define DRIVE_MA 1200        /* mA more at full speed */
#define CHARGE_MA 900        /* mA on the Home Base: the pack full from empty in 3 h */
/* The Home Base (docs/create.md): its red buoy out to the left of its axis
 * as it faces (the spec's "Dock beam configuration": a robot facing the
 * dock sees green on its left, red on its right), the green to the right,
 * both heard within a few degrees of the axis; the force field round its
 * front. */
#define BUOY_RANGE 2.4                  /* m: "extends 8 ft. from the front of the base" */
#define BUOY_SIDE (60 * BW_PI / 180)    /* a buoy's lobe, from the axis out to its side */
#define BUOY_OVERLAP (5 * BW_PI / 180)  /* and past the axis: both heard along it */
#define FORCE_FIELD 0.61                /* m from the face (2 ft) */
/* The Create 2's left and right receivers look ahead, each to its side. */
#define SIDE_RECEIVER_FROM (-30 * BW_PI / 180)
#define SIDE_RECEIVER_TO (90 * BW_PI / 180)

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
    bw_create_robot_t robot; /* the robot's program; its s: what the sensors say now */
    long long last_left, last_right; /* wheel travel already given to the program, um */
    double t0;
    unsigned long ticks;
    double charge;           /* mAh */
    uint8_t remote;          /* the IR byte the receiver hears */
    bool stepped;            /* a step has run: the notice of init is out */
    double odo0_left, odo0_right; /* wheel travel at power-up, m: the encoders' zero */
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

/* The program's clock: milliseconds of the control loop's ticks. */
static uint32_t ms_of(const create_dev_t *c) { return (uint32_t)(c->ticks * CONTROL_MS); }

/* Wheel travel in whole micrometres, as the program counts it. */
static long long um(double m) { return llround(m * 1e6); }

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
    bw_create_robot_init(&c->robot, (bw_create_model_t)c->model,
                         (uint16_t)lround(b->wheelbase * 1000));
    c->t0 = t0;
    c->charge = o->has_battery ? CAPACITY * fmax(0, fmin(1, o->battery)) : CAPACITY;
    c->remote = BW_CREATE_IR_NONE;
    c->robot.s.battery_capacity = CAPACITY;
    c->robot.s.battery_temp = 25;
    c->odo0_left = d->sim.body.odo_left;
    c->odo0_right = d->sim.body.odo_right;
    c->last_left = um(c->odo0_left);
    c->last_right = um(c->odo0_right);
    /* The first thing `botwire sim create` says after where it serves. */
    bw_device_notice(d, "a Create has no watchdog: it drives on its last Drive until told "
                        "otherwise, when its host has gone too (docs/create.md)");
    return 0;
}

/* The wheels to what the program asks. */
static void set_wheels(bw_device_t *d)
{
    const bw_create_robot_t *r = &C(d)->robot;
    bw_sim_set_wheels(&d->sim, r->wheel[0] / 1000.0, r->wheel[1] / 1000.0);
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

/* What of the Home Bases a receiver hears: red 8, green 4, force field 2
 * (the Create 1's bits; 0 nothing). A receiver on the robot's top hears
 * all round (omni); the Create 2's left one hears docks at bearings from
 * SIDE_RECEIVER_FROM to _TO on its side, the right one the same mirrored
 * (side +1 left, -1 right, 0 omni). */
static uint8_t home_base_heard(const bw_device_t *d, int side)
{
    const bw_world_t *w = d->sim.world;
    const bw_pose_t *p = &d->sim.body.pose;
    uint8_t heard = 0;
    for (size_t k = 0; w && k < w->ndocks; k++) {
        const bw_dock_t *dock = &w->docks[k];
        if (!bw_dock_serves(dock, "create"))
            continue;
        double r, a, bearing; /* the dock's left is +a */
        if (!bw_dock_seen_from(dock, *p, BUOY_RANGE, &r, &a, &bearing) ||
            (side && (side * bearing < SIDE_RECEIVER_FROM || side * bearing > SIDE_RECEIVER_TO)))
            continue;
        if (a >= -BUOY_OVERLAP && a <= BUOY_SIDE)
            heard |= 8; /* red */
        if (a <= BUOY_OVERLAP && a >= -BUOY_SIDE)
            heard |= 4; /* green */
        if (r <= FORCE_FIELD)
            heard |= 2;
    }
    return heard;
}

/* The character a receiver reports: the remote's, when one is pressed, else
 * what it heard of the Home Bases (home_base_heard), in the model's codes. */
static uint8_t ir_character(const bw_device_t *d, uint8_t heard)
{
    const create_dev_t *c = C(d);
    bool two = c->model == BW_CREATE_MODEL_2;
    if (c->remote != BW_CREATE_IR_NONE)
        return c->remote;
    if (!heard)
        return two ? BW_CREATE2_IR_NONE : BW_CREATE_IR_NONE;
    if (!two)
        return (uint8_t)(BW_CREATE_IR_HOME_RESERVED | heard);
    return (uint8_t)(BW_CREATE2_IR_DOCK_RESERVED | (heard & 0x0C) | (heard & 2 ? 1 : 0));
}

/* Whether the robot charges where it is: on the Home Base, its OI off or
 * Passive ("charging terminates when you enter Safe Mode", Full the same). */
static bool charging(const create_dev_t *c, const bw_body_t *b)
{
    return b->docked && c->robot.s.oi_mode != BW_CREATE_MODE_SAFE &&
           c->robot.s.oi_mode != BW_CREATE_MODE_FULL;
}

/* The battery's current, mA (the OI's sign: positive charging): charging,
 * or resting on the Home Base in Safe or Full (the charger powers the
 * robot), or draining. */
static double battery_ma(const create_dev_t *c, const bw_body_t *b)
{
    if (charging(c, b))
        return c->charge >= CAPACITY ? 0 : CHARGE_MA;
    if (b->docked) /* the charger powers the robot; the battery rests */
        return 0;
    return -(IDLE_MA + DRIVE_MA * (fabs(b->left) + fabs(b->right)) / 2 / (BW_CREATE_MAX_SPEED / 1000.0));
}

/* A Create 2's own packets, from the wheels and the world. */
static void sense2(bw_device_t *d)
{
    create_dev_t *c = C(d);
    const bw_body_t *b = &d->sim.body;
    bw_create_sensors_t *s = &c->robot.s;
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
    s->infrared_left = ir_character(d, home_base_heard(d, 1));
    s->infrared_right = ir_character(d, home_base_heard(d, -1));
    s->left_motor_current = wheel_current(b->left);
    s->right_motor_current = wheel_current(b->right);
    s->main_brush_motor_current = (int16_t)(c->robot.motors & 0x04 ? MAIN_BRUSH_MA : 0);
    s->side_brush_motor_current = (int16_t)(c->robot.motors & 0x01 ? SIDE_BRUSH_MA : 0);
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
    bw_create_sensors_t *s = &c->robot.s;
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
    uint8_t omni = home_base_heard(d, 0);
    s->infrared_byte = ir_character(d, omni);
    /* "the force field on top of the Home Base also trips this sensor"
     * (Create OI, packet 13) */
    s->virtual_wall = c->model != BW_CREATE_MODEL_2 && (omni & 2) ? 1 : 0;
    s->charging_sources = b->docked ? BW_CREATE_SOURCE_HOME_BASE : 0;
    /* Wheels driven against a wall draw more than they may: packet 14's
     * wheel overcurrent bits (left 4, right 3), the OI's sign of a robot that
     * cannot move while told to. */
    bool told = b->cmd_left != 0 || b->cmd_right != 0;
    s->lsd_wheel_oc = (uint8_t)(b->blocked && told ? BW_CREATE_OC_LEFT_WHEEL | BW_CREATE_OC_RIGHT_WHEEL
                                                   : 0);
    s->current = (int16_t)lround(battery_ma(c, b));
    /* Charging: full charging, then trickle once full (the Roomba's
     * charger's way). */
    s->charging_state = !charging(c, b)            ? BW_CREATE_CHARGING_NOT
                        : c->charge >= CAPACITY - 1 ? BW_CREATE_CHARGING_TRICKLE
                                                    : BW_CREATE_CHARGING_FULL;
    s->battery_charge = (uint16_t)lround(c->charge);
    s->voltage = (uint16_t)lround(1000 * (VOLTS_EMPTY + (VOLTS_FULL - VOLTS_EMPTY) * c->charge /
                                                         CAPACITY));
    if (c->model == BW_CREATE_MODEL_2)
        sense2(d);
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

static void reply(bw_device_t *d)
{
    sense(d);
    uint8_t out[BW_CREATE2_MAX_PACKETS * BW_CREATE_GROUP100_SIZE];
    size_t len = bw_create_robot_reply(&C(d)->robot, out, sizeof out);
    if (len > 0)
        bw_device_emit(d, out, len);
}

static void command(bw_device_t *d, const bw_create_cmd_t *cmd)
{
    create_dev_t *c = C(d);
    uint8_t op = cmd->opcode;
    /* A packet the model has not: said and counted here (the program only
     * leaves such a request unanswered), once the OI is on to hear it. */
    if (c->robot.s.oi_mode != BW_CREATE_MODE_OFF &&
        (op == BW_CREATE_OP_SENSORS || op == BW_CREATE_OP_QUERY_LIST || op == BW_CREATE_OP_STREAM) &&
        !packets_known(d, op, op == BW_CREATE_OP_SENSORS ? &cmd->u.sensors : cmd->u.packets.ids,
                       op == BW_CREATE_OP_SENSORS ? 1 : cmd->u.packets.n))
        return;
    int rc = bw_create_robot_command(&c->robot, cmd, ms_of(c));
    if (rc == 0)
        bw_device_ignored(d, op); /* not in this mode, or not emulated (cleaning, scripts, ...) */
    else if (rc == BW_CREATE_ROBOT_REPLY)
        reply(d);
    else if (rc == BW_CREATE_ROBOT_RESET) { /* as a battery change: counts from zero */
        c->odo0_left = d->sim.body.odo_left;
        c->odo0_right = d->sim.body.odo_right;
    }
    set_wheels(d);
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

/* Safe mode's danger: a cliff, a wheel drop or the charger (the program
 * stops the robot for it and puts the OI in Passive, as the Create does). */
static bool danger(const bw_device_t *d)
{
    const bw_body_t *b = &d->sim.body;
    return b->cliff || b->drop_left || b->drop_right || b->docked ||
           (C(d)->robot.s.bumps_wheel_drops & BW_CREATE_WHEEL_DROP_CASTER);
}

static void step(bw_device_t *d, double now)
{
    create_dev_t *c = C(d);
    c->stepped = true;
    for (double t; (t = tick_time(c, c->ticks + 1)) <= now + 1e-9;) {
        c->ticks++;
        bw_sim_step_to(&d->sim, t);
        const bw_body_t *b = &d->sim.body;
        long long l = um(b->odo_left), r = um(b->odo_right);
        bw_create_robot_moved(&c->robot, (int32_t)(l - c->last_left), (int32_t)(r - c->last_right));
        c->last_left = l;
        c->last_right = r;
        c->charge = fmax(0, fmin(CAPACITY, c->charge + battery_ma(c, b) * CONTROL_PERIOD / 3600));
        bool sensing = c->ticks % 4 == 0; /* the sensors, every 20 ms */
        if (sensing)
            sense(d);
        if (bw_create_robot_watch(&c->robot, ms_of(c), sensing && danger(d)))
            set_wheels(d);
        if (bw_create_robot_stream_due(&c->robot, ms_of(c))) {
            sense(d);
            uint8_t out[BW_CREATE_MAX_FRAME];
            size_t len = bw_create_robot_stream(&c->robot, ms_of(c), out, sizeof out);
            if (len > 0)
                bw_device_emit(d, out, len);
        }
    }
    bw_sim_step_to(&d->sim, now);
}

static double next_deadline(const bw_device_t *d)
{
    const create_dev_t *c = C(d);
    if (!c->stepped)
        return c->t0; /* a step at once, so that an emulator says the notice of init first */
    const bw_create_robot_t *r = &c->robot;
    return r->streaming && !r->stream_paused ? c->t0 + r->next_stream_ms / 1000.0 : INFINITY;
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

const bw_create_robot_t *bw_create_device_robot(const struct bw_device *d)
{
    return d && is_create(d) ? &C(d)->robot : NULL;
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
    .dock_family = "create",
};
