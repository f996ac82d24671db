/* merge_mpi.c - ompcollect merge's MPI calls by call and location: the ranks' call sites matched by call and source line and summed, with each one's slowest rank, and each rank's own longest calls, as text, JSON and CSV. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "checked.h"
#include "csv.h"
#include "demangle.h"
#include "jsonw.h"
#include "merge.h"
#include "merge_mpi.h"
#include "sort.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How many rows the text shows over the ranks, and per rank. */
#define TEXT_CALLS 10
#define TEXT_RANK_CALLS 3

/* One report's site, before the sites of one call and location are folded. */
struct site_row {
    int input;
    const struct ompc_merge_mpi_site *site;
};

int ompc_merge_compare_mpi_sites(const struct ompc_merge_mpi_site *x, const struct ompc_merge_mpi_site *y)
{
    int call = ompc_merge_compare_texts(&x->call, &y->call);
    if (call != 0)
        return call;
    /* A line is the same in every rank and build; a function's name next; an address only without ASLR. */
    int x_line = ompc_merge_has_line(&x->where), y_line = ompc_merge_has_line(&y->where);
    if (x_line != y_line)
        return y_line - x_line;
    if (x_line)
        return ompc_merge_compare_places(&x->where, &y->where);
    int x_named = x->where.function.text != NULL, y_named = y->where.function.text != NULL;
    if (x_named != y_named)
        return y_named - x_named;
    if (x_named)
        return ompc_merge_compare_texts(&x->where.function, &y->where.function);
    return (x->where.address > y->where.address) - (x->where.address < y->where.address);
}

/* qsort: by call and location, then report. */
static int compare_rows(const void *a, const void *b)
{
    const struct site_row *x = a, *y = b;
    int place = ompc_merge_compare_mpi_sites(x->site, y->site);
    return place != 0 ? place : x->input - y->input;
}

/* qsort: most time first, then by call and location. */
static int compare_merged(const void *a, const void *b)
{
    const struct ompc_merged_mpi_call *x = a, *y = b;
    return x->ns != y->ns ? ompc_order_i64(y->ns, x->ns) : ompc_merge_compare_mpi_sites(x->first, y->first);
}

/* Every report's sites, sorted for folding; NULL when memory runs out. */
static struct site_row *site_rows(const struct ompc_merge_input *inputs, int count, size_t *used)
{
    size_t total = 0;
    for (int i = 0; i < count; i++)
        total += inputs[i].mpi_site_count;
    struct site_row *rows = calloc(total ? total : 1, sizeof *rows);
    *used = 0;
    for (int i = 0; i < count && rows != NULL; i++)
        for (size_t k = 0; k < inputs[i].mpi_site_count; k++)
            rows[(*used)++] = (struct site_row){i, &inputs[i].mpi_sites[k]};
    if (rows != NULL)
        qsort(rows, *used, sizeof *rows, compare_rows);
    return rows;
}

/* Ends one report's part of a merged row: its time there counts toward the min, max and slowest. */
static void close_report(struct ompc_merged_mpi_call *into, int input, int64_t report_ns)
{
    if (into->reports == 0 || report_ns > into->max_ns) {
        into->slowest = input;
        into->max_ns = report_ns;
    }
    into->min_ns = into->reports == 0 || report_ns < into->min_ns ? report_ns : into->min_ns;
    into->reports++;
}

long ompc_merge_mpi_calls(const struct ompc_merge_input *inputs, int count, struct ompc_merged_mpi_call **result,
                          char *error, size_t error_size)
{
    size_t used;
    struct site_row *rows = site_rows(inputs, count, &used);
    struct ompc_merged_mpi_call *merged = calloc(used ? used : 1, sizeof *merged);
    long made = 0;
    int64_t report_ns = 0;
    if (rows == NULL || merged == NULL) {
        free(rows);
        free(merged);
        return snprintf(error, error_size, "out of memory"), -1;
    }
    for (size_t i = 0; i < used; i++) {
        const struct site_row *row = &rows[i];
        if (i == 0 || ompc_merge_compare_mpi_sites(rows[i - 1].site, row->site) != 0)
            merged[made++].first = row->site;
        struct ompc_merged_mpi_call *into = &merged[made - 1];
        if (ompc_add_count(&into->calls, row->site->calls) | ompc_add_count(&into->ns, row->site->ns)
            | ompc_add_count(&into->samples, row->site->samples) | ompc_add_count(&report_ns, row->site->ns)) {
            free(rows);
            free(merged);
            snprintf(error, error_size, "%s: the sum of totals.mpi.sites[].ns over the reports would pass %" PRId64,
                     inputs[row->input].file, INT64_MAX);
            return -1;
        }
        if (i + 1 == used || compare_rows(row, &rows[i + 1]) != 0) {
            close_report(into, row->input, report_ns);
            report_ns = 0;
        }
    }
    for (long i = 0; i < made; i++)
        if (merged[i].reports < count)
            merged[i].min_ns = 0;
    free(rows);
    qsort(merged, (size_t)made, sizeof *merged, compare_merged);
    *result = merged;
    return made;
}

