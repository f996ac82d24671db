/* scaling_data.c - ompcollect scaling's figures for programs: every count, construct, factor, loss and Amdahl estimate as JSON (jsonw.c) and as CSV tables (csv.h). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "csv.h"
#include "jsonw.h"
#include "scaling.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>

/* A figure, null where unknown. */
static json_t *figure(int known, double value, int decimals)
{
    return known ? ompc_json_fixed(value, decimals) : json_null();
}

/* One point of a row: its times, its split in samples, and every factor. */
static json_t *json_point(const struct ompc_scaling *scaling, const struct ompc_scaling_point *p, size_t k)
{
    json_t *object = json_object(), *lost = json_object();
    const struct ompc_merge_efficiency *s = &p->split;
    int failed = ompc_json_set(object, "threads", json_integer(scaling->counts[k].threads));
    failed |= ompc_json_set(object, "ran", json_boolean(p->ran));
    failed |= ompc_json_set(object, "wall_ns", p->ran ? json_integer(p->wall_ns) : json_null());
    failed |= ompc_json_set(object, "instances", json_integer(p->instances));
    failed |= ompc_json_set(object, "speedup", figure(p->ran && p->speedup > 0, p->speedup, 3));
    failed |= ompc_json_set(object, "global_efficiency", figure(p->scaled, p->global, 3));
    failed |= ompc_json_set(object, "parallel_efficiency", figure(p->known, p->parallel, 3));
    for (int f = 0; f < OMPC_SCALING_FACTORS; f++)
        if (ompc_scaling_factor_shown(scaling, f))
            failed |= ompc_json_set(object, ompc_scaling_factor_key(f),
                                    figure(f == OMPC_SCALING_COMPUTATION ? p->scaled : p->known, p->factors[f], 3));
    failed |= ompc_json_set(object, "useful_s", figure(p->known, p->useful_s, 6));
    failed |= ompc_json_set(object, "samples", json_integer(s->samples));
    failed |= ompc_json_set(object, "useful", json_integer(s->useful));
    failed |= ompc_json_set(lost, "load_imbalance", json_integer(s->imbalance));
    failed |= ompc_json_set(lost, "synchronisation", json_integer(s->sync));
    failed |= ompc_json_set(lost, "scheduling", json_integer(s->sched));
    failed |= ompc_json_set(lost, "serialisation", json_integer(s->serial));
    failed |= ompc_json_set(lost, "mpi_idle", json_integer(s->mpi_idle));
    if (scaling->mpi) {
        failed |= ompc_json_set(lost, "mpi_load_balance", json_integer(p->mpi_balance));
        failed |= ompc_json_set(lost, "mpi_communication", json_integer(p->mpi_communication));
    }
    failed |= ompc_json_set(object, "lost", lost);
    return ompc_json_built(object, failed);
}

/* One loss, from count k-1 to count k: the parts, the largest, and the sentence. */
static json_t *json_loss(const struct ompc_scaling *scaling, const struct ompc_scaling_row *row, size_t k)
{
    const struct ompc_scaling_loss *loss = &row->losses[k - 1];
    json_t *object = json_object(), *parts = json_object();
    char sentence[1024];
    int failed = ompc_json_set(object, "from", json_integer(scaling->counts[k - 1].threads));
    failed |= ompc_json_set(object, "to", json_integer(scaling->counts[k].threads));
    failed |= ompc_json_set(object, "known", json_boolean(loss->known));
    for (int f = 0; f < OMPC_SCALING_FACTORS; f++)
        if (ompc_scaling_factor_shown(scaling, f))
            failed |= ompc_json_set(parts, ompc_scaling_factor_key(f), figure(loss->known, loss->parts[f], 4));
    failed |= ompc_json_set(object, "lost", parts);
    failed |= ompc_json_set(object, "largest", loss->known && loss->largest >= 0
                                                   ? json_string(ompc_scaling_factor_key(loss->largest))
                                                   : json_null());
    const char *text = ompc_scaling_sentence(scaling, row, k, sentence, sizeof sentence);
    failed |= ompc_json_set(object, "text", text != NULL ? ompc_json_string(text) : json_null());
    return ompc_json_built(object, failed);
}

/* The whole run or a construct: where, its points and its losses. */
static json_t *json_row(const struct ompc_scaling *scaling, const struct ompc_scaling_row *row)
{
    json_t *object = json_object(), *points = json_array(), *losses = json_array();
    int failed = ompc_json_set(object, "location", row->where != NULL ? ompc_merge_json_place(row->where) : json_null());
    failed |= ompc_json_set(object, "reference_threads", json_integer(scaling->counts[row->reference].threads));
    for (size_t k = 0; k < scaling->count_count && !failed; k++)
        failed = ompc_json_append(points, json_point(scaling, &row->points[k], k));
    for (size_t k = 1; k < scaling->count_count && !failed; k++)
        failed = ompc_json_append(losses, json_loss(scaling, row, k));
    failed |= ompc_json_set(object, "points", points);
    failed |= ompc_json_set(object, "losses", losses);
    return ompc_json_built(object, failed);
}

