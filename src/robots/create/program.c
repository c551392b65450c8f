/* The Create's own program (create.h, "the robot's own program"): the Open
 * Interface's modes, what each command does in each, Drive's radius rules,
 * the stream's schedule, the replies, distance and angle since the last
 * read, Safe mode's stop. Codec core: integers only, no allocation; the
 * emulator runs it, and a firmware can. */
#include "botwire/create.h"

#include <string.h>

#define UDEG_PER_RAD 57295780 /* millionths of a degree in a radian, 180e6 / pi */

void bw_create_robot_init(bw_create_robot_t *r, bw_create_model_t model, uint16_t wheelbase_mm)
{
    memset(r, 0, sizeof *r);
    r->model = (uint8_t)model;
    r->wheelbase_mm = wheelbase_mm ? wheelbase_mm : 1;
    r->s.oi_mode = BW_CREATE_MODE_OFF;
    r->s.infrared_byte = BW_CREATE_IR_NONE;
}

static int16_t clamp16(int32_t x, int32_t limit)
{
    return (int16_t)(x > limit ? limit : x < -limit ? -limit : x);
}

/* a / b rounded half away from zero (b > 0). */
static int32_t div_round(int32_t a, int32_t b)
{
    return a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b);
}

static int64_t div_round64(int64_t a, int64_t b)
{
    return a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b);
}

void bw_create_robot_drive_wheels(uint16_t wheelbase_mm, int16_t velocity, int16_t radius,
                                  int16_t *left, int16_t *right)
{
    int32_t v = clamp16(velocity, BW_CREATE_MAX_SPEED);
    if (radius == BW_CREATE_RADIUS_STRAIGHT || radius == BW_CREATE_RADIUS_STRAIGHT_ALT || radius == 0) {
        *left = *right = (int16_t)v;
    } else if (radius == BW_CREATE_RADIUS_CCW || radius == BW_CREATE_RADIUS_CW) {
        *right = (int16_t)(radius == BW_CREATE_RADIUS_CCW ? v : -v);
        *left = (int16_t)-*right;
    } else {
        /* the centre at v on a circle of the radius; each wheel half the
         * wheelbase either side of it (in half millimetres: 117.5 mm is a
         * Create 2's half) */
        int32_t twice_r = 2 * (int32_t)clamp16(radius, BW_CREATE_MAX_RADIUS);
        int32_t den = twice_r < 0 ? -twice_r : twice_r, sign = twice_r < 0 ? -1 : 1;
        int32_t ln = sign * v * (twice_r - wheelbase_mm), rn = sign * v * (twice_r + wheelbase_mm);
        int32_t top = ln < 0 ? -ln : ln;
        if ((rn < 0 ? -rn : rn) > top)
            top = rn < 0 ? -rn : rn;
        int32_t l, rr;
        if (top > BW_CREATE_MAX_SPEED * den) { /* the outer wheel sets the pace: 500 */
            l = (int32_t)div_round64((int64_t)ln * BW_CREATE_MAX_SPEED, top);
            rr = (int32_t)div_round64((int64_t)rn * BW_CREATE_MAX_SPEED, top);
        } else {
            l = div_round(ln, den);
            rr = div_round(rn, den);
        }
        *left = (int16_t)l;
        *right = (int16_t)rr;
    }
}

static void stop(bw_create_robot_t *r)
{
    if (r->seek.state != BW_CREATE_SEEK_OFF) { /* the host takes the robot back */
        r->seek.state = BW_CREATE_SEEK_OFF;
        r->seek.result = BW_CREATE_SEEK_CANCELLED;
    }
    r->s.requested_speed = r->s.requested_radius = 0;
    r->s.requested_right_speed = r->s.requested_left_speed = 0;
    r->wheel[0] = r->wheel[1] = 0;
}

static bool can_drive(const bw_create_robot_t *r)
{
    return r->s.oi_mode == BW_CREATE_MODE_SAFE || r->s.oi_mode == BW_CREATE_MODE_FULL;
}

/* The OI off: the stream stops with it, and the wheels. */
static void oi_off(bw_create_robot_t *r)
{
    stop(r);
    r->streaming = false;
    r->nstream = 0;
    r->s.num_stream_packets = 0;
    r->s.oi_mode = BW_CREATE_MODE_OFF;
}

/* Whether the model has every packet asked for: the robot cannot size a
 * reply with one it has not, and does not answer. */
