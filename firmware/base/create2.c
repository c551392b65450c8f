/*
 * The base speaks the Create 2's Open Interface: src/robots/create's
 * command parser and the Create's own program (bw_create_robot_*, the code
 * the emulator runs), on a base of another size. The host's software knows
 * a Create 2's geometry (235 mm between the wheels, 72 mm wheels, 508.8
 * encoder counts a turn), so the base shows itself as one: packets 43 and
 * 44 count what a Create 2's encoders would along the same path, distance
 * and angle likewise, and a command's wheel speeds become the same motion
 * on this base's track.
 */
#include "botwire/create.h"
#include "hardware.h"
#include "proto.h"

#define CREATE2_TRACK_UM 235000.0
#define CREATE2_UM_PER_COUNT (3.14159265358979 * 72000.0 / 508.8)
#define UM_PER_COUNT (3.14159265358979 * BASE_WHEEL_DIAMETER_UM / BASE_COUNTS_PER_TURN)
#define Q24 16777216.0

static bw_create_cmd_parser_t parser;
static bw_create_robot_t robot;
static int32_t zero[2];         /* the counts at the last Reset */
static int64_t last_um[2];      /* a Create 2's wheels' travel given to the program */
static uint32_t last_command_ms;
static bool halted;             /* a safety stop (Safe mode's, the watchdog's): at once, no ramp */
static uint8_t out[BW_CREATE_MAX_FRAME];

void base_proto_init(uint32_t now_ms)
{
    bw_create_cmd_parser_init(&parser);
    bw_create_cmd_parser_model(&parser, BW_CREATE_MODEL_2);
    bw_create_robot_init(&robot, BW_CREATE_MODEL_2, 235);
    robot.s.battery_capacity = BASE_BATTERY_MAH;
    last_command_ms = now_ms;
}

/* A Create 2's wheels' travel for the path this base's took: the mean of
 * the counts gives the distance, their difference the turn over 235 mm.
 * In micrometres (UM) or a Create 2's encoder counts (COUNTS), times 2^24. */
#define MEAN(scale) ((int64_t)(UM_PER_COUNT * (scale) / 2 * Q24 + 0.5))
#define TURN(scale) ((int64_t)(UM_PER_COUNT * (scale) * CREATE2_TRACK_UM / BASE_TRACK_UM / 2 * Q24 + 0.5))
static const int64_t um_mean = MEAN(1.0), um_turn = TURN(1.0);
static const int64_t counts_mean = MEAN(1.0 / CREATE2_UM_PER_COUNT);
static const int64_t counts_turn = TURN(1.0 / CREATE2_UM_PER_COUNT);

static void create2_wheels(const int32_t count[2], int64_t mean, int64_t turn, int64_t out2[2])
{
    int64_t c0 = (int64_t)count[0] - zero[0], c1 = (int64_t)count[1] - zero[1];
    int64_t sum = c0 + c1, diff = c1 - c0;
    out2[0] = (sum * mean - diff * turn + ((int64_t)1 << 23)) >> 24;
    out2[1] = (sum * mean + diff * turn + ((int64_t)1 << 23)) >> 24;
}

static int32_t now_counts[2]; /* the encoders at the last period */

void base_proto_byte(uint8_t b, uint32_t now_ms)
{
    const uint8_t *p = &b;
    size_t n = 1;
    bw_create_cmd_frame_t f = { 0 }; /* (gcc-avr cannot see the parser sets it) */
    int rc;
    while ((rc = bw_create_cmd_parse(&parser, &p, &n, &f)) != 0) {
        bw_create_cmd_t cmd;
        if (rc < 0 || bw_create_model_decode_cmd(BW_CREATE_MODEL_2, f.bytes, f.len, &cmd) < 0)
            continue; /* counted in the parser's stats */
        last_command_ms = now_ms;
        rc = bw_create_robot_command(&robot, &cmd, now_ms);
        if (rc == BW_CREATE_ROBOT_REPLY) {
            base_send(out, bw_create_robot_reply(&robot, out, sizeof out));
        } else if (rc == BW_CREATE_ROBOT_RESET) { /* the counts from zero */
            zero[0] = now_counts[0];
            zero[1] = now_counts[1];
            last_um[0] = last_um[1] = 0;
        }
    }
}

static uint8_t bits(uint8_t s, uint8_t right, uint8_t centre, uint8_t left)
{
    return (uint8_t)((s & BASE_RIGHT ? right : 0) | (s & BASE_CENTRE ? centre : 0) |
                     (s & BASE_LEFT ? left : 0));
}

