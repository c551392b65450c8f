/* The unified robot API: URL dispatch, link supervision, events, driving,
 * the stop on close. Beside it: heard.c (which robot is there), on_exit.c
 * (the stop on exit), sim_url.c (sim: URLs' robots in this process). The
 * protocols live in robots/<X>/driver.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base_internal.h"

#define DEFAULT_COMMAND_TIMEOUT 0.5
#define DEFAULT_REOPEN_INTERVAL 0.25
#define TCP_CONNECT_TIMEOUT 0.5
#define READ_BUDGET 65536 /* bytes a read, so a flood cannot starve the caller */
/* A TCP connection the far end closes this soon without a byte is one it
 * did not want (a robot server with a client already closes the next). */
#define CLOSED_AT_ONCE 1.0

static const bw_driver_ops_t *const drivers[] = {
    &bw_kobuki_driver_ops,
    &bw_p2os_driver_ops,
    &bw_lobot_driver_ops,
    &bw_create_driver_ops,
    &bw_rbsm_driver_ops,
    &bw_rflex_driver_ops,
};

/* ---- events ----------------------------------------------------------------------- */

const char *bw_event_name(bw_event_type_t type)
{
    switch (type) {
    case BW_EV_ONLINE: return "online";
    case BW_EV_OFFLINE: return "offline";
    case BW_EV_BUMP: return "bump";
    case BW_EV_CLIFF: return "cliff";
    case BW_EV_WHEEL_DROP: return "wheel_drop";
    case BW_EV_BUTTON: return "button";
    case BW_EV_POWER: return "power";
    case BW_EV_STALL: return "stall";
    case BW_EV_REFLEX: return "reflex";
    case BW_EV_BRAKE: return "brake";
    case BW_EV_FAULT: return "fault";
    default: return "unknown";
    }
}

static void push_event(bw_base_t *b, bw_event_type_t type, uint32_t mask, bool on, double now)
{
    if (b->ev_len == BW_BASE_EVENTS) {
        b->ev_head = (b->ev_head + 1) % BW_BASE_EVENTS;
        b->ev_len--;
        b->st.events_dropped++;
    }
    b->events[(b->ev_head + b->ev_len) % BW_BASE_EVENTS] = (bw_event_t){ type, now, mask, on,
                                                                         0, 0, 0 };
    b->ev_len++;
}

void bw_base_reflex(bw_base_t *b, uint32_t what, uint32_t detail, double distance, double angle,
                    double now)
{
    push_event(b, BW_EV_REFLEX, what, true, now);
    bw_event_t *ev = &b->events[(b->ev_head + b->ev_len - 1) % BW_BASE_EVENTS];
    ev->distance = distance;
    ev->angle = angle;
    ev->detail = detail;
}

static void diff_bits(bw_base_t *b, bw_event_type_t type, uint32_t was, uint32_t is, double now)
{
    if (is & ~was)
        push_event(b, type, is & ~was, true, now);
    if (was & ~is)
        push_event(b, type, was & ~is, false, now);
}

/* Events are the differences between the state now and as last reported,
 * the same for every family. */
static void emit_events(bw_base_t *b, double now)
{
    const bw_base_state_t *s = &b->st;
    bw_base_seen_t *o = &b->seen;
    if (s->online != o->online)
        push_event(b, s->online ? BW_EV_ONLINE : BW_EV_OFFLINE, 0, s->online, now);
    diff_bits(b, BW_EV_BUMP, o->bumpers, s->bumpers, now);
    diff_bits(b, BW_EV_CLIFF, o->cliffs, s->cliffs, now);
    diff_bits(b, BW_EV_WHEEL_DROP, o->wheel_drops, s->wheel_drops, now);
    diff_bits(b, BW_EV_BUTTON, o->buttons, s->buttons, now);
    if (s->charging != o->charging && o->charging != BW_CHARGE_UNKNOWN)
        push_event(b, BW_EV_POWER, (uint32_t)s->charging, s->charging != BW_CHARGE_DISCHARGING, now);
    if (s->stalled != o->stalled)
        push_event(b, BW_EV_STALL, 0, s->stalled, now);
    if (s->brake != o->brake)
        push_event(b, BW_EV_BRAKE, 0, s->brake, now);
    diff_bits(b, BW_EV_FAULT, o->faults, s->faults, now);
    if (s->commands_ignored != o->commands_ignored)
        push_event(b, BW_EV_REFLEX, BW_REFLEX_REMOTE, s->commands_ignored, now);
    o->online = s->online;
    o->bumpers = s->bumpers;
    o->cliffs = s->cliffs;
    o->wheel_drops = s->wheel_drops;
    o->buttons = s->buttons;
    o->charging = s->charging;
    o->stalled = s->stalled;
    o->brake = s->brake;
    o->faults = s->faults;
    o->commands_ignored = s->commands_ignored;
}

