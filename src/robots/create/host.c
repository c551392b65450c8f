/* The Create's sensors for a host: state and odometry (host.h). */
#include "host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The wheel speeds (mm/s) the packet says were asked for: Drive Direct's,
 * or a Drive's by the OI's radius rules; within what the wheels do (a
 * request over 500 mm/s, which a command damaged on the way can make, is
 * driven at 500). */
static void requested(const bw_create_sensors_t *s, double *left, double *right)
{
    double top = BW_CREATE_MAX_SPEED;
    if (s->requested_right_speed || s->requested_left_speed) {
        *left = fmax(-top, fmin(top, s->requested_left_speed));
        *right = fmax(-top, fmin(top, s->requested_right_speed));
        return;
    }
    double v = fmax(-top, fmin(top, s->requested_speed));
    int16_t r = s->requested_radius;
    double half = BW_CREATE_WHEELBASE_M * 1000 / 2;
    if (r == BW_CREATE_RADIUS_STRAIGHT || r == BW_CREATE_RADIUS_STRAIGHT_ALT || r == 0) {
        *left = *right = v;
    } else if (r == BW_CREATE_RADIUS_CCW || r == BW_CREATE_RADIUS_CW) {
        *right = r == BW_CREATE_RADIUS_CCW ? v : -v;
        *left = -*right;
    } else {
        double rad = fmax(-BW_CREATE_MAX_RADIUS, fmin(BW_CREATE_MAX_RADIUS, r));
        *right = v * (rad + half) / rad;
        *left = v * (rad - half) / rad;
        double outer = fmax(fabs(*left), fabs(*right)); /* it sets the pace */
        if (outer > top) {
            *left *= top / outer;
            *right *= top / outer;
        }
    }
}

/* What the truncated count allows: [n, n+1) above zero, (n-1, n] below,
 * (-1, 1) at zero; the asked-for amount kept inside it. */
static double within(double asked, int16_t count)
{
    double lo = count > 0 ? count : count - 1 + 1e-9;
    double hi = count < 0 ? count : count + 1 - 1e-9;
    return asked < lo ? lo : asked > hi ? hi : asked;
}

/* The motion modelled, with what earlier counts' units cut off it, kept
 * within this count's unit; what this one cuts off is carried on, at most
 * a read's worth (or a unit) either way: a read is late or early by less
 * than a read's time, and more is a model that is wrong (a wheel held),
 * not a late read. */
static double carried(double *carry, double modelled, int16_t count)
{
    double asked = modelled + *carry, got = within(asked, count);
    double most = fmax(1, fabs(modelled));
    *carry = fmax(-most, fmin(most, asked - got));
    return got;
}

/* How far (mm) a wheel at speed *at goes in dt on its way to `to`, at
 * BW_CREATE_ACCEL; *at becomes its speed at the end. */
static double ramp(double *at, double to, double dt)
{
    double dv = to - *at, t = fabs(dv) / BW_CREATE_ACCEL; /* s to get there */
    double mm;
    if (t >= dt) {
        double end = *at + copysign(BW_CREATE_ACCEL * dt, dv);
        mm = (*at + end) / 2 * dt;
        *at = end;
    } else {
        mm = (*at + to) / 2 * t + to * (dt - t);
        *at = to;
    }
    return mm;
}

void bw_create_odometry(bw_create_odo_t *odo, bw_pose_t *pose, double *v, double *w,
                        const bw_create_sensors_t *s, double dt, bool exact, double spin_deg)
{
    double left, right;
    requested(s, &left, &right);
    double l_mm = ramp(&odo->left, left, dt), r_mm = ramp(&odo->right, right, dt);
    double dist = s->distance, angle = s->angle; /* mm, degrees */
    if (exact && !isnan(spin_deg)) {
        angle = within(spin_deg, s->angle);
    } else if (!exact) {
        dist = carried(&odo->carry_mm, (l_mm + r_mm) / 2, s->distance);
        angle = carried(&odo->carry_deg,
                        (r_mm - l_mm) / (BW_CREATE_WHEELBASE_M * 1000) * 180 / BW_PI, s->angle);
    }
    if (exact)
        odo->carry_mm = odo->carry_deg = 0;
    double ds = dist / 1000, dth = angle * BW_PI / 180;
    double mid = pose->theta + dth / 2;
    pose->x += ds * cos(mid);
    pose->y += ds * sin(mid);
    pose->theta = bw_angle_norm(pose->theta + dth);
    if (dt > 0) {
        *v = ds / dt;
        *w = dth / dt;
    }
}

