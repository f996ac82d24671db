/* timeline.c - draws one recorded process's thread states over time as an SVG picture, for ompcollect --timeline. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "report.h"

#include <inttypes.h>
#include <string.h>

#define SVG_LABEL_WIDTH 120
#define SVG_PLOT_WIDTH 960
#define SVG_ROW_HEIGHT 16
#define SVG_ROW_GAP 4
#define SVG_TOP 48

/* One colour per state, far enough apart to tell waits from work at a glance. */
static const char *const state_colours[OMPC_NSTATES] = {
    "#000000", /* no valid state */
    "#9e9e9e", /* OVHD */
    "#43a047", /* WORK */
    "#fb8c00", /* IBAR */
    "#fdd835", /* EBAR */
    "#e0e0e0", /* IDLE */
    "#1e88e5", /* SERIAL */
    "#8e24aa", /* REDUC */
    "#e53935", /* LKWT */
    "#d81b60", /* CTWT */
    "#6d4c41", /* ODWT */
    "#00acc1", /* ATWT */
};

/* The entity that stands for `c` in XML text and attributes, or NULL when `c` stands for itself. */
static const char *xml_entity(char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    default: return NULL;
    }
}

/* Text escaped for XML character data and attribute values; control characters are dropped. */
static void xml_text(FILE *out, const char *text)
{
    for (; *text; text++) {
        const char *entity = xml_entity(*text);
        if (entity != NULL)
            fputs(entity, out);
        else if ((unsigned char)*text >= 0x20)
            fputc(*text, out);
    }
}

/*
 * One thread's row.  Samples are folded into one column per pixel, each
 * column painted in the state that held it longest, and equal neighbours
 * merged: the file stays small however many state changes there were.
 */
static void svg_thread_row(FILE *out, const struct ompc_thread *thread, const uint64_t *timeline,
                           int row, double ns_per_pixel)
{
    static uint64_t column_ns[SVG_PLOT_WIDTH][OMPC_NSTATES];
    memset(column_ns, 0, sizeof column_ns);
    uint32_t length = atomic_load(&thread->timeline_length);
    if (length > OMPC_TIMELINE_CAP)
        length = OMPC_TIMELINE_CAP;
    uint64_t row_end = atomic_load_explicit(&thread->last_sample_ns, memory_order_relaxed);
    for (uint32_t i = 0; i < length; i++) {
        uint64_t begin = (timeline[i] >> 8) * 1000;
        int state = (int)(timeline[i] & 0xff);
        uint64_t end = i + 1 < length ? (timeline[i + 1] >> 8) * 1000 : row_end;
        if (state >= OMPC_NSTATES || end <= begin)
            continue;
        for (uint64_t t = begin; t < end;) {
            uint64_t column = (uint64_t)(t / ns_per_pixel);
            if (column >= SVG_PLOT_WIDTH)
                break;
            uint64_t column_end = (uint64_t)((column + 1) * ns_per_pixel) + 1;
            uint64_t stop = end < column_end ? end : column_end;
            column_ns[column][state] += stop - t;
            t = stop;
        }
    }
    int y = SVG_TOP + row * (SVG_ROW_HEIGHT + SVG_ROW_GAP);
    fprintf(out, "<text x=\"4\" y=\"%d\" class=\"label\">thread %d%s (tid %ld)%s</text>\n",
            y + SVG_ROW_HEIGHT - 4, row, thread->initial ? "*" : "", (long)thread->tid,
            ompc_thread_is_openmp(thread) ? "" : " not OpenMP");
    int run_state = -1, run_start = 0;
    for (int column = 0; column <= SVG_PLOT_WIDTH; column++) {
        int best = -1;
        uint64_t best_ns = 0;
        if (column < SVG_PLOT_WIDTH)
            for (int state = 0; state < OMPC_NSTATES; state++)
                if (column_ns[column][state] > best_ns) {
                    best = state;
                    best_ns = column_ns[column][state];
                }
        if (best == run_state)
            continue;
        if (run_state >= 0)
            fprintf(out,
                    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
                    "<title>%s %.1f-%.1f ms</title></rect>\n",
                    SVG_LABEL_WIDTH + run_start, y, column - run_start, SVG_ROW_HEIGHT,
                    state_colours[run_state], ompc_state_name(run_state),
                    run_start * ns_per_pixel / 1e6, column * ns_per_pixel / 1e6);
        run_state = best;
        run_start = column;
    }
}

