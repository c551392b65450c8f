/*
 * botwire behaviours: motion on top of the base API, the same for every
 * family. A behaviour looks at the base's state and answers a motion; it
 * never reads a clock or touches a port, so it runs unchanged on a real
 * robot and in virtual time.
 *
 * Most of this header is the control layer of seed 003, GRL's interface to
 * RWI bases, as C over the base API so it works on every base botwire
 * drives: poses and their tolerances, rt-vectors and base motor vectors,
 * behaviours and their arbitration (drive-base), passive braking, the
 * higher-order operators, sonar-safe, and calibrated sonar pings. GRL's
 * signals are functions of time; here each is computed on demand from the
 * base's state (bw_base_state_t: bump switches, sonar readings with the
 * pose each was taken at, position, orientation, voltage, the measured
 * axes), and a behaviour is called once per control tick.
 */
#ifndef BOTWIRE_BEHAVE_H
#define BOTWIRE_BEHAVE_H

#include "botwire/base.h"
#include "botwire/geom.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Drives a square of side `side` metres, turning left at each corner, by
 * odometry: straight legs toward each corner holding the leg's heading,
 * slowing as the corner nears, then turns in place to the next heading; it
 * ends at the start pose. Corners within 1 mm, headings within 0.2 degree.
 */
typedef struct {
    bw_pose_t start;
    double side;
    double v_max, w_max; /* m/s, rad/s */
    int leg;             /* 0..3, 4 when done */
    bool turning;
} bw_square_t;

void bw_square_init(bw_square_t *sq, bw_pose_t start, double side, double v_max, double w_max);
/* The twist for the current pose: returns 1 with *v, *w while the square
 * goes on, 0 (and a zero twist) once it is complete. */
int bw_square_step(bw_square_t *sq, bw_pose_t pose, double *v, double *w);
/* Which corner the square is heading for (1..4), or 0 when done. */
int bw_square_corner(const bw_square_t *sq);

/* ---- GRL: data types ------------------------------------------------------ */

/* An rt-vector: a translational and a rotational part (m/s and rad/s for a
 * velocity; per second for an acceleration; fractions of the base's
 * standard for a torque). */
typedef struct {
    double t, r;
} bw_rt_t;

static inline bw_rt_t bw_rt(double t, double r) { return (bw_rt_t){ t, r }; }

/* Poses: constructors and the position accessor (x, y and theta are the
 * struct's). */
bw_pose_t bw_pose_xy(bw_vec2_t position, double orientation);
bw_pose_t bw_pose_make(double x, double y, double orientation);
bw_vec2_t bw_pose_position(bw_pose_t p);

/* Egocentric <-> global, for xy-vectors (points) and for poses; robot is
 * the robot's global pose. */
bw_vec2_t bw_egocentric_to_global(bw_pose_t robot, bw_vec2_t v);
bw_vec2_t bw_global_to_egocentric(bw_pose_t robot, bw_vec2_t v);
bw_pose_t bw_egocentric_to_global_pose(bw_pose_t robot, bw_pose_t p);
bw_pose_t bw_global_to_egocentric_pose(bw_pose_t robot, bw_pose_t p);

/* A pose tolerance: radians and metres; NAN leaves that part out ("don't
 * care", GRL's #f). */
typedef struct {
    double angular, distance;
} bw_pose_tol_t;

bw_pose_tol_t bw_pose_tolerance(double angular, double distance);
/* The two poses are the same within the tolerance (both parts NAN: always). */
bool bw_pose_equal(bw_pose_t a, bw_pose_t b, bw_pose_tol_t tol);

/* latch-pose: the pose while the condition is true, the last such pose
 * while it is false (the pose itself until it has first been true). */
typedef struct {
    bw_pose_t held;
    bool ever;
} bw_latch_pose_t;

bw_pose_t bw_latch_pose(bw_latch_pose_t *l, bw_pose_t pose, bool condition);

/* true-nearby: whether, the last time the condition was true, the robot
 * was within the tolerance of where it is now (false if it never was). */
typedef struct {
    bw_latch_pose_t at;
} bw_true_nearby_t;

bool bw_true_nearby(bw_true_nearby_t *n, bool condition, bw_pose_t pose, bw_pose_tol_t tol);

/* ---- GRL: base motor vectors ------------------------------------------------- */

/* Velocity, the acceleration to reach it, the torque allowed, per part. */
typedef struct {
    bw_rt_t velocity, acceleration, torque;
} bw_motor_vector_t;

/* default-base-acceleration and default-base-torque: what a motor vector
 * gets for the parts it is not given. */
