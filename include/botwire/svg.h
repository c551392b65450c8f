/* SVG pictures of worlds and paths, for `botwire demo`. */
#ifndef BOTWIRE_SVG_H
#define BOTWIRE_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "botwire/sim.h"

typedef struct {
    const bw_pose_t *poses;
    size_t n;
    const char *style; /* SVG attributes: stroke, dashes */
    const char *colour; /* of its arrows and end mark */
    const char *label;
} bw_svg_path_t;

/* Draws the world (a metre grid with its scale, walls, drop-offs, the dock,
 * labels) and the paths, each with arrows along the way and its end marked,
 * 100 px per metre, with a title and a caption under it (lines split at
 * '\n'); with inset_label (NULL: none), a close-up of the end of the first
 * path beside the room, where centimetres show. -1 with a message in err if
 * the file cannot be written. */
int bw_svg_write(const char *file, const bw_world_t *w, const bw_svg_path_t *paths,
                  size_t npaths, const char *title, const char *caption, const char *inset_label,
                  char *err, size_t errlen);

/* Marks (sonar pings, say). */
typedef struct {
    const bw_vec2_t *p;
    size_t n;
    const char *colour;
} bw_svg_points_t;

/* One panel: a world, its paths and marks, a title above and a note (lines
 * split at '\n') under it. */
typedef struct {
    const bw_world_t *world;
    const bw_svg_path_t *paths;
    size_t npaths;
    const bw_svg_points_t *points;
    size_t npoints;
    const char *title;
    const char *note;
    const char *end_label; /* written by the end of the first path (NULL: none) */
} bw_svg_panel_t;

/* Panels in a grid of cols columns, each world scaled to fit (metres on
 * both axes), under a title and a legend (the first panel's path styles,
 * the start and end marks, a scale bar) and above a caption. -1 with a message in err if the file cannot be
 * written. */
int bw_svg_write_panels(const char *file, const bw_svg_panel_t *panels, size_t n, unsigned cols,
                         const char *title, const char *caption, char *err, size_t errlen);

#endif
