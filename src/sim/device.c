/* Emulated robots: the family-independent part. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "device_internal.h"

static const bw_device_ops_t *const families[] = {
    &bw_kobuki_device_ops,
    &bw_p2os_device_ops,
    &bw_lobot_device_ops,
    &bw_create_device_ops,
    &bw_rbsm_device_ops,
    &bw_rflex_device_ops,
};

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
    d->last_input = -INFINITY;
    const bw_world_t *world = opt->world ? opt->world : opt->fleet ? opt->fleet->world : NULL;
    if (!world) {
        if (ops->default_world)
            ops->default_world(&d->own_world);
        else
            bw_world_default(&d->own_world);
        world = &d->own_world;
    }
    bw_body_params_t prm;
    bw_body_params_default(&prm);
    bw_sim_init(&d->sim, world, &prm, opt->has_start ? opt->start : world->start, t0);
    int rc = ops->init(d, opt, t0, err, errlen);
    if (rc >= 0 && opt->fleet && bw_fleet_join(opt->fleet, bw_device_sim(d)) < 0) {
        if (err)
            snprintf(err, errlen, "the fleet is full (%d robots)", BW_FLEET_MAX);
        rc = BW_ENOSPC;
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
    free(d);
}

void bw_device_input(bw_device_t *d, const uint8_t *data, size_t n, double now)
{
    d->ops->step(d, now);
    if (!n)
        return;
    /* Half a frame followed by a long silence is a client that died or a
     * line that dropped bytes: it must not swallow what comes next. */
    if (now - d->last_input > BW_DEVICE_LINE_GAP)
        d->ops->reset_line(d);
    d->last_input = now;
    d->ops->input(d, data, n, now);
}

void bw_device_step(bw_device_t *d, double now) { d->ops->step(d, now); }

double bw_device_next_deadline(const bw_device_t *d) { return d->ops->next_deadline(d); }

void bw_device_link(bw_device_t *d, bool connected, double now)
{
    d->ops->step(d, now);
    d->ops->reset_line(d); /* a new client starts on a clean line, always */
    if (d->ops->link)
        d->ops->link(d, connected, now);
}

void bw_device_emit(bw_device_t *d, const uint8_t *bytes, size_t n)
{
    if (n > BW_DEVICE_OUT_CAP) {
        d->out_dropped += n - BW_DEVICE_OUT_CAP;
        bytes += n - BW_DEVICE_OUT_CAP;
        n = BW_DEVICE_OUT_CAP;
    }
    size_t room = BW_DEVICE_OUT_CAP - d->out_len;
    if (n > room) {
        /* Nobody is reading: the oldest bytes go. */
        size_t drop = n - room;
        d->out_head = (d->out_head + drop) % BW_DEVICE_OUT_CAP;
        d->out_len -= drop;
        d->out_dropped += drop;
    }
    size_t tail = (d->out_head + d->out_len) % BW_DEVICE_OUT_CAP;
    size_t first = BW_DEVICE_OUT_CAP - tail < n ? BW_DEVICE_OUT_CAP - tail : n;
    memcpy(d->out + tail, bytes, first);
    memcpy(d->out, bytes + first, n - first);
    d->out_len += n;
}

size_t bw_device_output(bw_device_t *d, uint8_t *buf, size_t cap)
{
    size_t n = d->out_len < cap ? d->out_len : cap;
    size_t first = BW_DEVICE_OUT_CAP - d->out_head < n ? BW_DEVICE_OUT_CAP - d->out_head : n;
    memcpy(buf, d->out + d->out_head, first);
    memcpy(buf + first, d->out, n - first);
    d->out_head = (d->out_head + n) % BW_DEVICE_OUT_CAP;
    d->out_len -= n;
    return n;
}

bw_sim_t *bw_device_sim(bw_device_t *d) { return d->ops->sim ? d->ops->sim(d) : &d->sim; }
const char *bw_device_family(const bw_device_t *d) { return d->ops->family; }
const bw_device_stats_t *bw_device_stats(const bw_device_t *d) { return &d->stats; }
uint64_t bw_device_dropped(const bw_device_t *d) { return d->out_dropped; }

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