typedef struct {
    bw_rt_t acceleration; /* m/s^2, rad/s^2 */
    bw_rt_t torque;       /* fractions of the standard */
} bw_motor_defaults_t;

/* 0.5 m/s^2 and 1.5 rad/s^2, full torque. */
bw_motor_defaults_t bw_motor_defaults(void);
/* base-motor-vector: acceleration and torque NULL take the defaults. */
bw_motor_vector_t bw_motor_vector(bw_rt_t velocity, const bw_rt_t *acceleration,
                                  const bw_rt_t *torque, const bw_motor_defaults_t *d);
/* limp-motor-vector: no velocity, no torque. */
bw_motor_vector_t bw_limp_motor_vector(void);

/* ---- GRL: the base, its signals, and control ------------------------------------ */

/* A base under control: the base, the defaults, and what drive-base did. */
/* Where each range sensor's last reading lies in the world, kept while the
 * reading stays the same (bw_grl_t.places): a ping's placement costs two
 * sines and cosines, and the behaviours of one tick ask for it several
 * times. */
typedef struct {
    double key[8]; /* the reading: t, range, the pose at it, the mount */
    double x, y, theta; /* the transducer's global orientation and the surface */
} bw_ping_place_t;

/* The valid pings as the base's state last showed them, in the robot's
 * frame, and the footprint's radius (bw_grl_t.view): while the state is
 * the same (bw_base_changes), the same numbers without reading the ranges
 * again. */
typedef struct {
    bool ok;
    uint64_t changes;  /* bw_base_changes when made */
    double footprint;  /* m: the farthest range sensor from the centre (0: none) */
    unsigned n;        /* valid pings */
    bw_vec2_t egocentric[BW_BASE_MAX_RANGES]; /* theirs, in the sensors' order */
} bw_ping_view_t;

typedef struct {
    bw_base_t *base;
    const bw_base_state_t *st;
    /* NULL, or room for BW_BASE_MAX_RANGES placements the caller owns
     * (zeroed), which sonar-safe and the wander then reuse: the same
     * numbers, computed once per reading. */
    bw_ping_place_t *places;
    /* NULL, or a view the caller owns (zeroed), which sonar-safe and the
     * wander then keep while the base's state stays the same; used only
     * where st is the base's own state. */
    bw_ping_view_t *view;
    double now;               /* the tick's time, set by the caller each tick */
    bw_motor_defaults_t defaults;
    /* What the last drive-base sent, and which behaviour (-1: none, limp). */
    bw_motor_vector_t sent;
    int winner;
    /* Parts of motor vectors the base cannot take (no BW_CAP_MOTOR_VECTOR:
     * their velocity is driven, their acceleration and torque left out),
     * counted, never faked. */
    uint64_t ignored_parts;
} bw_grl_t;

void bw_grl_init(bw_grl_t *g, bw_base_t *base);

/* base-measured-velocity, -acceleration, -torque: what the base reports
 * (BW_CAP_MOTOR_REPORT); on other bases the velocity from odometry, and
 * NAN for the acceleration and torque, which they do not report. */
bw_rt_t bw_grl_measured_velocity(const bw_grl_t *g);
bw_rt_t bw_grl_measured_acceleration(const bw_grl_t *g);
bw_rt_t bw_grl_measured_torque(const bw_grl_t *g);

/* passive-braking: a motor vector toward the target velocity. Rotation with
 * the default acceleration and torque; translation with the default torque
 * while speeding up, and a torque of 0 while slowing down (friction
 * brakes). */
bw_motor_vector_t bw_passive_braking(const bw_grl_t *g, bw_rt_t target);

/* A behaviour's answer for one tick. */
typedef enum {
    BW_BEH_INACTIVE = 0,
    BW_BEH_RT,    /* a target velocity (default acceleration and torque) */
    BW_BEH_MOTOR, /* a full motor vector */
} bw_beh_kind_t;

typedef struct {
    bw_beh_kind_t kind;
    bw_rt_t rt;           /* BW_BEH_RT */
    bw_motor_vector_t mv; /* BW_BEH_MOTOR */
} bw_beh_out_t;

typedef struct bw_behavior bw_behavior_t;
typedef bw_beh_out_t (*bw_behavior_fn)(const bw_behavior_t *self, const bw_grl_t *g);

/* A behaviour: its function, its own state, and for the higher-order
 * operators the behaviour they wrap with their function and argument. */
struct bw_behavior {
    bw_behavior_fn fn;
    void *ctx;
    const bw_behavior_t *inner;
    double (*f)(double x, void *ctx); /* compose-rotation / -translation */
    double arg;                       /* sonar-safe: the stopping distance, m */
};

