/* The Create's own docking, as its program runs it (create.h, "Seek Dock"):
 * a Create 2's Seek Dock, a Create 1's Cover and Dock. Codec core: integers
 * only, no allocation; the emulator runs it, and a firmware can.
 *
 * What the robot has to go by is what the Open Interface reports of it: the
 * character its omnidirectional receiver hears (packet 17: a Home Base's red
 * buoy, green buoy, force field), its bumper, cliffs and wheel drops, the
 * charging sources, and its own wheels. The buoys split the space in front
 * of the dock: red alone on the dock's left (as it faces out), green alone
 * on its right, both along its axis, the force field close to its face. An
 * omnidirectional receiver says where the robot is, never which way the
 * dock lies; the robot learns that from its own heading each time it
 * crosses an edge of the overlap. Going from red towards green it is moving
 * to the dock's right, so the dock lies within half a turn clockwise of
 * its heading; towards red, within half a turn anticlockwise. Each crossing
 * halves what it knows (it drives at the middle of what is left), as a
 * bisection does: it rides the overlap at that middle, and from a buoy
 * heard alone heads past the edge of what it knows on that buoy's side,
 * which brings it back into the overlap.
 *
 * The figures (speeds, how far it backs off, how long it seeks) are this
 * program's: iRobot does not publish its docking behaviour.
 */
#include "botwire/create.h"

#include <string.h>

#define PI_URAD BW_CREATE_PI_URAD
#define TWO_PI_URAD INT32_C(6283185)
#define DEG_URAD INT32_C(17453)      /* a degree */
#define SPEED 200            /* mm/s riding or roaming */
#define NEAR_SPEED 100       /* mm/s in the force field */
#define TURN_SPEED 120       /* mm/s of each wheel turning in place */
#define BACK_SPEED 100       /* mm/s backing off */
#define BACK_UM INT32_C(150000) /* how far it backs off what it bumped */
#define LEG_UM INT32_C(1500000) /* a straight leg, without news, before it turns */
#define ALIGN (25 * DEG_URAD) /* further off its heading, it turns in place */
/* A crossing says where the dock lay then; driving on, the robot sees it
 * at another bearing: each crossing's half turn is taken this much wider,
 * and what it knows never narrows below twice that. */
#define DRIFT (5 * DEG_URAD)
#define NARROWEST (2 * DRIFT)
#define PAST (10 * DEG_URAD)  /* heard one buoy alone: this far past the dock's side */
/* A bump, the buoys lost or a leg without a crossing: what it knows, this
 * much wider each way (it was wrong) */
#define WIDER (30 * DEG_URAD)

/* what the receiver hears (seek.side) */
enum { NOTHING = 0, RED, BOTH, GREEN };

/* Angles in 32 bits, sums of a few at most: no 64-bit division for a chip
 * to link. */
static int32_t norm(int32_t a) /* to -pi .. pi */
{
    while (a > PI_URAD)
        a -= TWO_PI_URAD;
    while (a <= -PI_URAD)
        a += TWO_PI_URAD;
    return a;
}

static int32_t positive(int32_t a) /* to 0 .. 2 pi */
{
    a = norm(a);
    return a < 0 ? a + TWO_PI_URAD : a;
}

static int32_t heading(const bw_create_robot_t *r) { return r->heading_urad; }

/* The travel since `mark` (a reading of odo_travel2_um), um; the count
 * wraps, the difference does not. */
static int32_t travel_since(const bw_create_robot_t *r, uint32_t mark)
{
    return (int32_t)(r->odo_travel2_um - mark) / 2;
}

/* What of a Home Base the omnidirectional receiver hears: red, green, both
 * (a remote's character, or none, is nothing), and the force field. */
static int hears(const bw_create_robot_t *r, bool *field)
{
    uint8_t b = r->s.infrared_byte;
    bool red, green;
    if (r->model == BW_CREATE_MODEL_2) {
        if ((b & 0xF0) != BW_CREATE2_IR_DOCK_RESERVED)
            return *field = false, NOTHING;
        red = b & 8, green = b & 4, *field = b & 1;
    } else {
        if ((b & 0xF0) != BW_CREATE_IR_HOME_RESERVED || b == BW_CREATE_IR_NONE)
            return *field = false, NOTHING;
        red = b & 8, green = b & 4, *field = b & 2;
    }
    return red && green ? BOTH : red ? RED : green ? GREEN : NOTHING;
}

