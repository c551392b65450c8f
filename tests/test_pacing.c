/*
 * The serial line an emulated robot talks over (docs/pacing.md): its bytes
 * reach the host, and the host's reach it, a byte per 10 bits of the line's
 * rate, as a UART sends them.
 *
 *   test_pacing            in virtual time, exact
 *   test_pacing BOTWIRE    over a pty, in real time: a Create poller against
 *                          `BOTWIRE sim create`, at the family's rate and
 *                          with --baud
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "botwire/botwire.h"
#include "botwire/port.h"

/* Sensors, packet group 0: 26 bytes back. */
static const uint8_t QUERY[] = { BW_CREATE_OP_SENSORS, BW_CREATE_GROUP_0 };
#define REPLY 26

static double byte_time(int baud) { return 10.0 / baud; }

/* A bare Create on a line of `baud`, started (passive mode), at rest. */
static bw_device_t *create_at(int baud, double *now)
{
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.baud = baud;
    bw_device_t *d;
    char err[256];
    assert_int_equal(bw_device_create(&d, "create", &o, 0.0, err, sizeof err), 0);
    uint8_t start = BW_CREATE_OP_START, junk[64];
    bw_device_input(d, &start, 1, 0.0);
    *now = 1.0;
    bw_device_step(d, *now);
    while (bw_device_output(d, junk, sizeof junk) > 0)
        ;
    return d;
}

/* A query's reply comes no sooner than the query's 2 bytes and the reply's
 * 26 take on the line, byte by byte, and the deadlines say when: at
 * 57600 baud the whole reply is in 28 byte times (4.86 ms) after the query
 * was written, not at once. */
static void test_reply_at_line_time(void **state)
{
    (void)state;
    const int baud = 57600;
    const double T = byte_time(baud);
    double t0;
    bw_device_t *d = create_at(baud, &t0);
    uint8_t buf[64];
    bw_device_input(d, QUERY, sizeof QUERY, t0);
    /* The query is on its way: nothing yet, and the device is due when its
     * last byte is in. */
    assert_int_equal(bw_device_output(d, buf, sizeof buf), 0);
    double t = bw_device_next_deadline(d);
    assert_true(t == t0 + 2 * T);
    bw_device_step(d, t);
    assert_int_equal(bw_device_output(d, buf, sizeof buf), 0);
    bw_device_line_t ln;
    bw_device_line(d, &ln);
    assert_int_equal(ln.baud, baud);
    assert_int_equal(ln.out_on_line, REPLY);
    /* The reply's deadline is its last byte; before it, what a UART has
     * delivered by then, byte by byte. */
    double end = bw_device_next_deadline(d);
    assert_true(fabs(end - (t0 + 28 * T)) < 1e-12);
    bw_device_step(d, t0 + 2 * T + 10.5 * T);
    assert_int_equal(bw_device_output(d, buf, sizeof buf), 10);
    bw_device_step(d, nextafter(end, 0));
    assert_int_equal(bw_device_output(d, buf, sizeof buf), REPLY - 11);
    assert_true(bw_device_next_deadline(d) == end);
    bw_device_step(d, end);
    assert_int_equal(bw_device_output(d, buf, sizeof buf), 1);
    /* Then nothing is due: no deadline in the past, none at all. */
    assert_true(bw_device_next_deadline(d) > end);
    bw_device_destroy(d);
}

/* Without a rate (the default of the device API, TCP) bytes come at once. */
static void test_unpaced_at_once(void **state)
{
    (void)state;
    double t0;
    bw_device_t *d = create_at(0, &t0);
    uint8_t buf[64];
    bw_device_input(d, QUERY, sizeof QUERY, t0);
    bw_device_step(d, t0);
    assert_int_equal(bw_device_output(d, buf, sizeof buf), REPLY);
    bw_device_destroy(d);
}

/* A poller querying as fast as it can, in virtual time, stepping to the
 * device's deadlines: replies per second. */
static double poll_rate(int baud, double seconds, unsigned *steps)
{
    double now;
    bw_device_t *d = create_at(baud, &now);
    double end = now + seconds;
    unsigned replies = 0;
    *steps = 0;
    while (now < end) {
        bw_device_input(d, QUERY, sizeof QUERY, now);
        size_t got = 0;
        uint8_t buf[64];
        while (got < REPLY) {
            double next = bw_device_next_deadline(d);
            assert_true(next > now && next < now + 1); /* none in the past, none missing */
            now = next;
            bw_device_step(d, now);
            got += bw_device_output(d, buf, sizeof buf);
            ++*steps;
        }
        assert_int_equal(got, REPLY);
        if (now <= end)
            replies++;
    }
    bw_device_destroy(d);
    return replies / seconds;
}

