/* The live view's clients' queues (internal.h): each message once,
 * shared by the clients it goes to; a client that does not keep up drops
 * data, never a control message; and the wall clock data is stamped with. */
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

uint64_t view_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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

void view_queue_drop_at(client_t *c, unsigned k)
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
        view_queue_drop_at(c, k);
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

void view_send_json(bw_view_t *v, client_t *c, json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!s)
        return;
    enqueue(v, c, msg_new(s, strlen(s), false, false));
    free(s);
}

void view_send_status(bw_view_t *v, client_t *c, int level, const char *fmt, ...)
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
    view_send_json(v, c, o);
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
    uint64_t ns = view_wall_ns();
    p[0] = 0x01;
    for (int i = 0; i < 4; i++)
        p[1 + i] = (uint8_t)(sub >> (8 * i));
    for (int i = 0; i < 8; i++)
        p[5 + i] = (uint8_t)(ns >> (8 * i));
    memcpy(p + 13, payload, len);
    enqueue(v, c, m);
}

/* Publishes o on channel id to every subscriber (or only to `only`). */
void view_publish(bw_view_t *v, uint32_t id, json_t *o, client_t *only)
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
