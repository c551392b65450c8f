/* A fleet in one process, in virtual time (botwire/runner.h). */
#include "botwire/runner.h"

#include "botwire/behave.h"
#include "botwire/sim.h"

#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>


#define TICK 0.05          /* s between behaviour ticks, as `botwire wander` */
#define SPACING 1.5        /* m between places on the grid of a made room */
#define CLOSE 0.6          /* m between up to 4 robots in the family's own world */
#define CHUNK 16           /* robots a thread takes at a time */
#define SETTLE_MAX 30.0    /* s of robot time for every robot to come online */
#define GAP_EVERY 1.0      /* s of robot time between looks at the gaps */
/* Docking (o->dock_below) */
#define FRONT 1.0          /* m in front of a dock's face where a robot goes first */
#define FRONT_TOL 0.3      /* m: there */
#define FRONT_TOL_GROWS 0.01 /* m/s */
#define FRONT_TOL_MAX 1.0
#define ZONE_DEEP 0.5      /* m in front of a dock's face the wandering keeps out of, */
#define ZONE_WIDE 0.8      /* m across: where a robot stands docked, and a margin */
#define GO_LIMIT 300.0     /* s to reach a dock's front */
#define DOCK_LIMIT 180.0   /* s for the docking by infrared from there */
#define UNDOCK_LIMIT 60.0
#define NOT_CHARGING 60.0  /* s on a dock with the charger idle before it is given up */
#define TRIES 3            /* failed attempts in a row before the dock goes to the next */
#define LANE_LONG 2.5      /* m in front of a dock where no robot stands waiting, */
#define LANE_WIDE 1.0      /* m either side of its axis: where robots dock by its infrared */
#define LANE_LEAVE 60.0    /* s a robot waiting wanders to leave a lane, then stands */
#define TOUCH 0.0005       /* m between two outlines that touch */
#define TOLD_MOVING 0.01   /* m/s: wheels told to go on or back, not only to turn */
#define HOLD_GAP 0.1       /* m: docking holds while another robot stands this near ahead */
#define SQUEEZE 0.05       /* m: a robot going to a dock is told of every other this near */
#define SEE_OTHERS 1.0     /* m: the nearest robots within this are told to each one */
#define HOUR 3600.0

typedef struct {
    bw_base_t *base;
    bw_device_t *dev;
    bw_sim_t *sim;
    /* The base's deadline in two parts, each worked out when its side was
     * last changed (and in the cache): the host's (only the base's calls
     * change it) and the robot's (its steps and the polls change it). A
     * frame then reads them here, not from the base and the device. */
    double host_due, dev_due;
    double next_tick;
    bool ticking;
    bw_grl_t g;
    /* Docking (o->dock_below): its job, the dock it holds (-1 none), what
     * it asks of the fleet between frames, and its counts */
    int job;
    int dock;
    bool wants, give_back, failed, touching, touch, flat, idle_charger;
    int tries;
    double job_since, asked_at;
    bw_pose_t start; /* where it started: its odometry's origin */
    uint64_t attempts, docked, charges, contacts, touches, untrue, not_charging;
    double least;
    bw_docking_t dk;
    bw_wander_t w; /* last: large, and mostly untouched */
} robot_t;

enum { JOB_WORK, JOB_WAIT, JOB_GO, JOB_DOCK, JOB_CHARGE, JOB_UNDOCK, JOBS };
static const char *const job_name[JOBS] = { "working", "waiting", "going", "docking", "charging",
                                            "undocking" };

#define MAX_REASONS 8

/* A thread's own robots, [begin, end): it takes them a chunk at a time
 * from `next`, then helps the others with theirs the same way. Each thread
 * keeps the same robots frame after frame, so they stay in its cache
 * (robots taken from one shared queue went to either thread, and a frame
 * then fetched most of a robot from the other core's cache or from memory:
 * 1.6x on two threads instead of 1.8-2.0x at 10000 robots). */
struct part {
    _Alignas(64) atomic_size_t next;
    size_t begin, end;
};

typedef struct run run_t;
struct run {
    robot_t **r;
    size_t n;
    bool wander;
    bw_fleet_t *fleet;
    /* The phase under way: frames up to `until`, or until stop() says. */
    double until;
    bool (*stop)(run_t *);
    bool phase_over;
    double next_gap, *gap; /* gap: NULL, or the least seen, looked at every GAP_EVERY */
    double t;           /* the frame's end */
    double frame;       /* s */
    struct part *part;  /* one per thread */
    unsigned nparts;
    /* o->alternate: the timed frames in blocks of alt_frames, on one
     * thread alone (solo: thread `soloist`, each in its turn, as cores can
     * differ in speed) and on every thread in turn, each mode's robot time
     * and wall time added up ([0] every thread, [1] one). */
    unsigned alt_frames, alt_count, soloist;
    bool solo;
    double alt_w0, alt_t0, alt_wall[2], alt_sim[2];
    bool done;
    /* Docking: below what percentage, the docks (holder: a robot's index,
     * -1), failed attempts by reason, the next progress line */
    double dock_below;
    const bw_world_t *world;
    int holder[BW_WORLD_MAX_DOCKS];
    bool serves[BW_WORLD_MAX_DOCKS];
    unsigned nreasons;
    char reason[MAX_REASONS][64];
    uint64_t reason_count[MAX_REASONS];
    double next_hour;
    bool quiet;
    struct barrier {
        pthread_mutex_t m;
        pthread_cond_t c;
        unsigned count;      /* threads it waits for */
        unsigned arrived;    /* under m */
        atomic_ulong gen;    /* rounds completed */
    } start, end;
};

