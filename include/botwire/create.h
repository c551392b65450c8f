/*
 * iRobot Create Open Interface (Create 1, OI of the Roomba 500 generation):
 * commands, sensor packets, the Stream reply frame, and the named constants
 * the lobot Command Module protocol shares (lobot.h includes this header).
 *
 * Host to Create: an opcode byte, then its data bytes; 16-bit values are
 * big-endian. No framing and no checksum: the robot ignores a byte that is
 * not an opcode where it expects one. Opcodes and data sizes (Create OI
 * specification, commands quick reference):
 *
 *     Start 128 (0)        Baud 129 (1)            Control 130 (0)
 *     Safe 131 (0)         Full 132 (0)            Spot 134 (0)
 *     Cover 135 (0)        Demo 136 (1, -1..9)     Drive 137 (4)
 *     Low Side Drivers 138 (1)  LEDs 139 (3)       Song 140 (2 + 2N)
 *     Play 141 (1)         Sensors 142 (1)         Cover and Dock 143 (0)
 *     PWM Low Side Drivers 144 (3)  Drive Direct 145 (4)
 *     Digital Outputs 147 (1)  Stream 148 (1 + N)  Query List 149 (1 + N)
 *     Pause/Resume Stream 150 (1)  Send IR 151 (1) Script 152 (1 + N)
 *     Play Script 153 (0)  Show Script 154 (0)     Wait Time 155 (1)
 *     Wait Distance 156 (2)  Wait Angle 157 (2)    Wait Event 158 (1)
 *
 * The Create 2 (Roomba 600 Open Interface, iRobot's "Create 2 Open Interface
 * Specification based on the Roomba 600") is the second model
 * (bw_create_model_t, the bw_create_model_* functions): 115200 baud by
 * default; the opcodes above but for the Create 1's own (Demo 136 with its
 * data byte, Cover 135, Cover and Dock 143, Digital Outputs 147, Send IR
 * 151, the scripts and waits 152..158), and its own:
 *
 *     Reset 7 (0)          Power 133 (0)           Clean 135 (0)
 *     Max 136 (0)          Motors 138 (1)          Seek Dock 143 (0)
 *     PWM Motors 144 (3)   Drive PWM 146 (4)       Scheduling LEDs 162 (2)
 *     Digit LEDs Raw 163 (4)  Digit LEDs ASCII 164 (4)  Buttons 165 (1)
 *     Schedule 167 (15)    Set Day/Time 168 (3)    Stop 173 (0)
 *
 * (138 and 144 are the Create 1's Low Side Drivers and PWM Low Side
 * Drivers, the same sizes under the Roomba's names.) Its packets are the
 * Create 1's, packet 15 its Dirt Detect (unused on a Create 1; packets 32
 * and 33 read 0 on a Create 2), and 43..58: encoder counts (cumulative,
 * 16-bit, wrapping; 508.8 counts a turn of a 72 mm wheel, the wheels 235 mm
 * apart), the light bumper and its six signals, the left and right IR
 * characters, four motor currents, stasis; groups 100 (7..58, 80 bytes),
 * 101 (43..58, 28), 106 (46..51, 12), 107 (54..58, 9). The specification's
 * appendix lists firmware bugs in the distance and angle packets: a Create 2
 * host takes its odometry from the encoder counts. Each model's functions
 * take only its own opcodes and packets: what only the other has is
 * unknown (a command parser skips it whole, by its size in the other model;
 * see bw_create_cmd_parse).
 *
 * Create to host: the bytes of the sensor packets asked for (Sensors, Query
 * List), with no framing: the host knows what it asked for. Packets 7..42 are
 * single values (1 or 2 bytes, 16-bit ones big-endian); 0..6 are groups of
 * them (6 = 7..42, 52 bytes, the first 52 data bytes of lobot's SENSORS).
 * After Stream, every 15 ms:
 *
 *     19 N id1 data1 id2 data2 ... CHECK
 *
 * N counts the bytes from id1 to the end of the last data. CHECK makes the
 * 8-bit sum of every byte from the header 19 to CHECK zero. The Create 1
 * manual's prose and worked example leave the header out of that sum (its
 * example `19 5 29 2 25 13 0 182` sums to 19, not 0, over the whole frame);
 * the Create 2 manual and the drivers in use include it. The header-included
 * sum is the default; BW_CREATE_SUM_AFTER_HEADER selects the manual's.
 *
 * Memory: no function allocates; caller-owned parsers, messages and buffers;
 * every encoder takes a capacity. Time: nothing reads a clock. Threads:
 * reentrant; one parser must not be used by two threads at once. Errors: 0
 * ok, negative BW_E* (wire.h), positive counts. The tables are BW_ROM
 * (wire.h): on an AVR they stay in flash. The codec codes with compact
 * tables of its own, so a firmware does not link the catalogue's
 * (bw_create_packet_desc, bw_create_cmd_desc and the names); the encoders
 * of the Command Module side (bw_create_encode_drive, ..._drive_direct) use
 * no table at all. A firmware build may bound what the parsers hold with
 * BW_FRAMER_MAX (see BW_CREATE_HOLD below).
 */
#ifndef BOTWIRE_CREATE_H
#define BOTWIRE_CREATE_H

#include "botwire/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BW_CREATE_STREAM_HEADER 19u
#define BW_CREATE_MIN_STREAM_BODY 2u   /* one packet id and one data byte */
#define BW_CREATE_MAX_STREAM_BODY 255u /* N is one byte */
#define BW_CREATE_MAX_FRAME (3u + BW_CREATE_MAX_STREAM_BODY)
#define BW_CREATE_MAX_PACKETS 43u /* packet ids in a Stream or Query List request */
/* ...of a Create 2: this codec's bound, as the Create 1's is, the number of
 * packet ids the model has (a longer request can only repeat one). */
#define BW_CREATE2_MAX_PACKETS 63u
#define BW_CREATE_MAX_SONG 16u    /* notes in a song */
#define BW_CREATE_MAX_SCRIPT 100u /* bytes in a script */
#define BW_CREATE_MAX_CMD (2u + BW_CREATE_MAX_SCRIPT) /* the longest command */
#define BW_CREATE_LAST_PACKET 42u
#define BW_CREATE_GROUP6_SIZE 52u /* also the largest packet of a Create 1 */
#define BW_CREATE2_LAST_VALUE 58u  /* a Create 2's single-value packets: 7..58 */
#define BW_CREATE2_LAST_PACKET 107u
#define BW_CREATE_GROUP100_SIZE 80u /* the largest packet of a Create 2 */

/* The models: each one's opcodes and packets. */
typedef enum {
    BW_CREATE_MODEL_1 = 0, /* Create 1, Roomba 500: the functions without _model */
    BW_CREATE_MODEL_2 = 1, /* Create 2, Roomba 600 */
} bw_create_model_t;