const char *ompc_merge_mpi_place(const struct ompc_merge_mpi_site *site, char *buffer, size_t size)
{
    const struct ompc_merge_location *where = &site->where;
    if (ompc_merge_has_line(where) || where->function.text == NULL)
        return ompc_merge_place_name(where, buffer, size);
    ompc_short_name(where->function.text, OMPC_SHORT_PARAMETERS | OMPC_SHORT_TEMPLATES, buffer, size);
    for (char *c = buffer; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return buffer;
}

/* "rank 3" or "pid 1234". */
static void label(const struct ompc_merge_input *input, char *buffer, size_t size)
{
    if (input->rank >= 0)
        snprintf(buffer, size, "rank %" PRId64, input->rank);
    else
        snprintf(buffer, size, "pid %" PRId64, input->pid);
}

/* A call's name on one line, within 24 characters. */
static const char *call_name(const struct ompc_merge_mpi_site *site, char *buffer, size_t size)
{
    snprintf(buffer, size, "%s", site->call.text);
    for (char *c = buffer; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return buffer;
}

/* Each rank's longest calls, a few a rank. */
static void text_ranks(FILE *out, const struct ompc_merge_input *inputs, int count)
{
    fprintf(out, "  Each rank's longest MPI calls (up to %d; its report lists them all):\n", TEXT_RANK_CALLS);
    for (int i = 0; i < count; i++) {
        char name[32], call[64], place[512];
        label(&inputs[i], name, sizeof name);
        if (inputs[i].mpi_site_count == 0)
            fprintf(out, "    %-10s none\n", name);
        for (size_t k = 0; k < inputs[i].mpi_site_count && k < TEXT_RANK_CALLS; k++) {
            const struct ompc_merge_mpi_site *site = &inputs[i].mpi_sites[k];
            fprintf(out, "    %-10s %-18s at %-36s %9.3f s %8" PRId64 " calls%s\n", k == 0 ? name : "",
                    call_name(site, call, sizeof call), ompc_merge_mpi_place(site, place, sizeof place),
                    (double)site->ns / 1e9, site->calls, site->setup ? "  (start/end)" : "");
        }
    }
}

void ompc_merge_mpi_gains(struct ompc_merged_mpi_call *calls, long call_count, int count, double runtime_s)
{
    for (long i = 0; i < call_count; i++) {
        struct ompc_merged_mpi_call *row = &calls[i];
        /* Starting and ending MPI is no waiting a balanced layout removes. */
        row->balanced_ns = row->first->setup || count <= 0 ? 0 : row->ns / count;
        row->balanced_share = runtime_s > 0 ? (double)row->balanced_ns / 1e9 / runtime_s : NAN;
    }
}

/* The call a balanced layout gains most at, as an opportunity of the job (none when no call but start/end). */
static void text_gain(FILE *out, const struct ompc_merged_mpi_call *calls, long call_count, int count)
{
    const struct ompc_merged_mpi_call *best = NULL;
    for (long i = 0; i < call_count; i++)
        if (!calls[i].first->setup && (best == NULL || calls[i].balanced_ns > best->balanced_ns))
            best = &calls[i];
    if (best == NULL || best->balanced_ns <= 0)
        return;
    char call[64], place[512];
    fprintf(out, "  MPI waiting in %s at %s: a balanced layout of the ranks' work gains up to %.3f s",
            call_name(best->first, call, sizeof call), ompc_merge_mpi_place(best->first, place, sizeof place),
            (double)best->balanced_ns / 1e9);
    if (!isnan(best->balanced_share))
        fprintf(out, " (%.1f%% of the runtime)", 100 * best->balanced_share);
    fprintf(out, ": the %d processes' mean time in it\n", count);
}

void ompc_merge_mpi_text(FILE *out, const struct ompc_merge_input *inputs, int count,
                         const struct ompc_merged_mpi_call *calls, long call_count)
{
    if (call_count == 0)
        return;
    fprintf(out, "\nTop MPI calls over all processes (by call and location; a process's time there: min and max\n"
                 "over the %d processes, 0 for one that never made it; start/end: MPI_Init, MPI_Finalize):\n",
            count);
    fprintf(out, "  %10s %9s %9s %5s %9s %-10s  %s\n", "total s", "min s", "max s", "procs", "calls", "slowest",
            "call at location");
    for (long i = 0; i < call_count && i < TEXT_CALLS; i++) {
        const struct ompc_merged_mpi_call *row = &calls[i];
        char slow[32], call[64], place[512];
        label(&inputs[row->slowest], slow, sizeof slow);
        fprintf(out, "  %10.3f %9.3f %9.3f %5d %9" PRId64 " %-10s  %s at %s%s\n", (double)row->ns / 1e9,
                (double)row->min_ns / 1e9, (double)row->max_ns / 1e9, row->reports, row->calls, slow,
                call_name(row->first, call, sizeof call), ompc_merge_mpi_place(row->first, place, sizeof place),
                row->first->setup ? "  (start/end)" : "");
    }
    if (call_count > TEXT_CALLS)
        fprintf(out, "  ... %ld more MPI calls\n", call_count - TEXT_CALLS);
    text_gain(out, calls, call_count, count);
    text_ranks(out, inputs, count);
}

/* A site's call, location and setup flag as JSON members of `object`; nonzero when memory runs out. */
static int json_site_place(json_t *object, const struct ompc_merge_mpi_site *site)
{
    char place[512];
    json_t *location = ompc_merge_json_place(&site->where);
    int failed = ompc_json_set(object, "call", ompc_json_text(site->call.text, site->call.length));
    failed |= location == NULL || ompc_json_set(location, "name",
                                                 ompc_json_string(ompc_merge_mpi_place(site, place, sizeof place)));
    failed |= ompc_json_set(object, "location", location);
    failed |= ompc_json_set(object, "setup", json_boolean(site->setup));
    return failed;
}

/* One merged row of "mpi_calls.calls". */
static json_t *json_call(const struct ompc_merged_mpi_call *row, const struct ompc_merge_input *inputs)
{
    const struct ompc_merge_input *slow = &inputs[row->slowest];
    json_t *object = json_object();
    int failed = object == NULL || json_site_place(object, row->first);
    failed |= ompc_json_set(object, "processes", json_integer(row->reports));
    failed |= ompc_json_set(object, "calls", json_integer(row->calls));
    failed |= ompc_json_set(object, "ns", json_integer(row->ns));
    failed |= ompc_json_set(object, "min_ns", json_integer(row->min_ns));
    failed |= ompc_json_set(object, "max_ns", json_integer(row->max_ns));
    failed |= ompc_json_set(object, "samples", json_integer(row->samples));
    failed |= ompc_json_set(object, "balanced_ns", json_integer(row->balanced_ns));
    failed |= ompc_json_set(object, "balanced_share",
                            isnan(row->balanced_share) ? json_null() : ompc_json_fixed(row->balanced_share, 4));
    failed |= ompc_json_set(object, "slowest", json_pack("{s:o, s:I, s:o, s:I}", "file", ompc_json_string(slow->file),
                                                         "pid", (json_int_t)slow->pid, "rank",
                                                         slow->rank >= 0 ? json_integer(slow->rank) : json_null(),
                                                         "ns", (json_int_t)row->max_ns));
    return ompc_json_built(object, failed);
}

/* One rank's sites as "mpi_calls.ranks[]". */
static json_t *json_rank(const struct ompc_merge_input *input)
{
    json_t *sites = json_array();
    int failed = sites == NULL;
    for (size_t k = 0; k < input->mpi_site_count && !failed; k++) {
        const struct ompc_merge_mpi_site *site = &input->mpi_sites[k];
        json_t *object = json_object();
        failed = object == NULL || json_site_place(object, site);
        failed |= ompc_json_set(object, "calls", json_integer(site->calls));
        failed |= ompc_json_set(object, "ns", json_integer(site->ns));
        failed |= ompc_json_set(object, "samples", json_integer(site->samples));
        failed |= ompc_json_append(sites, object);
    }
    if (failed) {
        json_decref(sites);
        return NULL;
    }
    return json_pack("{s:o, s:I, s:o, s:o}", "file", ompc_json_string(input->file), "pid", (json_int_t)input->pid,
                     "rank", input->rank >= 0 ? json_integer(input->rank) : json_null(), "sites", sites);
}

json_t *ompc_merge_mpi_json(const struct ompc_merge_input *inputs, int count, const struct ompc_merged_mpi_call *calls,
                            long call_count)
{
    json_t *object = json_object(), *rows = json_array(), *ranks = json_array();
    int failed = 0;
    for (long i = 0; i < call_count && !failed; i++)
        failed = ompc_json_append(rows, json_call(&calls[i], inputs));
    for (int i = 0; i < count && !failed; i++)
        failed = ompc_json_append(ranks, json_rank(&inputs[i]));
    failed |= ompc_json_set(object, "calls", rows);
    failed |= ompc_json_set(object, "ranks", ranks);
    return ompc_json_built(object, failed);
}

/* "call,function,file,line,setup" of a site. */
static void csv_site(FILE *out, const struct ompc_merge_mpi_site *site)
{
    ompc_csv_string(out, site->call.text);
    fputc(',', out);
    ompc_csv_string(out, site->where.function.text);
    fputc(',', out);
    ompc_csv_string(out, site->where.file.text);
    fputc(',', out);
    if (site->where.line >= 0)
        fprintf(out, "%" PRId64, site->where.line);
    fprintf(out, ",%d", site->setup);
}

/* The "mpi_call_rank" table: every rank's every site. */
static int csv_ranks(struct ompc_csv_tables *tables, const struct ompc_merge_input *inputs, int count)
{
    FILE *out = ompc_csv_begin(tables, "mpi_call_rank");
    if (out == NULL)
        return -1;
    fputs("report,pid,rank,call,function,file,line,setup,calls,ns,samples\n", out);
    for (int i = 0; i < count; i++)
        for (size_t k = 0; k < inputs[i].mpi_site_count; k++) {
            const struct ompc_merge_mpi_site *site = &inputs[i].mpi_sites[k];
            ompc_csv_lead(tables);
            ompc_csv_string(out, inputs[i].file);
            fprintf(out, ",%" PRId64 ",", inputs[i].pid);
            if (inputs[i].rank >= 0)
                fprintf(out, "%" PRId64, inputs[i].rank);
            fputc(',', out);
            csv_site(out, site);
            fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", site->calls, site->ns, site->samples);
        }
    return 0;
}

int ompc_merge_mpi_csv(struct ompc_csv_tables *tables, const struct ompc_merge_input *inputs, int count,
                       const struct ompc_merged_mpi_call *calls, long call_count)
{
    FILE *out = ompc_csv_begin(tables, "mpi_call");
    if (out == NULL)
        return -1;
    fputs("call,function,file,line,setup,processes,calls,ns,min_ns,max_ns,samples,slowest_report,slowest_pid,"
          "slowest_rank,balanced_ns\n", out);
    for (long i = 0; i < call_count; i++) {
        const struct ompc_merged_mpi_call *row = &calls[i];
        const struct ompc_merge_input *slow = &inputs[row->slowest];
        ompc_csv_lead(tables);
        csv_site(out, row->first);
        fprintf(out, ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",", row->reports, row->calls,
                row->ns, row->min_ns, row->max_ns, row->samples);
        ompc_csv_string(out, slow->file);
        fprintf(out, ",%" PRId64 ",", slow->pid);
        if (slow->rank >= 0)
            fprintf(out, "%" PRId64, slow->rank);
        fprintf(out, ",%" PRId64 "\n", row->balanced_ns);
    }
    return csv_ranks(tables, inputs, count);
}
