/* The Kobuki's own program (kobuki.h, "the robot's own program"): what it
 * obeys, its command timeout, its feedback frame. Codec core: integers
 * only, no allocation; the emulator runs it, and a firmware can. */
#include "botwire/kobuki.h"

#include <string.h>

#define HALF_BASE_MM 115 /* BW_KOBUKI_WHEELBASE_M / 2, mm */

void bw_kobuki_robot_init(bw_kobuki_robot_t *r, uint32_t now_ms, uint32_t timeout_ms,
                          const uint32_t udid[3])
{
    memset(r, 0, sizeof *r);
    r->gain = (bw_kobuki_gain_t){ BW_KOBUKI_GAIN_FACTORY, BW_KOBUKI_GAIN_P_DEFAULT,
                                  BW_KOBUKI_GAIN_I_DEFAULT, BW_KOBUKI_GAIN_D_DEFAULT };
    memcpy(r->udid, udid, sizeof r->udid);
    r->hardware = (bw_kobuki_version_t){ 1, 0, 4, false };
    r->firmware = (bw_kobuki_version_t){ 1, 2, 0, false };
    r->timeout_ms = timeout_ms;
    r->last_command_ms = now_ms;
}

int bw_kobuki_robot_command(bw_kobuki_robot_t *r, const bw_kobuki_msg_t *m, uint32_t now_ms)
{
    switch (m->type) {
    case BW_KOBUKI_BASE_CONTROL:
        r->command = m->u.base_control;
        r->last_command_ms = now_ms;
        return 1;
    case BW_KOBUKI_SOUND:
        r->sound_note = m->u.sound.note;
        r->sound_duration = m->u.sound.duration;
        r->sounds++;
        return 1;
    case BW_KOBUKI_SOUND_SEQUENCE:
        r->sound_sequence = m->u.sound_sequence.sequence;
        r->sounds++;
        return 1;
    case BW_KOBUKI_REQUEST_EXTRA: r->pending_extra |= m->u.request_extra.flags; return 1;
    case BW_KOBUKI_GENERAL_PURPOSE_OUTPUT:
        r->gp_output = m->u.general_purpose_output.flags;
        r->gp_outputs++;
        return 1;
    case BW_KOBUKI_SET_CONTROLLER_GAIN: r->gain = m->u.set_controller_gain; return 1;
    case BW_KOBUKI_GET_CONTROLLER_GAIN: r->pending_gain = true; return 1;
    /* (A sound sequence beyond the seed's 6 decodes as unknown: the robot
     * has no such sound, it plays nothing.) */
    case BW_KOBUKI_UNKNOWN: return BW_EUNKNOWN;
    default: return 0; /* feedback sent by a host */
    }
}

bool bw_kobuki_robot_watch(bw_kobuki_robot_t *r, uint32_t now_ms)
{
    if (r->timeout_ms == 0 || r->command.speed == 0 ||
        (uint32_t)(now_ms - r->last_command_ms) <= r->timeout_ms)
        return false;
    r->command = (bw_kobuki_base_control_t){ 0, 0 };
    return true;
}

