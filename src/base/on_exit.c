/* Stopping every open base when the program exits or is killed (base.h:
 * bw_base_stop_on_exit): each base's stop bytes and port, kept where a
 * signal handler can reach them. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base_internal.h"

/* ---- stop on exit ------------------------------------------------------------ */

/* Open bases, reachable from a signal handler: only plain data, written
 * before `used` is set. */
#define SLOTS 32
static struct {
    volatile sig_atomic_t used;
    volatile int fd;
    uint8_t stop[BW_BASE_STOP_MAX];
    size_t len;
} slots[SLOTS];

static void stop_all(void)
{
    for (int i = 0; i < SLOTS; i++) {
        if (!slots[i].used || slots[i].fd < 0)
            continue;
        ssize_t n = write(slots[i].fd, slots[i].stop, slots[i].len);
        (void)n; /* nothing more can be done from here */
    }
}

static void on_fatal_signal(int sig)
{
    stop_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

void bw_base_stop_on_exit(void)
{
    static bool installed;
    if (installed)
        return;
    installed = true;
    atexit(stop_all);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void bw_base_slot_update(bw_base_t *b)
{
    if (b->slot < 0)
        return;
    /* A robot of another family is sent nothing, the stop included. */
    slots[b->slot].fd = b->port && !b->wrong ? bw_port_fd(b->port) : -1;
}

void bw_base_slot_take(bw_base_t *b)
{
    b->slot = -1;
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].used)
            continue;
        memcpy(slots[i].stop, b->stop, b->stop_len);
        slots[i].len = b->stop_len;
        slots[i].fd = -1;
        slots[i].used = 1;
        b->slot = i;
        bw_base_slot_update(b);
        return;
    }
}

void bw_base_stop_bytes_changed(bw_base_t *b)
{
    b->stop_len = b->ops->stop_bytes(b, b->stop, sizeof b->stop);
    if (b->slot < 0)
        return;
    /* a signal meanwhile sends nothing rather than half of either */
    slots[b->slot].len = 0;
    memcpy(slots[b->slot].stop, b->stop, b->stop_len);
    slots[b->slot].len = b->stop_len;
}

void bw_base_slot_release(bw_base_t *b)
{
    if (b->slot >= 0)
        slots[b->slot].used = 0;
    b->slot = -1;
}