/* Per-thread state over time: rows of coloured spans, a time axis and a legend. */
int ompc_write_timeline(const struct ompc_report *report, FILE *out)
{
    const struct ompc_process *process = report->process;
    int rows = atomic_load(&process->thread_count);
    int axis_y = SVG_TOP + rows * (SVG_ROW_HEIGHT + SVG_ROW_GAP) + 4;
    int legend_y = axis_y + 36;
    int width = SVG_LABEL_WIDTH + SVG_PLOT_WIDTH + 20;
    int height = legend_y + 30;
    double span_ns = report->wall_ns > 0 ? (double)report->wall_ns : 1.0;
    double ns_per_pixel = span_ns / SVG_PLOT_WIDTH;

    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
            "<style>.label { fill: #222222; } .axis { stroke: #444444; stroke-width: 1; }</style>\n"
            "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
            width, height, width, height, width, height);
    fputs("<text x=\"4\" y=\"18\" font-size=\"14\" class=\"label\">ompcollect: ", out);
    xml_text(out, report->program);
    fprintf(out, " (pid %ld", (long)process->pid);
    if (report->rank >= 0)
        fprintf(out, ", rank %d", report->rank);
    fprintf(out, "), thread states over %.3f s%s</text>\n", span_ns / 1e9,
            report->complete ? "" : " (incomplete)");
    fputs("<text x=\"4\" y=\"34\" class=\"label\">Each row is a thread (* initial); each column "
          "shows the state sampled most in its time slice.</text>\n",
          out);

    int truncated = 0;
    for (int i = 0; i < rows; i++) {
        if (report->timelines != NULL && report->timelines[i] != NULL)
            svg_thread_row(out, &process->threads[i], report->timelines[i], i, ns_per_pixel);
        truncated |= atomic_load(&process->threads[i].timeline_truncated) != 0;
    }

    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", SVG_LABEL_WIDTH,
            axis_y, SVG_LABEL_WIDTH + SVG_PLOT_WIDTH, axis_y);
    static const double steps[] = {1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8, 2e8, 5e8, 1e9, 2e9, 5e9, 1e10,
                                   3e10, 6e10, 3e11, 6e11, 3e12};
    double step = steps[sizeof steps / sizeof steps[0] - 1];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (span_ns / steps[i] <= 10) {
            step = steps[i];
            break;
        }
    for (double t = 0; t <= span_ns; t += step) {
        int x = SVG_LABEL_WIDTH + (int)(t / ns_per_pixel);
        fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", x, axis_y,
                x, axis_y + 4);
        if (step >= 1e9)
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"label\">%g s</text>\n",
                    x, axis_y + 16, t / 1e9);
        else
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"label\">%g ms</text>\n",
                    x, axis_y + 16, t / 1e6);
    }
    if (truncated)
        fprintf(out, "<text x=\"4\" y=\"%d\" class=\"label\">(some rows stop early: more than %u "
                     "state changes, or no room left in the record)</text>\n",
                axis_y + 28, OMPC_TIMELINE_CAP);

    fprintf(out, "<g id=\"legend\">\n");
    for (int state = 1; state < OMPC_NSTATES; state++) {
        int x = 4 + (state - 1) * 96;
        fprintf(out,
                "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\" stroke=\"#444444\"/>"
                "<text x=\"%d\" y=\"%d\" class=\"label\">%s</text>\n",
                x, legend_y, state_colours[state], x + 16, legend_y + 10, ompc_state_name(state));
    }
    fputs("</g>\n</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
