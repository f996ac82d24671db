/* merge.c - ompcollect merge: one cross-process summary (per rank and total states, slowest rank, imbalance, hybrid MPI+OpenMP factors, the constructs and waits matched by code location with each one's slowest rank) from several JSON reports. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "checked.h"
#include "csv.h"
#include "demangle.h"
#include "jsonw.h"
#include "merge.h"
#include "merge_hybrid.h"
#include "merge_mpi.h"
#include "paths.h"
#include "sort.h"
#include "utf8.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_REGIONS 10

/* One region id over every report that has it. */
struct merged_region {
    int64_t id;
    int reports;
    int64_t time_ns, min_ns, max_ns;
    int64_t samples;
    int64_t states[OMPC_NSTATES];
    const char *file; /* the report it came from, until merged: for the overflow message */
};

/* One row of a report's constructs or waits, before the rows of one code location are folded. */
struct place_row {
    int input; /* which report */
    const struct ompc_merge_construct *construct;
    const struct ompc_merge_wait *wait;
};

/* One parallel construct over every report, matched by code location (module and offset). */
struct merged_construct {
    const struct ompc_merge_location *where; /* the first report's: names the row */
    int reports;
    int64_t instances, total_ns, longest_ns, samples;
    int64_t min_ns, max_ns; /* of one report's time in it; min is 0 when a report lacks it */
    int64_t states[OMPC_NSTATES];
    int slowest;            /* the report whose time in it is max_ns */
};

/* One place threads waited over every report: state, code location and object. */
struct merged_wait {
    const struct ompc_merge_wait *first; /* names the row */
    int what_differs;                    /* the reports describe the object differently (a heap lock) */
    int reports;
    int64_t samples, threads, min_samples, max_samples;
};

/* The rows merged by code location, widest first. */
struct merged_places {
    struct merged_construct *constructs;
    long construct_count;
    struct merged_wait *waits;
    long wait_count;
    struct ompc_merged_mpi_call *mpi_calls; /* by call and location */
    long mpi_call_count;
};

/* The sums over all reports. */
struct totals {
    int64_t threads, samples;
    int64_t states[OMPC_NSTATES];
    int64_t mpi_samples; /* in no state */
};


/* Writes into `error` the message for a sum that would overflow at `file`; returns -1. */
static int overflow(const char *what, const char *file, char *error, size_t error_size)
{
    snprintf(error, error_size, "%s: the sum of %s over the reports would pass %" PRId64, file, what,
             INT64_MAX);
    return -1;
}

/* "rank 3" or "pid 1234", whichever names the report better. */
static void label(const struct ompc_merge_input *input, char *buffer, size_t size)
{
    if (input->rank >= 0)
        snprintf(buffer, size, "rank %" PRId64, input->rank);
    else
        snprintf(buffer, size, "pid %" PRId64, input->pid);
}

/* qsort order for inputs: by rank, then pid. */
static int compare_inputs(const void *a, const void *b)
{
    const struct ompc_merge_input *x = a, *y = b;
    return x->rank != y->rank ? ompc_order_i64(x->rank, y->rank) : ompc_order_i64(x->pid, y->pid);
}

/* qsort order for pointers to inputs: by process (host, pid, rank), so one process's reports end up adjacent. */
static int compare_processes(const void *a, const void *b)
{
    const struct ompc_merge_input *x = *(const struct ompc_merge_input *const *)a;
    const struct ompc_merge_input *y = *(const struct ompc_merge_input *const *)b;
    size_t shorter = x->host.length < y->host.length ? x->host.length : y->host.length;
    int host = memcmp(x->host.text, y->host.text, shorter);
    if (host != 0 || x->host.length != y->host.length)
        return host != 0 ? host : ompc_order_i64((int64_t)x->host.length, (int64_t)y->host.length);
    return x->pid != y->pid ? ompc_order_i64(x->pid, y->pid) : ompc_order_i64(x->rank, y->rank);
}

/* Refuses two reports of one process (same host, pid and rank): merging them would count it twice. */
static int check_processes(const struct ompc_merge_input *inputs, int count, char *error, size_t error_size)
{
    const struct ompc_merge_input **sorted = malloc((size_t)count * sizeof *sorted);
    if (sorted == NULL)
        return snprintf(error, error_size, "out of memory"), -1;
    for (int i = 0; i < count; i++)
        sorted[i] = &inputs[i];
    qsort(sorted, (size_t)count, sizeof *sorted, compare_processes);
    int status = 0;
    for (int i = 1; i < count && status == 0; i++)
        if (compare_processes(&sorted[i - 1], &sorted[i]) == 0) {
            char rank[32] = "no rank";
            if (sorted[i]->rank >= 0)
                snprintf(rank, sizeof rank, "rank %" PRId64, sorted[i]->rank);
            snprintf(error, error_size, "%s and %s are reports of the same process (host '%s', pid %" PRId64
                     ", %s); give each process's report once",
                     sorted[i - 1]->file, sorted[i]->file, sorted[i]->host.text, sorted[i]->pid, rank);
            status = -1;
        }
    free(sorted);
    return status;
}

/* The sums over every report; -1 with the message when one would overflow. */
static int sum_totals(const struct ompc_merge_input *inputs, int count, struct totals *totals, char *error,
                      size_t error_size)
{
    memset(totals, 0, sizeof *totals);
    for (int i = 0; i < count; i++) {
        if (ompc_add_count(&totals->samples, inputs[i].samples) != 0)
            return overflow("totals.samples", inputs[i].file, error, error_size);
        if (ompc_add_count(&totals->threads, inputs[i].threads) != 0)
            return overflow("totals.threads", inputs[i].file, error, error_size);
        for (int state = 1; state < OMPC_NSTATES; state++)
            if (ompc_add_count(&totals->states[state], inputs[i].states[state]) != 0)
                return overflow("totals.states", inputs[i].file, error, error_size);
        if (ompc_add_count(&totals->mpi_samples, inputs[i].mpi_samples) != 0)
            return overflow("totals.mpi.samples", inputs[i].file, error, error_size);
    }
    return 0;
}

/* qsort order for regions: most time over all reports first. */
static int compare_regions(const void *a, const void *b)
{
    const struct merged_region *x = a, *y = b;
    return x->time_ns != y->time_ns ? ompc_order_i64(y->time_ns, x->time_ns) : ompc_order_i64(x->id, y->id);
}

/* qsort order for region rows: by id, so rows of one id end up adjacent. */
static int compare_region_ids(const void *a, const void *b)
{
    const struct merged_region *x = a, *y = b;
    return ompc_order_i64(x->id, y->id);
}