/* Opcodes. */
enum {
    BW_CREATE_OP_START = 128,
    BW_CREATE_OP_BAUD = 129,
    BW_CREATE_OP_CONTROL = 130, /* the same as Safe on a Create */
    BW_CREATE_OP_SAFE = 131,
    BW_CREATE_OP_FULL = 132,
    BW_CREATE_OP_SPOT = 134,
    BW_CREATE_OP_COVER = 135,
    BW_CREATE_OP_DEMO = 136,
    BW_CREATE_OP_DRIVE = 137,
    BW_CREATE_OP_LOW_SIDE_DRIVERS = 138,
    BW_CREATE_OP_LEDS = 139,
    BW_CREATE_OP_SONG = 140,
    BW_CREATE_OP_PLAY = 141,
    BW_CREATE_OP_SENSORS = 142,
    BW_CREATE_OP_COVER_AND_DOCK = 143,
    BW_CREATE_OP_PWM_LOW_SIDE_DRIVERS = 144,
    BW_CREATE_OP_DRIVE_DIRECT = 145,
    BW_CREATE_OP_DIGITAL_OUTPUTS = 147,
    BW_CREATE_OP_STREAM = 148,
    BW_CREATE_OP_QUERY_LIST = 149,
    BW_CREATE_OP_PAUSE_RESUME_STREAM = 150,
    BW_CREATE_OP_SEND_IR = 151,
    BW_CREATE_OP_SCRIPT = 152,
    BW_CREATE_OP_PLAY_SCRIPT = 153,
    BW_CREATE_OP_SHOW_SCRIPT = 154,
    BW_CREATE_OP_WAIT_TIME = 155,
    BW_CREATE_OP_WAIT_DISTANCE = 156,
    BW_CREATE_OP_WAIT_ANGLE = 157,
    BW_CREATE_OP_WAIT_EVENT = 158,
};

/* The Create 2's opcodes that are not the Create 1's (or are under other
 * names: 135, 136, 138, 143, 144). */
enum {
    BW_CREATE2_OP_RESET = 7,
    BW_CREATE2_OP_POWER = 133,
    BW_CREATE2_OP_CLEAN = 135,
    BW_CREATE2_OP_MAX = 136,
    BW_CREATE2_OP_MOTORS = 138,
    BW_CREATE2_OP_SEEK_DOCK = 143,
    BW_CREATE2_OP_PWM_MOTORS = 144,
    BW_CREATE2_OP_DRIVE_PWM = 146,
    BW_CREATE2_OP_SCHEDULING_LEDS = 162,
    BW_CREATE2_OP_DIGIT_LEDS_RAW = 163,
    BW_CREATE2_OP_DIGIT_LEDS_ASCII = 164,
    BW_CREATE2_OP_BUTTONS = 165,
    BW_CREATE2_OP_SCHEDULE = 167,
    BW_CREATE2_OP_SET_DAY_TIME = 168,
    BW_CREATE2_OP_STOP = 173,
};

/* Sensor packet ids: groups 0..6, single values 7..42. */
enum {
    BW_CREATE_GROUP_0 = 0, /* 7..26, 26 bytes */
    BW_CREATE_GROUP_1 = 1, /* 7..16, 10 bytes */
    BW_CREATE_GROUP_2 = 2, /* 17..20, 6 bytes */
    BW_CREATE_GROUP_3 = 3, /* 21..26, 10 bytes */
    BW_CREATE_GROUP_4 = 4, /* 27..34, 14 bytes */
    BW_CREATE_GROUP_5 = 5, /* 35..42, 12 bytes */
    BW_CREATE_GROUP_6 = 6, /* 7..42, 52 bytes */
    BW_CREATE_PKT_BUMPS_WHEEL_DROPS = 7,
    BW_CREATE_PKT_WALL = 8,
    BW_CREATE_PKT_CLIFF_LEFT = 9,
    BW_CREATE_PKT_CLIFF_FRONT_LEFT = 10,
    BW_CREATE_PKT_CLIFF_FRONT_RIGHT = 11,
    BW_CREATE_PKT_CLIFF_RIGHT = 12,
    BW_CREATE_PKT_VIRTUAL_WALL = 13,
    BW_CREATE_PKT_LSD_WHEEL_OC = 14, /* BW_CREATE_OC_* */
    BW_CREATE_PKT_UNUSED_15 = 15, /* always 0 */
    BW_CREATE_PKT_UNUSED_16 = 16, /* always 0 */
    BW_CREATE_PKT_INFRARED_BYTE = 17,
    BW_CREATE_PKT_BUTTONS = 18,
    BW_CREATE_PKT_DISTANCE = 19,
    BW_CREATE_PKT_ANGLE = 20,
    BW_CREATE_PKT_CHARGING_STATE = 21,
    BW_CREATE_PKT_VOLTAGE = 22,
    BW_CREATE_PKT_CURRENT = 23,
    BW_CREATE_PKT_BATTERY_TEMP = 24,
    BW_CREATE_PKT_BATTERY_CHARGE = 25,
    BW_CREATE_PKT_BATTERY_CAPACITY = 26,
    BW_CREATE_PKT_WALL_SIGNAL = 27,
    BW_CREATE_PKT_CLIFF_LEFT_SIGNAL = 28,
    BW_CREATE_PKT_CLIFF_FRONT_LEFT_SIGNAL = 29,
    BW_CREATE_PKT_CLIFF_FRONT_RIGHT_SIGNAL = 30,
    BW_CREATE_PKT_CLIFF_RIGHT_SIGNAL = 31,
    BW_CREATE_PKT_CARGO_BAY_DIGITAL_INPUTS = 32,
    BW_CREATE_PKT_CARGO_BAY_ANALOG_SIGNAL = 33,
    BW_CREATE_PKT_CHARGING_SOURCES = 34,
    BW_CREATE_PKT_OI_MODE = 35,
    BW_CREATE_PKT_SONG_NUMBER = 36,
    BW_CREATE_PKT_SONG_PLAYING = 37,
    BW_CREATE_PKT_NUM_STREAM_PACKETS = 38,
    BW_CREATE_PKT_REQUESTED_SPEED = 39,
    BW_CREATE_PKT_REQUESTED_RADIUS = 40,
    BW_CREATE_PKT_REQUESTED_RIGHT_SPEED = 41,
    BW_CREATE_PKT_REQUESTED_LEFT_SPEED = 42,
};

/* The Create 2's own packets: Dirt Detect where the Create 1 has an unused
 * byte, 43..58 and the groups 100..107. */
enum {
    BW_CREATE_PKT_DIRT_DETECT = 15,
    BW_CREATE_PKT_LEFT_ENCODER_COUNTS = 43,
    BW_CREATE_PKT_RIGHT_ENCODER_COUNTS = 44,
    BW_CREATE_PKT_LIGHT_BUMPER = 45,
    BW_CREATE_PKT_LIGHT_BUMP_LEFT_SIGNAL = 46,
    BW_CREATE_PKT_LIGHT_BUMP_FRONT_LEFT_SIGNAL = 47,
    BW_CREATE_PKT_LIGHT_BUMP_CENTER_LEFT_SIGNAL = 48,
    BW_CREATE_PKT_LIGHT_BUMP_CENTER_RIGHT_SIGNAL = 49,
    BW_CREATE_PKT_LIGHT_BUMP_FRONT_RIGHT_SIGNAL = 50,
    BW_CREATE_PKT_LIGHT_BUMP_RIGHT_SIGNAL = 51,
    BW_CREATE_PKT_INFRARED_LEFT = 52,
    BW_CREATE_PKT_INFRARED_RIGHT = 53,
    BW_CREATE_PKT_LEFT_MOTOR_CURRENT = 54,
    BW_CREATE_PKT_RIGHT_MOTOR_CURRENT = 55,
    BW_CREATE_PKT_MAIN_BRUSH_MOTOR_CURRENT = 56,
    BW_CREATE_PKT_SIDE_BRUSH_MOTOR_CURRENT = 57,
    BW_CREATE_PKT_STASIS = 58,
    BW_CREATE_GROUP_100 = 100, /* 7..58, 80 bytes */
    BW_CREATE_GROUP_101 = 101, /* 43..58, 28 bytes */
    BW_CREATE_GROUP_106 = 106, /* 46..51, 12 bytes */
    BW_CREATE_GROUP_107 = 107, /* 54..58, 9 bytes */
};

