/* The live view's clients (internal.h): the Foxglove WebSocket
 * protocol (advertise, subscribe, client publish for teleop) and the page
 * over HTTP, in libwebsockets' callback. */
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
    view_send_json(v, c, o);

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
    view_send_json(v, c, o);
    if (!c->can_publish)
        return;
    bool any = false;
    for (int i = 0; i < v->nrobots; i++)
        any |= v->robots[i].steer;
    if (any)
        view_send_status(v, c, 0, "botwire: drive a robot by advertising /ROBOT/cmd_vel (json, "
                             "{\"linear\":{\"x\":m/s},\"angular\":{\"z\":rad/s}})");
}

/* A snapshot for a new subscriber of what is not sent often. */
static void snapshot(bw_view_t *v, client_t *c, uint32_t chan)
{
    if (chan == 3 && v->world)
        view_publish(v, 3, view_world_json(v), c);
    else if (chan == 2)
        view_publish(v, 2, view_scene(v, true), c);
}

static void set_subscribers(bw_view_t *v, uint32_t chan, int delta)
{
    channel_t *ch = view_find_channel(v, chan);
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
        view_send_status(v, c, 2, "botwire: not a message of the protocol (%s)", o ? "no op" : je.text);
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
                !view_find_channel(v, (uint32_t)chan)) {
                view_send_status(v, c, 1, "botwire: no channel %lld to subscribe to", (long long)chan);
                continue;
            }
            if (c->nsubs == MAX_SUBS) {
                view_send_status(v, c, 1, "botwire: at most %d subscriptions", MAX_SUBS);
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
                view_send_status(v, c, 1, "botwire: %s: this view takes no commands from this client "
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
                view_send_status(v, c, 1, "botwire: cannot take %s (%s): the command channels are "
                                     "/ROBOT/cmd_vel in json",
                            topic ? topic : "?", enc ? enc : "?");
                continue;
            }
            if (!v->robots[robot].steer) {
                v->stats.refused++;
                view_send_status(v, c, 1, "botwire: %s is not steered from this view (%s)", topic,
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
        view_send_status(v, c, 1, "botwire: op \"%s\" is not served here", op);
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
        view_send_status(v, c, 1, "botwire: binary opcode %d is not served here", len ? p[0] : -1);
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
            view_send_status(v, c, 1, "botwire: message on channel %u, which was not advertised (or "
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
        view_send_status(v, c, 1, "botwire: a command is {\"linear\":{\"x\":m/s},\"angular\":{\"z\":"
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
        if (!t || !view_token_equal(t, v->token))
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
            view_log_event(v, r, 3, "stopped: the client driving it went away");
        }
    while (c->qlen)
        view_queue_drop_at(c, 0);
    free(c->rx);
    c->rx = NULL;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len);
const struct lws_protocols view_protocols[] = {
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
        if (lws_get_protocol(wsi) == &view_protocols[0])
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
            view_send_status(v, c, 2, "botwire: a message over %d bytes was dropped", RX_MAX);
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
