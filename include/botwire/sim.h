/*
 * botwire simulation: a 2-D world, a differential-drive body moving in it,
 * and the sensors computed from the two. The emulated robots of every family
 * (robots/<X>/device.c) run on top of this.
 *
 * Time is a parameter: bw_sim_step_to(sim, now) integrates in fixed steps up
 * to `now` (seconds on any clock the caller chooses), so a run goes as fast
 * as the caller steps it, or follows the wall clock. Runs are deterministic
 * for a given seed.
 *
 * Memory: fixed-size structs, no allocation (bw_world_load reads a file),
 * but a fleet's arrays (below).
 * Threads: no shared state; one sim per thread, but a frozen fleet's members
 * (below).
 */
#ifndef BOTWIRE_SIM_H
#define BOTWIRE_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "botwire/geom.h"
#include "botwire/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- world ------------------------------------------------------------- */

#define BW_WORLD_MAX_WALLS 512
#define BW_WORLD_MAX_DROPS 32
#define BW_WORLD_MAX_POLY 16
#define BW_WORLD_MAX_LABELS 16
#define BW_WORLD_LABEL_LEN 24
#define BW_WORLD_MAX_ROBOTS 64
#define BW_WORLD_NAME_LEN 16
#define BW_WORLD_MAX_DOCKS 32

typedef struct {
    bw_vec2_t a, b;
} bw_segment_t;

typedef struct {
    unsigned n; /* 3..BW_WORLD_MAX_POLY vertices */
    bw_vec2_t v[BW_WORLD_MAX_POLY];
} bw_polygon_t;

/* A name on the map, for pictures ("box", "kitchen"). */
typedef struct {
    bw_vec2_t at;
    char text[BW_WORLD_LABEL_LEN]; /* printable, NUL-terminated */
} bw_label_t;

/* A robot the world places, for a fleet of them in one world (`botwire sim
 * --world`): its family, its model ("" for the default), where it starts. */
typedef struct {
    char family[BW_WORLD_NAME_LEN];
    char model[BW_WORLD_NAME_LEN];
    bw_pose_t pose;
} bw_world_robot_t;

/* A docking station. `pose`: the middle of its face, where its charging
 * contacts meet a robot's (at the front of the robot's round body), and
 * the way the face looks (its IR goes out that way; a docked robot faces
 * back along it). `family`: whose robots it charges and signals to
 * ("kobuki"; "create", the Home Base, for the Create, the Create 2 and the
 * Command Module's Create); "" any family's. Behind the face, the dock's
 * back stands across the way in (a wall of the world, BW_DOCK_BACK
 * behind and BW_DOCK_WIDTH wide): a robot pushing on stops there. */
typedef struct {
    bw_pose_t pose;
    char family[BW_WORLD_NAME_LEN];
} bw_dock_t;

#define BW_DOCK_BACK 0.04  /* m from the face to the dock's back */
#define BW_DOCK_WIDTH 0.30 /* m */
/* The contacts touch while the robot's front is within BW_DOCK_REACH of the
 * face's middle and it faces the dock within BW_DOCK_ANGLE. */
#define BW_DOCK_REACH 0.05 /* m */
#define BW_DOCK_ANGLE 0.45 /* rad, about 26 degrees */

/*
 * Walls and obstacles are line segments (a box is four of them); drop-offs
 * (stairs, ledges) are polygons of floor that is not there.
 */
typedef struct {
    double min_x, min_y, max_x, max_y; /* extent, for drawing */
    size_t nwalls;
    bw_segment_t walls[BW_WORLD_MAX_WALLS];
    size_t ndrops;
    bw_polygon_t drops[BW_WORLD_MAX_DROPS];
    size_t ndocks;
    bw_dock_t docks[BW_WORLD_MAX_DOCKS];
    bw_pose_t start; /* where a robot starts */
    size_t nlabels;
    bw_label_t labels[BW_WORLD_MAX_LABELS];
    size_t nrobots;
    bw_world_robot_t robots[BW_WORLD_MAX_ROBOTS];
} bw_world_t;