static void test_poller_rate(void **state)
{
    (void)state;
    const int bauds[] = { 57600, 115200, 19200 };
    for (size_t i = 0; i < sizeof bauds / sizeof bauds[0]; i++) {
        unsigned steps;
        double rate = poll_rate(bauds[i], 10, &steps);
        double most = bauds[i] / 10.0 / REPLY, exchange = bauds[i] / 10.0 / (REPLY + 2);
        printf("create poller at %d baud: %.1f replies/s (the line: at most %.1f, %.1f with the "
               "query's 2 bytes); %.1f steps a reply\n",
               bauds[i], rate, most, exchange, steps / (rate * 10));
        assert_true(rate <= most);
        assert_true(fabs(rate - exchange) <= 0.1 + 1e-9); /* exactly the line's, to the count */
        assert_true(steps <= 2 * rate * 10 + 2);          /* two wake-ups a reply, no busy loop */
    }
}

/* ---- every family through sim: URLs, in virtual time ---------------------- */

typedef struct {
    double T;        /* s a byte */
    double last;     /* when bytes from the robot last came */
    size_t bytes;
    bool violated;
    double worst;    /* the most bytes in a chunk over what the line allows */
} line_check_t;

/* A chunk of the robot's bytes taken at `now`: all of them came across
 * since the last chunk, so no more than the line carries in that time. */
static void tap(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    (void)data;
    line_check_t *c = ctx;
    if (!from_robot)
        return;
    if (c->bytes) {
        double allowed = ceil((now - c->last) / c->T + 1e-6);
        if ((double)n > allowed) {
            c->violated = true;
            c->worst = fmax(c->worst, (double)n - allowed);
        }
    }
    c->last = now;
    c->bytes += n;
}

/* Drives the URL's robot in a slow circle for `seconds` of virtual time,
 * checking every chunk of its bytes against the line. */
static void run_family(const char *url, int want_baud, double seconds)
{
    bw_base_t *b;
    char err[256];
    if (bw_base_open(&b, url, NULL, 0.0, err, sizeof err) < 0)
        fail_msg("%s: %s", url, err);
    bw_device_t *d = bw_base_device(b);
    bw_device_line_t ln;
    bw_device_line(d, &ln);
    assert_int_equal(ln.baud, want_baud);
    line_check_t c = { byte_time(want_baud), 0, 0, false, 0 };
    bw_base_set_tap(b, tap, &c);
    const bw_base_state_t *st = bw_base_state(b);
    double now = 0;
    unsigned steps = 0, same = 0;
    while (now < seconds) {
        bw_base_drive(b, 0.1, 0.2, now);
        double next = bw_base_next_deadline(b);
        assert_true(next >= now);
        /* A deadline at now is a write the robot has not read yet; never
         * two in a row. */
        same = next == now ? same + 1 : 0;
        assert_true(same < 2);
        now = fmin(next, now + 0.1);
        bw_base_poll(b, now);
        steps++;
    }
    bw_device_line(d, &ln);
    printf("%-26s %6.0f bytes/s of %6.0f the line carries, %5.0f steps/s, overrun %llu/%llu%s\n",
           url, (double)c.bytes / seconds, want_baud / 10.0, steps / seconds,
           (unsigned long long)ln.out_overrun, (unsigned long long)ln.in_overrun,
           c.violated ? ", FASTER THAN THE LINE" : "");
    assert_false(c.violated);
    assert_true(st->online);
    assert_int_equal(ln.out_overrun + ln.in_overrun, 0);
    assert_true(c.bytes > 0);
    bw_base_close(b, now);
}

