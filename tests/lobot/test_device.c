/* The emulated lobot, driven as the Robolocust high level drives it: raw
 * four-byte commands answered to READY, ACKs read back. Virtual time. The
 * Command Module's program inside talks Open Interface to the emulated
 * Create, so the OI is exercised end to end. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "botwire/botwire.h"

typedef struct {
    bw_device_t *dev;
    double now;
    bw_lobot_ack_parser_t parser;
    /* What the low level said, in order. */
    bw_lobot_ack_t acks[4096];
    size_t nacks;
    size_t readies;
    /* The next command to answer READY with (id 0: none, stay silent). */
    uint8_t reply_id;
    int16_t reply_param;
    bool once; /* send it once, then fall back to NOP */
} rig_t;

static bw_world_t world;

static void open_rig(rig_t *r, const bw_world_t *w, double window)
{
    memset(r, 0, sizeof *r);
    bw_device_options_t o;
    bw_device_options_init(&o);
    o.world = w;
    o.command_timeout = window;
    char err[128];
    assert_int_equal(bw_device_create(&r->dev, "lobot", &o, 0.0, err, sizeof err), 0);
    bw_lobot_ack_parser_init(&r->parser);
    r->reply_id = BW_LOBOT_CMD_NOP;
}

static void send_cmd(rig_t *r, uint8_t id, int16_t param)
{
    uint8_t c[4];
    assert_int_equal(bw_lobot_encode_cmd(c, sizeof c, id, param), 4);
    bw_device_input(r->dev, c, 4, r->now);
}

/* Reads what the low level sent; answers each READY with the reply set. */
static void collect(rig_t *r)
{
    uint8_t buf[8192];
    size_t n = bw_device_output(r->dev, buf, sizeof buf);
    const uint8_t *d = buf;
    bw_lobot_ack_frame_t f;
    while (bw_lobot_ack_parse(&r->parser, &d, &n, &f) > 0) {
        bw_lobot_ack_t a;
        assert_int_equal(bw_lobot_decode_ack(f.id, f.data, f.len, &a), 0);
        if (r->nacks < sizeof r->acks / sizeof r->acks[0])
            r->acks[r->nacks++] = a;
        if (a.id == BW_LOBOT_ACK_READY) {
            r->readies++;
            if (r->reply_id) {
                send_cmd(r, r->reply_id, r->reply_param);
                if (r->once)
                    r->reply_id = BW_LOBOT_CMD_NOP, r->reply_param = 0, r->once = false;
            }
        }
    }
    assert_int_equal(r->parser.stats.skipped_bytes, 0); /* the low level never garbles */
}

static void advance(rig_t *r, double seconds)
{
    for (double end = r->now + seconds; r->now < end - 1e-9;) {
        r->now = fmin(end, r->now + 0.005);
        bw_device_step(r->dev, r->now);
        collect(r);
    }
}

static const bw_lobot_ack_t *last(const rig_t *r, uint8_t id)
{
    for (size_t i = r->nacks; i-- > 0;)
        if (r->acks[i].id == id)
            return &r->acks[i];
    return NULL;
}

static const bw_body_t *body(rig_t *r) { return &bw_device_sim(r->dev)->body; }

/* READY and SENSORS every cycle; FORWARD moves the Create, STOP stops it. */
static void test_cycle_and_drive(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL, 0);
    advance(&r, 1.0);
    assert_true(r.readies >= 10);
    const bw_lobot_ack_t *s = last(&r, BW_LOBOT_ACK_SENSORS);
    assert_non_null(s);
    assert_int_equal(s->u.sensors.oi.oi_mode, BW_CREATE_MODE_FULL);
    assert_int_equal(s->u.sensors.spin_flag, 0);
    r.reply_id = BW_LOBOT_CMD_FORWARD;
    r.reply_param = 200;
    r.once = true;
    advance(&r, 1.0);
    assert_true(fabs(body(&r)->v - 0.2) < 1e-6);
    s = last(&r, BW_LOBOT_ACK_SENSORS);
    assert_int_equal(s->u.sensors.oi.requested_speed, 200);
    r.reply_id = BW_LOBOT_CMD_STOP;
    r.once = true;
    advance(&r, 0.5);
    assert_true(fabs(body(&r)->v) < 1e-9);
    bw_device_destroy(r.dev);
}