void base_proto_tick(const base_sense_t *s)
{
    bw_create_sensors_t *p = &robot.s;
    now_counts[0] = s->count[0];
    now_counts[1] = s->count[1];
    int64_t um[2], counts[2];
    create2_wheels(s->count, um_mean, um_turn, um);
    create2_wheels(s->count, counts_mean, counts_turn, counts);
    bw_create_robot_moved(&robot, (int32_t)(um[0] - last_um[0]), (int32_t)(um[1] - last_um[1]));
    last_um[0] = um[0];
    last_um[1] = um[1];
    p->left_encoder_counts = (int16_t)(uint16_t)counts[0];
    p->right_encoder_counts = (int16_t)(uint16_t)counts[1];
    /* A bump at the centre closes both switches of a Create's bumper. */
    p->bumps_wheel_drops = (uint8_t)(bits(s->bumper, BW_CREATE_BUMP_RIGHT,
                                          BW_CREATE_BUMP_RIGHT | BW_CREATE_BUMP_LEFT, BW_CREATE_BUMP_LEFT) |
                                     bits(s->wheel_drop, BW_CREATE_WHEEL_DROP_RIGHT, 0,
                                          BW_CREATE_WHEEL_DROP_LEFT));
    p->cliff_left = (uint8_t)(s->cliff & BASE_LEFT ? 1 : 0);
    p->cliff_front_left = p->cliff_front_right = (uint8_t)(s->cliff & BASE_CENTRE ? 1 : 0);
    p->cliff_right = (uint8_t)(s->cliff & BASE_RIGHT ? 1 : 0);
    /* the signals of a digital sensor: none over a drop, a floor's */
    p->cliff_left_signal = p->cliff_left ? 0 : 1500;
    p->cliff_front_left_signal = p->cliff_front_left ? 0 : 1500;
    p->cliff_front_right_signal = p->cliff_front_right ? 0 : 1500;
    p->cliff_right_signal = p->cliff_right ? 0 : 1500;
    p->voltage = s->battery_mv;
    int32_t left = (int32_t)s->battery_mv - BASE_BATTERY_EMPTY_MV;
    left = left < 0 ? 0 : left > BASE_BATTERY_FULL_MV - BASE_BATTERY_EMPTY_MV ? BASE_BATTERY_FULL_MV - BASE_BATTERY_EMPTY_MV : left;
    p->battery_charge = (uint16_t)(left * BASE_BATTERY_MAH / (BASE_BATTERY_FULL_MV - BASE_BATTERY_EMPTY_MV));
    /* the caster's toggle (packet 58): flips while the base rolls forward */
    if (s->pwm[0] > 0 && s->pwm[1] > 0)
        p->stasis ^= BW_CREATE2_STASIS_TOGGLING;
    bool danger = s->cliff || s->wheel_drop;
    if (bw_create_robot_watch(&robot, s->now_ms, danger))
        halted = true;
    if (BASE_OI_WATCHDOG_MS && (robot.wheel[0] || robot.wheel[1]) &&
        (uint32_t)(s->now_ms - last_command_ms) > BASE_OI_WATCHDOG_MS) {
        bw_create_cmd_t stop;
        bw_create_model_cmd_init(&stop, BW_CREATE_MODEL_2, BW_CREATE_OP_DRIVE_DIRECT);
        (void)bw_create_robot_command(&robot, &stop, s->now_ms);
        halted = true;
    }
    if (bw_create_robot_stream_due(&robot, s->now_ms))
        base_send(out, bw_create_robot_stream(&robot, s->now_ms, out, sizeof out));
}

void base_proto_wheels(base_wheels_t *w)
{
    /* a Create 2's wheel speeds, as their mean and half-difference, the
     * difference scaled from 235 mm to this base's track */
    static const int32_t track_q12 = (int32_t)(BASE_TRACK_UM / CREATE2_TRACK_UM * 4096.0 + 0.5);
    int32_t l = robot.wheel[0], r = robot.wheel[1];
    int32_t sum = l + r, diff = (int32_t)(((int64_t)(r - l) * track_q12 + 2048) >> 12);
    w->mm_s[0] = (sum - diff) / 2;
    w->mm_s[1] = (sum + diff) / 2;
    if (l || r)
        halted = false; /* driven again */
    w->halt = halted;   /* a host's stop slows at the acceleration limit */
}