int bw_base_next_event(bw_base_t *b, bw_event_t *ev)
{
    if (!b->ev_len)
        return 0;
    *ev = b->events[b->ev_head];
    b->ev_head = (b->ev_head + 1) % BW_BASE_EVENTS;
    b->ev_len--;
    return 1;
}

/* ---- the link ------------------------------------------------------------------------ */

static void link_lost(bw_base_t *b, double now)
{
    if (b->url.kind == BW_URL_TCP && b->heard_total == 0 && now - b->opened_at < CLOSED_AT_ONCE)
        b->closed_unheard++;
    bw_port_close(b->port);
    b->port = NULL;
    b->st.online = false;
    b->changes++;
    b->next_reopen = now + b->opt.reopen_interval;
    bw_base_slot_update(b);
}

static int open_port(bw_base_t *b, char *err, size_t errlen)
{
    if (b->url.kind == BW_URL_TCP)
        return bw_port_open_tcp(&b->port, b->url.host, b->url.port, TCP_CONNECT_TIMEOUT, err,
                                errlen);
    return bw_port_open_serial(&b->port, b->url.path, b->baud, err, errlen);
}

static void try_reopen(bw_base_t *b, double now)
{
    if (b->fixed_port) {
        b->next_reopen = INFINITY;
        return;
    }
    if (open_port(b, NULL, 0) < 0) {
        b->port = NULL;
        b->next_reopen = now + b->opt.reopen_interval;
        return;
    }
    b->st.reconnects++;
    b->changes++;
    bw_base_heard_reset(b, now); /* another robot may be there now */
    bw_base_slot_update(b);
    b->ops->on_open(b, now);
}

/* GRL's raw-base-x/y: the pose, and each range's pose, in translational
 * encoder counts. */
static void update_raw(bw_base_t *b)
{
    bw_base_state_t *st = &b->st;
    if (!(b->caps & BW_CAP_ENCODERS) || !(st->counts_per_m > 0))
        return;
    st->raw_x = st->pose.x * st->counts_per_m;
    st->raw_y = st->pose.y * st->counts_per_m;
    for (unsigned i = 0; i < st->nranges; i++) {
        st->ranges[i].raw_x = st->ranges[i].at.x * st->counts_per_m;
        st->ranges[i].raw_y = st->ranges[i].at.y * st->counts_per_m;
    }
}

/* A bit changes when the frame before and this one agree on its new value. */
static uint32_t agree(uint32_t shown, uint32_t before, uint32_t now)
{
    uint32_t same = ~(before ^ now);
    return (shown & ~same) | (now & same);
}

void bw_base_frame_ok(bw_base_t *b, double now)
{
    bw_base_state_t *st = &b->st;
    /* The driver wrote this frame's bits; what shows is what two agree on. */
    const uint32_t raw[] = { st->bumpers,
                             st->cliffs,
                             st->wheel_drops,
                             st->buttons,
                             st->faults,
                             st->stalled,
                             st->brake,
                             (uint32_t)st->charging,
                             (uint32_t)st->bump_switches,
                             (uint32_t)(st->bump_switches >> 32) };
    uint32_t *field[] = { &st->bumpers, &st->cliffs, &st->wheel_drops, &st->buttons,
                          &st->faults };
    for (size_t i = 0; i < 7; i++)
        b->shown[i] = agree(b->shown[i], b->raw[i], raw[i]);
    for (size_t i = 0; i < 5; i++)
        *field[i] = b->shown[i];
    st->stalled = b->shown[5] != 0;
    st->brake = b->shown[6] != 0;
    if (raw[7] == b->raw[7]) /* a state, not bits: both frames say the same */
        b->shown[7] = raw[7];
    st->charging = (bw_charge_t)b->shown[7];
    for (size_t i = 8; i < 10; i++)
        b->shown[i] = agree(b->shown[i], b->raw[i], raw[i]);
    st->bump_switches = (uint64_t)b->shown[9] << 32 | b->shown[8];
    memcpy(b->raw, raw, sizeof b->raw);
    b->last_frame = now;
    st->t = now;
    st->online = true;
}