/* Adds row `from` into the row of its id; -1 with the message when a sum would overflow. */
static int fold_region(struct merged_region *into, const struct merged_region *from, char *error,
                       size_t error_size)
{
    into->reports++;
    if (ompc_add_count(&into->time_ns, from->time_ns) != 0)
        return overflow("regions[].time_ns", from->file, error, error_size);
    into->min_ns = from->min_ns < into->min_ns ? from->min_ns : into->min_ns;
    into->max_ns = from->max_ns > into->max_ns ? from->max_ns : into->max_ns;
    if (ompc_add_count(&into->samples, from->samples) != 0)
        return overflow("regions[].samples", from->file, error, error_size);
    for (int state = 1; state < OMPC_NSTATES; state++)
        if (ompc_add_count(&into->states[state], from->states[state]) != 0)
            return overflow("regions[].states", from->file, error, error_size);
    return 0;
}

/* Every region of every report, merged by id (sorted, then folded); the count, or -1 with the message. */
static long merge_regions(const struct ompc_merge_input *inputs, int count, struct merged_region **result,
                          char *error, size_t error_size)
{
    size_t used = 0, total = 0;
    for (int i = 0; i < count; i++)
        total += inputs[i].region_count;
    struct merged_region *rows = calloc(total ? total : 1, sizeof *rows);
    if (rows == NULL)
        return snprintf(error, error_size, "out of memory"), -1;
    for (int i = 0; i < count; i++)
        for (size_t k = 0; k < inputs[i].region_count; k++) {
            const struct ompc_merge_region *region = &inputs[i].regions[k];
            struct merged_region *row = &rows[used++];
            row->id = region->id;
            row->reports = 1;
            row->time_ns = row->min_ns = row->max_ns = region->time_ns;
            row->samples = region->samples;
            memcpy(row->states, region->states, sizeof row->states);
            row->file = inputs[i].file;
        }
    qsort(rows, used, sizeof *rows, compare_region_ids);
    size_t merged = 0;
    for (size_t i = 0; i < used; i++) {
        if (merged == 0 || rows[merged - 1].id != rows[i].id)
            rows[merged++] = rows[i];
        else if (fold_region(&rows[merged - 1], &rows[i], error, error_size) != 0) {
            free(rows);
            return -1;
        }
    }
    qsort(rows, merged, sizeof *rows, compare_regions);
    *result = rows;
    return (long)merged;
}

/* Orders two texts (NULL, for a null, first) by their bytes, NULs included. */
int ompc_merge_compare_texts(const struct ompc_merge_text *x, const struct ompc_merge_text *y)
{
    if (x->text == NULL || y->text == NULL)
        return (x->text != NULL) - (y->text != NULL);
    size_t shorter = x->length < y->length ? x->length : y->length;
    int bytes = memcmp(x->text, y->text, shorter);
    return bytes != 0 ? bytes : ompc_order_i64((int64_t)x->length, (int64_t)y->length);
}

/* Orders unsigned 64-bit values. */
static int order_u64(uint64_t x, uint64_t y)
{
    return (x > y) - (x < y);
}

/* Whether a location names a source line: the construct as written, the same in every build of the source. */
int ompc_merge_has_line(const struct ompc_merge_location *where)
{
    return where->kind == 3 && where->file.text != NULL && where->line > 0;
}

/*
 * Orders two code locations by what is the same wherever the construct
 * ran: its file and line, which a rebuild, another optimisation level or
 * another binary of the same source keep; else the module path and offset,
 * the same in every process of one binary.  A location in no module has
 * only its address, which matches across processes only without ASLR.
 * Constructs of different kinds at one place (a teams construct and the
 * parallel loop it forks, one pragma) stay apart: by kind first.
 */
int ompc_merge_compare_places(const struct ompc_merge_location *x, const struct ompc_merge_location *y)
{
    int kind = ompc_merge_compare_kinds(x, y);
    if (kind != 0)
        return kind;
    int x_line = ompc_merge_has_line(x), y_line = ompc_merge_has_line(y);
    if (x_line != y_line)
        return y_line - x_line;
    if (x_line) {
        int file = ompc_merge_compare_texts(&x->file, &y->file);
        return file != 0 ? file : ompc_order_i64(x->line, y->line);
    }
    int x_located = x->kind > 0 && x->module.text != NULL, y_located = y->kind > 0 && y->module.text != NULL;
    if (x_located != y_located)
        return x_located - y_located;
    if (!x_located)
        return order_u64(x->address, y->address);
    int module = ompc_merge_compare_texts(&x->module, &y->module);
    return module != 0 ? module : order_u64(x->module_offset, y->module_offset);
}

/* Orders a wait's object: by module and offset when located, all unlocated objects alike (a heap lock's address differs by process). */
static int compare_objects(const struct ompc_merge_location *x, const struct ompc_merge_location *y)
{
    int x_located = x->kind > 0 && x->module.text != NULL, y_located = y->kind > 0 && y->module.text != NULL;
    if (x_located != y_located || !x_located)
        return x_located - y_located;
    return ompc_merge_compare_places(x, y);
}

/* qsort order for construct rows: by code location, then report. */
static int compare_construct_rows(const void *a, const void *b)
{
    const struct place_row *x = a, *y = b;
    int place = ompc_merge_compare_places(&x->construct->where, &y->construct->where);
    return place != 0 ? place : x->input - y->input;
}

int ompc_merge_compare_waits(const struct ompc_merge_wait *x, const struct ompc_merge_wait *y)
{
    if (x->state != y->state)
        return x->state - y->state;
    int place = ompc_merge_compare_places(&x->where, &y->where);
    return place != 0 ? place : compare_objects(&x->object, &y->object);
}

/* qsort order for wait rows: by state, code location and object, then report. */
static int compare_wait_rows(const void *a, const void *b)
{
    const struct place_row *x = a, *y = b;
    int place = ompc_merge_compare_waits(x->wait, y->wait);
    return place != 0 ? place : x->input - y->input;
}

/* Whether two waits are of one state, code location and object. */
static int same_wait_place(const struct ompc_merge_wait *x, const struct ompc_merge_wait *y)
{
    return ompc_merge_compare_waits(x, y) == 0;
}

/* qsort order for merged constructs: most time first, then by location. */
static int compare_merged_constructs(const void *a, const void *b)
{
    const struct merged_construct *x = a, *y = b;
    return x->total_ns != y->total_ns ? ompc_order_i64(y->total_ns, x->total_ns)
                                      : ompc_merge_compare_places(x->where, y->where);
}

/* qsort order for merged waits: most samples first, then by state and location. */
static int compare_merged_waits(const void *a, const void *b)
{
    const struct merged_wait *x = a, *y = b;
    if (x->samples != y->samples)
        return ompc_order_i64(y->samples, x->samples);
    if (x->first->state != y->first->state)
        return x->first->state - y->first->state;
    return ompc_merge_compare_places(&x->first->where, &y->first->where);
}

