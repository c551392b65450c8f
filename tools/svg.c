/* A picture of a world and of paths through it, as SVG. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "svg.h"

#define PX 100.0 /* pixels per metre */
#define MARGIN 20.0

typedef struct {
    double x0, y1; /* world corner drawn at the top left */
} view_t;

static double sx(const view_t *v, double x) { return MARGIN + (x - v->x0) * PX; }
static double sy(const view_t *v, double y) { return MARGIN + (v->y1 - y) * PX; }

static void path(FILE *f, const view_t *v, const bw_pose_t *p, size_t n, const char *style)
{
    if (n < 2)
        return;
    fprintf(f, "<polyline fill=\"none\" %s points=\"", style);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%.1f,%.1f ", sx(v, p[i].x), sy(v, p[i].y));
    fprintf(f, "\"/>\n");
}

int cli_svg_write(const char *file, const bw_world_t *w, const cli_svg_path_t *paths,
                  size_t npaths, const char *title, char *err, size_t errlen)
{
    FILE *f = fopen(file, "w");
    if (!f) {
        snprintf(err, errlen, "cannot create %s: %s", file, strerror(errno));
        return -1;
    }
    view_t v = { w->min_x, w->max_y };
    double width = (w->max_x - w->min_x) * PX + 2 * MARGIN;
    double height = (w->max_y - w->min_y) * PX + 2 * MARGIN + 40;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"13\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
    for (size_t i = 0; i < w->ndrops; i++) {
        const bw_polygon_t *d = &w->drops[i];
        fprintf(f, "<polygon fill=\"#f3c98b\" stroke=\"#c07a10\" stroke-dasharray=\"4 3\" points=\"");
        for (unsigned k = 0; k < d->n; k++)
            fprintf(f, "%.1f,%.1f ", sx(&v, d->v[k].x), sy(&v, d->v[k].y));
        fprintf(f, "\"/>\n");
        double cx = 0, cy = 0;
        for (unsigned k = 0; k < d->n; k++) {
            cx += d->v[k].x / d->n;
            cy += d->v[k].y / d->n;
        }
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#8a5200\">drop-off</text>\n",
                sx(&v, cx), sy(&v, cy) + 4);
    }
    for (size_t i = 0; i < w->nwalls; i++)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
                   "stroke-width=\"3\" stroke-linecap=\"round\"/>\n",
                sx(&v, w->walls[i].a.x), sy(&v, w->walls[i].a.y), sx(&v, w->walls[i].b.x),
                sy(&v, w->walls[i].b.y));
    if (w->has_dock) {
        double c = cos(w->dock.theta), s = sin(w->dock.theta);
        fprintf(f, "<polygon fill=\"#4a4\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
                sx(&v, w->dock.x + 0.12 * c), sy(&v, w->dock.y + 0.12 * s),
                sx(&v, w->dock.x - 0.08 * s), sy(&v, w->dock.y + 0.08 * c),
                sx(&v, w->dock.x + 0.08 * s), sy(&v, w->dock.y - 0.08 * c));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#2a7a2a\">dock</text>\n",
                sx(&v, w->dock.x + 0.3 * c), sy(&v, w->dock.y + 0.3 * s) - 12);
    }
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"#999\"/>\n"
               "<text x=\"%.1f\" y=\"%.1f\" fill=\"#666\">start</text>\n",
            sx(&v, w->start.x), sy(&v, w->start.y), 0.177 * PX, sx(&v, w->start.x) - 14,
            sy(&v, w->start.y) + 0.177 * PX + 14);
    for (size_t i = 0; i < npaths; i++)
        path(f, &v, paths[i].poses, paths[i].n, paths[i].style);
    double ly = (w->max_y - w->min_y) * PX + 2 * MARGIN + 15;
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", MARGIN, ly, title);
    double lx = MARGIN;
    for (size_t i = 0; i < npaths; i++) {
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" %s/>\n", lx, ly + 15,
                lx + 25, ly + 15, paths[i].style);
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", lx + 30, ly + 19, paths[i].label);
        lx += 40 + 8.0 * (double)strlen(paths[i].label);
    }
    fprintf(f, "</svg>\n");
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", file, strerror(errno));
        return -1;
    }
    return 0;
}
