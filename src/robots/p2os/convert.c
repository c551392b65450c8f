/* P2OS robot models and position arithmetic. */
#include "botwire/p2os.h"

#include <string.h>

static const bw_p2os_sonar_pose_t p2dx_sonar[] = {
    { 69, 136, 90 },     { 114, 119, 50 },    { 148, 78, 30 },     { 166, 27, 10 },
    { 166, -27, -10 },   { 148, -78, -30 },   { 114, -119, -50 },  { 69, -136, -90 },
    { -157, -136, -90 }, { -203, -119, -130 }, { -237, -78, -150 }, { -255, -27, -170 },
    { -255, 27, 170 },   { -237, 78, 150 },   { -203, 119, 130 },  { -157, 136, 90 },
};

/* The PeopleBot carries a second front ring on its upper deck (8..15). */
static const bw_p2os_sonar_pose_t p2pb_sonar[] = {
    { 69, 136, 90 },     { 114, 119, 50 },    { 148, 78, 30 },     { 166, 27, 10 },
    { 166, -27, -10 },   { 148, -78, -30 },   { 114, -119, -50 },  { 69, -136, -90 },
    { -20, 136, 90 },    { 24, 119, 50 },     { 58, 78, 30 },      { 77, 27, 10 },
    { 77, -27, -10 },    { 58, -78, -30 },    { 24, -119, -50 },   { -20, -136, -90 },
    { -157, -136, -90 }, { -203, -119, -130 }, { -237, -78, -150 }, { -255, -27, -170 },
    { -255, 27, 170 },   { -237, 78, 150 },   { -203, 119, 130 },  { -157, 136, 90 },
};

static const bw_p2os_sonar_pose_t p2at_sonar[] = {
    { 147, 136, 90 },    { 193, 119, 50 },    { 227, 79, 30 },     { 245, 27, 10 },
    { 245, -27, -10 },   { 227, -79, -30 },   { 193, -119, -50 },  { 147, -136, -90 },
    { -144, -136, -90 }, { -189, -119, -130 }, { -223, -79, -150 }, { -241, -27, -170 },
    { -241, 27, 170 },   { -223, 79, 150 },   { -189, 119, 130 },  { -144, 136, 90 },
};

#define NPOSES(a) (unsigned)(sizeof a / sizeof a[0])

static const bw_p2os_model_t models[] = {
    { "p2dx", "Pioneer", 0.84, 0.001534, 1.0, 0.268, 0.0056, 0.26, NPOSES(p2dx_sonar), p2dx_sonar, 0, 0 },
    { "p2pb", "Pioneer", 0.424, 0.001534, 1.0, 0.268, 0.0056, 0.26, NPOSES(p2pb_sonar), p2pb_sonar, 5, 5 },
    { "p2at", "Pioneer", 1.32, 0.001534, 1.0, 0.268, 0.0034, 0.40, NPOSES(p2at_sonar), p2at_sonar, 0, 0 },
};

const bw_p2os_model_t *bw_p2os_model(const char *subclass)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].subclass, subclass) == 0)
            return &models[i];
    return NULL;
}

const bw_p2os_model_t *bw_p2os_model_at(unsigned i)
{
    return i < sizeof models / sizeof models[0] ? &models[i] : NULL;
}

int32_t bw_p2os_wrap15_delta(uint16_t cur, uint16_t last)
{
    int32_t d = (int32_t)(cur & 0x7FFFu) - (int32_t)(last & 0x7FFFu);
    /* else: a delta wrapped one way lands beyond the other limit. */
    if (d > 0x1000)
        d -= 0x8000;
    else if (d < -0x1000)
        d += 0x8000;
    return d;
}