bw_beh_out_t bw_beh_inactive(void);
bw_beh_out_t bw_beh_rt(bw_rt_t v);
bw_beh_out_t bw_beh_motor(bw_motor_vector_t mv);

/* Runs a behaviour for this tick. */
bw_beh_out_t bw_behavior_run(const bw_behavior_t *b, const bw_grl_t *g);

/* compose-rotation / compose-translation: the behaviour, its rotational
 * (translational) velocity passed through f(x, ctx). */
bw_behavior_t bw_compose_rotation(double (*f)(double, void *), void *ctx, const bw_behavior_t *b);
bw_behavior_t bw_compose_translation(double (*f)(double, void *), void *ctx,
                                     const bw_behavior_t *b);
/* sonar-safe: the behaviour, but never driving forward while a calibrated
 * ping lies in the path ahead within stop metres of the robot's front (the
 * base's footprint widened by a margin), nor backward likewise behind. On
 * a base without range sensors it passes the behaviour through. */
bw_behavior_t bw_sonar_safe(const bw_behavior_t *b, double stop);

/* drive-base with a motor vector or an rt-vector (the defaults fill it). */
int bw_drive_base_motor(bw_grl_t *g, bw_motor_vector_t mv);
int bw_drive_base_rt(bw_grl_t *g, bw_rt_t v);
/* drive-base with behaviours: the leftmost active one's motion, or limp
 * when none is active. Returns the winner's index, or -1. */
int bw_drive_base(bw_grl_t *g, const bw_behavior_t *const *list, size_t n);

/* sonar-polling-rate: echo, ping and set delays (s), on bases that have
 * them; BW_ENOTSUP elsewhere. */
int bw_sonar_polling_rate(bw_grl_t *g, double echo, double ping, double set);

/* ---- GRL: calibrated sonar pings ------------------------------------------------ */

/* One transducer's last return, placed with the pose the robot believed it
 * had when it came (its odometry, the global frame here). */
typedef struct {
    bool valid;                /* a return from something (not max range, not none yet) */
    double range;              /* m */
    double orientation;        /* the transducer's egocentric orientation */
    double global_orientation; /* the way it faced, globally, at the ping */
    bw_vec2_t global_position; /* the surface that answered, global */
    bw_vec2_t egocentric;      /* the same, in the robot's frame now */
} bw_ping_t;

/* Fills one bw_ping_t per range sensor (at most cap); returns how many. */
unsigned bw_grl_pings(const bw_base_state_t *st, bw_ping_t *out, unsigned cap);
/* The same, placing each reading once while it stays the same when
 * g->places is set. */
unsigned bw_grl_pings_of(const bw_grl_t *g, bw_ping_t *out, unsigned cap);
/* The same for range sensor i alone (i < st->nranges). */
void bw_grl_pings_at(const bw_base_state_t *st, unsigned i, bw_ping_t *out);
/* The same, placing the reading once while it stays the same when
 * g->places is set (as bw_grl_pings_of). */
void bw_grl_ping_of(const bw_grl_t *g, unsigned i, bw_ping_t *out);
/* g->view brought up to date, or NULL where g has none (or its st is not
 * the base's own state). */
const bw_ping_view_t *bw_grl_view(const bw_grl_t *g);

/* ---- wander: a behaviour stack for any base ---------------------------------------- */

/*
 * Wandering, as drive-base arbitrates it (first active wins):
 *   1. a reflex: after a bump, a cliff or a wheel drop, back away for 0.7 s
 *      and turn away from the side hit for 0.5 s;
 *   2. sonar-safe(avoid): an obstacle in the sonars within 0.7 m ahead:
 *      creep and turn toward the side with more room (bases with sonar);
 *   3. sonar-safe(wander): cruise, the turn drifting at random (seeded).
 * With passive braking on bases that take motor vectors. Keep-out zones
 * (bw_wander_keep_out: stairs a base cannot sense, marked as an operator
 * would) count as obstacles for avoid and stop the cruise short of them.
 * The pings of the last few seconds count as obstacles too (calibrated
 * pings keep their place as the robot moves).
 */
#define BW_WANDER_MAX_KEEP 2048
#define BW_WANDER_MAX_STACK 5
#define BW_WANDER_MAX_SEEN 512
#define BW_WANDER_MAX_OTHERS 4
/* A remembered ping: where it was (odometry frame), and when. */
typedef struct {
    bw_vec2_t at;
    double t;
} bw_wander_seen_t;

/* What a tick reads first, then the larger arrays, of which a tick reads
 * the first few entries or a few near ones, then the keep-out points, which
 * a robot without zones never touches: a fleet of thousands ticks them
 * all, and the memory touched decides its speed. */