/* Every report's rows of one kind (constructs, or waits when `waits`), sorted for folding; NULL when memory runs out. */
static struct place_row *place_rows(const struct ompc_merge_input *inputs, int count, int waits, size_t *used)
{
    size_t total = 0;
    for (int i = 0; i < count; i++)
        total += waits ? inputs[i].wait_count : inputs[i].construct_count;
    struct place_row *rows = calloc(total ? total : 1, sizeof *rows);
    *used = 0;
    for (int i = 0; i < count && rows != NULL; i++)
        for (size_t k = 0; k < (waits ? inputs[i].wait_count : inputs[i].construct_count); k++)
            rows[(*used)++] = (struct place_row){i, waits ? NULL : &inputs[i].constructs[k],
                                                 waits ? &inputs[i].waits[k] : NULL};
    if (rows != NULL)
        qsort(rows, *used, sizeof *rows, waits ? compare_wait_rows : compare_construct_rows);
    return rows;
}

/* Adds one report's construct row into its merged row; -1 when a sum would pass INT64_MAX. */
static int fold_construct(struct merged_construct *into, const struct ompc_merge_construct *from,
                          int64_t *report_ns)
{
    int failed = ompc_add_count(&into->instances, from->instances) | ompc_add_count(&into->total_ns, from->total_ns)
                 | ompc_add_count(&into->samples, from->samples) | ompc_add_count(report_ns, from->total_ns);
    into->longest_ns = from->max_ns > into->longest_ns ? from->max_ns : into->longest_ns;
    for (int state = 1; state < OMPC_NSTATES; state++)
        failed |= ompc_add_count(&into->states[state], from->states[state]);
    return failed ? -1 : 0;
}

/* Ends one report's part of a merged row: its time counts toward the spread across reports. */
static void close_report(int *reports, int64_t value, int64_t *min, int64_t *max)
{
    *min = *reports == 0 || value < *min ? value : *min;
    *max = value > *max ? value : *max;
    (*reports)++;
}

/* The constructs of every report merged by code location; the count, or -1 with the message. */
static long merge_constructs(const struct ompc_merge_input *inputs, int count, struct merged_construct **result,
                             char *error, size_t error_size)
{
    size_t used;
    struct place_row *rows = place_rows(inputs, count, 0, &used);
    struct merged_construct *merged = calloc(used ? used : 1, sizeof *merged);
    long made = 0;
    int64_t report_ns = 0;
    if (rows == NULL || merged == NULL) {
        free(rows);
        free(merged);
        return snprintf(error, error_size, "out of memory"), -1;
    }
    for (size_t i = 0; i < used; i++) {
        const struct place_row *row = &rows[i];
        if (i == 0 || ompc_merge_compare_places(&rows[i - 1].construct->where, &row->construct->where) != 0)
            merged[made++].where = &row->construct->where;
        struct merged_construct *into = &merged[made - 1];
        if (fold_construct(into, row->construct, &report_ns) != 0) {
            free(rows);
            free(merged);
            return overflow("constructs[].total_ns", inputs[row->input].file, error, error_size);
        }
        if (i + 1 == used || compare_construct_rows(row, &rows[i + 1]) != 0) {
            if (into->reports == 0 || report_ns > into->max_ns)
                into->slowest = row->input;
            close_report(&into->reports, report_ns, &into->min_ns, &into->max_ns);
            report_ns = 0;
        }
    }
    for (long i = 0; i < made; i++)
        if (merged[i].reports < count)
            merged[i].min_ns = 0;
    free(rows);
    qsort(merged, (size_t)made, sizeof *merged, compare_merged_constructs);
    *result = merged;
    return made;
}

/* The waits of every report merged by state, code location and object; the count, or -1 with the message. */
static long merge_waits(const struct ompc_merge_input *inputs, int count, struct merged_wait **result,
                        char *error, size_t error_size)
{
    size_t used;
    struct place_row *rows = place_rows(inputs, count, 1, &used);
    struct merged_wait *merged = calloc(used ? used : 1, sizeof *merged);
    long made = 0;
    int64_t report_samples = 0;
    if (rows == NULL || merged == NULL) {
        free(rows);
        free(merged);
        return snprintf(error, error_size, "out of memory"), -1;
    }
    for (size_t i = 0; i < used; i++) {
        const struct place_row *row = &rows[i];
        if (i == 0 || !same_wait_place(rows[i - 1].wait, row->wait))
            merged[made++].first = row->wait;
        struct merged_wait *into = &merged[made - 1];
        if (ompc_merge_compare_texts(&into->first->what, &row->wait->what) != 0)
            into->what_differs = 1;
        if (ompc_add_count(&into->samples, row->wait->samples) | ompc_add_count(&into->threads, row->wait->threads)
            | ompc_add_count(&report_samples, row->wait->samples)) {
            free(rows);
            free(merged);
            return overflow("wait_locations[].samples", inputs[row->input].file, error, error_size);
        }
        if (i + 1 == used || compare_wait_rows(row, &rows[i + 1]) != 0) {
            close_report(&into->reports, report_samples, &into->min_samples, &into->max_samples);
            report_samples = 0;
        }
    }
    for (long i = 0; i < made; i++)
        if (merged[i].reports < count)
            merged[i].min_samples = 0;
    free(rows);
    qsort(merged, (size_t)made, sizeof *merged, compare_merged_waits);
    *result = merged;
    return made;
}

/* Spread across reports of one quantity: max / mean - 1 (0 when all are equal). */
static double imbalance(const double *values, int count)
{
    double sum = 0, max = 0;
    for (int i = 0; i < count; i++) {
        sum += values[i];
        max = values[i] > max ? values[i] : max;
    }
    return sum > 0 ? max / (sum / count) - 1 : 0;
}

/* The imbalance of the wall time (state 0) and of each state's time (1..OMPC_NSTATES-1); -1 when memory runs out. */
static int imbalances(const struct ompc_merge_input *inputs, int count, double *result)
{
    double *values = malloc((size_t)count * sizeof *values);
    if (values == NULL)
        return -1;
    for (int i = 0; i < count; i++)
        values[i] = (double)inputs[i].wall_ns;
    result[0] = imbalance(values, count);
    for (int state = 1; state < OMPC_NSTATES; state++) {
        for (int i = 0; i < count; i++)
            values[i] = (double)inputs[i].states[state] * (double)inputs[i].interval_ns;
        result[state] = imbalance(values, count);
    }
    free(values);
    return 0;
}

/* Index of the report with the longest wall time. */
static int slowest(const struct ompc_merge_input *inputs, int count)
{
    int best = 0;
    for (int i = 1; i < count; i++)
        if (inputs[i].wall_ns > inputs[best].wall_ns)
            best = i;
    return best;
}

/* The up-to-three biggest states of a region row, as "WORK 51%, IBAR 37%". */
static void main_states(FILE *out, const int64_t *states, int64_t total)
{
    int shown[3] = {0, 0, 0};
    for (int rank = 0; rank < 3 && total > 0; rank++) {
        int best = 0;
        int64_t best_count = 0;
        for (int state = 1; state < OMPC_NSTATES; state++)
            if (states[state] > best_count && state != shown[0] && state != shown[1]) {
                best = state;
                best_count = states[state];
            }
        if (best_count <= 0 || (rank > 0 && (double)best_count * 100 < (double)total))
            break;
        shown[rank] = best;
        fprintf(out, "%s%s %.0f%%", rank ? ", " : "", ompc_state_name(best),
                100.0 * (double)best_count / (double)total);
    }
    if (total <= 0)
        fputs("-", out);
}

