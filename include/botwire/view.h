/*
 * The live view: robots served over the Foxglove WebSocket protocol
 * (`foxglove.websocket.v1`), and the built-in page at `/` that speaks it.
 * docs/view.md says what is served. A layer of its own above the base API
 * (src/view/), built into the tool; not installed (it needs libwebsockets
 * and libuv).
 *
 *     bw_view_t *v;
 *     bw_view_open(&v, &opt, err, sizeof err);   listens, says where in v's url
 *     bw_view_add_base(v, b, url, true, now);    robots: bases (a driver) ...
 *     bw_view_add_device(v, dev, name);          ... or emulated robots alone
 *     bw_view_start(v);                          channels fixed from here on
 *     loop:
 *         wait on the caller's fds and bw_view_fd(v), until
 *             bw_view_next_deadline(v) at the latest (bw_view_wait does it)
 *         bw_view_service(v, now);
 *         bw_view_teleop(v, i, now, &v, &w) ...  a command from a client
 *     bw_view_close(v);
 *
 * It never blocks the caller's loop: sockets are non-blocking, each client
 * has a bounded queue, and a client that does not read in time loses its
 * oldest messages (counted), never delays the robot.
 *
 * Time: `now` is the caller's clock (as the base's); messages are stamped
 * with the wall clock. Threads: one view, one thread.
 */
#ifndef BOTWIRE_VIEW_H
#define BOTWIRE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "botwire/botwire.h"

typedef struct bw_view bw_view_t;

typedef struct {
    const char *cmd;    /* for messages: "botwire CMD: ..." */
    const char *listen; /* "[HOST:]PORT"; NULL: 127.0.0.1:8765; port 0: any free port */
    /* The secret a client must present (?token=...). NULL: none on a
     * loopback address; elsewhere one is generated and shown in the URL. */
    const char *token;
    bool readonly;      /* no command channel */
} bw_view_options_t;

/* Listens. Returns 0, or -1 with one line in err (a bad address, a port in
 * use, a token that is too short). Built without libwebsockets, -1 with a
 * line saying so. */
int bw_view_open(bw_view_t **view, const bw_view_options_t *opt, char *err, size_t errlen);
/* "http://HOST:PORT/" (with "?token=..." when one is needed): the page. */
const char *bw_view_url(const bw_view_t *view);

/* A robot a base drives. steer: clients may command it (bw_view_teleop);
 * otherwise its command channel is not offered. For a sim: URL the emulated
 * robot's true pose and its world are served too. Call once it is online:
 * the odometry's origin in the world is taken then. Returns its index. */
int bw_view_add_base(bw_view_t *view, bw_base_t *base, const char *url, bool steer, double now);
/* An emulated robot with no driver in this process (`botwire sim`): its
 * true pose, its contact, cliff and wheel drop sensors and what its link
 * received. name: "" for a lone robot. Returns its index. */
int bw_view_add_device(bw_view_t *view, bw_device_t *dev, const char *name);
/* The world drawn (NULL: the first emulated robot's, else none). */
void bw_view_set_world(bw_view_t *view, const bw_world_t *world);
/* Fixes the channels and starts serving them. */
void bw_view_start(bw_view_t *view);

/* One descriptor to wait on (readable when a socket needs service) and the
 * latest time by which bw_view_service should be called. */
int bw_view_fd(const bw_view_t *view);
double bw_view_next_deadline(const bw_view_t *view);
/* Waits until fd (if >= 0) or the view's sockets are ready, or until (the
 * view's deadline included), whichever comes first; early on a signal. */
void bw_view_wait(const bw_view_t *view, int fd, double until);
/* Serves the sockets and publishes what is due at now. Never blocks. */
void bw_view_service(bw_view_t *view, double now);

/* A client's drive command for robot i: true while one younger than the
 * hold time (0.5 s) is in force, with v and w capped to the robot's limits;
 * *seq (if not NULL) counts the commands received, so a caller can send
 * each one once. When the client that commanded goes away, a stop (0, 0)
 * is in force at once. */
bool bw_view_teleop(bw_view_t *view, int i, double now, double *v, double *w, uint64_t *seq);

typedef struct {
    uint64_t clients;      /* connections served */
    uint64_t messages;     /* messages queued to clients */
    uint64_t dropped;      /* ...dropped because their client had not taken the older ones */
    uint64_t commands;     /* drive commands received */
    uint64_t refused;      /* messages refused (bad, or commands without the right) */
    double max_service;    /* s: the longest one bw_view_service took */
    double max_gap;        /* s: the longest between two calls of it (the caller's loop) */
} bw_view_stats_t;
void bw_view_stats(const bw_view_t *view, bw_view_stats_t *out);

/* Closes every connection and the listener, and says on stderr what it
 * served ("botwire CMD: view: served ..."). NULL is fine. */
void bw_view_close(bw_view_t *view);

#endif
