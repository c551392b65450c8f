/* Which robot is on the line: the protocol sniffer on every family's
 * emulated robot, clean and on a bad cable, and on bytes of no protocol;
 * the base on every pairing of driver and emulated robot in virtual time
 * (the right one online and sure of it, a wrong one naming the family it
 * hears or hearing silence, never online on it and never writing to it);
 * and a TCP robot server that closes every connection at once. */
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"
#include "botwire/sniff.h"

static const char *const families[] = { "kobuki", "p2os", "lobot", "create", "rbsm", "rflex" };
#define NFAMILIES (sizeof families / sizeof families[0])

/* The families whose robots speak before they are spoken to. */
static bool speaks_unasked(const char *family)
{
    return strcmp(family, "kobuki") == 0 || strcmp(family, "lobot") == 0 ||
           strcmp(family, "rbsm") == 0;
}

/* ---- the sniffer ---------------------------------------------------------------- */

typedef struct {
    uint8_t buf[BW_BASE_HEARD_MAX];
    size_t n;
} capture_t;

static void capture_tap(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    capture_t *c = ctx;
    (void)now;
    for (size_t i = 0; from_robot && i < n && c->n < sizeof c->buf; i++)
        c->buf[c->n++] = data[i];
}

/* The first 4 KB (or 3 s) a family's emulated robot sends its own driver,
 * driving ahead at 0.1 m/s for a second, then back at 0.1 m/s turning
 * (values of either sign in its reports), through the URL's cable. */
static void capture(const char *url, capture_t *c)
{
    char err[256];
    bw_base_options_t o;
    memset(&o, 0, sizeof o);
    o.tap = capture_tap;
    o.tap_ctx = c;
    c->n = 0;
    bw_base_t *b;
    assert_int_equal(bw_base_open(&b, url, &o, 0, err, sizeof err), 0);
    for (double t = 0; t < 3 && c->n < sizeof c->buf; t += 0.005) {
        bw_base_drive(b, t < 1 ? 0.1 : -0.1, t < 1 ? 0 : 0.3, t);
        bw_base_poll(b, t);
    }
    bw_base_close(b, 3);
}

/* Every family's robot, clean and at a bit error rate of 1e-3 both ways:
 * its own protocol explains most of its bytes, strongly; no other family's
 * explains a tenth of them. The first 300 bytes are enough to tell. */
static void sniff_each_family(void **state)
{
    (void)state;
    static capture_t c;
    for (size_t i = 0; i < NFAMILIES; i++) {
        for (int noisy = 0; noisy < 2; noisy++) {
            char url[64];
            snprintf(url, sizeof url, "sim:%s%s", families[i], noisy ? "?ber=1e-3&seed=3" : "");
            capture(url, &c);
            assert_true(c.n >= 300);
            bw_sniff_t s;
            bw_sniff(c.buf, c.n, &s);
            assert_true(s.best >= 0);
            const bw_sniff_score_t *own = &s.score[s.best];
            printf("%-28s %4zu bytes: %s explains %zu in %zu frames", url, c.n, own->family,
                   own->explained, own->frames);
            assert_string_equal(own->family, families[i]);
            assert_int_equal(own->confidence, BW_SNIFF_STRONG);
            for (size_t j = 0; j < BW_SNIFF_FAMILIES; j++) {
                if (strcmp(s.score[j].family, families[i]) == 0)
                    continue;
                if (s.score[j].explained)
                    printf("; %s %zu", s.score[j].family, s.score[j].explained);
                assert_true(s.score[j].explained * 10 < c.n);
                assert_int_not_equal(s.score[j].confidence, BW_SNIFF_STRONG);
            }
            printf("\n");
            if (strcmp(families[i], "lobot") == 0 && !noisy) {
                /* Every SENSORS of a clean line is a Create's, whatever
                 * its motion (reverse speeds are 0xff.. bytes). */
                bw_lobot_ack_parser_t p;
                bw_lobot_ack_parser_init(&p);
                const uint8_t *d = c.buf;
                size_t left = c.n, sensors = 0;
                bw_lobot_ack_frame_t f;
                while (bw_lobot_ack_parse(&p, &d, &left, &f) > 0)
                    sensors += f.id == BW_LOBOT_ACK_SENSORS;
                assert_int_equal(s.score[s.best].frames, sensors);
            }
            bw_sniff(c.buf, 300, &s);
            assert_true(s.best >= 0);
            assert_string_equal(s.score[s.best].family, families[i]);
        }
    }
}

/* Bytes of no protocol (random, or one value over and over) are no
 * family's, strongly. */
