/*
 * The RoboBuggy's Mega side of RBSM on an Arduino Mega 2560 (ATmega2560,
 * 16 MHz). The program is src/robots/rbsm/program.c, the same code the
 * emulator runs; this file gives it the chip.
 *
 * Wiring (Arduino pin names in brackets):
 *   USART0 (the Mega's USB port) [D0, D1]: the host, RBSM at 76800 8N1
 *     (U2X, UBRR 25: 76923 baud, 0.2 % fast).
 *   PB5, OC1A [D11] out: the steering servo, a pulse every 20 ms, 1.5 ms
 *     centred, +-0.5 ms at +-BW_RBSM_STEER_LIMIT_DEG.
 *   ADC1 [A1]: the steering potentiometer, 0..5 V over -30..+30 degrees.
 *   ADC0 [A0]: the battery through a 3:1 divider (12.6 V reads 4.2 V).
 *   PA0 [D22] out: the brake relay, high releases the brake (so a Mega
 *     without power, or reset, leaves the brake down).
 *   PA1 [D23] in, pulled up: the RC receiver's auton switch, low when the
 *     operator drives. PA2 [D24] in, pulled up: low while the operator
 *     holds the brake down.
 *   PD0, INT0 [D21] in: the drive encoder (push-pull, no pull-up), one
 *     rising edge per tick.
 *   PB7 [D13] out: the Mega's LED, lit while a loop computes (its duty is
 *     the CPU load; a probe on it measures a loop).
 *   Timer 0: the millisecond clock (../common/mega.h).
 *
 * Every 10 ms: read the switches, run the watchdog, set the servo and the
 * brake, read the potentiometer, the battery and the encoder, queue the
 * telemetry; between loops, obey each message as it comes. The clock, the
 * host's USART0 and the ADC are the Mega's, as every Mega firmware here has
 * them (../common/mega.h): output leaves a ring by interrupt, so a loop
 * never waits for the line.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "../common/mega.h"
#include "botwire/rbsm.h"

#define SERVO _BV(PB5)
#define LED _BV(PB7)
#define BRAKE_RELEASE _BV(PA0)
#define AUTON_SWITCH _BV(PA1)
#define RC_BRAKE _BV(PA2)
#define UBRR_76800 25          /* with U2X: 16 MHz / (8 * 26) = 76923 baud */
#define SERVO_PERIOD 39999u    /* 20 ms in 0.5 us ticks */
#define SERVO_CENTRE 3000      /* 1.5 ms */
#define SERVO_SPAN 1000        /* ticks from centre to BW_RBSM_STEER_LIMIT_DEG */
#define POT_DEG 30             /* the potentiometer's half range, degrees */
#define STEER_LIMIT ((int32_t)BW_RBSM_STEER_LIMIT_DEG)

static volatile uint32_t enc_ticks;

ISR(INT0_vect) { enc_ticks++; }

static uint32_t atomic32(volatile uint32_t *v)
{
    cli();
    uint32_t x = *v;
    sei();
    return x;
}

static void setup(void)
{
    /* Levels first, then directions: the brake stays down throughout. */
    PORTA = AUTON_SWITCH | RC_BRAKE; /* pull-ups; relay off: braked */
    DDRA = BRAKE_RELEASE;
    PORTB = 0;
    DDRB = SERVO | LED;
    /* PD0: the encoder drives it both ways; no pull-up */
    TCCR1A = _BV(COM1A1) | _BV(WGM11);            /* OC1A: clear on match, set at bottom */
    TCCR1B = _BV(WGM13) | _BV(WGM12) | _BV(CS11); /* fast PWM, TOP ICR1, clk/8 */
    ICR1 = SERVO_PERIOD;
    OCR1A = SERVO_CENTRE;
    EICRA = _BV(ISC01) | _BV(ISC00); /* INT0 on a rising edge */
    EIMSK = _BV(INT0);
    mega_start(UBRR_76800, true); /* the clock, the ADC, the host; interrupts on */
}

/* Wire steering units to a servo pulse, and a potentiometer reading back. */
static uint16_t servo_ticks(int32_t wire, int32_t per_degree)
{
    int32_t t = SERVO_CENTRE + wire * SERVO_SPAN / (STEER_LIMIT * per_degree);
    return (uint16_t)(t < SERVO_CENTRE - 2 * SERVO_SPAN   ? SERVO_CENTRE - 2 * SERVO_SPAN
                      : t > SERVO_CENTRE + 2 * SERVO_SPAN ? SERVO_CENTRE + 2 * SERVO_SPAN
                                                          : t);
}

/* 0 and 1023 are the ends of the range, 511.5 the centre; rounded to the
 * nearest unit. */
static int32_t pot_wire(uint16_t reading, int32_t per_degree)
{
    int32_t num = (2 * (int32_t)reading - 1023) * POT_DEG * per_degree;
    return (num + (num < 0 ? -1023 / 2 : 1023 / 2)) / 1023;
}

int main(void)
{
    static bw_rbsm_mega_t mega;
    static bw_rbsm_parser_t parser;
    static uint8_t out[BW_RBSM_MEGA_REPORT_MAX];
    setup();
    bw_rbsm_parser_init(&parser);
    bw_rbsm_mega_init(&mega, false, 0);
    int32_t per_degree = bw_rbsm_steer_per_degree(mega.variant);
    uint32_t next_loop = BW_RBSM_MEGA_LOOP_MS;
    for (;;) {
        mega_sleep_until(next_loop);
        /* The host's messages, as they come. */
        uint8_t b;
        while (mega_received(&b)) {
            const uint8_t *p = &b;
            size_t n = 1;
            bw_rbsm_frame_t f;
            int rc;
            while ((rc = bw_rbsm_parse(&parser, &p, &n, &f)) != 0) {
                if (rc < 0) {
                    bw_rbsm_mega_stream_error(&mega);
                    continue;
                }
                size_t k;
                (void)bw_rbsm_mega_command(&mega, &f, mega_now_ms(), out, sizeof out, &k);
                mega_send(out, k);
            }
        }
        uint32_t now;
        if (!mega_due(&next_loop, BW_RBSM_MEGA_LOOP_MS, &now))
            continue;

        PORTB |= LED;
        __asm__ __volatile__("" ::: "memory"); /* the loop stays between the LED's edges */
        uint8_t pins = PINA;
        (void)bw_rbsm_mega_watch(&mega, now, !(pins & AUTON_SWITCH), !(pins & RC_BRAKE));
        uint16_t pulse = servo_ticks(bw_rbsm_mega_steer_target(&mega), per_degree);
        cli();
        OCR1A = pulse;
        sei();
        if (bw_rbsm_mega_brake_down(&mega))
            PORTA &= (uint8_t)~BRAKE_RELEASE;
        else
            PORTA |= BRAKE_RELEASE;
        bw_rbsm_mega_inputs_t in;
        in.steer_feedback = pot_wire(mega_adc(1), per_degree);
        in.battery_mv = (uint32_t)mega_adc(0) * 5000u * 3u / 1023u;
        in.enc_ticks = atomic32(&enc_ticks);
        size_t k = bw_rbsm_mega_report(&mega, now, &in, out, sizeof out);
        __asm__ __volatile__("" ::: "memory");
        PORTB &= (uint8_t)~LED;
        mega_send(out, k);
    }
}
