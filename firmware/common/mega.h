/*
 * The Arduino Mega 2560's chip as botwire's Mega firmwares use it
 * (firmware/rbsm-mega, firmware/base): the millisecond clock, the host's
 * USART0 with a ring each way, the ADC, and the wait between periods.
 *
 *   Timer 0 (CTC, /64, OCR0A F_CPU/64000 - 1): the millisecond clock.
 *   USART0 (the Mega's USB port) [D0, D1], 8N1: bytes in go to a 64-byte
 *     ring by interrupt (one more is an overrun, as the UART's own, which
 *     the protocol's parser counts); bytes out leave a 256-byte ring by
 *     interrupt, so a period never waits for the line.
 *   The ADC at F_CPU/128 (125 kHz at 16 MHz), AVcc reference.
 *   Sleep mode idle: the timer and the USART wake the chip.
 */
#ifndef FIRMWARE_COMMON_MEGA_H
#define FIRMWARE_COMMON_MEGA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Starts the clock, the ADC and USART0 at UBRR ubrr (with U2X, the
 * double rate, when u2x), then enables interrupts: the last of a
 * firmware's setup. */
void mega_start(uint16_t ubrr, bool u2x);

/* Milliseconds since mega_start, read whole. */
uint32_t mega_now_ms(void);

/* Queues bytes for the host, waiting for room while the ring is full. */
void mega_send(const uint8_t *b, size_t n);

/* The next byte from the host into *b; false when none is waiting. */
bool mega_received(uint8_t *b);

/* Sleeps until a byte from the host is waiting or the clock reaches due
 * (at once if either holds already). */
void mega_sleep_until(uint32_t due);

/* Whether the period that ends at *due has come: if so, *now is the time
 * and *due moves on by period ms, or to period ms after now when the
 * firmware fell behind (no burst of periods to catch up). */
bool mega_due(uint32_t *due, uint16_t period, uint32_t *now);

/* One conversion of ADC channel 0..7, 0..1023 over 0..AVcc. */
uint16_t mega_adc(uint8_t channel);

#endif
