/* A picture of a world and of paths through it, as SVG. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "botwire/svg.h"

#define PX 100.0 /* pixels per metre */
#define MARGIN 20.0

typedef struct {
    double x0, y1; /* world corner drawn at the top left */
    double px;     /* pixels per metre */
    double ox, oy; /* where that corner is drawn */
} view_t;

static double sx(const view_t *v, double x) { return v->ox + (x - v->x0) * v->px; }
static double sy(const view_t *v, double y) { return v->oy + (v->y1 - y) * v->px; }

#define ARROW_EVERY 0.6 /* m of path between arrows */

/* A path, with arrows along it every ARROW_EVERY metres pointing the way it
 * goes, and its end marked. */
static void path(FILE *f, const view_t *v, const bw_svg_path_t *pa)
{
    const bw_pose_t *p = pa->poses;
    size_t n = pa->n;
    if (n < 2)
        return;
    fprintf(f, "<polyline fill=\"none\" %s points=\"", pa->style);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%.1f,%.1f ", sx(v, p[i].x), sy(v, p[i].y));
    fprintf(f, "\"/>\n");
    double along = 0, next = ARROW_EVERY / 2;
    for (size_t i = 1; i < n; i++) {
        double d = hypot(p[i].x - p[i - 1].x, p[i].y - p[i - 1].y);
        along += d * v->px / PX;
        if (along < next || d < 1e-6)
            continue;
        next = along + ARROW_EVERY;
        double a = atan2(p[i].y - p[i - 1].y, p[i].x - p[i - 1].x);
        double x = sx(v, p[i].x), y = sy(v, p[i].y), c = cos(a), s = sin(a);
        /* Screen y grows downwards. */
        fprintf(f, "<polygon fill=\"%s\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n", pa->colour,
                x + 7 * c, y - 7 * s, x - 5 * c - 4 * s, y + 5 * s - 4 * c, x - 5 * c + 4 * s,
                y + 5 * s + 4 * c);
    }
    double ex = sx(v, p[n - 1].x), ey = sy(v, p[n - 1].y);
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"white\" stroke=\"%s\" "
               "stroke-width=\"2\"/>\n",
            ex, ey, pa->colour);
}

/* Lines every metre (every 5 or 10 m on a large world), numbered along the
 * bottom and the left side. */
static void grid(FILE *f, const view_t *v, const bw_world_t *w)
{
    double step = v->px >= 40 ? 1.0 : v->px >= 8 ? 5.0 : 10.0;
    for (double x = ceil(w->min_x / step) * step; x <= w->max_x + 1e-9; x += step) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
                sx(v, x), sy(v, w->min_y), sx(v, x), sy(v, w->max_y));
        /* The last number of each axis says the unit. */
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#999\" "
                   "font-size=\"11\">%g%s</text>\n",
                sx(v, x), sy(v, w->min_y) + 14, x, x + step > w->max_x + 1e-9 ? " m" : "");
    }
    for (double y = ceil(w->min_y / step) * step; y <= w->max_y + 1e-9; y += step) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
                sx(v, w->min_x), sy(v, y), sx(v, w->max_x), sy(v, y));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#999\" "
                   "font-size=\"11\">%g%s</text>\n",
                sx(v, w->min_x) - 5, sy(v, y) + 4, y, y + step > w->max_y + 1e-9 ? " m" : "");
    }
}

#define INSET 220.0     /* px, the side of the close-up */
#define INSET_SPAN 0.06 /* m shown across it */

/* The end of the first path, close up: where each path ended, centimetres
 * apart when the whole room shows them on top of each other. */