static void sniff_no_protocol(void **state)
{
    (void)state;
    static uint8_t buf[BW_BASE_HEARD_MAX];
    uint64_t x = 88172645463325252ull;
    for (int seed = 0; seed < 50; seed++) {
        for (size_t i = 0; i < sizeof buf; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = (uint8_t)x;
        }
        bw_sniff_t s;
        bw_sniff(buf, sizeof buf, &s);
        for (size_t j = 0; j < BW_SNIFF_FAMILIES; j++)
            assert_int_not_equal(s.score[j].confidence, BW_SNIFF_STRONG);
    }
    const uint8_t fills[] = { 0x00, 0xff, 0x0a, '$', 0xaa, 0xfa, 0x1b, 19 };
    for (size_t f = 0; f < sizeof fills; f++) {
        memset(buf, fills[f], sizeof buf);
        bw_sniff_t s;
        bw_sniff(buf, sizeof buf, &s);
        for (size_t j = 0; j < BW_SNIFF_FAMILIES; j++)
            assert_int_not_equal(s.score[j].confidence, BW_SNIFF_STRONG);
    }
    bw_sniff_t s;
    bw_sniff(NULL, 0, &s);
    assert_int_equal(s.best, -1);
    for (size_t i = 0; i < NFAMILIES; i++)
        assert_non_null(bw_sniff_protocol(families[i]));
    assert_null(bw_sniff_protocol("roomba"));
    assert_true(bw_sniff_speaks_when_spoken_to("p2os"));
    assert_false(bw_sniff_speaks_when_spoken_to("kobuki"));
}

/* ---- the base on every pairing ---------------------------------------------------- */

typedef struct {
    bw_base_t *b;
    bw_device_t *dev;
    bw_port_t *far;         /* the robot's end of the pair */
    double now;
    bool ever_online_after; /* online at any poll after the verdict */
    double verdict_at;      /* when the base was sure (INFINITY: never) */
    size_t written_after;   /* bytes the base wrote to the robot after the verdict */
} pairing_t;

static void pairing_step(pairing_t *p)
{
    uint8_t buf[4096];
    int n;
    bw_base_heard_t h;
    bw_base_heard(p->b, &h);
    bool settled = h.sure;
    while ((n = bw_port_read(p->far, buf, sizeof buf)) > 0) {
        if (settled && h.wrong)
            p->written_after += (size_t)n;
        bw_device_input(p->dev, buf, (size_t)n, p->now);
    }
    bw_device_step(p->dev, p->now);
    size_t out;
    while ((out = bw_device_output(p->dev, buf, sizeof buf)) > 0)
        bw_port_write(p->far, buf, out);
    bw_base_poll(p->b, p->now);
    bw_base_heard(p->b, &h);
    if (h.sure && !isfinite(p->verdict_at))
        p->verdict_at = p->now;
    else if (h.sure && h.wrong && bw_base_state(p->b)->online)
        p->ever_online_after = true;
}

/* Driver `driver` on the emulated robot of `robot`, 3 s of virtual time,
 * driving at 0.1 m/s all along as `botwire drive` would once online. */
static void run_pairing(const char *driver, const char *robot, pairing_t *p)
{
    char err[256];
    memset(p, 0, sizeof *p);
    p->verdict_at = INFINITY;
    bw_device_options_t o;
    bw_device_options_init(&o);
    assert_int_equal(bw_device_create(&p->dev, robot, &o, 0, err, sizeof err), 0);
    bw_device_link(p->dev, true, 0);
    bw_port_t *near;
    assert_int_equal(bw_port_pair(&near, &p->far, 1 << 16), 0);
    assert_int_equal(bw_base_open_port(&p->b, driver, near, NULL, 0, err, sizeof err), 0);
    for (p->now = 0; p->now < 3; p->now += 0.005) {
        bw_base_drive(p->b, 0.1, 0, p->now);
        pairing_step(p);
    }
}

static void pairing_close(pairing_t *p)
{
    bw_base_close(p->b, p->now);
    bw_port_close(p->far);
    bw_device_destroy(p->dev);
}

static void every_pairing(void **state)
{
    (void)state;
    for (size_t i = 0; i < NFAMILIES; i++) {
        for (size_t j = 0; j < NFAMILIES; j++) {
            const char *driver = families[i], *robot = families[j];
            pairing_t p;
            run_pairing(driver, robot, &p);
            bw_base_heard_t h;
            bw_base_heard(p.b, &h);
            const bw_base_state_t *st = bw_base_state(p.b);
            printf("%-6s driver, %-6s robot: %6llu bytes heard, %s%s%s, online %d, verdict at %.3f s\n",
                   driver, robot, (unsigned long long)h.bytes, h.family ? h.family : "nothing",
                   h.sure ? " (sure)" : "", h.wrong ? " WRONG" : "", st->online, p.verdict_at);
            if (i == j) {
                assert_true(st->online);
                assert_true(h.sure);
                assert_false(h.wrong);
                assert_string_equal(h.family, robot);
            } else if (speaks_unasked(robot)) {
                assert_true(h.wrong);
                assert_true(h.sure);
                assert_string_equal(h.family, robot);
                assert_false(st->online);
                assert_false(p.ever_online_after);
                assert_true(p.verdict_at < 0.5);
                /* Deaf and mute from the verdict on: nothing more is
                 * decoded, nothing is sent, driving is refused. */
                assert_int_equal(p.written_after, 0);
                assert_int_equal(bw_base_drive(p.b, 0.1, 0, p.now), BW_EPROTO);
            } else {
                /* These robots answer only their own protocol. */
                assert_int_equal(h.bytes, 0);
                assert_null(h.family);
                assert_false(st->online);
            }
            pairing_close(&p);
        }
    }
}