/* A command that comes while the Command Module's USART is the Create's is
 * never heard; inside the window it is. The deployed window, 250 ms. */
static void test_outside_the_window(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL, 0.25);
    r.reply_id = 0; /* stay silent: each window times out */
    advance(&r, 0.5);
    size_t ready_at = r.readies;
    assert_true(ready_at > 0);
    /* Right after a READY the USART listens; 260 ms later it talks to the
     * Create again (or waits for its answer). */
    while (r.readies == ready_at)
        advance(&r, 0.001);
    advance(&r, 0.26);
    assert_false(bw_lobot_device_program(r.dev)->usb);
    send_cmd(&r, BW_LOBOT_CMD_FORWARD, 300);
    advance(&r, 1.0);
    assert_true(fabs(body(&r)->v) < 1e-9);
    assert_int_equal(bw_lobot_device_unheard(r.dev), 4);
    assert_int_equal(bw_device_stats(r.dev)->link.frames, 0);
    /* Inside the window: executed. */
    r.reply_id = BW_LOBOT_CMD_FORWARD;
    r.reply_param = 300;
    r.once = true;
    advance(&r, 1.0);
    assert_true(fabs(body(&r)->v - 0.3) < 1e-6);
    bw_device_destroy(r.dev);
}

/* Silence through a window is STOP, as is a bad parity or an unknown id. */
static void test_silence_parity_unknown_stop(void **state)
{
    (void)state;
    for (int how = 0; how < 3; how++) {
        rig_t r;
        open_rig(&r, NULL, 0.25);
        r.reply_id = BW_LOBOT_CMD_FORWARD;
        r.reply_param = 200;
        r.once = true;
        advance(&r, 0.5);
        assert_true(fabs(body(&r)->v - 0.2) < 1e-6);
        if (how == 0) {
            r.reply_id = 0; /* silence */
        } else {
            /* One answer that is not a command: parity off by one bit, or an
             * id nobody defined. */
            r.reply_id = 0;
            size_t at = r.readies;
            while (r.readies == at)
                advance(&r, 0.001);
            uint8_t c[4];
            bw_lobot_encode_cmd(c, sizeof c, how == 1 ? BW_LOBOT_CMD_FORWARD : 'Z', 200);
            if (how == 1)
                c[3] ^= 0x01;
            bw_device_input(r.dev, c, 4, r.now);
            advance(&r, 0.02);
            assert_true(fabs(body(&r)->cmd_left) < 1e-9); /* stopped within the cycle */
            r.reply_id = BW_LOBOT_CMD_NOP;
        }
        advance(&r, 0.5);
        assert_true(fabs(body(&r)->v) < 1e-9);
        const bw_parse_stats_t *st = &bw_device_stats(r.dev)->link;
        assert_int_equal(st->checksum_errors, how == 1);
        assert_int_equal(st->unknown, how == 2);
        bw_device_destroy(r.dev);
    }
}

/* Into the box: BUMPS with the back-up (negative) and the spin away from
 * the side hit; the motion in the next SENSORS, spin flag 1. */
static void test_bump_reaction(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL, 0);
    r.reply_id = BW_LOBOT_CMD_FORWARD;
    r.reply_param = 300;
    r.once = true;
    advance(&r, 10.0);
    const bw_lobot_ack_t *b = last(&r, BW_LOBOT_ACK_BUMPS);
    assert_non_null(b);
    /* Head on into the box: both bumpers, back 300 mm, spin -30 degrees. */
    assert_int_equal(b->u.bumps.flags & (BW_CREATE_BUMP_LEFT | BW_CREATE_BUMP_RIGHT),
                     BW_CREATE_BUMP_LEFT | BW_CREATE_BUMP_RIGHT);
    assert_true(b->u.bumps.distance < -250 && b->u.bumps.distance > -330);
    assert_true(b->u.bumps.angle <= -25 && b->u.bumps.angle >= -35);
    /* The SENSORS after it carries that motion, spin flag set. */
    size_t i = (size_t)(b - r.acks);
    const bw_lobot_ack_t *s = NULL;
    for (size_t k = i + 1; k < r.nacks && !s; k++)
        if (r.acks[k].id == BW_LOBOT_ACK_SENSORS)
            s = &r.acks[k];
    assert_non_null(s);
    assert_int_equal(s->u.sensors.spin_flag, 1);
    /* The reaction, plus the last bit forward into the box before it. */
    assert_true(s->u.sensors.oi.distance >= b->u.bumps.distance &&
                s->u.sensors.oi.distance <= b->u.bumps.distance + 40);
    assert_true(abs(s->u.sensors.oi.angle - b->u.bumps.angle) <= 1);
    bw_device_destroy(r.dev);
}