static bool packets_known(const bw_create_robot_t *r, const uint8_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (bw_create_model_packet_size((bw_create_model_t)r->model, ids[i]) < 0)
            return false;
    return true;
}

static int ask(bw_create_robot_t *r, const uint8_t *ids, uint8_t n)
{
    if (!packets_known(r, ids, n) || n > sizeof r->reply_ids)
        return 0;
    memcpy(r->reply_ids, ids, n);
    r->nreply = n;
    return BW_CREATE_ROBOT_REPLY;
}

/* A Create 2's own commands (and its meanings of 133, 135, 136, 138, 143,
 * 144); -1 for a command both models share. */
static int command2(bw_create_robot_t *r, const bw_create_cmd_t *cmd, uint32_t now_ms)
{
    bw_create_sensors_t *s = &r->s;
    switch (cmd->opcode) {
    case BW_CREATE2_OP_RESET: /* as a battery change: the OI off, counts from zero */
        oi_off(r);
        return BW_CREATE_ROBOT_RESET;
    case BW_CREATE2_OP_STOP: oi_off(r); return 1;
    case BW_CREATE2_OP_POWER: /* powers down, the OI left in Passive */
        stop(r);
        s->oi_mode = BW_CREATE_MODE_PASSIVE;
        return 1;
    case BW_CREATE_OP_SPOT:
    case BW_CREATE2_OP_CLEAN:
    case BW_CREATE2_OP_MAX:
        /* A cleaning mode takes the robot from the host: Passive. Its
         * cleaning is not this program's: the robot stands. */
        stop(r);
        s->oi_mode = BW_CREATE_MODE_PASSIVE;
        return 0;
    case BW_CREATE2_OP_SEEK_DOCK: /* Passive, and the robot seeks its dock (seek.c) */
        stop(r);
        s->oi_mode = BW_CREATE_MODE_PASSIVE;
        bw_create_seek_start(r, now_ms);
        return 1;
    case BW_CREATE2_OP_DRIVE_PWM:
        if (!can_drive(r))
            return 0;
        /* Full PWM taken as full speed: a wheel's speed under a duty cycle
         * depends on its load, which the OI does not say. */
        r->wheel[0] = (int16_t)div_round(clamp16(cmd->u.drive_pwm.left, 255) * BW_CREATE_MAX_SPEED, 255);
        r->wheel[1] = (int16_t)div_round(clamp16(cmd->u.drive_pwm.right, 255) * BW_CREATE_MAX_SPEED, 255);
        return 1;
    case BW_CREATE2_OP_MOTORS:
        if (!can_drive(r))
            return 0;
        r->motors = cmd->u.motors;
        return 1;
    case BW_CREATE2_OP_PWM_MOTORS:
        if (!can_drive(r))
            return 0;
        r->motors = (uint8_t)((cmd->u.pwm_motors.side_brush ? 0x01 : 0) |
                              (cmd->u.pwm_motors.vacuum ? 0x02 : 0) |
                              (cmd->u.pwm_motors.main_brush ? 0x04 : 0));
        return 1;
    case BW_CREATE2_OP_DIGIT_LEDS_RAW:
    case BW_CREATE2_OP_DIGIT_LEDS_ASCII: memcpy(r->digits, cmd->u.digits, 4); return 1;
    case BW_CREATE2_OP_BUTTONS:
        s->buttons = cmd->u.buttons;
        r->buttons_until_ms = now_ms + BW_CREATE2_BUTTON_MS;
        r->buttons_held = true;
        return 1;
    case BW_CREATE2_OP_SCHEDULING_LEDS:
    case BW_CREATE2_OP_SCHEDULE:
    case BW_CREATE2_OP_SET_DAY_TIME: return 0; /* no clock kept */
    default: return -1;
    }
}