/* The regression: a lobot base on a Kobuki came online on a '$' and 53
 * Kobuki bytes and reported x = 40 m. Now it is offline at once and the
 * pose never moved. */
static void lobot_on_kobuki(void **state)
{
    (void)state;
    pairing_t p;
    run_pairing("lobot", "kobuki", &p);
    const bw_base_state_t *st = bw_base_state(p.b);
    assert_false(st->online);
    assert_true(fabs(st->pose.x) < 1e-9 && fabs(st->pose.y) < 1e-9);
    bw_event_t ev;
    int online = 0;
    while (bw_base_next_event(p.b, &ev))
        online += ev.type == BW_EV_ONLINE;
    assert_int_equal(online, 0);
    pairing_close(&p);
}

/* A line of noise (a wrong baud rate): no driver is online at the end,
 * none is sure of any family, and a driver that came online on it (lobot:
 * a '$' and any 53 bytes) was put offline within a second. Before, the lobot
 * base stayed online on noise, reporting whatever the bytes said. */
static void noise_line(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < NFAMILIES; i++) {
        char err[256];
        bw_port_t *near, *far;
        assert_int_equal(bw_port_pair(&near, &far, 1 << 16), 0);
        bw_base_t *b;
        assert_int_equal(bw_base_open_port(&b, families[i], near, NULL, 0, err, sizeof err), 0);
        double online_for = 0, now;
        for (now = 0; now < 3; now += 0.005) {
            uint8_t buf[64], sink[4096];
            for (size_t k = 0; k < sizeof buf; k++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                buf[k] = (uint8_t)x;
            }
            bw_port_write(far, buf, sizeof buf);
            while (bw_port_read(far, sink, sizeof sink) > 0)
                ;
            bw_base_drive(b, 0.1, 0, now);
            bw_base_poll(b, now);
            online_for += bw_base_state(b)->online ? 0.005 : 0;
        }
        bw_base_heard_t h;
        bw_base_heard(b, &h);
        printf("%-6s driver on noise: %llu bytes, %s%s%s, online %.3f s in all\n", families[i],
               (unsigned long long)h.bytes, h.family ? h.family : "no family",
               h.sure ? " (sure)" : "", h.wrong ? ", put offline" : "", online_for);
        assert_false(bw_base_state(b)->online);
        assert_false(h.sure);
        assert_true(online_for < 1.0);
        if (online_for > 0)
            assert_true(h.wrong);
        bw_base_close(b, now);
        bw_port_close(far);
    }
}

/* ---- a TCP server that takes one client at a time ----------------------------------- */

static void wait_readable(int fd)
{
    struct pollfd pfd = { fd, POLLIN, 0 };
    assert_int_equal(poll(&pfd, 1, 5000), 1);
}

/* A server that accepts each connection and closes it at once (a robot
 * server whose one place is taken): the base counts them; one that sends a
 * byte first is a robot that was there. */
static void tcp_closed_at_once(void **state)
{
    (void)state;
    char err[256], url[64];
    bw_listener_t *l;
    assert_int_equal(bw_listener_open(&l, "127.0.0.1", 0, err, sizeof err), 0);
    snprintf(url, sizeof url, "p2os:tcp://127.0.0.1:%d", bw_listener_port(l));
    bw_base_t *b;
    assert_int_equal(bw_base_open(&b, url, NULL, 0, err, sizeof err), 0);
    double now = 0;
    for (unsigned k = 1; k <= 2; k++) {
        bw_port_t *c;
        wait_readable(bw_listener_fd(l));
        assert_int_equal(bw_listener_accept(l, &c), 1);
        bw_port_close(c);
        wait_readable(bw_base_fd(b));
        bw_base_poll(b, now);
        bw_base_heard_t h;
        bw_base_heard(b, &h);
        assert_int_equal(h.closed_unheard, k);
        assert_int_equal(h.bytes, 0);
        now += 0.3; /* past the reopen interval: it connects again */
        bw_base_poll(b, now);
        assert_true(bw_base_fd(b) >= 0);
    }
    /* This time the server says something before it goes. */
    bw_port_t *c;
    wait_readable(bw_listener_fd(l));
    assert_int_equal(bw_listener_accept(l, &c), 1);
    assert_int_equal(bw_port_write(c, (const uint8_t *)"\xfa", 1), 1);
    bw_port_close(c);
    wait_readable(bw_base_fd(b));
    bw_base_poll(b, now);
    bw_base_heard_t h;
    bw_base_heard(b, &h);
    assert_int_equal(h.closed_unheard, 0);
    bw_base_close(b, now);
    bw_listener_close(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sniff_each_family),
        cmocka_unit_test(sniff_no_protocol),
        cmocka_unit_test(every_pairing),
        cmocka_unit_test(lobot_on_kobuki),
        cmocka_unit_test(noise_line),
        cmocka_unit_test(tcp_closed_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