static void test_every_family_at_its_rate(void **state)
{
    (void)state;
    const char *fam[] = { "kobuki", "p2os", "lobot", "create", "rbsm", "rflex" };
    const int want[] = { 115200, 9600, 57600, 57600, 76800, 115200 };
    for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++) {
        assert_int_equal(bw_device_family_baud(fam[i]), want[i]);
        char url[64];
        snprintf(url, sizeof url, "sim:%s", fam[i]);
        run_family(url, want[i], 10);
    }
    assert_int_equal(bw_device_family_baud("nonesuch"), BW_EUNKNOWN);
    /* A model with a rate of its own (what `botwire sim F --model M` paces
     * its pty at): the deployed RoboBuggy's 57600; the others the family's. */
    assert_int_equal(bw_device_model_baud("rbsm", "deployed"), 57600);
    assert_int_equal(bw_device_model_baud("rbsm", "seed"), 76800);
    assert_int_equal(bw_device_model_baud("rbsm", NULL), 76800);
    assert_int_equal(bw_device_model_baud("create", "create2"), 115200);
    assert_int_equal(bw_device_model_baud("rflex", "atrvjr"), 115200);
    assert_int_equal(bw_device_model_baud("p2os", "p2at"), 9600);
    assert_int_equal(bw_device_model_baud("nonesuch", "deployed"), BW_EUNKNOWN);
    run_family("sim:rbsm?model=deployed", 57600, 10);
    run_family("sim:create?model=create2", 115200, 10);
}

/* A caller that polls at a fixed rate of its own, not at the base's
 * deadlines (a ROS node's loop: 50 Hz, 20 Hz, 10 Hz, or a little slower
 * than it asks), reads each frame up to a poll period after it came, and
 * long ones in pieces a period apart. That is neither silence on the line
 * nor a frame from the future: no frame is rejected, no byte skipped,
 * nothing set aside as implausible, and the odometry, 2 s after the stop,
 * is the robot's true travel within 2 % (the emulators' wheels slip and
 * their encoders count whole ticks: 0.5 % at most here). Regressions: the
 * P2OS driver gave up SIPs read in two pieces more than its 50 ms line gap
 * apart (a ROS node at 20 Hz had odometry from 8 of 50 SIPs); the rflex
 * driver took frames read at once
 * for stamps from the future, at 10 Hz. (The Command Module's driver,
 * lobot, is not here: its cycle is the host's answer, and its motion check
 * times SENSORS by when they were read; docs/pacing.md.) */
static void test_fixed_rate_caller(void **state)
{
    (void)state;
    static const char *const urls[] = { "sim:kobuki", "sim:p2os", "sim:p2os?model=p2pb",
                                         "sim:create", "sim:create?model=create2",
                                         "sim:rbsm", "sim:rflex" };
    static const double periods[] = { 0.02, 0.0505, 0.1, 0.12 };
    for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
        for (size_t k = 0; k < sizeof periods / sizeof periods[0]; k++) {
            bw_base_t *b;
            char err[256];
            if (bw_base_open(&b, urls[i], NULL, 0.0, err, sizeof err) < 0)
                fail_msg("%s: %s", urls[i], err);
            const bw_base_state_t *st = bw_base_state(b);
            const bw_sim_t *sim = bw_device_sim(bw_base_device(b));
            double now = 0;
            int polls = 0;
            for (; now < 5; now = ++polls * periods[k]) {
                bw_base_drive(b, 0.2, 0.1, now);
                bw_base_poll(b, now);
            }
            bw_base_stop(b, now);
            for (double end = now + 2; now < end; now = ++polls * periods[k])
                bw_base_poll(b, now);
            const bw_parse_stats_t *l = &st->link;
            /* The odometry's travel: the arc of the circle it drove, from its chord. */
            double chord = hypot(st->pose.x, st->pose.y), turn = fabs(st->pose.theta);
            double odo = turn > 1e-6 ? chord * (turn / 2) / sin(turn / 2) : chord;
            printf("%-26s polled every %5.1f ms: %5llu frames, rejected %llu, skipped %llu, "
                   "implausible %llu; odometry %.3f m, true travel %.3f m\n",
                   urls[i], periods[k] * 1000, (unsigned long long)l->frames,
                   (unsigned long long)(l->length_errors + l->checksum_errors),
                   (unsigned long long)l->skipped_bytes, (unsigned long long)l->implausible,
                   odo, sim->travelled);
            assert_true(st->online);
            assert_true(l->frames > 0);
            assert_int_equal(l->length_errors + l->checksum_errors, 0);
            assert_int_equal(l->skipped_bytes, 0);
            assert_int_equal(l->implausible, 0);
            assert_true(sim->travelled > 0.5);
            assert_true(fabs(odo - sim->travelled) <= 0.02 * sim->travelled);
            bw_base_close(b, now);
        }
    }
}

/* ?baud= sets the line of a sim: URL. */
static void test_baud_parameter(void **state)
{
    (void)state;
    run_family("sim:kobuki?baud=57600", 57600, 5);
    run_family("sim:create?baud=115200", 115200, 5);
    run_family("sim:p2os?baud=38400", 38400, 5);
    bw_base_t *b;
    char err[256];
    assert_int_equal(bw_base_open(&b, "sim:kobuki?baud=12", NULL, 0.0, err, sizeof err),
                     BW_EINVAL);
}

