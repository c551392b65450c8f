/* A robot that cannot move while told to says so in its own protocol: every
 * family driven into the built-in room's stairwell and into a wall, its
 * driver's state (what the protocol carried) compared with the emulated
 * body's truth. The sign must come within the family's report period of
 * the body being stuck, counted twice: the driver waits for two reports to
 * agree, as every driver does for bits on the line. lobot is the
 * exception the seed makes: its Command Module backs away by itself and is
 * silent while its reflex runs, then reports it (seed 000); its sign comes
 * when the reflex is done. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "botwire/botwire.h"
#include "run.h"

typedef struct {
    const char *family;
    double lag; /* s: the most the sign may take */
} fam_t;

/* Two report periods and 25 ms of line time; lobot: its reflex (a silence
 * of up to about 5 s: docs/lobot.md) and a report. */
static const fam_t fams[] = {
    { "kobuki", 2 * 0.02 + 0.025 }, { "p2os", 2 * 0.1 + 0.025 },  { "create", 2 * 0.015 + 0.025 },
    { "create?model=create2", 2 * 0.015 + 0.025 }, { "rflex", 2 * 0.1 + 0.025 },
    { "lobot", 5.0 + 0.05 + 0.025 },
};

/* What the driver says of a stuck robot: stalled, a wheel dropped, a cliff
 * (a robot that stops itself at the edge), a bumper pressed. */
static bool says_stuck(const bw_base_state_t *st)
{
    return st->stalled || st->wheel_drops || st->cliffs || st->bumpers;
}

/* What a stock P2OS client (ARIA) reads: each SIP's stall bits as it comes,
 * from the bytes on the line (a tap), with the time of the first one set. */
typedef struct {
    bw_p2os_parser_t parser;
    double first_stall; /* -1: none yet */
    double since;       /* only SIPs from then on count */
} sip_tap_t;

static void sip_tap(void *ctx, bool from_robot, const uint8_t *data, size_t n, double now)
{
    sip_tap_t *t = ctx;
    if (!from_robot)
        return;
    bw_p2os_frame_t f;
    int rc;
    while ((rc = bw_p2os_parse(&t->parser, &data, &n, &f)) != 0) {
        bw_p2os_msg_t m;
        if (rc == 1 && bw_p2os_decode(BW_P2OS_FROM_ROBOT, f.body, f.len, &m) == 0 &&
            m.type == BW_P2OS_SIP && now >= t->since && t->first_stall < 0 &&
            (m.u.sip.stall_bump & (BW_P2OS_STALL_LEFT | BW_P2OS_STALL_RIGHT)))
            t->first_stall = now;
    }
}

static bool body_stuck(const bw_sim_t *s)
{
    return s->body.blocked || s->body.drop_left || s->body.drop_right;
}

/* Drives ahead from start until the body is stuck (or a hazard stopped it:
 * the base's own reflex, a cliff), then checks the driver's state. */
