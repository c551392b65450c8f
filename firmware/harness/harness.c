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
 *   base-kobuki, base-create2 an ATmega2560 at 16 MHz on a home-built base
 *             (firmware/base, built to speak Kobuki or the Create 2's Open
 *             Interface): USART0 to the pty; two DC motors on
 *             timer 4's PWM and direction pins, quadrature encoders on
 *             INT2..INT5, bumpers, cliff sensors, wheel drops and the
 *             battery as firmware/base/hardware.h wires them (base.c).
 *
 * With --drive V W SECONDS the host is botwire's own driver of the family
 * instead of a pty, in the same process, and the clock is the chip's: the
 * driver drives (V, W) for SECONDS of simulated time, stops, and the run
 * ends a second later with the driver's odometry beside the robot's true
 * pose. What takes a loaded machine's scheduler out of the measurement.
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

double harness_wall = NAN, harness_edge = NAN;

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

/* UART0's control register B (the same data address on the ATmega168 and
 * the ATmega2560) and its receiver-enable bit: simavr drops a byte that
 * comes while the receiver is off, as a chip does. */
#define UCSR0B_ADDR 0xC1
#define RXEN0_BIT 4

/* Whether the firmware listens yet: a host that writes at once (the pty is
 * open before the chip has run its first instructions, and a loaded
 * machine delays those) must not lose what it wrote to the chip's boot. */
static bool receiving(const harness_t *h)
{
    return h->board->uart != '0' || (h->avr->data[UCSR0B_ADDR] & (1u << RXEN0_BIT)) != 0;
}

/* Bytes for the chip wait here until it listens and its receive FIFO has
 * room (XON). */
