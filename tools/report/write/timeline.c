/* timeline.c - draws one recorded process's thread states over time as an SVG picture, for ompcollect --timeline. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "bounds.h"
#include "locations.h"
#include "omp_collector_api.h"
#include "report.h"
#include "sort.h"
#include "spans.h"
#include "summary.h"
#include "symbolize.h"
#include "utf8.h"
#include "writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SVG_LABEL_WIDTH 120
#define SVG_PLOT_WIDTH 960
#define SVG_MIN_WIDTH 200
#define SVG_MAX_WIDTH 20000
#define SVG_ROW_HEIGHT 16
#define SVG_ROW_GAP 4
#define SVG_TOP 48
#define SVG_MARK_HEIGHT 5
#define SVG_STRIP_HEIGHT 5

/*
 * One colour per state from the qualitative, colour-blind-safe sets of
 * Okabe and Ito and of Paul Tol, chosen so that no colour lies near the
 * sRGB line between two others or between one and the white background:
 * a column that a viewer's scaling blends from two states never takes the
 * colour of a third (t/ompcollect-trace.sh checks the distances).  State 0
 * (no valid state) is left unpainted.
 */
static const char *const state_colours[OMPC_NSTATES] = {
    NULL,      /* no valid state */
    "#000000", /* OVHD */
    "#009e73", /* WORK */
    "#ee7733", /* IBAR */
    "#f0e442", /* EBAR */
    "#ffaabb", /* IDLE */
    "#0077bb", /* SERIAL */
    "#332288", /* REDUC */
    "#aa3377", /* LKWT */
    "#aaaa00", /* CTWT */
    "#117733", /* ODWT */
    "#33bbee", /* ATWT */
};

/* Whether a state is a wait, which gets a mark even where it holds a column only briefly. */
static int is_wait(int state)
{
    /* IBAR, EBAR, LKWT, CTWT, ODWT, ATWT as numbered in omp_collector_api.h. */
    return state == 3 || state == 4 || (state >= 8 && state <= 11);
}

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

/* Text escaped for XML character data and attribute values; control characters are dropped, and bytes
 * that are not UTF-8 (the SVG says it is) become U+FFFD, as do U+FFFE and U+FFFF, which XML forbids. */
static void xml_text(FILE *out, const char *text)
{
    for (size_t left = strlen(text); left > 0;) {
        int step = ompc_utf8_char(text, left);
        size_t size = step > 0 ? (size_t)step : (size_t)-step;
        const char *entity = step == 1 ? xml_entity(*text) : NULL;
        if (step < 0 || (step == 3 && memcmp(text, "\xEF\xBF", 2) == 0 && (unsigned char)text[2] >= 0xBE))
            fputs(OMPC_UTF8_REPLACEMENT, out);
        else if (entity != NULL)
            fputs(entity, out);
        else if ((unsigned char)*text >= 0x20)
            fwrite(text, 1, size, out);
        text += size;
        left -= size;
    }
}

/* Names an instance for a tooltip (see report.h). */
static void region_label(const struct ompc_regions *regions, long index, const char *where, char *text, size_t size)
{
    if (index == -2) {
        snprintf(text, size, "region unknown (the event log was full)");
        return;
    }
    if (index < 0 || index >= regions->count) {
        snprintf(text, size, "serial part");
        return;
    }
    const struct ompc_region_instance *region = &regions->items[index];
    if (where != NULL && region->id != 0)
        snprintf(text, size, "parallel region at %s (id %" PRIu64 "), instance %ld of %ld", where, region->id,
                 region->instance, region->of);
    else if (where != NULL)
        snprintf(text, size, "parallel region at %s, instance %ld of %ld", where, region->instance, region->of);
    else if (region->id != 0)
        snprintf(text, size, "parallel region %ld of %ld (id %" PRIu64 ")", region->instance, region->of,
                 region->id);
    else
        snprintf(text, size, "parallel region %ld of %ld", region->instance, region->of);
}

/* Code addresses named once for every tooltip that shows them. */
struct label_cache {
    struct ompc_symbolizer *symbolizer; /* NULL: labels stay raw addresses */
    struct {
        uint64_t address;
        char *label;
    } *entries;
    size_t count, capacity;
};

