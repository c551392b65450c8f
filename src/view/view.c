/* The live view's server: libwebsockets for HTTP and WebSocket on a libuv
 * loop of its own that the caller's loop drives (uv_backend_fd is the one
 * descriptor to wait on, uv_run(UV_RUN_NOWAIT) never waits), the Foxglove
 * WebSocket protocol on top, JSON by jansson. Debian's libwebsockets is
 * built without its external-poll interface; its libuv event library is
 * the supported way to run it inside another loop. */
#include "botwire/view.h"

#include <errno.h>
#include <jansson.h>
#include <libwebsockets.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "view_schema.h"

/* The monotonic clock the callers' `now` comes from (lws's timers are on
 * it too). */
static double mono(void)
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

/* ---- small helpers ---------------------------------------------------------- */

static const char *lws_err_cmd = "view";
static char lws_last_err[256];

static void lws_emit(int level, const char *line)
{
    (void)level;
    snprintf(lws_last_err, sizeof lws_last_err, "%s", line);
    size_t n = strlen(lws_last_err);
    while (n && (lws_last_err[n - 1] == '\n' || lws_last_err[n - 1] == '\r'))
        lws_last_err[--n] = 0;
    /* lws prefixes "[date] E: "; the reason is after it. */
    const char *why = strstr(lws_last_err, "E: ");
    fprintf(stderr, "botwire %s: view: %s\n", lws_err_cmd, why ? why + 3 : lws_last_err);
}

static json_t *jtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    json_t *o = json_object();
    json_object_set_new(o, "sec", json_integer((json_int_t)ts.tv_sec));
    json_object_set_new(o, "nsec", json_integer((json_int_t)ts.tv_nsec));
    return o;
}

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static json_t *jvec3(double x, double y, double z)
{
    json_t *o = json_object();
    json_object_set_new(o, "x", json_real(x));
    json_object_set_new(o, "y", json_real(y));
    json_object_set_new(o, "z", json_real(z));
    return o;
}

static json_t *jquat_yaw(double theta)
{
    json_t *o = json_object();
    json_object_set_new(o, "x", json_real(0));
    json_object_set_new(o, "y", json_real(0));
    json_object_set_new(o, "z", json_real(sin(theta / 2)));
    json_object_set_new(o, "w", json_real(cos(theta / 2)));
    return o;
}

static json_t *jpose3(double x, double y, double z, double theta)
{
    json_t *o = json_object();
    json_object_set_new(o, "position", jvec3(x, y, z));
    json_object_set_new(o, "orientation", jquat_yaw(theta));
    return o;
}

static json_t *jpose2(bw_pose_t p)
{
    json_t *o = json_object();
    json_object_set_new(o, "x", json_real(p.x));
    json_object_set_new(o, "y", json_real(p.y));
    json_object_set_new(o, "theta", json_real(p.theta));
    return o;
}

static json_t *jcolor(double r, double g, double b, double a)
{
    json_t *o = json_object();
    json_object_set_new(o, "r", json_real(r));
    json_object_set_new(o, "g", json_real(g));
    json_object_set_new(o, "b", json_real(b));
    json_object_set_new(o, "a", json_real(a));
    return o;
}

static bool token_equal(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = (unsigned char)(la != lb);
    for (size_t i = 0; i < la && i < lb; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

/* ---- robots --------------------------------------------------------------------- */

static robot_t *new_robot(bw_view_t *v)
{
    if (v->started || v->nrobots >= MAX_ROBOTS)
        return NULL;
    robot_t *r = &v->robots[v->nrobots];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "robot%d", v->nrobots + 1);
    r->tt = -INFINITY;
    r->radius = 0.18;
    return r;
}

int bw_view_add_base(bw_view_t *v, bw_base_t *base, const char *url, bool steer, double now)
{
    (void)now;
    robot_t *r = new_robot(v);
    if (!r)
        return -1;
    r->base = base;
    r->family = bw_base_family(base);
    snprintf(r->url, sizeof r->url, "%s", url);
    r->steer = steer && !v->readonly && (bw_base_caps(base) & BW_CAP_DRIVE);
    bw_base_limits(base, &r->max_v, &r->max_w);
    r->dev = bw_base_device(base);
    if (r->dev) {
        /* The odometry starts where the base was opened: the frame it
         * counts in sits in the world where the true pose says, less the
         * odometry so far. */
        bw_sim_t *sim = bw_device_sim(r->dev);
        bw_pose_t odo = bw_base_state(base)->pose, truth = sim->body.pose;
        double th = bw_angle_norm(truth.theta - odo.theta);
        r->origin = (bw_pose_t){ truth.x - (odo.x * cos(th) - odo.y * sin(th)),
                                 truth.y - (odo.x * sin(th) + odo.y * cos(th)), th };
        r->has_origin = true;
        r->radius = sim->body.prm.radius;
        if (!v->world)
            v->world = sim->world;
    }
    return v->nrobots++;
}

int bw_view_add_device(bw_view_t *v, bw_device_t *dev, const char *name)
{
    robot_t *r = new_robot(v);
    if (!r)
        return -1;
    if (name && *name) {
        /* "robot 3" -> "robot3": a topic name has no spaces. */
        size_t k = 0;
        for (const char *p = name; *p && k + 1 < sizeof r->name; p++)
            if (*p != ' ')
                r->name[k++] = *p;
        r->name[k] = 0;
    }
    r->dev = dev;
    r->family = bw_device_family(dev);
    snprintf(r->url, sizeof r->url, "emulated %s", r->family);
    bw_sim_t *sim = bw_device_sim(dev);
    r->radius = sim->body.prm.radius;
    r->max_v = sim->body.prm.max_wheel_speed;
    r->origin = (bw_pose_t){ 0, 0, 0 };
    if (!v->world)
        v->world = sim->world;
    return v->nrobots++;
}

void bw_view_set_world(bw_view_t *v, const bw_world_t *world)
{
    if (world)
        v->world = world;
}

static void add_channel(bw_view_t *v, uint32_t id, const char *topic, const char *sname,
                        const char *schema, int robot, int kind)
{
    channel_t *c = &v->ch[v->nch++];
    memset(c, 0, sizeof *c);
    c->id = id;
    snprintf(c->topic, sizeof c->topic, "%s", topic);
    c->schema_name = sname;
    c->schema = schema;
    c->robot = robot;
    c->kind = kind;
}

static channel_t *find_channel(bw_view_t *v, uint32_t id)
{
    for (unsigned i = 0; i < v->nch; i++)
        if (v->ch[i].id == id)
            return &v->ch[i];
    return NULL;
}

void bw_view_start(bw_view_t *v)
{
    v->nch = 0;
    add_channel(v, 1, "/tf", "foxglove.FrameTransforms", SCHEMA_FRAME_TRANSFORMS, -1, G_TF);
    add_channel(v, 2, "/scene", "foxglove.SceneUpdate", SCHEMA_SCENE_UPDATE, -1, G_SCENE);
    if (v->world)
        add_channel(v, 3, "/world", "botwire.World", SCHEMA_WORLD, -1, G_WORLD);
    add_channel(v, 4, "/log", "foxglove.Log", SCHEMA_LOG, -1, G_LOG);
    for (int i = 0; i < v->nrobots; i++) {
        robot_t *r = &v->robots[i];
        char t[48];
        if (r->base) {
            snprintf(t, sizeof t, "/%s/odom", r->name);
            add_channel(v, ROBOT_CHANNEL(i, K_ODOM), t, "foxglove.PoseInFrame",
                        SCHEMA_POSE_IN_FRAME, i, K_ODOM);
        }
        if (r->dev) {
            snprintf(t, sizeof t, "/%s/truth", r->name);
            add_channel(v, ROBOT_CHANNEL(i, K_TRUTH), t, "foxglove.PoseInFrame",
                        SCHEMA_POSE_IN_FRAME, i, K_TRUTH);
        }
        snprintf(t, sizeof t, "/%s/state", r->name);
        add_channel(v, ROBOT_CHANNEL(i, K_STATE), t, "botwire.State", SCHEMA_STATE, i, K_STATE);
        if (r->base && bw_base_state(r->base)->nranges) {
            snprintf(t, sizeof t, "/%s/ranges", r->name);
            add_channel(v, ROBOT_CHANNEL(i, K_RANGES), t, "botwire.Ranges", SCHEMA_RANGES, i,
                        K_RANGES);
        }
        snprintf(t, sizeof t, "/%s/link", r->name);
        add_channel(v, ROBOT_CHANNEL(i, K_LINK), t, "botwire.Link", SCHEMA_LINK, i, K_LINK);
    }
    v->started = true;
}

/* ---- a client's queue ---------------------------------------------------------- */

static msg_t *msg_new(const void *data, size_t len, bool binary, bool isdata)
{
    msg_t *m = malloc(sizeof *m + LWS_PRE + len);
    if (!m)
        return NULL;
    m->len = len;
    m->binary = binary;
    m->data = isdata;
    memcpy(m->buf + LWS_PRE, data, len);
    return m;
}

static void queue_drop_at(client_t *c, unsigned k)
{
    /* k is an offset from the head; the rest close up behind it. */
    unsigned idx = (c->qhead + k) % QUEUE_MSGS;
    msg_t *m = c->q[idx];
    c->qbytes -= m->len;
    free(m);
    for (unsigned j = k; j + 1 < c->qlen; j++)
        c->q[(c->qhead + j) % QUEUE_MSGS] = c->q[(c->qhead + j + 1) % QUEUE_MSGS];
    c->qlen--;
}

/* Queues m for c; when the queue is full, the oldest message data goes
 * (control messages are kept: without them the client is lost). */
static void enqueue(bw_view_t *v, client_t *c, msg_t *m)
{
    if (!m)
        return;
    while (c->qlen == QUEUE_MSGS || (c->qlen && c->qbytes + m->len > QUEUE_BYTES)) {
        unsigned k = 0;
        while (k < c->qlen && !c->q[(c->qhead + k) % QUEUE_MSGS]->data)
            k++;
        if (k == c->qlen) {
            if (m->data) {
                free(m);
                c->dropped++;
                v->stats.dropped++;
                return;
            }
            break; /* only control messages: this one goes over the bound */
        }
        queue_drop_at(c, k);
        c->dropped++;
        v->stats.dropped++;
    }
    if (c->qlen == QUEUE_MSGS) {
        free(m);
        return;
    }
    c->q[(c->qhead + c->qlen) % QUEUE_MSGS] = m;
    c->qlen++;
    c->qbytes += m->len;
    v->stats.messages++;
    lws_callback_on_writable(c->wsi);
}

static void send_json(bw_view_t *v, client_t *c, json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!s)
        return;
    enqueue(v, c, msg_new(s, strlen(s), false, false));
    free(s);
}