/*
 * The single-value packets 7..42 in wire order: the one definition of their
 * names, sizes and signedness. F(id, name, type) is called for a value (the
 * name is also the member of bw_create_sensors_t), P(id) for an unused byte.
 * The Create codec builds its packet tables from this list, and the lobot
 * codec its SENSORS table, so the two cannot drift apart.
 */
#define BW_CREATE_SENSOR_LIST(F, P)                                          \
    F(BW_CREATE_PKT_BUMPS_WHEEL_DROPS, bumps_wheel_drops, BW_FT_U8)          \
    F(BW_CREATE_PKT_WALL, wall, BW_FT_U8)                                    \
    F(BW_CREATE_PKT_CLIFF_LEFT, cliff_left, BW_FT_U8)                        \
    F(BW_CREATE_PKT_CLIFF_FRONT_LEFT, cliff_front_left, BW_FT_U8)            \
    F(BW_CREATE_PKT_CLIFF_FRONT_RIGHT, cliff_front_right, BW_FT_U8)          \
    F(BW_CREATE_PKT_CLIFF_RIGHT, cliff_right, BW_FT_U8)                      \
    F(BW_CREATE_PKT_VIRTUAL_WALL, virtual_wall, BW_FT_U8)                    \
    F(BW_CREATE_PKT_LSD_WHEEL_OC, lsd_wheel_oc, BW_FT_U8)                    \
    P(BW_CREATE_PKT_UNUSED_15)                                               \
    P(BW_CREATE_PKT_UNUSED_16)                                               \
    F(BW_CREATE_PKT_INFRARED_BYTE, infrared_byte, BW_FT_U8)                  \
    F(BW_CREATE_PKT_BUTTONS, buttons, BW_FT_U8)                              \
    F(BW_CREATE_PKT_DISTANCE, distance, BW_FT_I16)                           \
    F(BW_CREATE_PKT_ANGLE, angle, BW_FT_I16)                                 \
    F(BW_CREATE_PKT_CHARGING_STATE, charging_state, BW_FT_U8)                \
    F(BW_CREATE_PKT_VOLTAGE, voltage, BW_FT_U16)                             \
    F(BW_CREATE_PKT_CURRENT, current, BW_FT_I16)                             \
    F(BW_CREATE_PKT_BATTERY_TEMP, battery_temp, BW_FT_I8)                    \
    F(BW_CREATE_PKT_BATTERY_CHARGE, battery_charge, BW_FT_U16)               \
    F(BW_CREATE_PKT_BATTERY_CAPACITY, battery_capacity, BW_FT_U16)           \
    F(BW_CREATE_PKT_WALL_SIGNAL, wall_signal, BW_FT_U16)                     \
    F(BW_CREATE_PKT_CLIFF_LEFT_SIGNAL, cliff_left_signal, BW_FT_U16)         \
    F(BW_CREATE_PKT_CLIFF_FRONT_LEFT_SIGNAL, cliff_front_left_signal, BW_FT_U16) \
    F(BW_CREATE_PKT_CLIFF_FRONT_RIGHT_SIGNAL, cliff_front_right_signal, BW_FT_U16) \
    F(BW_CREATE_PKT_CLIFF_RIGHT_SIGNAL, cliff_right_signal, BW_FT_U16)       \
    F(BW_CREATE_PKT_CARGO_BAY_DIGITAL_INPUTS, cargo_bay_digital_inputs, BW_FT_U8) \
    F(BW_CREATE_PKT_CARGO_BAY_ANALOG_SIGNAL, cargo_bay_analog_signal, BW_FT_U16) \
    F(BW_CREATE_PKT_CHARGING_SOURCES, charging_sources, BW_FT_U8)            \
    F(BW_CREATE_PKT_OI_MODE, oi_mode, BW_FT_U8)                              \
    F(BW_CREATE_PKT_SONG_NUMBER, song_number, BW_FT_U8)                      \
    F(BW_CREATE_PKT_SONG_PLAYING, song_playing, BW_FT_U8)                    \
    F(BW_CREATE_PKT_NUM_STREAM_PACKETS, num_stream_packets, BW_FT_U8)        \
    F(BW_CREATE_PKT_REQUESTED_SPEED, requested_speed, BW_FT_I16)             \
    F(BW_CREATE_PKT_REQUESTED_RADIUS, requested_radius, BW_FT_I16)           \
    F(BW_CREATE_PKT_REQUESTED_RIGHT_SPEED, requested_right_speed, BW_FT_I16) \
    F(BW_CREATE_PKT_REQUESTED_LEFT_SPEED, requested_left_speed, BW_FT_I16)

/* The Create 2's packets 43..58, as BW_CREATE_SENSOR_LIST (no unused byte
 * among them). On a Create 2, the unused byte 15 of the list above is Dirt
 * Detect (member dirt_detect). */
#define BW_CREATE2_SENSOR_LIST(F)                                                        \
    F(BW_CREATE_PKT_LEFT_ENCODER_COUNTS, left_encoder_counts, BW_FT_I16)                 \
    F(BW_CREATE_PKT_RIGHT_ENCODER_COUNTS, right_encoder_counts, BW_FT_I16)               \
    F(BW_CREATE_PKT_LIGHT_BUMPER, light_bumper, BW_FT_U8)                                \
    F(BW_CREATE_PKT_LIGHT_BUMP_LEFT_SIGNAL, light_bump_left_signal, BW_FT_U16)           \
    F(BW_CREATE_PKT_LIGHT_BUMP_FRONT_LEFT_SIGNAL, light_bump_front_left_signal, BW_FT_U16) \
    F(BW_CREATE_PKT_LIGHT_BUMP_CENTER_LEFT_SIGNAL, light_bump_center_left_signal, BW_FT_U16) \
    F(BW_CREATE_PKT_LIGHT_BUMP_CENTER_RIGHT_SIGNAL, light_bump_center_right_signal, BW_FT_U16) \
    F(BW_CREATE_PKT_LIGHT_BUMP_FRONT_RIGHT_SIGNAL, light_bump_front_right_signal, BW_FT_U16) \
    F(BW_CREATE_PKT_LIGHT_BUMP_RIGHT_SIGNAL, light_bump_right_signal, BW_FT_U16)         \
    F(BW_CREATE_PKT_INFRARED_LEFT, infrared_left, BW_FT_U8)                              \
    F(BW_CREATE_PKT_INFRARED_RIGHT, infrared_right, BW_FT_U8)                            \
    F(BW_CREATE_PKT_LEFT_MOTOR_CURRENT, left_motor_current, BW_FT_I16)                   \
    F(BW_CREATE_PKT_RIGHT_MOTOR_CURRENT, right_motor_current, BW_FT_I16)                 \
    F(BW_CREATE_PKT_MAIN_BRUSH_MOTOR_CURRENT, main_brush_motor_current, BW_FT_I16)       \
    F(BW_CREATE_PKT_SIDE_BRUSH_MOTOR_CURRENT, side_brush_motor_current, BW_FT_I16)       \
    F(BW_CREATE_PKT_STASIS, stasis, BW_FT_U8)

/* Bumps and wheel drops (packet 7; lobot SENSORS byte 0 and BUMPS flags). */
enum {
    BW_CREATE_BUMP_RIGHT = 0x01,
    BW_CREATE_BUMP_LEFT = 0x02,
    BW_CREATE_WHEEL_DROP_RIGHT = 0x04,
    BW_CREATE_WHEEL_DROP_LEFT = 0x08,
    BW_CREATE_WHEEL_DROP_CASTER = 0x10,
};
/* Packet 14, overcurrents: the wheels' bits, the same on the Create 2. */
enum {
    BW_CREATE_OC_LEFT_WHEEL = 1u << 4,
    BW_CREATE_OC_RIGHT_WHEEL = 1u << 3,
};