/* Turn left and drive to the stairwell: CLIFFS, backed away. */
static void test_cliff_reaction(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL, 0);
    r.reply_id = BW_LOBOT_CMD_SPIN;
    r.reply_param = 90;
    r.once = true;
    advance(&r, 2.5);
    r.reply_id = BW_LOBOT_CMD_FORWARD;
    r.reply_param = 200;
    r.once = true;
    advance(&r, 15.0);
    const bw_lobot_ack_t *c = last(&r, BW_LOBOT_ACK_CLIFFS);
    assert_non_null(c);
    assert_true(c->u.cliffs.flags != 0);
    assert_true(c->u.cliffs.distance < 0);
    /* Backed away, still on the floor. */
    const bw_body_t *bd = body(&r);
    assert_false(bd->drop_left || bd->drop_right);
    assert_true(bd->pose.y < 3.2 - 0.1);
    bw_device_destroy(r.dev);
}

/* A hole under the left wheel's track that the cliff sensors pass beside:
 * the wheel drops, the robot stops at once, WHEEL_DROPS, no READY after. */
static void test_wheel_drop_stops(void **state)
{
    (void)state;
    bw_world_t w;
    bw_world_default(&w);
    assert_int_equal(bw_world_add_drop_box(&w, 1.5, 1.1285, 1.7, 1.1295), 0);
    rig_t r;
    open_rig(&r, &w, 0);
    r.reply_id = BW_LOBOT_CMD_FORWARD;
    r.reply_param = 200;
    r.once = true;
    advance(&r, 5.0);
    const bw_lobot_ack_t *d = last(&r, BW_LOBOT_ACK_WHEEL_DROPS);
    assert_non_null(d);
    assert_int_equal(d->u.wheel_drops.flags & BW_CREATE_WHEEL_DROP_LEFT, BW_CREATE_WHEEL_DROP_LEFT);
    assert_true(body(&r)->cmd_left == 0 && body(&r)->cmd_right == 0);
    /* Held off: no READY while the wheel hangs. */
    size_t readies = r.readies;
    advance(&r, 1.0);
    assert_int_equal(r.readies, readies);
    bw_device_destroy(r.dev);
}

/* SPIN 90: the robot turns 90 degrees, within 3; the SENSORS after it says
 * so with the spin flag. */
static void test_spin_90(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL, 0);
    advance(&r, 0.3);
    double th0 = body(&r)->pose.theta;
    r.reply_id = BW_LOBOT_CMD_SPIN;
    r.reply_param = 90;
    r.once = true;
    size_t from = r.nacks;
    advance(&r, 3.0);
    double turned = bw_angle_diff(body(&r)->pose.theta, th0) * 180 / BW_PI;
    print_message("SPIN 90 turned %.2f degrees\n", turned);
    assert_true(fabs(turned - 90) <= 3);
    int reported = 0;
    bool flagged = false;
    for (size_t k = from; k < r.nacks; k++)
        if (r.acks[k].id == BW_LOBOT_ACK_SENSORS) {
            reported += r.acks[k].u.sensors.oi.angle;
            flagged |= r.acks[k].u.sensors.spin_flag == 1;
        }
    assert_true(flagged);
    assert_true(abs(reported - 90) <= 3);
    bw_device_destroy(r.dev);
}

