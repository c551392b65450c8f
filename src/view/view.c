/* The live view's server: libwebsockets for HTTP and WebSocket on a libuv
 * loop of its own that the caller's loop drives (uv_backend_fd is the one
 * descriptor to wait on, uv_run(UV_RUN_NOWAIT) never waits), the Foxglove
 * WebSocket protocol on top, JSON by jansson. Debian's libwebsockets is
 * built without its external-poll interface; its libuv event library is
 * the supported way to run it inside another loop. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "internal.h"
#include "view_schema.h"

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

bool view_token_equal(const char *a, const char *b)
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

channel_t *view_find_channel(bw_view_t *v, uint32_t id)
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
    info.protocols = view_protocols;
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
        view_publish_due(v);
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