/* Buttons (packet 18) and the LEDs command's bits. */
enum {
    BW_CREATE_BUTTON_PLAY = 0x01,
    BW_CREATE_BUTTON_ADVANCE = 0x04,
    BW_CREATE_LED_PLAY = 0x02,
    BW_CREATE_LED_ADVANCE = 0x08,
};

/* A Create 2's: bumps and wheel drops (packet 7: the Create 1's bits
 * without the caster), buttons (packet 18), the LEDs command's bits, the
 * light bumper (packet 45), stasis (packet 58), the counts of its encoders. */
enum {
    BW_CREATE2_BUTTON_CLEAN = 0x01,
    BW_CREATE2_BUTTON_SPOT = 0x02,
    BW_CREATE2_BUTTON_DOCK = 0x04,
    BW_CREATE2_BUTTON_MINUTE = 0x08,
    BW_CREATE2_BUTTON_HOUR = 0x10,
    BW_CREATE2_BUTTON_DAY = 0x20,
    BW_CREATE2_BUTTON_SCHEDULE = 0x40,
    BW_CREATE2_BUTTON_CLOCK = 0x80,
    BW_CREATE2_LED_DEBRIS = 0x01,
    BW_CREATE2_LED_SPOT = 0x02,
    BW_CREATE2_LED_DOCK = 0x04,
    BW_CREATE2_LED_CHECK_ROBOT = 0x08,
    BW_CREATE2_LIGHT_LEFT = 0x01,
    BW_CREATE2_LIGHT_FRONT_LEFT = 0x02,
    BW_CREATE2_LIGHT_CENTER_LEFT = 0x04,
    BW_CREATE2_LIGHT_CENTER_RIGHT = 0x08,
    BW_CREATE2_LIGHT_FRONT_RIGHT = 0x10,
    BW_CREATE2_LIGHT_RIGHT = 0x20,
    BW_CREATE2_STASIS_TOGGLING = 0x01, /* the front caster turns: the robot moves forward */
    BW_CREATE2_STASIS_DISABLED = 0x02,
};
#define BW_CREATE2_COUNTS_PER_TURN 508.8 /* encoder counts a wheel turn */
#define BW_CREATE2_WHEEL_DIAMETER_M 0.072
#define BW_CREATE2_WHEELBASE_M 0.235
#define BW_CREATE2_BAUD 115200

/* Charging state (packet 21) and charging sources (packet 34, bits). */
enum {
    BW_CREATE_CHARGING_NOT = 0,
    BW_CREATE_CHARGING_RECONDITIONING = 1,
    BW_CREATE_CHARGING_FULL = 2,
    BW_CREATE_CHARGING_TRICKLE = 3,
    BW_CREATE_CHARGING_WAITING = 4,
    BW_CREATE_CHARGING_FAULT = 5,
    BW_CREATE_SOURCE_INTERNAL = 0x01,
    BW_CREATE_SOURCE_HOME_BASE = 0x02,
};

/* OI mode (packet 35). */
enum {
    BW_CREATE_MODE_OFF = 0,
    BW_CREATE_MODE_PASSIVE = 1,
    BW_CREATE_MODE_SAFE = 2,
    BW_CREATE_MODE_FULL = 3,
};

/* Infrared byte (packet 17, lobot REMOTE): what the omnidirectional
 * receiver hears from the Roomba remote, the scheduling remote and the Home
 * Base (Create OI specification, packet 17 table). */
enum {
    BW_CREATE_IR_LEFT = 129,
    BW_CREATE_IR_FORWARD = 130,
    BW_CREATE_IR_RIGHT = 131,
    BW_CREATE_IR_SPOT = 132,
    BW_CREATE_IR_MAX = 133,
    BW_CREATE_IR_SMALL = 134,
    BW_CREATE_IR_MEDIUM = 135,
    BW_CREATE_IR_CLEAN = 136, /* "large / clean" */
    BW_CREATE_IR_PAUSE = 137,
    BW_CREATE_IR_POWER = 138,
    BW_CREATE_IR_ARC_LEFT = 139,  /* arc-forward-left */
    BW_CREATE_IR_ARC_RIGHT = 140, /* arc-forward-right */
    BW_CREATE_IR_DRIVE_STOP = 141,
    BW_CREATE_IR_SEND_ALL = 142,  /* scheduling remote */
    BW_CREATE_IR_SEEK_DOCK = 143, /* scheduling remote */
    BW_CREATE_IR_HOME_RESERVED = 240,
    BW_CREATE_IR_FORCE_FIELD = 242,
    BW_CREATE_IR_GREEN_BUOY = 244,
    BW_CREATE_IR_GREEN_BUOY_FORCE_FIELD = 246,
    BW_CREATE_IR_RED_BUOY = 248,
    BW_CREATE_IR_RED_BUOY_FORCE_FIELD = 250,
    BW_CREATE_IR_RED_GREEN_BUOY = 252,
    BW_CREATE_IR_RED_GREEN_BUOY_FORCE_FIELD = 254,
    BW_CREATE_IR_NONE = 255, /* nothing received */
};
/* The Create 2 (Roomba 600 OI, packets 17, 52, 53): its dock's characters,
 * 160 with red 8, green 4, force field 1; 0 is nothing received. */
enum {
    BW_CREATE2_IR_NONE = 0,
    BW_CREATE2_IR_DOCK_RESERVED = 160,
    BW_CREATE2_IR_FORCE_FIELD = 161,
    BW_CREATE2_IR_GREEN_BUOY = 164,
    BW_CREATE2_IR_GREEN_BUOY_FORCE_FIELD = 165,
    BW_CREATE2_IR_RED_BUOY = 168,
    BW_CREATE2_IR_RED_BUOY_FORCE_FIELD = 169,
    BW_CREATE2_IR_RED_GREEN_BUOY = 172,
    BW_CREATE2_IR_RED_GREEN_BUOY_FORCE_FIELD = 173,
};

/* Drive radius specials (mm). Macros, not enumerators: an int may be 16
 * bits wide. */
#define BW_CREATE_RADIUS_STRAIGHT ((int16_t)(-32767 - 1)) /* 0x8000 */
#define BW_CREATE_RADIUS_STRAIGHT_ALT ((int16_t)32767)    /* 0x7FFF */
#define BW_CREATE_RADIUS_CW ((int16_t)-1)                 /* 0xFFFF: turn in place clockwise */
#define BW_CREATE_RADIUS_CCW ((int16_t)1)                 /* 0x0001: counter-clockwise */
#define BW_CREATE_MAX_SPEED 500  /* mm/s, Drive and Drive Direct */
#define BW_CREATE_MAX_RADIUS 2000 /* mm, other than the specials */
#define BW_CREATE_DEMO_ABORT (-1)

/* Baud command codes 0..11 and their rates (0 for another code); a rate's
 * code, or BW_EINVAL. */
uint32_t bw_create_baud_rate(uint8_t code);
int bw_create_baud_code(uint32_t rate);

/* ---- sensor packets, in wire units --------------------------------------- */