void bw_base_expect_quiet(bw_base_t *b, double until)
{
    b->quiet_until = fmax(b->quiet_until, until);
}

bool bw_base_implausible(bw_base_t *b, bool bad)
{
    if (!bad) {
        b->implausible_run = 0;
        return false;
    }
    b->implausible++;
    return ++b->implausible_run < BW_BASE_IMPLAUSIBLE_RUN;
}

int bw_base_send(bw_base_t *b, const uint8_t *data, size_t n, double now)
{
    if (!b->port)
        return BW_ECLOSED;
    if (b->wrong)
        return BW_EPROTO; /* another family's robot: our bytes mean nothing, or worse */
    int rc = bw_port_write(b->port, data, n);
    if (rc > 0 && b->tap)
        b->tap(b->tap_ctx, false, data, (size_t)rc, now);
    if (rc > 0 && b->device)
        b->sim_unheard = fmin(b->sim_unheard, now); /* it answers at once, as over a wire */
    if (rc == BW_ECLOSED || rc == BW_EIO)
        link_lost(b, now);
    return rc;
}

/* The in-process robot: its input, its time, its output, through the bad
 * cable when the URL asks for one. */
static void pump_device(bw_base_t *b, double now)
{
    uint8_t buf[4096], noisy[2 * sizeof buf];
    int n;
    while ((n = bw_port_read(b->dev_port, buf, sizeof buf)) > 0) {
        if (b->noisy)
            bw_device_input(b->device, noisy,
                            bw_line_pass(&b->line_up, buf, (size_t)n, noisy, sizeof noisy), now);
        else
            bw_device_input(b->device, buf, (size_t)n, now);
    }
    b->sim_unheard = INFINITY;
    bw_device_step(b->device, now);
    size_t out;
    while ((out = bw_device_output(b->device, buf, sizeof buf)) > 0) {
        if (b->noisy)
            bw_port_write(b->dev_port, noisy,
                          bw_line_pass(&b->line_down, buf, out, noisy, sizeof noisy));
        else
            bw_port_write(b->dev_port, buf, out);
    }
}

/* ---- open / close ---------------------------------------------------------------------- */

/* "kobuki, p2os, ...": the families, for error messages. */
static const char *family_names(void)
{
    static char names[128];
    if (!names[0]) {
        size_t n = 0;
        for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
                                  drivers[i]->family);
    }
    return names;
}

static const bw_driver_ops_t *find_driver(const char *family)
{
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
        if (strcmp(drivers[i]->family, family) == 0)
            return drivers[i];
    return NULL;
}



static void free_base(bw_base_t *b)
{
    bw_base_slot_release(b);
    bw_port_close(b->port);
    bw_port_close(b->dev_port);
    bw_device_destroy(b->device);
    bw_base_leave_shared(b); /* after the robot has left the fleet */
    free(b->world);
    free(b->drv);
    free(b);
}

/* What every way of opening shares: the driver, the options, the state. */
static int base_new(bw_base_t **out, const char *family, const bw_base_options_t *opt,
                    char *err, size_t errlen)
{
    *out = NULL;
    const bw_driver_ops_t *ops = find_driver(family);
    if (!ops) {
        snprintf(err, errlen, "unknown robot family \"%s\" (known: %s)", family, family_names());
        return BW_EUNKNOWN;
    }
    bw_base_t *b = calloc(1, sizeof *b);
    void *drv = calloc(1, ops->size);
    if (!b || !drv) {
        free(b);
        free(drv);
        snprintf(err, errlen, "out of memory");
        return BW_ENOMEM;
    }
    b->slot = -1;
    b->sim_unheard = INFINITY;
    b->ops = ops;
    b->drv = drv;
    b->caps = ops->caps;
    if (opt)
        b->opt = *opt;
    b->tap = b->opt.tap;
    b->tap_ctx = b->opt.tap_ctx;
    if (b->opt.link_timeout <= 0)
        b->opt.link_timeout = ops->link_timeout;
    if (b->opt.command_timeout == 0)
        b->opt.command_timeout = DEFAULT_COMMAND_TIMEOUT;
    if (b->opt.reopen_interval <= 0)
        b->opt.reopen_interval = DEFAULT_REOPEN_INTERVAL;
    b->baud = ops->baud;
    b->max_v = ops->max_v;
    b->max_w = ops->max_w;
    /* Nothing the base does not report is given as a number. */
    if (!(ops->caps & BW_CAP_MOTOR_REPORT))
        b->st.trans = b->st.rot = (bw_axis_t){ NAN, NAN, NAN };
    b->st.power = (bw_power_t){ NAN, NAN, NAN, 0 };
    *out = b;
    return 0;
}