static void send_status(bw_view_t *v, client_t *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void send_status(bw_view_t *v, client_t *c, int level, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_t *o = json_object();
    json_object_set_new(o, "op", json_string("status"));
    json_object_set_new(o, "level", json_integer(level));
    json_object_set_new(o, "message", json_string(text));
    send_json(v, c, o);
}

/* Message data for one subscription: opcode 1, the subscription's id, the
 * time, the payload. */
static void send_data(bw_view_t *v, client_t *c, uint32_t sub, const char *payload, size_t len)
{
    msg_t *m = malloc(sizeof *m + LWS_PRE + 13 + len);
    if (!m)
        return;
    m->len = 13 + len;
    m->binary = true;
    m->data = true;
    uint8_t *p = m->buf + LWS_PRE;
    uint64_t ns = wall_ns();
    p[0] = 0x01;
    for (int i = 0; i < 4; i++)
        p[1 + i] = (uint8_t)(sub >> (8 * i));
    for (int i = 0; i < 8; i++)
        p[5 + i] = (uint8_t)(ns >> (8 * i));
    memcpy(p + 13, payload, len);
    enqueue(v, c, m);
}

/* Publishes o on channel id to every subscriber (or only to `only`). */
static void publish(bw_view_t *v, uint32_t id, json_t *o, client_t *only)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(7));
    json_decref(o);
    if (!s)
        return;
    size_t len = strlen(s);
    for (client_t *c = v->clients; c; c = c->next) {
        if (!c->ws || (only && c != only))
            continue;
        for (unsigned i = 0; i < c->nsubs; i++)
            if (c->subs[i].chan == id)
                send_data(v, c, c->subs[i].sub, s, len);
    }
    free(s);
}

/* ---- what is published ------------------------------------------------------------ */

static bw_pose_t truth_of(const robot_t *r)
{
    return bw_device_sim(r->dev)->body.pose;
}

static bw_pose_t compose(bw_pose_t a, bw_pose_t b)
{
    return (bw_pose_t){ a.x + b.x * cos(a.theta) - b.y * sin(a.theta),
                        a.y + b.x * sin(a.theta) + b.y * cos(a.theta),
                        bw_angle_norm(a.theta + b.theta) };
}

/* Where the robot is drawn: its true pose when emulated, else its
 * odometry (in its odometry frame). */
static bw_pose_t drawn_pose(const robot_t *r, const char **frame)
{
    if (r->dev) {
        *frame = "world";
        return truth_of(r);
    }
    *frame = NULL;
    return bw_base_state(r->base)->pose;
}

static json_t *pose_in_frame(const char *frame, bw_pose_t p)
{
    json_t *o = json_object();
    json_object_set_new(o, "timestamp", jtime());
    json_object_set_new(o, "frame_id", json_string(frame));
    json_object_set_new(o, "pose", jpose3(p.x, p.y, 0, p.theta));
    return o;
}

static json_t *transform(const char *parent, const char *child, bw_pose_t p)
{
    json_t *o = json_object();
    json_object_set_new(o, "timestamp", jtime());
    json_object_set_new(o, "parent_frame_id", json_string(parent));
    json_object_set_new(o, "child_frame_id", json_string(child));
    json_object_set_new(o, "translation", jvec3(p.x, p.y, 0));
    json_object_set_new(o, "rotation", jquat_yaw(p.theta));
    return o;
}

