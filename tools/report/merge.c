/* merge.c - ompcollect merge: one cross-process summary (per rank and total states, slowest rank, imbalance, top regions) from several JSON reports. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "json.h"
#include "names.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reports larger than this are not ompcollect's. */
#define MAX_REPORT_SIZE ((size_t)256 << 20)
#define TOP_REGIONS 10

/* What merge takes from one report. */
struct input {
    const char *file;
    struct ompc_json *root;
    const char *program;
    const char *host;
    long pid;
    int rank;             /* -1: none */
    int complete;
    const char *fate;
    double wall_ns;
    double interval_ns;
    double threads;       /* OpenMP threads */
    double other_threads; /* threads the runtime never reported */
    double samples;
    double states[OMPC_NSTATES];
};

/* One region id over every report that has it. */
struct merged_region {
    double id;
    int reports;
    double time_ns, min_ns, max_ns;
    double samples;
    double states[OMPC_NSTATES];
};

/* Prints a message prefixed "ompcollect:", like every message of the launcher. */
static void complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void complain(const char *fmt, ...)
{
    va_list args;
    fputs("ompcollect: ", stderr);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
}

/* The whole of a file, NUL-terminated; NULL with a message. */
static char *read_whole(const char *path, size_t *length)
{
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        complain("cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t used = 0, capacity = 0;
    for (;;) {
        if (capacity - used < 65536) {
            capacity = capacity ? 2 * capacity : 131072;
            char *grown = capacity <= MAX_REPORT_SIZE ? realloc(text, capacity + 1) : NULL;
            if (grown == NULL) {
                complain("%s is too large for an ompcollect report", path);
                free(text);
                fclose(file);
                return NULL;
            }
            text = grown;
        }
        size_t got = fread(text + used, 1, capacity - used, file);
        used += got;
        if (got == 0)
            break;
    }
    int failed = ferror(file);
    fclose(file);
    if (failed) {
        complain("cannot read %s", path);
        free(text);
        return NULL;
    }
    text[used] = '\0';
    *length = used;
    return text;
}

/* Parses one report and takes what the summary needs; -1 with a message when it is not an ompcollect report. */
static int load(const char *path, struct input *input)
{
    memset(input, 0, sizeof *input);
    input->file = path;
    size_t length;
    char *text = read_whole(path, &length);
    if (text == NULL)
        return -1;
    char error[128];
    input->root = ompc_json_parse(text, length, error, sizeof error);
    free(text);
    if (input->root == NULL) {
        complain("%s is not valid JSON: %s", path, error);
        return -1;
    }
    const struct ompc_json *root = input->root;
    const struct ompc_json *totals = ompc_json_get(root, "totals");
    const struct ompc_json *states = ompc_json_get(totals, "states");
    if (strcmp(ompc_json_string(ompc_json_get(root, "tool"), ""), "ompcollect") != 0 || states == NULL) {
        complain("%s is not an ompcollect JSON report (write one with --format=json)", path);
        return -1;
    }
    input->program = ompc_json_string(ompc_json_get(root, "program"), "?");
    input->host = ompc_json_string(ompc_json_get(root, "host"), "");
    input->pid = (long)ompc_json_number(ompc_json_get(root, "pid"), 0);
    input->rank = (int)ompc_json_number(ompc_json_get(root, "rank"), -1);
    const struct ompc_json *complete = ompc_json_get(root, "complete");
    input->complete = complete == NULL || complete->type != OMPC_JSON_BOOL || complete->boolean;
    input->fate = ompc_json_string(ompc_json_get(ompc_json_get(root, "end"), "fate"), "");
    input->wall_ns = ompc_json_number(ompc_json_get(root, "wall_ns"), 0);
    input->interval_ns = ompc_json_number(ompc_json_get(root, "interval_ns"), 0);
    input->threads = ompc_json_number(ompc_json_get(totals, "threads"), 0);
    input->other_threads = ompc_json_number(ompc_json_get(ompc_json_get(root, "other_threads"), "threads"), 0);
    input->samples = ompc_json_number(ompc_json_get(totals, "samples"), 0);
    for (int state = 1; state < OMPC_NSTATES; state++)
        input->states[state] = ompc_json_number(ompc_json_get(states, ompc_state_name(state)), 0);
    return 0;
}

/* "rank 3" or "pid 1234", whichever names the report better. */
static void label(const struct input *input, char *buffer, size_t size)
{
    if (input->rank >= 0)
        snprintf(buffer, size, "rank %d", input->rank);
    else
        snprintf(buffer, size, "pid %ld", input->pid);
}

/* qsort order for inputs: by rank, then pid. */
static int compare_inputs(const void *a, const void *b)
{
    const struct input *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* qsort order for regions: most time over all reports first. */
static int compare_regions(const void *a, const void *b)
{
    const struct merged_region *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

/* qsort order for region rows: by id, so rows of one id end up adjacent. */
static int compare_region_ids(const void *a, const void *b)
{
    const struct merged_region *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Every region of every report, merged by id (sorted, then folded); returns the count, or -1 when memory runs out. */
static long merge_regions(const struct input *inputs, int count, struct merged_region **result)
{
    size_t capacity = 0, used = 0;
    struct merged_region *rows = NULL;
    for (int i = 0; i < count; i++) {
        const struct ompc_json *list = ompc_json_get(inputs[i].root, "regions");
        if (list == NULL || list->type != OMPC_JSON_ARRAY)
            continue;
        for (size_t k = 0; k < list->count; k++) {
            const struct ompc_json *region = &list->items[k];
            if (used == capacity) {
                capacity = capacity ? 2 * capacity : 64;
                struct merged_region *grown = realloc(rows, capacity * sizeof *grown);
                if (grown == NULL) {
                    free(rows);
                    return -1;
                }
                rows = grown;
            }
            struct merged_region *row = &rows[used++];
            memset(row, 0, sizeof *row);
            row->id = ompc_json_number(ompc_json_get(region, "id"), -1);
            row->reports = 1;
            row->time_ns = row->min_ns = row->max_ns = ompc_json_number(ompc_json_get(region, "time_ns"), 0);
            row->samples = ompc_json_number(ompc_json_get(region, "samples"), 0);
            const struct ompc_json *states = ompc_json_get(region, "states");
            for (int state = 1; state < OMPC_NSTATES; state++)
                row->states[state] = ompc_json_number(ompc_json_get(states, ompc_state_name(state)), 0);
        }
    }
    qsort(rows, used, sizeof *rows, compare_region_ids);
    size_t merged = 0;
    for (size_t i = 0; i < used; i++) {
        struct merged_region *into = merged > 0 ? &rows[merged - 1] : NULL;
        if (into == NULL || into->id != rows[i].id) {
            rows[merged++] = rows[i];
            continue;
        }
        into->reports++;
        into->time_ns += rows[i].time_ns;
        into->min_ns = rows[i].min_ns < into->min_ns ? rows[i].min_ns : into->min_ns;
        into->max_ns = rows[i].max_ns > into->max_ns ? rows[i].max_ns : into->max_ns;
        into->samples += rows[i].samples;
        for (int state = 1; state < OMPC_NSTATES; state++)
            into->states[state] += rows[i].states[state];
    }
    qsort(rows, merged, sizeof *rows, compare_regions);
    *result = rows;
    return (long)merged;
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

/* The up-to-three biggest states of a region row, as "WORK 51%, IBAR 37%". */
static void main_states(FILE *out, const double *states, double total)
{
    int shown[3] = {0, 0, 0};
    for (int rank = 0; rank < 3; rank++) {
        int best = 0;
        double best_count = 0;
        for (int state = 1; state < OMPC_NSTATES; state++)
            if (states[state] > best_count && state != shown[0] && state != shown[1]) {
                best = state;
                best_count = states[state];
            }
        if (best_count <= 0 || (rank > 0 && best_count * 100 < total))
            break;
        shown[rank] = best;
        fprintf(out, "%s%s %.0f%%", rank ? ", " : "", ompc_state_name(best), 100.0 * best_count / total);
    }
    if (total <= 0)
        fputs("-", out);
}

/* A share cell as in the report: "." for none. */
static void share(FILE *out, double part, double whole)
{
    if (part <= 0 || whole <= 0)
        fprintf(out, " %5s", ".");
    else
        fprintf(out, " %5.1f", 100.0 * part / whole);
}

/* JSON string literal. */
static void json_text(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

/* Index of the report with the longest wall time. */
static int slowest(const struct input *inputs, int count)
{
    int best = 0;
    for (int i = 1; i < count; i++)
        if (inputs[i].wall_ns > inputs[best].wall_ns)
            best = i;
    return best;
}

/* The summary as text. */
static void write_text(FILE *out, const struct input *inputs, int count, const double *totals,
                       double total_samples, double total_threads, const struct merged_region *regions,
                       long region_count)
{
    fprintf(out, "ompcollect merge: %d reports of %s\n", count, inputs[0].program);
    for (int i = 1; i < count; i++)
        if (strcmp(inputs[i].program, inputs[0].program) != 0) {
            fputs("  (the reports are of different programs)\n", out);
            break;
        }
    fputs("\nWhere each process's OpenMP threads spent their time (% of its samples; . = none):\n", out);
    fprintf(out, "  %-10s %7s %-12s %8s %7s %8s", "process", "pid", "host", "wall s", "threads", "samples");
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, " %5s", ompc_state_name(state));
    fputc('\n', out);
    for (int i = 0; i < count; i++) {
        char name[32];
        label(&inputs[i], name, sizeof name);
        fprintf(out, "  %-10s %7ld %-12.12s %8.3f %7.0f %8.0f", name, inputs[i].pid, inputs[i].host,
                inputs[i].wall_ns / 1e9, inputs[i].threads, inputs[i].samples);
        for (int state = 1; state < OMPC_NSTATES; state++)
            share(out, inputs[i].states[state], inputs[i].samples);
        fputs(inputs[i].complete ? "\n" : "  (incomplete)\n", out);
    }
    fprintf(out, "  %-10s %7s %-12s %8s %7.0f %8.0f", "all", "", "", "", total_threads, total_samples);
    for (int state = 1; state < OMPC_NSTATES; state++)
        share(out, totals[state], total_samples);
    fputc('\n', out);
    for (int i = 0; i < count; i++)
        if (!inputs[i].complete) {
            char name[32];
            label(&inputs[i], name, sizeof name);
            fprintf(out, "  %s (%s) is incomplete: %s\n", name, inputs[i].file, inputs[i].fate);
        }

    int slow = slowest(inputs, count);
    char name[32];
    label(&inputs[slow], name, sizeof name);
    double fastest = inputs[0].wall_ns;
    for (int i = 1; i < count; i++)
        fastest = inputs[i].wall_ns < fastest ? inputs[i].wall_ns : fastest;
    fprintf(out, "\nSlowest: %s (pid %ld on %s), wall %.3f s", name, inputs[slow].pid,
            inputs[slow].host, inputs[slow].wall_ns / 1e9);
    if (count > 1 && fastest > 0)
        fprintf(out, ", %.1f%% longer than the fastest (%.3f s)",
                100.0 * (inputs[slow].wall_ns / fastest - 1), fastest / 1e9);
    fputc('\n', out);

    double *values = malloc((size_t)count * sizeof *values);
    if (values != NULL) {
        fputs("Imbalance across processes (max / mean - 1; 0% = perfectly even):\n  wall", out);
        for (int i = 0; i < count; i++)
            values[i] = inputs[i].wall_ns;
        fprintf(out, " %.1f%%", 100.0 * imbalance(values, count));
        for (int state = 1; state < OMPC_NSTATES; state++) {
            if (totals[state] <= 0)
                continue;
            for (int i = 0; i < count; i++)
                values[i] = inputs[i].states[state] * inputs[i].interval_ns;
            fprintf(out, ", %s time %.1f%%", ompc_state_name(state), 100.0 * imbalance(values, count));
        }
        fputc('\n', out);
        free(values);
    }

    fputs("\nTop regions over all processes (by region id: the n-th region each forked, which\n"
          "matches constructs across the ranks of an SPMD program):\n",
          out);
    if (region_count == 0)
        fputs("  none\n", out);
    else
        fprintf(out, "  %8s %9s %11s %10s %10s %8s  %s\n", "region", "processes", "total ms",
                "min ms", "max ms", "samples", "main states");
    for (long i = 0; i < region_count && i < TOP_REGIONS; i++) {
        const struct merged_region *region = &regions[i];
        fprintf(out, "  %8.0f %9d %11.3f %10.3f %10.3f %8.0f  ", region->id, region->reports,
                region->time_ns / 1e6, region->min_ns / 1e6, region->max_ns / 1e6, region->samples);
        main_states(out, region->states, region->samples);
        fputc('\n', out);
    }
    if (region_count > TOP_REGIONS)
        fprintf(out, "  ... %ld more regions\n", region_count - TOP_REGIONS);

    fputs("\nTotals: ", out);
    int first = 1;
    for (int state = 1; state < OMPC_NSTATES; state++) {
        if (totals[state] <= 0)
            continue;
        fprintf(out, "%s%s %.1f%%", first ? "" : ", ", ompc_state_name(state),
                100.0 * totals[state] / total_samples);
        first = 0;
    }
    fprintf(out, "%s of %.0f samples in %d processes\n", first ? "no samples" : "", total_samples, count);
}

/* The summary as JSON. */
static void write_json(FILE *out, const struct input *inputs, int count, const double *totals,
                       double total_samples, double total_threads, const struct merged_region *regions,
                       long region_count)
{
    fputs("{\n  \"tool\": \"ompcollect merge\",\n  \"version\": ", out);
    json_text(out, PACKAGE_VERSION);
    fputs(",\n  \"reports\": [", out);
    for (int i = 0; i < count; i++) {
        fprintf(out, "%s\n    {\"file\": ", i ? "," : "");
        json_text(out, inputs[i].file);
        fputs(", \"program\": ", out);
        json_text(out, inputs[i].program);
        fprintf(out, ", \"pid\": %ld, \"rank\": ", inputs[i].pid);
        if (inputs[i].rank >= 0)
            fprintf(out, "%d", inputs[i].rank);
        else
            fputs("null", out);
        fputs(", \"host\": ", out);
        json_text(out, inputs[i].host);
        fprintf(out, ", \"complete\": %s, \"wall_ns\": %.0f, \"threads\": %.0f, \"samples\": %.0f, \"states\": {",
                inputs[i].complete ? "true" : "false", inputs[i].wall_ns, inputs[i].threads,
                inputs[i].samples);
        for (int state = 1; state < OMPC_NSTATES; state++)
            fprintf(out, "%s\"%s\": %.0f", state > 1 ? ", " : "", ompc_state_name(state),
                    inputs[i].states[state]);
        fputs("}}", out);
    }
    int slow = slowest(inputs, count);
    fprintf(out, "\n  ],\n  \"slowest\": {\"file\": ");
    json_text(out, inputs[slow].file);
    fprintf(out, ", \"pid\": %ld, \"rank\": ", inputs[slow].pid);
    if (inputs[slow].rank >= 0)
        fprintf(out, "%d", inputs[slow].rank);
    else
        fputs("null", out);
    fprintf(out, ", \"wall_ns\": %.0f},\n  \"imbalance\": {", inputs[slow].wall_ns);
    double *values = malloc((size_t)count * sizeof *values);
    if (values != NULL) {
        for (int i = 0; i < count; i++)
            values[i] = inputs[i].wall_ns;
        fprintf(out, "\"wall\": %.6f", imbalance(values, count));
        for (int state = 1; state < OMPC_NSTATES; state++) {
            for (int i = 0; i < count; i++)
                values[i] = inputs[i].states[state] * inputs[i].interval_ns;
            fprintf(out, ", \"%s\": %.6f", ompc_state_name(state), imbalance(values, count));
        }
        free(values);
    }
    fputs("},\n  \"regions\": [", out);
    for (long i = 0; i < region_count; i++) {
        const struct merged_region *region = &regions[i];
        fprintf(out,
                "%s\n    {\"id\": %.0f, \"processes\": %d, \"time_ns\": %.0f, \"min_ns\": %.0f, "
                "\"max_ns\": %.0f, \"samples\": %.0f}",
                i ? "," : "", region->id, region->reports, region->time_ns, region->min_ns,
                region->max_ns, region->samples);
    }
    fprintf(out, "\n  ],\n  \"totals\": {\"reports\": %d, \"threads\": %.0f, \"samples\": %.0f, \"states\": {",
            count, total_threads, total_samples);
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, "%s\"%s\": %.0f", state > 1 ? ", " : "", ompc_state_name(state), totals[state]);
    fputs("}}\n}\n", out);
}

/* ompcollect merge [-f text|json] [-o FILE] REPORT.json...; exit 0, 1 on unreadable input, 2 on usage errors. */
int ompc_merge_main(int argc, char **argv)
{
    static const struct option options[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int format = OMPC_FORMAT_TEXT;
    const char *output = NULL;
    int option;
    opterr = 0;
    optind = 1;
    while ((option = getopt_long(argc, argv, ":f:o:h", options, NULL)) != -1) {
        switch (option) {
        case 'f':
            format = ompc_parse_format(optarg);
            if (format != OMPC_FORMAT_TEXT && format != OMPC_FORMAT_JSON) {
                complain("--format must be text or json, not '%s'", optarg);
                return 2;
            }
            break;
        case 'o':
            output = optarg;
            break;
        case 'h':
            printf("Usage: ompcollect merge [-f text|json] [-o FILE] REPORT.json...\n"
                   "Sum JSON reports of several processes or MPI ranks (ompcollect -f json -o\n"
                   "report.%%r.json) into one summary: each process's and the total state\n"
                   "breakdown, the slowest process, the imbalance across them, and the regions\n"
                   "that took longest over all of them.\n");
            return 0;
        case ':':
            complain("option '%s' needs a value", argv[optind - 1]);
            return 2;
        default:
            complain("unknown option '%s'", argv[optind - 1]);
            return 2;
        }
    }
    int count = argc - optind;
    if (count < 1) {
        complain("no reports to merge (give JSON reports written with --format=json)");
        return 2;
    }
    struct input *inputs = calloc((size_t)count, sizeof *inputs);
    if (inputs == NULL) {
        complain("out of memory");
        return 1;
    }
    int status = 0;
    for (int i = 0; i < count; i++)
        if (load(argv[optind + i], &inputs[i]) != 0)
            status = 1;
    if (status == 0) {
        qsort(inputs, (size_t)count, sizeof *inputs, compare_inputs);
        double totals[OMPC_NSTATES] = {0}, total_samples = 0, total_threads = 0;
        for (int i = 0; i < count; i++) {
            total_samples += inputs[i].samples;
            total_threads += inputs[i].threads;
            for (int state = 1; state < OMPC_NSTATES; state++)
                totals[state] += inputs[i].states[state];
        }
        struct merged_region *regions = NULL;
        long region_count = merge_regions(inputs, count, &regions);
        FILE *out = output != NULL ? fopen(output, "w") : stdout;
        if (region_count < 0) {
            complain("out of memory");
            status = 1;
        } else if (out == NULL) {
            complain("cannot write %s: %s", output, strerror(errno));
            status = 1;
        } else {
            if (format == OMPC_FORMAT_JSON)
                write_json(out, inputs, count, totals, total_samples, total_threads, regions, region_count);
            else
                write_text(out, inputs, count, totals, total_samples, total_threads, regions, region_count);
            if ((out != stdout ? fclose(out) : fflush(out)) != 0) {
                complain("writing the summary failed: %s", strerror(errno));
                status = 1;
            }
        }
        free(regions);
    }
    for (int i = 0; i < count; i++)
        ompc_json_free(inputs[i].root);
    free(inputs);
    return status;
}
