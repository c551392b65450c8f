/* A URL's parameters (base.h): each one its kind of URL and its family
 * take, and numbers within their ranges; a typo is an error, not a default
 * silently used. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base_internal.h"

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* A number parameter within [lo, hi] (whole if asked): 1 with *out set, 0
 * when absent, BW_EINVAL with the reason in err. */
int bw_base_number_param(const bw_base_t *b, const char *key, double lo, double hi, bool whole,
                         double *out, char *err, size_t errlen)
{
    const char *text = bw_url_param(&b->url, key);
    if (!text)
        return 0;
    double v;
    if (parse_double(text, &v) < 0 || v < lo || v > hi || (whole && v != floor(v))) {
        snprintf(err, errlen, "%s=%s: expected %s in [%g, %g]", key, text,
                 whole ? "a whole number" : "a number", lo, hi);
        return BW_EINVAL;
    }
    *out = v;
    return 1;
}

/* Every parameter of the URL is one its kind and family take: a typo is an
 * error, not a default silently used. */
int bw_base_check_params(const bw_base_t *b, char *err, size_t errlen)
{
    static const char *const serial[] = { "baud", NULL };
    static const char *const sim[] = { "world", "noise", "seed", "ber", "drop", "insert", "fleet",
                                       "start", "baud", "battery", NULL };
    static const char *const none[] = { NULL };
    const char *const *kind = b->url.kind == BW_URL_SERIAL ? serial
                              : b->url.kind == BW_URL_SIM  ? sim
                                                           : none;
    const char *const *family = b->ops->params ? b->ops->params : none;
    for (size_t i = 0; i < b->url.nparams; i++) {
        const char *key = b->url.params[i].key;
        bool known = false;
        for (const char *const *k = kind; *k && !known; k++)
            known = strcmp(*k, key) == 0;
        for (const char *const *k = family; *k && !known; k++)
            known = strcmp(*k, key) == 0;
        if (known)
            continue;
        int n = snprintf(err, errlen, "unknown parameter \"%s\" (this URL takes:", key);
        const char *const *lists[] = { kind, family };
        bool any = false;
        for (size_t l = 0; l < 2; l++)
            for (const char *const *k = lists[l]; *k && n > 0 && (size_t)n < errlen; k++, any = true)
                n += snprintf(err + n, errlen - (size_t)n, "%s %s", any ? "," : "", *k);
        if (n > 0 && (size_t)n < errlen)
            snprintf(err + n, errlen - (size_t)n, "%s)", any ? "" : " none");
        return BW_EINVAL;
    }
    return 0;
}