static json_t *state_json(bw_view_t *v, robot_t *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "timestamp", jtime());
    json_object_set_new(o, "robot", json_string(r->name));
    json_object_set_new(o, "url", json_string(r->url));
    json_object_set_new(o, "family", json_string(r->family));
    json_object_set_new(o, "radius", json_real(r->radius));
    json_object_set_new(o, "max_v", json_real(r->max_v));
    json_object_set_new(o, "max_w", json_real(r->max_w));
    json_object_set_new(o, "steer", json_boolean(r->steer));
    json_object_set_new(o, "emulated", json_boolean(r->dev != NULL));
    if (r->dev) {
        json_object_set_new(o, "truth", jpose2(truth_of(r)));
        json_object_set_new(o, "origin", jpose2(r->origin));
    }
    if (r->base) {
        const bw_base_state_t *s = bw_base_state(r->base);
        json_object_set_new(o, "online", json_boolean(s->online));
        json_object_set_new(o, "odometry", jpose2(s->pose));
        json_object_set_new(o, "v", json_real(s->v));
        json_object_set_new(o, "w", json_real(s->w));
        json_object_set_new(o, "estimated", json_boolean(s->estimated));
        json_object_set_new(o, "bumpers", json_integer(s->bumpers));
        json_object_set_new(o, "cliffs", json_integer(s->cliffs));
        json_object_set_new(o, "wheel_drops", json_integer(s->wheel_drops));
        json_object_set_new(o, "battery", json_real(s->battery));
        if (s->battery_fraction > 0)
            json_object_set_new(o, "fraction", json_real(s->battery_fraction));
        if (bw_base_caps(r->base) & BW_CAP_CHARGING) {
            static const char *const charge[] = { "unknown", "discharging", "charging", "charged" };
            json_object_set_new(o, "charging", json_string(charge[s->charging <= BW_CHARGE_CHARGED
                                                                      ? s->charging
                                                                      : 0]));
        }
        if (s->self_driving)
            json_object_set_new(o, "self_driving", json_true());
        if (s->mode[0])
            json_object_set_new(o, "mode", json_string(s->mode));
    } else {
        const bw_body_t *b = &bw_device_sim(r->dev)->body;
        json_object_set_new(o, "online", json_true());
        json_object_set_new(o, "v", json_real(b->v));
        json_object_set_new(o, "w", json_real(b->w));
        json_object_set_new(o, "bumpers", json_integer(b->contact ? BW_BUMP_FRONT : 0));
        json_object_set_new(o, "cliffs", json_integer(b->cliff));
        json_object_set_new(o, "wheel_drops",
                            json_integer((b->drop_left ? BW_DROP_LEFT : 0u) |
                                         (b->drop_right ? BW_DROP_RIGHT : 0u)));
        json_object_set_new(o, "battery", json_real(b->battery));
        json_object_set_new(o, "docked", json_boolean(b->docked));
    }
    if (r->steer) {
        json_t *c = json_object();
        json_object_set_new(c, "v", json_real(r->tv));
        json_object_set_new(c, "w", json_real(r->tw));
        json_object_set_new(c, "age", isfinite(r->tt) ? json_real(v->now - r->tt) : json_null());
        json_object_set_new(o, "command", c);
    }
    return o;
}

static json_t *ranges_json(robot_t *r)
{
    const bw_base_state_t *s = bw_base_state(r->base);
    json_t *o = json_object(), *a = json_array();
    json_object_set_new(o, "timestamp", jtime());
    char frame[48];
    snprintf(frame, sizeof frame, "%s/base_link", r->name);
    json_object_set_new(o, "frame_id", json_string(frame));
    for (unsigned i = 0; i < s->nranges; i++) {
        const bw_range_t *g = &s->ranges[i];
        json_t *e = json_object();
        json_object_set_new(e, "kind", json_string(g->kind == BW_RANGE_IR ? "ir" : "sonar"));
        json_object_set_new(e, "mount", jpose2(g->mount));
        json_object_set_new(e, "at", jpose2(g->at)); /* odometry when it was heard */
        json_object_set_new(e, "range", g->t > 0 ? json_real(g->range) : json_null());
        json_object_set_new(e, "max_range", json_real(g->max_range));
        json_object_set_new(e, "age", g->t > 0 ? json_real(s->t - g->t) : json_null());
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "ranges", a);
    return o;
}

static json_t *link_json(bw_view_t *v, robot_t *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "timestamp", jtime());
    json_object_set_new(o, "robot", json_string(r->name));
    const bw_parse_stats_t *l;
    if (r->base) {
        const bw_base_state_t *s = bw_base_state(r->base);
        l = &s->link;
        json_object_set_new(o, "side", json_string("host"));
        json_object_set_new(o, "online", json_boolean(s->online));
        json_object_set_new(o, "reconnects", json_integer((json_int_t)s->reconnects));
    } else {
        l = &bw_device_stats(r->dev)->link;
        json_object_set_new(o, "side", json_string("robot"));
        json_object_set_new(o, "dropped_bytes", json_integer((json_int_t)bw_device_dropped(r->dev)));
    }
    json_object_set_new(o, "frames", json_integer((json_int_t)l->frames));
    json_object_set_new(o, "rejected", json_integer((json_int_t)(l->checksum_errors + l->length_errors)));
    json_object_set_new(o, "skipped_bytes", json_integer((json_int_t)l->skipped_bytes));
    json_object_set_new(o, "unknown", json_integer((json_int_t)l->unknown));
    json_object_set_new(o, "implausible", json_integer((json_int_t)l->implausible));
    if (r->last_link_t > 0 && v->now > r->last_link_t)
        r->frame_rate = (double)(l->frames - r->last_frames) / (v->now - r->last_link_t);
    r->last_frames = l->frames;
    r->last_link_t = v->now;
    json_object_set_new(o, "frame_rate", json_real(round(r->frame_rate * 10) / 10));
    return o;
}

static json_t *world_json(bw_view_t *v)
{
    const bw_world_t *w = v->world;
    json_t *o = json_object(), *walls = json_array(), *drops = json_array(), *labels = json_array();
    json_object_set_new(o, "frame_id", json_string("world"));
    json_object_set_new(o, "extent", json_pack("[ffff]", w->min_x, w->min_y, w->max_x, w->max_y));
    for (size_t i = 0; i < w->nwalls; i++)
        json_array_append_new(walls, json_pack("[ffff]", w->walls[i].a.x, w->walls[i].a.y,
                                               w->walls[i].b.x, w->walls[i].b.y));
    for (size_t i = 0; i < w->ndrops; i++) {
        json_t *poly = json_array();
        for (unsigned k = 0; k < w->drops[i].n; k++)
            json_array_append_new(poly, json_pack("{sfsf}", "x", w->drops[i].v[k].x, "y",
                                                  w->drops[i].v[k].y));
        json_array_append_new(drops, poly);
    }
    for (size_t i = 0; i < w->nlabels; i++)
        json_array_append_new(labels, json_pack("{sfsfss}", "x", w->labels[i].at.x, "y",
                                                w->labels[i].at.y, "text", w->labels[i].text));
    json_object_set_new(o, "walls", walls);
    json_object_set_new(o, "drops", drops);
    json_object_set_new(o, "labels", labels);
    /* "dock": the first (as before there were several); "docks": all */
    json_object_set_new(o, "dock", w->ndocks ? jpose2(w->docks[0].pose) : json_null());
    json_t *docks = json_array();
    for (size_t i = 0; i < w->ndocks; i++)
        json_array_append_new(docks, json_pack("{sfsfsfss}", "x", w->docks[i].pose.x, "y",
                                               w->docks[i].pose.y, "theta", w->docks[i].pose.theta,
                                               "family", w->docks[i].family));
    json_object_set_new(o, "docks", docks);
    return o;
}

