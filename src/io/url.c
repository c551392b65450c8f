/* Robot URLs: FAMILY:PATH, FAMILY:tcp://HOST:PORT, sim:FAMILY, each with an
 * optional ?k=v&... query. */
#include "botwire/port.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define FORMS "FAMILY:/dev/PATH, FAMILY:tcp://HOST:PORT or sim:FAMILY"
#define FAMILY_MAX (sizeof ((bw_url_t *)0)->family - 1)
#define PATH_MAX_LEN (sizeof ((bw_url_t *)0)->path - 1)
#define HOST_MAX (sizeof ((bw_url_t *)0)->host - 1)
#define KEY_MAX (sizeof ((bw_url_t *)0)->params[0].key - 1)
#define VALUE_MAX (sizeof ((bw_url_t *)0)->params[0].value - 1)

/* A string piece: not NUL-terminated. */
typedef struct {
    const char *p;
    size_t n;
} span_t;

__attribute__((format(printf, 4, 5))) static int url_err(char *err, size_t errlen, const char *text,
                                                         const char *fmt, ...)
{
    if (!err || errlen == 0)
        return BW_EINVAL;
    /* The URL is echoed shortened and with control characters replaced, so
     * the message stays one readable line. */
    char echo[72];
    size_t n = strlen(text), k = 0;
    size_t show = n > 60 ? 57 : n;
    for (size_t i = 0; i < show; i++) {
        unsigned char c = (unsigned char)text[i];
        echo[k++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (show < n) {
        memcpy(echo + k, "...", 3);
        k += 3;
    }
    echo[k] = '\0';
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "bad robot URL \"%s\": %s", echo, reason);
    return BW_EINVAL;
}

static bool is_family_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* Families in any case: "P2OS:/dev/ttyS0" is "p2os:/dev/ttyS0". */
static bool family_eq(span_t s, const char *lit)
{
    if (s.n != strlen(lit))
        return false;
    for (size_t i = 0; i < s.n; i++)
        if (lower(s.p[i]) != lit[i])
            return false;
    return true;
}

static void family_copy(char *dst, span_t s)
{
    for (size_t i = 0; i < s.n; i++)
        dst[i] = lower(s.p[i]);
    dst[s.n] = '\0';
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool span_eq(span_t s, const char *lit)
{
    return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

static bool span_starts(span_t s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n >= n && memcmp(s.p, lit, n) == 0;
}

static void span_copy(char *dst, span_t s)
{
    memcpy(dst, s.p, s.n);
    dst[s.n] = '\0';
}

static int check_family(span_t f, const char *text, char *err, size_t errlen)
{
    if (f.n == 0)
        return url_err(err, errlen, text, "missing robot family (expected " FORMS ")");
    for (size_t i = 0; i < f.n; i++) {
        if (!is_family_char(f.p[i]))
            return url_err(err, errlen, text,
                           "bad robot family \"%.*s\": use letters, digits and _ (expected " FORMS ")",
                           (int)(f.n > 32 ? 32 : f.n), f.p);
    }
    if (f.n > FAMILY_MAX)
        return url_err(err, errlen, text, "robot family \"%.*s\" is longer than %zu characters",
                       (int)(f.n > 32 ? 32 : f.n), f.p, FAMILY_MAX);
    return 0;
}

static int parse_tcp(span_t hp, bw_url_t *url, const char *text, char *err, size_t errlen)
{
    const char *form = "expected FAMILY:tcp://HOST:PORT";
    span_t host, port;
    if (hp.n > 0 && hp.p[0] == '[') {
        const char *close = memchr(hp.p, ']', hp.n);
        if (!close)
            return url_err(err, errlen, text, "missing ']' after the IPv6 address (%s)", form);
        host = (span_t){ hp.p + 1, (size_t)(close - hp.p - 1) };
        span_t after = { close + 1, hp.n - (size_t)(close - hp.p) - 1 };
        if (host.n == 0)
            return url_err(err, errlen, text, "empty host in [] (%s)", form);
        if (!memchr(host.p, ':', host.n))
            return url_err(err, errlen, text, "\"%.*s\" in [] is not an IPv6 address (%s)",
                           (int)host.n, host.p, form);
        for (size_t i = 0; i < host.n; i++) {
            char c = host.p[i];
            if (!is_alnum(c) && !strchr(":.%_-", c))
                return url_err(err, errlen, text, "bad character in the IPv6 address (%s)", form);
        }
        if (after.n == 0 || after.p[0] != ':')
            return url_err(err, errlen, text, "missing TCP port (%s)", form);
        port = (span_t){ after.p + 1, after.n - 1 };
    } else {
        const char *colon = memchr(hp.p, ':', hp.n);
        if (!colon) {
            if (hp.n == 0)
                return url_err(err, errlen, text, "missing host and port (%s)", form);
            return url_err(err, errlen, text, "missing TCP port (%s)", form);
        }
        host = (span_t){ hp.p, (size_t)(colon - hp.p) };
        port = (span_t){ colon + 1, hp.n - host.n - 1 };
        if (memchr(port.p, ':', port.n))
            return url_err(err, errlen, text,
                           "an IPv6 address needs brackets, e.g. tcp://[::1]:PORT (%s)", form);
        if (host.n == 0)
            return url_err(err, errlen, text, "missing host (%s)", form);
        for (size_t i = 0; i < host.n; i++) {
            char c = host.p[i];
            if (!is_alnum(c) && c != '.' && c != '-' && c != '_')
                return url_err(err, errlen, text, "bad character '%c' in the host (%s)", c, form);
        }
    }
    if (host.n > HOST_MAX)
        return url_err(err, errlen, text, "host is longer than %zu characters", HOST_MAX);
    if (port.n == 0)
        return url_err(err, errlen, text, "missing TCP port (%s)", form);
    long v = 0;
    for (size_t i = 0; i < port.n; i++) {
        if (port.p[i] < '0' || port.p[i] > '9' || i >= 5) {
            v = -1;
            break;
        }
        v = v * 10 + (port.p[i] - '0');
    }
    if (v < 1 || v > 65535)
        return url_err(err, errlen, text, "bad TCP port \"%.*s\" (expected 1..65535)",
                       (int)(port.n > 16 ? 16 : port.n), port.p);
    url->kind = BW_URL_TCP;
    span_copy(url->host, host);
    url->port = (int)v;
    return 0;
}

static int parse_query(span_t q, bw_url_t *url, const char *text, char *err, size_t errlen)
{
    const char *p = q.p, *end = q.p + q.n;
    for (;;) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        span_t item = { p, (size_t)((amp ? amp : end) - p) };
        if (item.n == 0)
            return url_err(err, errlen, text, "empty query parameter (expected ?KEY=VALUE&...)");
        const char *eq = memchr(item.p, '=', item.n);
        span_t key = { item.p, eq ? (size_t)(eq - item.p) : item.n };
        span_t val = { eq ? eq + 1 : item.p + item.n, eq ? item.n - key.n - 1 : 0 };
        if (key.n == 0)
            return url_err(err, errlen, text, "query parameter without a name");
        for (size_t i = 0; i < key.n; i++) {
            char c = key.p[i];
            if (!is_alnum(c) && c != '_' && c != '-' && c != '.')
                return url_err(err, errlen, text,
                               "bad query parameter name \"%.*s\": use letters, digits, _ - .",
                               (int)(key.n > 32 ? 32 : key.n), key.p);
        }
        if (key.n > KEY_MAX)
            return url_err(err, errlen, text, "query parameter name \"%.*s...\" is longer than %zu characters",
                           16, key.p, KEY_MAX);
        if (val.n > VALUE_MAX)
            return url_err(err, errlen, text, "value of \"%.*s\" is longer than %zu characters",
                           (int)key.n, key.p, VALUE_MAX);
        for (size_t i = 0; i < url->nparams; i++) {
            if (span_eq(key, url->params[i].key))
                return url_err(err, errlen, text, "query parameter \"%.*s\" given twice",
                               (int)key.n, key.p);
        }
        if (url->nparams == BW_URL_MAX_PARAMS)
            return url_err(err, errlen, text, "more than %d query parameters",
                           BW_URL_MAX_PARAMS);
        span_copy(url->params[url->nparams].key, key);
        span_copy(url->params[url->nparams].value, val);
        url->nparams++;
        if (!amp)
            return 0;
        p = amp + 1;
    }
}

static int parse_url(const char *text, bw_url_t *url, char *err, size_t errlen)
{
    for (const char *c = text; *c; c++) {
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return url_err(err, errlen, text, "control character in the URL");
    }
    const char *q = strchr(text, '?');
    span_t head = { text, q ? (size_t)(q - text) : strlen(text) };
    const char *colon = memchr(head.p, ':', head.n);
    if (!colon)
        return url_err(err, errlen, text, "expected " FORMS);
    span_t family = { head.p, (size_t)(colon - head.p) };
    span_t rest = { colon + 1, head.n - family.n - 1 };
    int rc = check_family(family, text, err, errlen);
    if (rc != 0)
        return rc;

    if (family_eq(family, "sim")) {
        if (rest.n == 0)
            return url_err(err, errlen, text, "sim: needs a robot family, e.g. sim:kobuki");
        rc = check_family(rest, text, err, errlen);
        if (rc != 0)
            return rc;
        url->kind = BW_URL_SIM;
        family_copy(url->family, rest);
    } else if (span_starts(rest, "tcp://")) {
        rc = parse_tcp((span_t){ rest.p + 6, rest.n - 6 }, url, text, err, errlen);
        if (rc != 0)
            return rc;
        family_copy(url->family, family);
    } else if (family_eq(family, "tcp") && span_starts(rest, "//")) {
        return url_err(err, errlen, text, "missing robot family (expected FAMILY:tcp://HOST:PORT)");
    } else if (rest.n > 0 && (rest.p[0] == '/' || rest.p[0] == '.')) {
        if (rest.n > PATH_MAX_LEN)
            return url_err(err, errlen, text, "device path is longer than %zu characters",
                           PATH_MAX_LEN);
        url->kind = BW_URL_SERIAL;
        span_copy(url->path, rest);
        family_copy(url->family, family);
    } else if (rest.n == 0) {
        return url_err(err, errlen, text, "nothing after \"%.*s:\" (expected " FORMS ")",
                       (int)family.n, family.p);
    } else {
        return url_err(err, errlen, text,
                       "a device path starts with / or . (expected " FORMS ")");
    }

    if (q) {
        rc = parse_query((span_t){ q + 1, strlen(q + 1) }, url, text, err, errlen);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static const struct {
    const char *name, *family, *model;
} aliases[] = {
    { "create2", "create", "create2" },
};

bool bw_family_alias(const char *name, const char **family, const char **model)
{
    for (size_t i = 0; name && i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].name) == 0) {
            *family = aliases[i].family;
            *model = aliases[i].model;
            return true;
        }
    return false;
}

/* A family alias in the URL: its family, and its model as a parameter. */
static int resolve_alias(bw_url_t *url, const char *text, char *err, size_t errlen)
{
    const char *family, *model;
    if (!bw_family_alias(url->family, &family, &model))
        return 0;
    const char *given = bw_url_param(url, "model");
    if (given && strcmp(given, model) != 0)
        return url_err(err, errlen, text, "%s is the %s family's model %s: model=%s says otherwise",
                       url->family, family, model, given);
    if (!given) {
        if (url->nparams == BW_URL_MAX_PARAMS)
            return url_err(err, errlen, text, "more than %d query parameters (%s adds model=%s)",
                           BW_URL_MAX_PARAMS - 1, url->family, model);
        snprintf(url->params[url->nparams].key, sizeof url->params[0].key, "model");
        snprintf(url->params[url->nparams].value, sizeof url->params[0].value, "%s", model);
        url->nparams++;
    }
    snprintf(url->family, sizeof url->family, "%s", family);
    return 0;
}

int bw_url_parse(const char *text, bw_url_t *url, char *err, size_t errlen)
{
    if (url)
        memset(url, 0, sizeof *url);
    if (!text || !url) {
        if (err && errlen)
            snprintf(err, errlen, "no robot URL given");
        return BW_EINVAL;
    }
    int rc = parse_url(text, url, err, errlen);
    if (rc == 0)
        rc = resolve_alias(url, text, err, errlen);
    if (rc != 0)
        memset(url, 0, sizeof *url); /* no half-parsed URL for a caller that ignores rc */
    return rc;
}

const char *bw_url_param(const bw_url_t *url, const char *key)
{
    if (!url || !key)
        return NULL;
    size_t n = url->nparams < BW_URL_MAX_PARAMS ? url->nparams : BW_URL_MAX_PARAMS;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(url->params[i].key, key) == 0)
            return url->params[i].value;
    }
    return NULL;
}
