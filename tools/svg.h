/* SVG pictures of worlds and paths, for `botwire demo`. */
#ifndef BOTWIRE_TOOLS_SVG_H
#define BOTWIRE_TOOLS_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "botwire/sim.h"

typedef struct {
    const bw_pose_t *poses;
    size_t n;
    const char *style; /* SVG attributes: stroke, dashes */
    const char *label;
} cli_svg_path_t;

/* Draws the world (walls, drops, dock) and the paths, 100 px per metre;
 * -1 with a message in err if the file cannot be written. */
int cli_svg_write(const char *file, const bw_world_t *w, const cli_svg_path_t *paths,
                  size_t npaths, const char *title, char *err, size_t errlen);

#endif
