/* `botwire ports [--probe] [--json] [DEVICE...]`: the serial ports there
 * are, what each is, who holds it, and with --probe which robot answers. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "botwire/base.h"
#include "botwire/port.h"
#include "cli.h"
#include "commands.h"

#define PROBE_SECONDS 1.0 /* listening per family and baud */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: botwire ports [--probe] [--json] [DEVICE...]\n"
            "\n"
            "Lists the serial ports (the DEVICEs named, or every one there is: the\n"
            "/dev/serial/by-id names first, then ttyUSB, ttyACM and the ttyS with a UART\n"
            "behind them): the device, its driver, a USB adapter's vendor:product ids,\n"
            "maker, product and serial number (from sysfs), and the programs that hold it\n"
            "open. With --probe, each port nobody holds is opened as each family's robot in\n"
            "turn, as that family's driver opens it (Kobuki and RBSM stream by themselves;\n"
            "the others hear their driver's first words: P2OS its SYNC handshake, a Create\n"
            "the OI's START, mode and sensor stream, passive again at the end, rflex its\n"
            "defaults and report requests, the Command Module a stop), listening for at\n"
            "most %.0f s per family and baud rate (P2OS at 9600 and 115200, Create at 57600\n"
            "and 115200); the bytes that come are matched against every family's protocol,\n"
            "and the port's line ends with the URL to use (kobuki:/dev/serial/by-id/...).\n"
            "No motion is ever asked: the only drive command sent is a stop. A port where\n"
            "nothing answers is \"unknown\", after 8 s (1 s for each family and rate).\n"
            "\n"
            "  --probe      find which robot answers on each port\n"
            "  --json       a JSON object per port and line: path, by_id, device, driver,\n"
            "               vendor_id, product_id, manufacturer, product, serial, held_by,\n"
            "               and with --probe (a port nobody holds) family, baud, url (null:\n"
            "               unknown) and probe_s, the seconds it took\n"
            "  -h, --help   this help\n",
            PROBE_SECONDS);
}

typedef struct {
    const char *family;
    int baud; /* 0: the family's own */
} attempt_t;

/* In turn: a streaming robot is heard whichever family the port is opened
 * as (its bytes are matched against all), so the first attempt finds those;
 * the others answer their own driver's first words only. */
static const attempt_t attempts[] = {
    { "kobuki", 0 }, { "p2os", 9600 }, { "p2os", 115200 }, { "create", 57600 },
    { "create", 115200 }, { "rflex", 0 }, { "lobot", 0 }, { "rbsm", 0 },
};

typedef struct {
    const char *family; /* NULL: unknown */
    int baud;
    char url[512];
    double took;
} found_t;

/* Opens a robot's URL and listens: the family its bytes are in, when sure
 * (with `online`: only the URL's own family, once its driver is online on
 * its frames); NULL if none within PROBE_SECONDS. */
static const char *listen_to(const char *url, bool online, int *baud)
{
    char err[256];
    double now = cli_now(), end = now + PROBE_SECONDS;
    bw_base_t *b;
    if (bw_base_open(&b, url, NULL, now, err, sizeof err) < 0)
        return NULL;
    if (baud)
        *baud = bw_base_baud(b);
    /* a stop: what some robots (the Command Module) answer with their
     * state, and never a motion */
    bw_base_drive(b, 0, 0, now);
    bw_base_heard_t h = { 0 };
    const char *family = NULL;
    while (!family && !cli_interrupted && (now = cli_now()) < end) {
        bw_base_poll(b, now);
        bw_base_heard(b, &h);
        if (!online && h.sure && h.family)
            family = h.family; /* its own, or another family's that streams */
        else if (bw_base_state(b)->online && !h.wrong)
            family = bw_base_family(b); /* online on its family's frames, none of another's */
        else
            cli_wait(bw_base_fd(b), fmin(end, bw_base_next_deadline(b)));
    }
    bw_base_close(b, cli_now());
    return family;
}

/* Opens path as one family's robot and listens. */
static const char *try_one(const char *path, const attempt_t *a, int *baud)
{
    char url[400];
    if (a->baud)
        snprintf(url, sizeof url, "%s:%.255s?baud=%d", a->family, path, a->baud);
    else
        snprintf(url, sizeof url, "%s:%.255s", a->family, path);
    return listen_to(url, false, baud);
}

/* A Create that answered as a Create 1 (group 6), asked as a Create 2
 * (group 100, which a Create 1 does not have): online, it is one. baud 0:
 * the Create 2's own. */
static bool is_create2(const char *path, int baud)
{
    char url[400];
    snprintf(url, sizeof url, "create:%.255s?model=create2", path);
    if (baud)
        snprintf(url + strlen(url), sizeof url - strlen(url), "&baud=%d", baud);
    return listen_to(url, true, NULL) != NULL;
}

