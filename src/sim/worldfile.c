/* The world text format (see sim.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "botwire/port.h"
#include "botwire/sim.h"
#include "botwire/wire.h"

#define MAX_NUMS (2 * BW_WORLD_MAX_WALLS)
#define MAX_FILE_BYTES (1024 * 1024)
#define MAX_TOKEN 63

static void errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A token as it may be quoted in a message: printable, and not too long. */
static void show(char *out, size_t outlen, const char *p, size_t n)
{
    size_t k = 0, lim = n > 32 ? 32 : n;
    for (size_t i = 0; i < lim && k + 1 < outlen; i++)
        out[k++] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
    for (size_t i = 0; n > lim && i < 3 && k + 1 < outlen; i++)
        out[k++] = '.';
    out[k] = '\0';
}

/* strtod needs a terminated string and the line is not one; copying the
 * token also keeps strtod from reading past it. */
static bool parse_number(const char *p, size_t n, double *out, char *msg, size_t msglen)
{
    char buf[MAX_TOKEN + 1], shown[40];
    show(shown, sizeof shown, p, n);
    if (n > MAX_TOKEN) {
        errf(msg, msglen, "'%s' is too long for a number", shown);
        return false;
    }
    memcpy(buf, p, n);
    buf[n] = '\0';
    char *end = NULL;
    double v = strtod(buf, &end);
    if (n == 0 || end != buf + n) {
        errf(msg, msglen, "'%s' is not a number", shown);
        return false;
    }
    if (!isfinite(v)) {
        errf(msg, msglen, "'%s' is not a finite number", shown);
        return false;
    }
    *out = v;
    return true;
}

/* Degrees, any size, to radians in (-pi, pi]; reduced in degrees first so
 * 180 and 90 come out as exactly pi and pi/2. */
static double heading(double deg)
{
    double d = fmod(deg, 360.0);
    if (d > 180.0)
        d -= 360.0;
    else if (d <= -180.0)
        d += 360.0;
    return d / 180.0 * BW_PI;
}

static int built(int rc, const char *what, bool drop, char *msg, size_t msglen)
{
    if (rc == BW_ENOSPC) {
        if (drop)
            errf(msg, msglen, "world full (at most %d drop-offs)", BW_WORLD_MAX_DROPS);
        else
            errf(msg, msglen, "world full (at most %d walls)", BW_WORLD_MAX_WALLS);
        return BW_EINVAL;
    }
    if (rc < 0) {
        errf(msg, msglen, "degenerate %s", what);
        return BW_EINVAL;
    }
    return 0;
}

static int need(const char *kw, size_t got, size_t want, char *msg, size_t msglen)
{
    if (got == want)
        return 0;
    errf(msg, msglen, "%s needs %zu numbers, got %zu", kw, want, got);
    return BW_EINVAL;
}

/* Outline vertex count from the numbers, or -1 with the message set. */
static int vertices(const char *kw, size_t got, unsigned max, char *msg, size_t msglen)
{
    if (got % 2 != 0) {
        errf(msg, msglen, "%s needs x y pairs, got %zu numbers", kw, got);
        return -1;
    }
    if (got / 2 < 3) {
        errf(msg, msglen, "%s needs at least 3 vertices, got %zu", kw, got / 2);
        return -1;
    }
    if (got / 2 > max) {
        errf(msg, msglen, "%s has %zu vertices, at most %u", kw, got / 2, max);
        return -1;
    }
    return (int)(got / 2);
}

static bool is_kw(const char *p, size_t n, const char *kw)
{
    return strlen(kw) == n && memcmp(p, kw, n) == 0;
}

/* "label X Y TEXT...": two numbers, then the rest of the line. */
static int parse_label(bw_world_t *w, const char *p, size_t n, char *msg, size_t msglen)
{
    double xy[2];
    size_t i = 0;
    for (int k = 0; k < 2; k++) {
        while (i < n && is_blank(p[i]))
            i++;
        size_t t0 = i;
        while (i < n && !is_blank(p[i]))
            i++;
        if (i == t0) {
            errf(msg, msglen, "label needs X Y and a text");
            return BW_EINVAL;
        }
        if (!parse_number(p + t0, i - t0, &xy[k], msg, msglen))
            return BW_EINVAL;
    }
    while (i < n && is_blank(p[i]))
        i++;
    while (n > i && is_blank(p[n - 1]))
        n--;
    char text[BW_WORLD_LABEL_LEN];
    if (n == i || n - i >= sizeof text) {
        errf(msg, msglen, "label needs a text of 1 to %d characters", BW_WORLD_LABEL_LEN - 1);
        return BW_EINVAL;
    }
    memcpy(text, p + i, n - i);
    text[n - i] = 0;
    int rc = bw_world_add_label(w, (bw_vec2_t){ xy[0], xy[1] }, text);
    if (rc == BW_ENOSPC)
        errf(msg, msglen, "too many labels (at most %d)", BW_WORLD_MAX_LABELS);
    else if (rc < 0)
        errf(msg, msglen, "label text must be printable, without < or &");
    return rc;
}

