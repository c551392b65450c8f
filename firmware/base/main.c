/*
 * A home-built two-wheeled base on an Arduino Mega 2560 that answers as a
 * Kobuki or a Create 2 (PROTO at build time: kobuki.c or create2.c). This
 * file is the chip: the clock, the host's USART, the encoders, the motors,
 * the sensor pins; hardware.h says where each is wired.
 *
 * Every 10 ms (BASE_LOOP_HZ): read the encoders and the pins, run each
 * wheel's PI loop (wheels.c) towards the speed the protocol asks, set the
 * PWM and direction pins, and give the protocol its period (its timeout,
 * its messages to the host). Between periods, each byte from the host goes
 * to the protocol as it comes. The clock, the host's USART0 and the ADC
 * are the Mega's, as every Mega firmware here has them (../common/mega.h).
 */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "../common/mega.h"
#include "hardware.h"
#include "proto.h"
#include "wheels.h"

#define LED _BV(BASE_LED_BIT)
#define PERIOD_MS (1000 / BASE_LOOP_HZ)

static volatile int32_t enc[2];
static volatile uint8_t enc_state[2];

/* Quadrature, both edges of both channels: the step from the last state
 * (A << 1 | B) to this one, indexed old << 2 | new; forward is
 * 00 -> 10 -> 11 -> 01. A skipped state (both lines changed) counts 0. */
static const int8_t QUAD[16] = { 0, -1, 1, 0, 1, 0, 0, -1, -1, 0, 0, 1, 0, 1, -1, 0 };

static inline void edge(uint8_t wheel, uint8_t ab, int8_t sign)
{
    uint8_t old = enc_state[wheel];
    enc_state[wheel] = ab;
    enc[wheel] += sign * QUAD[(uint8_t)(old << 2 | ab)];
}

static inline uint8_t left_ab(void)
{
    uint8_t p = BASE_ENC_LEFT_PIN;
    return (uint8_t)((p >> BASE_ENC_LEFT_A_BIT & 1) << 1 | (p >> BASE_ENC_LEFT_B_BIT & 1));
}

static inline uint8_t right_ab(void)
{
    uint8_t p = BASE_ENC_RIGHT_PIN;
    return (uint8_t)((p >> BASE_ENC_RIGHT_A_BIT & 1) << 1 | (p >> BASE_ENC_RIGHT_B_BIT & 1));
}

ISR(INT4_vect) { edge(0, left_ab(), BASE_LEFT_ENCODER_REVERSED ? -1 : 1); }
ISR(INT5_vect, ISR_ALIASOF(INT4_vect));
ISR(INT2_vect) { edge(1, right_ab(), BASE_RIGHT_ENCODER_REVERSED ? -1 : 1); }
ISR(INT3_vect, ISR_ALIASOF(INT2_vect));

void base_send(const uint8_t *b, size_t n) { mega_send(b, n); }

static void setup(void)
{
    /* The motors off before their pins drive anything. */
    OCR4A = 0;
    OCR4B = 0;
    BASE_DIR_PORT &= (uint8_t)~(_BV(BASE_DIR_LEFT_BIT) | _BV(BASE_DIR_RIGHT_BIT));
    BASE_DIR_DDR |= _BV(BASE_DIR_LEFT_BIT) | _BV(BASE_DIR_RIGHT_BIT);
    BASE_PWM_DDR |= _BV(BASE_PWM_LEFT_BIT) | _BV(BASE_PWM_RIGHT_BIT);
    ICR4 = BASE_PWM_TOP;
    TCCR4A = _BV(COM4A1) | _BV(COM4B1) | _BV(WGM41);   /* clear on match, set at bottom */
    TCCR4B = _BV(WGM43) | _BV(WGM42) | _BV(CS40);      /* fast PWM, TOP ICR4, clk/1 */
    /* Bumpers and wheel drops switch to ground: pull-ups; the cliff
     * sensors drive their lines. */
    BASE_SENSE_PORT |= _BV(BASE_BUMP_RIGHT_BIT) | _BV(BASE_BUMP_CENTRE_BIT) | _BV(BASE_BUMP_LEFT_BIT) |
                       _BV(BASE_DROP_RIGHT_BIT) | _BV(BASE_DROP_LEFT_BIT);
    DDRB |= LED;
    /* The encoders: any edge of INT2..INT5; the lines as they stand now
     * are where counting starts. */
    EICRA = _BV(ISC20) | _BV(ISC30);
    EICRB = _BV(ISC40) | _BV(ISC50);
    enc_state[0] = left_ab();
    enc_state[1] = right_ab();
    EIFR = _BV(INTF2) | _BV(INTF3) | _BV(INTF4) | _BV(INTF5);
    EIMSK = _BV(INT2) | _BV(INT3) | _BV(INT4) | _BV(INT5);
    mega_start(BASE_UBRR_115200, true); /* the clock, the ADC, the host; interrupts on */
}

