/* What a firmware author links for one family's device side: the parser
 * for what the host sends, the decoder, the encoder of what the robot
 * answers. Each stub reads bytes from a register and writes its answer to
 * another, so nothing is optimised away; linked with --gc-sections its size
 * is the figure the firmware pays. Not a program to run. */
#ifndef BW_FIRMWARE_SIZE_COMMON_H
#define BW_FIRMWARE_SIZE_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Stand-ins for a UART's data registers. */
extern volatile uint8_t bw_size_rx, bw_size_tx, bw_size_ready;

static inline size_t size_read(uint8_t *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap && bw_size_ready)
        buf[n++] = bw_size_rx;
    return n;
}

static inline void size_write(const uint8_t *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bw_size_tx = buf[i];
}

#endif