/* A share cell as in the report: "." for none. */
static void share(FILE *out, int64_t part, int64_t whole)
{
    if (part <= 0 || whole <= 0)
        fprintf(out, " %5s", ".");
    else
        fprintf(out, " %5.1f", 100.0 * (double)part / (double)whole);
}

/* The text summary's table of processes, one row each and one of all. */
static void text_processes(FILE *out, const struct ompc_merge_input *inputs, int count,
                           const struct totals *totals)
{
    fputs("\nWhere each process's OpenMP threads spent their time (% of its samples; . = none):\n", out);
    fprintf(out, "  %-10s %7s %-12s %8s %7s %8s", "process", "pid", "host", "wall s", "threads", "samples");
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, " %5s", ompc_state_name(state));
    fprintf(out, " %5s\n", "MPI");
    for (int i = 0; i < count; i++) {
        char name[32];
        label(&inputs[i], name, sizeof name);
        fprintf(out, "  %-10s %7" PRId64 " %-12.12s %8.3f %7" PRId64 " %8" PRId64, name, inputs[i].pid,
                inputs[i].host.text, (double)inputs[i].wall_ns / 1e9, inputs[i].threads, inputs[i].samples);
        for (int state = 1; state < OMPC_NSTATES; state++)
            share(out, inputs[i].states[state], inputs[i].samples);
        share(out, inputs[i].mpi_samples, inputs[i].samples);
        fputs(inputs[i].complete ? "\n" : "  (incomplete)\n", out);
    }
    fprintf(out, "  %-10s %7s %-12s %8s %7" PRId64 " %8" PRId64, "all", "", "", "", totals->threads,
            totals->samples);
    for (int state = 1; state < OMPC_NSTATES; state++)
        share(out, totals->states[state], totals->samples);
    share(out, totals->mpi_samples, totals->samples);
    fputc('\n', out);
    for (int i = 0; i < count; i++)
        if (!inputs[i].complete) {
            char name[32];
            label(&inputs[i], name, sizeof name);
            fprintf(out, "  %s (%s) is incomplete: %s\n", name, inputs[i].file, inputs[i].fate.text);
        }
}

/* A report's text on one line: control characters (a hostile report's line breaks) become spaces. */
void ompc_merge_one_line(FILE *out, const struct ompc_merge_text *text)
{
    for (size_t i = 0; i < text->length; i++)
        fputc((unsigned char)text->text[i] < 0x20 || text->text[i] == 0x7f ? ' ' : text->text[i], out);
}

void ompc_merge_text_limits(FILE *out, const char *name, const struct ompc_merge_input *input)
{
    for (size_t l = 0; l < input->limit_count; l++) {
        const struct ompc_merge_limit *limit = &input->limits[l];
        fprintf(out, "  %s: ", name);
        if (strcmp(limit->what.text, "record_damage") == 0)
            fprintf(out, "record damaged (%" PRId64 " finding%s): ", limit->count, limit->count == 1 ? "" : "s");
        else
            fputs("limit reached: ", out);
        ompc_merge_one_line(out, &limit->text);
        fputc('\n', out);
    }
}

/* Each report's bounds reached and record damage, under its process's label. */
static void text_limits(FILE *out, const struct ompc_merge_input *inputs, int count)
{
    for (int i = 0; i < count; i++) {
        char name[32];
        label(&inputs[i], name, sizeof name);
        ompc_merge_text_limits(out, name, &inputs[i]);
    }
}

/* The text summary's slowest process and imbalance lines. */
static void text_slowest(FILE *out, const struct ompc_merge_input *inputs, int count,
                         const struct totals *totals, const double *spread)
{
    int slow = slowest(inputs, count);
    char name[32];
    label(&inputs[slow], name, sizeof name);
    int64_t fastest = inputs[0].wall_ns;
    for (int i = 1; i < count; i++)
        fastest = inputs[i].wall_ns < fastest ? inputs[i].wall_ns : fastest;
    fprintf(out, "\nSlowest: %s (pid %" PRId64 " on %s), wall %.3f s", name, inputs[slow].pid,
            inputs[slow].host.text, (double)inputs[slow].wall_ns / 1e9);
    if (count > 1 && fastest > 0)
        fprintf(out, ", %.1f%% longer than the fastest (%.3f s)",
                100.0 * ((double)inputs[slow].wall_ns / (double)fastest - 1), (double)fastest / 1e9);
    fputc('\n', out);
    fprintf(out, "Imbalance across processes (max / mean - 1; 0%% = perfectly even):\n  wall %.1f%%",
            100.0 * spread[0]);
    for (int state = 1; state < OMPC_NSTATES; state++)
        if (totals->states[state] > 0)
            fprintf(out, ", %s time %.1f%%", ompc_state_name(state), 100.0 * spread[state]);
    fputc('\n', out);
}

/* Whether a construct's kind is a parallel one's: "parallel", or none and "unknown" (a report from before kinds, whose constructs were all parallel ones). */
static int parallel_kind(const struct ompc_merge_text *kind)
{
    return kind->text == NULL || (kind->length == 8 && memcmp(kind->text, "parallel", 8) == 0)
           || (kind->length == 7 && memcmp(kind->text, "unknown", 7) == 0);
}

int ompc_merge_compare_kinds(const struct ompc_merge_location *x, const struct ompc_merge_location *y)
{
    int x_parallel = parallel_kind(&x->construct), y_parallel = parallel_kind(&y->construct);
    if (x_parallel || y_parallel)
        return y_parallel - x_parallel;
    return ompc_merge_compare_texts(&x->construct, &y->construct);
}

