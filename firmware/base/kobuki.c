/*
 * The base speaks Kobuki: src/robots/kobuki's parser and the Kobuki's own
 * program (bw_kobuki_robot_*, the code the emulator runs), on a base of
 * another size. The host's software knows a Kobuki's geometry (230 mm
 * between the wheels, 11724 ticks a metre), so the base shows itself as
 * one: the ticks it reports are those a Kobuki's wheels would have made
 * along the same path (the same distance, the same turn), and a command's
 * wheel speeds become the same motion (forward speed, turn rate) on this
 * base's track. The inertial angle is the wheels' heading (no gyro).
 */
#include "botwire/kobuki.h"
#include "hardware.h"
#include "proto.h"

#define KOBUKI_TRACK_UM 230000.0
#define KOBUKI_UM_PER_TICK 85.292090497737556558
#define UM_PER_COUNT (3.14159265358979 * BASE_WHEEL_DIAMETER_UM / BASE_COUNTS_PER_TURN)
#define TICKS_PER_COUNT (UM_PER_COUNT / KOBUKI_UM_PER_TICK)
#define FEEDBACK_MS 20u
#define HALF_TURN_Q12 (18000L << 12) /* hundredths of a degree, times 4096 */
#ifndef BASE_UNIQUE_ID
#define BASE_UNIQUE_ID { 0x62770000u, 0x62617365u, 0x00000001u } /* "bw", "base", 1 */
#endif

static bw_kobuki_parser_t parser;
static bw_kobuki_robot_t robot;
static bool timed_out;        /* the command timeout stopped the wheels */
static uint32_t next_report;
static int32_t last_diff;     /* right - left counts at the last period */
static int32_t angle_q12;     /* the heading in [-HALF_TURN_Q12, HALF_TURN_Q12) */
static int32_t reported_q12;  /* the heading in the last report */
static uint32_t reported_ms;

void base_proto_init(uint32_t now_ms)
{
    static const uint32_t udid[3] = BASE_UNIQUE_ID;
    bw_kobuki_parser_init(&parser);
    bw_kobuki_robot_init(&robot, now_ms, BW_KOBUKI_ROBOT_TIMEOUT_MS, udid);
    next_report = reported_ms = now_ms;
}

void base_proto_byte(uint8_t b, uint32_t now_ms)
{
    const uint8_t *p = &b;
    size_t n = 1;
    bw_kobuki_frame_t f;
    int rc;
    while ((rc = bw_kobuki_parse(&parser, &p, &n, &f)) != 0) {
        if (rc < 0)
            continue; /* counted in the parser's stats */
        bw_kobuki_iter_t it;
        bw_kobuki_msg_t m;
        bw_kobuki_iter_init(&it, &f, BW_KOBUKI_FROM_HOST, &parser.stats);
        while ((rc = bw_kobuki_iter_next(&it, &m)) != 0)
            if (rc > 0 && bw_kobuki_robot_command(&robot, &m, now_ms) == 1 &&
                m.type == BW_KOBUKI_BASE_CONTROL)
                timed_out = false;
    }
}

/* A Kobuki's ticks for the path both wheels took: the mean of the counts
 * gives the distance, their difference the turn over 230 mm. Rounded from
 * the counts since reset, so nothing accumulates; the 16-bit wrap is the
 * host's to undo, as a Kobuki's. */
static void ticks(const int32_t count[2], uint16_t *left, uint16_t *right)
{
    /* times 2^24: a tick in 2^24 over a million metres of counts */
    static const int64_t mean_q24 = (int64_t)(TICKS_PER_COUNT / 2 * 16777216.0 + 0.5);
    static const int64_t turn_q24 =
        (int64_t)(TICKS_PER_COUNT * KOBUKI_TRACK_UM / BASE_TRACK_UM / 2 * 16777216.0 + 0.5);
    int64_t sum = (int64_t)count[0] + count[1], diff = (int64_t)count[1] - count[0];
    *left = (uint16_t)((sum * mean_q24 - diff * turn_q24 + ((int64_t)1 << 23)) >> 24);
    *right = (uint16_t)((sum * mean_q24 + diff * turn_q24 + ((int64_t)1 << 23)) >> 24);
}

