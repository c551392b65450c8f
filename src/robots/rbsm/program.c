/* The RoboBuggy Mega's program: commands, the watchdog and the telemetry
 * (rbsm.h), in the seed's dialect and in the deployed firmware's. Codec
 * core: it runs in the emulator and, unchanged, in the ATmega2560's
 * firmware. Integers only; the deployed branches are a few dozen bytes of
 * the AVR's flash. */
#include "botwire/rbsm.h"

#include <string.h>

/* The AVR firmware (firmware/rbsm-mega) speaks the seed dialect: the
 * deployed one stays out of its flash (about 700 bytes) unless
 * BW_RBSM_MEGA_DEPLOYED is defined; without it, init there ignores
 * `deployed`. Everywhere else both are built. */
#if defined(__AVR__) && !defined(BW_RBSM_MEGA_DEPLOYED)
#define DEPLOYED_BUILT false
#else
#define DEPLOYED_BUILT true
#endif
#define DEPLOYED(m) (DEPLOYED_BUILT && (m)->deployed)

void bw_rbsm_mega_init(bw_rbsm_mega_t *m, bool deployed, uint32_t now_ms)
{
    memset(m, 0, sizeof *m);
    m->deployed = deployed && DEPLOYED_BUILT;
    m->variant = m->deployed ? BW_RBSM_VARIANT_DEPLOYED : BW_RBSM_VARIANT_SEED;
    m->brake_cmd = true; /* standing braked */
    /* The deployed Mega starts needing a reset (brake_needs_reset = true):
     * the brake stays down until the operator's brake re-arms it. */
    m->needs_reset = m->deployed;
    m->last_steer = m->last_brake = now_ms;
}

/* The deployed firmware's limits, in its unit (hundredths to the right). */
#define DEPLOYED_LIMIT 1500

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
    if (engaged && !DEPLOYED(m))
        m->needs_reset = false; /* the host has the brake down itself: armed again */
}

static size_t put(uint8_t *tx, size_t cap, size_t n, uint8_t id, uint32_t word)
{
    if (cap - n < BW_RBSM_MSG_LEN)
        return n;
    return n + (size_t)bw_rbsm_encode(tx + n, cap - n, id, word);
}

/* The deployed firmware's dispatch: every complete message clears the
 * receive-error bits; 19, 18 and 5 are obeyed, any other id is an invalid
 * one. */
static int deployed_command(bw_rbsm_mega_t *m, const bw_rbsm_frame_t *f, uint32_t now_ms,
                            uint8_t *tx, size_t cap, size_t *ntx)
{
    m->errors &= ~(uint32_t)(BW_RBSM_ERR_LOST_STREAM | BW_RBSM_ERR_INVALID_MID);
    switch (f->id) {
    case BW_RBSM_MID_MEGA_COMMAND:
        /* (int)(long)data: an AVR int keeps the low 16 bits; clamped only
         * when the servo is set, reported as it came. */
        m->steer_cmd = (int16_t)(uint16_t)f->word;
        m->last_steer = now_ms;
        return 1;
    case BW_RBSM_MID_BRAKE_COMMAND: brake(m, f->word != 0, now_ms); return 1;
    case BW_RBSM_MID_ENC_RESET_REQUEST:
        m->enc_reset = true;
        *ntx = put(tx, cap, 0, BW_RBSM_MID_ENC_RESET_CONFIRM, 1);
        return 1;
    default:
        m->errors |= BW_RBSM_ERR_INVALID_MID;
        return bw_rbsm_known(f->id) ? 0 : BW_EUNKNOWN;
    }
}