/* The drawing's geometry: the time window and how it maps onto pixel columns. */
struct plot {
    int width;
    uint64_t from_ns, to_ns;
    double ns_per_pixel;
    struct ompc_regions regions;
    long *column_region;       /* per column: the instance that holds it whole, -1 serial, -2 unknown, -3 several */
    struct label_cache *labels;
};

/* "solve solver.c:15" for a recorded code address, NULL for 0 or without memory; the cache owns it. */
static const char *code_label(struct label_cache *cache, uint64_t address)
{
    if (cache == NULL || address == 0)
        return NULL;
    for (size_t i = 0; i < cache->count; i++)
        if (cache->entries[i].address == address)
            return cache->entries[i].label;
    if (cache->count == cache->capacity) {
        size_t capacity = cache->capacity ? 2 * cache->capacity : 16;
        void *grown = realloc(cache->entries, capacity * sizeof *cache->entries);
        if (grown == NULL)
            return NULL;
        cache->entries = grown;
        cache->capacity = capacity;
    }
    struct ompc_location where;
    char buffer[512];
    ompc_symbolize(cache->symbolizer, address, OMPC_ADDRESS_CODEPTR, &where);
    char *label = strdup(ompc_location_label(&where, address, buffer, sizeof buffer));
    if (label == NULL)
        return NULL;
    cache->entries[cache->count].address = address;
    cache->entries[cache->count].label = label;
    return cache->entries[cache->count++].label;
}

/* A cache over the process's module map, when any thread recorded code addresses; NULL otherwise. */
static struct label_cache *labels_new(const struct ompc_report *report, int rows, int regions_from_events)
{
    int any = regions_from_events;
    for (int i = 0; i < rows && !any; i++)
        any = report->process->threads[i].timeline_where != NULL;
    struct label_cache *cache = any ? calloc(1, sizeof *cache) : NULL;
    if (cache == NULL)
        return NULL;
    cache->symbolizer = ompc_model_symbolizer(report->process, NULL);
    return cache;
}

/* Frees the cache, its labels and its symbolizer. */
static void labels_free(struct label_cache *cache)
{
    if (cache == NULL)
        return;
    for (size_t i = 0; i < cache->count; i++)
        free(cache->entries[i].label);
    free(cache->entries);
    if (cache->symbolizer != NULL)
        ompc_symbolizer_free(cache->symbolizer);
    free(cache);
}


/*
 * Writes what a run of columns from `begin` to `end` lies in: the region
 * instance `key` (ompc_region_at's numbering), or with -3 the instances
 * it overlaps, counted.
 */
static void svg_region_text(FILE *out, const struct plot *plot, long key, double begin, double end)
{
    char text[512];
    if (key == -3) {
        long first = ompc_region_after(&plot->regions, (uint64_t)begin);
        long last = ompc_region_after(&plot->regions, (uint64_t)end);
        if (last < plot->regions.count && plot->regions.items[last].begin_ns < (uint64_t)end)
            last++;
        snprintf(text, sizeof text, "%ld parallel region instances (the run's %ld to %ld of %ld)", last - first,
                 first + 1, last, plot->regions.count);
    } else {
        const char *where = key >= 0 ? code_label(plot->labels, plot->regions.items[key].codeptr) : NULL;
        region_label(&plot->regions, key, where, text, sizeof text);
    }
    xml_text(out, text);
}

/*
 * Draws one merged run of columns (a span, or a wait mark under it) with
 * its tooltip, which names the construct at `where` when it is known
 * (the one waited in for a wait, the parallel construct otherwise) and
 * the region instance `region` the run lies in.
 */