/* One thread count: its runs, their spread, its median report, and Amdahl's figures at it. */
static json_t *json_count(const struct ompc_scaling *scaling, const struct ompc_scaling_count *count)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "threads", json_integer(count->threads));
    failed |= ompc_json_set(object, "runs", json_integer(count->runs));
    failed |= ompc_json_set(object, "report", ompc_json_string(count->median->file != NULL ? count->median->file : ""));
    failed |= ompc_json_set(object, "openmp_threads", json_integer(count->median->threads));
    failed |= ompc_json_set(object, "oversubscribed", json_boolean(count->oversubscribed));
    failed |= ompc_json_set(object, "wall_ns", json_integer(count->wall_ns));
    if (scaling->mpi) {
        json_t *reports = json_array();
        for (size_t r = 0; r < count->ranks && reports != NULL; r++) {
            const char *file = count->median[r].file;
            failed |= ompc_json_append(reports, ompc_json_string(file != NULL ? file : ""));
        }
        failed |= ompc_json_set(object, "ranks", json_integer((json_int_t)count->ranks));
        failed |= ompc_json_set(object, "rank_reports", reports);
    }
    failed |= ompc_json_set(object, "wall_min_ns", json_integer(count->wall_min_ns));
    failed |= ompc_json_set(object, "wall_max_ns", json_integer(count->wall_max_ns));
    failed |= ompc_json_set(object, "karp_flatt", ompc_json_fixed(count->karp_flatt, 4));
    failed |= ompc_json_set(object, "amdahl_fit_speedup", ompc_json_fixed(count->amdahl_fit_speedup, 3));
    failed |= ompc_json_set(object, "amdahl_time_speedup", ompc_json_fixed(count->amdahl_time_speedup, 3));
    return ompc_json_built(object, failed);
}

int ompc_scaling_write_json(FILE *out, const struct ompc_scaling *scaling)
{
    json_t *root = json_object(), *counts = json_array(), *constructs = json_array(), *amdahl = json_object();
    const struct ompc_merge_input *first = scaling->counts[0].median;
    int failed = ompc_json_set(root, "tool", json_string("ompcollect"));
    failed |= ompc_json_set(root, "view", json_string("scaling"));
    failed |= ompc_json_set(root, "schema_version", json_integer(1));
    failed |= ompc_json_set(root, "program", ompc_json_text(first->program.text, first->program.length));
    failed |= ompc_json_set(root, "same_program", json_boolean(scaling->same_program));
    failed |= ompc_json_set(root, "cores", scaling->cores > 0 ? json_integer(scaling->cores) : json_null());
    for (size_t k = 0; k < scaling->count_count && !failed; k++)
        failed = ompc_json_append(counts, json_count(scaling, &scaling->counts[k]));
    failed |= ompc_json_set(root, "counts", counts);
    failed |= ompc_json_set(root, "whole", json_row(scaling, &scaling->whole));
    for (size_t i = 0; i < scaling->construct_count && !failed; i++)
        failed = ompc_json_append(constructs, json_row(scaling, &scaling->constructs[i]));
    failed |= ompc_json_set(root, "constructs", constructs);
    failed |= ompc_json_set(amdahl, "reference_threads", json_integer(scaling->counts[0].threads));
    failed |= ompc_json_set(amdahl, "fit_fraction", ompc_json_fixed(scaling->fit_fraction, 4));
    failed |= ompc_json_set(amdahl, "time_fraction", ompc_json_fixed(scaling->time_fraction, 4));
    failed |= ompc_json_set(root, "amdahl", amdahl);
    failed |= ompc_json_set(root, "counters", scaling->counters != NULL ? json_string(scaling->counters) : json_null());
    root = ompc_json_built(root, failed);
    int status = ompc_json_dump(root, out, OMPC_JSON_READABLE) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(root);
    return status;
}

/* A figure as a CSV field after a comma, empty where unknown. */
static void csv_figure(FILE *out, int known, double value)
{
    if (known && isfinite(value))
        fprintf(out, ",%.6f", value);
    else
        fputc(',', out);
}

/* "scope,function,file,line,module,module_offset" of a row, without the comma after. */
static void csv_place(FILE *out, const struct ompc_scaling_row *row)
{
    const struct ompc_merge_location *where = row->where;
    fputs(where == NULL ? "whole," : "construct,", out);
    if (where == NULL) {
        fputs(",,,,", out);
        return;
    }
    ompc_merge_csv_place(out, where);
}

#define PLACE_COLUMNS "scope,function,file,line,module,module_offset"