/* Millimetres of a wheel's rim to encoder counts (rounded to nearest). */
static int32_t counts(int32_t mm)
{
    /* counts per mm, times 2^16: a constant folded at compile time */
    static const int32_t per_mm_q16 =
        (int32_t)(BASE_COUNTS_PER_TURN * 65536.0 * 1000.0 / (3.14159265358979 * BASE_WHEEL_DIAMETER_UM) + 0.5);
    return (int32_t)(((int64_t)mm * per_mm_q16 + 32768) >> 16);
}

static int32_t clamp(int32_t x, int32_t limit) { return x > limit ? limit : x < -limit ? -limit : x; }

static void drive(int16_t left, int16_t right)
{
    if (BASE_LEFT_MOTOR_REVERSED)
        left = (int16_t)-left;
    if (BASE_RIGHT_MOTOR_REVERSED)
        right = (int16_t)-right;
    uint8_t dir = BASE_DIR_PORT & (uint8_t)~(_BV(BASE_DIR_LEFT_BIT) | _BV(BASE_DIR_RIGHT_BIT));
    if (left >= 0)
        dir |= _BV(BASE_DIR_LEFT_BIT);
    if (right >= 0)
        dir |= _BV(BASE_DIR_RIGHT_BIT);
    cli(); /* the pins and both 16-bit compare registers at one instant */
    BASE_DIR_PORT = dir;
    OCR4A = (uint16_t)(left < 0 ? -left : left);
    OCR4B = (uint16_t)(right < 0 ? -right : right);
    sei();
}

static uint8_t sensors(uint8_t pins, uint8_t r, uint8_t c, uint8_t l, uint8_t active)
{
    pins = (uint8_t)(active ? pins : ~pins);
    return (uint8_t)((pins >> r & 1 ? BASE_RIGHT : 0) | (pins >> c & 1 ? BASE_CENTRE : 0) |
                     (pins >> l & 1 ? BASE_LEFT : 0));
}

int main(void)
{
    static bw_wheel_t wheel[2];
    static base_sense_t s;
    setup();
    base_proto_init(0);
    for (uint8_t i = 0; i < 2; i++)
        bw_wheel_init(&wheel[i], BASE_KP, BASE_KI, counts(BASE_ACCEL_MM_S2), BASE_PWM_TOP, BASE_LOOP_HZ, 0);
    uint32_t next = PERIOD_MS;
    for (;;) {
        mega_sleep_until(next);
        uint8_t b;
        while (mega_received(&b))
            base_proto_byte(b, mega_now_ms());
        uint32_t now;
        if (!mega_due(&next, PERIOD_MS, &now))
            continue;

        PORTB |= LED;
        __asm__ __volatile__("" ::: "memory"); /* the period stays between the LED's edges */
        s.now_ms = now;
        cli();
        s.count[0] = enc[0];
        s.count[1] = enc[1];
        sei();
        uint8_t pins = BASE_SENSE_PIN;
        s.bumper = sensors(pins, BASE_BUMP_RIGHT_BIT, BASE_BUMP_CENTRE_BIT, BASE_BUMP_LEFT_BIT, 0);
        s.cliff = sensors(pins, BASE_CLIFF_RIGHT_BIT, BASE_CLIFF_CENTRE_BIT, BASE_CLIFF_LEFT_BIT, 1);
        s.wheel_drop = (uint8_t)(sensors(pins, BASE_DROP_RIGHT_BIT, BASE_DROP_RIGHT_BIT, BASE_DROP_LEFT_BIT, 0) &
                                 (BASE_RIGHT | BASE_LEFT));
        s.battery_mv = (uint16_t)((uint32_t)mega_adc(BASE_BATTERY_ADC) * 5000u * BASE_BATTERY_DIVIDER / 1023u);
        base_wheels_t want;
        base_proto_wheels(&want);
        for (uint8_t i = 0; i < 2; i++) {
            bw_wheel_set(&wheel[i], counts(clamp(want.mm_s[i], BASE_MAX_MM_S)), want.halt);
            s.pwm[i] = bw_wheel_step(&wheel[i], (uint16_t)s.count[i]);
        }
        drive(s.pwm[0], s.pwm[1]);
        base_proto_tick(&s);
        __asm__ __volatile__("" ::: "memory");
        PORTB &= (uint8_t)~LED;
    }
}
