/* RBSM units and polarities: the only place where wire values meet radians
 * and booleans, seed or deployed. */
#include "botwire/rbsm.h"

#define DEG_PER_RAD (180.0 / 3.14159265358979323846)

int32_t bw_rbsm_steer_per_degree(bw_rbsm_variant_t v)
{
    return v.steer_unit == BW_RBSM_STEER_CENTIDEG ? 100 : 1000;
}

double bw_rbsm_steer_to_rad(bw_rbsm_variant_t v, int32_t wire)
{
    return (double)wire / ((double)bw_rbsm_steer_per_degree(v) * DEG_PER_RAD);
}

/* Nearest integer in lo..hi, halves away from zero, without libm. The
 * limits are compared before the cast: a cast out of range is undefined. */
static int round_clamp(double x, int32_t lo, int32_t hi, int32_t *out)
{
    if (x != x) {
        *out = 0;
        return BW_ERANGE;
    }
    if (x >= (double)hi + 0.5) {
        *out = hi;
        return BW_ERANGE;
    }
    if (x <= (double)lo - 0.5) {
        *out = lo;
        return BW_ERANGE;
    }
    *out = (int32_t)(x < 0 ? x - 0.5 : x + 0.5);
    return 0;
}

int bw_rbsm_steer_from_rad(bw_rbsm_variant_t v, double rad, int32_t *wire)
{
    double x = rad * DEG_PER_RAD * (double)bw_rbsm_steer_per_degree(v);
    return round_clamp(x, INT32_MIN, INT32_MAX, wire);
}

int bw_rbsm_command_angle_from_rad(bw_rbsm_variant_t v, double rad, int16_t *angle)
{
    int32_t w;
    int rc = round_clamp(rad * DEG_PER_RAD * (double)bw_rbsm_steer_per_degree(v), INT16_MIN,
                         INT16_MAX, &w);
    *angle = (int16_t)w;
    return rc;
}

/* The deployed unit points right (STEERING_LIMIT_LEFT -1500). */
static bool points_right(bw_rbsm_variant_t v) { return v.steer_unit == BW_RBSM_STEER_CENTIDEG; }

double bw_rbsm_steer_left_rad(bw_rbsm_variant_t v, int32_t wire)
{
    double a = bw_rbsm_steer_to_rad(v, wire);
    return points_right(v) && wire != 0 ? -a : a; /* not -0 */
}

int bw_rbsm_steer_left_to_wire(bw_rbsm_variant_t v, double rad, int32_t *wire)
{
    return bw_rbsm_steer_from_rad(v, points_right(v) ? -rad : rad, wire);
}

uint32_t bw_rbsm_brake_to_wire(bw_rbsm_variant_t v, bool engaged)
{
    bool one = v.brake_polarity == BW_RBSM_BRAKE_ONE_ENGAGED;
    return engaged == one ? 1u : 0u;
}

bool bw_rbsm_brake_engaged(bw_rbsm_variant_t v, uint32_t wire)
{
    return v.brake_polarity == BW_RBSM_BRAKE_ONE_ENGAGED ? wire != 0 : wire == 0;
}

int bw_rbsm_command_from(bw_rbsm_variant_t v, double rad, bool engaged, bw_rbsm_msg_t *msg)
{
    bw_rbsm_msg_init(msg, BW_RBSM_MID_MEGA_COMMAND);
    int rc = bw_rbsm_command_angle_from_rad(v, rad, &msg->angle);
    msg->brake = (uint8_t)bw_rbsm_brake_to_wire(v, engaged);
    msg->value = (int32_t)bw_rbsm_command_word(msg->angle, msg->brake, 0);
    return rc;
}