/* A code location as each report's tables name it ("solve solver.c:17"; a construct other than a parallel one with its kind first: "teams main t.c:9"), on one line whatever it holds. */
const char *ompc_merge_place_name(const struct ompc_merge_location *where, char *buffer, size_t size)
{
    if (!parallel_kind(&where->construct) && where->construct.length < 32 && size > 40) {
        int kind = snprintf(buffer, size, "%.*s ", (int)where->construct.length, where->construct.text);
        struct ompc_merge_location plain = *where;
        plain.construct.text = NULL;
        ompc_merge_place_name(&plain, buffer + kind, size - (size_t)kind);
        return buffer;
    }
    /* Shortened as the reports' own tables show it; "function" in the JSON keeps it whole. */
    char function[256];
    const char *named = where->kind == 3 && where->enclosing.text != NULL ? where->enclosing.text : where->function.text;
    ompc_short_name(named != NULL ? named : "?", OMPC_SHORT_PARAMETERS | OMPC_SHORT_TEMPLATES, function,
                    sizeof function);
    if (where->kind == 3 && where->file.text != NULL)
        snprintf(buffer, size, "%s %s:%" PRId64, function, ompc_base_name(where->file.text, "?"), where->line);
    else if (where->kind >= 2 && where->function.text != NULL)
        snprintf(buffer, size, "%s+0x%" PRIx64, function, (uint64_t)where->function_offset);
    else if (where->kind >= 1 && where->module.text != NULL)
        snprintf(buffer, size, "%s+0x%" PRIx64, ompc_base_name(where->module.text, "?"), where->module_offset);
    else if (where->address != 0)
        snprintf(buffer, size, "0x%" PRIx64, where->address);
    else
        snprintf(buffer, size, "(unknown)");
    for (char *c = buffer; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return buffer;
}

/* What a merged wait waited in: the reports' own words, or the state's when they differ. */
static const char *wait_name(const struct merged_wait *wait, char *buffer, size_t size)
{
    if (wait->what_differs)
        snprintf(buffer, size, "%s (several objects)", ompc_state_name(wait->first->state));
    else
        snprintf(buffer, size, "%s", wait->first->what.text);
    for (char *c = buffer; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return buffer;
}

/* max / mean - 1 of a merged row's per-report values (0 when there are none). */
static double spread_of(int64_t max, int64_t total, int count)
{
    return total > 0 ? (double)max * count / (double)total - 1 : 0;
}

/* The text summary's constructs, by code location. */
static void text_constructs(FILE *out, const struct merged_places *places, const struct ompc_merge_input *inputs,
                            int count)
{
    fprintf(out, "\nTop parallel constructs over all processes (matched by code location; a process's\n"
                 "time in it: min, mean and max over the %d processes, 0 for one that never ran it):\n",
            count);
    if (places->construct_count == 0) {
        fputs("  none (the reports name no constructs)\n", out);
        return;
    }
    fprintf(out, "  %11s %10s %10s %10s %6s %5s %9s %8s %-10s  %s\n", "total ms", "min ms", "mean ms", "max ms",
            "imbal", "procs", "instances", "samples", "slowest", "construct (main states)");
    for (long i = 0; i < places->construct_count && i < TOP_REGIONS; i++) {
        const struct merged_construct *row = &places->constructs[i];
        char name[512], slow[32];
        label(&inputs[row->slowest], slow, sizeof slow);
        fprintf(out, "  %11.3f %10.3f %10.3f %10.3f %5.1f%% %5d %9" PRId64 " %8" PRId64 " %-10s  %s (",
                (double)row->total_ns / 1e6, (double)row->min_ns / 1e6, (double)row->total_ns / 1e6 / count,
                (double)row->max_ns / 1e6, 100.0 * spread_of(row->max_ns, row->total_ns, count), row->reports,
                row->instances, row->samples, slow, ompc_merge_place_name(row->where, name, sizeof name));
        main_states(out, row->states, row->samples);
        fputs(")\n", out);
    }
    if (places->construct_count > TOP_REGIONS)
        fprintf(out, "  ... %ld more constructs\n", places->construct_count - TOP_REGIONS);
}

/* The text summary's waits, by state, code location and object. */
static void text_waits(FILE *out, const struct merged_places *places, int count)
{
    fprintf(out, "\nTop waits over all processes (matched by code location and object; a process's\n"
                 "samples there: min and max over the %d processes):\n",
            count);
    if (places->wait_count == 0) {
        fputs("  none\n", out);
        return;
    }
    fprintf(out, "  %8s %7s %7s %5s %7s  %-28s %s\n", "samples", "min", "max", "procs", "threads", "wait",
            "location");
    for (long i = 0; i < places->wait_count && i < TOP_REGIONS; i++) {
        const struct merged_wait *row = &places->waits[i];
        char what[256], name[512];
        fprintf(out, "  %8" PRId64 " %7" PRId64 " %7" PRId64 " %5d %7" PRId64 "  %-28s %s\n", row->samples,
                row->min_samples, row->max_samples, row->reports, row->threads, wait_name(row, what, sizeof what),
                ompc_merge_place_name(&row->first->where, name, sizeof name));
    }
    if (places->wait_count > TOP_REGIONS)
        fprintf(out, "  ... %ld more waits\n", places->wait_count - TOP_REGIONS);
}

/* The summary as text. */
static void write_text(FILE *out, const struct ompc_merge_input *inputs, int count, const struct totals *totals,
                       const double *spread, const struct merged_places *places, const struct ompc_hybrid *hybrid)
{
    fprintf(out, "ompcollect merge: %d reports of %s\n", count, inputs[0].program.text);
    for (int i = 1; i < count; i++)
        if (strcmp(inputs[i].program.text, inputs[0].program.text) != 0) {
            fputs("  (the reports are of different programs)\n", out);
            break;
        }
    text_processes(out, inputs, count, totals);
    text_limits(out, inputs, count);
    text_slowest(out, inputs, count, totals, spread);
    ompc_merge_hybrid_text(out, inputs, count, hybrid);
    ompc_merge_mpi_text(out, inputs, count, places->mpi_calls, places->mpi_call_count);
    text_constructs(out, places, inputs, count);
    text_waits(out, places, count);
    fputs("\nTotals: ", out);
    int first = 1;
    for (int state = 1; state < OMPC_NSTATES; state++) {
        if (totals->states[state] <= 0 || totals->samples <= 0)
            continue;
        fprintf(out, "%s%s %.1f%%", first ? "" : ", ", ompc_state_name(state),
                100.0 * (double)totals->states[state] / (double)totals->samples);
        first = 0;
    }
    if (totals->mpi_samples > 0 && totals->samples > 0) {
        fprintf(out, "%sMPI %.1f%%", first ? "" : ", ", 100.0 * (double)totals->mpi_samples / (double)totals->samples);
        first = 0;
    }
    fprintf(out, "%s of %" PRId64 " samples in %d processes\n", first ? "no samples" : "", totals->samples, count);
}

/* {"OVHD": n, ...}; NULL when memory runs out. */
static json_t *json_states(const int64_t *counts)
{
    json_t *states = json_object();
    int failed = 0;
    for (int state = 1; state < OMPC_NSTATES && !failed; state++)
        failed = ompc_json_set(states, ompc_state_name(state), json_integer(counts[state]));
    return ompc_json_built(states, failed);
}

/* A rank, or null for none. */
static json_t *json_rank(int64_t rank)
{
    return rank >= 0 ? json_integer(rank) : json_null();
}

/* A report's "limits" as it gave them, its record damage among them ("what": "record_damage", "count": findings). */
json_t *ompc_merge_json_limits(const struct ompc_merge_input *input)
{
    json_t *limits = json_array();
    int failed = 0;
    for (size_t i = 0; i < input->limit_count && !failed; i++) {
        const struct ompc_merge_limit *limit = &input->limits[i];
        failed = ompc_json_append(limits, json_pack("{s:o, s:I, s:I, s:o}", "what",
                                                    ompc_json_text(limit->what.text, limit->what.length),
                                                    "count", (json_int_t)limit->count, "bound",
                                                    (json_int_t)limit->bound, "text",
                                                    ompc_json_text(limit->text.text, limit->text.length)));
    }
    return ompc_json_built(limits, failed);
}

/* One report's entry of "reports". */
static json_t *json_report(const struct ompc_merge_input *input)
{
    json_t *mpi = json_pack("{s:b, s:I, s:I, s:I, s:I, s:I}", "measured", input->mpi_measured, "samples",
                            (json_int_t)input->mpi_samples, "ns", (json_int_t)input->mpi_ns, "calls",
                            (json_int_t)input->mpi_calls, "initial_thread_ns", (json_int_t)input->initial_mpi_ns,
                            "outside_mpi_ns", (json_int_t)ompc_merge_outside_mpi_ns(input));
    return json_pack("{s:o, s:o, s:I, s:o, s:o, s:b, s:I, s:I, s:I, s:o, s:o, s:o}", "file",
                     ompc_json_string(input->file), "program",
                     ompc_json_text(input->program.text, input->program.length), "pid", (json_int_t)input->pid,
                     "rank", json_rank(input->rank), "host", ompc_json_text(input->host.text, input->host.length),
                     "complete", input->complete, "wall_ns", (json_int_t)input->wall_ns, "threads",
                     (json_int_t)input->threads, "samples", (json_int_t)input->samples, "states",
                     json_states(input->states), "mpi", mpi, "limits", ompc_merge_json_limits(input));
}

/* A ratio to the 6 decimals merge always wrote. */
static json_t *json_ratio(double value)
{
    return ompc_json_fixed(value, 6);
}

/* {"wall": x, "OVHD": x, ...} of the imbalances. */
static json_t *json_imbalance(const double *spread)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "wall", json_ratio(spread[0]));
    for (int state = 1; state < OMPC_NSTATES && !failed; state++)
        failed = ompc_json_set(object, ompc_state_name(state), json_ratio(spread[state]));
    return ompc_json_built(object, failed);
}