typedef struct {
    bw_grl_t *g;
    uint64_t rng;
    double speed;        /* m/s cruising */
    double turn;         /* rad/s of the wander, drifting */
    double next_change;  /* when it drifts next */
    double reflex_from, reflex_turn; /* the reflex: when it began (-inf: not), which way */
    int escape;          /* the way it turns out of a tight spot (+1 left, -1 right, 0 none) */
    uint64_t reflexes;   /* how many times it fired */
    bw_behavior_t reflex, avoid, safe_avoid, wander, safe_wander;
    const bw_behavior_t *stack[BW_WANDER_MAX_STACK]; /* drive-base's list */
    unsigned nstack;
    unsigned nkeep;      /* keep-out points (keep, below) */
    unsigned seen_head, nseen; /* remembered pings (seen, below) */
    bool in_tick, room_ok; /* the room around, computed once a tick */
    double room[4];
    /* bw_wander_goal: the cruise heads for it (odometry frame), within tol */
    bool has_goal;
    bw_vec2_t goal;
    double goal_tol;
    double detour_until; /* going round something in the way until then */
    /* bw_wander_others: the nearest points of other robots (odometry frame) */
    unsigned nothers;
    bw_vec2_t others[BW_WANDER_MAX_OTHERS];
    bool remembered_ok;    /* pings kept from the state as of this bw_base_changes */
    uint64_t remembered;
    bw_ping_view_t view;   /* g->view */
    /* The remembered pings near where the robot was (wander.c) */
    bool near_ok;
    unsigned nnear;
    bw_vec2_t near_at;
    double near_radius, near_reach;
    uint64_t near_in[BW_WANDER_MAX_SEEN / 64];
    double last_read[BW_BASE_MAX_RANGES]; /* each sensor's reading already kept */
    bw_ping_place_t places[BW_BASE_MAX_RANGES]; /* g->places */
    uint16_t near_slot[BW_WANDER_MAX_SEEN]; /* where each remembered ping is on the list */
    bw_wander_seen_t near_seen[BW_WANDER_MAX_SEEN]; /* the list: copies, read side by side */
    /* Pings remembered for a while (odometry frame): a corner a sonar
     * swept past is still there when no transducer points at it. */
    bw_wander_seen_t seen[BW_WANDER_MAX_SEEN];
    bw_vec2_t keep[BW_WANDER_MAX_KEEP]; /* keep-out edges, odometry frame (last) */
} bw_wander_t;

void bw_wander_init(bw_wander_t *w, bw_grl_t *g, uint64_t seed, double speed);
/* One tick at g->now: drive-base with the stack; returns the winner's
 * place in it (in the default stack 0 reflex, 1 avoid, 2 wander), or -1
 * when none was active (the base is then limp). */
int bw_wander_tick(bw_wander_t *w);

/* The stack by name: the behaviours drive-base arbitrates (the first
 * active wins), a comma-separated list in that order, each at most once,
 * of "reflex", "avoid" (obstacles in the sonars and the keep-out zones,
 * alone), "safe-avoid" (the same under sonar-safe), "wander" (the cruise,
 * alone: it drives into what it meets) and "safe-wander" (under
 * sonar-safe). The default is BW_WANDER_STACK_DEFAULT. Returns 0, or
 * BW_EINVAL for a name not known, repeated, or none (the stack then as it
 * was). With w NULL, only checks the names. */
#define BW_WANDER_STACK_DEFAULT "reflex,safe-avoid,safe-wander"
#define BW_WANDER_STACK_NAMES "reflex, avoid, safe-avoid, wander, safe-wander"
int bw_wander_set_stack(bw_wander_t *w, const char *names);
/* A zone to keep out of: a polygon in the odometry frame. BW_EINVAL (fewer
 * than 3 vertices), BW_ENOSPC (its edges do not fit). */
int bw_wander_keep_out(bw_wander_t *w, const bw_vec2_t *poly, unsigned n);

/* A place to go (odometry frame): the cruise turns toward it instead of
 * drifting, slows as it nears, and stands once within tol metres (the
 * reflex and avoid still come first); NULL wanders again. */
void bw_wander_goal(bw_wander_t *w, const bw_vec2_t *goal, double tol);
/* Whether the robot stands within its goal's tolerance (false: no goal). */
bool bw_wander_arrived(const bw_wander_t *w);
/* Where other robots are, as a fleet that knows its robots' poses tells
 * each one (the nearest point of each one's outline, odometry frame, at
 * most BW_WANDER_MAX_OTHERS): obstacles for avoid and the cruise, as
 * pings are, until told again (n 0: none). For bases whose own sensors
 * cannot see another robot before they touch it. */