/* Every single-value packet; a decoded packet fills its own members only. */
typedef struct {
    uint8_t bumps_wheel_drops;        /* 7: BW_CREATE_BUMP_*, BW_CREATE_WHEEL_DROP_* */
    uint8_t wall;                     /* 8: 0/1 */
    uint8_t cliff_left;               /* 9: 0/1 */
    uint8_t cliff_front_left;         /* 10 */
    uint8_t cliff_front_right;        /* 11 */
    uint8_t cliff_right;              /* 12 */
    uint8_t virtual_wall;             /* 13 */
    uint8_t lsd_wheel_oc;             /* 14: low side driver and wheel overcurrents (BW_CREATE_OC_*) */
    uint8_t infrared_byte;            /* 17: BW_CREATE_IR_* */
    uint8_t buttons;                  /* 18: BW_CREATE_BUTTON_* */
    int16_t distance;                 /* 19: mm since the last read */
    int16_t angle;                    /* 20: degrees since the last read, CCW positive */
    uint8_t charging_state;           /* 21: BW_CREATE_CHARGING_* */
    uint16_t voltage;                 /* 22: mV */
    int16_t current;                  /* 23: mA, negative when discharging */
    int8_t battery_temp;              /* 24: degrees C */
    uint16_t battery_charge;          /* 25: mAh */
    uint16_t battery_capacity;        /* 26: mAh */
    uint16_t wall_signal;             /* 27: 0..4095 */
    uint16_t cliff_left_signal;       /* 28: 0..4095 */
    uint16_t cliff_front_left_signal; /* 29 */
    uint16_t cliff_front_right_signal; /* 30 */
    uint16_t cliff_right_signal;      /* 31 */
    uint8_t cargo_bay_digital_inputs; /* 32 */
    uint16_t cargo_bay_analog_signal; /* 33: 0..1023 */
    uint8_t charging_sources;         /* 34: BW_CREATE_SOURCE_* */
    uint8_t oi_mode;                  /* 35: BW_CREATE_MODE_* */
    uint8_t song_number;              /* 36 */
    uint8_t song_playing;             /* 37 */
    uint8_t num_stream_packets;       /* 38 */
    int16_t requested_speed;          /* 39: mm/s (Drive) */
    int16_t requested_radius;         /* 40: mm (Drive) */
    int16_t requested_right_speed;    /* 41: mm/s (Drive Direct) */
    int16_t requested_left_speed;     /* 42: mm/s (Drive Direct) */
    /* A Create 2's own. */
    uint8_t dirt_detect;              /* 15: 0..255 */
    int16_t left_encoder_counts;      /* 43: cumulative, wrapping (32767 + 1 is -32768) */
    int16_t right_encoder_counts;     /* 44 */
    uint8_t light_bumper;             /* 45: BW_CREATE2_LIGHT_* */
    uint16_t light_bump_left_signal;  /* 46: 0..4095 */
    uint16_t light_bump_front_left_signal;   /* 47 */
    uint16_t light_bump_center_left_signal;  /* 48 */
    uint16_t light_bump_center_right_signal; /* 49 */
    uint16_t light_bump_front_right_signal;  /* 50 */
    uint16_t light_bump_right_signal;        /* 51 */
    uint8_t infrared_left;            /* 52: the IR character the left receiver hears */
    uint8_t infrared_right;           /* 53 */
    int16_t left_motor_current;       /* 54: mA */
    int16_t right_motor_current;      /* 55 */
    int16_t main_brush_motor_current; /* 56 */
    int16_t side_brush_motor_current; /* 57 */
    uint8_t stasis;                   /* 58: BW_CREATE2_STASIS_* */
} bw_create_sensors_t;

/* Name of a packet id ("group_6", "distance", "unused"), or NULL past 42. */
const char *bw_create_packet_name(uint8_t id);
/* Id of a packet name ("unused" names none), or BW_EUNKNOWN. */
int bw_create_packet_id(const char *name);
/* Data bytes of a packet, or BW_EUNKNOWN past 42. */
int bw_create_packet_size(uint8_t id);
/* Field table of a packet, offsets into bw_create_sensors_t (unused bytes
 * are BW_FT_PAD), or NULL past 42. The codec codes packets with it. */
const BW_ROM bw_msgdesc_t *bw_create_packet_desc(uint8_t id);

/* Decodes one packet's len data bytes into the members it carries; the
 * others are left as they are. Returns 0, BW_EUNKNOWN or BW_ELENGTH. */
int bw_create_decode_packet(uint8_t id, const uint8_t *data, size_t len, bw_create_sensors_t *s);
/* Writes one packet's data bytes (unused bytes as 0). Returns its size,
 * BW_EUNKNOWN or BW_ENOSPC. */
int bw_create_encode_packet(uint8_t *buf, size_t cap, uint8_t id, const bw_create_sensors_t *s);

/* The reply to Query List (or Sensors, n = 1): the packets' data bytes back
 * to back. Size of the reply to n ids, or BW_EUNKNOWN. */
int bw_create_query_size(const uint8_t *ids, size_t n);
/* Decodes a reply; returns 0, BW_EUNKNOWN, or BW_ELENGTH if len is not the
 * reply's size. */
int bw_create_decode_query(const uint8_t *ids, size_t n, const uint8_t *data, size_t len,
                           bw_create_sensors_t *s);
/* Writes a reply; returns its size, BW_EUNKNOWN or BW_ENOSPC. */
int bw_create_encode_query(uint8_t *buf, size_t cap, const uint8_t *ids, size_t n,
                           const bw_create_sensors_t *s);

/* The same for a model: its packets only (a Create 2 has 0..58 and
 * 100..107; on a Create 2, packet 15 is "dirt_detect" and its groups 0, 1,
 * 6 and 100 carry it). The functions above are these for BW_CREATE_MODEL_1. */
const char *bw_create_model_packet_name(bw_create_model_t m, uint8_t id);
int bw_create_model_packet_id(bw_create_model_t m, const char *name);
int bw_create_model_packet_size(bw_create_model_t m, uint8_t id);
const BW_ROM bw_msgdesc_t *bw_create_model_packet_desc(bw_create_model_t m, uint8_t id);
int bw_create_model_decode_packet(bw_create_model_t m, uint8_t id, const uint8_t *data, size_t len,
                                  bw_create_sensors_t *s);
int bw_create_model_encode_packet(bw_create_model_t m, uint8_t *buf, size_t cap, uint8_t id,
                                  const bw_create_sensors_t *s);
int bw_create_model_query_size(bw_create_model_t m, const uint8_t *ids, size_t n);
int bw_create_model_decode_query(bw_create_model_t m, const uint8_t *ids, size_t n,
                                 const uint8_t *data, size_t len, bw_create_sensors_t *s);
int bw_create_model_encode_query(bw_create_model_t m, uint8_t *buf, size_t cap, const uint8_t *ids,
                                 size_t n, const bw_create_sensors_t *s);

/* ---- Stream frames ------------------------------------------------------ */

/* Which bytes the Stream checksum covers (see the top of this header). */
typedef enum {
    BW_CREATE_SUM_WITH_HEADER = 0,  /* 19 .. CHECK sum to 0 (default) */
    BW_CREATE_SUM_AFTER_HEADER = 1, /* N .. CHECK sum to 0 (Create 1 manual) */
} bw_create_sum_t;

/* A verified frame's body: the N bytes of (id, data) pairs. Valid until the
 * next call on the parser and while the caller's input is unchanged. model
 * (a bw_create_model_t) says whose packets they are: a parser sets it, and
 * a frame made by hand with it 0 is a Create 1's. */
typedef struct {
    const uint8_t *body;
    uint8_t len;
    uint8_t model;
} bw_create_stream_frame_t;

/* Writes a Stream frame of the packets ids[0..n) from *s. Returns its size,
 * or BW_EUNKNOWN (an id past 42), BW_ERANGE (no packet, or a body over 255
 * bytes), BW_ENOSPC. */
int bw_create_encode_stream(uint8_t *buf, size_t cap, const uint8_t *ids, size_t n,
                            const bw_create_sensors_t *s, bw_create_sum_t sum);