/* A text from a report, or null. */
static json_t *json_text_or_null(const struct ompc_merge_text *text)
{
    return text->text != NULL ? ompc_json_text(text->text, text->length) : json_null();
}

/* A code location without its address (which differs by process): what matches rows across reports, and its name. */
json_t *ompc_merge_json_place(const struct ompc_merge_location *where)
{
    static const char *const kinds[] = {"none", "module", "symbol", "line"};
    char name[512];
    json_t *object = json_object();
    int failed = ompc_json_set(object, "name", ompc_json_string(ompc_merge_place_name(where, name, sizeof name)));
    failed |= ompc_json_set(object, "kind", json_string(kinds[where->kind]));
    failed |= ompc_json_set(object, "function", json_text_or_null(&where->function));
    failed |= ompc_json_set(object, "mangled", json_text_or_null(&where->mangled));
    failed |= ompc_json_set(object, "file", json_text_or_null(&where->file));
    failed |= ompc_json_set(object, "line", where->line >= 0 ? json_integer(where->line) : json_null());
    failed |= ompc_json_set(object, "module", json_text_or_null(&where->module));
    failed |= ompc_json_set(object, "module_offset", ompc_json_hex(where->module_offset, 0));
    if (where->enclosing.text != NULL)
        failed |= ompc_json_set(object, "enclosing", json_text_or_null(&where->enclosing));
    return ompc_json_built(object, failed);
}

/* One merged construct of "constructs". */
static json_t *json_construct(const struct merged_construct *row, const struct ompc_merge_input *inputs, int count)
{
    const struct ompc_merge_input *slow = &inputs[row->slowest];
    json_t *object = json_object();
    int failed = ompc_json_set(object, "location", ompc_merge_json_place(row->where));
    failed |= ompc_json_set(object, "processes", json_integer(row->reports));
    failed |= ompc_json_set(object, "instances", json_integer(row->instances));
    failed |= ompc_json_set(object, "time_ns", json_integer(row->total_ns));
    failed |= ompc_json_set(object, "min_ns", json_integer(row->min_ns));
    failed |= ompc_json_set(object, "mean_ns", json_integer(row->total_ns / count));
    failed |= ompc_json_set(object, "max_ns", json_integer(row->max_ns));
    failed |= ompc_json_set(object, "imbalance", json_ratio(spread_of(row->max_ns, row->total_ns, count)));
    failed |= ompc_json_set(object, "longest_instance_ns", json_integer(row->longest_ns));
    failed |= ompc_json_set(object, "samples", json_integer(row->samples));
    failed |= ompc_json_set(object, "states", json_states(row->states));
    failed |= ompc_json_set(object, "slowest", json_pack("{s:o, s:I, s:o, s:I}", "file", ompc_json_string(slow->file),
                                                         "pid", (json_int_t)slow->pid, "rank", json_rank(slow->rank),
                                                         "time_ns", (json_int_t)row->max_ns));
    return ompc_json_built(object, failed);
}

/* One merged wait of "wait_locations". */
static json_t *json_wait(const struct merged_wait *row)
{
    char what[256];
    const struct ompc_merge_location *object_where = &row->first->object;
    json_t *object = json_object();
    int failed = ompc_json_set(object, "state", json_string(ompc_state_name(row->first->state)));
    failed |= ompc_json_set(object, "what", row->what_differs ? ompc_json_string(wait_name(row, what, sizeof what))
                                                              : json_text_or_null(&row->first->what));
    failed |= ompc_json_set(object, "location", ompc_merge_json_place(&row->first->where));
    failed |= ompc_json_set(object, "object", object_where->kind > 0 && object_where->module.text != NULL
                                                  ? ompc_merge_json_place(object_where) : json_null());
    failed |= ompc_json_set(object, "processes", json_integer(row->reports));
    failed |= ompc_json_set(object, "samples", json_integer(row->samples));
    failed |= ompc_json_set(object, "min_samples", json_integer(row->min_samples));
    failed |= ompc_json_set(object, "max_samples", json_integer(row->max_samples));
    failed |= ompc_json_set(object, "threads", json_integer(row->threads));
    return ompc_json_built(object, failed);
}

/* The "constructs" and "wait_locations" arrays; -1 when memory runs out. */
static int json_places(json_t *summary, const struct merged_places *places, const struct ompc_merge_input *inputs,
                       int count)
{
    json_t *constructs = json_array(), *waits = json_array();
    int failed = 0;
    for (long i = 0; i < places->construct_count && !failed; i++)
        failed = ompc_json_append(constructs, json_construct(&places->constructs[i], inputs, count));
    for (long i = 0; i < places->wait_count && !failed; i++)
        failed = ompc_json_append(waits, json_wait(&places->waits[i]));
    failed |= ompc_json_set(summary, "constructs", constructs);
    failed |= ompc_json_set(summary, "wait_locations", waits);
    return failed ? -1 : 0;
}