static void svg_span(FILE *out, const struct plot *plot, int state, int first, int last, int y, int height,
                     const uint64_t *state_ns, const char *what, uint64_t where, long region)
{
    double begin = plot->from_ns + first * plot->ns_per_pixel;
    double end = plot->from_ns + last * plot->ns_per_pixel;
    fprintf(out,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" class=\"%s\">"
            "<title>%s",
            SVG_LABEL_WIDTH + first, y, last - first, height, state_colours[state], what,
            ompc_state_name(state));
    const char *label = code_label(plot->labels, where);
    if (label != NULL) {
        fputs(is_wait(state) ? " waiting at " : " in the construct at ", out);
        xml_text(out, label);
    }
    fputs(", ", out);
    /* A region's state sampled after its end: the samples lag the JOIN, by up to an interval. */
    long before = ompc_region_after(&plot->regions, (uint64_t)begin) - 1;
    if (region == -1 && state != THR_SERIAL_STATE && state != THR_IDLE_STATE && before >= 0) {
        fputs("sampled just after ", out);
        svg_region_text(out, plot, before, begin, end);
    } else {
        svg_region_text(out, plot, region, begin, end);
    }
    fprintf(out, ": %.3f ms %s over %.3f-%.3f ms</title></rect>\n", state_ns[state] / 1e6,
            what[0] == 'm' ? "of waiting hidden by longer states" : "in this state", begin / 1e6, end / 1e6);
}

/*
 * Per column and state of one row: how long the state held the column and,
 * where the thread recorded code addresses, the address of the longest
 * piece there and that piece's length (`where` and `where_ns` are NULL
 * otherwise).
 */
struct row_columns {
    uint64_t (*ns)[OMPC_NSTATES];
    uint64_t (*where)[OMPC_NSTATES];
    uint64_t (*where_ns)[OMPC_NSTATES];
};

/* Folds the thread's spans inside the drawn window into the row's columns. */
static void row_columns_fill(const struct ompc_report *report, int thread, const struct plot *plot,
                             const struct row_columns *columns)
{
    const uint64_t *wheres = report->process->threads[thread].timeline_where;
    uint64_t begin, end;
    int state;
    for (uint32_t k = 0; ompc_timeline_span(report, thread, k, &begin, &end, &state); k++) {
        if (state >= OMPC_NSTATES || end <= plot->from_ns || begin >= plot->to_ns)
            continue;
        if (begin < plot->from_ns)
            begin = plot->from_ns;
        if (end > plot->to_ns)
            end = plot->to_ns;
        for (uint64_t t = begin; t < end;) {
            uint64_t column = (uint64_t)((t - plot->from_ns) / plot->ns_per_pixel);
            if (column >= (uint64_t)plot->width)
                break;
            uint64_t column_end = plot->from_ns + (uint64_t)((column + 1) * plot->ns_per_pixel) + 1;
            uint64_t stop = end < column_end ? end : column_end;
            columns->ns[column][state] += stop - t;
            if (wheres != NULL && stop - t > columns->where_ns[column][state]) {
                columns->where_ns[column][state] = stop - t;
                columns->where[column][state] = wheres[k];
            }
            t = stop;
        }
    }
}

/* The state shown in a column: on the first pass the longest, on the second the longest wait unless that is it; -1 for none. */
static int column_shown(const uint64_t *column_ns, int pass)
{
    int best = -1, wait = -1;
    uint64_t best_ns = 0, wait_ns = 0;
    for (int s = 1; s < OMPC_NSTATES; s++) {
        if (column_ns[s] > best_ns) {
            best = s;
            best_ns = column_ns[s];
        }
        if (is_wait(s) && column_ns[s] > wait_ns) {
            wait = s;
            wait_ns = column_ns[s];
        }
    }
    return pass == 0 ? best : (wait != best ? wait : -1);
}

/* One pass over a row's columns, drawing each run of equal neighbours: the spans (pass 0) or the wait marks (pass 1). */
static void svg_row_pass(FILE *out, const struct plot *plot, const struct row_columns *columns, int y,
                         int pass)
{
    int width = plot->width;
    int run_state = -1, run_start = 0;
    uint64_t run_where = 0;
    long run_region = -1;
    uint64_t run_ns[OMPC_NSTATES] = {0};
    /* One column past the last, showing nothing, ends the last run. */
    for (int column = 0; column <= width; column++) {
        int shown = column < width ? column_shown(columns->ns[column], pass) : -1;
        uint64_t where = columns->where != NULL && shown > 0 ? columns->where[column][shown] : 0;
        long region = column < width ? plot->column_region[column] : -1;
        /* A new construct or region instance starts a new run, so each tooltip names one. */
        if (shown != run_state || where != run_where || region != run_region) {
            if (run_state >= 0)
                svg_span(out, plot, run_state, run_start, column,
                         pass == 0 ? y : y + SVG_ROW_HEIGHT - SVG_MARK_HEIGHT,
                         pass == 0 ? SVG_ROW_HEIGHT : SVG_MARK_HEIGHT, run_ns,
                         pass == 0 ? "span" : "mark", run_where, run_region);
            run_state = shown;
            run_where = where;
            run_region = region;
            run_start = column;
            memset(run_ns, 0, sizeof run_ns);
        }
        if (column < width)
            for (int s = 0; s < OMPC_NSTATES; s++)
                run_ns[s] += columns->ns[column][s];
    }
}

