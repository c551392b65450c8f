/*
 * botwire-avr: a firmware ELF running in a simulated AVR (simavr), wired to
 * a pseudo-terminal for the host and to an emulated robot in botwire's
 * world, in real time: what `botwire sim` is for the emulators, with the
 * real firmware in the middle.
 *
 *   lobot-cm  an ATmega168 at 18.432 MHz, the Create Command Module: its one
 *             USART goes to the pty when PB4 is high and to an emulated
 *             Create when it is low, byte by byte as the pin stands when
 *             the byte leaves or arrives (bytes of the side not selected
 *             are lost and counted); PB5 reads the Create's power (on).
 *   rbsm-mega an ATmega2560 at 16 MHz, the RoboBuggy's Arduino Mega: USART0
 *             to the pty; the buggy's steering servo (a 1-2 ms pulse on
 *             PB5, OC1A), brake relay (PA0, high: released), RC switch
 *             (PA1, low: the operator drives), drive encoder (PD0, INT0,
 *             one edge per tick) and battery divider (ADC0) are the
 *             emulated buggy's (botwire's rbsm device in its chip model).
 *
 * The firmware lights a pin while it computes one loop (lobot-cm: PD5, LED
 * 1, active low; rbsm-mega: PB7, the Mega's LED, active high): those edges
 * are timed in simulated clock cycles and reported at the end.
 *
 * Test harness, not installed: simavr is GPL; botwire itself does not link it.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>

#include "botwire/botwire.h"
#include "board.h"

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double harness_time(const harness_t *h) { return (double)h->avr->cycle / h->avr->frequency; }

/* ---- the UART ---------------------------------------------------------------- */

/* Bytes for the chip wait here until its receive FIFO has room (XON). */
static void feed(harness_t *h)
{
    while (h->inq_len && !h->xoff) {
        uint8_t b = h->inq[h->inq_head];
        h->inq_head = (h->inq_head + 1) % sizeof h->inq;
        h->inq_len--;
        avr_raise_irq(h->uart_in, b);
    }
}

void harness_to_chip(harness_t *h, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (h->inq_len == sizeof h->inq) {
            h->overflow++;
            continue;
        }
        h->inq[(h->inq_head + h->inq_len) % sizeof h->inq] = b[i];
        h->inq_len++;
    }
    feed(h);
}

void harness_drop_to_chip(harness_t *h)
{
    h->lost += h->inq_len;
    h->inq_len = 0;
}

void harness_to_host(harness_t *h, const uint8_t *b, size_t n)
{
    int w = bw_port_write(h->host, b, n);
    if (w < (int)n)
        h->host_dropped += n - (size_t)(w > 0 ? w : 0);
}

static void on_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    harness_t *h = param;
    h->xoff = false;
    feed(h);
}

static void on_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    ((harness_t *)param)->xoff = true;
}

static void on_uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    harness_t *h = param;
    h->board->chip_byte(h, (uint8_t)value);
}

/* ---- the busy pin: cycles per loop --------------------------------------------- */

static void on_busy(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    harness_t *h = param;
    bool busy = (value != 0) == h->board->busy_high;
    if (busy) {
        h->busy_since = h->avr->cycle;
        h->in_loop = true;
    } else if (h->in_loop) {
        uint64_t c = h->avr->cycle - h->busy_since;
        h->in_loop = false;
        if (h->loops == 0 || c < h->cyc_min)
            h->cyc_min = c;
        if (c > h->cyc_max)
            h->cyc_max = c;
        h->cyc_sum += c;
        h->loops++;
    }
}

avr_irq_t *harness_pin(harness_t *h, char port, int bit)
{
    return avr_io_getirq(h->avr, (uint32_t)AVR_IOCTL_IOPORT_GETIRQ(port), bit);
}

/* ---- main --------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire-avr BOARD FIRMWARE.elf [--pty LINK] [--for SECONDS] [--world FILE]\n"
            "Runs a botwire firmware in a simulated AVR (simavr), in real time, its host\n"
            "UART on a new pseudo-terminal and its robot side on botwire's emulated robot.\n"
            "  BOARD          lobot-cm (ATmega168, 18.432 MHz, Command Module on a Create)\n"
            "                 rbsm-mega (ATmega2560, 16 MHz, the RoboBuggy's Mega)\n"
            "  --pty LINK     also name the pty's slave LINK (a symlink)\n"
            "  --for SECONDS  stop after this long (default: until SIGINT or SIGTERM)\n"
            "  --world FILE   the world the robot moves in (default: the family's own)\n"
            "The first line says where the host connects; at the end, the firmware's\n"
            "loop time in simulated cycles, the robot's true pose and the bytes lost.\n");
}

/* simavr's own messages: errors to stderr, the rest (its load notes) kept
 * off stdout, whose first line tells a client where to connect. */
static void avr_logger(avr_t *avr, const int level, const char *fmt, va_list ap)
{
    (void)avr;
    if (level <= LOG_ERROR) {
        fputs("botwire-avr: simavr: ", stderr);
        vfprintf(stderr, fmt, ap);
    }
}