bool bw_create_values_ok(const bw_create_sensors_t *s, const uint8_t *group6, uint8_t extra_bumps,
                         bool requests_in_range)
{
    const uint16_t signals[] = { s->wall_signal, s->cliff_left_signal, s->cliff_front_left_signal,
                                 s->cliff_front_right_signal, s->cliff_right_signal };
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        if (signals[i] > 4095)
            return false;
    int16_t r = s->requested_radius;
    bool radius_ok = r == BW_CREATE_RADIUS_STRAIGHT || r == BW_CREATE_RADIUS_STRAIGHT_ALT ||
                     (r >= -BW_CREATE_MAX_RADIUS && r <= BW_CREATE_MAX_RADIUS);
    return (s->bumps_wheel_drops & ~(0x1Fu | extra_bumps)) == 0 && s->wall <= 1 &&
           s->cliff_left <= 1 && s->cliff_front_left <= 1 && s->cliff_front_right <= 1 &&
           s->cliff_right <= 1 && s->virtual_wall <= 1 && (s->lsd_wheel_oc & ~0x1Fu) == 0 &&
           (s->buttons & ~(unsigned)(BW_CREATE_BUTTON_PLAY | BW_CREATE_BUTTON_ADVANCE)) == 0 &&
           s->charging_state <= BW_CREATE_CHARGING_FAULT &&
           (s->cargo_bay_digital_inputs & ~0x1Fu) == 0 && s->cargo_bay_analog_signal <= 1023 &&
           (s->charging_sources & ~(unsigned)(BW_CREATE_SOURCE_INTERNAL |
                                              BW_CREATE_SOURCE_HOME_BASE)) == 0 &&
           s->oi_mode <= BW_CREATE_MODE_FULL && s->song_number <= 15 && s->song_playing <= 1 &&
           s->num_stream_packets <= BW_CREATE_MAX_PACKETS &&
           (!requests_in_range ||
            (abs(s->requested_speed) <= BW_CREATE_MAX_SPEED && radius_ok &&
             abs(s->requested_right_speed) <= BW_CREATE_MAX_SPEED &&
             abs(s->requested_left_speed) <= BW_CREATE_MAX_SPEED)) &&
           (!group6 || (group6[8] == 0 && group6[9] == 0));
}

bool bw_create_battery_jump(const bw_create_sensors_t *last, const bw_create_sensors_t *s)
{
    return abs((int)s->voltage - (int)last->voltage) > 1000 ||
           abs((int)s->battery_charge - (int)last->battery_charge) > 200 ||
           abs((int)s->battery_temp - (int)last->battery_temp) > 5;
}

/* The least and most of three values. */
static void hull3(double a, double b, double c, double *lo, double *hi)
{
    *lo = fmin(a, fmin(b, c));
    *hi = fmax(a, fmax(b, c));
}

/* Whether a count of a quantity whose rate lies in [rlo, rhi] over dt,
 * give or take slack seconds and `spare` of a unit, can be what it is: its
 * true value in [lo, hi], truncated toward zero. 0: it can; 1: it is beyond
 * (more motion, or the other way); -1: nearer zero (less motion). */
static int count_check(int16_t count, double rlo, double rhi, double dt, double slack, double spare)
{
    double lo = fmin(rlo * (dt - slack), rlo * (dt + slack)) - spare;
    double hi = fmax(rhi * (dt - slack), rhi * (dt + slack)) + spare;
    double tl = trunc(lo), th = trunc(hi);
    if (count >= tl && count <= th)
        return 0;
    if (count > th)
        return th < 0 && count <= 0 ? -1 : 1;
    return tl > 0 && count >= 0 ? -1 : 1;
}

int bw_create_motion_check(const bw_create_odo_t *odo, const bw_create_sensors_t *last,
                           const bw_create_sensors_t *s, double dt, double slack, bool own_moves)
{
    /* The wheels' sum and difference (mm/s): both wheels change speed at
     * the same rate, so each goes from where the model has it toward what
     * is requested (the report before, or this one) and stays between. */
    double sum_lo, sum_hi, diff_lo, diff_hi;
    if (own_moves) {
        sum_lo = diff_lo = -2 * BW_CREATE_MAX_SPEED;
        sum_hi = diff_hi = 2 * BW_CREATE_MAX_SPEED;
    } else {
        double l1, r1, l2, r2;
        requested(s, &l2, &r2);
        if (last)
            requested(last, &l1, &r1);
        else
            l1 = l2, r1 = r2;
        hull3(odo->left + odo->right, l1 + r1, l2 + r2, &sum_lo, &sum_hi);
        hull3(odo->right - odo->left, r1 - l1, r2 - l2, &diff_lo, &diff_hi);
    }
    double deg = 180 / BW_PI / (BW_CREATE_WHEELBASE_M * 1000);
    int d = count_check(s->distance, sum_lo / 2, sum_hi / 2, dt, slack, 0.3);
    int a = count_check(s->angle, diff_lo * deg, diff_hi * deg, dt, slack, 0.3);
    if (own_moves) /* any less: a move the program cut short */
        return d > 0 || a > 0 ? 1 : 0;
    return d > 0 || a > 0 ? 1 : d < 0 || a < 0 ? -1 : 0;
}