#define SPIN 20000 /* looks at the barrier before sleeping on it: a frame is short */

static void barrier_init(struct barrier *b, unsigned count)
{
    pthread_mutex_init(&b->m, NULL);
    pthread_cond_init(&b->c, NULL);
    b->count = count;
    b->arrived = 0;
    atomic_init(&b->gen, 0);
}

static void barrier_destroy(struct barrier *b)
{
    pthread_mutex_destroy(&b->m);
    pthread_cond_destroy(&b->c);
}

/* Returns when `count` threads have come. The last one in runs serial(arg)
 * first, alone (the others are all waiting), then wakes the rest; those
 * spin a while first, as the others are usually right behind (on a loaded
 * machine they are not, and then sleeping is better than spinning). */
static void barrier_wait(struct barrier *b, void (*serial)(run_t *), run_t *arg)
{
    pthread_mutex_lock(&b->m);
    unsigned long gen = atomic_load(&b->gen);
    if (++b->arrived == b->count) {
        b->arrived = 0;
        if (serial)
            serial(arg);
        atomic_store(&b->gen, gen + 1);
        pthread_cond_broadcast(&b->c);
        pthread_mutex_unlock(&b->m);
        return;
    }
    pthread_mutex_unlock(&b->m);
    for (int k = 0; k < SPIN; k++)
        if (atomic_load_explicit(&b->gen, memory_order_acquire) != gen)
            return;
    pthread_mutex_lock(&b->m);
    while (atomic_load(&b->gen) == gen)
        pthread_cond_wait(&b->c, &b->m);
    pthread_mutex_unlock(&b->m);
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Resident memory, bytes: what the fleet's pages cost in RAM (meaningful
 * for the first fleet of a process, whose pages are all new). */
static double rss(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, res = 0;
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &res) != 2)
            res = 0;
        fclose(f);
    }
    return (double)res * (double)sysconf(_SC_PAGESIZE);
}

/* Heap memory in use, bytes: what was allocated and not freed, whether or
 * not it came back from an earlier run (resident memory would not say). */
static double heap(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (double)mi.uordblks + (double)mi.hblkhd;
}

/* One robot to the frame's end t: its behaviour when due, its base when
 * anything is due (the driver's bytes, the robot's, a timeout), else only
 * its device and body, which move every frame. */
static void dock_tick(const run_t *run, robot_t *r, double t);

static void robot_frame(const run_t *run, robot_t *r, bool wander, double t)
{
    if (wander && r->ticking && t >= r->next_tick - 1e-9) {
        r->g.now = t;
        if (run->dock_below > 0)
            dock_tick(run, r, t);
        else
            bw_wander_tick(&r->w);
        r->host_due = bw_base_host_deadline(r->base);
        /* On its own schedule (20 Hz), each tick at the first frame end
         * at or after it: not TICK after the frame, which would make it
         * 60 ms with 20 ms frames. */
        r->next_tick += TICK;
        if (r->next_tick <= t)
            r->next_tick = t + TICK;
    }
    /* fmin(host_due, dev_due) is bw_base_next_deadline */
    if (fmin(r->host_due, r->dev_due) <= t) {
        bw_base_poll(r->base, t);
        r->host_due = bw_base_host_deadline(r->base);
    } else {
        bw_device_step(r->dev, t);
    }
    r->dev_due = bw_device_next_deadline(r->dev);
}

/* Thread `self`'s share of a frame: its own robots, then whatever the
 * others have not yet begun. */
static void frame_share(run_t *run, unsigned self)
{
    if (run->solo && self != run->soloist)
        return;
    for (unsigned k = 0; k < run->nparts; k++) {
        struct part *p = &run->part[(self + k) % run->nparts];
        size_t i;
        while ((i = atomic_fetch_add_explicit(&p->next, CHUNK, memory_order_relaxed)) < p->end) {
            size_t end = i + CHUNK < p->end ? i + CHUNK : p->end;
            for (; i < end; i++)
                robot_frame(run, run->r[i], run->wander, run->t);
        }
    }
}

static double least_gap(robot_t **r, size_t n, const bw_fleet_t *f);
static void begin(run_t *run);
static void give_out_docks(run_t *run);
static void dock_progress(run_t *run, bool force);

/* The next frame, or the phase's end. */
static void next_frame(run_t *run)
{
    if (!(run->t < run->until - 1e-9) || (run->stop && run->stop(run))) {
        run->phase_over = true;
        return;
    }
    run->t = fmin(run->until, run->t + run->frame);
    for (unsigned k = 0; k < run->nparts; k++)
        atomic_store_explicit(&run->part[k].next, run->part[k].begin, memory_order_relaxed);
}

/* The block of frames under way is over: its times go to its mode's, and
 * the next one is in the other mode. */
static void alt_block_end(run_t *run)
{
    double w = mono();
    run->alt_wall[run->solo] += w - run->alt_w0;
    run->alt_sim[run->solo] += run->t - run->alt_t0;
    run->alt_w0 = w;
    run->alt_t0 = run->t;
    run->alt_count = 0;
    if (run->solo)
        run->soloist = (run->soloist + 1) % run->nparts;
    run->solo = !run->solo;
}