/* The port is open: the session starts. */
static void base_start(bw_base_t *b, double now)
{
    b->stop_len = b->ops->stop_bytes(b, b->stop, sizeof b->stop);
    bw_base_heard_reset(b, now);
    bw_base_slot_take(b);
    b->last_frame = now;
    b->ops->on_open(b, now);
}

int bw_base_open(bw_base_t **out, const char *url, const bw_base_options_t *opt, double now,
                 char *err, size_t errlen)
{
    char scratch[8];
    if (!err) {
        err = scratch;
        errlen = sizeof scratch;
    }
    *out = NULL;
    bw_url_t u;
    int rc = bw_url_parse(url, &u, err, errlen);
    if (rc < 0)
        return rc;
    bw_base_t *b;
    rc = base_new(&b, u.family, opt, err, errlen);
    if (rc < 0) {
        if (rc == BW_EUNKNOWN)
            snprintf(err, errlen, "unknown robot family \"%s\" in \"%s\" (known: %s)", u.family, url,
                     family_names());
        return rc;
    }
    b->url = u;
    double baud = 0;
    rc = bw_base_check_params(b, err, errlen);
    if (rc == 0)
        rc = bw_base_number_param(b, "baud", 50, 4000000, true, &baud, err, errlen);
    if (rc < 0) {
        free_base(b);
        return rc;
    }
    if (rc > 0)
        b->baud = (int)baud;
    rc = b->ops->init ? b->ops->init(b, &b->url, err, errlen) : 0;
    if (rc == 0)
        rc = b->url.kind == BW_URL_SIM ? bw_base_open_sim(b, now, err, errlen) : open_port(b, err, errlen);
    if (rc < 0) {
        free_base(b);
        return rc;
    }
    base_start(b, now);
    *out = b;
    return 0;
}

int bw_base_open_port(bw_base_t **out, const char *family, bw_port_t *port,
                      const bw_base_options_t *opt, double now, char *err, size_t errlen)
{
    char scratch[8];
    if (!err) {
        err = scratch;
        errlen = sizeof scratch;
    }
    *out = NULL;
    if (!port || !family) {
        snprintf(err, errlen, "no port or family given");
        bw_port_close(port);
        return BW_EINVAL;
    }
    /* "create?model=create2": the options a URL would carry after its path */
    bw_url_t url;
    memset(&url, 0, sizeof url);
    const char *query = strchr(family, '?');
    if (query) {
        char text[512];
        snprintf(text, sizeof text, "%.*s:/port%s", (int)(query - family), family, query);
        int rc = bw_url_parse(text, &url, err, errlen);
        if (rc < 0) {
            bw_port_close(port);
            return rc;
        }
        family = url.family;
    }
    bw_base_t *b;
    int rc = base_new(&b, family, opt, err, errlen);
    if (rc < 0) {
        bw_port_close(port);
        return rc;
    }
    if (query) { /* its options only: the port is the caller's */
        b->url.nparams = url.nparams;
        memcpy(b->url.params, url.params, sizeof url.params);
    }
    snprintf(b->url.family, sizeof b->url.family, "%s", family);
    b->fixed_port = true;
    b->port = port;
    rc = b->ops->init ? b->ops->init(b, &b->url, err, errlen) : 0;
    if (rc < 0) {
        free_base(b);
        return rc;
    }
    base_start(b, now);
    *out = b;
    return 0;
}

int bw_base_baud(const bw_base_t *b) { return b->url.kind == BW_URL_SERIAL ? b->baud : 0; }

int bw_base_family_baud(const char *family)
{
    for (size_t i = 0; family && i < sizeof drivers / sizeof drivers[0]; i++)
        if (!strcasecmp(drivers[i]->family, family))
            return drivers[i]->baud;
    return 0;
}

