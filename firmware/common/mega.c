/* The Arduino Mega 2560's clock, USART0, ADC and sleep (mega.h). */
#include "mega.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

static volatile uint32_t clock_ms;
static volatile uint8_t rx_buf[64];
static volatile uint8_t rx_head, rx_len;
static volatile uint8_t tx_buf[256];
static volatile uint8_t tx_head;
static volatile uint16_t tx_len; /* 0..256 */

ISR(TIMER0_COMPA_vect) { clock_ms++; }

ISR(USART0_RX_vect)
{
    uint8_t b = UDR0;
    if (rx_len < sizeof rx_buf) {
        rx_buf[(uint8_t)(rx_head + rx_len) % sizeof rx_buf] = b;
        rx_len++;
    }
    /* else: an overrun, as the UART's own; the protocol's parser counts
     * what it misses */
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

void mega_start(uint16_t ubrr, bool u2x)
{
    TCCR0A = _BV(WGM01);            /* CTC */
    TCCR0B = _BV(CS01) | _BV(CS00); /* clk/64 */
    OCR0A = (uint8_t)(F_CPU / 64000UL - 1);
    TIMSK0 = _BV(OCIE0A);
    ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0); /* clk/128 */
    UCSR0A = u2x ? _BV(U2X0) : 0; /* first: a simulator takes the rate as UBRR0 is written */
    UBRR0 = ubrr;
    UCSR0B = _BV(RXCIE0) | _BV(RXEN0) | _BV(TXEN0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    SMCR = 0; /* sleep mode: idle */
    sei();
}

uint32_t mega_now_ms(void)
{
    cli();
    uint32_t x = clock_ms;
    sei();
    return x;
}

void mega_send(const uint8_t *b, size_t n)
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

bool mega_received(uint8_t *b)
{
    cli();
    bool any = rx_len != 0;
    if (any) {
        *b = rx_buf[rx_head];
        rx_head = (uint8_t)((rx_head + 1u) % sizeof rx_buf);
        rx_len--;
    }
    sei();
    return any;
}

void mega_sleep_until(uint32_t due)
{
    for (;;) {
        cli();
        if (rx_len != 0 || (int32_t)(clock_ms - due) >= 0)
            break;
        sleep_enable();
        sei(); /* the instruction after sei runs first: no wake-up is lost */
        sleep_cpu();
        sleep_disable();
    }
    sei();
}

bool mega_due(uint32_t *due, uint16_t period, uint32_t *now)
{
    uint32_t t = mega_now_ms();
    if ((int32_t)(t - *due) < 0)
        return false;
    *due += period;
    if ((int32_t)(t - *due) >= 0)
        *due = t + period;
    *now = t;
    return true;
}

uint16_t mega_adc(uint8_t channel)
{
    ADMUX = (uint8_t)(_BV(REFS0) | channel); /* AVcc reference */
    ADCSRA |= _BV(ADSC);
    while (ADCSRA & _BV(ADSC))
        ;
    return ADC;
}
