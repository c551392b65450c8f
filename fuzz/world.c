/* libFuzzer harness for the world text format. A parse either succeeds with
 * a world whose every number is finite and whose counts are in bounds, or
 * fails with a "line N: ..." message and leaves the world as it was. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "botwire/sim.h"
#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool finite2(bw_vec2_t v) { return isfinite(v.x) && isfinite(v.y); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bw_world_t w, before;
    char err[128];
    bw_world_default(&w);
    before = w;
    err[0] = 0;
    int rc = bw_world_parse(&w, (const char *)data, size, err, sizeof err);
    if (rc < 0) {
        CHECK(rc == BW_EINVAL);
        CHECK(strncmp(err, "line ", 5) == 0);
        CHECK(memcmp(&w, &before, sizeof w) == 0);
        return 0;
    }
    CHECK(rc == 0);
    CHECK(w.nwalls <= BW_WORLD_MAX_WALLS && w.ndrops <= BW_WORLD_MAX_DROPS);
    for (size_t i = 0; i < w.nwalls; i++)
        CHECK(finite2(w.walls[i].a) && finite2(w.walls[i].b));
    for (size_t i = 0; i < w.ndrops; i++) {
        CHECK(w.drops[i].n >= 3 && w.drops[i].n <= BW_WORLD_MAX_POLY);
        for (unsigned k = 0; k < w.drops[i].n; k++)
            CHECK(finite2(w.drops[i].v[k]));
    }
    CHECK(isfinite(w.start.theta) && w.ndocks <= BW_WORLD_MAX_DOCKS);
    for (size_t i = 0; i < w.ndocks; i++)
        CHECK(isfinite(w.docks[i].pose.theta) && w.docks[i].family[BW_WORLD_NAME_LEN - 1] == 0);
    /* Whatever the world, the queries stay finite. */
    double r = bw_world_raycast(&w, (bw_vec2_t){ w.start.x, w.start.y }, w.start.theta, 10.0);
    CHECK(r >= 0 && r <= 10.0);
    CHECK(!isnan(bw_world_clearance(&w, (bw_vec2_t){ 0.5, 0.5 }, NULL)));
    return 0;
}