/* The numbers from p[*i] to the end: up to cap of them into num, all of
 * them checked and counted in *got. False (with msg) on one that is not a
 * number. */
static bool numbers(const char *p, size_t n, size_t i, double *num, size_t cap, size_t *got,
                    char *msg, size_t msglen)
{
    *got = 0;
    for (;;) {
        while (i < n && is_blank(p[i]))
            i++;
        if (i == n)
            return true;
        size_t t0 = i;
        while (i < n && !is_blank(p[i]))
            i++;
        double v;
        if (!parse_number(p + t0, i - t0, &v, msg, msglen))
            return false;
        if (*got < cap)
            num[*got] = v;
        (*got)++;
    }
}

/* "robot FAMILY[/MODEL] X Y HEADING". */
static int parse_robot(bw_world_t *w, const char *p, size_t n, char *msg, size_t msglen)
{
    size_t i = 0;
    while (i < n && is_blank(p[i]))
        i++;
    size_t t0 = i;
    while (i < n && !is_blank(p[i]))
        i++;
    const char *name = p + t0, *slash = memchr(name, '/', i - t0);
    size_t nf = slash ? (size_t)(slash - name) : i - t0, nm = slash ? i - t0 - nf - 1 : 0;
    if (nf == 0 || nf >= BW_WORLD_NAME_LEN || (slash && (nm == 0 || nm >= BW_WORLD_NAME_LEN))) {
        errf(msg, msglen, "robot needs FAMILY[/MODEL] (names of 1 to %d characters), X, Y and "
                          "a heading",
             BW_WORLD_NAME_LEN - 1);
        return BW_EINVAL;
    }
    for (size_t k = t0; k < i; k++)
        if (!isalnum((unsigned char)p[k]) && p[k] != '/' && p[k] != '-' && p[k] != '_') {
            errf(msg, msglen, "robot: a family and model are letters and digits");
            return BW_EINVAL;
        }
    double num[3];
    size_t got;
    if (!numbers(p, n, i, num, 3, &got, msg, msglen))
        return BW_EINVAL;
    if (got != 3) {
        errf(msg, msglen, "robot needs FAMILY[/MODEL] X Y HEADING (got %zu numbers)", got);
        return BW_EINVAL;
    }
    if (w->nrobots >= BW_WORLD_MAX_ROBOTS) {
        errf(msg, msglen, "too many robots (at most %d)", BW_WORLD_MAX_ROBOTS);
        return BW_EINVAL;
    }
    bw_world_robot_t r0;
    memset(&r0, 0, sizeof r0);
    memcpy(r0.family, name, nf);
    if (slash)
        memcpy(r0.model, slash + 1, nm);
    const char *family, *model;
    if (bw_family_alias(r0.family, &family, &model)) { /* create2: the create family's model */
        if (slash && strcmp(r0.model, model) != 0) {
            errf(msg, msglen, "robot %s is the %s family's model %s: /%s says otherwise", r0.family,
                 family, model, r0.model);
            return BW_EINVAL;
        }
        snprintf(r0.family, sizeof r0.family, "%s", family);
        snprintf(r0.model, sizeof r0.model, "%s", model);
    }
    bw_world_robot_t *r = &w->robots[w->nrobots++];
    *r = r0;
    r->pose = (bw_pose_t){ num[0], num[1], heading(num[2]) };
    return 0;
}

/* Docks wait for the end of the file: whether a robot can stand at one
 * depends on walls that may come after it. */
typedef struct {
    bw_dock_t d[BW_WORLD_MAX_DOCKS];
    size_t line[BW_WORLD_MAX_DOCKS];
    size_t n, at; /* docks so far; the line being read */
} pending_t;

/* The robot a dock is checked with: about a Kobuki's or a Create's size. */
#define DOCK_CHECK_RADIUS 0.17
#define DOCK_CHECK_LEEWAY 0.01