void bw_base_close(bw_base_t *b, double now)
{
    if (!b)
        return;
    b->cmd_v = b->cmd_w = 0;
    b->cmd_active = false;
    b->cmd_vector = false;
    if (b->port) {
        b->ops->on_drive(b, now);
        if (b->ops->on_close)
            b->ops->on_close(b, now);
    }
    if (b->device)
        pump_device(b, now); /* the emulated robot hears the stop */
    free_base(b);
}

/* ---- driving and polling ------------------------------------------------------------------ */

int bw_base_drive(bw_base_t *b, double v, double w, double now)
{
    if (!isfinite(v) || !isfinite(w))
        return BW_EINVAL;
    /* Repeating the same twist only keeps it alive; the protocol's own
     * cadence carries it to the robot. */
    /* ...and a base driving itself is taken back by any drive, a stop too */
    bool changed = v != b->cmd_v || w != b->cmd_w || b->cmd_vector || b->st.self_driving;
    b->cmd_vector = false;
    b->cmd_v = v;
    b->cmd_w = w;
    b->cmd_t = now;
    b->cmd_active = v != 0 || w != 0;
    if (b->port && changed) {
        b->changes++;
        b->ops->on_drive(b, now);
    }
    if (b->st.self_driving) {
        b->st.self_driving = false;
        bw_base_stop_bytes_changed(b);
    }
    return !b->port ? BW_ECLOSED : b->wrong ? BW_EPROTO : 0;
}

int bw_base_stop(bw_base_t *b, double now) { return bw_base_drive(b, 0, 0, now); }

static bool axis_ok(const bw_axis_t *a)
{
    return a && isfinite(a->velocity) && isfinite(a->acceleration) && isfinite(a->torque) &&
           a->acceleration >= 0 && a->torque >= 0;
}

int bw_base_motor(bw_base_t *b, const bw_axis_t *trans, const bw_axis_t *rot, double now)
{
    if (!(b->caps & BW_CAP_MOTOR_VECTOR))
        return BW_ENOTSUP;
    if (!axis_ok(trans) || !axis_ok(rot))
        return BW_EINVAL;
    /* As with drive: the same vector again only keeps it alive. */
    bool changed = !b->cmd_vector || memcmp(&b->cmd_axis[0], trans, sizeof *trans) != 0 ||
                   memcmp(&b->cmd_axis[1], rot, sizeof *rot) != 0;
    b->cmd_axis[0] = *trans;
    b->cmd_axis[1] = *rot;
    b->cmd_vector = true;
    b->cmd_v = trans->velocity;
    b->cmd_w = rot->velocity;
    b->cmd_t = now;
    b->cmd_active = true; /* even at zero velocity: a torque of 0 is a command too */
    if (b->port && changed) {
        b->changes++;
        b->ops->on_drive(b, now);
    }
    return !b->port ? BW_ECLOSED : b->wrong ? BW_EPROTO : 0;
}

int bw_base_sonar_timing(bw_base_t *b, double echo, double ping, double set, double now)
{
    if (!b->ops->sonar_timing || !(b->caps & BW_CAP_SONAR_TIMING))
        return BW_ENOTSUP;
    if (!(echo > 0 && echo <= 1) || !(ping >= 0 && ping <= 10) || !(set >= 0 && set <= 10))
        return BW_EINVAL;
    if (!b->port)
        return BW_ECLOSED;
    b->changes++;
    return b->ops->sonar_timing(b, echo, ping, set, now);
}

/* The extras: the cap, then an open port, then the driver (which may
 * change the state). */
static int extra_ready(bw_base_t *b, uint32_t cap, bool op)
{
    if (!op || !(b->caps & cap))
        return BW_ENOTSUP;
    if (!b->port)
        return BW_ECLOSED;
    b->changes++;
    return 0;
}

int bw_base_reset_odometry(bw_base_t *b)
{
    double old = b->st.pose.theta;
    b->st.pose = (bw_pose_t){ 0, 0, 0 };
    if (b->ops->reset_pose)
        b->ops->reset_pose(b, old);
    update_raw(b);
    return 0;
}

int bw_base_led(bw_base_t *b, unsigned index, bw_led_t colour, double now)
{
    int rc = extra_ready(b, BW_CAP_LEDS, b->ops->led != NULL);
    if (rc == 0 && (unsigned)colour > BW_LED_ORANGE)
        rc = BW_EINVAL;
    return rc ? rc : b->ops->led(b, index, colour, now);
}