/* The remote drives: ACK_REMOTE with its code, the host held off. */
static void test_remote(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL, 0);
    advance(&r, 0.3);
    assert_int_equal(bw_create_device_remote(r.dev, BW_CREATE_IR_FORWARD), 0);
    size_t readies = r.readies;
    advance(&r, 0.5);
    const bw_lobot_ack_t *rm = last(&r, BW_LOBOT_ACK_REMOTE);
    assert_non_null(rm);
    assert_int_equal(rm->u.remote.infrared_byte, BW_CREATE_IR_FORWARD);
    assert_true(body(&r)->v > 0.1);
    assert_int_equal(r.readies, readies);
    assert_int_equal(bw_create_device_remote(r.dev, BW_CREATE_IR_NONE), 0);
    advance(&r, 0.5);
    assert_true(r.readies > readies);
    assert_int_equal(bw_create_device_remote(NULL, 1), BW_EINVAL);
    bw_device_destroy(r.dev);
}

/* Rear bumpers count only once enabled. */
static void test_rear_bumps(void **state)
{
    (void)state;
    bw_world_t w;
    bw_world_default(&w);
    w.start = (bw_pose_t){ 2.6, 1.0, BW_PI }; /* the box right behind */
    rig_t r;
    open_rig(&r, &w, 0);
    r.reply_id = BW_LOBOT_CMD_REVERSE;
    r.reply_param = 100;
    r.once = true;
    advance(&r, 3.0);
    assert_null(last(&r, BW_LOBOT_ACK_BUMPS));
    const bw_lobot_ack_t *s = last(&r, BW_LOBOT_ACK_SENSORS);
    assert_true(s->u.sensors.oi.bumps_wheel_drops & BW_LOBOT_BUMP_REAR_BOTH);
    r.reply_id = BW_LOBOT_CMD_ENABLE_REAR_BUMPS;
    r.once = true;
    advance(&r, 2.0);
    const bw_lobot_ack_t *b = last(&r, BW_LOBOT_ACK_BUMPS);
    assert_non_null(b);
    assert_true(b->u.bumps.flags & BW_LOBOT_BUMP_ACK_REAR_BOTH);
    assert_true(b->u.bumps.distance > 0); /* forward, away */
    bw_device_destroy(r.dev);
}

/* One rear switch at a time (the box's edge behind the robot's left, then
 * its right): the notes' table, "rear left +75/+10, rear right +75/-10": moved
 * forward, away, and turned counter-clockwise for the left, clockwise for
 * the right, as the emulated robot truly turned. */
static void test_rear_bump_sides(void **state)
{
    (void)state;
    static const struct {
        double y;      /* the robot's centre: its left or its right overlaps the box */
        uint8_t flag;  /* BUMPS ACK bit */
        double turn;   /* sign of the turn */
    } sides[] = {
        /* facing -x, its left is -y: above the box (y 0.75 to 1.25) only its
         * left rear meets the box's edge, below it only its right rear */
        { 1.38, BW_LOBOT_BUMP_ACK_REAR_LEFT, +1 },
        { 0.62, BW_LOBOT_BUMP_ACK_REAR_RIGHT, -1 },
    };
    for (size_t k = 0; k < 2; k++) {
        bw_world_t w;
        bw_world_default(&w);
        w.start = (bw_pose_t){ 2.6, sides[k].y, BW_PI };
        rig_t r;
        open_rig(&r, &w, 0);
        r.reply_id = BW_LOBOT_CMD_ENABLE_REAR_BUMPS;
        r.once = true;
        advance(&r, 0.5);
        r.reply_id = BW_LOBOT_CMD_REVERSE;
        r.reply_param = 100;
        r.once = true;
        double heading = body(&r)->pose.theta;
        advance(&r, 6.0);
        const bw_lobot_ack_t *b = last(&r, BW_LOBOT_ACK_BUMPS);
        assert_non_null(b);
        assert_int_equal(b->u.bumps.flags, sides[k].flag);
        assert_true(b->u.bumps.distance > 0);               /* forward, away */
        assert_true(b->u.bumps.angle * sides[k].turn > 5); /* about 10 degrees */
        double turned = bw_angle_diff(body(&r)->pose.theta, heading) * 180 / BW_PI;
        assert_true(turned * sides[k].turn > 5 && turned * sides[k].turn < 15);
        bw_device_destroy(r.dev);
    }
}