static void inset(FILE *f, double left, const bw_svg_path_t *paths, size_t npaths,
                  const char *label)
{
    const bw_pose_t *end = &paths[0].poses[paths[0].n - 1];
    view_t iv = { end->x - INSET_SPAN / 2, end->y + INSET_SPAN / 2, INSET / INSET_SPAN, left,
                  MARGIN + 20 };
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">%s</text>\n", left, MARGIN + 12,
            label);
    fprintf(f, "<clipPath id=\"inset\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
               "height=\"%.0f\"/></clipPath>\n<g clip-path=\"url(#inset)\">\n",
            iv.ox, iv.oy, INSET, INSET);
    for (int k = 1; k < 6; k++) /* a centimetre grid */
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
                iv.ox + k * INSET / 6, iv.oy, iv.ox + k * INSET / 6, iv.oy + INSET, iv.ox,
                iv.oy + k * INSET / 6, iv.ox + INSET, iv.oy + k * INSET / 6);
    for (size_t i = 0; i < npaths; i++)
        path(f, &iv, &paths[i]);
    fprintf(f, "</g>\n<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
               "stroke=\"#999\"/>\n",
            iv.ox, iv.oy, INSET, INSET);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
               "stroke-width=\"3\"/><text x=\"%.1f\" y=\"%.1f\">1 cm</text>\n",
            iv.ox, iv.oy + INSET + 15, iv.ox + 0.01 * iv.px, iv.oy + INSET + 15,
            iv.ox + 0.01 * iv.px + 6, iv.oy + INSET + 19);
}

static void room(FILE *f, const view_t *v, const bw_world_t *w)
{
    grid(f, v, w);
    for (size_t i = 0; i < w->ndrops; i++) {
        const bw_polygon_t *d = &w->drops[i];
        fprintf(f, "<polygon fill=\"#f3c98b\" stroke=\"#c07a10\" stroke-dasharray=\"4 3\" points=\"");
        for (unsigned k = 0; k < d->n; k++)
            fprintf(f, "%.1f,%.1f ", sx(v, d->v[k].x), sy(v, d->v[k].y));
        fprintf(f, "\"/>\n");
    }
    for (size_t i = 0; i < w->nwalls; i++)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
                   "stroke-width=\"3\" stroke-linecap=\"round\"/>\n",
                sx(v, w->walls[i].a.x), sy(v, w->walls[i].a.y), sx(v, w->walls[i].b.x),
                sy(v, w->walls[i].b.y));
    for (size_t i = 0; i < w->ndocks; i++) {
        const bw_pose_t *d = &w->docks[i].pose;
        double c = cos(d->theta), s = sin(d->theta);
        fprintf(f, "<polygon fill=\"#4a4\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
                sx(v, d->x + 0.12 * c), sy(v, d->y + 0.12 * s), sx(v, d->x - 0.08 * s),
                sy(v, d->y + 0.08 * c), sx(v, d->x + 0.08 * s), sy(v, d->y - 0.08 * c));
    }
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"#999\"/>\n",
            sx(v, w->start.x), sy(v, w->start.y), 0.177 * v->px);
}

/* Text over whatever is drawn under it: a white halo keeps it readable where
 * a path crosses. */
#define HALO "stroke=\"white\" stroke-width=\"4\" stroke-linejoin=\"round\" paint-order=\"stroke\""

/* The room's labels, drawn after the paths so no path covers them. */
static void room_labels(FILE *f, const view_t *v, const bw_world_t *w)
{
    for (size_t i = 0; i < w->ndrops; i++) {
        const bw_polygon_t *d = &w->drops[i];
        double cx = 0, cy = 0;
        for (unsigned k = 0; k < d->n; k++) {
            cx += d->v[k].x / d->n;
            cy += d->v[k].y / d->n;
        }
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#8a5200\" " HALO
                   ">drop-off</text>\n",
                sx(v, cx), sy(v, cy) + 4);
    }
    for (size_t i = 0; i < w->ndocks; i++) {
        /* Beside the dock, on the side away from the wall it stands at. */
        const bw_pose_t *d = &w->docks[i].pose;
        double c = cos(d->theta), s = sin(d->theta);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#2a7a2a\" " HALO
                   ">dock</text>\n",
                sx(v, d->x + 0.3 * c), sy(v, d->y + 0.3 * s) - 12);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#666\" " HALO ">start</text>\n",
            sx(v, w->start.x) - 14, sy(v, w->start.y) + 0.177 * v->px + 14);
    for (size_t i = 0; i < w->nlabels; i++)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#333\" "
                   "font-weight=\"bold\" " HALO ">%s</text>\n",
                sx(v, w->labels[i].at.x), sy(v, w->labels[i].at.y) + 5, w->labels[i].text);
}

