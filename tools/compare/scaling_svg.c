/* scaling_svg.c - ompcollect scaling's picture: the POP efficiency factors against the thread count, for the whole run and the longest constructs, one panel each (SVG). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "scaling.h"

#include <math.h>
#include <stdio.h>

/* A panel's size and its plot's margins, in SVG pixels. */
#define PANEL_W 420
#define PANEL_H 270
#define LEFT 48
#define RIGHT 16
#define TOP 34
#define BOTTOM 44
#define COLUMNS 2
#define LEGEND_H 70

/* The lines drawn: global and parallel efficiency, then each factor. */
#define SERIES (2 + OMPC_SCALING_FACTORS)

static const char *const series_names[SERIES] = {"global efficiency", "parallel efficiency", "load balance",
                                                  "synchronisation", "scheduling", "serialisation",
                                                  "MPI load balance", "MPI communication", "computation scalability"};
static const char *const series_colours[SERIES] = {"#000000", "#1f77b4", "#ff7f0e", "#d62728", "#9467bd",
                                                   "#8c564b", "#e377c2", "#17becf", "#2ca02c"};

/* Whether series `s` is drawn: the MPI factors only in an analysis with MPI. */
static int series_shown(const struct ompc_scaling *scaling, int s)
{
    return s < 2 || ompc_scaling_factor_shown(scaling, s - 2);
}

/* The legend's rows of four. */
static int legend_rows(const struct ompc_scaling *scaling)
{
    int shown = 0;
    for (int s = 0; s < SERIES; s++)
        shown += series_shown(scaling, s);
    return (shown + 3) / 4;
}

/* `value` (0 or more) rounded to the nearest pixel; the library's lround would need libm for this alone. */
static int pixel(double value)
{
    return (int)(value + 0.5);
}

/* Text as SVG character data: markup characters escaped, control characters dropped. */
static void svg_text(FILE *out, const char *text)
{
    for (const char *c = text; *c; c++) {
        if (*c == '<')
            fputs("&lt;", out);
        else if (*c == '>')
            fputs("&gt;", out);
        else if (*c == '&')
            fputs("&amp;", out);
        else if ((unsigned char)*c >= 0x20 && *c != 0x7f)
            fputc(*c, out);
    }
}

/* Series `s` of a point, and whether it is known there. */
static int series_value(const struct ompc_scaling_point *p, int s, double *value)
{
    if (s == 0)
        *value = p->global;
    else if (s == 1)
        *value = p->parallel;
    else
        *value = p->factors[s - 2];
    int known = s == 0 || s == 2 + OMPC_SCALING_COMPUTATION ? p->scaled : p->known;
    return known && isfinite(*value);
}

/* The top of the y axis: 1, or above it in steps of 0.25 when a factor passes 1 (superlinear work), at most 2. */
static double y_top(const struct ompc_scaling *scaling, const struct ompc_scaling_row *row)
{
    double top = 1, value;
    for (size_t k = 0; k < scaling->count_count; k++)
        for (int s = 0; s < SERIES; s++)
            if (series_value(&row->points[k], s, &value) && value > top)
                top = value;
    int quarters = (int)(top * 4);
    top = (quarters < top * 4 ? quarters + 1 : quarters) / 4.0;
    return top > 2 ? 2 : top;
}

