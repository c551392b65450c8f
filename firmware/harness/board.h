/* The harness's boards: a chip, its clock, and what its pins are wired to. */
#ifndef BOTWIRE_AVR_BOARD_H
#define BOTWIRE_AVR_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sim_avr.h>
#include <sim_irq.h>

#include "botwire/botwire.h"

typedef struct board board_t;

typedef struct {
    const board_t *board;
    avr_t *avr;
    bw_port_t *host;      /* the pty master, or the chip's end of a pair (--drive) */
    avr_irq_t *uart_in;
    uint8_t inq[4096];    /* bytes for the chip, waiting for room in its FIFO */
    size_t inq_head, inq_len;
    bool xoff;
    uint8_t outq[65536];  /* bytes for the host, waiting for room in the pty */
    size_t outq_head, outq_len;
    bool listening;       /* a client has the pty open (always, for an in-process driver) */
    uint64_t lost;        /* bytes the select line cut off */
    uint64_t overflow, host_dropped;
    /* The busy pin: cycles per loop. */
    bool in_loop;
    uint64_t busy_since, loops, cyc_min, cyc_max, cyc_sum;
    uint32_t static_end;  /* where the firmware's static data ends and the painted RAM begins */
    void *priv;           /* the board's own */
} harness_t;

struct board {
    const char *name, *mcu;
    const char *family;   /* botwire's driver for what the host sees ("lobot") */
    uint32_t hz;
    char uart;            /* '0' */
    char busy_port;       /* the pin lit while a loop computes */
    int busy_bit;
    bool busy_high;
    int (*init)(harness_t *h, const bw_device_options_t *opt, char *err, size_t errlen);
    void (*chip_byte)(harness_t *h, uint8_t b);   /* the UART sent b */
    void (*host_bytes)(harness_t *h, const uint8_t *b, size_t n);
    void (*step)(harness_t *h, double t);         /* the robot to simulated time t */
    void (*report)(harness_t *h);
    void (*destroy)(harness_t *h);
};

extern const board_t board_lobot_cm, board_rbsm_mega, board_base_kobuki, board_base_create2;
/* --wall X: a wall across the way X m ahead of a base's start (NAN: none). */
extern double harness_wall;
/* --cliff X: the floor ends X m ahead of a base's start (NAN: never). */
extern double harness_edge;

double harness_time(const harness_t *h);
void harness_to_chip(harness_t *h, const uint8_t *b, size_t n);
void harness_drop_to_chip(harness_t *h);
void harness_to_host(harness_t *h, const uint8_t *b, size_t n);
avr_irq_t *harness_pin(harness_t *h, char port, int bit);

#endif
