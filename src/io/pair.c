/* Two in-memory ports joined back to back. */
#include "port_internal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Bytes each direction starts with, inside the pair's own block: a robot's
 * frames pass through a few lines of it (the rings start over when empty),
 * so thousands of pairs in one process touch little memory. A ring grows,
 * doubling, up to the pair's capacity when more is in it at once. */
#define PAIR_FIRST 256

struct ring {
    uint8_t *buf;
    size_t size;     /* bytes of buf */
    size_t cap;      /* the most it may hold: buf grows up to it */
    size_t head, len;
};

/* Both ends and both rings in one allocation, freed when both are closed. */
struct pair_port {
    bw_port_t base;
    struct pair_shared *sh;
    int side;
};

struct pair_shared {
    struct ring ring[2]; /* ring[i] carries bytes written by end i */
    bool closed[2];
    int refs;
    uint8_t first[2][PAIR_FIRST]; /* each ring's bytes until it grows */
    struct pair_port ends[2];
};

/* Room for `need` bytes (cap at most): false when the memory is not there. */
static bool ring_reserve(struct ring *r, const uint8_t *inline_buf, size_t need)
{
    if (need <= r->size)
        return true;
    size_t size = r->size;
    while (size < need)
        size = size > r->cap / 2 ? r->cap : 2 * size;
    uint8_t *buf = malloc(size);
    if (!buf)
        return false;
    size_t first = r->size - r->head < r->len ? r->size - r->head : r->len;
    memcpy(buf, r->buf + r->head, first);
    memcpy(buf + first, r->buf, r->len - first);
    if (r->buf != inline_buf)
        free(r->buf);
    r->buf = buf;
    r->size = size;
    r->head = 0;
    return true;
}

static size_t ring_put(struct ring *r, const uint8_t *inline_buf, const uint8_t *src, size_t n)
{
    size_t room = r->cap - r->len;
    if (n > room)
        n = room;
    if (!ring_reserve(r, inline_buf, r->len + n))
        n = r->size - r->len; /* no memory to grow: as full */
    size_t tail = (r->head + r->len) % r->size;
    size_t first = r->size - tail < n ? r->size - tail : n;
    memcpy(r->buf + tail, src, first);
    memcpy(r->buf, src + first, n - first);
    r->len += n;
    return n;
}

static size_t ring_get(struct ring *r, uint8_t *dst, size_t n)
{
    if (n > r->len)
        n = r->len;
    size_t first = r->size - r->head < n ? r->size - r->head : n;
    memcpy(dst, r->buf + r->head, first);
    memcpy(dst + first, r->buf, n - first);
    r->head = (r->head + n) % r->size;
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
    struct pair_shared *sh = p->sh;
    if (sh->closed[1 - p->side])
        return BW_ECLOSED;
    return (int)ring_put(&sh->ring[p->side], sh->first[p->side], buf, n);
}

static void pair_close(bw_port_t *port)
{
    struct pair_port *p = (struct pair_port *)port;
    struct pair_shared *sh = p->sh;
    sh->closed[p->side] = true;
    if (--sh->refs > 0)
        return;
    for (int i = 0; i < 2; i++)
        if (sh->ring[i].buf != sh->first[i])
            free(sh->ring[i].buf);
    free(sh);
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
    if (!sh)
        return BW_ENOMEM;
    sh->refs = 2;
    for (int i = 0; i < 2; i++) {
        sh->ring[i].buf = sh->first[i];
        sh->ring[i].size = capacity < PAIR_FIRST ? capacity : PAIR_FIRST;
        sh->ring[i].cap = capacity;
        sh->ends[i].sh = sh;
        sh->ends[i].side = i;
        bw_io_port_init(&sh->ends[i].base, &pair_ops, -1, "pair");
    }
    *a = &sh->ends[0].base;
    *b = &sh->ends[1].base;
    return 0;
}