/* Between two frames, on one thread while the others wait: the snapshot
 * renewed, the gaps looked at now and then, the next frame set. */
static void between(run_t *run)
{
    bw_fleet_sync(run->fleet);
    if (run->dock_below > 0 && run->gap) {
        give_out_docks(run);
        if (run->t >= run->next_gap - 1e-9)
            dock_progress(run, false);
    }
    if (run->gap && run->t >= run->next_gap - 1e-9) {
        *run->gap = fmin(*run->gap, least_gap(run->r, run->n, run->fleet));
        run->next_gap = run->t + GAP_EVERY;
    }
    if (run->alt_frames && ++run->alt_count == run->alt_frames)
        alt_block_end(run);
    next_frame(run);
}

/* A phase begins: on one thread, every other one waiting at the start
 * (none is still looking at phase_over). */
static void begin(run_t *run)
{
    run->phase_over = false;
    run->next_gap = run->t;
    next_frame(run);
}

/* A thread's part of a phase: frames until it is over. */
static void phase(run_t *run, unsigned self)
{
    while (!run->phase_over) {
        frame_share(run, self);
        barrier_wait(&run->end, between, run);
    }
}

struct worker {
    run_t *run;
    unsigned self; /* 1.. (the calling thread is 0) */
};

static void *worker(void *arg)
{
    const struct worker *wk = arg;
    run_t *run = wk->run;
    for (;;) {
        barrier_wait(&run->start, begin, run);
        if (run->done)
            return NULL;
        phase(run, wk->self);
    }
}

/* The least gap between a robot's outline and another's, m. */
static double least_gap(robot_t **r, size_t n, const bw_fleet_t *f)
{
    double least = INFINITY;
    for (size_t i = 0; i < n; i++) {
        const bw_sim_t *s = r[i]->sim;
        double c = bw_fleet_clearance(f, s, (bw_vec2_t){ s->body.pose.x, s->body.pose.y }, 1.0,
                                      NULL);
        least = fmin(least, c - s->body.prm.radius);
    }
    return least;
}

/* ---- docking (o->dock_below) ----------------------------------------------
 *
 * Each robot's job, ticked on its own thread: working (wandering) until its
 * driver says the battery is below the mark, then waiting where it stands
 * until the fleet gives it a dock, going to the dock's front (the wander's
 * cruise toward a goal, the reflex and avoid first), docking there by what
 * the dock's infrared tells it (bw_docking: the GRL layer's, the same as
 * `botwire dock`), charging until its charger says charged, and backing
 * off the dock to work again. What it asks of the fleet (a dock, to give
 * one back) waits for the frame's end, where one thread gives the docks
 * out: to the robots in the order they asked, each the free dock nearest
 * to it, so a run is the same on any number of threads.
 *
 * What the robots know of the world is what a fleet manager would tell
 * them: where the docks are, and where the nearest other robots are (a
 * Kobuki's bumpers feel another robot only by touching it). A robot's
 * pose is its own odometry; the docks' places are given in its frame
 * (its start is the frame's origin, as the keep-out zones are). */

/* A world point in a robot's odometry frame, by where it started. */
static bw_vec2_t to_odometry(const robot_t *r, bw_vec2_t world)
{
    return bw_pose_to_local(r->start, world);
}

static bw_vec2_t dock_front(const bw_dock_t *d)
{
    return (bw_vec2_t){ d->pose.x + FRONT * cos(d->pose.theta),
                        d->pose.y + FRONT * sin(d->pose.theta) };
}

/* Whether a robot stands in a dock's lane, where the robots docking there
 * drive (by where it is: the fleet knows). */
static bool in_a_lane(const run_t *run, const robot_t *r)
{
    const bw_pose_t *p = &r->sim->body.pose;
    for (size_t k = 0; k < run->world->ndocks; k++) {
        bw_vec2_t in = bw_pose_to_local(run->world->docks[k].pose, (bw_vec2_t){ p->x, p->y });
        if (in.x > 0 && in.x < LANE_LONG && fabs(in.y) < LANE_WIDE)
            return true;
    }
    return false;
}

static void set_job(robot_t *r, int job, double t)
{
    r->job = job;
    r->job_since = t;
}

/* An attempt ended without docking: its reason kept for the frame's end,
 * and the robot goes again, or gives the dock to the next after TRIES. */
static void attempt_failed(robot_t *r, const char *why, double t)
{
    if (why != r->dk.why)
        snprintf(r->dk.why, sizeof r->dk.why, "%s", why);
    r->failed = true;
    bw_wander_goal(&r->w, NULL, 0);
    if (++r->tries >= TRIES) {
        r->give_back = true;
        r->wants = true;
        r->asked_at = t;
        r->tries = 0;
        set_job(r, JOB_WAIT, t);
    } else {
        set_job(r, JOB_WAIT, t); /* the dock still its own: going again next tick */
    }
}