int bw_svg_write(const char *file, const bw_world_t *w, const bw_svg_path_t *paths,
                  size_t npaths, const char *title, const char *caption, const char *inset_label,
                  char *err, size_t errlen)
{
    FILE *f = fopen(file, "w");
    if (!f) {
        snprintf(err, errlen, "cannot create %s: %s", file, strerror(errno));
        return -1;
    }
    view_t v = { w->min_x, w->max_y, PX, MARGIN, MARGIN };
    bool close_up = inset_label && npaths > 0 && paths[0].n > 0;
    double room_w = (w->max_x - w->min_x) * PX + 2 * MARGIN;
    double width = room_w + (close_up ? INSET + 3 * MARGIN + 40 : 0);
    double height = fmax((w->max_y - w->min_y) * PX + 2 * MARGIN, close_up ? INSET + 80 : 0) + 95;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"13\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
    room(f, &v, w);
    for (size_t i = 0; i < npaths; i++)
        path(f, &v, &paths[i]);
    room_labels(f, &v, w);
    if (close_up)
        inset(f, room_w + MARGIN, paths, npaths, inset_label);
    double ly = height - 95 + 22;
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">%s</text>\n", MARGIN, ly, title);
    double lx = MARGIN;
    for (size_t i = 0; i < npaths; i++) {
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" %s/>\n", lx, ly + 15,
                lx + 25, ly + 15, paths[i].style);
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", lx + 30, ly + 19, paths[i].label);
        lx += 40 + 7.5 * (double)strlen(paths[i].label);
    }
    /* The scale: a metre, and what the marks mean. */
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#000\" "
               "stroke-width=\"3\"/><text x=\"%.0f\" y=\"%.0f\">1 m</text>\n",
            lx + 10, ly + 15, lx + 10 + PX, ly + 15, lx + 10 + PX + 6, ly + 19);
    /* The caption, a line per '\n'. */
    double cy = ly + 40;
    for (const char *c = caption; *c; cy += 17) {
        size_t n = strcspn(c, "\n");
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\">%.*s</text>\n", MARGIN, cy, (int)n, c);
        c += n + (c[n] == '\n');
    }
    fprintf(f, "</svg>\n");
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", file, strerror(errno));
        return -1;
    }
    return 0;
}

#define PANEL_W 420.0 /* px: the most a panel's world takes */
#define PANEL_H 320.0

