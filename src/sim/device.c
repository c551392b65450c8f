/* Emulated robots: the family-independent part. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "device_internal.h"

/* Deadlines a robot that fell behind is stepped through at most in one
 * step (family_step): over 8 minutes of a 5 ms control tick; a longer
 * stall (a stopped process) takes the rest at once. */
#define CATCH_UP_STEPS 100000

static const bw_device_ops_t *const families[] = {
    &bw_kobuki_device_ops,
    &bw_p2os_device_ops,
    &bw_lobot_device_ops,
    &bw_create_device_ops,
    &bw_rbsm_device_ops,
    &bw_rflex_device_ops,
};

/* ---- the serial line ------------------------------------------------------ */

/* When byte j's last bit is in. */
static double uart_at(const bw_uart_t *u, uint64_t j)
{
    return u->t0 + (double)(j - u->first + 1) * u->byte_time;
}

/* Counts the bytes that are across by now; returns how many just came. */
static uint64_t uart_advance(bw_uart_t *u, double now)
{
    uint64_t was = u->done;
    while (u->done < u->queued && uart_at(u, u->done) <= now)
        u->done++;
    while (u->ends_len && u->ends[u->ends_head] <= u->done) {
        u->ends_head = (u->ends_head + 1) % BW_DEVICE_MARKS;
        u->ends_len--;
    }
    return u->done - was;
}

/* n bytes written at now: after the ones still on the line, or at once on
 * an idle line. */
static void uart_queue(bw_uart_t *u, size_t n, double now)
{
    uart_advance(u, now);
    if (u->done == u->queued) {
        u->t0 = now;
        u->first = u->queued;
    }
    u->queued += n;
    if (u->ends_len == BW_DEVICE_MARKS) /* merged with the last: woken later */
        u->ends[(u->ends_head + u->ends_len - 1) % BW_DEVICE_MARKS] = u->queued;
    else
        u->ends[(u->ends_head + u->ends_len++) % BW_DEVICE_MARKS] = u->queued;
}

/* When the next write on the line is wholly across (INFINITY: none). A
 * deadline per byte would wake a reader 11520 times a second at 115200
 * baud for nothing: whoever looks between finds the bytes that are in by
 * then all the same. */
static double uart_next(const bw_uart_t *u)
{
    if (u->done == u->queued)
        return INFINITY;
    uint64_t end = u->ends_len ? u->ends[u->ends_head] : u->queued;
    return uart_at(u, end - 1);
}

static size_t uart_on_line(const bw_uart_t *u) { return (size_t)(u->queued - u->done); }

/* What the robot's transmitter holds at most: a second of its line, at
 * least 256 bytes (a frame of any family), within half the output buffer
 * (the other half for what is across and not yet taken). */
static size_t tx_bound(const bw_device_t *d)
{
    size_t second = (size_t)d->baud / 10;
    return second < 256 ? 256 : second > BW_DEVICE_OUT_CAP / 2 ? BW_DEVICE_OUT_CAP / 2 : second;
}

/* Room in a ring of `*size` bytes for `need` (at most cap): grown, its
 * bytes from *head moved to the start; false when the memory is not there. */
static bool ring_reserve(uint8_t **buf, size_t *size, size_t *head, size_t len, size_t need,
                         size_t cap, const uint8_t *first)
{
    if (need <= *size)
        return true;
    size_t grown = *size;
    while (grown < need)
        grown = grown > cap / 2 ? cap : 2 * grown;
    uint8_t *b = malloc(grown);
    if (!b)
        return false;
    size_t part = *size - *head < len ? *size - *head : len;
    memcpy(b, *buf + *head, part);
    memcpy(b + part, *buf, len - part);
    if (*buf != first)
        free(*buf);
    *buf = b;
    *size = grown;
    *head = 0;
    return true;
}

void bw_device_options_init(bw_device_options_t *o)
{
    memset(o, 0, sizeof *o);
}

static const bw_device_ops_t *ops_of(const char *family)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strcasecmp(families[i]->family, family) == 0)
            return families[i];
    return NULL;
}

int bw_device_default_world(const char *family, bw_world_t *w)
{
    const bw_device_ops_t *ops = family ? ops_of(family) : NULL;
    if (!ops)
        return BW_EUNKNOWN;
    if (ops->default_world)
        ops->default_world(w);
    else
        bw_world_default(w);
    return 0;
}