int bw_create_robot_command(bw_create_robot_t *r, const bw_create_cmd_t *cmd, uint32_t now_ms)
{
    bw_create_sensors_t *s = &r->s;
    bool two = r->model == BW_CREATE_MODEL_2;
    if (two && cmd->opcode == BW_CREATE2_OP_RESET) /* in any mode */
        return command2(r, cmd, now_ms);
    if (s->oi_mode == BW_CREATE_MODE_OFF && cmd->opcode != BW_CREATE_OP_START)
        return 0; /* the OI is not started */
    if (two) {
        int rc = command2(r, cmd, now_ms);
        if (rc >= 0)
            return rc;
    }
    switch (cmd->opcode) {
    case BW_CREATE_OP_START:
        s->oi_mode = BW_CREATE_MODE_PASSIVE;
        stop(r);
        return 1;
    case BW_CREATE_OP_CONTROL:
    case BW_CREATE_OP_SAFE:
    case BW_CREATE_OP_FULL:
        if (r->seek.state != BW_CREATE_SEEK_OFF)
            stop(r); /* the robot is the host's again: seeking stops, and the wheels */
        s->oi_mode = cmd->opcode == BW_CREATE_OP_FULL ? BW_CREATE_MODE_FULL : BW_CREATE_MODE_SAFE;
        return 1;
    case BW_CREATE_OP_COVER_AND_DOCK: /* a Create 1's: Demo 1, Cover and Dock */
    case BW_CREATE_OP_DEMO:
        stop(r);
        s->oi_mode = BW_CREATE_MODE_PASSIVE;
        if (cmd->opcode == BW_CREATE_OP_DEMO && cmd->u.demo != 1)
            return cmd->u.demo == -1; /* -1 aborts; the other demos stand */
        /* Its covering is not this program's: it roams until it hears a
         * Home Base, then docks, as Seek Dock. */
        bw_create_seek_start(r, now_ms);
        return 1;
    case BW_CREATE_OP_DRIVE:
        if (!can_drive(r))
            return 0; /* passive: the motors are not the host's */
        bw_create_robot_drive_wheels(r->wheelbase_mm, cmd->u.drive.velocity, cmd->u.drive.radius,
                                     &r->wheel[0], &r->wheel[1]);
        s->requested_speed = cmd->u.drive.velocity;
        s->requested_radius = cmd->u.drive.radius;
        return 1;
    case BW_CREATE_OP_DRIVE_DIRECT:
        if (!can_drive(r))
            return 0;
        s->requested_right_speed = cmd->u.drive_direct.right;
        s->requested_left_speed = cmd->u.drive_direct.left;
        r->wheel[0] = clamp16(cmd->u.drive_direct.left, BW_CREATE_MAX_SPEED);
        r->wheel[1] = clamp16(cmd->u.drive_direct.right, BW_CREATE_MAX_SPEED);
        return 1;
    case BW_CREATE_OP_LEDS:
        r->leds[0] = cmd->u.leds.bits;
        r->leds[1] = cmd->u.leds.color;
        r->leds[2] = cmd->u.leds.intensity;
        return 1;
    case BW_CREATE_OP_SONG:
        if (cmd->u.song.number >= 16)
            return 1; /* no such song to keep */
        r->song_len[cmd->u.song.number] = cmd->u.song.length;
        memcpy(r->songs[cmd->u.song.number], cmd->u.song.notes, sizeof r->songs[0]);
        return 1;
    case BW_CREATE_OP_PLAY:
        if (cmd->u.play >= 16 || !r->song_len[cmd->u.play])
            return 1; /* no such song: nothing plays */
        s->song_number = cmd->u.play;
        r->songs_played++;
        return 1;
    case BW_CREATE_OP_SENSORS: return ask(r, &cmd->u.sensors, 1);
    case BW_CREATE_OP_QUERY_LIST: return ask(r, cmd->u.packets.ids, cmd->u.packets.n);
    case BW_CREATE_OP_STREAM:
        if (!packets_known(r, cmd->u.packets.ids, cmd->u.packets.n) ||
            cmd->u.packets.n > sizeof r->stream_ids)
            return 0; /* the stream goes on as it was */
        r->nstream = cmd->u.packets.n;
        memcpy(r->stream_ids, cmd->u.packets.ids, r->nstream);
        r->streaming = r->nstream > 0;
        r->stream_paused = false;
        s->num_stream_packets = r->nstream;
        r->next_stream_ms = now_ms + BW_CREATE_STREAM_MS;
        return 1;
    case BW_CREATE_OP_PAUSE_RESUME_STREAM:
        r->stream_paused = cmd->u.pause_resume_stream == 0;
        return 1;
    case BW_CREATE_OP_BAUD: return 1; /* the line's rate is the caller's to change */
    default:
        /* Demo modes, cleaning, scripts, low side drivers, IR: known and
         * left alone by this program. */
        return 0;
    }
}

/* Held to 32 bits: a host that never reads distance or angle (it counts
 * the encoders) must not overflow them; read, they saturate anyway. */
static int32_t held(int64_t x)
{
    return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : (int32_t)x;
}

