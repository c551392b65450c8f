/* libFuzzer harness for robot URLs: any text parses to a well-formed URL or
 * fails with a message; never a crash or an unterminated field. */
#include <stdlib.h>
#include <string.h>

#include "botwire/port.h"
#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[1024];
    if (size >= sizeof text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    bw_url_t u;
    char err[160] = "";
    int rc = bw_url_parse(text, &u, err, sizeof err);
    if (rc < 0) {
        CHECK(rc == BW_EINVAL && err[0]);
        return 0;
    }
    CHECK(memchr(u.family, 0, sizeof u.family) && u.family[0]);
    CHECK(memchr(u.path, 0, sizeof u.path) && memchr(u.host, 0, sizeof u.host));
    CHECK(u.kind == BW_URL_SERIAL || u.kind == BW_URL_TCP || u.kind == BW_URL_SIM);
    CHECK(u.kind != BW_URL_TCP || (u.port >= 1 && u.port <= 65535 && u.host[0]));
    CHECK(u.nparams <= BW_URL_MAX_PARAMS);
    for (size_t i = 0; i < u.nparams; i++) {
        CHECK(memchr(u.params[i].key, 0, sizeof u.params[i].key));
        CHECK(memchr(u.params[i].value, 0, sizeof u.params[i].value));
        CHECK(bw_url_param(&u, u.params[i].key) != NULL);
    }
    return 0;
}