/*
 * One thread's row.  Spans are folded into one column per pixel, each
 * column painted in the state that held it longest, and equal neighbours
 * merged: the file stays small however many state changes there were.  A
 * wait that lost its columns to a longer state still gets a mark of at least
 * one column under them, so a short lock wait next to long WORK is seen.
 */
static int svg_thread_row(FILE *out, const struct ompc_report *report, int thread,
                          const struct plot *plot)
{
    int width = plot->width;
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    struct row_columns columns;
    columns.ns = calloc((size_t)width, sizeof *columns.ns);
    columns.where = slot->timeline_where != NULL ? calloc((size_t)width, sizeof *columns.where) : NULL;
    columns.where_ns = slot->timeline_where != NULL ? calloc((size_t)width, sizeof *columns.where_ns) : NULL;
    if (columns.ns == NULL || (slot->timeline_where != NULL && (columns.where == NULL || columns.where_ns == NULL))) {
        free(columns.ns);
        free(columns.where);
        free(columns.where_ns);
        return -1;
    }
    row_columns_fill(report, thread, plot, &columns);
    int y = SVG_TOP + thread * (SVG_ROW_HEIGHT + SVG_ROW_GAP);
    fprintf(out, "<text x=\"4\" y=\"%d\" class=\"label\">thread %d%s (tid %ld)%s</text>\n",
            y + SVG_ROW_HEIGHT - 4, thread, slot->initial ? "*" : "", (long)slot->tid,
            ompc_thread_is_openmp(slot) ? "" : " not OpenMP");
    /* Two passes: the spans, then the wait marks drawn over their lower edge. */
    for (int pass = 0; pass < 2; pass++)
        svg_row_pass(out, plot, &columns, y, pass);
    free(columns.ns);
    free(columns.where);
    free(columns.where_ns);
    return 0;
}

/* The pixel column of a time inside the window. */
static int column_of(const struct plot *plot, uint64_t t)
{
    int x = (int)((t - plot->from_ns) / plot->ns_per_pixel);
    return x < plot->width ? x : plot->width;
}

/*
 * Dashed lines across every row where a parallel region instance begins
 * or ends, at most one per two columns; back to back instances share one
 * line, which names both.
 */
static void svg_region_lines(FILE *out, const struct plot *plot, int top, int bottom)
{
    int last_x = -2, hidden = 0;
    char text[512];
    for (long r = 0; r < plot->regions.count; r++)
        for (int edge = 0; edge < 2; edge++) {
            const struct ompc_region_instance *region = &plot->regions.items[r];
            uint64_t t = edge ? region->end_ns : region->begin_ns;
            if (t < plot->from_ns || t > plot->to_ns || (edge == 0 && r > 0 && plot->regions.items[r - 1].end_ns == t))
                continue;
            int x = column_of(plot, t);
            if (x - last_x < 2) {
                hidden++;
                continue;
            }
            last_x = x;
            fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"region\"><title>", SVG_LABEL_WIDTH + x,
                    top, SVG_LABEL_WIDTH + x, bottom);
            region_label(&plot->regions, r, code_label(plot->labels, region->codeptr), text, sizeof text);
            xml_text(out, text);
            fprintf(out, " %s at %.3f ms", edge ? "ends" : "begins", t / 1e6);
            if (edge && r + 1 < plot->regions.count && plot->regions.items[r + 1].begin_ns == t) {
                region_label(&plot->regions, r + 1, code_label(plot->labels, plot->regions.items[r + 1].codeptr),
                                  text, sizeof text);
                fputs("; ", out);
                xml_text(out, text);
                fputs(" begins", out);
            }
            fputs("</title></line>\n", out);
        }
    if (hidden)
        fprintf(out, "<!-- %d region boundaries closer than two columns to the previous one are not drawn -->\n",
                hidden);
}