/* One cliff sensor at a time: the robot heading +y just right of the
 * stairwell's edge (x = 1.2) has only its left sensor over the drop. The
 * seed's CLIFFS flags: "Bit #3 ... the left cliff sensor". */
static void test_cliff_left_alone(void **state)
{
    (void)state;
    bw_world_t w;
    bw_world_default(&w);
    w.start = (bw_pose_t){ 1.30, 2.5, BW_PI / 2 };
    rig_t r;
    open_rig(&r, &w, 0);
    r.reply_id = BW_LOBOT_CMD_FORWARD;
    r.reply_param = 150;
    r.once = true;
    advance(&r, 8.0);
    const bw_lobot_ack_t *c = last(&r, BW_LOBOT_ACK_CLIFFS);
    assert_non_null(c);
    assert_int_equal(c->u.cliffs.flags, BW_LOBOT_CLIFF_LEFT);
    assert_int_equal(BW_LOBOT_CLIFF_LEFT, 1u << 3);
    bw_device_destroy(r.dev);
}

/* The seed's window: "if sent within a predefined timeout window (usually,
 * 1.5 seconds)". A host that stays silent sees READY again a window and a
 * cycle later. */
static void test_default_window_is_the_seeds(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL, 0); /* the default */
    r.reply_id = 0;
    advance(&r, 0.3);
    double t[3];
    for (int i = 0; i < 3; i++) {
        size_t at = r.readies;
        while (r.readies == at)
            advance(&r, 0.001);
        t[i] = r.now;
    }
    for (int i = 1; i < 3; i++)
        assert_true(t[i] - t[i - 1] >= 1.5 && t[i] - t[i - 1] < 1.6);
    bw_device_destroy(r.dev);
}

/* The program stops the robot when its host goes: silence through a window
 * is STOP. The emulator says so first (what `botwire sim lobot` prints
 * after where it serves), with its window. */
static void test_stops_when_the_host_goes(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL, 0.25);
    char line[256];
    assert_int_equal(bw_device_next_notice(r.dev, line, sizeof line), 1);
    assert_non_null(strstr(line, "stops the robot"));
    assert_non_null(strstr(line, "250 ms"));
    r.reply_id = BW_LOBOT_CMD_FORWARD;
    r.reply_param = 200;
    r.once = true;
    advance(&r, 1.0);
    assert_true(fabs(body(&r)->v - 0.2) < 1e-6);
    r.reply_id = 0; /* the host is gone */
    advance(&r, 0.4);
    assert_true(fabs(body(&r)->cmd_left) < 1e-9 && fabs(body(&r)->cmd_right) < 1e-9);
    bw_device_destroy(r.dev);
}

/* The seed's window, at its edges: "When the low level sends ACK_READY, the
 * high level can be assured that its command, if sent within a predefined
 * timeout window (usually, 1.5 seconds), will be received and executed by
 * the robot." By default a command 1.45 s after READY is executed; one
 * 1.52 s after it comes when the USART is the Create's again (carrying out
 * the STOP the silence was): never heard. */
static void test_default_window_edges(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL, 0); /* the default */
    assert_int_equal(bw_lobot_device_program(r.dev)->cfg.window_ms, 1500);
    r.reply_id = 0; /* the test sends by hand */
    advance(&r, 0.3);
    size_t at = r.readies;
    while (r.readies == at)
        advance(&r, 0.001);
    advance(&r, 1.45);
    assert_true(bw_lobot_device_program(r.dev)->usb); /* still listening */
    send_cmd(&r, BW_LOBOT_CMD_FORWARD, 200);
    advance(&r, 0.3);
    print_message("a command 1.45 s after READY: v %.3f m/s\n", body(&r)->v);
    assert_true(fabs(body(&r)->v - 0.2) < 1e-6); /* received and executed */
    /* The next READY: silent past the window, then the command. */
    at = r.readies;
    while (r.readies == at)
        advance(&r, 0.001);
    advance(&r, 1.52);
    assert_false(bw_lobot_device_program(r.dev)->usb);
    assert_true(fabs(body(&r)->v) < 1e-9); /* the silence was STOP */
    size_t unheard = bw_lobot_device_unheard(r.dev);
    send_cmd(&r, BW_LOBOT_CMD_FORWARD, 300);
    advance(&r, 0.5);
    assert_int_equal(bw_lobot_device_unheard(r.dev), unheard + 4);
    assert_true(fabs(body(&r)->v) < 1e-9);
    bw_device_destroy(r.dev);
}