/* The "reports" and "regions" arrays. */
static json_t *json_lists(const struct ompc_merge_input *inputs, int count, const struct merged_region *regions,
                          long region_count, json_t **region_list)
{
    json_t *reports = json_array();
    *region_list = json_array();
    int failed = reports == NULL || *region_list == NULL;
    for (int i = 0; i < count && !failed; i++)
        failed = json_array_append_new(reports, json_report(&inputs[i])) != 0;
    for (long i = 0; i < region_count && !failed; i++) {
        const struct merged_region *region = &regions[i];
        failed = json_array_append_new(*region_list,
                                       json_pack("{s:I, s:i, s:I, s:I, s:I, s:I}", "id", (json_int_t)region->id,
                                                 "processes", region->reports, "time_ns",
                                                 (json_int_t)region->time_ns, "min_ns",
                                                 (json_int_t)region->min_ns, "max_ns",
                                                 (json_int_t)region->max_ns, "samples",
                                                 (json_int_t)region->samples)) != 0;
    }
    if (failed) {
        json_decref(reports);
        json_decref(*region_list);
        *region_list = reports = NULL;
    }
    return reports;
}

/* The summary as JSON, built and written by jansson; -1 when memory runs out or writing fails. */
static int write_json(FILE *out, const struct ompc_merge_input *inputs, int count, const struct totals *totals,
                      const double *spread, const struct merged_region *regions, long region_count,
                      const struct merged_places *places, const struct ompc_hybrid *hybrid)
{
    const struct ompc_merge_input *slow = &inputs[slowest(inputs, count)];
    json_t *region_list, *reports = json_lists(inputs, count, regions, region_count, &region_list);
    json_t *summary = json_pack(
        "{s:s, s:s, s:o, s:{s:o, s:I, s:o, s:I}, s:o, s:o, s:{s:i, s:I, s:I, s:o}}", "tool",
        "ompcollect merge", "version", PACKAGE_VERSION, "reports", reports, "slowest", "file",
        ompc_json_string(slow->file), "pid", (json_int_t)slow->pid, "rank", json_rank(slow->rank),
        "wall_ns", (json_int_t)slow->wall_ns, "imbalance", json_imbalance(spread), "regions", region_list,
        "totals", "reports", count, "threads", (json_int_t)totals->threads, "samples",
        (json_int_t)totals->samples, "states", json_states(totals->states));
    if (summary != NULL && ompc_json_set(json_object_get(summary, "totals"), "mpi_samples",
                                         json_integer(totals->mpi_samples)) != 0) {
        json_decref(summary);
        summary = NULL;
    }
    if (summary != NULL
        && (json_places(summary, places, inputs, count) != 0
            || ompc_json_set(summary, "hybrid", ompc_merge_hybrid_json(inputs, count, hybrid)) != 0
            || ompc_json_set(summary, "mpi_calls", ompc_merge_mpi_json(inputs, count, places->mpi_calls,
                                                                       places->mpi_call_count)) != 0)) {
        json_decref(summary);
        summary = NULL;
    }
    int status = ompc_json_dump(summary, out, OMPC_JSON_READABLE) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(summary);
    return status;
}

/* What merge's CSV tables are written from. */
struct merge_csv {
    const struct ompc_merge_input *inputs;
    int count;
    const struct totals *totals;
    const double *spread;
    const struct merged_region *regions;
    long region_count;
    const struct merged_places *places;
    const struct ompc_hybrid *hybrid;
};

/* A report's text as a CSV field (empty for null). */
static void csv_text(FILE *out, const struct ompc_merge_text *text)
{
    ompc_csv_string(out, text->text);
}

/* ",RANK" of a report (empty for none). */
static void csv_rank(FILE *out, int64_t rank)
{
    fputc(',', out);
    if (rank >= 0)
        fprintf(out, "%" PRId64, rank);
}

void ompc_merge_csv_place(FILE *out, const struct ompc_merge_location *where)
{
    csv_text(out, &where->function);
    fputc(',', out);
    csv_text(out, &where->file);
    fputc(',', out);
    if (where->line >= 0)
        fprintf(out, "%" PRId64, where->line);
    fputc(',', out);
    csv_text(out, &where->module);
    fputc(',', out);
    if (where->kind > 0)
        fprintf(out, "0x%" PRIx64, where->module_offset);
}

/* The "report" table (one row a process, as the text's table of processes) and its "limit" rows. */
static int csv_reports(struct ompc_csv_tables *tables, const struct merge_csv *m)
{
    FILE *out = ompc_csv_begin(tables, "report");
    if (out == NULL)
        return -1;
    fputs("report,program,pid,rank,host,complete,fate,wall_ns,interval_ns,threads,samples", out);
    ompc_csv_state_names(out);
    fputs(",mpi_measured,mpi_samples,mpi_ns,mpi_calls,initial_mpi_ns,setup_ns,idle_samples,outside_mpi_ns\n", out);
    for (int i = 0; i < m->count; i++) {
        const struct ompc_merge_input *input = &m->inputs[i];
        ompc_csv_lead(tables);
        ompc_csv_string(out, input->file);
        fputc(',', out);
        csv_text(out, &input->program);
        fprintf(out, ",%" PRId64, input->pid);
        csv_rank(out, input->rank);
        fputc(',', out);
        csv_text(out, &input->host);
        fprintf(out, ",%d,", input->complete);
        csv_text(out, &input->fate);
        fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64, input->wall_ns, input->interval_ns,
                input->threads, input->samples);
        for (int state = 1; state < OMPC_NSTATES; state++)
            fprintf(out, ",%" PRId64, input->states[state]);
        fprintf(out, ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
                input->mpi_measured, input->mpi_samples, input->mpi_ns, input->mpi_calls, input->initial_mpi_ns,
                input->mpi_setup_ns, input->mpi_idle_samples, ompc_merge_outside_mpi_ns(input));
    }
    if ((out = ompc_csv_begin(tables, "limit")) == NULL)
        return -1;
    fputs("report,what,count,bound,text\n", out);
    for (int i = 0; i < m->count; i++)
        for (size_t l = 0; l < m->inputs[i].limit_count; l++) {
            const struct ompc_merge_limit *limit = &m->inputs[i].limits[l];
            ompc_csv_lead(tables);
            ompc_csv_string(out, m->inputs[i].file);
            fputc(',', out);
            csv_text(out, &limit->what);
            fprintf(out, ",%" PRId64 ",%" PRId64 ",", limit->count, limit->bound);
            csv_text(out, &limit->text);
            fputc('\n', out);
        }
    return 0;
}

/* The "totals" table (the sums and the slowest process) and the "imbalance" table (wall, then each state). */
static int csv_totals(struct ompc_csv_tables *tables, const struct merge_csv *m)
{
    const struct ompc_merge_input *slow = &m->inputs[slowest(m->inputs, m->count)];
    FILE *out = ompc_csv_begin(tables, "totals");
    if (out == NULL)
        return -1;
    fputs("reports,threads,samples", out);
    ompc_csv_state_names(out);
    fputs(",mpi_samples,slowest_report,slowest_pid,slowest_rank,slowest_wall_ns\n", out);
    ompc_csv_lead(tables);
    fprintf(out, "%d,%" PRId64 ",%" PRId64, m->count, m->totals->threads, m->totals->samples);
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, ",%" PRId64, m->totals->states[state]);
    fprintf(out, ",%" PRId64 ",", m->totals->mpi_samples);
    ompc_csv_string(out, slow->file);
    fprintf(out, ",%" PRId64, slow->pid);
    csv_rank(out, slow->rank);
    fprintf(out, ",%" PRId64 "\n", slow->wall_ns);
    if ((out = ompc_csv_begin(tables, "imbalance")) == NULL)
        return -1;
    fputs("what,imbalance\n", out);
    for (int state = 0; state < OMPC_NSTATES; state++) {
        ompc_csv_lead(tables);
        fprintf(out, "%s,%.6f\n", state == 0 ? "wall" : ompc_state_name(state), m->spread[state]);
    }
    return 0;
}