int bw_device_create(bw_device_t **dev, const char *family, const bw_device_options_t *opt,
                     double t0, char *err, size_t errlen)
{
    *dev = NULL;
    const bw_device_ops_t *ops = ops_of(family);
    if (!ops) {
        if (err) {
            int n = snprintf(err, errlen, "no emulated robot for family \"%s\" (emulated:", family);
            for (size_t i = 0; n > 0 && (size_t)n < errlen && i < sizeof families / sizeof families[0]; i++)
                n += snprintf(err + n, errlen - (size_t)n, "%s %s", i ? "," : "", families[i]->family);
            if (n > 0 && (size_t)n < errlen)
                snprintf(err + n, errlen - (size_t)n, ")");
        }
        return BW_EUNKNOWN;
    }
    bw_device_options_t defaults;
    if (!opt) {
        bw_device_options_init(&defaults);
        opt = &defaults;
    }
    bw_device_t *d = calloc(1, sizeof *d);
    void *priv = calloc(1, ops->size);
    if (!d || !priv) {
        free(d);
        free(priv);
        if (err)
            snprintf(err, errlen, "out of memory");
        return BW_ENOMEM;
    }
    d->ops = ops;
    d->priv = priv;
    d->out = d->out_first;
    d->out_size = sizeof d->out_first;
    d->in = d->in_first;
    d->in_size = sizeof d->in_first;
    d->tx.ends = d->tx_ends;
    d->rx.ends = d->rx_ends;
    d->last_input = -INFINITY;
    d->clock = t0;
    if (opt->baud > 0) {
        d->baud = opt->baud;
        d->tx.byte_time = d->rx.byte_time = 10.0 / opt->baud;
    }
    const bw_world_t *world = opt->world ? opt->world : opt->fleet ? opt->fleet->world : NULL;
    if (!world) {
        d->own_world = malloc(sizeof *d->own_world);
        if (!d->own_world) {
            if (err)
                snprintf(err, errlen, "out of memory");
            bw_device_destroy(d);
            return BW_ENOMEM;
        }
        if (ops->default_world)
            ops->default_world(d->own_world);
        else
            bw_world_default(d->own_world);
        world = d->own_world;
    }
    bw_body_params_t prm;
    bw_body_params_default(&prm);
    memset(prm.dock_family, 0, sizeof prm.dock_family);
    if (ops->dock_family)
        snprintf(prm.dock_family, sizeof prm.dock_family, "%s", ops->dock_family);
    bw_sim_init(&d->sim, world, &prm, opt->has_start ? opt->start : world->start, t0);
    int rc = ops->init(d, opt, t0, err, errlen);
    if (rc >= 0 && opt->has_battery) { /* the family's pack, part full */
        bw_body_t *b = &d->sim.body;
        double f = fmax(0, fmin(1, opt->battery));
        b->battery = b->prm.battery_empty + f * (b->prm.battery_full - b->prm.battery_empty);
    }
    if (rc >= 0 && opt->fleet) {
        rc = bw_fleet_join(opt->fleet, bw_device_sim(d));
        if (rc < 0 && err)
            snprintf(err, errlen, "the fleet cannot take another robot: %s", bw_strerror(rc));
    }
    if (rc < 0) {
        bw_device_destroy(d);
        return rc;
    }
    *dev = d;
    return 0;
}

void bw_device_destroy(bw_device_t *d)
{
    if (!d)
        return;
    bw_sim_t *s = bw_device_sim(d);
    if (s && s->fleet) /* before a family frees an inner device's sim */
        bw_fleet_leave(s->fleet, s);
    if (d->ops->destroy && d->priv)
        d->ops->destroy(d);
    free(d->priv);
    free(d->own_world);
    if (d->out != d->out_first)
        free(d->out);
    if (d->in != d->in_first)
        free(d->in);
    free(d);
}

/* The family's step to now; what it emits on the way goes on the line at
 * now. Time does not go back. */
/* Time forward to now. A robot that fell behind (a real-time emulator
 * held back by a loaded machine) is stepped through its own deadlines, so
 * what it made on the way goes onto the line when it was made: the backlog
 * is across by now, as on a robot that never stalled, not paced out from
 * now on (a host would take that for frames lost, then see them come).
 * In virtual time the caller steps to each deadline, and this is one step. */