/* An empty world: no walls, no drops, no dock, start at the origin. */
void bw_world_init(bw_world_t *w);

/*
 * The built-in room: 5 m x 4 m, corner at the origin, walls all round; a
 * 0.5 m box obstacle centred at (3.25, 1.0), labelled "box"; a stairwell drop-off over
 * x 0..1.2, y 3.2..4.0; a dock of any family at (4.9, 3.0) facing -x;
 * start (1.0, 1.0, 0).
 * Driving straight ahead from the start hits the box after 1.75 m (less the
 * robot's radius); turning left and driving 2.2 m reaches the stairs.
 */
void bw_world_default(bw_world_t *w);

/* Builders; each returns 0, or BW_ENOSPC when the world is full, or
 * BW_EINVAL for a degenerate shape. Extents grow to include the shape. */
int bw_world_add_wall(bw_world_t *w, bw_vec2_t a, bw_vec2_t b);
int bw_world_add_box(bw_world_t *w, double x0, double y0, double x1, double y1);
int bw_world_add_polygon(bw_world_t *w, const bw_vec2_t *v, unsigned n); /* closed outline */
int bw_world_add_drop(bw_world_t *w, const bw_vec2_t *v, unsigned n);
int bw_world_add_drop_box(bw_world_t *w, double x0, double y0, double x1, double y1);
/* A dock (and its back, a wall); BW_ENOSPC when the docks or the walls are
 * full, BW_EINVAL for a pose that is not finite or a family name too long. */
int bw_world_add_dock(bw_world_t *w, bw_pose_t pose, const char *family);
/* Whether a dock charges and signals to robots of `family` (its dock
 * family: "kobuki", "create"). */
bool bw_dock_serves(const bw_dock_t *d, const char *family);
/* The dock as a robot at `at` sees it, if at is in front of its face and
 * within `range`: the distance, the azimuth of `at` from the dock's axis
 * (rad, + to the dock's left as it faces out) and the bearing of the dock
 * from the robot (rad, + to the robot's left). False behind it or past. */
bool bw_dock_seen_from(const bw_dock_t *d, bw_pose_t at, double range, double *dist,
                       double *azimuth, double *bearing);
/* Where a round robot of `radius` stands when docked there: in front of
 * the face, facing it. */
bw_pose_t bw_dock_robot_pose(const bw_dock_t *d, double radius);
/* A label; BW_ENOSPC when full, BW_EINVAL for empty, unprintable or too long
 * text (at most BW_WORLD_LABEL_LEN - 1 characters). */
int bw_world_add_label(bw_world_t *w, bw_vec2_t at, const char *text);

/*
 * The world text format, one item a line, '#' comments, lengths in metres,
 * angles in degrees:
 *
 *     size W H                       walls round the rectangle 0..W x 0..H
 *     wall X1 Y1 X2 Y2
 *     box X0 Y0 X1 Y1                rectangular obstacle
 *     polygon X Y X Y X Y ...        obstacle outline (closed)
 *     drop X0 Y0 X1 Y1               rectangular drop-off
 *     droppoly X Y X Y X Y ...
 *     dock X Y HEADING [FAMILY]      a dock: its face's middle, the way it
 *                                    faces; FAMILY kobuki or create (any)
 *     start X Y HEADING
 *     label X Y TEXT...              a name on the map (pictures only)
 *     robot FAMILY[/MODEL] X Y HEADING  a robot of a fleet (botwire sim)
 *
 * A dock a robot could not stand at (off the map, in or against a wall)
 * is refused with its line.
 * Returns 0, or BW_EINVAL with "line N: what is wrong" in err.
 */
int bw_world_parse(bw_world_t *w, const char *text, size_t len, char *err, size_t errlen);
/* Reads and parses a file; BW_EIO with the OS reason in err if unreadable. */
int bw_world_load(bw_world_t *w, const char *path, char *err, size_t errlen);

/* Distance from origin along heading `angle` to the first wall, or max_range
 * if nothing is hit within it. */