/* The P2OS at 9600 baud: SIPs every 100 ms fit, with room, on every model
 * (the emulator's carry 4 new sonar readings each); even a SIP with all 16
 * of a ring's readings, every 100 ms, would. */
static void test_p2os_fits_at_9600(void **state)
{
    (void)state;
    bw_p2os_msg_t m;
    bw_p2os_msg_init(&m, BW_P2OS_SIP);
    m.id = BW_P2OS_PAC_SIP_MOVING;
    m.u.sip.nsonar = 16;
    for (uint8_t i = 0; i < 16; i++)
        m.u.sip.sonar[i].number = i;
    uint8_t frame[BW_P2OS_MAX_FRAME];
    int n = bw_p2os_encode_frame(frame, sizeof frame, &m);
    printf("a P2OS SIP with 16 sonar readings: %d bytes, %d a second of the 960 at 9600 baud\n",
           n, 10 * n);
    assert_true(n > 0 && 10 * n < 960);
    run_family("sim:p2os?model=p2pb", 9600, 10);
    run_family("sim:p2os?model=p2at", 9600, 10);
}

/* A robot that makes more than its line carries (a Kobuki's 50 Hz feedback
 * on a 1200 baud line) queues a second of the line, drops whole writes
 * beyond it and counts them; what crosses never goes faster than the line. */
static void test_overrun_is_queued_then_counted(void **state)
{
    (void)state;
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.baud = 1200;
    bw_device_t *d;
    char err[256];
    assert_int_equal(bw_device_create(&d, "kobuki", &o, 0.0, err, sizeof err), 0);
    double now = 0;
    size_t got = 0, most = 0;
    uint8_t buf[4096];
    while (now < 10) {
        now = fmin(bw_device_next_deadline(d), 10);
        bw_device_step(d, now);
        got += bw_device_output(d, buf, sizeof buf);
        bw_device_line_t ln;
        bw_device_line(d, &ln);
        most = ln.out_on_line > most ? ln.out_on_line : most;
    }
    bw_device_line_t ln;
    bw_device_line(d, &ln);
    printf("kobuki at 1200 baud: %zu bytes across in 10 s (the line: 1200), %zu at most "
           "queued, %llu dropped\n",
           got, most, (unsigned long long)ln.out_overrun);
    assert_true(got <= 1200 && got >= 1190);
    assert_true(most <= 256 && most > 120); /* its bound: 256 bytes, at least a frame */
    assert_true(ln.out_overrun > 10000);
    assert_true(bw_device_dropped(d) == 0); /* the host read all that came */
    bw_device_destroy(d);
}

/* An emulator held back (a real-time one on a loaded machine, stepped
 * 200 ms late): what the robot made meanwhile went onto the line when it
 * was made, so by now the same bytes are across as from a robot stepped on
 * time, byte for byte. Paced out from the late step on
 * instead, a host saw 200 ms of silence, took those frames for lost, then
 * got them (the Create's driver counted their motion twice). */
static bw_device_t *kobuki_until_one_second(void)
{
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.baud = 115200;
    bw_device_t *d;
    char err[256];
    assert_int_equal(bw_device_create(&d, "kobuki", &o, 0.0, err, sizeof err), 0);
    double now = 0;
    uint8_t buf[8192];
    while (now < 1.0) {
        now = fmin(bw_device_next_deadline(d), 1.0);
        bw_device_step(d, now);
        (void)bw_device_output(d, buf, sizeof buf);
    }
    return d;
}

static void test_stalled_emulator_backlog_is_across(void **state)
{
    (void)state;
    /* On time: every deadline from 1.0 s to 1.2 s. */
    bw_device_t *d = kobuki_until_one_second();
    uint8_t on_time[8192], late[8192];
    size_t want = 0;
    for (double now = 1.0; now < 1.2;) {
        now = fmin(bw_device_next_deadline(d), 1.2);
        bw_device_step(d, now);
        want += bw_device_output(d, on_time + want, sizeof on_time - want);
    }
    bw_device_destroy(d);
    /* Late: one step to 1.2 s. */
    d = kobuki_until_one_second();
    bw_device_step(d, 1.2);
    size_t got = bw_device_output(d, late, sizeof late);
    bw_device_destroy(d);
    printf("kobuki stepped 200 ms late: %zu bytes across at once; on time, %zu by then\n", got,
           want);
    assert_true(want > 8 * 93); /* 50 frames a second of 93 bytes */
    assert_int_equal(got, want);
    assert_memory_equal(late, on_time, want);
}

