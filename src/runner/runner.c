/* A fleet in one process, in virtual time (botwire/runner.h). */
#include "botwire/runner.h"

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
    bw_wander_t w; /* last: large, and mostly untouched */
} robot_t;

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
static void robot_frame(robot_t *r, bool wander, double t)
{
    if (wander && r->ticking && t >= r->next_tick - 1e-9) {
        r->g.now = t;
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
                robot_frame(run->r[i], run->wander, run->t);
        }
    }
}

static double least_gap(robot_t **r, size_t n, const bw_fleet_t *f);
static void begin(run_t *run);

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
    if (!w) {
        if (n > 4) { /* a room with a grid of places, as `botwire sim --robots` */
            size_t cols = (size_t)ceil(sqrt((double)n));
            double side = SPACING * (double)cols + SPACING;
            bw_world_init(&room);
            (void)bw_world_add_box(&room, 0, 0, side, side);
            room.start = (bw_pose_t){ SPACING, SPACING, 0 };
            made_room = true;
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
            snprintf(url + len, sizeof url - (size_t)len, "&noise=%g", o->noise);
        char why[256];
        if (bw_base_open(&r->base, url, &bo, run.t, why, sizeof why) < 0) {
            snprintf(err, errlen, "robot %zu (%s): %s", made + 1, url, why);
            free(r);
            run.r[made] = NULL;
            goto done;
        }
        r->dev = bw_base_device(r->base);
        r->sim = bw_device_sim(r->dev);
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