/* The "efficiency" rows of one row: a row per count. */
static void csv_points(struct ompc_csv_tables *tables, const struct ompc_scaling *scaling,
                       const struct ompc_scaling_row *row)
{
    for (size_t k = 0; k < scaling->count_count; k++) {
        const struct ompc_scaling_point *p = &row->points[k];
        ompc_csv_lead(tables);
        csv_place(tables->out, row);
        fprintf(tables->out, ",%d,%d,%" PRId64 ",%" PRId64, scaling->counts[k].threads, p->ran, p->wall_ns,
                p->instances);
        csv_figure(tables->out, p->ran && p->speedup > 0, p->speedup);
        csv_figure(tables->out, p->scaled, p->global);
        csv_figure(tables->out, p->known, p->parallel);
        for (int f = 0; f < OMPC_SCALING_FACTORS; f++)
            if (ompc_scaling_factor_shown(scaling, f))
                csv_figure(tables->out, f == OMPC_SCALING_COMPUTATION ? p->scaled : p->known, p->factors[f]);
        csv_figure(tables->out, p->known, p->useful_s);
        fprintf(tables->out, ",%" PRId64 ",%" PRId64 "\n", p->split.samples, p->split.useful);
    }
}

/* The "loss" rows of one row: a row per pair of consecutive counts. */
static void csv_losses(struct ompc_csv_tables *tables, const struct ompc_scaling *scaling,
                       const struct ompc_scaling_row *row)
{
    for (size_t k = 1; k < scaling->count_count; k++) {
        const struct ompc_scaling_loss *loss = &row->losses[k - 1];
        char sentence[1024];
        ompc_csv_lead(tables);
        csv_place(tables->out, row);
        fprintf(tables->out, ",%d,%d,%d", scaling->counts[k - 1].threads, scaling->counts[k].threads, loss->known);
        for (int f = 0; f < OMPC_SCALING_FACTORS; f++)
            if (ompc_scaling_factor_shown(scaling, f))
                csv_figure(tables->out, loss->known, loss->parts[f]);
        fputc(',', tables->out);
        ompc_csv_string(tables->out, loss->known && loss->largest >= 0 ? ompc_scaling_factor_key(loss->largest) : NULL);
        fputc(',', tables->out);
        ompc_csv_string(tables->out, ompc_scaling_sentence(scaling, row, k, sentence, sizeof sentence));
        fputc('\n', tables->out);
    }
}

/* The "count" table: each thread count's runs, spread and Amdahl's figures. */
static int csv_counts(struct ompc_csv_tables *tables, const struct ompc_scaling *scaling)
{
    FILE *out = ompc_csv_begin(tables, "count");
    if (out == NULL)
        return -1;
    fputs("threads,runs,report,openmp_threads,oversubscribed,wall_ns,wall_min_ns,wall_max_ns,karp_flatt,"
          "amdahl_fit_speedup,amdahl_time_speedup,amdahl_fit_fraction,amdahl_time_fraction", out);
    fputs(scaling->mpi ? ",ranks\n" : "\n", out);
    for (size_t k = 0; k < scaling->count_count; k++) {
        const struct ompc_scaling_count *c = &scaling->counts[k];
        ompc_csv_lead(tables);
        fprintf(out, "%d,%d,", c->threads, c->runs);
        ompc_csv_string(out, c->median->file);
        fprintf(out, ",%" PRId64 ",%d,%" PRId64 ",%" PRId64 ",%" PRId64, c->median->threads, c->oversubscribed,
                c->wall_ns, c->wall_min_ns, c->wall_max_ns);
        csv_figure(out, 1, c->karp_flatt);
        csv_figure(out, 1, c->amdahl_fit_speedup);
        csv_figure(out, 1, c->amdahl_time_speedup);
        csv_figure(out, 1, scaling->fit_fraction);
        csv_figure(out, 1, scaling->time_fraction);
        if (scaling->mpi)
            fprintf(out, ",%zu", c->ranks);
        fputc('\n', out);
    }
    return 0;
}

int ompc_scaling_write_csv(struct ompc_sink *sink, const struct ompc_scaling *scaling)
{
    struct ompc_csv_tables tables = {.sink = sink};
    if (csv_counts(&tables, scaling) != 0)
        return -1;
    FILE *out = ompc_csv_begin(&tables, "efficiency");
    if (out == NULL)
        return -1;
    fputs(PLACE_COLUMNS ",threads,ran,time_ns,instances,speedup,global_efficiency,parallel_efficiency", out);
    for (int f = 0; f < OMPC_SCALING_FACTORS; f++)
        if (ompc_scaling_factor_shown(scaling, f))
            fprintf(out, ",%s", ompc_scaling_factor_key(f));
    fputs(",useful_s,samples,useful\n", out);
    csv_points(&tables, scaling, &scaling->whole);
    for (size_t i = 0; i < scaling->construct_count; i++)
        csv_points(&tables, scaling, &scaling->constructs[i]);
    if ((out = ompc_csv_begin(&tables, "loss")) == NULL)
        return -1;
    fputs(PLACE_COLUMNS ",from,to,known", out);
    for (int f = 0; f < OMPC_SCALING_FACTORS; f++)
        if (ompc_scaling_factor_shown(scaling, f))
            fprintf(out, ",lost_%s", ompc_scaling_factor_key(f));
    fputs(",largest,text\n", out);
    csv_losses(&tables, scaling, &scaling->whole);
    for (size_t i = 0; i < scaling->construct_count; i++)
        csv_losses(&tables, scaling, &scaling->constructs[i]);
    return ferror(tables.out) ? -1 : 0;
}