static void family_step(bw_device_t *d, double now)
{
    for (int k = 0; k < CATCH_UP_STEPS; k++) {
        double next = d->ops->next_deadline(d);
        if (!(next < now && next > d->clock))
            break;
        d->clock = next;
        d->ops->step(d, next);
    }
    if (now > d->clock)
        d->clock = now;
    d->ops->step(d, d->clock);
}

/* Host bytes reaching the robot at now. */
static void hear(bw_device_t *d, const uint8_t *data, size_t n, double now)
{
    family_step(d, now);
    if (!n)
        return;
    /* Half a frame followed by a long silence is a client that died or a
     * line that dropped bytes: it must not swallow what comes next. */
    if (d->clock - d->last_input > BW_DEVICE_LINE_GAP)
        d->ops->reset_line(d);
    d->last_input = d->clock;
    d->ops->input(d, data, n, d->clock);
}

/* Delivers the host's bytes on the line: those across by `until` each at
 * its own time, or all of them now (until INFINITY: the client left, its
 * last bytes are heard at once). */
static void hear_line(bw_device_t *d, double until)
{
    while (d->in_len) {
        double t = uart_at(&d->rx, d->rx.done);
        if (t > until)
            break;
        uint8_t byte = d->in[d->in_head];
        d->in_head = (d->in_head + 1) % d->in_size;
        if (--d->in_len == 0)
            d->in_head = 0; /* start over: the same few cache lines stay warm */
        d->rx.done++;
        /* One at a time: a command acts when its own last byte is in, not
         * at the end of the write it came in. */
        hear(d, &byte, 1, until == INFINITY ? d->clock : t);
    }
    uart_advance(&d->rx, d->clock);
}

void bw_device_input(bw_device_t *d, const uint8_t *data, size_t n, double now)
{
    if (!d->baud) {
        hear(d, data, n, now);
        return;
    }
    bw_device_step(d, now); /* what came across before these */
    size_t room = BW_DEVICE_IN_CAP - d->in_len;
    if (!ring_reserve(&d->in, &d->in_size, &d->in_head, d->in_len,
                      d->in_len + (n < room ? n : room), BW_DEVICE_IN_CAP, d->in_first))
        room = d->in_size - d->in_len; /* no memory to grow: as full */
    if (n > room) {
        d->rx.overrun += n - room;
        n = room;
    }
    if (!n)
        return;
    for (size_t i = 0; i < n; i++)
        d->in[(d->in_head + d->in_len + i) % d->in_size] = data[i];
    d->in_len += n;
    uart_queue(&d->rx, n, d->clock);
}

void bw_device_step(bw_device_t *d, double now)
{
    hear_line(d, now);
    family_step(d, now);
    uart_advance(&d->tx, d->clock);
}

double bw_device_next_deadline(const bw_device_t *d)
{
    return fmin(d->ops->next_deadline(d), fmin(uart_next(&d->tx), uart_next(&d->rx)));
}

void bw_device_link(bw_device_t *d, bool connected, double now)
{
    hear_line(d, now);
    hear_line(d, INFINITY);
    family_step(d, now);
    d->ops->reset_line(d); /* a new client starts on a clean line, always */
    if (d->ops->link)
        d->ops->link(d, connected, d->clock);
}