static int parse_dock(pending_t *docks, const char *p, size_t n, size_t i, char *msg, size_t msglen)
{
    double num[3];
    size_t got, end = n;
    /* a family name after the numbers, if the last token is not a number */
    while (end > i && is_blank(p[end - 1]))
        end--;
    size_t t = end;
    while (t > i && !is_blank(p[t - 1]))
        t--;
    const char *fam = NULL;
    size_t nfam = 0;
    if (t < end && (isalpha((unsigned char)p[t]) || p[t] == '_')) {
        fam = p + t;
        nfam = end - t;
        end = t;
    }
    if (!numbers(p, end, i, num, 3, &got, msg, msglen))
        return BW_EINVAL;
    if (got != 3) {
        errf(msg, msglen, "dock needs X Y HEADING [FAMILY] (got %zu numbers)", got);
        return BW_EINVAL;
    }
    if (fam && !is_kw(fam, nfam, "kobuki") && !is_kw(fam, nfam, "create")) {
        char shown[40];
        show(shown, sizeof shown, fam, nfam);
        errf(msg, msglen, "dock family '%s': kobuki or create (the Home Base), or none for any",
             shown);
        return BW_EINVAL;
    }
    if (docks->n >= BW_WORLD_MAX_DOCKS) {
        errf(msg, msglen, "too many docks (at most %d)", BW_WORLD_MAX_DOCKS);
        return BW_EINVAL;
    }
    bw_dock_t *d = &docks->d[docks->n];
    memset(d, 0, sizeof *d);
    d->pose = (bw_pose_t){ num[0], num[1], heading(num[2]) };
    if (fam)
        memcpy(d->family, fam, nfam);
    docks->line[docks->n++] = docks->at;
    return 0;
}

/* The docks into the world, each where a robot can stand at it. */
static int place_docks(bw_world_t *w, const pending_t *docks, char *err, size_t errlen)
{
    bool mapped = w->nwalls > 0 || w->ndrops > 0;
    double x0 = w->min_x, y0 = w->min_y, x1 = w->max_x, y1 = w->max_y;
    for (size_t k = 0; k < docks->n; k++) {
        const bw_dock_t *d = &docks->d[k];
        bw_pose_t stand = bw_dock_robot_pose(d, DOCK_CHECK_RADIUS);
        if (mapped && (d->pose.x < x0 || d->pose.x > x1 || d->pose.y < y0 || d->pose.y > y1 ||
                       stand.x < x0 || stand.x > x1 || stand.y < y0 || stand.y > y1)) {
            errf(err, errlen,
                 "line %zu: dock at (%g, %g) is off the map (%g..%g x %g..%g), or a robot "
                 "docked there would be",
                 docks->line[k], d->pose.x, d->pose.y, x0, x1, y0, y1);
            return BW_EINVAL;
        }
        bw_vec2_t at = { stand.x, stand.y };
        if (bw_world_clearance(w, at, NULL) < DOCK_CHECK_RADIUS - DOCK_CHECK_LEEWAY) {
            errf(err, errlen,
                 "line %zu: dock at (%g, %g) is in or against a wall: a robot docked there "
                 "would stand in it",
                 docks->line[k], d->pose.x, d->pose.y);
            return BW_EINVAL;
        }
        int rc = bw_world_add_dock(w, d->pose, d->family);
        if (rc != 0) {
            errf(err, errlen, "line %zu: %s", docks->line[k],
                 rc == BW_ENOSPC ? "world full (no room for the dock's back among the walls)"
                                 : "degenerate dock");
            return BW_EINVAL;
        }
    }
    return 0;
}