size_t bw_kobuki_robot_report(bw_kobuki_robot_t *r, const bw_kobuki_robot_inputs_t *in,
                              uint8_t *out, size_t cap)
{
    bw_kobuki_writer_t w;
    bw_kobuki_msg_t m;
    bw_kobuki_writer_init(&w, out, cap);

    bw_kobuki_msg_init(&m, BW_KOBUKI_BASIC_SENSOR_DATA);
    m.u.basic_sensor_data = (bw_kobuki_basic_sensor_data_t){
        .timestamp = in->timestamp_ms,
        .bumper = in->bumper,
        .wheel_drop = in->wheel_drop,
        .cliff = in->cliff,
        .left_encoder = in->left_encoder,
        .right_encoder = in->right_encoder,
        .left_pwm = in->left_pwm,
        .right_pwm = in->right_pwm,
        .charger = in->charger,
        .battery = in->battery,
        .overcurrent = in->overcurrent,
    };
    bw_kobuki_writer_add(&w, &m);

    bw_kobuki_msg_init(&m, BW_KOBUKI_DOCKING_IR);
    m.u.docking_ir = in->docking_ir;
    bw_kobuki_writer_add(&w, &m);

    bw_kobuki_msg_init(&m, BW_KOBUKI_INERTIAL_SENSOR);
    m.u.inertial_sensor.angle = in->angle;
    m.u.inertial_sensor.angle_rate = in->angle_rate;
    bw_kobuki_writer_add(&w, &m);

    bw_kobuki_msg_init(&m, BW_KOBUKI_CLIFF);
    m.u.cliff.left = in->cliff_adc[0];
    m.u.cliff.central = in->cliff_adc[1];
    m.u.cliff.right = in->cliff_adc[2];
    bw_kobuki_writer_add(&w, &m);

    bw_kobuki_msg_init(&m, BW_KOBUKI_CURRENT);
    m.u.current.left = in->current[0];
    m.u.current.right = in->current[1];
    bw_kobuki_writer_add(&w, &m);

    bw_kobuki_msg_init(&m, BW_KOBUKI_RAW_GYRO);
    uint8_t n = in->gyro_samples > 3 ? 3 : in->gyro_samples;
    m.u.raw_gyro.frame_id = r->gyro_frame_id;
    m.u.raw_gyro.count = n;
    memcpy(m.u.raw_gyro.samples, in->gyro, (size_t)n * sizeof in->gyro[0]);
    r->gyro_frame_id = (uint8_t)(r->gyro_frame_id + n);
    bw_kobuki_writer_add(&w, &m);

    bw_kobuki_msg_init(&m, BW_KOBUKI_GENERAL_PURPOSE_INPUT);
    m.u.general_purpose_input.digital_input = in->digital_input;
    memcpy(m.u.general_purpose_input.analog, in->analog_input,
           sizeof in->analog_input);
    bw_kobuki_writer_add(&w, &m);

    if (r->pending_extra & BW_KOBUKI_EXTRA_HARDWARE_VERSION) {
        bw_kobuki_msg_init(&m, BW_KOBUKI_HARDWARE_VERSION);
        m.u.hardware_version = r->hardware;
        bw_kobuki_writer_add(&w, &m);
    }
    if (r->pending_extra & BW_KOBUKI_EXTRA_FIRMWARE_VERSION) {
        bw_kobuki_msg_init(&m, BW_KOBUKI_FIRMWARE_VERSION);
        m.u.firmware_version = r->firmware;
        bw_kobuki_writer_add(&w, &m);
    }
    if (r->pending_extra & BW_KOBUKI_EXTRA_UDID) {
        bw_kobuki_msg_init(&m, BW_KOBUKI_UNIQUE_DEVICE_ID);
        m.u.unique_device_id = (bw_kobuki_unique_device_id_t){ r->udid[0], r->udid[1], r->udid[2] };
        bw_kobuki_writer_add(&w, &m);
    }
    r->pending_extra = 0;
    if (r->pending_gain) {
        bw_kobuki_msg_init(&m, BW_KOBUKI_CONTROLLER_INFO);
        m.u.controller_info = r->gain;
        bw_kobuki_writer_add(&w, &m);
        r->pending_gain = false;
    }
    int len = bw_kobuki_writer_finish(&w);
    return len > 0 ? (size_t)len : 0;
}

void bw_kobuki_robot_wheels(const bw_kobuki_robot_t *r, int32_t *left_mm_s, int32_t *right_mm_s)
{
    int32_t speed = r->command.speed, radius = r->command.radius;
    if (radius == 0) {
        *left_mm_s = *right_mm_s = speed;
    } else if (radius == 1 || radius == -1) {
        /* in place: the wheels at speed, opposite ways (CCW for +1) */
        *left_mm_s = -radius * speed;
        *right_mm_s = radius * speed;
    } else {
        /* speed is the outer wheel's; the inner one's in proportion,
         * rounded half away from zero */
        int32_t outer = radius > 0 ? radius + HALF_BASE_MM : radius - HALF_BASE_MM;
        int32_t inner = radius > 0 ? radius - HALF_BASE_MM : radius + HALF_BASE_MM;
        int32_t num = speed * inner, q = num / outer, rem = num % outer;
        if (2 * (rem < 0 ? -rem : rem) >= (outer < 0 ? -outer : outer))
            q += ((num < 0) != (outer < 0)) ? -1 : 1;
        *left_mm_s = radius > 0 ? q : speed;
        *right_mm_s = radius > 0 ? speed : q;
    }
}