/* The dock lies within half a turn (and DRIFT either side) from lo
 * anticlockwise: what was known narrowed to that, or that alone when the
 * two disagree (the newer crossing wins). */
static void narrow(bw_create_seek_t *k, int32_t lo)
{
    lo -= DRIFT;
    int32_t arc = PI_URAD + 2 * DRIFT;
    if (!k->known) {
        k->known = true;
        k->lo_urad = norm(lo);
        k->width_urad = arc;
        return;
    }
    int32_t d = positive(lo - k->lo_urad), w = k->width_urad, a0, a1;
    if (d <= w) {
        a0 = d;
        a1 = d + arc < w ? d + arc : w;
    } else if (d + arc > TWO_PI_URAD) {
        a0 = 0;
        a1 = d + arc - TWO_PI_URAD < w ? d + arc - TWO_PI_URAD : w;
    } else {
        k->lo_urad = norm(lo);
        k->width_urad = arc;
        return;
    }
    if (a1 - a0 < NARROWEST) { /* held open about its middle */
        a0 = (a0 + a1 - NARROWEST) / 2;
        a1 = a0 + NARROWEST;
    }
    k->lo_urad = norm(k->lo_urad + a0);
    k->width_urad = a1 - a0;
}

static int32_t middle(const bw_create_seek_t *k) { return norm(k->lo_urad + k->width_urad / 2); }

/* Where to head hearing `side`: in the overlap, at the middle of what it
 * knows; hearing one buoy alone, past the edge of what it knows on that
 * buoy's side (red alone: anticlockwise of wherever the dock may lie),
 * which takes it towards green, back into the overlap, whichever way in
 * that the dock lies; at most square to the middle. */
static int32_t aim(const bw_create_seek_t *k, int side)
{
    if (side == BOTH)
        return middle(k);
    int32_t past = k->width_urad / 2 + PAST;
    if (past > 90 * DEG_URAD) /* knowing little: square to the middle */
        past = 90 * DEG_URAD;
    return norm(middle(k) + (side == RED ? past : -past));
}

/* What it knows was wrong (a bump short of the contacts, the buoys lost, a
 * leg without a crossing): wider, up to half a turn. */
static void widen(bw_create_seek_t *k)
{
    int32_t w = k->width_urad + 2 * WIDER;
    if (w > PI_URAD)
        w = PI_URAD;
    k->lo_urad = norm(k->lo_urad - (w - k->width_urad) / 2);
    k->width_urad = w;
}

/* A pseudo-random turn of 90 to 180 degrees, anticlockwise. */
static int32_t some_turn(bw_create_seek_t *k)
{
    k->rng = k->rng * 1103515245u + 12345u;
    return 90 * DEG_URAD + (int32_t)((k->rng >> 8) % (90u * DEG_URAD));
}

static bool set_wheels(bw_create_robot_t *r, int32_t left, int32_t right)
{
    bool changed = r->wheel[0] != left || r->wheel[1] != right;
    r->wheel[0] = (int16_t)left;
    r->wheel[1] = (int16_t)right;
    return changed;
}

static bool end(bw_create_robot_t *r, bw_create_seek_result_t why)
{
    r->seek.state = BW_CREATE_SEEK_OFF;
    r->seek.result = (uint8_t)why;
    return set_wheels(r, 0, 0);
}

void bw_create_seek_start(bw_create_robot_t *r, uint32_t now_ms)
{
    bw_create_seek_t *k = &r->seek;
    uint32_t rng = k->rng ? k->rng : 0x2545F491u;
    memset(k, 0, sizeof *k);
    k->rng = rng;
    k->state = BW_CREATE_SEEK_DRIVE;
    k->started_ms = k->now_ms = now_ms;
    k->target_urad = heading(r);
    k->mark_um = r->odo_travel2_um;
}