static void feed(harness_t *h)
{
    while (h->inq_len && !h->xoff && receiving(h)) {
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

/* Bytes for the host wait here while the pty is full (a host held back by
 * the machine), as a USB serial adapter's bytes wait in the kernel's
 * buffer for a reader (64 KB); only past that are they lost, and counted.
 * While no client has the pty open they go nowhere, as to a serial port
 * nobody has open, and what the last client left unread goes with it. */
static void watch_clients(harness_t *h)
{
    bool emptied;
    int clients = bw_pty_clients(h->host, &emptied);
    h->listening = clients != 0; /* (not a pty: an in-process driver, always there) */
    if (!h->listening || emptied)
        h->outq_len = 0;
}

static void flush_to_host(harness_t *h)
{
    while (h->outq_len) {
        size_t at = h->outq_head, run = sizeof h->outq - at;
        if (run > h->outq_len)
            run = h->outq_len;
        int w = bw_port_write(h->host, h->outq + at, run);
        if (w <= 0)
            return;
        h->outq_head = (at + (size_t)w) % sizeof h->outq;
        h->outq_len -= (size_t)w;
    }
}

void harness_to_host(harness_t *h, const uint8_t *b, size_t n)
{
    if (!h->listening)
        return;
    for (size_t i = 0; i < n; i++) {
        if (h->outq_len == sizeof h->outq) {
            h->host_dropped++;
            continue;
        }
        h->outq[(h->outq_head + h->outq_len) % sizeof h->outq] = b[i];
        h->outq_len++;
    }
    flush_to_host(h);
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

/* ---- running the chip -------------------------------------------------------- */

/* Each returns 0, 1 when the firmware stopped or crashed (the report still
 * follows), or -1 when it could not start (said on stderr). */

/* One slice: the chip up to until (a millisecond at most), the robot to the
 * chip's time, and whatever the host sent. 1 when the firmware stopped or
 * crashed (said on stderr). */
static int slice(harness_t *h, double until)
{
    until = fmin(until, harness_time(h) + 0.001);
    while (harness_time(h) < until) {
        int st = avr_run(h->avr);
        if (st == cpu_Done || st == cpu_Crashed) {
            fprintf(stderr, "botwire-avr: the firmware %s at %.3f s\n",
                    st == cpu_Done ? "stopped" : "crashed", harness_time(h));
            return 1;
        }
    }
    feed(h); /* what waited for the receiver to be enabled */
    h->board->step(h, harness_time(h));
    watch_clients(h);
    flush_to_host(h);
    uint8_t buf[256];
    int n = bw_port_read(h->host, buf, sizeof buf);
    if (n > 0)
        h->board->host_bytes(h, buf, (size_t)n);
    return 0;
}

#define MAX_LAG 0.005 /* s the chip may be behind the wall clock */

/* Real time: the chip runs until its clock catches up with the wall, a
 * millisecond of simulated time at most between looks at the host. */
static int serve_pty(harness_t *h, const char *link, const char *elf, double seconds)
{
    char slave[256], err[256];
    if (bw_pty_open(&h->host, slave, sizeof slave, link, err, sizeof err) < 0) {
        fprintf(stderr, "botwire-avr: %s\n", err);
        return -1;
    }
    printf("botwire-avr: %s on %s (%s at %.3f MHz, %s)\n", h->board->name, slave, h->board->mcu,
           h->board->hz / 1e6, elf);
    fflush(stdout);
    double begin = wall(), start = begin;
    while (!stop_signal) {
        if (wall() - begin >= seconds)
            break;
        double now = wall() - start;
        /* Never faster than real time: a harness the machine held back
         * takes up where it was instead of running the chip ahead to catch
         * up (its host would get seconds of the robot's time in a burst,
         * and its silence in the robot's time, as no robot gives them). */
        if (now - harness_time(h) > MAX_LAG) {
            start += now - harness_time(h) - MAX_LAG;
            now = harness_time(h) + MAX_LAG;
        }
        if (slice(h, now))
            return 1;
        double ahead = harness_time(h) - (wall() - start);
        if (ahead > 0.0005) {
            struct pollfd p = { bw_port_fd(h->host), POLLIN, 0 };
            (void)poll(&p, 1, (int)(ahead * 1000));
        }
    }
    return 0;
}

static void no_sleep(avr_t *avr, avr_cycle_count_t how_long)
{
    (void)avr;
    (void)how_long;
}

/* Virtual time: the family's driver on the other end of an in-memory pair,
 * stepped on the chip's clock; (v, w) renewed every 100 ms as a teleop
 * would, for seconds, then a stop, and a second to come to rest. Each event
 * the driver hears (a bump, a cliff, ...) is a line as it comes. */
static int drive_virtual(harness_t *h, double v, double w, double seconds)
{
    bw_port_t *driver_end;
    char err[256];
    if (bw_port_pair(&h->host, &driver_end, 1 << 16) < 0) {
        fprintf(stderr, "botwire-avr: out of memory\n");
        return -1;
    }
    bw_base_t *base;
    if (bw_base_open_port(&base, h->board->family, driver_end, NULL, harness_time(h), err,
                          sizeof err) < 0) {
        fprintf(stderr, "botwire-avr: %s\n", err);
        return -1;
    }
    h->avr->sleep = no_sleep; /* simavr would sleep the wall clock through the chip's sleeps */
    printf("botwire-avr: %s, botwire's %s driver in simulated time: (%g m/s, %g rad/s) for %g s\n",
           h->board->name, h->board->family, v, w, seconds);
    double next = 0, end = seconds + 1.0;
    int status = 0;
    while (!stop_signal && harness_time(h) < end) {
        double t = harness_time(h);
        if (t >= next) {
            if (t < seconds)
                bw_base_drive(base, v, w, t);
            else
                bw_base_stop(base, t);
            next += 0.1;
        }
        (void)bw_base_poll(base, t);
        bw_event_t ev;
        while (bw_base_next_event(base, &ev))
            printf("botwire-avr: the driver heard %s %s, mask %u, at %.3f s\n", bw_event_name(ev.type),
                   ev.on ? "on" : "off", (unsigned)ev.mask, ev.t);
        if (slice(h, fmin(next, end))) {
            status = 1;
            break;
        }
    }
    const bw_base_state_t *st = bw_base_state(base);
    printf("botwire-avr: the driver's odometry x %.4f m, y %.4f m, heading %.2f degrees, "
           "v %.3f m/s, online %s, %llu frames, %llu rejected\n",
           st->pose.x, st->pose.y, st->pose.theta * 180 / BW_PI, st->v, st->online ? "yes" : "no",
           (unsigned long long)st->link.frames,
           (unsigned long long)(st->link.checksum_errors + st->link.length_errors));
    bw_base_close(base, harness_time(h));
    return status;
}

/* ---- the stack's high-water mark ----------------------------------------------- */

#define PAINT 0xa5

/* The RAM above the firmware's static data (.data and .bss from the start
 * of the RAM, past the I/O registers; none of these firmwares allocates)
 * is painted before it runs; the lowest byte the stack overwrote is found
 * at the end. */
static void paint_stack(harness_t *h, const elf_firmware_t *fw)
{
    h->static_end = h->avr->ioend + 1u + fw->datasize + fw->bsssize;
    if (h->static_end <= h->avr->ramend)
        memset(h->avr->data + h->static_end, PAINT, h->avr->ramend + 1u - h->static_end);
}

static void report_stack(const harness_t *h)
{
    uint32_t low = h->static_end;
    while (low <= h->avr->ramend && h->avr->data[low] == PAINT)
        low++;
    printf("botwire-avr: stack: %u bytes at most (high-water mark), %u bytes of static data, "
           "%u never touched\n",
           h->avr->ramend + 1u - low, h->static_end - h->avr->ioend - 1u, low - h->static_end);
}

/* ---- main --------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire-avr BOARD FIRMWARE.elf [--pty LINK] [--for SECONDS] [--world FILE]\n"
            "       botwire-avr BOARD FIRMWARE.elf --drive V W SECONDS [--world FILE]\n"
            "Runs a botwire firmware in a simulated AVR (simavr), in real time, its host\n"
            "UART on a new pseudo-terminal and its robot side on botwire's emulated robot;\n"
            "with --drive, on the chip's own clock, as fast as the machine runs the chip.\n"
            "  BOARD          lobot-cm (ATmega168, 18.432 MHz, Command Module on a Create)\n"
            "                 rbsm-mega (ATmega2560, 16 MHz, the RoboBuggy's Mega)\n"
            "                 base-kobuki (ATmega2560, 16 MHz, firmware/base on a\n"
            "                 home-built base with two motors, speaking Kobuki)\n"
            "                 base-create2 (the same base, speaking the Create 2's OI)\n"
            "  --pty LINK     also name the pty's slave LINK (a symlink)\n"
            "  --for SECONDS  stop after this long (default: until SIGINT or SIGTERM)\n"
            "  --world FILE   the world the robot moves in (default: the family's own)\n"
            "  --wall X       base boards: a wall across the way X m ahead of the start\n"
            "  --cliff X      base boards: the floor ends X m ahead of the start\n"
            "  --drive V W SECONDS\n"
            "                 no pty: botwire's driver of the family, in this process and\n"
            "                 in the chip's simulated time, drives at V m/s and W rad/s\n"
            "                 for SECONDS, stops, and reports its odometry a second later\n"
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

static const board_t *boards[] = { &board_lobot_cm, &board_rbsm_mega, &board_base_kobuki,
                                   &board_base_create2 };

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
        fprintf(stderr, "botwire-avr: no board \"%s\" (lobot-cm, rbsm-mega, base-kobuki, base-create2)\n", argv[1]);
        return 2;
    }
    const char *elf = argv[2], *link = NULL, *world_file = NULL;
    double seconds = INFINITY;
    bool drive = false;
    double drive_v = 0, drive_w = 0, drive_for = 0;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--drive") && i + 3 < argc) {
            char *e1, *e2, *e3;
            drive_v = strtod(argv[i + 1], &e1);
            drive_w = strtod(argv[i + 2], &e2);
            drive_for = strtod(argv[i + 3], &e3);
            if (*e1 || *e2 || *e3 || !(drive_for > 0) || !isfinite(drive_v) || !isfinite(drive_w)) {
                fprintf(stderr, "botwire-avr: --drive wants V W SECONDS (numbers, SECONDS > 0), "
                                "not \"%s %s %s\"\n",
                        argv[i + 1], argv[i + 2], argv[i + 3]);
                return 2;
            }
            drive = true;
            i += 3;
        } else if (!strcmp(argv[i], "--pty") && i + 1 < argc) {
            link = argv[++i];
        } else if (!strcmp(argv[i], "--wall") && i + 1 < argc && !strncmp(board->name, "base-", 5)) {
            char *end;
            harness_wall = strtod(argv[++i], &end);
            if (*end || !(harness_wall > 0.2)) {
                fprintf(stderr, "botwire-avr: --wall wants metres ahead, more than the base's 0.15 "
                                "m radius and some, not \"%s\"\n",
                        argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--cliff") && i + 1 < argc && !strncmp(board->name, "base-", 5)) {
            char *end;
            harness_edge = strtod(argv[++i], &end);
            if (*end || !(harness_edge > 0.2)) {
                fprintf(stderr, "botwire-avr: --cliff wants metres ahead, more than the base's 0.15 "
                                "m radius and some, not \"%s\"\n",
                        argv[i]);
                return 2;
            }
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
    if (drive && link) {
        fprintf(stderr, "botwire-avr: --drive runs the driver in this process: no --pty with it\n");
        return 2;
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
    h->listening = true; /* until the first look at the pty's clients */
    h->avr = avr_make_mcu_by_name(board->mcu);
    if (!h->avr) {
        fprintf(stderr, "botwire-avr: simavr has no %s\n", board->mcu);
        return 1;
    }
    avr_init(h->avr);
    h->avr->log = LOG_ERROR;
    avr_load_firmware(h->avr, &fw);
    paint_stack(h, &fw);
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

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    int status = drive ? drive_virtual(h, drive_v, drive_w, drive_for)
                       : serve_pty(h, link, elf, seconds);
    if (status < 0)
        return 1;
    board->report(h);
    report_stack(h);
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