/*
 * A strip above the rows, one band per region instance in alternating
 * shades, so instances back to back are told apart; instances that share
 * a column are one band that counts them.
 */
static void svg_region_strip(FILE *out, const struct plot *plot, int y)
{
    long r = ompc_region_after(&plot->regions, plot->from_ns);
    for (int band = 0; r < plot->regions.count && plot->regions.items[r].begin_ns < plot->to_ns; band++) {
        const struct ompc_region_instance *region = &plot->regions.items[r];
        int first = column_of(plot, region->begin_ns > plot->from_ns ? region->begin_ns : plot->from_ns);
        int last = column_of(plot, region->end_ns < plot->to_ns ? region->end_ns : plot->to_ns);
        if (last <= first)
            last = first + 1;
        /* Those that begin before the band's last column ends join it. */
        long next = r + 1;
        while (next < plot->regions.count && plot->regions.items[next].begin_ns < plot->to_ns
               && column_of(plot, plot->regions.items[next].begin_ns) < last) {
            uint64_t end = plot->regions.items[next].end_ns < plot->to_ns ? plot->regions.items[next].end_ns
                                                                          : plot->to_ns;
            last = column_of(plot, end) > last ? column_of(plot, end) : last;
            next++;
        }
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" class=\"instance\"><title>",
                SVG_LABEL_WIDTH + first, y, last - first, SVG_STRIP_HEIGHT, band % 2 ? "#bbbbbb" : "#666666");
        svg_region_text(out, plot, next - r > 1 ? -3 : r, (double)region->begin_ns,
                        (double)plot->regions.items[next - 1].end_ns);
        fprintf(out, " over %.3f-%.3f ms</title></rect>\n", region->begin_ns / 1e6,
                plot->regions.items[next - 1].end_ns / 1e6);
        r = next;
    }
}

/* Per column: the region instance that holds it whole (-1 serial, -2 unknown) or -3 when it holds several. */
static int plot_columns(struct plot *plot)
{
    plot->column_region = malloc(((size_t)plot->width + 1) * sizeof *plot->column_region);
    if (plot->column_region == NULL)
        return -1;
    for (int column = 0; column < plot->width; column++) {
        uint64_t begin = plot->from_ns + (uint64_t)(column * plot->ns_per_pixel);
        uint64_t end = plot->from_ns + (uint64_t)((column + 1) * plot->ns_per_pixel);
        /* The instances that overlap the column: one names it even where it covers only part. */
        long first = ompc_region_after(&plot->regions, begin), last = first;
        while (last < plot->regions.count && plot->regions.items[last].begin_ns < end)
            last++;
        if (begin >= plot->regions.known_until_ns)
            plot->column_region[column] = -2;
        else
            plot->column_region[column] = last - first == 1 ? first : last == first ? -1 : -3;
    }
    return 0;
}

/*
 * The drawing's window and scale from the options, the region instances
 * its dashed lines and strip mark, and which the columns lie in; -1
 * without memory (plot_free frees what was made).
 */
static int plot_init(const struct ompc_report *report, int rows, struct plot *plot)
{
    memset(plot, 0, sizeof *plot);
    plot->width = report->timeline_width > 0 ? report->timeline_width : SVG_PLOT_WIDTH;
    if (plot->width < SVG_MIN_WIDTH)
        plot->width = SVG_MIN_WIDTH;
    if (plot->width > SVG_MAX_WIDTH)
        plot->width = SVG_MAX_WIDTH;
    plot->from_ns = report->from_ns;
    plot->to_ns = report->to_ns > 0 && report->to_ns < report->wall_ns ? report->to_ns : report->wall_ns;
    if (plot->to_ns <= plot->from_ns)
        plot->to_ns = plot->from_ns + 1;
    double span_ns = (double)(plot->to_ns - plot->from_ns);
    plot->ns_per_pixel = span_ns / plot->width;
    if (ompc_regions_find(report, &plot->regions) != 0 || plot_columns(plot) != 0)
        return -1;
    plot->labels = labels_new(report, rows, plot->regions.from_events);
    return 0;
}

