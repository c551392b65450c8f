/* The emulated lobot: an iRobot Create with a Command Module running the
 * lobot low-level program. The program (program.c, the same code as the
 * firmware) talks to an emulated Create through the Open Interface, over one
 * USART that a select line gives either to the host or to the Create. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/device_internal.h"
#include "botwire/lobot.h"

typedef struct {
    bw_device_t *create;     /* the robot under the Command Module */
    bw_lobot_cm_t cm;
    double t0;               /* the program's clock starts at 0 ms here */
    uint8_t host_rx[256];    /* host bytes the USART took, not yet given to the program */
    size_t nhost;
    uint8_t oi_rx[512];      /* the Create's bytes, likewise */
    size_t noi;
    uint64_t unheard;        /* host bytes sent while the USART was the Create's */
} lobot_dev_t;

static lobot_dev_t *L(const bw_device_t *d) { return d->priv; }

static uint32_t ms_of(const lobot_dev_t *l, double t)
{
    return (uint32_t)(int64_t)llround((t - l->t0) * 1000);
}

static double time_of(const lobot_dev_t *l, uint32_t ms) { return l->t0 + ms / 1000.0; }

static int init(bw_device_t *d, const bw_device_options_t *o, double t0, char *err,
                size_t errlen)
{
    lobot_dev_t *l = L(d);
    if (o->model && *o->model && strcmp(o->model, "lobot") != 0) {
        if (err)
            snprintf(err, errlen, "no lobot model \"%s\" (lobot)", o->model);
        return BW_EUNKNOWN;
    }
    bw_device_options_t inner = *o;
    inner.model = NULL;
    /* The line paced is the host's; the Create's answers to the program
     * come at once, as the program steps expect (docs/pacing.md). */
    inner.baud = 0;
    int rc = bw_device_create(&l->create, "create", &inner, t0, err, errlen);
    if (rc < 0)
        return rc;
    l->t0 = t0;
    /* The window after READY: the program's own default, the seed's
     * "usually 1.5 s" (0 here), unless the caller says otherwise (the
     * deployed firmware: 250 ms). */
    double window = o->command_timeout > 0 ? o->command_timeout : 0;
    bw_lobot_cm_config_t cfg = { (uint16_t)lround(fmin(60000, window * 1000)) };
    bw_lobot_cm_init(&l->cm, &cfg, 0);
    cfg = l->cm.cfg;
    /* The first thing `botwire sim lobot` says after where it serves (its
     * Create's own notice, of the bare OI, is no concern of the host's). */
    bw_device_notice(d, "the Command Module's program stops the robot when no command comes "
                        "within %u ms of a READY: a host that dies leaves it stopped "
                        "(docs/lobot.md)",
                     (unsigned)cfg.window_ms);
    return 0;
}

static void take(uint8_t *buf, size_t *n, size_t cap, const uint8_t *b, size_t k)
{
    size_t room = cap - *n;
    if (k > room)
        k = room; /* a UART's buffer overflows the same way */
    memcpy(buf + *n, b, k);
    *n += k;
}

/* The Create's output goes to the USART when the USART is the Create's. */
static void from_create(bw_device_t *d)
{
    lobot_dev_t *l = L(d);
    uint8_t buf[512];
    size_t n;
    while ((n = bw_device_output(l->create, buf, sizeof buf)) > 0)
        if (!l->cm.usb)
            take(l->oi_rx, &l->noi, sizeof l->oi_rx, buf, n);
}

/* One step of the program at t: what it hears in, what it says out, to
 * whichever side the select line gives the USART. */
static void run_program(bw_device_t *d, double t)
{
    lobot_dev_t *l = L(d);
    uint8_t tx[96];
    bool to_host = l->cm.usb;
    size_t n;
    if (to_host) {
        n = bw_lobot_cm_step(&l->cm, ms_of(l, t), l->host_rx, l->nhost, tx, sizeof tx);
        l->nhost = 0;
    } else {
        n = bw_lobot_cm_step(&l->cm, ms_of(l, t), l->oi_rx, l->noi, tx, sizeof tx);
        l->noi = 0;
    }
    if (to_host) {
        bw_device_emit(d, tx, n);
    } else if (n) {
        bw_device_input(l->create, tx, n, t);
        from_create(d);
    }
}

static void step(bw_device_t *d, double now)
{
    lobot_dev_t *l = L(d);
    /* The program's steps in time order, the Create stepped along; a step
     * at the same instant follows one that switched the USART. */
    for (int rounds = 0; rounds < 1000000; rounds++) {
        double t = time_of(l, bw_lobot_cm_next_ms(&l->cm));
        if (l->nhost || l->noi)
            t = fmin(t, now); /* bytes are waiting: the program reads them now */
        if (t > now + 1e-9)
            break;
        bw_device_step(l->create, t);
        from_create(d);
        run_program(d, t);
    }
    bw_device_link_stats(d, &l->cm.cmd.stats);
    bw_device_step(l->create, now);
    from_create(d);
}

/* Host bytes: heard when the select line gives the USART to the host (the
 * program takes them at its next step, this instant), lost otherwise. */
static void input(bw_device_t *d, const uint8_t *data, size_t n, double now)
{
    (void)now;
    lobot_dev_t *l = L(d);
    if (l->cm.usb) {
        take(l->host_rx, &l->nhost, sizeof l->host_rx, data, n);
    } else {
        if (l->unheard == 0 && n)
            bw_device_notice(d, "%zu host bytes came while the Command Module talked to the "
                                "Create: lost (a host sends only after READY; the rest are "
                                "counted)",
                             n);
        l->unheard += n;
        d->body.skipped_bytes += n;
    }
    bw_device_link_stats(d, &l->cm.cmd.stats);
}

static double next_deadline(const bw_device_t *d)
{
    const lobot_dev_t *l = L(d);
    return fmin(time_of(l, bw_lobot_cm_next_ms(&l->cm)), bw_device_next_deadline(l->create));
}

static void reset_line(bw_device_t *d)
{
    lobot_dev_t *l = L(d);
    l->nhost = 0;
    bw_lobot_cmd_parser_finish(&l->cm.cmd);
    bw_device_link_stats(d, &l->cm.cmd.stats);
}

static bw_sim_t *sim_of(bw_device_t *d)
{
    return L(d)->create ? bw_device_sim(L(d)->create) : &d->sim; /* (before init made it) */
}

static const char *command_name(unsigned id) { return bw_lobot_cmd_name((uint8_t)id); }

static void destroy_inner(bw_device_t *d) { bw_device_destroy(L(d)->create); }

bw_device_t *bw_lobot_create_of(bw_device_t *d)
{
    return d && d->ops == &bw_lobot_device_ops ? L(d)->create : NULL;
}

const bw_lobot_cm_t *bw_lobot_device_program(const bw_device_t *d)
{
    return d && d->ops == &bw_lobot_device_ops ? &L(d)->cm : NULL;
}

uint64_t bw_lobot_device_unheard(const bw_device_t *d)
{
    return d && d->ops == &bw_lobot_device_ops ? L(d)->unheard : 0;
}

const bw_device_ops_t bw_lobot_device_ops = {
    .family = "lobot",
    .size = sizeof(lobot_dev_t),
    .init = init,
    .input = input,
    .step = step,
    .next_deadline = next_deadline,
    .reset_line = reset_line,
    .sim = sim_of,
    .command_name = command_name,
    .destroy = destroy_inner,
};