int bw_base_sound(bw_base_t *b, unsigned sequence, double now)
{
    int rc = extra_ready(b, BW_CAP_SOUND, b->ops->sound != NULL);
    return rc ? rc : b->ops->sound(b, sequence, now);
}

int bw_base_tone(bw_base_t *b, double hz, double seconds, double now)
{
    int rc = extra_ready(b, BW_CAP_SOUND, b->ops->tone != NULL);
    if (rc == 0 && !(hz > 0 && hz < 1e5 && seconds > 0 && seconds <= 10))
        rc = BW_EINVAL;
    return rc ? rc : b->ops->tone(b, hz, seconds, now);
}

int bw_base_outputs(bw_base_t *b, uint32_t mask, double now)
{
    int rc = extra_ready(b, BW_CAP_OUTPUTS, b->ops->outputs != NULL);
    return rc ? rc : b->ops->outputs(b, mask, now);
}

int bw_base_set_gains(bw_base_t *b, const bw_gains_t *g, double now)
{
    int rc = extra_ready(b, BW_CAP_GAINS, b->ops->set_gains != NULL);
    if (rc == 0 && (!g || (g->user && !(isfinite(g->p) && isfinite(g->i) && isfinite(g->d) &&
                                        g->p >= 0 && g->i >= 0 && g->d >= 0))))
        rc = BW_EINVAL;
    return rc ? rc : b->ops->set_gains(b, g, now);
}

int bw_base_request_gains(bw_base_t *b, double now)
{
    int rc = extra_ready(b, BW_CAP_GAINS, b->ops->request_gains != NULL);
    return rc ? rc : b->ops->request_gains(b, now);
}

int bw_base_seek_dock(bw_base_t *b, double now)
{
    int rc = extra_ready(b, BW_CAP_SEEK_DOCK, b->ops->seek_dock != NULL);
    if (rc == 0 && (rc = b->ops->seek_dock(b, now)) == 0) {
        /* the twist asked of the host is none: the robot drives itself */
        b->cmd_v = b->cmd_w = 0;
        b->cmd_vector = b->cmd_active = false;
        b->st.self_driving = true;
        bw_base_stop_bytes_changed(b);
    }
    return rc;
}

/* Reads what the robot sent and hands it to the driver; returns the byte
 * count. */
static size_t read_input(bw_base_t *b, double now)
{
    size_t total = 0;
    while (b->port && total < READ_BUDGET) {
        uint8_t buf[4096];
        int n = bw_port_read(b->port, buf, sizeof buf);
        if (n == 0) {
            b->quiet_seen = now;
            break;
        }
        if (n < 0) {
            link_lost(b, now);
            break;
        }
        if (b->tap)
            b->tap(b->tap_ctx, true, buf, (size_t)n, now);
        b->heard_total += (uint64_t)n;
        b->closed_unheard = 0;
        total += (size_t)n;
        if (b->wrong)
            continue; /* another family's bytes: the driver hears no more of them */
        /* A gap is silence seen: a read that found nothing longer than the
         * gap after the last bytes. The time between two reads that both
         * found bytes is the caller's poll period, not the line's: a
         * caller polling at 20 Hz reads a SIP in pieces 50 ms apart. */
        if (b->ops->line_gap > 0 && b->ops->reset_line &&
            b->quiet_seen - b->last_input > b->ops->line_gap)
            b->ops->reset_line(b, now);
        b->last_input = now;
        b->ops->on_input(b, buf, (size_t)n, now);
        b->st.link.implausible = b->implausible;
        if (b->sniffing)
            bw_base_sniff(b, buf, (size_t)n);
        else if (b->unexplained && b->st.online && !b->heard_sure)
            bw_base_set_wrong(b);
    }
    return total;
}

/* When the link is judged lost: link_timeout without a valid frame, and
 * without any byte (a noisy line still carries the robot's damaged frames:
 * it is there); a noisy line with no valid frame at all for
 * BW_BASE_NOISY_LINK_FACTOR timeouts is lost too. The timeout runs from
 * the end of a silence the driver expects. */
static double offline_at(const bw_base_t *b)
{
    double from = fmax(b->last_frame, b->quiet_until), t = b->opt.link_timeout;
    double silent = fmax(from, b->last_input) + t;
    return fmin(silent, from + fmax(1.0, BW_BASE_NOISY_LINK_FACTOR * t));
}