/* pty: a pseudo-terminal takes any rate, and the family's own is said */
static void probe(const char *path, bool pty, found_t *f)
{
    double t0 = cli_now();
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < sizeof attempts / sizeof attempts[0] && !cli_interrupted; i++) {
        int baud = 0;
        const char *family = try_one(path, &attempts[i], &baud);
        if (family) {
            /* Bytes of a family sure enough to name it came at this rate
             * (a streaming robot is heard whichever family's driver
             * listens): that is the robot's rate, but on a pty. */
            if (pty)
                baud = bw_base_family_baud(family);
            f->family = family;
            f->baud = baud;
            /* a baud rate other than the family's own is in the URL */
            int own = bw_base_family_baud(family);
            if (strcmp(family, "create") == 0 && is_create2(path, pty ? 0 : baud)) {
                /* its model in the URL, and its own rate (115200) */
                if (pty)
                    f->baud = baud = (int)BW_CREATE2_BAUD;
                snprintf(f->url, sizeof f->url, "create:%.255s?model=create2", path);
                if (baud != (int)BW_CREATE2_BAUD)
                    snprintf(f->url + strlen(f->url), sizeof f->url - strlen(f->url), "&baud=%d",
                             baud);
            } else if (own && own != baud)
                snprintf(f->url, sizeof f->url, "%s:%.255s?baud=%d", family, path, baud);
            else
                snprintf(f->url, sizeof f->url, "%s:%.255s", family, path);
            break;
        }
    }
    f->took = cli_now() - t0;
}

static json_t *str_or_null(const char *s) { return *s ? json_string(s) : json_null(); }

int cmd_ports(int argc, char **argv)
{
    static const struct option opts[] = {
        { "probe", no_argument, NULL, 'p' },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    bool do_probe = false, as_json = false;
    int c;
    optind = 0;
    while ((c = cli_getopt("ports", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'p': do_probe = true; break;
        case 'j': as_json = true; break;
        case 'h': usage(stdout); return 0;
        default: return 2;
        }
    }
    static char listed[128][256];
    size_t n = 0;
    if (optind < argc) {
        for (int i = optind; i < argc && n < 128; i++) {
            if (strlen(argv[i]) >= sizeof listed[0]) {
                cli_error("ports", "%.40s...: a device path is at most %zu characters", argv[i],
                          sizeof listed[0] - 1);
                return 2;
            }
            snprintf(listed[n++], sizeof listed[0], "%s", argv[i]);
        }
    } else {
        n = bw_port_list(listed, 128);
        if (n > 128)
            n = 128;
        if (n == 0 && !as_json)
            fprintf(stderr, "botwire ports: no serial ports here (a USB adapter plugged in "
                            "shows as /dev/ttyUSB* or /dev/ttyACM*; dmesg says if it came)\n");
    }
    cli_catch_signals();
    int status = 0;
    for (size_t i = 0; i < n && !cli_interrupted; i++) {
        const char *path = listed[i];
        bw_port_desc_t d;
        char err[300], held[200];
        if (bw_port_describe(path, &d, err, sizeof err) < 0) {
            cli_error("ports", "%s", err);
            status = 1;
            continue;
        }
        int holders = bw_port_holders(path, held, sizeof held);
        found_t f = { 0 };
        if (do_probe && holders == 0)
            probe(path, !strcmp(d.driver, "pty"), &f);
        if (as_json) {
            json_t *o = json_object();
            json_object_set_new(o, "path", json_string(path));
            json_object_set_new(o, "by_id", str_or_null(d.by_id));
            json_object_set_new(o, "device", json_string(d.path));
            json_object_set_new(o, "driver", str_or_null(d.driver));
            json_object_set_new(o, "vendor_id", str_or_null(d.vendor_id));
            json_object_set_new(o, "product_id", str_or_null(d.product_id));
            json_object_set_new(o, "manufacturer", str_or_null(d.manufacturer));
            json_object_set_new(o, "product", str_or_null(d.product));
            json_object_set_new(o, "serial", str_or_null(d.serial));
            json_object_set_new(o, "held_by", holders ? json_string(held) : json_null());
            if (do_probe && !holders) { /* a held port is not probed */
                json_object_set_new(o, "family", f.family ? json_string(f.family) : json_null());
                json_object_set_new(o, "baud", f.family ? json_integer(f.baud) : json_null());
                json_object_set_new(o, "url", f.family ? json_string(f.url) : json_null());
                json_object_set_new(o, "probe_s", json_real(f.took));
            }
            char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(3));
            json_decref(o);
            if (text)
                printf("%s\n", text);
            free(text);
        } else {
            printf("%s", path);
            if (strcmp(d.path, path) != 0)
                printf(" -> %s", d.path);
            printf("  %s", *d.driver ? d.driver : "?");
            if (*d.vendor_id)
                printf("  %s:%s", d.vendor_id, d.product_id);
            if (*d.manufacturer || *d.product)
                printf("  %s%s%s", d.manufacturer, *d.manufacturer && *d.product ? " " : "",
                       d.product);
            if (*d.serial)
                printf("  serial %s", d.serial);
            if (holders)
                printf("  held by %s", held);
            else if (do_probe && f.family)
                printf("  %s at %d baud: %s", f.family, f.baud, f.url);
            else if (do_probe)
                printf("  unknown: nothing answered (%.1f s)", f.took);
            printf("\n");
        }
        fflush(stdout);
    }
    if (cli_flush_out("ports") != 0)
        return 1;
    return cli_interrupted ? 128 + cli_interrupted : status;
}
