/*
 * Between the base firmware's chip layer (main.c) and the protocol it
 * speaks, chosen at build time (kobuki.c or create2.c): what the sensors
 * read in, the wheel speeds out. The protocol side is the family's own
 * device code from src/robots/; these files only translate units.
 */
#ifndef BOTWIRE_BASE_PROTO_H
#define BOTWIRE_BASE_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sensor bits, as base_sense_t holds them. */
#define BASE_RIGHT 1u
#define BASE_CENTRE 2u
#define BASE_LEFT 4u

typedef struct {
    uint32_t now_ms;      /* milliseconds since reset */
    int32_t count[2];     /* encoder counts since reset, left and right, forward positive */
    int16_t pwm[2];       /* the drive applied, -BASE_PWM_TOP..BASE_PWM_TOP */
    uint8_t bumper;       /* BASE_RIGHT | BASE_CENTRE | BASE_LEFT, pressed */
    uint8_t cliff;        /* the same, no floor under the sensor */
    uint8_t wheel_drop;   /* BASE_RIGHT | BASE_LEFT, the wheel hangs */
    uint16_t battery_mv;
} base_sense_t;

/* The speeds a protocol asks of the wheels. */
typedef struct {
    int32_t mm_s[2];      /* left, right */
    bool halt;            /* stop at once, no ramp (a timeout, a safety stop) */
} base_wheels_t;

void base_proto_init(uint32_t now_ms);
/* One byte from the host. */
void base_proto_byte(uint8_t b, uint32_t now_ms);
/* One control period (BASE_LOOP_HZ): the protocol's timers, and its
 * messages to the host when they are due (through base_send). */
void base_proto_tick(const base_sense_t *s);
void base_proto_wheels(base_wheels_t *w);

/* The chip layer's: queue bytes for the host. */
void base_send(const uint8_t *b, size_t n);

#endif
