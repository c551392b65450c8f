/*
 * A wheel's speed held by a PI loop on its encoder's counts, for the base
 * firmware's motors (firmware/base): integers only, one call per control
 * period (100 Hz or faster). The speed asked for is reached through an
 * acceleration limit; the integral is taken back where the output would
 * pass its limit (no wind-up when a wheel is held).
 * Units: counts of the wheel's encoder, counts per second, PWM steps.
 */
#ifndef BOTWIRE_FIRMWARE_WHEELS_H
#define BOTWIRE_FIRMWARE_WHEELS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    /* the loop: PWM = (kp * error + the integral of ki * error) / 256, for
     * an error in counts/s */
    int32_t kp, ki;
    int32_t accel;      /* counts/s the aim may change by in one period */
    int16_t pwm_max;    /* the output's limit, either way */
    uint16_t hz;        /* control periods a second */
    /* state */
    int32_t target;     /* counts/s asked for */
    int32_t aim;        /* counts/s the loop holds now: target through the limit */
    int32_t integral;   /* sum of ki * error, in PWM / 256 */
    int32_t speed;      /* counts/s measured over the last period */
    uint16_t last;      /* the encoder's count at the last period (16 bits, wrapping) */
    int16_t pwm;        /* the output of the last period */
} bw_wheel_t;

void bw_wheel_init(bw_wheel_t *w, int32_t kp, int32_t ki, int32_t accel_per_s2, int16_t pwm_max,
                   uint16_t hz, uint16_t count);
/* The speed to hold (counts/s); 0 with `now` true stops at once (a
 * timeout, a bump: no ramp down). */
void bw_wheel_set(bw_wheel_t *w, int32_t counts_per_s, bool now);
/* One control period: the encoder's count now; returns the PWM to apply. */
int16_t bw_wheel_step(bw_wheel_t *w, uint16_t count);

#endif