/* A SceneEntity with every list Foxglove's schema has. */
static json_t *entity(const char *frame, const char *id)
{
    json_t *e = json_object();
    json_object_set_new(e, "timestamp", jtime());
    json_object_set_new(e, "frame_id", json_string(frame));
    json_object_set_new(e, "id", json_string(id));
    json_object_set_new(e, "lifetime", json_pack("{sisi}", "sec", 0, "nsec", 0));
    json_object_set_new(e, "frame_locked", json_false());
    const char *lists[] = { "metadata", "arrows", "cubes", "spheres", "cylinders",
                            "lines", "triangles", "texts", "models" };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        json_object_set_new(e, lists[i], json_array());
    return e;
}

static json_t *line(int type, double thickness, json_t *points, json_t *color)
{
    json_t *l = json_object();
    json_object_set_new(l, "type", json_integer(type));
    json_object_set_new(l, "pose", jpose3(0, 0, 0, 0));
    json_object_set_new(l, "thickness", json_real(thickness));
    json_object_set_new(l, "scale_invariant", json_false());
    json_object_set_new(l, "points", points);
    json_object_set_new(l, "color", color);
    json_object_set_new(l, "colors", json_array());
    json_object_set_new(l, "indices", json_array());
    return l;
}

static json_t *scene_world(bw_view_t *v)
{
    const bw_world_t *w = v->world;
    json_t *e = entity("world", "world");
    json_t *pts = json_array();
    for (size_t i = 0; i < w->nwalls; i++) {
        json_array_append_new(pts, jvec3(w->walls[i].a.x, w->walls[i].a.y, 0));
        json_array_append_new(pts, jvec3(w->walls[i].b.x, w->walls[i].b.y, 0));
    }
    json_t *lines = json_object_get(e, "lines");
    json_array_append_new(lines, line(2, 0.04, pts, jcolor(0.25, 0.25, 0.3, 1)));
    for (size_t i = 0; i < w->ndrops; i++) {
        json_t *p = json_array();
        for (unsigned k = 0; k < w->drops[i].n; k++)
            json_array_append_new(p, jvec3(w->drops[i].v[k].x, w->drops[i].v[k].y, 0));
        json_array_append_new(lines, line(1, 0.03, p, jcolor(0.85, 0.2, 0.15, 1)));
    }
    for (size_t i = 0; i < w->ndocks; i++) { /* each dock's body, behind its face */
        const bw_pose_t *d = &w->docks[i].pose;
        double back = BW_DOCK_BACK + 0.06;
        json_t *c = json_object();
        json_object_set_new(c, "pose", jpose3(d->x - back * cos(d->theta), d->y - back * sin(d->theta),
                                              0.05, d->theta));
        json_object_set_new(c, "size", jvec3(0.12, BW_DOCK_WIDTH, 0.1));
        json_object_set_new(c, "color", jcolor(0.1, 0.6, 0.3, 1));
        json_array_append_new(json_object_get(e, "cubes"), c);
    }
    for (size_t i = 0; i < w->nlabels; i++) {
        json_t *t = json_object();
        json_object_set_new(t, "pose", jpose3(w->labels[i].at.x, w->labels[i].at.y, 0.2, 0));
        json_object_set_new(t, "billboard", json_true());
        json_object_set_new(t, "font_size", json_real(14));
        json_object_set_new(t, "scale_invariant", json_true());
        json_object_set_new(t, "color", jcolor(0.2, 0.2, 0.2, 1));
        json_object_set_new(t, "text", json_string(w->labels[i].text));
        json_array_append_new(json_object_get(e, "texts"), t);
    }
    return e;
}

static json_t *scene_robot(robot_t *r)
{
    const char *frame;
    bw_pose_t p = drawn_pose(r, &frame);
    char odom[48];
    if (!frame) {
        snprintf(odom, sizeof odom, "%s/odom", r->name);
        frame = odom;
    }
    json_t *e = entity(frame, r->name);
    json_t *cy = json_object();
    json_object_set_new(cy, "pose", jpose3(p.x, p.y, 0.05, p.theta));
    json_object_set_new(cy, "size", jvec3(2 * r->radius, 2 * r->radius, 0.1));
    json_object_set_new(cy, "bottom_scale", json_real(1));
    json_object_set_new(cy, "top_scale", json_real(1));
    bool bump = r->base ? bw_base_state(r->base)->bumpers != 0 : bw_device_sim(r->dev)->body.contact;
    json_object_set_new(cy, "color", bump ? jcolor(0.9, 0.2, 0.1, 0.9) : jcolor(0.1, 0.4, 0.8, 0.9));
    json_array_append_new(json_object_get(e, "cylinders"), cy);
    json_t *ar = json_object();
    json_object_set_new(ar, "pose", jpose3(p.x, p.y, 0.12, p.theta));
    json_object_set_new(ar, "shaft_length", json_real(r->radius));
    json_object_set_new(ar, "shaft_diameter", json_real(0.03));
    json_object_set_new(ar, "head_length", json_real(0.08));
    json_object_set_new(ar, "head_diameter", json_real(0.08));
    json_object_set_new(ar, "color", jcolor(1, 0.8, 0.1, 1));
    json_array_append_new(json_object_get(e, "arrows"), ar);
    /* Each range reading as a ray from its mount, where the robot is drawn. */
    if (r->base) {
        const bw_base_state_t *s = bw_base_state(r->base);
        json_t *pts = json_array();
        for (unsigned i = 0; i < s->nranges; i++) {
            const bw_range_t *g = &s->ranges[i];
            if (g->t <= 0)
                continue;
            bw_pose_t m = compose(p, g->mount);
            json_array_append_new(pts, jvec3(m.x, m.y, 0.1));
            json_array_append_new(pts, jvec3(m.x + g->range * cos(m.theta),
                                             m.y + g->range * sin(m.theta), 0.1));
        }
        json_array_append_new(json_object_get(e, "lines"),
                              line(2, 0.01, pts, jcolor(0.95, 0.55, 0.1, 0.8)));
    }
    json_t *t = json_object();
    json_object_set_new(t, "pose", jpose3(p.x, p.y, 0.3, 0));
    json_object_set_new(t, "billboard", json_true());
    json_object_set_new(t, "font_size", json_real(12));
    json_object_set_new(t, "scale_invariant", json_true());
    json_object_set_new(t, "color", jcolor(0.1, 0.1, 0.1, 1));
    json_object_set_new(t, "text", json_string(r->name));
    json_array_append_new(json_object_get(e, "texts"), t);
    return e;
}