/* The panel's frame: title, y grid and labels, x labels (a star on oversubscribed counts). */
static void panel_frame(FILE *out, const struct ompc_scaling *scaling, const struct ompc_scaling_row *row, double top,
                        int x0, int y0)
{
    char name[600];
    int w = PANEL_W - LEFT - RIGHT, h = PANEL_H - TOP - BOTTOM;
    fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">", x0 + LEFT, y0 + 20);
    svg_text(out, row->where != NULL ? ompc_merge_place_name(row->where, name, sizeof name) : "the whole run");
    fputs("</text>\n", out);
    for (double y = 0; y <= top + 1e-9; y += 0.25) {
        int py = y0 + TOP + h - (int)pixel(y / top * h);
        fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>\n", x0 + LEFT, py, x0 + LEFT + w, py,
                (y > 1 - 1e-9 && y < 1 + 1e-9) ? "#888888" : "#e0e0e0");
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.2f</text>\n", x0 + LEFT - 4,
                py + 4, y);
    }
    for (size_t k = 0; k < scaling->count_count; k++) {
        int px = x0 + LEFT + (scaling->count_count > 1 ? (int)(k * (size_t)w / (scaling->count_count - 1)) : w / 2);
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d%s</text>\n", px,
                y0 + TOP + h + 16, scaling->counts[k].threads, scaling->counts[k].oversubscribed ? "*" : "");
    }
    fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">threads</text>\n", x0 + LEFT + w / 2,
            y0 + TOP + h + 32);
}

/* One panel: a row's factors against the thread count. */
static void panel(FILE *out, const struct ompc_scaling *scaling, const struct ompc_scaling_row *row, int x0, int y0)
{
    int w = PANEL_W - LEFT - RIGHT, h = PANEL_H - TOP - BOTTOM;
    double top = y_top(scaling, row);
    panel_frame(out, scaling, row, top, x0, y0);
    for (int s = SERIES - 1; s >= 0; s--) {
        int drawn = 0;
        if (!series_shown(scaling, s))
            continue;
        fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%d\"%s points=\"", series_colours[s],
                s == 0 ? 3 : 2, s == SERIES - 1 ? " stroke-dasharray=\"6,3\"" : "");
        for (size_t k = 0; k < scaling->count_count; k++) {
            double value;
            if (!series_value(&row->points[k], s, &value))
                continue;
            value = value > top ? top : value < 0 ? 0 : value;
            int px = x0 + LEFT + (scaling->count_count > 1 ? (int)(k * (size_t)w / (scaling->count_count - 1)) : w / 2);
            fprintf(out, "%s%d,%d", drawn++ ? " " : "", px, y0 + TOP + h - (int)pixel(value / top * h));
        }
        fputs("\"/>\n", out);
    }
}

/* The legend under the panels, and what a star means. */
static void legend(FILE *out, const struct ompc_scaling *scaling, int y0)
{
    for (int s = 0, i = 0; s < SERIES; s++) {
        if (!series_shown(scaling, s))
            continue;
        int x = 20 + (i % 4) * 210, y = y0 + 18 + (i / 4) * 20;
        i++;
        fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%d\"%s/>\n", x, y - 4,
                x + 24, y - 4, series_colours[s], s == 0 ? 3 : 2, s == SERIES - 1 ? " stroke-dasharray=\"6,3\"" : "");
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>\n", x + 30, y, series_names[s]);
    }
    fprintf(out, "<text x=\"20\" y=\"%d\" font-size=\"11\">* more threads than cores (oversubscribed); "
                 "1 = ideal; global = parallel x computation scalability</text>\n",
            y0 + 22 + 20 * legend_rows(scaling));
}

int ompc_scaling_write_svg(FILE *out, const struct ompc_scaling *scaling)
{
    size_t panels = 1 + (scaling->construct_count < OMPC_SCALING_SVG_PANELS - 1 ? scaling->construct_count
                                                                                : OMPC_SCALING_SVG_PANELS - 1);
    /* The legend is two rows of four without MPI, three with its two factors. */
    int rows = (int)((panels + COLUMNS - 1) / COLUMNS), width = PANEL_W * COLUMNS;
    int height = rows * PANEL_H + LEGEND_H + 20 * (legend_rows(scaling) - 2);
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                 "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
            width, height, width, height);
    for (size_t i = 0; i < panels; i++) {
        const struct ompc_scaling_row *row = i == 0 ? &scaling->whole : &scaling->constructs[i - 1];
        panel(out, scaling, row, (int)(i % COLUMNS) * PANEL_W, (int)(i / COLUMNS) * PANEL_H);
    }
    legend(out, scaling, rows * PANEL_H);
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