double bw_world_raycast(const bw_world_t *w, bw_vec2_t origin, double angle, double max_range);
/* Distance from p to the nearest wall (a large value if there is none); the
 * nearest point is stored in *closest if not NULL. */
double bw_world_clearance(const bw_world_t *w, bw_vec2_t p, bw_vec2_t *closest);
/* True if p is over a drop-off. */
bool bw_world_is_drop(const bw_world_t *w, bw_vec2_t p);

/* ---- the body ------------------------------------------------------------ */

#define BW_BODY_MAX_CLIFF 8

typedef struct {
    double wheelbase;       /* m between the wheels' contact points */
    double radius;          /* m, the body is a circle for collisions */
    double max_wheel_speed; /* m/s */
    double max_accel;       /* m/s^2, per wheel */
    unsigned ncliff;        /* floor (cliff) sensors */
    bw_vec2_t cliff[BW_BODY_MAX_CLIFF]; /* their positions in the robot frame */
    /* Noise grows with distance as a random walk, whatever the step size:
     * after a wheel has turned d metres, its ground travel (slip) and its
     * encoder count (encoder noise) are each off by a normal error of
     * standard deviation k * sqrt(d), k in m per sqrt(m). 0: none. */
    double slip;
    double encoder_noise;
    uint64_t seed;          /* noise seed; same seed, same run */
    double battery_full;    /* V */
    double battery_empty;   /* V, the floor the battery drains to */
    double drain_idle;      /* V/s with motors idle */
    double drain_motion;    /* V/s per m/s of wheel speed */
    double charge_rate;     /* V/s while docked */
    char dock_family[BW_WORLD_NAME_LEN]; /* the docks it charges on ("" any) */
} bw_body_params_t;

/* A generic small differential-drive base (Kobuki-sized), no noise. */
void bw_body_params_default(bw_body_params_t *p);

typedef struct {
    bw_body_params_t prm;
    bw_pose_t pose;            /* true pose in the world */
    double cmd_left, cmd_right; /* commanded wheel speeds, m/s */
    double left, right;        /* actual wheel speeds, m/s (zero while blocked) */
    double v, w;               /* actual body twist, m/s and rad/s */
    double odo_left, odo_right; /* wheel travel the encoders see, m (with noise) */
    bool contact;              /* touching a wall */
    double contact_angle;      /* where, in the robot frame (rad, 0 ahead) */
    bool blocked;              /* the last step's motion was stopped by a wall */
    uint32_t cliff;            /* bit i: cliff sensor i is over a drop */
    bool drop_left, drop_right; /* a wheel is over a drop: the body is stuck */
    double battery;            /* V */
    bool docked;               /* its contacts on a dock's (charging) */
    int dock;                  /* which: the world's docks[dock]; -1 none */
} bw_body_t;

/* ---- the simulation ---------------------------------------------------------- */

struct bw_fleet;

typedef struct {
    const bw_world_t *world; /* not owned; must outlive the sim */
    bw_body_t body;
    double t;                /* simulated time reached, s */
    double dt;               /* physics step, s (default 0.005) */
    uint64_t rng;
    double travelled;        /* m, true path length, for statistics */
    struct bw_fleet *fleet;  /* the robots it shares the world with (NULL: alone) */
    unsigned fleet_slot;     /* its place there */
    /* What the last clearance query proved (body.c): nothing within `free`
     * of `free_at` while the fleet (free_fleet, at version free_gen) shows
     * the same; a step that stays well inside asks nothing. */
    bool free_ok;
    bw_vec2_t free_at;
    double free;
    const struct bw_fleet *free_fleet;
    uint64_t free_gen;
} bw_sim_t;

/* Places a body with these parameters at `start` at time t0. */
void bw_sim_init(bw_sim_t *s, const bw_world_t *world, const bw_body_params_t *prm,
                 bw_pose_t start, double t0);