void bw_device_emit(bw_device_t *d, const uint8_t *bytes, size_t n)
{
    if (d->baud && n) {
        uart_advance(&d->tx, d->clock);
        if (uart_on_line(&d->tx) + n > tx_bound(d)) {
            /* The transmitter is full: the write is lost whole (half a
             * frame would only be noise to the host). */
            d->tx.overrun += n;
            return;
        }
        uart_queue(&d->tx, n, d->clock);
        /* Below, room is made from the oldest bytes across, never from
         * those on the line: these and n are within half the buffer. */
    }
    if (n > BW_DEVICE_OUT_CAP) {
        d->out_dropped += n - BW_DEVICE_OUT_CAP;
        bytes += n - BW_DEVICE_OUT_CAP;
        n = BW_DEVICE_OUT_CAP;
    }
    size_t keep = d->out_len + n > BW_DEVICE_OUT_CAP ? BW_DEVICE_OUT_CAP - n : d->out_len;
    if (!ring_reserve(&d->out, &d->out_size, &d->out_head, d->out_len, keep + n,
                      BW_DEVICE_OUT_CAP, d->out_first)) {
        if (n > d->out_size) { /* no memory to grow: the newest that fit */
            d->out_dropped += n - d->out_size;
            bytes += n - d->out_size;
            n = d->out_size;
        }
        keep = d->out_len + n > d->out_size ? d->out_size - n : d->out_len;
    }
    if (keep < d->out_len) {
        /* Nobody is reading: the oldest bytes go. */
        size_t drop = d->out_len - keep;
        d->out_head = (d->out_head + drop) % d->out_size;
        d->out_len -= drop;
        d->out_dropped += drop;
    }
    size_t tail = (d->out_head + d->out_len) % d->out_size;
    size_t first = d->out_size - tail < n ? d->out_size - tail : n;
    memcpy(d->out + tail, bytes, first);
    memcpy(d->out, bytes + first, n - first);
    d->out_len += n;
}

size_t bw_device_output(bw_device_t *d, uint8_t *buf, size_t cap)
{
    uart_advance(&d->tx, d->clock);
    size_t across = d->out_len - uart_on_line(&d->tx);
    size_t n = across < cap ? across : cap;
    size_t first = d->out_size - d->out_head < n ? d->out_size - d->out_head : n;
    memcpy(buf, d->out + d->out_head, first);
    memcpy(buf + first, d->out, n - first);
    d->out_head = (d->out_head + n) % d->out_size;
    d->out_len -= n;
    if (d->out_len == 0)
        d->out_head = 0; /* start over: the same few cache lines stay warm */
    return n;
}

bw_sim_t *bw_device_sim(bw_device_t *d) { return d->ops->sim ? d->ops->sim(d) : &d->sim; }
const char *bw_device_family(const bw_device_t *d) { return d->ops->family; }
const bw_device_stats_t *bw_device_stats(const bw_device_t *d) { return &d->stats; }
uint64_t bw_device_dropped(const bw_device_t *d) { return d->out_dropped; }

void bw_device_line(const bw_device_t *d, bw_device_line_t *out)
{
    *out = (bw_device_line_t){ d->baud, uart_on_line(&d->tx), uart_on_line(&d->rx),
                               d->tx.overrun, d->rx.overrun };
}

const char *bw_device_command_name(const bw_device_t *d, unsigned id)
{
    return d->ops->command_name && id < 256 ? d->ops->command_name(id) : NULL;
}

void bw_device_ignored(bw_device_t *d, unsigned id)
{
    d->stats.ignored++;
    d->stats.ignored_by_id[id & 0xFFu]++;
}

void bw_device_unknown(bw_device_t *d, unsigned id)
{
    d->body.unknown++;
    d->stats.unknown_by_id[id & 0xFFu]++;
}

void bw_device_malformed(bw_device_t *d) { d->body.length_errors++; }

void bw_device_link_stats(bw_device_t *d, const bw_parse_stats_t *framer)
{
    d->stats.link = *framer;
    bw_parse_stats_add(&d->stats.link, &d->body);
}

void bw_device_notice(bw_device_t *d, const char *fmt, ...)
{
    if (d->notice_len == BW_DEVICE_NOTICES) {
        d->notice_head = (d->notice_head + 1) % BW_DEVICE_NOTICES;
        d->notice_len--;
    }
    char *line = d->notices[(d->notice_head + d->notice_len) % BW_DEVICE_NOTICES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, BW_DEVICE_NOTICE_LEN, fmt, ap);
    va_end(ap);
    d->notice_len++;
}

int bw_device_next_notice(bw_device_t *d, char *buf, size_t cap)
{
    if (!d->notice_len)
        return 0;
    if (cap)
        snprintf(buf, cap, "%s", d->notices[d->notice_head]);
    d->notice_head = (d->notice_head + 1) % BW_DEVICE_NOTICES;
    d->notice_len--;
    return 1;
}

bool bw_device_exit_requested(const bw_device_t *d, int *status)
{
    if (d->exit_requested && status)
        *status = d->exit_status;
    return d->exit_requested;
}

bool bw_device_in_session(const bw_device_t *d)
{
    return d->ops->in_session ? d->ops->in_session(d) : true;
}