/* The "region" table: every region id over the reports, most time first. */
static int csv_regions(struct ompc_csv_tables *tables, const struct merge_csv *m)
{
    FILE *out = ompc_csv_begin(tables, "region");
    if (out == NULL)
        return -1;
    fputs("id,processes,time_ns,min_ns,max_ns,samples\n", out);
    for (long i = 0; i < m->region_count; i++) {
        const struct merged_region *row = &m->regions[i];
        ompc_csv_lead(tables);
        fprintf(out, "%" PRId64 ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", row->id, row->reports,
                row->time_ns, row->min_ns, row->max_ns, row->samples);
    }
    return 0;
}

/* The "construct" table: every construct matched by code location, most time first. */
static int csv_constructs(struct ompc_csv_tables *tables, const struct merge_csv *m)
{
    FILE *out = ompc_csv_begin(tables, "construct");
    if (out == NULL)
        return -1;
    fputs("function,file,line,module,module_offset,processes,instances,time_ns,min_ns,mean_ns,max_ns,imbalance,"
          "longest_instance_ns,samples", out);
    ompc_csv_state_names(out);
    fputs(",slowest_report,slowest_pid,slowest_rank\n", out);
    for (long i = 0; i < m->places->construct_count; i++) {
        const struct merged_construct *row = &m->places->constructs[i];
        const struct ompc_merge_input *slow = &m->inputs[row->slowest];
        ompc_csv_lead(tables);
        ompc_merge_csv_place(out, row->where);
        fprintf(out, ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%.6f,%" PRId64 ",%" PRId64,
                row->reports, row->instances, row->total_ns, row->min_ns, row->total_ns / m->count, row->max_ns,
                spread_of(row->max_ns, row->total_ns, m->count), row->longest_ns, row->samples);
        for (int state = 1; state < OMPC_NSTATES; state++)
            fprintf(out, ",%" PRId64, row->states[state]);
        fputc(',', out);
        ompc_csv_string(out, slow->file);
        fprintf(out, ",%" PRId64, slow->pid);
        csv_rank(out, slow->rank);
        fputc('\n', out);
    }
    return 0;
}

/* The "wait_location" table: every wait matched by state, code location and object, most samples first. */
static int csv_waits(struct ompc_csv_tables *tables, const struct merge_csv *m)
{
    FILE *out = ompc_csv_begin(tables, "wait_location");
    if (out == NULL)
        return -1;
    fputs("state,what,function,file,line,module,module_offset,processes,samples,min_samples,max_samples,threads\n",
          out);
    for (long i = 0; i < m->places->wait_count; i++) {
        const struct merged_wait *row = &m->places->waits[i];
        char what[256];
        ompc_csv_lead(tables);
        fprintf(out, "%s,", ompc_state_name(row->first->state));
        ompc_csv_string(out, wait_name(row, what, sizeof what));
        fputc(',', out);
        ompc_merge_csv_place(out, &row->first->where);
        fprintf(out, ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", row->reports, row->samples,
                row->min_samples, row->max_samples, row->threads);
    }
    return 0;
}

/* The summary as CSV tables into a stream; -1 when memory runs out or the write fails. */
static int write_csv(struct ompc_sink *sink, const struct merge_csv *m)
{
    struct ompc_csv_tables tables = {sink, NULL, NULL};
    if (csv_reports(&tables, m) != 0 || csv_totals(&tables, m) != 0
        || (m->hybrid->measured > 0 && ompc_merge_hybrid_csv(&tables, m->inputs, m->count, m->hybrid) != 0)
        || ompc_merge_mpi_csv(&tables, m->inputs, m->count, m->places->mpi_calls, m->places->mpi_call_count) != 0
        || csv_regions(&tables, m) != 0 || csv_constructs(&tables, m) != 0 || csv_waits(&tables, m) != 0)
        return -1;
    return ferror(sink->out) ? -1 : 0;
}

int ompc_merge_write(FILE *out, int format, struct ompc_merge_input *inputs, int count, char *error,
                     size_t error_size)
{
    struct totals totals;
    double spread[OMPC_NSTATES];
    if (check_processes(inputs, count, error, error_size) != 0
        || sum_totals(inputs, count, &totals, error, error_size) != 0)
        return -1;
    if (imbalances(inputs, count, spread) != 0)
        return snprintf(error, error_size, "out of memory"), -1;
    qsort(inputs, (size_t)count, sizeof *inputs, compare_inputs);
    struct merged_region *regions = NULL;
    struct merged_places places = {NULL, 0, NULL, 0, NULL, 0};
    long region_count = merge_regions(inputs, count, &regions, error, error_size);
    if (region_count >= 0)
        places.construct_count = merge_constructs(inputs, count, &places.constructs, error, error_size);
    if (region_count >= 0 && places.construct_count >= 0)
        places.wait_count = merge_waits(inputs, count, &places.waits, error, error_size);
    if (region_count >= 0 && places.construct_count >= 0 && places.wait_count >= 0)
        places.mpi_call_count = ompc_merge_mpi_calls(inputs, count, &places.mpi_calls, error, error_size);
    int status = region_count < 0 || places.construct_count < 0 || places.wait_count < 0 || places.mpi_call_count < 0
                 ? -1 : 0;
    struct ompc_hybrid hybrid;
    ompc_merge_hybrid(inputs, count, &hybrid);
    if (status == 0)
        ompc_merge_mpi_gains(places.mpi_calls, places.mpi_call_count, count, hybrid.runtime_s);
    if (status == 0 && format == OMPC_FORMAT_JSON) {
        status = write_json(out, inputs, count, &totals, spread, regions, region_count, &places, &hybrid);
        if (status != 0)
            snprintf(error, error_size, "out of memory or the output failed");
    } else if (status == 0 && format == OMPC_FORMAT_CSV) {
        struct ompc_sink sink = {.kind = OMPC_SINK_STREAM, .out = out};
        struct merge_csv csv = {inputs, count, &totals, spread, regions, region_count, &places, &hybrid};
        status = write_csv(&sink, &csv);
        if (status != 0)
            snprintf(error, error_size, "out of memory or the output failed");
    } else if (status == 0)
        write_text(out, inputs, count, &totals, spread, &places, &hybrid);
    free(regions);
    free(places.constructs);
    free(places.waits);
    free(places.mpi_calls);
    return status;
}
