/* A wheel's PI speed loop (wheels.h). */
#include "wheels.h"

void bw_wheel_init(bw_wheel_t *w, int32_t kp, int32_t ki, int32_t accel_per_s2, int16_t pwm_max,
                   uint16_t hz, uint16_t count)
{
    *w = (bw_wheel_t){ .kp = kp, .ki = ki, .pwm_max = pwm_max, .hz = hz ? hz : 1, .last = count };
    w->accel = accel_per_s2 / w->hz;
    if (w->accel < 1)
        w->accel = 1;
}

void bw_wheel_set(bw_wheel_t *w, int32_t counts_per_s, bool now)
{
    w->target = counts_per_s;
    if (now && counts_per_s == 0) {
        w->aim = 0;
        w->integral = 0;
    }
}

static int32_t clamp(int32_t x, int32_t lo, int32_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

int16_t bw_wheel_step(bw_wheel_t *w, uint16_t count)
{
    int16_t moved = (int16_t)(uint16_t)(count - w->last); /* the 16-bit wrap */
    w->last = count;
    w->speed = (int32_t)moved * w->hz;
    w->aim += clamp(w->target - w->aim, -w->accel, w->accel);
    int32_t error = w->aim - w->speed;
    int32_t limit = (int32_t)w->pwm_max * 256;
    /* The integral, taken back where the output would pass its limit (a
     * held wheel: what it gathers then would throw the wheel past the
     * speed once it is free). */
    w->integral += w->ki * error;
    int32_t out = w->kp * error + w->integral;
    if (out > limit)
        w->integral -= out - limit;
    else if (out < -limit)
        w->integral -= out + limit;
    w->integral = clamp(w->integral, -limit, limit);
    out = clamp(w->kp * error + w->integral, -limit, limit);
    if (w->aim == 0 && w->target == 0 && w->speed == 0) {
        /* at rest: nothing held against a wheel that is not asked to move */
        w->integral = 0;
        out = 0;
    }
    w->pwm = (int16_t)(out / 256);
    return w->pwm;
}
