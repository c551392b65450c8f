/* The Create's sensors for a host: state and odometry (host.h). */
#include "host.h"

#include <math.h>
#include <stdio.h>

/* The wheel speeds (mm/s) the packet says were asked for: Drive Direct's,
 * or a Drive's by the OI's radius rules. */
static void requested(const bw_create_sensors_t *s, double *left, double *right)
{
    if (s->requested_right_speed || s->requested_left_speed) {
        *left = s->requested_left_speed;
        *right = s->requested_right_speed;
        return;
    }
    double v = s->requested_speed, r = s->requested_radius;
    double half = BW_CREATE_WHEELBASE_M * 1000 / 2;
    if (s->requested_radius == BW_CREATE_RADIUS_STRAIGHT ||
        s->requested_radius == BW_CREATE_RADIUS_STRAIGHT_ALT || r == 0) {
        *left = *right = v;
    } else if (s->requested_radius == BW_CREATE_RADIUS_CCW || s->requested_radius == BW_CREATE_RADIUS_CW) {
        *right = s->requested_radius == BW_CREATE_RADIUS_CCW ? v : -v;
        *left = -*right;
    } else {
        *right = v * (r + half) / r;
        *left = v * (r - half) / r;
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
        dist = within((l_mm + r_mm) / 2, s->distance);
        angle = within((r_mm - l_mm) / (BW_CREATE_WHEELBASE_M * 1000) * 180 / BW_PI, s->angle);
    }
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
    st->battery = s->voltage / 1000.0;
    st->battery_current = s->current / 1000.0;
    st->battery_charge = s->battery_charge / 1000.0;
    st->battery_capacity = s->battery_capacity / 1000.0;
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
    static const char *const modes[] = { "off", "passive", "safe", "full" };
    snprintf(st->mode, sizeof st->mode, "%s", s->oi_mode < 4 ? modes[s->oi_mode] : "?");
}