static void into(const fam_t *f, const char *start, const char *what, bool need_stall)
{
    char url[160];
    snprintf(url, sizeof url, "sim:%s%sstart=%s", f->family, strchr(f->family, '?') ? "&" : "?",
             start);
    run_t r;
    run_open(&r, url);
    static sip_tap_t tap;
    bool p2os = !strcmp(f->family, "p2os");
    if (p2os) {
        bw_p2os_parser_init(&tap.parser);
        tap.first_stall = -1;
        tap.since = INFINITY;
        bw_base_set_tap(r.b, sip_tap, &tap);
    }
    double stuck_at = -1, said_at = -1;
    for (double end = r.now + 10; r.now < end && said_at < 0;) {
        bw_base_drive(r.b, 0.2, 0, r.now);
        run_step(&r);
        bool hazard = body_stuck(r.sim) || r.sim->body.cliff != 0;
        if (stuck_at < 0 && hazard)
            stuck_at = tap.since = r.now;
        if (stuck_at >= 0 && (need_stall ? r.st->stalled : says_stuck(r.st)))
            said_at = r.now;
    }
    if (stuck_at < 0)
        fail_msg("%s %s: the body never got stuck (at %.2f, %.2f)", f->family, what,
                 r.sim->body.pose.x, r.sim->body.pose.y);
    if (said_at < 0)
        fail_msg("%s %s: stuck at t=%.2f, its driver never said so (stalled %d, drops %u, "
                 "cliffs %u, bumpers %u, v %.3f)",
                 f->family, what, stuck_at, r.st->stalled, r.st->wheel_drops, r.st->cliffs,
                 r.st->bumpers, r.st->v);
    double lag = said_at - stuck_at;
    printf("%s into %s: stuck at %.3f s, said %.3f s later\n", f->family, what, stuck_at, lag);
    if (p2os) {
        /* On the wire, the first SIP after it is stuck says so: within one
         * SIP period (and a SIP's 9600-baud line time). */
        double wire = tap.first_stall - stuck_at;
        printf("  the stall bits on the wire %.3f s after\n", wire);
        if (!(tap.first_stall >= 0 && wire <= 0.1 + 0.06))
            fail_msg("p2os %s: the SIPs' stall bits %.3f s after it got stuck", what, wire);
        bw_base_set_tap(r.b, NULL, NULL);
    }
    if (lag > f->lag)
        fail_msg("%s %s: said %.3f s after it got stuck (at most %.3f s)", f->family, what, lag,
                 f->lag);
    bw_base_close(r.b, r.now);
}

/* The stairwell of the built-in room: x 0..1.2 m, y 3.2..4 m. Heading up
 * into it from below. */
static void test_into_the_stairwell(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
        /* A Pioneer and a B21r have no cliff sensors: only their stall says it. */
        into(&fams[i], "0.6,2.6,90", "the stairwell",
             !strcmp(fams[i].family, "p2os") || !strcmp(fams[i].family, "rflex"));
}

/* The room's east wall, x = 5 m. */
static void test_into_a_wall(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
        /* A P2-DX has no bumpers: its stall bits are all it has. */
        into(&fams[i], "4.2,2,0", "a wall", !strcmp(fams[i].family, "p2os"));
}

/* The RoboBuggy has no stall sign but its drive encoder: 87 mm a tick. Stuck
 * (a wheel in a ditch, the nose against a wall) while rolling at about
 * 0.8 m/s, its ticks stop; the driver's speed, the most the ticks allow
 * (a tick's distance over the time since the last), falls below a fifth
 * within 0.6 s, and the count stands still. */
static void buggy_into(const char *world_text, const char *what)
{
    char path[] = "/tmp/botwire-stuck-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(world_text, f);
    fclose(f);
    char url[200];
    snprintf(url, sizeof url, "sim:rbsm?push=1&world=%s", path);
    run_t r;
    run_open(&r, url);
    double stuck_at = -1;
    int64_t count = 0;
    for (double end = r.now + 12; r.now < end;) {
        bw_base_drive(r.b, 1, 0, r.now); /* roll, do not brake */
        run_step(&r);
        if (stuck_at < 0 && body_stuck(r.sim))
            stuck_at = r.now;
        if (stuck_at >= 0 && r.now >= stuck_at + 0.15 && count == 0)
            count = r.st->encoder[0];
        if (stuck_at >= 0 && r.now >= stuck_at + 0.6)
            break;
    }
    unlink(path);
    if (stuck_at < 0)
        fail_msg("rbsm %s: never stuck (x %.2f)", what, r.sim->body.pose.x);
    printf("rbsm into %s: stuck at %.3f s; 0.6 s later v %.3f m/s, ticks %lld then %lld\n", what,
           stuck_at, r.st->v, (long long)count, (long long)r.st->encoder[0]);
    assert_true(r.st->v < 0.8 / 5);
    assert_true(count > 0 && r.st->encoder[0] == count);
    bw_base_close(r.b, r.now);
}

static void test_buggy_stuck(void **state)
{
    (void)state;
    buggy_into("size 12 4\nstart 1 2 0\ndrop 5 0 6 4\n", "a ditch");
    buggy_into("size 12 4\nstart 1 2 0\nbox 5 1 6 3\n", "a wall");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_into_the_stairwell),
        cmocka_unit_test(test_into_a_wall),
        cmocka_unit_test(test_buggy_stuck),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