static json_t *scene(bw_view_t *v, bool with_world)
{
    json_t *o = json_object(), *ents = json_array();
    json_object_set_new(o, "deletions", json_array());
    if (with_world && v->world)
        json_array_append_new(ents, scene_world(v));
    for (int i = 0; i < v->nrobots; i++)
        json_array_append_new(ents, scene_robot(&v->robots[i]));
    json_object_set_new(o, "entities", ents);
    return o;
}

static json_t *transforms(bw_view_t *v)
{
    json_t *o = json_object(), *a = json_array();
    for (int i = 0; i < v->nrobots; i++) {
        robot_t *r = &v->robots[i];
        char odom[48], base[48];
        snprintf(odom, sizeof odom, "%s/odom", r->name);
        snprintf(base, sizeof base, "%s/base_link", r->name);
        if (r->base) {
            if (r->has_origin)
                json_array_append_new(a, transform("world", odom, r->origin));
            json_array_append_new(a, transform(odom, base, bw_base_state(r->base)->pose));
        } else {
            json_array_append_new(a, transform("world", base, truth_of(r)));
        }
    }
    json_object_set_new(o, "transforms", a);
    return o;
}

static void log_event(bw_view_t *v, robot_t *r, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void log_event(bw_view_t *v, robot_t *r, int level, const char *fmt, ...)
{
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_t *o = json_object();
    json_object_set_new(o, "timestamp", jtime());
    json_object_set_new(o, "level", json_integer(level));
    json_object_set_new(o, "message", json_string(text));
    json_object_set_new(o, "name", json_string(r->name));
    json_object_set_new(o, "file", json_string(""));
    json_object_set_new(o, "line", json_integer(0));
    publish(v, 4, o, NULL);
}

/* Events from what changed since the last publish (the caller's loop takes
 * the base's own events: the view must not steal them). */
static void events(bw_view_t *v, robot_t *r)
{
    bool online;
    uint32_t bumpers, cliffs, drops;
    if (r->base) {
        const bw_base_state_t *s = bw_base_state(r->base);
        online = s->online;
        bumpers = s->bumpers;
        cliffs = s->cliffs;
        drops = s->wheel_drops;
    } else {
        const bw_body_t *b = &bw_device_sim(r->dev)->body;
        online = true;
        bumpers = b->contact ? BW_BUMP_FRONT : 0;
        cliffs = b->cliff;
        drops = (b->drop_left ? BW_DROP_LEFT : 0u) | (b->drop_right ? BW_DROP_RIGHT : 0u);
    }
    if (r->seen) {
        if (online != r->online)
            log_event(v, r, online ? 2 : 4, "%s", online ? "online" : "offline");
        if (bumpers != r->bumpers)
            log_event(v, r, bumpers ? 3 : 2, "bump %s (bumpers 0x%x)", bumpers ? "on" : "off",
                      bumpers);
        if (cliffs != r->cliffs)
            log_event(v, r, cliffs ? 3 : 2, "cliff %s (0x%x)", cliffs ? "on" : "off", cliffs);
        if (drops != r->drops)
            log_event(v, r, drops ? 3 : 2, "wheel drop %s (0x%x)", drops ? "on" : "off", drops);
    }
    r->seen = true;
    r->online = online;
    r->bumpers = bumpers;
    r->cliffs = cliffs;
    r->drops = drops;
}

static bool subscribed(const bw_view_t *v, uint32_t id)
{
    for (unsigned i = 0; i < v->nch; i++)
        if (v->ch[i].id == id)
            return v->ch[i].subscribers > 0;
    return false;
}

static void publish_due(bw_view_t *v)
{
    unsigned t = v->tick++;
    for (int i = 0; i < v->nrobots; i++) {
        robot_t *r = &v->robots[i];
        events(v, r);
        if (r->base && subscribed(v, ROBOT_CHANNEL(i, K_ODOM))) {
            char frame[48];
            snprintf(frame, sizeof frame, "%s/odom", r->name);
            publish(v, ROBOT_CHANNEL(i, K_ODOM), pose_in_frame(frame, bw_base_state(r->base)->pose),
                    NULL);
        }
        if (r->dev && subscribed(v, ROBOT_CHANNEL(i, K_TRUTH)))
            publish(v, ROBOT_CHANNEL(i, K_TRUTH), pose_in_frame("world", truth_of(r)), NULL);
        if (subscribed(v, ROBOT_CHANNEL(i, K_STATE)))
            publish(v, ROBOT_CHANNEL(i, K_STATE), state_json(v, r), NULL);
        if (t % 2 == 0 && r->base && subscribed(v, ROBOT_CHANNEL(i, K_RANGES)))
            publish(v, ROBOT_CHANNEL(i, K_RANGES), ranges_json(r), NULL);
        if (t % 10 == 0 && subscribed(v, ROBOT_CHANNEL(i, K_LINK)))
            publish(v, ROBOT_CHANNEL(i, K_LINK), link_json(v, r), NULL);
    }
    if (subscribed(v, 1))
        publish(v, 1, transforms(v), NULL);
    if (t % 2 == 0 && subscribed(v, 2))
        publish(v, 2, scene(v, t % 100 == 0), NULL);
    if (t % 100 == 0 && v->world && subscribed(v, 3))
        publish(v, 3, world_json(v), NULL);
}

/* ---- the protocol ------------------------------------------------------------------ */

static void hello(bw_view_t *v, client_t *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "op", json_string("serverInfo"));
    json_object_set_new(o, "name", json_string("botwire " BOTWIRE_VERSION));
    json_t *caps = json_array();
    if (c->can_publish)
        json_array_append_new(caps, json_string("clientPublish"));
    json_object_set_new(o, "capabilities", caps);
    json_object_set_new(o, "supportedEncodings", json_pack("[s]", "json"));
    json_t *meta = json_object();
    for (int i = 0; i < v->nrobots; i++)
        json_object_set_new(meta, v->robots[i].name, json_string(v->robots[i].url));
    json_object_set_new(o, "metadata", meta);
    char sid[32];
    snprintf(sid, sizeof sid, "%ld", (long)getpid());
    json_object_set_new(o, "sessionId", json_string(sid));
    send_json(v, c, o);

    json_t *chans = json_array();
    for (unsigned i = 0; i < v->nch; i++) {
        json_t *ch = json_object();
        json_object_set_new(ch, "id", json_integer(v->ch[i].id));
        json_object_set_new(ch, "topic", json_string(v->ch[i].topic));
        json_object_set_new(ch, "encoding", json_string("json"));
        json_object_set_new(ch, "schemaName", json_string(v->ch[i].schema_name));
        json_object_set_new(ch, "schema", json_string(v->ch[i].schema));
        json_object_set_new(ch, "schemaEncoding", json_string("jsonschema"));
        json_array_append_new(chans, ch);
    }
    o = json_object();
    json_object_set_new(o, "op", json_string("advertise"));
    json_object_set_new(o, "channels", chans);
    send_json(v, c, o);
    if (!c->can_publish)
        return;
    bool any = false;
    for (int i = 0; i < v->nrobots; i++)
        any |= v->robots[i].steer;
    if (any)
        send_status(v, c, 0, "botwire: drive a robot by advertising /ROBOT/cmd_vel (json, "
                             "{\"linear\":{\"x\":m/s},\"angular\":{\"z\":rad/s}})");
}

