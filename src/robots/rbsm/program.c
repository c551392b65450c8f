/* The RoboBuggy Mega's program: commands, the watchdog and the telemetry
 * (rbsm.h). Codec core: it runs in the emulator and, unchanged, in the
 * ATmega2560's firmware. Integers only. */
#include "botwire/rbsm.h"

#include <string.h>

void bw_rbsm_mega_init(bw_rbsm_mega_t *m, bool deployed, uint32_t now_ms)
{
    memset(m, 0, sizeof *m);
    m->deployed = deployed;
    m->variant = deployed ? BW_RBSM_VARIANT_DEPLOYED : BW_RBSM_VARIANT_SEED;
    m->brake_cmd = true; /* standing braked */
    m->last_steer = m->last_brake = now_ms;
}

static void steer(bw_rbsm_mega_t *m, int32_t wire, uint32_t now_ms)
{
    int32_t limit = (int32_t)BW_RBSM_STEER_LIMIT_DEG * bw_rbsm_steer_per_degree(m->variant);
    m->steer_cmd = wire > limit ? limit : wire < -limit ? -limit : wire;
    m->last_steer = now_ms;
}

static void brake(bw_rbsm_mega_t *m, bool engaged, uint32_t now_ms)
{
    m->brake_cmd = engaged;
    m->last_brake = now_ms;
    if (engaged)
        m->needs_reset = false; /* the host has the brake down itself: armed again */
}

static size_t put(uint8_t *tx, size_t cap, size_t n, uint8_t id, uint32_t word)
{
    if (cap - n < BW_RBSM_MSG_LEN)
        return n;
    return n + (size_t)bw_rbsm_encode(tx + n, cap - n, id, word);
}

int bw_rbsm_mega_command(bw_rbsm_mega_t *m, const bw_rbsm_frame_t *f, uint32_t now_ms,
                         uint8_t *tx, size_t cap, size_t *ntx)
{
    *ntx = 0;
    bw_rbsm_msg_t msg;
    if (bw_rbsm_decode(f, &msg) < 0) {
        m->errors |= BW_RBSM_ERR_INVALID_MID;
        return BW_EUNKNOWN;
    }
    switch (f->id) {
    case BW_RBSM_MID_MEGA_COMMAND:
        if (m->deployed) {
            steer(m, (int32_t)f->word, now_ms);
        } else {
            steer(m, msg.angle, now_ms);
            brake(m, bw_rbsm_brake_engaged(m->variant, msg.brake), now_ms);
        }
        break;
    case BW_RBSM_MID_MEGA_STEER_ANGLE: steer(m, (int32_t)f->word, now_ms); break;
    case BW_RBSM_MID_BRAKE_COMMAND:
    case BW_RBSM_MID_MEGA_BRAKE_STATE:
        brake(m, bw_rbsm_brake_engaged(m->variant, f->word), now_ms);
        break;
    case BW_RBSM_MID_ENC_RESET_REQUEST:
        m->enc_reset = true;
        *ntx = put(tx, cap, 0, BW_RBSM_MID_ENC_RESET_CONFIRM, 1);
        break;
    default:
        /* telemetry ids, the lighting system's: not for the Mega */
        return 0;
    }
    /* A good command: the stream is whole again. */
    m->errors &= ~(uint32_t)(BW_RBSM_ERR_LOST_STREAM | BW_RBSM_ERR_INVALID_MID);
    return 1;
}

void bw_rbsm_mega_stream_error(bw_rbsm_mega_t *m) { m->errors |= BW_RBSM_ERR_LOST_STREAM; }

bool bw_rbsm_mega_watch(bw_rbsm_mega_t *m, uint32_t now_ms, bool rc, bool rc_brake)
{
    m->rc = rc;
    m->rc_brake = rc_brake;
    bool fired = false;
    if (!rc && !m->needs_reset &&
        (now_ms - m->last_steer > BW_RBSM_MEGA_WATCHDOG_MS ||
         now_ms - m->last_brake > BW_RBSM_MEGA_WATCHDOG_MS)) {
        m->needs_reset = true;
        fired = true;
    }
    if (m->needs_reset)
        m->errors |= BW_RBSM_ERR_AUTON_LOST;
    else
        m->errors &= ~(uint32_t)BW_RBSM_ERR_AUTON_LOST;
    return fired;
}

int32_t bw_rbsm_mega_steer_target(const bw_rbsm_mega_t *m) { return m->rc ? 0 : m->steer_cmd; }

bool bw_rbsm_mega_brake_down(const bw_rbsm_mega_t *m)
{
    return m->rc ? m->rc_brake : m->brake_cmd || m->needs_reset;
}

size_t bw_rbsm_mega_report(bw_rbsm_mega_t *m, uint32_t now_ms, const bw_rbsm_mega_inputs_t *in,
                           uint8_t *tx, size_t cap)
{
    bw_rbsm_variant_t v = m->variant;
    bool slow = ++m->loops % 10 == 0;
    size_t n = 0;
    n = put(tx, cap, n, BW_RBSM_MID_DEVICE_ID, BW_RBSM_DID_MEGA);
    n = put(tx, cap, n, BW_RBSM_MID_MEGA_STEER_ANGLE, (uint32_t)bw_rbsm_mega_steer_target(m));
    n = put(tx, cap, n, BW_RBSM_MID_MEGA_STEER_FEEDBACK, (uint32_t)in->steer_feedback);
    n = put(tx, cap, n, BW_RBSM_MID_MEGA_BRAKE_STATE,
            bw_rbsm_brake_to_wire(v, bw_rbsm_mega_brake_down(m)));
    n = put(tx, cap, n, BW_RBSM_MID_MEGA_AUTON_STATE, m->rc ? 0 : 1);
    if (slow || m->errors != m->errors_sent) {
        n = put(tx, cap, n, BW_RBSM_MID_MEGA_BATTERY_LEVEL, in->battery_mv);
        n = put(tx, cap, n, BW_RBSM_MID_ERROR, m->errors);
        m->errors_sent = m->errors;
    }
    if (slow && m->deployed) {
        n = put(tx, cap, n, BW_RBSM_MID_MEGA_TELEOP_BRAKE_COMMAND,
                bw_rbsm_brake_to_wire(v, m->rc_brake));
        n = put(tx, cap, n, BW_RBSM_MID_BRAKE_COMMAND, bw_rbsm_brake_to_wire(v, m->brake_cmd));
        n = put(tx, cap, n, BW_RBSM_MID_MEGA_FIRMWARE_HASH, BW_RBSM_MEGA_FIRMWARE_HASH);
        n = put(tx, cap, n, BW_RBSM_MID_MEGA_TIMESTAMP, now_ms);
    }
    if (m->enc_reset) {
        m->enc_reset = false;
        m->enc_base = in->enc_ticks;
        m->ticks_sent = 0;
    }
    uint32_t ticks = in->enc_ticks - m->enc_base;
    n = put(tx, cap, n, BW_RBSM_MID_DEVICE_ID, BW_RBSM_DID_DRIVE_ENCODER);
    n = put(tx, cap, n, BW_RBSM_MID_ENC_TICKS_LAST, ticks - m->ticks_sent);
    n = put(tx, cap, n, BW_RBSM_MID_ENC_TICKS_RESET, ticks);
    n = put(tx, cap, n, BW_RBSM_MID_ENC_TIMESTAMP, now_ms);
    m->ticks_sent = ticks;
    return n;
}