static void dock_tick(const run_t *run, robot_t *r, double t)
{
    const bw_base_state_t *st = bw_base_state(r->base);
    const bw_sim_t *s = r->sim;
    /* The nearest other robots, told in the robot's own frame. */
    bw_vec2_t nearest[BW_WANDER_MAX_OTHERS], told_at[BW_WANDER_MAX_OTHERS];
    double gaps[BW_WANDER_MAX_OTHERS];
    size_t nn = bw_fleet_near(run->fleet, s, (bw_vec2_t){ s->body.pose.x, s->body.pose.y },
                              SEE_OTHERS, gaps, nearest, BW_WANDER_MAX_OTHERS);
    double c = nn ? gaps[0] : INFINITY;
    bw_vec2_t near = nn ? nearest[0] : (bw_vec2_t){ 0, 0 };
    /* Driven into another robot: its own motion refused, another at its
     * edge on the side its wheels were told to go (the truth; one that is
     * driven into, or only turns, is not counted). */
    bw_vec2_t rel = isfinite(c) ? bw_pose_to_local(s->body.pose, near) : (bw_vec2_t){ 0, 0 };
    double told = (s->body.cmd_left + s->body.cmd_right) / 2;
    bool touching = s->body.blocked && c < s->body.prm.radius + 0.01 &&
                    ((told > TOLD_MOVING && rel.x > 0) || (told < -TOLD_MOVING && rel.x < 0));
    r->contacts += touching && !r->touching;
    r->touching = touching;
    /* Touching another, whoever moved (outlines within half a millimetre). */
    bool touch = c < s->body.prm.radius + TOUCH;
    r->touches += touch && !r->touch;
    r->touch = touch;
    for (size_t k = 0; k < nn; k++)
        told_at[k] = bw_pose_to_global(st->pose, bw_pose_to_local(s->body.pose, nearest[k]));
    /* Wandering, all of them (backing off a bump, the one behind may not be
     * the nearest); going to a dock through robots standing in wait, the
     * nearest, or it finds no way through their berths, and any other it
     * is about to touch: squeezed between two, told of one alone, it
     * turned from one into the other. */
    unsigned ntold = (unsigned)nn;
    if (r->job == JOB_GO) {
        ntold = nn > 0;
        while (ntold < nn && gaps[ntold] - s->body.prm.radius < SQUEEZE)
            ntold++;
    }
    bw_wander_others(&r->w, told_at, ntold);
    if (st->battery_fraction > 0)
        r->least = fmin(r->least, st->battery_fraction);
    switch (r->job) {
    case JOB_WORK:
        if (st->battery_fraction > 0 && st->battery_fraction * 100 < run->dock_below) {
            r->wants = true;
            r->asked_at = t;
            r->tries = 0;
            set_job(r, JOB_WAIT, t);
            (void)bw_drive_base_rt(&r->g, bw_rt(0, 0));
        } else {
            (void)bw_wander_tick(&r->w);
        }
        break;
    case JOB_WAIT:
        if (r->dock >= 0 && !r->give_back) {
            bw_vec2_t goal = to_odometry(r, dock_front(&run->world->docks[r->dock]));
            bw_wander_goal(&r->w, &goal, FRONT_TOL);
            r->attempts++;
            set_job(r, JOB_GO, t);
            (void)bw_wander_tick(&r->w);
        } else if (r->dock < 0 && t - r->job_since < LANE_LEAVE && in_a_lane(run, r)) {
            (void)bw_wander_tick(&r->w); /* out of the way first, a while */
        } else {
            (void)bw_drive_base_rt(&r->g, bw_rt(0, 0));
        }
        break;
    case JOB_GO:
        /* The front's tolerance grows while it takes (another robot may
         * stand there): the docking finds the dock from anywhere in its
         * infrared's reach. */
        r->w.goal_tol = fmin(FRONT_TOL_MAX, FRONT_TOL + FRONT_TOL_GROWS * (t - r->job_since));
        if (bw_wander_arrived(&r->w)) {
            bw_wander_goal(&r->w, NULL, 0);
            bw_docking_init(&r->dk, &r->g, DOCK_LIMIT);
            set_job(r, JOB_DOCK, t);
            (void)bw_docking_tick(&r->dk);
        } else if (t - r->job_since > GO_LIMIT) {
            char why[96];
            snprintf(why, sizeof why, "did not reach the dock's front in %.0f s", GO_LIMIT);
            attempt_failed(r, why, t);
            (void)bw_drive_base_rt(&r->g, bw_rt(0, 0));
        } else {
            (void)bw_wander_tick(&r->w);
        }
        break;
    case JOB_DOCK: {
        /* The docking goes by the dock's infrared alone: another robot
         * just ahead (one waiting in the lane), it holds until that one
         * has gone (its time limit runs on). */
        if (isfinite(c) && rel.x > 0 && fabs(rel.y) < s->body.prm.radius &&
            c - s->body.prm.radius < HOLD_GAP && r->dk.state != BW_DOCKING_BACK) {
            (void)bw_drive_base_rt(&r->g, bw_rt(0, 0));
            break;
        }
        int rc = bw_docking_tick(&r->dk);
        if (rc > 0) {
            r->docked++;
            r->untrue += !s->body.docked; /* checked against the truth */
            r->tries = 0;
            set_job(r, JOB_CHARGE, t);
        } else if (rc < 0) {
            attempt_failed(r, r->dk.why, t);
        }
        break;
    }
    case JOB_CHARGE:
        if (st->charging == BW_CHARGE_DISCHARGING && t - r->job_since > NOT_CHARGING) {
            /* on the dock, its charger idle (a Create kept in Full mode, as
             * lobot's program keeps it, does not charge): the dock to the next */
            r->not_charging++;
            r->idle_charger = true;
            bw_docking_init_undock(&r->dk, &r->g, UNDOCK_LIMIT);
            set_job(r, JOB_UNDOCK, t);
        } else if (!bw_docking_charging(st)) { /* pushed off: docks again */
            r->attempts++;
            bw_docking_init(&r->dk, &r->g, DOCK_LIMIT);
            set_job(r, JOB_DOCK, t);
        } else if (st->charging == BW_CHARGE_CHARGED || st->battery_fraction >= 0.99) {
            r->charges++;
            bw_docking_init_undock(&r->dk, &r->g, UNDOCK_LIMIT);
            set_job(r, JOB_UNDOCK, t);
        }
        break;
    case JOB_UNDOCK: {
        int rc = bw_docking_tick(&r->dk);
        if (rc != 0) {
            /* off the dock, given back: to work, or (its charger idle) to
             * wait for a dock again */
            r->give_back = true;
            if (r->idle_charger) {
                r->idle_charger = false;
                r->wants = true;
                r->asked_at = t;
            }
            set_job(r, r->wants ? JOB_WAIT : JOB_WORK, t);
        }
        break;
    }
    }
}