void bw_wander_others(bw_wander_t *w, const bw_vec2_t *at, unsigned n);

/* ---- docking by the dock's infrared ------------------------------------------------- */

/*
 * A base that docks itself (BW_CAP_SEEK_DOCK: a Create's Seek Dock) is
 * told to, once, and watched: docked when the charger says the dock; failed
 * when no buoy of a dock is heard in BW_DOCKING_UNHEARD s (or the time
 * limit, if shorter), when a wheel drops, or past the time limit; the host
 * then takes the robot back and stops it. It is never driven meanwhile.
 */
#define BW_DOCKING_UNHEARD 60.0 /* s */
/* s the link may be down before a docking fails for it: a lobot's low
 * level is silent through its own reflexes, up to about 5 s (docs/lobot.md).
 * Meanwhile nothing is driven (the base stopped the robot going offline);
 * back online, a base that was seeking its dock is told to again. */
#define BW_DOCKING_OFFLINE 6.0

/*
 * Docks a base that hears its dock's regions (BW_CAP_DOCK_IR: a Kobuki's
 * three receivers, st->dock_ir right, central, left): turn in place until
 * a receiver hears the dock, and round to face it; in a side region, an
 * eighth of a turn toward the dock's axis and straight on until the
 * central region, then round to face the dock; up the axis, back toward it when drifted into a
 * side region and the dock kept ahead, slower in the near field; done when
 * the charger says the dock (bw_docking_charging). A bump: back off and
 * look again (failed after the fourth). Failed after a full turn without
 * a sound of the dock, or past the time limit. Each tick drives the base
 * (stopped once done or failed).
 */
enum {
    BW_DOCKING_SEARCH = 0,
    BW_DOCKING_ACROSS, /* to the central region, across the axis */
    BW_DOCKING_FACE,   /* round to face the dock */
    BW_DOCKING_UP,     /* up the axis */
    BW_DOCKING_BACK,   /* backing off a bump */
    BW_DOCKING_DONE,
    BW_DOCKING_FAILED,
    BW_DOCKING_OFF,    /* undocking: backing off the dock */
    BW_DOCKING_ROUND,  /* undocking: turning round */
    BW_DOCKING_SEEK,   /* the base seeking its dock itself */
};
typedef struct {
    bw_grl_t *g;
    int state;
    double time_limit, started, since; /* s; the state's start */
    double turned, last_theta;          /* rad turned in this state */
    double toward;                      /* the heading being turned to */
    double heard_at;                    /* when the dock was last heard (-inf: never) */
    int side;                           /* the region when found: +1 left, -1 right, 0 central */
    int facing;                         /* the side the dock was last heard on, facing it */
    unsigned bumps;
    bw_pose_t from;                     /* undocking: where it began (odometry) */
    bool asked;                         /* BW_DOCKING_SEEK: the base was told to */
    double offline_since;               /* when the link went down (-inf: up) */
    unsigned asks;                      /* BW_DOCKING_SEEK: times the base was told to */
    char why[96];                       /* how it ended */
} bw_docking_t;

void bw_docking_init(bw_docking_t *d, bw_grl_t *g, double time_limit);
/* Undocking instead: from a dock (bw_docking_charging, else failed at
 * once), back BW_UNDOCK_BACK off it by odometry, then turn round. */
#define BW_UNDOCK_BACK 0.30 /* m */
void bw_docking_init_undock(bw_docking_t *d, bw_grl_t *g, double time_limit);
/* One tick at g->now: 0 docking, 1 docked (d->why says), -1 failed (d->why
 * says why). */
int bw_docking_tick(bw_docking_t *d);
/* Whether a base's state says it charges on a dock. */
bool bw_docking_charging(const bw_base_state_t *st);
const char *bw_docking_state_name(int state);

/* The docking and its GRL layer in one allocation, for a binding that
 * cannot hold the structs (Python's): bw_docking_init (or _init_undock)
 * at `now`; each tick at its caller's now; its state's name and why it
 * ended. NULL when out of memory. */
typedef struct bw_docking_run bw_docking_run_t;
bw_docking_run_t *bw_docking_run_new(bw_base_t *base, double time_limit, bool undock, double now);
int bw_docking_run_tick(bw_docking_run_t *r, double now);
const char *bw_docking_run_state(const bw_docking_run_t *r);
const char *bw_docking_run_why(const bw_docking_run_t *r);
void bw_docking_run_free(bw_docking_run_t *r);

#ifdef __cplusplus
}
#endif

#endif