/* The host's bytes cross the line too: a command written far ahead of the
 * line is heard byte by byte at its rate, and one written beyond 4 KB on
 * the way is dropped and counted. */
static void test_host_bytes_cross_the_line(void **state)
{
    (void)state;
    double t0;
    bw_device_t *d = create_at(9600, &t0);
    const double T = byte_time(9600);
    uint8_t many[4000];
    for (size_t i = 0; i < sizeof many; i += 2)
        memcpy(many + i, QUERY, 2);
    bw_device_input(d, many, sizeof many, t0);
    bw_device_input(d, many, 200, t0);
    bw_device_line_t ln;
    bw_device_line(d, &ln);
    assert_int_equal(ln.in_on_line, 4096);
    assert_int_equal(ln.in_overrun, 4000 + 200 - 4096);
    /* The first query's reply starts only when its 2 bytes are in. */
    bw_device_step(d, t0 + 2 * T - 1e-9);
    bw_device_line(d, &ln);
    assert_int_equal(ln.out_on_line, 0);
    bw_device_step(d, t0 + 2 * T);
    bw_device_line(d, &ln);
    assert_int_equal(ln.out_on_line, REPLY);
    assert_int_equal(ln.in_on_line, 4094);
    bw_device_destroy(d);
}

/* The robot's output ring starts small and grows as a host falls behind:
 * read a little at a time (the ring wraps), then not at all (it grows
 * while wrapped), then all: the same bytes as a host that read all as they
 * came; unread beyond 16 KB, the oldest go and only the newest stay. */
static void test_output_ring_grows(void **state)
{
    (void)state;
    bw_device_options_t o;
    bw_device_options_init(&o);
    bw_device_t *a, *b;
    char err[256];
    assert_int_equal(bw_device_create(&a, "kobuki", &o, 0.0, err, sizeof err), 0);
    assert_int_equal(bw_device_create(&b, "kobuki", &o, 0.0, err, sizeof err), 0);
    static uint8_t want[1 << 18], got[1 << 18];
    size_t nwant = 0, ngot = 0, n;
    for (int k = 1; k <= 250; k++) { /* 5 s in 20 ms steps */
        double t = k * 0.02;
        bw_device_step(a, t);
        bw_device_step(b, t);
        while ((n = bw_device_output(a, want + nwant, 4096)) > 0)
            nwant += n;
        if (k <= 50) /* a little each step: behind, and wrapping */
            ngot += bw_device_output(b, got + ngot, 50);
        else if (k == 150) /* 2 s unread: about 9 KB */
            while ((n = bw_device_output(b, got + ngot, 4096)) > 0)
                ngot += n;
        else if (k == 250) {
            while ((n = bw_device_output(b, got + ngot, 4096)) > 0)
                ngot += n;
        }
    }
    assert_true(nwant > 20000);
    assert_int_equal(ngot, nwant);
    assert_memory_equal(got, want, nwant);
    assert_true(bw_device_dropped(b) == 0);
    /* 10 s unread: the newest 16 KB stay. */
    size_t mark = nwant;
    for (int k = 251; k <= 750; k++) {
        double t = k * 0.02;
        bw_device_step(a, t);
        bw_device_step(b, t);
        while ((n = bw_device_output(a, want + nwant, 4096)) > 0)
            nwant += n;
    }
    size_t tail = 0;
    while ((n = bw_device_output(b, got + tail, 4096)) > 0)
        tail += n;
    assert_int_equal(tail, 16384);
    assert_true(bw_device_dropped(b) == nwant - mark - tail);
    assert_memory_equal(got, want + nwant - tail, tail);
    bw_device_destroy(a);
    bw_device_destroy(b);
}

/* ---- real time, over a pty ---------------------------------------------------- */

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *botwire_path;

/* The bound on every wait below, for a broken build only (a hang): far
 * beyond what a loaded machine takes. */
#define HANG 20.0

/* Starts the emulator and returns once it has said where it serves (its
 * first line), not after a guessed delay. */