/* A failed attempt's reason, without its figures: the text up to the
 * first digit or colon. */
static void count_reason(run_t *run, const char *why)
{
    size_t len = strcspn(why, "0123456789:");
    while (len > 0 && why[len - 1] == ' ')
        len--;
    if (len >= sizeof run->reason[0])
        len = sizeof run->reason[0] - 1;
    unsigned k = 0;
    while (k < run->nreasons && !(strlen(run->reason[k]) == len && !strncmp(run->reason[k], why, len)))
        k++;
    if (k == run->nreasons) {
        if (k == MAX_REASONS)
            k = MAX_REASONS - 1; /* the last one takes the rest */
        else {
            memcpy(run->reason[k], why, len);
            run->reason[k][len] = 0;
            run->nreasons++;
        }
    }
    run->reason_count[k]++;
}

/* Between frames, on one thread: docks given back, then given out to the
 * robots waiting, in the order they asked (the nearest free one to each). */
static void give_out_docks(run_t *run)
{
    const bw_world_t *w = run->world;
    for (size_t i = 0; i < run->n; i++) {
        robot_t *r = run->r[i];
        if (r->failed) {
            count_reason(run, r->dk.why);
            r->failed = false;
        }
        if (r->give_back) {
            if (r->dock >= 0)
                run->holder[r->dock] = -1;
            r->dock = -1;
            r->give_back = false;
        }
    }
    for (;;) {
        size_t free_docks = 0;
        for (size_t k = 0; k < w->ndocks; k++)
            free_docks += run->serves[k] && run->holder[k] < 0;
        if (free_docks == 0)
            return;
        robot_t *next = NULL;
        size_t who = 0;
        for (size_t i = 0; i < run->n; i++) {
            robot_t *r = run->r[i];
            if (r->wants && (!next || r->asked_at < next->asked_at)) {
                next = r;
                who = i;
            }
        }
        if (!next)
            return;
        double best = INFINITY;
        int pick = -1;
        for (size_t k = 0; k < w->ndocks; k++) {
            if (!run->serves[k] || run->holder[k] >= 0)
                continue;
            bw_vec2_t f = dock_front(&w->docks[k]);
            double d = hypot(f.x - next->sim->body.pose.x, f.y - next->sim->body.pose.y);
            if (d < best) {
                best = d;
                pick = (int)k;
            }
        }
        run->holder[pick] = (int)who;
        next->dock = pick;
        next->wants = false;
    }
}

/* Now and then, a line on how the fleet's docking goes; and who ran flat. */
/* The fleet's docking figures so far, into r's docking fields. */
static void tally(const run_t *run, bw_runner_result_t *res)
{
    memset(&res->dock_attempts, 0, sizeof *res - offsetof(bw_runner_result_t, dock_attempts));
    res->least_charge = 1;
    for (size_t i = 0; i < run->n; i++) {
        const robot_t *r = run->r[i];
        res->dock_attempts += r->attempts;
        res->docked += r->docked;
        res->charges += r->charges;
        res->contacts += r->contacts;
        res->touches += r->touches;
        res->flat += r->flat;
        res->under_way += r->job != JOB_WORK;
        res->attempts_open += r->job == JOB_GO || r->job == JOB_DOCK;
        res->docked_untrue += r->untrue;
        res->not_charging += r->not_charging;
        res->least_charge = fmin(res->least_charge, r->least);
    }
    size_t len = 0;
    for (unsigned k = 0; k < run->nreasons; k++) {
        res->dock_failed += run->reason_count[k];
        int m = snprintf(res->dock_reasons + len, sizeof res->dock_reasons - len, "%s%s: %llu",
                         k ? "; " : "", run->reason[k], (unsigned long long)run->reason_count[k]);
        if (m > 0 && (size_t)m < sizeof res->dock_reasons - len)
            len += (size_t)m;
    }
}

