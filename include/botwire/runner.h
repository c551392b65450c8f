/*
 * A fleet in one process, in virtual time: every robot's emulated device,
 * its serial line both ways and its host driver (a sim: URL each), all in
 * one shared world, stepped as fast as the machine goes, driven by the
 * wander behaviour (`botwire sim FAMILY --robots N --fast --for T`,
 * `botwire bench --fleet`). docs/fleet.md.
 *
 * Time goes in frames of BW_RUNNER_FRAME seconds. In a frame every robot is
 * brought to the frame's end (its behaviour ticked when due, its base polled
 * when anything is due, its device and body stepped); between frames the
 * fleet's snapshot of where the robots are is renewed (bw_fleet_sync). Every
 * robot sees the others where they were at the frame's start, so the robots
 * may be split across threads, and a run gives the same poses whatever the
 * number of threads.
 */
#ifndef BOTWIRE_RUNNER_H
#define BOTWIRE_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "botwire/botwire.h"

/* s of robot time between snapshots. Finer costs more (each robot is
 * fetched into the cache once a frame: 10 ms frames cost 17% more CPU
 * than 20 ms at 10000 robots) for little: two robots driving into each
 * other at 0.3 m/s overlap by at most 12 mm for a frame before they are
 * blocked, and a byte waits at most a frame for its reader (Stage steps
 * its world every 100 ms). */
#define BW_RUNNER_FRAME 0.02

typedef struct {
    const char *family; /* every robot's, unless the world has robot lines */
    const char *model;  /* NULL: the family's default */
    size_t robots;      /* how many (ignored when the world has robot lines) */
    const bw_world_t *world; /* NULL: a room made for them (or the family's, up to 4) */
    double seconds;     /* robot time to run, after every robot is online */
    bool wander;        /* drive each with the wander behaviour; else they stand */
    const char *stack;  /* with wander: its stack by name (NULL: the default) */
    double speed;       /* the wander's cruise, m/s (0: 0.3) */
    uint64_t seed;      /* each robot's noise and wander seed is seed + its index */
    double noise;       /* wheel slip and encoder noise, 1 = nominal */
    unsigned threads;   /* 0: one per core */
    bool quiet;         /* no progress on stderr */
    double frame;       /* s between snapshots (0: BW_RUNNER_FRAME) */
    /* s of robot time: > 0 (and more than one thread) runs the timed part
     * in blocks this long, on one thread and on every thread in turn, to
     * measure what the threads gain on a machine whose speed drifts */
    double alternate;
    /* Docking (with wander): > 0 sends a robot whose battery falls below
     * this many percent to a dock of the world (a made room gets `docks`
     * of them along its walls, 0: one for every ten robots), one robot a
     * dock, the others waiting standing in the order they asked; charged,
     * it backs off and wanders again. Families that can dock only. */
    double dock_below;
    unsigned docks;
    /* Each robot's battery at the start, a fraction of the emulated pack
     * drawn between these (seeded); both 0: full */
    double battery_lo, battery_hi;
} bw_runner_opts_t;

typedef struct {
    size_t robots;
    unsigned threads;
    size_t online;          /* robots online at the end */
    double sim_s;           /* robot time run (the timed part) */
    double wall_s;          /* wall time it took */
    double cpu_s;           /* CPU time the process used meanwhile (every thread) */
    double setup_wall_s;    /* opening and the handshakes, before the timed part */
    double settle_s;        /* robot time until every robot was online */
    double real_time_factor; /* sim_s / wall_s */
    double cpu_ms_per_robot_s; /* ms of CPU per robot per robot-second */
    double mem_per_robot_kb;   /* heap memory the fleet holds, per robot (1024 bytes) */
    double rss_per_robot_kb;   /* resident memory it added, per robot (first fleet of a process) */
    double mean_distance;   /* m each robot travelled, on average (true path) */
    double min_gap;         /* m between two robots' outlines, the least seen (each s) */
    uint64_t sips;          /* frames the drivers took from the robots */
    uint64_t poses_hash;    /* of every robot's final true pose, bit for bit */
    /* With o->alternate: the real-time factor in the blocks on every
     * thread [0] and on one [1], and the first over the second (0: not
     * measured) */
    double alt_rtf[2], alt_speedup;
    /* With o->dock_below: */
    size_t docks;           /* docks in the world that serve the fleet's family */
    uint64_t dock_attempts; /* goings to a dock (each ends docked or failed, or is under way) */
    uint64_t docked;        /* attempts that ended docked and charging */
    uint64_t dock_failed;   /* attempts that ended with a reason (dock_reasons) */
    uint64_t charges;       /* charges completed (charged, then off the dock) */
    uint64_t contacts;      /* times a robot drove into another (its motion refused by it) */
    uint64_t touches;       /* times a robot's outline came to touch another's (each counts) */
    size_t flat;            /* robots whose battery ran empty */
    size_t under_way;       /* robots waiting for, going to, on or leaving a dock at the end */
    size_t attempts_open;   /* attempts not ended at the end (going to or docking) */
    uint64_t docked_untrue; /* times a robot's driver said docked and the emulator's truth not */
    uint64_t not_charging;  /* dockings left after 60 s with the charger idle */
    double least_charge;    /* the least any robot's battery fell to, a fraction (its driver's) */
    char dock_reasons[512]; /* "reason: count; ..." of the failed attempts */
} bw_runner_result_t;

/* Runs the fleet; 0, or -1 with the reason in err. */
int bw_runner_run(const bw_runner_opts_t *o, bw_runner_result_t *r, char *err, size_t errlen);

#endif