int bw_rbsm_mega_command(bw_rbsm_mega_t *m, const bw_rbsm_frame_t *f, uint32_t now_ms,
                         uint8_t *tx, size_t cap, size_t *ntx)
{
    *ntx = 0;
    if (DEPLOYED(m))
        return deployed_command(m, f, now_ms, tx, cap, ntx);
    bw_rbsm_msg_t msg;
    if (bw_rbsm_decode(f, &msg) < 0) {
        m->errors |= BW_RBSM_ERR_INVALID_MID;
        return BW_EUNKNOWN;
    }
    switch (f->id) {
    case BW_RBSM_MID_MEGA_COMMAND:
        steer(m, msg.angle, now_ms);
        brake(m, bw_rbsm_brake_engaged(m->variant, msg.brake), now_ms);
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
    if (DEPLOYED(m)) {
        /* auton_timeout: in autonomous mode, either command a second old.
         * It needs a reset while that lasts; once the commands come again
         * the operator's brake re-arms it. (The RC link's own timeout is
         * the receiver's, not modelled: the RC is always heard.) */
        bool timeout = !rc && (now_ms - m->last_steer > BW_RBSM_MEGA_WATCHDOG_MS ||
                               now_ms - m->last_brake > BW_RBSM_MEGA_WATCHDOG_MS);
        if (timeout) {
            fired = !m->needs_reset;
            m->needs_reset = true;
            m->errors |= BW_RBSM_ERR_AUTON_LOST;
        } else {
            if (rc_brake)
                m->needs_reset = false;
            m->errors &= ~(uint32_t)BW_RBSM_ERR_AUTON_LOST;
        }
        return fired;
    }
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

int32_t bw_rbsm_mega_steer_target(const bw_rbsm_mega_t *m)
{
    if (m->rc)
        return 0;
    if (DEPLOYED(m)) /* steering_set's clamp */
        return m->steer_cmd > DEPLOYED_LIMIT    ? DEPLOYED_LIMIT
               : m->steer_cmd < -DEPLOYED_LIMIT ? -DEPLOYED_LIMIT
                                                : m->steer_cmd;
    return m->steer_cmd;
}

bool bw_rbsm_mega_brake_down(const bw_rbsm_mega_t *m)
{
    if (DEPLOYED(m)) /* the operator's brake holds in autonomous mode too */
        return m->rc_brake || (!m->rc && m->brake_cmd) || m->needs_reset;
    return m->rc ? m->rc_brake : m->brake_cmd || m->needs_reset;
}

/* The deployed firmware's loop, every message every loop, in its order. */
static size_t deployed_report(bw_rbsm_mega_t *m, uint32_t now_ms,
                              const bw_rbsm_mega_inputs_t *in, uint8_t *tx, size_t cap)
{
    static const BW_ROM uint8_t ids[12] = {
        BW_RBSM_MID_MEGA_STEER_ANGLE,    BW_RBSM_MID_MEGA_BRAKE_STATE,
        BW_RBSM_MID_DEVICE_ID,           BW_RBSM_MID_MEGA_TELEOP_BRAKE_COMMAND,
        BW_RBSM_MID_BRAKE_COMMAND,       BW_RBSM_MID_MEGA_AUTON_STATE,
        BW_RBSM_MID_MEGA_BATTERY_LEVEL,  BW_RBSM_MID_MEGA_STEER_FEEDBACK,
        BW_RBSM_MID_ENC_TICKS_RESET,     BW_RBSM_MID_MEGA_TIMESTAMP,
        BW_RBSM_MID_MEGA_FIRMWARE_HASH,  BW_RBSM_MID_ERROR,
    };
    if (m->enc_reset) {
        m->enc_reset = false;
        m->enc_base = in->enc_ticks;
    }
    /* Its brake words are 1 = engaged (the deployed variant's polarity).
     * The operator's angle under RC: centred here (no RC steering). */
    const uint32_t words[12] = {
        (uint32_t)(m->rc ? 0 : m->steer_cmd), bw_rbsm_mega_brake_down(m),
        BW_RBSM_DID_MEGA,                     m->rc_brake,
        m->brake_cmd,                         !m->rc,
        in->battery_mv,                       (uint32_t)in->steer_feedback,
        in->enc_ticks - m->enc_base,          now_ms,
        BW_RBSM_MEGA_FIRMWARE_HASH,           m->errors,
    };
    size_t n = 0;
    for (unsigned i = 0; i < 12; i++)
        n = put(tx, cap, n, ids[i], words[i]);
    m->errors_sent = m->errors;
    m->loops++;
    return n;
}

size_t bw_rbsm_mega_report(bw_rbsm_mega_t *m, uint32_t now_ms, const bw_rbsm_mega_inputs_t *in,
                           uint8_t *tx, size_t cap)
{
    if (DEPLOYED(m))
        return deployed_report(m, now_ms, in, tx, cap);
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