static pid_t serve(const char *link, const char *baud)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(fds[1], STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        if (baud)
            execl(botwire_path, "botwire", "sim", "create", "--pty", link, "--for", "60",
                  "--baud", baud, (char *)NULL);
        else
            execl(botwire_path, "botwire", "sim", "create", "--pty", link, "--for", "60",
                  (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char line[256];
    size_t n = 0;
    while (n < sizeof line - 1 && read(fds[0], line + n, 1) == 1 && line[n] != '\n')
        n++;
    line[n] = 0;
    close(fds[0]);
    if (!strstr(line, "botwire sim: create on "))
        fail_msg("the emulator did not say where it serves: \"%s\"", line);
    return pid;
}

/* Queries as fast as it can for `seconds`, and on until an exchange has
 * come within `near` s (HANG at most); the rate, and the fastest exchange
 * from writing the query to the reply's last byte. */
static double poll_pty(const char *link, int baud, double seconds, double near, double *fastest)
{
    bw_port_t *p = NULL;
    char err[256];
    if (bw_port_open_serial(&p, link, baud, err, sizeof err) < 0)
        fail_msg("%s: %s", link, err);
    /* START answers nothing: the first bytes are the first reply. */
    uint8_t start = BW_CREATE_OP_START, buf[256];
    assert_int_equal(bw_port_write(p, &start, 1), 1);
    *fastest = INFINITY;
    unsigned replies = 0;
    double t0 = mono(), end = t0 + seconds, give_up = t0 + HANG;
    while (mono() < end || (*fastest >= near && mono() < give_up)) {
        double sent = mono();
        assert_int_equal(bw_port_write(p, QUERY, sizeof QUERY), 2);
        size_t got = 0;
        while (got < REPLY) {
            struct pollfd pf = { bw_port_fd(p), POLLIN, 0 };
            if (poll(&pf, 1, (int)(HANG * 1000)) <= 0)
                fail_msg("no reply in %.0f s (%zu bytes of it)", HANG, got);
            int n = bw_port_read(p, buf, sizeof buf);
            assert_true(n >= 0);
            got += (size_t)n;
        }
        assert_int_equal(got, REPLY);
        *fastest = fmin(*fastest, mono() - sent);
        replies++;
    }
    double rate = replies / (mono() - t0);
    bw_port_close(p);
    return rate;
}

static void test_pty_poller(void **state)
{
    (void)state;
    const struct {
        const char *arg;
        int baud;
    } runs[] = { { NULL, 57600 }, { "115200", 115200 }, { "19200", 19200 } };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char link[64];
        snprintf(link, sizeof link, "/tmp/bw-pacing-%ld-%zu", (long)getpid(), i);
        pid_t pid = serve(link, runs[i].arg);
        assert_true(pid > 0);
        double T = byte_time(runs[i].baud), most = 1 / ((REPLY + 2) * T);
        double fastest, rate = poll_pty(link, runs[i].baud, 2.0, 1.5 * (REPLY + 2) * T, &fastest);
        kill(pid, SIGINT);
        waitpid(pid, NULL, 0);
        printf("pty poller at %d baud%s: %.1f replies/s (the line: at most %.1f); fastest "
               "exchange %.3f ms (the line: %.3f ms)\n",
               runs[i].baud, runs[i].arg ? " (--baud)" : "", rate, most, fastest * 1e3,
               (REPLY + 2) * T * 1e3);
        /* Never faster than the line. A loaded machine delays some
         * exchanges, so the rate is no measure of the emulator's pace (it
         * once asked for a tenth of the line's); the fastest exchange is:
         * within half a line time of it (a pace a half slower than the
         * line's fails). It is looked for over 2 s and on, exchange after
         * exchange, until one comes that near: on a loaded machine one
         * that neither process was held back in comes later, not never. */
        assert_true(fastest >= (REPLY + 2) * T);
        assert_true(rate <= most);
        assert_true(fastest < 1.5 * (REPLY + 2) * T);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        botwire_path = argv[1];
        const struct CMUnitTest rt[] = { cmocka_unit_test(test_pty_poller) };
        return cmocka_run_group_tests(rt, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reply_at_line_time),
        cmocka_unit_test(test_unpaced_at_once),
        cmocka_unit_test(test_poller_rate),
        cmocka_unit_test(test_every_family_at_its_rate),
        cmocka_unit_test(test_fixed_rate_caller),
        cmocka_unit_test(test_baud_parameter),
        cmocka_unit_test(test_p2os_fits_at_9600),
        cmocka_unit_test(test_overrun_is_queued_then_counted),
        cmocka_unit_test(test_host_bytes_cross_the_line),
        cmocka_unit_test(test_output_ring_grows),
        cmocka_unit_test(test_stalled_emulator_backlog_is_across),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