/* Puts the body at `pose` at once, as a hand lifting the robot there: the
 * wheels stop, a dropped wheel is back on the floor, the sensors are
 * updated; the encoders (odometry) see nothing of it. Returns 0, or
 * BW_ERANGE (and nothing moves) for a place outside the world's extent or
 * where the body would overlap a wall. */
int bw_sim_place(bw_sim_t *s, bw_pose_t pose);
/* The same wherever pose is, as MobileSim moves a robot where its client
 * says (off the map or inside a wall is the client's business): 0 placed
 * on the map, 1 placed outside the world's extent or overlapping a wall,
 * BW_EINVAL (nothing moves) for a pose that is not finite. */
int bw_sim_place_anywhere(bw_sim_t *s, bw_pose_t pose);

/* Commands wheel speeds (m/s, clamped to max_wheel_speed); the body reaches
 * them within the acceleration limit. */
void bw_sim_set_wheels(bw_sim_t *s, double left, double right);
/* Same, from a body twist (v m/s, w rad/s). */
void bw_sim_set_twist(bw_sim_t *s, double v, double w);

/*
 * Integrates up to `now` in steps of dt (a time at or before s->t does
 * nothing). Per step: wheel speeds move toward the command within the
 * acceleration limit (and are zero while a wheel is dropped); the body moves
 * on the resulting arc unless that would bring it closer to a wall than its
 * radius, in which case it stays, `blocked` is set and the wheels stall;
 * contact, cliff bits, wheel drops, battery and docking are updated; the
 * encoder travel accumulates the wheels' motion (slip and encoder noise
 * added when configured).
 */
void bw_sim_step_to(bw_sim_t *s, double now);

/* Range from a sensor mounted on the body (its pose in the robot frame)
 * along its heading to the first wall, or max_range. */
double bw_sim_range(const bw_sim_t *s, bw_pose_t mount, double max_range);

/* ---- a fleet: robots in one world that see each other ----------------------- */

/*
 * Bodies sharing a world, each an obstacle to the others: a circle of its
 * radius in their motion (a body does not drive into another), their
 * contact (bumpers) and their range sensors. A sim joins with
 * bw_fleet_join and leaves with bw_fleet_leave (bw_device_create and
 * bw_device_destroy do both for a device whose options name a fleet). The
 * others are found through a hashed grid of 1 m cells kept as they move, so
 * what a query costs is the robots near it, not the fleet's size. Stepping
 * one sim moves only its body: step every member to the same time in turn.
 *
 * Memory: no fixed limit on members. The fleet's arrays (about 130 bytes a
 * member) grow as members join and are freed when the last one leaves, or
 * by bw_fleet_free.
 *
 * Threads and what a member sees of the others. Live (the default): a
 * member's move is seen by the others at once, so the members are stepped
 * from one thread. Frozen (bw_fleet_freeze): the queries read where each
 * member was at the last bw_fleet_sync (a snapshot), and a member's move
 * writes only its own body and its own entry of the next snapshot. So the
 * members may be stepped from several threads at once (each member from one
 * thread), with a bw_fleet_sync between rounds of steps while no thread
 * steps. A frozen round gives the same result whatever the number of threads
 * and the order of the members: each sees the others where the sync found
 * them.
 */
#define BW_FLEET_MAX 1000000 /* not the fleet's limit: the most the command line takes */

typedef struct {
    double x, y, radius;
} bw_fleet_body_t;

/* A member as the frozen snapshot's grid holds it: where, in which cell,
 * and which member it is. */
typedef struct {
    bw_fleet_body_t at;
    int32_t cx, cy;
    int32_t slot;
} bw_fleet_entry_t;