/* An in-process robot answers within the same instant, as over a wire of
 * no length: the exchange goes back and forth until it is quiet (a
 * handshake is a few rounds). */
#define SIM_ROUNDS 8

int bw_base_poll(bw_base_t *b, double now)
{
    /* What may change the state: input, the link's supervision, and the
     * driver's tick unless its family says it never does. */
    bool changed = !b->ops->quiet_tick;
    if (!b->port && now >= b->next_reopen)
        try_reopen(b, now);
    for (int round = 0; round < (b->device ? SIM_ROUNDS : 1); round++) {
        if (b->device)
            pump_device(b, now);
        if (read_input(b, now) == 0)
            break;
        changed = true;
    }
    if (b->st.online && now > offline_at(b)) {
        changed = true;
        b->st.online = false;
        /* A one-way failure leaves the robot hearing us: stop it (one
         * driving itself is taken back by it, its driving over). */
        if (b->port && b->stop_len)
            (void)bw_base_send(b, b->stop, b->stop_len, now);
        if (b->st.self_driving) {
            b->st.self_driving = false;
            bw_base_stop_bytes_changed(b);
        }
    }
    if (b->cmd_active && b->opt.command_timeout > 0 && now - b->cmd_t > b->opt.command_timeout) {
        changed = true;
        b->cmd_v = b->cmd_w = 0;
        b->cmd_active = false;
        b->cmd_vector = false;
        if (b->port)
            b->ops->on_drive(b, now);
    }
    if (b->port && b->ops->on_tick)
        b->ops->on_tick(b, now);
    if (changed)
        b->changes++;
    update_raw(b); /* once a poll: after its frames, and an estimated step without one */
    emit_events(b, now);
    b->last_poll = now;
    return b->port ? 0 : BW_ECLOSED;
}

int bw_base_fd(const bw_base_t *b) { return b->port ? bw_port_fd(b->port) : -1; }

double bw_base_next_deadline(const bw_base_t *b)
{
    double t = bw_base_host_deadline(b);
    return b->device ? fmin(t, bw_device_next_deadline(b->device)) : t;
}

double bw_base_host_deadline(const bw_base_t *b)
{
    /* Without a port the driver's deadlines (a sync to retry, a keep-alive
     * to send) cannot be met and would stay in the past: only the reopen
     * counts then, or a caller waiting on them would spin. */
    double t = b->port && b->ops->next_deadline && !b->wrong ? b->ops->next_deadline(b) : INFINITY;
    if (b->device)
        t = fmin(t, b->sim_unheard);
    if (!b->port)
        t = fmin(t, b->next_reopen);
    if (b->st.online)
        t = fmin(t, offline_at(b) + 1e-6);
    if (b->cmd_active && b->opt.command_timeout > 0)
        t = fmin(t, b->cmd_t + b->opt.command_timeout + 1e-6);
    return t;
}

void bw_base_set_tap(bw_base_t *b, bw_tap_fn fn, void *ctx)
{
    b->tap = fn;
    b->tap_ctx = ctx;
}

const bw_base_state_t *bw_base_state(const bw_base_t *b) { return &b->st; }
uint64_t bw_base_changes(const bw_base_t *b) { return b->changes; }
uint32_t bw_base_caps(const bw_base_t *b) { return b->caps; }
const char *bw_base_family(const bw_base_t *b) { return b->ops->family; }

void bw_base_limits(const bw_base_t *b, double *max_v, double *max_w)
{
    *max_v = b->max_v;
    *max_w = b->max_w;
}
bw_device_t *bw_base_device(bw_base_t *b) { return b->device; }

/* Declared with the emulated robots (device.h): the rate is the robot's,
 * kept where its host driver has it. */
int bw_device_family_baud(const char *family) { return bw_device_model_baud(family, NULL); }

int bw_device_model_baud(const char *family, const char *model)
{
    for (size_t i = 0; family && i < sizeof drivers / sizeof drivers[0]; i++) {
        const bw_driver_ops_t *d = drivers[i];
        if (strcasecmp(d->family, family) != 0)
            continue;
        int own = model && *model && d->model_baud ? d->model_baud(model) : 0;
        return own > 0 ? own : d->baud;
    }
    return BW_EUNKNOWN;
}
