/* The serial ports of this computer (botwire/port.h): which there are, and
 * what sysfs says of each (its driver, a USB adapter's ids and strings). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "port_internal.h"

/* src into dst of cap bytes, cut to fit. */
static void copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* The first line of a sysfs file, into out ("" if none). */
static void read_line(const char *dir, const char *file, char *out, size_t cap)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(out, (int)cap, f))
        out[strcspn(out, "\n")] = 0;
    fclose(f);
}

static void base_of_link(const char *link, char *out, size_t cap)
{
    char target[PATH_MAX];
    ssize_t n = readlink(link, target, sizeof target - 1);
    out[0] = 0;
    if (n <= 0)
        return;
    target[n] = 0;
    const char *slash = strrchr(target, '/');
    copy(out, cap, slash ? slash + 1 : target);
}

/* The /dev/serial/by-id name whose target is real, into out. */
static void by_id_of(const char *real, char *out, size_t cap)
{
    out[0] = 0;
    DIR *d = opendir("/dev/serial/by-id");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char link[PATH_MAX], to[PATH_MAX];
        snprintf(link, sizeof link, "/dev/serial/by-id/%s", e->d_name);
        if (realpath(link, to) && strcmp(to, real) == 0) {
            copy(out, cap, link);
            break;
        }
    }
    closedir(d);
}

int bw_port_describe(const char *path, bw_port_desc_t *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) != 0 || !S_ISCHR(st.st_mode)) {
        bw_io_errf(err, errlen, "%s: %s", path, !realpath(path, real) ? "no such device"
                                                                      : "not a terminal device");
        return BW_EINVAL;
    }
    copy(d->path, sizeof d->path, real);
    by_id_of(real, d->by_id, sizeof d->by_id);
    const char *slash = strrchr(real, '/');
    copy(d->name, sizeof d->name, slash + 1);
    if (strncmp(real, "/dev/pts/", 9) == 0) {
        copy(d->driver, sizeof d->driver, "pty");
        return 0;
    }
    char sys[PATH_MAX], dev[PATH_MAX + 16];
    snprintf(sys, sizeof sys, "/sys/class/tty/%s/device", d->name);
    snprintf(dev, sizeof dev, "%s/driver", sys);
    base_of_link(dev, d->driver, sizeof d->driver);
    /* up from the tty's device to the USB device that has the ids */
    char at[PATH_MAX];
    if (!realpath(sys, at))
        return 0;
    while (strlen(at) > strlen("/sys/devices")) {
        char ids[PATH_MAX + 16];
        snprintf(ids, sizeof ids, "%s/idVendor", at);
        if (access(ids, R_OK) == 0) {
            read_line(at, "idVendor", d->vendor_id, sizeof d->vendor_id);
            read_line(at, "idProduct", d->product_id, sizeof d->product_id);
            read_line(at, "manufacturer", d->manufacturer, sizeof d->manufacturer);
            read_line(at, "product", d->product, sizeof d->product);
            read_line(at, "serial", d->serial, sizeof d->serial);
            break;
        }
        char *up = strrchr(at, '/');
        if (!up)
            break;
        *up = 0;
    }
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

/* Whether a ttyS device has a UART behind it (its sysfs type is not 0,
 * PORT_UNKNOWN: most of the 32 a PC lists have none). */
static bool uart_there(const char *name)
{
    char dir[64], type[16];
    snprintf(dir, sizeof dir, "/sys/class/tty/%.31s", name);
    read_line(dir, "type", type, sizeof type);
    return type[0] && strcmp(type, "0") != 0;
}

size_t bw_port_list(char (*paths)[256], size_t cap)
{
    size_t n = 0;
    char reals[64][256]; /* what the by-id names lead to */
    size_t nreal = 0;
    DIR *d = opendir("/dev/serial/by-id");
    if (d) {
        char found[64][256];
        size_t k = 0;
        struct dirent *e;
        while ((e = readdir(d)) && k < 64) {
            if (e->d_name[0] != '.')
                snprintf(found[k++], sizeof found[0], "/dev/serial/by-id/%.200s", e->d_name);
        }
        closedir(d);
        qsort(found, k, sizeof found[0], by_name);
        for (size_t i = 0; i < k; i++) {
            char to[PATH_MAX];
            if (nreal < 64 && realpath(found[i], to))
                copy(reals[nreal++], sizeof reals[0], to);
            if (n < cap)
                copy(paths[n], 256, found[i]);
            n++;
        }
    }
    static const char *const kinds[] = { "ttyUSB", "ttyACM", "ttyS" };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        DIR *dev = opendir("/dev");
        if (!dev)
            break;
        char found[256][32];
        size_t m = 0;
        struct dirent *e;
        while ((e = readdir(dev)) && m < 256) {
            size_t len = strlen(kinds[k]);
            if (strncmp(e->d_name, kinds[k], len) == 0 && e->d_name[len] >= '0' &&
                e->d_name[len] <= '9' && strlen(e->d_name) < sizeof found[0])
                copy(found[m++], sizeof found[0], e->d_name);
        }
        closedir(dev);
        qsort(found, m, sizeof found[0], by_name);
        for (size_t i = 0; i < m; i++) {
            char path[64];
            snprintf(path, sizeof path, "/dev/%.31s", found[i]);
            bool named = false;
            for (size_t j = 0; j < nreal && !named; j++)
                named = strcmp(reals[j], path) == 0;
            if (named || (k == 2 && !uart_there(found[i])))
                continue;
            if (n < cap)
                copy(paths[n], 256, path);
            n++;
        }
    }
    return n;
}