/* A snapshot for a new subscriber of what is not sent often. */
static void snapshot(bw_view_t *v, client_t *c, uint32_t chan)
{
    if (chan == 3 && v->world)
        publish(v, 3, world_json(v), c);
    else if (chan == 2)
        publish(v, 2, scene(v, true), c);
}

static void set_subscribers(bw_view_t *v, uint32_t chan, int delta)
{
    channel_t *ch = find_channel(v, chan);
    if (ch && (delta > 0 || ch->subscribers > 0))
        ch->subscribers = (unsigned)((int)ch->subscribers + delta);
}

static void on_text(bw_view_t *v, client_t *c, const char *text, size_t len)
{
    json_error_t je;
    json_t *o = json_loadb(text, len, 0, &je);
    const char *op = json_string_value(json_object_get(o, "op"));
    if (!op) {
        v->stats.refused++;
        send_status(v, c, 2, "botwire: not a message of the protocol (%s)", o ? "no op" : je.text);
        json_decref(o);
        return;
    }
    if (!strcmp(op, "subscribe")) {
        json_t *subs = json_object_get(o, "subscriptions"), *s;
        size_t i;
        json_array_foreach(subs, i, s) {
            json_int_t id = json_integer_value(json_object_get(s, "id"));
            json_int_t chan = json_integer_value(json_object_get(s, "channelId"));
            if (!json_is_integer(json_object_get(s, "id")) || id < 0 || id > UINT32_MAX ||
                !find_channel(v, (uint32_t)chan)) {
                send_status(v, c, 1, "botwire: no channel %lld to subscribe to", (long long)chan);
                continue;
            }
            if (c->nsubs == MAX_SUBS) {
                send_status(v, c, 1, "botwire: at most %d subscriptions", MAX_SUBS);
                break;
            }
            c->subs[c->nsubs].sub = (uint32_t)id;
            c->subs[c->nsubs].chan = (uint32_t)chan;
            c->nsubs++;
            set_subscribers(v, (uint32_t)chan, 1);
            snapshot(v, c, (uint32_t)chan);
        }
    } else if (!strcmp(op, "unsubscribe")) {
        json_t *ids = json_object_get(o, "subscriptionIds"), *s;
        size_t i;
        json_array_foreach(ids, i, s) {
            for (unsigned k = 0; k < c->nsubs; k++)
                if (c->subs[k].sub == (uint32_t)json_integer_value(s)) {
                    set_subscribers(v, c->subs[k].chan, -1);
                    c->subs[k] = c->subs[--c->nsubs];
                    break;
                }
        }
    } else if (!strcmp(op, "advertise")) {
        json_t *chans = json_object_get(o, "channels"), *ch;
        size_t i;
        json_array_foreach(chans, i, ch) {
            const char *topic = json_string_value(json_object_get(ch, "topic"));
            const char *enc = json_string_value(json_object_get(ch, "encoding"));
            json_int_t id = json_integer_value(json_object_get(ch, "id"));
            if (!c->can_publish) {
                v->stats.refused++;
                send_status(v, c, 1, "botwire: %s: this view takes no commands from this client "
                                     "(%s)", topic ? topic : "?",
                            v->readonly ? "--view-readonly" : "another origin without the token");
                continue;
            }
            int robot = -1;
            for (int k = 0; topic && k < v->nrobots; k++) {
                char want[48];
                snprintf(want, sizeof want, "/%s/cmd_vel", v->robots[k].name);
                if (!strcmp(topic, want))
                    robot = k;
            }
            if (robot < 0 || !enc || strcmp(enc, "json") || c->nadv == MAX_ADVERTISED) {
                v->stats.refused++;
                send_status(v, c, 1, "botwire: cannot take %s (%s): the command channels are "
                                     "/ROBOT/cmd_vel in json",
                            topic ? topic : "?", enc ? enc : "?");
                continue;
            }
            if (!v->robots[robot].steer) {
                v->stats.refused++;
                send_status(v, c, 1, "botwire: %s is not steered from this view (%s)", topic,
                            v->robots[robot].base ? "the command steering it has it"
                                                  : "no driver here: botwire view URL steers it");
                continue;
            }
            c->adv[c->nadv].id = (uint32_t)id;
            c->adv[c->nadv].robot = robot;
            c->nadv++;
        }
    } else if (!strcmp(op, "unadvertise")) {
        json_t *ids = json_object_get(o, "channelIds"), *s;
        size_t i;
        json_array_foreach(ids, i, s) {
            for (unsigned k = 0; k < c->nadv; k++)
                if (c->adv[k].id == (uint32_t)json_integer_value(s)) {
                    c->adv[k] = c->adv[--c->nadv];
                    break;
                }
        }
    } else {
        v->stats.refused++;
        send_status(v, c, 1, "botwire: op \"%s\" is not served here", op);
    }
    json_decref(o);
}

static void set_command(bw_view_t *v, robot_t *r, client_t *c, double lin, double ang)
{
    /* Capped to what the robot goes. */
    if (r->max_v > 0)
        lin = fmax(-r->max_v, fmin(r->max_v, lin));
    if (r->max_w > 0)
        ang = fmax(-r->max_w, fmin(r->max_w, ang));
    r->tv = lin;
    r->tw = ang;
    r->tt = v->now;
    r->tseq++;
    r->owner = c;
    v->stats.commands++;
}

static void on_binary(bw_view_t *v, client_t *c, const uint8_t *p, size_t len)
{
    if (len < 5 || p[0] != 0x01) {
        v->stats.refused++;
        send_status(v, c, 1, "botwire: binary opcode %d is not served here", len ? p[0] : -1);
        return;
    }
    uint32_t id = (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 24;
    int robot = -1;
    for (unsigned k = 0; k < c->nadv; k++)
        if (c->adv[k].id == id)
            robot = c->adv[k].robot;
    if (robot < 0) {
        v->stats.refused++;
        if (!c->warned)
            send_status(v, c, 1, "botwire: message on channel %u, which was not advertised (or "
                                 "was refused)", id);
        c->warned = true;
        return;
    }
    json_error_t je;
    json_t *o = json_loadb((const char *)p + 5, len - 5, 0, &je);
    json_t *lin = json_object_get(json_object_get(o, "linear"), "x");
    json_t *ang = json_object_get(json_object_get(o, "angular"), "z");
    double x = lin ? json_number_value(lin) : 0, z = ang ? json_number_value(ang) : 0;
    if (!o || (!json_is_number(lin) && !json_is_number(ang)) || !isfinite(x) || !isfinite(z)) {
        v->stats.refused++;
        send_status(v, c, 1, "botwire: a command is {\"linear\":{\"x\":m/s},\"angular\":{\"z\":"
                             "rad/s}}");
    } else {
        set_command(v, &v->robots[robot], c, x, z);
    }
    json_decref(o);
}

/* Host must name this server when it listens on loopback (so a page of
 * another site that had its name point here, DNS rebinding, is refused);
 * the token must match when there is one. Returns 0 or an HTTP status.
 * *publish: whether the client may command (a page of another origin may
 * only with the token). */
static int check_access(bw_view_t *v, struct lws *wsi, bool *publish)
{
    char host[160] = "", origin[200] = "", arg[160];
    lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST);
    lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN);
    if (v->loopback) {
        char name[160];
        snprintf(name, sizeof name, "%s", host);
        char *colon = strrchr(name, ':');
        if (colon && !strchr(colon, ']'))
            *colon = 0;
        if (strcmp(name, "127.0.0.1") && strcasecmp(name, "localhost") && strcmp(name, "[::1]") &&
            strcmp(name, v->host))
            return HTTP_STATUS_FORBIDDEN;
    }
    bool token_ok = false;
    if (v->token[0]) {
        const char *t = lws_get_urlarg_by_name(wsi, "token=", arg, sizeof arg);
        if (!t || !token_equal(t, v->token))
            return HTTP_STATUS_UNAUTHORIZED;
        token_ok = true;
    }
    if (publish) {
        char self[200];
        snprintf(self, sizeof self, "http://%s", host);
        bool foreign = origin[0] && strcmp(origin, self) != 0;
        *publish = !v->readonly && (!foreign || token_ok);
    }
    return 0;
}

