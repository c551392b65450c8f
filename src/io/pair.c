/* Two in-memory ports joined back to back. */
#include "port_internal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct ring {
    uint8_t *buf;
    size_t cap, head, len;
};

struct pair_shared {
    struct ring ring[2]; /* ring[i] carries bytes written by end i */
    bool closed[2];
    int refs;
};

struct pair_port {
    bw_port_t base;
    struct pair_shared *sh;
    int side;
};

static size_t ring_put(struct ring *r, const uint8_t *src, size_t n)
{
    size_t room = r->cap - r->len;
    if (n > room)
        n = room;
    size_t tail = (r->head + r->len) % r->cap;
    size_t first = r->cap - tail < n ? r->cap - tail : n;
    memcpy(r->buf + tail, src, first);
    memcpy(r->buf, src + first, n - first);
    r->len += n;
    return n;
}

static size_t ring_get(struct ring *r, uint8_t *dst, size_t n)
{
    if (n > r->len)
        n = r->len;
    size_t first = r->cap - r->head < n ? r->cap - r->head : n;
    memcpy(dst, r->buf + r->head, first);
    memcpy(dst + first, r->buf, n - first);
    r->head = (r->head + n) % r->cap;
    r->len -= n;
    if (r->len == 0)
        r->head = 0; /* start over: the same few cache lines stay warm */
    return n;
}

static int pair_read(bw_port_t *port, uint8_t *buf, size_t cap)
{
    struct pair_port *p = (struct pair_port *)port;
    int other = 1 - p->side;
    struct ring *r = &p->sh->ring[other];
    if (r->len == 0)
        return p->sh->closed[other] ? BW_ECLOSED : 0;
    return (int)ring_get(r, buf, cap);
}

static int pair_write(bw_port_t *port, const uint8_t *buf, size_t n)
{
    struct pair_port *p = (struct pair_port *)port;
    if (p->sh->closed[1 - p->side])
        return BW_ECLOSED;
    return (int)ring_put(&p->sh->ring[p->side], buf, n);
}

static void shared_free(struct pair_shared *sh)
{
    free(sh->ring[0].buf);
    free(sh->ring[1].buf);
    free(sh);
}

static void pair_close(bw_port_t *port)
{
    struct pair_port *p = (struct pair_port *)port;
    struct pair_shared *sh = p->sh;
    sh->closed[p->side] = true;
    if (--sh->refs == 0)
        shared_free(sh);
    free(p);
}

static const struct bw_port_ops pair_ops = {
    .read = pair_read,
    .write = pair_write,
    .close = pair_close,
};

int bw_port_pair(bw_port_t **a, bw_port_t **b, size_t capacity)
{
    if (a)
        *a = NULL;
    if (b)
        *b = NULL;
    if (!a || !b || a == b)
        return BW_EINVAL;
    if (capacity == 0)
        capacity = 65536;
    struct pair_shared *sh = calloc(1, sizeof *sh);
    struct pair_port *ends[2] = { calloc(1, sizeof *ends[0]), calloc(1, sizeof *ends[1]) };
    if (sh) {
        sh->ring[0].buf = malloc(capacity);
        sh->ring[1].buf = malloc(capacity);
    }
    if (!sh || !sh->ring[0].buf || !sh->ring[1].buf || !ends[0] || !ends[1]) {
        if (sh)
            shared_free(sh);
        free(ends[0]);
        free(ends[1]);
        return BW_ENOMEM;
    }
    sh->refs = 2;
    for (int i = 0; i < 2; i++) {
        sh->ring[i].cap = capacity;
        ends[i]->sh = sh;
        ends[i]->side = i;
        bw_io_port_init(&ends[i]->base, &pair_ops, -1, "pair");
    }
    *a = &ends[0]->base;
    *b = &ends[1]->base;
    return 0;
}