/* Frees what plot_init made. */
static void plot_free(struct plot *plot)
{
    free(plot->regions.items);
    free(plot->column_region);
    labels_free(plot->labels);
}

/* "8 MiB": a --trace-buffer size as the option takes it. */
static void size_text(uint64_t bytes, char *text, size_t size)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB"};
    int unit = 0;
    while (unit < 3 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        unit++;
    }
    snprintf(text, size, "%" PRIu64 " %s", bytes, units[unit]);
}

/* One cut mark on a row: a red line across it, and a notch above, with what was lost in its tooltip. */
static void svg_cut(FILE *out, const struct plot *plot, int y, uint64_t t, const char *text)
{
    if (t > plot->to_ns)
        return;
    int x = SVG_LABEL_WIDTH + (t > plot->from_ns ? column_of(plot, t) : 0);
    fprintf(out,
            "<g class=\"cut\"><title>%s</title><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d62728\" "
            "stroke-width=\"2\"/><path d=\"M%d %dl-4 -4h8z\" fill=\"#d62728\"/></g>\n",
            text, x, y - 2, x, y + SVG_ROW_HEIGHT + 2, x, y - 2);
}

/* Where a thread's record was cut: its sampled states ran out of room, its event log ran full. */
static void svg_cut_marks(FILE *out, const struct ompc_report *report, int thread, const struct plot *plot, int y)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    char text[400], size[32];
    uint64_t cut = ompc_timeline_cut_ns(report, thread);
    if (cut != 0) {
        snprintf(text, sizeof text, "sampled states cut at %.3f ms: this thread changed state more than %u times "
                 "(or the record had no room); its later states were not kept", cut / 1e6, OMPC_TIMELINE_CAP);
        svg_cut(out, plot, y, cut, text);
    }
    if (slot->event_log_dropped != 0) {
        size_text(report->event_log_bytes, size, sizeof size);
        snprintf(text, sizeof text, "event log full at %.3f ms: %" PRIu64 " later events of this thread were "
                 "dropped, its waits after this are sampled only (--trace-buffer was %s a thread)",
                 slot->event_log_dropped_ns / 1e6, slot->event_log_dropped, size);
        svg_cut(out, plot, y, slot->event_log_dropped_ns, text);
    }
}

/* The SVG prologue and the two title lines: what ran, over which window, how it ended, on which runtime. */
static void svg_title(FILE *out, const struct ompc_report *report, const struct plot *plot, int width,
                      int height)
{
    const struct ompc_model_process *process = report->process;
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
            "<style>.label { fill: #222222; } .axis { stroke: #444444; stroke-width: 1; } "
            ".region { stroke: #222222; stroke-width: 1; stroke-dasharray: 3 2; }</style>\n"
            "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
            width, height, width, height, width, height);
    fputs("<text x=\"4\" y=\"18\" font-size=\"14\" class=\"label\">ompcollect: ", out);
    xml_text(out, report->program);
    fprintf(out, " (pid %ld", (long)process->pid);
    if (report->rank >= 0)
        fprintf(out, ", rank %d", report->rank);
    fprintf(out, "), thread states over %.3f s", report->wall_ns / 1e9);
    if (plot->from_ns > 0 || plot->to_ns < report->wall_ns)
        fprintf(out, ", drawn from %.3f to %.3f ms", plot->from_ns / 1e6, plot->to_ns / 1e6);
    fprintf(out, "%s", report->complete ? "" : " (incomplete)");
    if (process->damage.count != 0) {
        fprintf(out, "; record damaged (%lu finding%s): ", process->damage.count, process->damage.count == 1 ? "" : "s");
        xml_text(out, process->damage.text);
    }
    struct ompc_limit limits[OMPC_LIMIT_KINDS];
    int limit_count = ompc_limits_reached(process, report->event_log_bytes, limits);
    for (int i = 0; i < limit_count; i++) {
        fputs("; limit reached: ", out);
        xml_text(out, limits[i].text);
    }
    fputs("</text>\n", out);
    fputs("<text x=\"4\" y=\"34\" class=\"label\">Each row is a thread (* initial); each column "
          "shows the state that held it longest; a low mark, a wait hidden by it; dashed lines, "
          "parallel regions.",
          out);
    if (report->runtime_file != NULL && report->runtime_file[0] != '\0') {
        fputs(" Runtime: ", out);
        xml_text(out, report->runtime_file);
        if (report->runtime_version != NULL && report->runtime_version[0] != '\0') {
            fputs(" (", out);
            xml_text(out, report->runtime_version);
            fputc(')', out);
        }
        fputc('.', out);
    }
    fputs("</text>\n", out);
}