typedef struct bw_fleet {
    const bw_world_t *world; /* the world every member moves in */
    unsigned n;              /* members */
    unsigned cap;            /* room in the arrays below */
    bw_sim_t **member;
    bw_fleet_body_t *at;     /* where each member is, as the queries see it */
    bw_fleet_body_t *moved;  /* frozen: where each member is now (the next snapshot) */
    int32_t (*cell)[2];      /* each member's grid cell (of `at`) */
    int32_t *next;           /* the next member in the same bucket, -1 */
    int32_t *head;           /* the first member in each bucket, -1 */
    unsigned nbuckets;       /* a power of two, at least twice cap */
    unsigned row;            /* buckets a row of cells spans (fleet.c) */
    double max_radius;       /* of any member so far */
    bool frozen;
    uint64_t gen;            /* counts every change of what the queries see */
    /* Frozen, made at each sync: the snapshot bucket by bucket, each
     * bucket's members side by side in the order of its chain, so a query
     * reads a run of them, not a chain through four arrays. Bucket k's are
     * runs[start[k]] up to runs[start[k + 1]]. */
    bw_fleet_entry_t *runs;
    uint32_t *start;         /* nbuckets + 1 */
    bool runs_ok;            /* runs and start hold the grid as it is... */
    uint64_t runs_gen;       /* ...as of this gen */
} bw_fleet_t;

/* An empty fleet in `world` (which must outlive it). */
void bw_fleet_init(bw_fleet_t *f, const bw_world_t *world);
/* Adds s (already placed; its radius as it will be). Returns 0 (also when
 * it is a member already), BW_ENOMEM when the arrays cannot grow, BW_ENOSPC
 * beyond 2^31 - 1 members. Not while members are being stepped. */
int bw_fleet_join(bw_fleet_t *f, bw_sim_t *s);
/* Takes s out (nothing if it is not a member). */
void bw_fleet_leave(bw_fleet_t *f, bw_sim_t *s);
/* Tells the fleet s has moved (the sim's step does it). */
void bw_fleet_moved(bw_fleet_t *f, bw_sim_t *s);
/* Frozen (true) or live (false); either way the snapshot is taken anew. */
void bw_fleet_freeze(bw_fleet_t *f, bool frozen);
/* Frozen: the moves since the last sync become what the queries see. Live:
 * nothing to do. Never while a member is being stepped. */
void bw_fleet_sync(bw_fleet_t *f);
/* Frees the arrays (the fleet is then empty; members are let go). */
void bw_fleet_free(bw_fleet_t *f);
/* The distance from p to the nearest other member's edge (not s's), if
 * one is within `horizon` of p; else INFINITY. *closest gets the nearest
 * point of its outline. */
double bw_fleet_clearance(const bw_fleet_t *f, const bw_sim_t *s, bw_vec2_t p, double horizon,
                          bw_vec2_t *closest);
/* The nearest other members whose edge is within `horizon` of p, at most
 * cap, nearest first: each one's gap (the distance from p to its edge) and
 * the nearest point of its outline. Returns how many. */
size_t bw_fleet_near(const bw_fleet_t *f, const bw_sim_t *s, bw_vec2_t p, double horizon,
                     double *gap, bw_vec2_t *closest, size_t cap);
/* Distance along the ray to the first other member it hits, or max_range. */
double bw_fleet_raycast(const bw_fleet_t *f, const bw_sim_t *s, bw_vec2_t origin, double angle,
                        double max_range);

/* ---- a bad cable ------------------------------------------------------------ */

/*
 * Line noise on one direction of a link, as a worn cable or a noisy radio
 * gives it: each bit flipped with probability `ber`, each byte lost with
 * probability `drop`, a random byte slipped in before a byte with
 * probability `insert`. Deterministic for a seed. A line with all three at 0
 * passes bytes through unchanged.
 */
typedef struct {
    double ber, drop, insert;
    uint64_t rng;
    uint64_t bits_to_flip; /* bits left before the next flipped one */
    uint64_t flipped, dropped, inserted; /* what it did so far */
} bw_line_t;

/* BW_EINVAL unless 0 <= ber <= 0.1 and 0 <= drop, insert <= 0.5. */
int bw_line_init(bw_line_t *l, double ber, double drop, double insert, uint64_t seed);
/* Passes n bytes through the line into out (at most 2 n bytes, never more
 * than cap); returns the count written. */
size_t bw_line_pass(bw_line_t *l, const uint8_t *in, size_t n, uint8_t *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