void bw_create_robot_moved(bw_create_robot_t *r, int32_t left_um, int32_t right_um)
{
    /* kept whole, divided once when read: nothing lost between reads */
    r->travel2_um = held((int64_t)r->travel2_um + left_um + right_um);
    r->turn_um = held((int64_t)r->turn_um + right_um - left_um);
    r->odo_travel2_um += (uint32_t)left_um + (uint32_t)right_um;
    /* The heading in 32 bits, the rest kept (no 64-bit division for a chip
     * to link; a step is a few millimetres, held to 2 m). */
    int32_t turn = held((int64_t)right_um - left_um);
    turn = turn > 2000000 ? 2000000 : turn < -2000000 ? -2000000 : turn;
    int32_t num = turn * 1000 + r->heading_rest;
    r->heading_urad += num / r->wheelbase_mm;
    r->heading_rest = num % r->wheelbase_mm;
    while (r->heading_urad > BW_CREATE_PI_URAD)
        r->heading_urad -= 2 * BW_CREATE_PI_URAD;
    while (r->heading_urad <= -BW_CREATE_PI_URAD)
        r->heading_urad += 2 * BW_CREATE_PI_URAD;
}

bool bw_create_robot_watch(bw_create_robot_t *r, uint32_t now_ms, bool danger)
{
    if (r->buttons_held && (int32_t)(now_ms - r->buttons_until_ms) >= 0) {
        r->s.buttons = 0; /* the Buttons command's push is over */
        r->buttons_held = false;
    }
    if (r->seek.state != BW_CREATE_SEEK_OFF)
        return bw_create_seek_step(r, now_ms);
    if (r->s.oi_mode != BW_CREATE_MODE_SAFE || !danger || (r->wheel[0] == 0 && r->wheel[1] == 0))
        return false;
    stop(r);
    r->s.oi_mode = BW_CREATE_MODE_PASSIVE;
    return true;
}

/* Reading distance or angle (alone or in a group) resets them. */
static bool reads_odometry(const uint8_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == BW_CREATE_GROUP_0 || ids[i] == BW_CREATE_GROUP_2 || ids[i] == BW_CREATE_GROUP_6 ||
            ids[i] == BW_CREATE_GROUP_100 || ids[i] == BW_CREATE_PKT_DISTANCE ||
            ids[i] == BW_CREATE_PKT_ANGLE)
            return true;
    return false;
}

/* The sensors as read now: distance and angle truncated toward zero to
 * whole millimetres and degrees, the rest lost, as the Create 1 reports
 * them (read often during a slow turn, the angle says less than the robot
 * turned). */
static void reading(bw_create_robot_t *r, const uint8_t *ids, size_t n, bw_create_sensors_t *out)
{
    *out = r->s;
    if (!reads_odometry(ids, n))
        return;
    int32_t mm = r->travel2_um / 2000;
    int64_t deg = (int64_t)r->turn_um * UDEG_PER_RAD / ((int64_t)r->wheelbase_mm * 1000000000);
    out->distance = clamp16(mm, 32767);
    out->angle = clamp16((int32_t)deg, 32767);
    r->travel2_um = r->turn_um = 0;
}

size_t bw_create_robot_reply(bw_create_robot_t *r, uint8_t *out, size_t cap)
{
    bw_create_sensors_t s;
    reading(r, r->reply_ids, r->nreply, &s);
    int len = bw_create_model_encode_query((bw_create_model_t)r->model, out, cap, r->reply_ids,
                                           r->nreply, &s);
    r->nreply = 0;
    return len > 0 ? (size_t)len : 0;
}

bool bw_create_robot_stream_due(const bw_create_robot_t *r, uint32_t now_ms)
{
    return r->streaming && !r->stream_paused && (int32_t)(now_ms - r->next_stream_ms) >= 0;
}

size_t bw_create_robot_stream(bw_create_robot_t *r, uint32_t now_ms, uint8_t *out, size_t cap)
{
    (void)now_ms;
    r->next_stream_ms += BW_CREATE_STREAM_MS;
    bw_create_sensors_t s;
    reading(r, r->stream_ids, r->nstream, &s);
    int len = bw_create_model_encode_stream((bw_create_model_t)r->model, out, cap, r->stream_ids,
                                            r->nstream, &s, BW_CREATE_SUM_WITH_HEADER);
    /* A request too long for one frame sends nothing, as the robot does. */
    return len > 0 ? (size_t)len : 0;
}