int bw_svg_write_panels(const char *file, const bw_svg_panel_t *panels, size_t n, unsigned cols,
                         const char *title, const char *caption, char *err, size_t errlen)
{
    FILE *f = fopen(file, "w");
    if (!f) {
        snprintf(err, errlen, "cannot create %s: %s", file, strerror(errno));
        return -1;
    }
    if (cols == 0)
        cols = 1;
    unsigned rows = (unsigned)((n + cols - 1) / cols);
    /* Room under each panel for the longest note. */
    double note_lines = 1;
    for (size_t i = 0; i < n; i++) {
        double l = 1;
        for (const char *c = panels[i].note ? panels[i].note : ""; *c; c++)
            l += *c == '\n';
        note_lines = fmax(note_lines, l);
    }
    double cell_w = PANEL_W + 2 * MARGIN + 20, cell_h = PANEL_H + 2 * MARGIN + 28 + 16 * note_lines;
    double lines = 1;
    for (const char *c = caption; *c; c++)
        lines += *c == '\n';
    const double head = 66; /* the title and the legend */
    double width = cols * cell_w + MARGIN, height = rows * cell_h + head + 10 + 17 * lines;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"13\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\" font-size=\"16\">%s</text>\n",
            width, height, width, height, MARGIN, MARGIN + 8, title);
    /* The legend: each line as it is drawn, the marks, and a metre at the
     * first panel's scale. */
    double lx = MARGIN, ly = MARGIN + 30;
    if (n > 0) {
        const bw_svg_panel_t *p = &panels[0];
        for (size_t k = 0; k < p->npaths; k++) {
            fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" %s/>\n", lx, ly,
                    lx + 36, ly, p->paths[k].style);
            fprintf(f, "<polygon fill=\"%s\" points=\"%.0f,%.0f %.0f,%.0f %.0f,%.0f\"/>\n",
                    p->paths[k].colour, lx + 25, ly, lx + 13, ly - 4, lx + 13, ly + 4);
            fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", lx + 42, ly + 4,
                    p->paths[k].label);
            lx += 60 + 7.5 * (double)strlen(p->paths[k].label);
        }
        fprintf(f, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"8\" fill=\"none\" stroke=\"#999\"/>"
                   "<text x=\"%.0f\" y=\"%.0f\">start</text>\n",
                lx + 8, ly, lx + 22, ly + 4);
        lx += 70;
        const char *ec = p->npaths ? p->paths[0].colour : "#000";
        fprintf(f, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"5\" fill=\"white\" stroke=\"%s\" "
                   "stroke-width=\"2\"/><text x=\"%.0f\" y=\"%.0f\">end; the figure beside it: "
                   "how far the odometry ended from the truth</text>\n",
                lx + 5, ly, ec, lx + 16, ly + 4);
        lx += 16 + 7.2 * 60 + 30;
        const bw_world_t *w = p->world;
        double px = fmin(PANEL_W / (w->max_x - w->min_x), PANEL_H / (w->max_y - w->min_y));
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#000\" "
                   "stroke-width=\"3\"/><line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
                   "stroke=\"#000\"/><line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
                   "stroke=\"#000\"/><text x=\"%.0f\" y=\"%.0f\">1 m</text>\n",
                lx, ly, lx + px, ly, lx, ly - 5, lx, ly + 5, lx + px, ly - 5, lx + px, ly + 5,
                lx + px + 6, ly + 4);
    }
    for (size_t i = 0; i < n; i++) {
        const bw_svg_panel_t *p = &panels[i];
        const bw_world_t *w = p->world;
        double left = MARGIN + (double)(i % cols) * cell_w,
               top = head + (double)(i / cols) * cell_h;
        double px = fmin(PANEL_W / (w->max_x - w->min_x), PANEL_H / (w->max_y - w->min_y));
        view_t v = { w->min_x, w->max_y, px, left + 20, top + 24 };
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">%s</text>\n", left,
                top + 12, p->title);
        room(f, &v, w);
        for (size_t k = 0; k < p->npoints; k++)
            for (size_t j = 0; j < p->points[k].n; j++)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.5\" fill=\"%s\"/>\n",
                        sx(&v, p->points[k].p[j].x), sy(&v, p->points[k].p[j].y),
                        p->points[k].colour);
        for (size_t k = 0; k < p->npaths; k++)
            path(f, &v, &p->paths[k]);
        room_labels(f, &v, w);
        if (p->end_label && p->npaths > 0 && p->paths[0].n > 0) {
            /* Beside the end, on the side with more room. */
            const bw_pose_t *e = &p->paths[0].poses[p->paths[0].n - 1];
            bool left_side = e->x > (w->min_x + w->max_x) / 2;
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-weight=\"bold\" "
                       "fill=\"#333\" " HALO ">%s</text>\n",
                    sx(&v, e->x) + (left_side ? -10 : 10), sy(&v, e->y) - 8,
                    left_side ? "end" : "start", p->end_label);
        }
        double ny = v.oy + (w->max_y - w->min_y) * px + 32;
        for (const char *c = p->note ? p->note : ""; *c; ny += 16) {
            size_t m = strcspn(c, "\n");
            fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#333\">%.*s</text>\n", left, ny,
                    (int)m, c);
            c += m + (c[m] == '\n');
        }
    }
    double cy = rows * cell_h + head + 10;
    for (const char *c = caption; *c; cy += 17) {
        size_t m = strcspn(c, "\n");
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\">%.*s</text>\n", MARGIN, cy,
                (int)m, c);
        c += m + (c[m] == '\n');
    }
    fprintf(f, "</svg>\n");
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", file, strerror(errno));
        return -1;
    }
    return 0;
}