static client_t *client_of(void *user)
{
    return user;
}

static void client_gone(bw_view_t *v, client_t *c)
{
    for (client_t **p = &v->clients; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    for (unsigned i = 0; i < c->nsubs; i++)
        set_subscribers(v, c->subs[i].chan, -1);
    c->nsubs = 0;
    /* The robot it was driving stops now, not at the command timeout. */
    for (int i = 0; i < v->nrobots; i++)
        if (v->robots[i].owner == c) {
            robot_t *r = &v->robots[i];
            r->tv = r->tw = 0;
            r->tt = v->now;
            r->tseq++;
            r->owner = NULL;
            log_event(v, r, 3, "stopped: the client driving it went away");
        }
    while (c->qlen)
        queue_drop_at(c, 0);
    free(c->rx);
    c->rx = NULL;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len);
static const struct lws_protocols protocols[] = {
    { "http", callback, sizeof(client_t), 0, 0, NULL, 0 },
    { "foxglove.websocket.v1", callback, sizeof(client_t), RX_MAX, 0, NULL, 0 },
    { NULL, NULL, 0, 0, 0, NULL, 0 },
};

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    bw_view_t *v = ctx ? lws_context_user(ctx) : NULL;
    client_t *c = client_of(user);
    if (!v)
        return 0;
    switch (reason) {
    case LWS_CALLBACK_HTTP: {
        int st = check_access(v, wsi, NULL);
        const char *path = in;
        if (!st && strcmp(path, "/") && strcmp(path, "/index.html"))
            st = HTTP_STATUS_NOT_FOUND;
        if (st) {
            lws_return_http_status(wsi, (unsigned)st,
                                   st == HTTP_STATUS_UNAUTHORIZED ? "the view's token is needed "
                                                                    "(?token=...)"
                                   : st == HTTP_STATUS_FORBIDDEN ? "not this server's name"
                                                                 : NULL);
            return lws_http_transaction_completed(wsi) ? -1 : 0;
        }
        uint8_t buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start,
                                     *end = buf + sizeof buf - 1;
        static const char csp[] = "default-src 'none'; script-src 'unsafe-inline'; style-src "
                                  "'unsafe-inline'; connect-src 'self' ws: wss:; img-src data:";
        if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, "text/html; charset=utf-8",
                                        (lws_filepos_t)bw_view_page_len, &p, end) ||
            lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                        (const unsigned char *)"no-store", 8, &p, end) ||
            lws_add_http_header_by_name(wsi, (const unsigned char *)"content-security-policy:",
                                        (const unsigned char *)csp, (int)strlen(csp), &p, end) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return 1;
        c->http_page = true;
        c->http_sent = 0;
        lws_callback_on_writable(wsi);
        return 0;
    }
    case LWS_CALLBACK_HTTP_WRITEABLE: {
        if (!c || !c->http_page)
            return 0;
        uint8_t buf[LWS_PRE + 8192];
        size_t n = bw_view_page_len - c->http_sent;
        if (n > 8192)
            n = 8192;
        memcpy(buf + LWS_PRE, bw_view_page + c->http_sent, n);
        c->http_sent += n;
        bool last = c->http_sent == bw_view_page_len;
        if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n)
            return -1;
        if (!last) {
            lws_callback_on_writable(wsi);
            return 0;
        }
        c->http_page = false;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        /* Only the Foxglove subprotocol is spoken on a WebSocket. */
        if (lws_get_protocol(wsi) == &protocols[0])
            return 1;
        bool pub = false;
        int st = check_access(v, wsi, &pub);
        if (st) {
            v->stats.refused++;
            return 1;
        }
        return 0;
    }
    case LWS_CALLBACK_ESTABLISHED: {
        memset(c, 0, sizeof *c);
        c->wsi = wsi;
        c->ws = true;
        bool pub = false;
        check_access(v, wsi, &pub);
        c->can_publish = pub;
        lws_get_peer_simple(wsi, c->peer, sizeof c->peer);
        c->next = v->clients;
        v->clients = c;
        v->stats.clients++;
        hello(v, c);
        return 0;
    }
    case LWS_CALLBACK_CLOSED:
        if (c && c->ws)
            client_gone(v, c);
        return 0;
    case LWS_CALLBACK_RECEIVE: {
        if (lws_is_first_fragment(wsi)) {
            c->rxlen = 0;
            c->rx_over = false;
            c->rx_binary = lws_frame_is_binary(wsi);
        }
        if (!c->rx && !(c->rx = malloc(RX_MAX)))
            return -1;
        if (c->rxlen + len > RX_MAX)
            c->rx_over = true;
        else {
            memcpy(c->rx + c->rxlen, in, len);
            c->rxlen += len;
        }
        if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
            return 0;
        if (c->rx_over) {
            v->stats.refused++;
            send_status(v, c, 2, "botwire: a message over %d bytes was dropped", RX_MAX);
        } else if (c->rx_binary) {
            on_binary(v, c, c->rx, c->rxlen);
        } else {
            on_text(v, c, (const char *)c->rx, c->rxlen);
        }
        return 0;
    }
    case LWS_CALLBACK_SERVER_WRITEABLE: {
        for (int k = 0; k < WRITES_PER_TURN && c->qlen; k++) {
            msg_t *m = c->q[c->qhead];
            c->q[c->qhead] = NULL;
            c->qhead = (c->qhead + 1) % QUEUE_MSGS;
            c->qlen--;
            c->qbytes -= m->len;
            int n = lws_write(wsi, m->buf + LWS_PRE, m->len,
                              m->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
            free(m);
            if (n < 0)
                return -1;
            /* What the socket did not take lws keeps, and calls again
             * only when it has gone: nothing more now. */
            if (lws_send_pipe_choked(wsi))
                break;
        }
        if (c->qlen)
            lws_callback_on_writable(wsi);
        return 0;
    }
    default:
        return 0;
    }
}


/* ---- the public calls ----------------------------------------------------------------- */

static bool is_loopback(const char *host)
{
    return !strncmp(host, "127.", 4) || !strcasecmp(host, "localhost") || !strcmp(host, "::1");
}