void bw_create_estimate(bw_create_odo_t *odo, bw_pose_t *pose, double *v, double *w,
                        const bw_create_sensors_t *req, double t, double step)
{
    odo->carry_mm = odo->carry_deg = 0;
    double left, right;
    requested(req, &left, &right);
    while (t > 1e-9) {
        double dt = fmin(step, t);
        t -= dt;
        double l_mm = ramp(&odo->left, left, dt), r_mm = ramp(&odo->right, right, dt);
        double ds = (l_mm + r_mm) / 2000, dth = (r_mm - l_mm) / (BW_CREATE_WHEELBASE_M * 1000);
        double mid = pose->theta + dth / 2;
        pose->x += ds * cos(mid);
        pose->y += ds * sin(mid);
        pose->theta = bw_angle_norm(pose->theta + dth);
        *v = ds / dt;
        *w = dth / dt;
    }
}

void bw_create_to_state(bw_base_state_t *st, const bw_create_sensors_t *s, uint32_t rear)
{
    uint8_t b = s->bumps_wheel_drops;
    st->bumpers = ((b & BW_CREATE_BUMP_LEFT) ? BW_BUMP_FRONT_LEFT : 0u) |
                  ((b & BW_CREATE_BUMP_RIGHT) ? BW_BUMP_FRONT_RIGHT : 0u) | rear;
    st->cliffs = (s->cliff_left ? BW_CLIFF_LEFT : 0u) |
                 (s->cliff_front_left ? BW_CLIFF_FRONT_LEFT : 0u) |
                 (s->cliff_front_right ? BW_CLIFF_FRONT_RIGHT : 0u) |
                 (s->cliff_right ? BW_CLIFF_RIGHT : 0u);
    st->wheel_drops = ((b & BW_CREATE_WHEEL_DROP_LEFT) ? BW_DROP_LEFT : 0u) |
                      ((b & BW_CREATE_WHEEL_DROP_RIGHT) ? BW_DROP_RIGHT : 0u) |
                      ((b & BW_CREATE_WHEEL_DROP_CASTER) ? BW_DROP_CASTER : 0u);
    st->buttons = s->buttons;
    st->stalled = (s->lsd_wheel_oc & (BW_CREATE_OC_LEFT_WHEEL | BW_CREATE_OC_RIGHT_WHEEL)) != 0;
    st->battery = s->voltage / 1000.0;
    st->battery_current = s->current / 1000.0;
    st->battery_charge = s->battery_charge / 1000.0;
    st->battery_capacity = s->battery_capacity / 1000.0;
    st->battery_fraction = s->battery_capacity > 0
                               ? fmin(1, (double)s->battery_charge / s->battery_capacity)
                               : 0;
    st->battery_temp = s->battery_temp;
    st->charge_sources = ((s->charging_sources & BW_CREATE_SOURCE_INTERNAL) ? BW_SOURCE_INTERNAL : 0u) |
                         ((s->charging_sources & BW_CREATE_SOURCE_HOME_BASE) ? BW_SOURCE_DOCK : 0u);
    switch (s->charging_state) {
    case BW_CREATE_CHARGING_NOT: st->charging = BW_CHARGE_DISCHARGING; break;
    case BW_CREATE_CHARGING_TRICKLE:
    case BW_CREATE_CHARGING_WAITING: st->charging = BW_CHARGE_CHARGED; break;
    case BW_CREATE_CHARGING_RECONDITIONING:
    case BW_CREATE_CHARGING_FULL: st->charging = BW_CHARGE_CHARGING; break;
    default: st->charging = BW_CHARGE_UNKNOWN; break;
    }
    /* A Home Base's characters: a Create 1's 240 + red 8, green 4, force
     * field 2 on its omnidirectional receiver; a Create 2's 160 + red 8,
     * green 4, force field 1 on it and on its left and right ones. */
    const uint8_t heard[3] = { s->infrared_byte, s->infrared_left, s->infrared_right };
    for (int i = 0; i < 3; i++) {
        uint8_t c = heard[i];
        bool one = (c & 0xF0) == BW_CREATE_IR_HOME_RESERVED && c != BW_CREATE_IR_NONE;
        bool two = (c & 0xF0) == BW_CREATE2_IR_DOCK_RESERVED;
        st->buoys[i] = (uint8_t)(!(one || two) ? 0
                                 : ((c & 8) ? BW_BUOY_RED : 0u) | ((c & 4) ? BW_BUOY_GREEN : 0u) |
                                       ((c & (one ? 2 : 1)) ? BW_BUOY_FORCE_FIELD : 0u));
    }
    static const char *const modes[] = { "off", "passive", "safe", "full" };
    snprintf(st->mode, sizeof st->mode, "%s", s->oi_mode < 4 ? modes[s->oi_mode] : "?");
}
