/* The live view's parts (view.c: the robots and the public calls;
 * protocol.c: the clients, their queues and the Foxglove WebSocket
 * protocol over libwebsockets; publish.c: what each channel carries). */
#ifndef BOTWIRE_VIEW_PARTS_H
#define BOTWIRE_VIEW_PARTS_H
#include "botwire/view.h"

#include <jansson.h>
#include <libwebsockets.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <uv.h>

/* The monotonic clock the callers' `now` comes from (lws's timers are on
 * it too). */
static inline double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define DEFAULT_HOST "127.0.0.1"
#define DEFAULT_PORT 8765
#define MAX_ROBOTS 64
#define PUBLISH_PERIOD 0.05  /* s: poses, state and transforms at 20 Hz */
#define TELEOP_HOLD 0.5      /* s a command lasts (the base's own command timeout) */
#define QUEUE_MSGS 256       /* a client's queue: messages ... */
#define QUEUE_BYTES (2u << 20) /* ... and bytes, whichever is reached first */
#define RX_MAX 65536         /* the largest message a client may send */
#define MAX_SUBS 128
#define MAX_ADVERTISED 32
#define WRITES_PER_TURN 32   /* messages written per writeable callback */
#define TOKEN_MIN 8

enum { K_ODOM, K_TRUTH, K_STATE, K_RANGES, K_LINK, K_PER_ROBOT };
enum { G_TF, G_SCENE, G_WORLD, G_LOG, G_N };
#define ROBOT_CHANNEL(i, k) (100u + (uint32_t)(i) * K_PER_ROBOT + (uint32_t)(k))

typedef struct {
    uint32_t id;
    char topic[48];
    const char *schema_name;
    const char *schema;
    int robot; /* -1: global */
    int kind;
    unsigned subscribers;
} channel_t;

typedef struct {
    char name[24];
    char url[256];
    const char *family;
    bw_base_t *base;
    bw_device_t *dev;
    bool steer;
    bw_pose_t origin; /* the odometry frame's pose in the world */
    bool has_origin;
    double max_v, max_w, radius;
    /* What the last publish saw, for events. */
    bool seen;
    bool online;
    uint32_t bumpers, cliffs, drops;
    /* Frame rate over the last link publish. */
    uint64_t last_frames;
    double last_link_t, frame_rate;
    /* The command in force from a client. */
    double tv, tw, tt;
    uint64_t tseq;
    void *owner;
} robot_t;

typedef struct {
    size_t len;
    bool binary;
    bool data; /* message data (may be dropped), not a control message */
    uint8_t buf[];  /* LWS_PRE bytes of room, then the message */
} msg_t;

typedef struct client {
    struct client *next;
    struct lws *wsi;
    bool ws;
    bool can_publish;
    char peer[64];
    struct {
        uint32_t sub, chan;
    } subs[MAX_SUBS];
    unsigned nsubs;
    struct {
        uint32_t id;
        int robot;
    } adv[MAX_ADVERTISED];
    unsigned nadv;
    msg_t *q[QUEUE_MSGS];
    unsigned qhead, qlen;
    size_t qbytes;
    uint64_t dropped;
    uint8_t *rx;
    size_t rxlen;
    bool rx_binary, rx_over;
    /* the page over HTTP */
    bool http_page;
    size_t http_sent;
    bool warned;
} client_t;

struct bw_view {
    const char *cmd;
    struct lws_context *ctx;
    uv_loop_t loop;
    char host[128];
    int port;
    bool loopback;
    char token[80];
    bool readonly;
    char url[256];
    const bw_world_t *world;
    robot_t robots[MAX_ROBOTS];
    int nrobots;
    channel_t ch[G_N + MAX_ROBOTS * K_PER_ROBOT];
    unsigned nch;
    bool started;
    client_t *clients;
    double now, next_publish;
    double last_service; /* mono() at the last service, 0 before */
    unsigned tick;
    bw_view_stats_t stats;
};

extern const unsigned char bw_view_page[];
extern const size_t bw_view_page_len;

/* view.c */
channel_t *view_find_channel(bw_view_t *v, uint32_t id);
bool view_token_equal(const char *a, const char *b);
/* queue.c: the wall clock (ns) messages are stamped with; a message to
 * every subscriber of channel id (or to `only`), taking o; a control
 * message (JSON, taking o) or a status to one client; a queued message
 * dropped (a client gone or behind). */
uint64_t view_wall_ns(void);
void view_publish(bw_view_t *v, uint32_t id, json_t *o, client_t *only);
void view_send_json(bw_view_t *v, client_t *c, json_t *o);
void view_send_status(bw_view_t *v, client_t *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void view_queue_drop_at(client_t *c, unsigned k);
/* protocol.c: the protocols the server speaks (HTTP, Foxglove's WebSocket) */
extern const struct lws_protocols view_protocols[];
/* publish.c */
json_t *view_world_json(bw_view_t *v);
json_t *view_scene(bw_view_t *v, bool with_world);
void view_log_event(bw_view_t *v, robot_t *r, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void view_publish_due(bw_view_t *v);

#endif