static const board_t *boards[] = { &board_lobot_cm, &board_rbsm_mega };

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc < 3) {
        usage(stderr);
        return 2;
    }
    const board_t *board = NULL;
    for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++)
        if (!strcmp(argv[1], boards[i]->name))
            board = boards[i];
    if (!board) {
        fprintf(stderr, "botwire-avr: no board \"%s\" (lobot-cm, rbsm-mega)\n", argv[1]);
        return 2;
    }
    const char *elf = argv[2], *link = NULL, *world_file = NULL;
    double seconds = INFINITY;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--pty") && i + 1 < argc) {
            link = argv[++i];
        } else if (!strcmp(argv[i], "--world") && i + 1 < argc) {
            world_file = argv[++i];
        } else if (!strcmp(argv[i], "--for") && i + 1 < argc) {
            char *end;
            seconds = strtod(argv[++i], &end);
            if (*end || !(seconds > 0)) {
                fprintf(stderr, "botwire-avr: --for wants a positive number of seconds, not \"%s\"\n",
                        argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "botwire-avr: unknown argument \"%s\" (try --help)\n", argv[i]);
            return 2;
        }
    }

    avr_global_logger_set(avr_logger);
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw) != 0) {
        fprintf(stderr, "botwire-avr: cannot read the firmware %s\n", elf);
        return 1;
    }
    static harness_t hs;
    harness_t *h = &hs;
    h->board = board;
    h->avr = avr_make_mcu_by_name(board->mcu);
    if (!h->avr) {
        fprintf(stderr, "botwire-avr: simavr has no %s\n", board->mcu);
        return 1;
    }
    avr_init(h->avr);
    h->avr->log = LOG_ERROR;
    avr_load_firmware(h->avr, &fw);
    h->avr->frequency = board->hz;

    uint32_t flags = 0; /* no console echo, no sleeping while the firmware polls */
    avr_ioctl(h->avr, (uint32_t)AVR_IOCTL_UART_SET_FLAGS(board->uart), &flags);
    h->uart_in = avr_io_getirq(h->avr, (uint32_t)AVR_IOCTL_UART_GETIRQ(board->uart), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(h->avr, (uint32_t)AVR_IOCTL_UART_GETIRQ(board->uart), UART_IRQ_OUTPUT),
                            on_uart_out, h);
    avr_irq_register_notify(avr_io_getirq(h->avr, (uint32_t)AVR_IOCTL_UART_GETIRQ(board->uart), UART_IRQ_OUT_XON),
                            on_xon, h);
    avr_irq_register_notify(avr_io_getirq(h->avr, (uint32_t)AVR_IOCTL_UART_GETIRQ(board->uart), UART_IRQ_OUT_XOFF),
                            on_xoff, h);
    avr_irq_register_notify(harness_pin(h, board->busy_port, board->busy_bit), on_busy, h);

    static bw_world_t world;
    bw_device_options_t opt;
    bw_device_options_init(&opt);
    if (world_file) {
        char err[256];
        if (bw_world_load(&world, world_file, err, sizeof err) < 0) {
            fprintf(stderr, "botwire-avr: %s\n", err);
            return 1;
        }
        opt.world = &world;
    }
    char err[256];
    if (board->init(h, &opt, err, sizeof err) < 0) {
        fprintf(stderr, "botwire-avr: %s\n", err);
        return 1;
    }

    char slave[256];
    if (bw_pty_open(&h->host, slave, sizeof slave, link, err, sizeof err) < 0) {
        fprintf(stderr, "botwire-avr: %s\n", err);
        return 1;
    }
    printf("botwire-avr: %s on %s (%s at %.3f MHz, %s)\n", board->name, slave, board->mcu,
           board->hz / 1e6, elf);
    fflush(stdout);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);

    /* Real time: the chip runs until its clock catches up with the wall,
     * a millisecond of simulated time at most between looks at the host. */
    double start = wall();
    int status = 0;
    while (!stop_signal) {
        double now = wall() - start;
        if (now >= seconds)
            break;
        double t = harness_time(h), until = fmin(now, t + 0.001);
        while (harness_time(h) < until) {
            int st = avr_run(h->avr);
            if (st == cpu_Done || st == cpu_Crashed) {
                fprintf(stderr, "botwire-avr: the firmware %s at %.3f s\n",
                        st == cpu_Done ? "stopped" : "crashed", harness_time(h));
                status = 1;
                goto out;
            }
        }
        board->step(h, harness_time(h));
        uint8_t buf[256];
        int n = bw_port_read(h->host, buf, sizeof buf);
        if (n > 0)
            board->host_bytes(h, buf, (size_t)n);
        double ahead = harness_time(h) - (wall() - start);
        if (ahead > 0.0005) {
            struct pollfd p = { bw_port_fd(h->host), POLLIN, 0 };
            (void)poll(&p, 1, (int)(ahead * 1000));
        }
    }
out:
    board->report(h);
    double mhz = board->hz / 1e6;
    if (h->loops)
        printf("botwire-avr: firmware loop: %llu loops, %llu / %.0f / %llu cycles min / mean / max "
               "(%.1f / %.1f / %.1f us at %.3f MHz)\n",
               (unsigned long long)h->loops, (unsigned long long)h->cyc_min,
               (double)h->cyc_sum / (double)h->loops, (unsigned long long)h->cyc_max,
               (double)h->cyc_min / mhz, (double)h->cyc_sum / (double)h->loops / mhz,
               (double)h->cyc_max / mhz, mhz);
    else
        printf("botwire-avr: firmware loop: no loop measured\n");
    printf("botwire-avr: stopped at %.3f s simulated; bytes lost to the select line %llu, "
           "to full buffers %llu\n",
           harness_time(h), (unsigned long long)h->lost,
           (unsigned long long)(h->overflow + h->host_dropped));
    board->destroy(h);
    bw_port_close(h->host);
    avr_terminate(h->avr);
    return status;
}