/* The same for a model's packets. */
int bw_create_model_encode_stream(bw_create_model_t m, uint8_t *buf, size_t cap, const uint8_t *ids,
                                  size_t n, const bw_create_sensors_t *s, bw_create_sum_t sum);
/* Frames a body already encoded (it may already sit at buf + 2). Returns the
 * frame size, BW_ERANGE (len outside 2..255) or BW_ENOSPC. The body is not
 * checked: a body that does not walk gives a frame parsers reject. */
int bw_create_frame_stream_body(uint8_t *buf, size_t cap, const uint8_t *body, size_t len,
                                bw_create_sum_t sum);

/*
 * Walks a frame's body: returns 1 with the next packet's id and data (its
 * size is bw_create_packet_size(id)), 0 at the end, BW_EUNKNOWN for an id
 * past 42 or BW_ETRUNC for a packet running past the body (the walk cannot
 * go on after either). *off starts at 0.
 */
int bw_create_stream_next(const bw_create_stream_frame_t *f, size_t *off, uint8_t *id,
                          const uint8_t **data);
/* Decodes every packet of a body into *s (a packet sent twice: the last one
 * wins). Returns the number of packets, or an error as bw_create_stream_next. */
int bw_create_decode_stream(const bw_create_stream_frame_t *f, bw_create_sensors_t *s);

/* What the parsers below hold while they wait for the rest of a message:
 * every frame and command, unless a firmware build defines BW_FRAMER_MAX
 * (wire.h) smaller; a longer one is then refused as a length error unless it
 * arrives whole in one read (and always, under BW_SMALL). A command refused
 * so is skipped from its opcode on like any other length error, so the
 * bytes of a long Script are then read as commands: a firmware that takes
 * Scripts of up to 100 bytes holds at least BW_CREATE_MAX_CMD. */
#define BW_CREATE_HOLD(n) (BW_FRAMER_MAX < (n) ? BW_FRAMER_MAX : (n))

/* The Stream frame parser: caller-owned, no allocation. */
typedef struct {
    bw_parse_stats_t stats;
    uint16_t held;     /* bytes in buf: a frame candidate starting with 19 */
    uint16_t drop;     /* leading bytes of buf returned as a frame last call */
    uint8_t sum;       /* bw_create_sum_t */
    uint8_t model;     /* bw_create_model_t whose packets a body may hold (2: either's) */
    uint8_t buf[BW_CREATE_HOLD(BW_CREATE_MAX_FRAME)];
} bw_create_stream_parser_t;

/* A parser of either model's packets, each frame's model (frame.model) the
 * one its packets say: a Create 2's when one of them only a Create 2 has
 * (what a host that does not know which robot is there, or a tool, needs);
 * bw_create_stream_parser_model makes it one model's (before the first
 * byte), whose packets only it then takes. (A BW_DEVICE_SIDE build's is a
 * Create 1's.) */
void bw_create_stream_parser_init(bw_create_stream_parser_t *p, bw_create_sum_t sum);
void bw_create_stream_parser_model(bw_create_stream_parser_t *p, bw_create_model_t m);

/*
 * Pushes bytes in, any split; consumes from *data / *len up to and including
 * the end of the next good frame. A candidate is 19, N, N bytes, CHECK with
 * N of 2..255; it is accepted when the checksum is right and the body walks
 * as known packets that end exactly at CHECK.
 *
 * Returns 1 with *frame set; 0 when all input is consumed and more is needed;
 * BW_ECHECKSUM (bad checksum), BW_ELENGTH (N below 2, or a body whose packets
 * do not end at CHECK) or BW_EUNKNOWN (a packet the parser's model does not
 * have: a Create 1's past 42, a Create 2's past 58 but its groups 100..107;
 * counted in stats.unknown) for a candidate just rejected: call again. Bytes before a 19
 * are skipped. After a rejection the held bytes are rescanned from the
 * candidate's second byte, so a frame behind a false 19 is never lost; every
 * byte is in a frame, counted in stats.skipped_bytes, or held. The body
 * points into the caller's input (no copy) or into the parser.
 */
int bw_create_stream_parse(bw_create_stream_parser_t *p, const uint8_t **data, size_t *len,
                           bw_create_stream_frame_t *frame);

/* End of stream: a held candidate can no longer complete; it counts as one
 * length error, its first byte is skipped and the rest rescanned. Returns as
 * bw_create_stream_parse; call until 0, when the parser is empty. */
int bw_create_stream_parser_finish(bw_create_stream_parser_t *p, bw_create_stream_frame_t *frame);

/* ---- commands ------------------------------------------------------------------ */

typedef struct {
    uint8_t note;     /* MIDI note 31..127 (others are rests) */
    uint8_t duration; /* 1/64 s */
} bw_create_note_t;

/* A command. The members used depend on the opcode and the model; see
 * bw_create_model_cmd_desc for the fixed layouts. */
typedef struct {
    uint8_t opcode;
    uint8_t model; /* bw_create_model_t: whose opcode it is (0: a Create 1's) */
    union {
        uint8_t baud;   /* BAUD: code 0..11 */
        int8_t demo;    /* DEMO: -1 (abort) .. 9 */
        struct {
            int16_t velocity; /* mm/s, -500..500 */
            int16_t radius;   /* mm, -2000..2000 or BW_CREATE_RADIUS_* */
        } drive;
        uint8_t low_side_drivers; /* LOW_SIDE_DRIVERS: bits 0..2 */
        struct {
            uint8_t bits;      /* BW_CREATE_LED_* */
            uint8_t color;     /* power LED: 0 green .. 255 red */
            uint8_t intensity; /* power LED: 0 off .. 255 full */
        } leds;
        struct {
            uint8_t number; /* 0..15 */
            uint8_t length; /* notes, 1..16 */
            bw_create_note_t notes[BW_CREATE_MAX_SONG];
        } song;
        uint8_t play;      /* PLAY: song number 0..15 */
        uint8_t sensors;   /* SENSORS: packet id 0..42 */
        struct {
            uint8_t lsd2, lsd1, lsd0; /* duty cycle 0..128, in wire order */
        } pwm_low_side_drivers;
        struct {
            int16_t right, left; /* mm/s, -500..500, in wire order */
        } drive_direct;
        uint8_t digital_outputs; /* DIGITAL_OUTPUTS: bits 0..2 */
        struct {
            uint8_t n;                           /* 0..43 (a Create 2: 0..63) */
            uint8_t ids[BW_CREATE2_MAX_PACKETS]; /* any byte: a parser takes them all */
        } packets;                               /* STREAM, QUERY_LIST */
        uint8_t pause_resume_stream;            /* 0 pause, 1 resume */
        uint8_t send_ir;                        /* SEND_IR: the byte to send */
        struct {
            uint8_t length; /* 1..100 */
            uint8_t bytes[BW_CREATE_MAX_SCRIPT];
        } script;
        uint8_t wait_time;      /* tenths of a second */
        int16_t wait_distance;  /* mm */
        int16_t wait_angle;     /* degrees */
        int8_t wait_event;      /* event id 1..20, negated for its inverse */
        /* A Create 2's own (Drive, Drive Direct, LEDs, Song, Play, Sensors,
         * Stream, Query List and Pause/Resume use the members above; its
         * songs are 0..4, its LED bits BW_CREATE2_LED_*). */
        uint8_t motors; /* MOTORS: side brush 0x01, vacuum 0x02, main brush 0x04,
                           side brush clockwise 0x08, main brush outward 0x10 */
        struct {
            int8_t main_brush, side_brush; /* duty cycle -127..127 */
            uint8_t vacuum;                /* 0..127 */
        } pwm_motors;
        struct {
            int16_t right, left; /* PWM -255..255, in wire order */
        } drive_pwm;
        struct {
            uint8_t weekday;  /* Sunday 0x01 .. Saturday 0x40 */
            uint8_t schedule; /* colon 0x01, PM 0x02, AM 0x04, clock 0x08, schedule 0x10 */
        } scheduling_leds;
        uint8_t digits[4];  /* DIGIT_LEDS_RAW: segments, DIGIT_LEDS_ASCII: characters
                               32..126; digit 3 (leftmost) first, as sent */
        uint8_t buttons;    /* BUTTONS: BW_CREATE2_BUTTON_*, pushed for 1/6 s */
        struct {
            uint8_t days;        /* Sunday 0x01 .. Saturday 0x40 */
            uint8_t times[7][2]; /* Sunday .. Saturday: hour 0..23, minute 0..59 */
        } schedule;
        struct {
            uint8_t day;    /* 0 Sunday .. 6 Saturday */
            uint8_t hour;   /* 0..23 */
            uint8_t minute; /* 0..59 */
        } set_day_time;
    } u;
} bw_create_cmd_t;