int bw_view_open(bw_view_t **out, const bw_view_options_t *opt, char *err, size_t errlen)
{
    *out = NULL;
    bw_view_t *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    v->cmd = opt->cmd ? opt->cmd : "view";
    lws_err_cmd = v->cmd;
    v->readonly = opt->readonly;
    snprintf(v->host, sizeof v->host, "%s", DEFAULT_HOST);
    v->port = DEFAULT_PORT;
    if (opt->listen) {
        const char *colon = strrchr(opt->listen, ':');
        const char *num = colon ? colon + 1 : opt->listen;
        char *end;
        long p = strtol(num, &end, 10);
        size_t hl = colon ? (size_t)(colon - opt->listen) : 0;
        if (!*num || *end || p < 0 || p > 65535 || hl >= sizeof v->host) {
            snprintf(err, errlen, "the view wants [HOST:]PORT, not \"%s\"", opt->listen);
            free(v);
            return -1;
        }
        if (colon && hl) {
            memcpy(v->host, opt->listen, hl);
            v->host[hl] = 0;
        }
        v->port = (int)p;
    }
    v->loopback = is_loopback(v->host);
    if (opt->token) {
        if (strlen(opt->token) < TOKEN_MIN || strlen(opt->token) >= sizeof v->token ||
            strspn(opt->token, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~") !=
                strlen(opt->token)) {
            snprintf(err, errlen, "--view-token wants %d to %zu letters, digits or -_.~", TOKEN_MIN,
                     sizeof v->token - 1);
            free(v);
            return -1;
        }
        snprintf(v->token, sizeof v->token, "%s", opt->token);
    } else if (!v->loopback) {
        /* Beyond this machine, nobody is served without the secret. */
        uint8_t rnd[16];
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
            snprintf(err, errlen, "no random token: %s", strerror(errno));
            free(v);
            return -1;
        }
        for (size_t i = 0; i < sizeof rnd; i++)
            snprintf(v->token + 2 * i, 3, "%02x", rnd[i]);
    }
    if (uv_loop_init(&v->loop) < 0) {
        snprintf(err, errlen, "cannot make an event loop");
        free(v);
        return -1;
    }
    lws_set_log_level(LLL_ERR, lws_emit);
    lws_last_err[0] = 0;
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = v->port;
    info.iface = v->host;
    info.protocols = protocols;
    info.user = v;
    info.gid = -1;
    info.uid = -1;
    void *loops[] = { &v->loop };
    info.foreign_loops = loops;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_LIBUV |
                   (strchr(v->host, ':') ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6);
    info.timeout_secs = 10;
    v->ctx = lws_create_context(&info);
    if (!v->ctx) {
        snprintf(err, errlen, "cannot serve the view on %s:%d%s", v->host, v->port,
                 v->port ? " (in use? --view HOST:PORT picks another)" : "");
        uv_loop_close(&v->loop);
        free(v);
        return -1;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(v->ctx, "default");
    int port = vh ? lws_get_vhost_listen_port(vh) : v->port;
    if (port > 0)
        v->port = port;
    snprintf(v->url, sizeof v->url, "http://%s%s%s:%d/%s%s", strchr(v->host, ':') ? "[" : "",
             v->host, strchr(v->host, ':') ? "]" : "", v->port, v->token[0] ? "?token=" : "",
             v->token);
    v->now = -INFINITY;
    *out = v;
    return 0;
}

const char *bw_view_url(const bw_view_t *v)
{
    return v->url;
}

int bw_view_fd(const bw_view_t *v)
{
    return v ? uv_backend_fd(&v->loop) : -1;
}

double bw_view_next_deadline(const bw_view_t *v)
{
    if (!v)
        return INFINITY;
    /* The loop's next timer (lws's timeouts), and the next publish. */
    int ms = uv_backend_timeout(&v->loop);
    double t = ms >= 0 ? mono() + ms / 1000.0 : INFINITY;
    return fmin(t, isfinite(v->next_publish) ? v->next_publish : -INFINITY);
}

void bw_view_wait(const bw_view_t *v, int fd, double until)
{
    until = fmin(until, bw_view_next_deadline(v));
    struct pollfd p[2];
    nfds_t n = 0;
    if (fd >= 0)
        p[n++] = (struct pollfd){ fd, POLLIN, 0 };
    if (v)
        p[n++] = (struct pollfd){ uv_backend_fd(&v->loop), POLLIN, 0 };
    double left = until - mono();
    if (left <= 0)
        return;
    left = fmin(left, 3600.0);
    struct timespec ts = { (time_t)left, (long)((left - floor(left)) * 1e9) + 1 };
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    ppoll(p, n, &ts, NULL);
}

void bw_view_service(bw_view_t *v, double now)
{
    if (!v)
        return;
    double t0 = mono();
    if (v->last_service > 0)
        v->stats.max_gap = fmax(v->stats.max_gap, t0 - v->last_service);
    v->last_service = t0;
    v->now = now;
    /* Sockets and timers that are ready; never waits. */
    uv_run(&v->loop, UV_RUN_NOWAIT);
    if (v->started && now >= v->next_publish) {
        publish_due(v);
        v->next_publish = fmax(v->next_publish + PUBLISH_PERIOD, now);
        if (!isfinite(v->next_publish) || v->next_publish < now)
            v->next_publish = now + PUBLISH_PERIOD;
    }
    v->stats.max_service = fmax(v->stats.max_service, mono() - t0);
}

bool bw_view_teleop(bw_view_t *v, int i, double now, double *lin, double *ang, uint64_t *seq)
{
    if (!v || i < 0 || i >= v->nrobots)
        return false;
    robot_t *r = &v->robots[i];
    if (seq)
        *seq = r->tseq;
    if (!r->steer || now - r->tt > TELEOP_HOLD)
        return false;
    *lin = r->tv;
    *ang = r->tw;
    return true;
}

void bw_view_stats(const bw_view_t *v, bw_view_stats_t *out)
{
    memset(out, 0, sizeof *out);
    if (v)
        *out = v->stats;
}

void bw_view_close(bw_view_t *v)
{
    if (!v)
        return;
    const bw_view_stats_t *s = &v->stats;
    if (v->started)
        fprintf(stderr,
            "botwire %s: view: served %llu clients, %llu messages (%llu dropped: a client did not "
            "keep up), %llu drive commands, %llu refused; longest service %.1f ms, longest loop "
            "gap %.1f ms\n",
            v->cmd, (unsigned long long)s->clients, (unsigned long long)s->messages,
            (unsigned long long)s->dropped, (unsigned long long)s->commands,
            (unsigned long long)s->refused, s->max_service * 1000, s->max_gap * 1000);
    lws_context_destroy(v->ctx);
    /* lws closes its handles on the loop: let them finish (a few turns),
     * then destroy again: on a foreign loop the first call only begins it
     * (lws 4.1; the second frees what the first could not). */
    for (int i = 0; i < 100 && uv_loop_alive(&v->loop); i++)
        uv_run(&v->loop, UV_RUN_NOWAIT);
    lws_context_destroy(v->ctx);
    uv_loop_close(&v->loop);
    free(v);
}