/* The seed on SPIN's sign (the BUMPS and CLIFFS angle, the same for the
 * program's turns): "Positive values indicate counterclockwise turns and
 * negative values are for clockwise turns." SPIN -90: the emulated robot
 * truly turns 90 degrees clockwise, and the SENSORS after it say -90. */
static void test_spin_clockwise(void **state)
{
    (void)state;
    rig_t r;
    open_rig(&r, NULL, 0);
    advance(&r, 0.3);
    double th0 = body(&r)->pose.theta;
    r.reply_id = BW_LOBOT_CMD_SPIN;
    r.reply_param = -90;
    r.once = true;
    size_t from = r.nacks;
    advance(&r, 3.0);
    double turned = bw_angle_diff(body(&r)->pose.theta, th0) * 180 / BW_PI;
    print_message("SPIN -90 turned %.2f degrees\n", turned);
    assert_true(fabs(turned + 90) <= 3);
    int reported = 0;
    for (size_t k = from; k < r.nacks; k++)
        if (r.acks[k].id == BW_LOBOT_ACK_SENSORS)
            reported += r.acks[k].u.sensors.oi.angle;
    assert_true(abs(reported + 90) <= 3);
    bw_device_destroy(r.dev);
}

/* The mirror of test_cliff_left_alone: heading -x just below the
 * stairwell's edge (y = 3.2), only the right sensor is over the drop. The
 * seed's CLIFFS flags: "bit #0 for the right cliff sensor"; its SENSORS
 * bytes 3-6 "are flags indicating whether the cliff sensors are active",
 * left, front left, front right, right; and the reaction turns away from
 * the side: counter-clockwise (positive) for the right. */
static void test_cliff_right_alone(void **state)
{
    (void)state;
    bw_world_t w;
    bw_world_default(&w);
    w.start = (bw_pose_t){ 2.5, 3.10, BW_PI };
    rig_t r;
    open_rig(&r, &w, 0);
    r.reply_id = BW_LOBOT_CMD_FORWARD;
    r.reply_param = 150;
    r.once = true;
    double heading = body(&r)->pose.theta;
    advance(&r, 12.0);
    const bw_lobot_ack_t *c = last(&r, BW_LOBOT_ACK_CLIFFS);
    assert_non_null(c);
    assert_int_equal(c->u.cliffs.flags, BW_LOBOT_CLIFF_RIGHT);
    assert_int_equal(BW_LOBOT_CLIFF_RIGHT, 1u << 0);
    assert_true(c->u.cliffs.angle > 0);
    double turned = bw_angle_diff(body(&r)->pose.theta, heading) * 180 / BW_PI;
    print_message("right cliff: backed %d mm, turned %d (truly %.1f) degrees\n",
                  c->u.cliffs.distance, c->u.cliffs.angle, turned);
    assert_true(turned > 5);
    bw_device_destroy(r.dev);
}

int main(void)
{
    bw_world_default(&world);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycle_and_drive),
        cmocka_unit_test(test_outside_the_window),
        cmocka_unit_test(test_silence_parity_unknown_stop),
        cmocka_unit_test(test_bump_reaction),
        cmocka_unit_test(test_cliff_reaction),
        cmocka_unit_test(test_wheel_drop_stops),
        cmocka_unit_test(test_spin_90),
        cmocka_unit_test(test_remote),
        cmocka_unit_test(test_rear_bumps),
        cmocka_unit_test(test_rear_bump_sides),
        cmocka_unit_test(test_cliff_left_alone),
        cmocka_unit_test(test_default_window_is_the_seeds),
        cmocka_unit_test(test_default_window_edges),
        cmocka_unit_test(test_spin_clockwise),
        cmocka_unit_test(test_cliff_right_alone),
        cmocka_unit_test(test_stops_when_the_host_goes),
    };
    return cmocka_run_group_tests_name("lobot emulated robot", tests, NULL, NULL);
}