/* Lower-case name of an opcode ("drive_direct", "query_list", ...), or NULL. */
const char *bw_create_op_name(uint8_t op);
/* Opcode of a name, in any case, or BW_EUNKNOWN. */
int bw_create_op_from_name(const char *name);
/* The i-th opcode in number order (for listing), or -1 past the end. */
int bw_create_op_at(unsigned i);
/* Field table of a fixed-layout command, offsets into bw_create_cmd_t (no
 * fields for the commands without data); NULL for Song, Stream, Query List,
 * Script and unknown opcodes. The codec codes commands with it. */
const BW_ROM bw_msgdesc_t *bw_create_cmd_desc(uint8_t op);

/* Decodes one whole command (opcode first). Returns 0, BW_EUNKNOWN (not an
 * opcode) or BW_ELENGTH (len is not the command's size, or a count out of
 * its range: song length 1..16, packets 0..43, script length 1..100). */
int bw_create_decode_cmd(const uint8_t *bytes, size_t len, bw_create_cmd_t *cmd);
/* Writes a command; returns its size, BW_EUNKNOWN, BW_ERANGE (a count out of
 * its range) or BW_ENOSPC. Values are written as they are (a Drive of 600
 * mm/s goes out): range policy belongs to the caller. */
int bw_create_encode_cmd(uint8_t *buf, size_t cap, const bw_create_cmd_t *cmd);
/* Drive and Drive Direct for firmware: 5 bytes or BW_ENOSPC; no tables. */
int bw_create_encode_drive(uint8_t *buf, size_t cap, int16_t velocity, int16_t radius);
int bw_create_encode_drive_direct(uint8_t *buf, size_t cap, int16_t right, int16_t left);
/* Zeroed command of an opcode (a Create 1's). */
void bw_create_cmd_init(bw_create_cmd_t *cmd, uint8_t op);

/* The same for a model: its opcodes only (the functions above are these for
 * BW_CREATE_MODEL_1). decode sets cmd->model; encode codes by cmd->model.
 * A Create 2's Stream and Query List take 0..63 packet ids. */
const char *bw_create_model_op_name(bw_create_model_t m, uint8_t op);
int bw_create_model_op_from_name(bw_create_model_t m, const char *name);
int bw_create_model_op_at(bw_create_model_t m, unsigned i);
const BW_ROM bw_msgdesc_t *bw_create_model_cmd_desc(bw_create_model_t m, uint8_t op);
int bw_create_model_decode_cmd(bw_create_model_t m, const uint8_t *bytes, size_t len,
                               bw_create_cmd_t *cmd);
void bw_create_model_cmd_init(bw_create_cmd_t *cmd, bw_create_model_t m, uint8_t op);
/* The size of the command at bytes[0..n) of a model: its size (which may
 * exceed n), 0 when the bytes so far cannot tell (Song, Stream, Query List,
 * Script before their count), BW_ELENGTH for a count out of range,
 * BW_EUNKNOWN for no opcode of the model. */
int bw_create_model_cmd_size(bw_create_model_t m, const uint8_t *bytes, size_t n);

/* A whole command as received: opcode first. Valid until the next call on
 * the parser and while the caller's input is unchanged. */
typedef struct {
    const uint8_t *bytes;
    uint8_t len;
} bw_create_cmd_frame_t;

/* The command parser an emulated Create runs: caller-owned. */
typedef struct {
    bw_parse_stats_t stats;
    uint16_t held; /* bytes in buf: a command starting with an opcode */
    uint16_t drop; /* leading bytes of buf returned last call */
    uint8_t model; /* bw_create_model_t */
    const BW_ROM void *cmds; /* the model's tables (the codec's) */
    uint8_t buf[BW_CREATE_HOLD(BW_CREATE_MAX_CMD)];
    uint32_t *tally; /* see bw_create_cmd_parser_tally */
} bw_create_cmd_parser_t;

/* A Create 1's parser; bw_create_cmd_parser_model makes it another model's
 * (before the first byte). */
void bw_create_cmd_parser_init(bw_create_cmd_parser_t *p);
void bw_create_cmd_parser_model(bw_create_cmd_parser_t *p, bw_create_model_t m);

/* Counts every command skipped as unknown by its first byte too:
 * by_byte[b]++ (256 entries, the caller's; NULL stops it). How an emulated
 * Create says which opcodes of the other model (173 Stop, 164 Digit LEDs
 * ASCII, ...) it was sent. */
void bw_create_cmd_parser_tally(bw_create_cmd_parser_t *p, uint32_t *by_byte);

/*
 * Pushes bytes in, any split. A byte where an opcode is due that is no
 * opcode of the parser's model is skipped, counted in stats.skipped_bytes
 * and once in stats.unknown (no return code: the robot ignores it); when
 * it is an opcode of the other model, its data bytes (by the other model's
 * sizes, bw_create_model_cmd_size) are skipped with it, not read as more
 * commands, unless its count is out of range or, in a firmware build, it
 * is longer than the parser holds. Returns 1 with
 * *cmd (opcode first; its size follows from the opcode and, for Song,
 * Stream, Query List and Script, their count byte); 0 when more bytes are
 * needed; BW_ELENGTH for a count out of range (song length 0 or over 16,
 * packets over 43 (a Create 2: 63), script length 0 or over 100): counted, the opcode is
 * skipped and the bytes after it rescanned; call again. The command points
 * into the caller's input (no copy) or into the parser.
 */
int bw_create_cmd_parse(bw_create_cmd_parser_t *p, const uint8_t **data, size_t *len,
                        bw_create_cmd_frame_t *cmd);

/* End of stream: a cut command counts as one length error; its opcode is
 * skipped and the rest rescanned. Returns as bw_create_cmd_parse; call until
 * 0, when the parser is empty. */
int bw_create_cmd_parser_finish(bw_create_cmd_parser_t *p, bw_create_cmd_frame_t *cmd);

/* ---- the robot's own program ---------------------------------------------
 *
 * The Create side of the Open Interface in integers: its modes and what each
 * command does in each, Drive's radius rules, the stream's schedule and the
 * replies, distance and angle since the last read, Safe mode's stop. Codec
 * core: the emulator runs it (src/robots/create/device.c) and a firmware
 * can, unchanged. Whoever moves the wheels reads `wheel`; whoever senses
 * fills the packets of `s` the body gives (bumps, cliffs, battery, encoder
 * counts...); the program keeps the OI's own (mode, requested speeds,
 * stream count, song, buttons) and distance and angle. No watchdog: the OI
 * has none, a Create drives on its last command until told otherwise.
 */
