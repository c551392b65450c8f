/*
 * The lobot low-level program on the iRobot Create Command Module: an
 * ATmega168 at 18.432 MHz. The program is src/robots/lobot/program.c, the
 * same step function the emulator runs; this file gives it the chip.
 *
 * Wiring, as the Command Module is built:
 *   USART0 (RXD PD0, TXD PD1), 57600 8N1: one USART for two ports. PB4 is
 *     the select line: high gives it to the USB port (the host), low to the
 *     Create's serial port (cargo bay connector). Bytes from the side not
 *     selected never reach the chip.
 *   PB5 in: the Create's power sense (high: on). PD7 out: its power toggle
 *     (a low-to-high edge switches the Create on or off).
 *   PD5 out: LED 1 (active low), lit while the program computes one step:
 *     its duty is the program's CPU load, and a probe on it measures a step.
 *   PD6 out: LED 2 (active low), lit while the USART is the host's.
 *   Timer 1 (CTC, /256, OCR1A 71): the millisecond clock.
 *
 * The loop: sleep until a byte comes or the program's next step is due;
 * hand the program the bytes received since the last step; send what it
 * says to the side selected when the step began, wait for the last bit to
 * leave, and only then move the select line if the program changed it
 * (bytes of the side left behind are dropped).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#include "botwire/lobot.h"

#define SELECT_USB _BV(PB4)
#define POWER_SENSE _BV(PB5)
#define POWER_TOGGLE _BV(PD7)
#define LED_BUSY _BV(PD5)
#define LED_HOST _BV(PD6)
#define UBRR_57600 19   /* 18.432 MHz / (16 * 20) = 57600 exactly */
#define RX_SIZE 64      /* 11 ms of bytes at 57600 baud; a group 6 reply is 52 */
#define WINDOW_MS 1500  /* the seed's window after READY */

static volatile uint32_t clock_ms;
static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head, rx_len;
static volatile uint16_t rx_overruns; /* bytes the buffer had no room for */

ISR(TIMER1_COMPA_vect) { clock_ms++; }

ISR(USART_RX_vect)
{
    uint8_t b = UDR0;
    if (rx_len < RX_SIZE) {
        rx_buf[(uint8_t)(rx_head + rx_len) % RX_SIZE] = b;
        rx_len++;
    } else {
        rx_overruns++;
    }
}

static uint32_t now_ms(void)
{
    cli();
    uint32_t t = clock_ms;
    sei();
    return t;
}

/* Takes the bytes received so far (interrupts off while it copies). */
static uint8_t take(uint8_t *out)
{
    cli();
    uint8_t n = rx_len;
    for (uint8_t i = 0; i < n; i++)
        out[i] = rx_buf[(uint8_t)(rx_head + i) % RX_SIZE];
    rx_head = (uint8_t)((rx_head + n) % RX_SIZE);
    rx_len = 0;
    sei();
    return n;
}

static void drop_received(void)
{
    cli();
    rx_len = 0;
    sei();
}

static void send(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        while (!(UCSR0A & _BV(UDRE0)))
            ;
        UCSR0A |= _BV(TXC0); /* cleared by writing one: set again when this byte is out */
        UDR0 = b[i];
    }
    if (n)
        while (!(UCSR0A & _BV(TXC0)))
            ;
}

static void select_host(bool usb)
{
    if (usb) {
        PORTB |= SELECT_USB;
        PORTD &= (uint8_t)~LED_HOST;
    } else {
        PORTB &= (uint8_t)~SELECT_USB;
        PORTD |= LED_HOST;
    }
}

static void wait_ms(uint32_t ms)
{
    uint32_t until = now_ms() + ms;
    while ((int32_t)(now_ms() - until) < 0)
        ;
}

/* The Create off: a low-to-high edge on its power toggle, until it is on,
 * then the time it takes to start. */
static void power_on_create(void)
{
    if (PINB & POWER_SENSE)
        return;
    while (!(PINB & POWER_SENSE)) {
        PORTD &= (uint8_t)~POWER_TOGGLE;
        wait_ms(500);
        PORTD |= POWER_TOGGLE;
        wait_ms(100);
        PORTD &= (uint8_t)~POWER_TOGGLE;
    }
    wait_ms(3500);
}

static void setup(void)
{
    /* Levels first, then directions: no pin glitches as it becomes an output. */
    PORTB = (uint8_t)~(SELECT_USB | POWER_SENSE); /* pull-ups on the unused inputs */
    DDRB = SELECT_USB;           /* PB5 (power sense) and the rest: inputs */
    PORTD = LED_BUSY | LED_HOST; /* LEDs off, toggle low */
    DDRD = POWER_TOGGLE | LED_BUSY | LED_HOST | _BV(PD1);
    TCCR1A = 0;
    TCCR1B = _BV(WGM12) | _BV(CS12); /* CTC, clk/256: 72 000 Hz */
    OCR1A = 71;                      /* 1000 Hz */
    TIMSK1 = _BV(OCIE1A);
    UBRR0 = UBRR_57600;
    UCSR0A = 0;
    UCSR0B = _BV(RXCIE0) | _BV(RXEN0) | _BV(TXEN0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8N1 */
    SMCR = 0; /* sleep mode: idle (the timer and the USART wake it) */
    sei();
}

int main(void)
{
    static bw_lobot_cm_t cm;
    static uint8_t rx[RX_SIZE], tx[64];
    setup();
    power_on_create();
    bw_lobot_cm_config_t cfg = { WINDOW_MS };
    bw_lobot_cm_init(&cm, &cfg, now_ms());
    select_host(cm.usb);
    for (;;) {
        /* Sleep until a byte or the next step; an interrupt wakes the chip
         * and the test is made again with interrupts off, so no wake-up is
         * missed between the test and the sleep. */
        cli();
        if (rx_len == 0 && (int32_t)(clock_ms - bw_lobot_cm_next_ms(&cm)) < 0) {
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
            continue;
        }
        sei();
        uint8_t n = take(rx);
        bool usb = cm.usb;
        uint32_t t = now_ms();
        PORTD &= (uint8_t)~LED_BUSY;
        __asm__ __volatile__("" ::: "memory"); /* the step stays between the LED's edges */
        size_t k = bw_lobot_cm_step(&cm, t, rx, n, tx, sizeof tx);
        __asm__ __volatile__("" ::: "memory");
        PORTD |= LED_BUSY;
        send(tx, k);
        if (cm.usb != usb) {
            select_host(cm.usb);
            drop_received();
        }
    }
}