static int32_t wrap_q12(int32_t a)
{
    while (a >= HALF_TURN_Q12)
        a -= 2 * HALF_TURN_Q12;
    while (a < -HALF_TURN_Q12)
        a += 2 * HALF_TURN_Q12;
    return a;
}

static uint8_t kobuki_bits(uint8_t s, uint8_t right, uint8_t centre, uint8_t left)
{
    return (uint8_t)((s & BASE_RIGHT ? right : 0) | (s & BASE_CENTRE ? centre : 0) |
                     (s & BASE_LEFT ? left : 0));
}

void base_proto_tick(const base_sense_t *s)
{
    if (bw_kobuki_robot_watch(&robot, s->now_ms))
        timed_out = true;
    /* the heading, from the counts' difference this period */
    static const int32_t cdeg_q12_per_count =
        (int32_t)(UM_PER_COUNT / BASE_TRACK_UM * 18000.0 / 3.14159265358979 * 4096.0 + 0.5);
    int32_t diff = s->count[1] - s->count[0];
    angle_q12 = wrap_q12(angle_q12 + (diff - last_diff) * cdeg_q12_per_count);
    last_diff = diff;
    if ((int32_t)(s->now_ms - next_report) < 0)
        return;
    next_report += FEEDBACK_MS;
    if ((int32_t)(s->now_ms - next_report) >= 0)
        next_report = s->now_ms + FEEDBACK_MS; /* fell behind: no burst */

    static bw_kobuki_robot_inputs_t in; /* zero: no dock, no gyro, no current sensing */
    in.timestamp_ms = (uint16_t)s->now_ms;
    in.bumper = kobuki_bits(s->bumper, BW_KOBUKI_BUMPER_RIGHT, BW_KOBUKI_BUMPER_CENTRAL,
                            BW_KOBUKI_BUMPER_LEFT);
    in.cliff = kobuki_bits(s->cliff, BW_KOBUKI_CLIFF_RIGHT, BW_KOBUKI_CLIFF_CENTRAL, BW_KOBUKI_CLIFF_LEFT);
    in.wheel_drop = kobuki_bits(s->wheel_drop, BW_KOBUKI_WHEEL_DROP_RIGHT, 0, BW_KOBUKI_WHEEL_DROP_LEFT);
    ticks(s->count, &in.left_encoder, &in.right_encoder);
    in.left_pwm = (int8_t)((int32_t)s->pwm[0] * 100 / BASE_PWM_TOP);
    in.right_pwm = (int8_t)((int32_t)s->pwm[1] * 100 / BASE_PWM_TOP);
    in.battery = (uint8_t)(s->battery_mv / 100u > 255u ? 255u : s->battery_mv / 100u);
    in.angle = (int16_t)((angle_q12 + 2048) >> 12);
    uint32_t dt = s->now_ms - reported_ms;
    int32_t turned = wrap_q12(angle_q12 - reported_q12);
    /* in sixteenths of a hundredth of a degree: the product stays in 32 bits */
    in.angle_rate = (int16_t)(dt ? ((turned >> 8) * 1000 / (int32_t)dt + 8) >> 4 : 0);
    reported_q12 = angle_q12;
    reported_ms = s->now_ms;
    static uint8_t out[BW_KOBUKI_ROBOT_REPORT_MAX];
    base_send(out, bw_kobuki_robot_report(&robot, &in, out, sizeof out));
}

void base_proto_wheels(base_wheels_t *w)
{
    /* the Kobuki's wheel speeds, as its mean and half-difference, the
     * difference scaled from 230 mm to this base's track */
    static const int32_t track_q12 = (int32_t)(BASE_TRACK_UM / KOBUKI_TRACK_UM * 4096.0 + 0.5);
    int32_t l, r;
    bw_kobuki_robot_wheels(&robot, &l, &r);
    int32_t sum = l + r, diff = (int32_t)(((int64_t)(r - l) * track_q12 + 2048) >> 12);
    w->mm_s[0] = (sum - diff) / 2;
    w->mm_s[1] = (sum + diff) / 2;
    w->halt = timed_out;
}
