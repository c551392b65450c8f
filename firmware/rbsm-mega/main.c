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
 *   Timer 0 (CTC, /64, OCR0A 249): the millisecond clock.
 *
 * Every 10 ms: read the switches, run the watchdog, set the servo and the
 * brake, read the potentiometer, the battery and the encoder, queue the
 * telemetry; between loops, obey each message as it comes. Output goes out
 * of a 256-byte ring by interrupt, so a loop never waits for the line.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

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

static volatile uint32_t clock_ms;
static volatile uint32_t enc_ticks;
static volatile uint8_t rx_buf[64];
static volatile uint8_t rx_head, rx_len;
static volatile uint8_t tx_buf[256];
static volatile uint8_t tx_head;
static volatile uint16_t tx_len; /* 0..256 */

ISR(TIMER0_COMPA_vect) { clock_ms++; }
ISR(INT0_vect) { enc_ticks++; }

ISR(USART0_RX_vect)
{
    uint8_t b = UDR0;
    if (rx_len < sizeof rx_buf) {
        rx_buf[(uint8_t)(rx_head + rx_len) % sizeof rx_buf] = b;
        rx_len++;
    }
    /* else: an overrun, as the UART's own; the parser counts what it misses */
}

ISR(USART0_UDRE_vect)
{
    if (tx_len) {
        UDR0 = tx_buf[tx_head++]; /* uint8_t wraps at 256 */
        tx_len--;
    } else {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
    }
}

static uint32_t atomic32(volatile uint32_t *v)
{
    cli();
    uint32_t x = *v;
    sei();
    return x;
}

/* Queues bytes for the host, waiting for room if the ring is full. */
static void send(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n;) {
        cli();
        if (tx_len < sizeof tx_buf) {
            tx_buf[(uint8_t)(tx_head + tx_len)] = b[i++];
            tx_len++;
            UCSR0B |= _BV(UDRIE0);
        }
        sei();
    }
}

static uint16_t adc(uint8_t channel)
{
    ADMUX = (uint8_t)(_BV(REFS0) | channel); /* AVcc reference */
    ADCSRA |= _BV(ADSC);
    while (ADCSRA & _BV(ADSC))
        ;
    return ADC;
}

static void setup(void)
{
    /* Levels first, then directions: the brake stays down throughout. */
    PORTA = AUTON_SWITCH | RC_BRAKE; /* pull-ups; relay off: braked */
    DDRA = BRAKE_RELEASE;
    PORTB = 0;
    DDRB = SERVO | LED;
    /* PD0: the encoder drives it both ways; no pull-up */
    TCCR0A = _BV(WGM01);              /* CTC */
    TCCR0B = _BV(CS01) | _BV(CS00);   /* clk/64: 250 kHz */
    OCR0A = 249;                      /* 1 kHz */
    TIMSK0 = _BV(OCIE0A);
    TCCR1A = _BV(COM1A1) | _BV(WGM11);            /* OC1A: clear on match, set at bottom */
    TCCR1B = _BV(WGM13) | _BV(WGM12) | _BV(CS11); /* fast PWM, TOP ICR1, clk/8 */
    ICR1 = SERVO_PERIOD;
    OCR1A = SERVO_CENTRE;
    EICRA = _BV(ISC01) | _BV(ISC00); /* INT0 on a rising edge */
    EIMSK = _BV(INT0);
    ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0); /* 125 kHz */
    UBRR0 = UBRR_76800;
    UCSR0A = _BV(U2X0);
    UCSR0B = _BV(RXCIE0) | _BV(RXEN0) | _BV(TXEN0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    SMCR = 0; /* sleep mode: idle (the timer and the USART wake it) */
    sei();
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
        cli();
        if (rx_len == 0 && (int32_t)(clock_ms - next_loop) < 0) {
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
            continue;
        }
        sei();
        /* The host's messages, as they come. */
        while (rx_len) {
            cli();
            uint8_t b = rx_buf[rx_head];
            rx_head = (uint8_t)((rx_head + 1u) % sizeof rx_buf);
            rx_len--;
            sei();
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
                (void)bw_rbsm_mega_command(&mega, &f, atomic32(&clock_ms), out, sizeof out, &k);
                send(out, k);
            }
        }
        uint32_t now = atomic32(&clock_ms);
        if ((int32_t)(now - next_loop) < 0)
            continue;
        next_loop += BW_RBSM_MEGA_LOOP_MS;
        if ((int32_t)(now - next_loop) >= 0)
            next_loop = now + BW_RBSM_MEGA_LOOP_MS; /* fell behind: no burst to catch up */

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
        in.steer_feedback = pot_wire(adc(1), per_degree);
        in.battery_mv = (uint32_t)adc(0) * 5000u * 3u / 1023u;
        in.enc_ticks = atomic32(&enc_ticks);
        size_t k = bw_rbsm_mega_report(&mega, now, &in, out, sizeof out);
        __asm__ __volatile__("" ::: "memory");
        PORTB &= (uint8_t)~LED;
        send(out, k);
    }
}
