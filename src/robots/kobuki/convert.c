/* Kobuki unit conversions: the only place where wire units meet SI. */
#include "botwire/kobuki.h"

/* The core avoids libm so it links on a bare microcontroller. */
static double absd(double x) { return x < 0 ? -x : x; }

static int16_t round_sat16(double x)
{
    if (x >= 32767.0)
        return INT16_MAX;
    if (x <= -32768.0)
        return INT16_MIN;
    return (int16_t)(x < 0 ? x - 0.5 : x + 0.5);
}

/* Below this, a velocity counts as zero (the reference driver's epsilon). */
#define EPS 1e-4
#define HALF_BASE_MM (BW_KOBUKI_WHEELBASE_M * 1000.0 / 2.0)

bw_kobuki_base_control_t bw_kobuki_base_control_from_twist(double v, double w)
{
    bw_kobuki_base_control_t bc;
    if (absd(w) < EPS) {
        bc.radius = 0;
        bc.speed = round_sat16(1000.0 * v);
        return bc;
    }
    double radius = 1000.0 * v / w;
    if (absd(v) < EPS || absd(radius) <= 1.0) {
        bc.radius = 1;
        bc.speed = round_sat16(HALF_BASE_MM * w);
        return bc;
    }
    /* speed = (R +/- b/2) w is the outer wheel's speed; written from v and w
     * directly it stays right when R itself saturates for a near-straight arc. */
    double outer = 1000.0 * v + (radius > 0 ? HALF_BASE_MM : -HALF_BASE_MM) * w;
    bc.radius = round_sat16(radius);
    if (bc.radius == 0 || bc.radius == 1 || bc.radius == -1)
        bc.radius = radius > 0 ? 2 : -2;
    bc.speed = round_sat16(outer);
    return bc;
}

void bw_kobuki_base_control_to_twist(bw_kobuki_base_control_t bc, double *v, double *w)
{
    if (bc.radius == 0) {
        *v = bc.speed / 1000.0;
        *w = 0.0;
    } else if (bc.radius == 1 || bc.radius == -1) {
        *v = 0.0;
        *w = bc.radius * bc.speed / HALF_BASE_MM;
    } else {
        double r = bc.radius;
        *w = bc.speed / (r + (r > 0 ? HALF_BASE_MM : -HALF_BASE_MM));
        *v = r * *w / 1000.0;
    }
}

void bw_kobuki_base_control_to_wheels(bw_kobuki_base_control_t bc, double *left_mm_s,
                                      double *right_mm_s)
{
    double v, w;
    bw_kobuki_base_control_to_twist(bc, &v, &w);
    *left_mm_s = 1000.0 * v - HALF_BASE_MM * w;
    *right_mm_s = 1000.0 * v + HALF_BASE_MM * w;
}

void bw_kobuki_gyro_to_dps(const int16_t raw[3], double dps[3])
{
    dps[0] = -BW_KOBUKI_GYRO_DPS_PER_DIGIT * raw[1];
    dps[1] = BW_KOBUKI_GYRO_DPS_PER_DIGIT * raw[0];
    dps[2] = BW_KOBUKI_GYRO_DPS_PER_DIGIT * raw[2];
}

uint16_t bw_kobuki_note_from_hz(double hz)
{
    if (!(hz > 0))
        return 0;
    double note = 1.0 / (hz * BW_KOBUKI_SOUND_NOTE_A);
    if (note >= 65535.0)
        return 0;
    return (uint16_t)(note + 0.5);
}

double bw_kobuki_note_to_hz(uint16_t note)
{
    return note ? 1.0 / (note * BW_KOBUKI_SOUND_NOTE_A) : 0.0;
}

bw_kobuki_version_t bw_kobuki_version_from_legacy(uint16_t v)
{
    bw_kobuki_version_t r;
    r.major = (uint16_t)(v / 100u);
    r.minor = (uint16_t)((v / 10u) % 10u);
    r.patch = (uint16_t)(v % 10u);
    r.legacy = true;
    return r;
}