/* One line, without its newline and comment. */
static int parse_line(bw_world_t *w, pending_t *docks, const char *p, size_t n, char *msg,
                      size_t msglen)
{
    double num[MAX_NUMS];
    size_t i = 0;
    while (i < n && is_blank(p[i]))
        i++;
    if (i == n)
        return 0;
    const char *kwp = p + i;
    while (i < n && !is_blank(p[i]))
        i++;
    size_t kwn = (size_t)(p + i - kwp);

    enum { SIZE, WALL, BOX, POLYGON, DROP, DROPPOLY, DOCK, START, LABEL, ROBOT, NKW };
    static const char *const known[NKW] = { "size",     "wall", "box",   "polygon", "drop",
                                            "droppoly", "dock", "start", "label",   "robot" };
    int which = NKW;
    for (int k = 0; k < NKW; k++)
        if (is_kw(kwp, kwn, known[k]))
            which = k;
    if (which == NKW) {
        char shown[40];
        show(shown, sizeof shown, kwp, kwn);
        errf(msg, msglen, "unknown keyword '%s'", shown);
        return BW_EINVAL;
    }
    const char *kw = known[which];
    if (which == LABEL)
        return parse_label(w, p + i, n - i, msg, msglen);
    if (which == ROBOT)
        return parse_robot(w, p + i, n - i, msg, msglen);
    if (which == DOCK)
        return parse_dock(docks, p, n, i, msg, msglen);

    /* Numbers beyond the buffer are still checked and counted, so an
     * oversized outline gets its real vertex count in the message. */
    size_t got;
    if (!numbers(p, n, i, num, MAX_NUMS, &got, msg, msglen))
        return BW_EINVAL;

    switch (which) {
    case SIZE:
        if (need(kw, got, 2, msg, msglen))
            return BW_EINVAL;
        if (!(num[0] > 0 && num[1] > 0)) {
            errf(msg, msglen, "size needs a positive width and height");
            return BW_EINVAL;
        }
        return built(bw_world_add_box(w, 0, 0, num[0], num[1]), "size", false, msg, msglen);
    case WALL: {
        if (need(kw, got, 4, msg, msglen))
            return BW_EINVAL;
        bw_vec2_t a = { num[0], num[1] }, b = { num[2], num[3] };
        return built(bw_world_add_wall(w, a, b), "wall (zero length)", false, msg, msglen);
    }
    case BOX:
        if (need(kw, got, 4, msg, msglen))
            return BW_EINVAL;
        return built(bw_world_add_box(w, num[0], num[1], num[2], num[3]),
                     "box (zero width or height)", false, msg, msglen);
    case DROP:
        if (need(kw, got, 4, msg, msglen))
            return BW_EINVAL;
        return built(bw_world_add_drop_box(w, num[0], num[1], num[2], num[3]),
                     "drop (zero width or height)", true, msg, msglen);
    case POLYGON:
    case DROPPOLY: {
        bool drop = which == DROPPOLY;
        int nv = vertices(kw, got, drop ? BW_WORLD_MAX_POLY : BW_WORLD_MAX_WALLS, msg, msglen);
        if (nv < 0)
            return BW_EINVAL;
        bw_vec2_t v[BW_WORLD_MAX_WALLS];
        for (size_t k = 0; k < (size_t)nv; k++)
            v[k] = (bw_vec2_t){ num[2 * k], num[2 * k + 1] };
        int rc = drop ? bw_world_add_drop(w, v, (unsigned)nv)
                      : bw_world_add_polygon(w, v, (unsigned)nv);
        return built(rc, drop ? "droppoly (repeated vertex or no area)"
                              : "polygon (repeated vertex or no area)",
                     drop, msg, msglen);
    }
    default: {
        if (need(kw, got, 3, msg, msglen))
            return BW_EINVAL;
        w->start = (bw_pose_t){ num[0], num[1], heading(num[2]) };
        return 0;
    }
    }
}

int bw_world_parse(bw_world_t *w, const char *text, size_t len, char *err, size_t errlen)
{
    if (!w || (!text && len > 0)) {
        errf(err, errlen, "no world or no text");
        return BW_EINVAL;
    }
    /* Built aside so a failed parse leaves *w as it was. */
    bw_world_t tmp;
    bw_world_init(&tmp);
    pending_t docks;
    docks.n = 0;
    size_t line = 0, pos = 0;
    while (pos < len) {
        line++;
        docks.at = line;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        const char *hash = memchr(text + pos, '#', end - pos);
        size_t stop = hash ? (size_t)(hash - text) : end;
        char msg[160];
        if (parse_line(&tmp, &docks, text + pos, stop - pos, msg, sizeof msg) != 0) {
            errf(err, errlen, "line %zu: %s", line, msg);
            return BW_EINVAL;
        }
        pos = end + 1;
    }
    if (place_docks(&tmp, &docks, err, errlen) != 0)
        return BW_EINVAL;
    *w = tmp;
    if (err && errlen > 0)
        err[0] = '\0';
    return 0;
}

int bw_world_load(bw_world_t *w, const char *path, char *err, size_t errlen)
{
    if (!w || !path) {
        errf(err, errlen, "no world or no path");
        return BW_EINVAL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return BW_EIO;
    }
    char *buf = malloc(MAX_FILE_BYTES + 1);
    if (!buf) {
        fclose(f);
        errf(err, errlen, "%s: out of memory", path);
        return BW_ENOMEM;
    }
    size_t len = fread(buf, 1, MAX_FILE_BYTES + 1, f);
    int rerr = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    int rc = 0;
    if (rerr) {
        errf(err, errlen, "cannot read %s: %s", path, strerror(rerr));
        rc = BW_EIO;
    } else if (len > MAX_FILE_BYTES) {
        errf(err, errlen, "%s: file too large (more than %d bytes)", path, MAX_FILE_BYTES);
        rc = BW_EINVAL;
    } else {
        char msg[200];
        rc = bw_world_parse(w, buf, len, msg, sizeof msg);
        if (rc != 0)
            errf(err, errlen, "%s: %s", path, msg);
    }
    free(buf);
    if (rc == 0 && err && errlen > 0)
        err[0] = '\0';
    return rc;
}