#define BW_CREATE_STREAM_MS 15u  /* between Stream frames, as the Create sends them */
#define BW_CREATE2_BUTTON_MS 167u /* a Buttons command holds them pushed (1/6 s) */

/* The robot's own docking: a Create 2's Seek Dock (143), a Create 1's Cover
 * and Dock (143, or Demo 136 with 1). In Passive, the program drives: it
 * roams until its omnidirectional receiver hears a Home Base's buoys, then
 * rides the line where red and green overlap onto the contacts, backing off
 * what it bumps; it stops once the charging sources say Home Base, after
 * BW_CREATE_SEEK_MS without, or when the host takes the robot back (Safe,
 * Full, Start, Stop, Power, Reset, a Demo -1). It knows where the dock lies
 * only from the crossings of the overlap it has made: each says on which
 * side of its heading the dock is (seek.c). */
#define BW_CREATE_SEEK_MS 600000u /* 10 minutes of seeking, then it gives up */
#define BW_CREATE_PI_URAD INT32_C(3141593) /* the program's angles are microradians */

typedef enum {
    BW_CREATE_SEEK_OFF = 0, /* not seeking */
    BW_CREATE_SEEK_DRIVE,   /* roaming or riding the buoys */
    BW_CREATE_SEEK_BACK,    /* backing off what it bumped */
} bw_create_seek_state_t;

typedef enum {
    BW_CREATE_SEEK_NONE = 0,  /* never sought, or seeking now */
    BW_CREATE_SEEK_DOCKED,    /* on the Home Base, charging sources say so */
    BW_CREATE_SEEK_GAVE_UP,   /* BW_CREATE_SEEK_MS without docking */
    BW_CREATE_SEEK_LIFTED,    /* a wheel dropped: stopped */
    BW_CREATE_SEEK_CANCELLED, /* the host took the robot back */
} bw_create_seek_result_t;

typedef struct {
    uint8_t state;          /* bw_create_seek_state_t */
    uint8_t result;         /* bw_create_seek_result_t: how the last seek ended */
    uint8_t side;           /* what the receiver heard last: 0 nothing, 1 red only, 2 both, 3 green only */
    bool known;             /* lo..lo+width holds the dock's direction */
    int32_t lo_urad, width_urad; /* headings (urad, the program's own frame) the dock may lie at */
    int32_t target_urad;    /* the heading it drives at */
    uint32_t mark_um;       /* odo_travel2_um where the current leg (or backing) began */
    uint32_t started_ms, now_ms;
    uint32_t crossings;     /* of the overlap's edges, since Seek Dock */
    uint32_t rng;           /* the roaming turns' */
} bw_create_seek_t;

typedef struct {
    uint8_t model;           /* bw_create_model_t */
    uint16_t wheelbase_mm;   /* Drive's radius rules and the angle: 258 (Create 1), 235 (Create 2) */
    bw_create_sensors_t s;   /* what the robot reports */
    int16_t wheel[2];        /* mm/s asked of the left and right wheels */
    bool streaming, stream_paused;
    uint8_t nstream, nreply;
    uint8_t stream_ids[BW_CREATE2_MAX_PACKETS];
    uint8_t reply_ids[BW_CREATE2_MAX_PACKETS]; /* a Sensors or Query List to answer */
    uint32_t next_stream_ms;
    /* since distance or angle was last read, micrometres: the two wheels'
     * travel summed, and the right's less the left's */
    int32_t travel2_um, turn_um;
    uint8_t leds[3];         /* LEDs: bits, power colour, power intensity */
    uint8_t motors;          /* Create 2: Motors' bits */
    uint8_t digits[4];       /* Create 2: what the digit LEDs show */
    bool buttons_held;       /* Create 2: a Buttons command's push lasts until buttons_until_ms */
    uint32_t buttons_until_ms;
    uint8_t song_len[16];
    bw_create_note_t songs[16][BW_CREATE_MAX_SONG];
    uint32_t songs_played;
    /* The program's own odometry, never reset: the two wheels' travel
     * summed since power-up (um, wrapping), the heading (urad, -pi..pi) and
     * what of it is below a microradian. */
    uint32_t odo_travel2_um;
    int32_t heading_urad, heading_rest;
    bw_create_seek_t seek;  /* Seek Dock / Cover and Dock */
} bw_create_robot_t;

/* bw_create_robot_command's answers beyond 1 (obeyed) and 0 (ignored: not
 * in this mode, not the program's, a packet the model has not). */
#define BW_CREATE_ROBOT_REPLY 2 /* obeyed: sense, then bw_create_robot_reply */
#define BW_CREATE_ROBOT_RESET 3 /* Create 2 Reset: the OI off, the encoders' counts from zero */

void bw_create_robot_init(bw_create_robot_t *r, bw_create_model_t model, uint16_t wheelbase_mm);
int bw_create_robot_command(bw_create_robot_t *r, const bw_create_cmd_t *cmd, uint32_t now_ms);
/* The wheels turned this far (micrometres, left and right) since the last
 * call: distance and angle. */
void bw_create_robot_moved(bw_create_robot_t *r, int32_t left_um, int32_t right_um);
/* The program's period (every few milliseconds): a Buttons push ends; in
 * Safe mode, danger (a cliff, a wheel drop, the charger) while the wheels
 * are asked to turn stops them and leaves the OI in Passive; seeking the
 * dock, the program drives from what `s` says. True when `wheel` changed. */
bool bw_create_robot_watch(bw_create_robot_t *r, uint32_t now_ms, bool danger);
/* The reply to the last Sensors or Query List (its length; 0 if cap is too
 * small); reading distance or angle resets them. */
size_t bw_create_robot_reply(bw_create_robot_t *r, uint8_t *out, size_t cap);
/* A Stream frame is due (every BW_CREATE_STREAM_MS while streaming). */
bool bw_create_robot_stream_due(const bw_create_robot_t *r, uint32_t now_ms);
/* The frame, and the next one scheduled; 0 when it does not fit a frame
 * (the robot sends nothing then) or cap. */
size_t bw_create_robot_stream(bw_create_robot_t *r, uint32_t now_ms, uint8_t *out, size_t cap);
/* Seek Dock's part of the period and its start (seek.c; the program calls
 * them). */
void bw_create_seek_start(bw_create_robot_t *r, uint32_t now_ms);
bool bw_create_seek_step(bw_create_robot_t *r, uint32_t now_ms);
/* Drive's wheel speeds (mm/s) for a velocity and radius: the OI's rules
 * (the specials, radius and speed limits, the outer wheel at most 500). */
void bw_create_robot_drive_wheels(uint16_t wheelbase_mm, int16_t velocity, int16_t radius,
                                  int16_t *left, int16_t *right);

/* ---- the emulated Create (the library's emulator; not in a firmware) ----- */

struct bw_device;
/* Requests for a packet the emulated robot's model does not have, by packet
 * id (256 counts; such a request is not answered); NULL for a device that
 * is no Create (a lobot's: its Create's). */
const uint32_t *bw_create_device_unknown_packets(const struct bw_device *dev);
/* The robot's program as it stands (its mode, wheels, songs, LEDs,
 * display, what its sensors say): the emulated robot's truth; NULL for a
 * device that is no Create. */
const bw_create_robot_t *bw_create_device_robot(const struct bw_device *dev);
/* "create" (a Create 1) or "create2", NULL for a device that is no Create. */
const char *bw_create_device_model(const struct bw_device *dev);

#ifdef __cplusplus
}
#endif

#endif /* BOTWIRE_CREATE_H */
