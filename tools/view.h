/*
 * The live view: robots served over the Foxglove WebSocket protocol
 * (`foxglove.websocket.v1`), and the built-in page at `/` that speaks it.
 * docs/view.md says what is served; not part of the library's API.
 *
 *     cli_view_t *v;
 *     cli_view_open(&v, &opt, err, sizeof err);   listens, says where in v's url
 *     cli_view_add_base(v, b, url, true, now);    robots: bases (a driver) ...
 *     cli_view_add_device(v, dev, name);          ... or emulated robots alone
 *     cli_view_start(v);                          channels fixed from here on
 *     loop:
 *         wait on the caller's fds and cli_view_fd(v), until
 *             cli_view_next_deadline(v) at the latest (cli_view_wait does it)
 *         cli_view_service(v, now);
 *         cli_view_teleop(v, i, now, &v, &w) ...  a command from a client
 *     cli_view_close(v);
 *
 * It never blocks the caller's loop: sockets are non-blocking, each client
 * has a bounded queue, and a client that does not read in time loses its
 * oldest messages (counted), never delays the robot.
 *
 * Time: `now` is the caller's clock (as the base's); messages are stamped
 * with the wall clock. Threads: one view, one thread.
 */
#ifndef BOTWIRE_TOOLS_VIEW_H
#define BOTWIRE_TOOLS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "botwire/botwire.h"

typedef struct cli_view cli_view_t;

typedef struct {
    const char *cmd;    /* for messages: "botwire CMD: ..." */
    const char *listen; /* "[HOST:]PORT"; NULL: 127.0.0.1:8765; port 0: any free port */
    /* The secret a client must present (?token=...). NULL: none on a
     * loopback address; elsewhere one is generated and shown in the URL. */
    const char *token;
    bool readonly;      /* no command channel */
} cli_view_options_t;

/* Listens. Returns 0, or -1 with one line in err (a bad address, a port in
 * use, a token that is too short). Built without libwebsockets, -1 with a
 * line saying so. */
int cli_view_open(cli_view_t **view, const cli_view_options_t *opt, char *err, size_t errlen);
/* "http://HOST:PORT/" (with "?token=..." when one is needed): the page. */
const char *cli_view_url(const cli_view_t *view);

/* A robot a base drives. steer: clients may command it (cli_view_teleop);
 * otherwise its command channel is not offered. For a sim: URL the emulated
 * robot's true pose and its world are served too. Call once it is online:
 * the odometry's origin in the world is taken then. Returns its index. */
int cli_view_add_base(cli_view_t *view, bw_base_t *base, const char *url, bool steer, double now);
/* An emulated robot with no driver in this process (`botwire sim`): its
 * true pose, its contact, cliff and wheel drop sensors and what its link
 * received. name: "" for a lone robot. Returns its index. */
int cli_view_add_device(cli_view_t *view, bw_device_t *dev, const char *name);
/* The world drawn (NULL: the first emulated robot's, else none). */
void cli_view_set_world(cli_view_t *view, const bw_world_t *world);
/* Fixes the channels and starts serving them. */
void cli_view_start(cli_view_t *view);

/* One descriptor to wait on (readable when a socket needs service) and the
 * latest time by which cli_view_service should be called. */
int cli_view_fd(const cli_view_t *view);
double cli_view_next_deadline(const cli_view_t *view);
/* Waits until fd (if >= 0) or the view's sockets are ready, or until (the
 * view's deadline included), whichever comes first; early on a signal. */
void cli_view_wait(const cli_view_t *view, int fd, double until);
/* Serves the sockets and publishes what is due at now. Never blocks. */
void cli_view_service(cli_view_t *view, double now);

/* A client's drive command for robot i: true while one younger than the
 * hold time (0.5 s) is in force, with v and w capped to the robot's limits;
 * *seq (if not NULL) counts the commands received, so a caller can send
 * each one once. When the client that commanded goes away, a stop (0, 0)
 * is in force at once. */
bool cli_view_teleop(cli_view_t *view, int i, double now, double *v, double *w, uint64_t *seq);

typedef struct {
    uint64_t clients;      /* connections served */
    uint64_t messages;     /* messages queued to clients */
    uint64_t dropped;      /* ...dropped because their client had not taken the older ones */
    uint64_t commands;     /* drive commands received */
    uint64_t refused;      /* messages refused (bad, or commands without the right) */
    double max_service;    /* s: the longest one cli_view_service took */
    double max_gap;        /* s: the longest between two calls of it (the caller's loop) */
} cli_view_stats_t;
void cli_view_stats(const cli_view_t *view, cli_view_stats_t *out);

/* Closes every connection and the listener, and says on stderr what it
 * served ("botwire CMD: view: served ..."). NULL is fine. */
void cli_view_close(cli_view_t *view);

/* The view's options of a command: --view [HOST:]PORT, --view-token T,
 * --view-readonly, with their help lines. */
#define CLI_VIEW_HELP                                                                       \
    "  --view [HOST:]PORT  serve the live view there (Foxglove WebSocket protocol and\n"    \
    "                   the page at /; HOST default 127.0.0.1; docs/view.md)\n"             \
    "  --view-token T   the secret clients must present (?token=T); needed to bind\n"       \
    "                   beyond 127.0.0.1, else one is generated and printed\n"              \
    "  --view-readonly  serve without the command channel\n"

#endif