static void dock_progress(run_t *run, bool force)
{
    for (size_t i = 0; i < run->n; i++) {
        const bw_body_t *b = &run->r[i]->sim->body;
        if (b->battery <= b->prm.battery_empty + 1e-6)
            run->r[i]->flat = true;
    }
    if (run->quiet || (!force && run->t < run->next_hour - 1e-9))
        return;
    run->next_hour += HOUR;
    size_t jobs[JOBS] = { 0 };
    for (size_t i = 0; i < run->n; i++)
        jobs[run->r[i]->job]++;
    bw_runner_result_t t;
    tally(run, &t);
    fprintf(stderr, "botwire sim: %.1f h:", run->t / HOUR);
    for (int j = 0; j < JOBS; j++)
        fprintf(stderr, "%s %zu %s", j ? "," : "", jobs[j], job_name[j]);
    fprintf(stderr, "; %llu attempts: %llu docked, %llu failed; least charge %.0f %%\n",
            (unsigned long long)t.dock_attempts, (unsigned long long)t.docked,
            (unsigned long long)t.dock_failed, t.least_charge * 100);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Where robot i of n starts, and its family and model. */
static void place(const bw_runner_opts_t *o, const bw_world_t *w, bool made_room, size_t i,
                  size_t n, bw_pose_t *pose, const char **family, const char **model)
{
    *family = o->family;
    *model = o->model;
    if (w->nrobots > 0) {
        *family = w->robots[i].family;
        *model = *w->robots[i].model ? w->robots[i].model : NULL;
        *pose = w->robots[i].pose;
    } else if (made_room) {
        size_t cols = (size_t)ceil(sqrt((double)n));
        *pose = (bw_pose_t){ SPACING + SPACING * (double)(i % cols),
                             SPACING + SPACING * (double)(i / cols), 0 };
    } else { /* along the start, to its left */
        double k = CLOSE * (double)i;
        *pose = (bw_pose_t){ w->start.x - k * sin(w->start.theta),
                             w->start.y + k * cos(w->start.theta), w->start.theta };
    }
}

/* Brings every robot to `until` (or until stop() says), in frames, on
 * every thread. */
static void run_until(run_t *run, double until, double *gap, bool (*stop)(run_t *))
{
    run->until = until;
    run->stop = stop;
    run->gap = gap;
    barrier_wait(&run->start, begin, run);
    phase(run, 0);
}

static bool all_online(run_t *run)
{
    for (size_t i = 0; i < run->n; i++)
        if (!bw_base_state(run->r[i]->base)->online)
            return false;
    return true;
}

/* Docks along the walls of a square room `side` wide, facing in: round
 * the walls in turn, each wall's spread evenly along it. */
static int add_docks(bw_world_t *w, double side, unsigned count)
{
    if (count > BW_WORLD_MAX_DOCKS)
        return -1;
    for (unsigned k = 0; k < count; k++) {
        unsigned wall = k % 4, on_wall = (count - wall + 3) / 4, j = k / 4;
        double along = side * (j + 1) / (on_wall + 1), in = 0.06; /* m off the wall */
        bw_pose_t p = wall == 0   ? (bw_pose_t){ along, in, BW_PI / 2 }
                      : wall == 1 ? (bw_pose_t){ side - in, along, BW_PI }
                      : wall == 2 ? (bw_pose_t){ side - along, side - in, -BW_PI / 2 }
                                  : (bw_pose_t){ in, side - along, 0 };
        if (bw_world_add_dock(w, p, "") < 0)
            return -1;
    }
    return 0;
}

int bw_runner_run(const bw_runner_opts_t *o, bw_runner_result_t *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    static bw_world_t room; /* large: not on the stack */
    const bw_world_t *w = o->world;
    bool made_room = false;
    size_t n = w && w->nrobots ? w->nrobots : o->robots;
    if (n == 0) {
        snprintf(err, errlen, "no robots");
        return -1;
    }
    if (o->dock_below < 0 || o->dock_below > 100 || (o->dock_below > 0 && !o->wander)) {
        snprintf(err, errlen, "docking below %g %%: a percentage of 0 to 100, for wandering robots",
                 o->dock_below);
        return -1;
    }
    if (!w) {
        if (n > 4) { /* a room with a grid of places, as `botwire sim --robots` */
            size_t cols = (size_t)ceil(sqrt((double)n));
            double side = SPACING * (double)cols + SPACING;
            bw_world_init(&room);
            (void)bw_world_add_box(&room, 0, 0, side, side);
            room.start = (bw_pose_t){ SPACING, SPACING, 0 };
            made_room = true;
            if (o->dock_below > 0 && add_docks(&room, side, o->docks ? o->docks : (unsigned)((n + 9) / 10)) < 0) {
                snprintf(err, errlen, "%u docks do not fit along the walls of a room %.1f m wide "
                         "(at most %d)", o->docks, side, BW_WORLD_MAX_DOCKS);
                return -1;
            }
        } else if (bw_device_default_world(o->family, &room) < 0) {
            snprintf(err, errlen, "no emulated robot for family \"%s\"", o->family);
            return -1;
        }
        w = &room;
    }
    unsigned nth = o->threads;
    if (nth == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        nth = cores > 0 ? (unsigned)cores : 1;
    }
    if ((size_t)nth > (n + CHUNK - 1) / CHUNK)
        nth = (unsigned)((n + CHUNK - 1) / CHUNK); /* a thread has at least a chunk */
    res->robots = n;
    res->threads = nth;

    bw_fleet_t fleet;
    bw_fleet_init(&fleet, w);
    run_t run;
    memset(&run, 0, sizeof run);
    run.n = n;
    run.wander = o->wander;
    run.frame = o->frame > 0 ? o->frame : BW_RUNNER_FRAME;
    run.r = calloc(n, sizeof *run.r);
    pthread_t *th = calloc(nth, sizeof *th);
    struct worker *wk = calloc(nth, sizeof *wk);
    run.part = aligned_alloc(_Alignof(struct part), nth * sizeof *run.part);
    int rc = -1;
    size_t made = 0;
    unsigned started = 0;
    double heap0 = heap(), rss0 = rss(), wall0 = mono();
    run.t = 0;
    run.fleet = &fleet;
    run.dock_below = o->dock_below;
    run.world = w;
    run.quiet = o->quiet;
    run.next_hour = HOUR;
    for (size_t k = 0; k < BW_WORLD_MAX_DOCKS; k++)
        run.holder[k] = -1;
    if (!run.r || !th || !wk || !run.part) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    bw_base_options_t bo;
    memset(&bo, 0, sizeof bo);
    bo.world = w;
    for (; made < n; made++) {
        robot_t *r = calloc(1, sizeof *r);
        if (!r) {
            snprintf(err, errlen, "out of memory at robot %zu", made + 1);
            goto done;
        }
        run.r[made] = r;
        bw_pose_t pose;
        const char *family, *model;
        place(o, w, made_room, made, n, &pose, &family, &model);
        char url[256];
        unsigned long long seed = (unsigned long long)(o->seed + made);
        int len = snprintf(url, sizeof url, "sim:%s?seed=%llu&start=%.9g,%.9g,%.9g", family, seed,
                           pose.x, pose.y, pose.theta * 180 / BW_PI);
        if (model && len > 0 && (size_t)len < sizeof url)
            len += snprintf(url + len, sizeof url - (size_t)len, "&model=%s", model);
        if (o->noise > 0 && len > 0 && (size_t)len < sizeof url)
            len += snprintf(url + len, sizeof url - (size_t)len, "&noise=%g", o->noise);
        if ((o->battery_lo > 0 || o->battery_hi > 0) && len > 0 && (size_t)len < sizeof url) {
            uint64_t h = fnv(0xcbf29ce484222325ull, &seed, sizeof seed);
            double u = (double)(h >> 11) * 0x1p-53;
            snprintf(url + len, sizeof url - (size_t)len, "&battery=%.4f",
                     o->battery_lo + u * (o->battery_hi - o->battery_lo));
        }
        char why[256];
        if (bw_base_open(&r->base, url, &bo, run.t, why, sizeof why) < 0) {
            snprintf(err, errlen, "robot %zu (%s): %s", made + 1, url, why);
            free(r);
            run.r[made] = NULL;
            goto done;
        }
        r->dev = bw_base_device(r->base);
        r->sim = bw_device_sim(r->dev);
        r->dock = -1;
        r->start = pose;
        r->least = 1;
        if (o->dock_below > 0) {
            if (!(bw_base_caps(r->base) & (BW_CAP_DOCK_IR | BW_CAP_SEEK_DOCK))) {
                snprintf(err, errlen, "robot %zu (%s) cannot dock: its protocol reports no dock "
                         "(Kobuki, Create and lobot robots can)", made + 1, family);
                made++;
                goto done;
            }
            size_t serving = 0;
            for (size_t k = 0; k < w->ndocks; k++) {
                bool serves = bw_dock_serves(&w->docks[k], bw_base_family(r->base));
                if (made == 0)
                    run.serves[k] = serves;
                serving += run.serves[k] && serves;
            }
            if (serving == 0) {
                snprintf(err, errlen, "robot %zu (%s): no dock in the world serves it", made + 1,
                         family);
                made++;
                goto done;
            }
            res->docks = serving;
        }
        r->host_due = bw_base_host_deadline(r->base);
        r->dev_due = bw_device_next_deadline(r->dev);
        int jr = bw_fleet_join(&fleet, r->sim);
        if (jr < 0) {
            snprintf(err, errlen, "robot %zu: the fleet cannot take it: %s", made + 1,
                     bw_strerror(jr));
            made++;
            goto done;
        }
        bw_grl_init(&r->g, r->base);
        bw_wander_init(&r->w, &r->g, o->seed + made, o->speed > 0 ? o->speed : 0.3);
        if (o->stack && bw_wander_set_stack(&r->w, o->stack) < 0) {
            snprintf(err, errlen, "no such behaviour stack: \"%s\" (from %s)", o->stack,
                     BW_WANDER_STACK_NAMES);
            made++;
            goto done;
        }
        /* Docking: each dock's front a zone the wandering keeps out of (as
         * an operator marks it on a fleet's map), in its odometry frame. */
        for (size_t k = 0; o->dock_below > 0 && k < w->ndocks; k++) {
            const bw_pose_t *d = &w->docks[k].pose;
            bw_vec2_t corner[4] = { { 0, -ZONE_WIDE / 2 }, { ZONE_DEEP, -ZONE_WIDE / 2 },
                                    { ZONE_DEEP, ZONE_WIDE / 2 }, { 0, ZONE_WIDE / 2 } };
            bw_vec2_t poly[4];
            for (unsigned v = 0; v < 4; v++)
                poly[v] = to_odometry(r, bw_pose_to_global(*d, corner[v]));
            if (bw_wander_keep_out(&r->w, poly, 4) < 0) {
                snprintf(err, errlen, "robot %zu: the docks' zones do not fit its wander", made + 1);
                made++;
                goto done;
            }
        }
        /* Drop-offs a base cannot sense, as `botwire wander` marks them:
         * keep-out zones in its odometry frame (the start is its origin). */
        for (size_t k = 0; !(bw_base_caps(r->base) & BW_CAP_CLIFFS) && k < w->ndrops; k++) {
            const bw_polygon_t *d = &w->drops[k];
            bw_vec2_t poly[BW_WORLD_MAX_POLY];
            for (unsigned v = 0; v < d->n && v < BW_WORLD_MAX_POLY; v++)
                poly[v] = bw_pose_to_local(r->sim->body.pose, d->v[v]);
            (void)bw_wander_keep_out(&r->w, poly, d->n);
        }
    }
    if (!o->quiet) /* made: what follows is the run */
        fprintf(stderr, "botwire sim: %zu robots in one process, %g s of robot time, as fast as "
                        "it goes ...\n", n, o->seconds);
    bw_fleet_freeze(&fleet, true);
    /* Barriers for every thread asked for; if fewer start, they are told
     * so before the first frame (the workers only wait until then). */
    barrier_init(&run.start, nth);
    barrier_init(&run.end, nth);
    for (; started + 1 < nth; started++) {
        wk[started] = (struct worker){ &run, started + 1 };
        if (pthread_create(&th[started], NULL, worker, &wk[started]) != 0)
            break;
    }
    nth = started + 1;
    res->threads = nth;
    /* Robots side by side in memory go to the same thread. */
    run.nparts = nth;
    for (unsigned k = 0; k < nth; k++) {
        run.part[k].begin = n * k / nth;
        run.part[k].end = n * (k + 1) / nth;
        atomic_init(&run.part[k].next, run.part[k].begin);
    }
    pthread_mutex_lock(&run.start.m);
    run.start.count = nth;
    pthread_mutex_unlock(&run.start.m);
    run.end.count = nth;

    /* Every robot online (the handshakes over their lines), then the run. */
    run_until(&run, SETTLE_MAX, NULL, all_online);
    if (!all_online(&run)) {
        size_t on = 0;
        for (size_t i = 0; i < n; i++)
            on += bw_base_state(run.r[i]->base)->online;
        snprintf(err, errlen, "%zu of %zu robots online after %g s", on, n, SETTLE_MAX);
        goto stop;
    }
    for (size_t i = 0; i < n; i++) {
        run.r[i]->ticking = true;
        run.r[i]->next_tick = run.t;
    }
    res->setup_wall_s = mono() - wall0;
    res->settle_s = run.t;
    double t0 = run.t, cpu0 = cpu_now(), w0 = mono();
    res->min_gap = INFINITY;
    if (o->alternate > 0 && nth > 1) {
        run.alt_frames = (unsigned)fmax(1, round(o->alternate / run.frame));
        run.alt_w0 = w0;
        run.alt_t0 = t0;
    }
    run_until(&run, t0 + o->seconds, &res->min_gap, NULL);
    if (run.alt_frames) {
        if (run.alt_count)
            alt_block_end(&run);
        run.alt_frames = 0;
        run.solo = false;
        if (run.alt_wall[0] > 0 && run.alt_wall[1] > 0 && run.alt_sim[1] > 0) {
            res->alt_rtf[0] = run.alt_sim[0] / run.alt_wall[0];
            res->alt_rtf[1] = run.alt_sim[1] / run.alt_wall[1];
            res->alt_speedup = res->alt_rtf[0] / res->alt_rtf[1];
        }
    }
    res->wall_s = mono() - w0;
    res->cpu_s = cpu_now() - cpu0;
    res->sim_s = run.t - t0;
    res->mem_per_robot_kb = (heap() - heap0) / (double)n / 1024;
    res->rss_per_robot_kb = (rss() - rss0) / (double)n / 1024;
    res->min_gap = fmin(res->min_gap, least_gap(run.r, n, &fleet));
    res->real_time_factor = res->wall_s > 0 ? res->sim_s / res->wall_s : INFINITY;
    res->cpu_ms_per_robot_s = res->sim_s > 0 ? res->cpu_s * 1000 / ((double)n * res->sim_s) : 0;
    uint64_t h = 0xcbf29ce484222325ull;
    double dist = 0;
    for (size_t i = 0; i < n; i++) {
        const bw_sim_t *s = run.r[i]->sim;
        const bw_base_state_t *st = bw_base_state(run.r[i]->base);
        res->online += st->online;
        res->sips += st->link.frames;
        dist += s->travelled;
        h = fnv(h, &s->body.pose, sizeof s->body.pose);
    }
    res->mean_distance = dist / (double)n;
    res->poses_hash = h;
    if (o->dock_below > 0) {
        dock_progress(&run, true);
        tally(&run, res);
    }
    rc = 0;
stop:
    if (nth > 1) {
        run.done = true;
        barrier_wait(&run.start, NULL, NULL);
        for (unsigned i = 0; i < started; i++)
            pthread_join(th[i], NULL);
    }
    barrier_destroy(&run.start);
    barrier_destroy(&run.end);
done:
    if (run.r && fleet.frozen)
        bw_fleet_freeze(&fleet, false);
    for (size_t i = 0; run.r && i < made; i++) {
        if (!run.r[i])
            continue;
        bw_base_close(run.r[i]->base, run.t);
        free(run.r[i]);
    }
    bw_fleet_free(&fleet);
    free(run.r);
    free(th);
    free(wk);
    free(run.part);
    return rc;
}