/* What it heard changed from `was` to `now`, moving at heading `h`: a
 * crossing of the overlap's edges narrows where the dock lies; a buoy lost
 * turns it back towards where it was heard. */
static void heard_change(bw_create_robot_t *r, int was, int now, int32_t h)
{
    bw_create_seek_t *k = &r->seek;
    if (k->state == BW_CREATE_SEEK_DRIVE)
        k->mark_um = r->odo_travel2_um; /* news: a new leg (backing keeps its own mark) */
    if (was != NOTHING && now != NOTHING) {
        k->crossings++;
        /* towards green: the dock within half a turn clockwise of h */
        narrow(k, now > was ? h - PI_URAD : h);
    } else if (now == NOTHING) {
        k->target_urad = norm(heading(r) + 150 * DEG_URAD);
        if (k->known)
            widen(k);
    }
}

bool bw_create_seek_step(bw_create_robot_t *r, uint32_t now_ms)
{
    bw_create_seek_t *k = &r->seek;
    if (k->state == BW_CREATE_SEEK_OFF)
        return false;
    k->now_ms = now_ms;
    const bw_create_sensors_t *s = &r->s;
    if (s->charging_sources & BW_CREATE_SOURCE_HOME_BASE)
        return end(r, BW_CREATE_SEEK_DOCKED);
    if (s->bumps_wheel_drops & (BW_CREATE_WHEEL_DROP_LEFT | BW_CREATE_WHEEL_DROP_RIGHT |
                                BW_CREATE_WHEEL_DROP_CASTER))
        return end(r, BW_CREATE_SEEK_LIFTED);
    if (now_ms - k->started_ms >= BW_CREATE_SEEK_MS)
        return end(r, BW_CREATE_SEEK_GAVE_UP);
    bool field;
    int side = hears(r, &field);
    int32_t h = heading(r);
    bool turning = r->wheel[0] == -r->wheel[1];
    if (side != k->side) {
        if (!turning) /* moving: which way tells where the dock lies */
            heard_change(r, k->side, side, k->state == BW_CREATE_SEEK_BACK ? norm(h + PI_URAD) : h);
        k->side = (uint8_t)side;
    }
    bool bumped = s->bumps_wheel_drops & (BW_CREATE_BUMP_LEFT | BW_CREATE_BUMP_RIGHT);
    bool cliff = s->cliff_left || s->cliff_front_left || s->cliff_front_right || s->cliff_right;
    if (k->state == BW_CREATE_SEEK_BACK) {
        if (travel_since(r, k->mark_um) > -BACK_UM)
            return set_wheels(r, -BACK_SPEED, -BACK_SPEED);
        k->state = BW_CREATE_SEEK_DRIVE;
        k->mark_um = r->odo_travel2_um;
        if (!k->known || side == NOTHING)
            k->target_urad = norm(h + some_turn(k));
    } else if (bumped || cliff) {
        if (k->known)
            widen(k);
        k->state = BW_CREATE_SEEK_BACK;
        k->mark_um = r->odo_travel2_um;
        return set_wheels(r, -BACK_SPEED, -BACK_SPEED);
    }
    /* where to head: by what it knows, hearing the dock; without news for
     * a leg, elsewhere */
    if (travel_since(r, k->mark_um) > LEG_UM) {
        k->mark_um = r->odo_travel2_um;
        if (k->known)
            widen(k);
        else
            k->target_urad = norm(h + some_turn(k));
    }
    if (k->known && side != NOTHING)
        k->target_urad = aim(k, side);
    int32_t off = norm(k->target_urad - h);
    if (off > ALIGN || off < -ALIGN)
        return set_wheels(r, off > 0 ? -TURN_SPEED : TURN_SPEED, off > 0 ? TURN_SPEED : -TURN_SPEED);
    /* the wheels apart by the error times the wheelbase, per second */
    int32_t v = field ? NEAR_SPEED : SPEED;
    int32_t apart = off / 1000 * r->wheelbase_mm / 1000; /* urad to mrad, then mm/s */
    return set_wheels(r, v - apart / 2, v + apart / 2);
}