/* The time axis, ticked at the roundest step that gives at most ten ticks, and the note on rows that stop early. */
static void svg_axis(FILE *out, const struct plot *plot, int axis_y, int truncated)
{
    double span_ns = (double)(plot->to_ns - plot->from_ns);
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", SVG_LABEL_WIDTH,
            axis_y, SVG_LABEL_WIDTH + plot->width, axis_y);
    static const double steps[] = {1e3,  2e3,  5e3,  1e4,  2e4,  5e4,  1e5,  2e5,  5e5,
                                   1e6,  2e6,  5e6,  1e7,  2e7,  5e7,  1e8,  2e8,  5e8,
                                   1e9,  2e9,  5e9,  1e10, 3e10, 6e10, 3e11, 6e11, 3e12};
    double step = steps[sizeof steps / sizeof steps[0] - 1];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (span_ns / steps[i] <= 10) {
            step = steps[i];
            break;
        }
    double first_tick = step * (double)(uint64_t)((plot->from_ns + step - 1) / step);
    for (double t = first_tick; t <= plot->to_ns; t += step) {
        int x = SVG_LABEL_WIDTH + (int)((t - plot->from_ns) / plot->ns_per_pixel);
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
}

/* A swatch and the name of every state. */
static void svg_legend(FILE *out, int legend_y)
{
    fprintf(out, "<g id=\"legend\">\n");
    for (int state = 1; state < OMPC_NSTATES; state++) {
        int x = 4 + (state - 1) * 96;
        fprintf(out,
                "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\" stroke=\"#444444\"/>"
                "<text x=\"%d\" y=\"%d\" class=\"label\">%s</text>\n",
                x, legend_y, state_colours[state], x + 16, legend_y + 10, ompc_state_name(state));
    }
    fputs("</g>\n</svg>\n", out);
}

/* Per-thread state over time: rows of coloured spans, a time axis and a legend. */
int ompc_write_timeline(const struct ompc_report *report, FILE *out)
{
    const struct ompc_model_process *process = report->process;
    int rows = process->thread_count;
    if (rows > OMPC_MAX_THREADS)
        rows = OMPC_MAX_THREADS;
    struct plot plot;
    if (plot_init(report, rows, &plot) != 0) {
        plot_free(&plot);
        return -1;
    }
    int axis_y = SVG_TOP + rows * (SVG_ROW_HEIGHT + SVG_ROW_GAP) + 4;
    int legend_y = axis_y + 36;
    int width = SVG_LABEL_WIDTH + plot.width + 20;
    if (width < 4 + (OMPC_NSTATES - 1) * 96)
        width = 4 + (OMPC_NSTATES - 1) * 96; /* the legend */
    int height = legend_y + 30;
    svg_title(out, report, &plot, width, height);
    svg_region_strip(out, &plot, SVG_TOP - SVG_STRIP_HEIGHT - 4);

    int truncated = 0;
    for (int i = 0; i < rows; i++) {
        if (report->process->threads[i].timeline != NULL
            && svg_thread_row(out, report, i, &plot) != 0) {
            plot_free(&plot);
            return -1;
        }
        truncated |= process->threads[i].timeline_truncated != 0;
    }
    svg_region_lines(out, &plot, SVG_TOP - 2, axis_y - 4);
    /* Over the region lines, so a cut is never hidden behind one. */
    for (int i = 0; i < rows; i++)
        svg_cut_marks(out, report, i, &plot, SVG_TOP + i * (SVG_ROW_HEIGHT + SVG_ROW_GAP));
    svg_axis(out, &plot, axis_y, truncated);
    plot_free(&plot);
    svg_legend(out, legend_y);
    return ferror(out) ? -1 : 0;
}
