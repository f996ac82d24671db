/* diff_calls.c - ompcollect diff's task constructs (counts, mean task time, creation cost per task) and MPI calls (time per call and location) of two reports, matched by source location as the parallel constructs are, as text, JSON and CSV. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "csv.h"
#include "diff.h"
#include "jsonw.h"
#include "sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One report's row, before the rows of one place are folded. */
struct ref {
    int side; /* 0: A, 1: B */
    const struct ompc_merge_task *task;
    const struct ompc_merge_mpi_site *site;
};

/* |x| for the changes (never INT64_MIN: each side is from 0 to INT64_MAX). */
static int64_t magnitude(int64_t x)
{
    return x < 0 ? -x : x;
}

/* a + b, held at INT64_MAX: a report's rows are checked one by one, not their sums. */
static int64_t add(int64_t a, int64_t b)
{
    return b > INT64_MAX - a ? INT64_MAX : a + b;
}

static int compare_task_refs(const void *x, const void *y)
{
    const struct ref *a = x, *b = y;
    int place = ompc_merge_compare_places(&a->task->where, &b->task->where);
    return place != 0 ? place : a->side - b->side;
}

static int compare_site_refs(const void *x, const void *y)
{
    const struct ref *a = x, *b = y;
    int place = ompc_merge_compare_mpi_sites(a->site, b->site);
    return place != 0 ? place : a->side - b->side;
}

/* Both reports' task rows (or MPI sites when `mpi`), sorted so one place's rows are adjacent; NULL without memory. */
static struct ref *refs_of(const struct ompc_diff *diff, int mpi, size_t *used)
{
    const struct ompc_merge_input *inputs[2] = {diff->a, diff->b};
    size_t total = mpi ? diff->a->mpi_site_count + diff->b->mpi_site_count : diff->a->task_count + diff->b->task_count;
    struct ref *refs = calloc(total ? total : 1, sizeof *refs);
    *used = 0;
    for (int side = 0; side < 2 && refs != NULL; side++) {
        size_t count = mpi ? inputs[side]->mpi_site_count : inputs[side]->task_count;
        for (size_t k = 0; k < count; k++)
            refs[(*used)++] = (struct ref){side, mpi ? NULL : &inputs[side]->tasks[k],
                                           mpi ? &inputs[side]->mpi_sites[k] : NULL};
    }
    if (refs != NULL)
        qsort(refs, *used, sizeof *refs, mpi ? compare_site_refs : compare_task_refs);
    return refs;
}

/* Whether each side has a row among a group's, as the row's status. */
static enum ompc_diff_status status_of(int in_a, int in_b)
{
    return in_a && in_b ? OMPC_DIFF_MATCHED : in_b ? OMPC_DIFF_APPEARED : OMPC_DIFF_DISAPPEARED;
}

/* Adds a report's task row to its side, then the side's means. */
static void fold_task(struct ompc_diff_task_side *side, const struct ompc_merge_task *task)
{
    side->created = add(side->created, task->created);
    side->executed = add(side->executed, task->executed);
    side->runs = add(side->runs, task->runs);
    side->exec_ns = add(side->exec_ns, task->exec_ns);
    side->create_ns = add(side->create_ns, task->create_ns);
    /* The sampled task tier follows no runs (0): its report takes each task created to run once, and so does diff. */
    uint64_t runs = side->runs > 0 ? side->runs : side->created;
    side->mean_ns = runs > 0 ? (double)side->exec_ns / (double)runs : 0;
    side->create_per_task_ns = side->created > 0 ? (double)side->create_ns / (double)side->created : 0;
}

/* qsort: largest change of task time first, then the longer, then by location. */
static int compare_tasks(const void *x, const void *y)
{
    const struct ompc_diff_task *a = x, *b = y;
    int size = ompc_order_i64(magnitude(b->change_ns), magnitude(a->change_ns));
    if (size == 0)
        size = ompc_order_i64(b->a.exec_ns > b->b.exec_ns ? b->a.exec_ns : b->b.exec_ns,
                     a->a.exec_ns > a->b.exec_ns ? a->a.exec_ns : a->b.exec_ns);
    return size != 0 ? size : ompc_merge_compare_places(a->where, b->where);
}

/* qsort: largest change of MPI time first, then the longer, then by call and location. */
static int compare_mpi(const void *x, const void *y)
{
    const struct ompc_diff_mpi *a = x, *b = y;
    int size = ompc_order_i64(magnitude(b->change_ns), magnitude(a->change_ns));
    if (size == 0)
        size = ompc_order_i64(b->a_ns > b->b_ns ? b->a_ns : b->b_ns, a->a_ns > a->b_ns ? a->a_ns : a->b_ns);
    return size != 0 ? size : ompc_merge_compare_mpi_sites(a->first, b->first);
}

/* The task constructs matched by source line (or code location); -1 when memory runs out. */
static int diff_tasks(struct ompc_diff *diff)
{
    size_t used;
    struct ref *refs = refs_of(diff, 0, &used);
    diff->tasks = calloc(used ? used : 1, sizeof *diff->tasks);
    if (refs == NULL || diff->tasks == NULL) {
        free(refs);
        return -1;
    }
    int in[2] = {0, 0};
    for (size_t i = 0; i < used; i++) {
        if (i == 0 || ompc_merge_compare_places(&refs[i - 1].task->where, &refs[i].task->where) != 0) {
            diff->tasks[diff->task_count++].where = &refs[i].task->where;
            in[0] = in[1] = 0;
        }
        struct ompc_diff_task *row = &diff->tasks[diff->task_count - 1];
        in[refs[i].side] = 1;
        row->status = status_of(in[0], in[1]);
        fold_task(refs[i].side ? &row->b : &row->a, refs[i].task);
        row->change_ns = row->b.exec_ns - row->a.exec_ns;
    }
    free(refs);
    qsort(diff->tasks, diff->task_count, sizeof *diff->tasks, compare_tasks);
    return 0;
}

/* The MPI calls matched by call and location; -1 when memory runs out. */
static int diff_mpi(struct ompc_diff *diff)
{
    size_t used;
    struct ref *refs = refs_of(diff, 1, &used);
    diff->mpi = calloc(used ? used : 1, sizeof *diff->mpi);
    if (refs == NULL || diff->mpi == NULL) {
        free(refs);
        return -1;
    }
    int in[2] = {0, 0};
    for (size_t i = 0; i < used; i++) {
        if (i == 0 || ompc_merge_compare_mpi_sites(refs[i - 1].site, refs[i].site) != 0) {
            diff->mpi[diff->mpi_count++].first = refs[i].site;
            in[0] = in[1] = 0;
        }
        struct ompc_diff_mpi *row = &diff->mpi[diff->mpi_count - 1];
        in[refs[i].side] = 1;
        row->status = status_of(in[0], in[1]);
        int64_t *ns = refs[i].side ? &row->b_ns : &row->a_ns, *calls = refs[i].side ? &row->b_calls : &row->a_calls;
        *ns = add(*ns, refs[i].site->ns);
        *calls = add(*calls, refs[i].site->calls);
        row->change_ns = row->b_ns - row->a_ns;
    }
    free(refs);
    qsort(diff->mpi, diff->mpi_count, sizeof *diff->mpi, compare_mpi);
    return 0;
}

int ompc_diff_calls_build(struct ompc_diff *diff)
{
    return diff_tasks(diff) != 0 || diff_mpi(diff) != 0 ? -1 : 0;
}

/* " (appeared)" or " (disappeared)" after a row's name, nothing when matched. */
static const char *status_note(enum ompc_diff_status status)
{
    return status == OMPC_DIFF_APPEARED ? " (appeared)" : status == OMPC_DIFF_DISAPPEARED ? " (disappeared)" : "";
}

/* The task constructs' table. */
static void text_tasks(FILE *out, const struct ompc_diff *diff)
{
    fputs("\nTask constructs, largest change of task time first (matched by code location; tasks created,\n"
          "their summed time in s, a task run's mean time and the creation cost per task in us):\n", out);
    if (diff->task_count == 0) {
        fputs("  none (neither report names task constructs)\n", out);
        return;
    }
    fprintf(out, "  %9s %9s %9s %9s %9s %9s %9s %8s %8s  %s\n", "A tasks", "B tasks", "A s", "B s", "change",
            "A mean", "B mean", "A ovhd", "B ovhd", "construct");
    for (size_t i = 0; i < diff->task_count && i < OMPC_DIFF_TEXT_ROWS; i++) {
        const struct ompc_diff_task *row = &diff->tasks[i];
        char name[512];
        fprintf(out, "  %9" PRId64 " %9" PRId64 " %9.3f %9.3f %+9.3f %9.2f %9.2f %8.2f %8.2f  %s%s\n", row->a.created,
                row->b.created, (double)row->a.exec_ns / 1e9, (double)row->b.exec_ns / 1e9,
                (double)row->change_ns / 1e9, row->a.mean_ns / 1e3, row->b.mean_ns / 1e3,
                row->a.create_per_task_ns / 1e3, row->b.create_per_task_ns / 1e3,
                ompc_merge_place_name(row->where, name, sizeof name), status_note(row->status));
    }
    if (diff->task_count > OMPC_DIFF_TEXT_ROWS)
        fprintf(out, "  ... %zu more task constructs (all of them with -f json)\n", diff->task_count - OMPC_DIFF_TEXT_ROWS);
    if (diff->a->sched_per_run_ns >= 0 || diff->b->sched_per_run_ns >= 0)
        fprintf(out, "  scheduling per task run (the run's own estimate, every construct): A %.2f us, B %.2f us\n",
                diff->a->sched_per_run_ns >= 0 ? diff->a->sched_per_run_ns / 1e3 : 0,
                diff->b->sched_per_run_ns >= 0 ? diff->b->sched_per_run_ns / 1e3 : 0);
}

void ompc_diff_calls_text(FILE *out, const struct ompc_diff *diff)
{
    text_tasks(out, diff);
    if (diff->mpi_count == 0)
        return;
    fputs("\nMPI calls, largest change first (matched by call and location; time inside them in s):\n", out);
    fprintf(out, "  %9s %9s %9s %8s %8s  %s\n", "A s", "B s", "change", "A calls", "B calls", "call at location");
    for (size_t i = 0; i < diff->mpi_count && i < OMPC_DIFF_TEXT_ROWS; i++) {
        const struct ompc_diff_mpi *row = &diff->mpi[i];
        char call[64], place[512];
        snprintf(call, sizeof call, "%s", row->first->call.text);
        for (char *c = call; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        fprintf(out, "  %9.3f %9.3f %+9.3f %8" PRId64 " %8" PRId64 "  %s at %s%s%s\n", (double)row->a_ns / 1e9,
                (double)row->b_ns / 1e9, (double)row->change_ns / 1e9, row->a_calls, row->b_calls, call,
                ompc_merge_mpi_place(row->first, place, sizeof place), row->first->setup ? " (start/end)" : "",
                status_note(row->status));
    }
    if (diff->mpi_count > OMPC_DIFF_TEXT_ROWS)
        fprintf(out, "  ... %zu more MPI calls (all of them with -f json)\n", diff->mpi_count - OMPC_DIFF_TEXT_ROWS);
}

/* "appeared", "disappeared" or "matched". */
static const char *status_name(enum ompc_diff_status status)
{
    return status == OMPC_DIFF_APPEARED ? "appeared" : status == OMPC_DIFF_DISAPPEARED ? "disappeared" : "matched";
}

/* One side of a task row as JSON. */
static json_t *json_task_side(const struct ompc_diff_task_side *side)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:o}", "created", (json_int_t)side->created, "executed",
                     (json_int_t)side->executed, "runs", (json_int_t)side->runs, "exec_ns", (json_int_t)side->exec_ns,
                     "create_ns", (json_int_t)side->create_ns, "mean_ns", ompc_json_fixed(side->mean_ns, 1),
                     "create_per_task_ns", ompc_json_fixed(side->create_per_task_ns, 1));
}

/* One MPI row as JSON. */
static json_t *json_mpi(const struct ompc_diff_mpi *row)
{
    char place[512];
    json_t *location = ompc_merge_json_place(&row->first->where);
    if (location != NULL
        && ompc_json_set(location, "name", ompc_json_string(ompc_merge_mpi_place(row->first, place, sizeof place))))
        location = NULL;
    return json_pack("{s:o, s:o*, s:b, s:s, s:I, s:I, s:I, s:I, s:I}", "call",
                     ompc_json_text(row->first->call.text, row->first->call.length), "location", location, "setup",
                     row->first->setup, "status", status_name(row->status), "a_ns", (json_int_t)row->a_ns, "b_ns",
                     (json_int_t)row->b_ns, "change_ns", (json_int_t)row->change_ns, "a_calls",
                     (json_int_t)row->a_calls, "b_calls", (json_int_t)row->b_calls);
}

int ompc_diff_calls_json(json_t *root, const struct ompc_diff *diff)
{
    json_t *tasks = json_array(), *mpi = json_array();
    int failed = 0;
    for (size_t i = 0; i < diff->task_count && !failed; i++) {
        const struct ompc_diff_task *row = &diff->tasks[i];
        failed = ompc_json_append(tasks, json_pack("{s:o, s:s, s:o, s:o, s:I}", "location",
                                                   ompc_merge_json_place(row->where), "status",
                                                   status_name(row->status), "a", json_task_side(&row->a), "b",
                                                   json_task_side(&row->b), "change_ns", (json_int_t)row->change_ns));
    }
    for (size_t i = 0; i < diff->mpi_count && !failed; i++)
        failed = ompc_json_append(mpi, json_mpi(&diff->mpi[i]));
    failed |= ompc_json_set(root, "task_constructs", tasks);
    failed |= ompc_json_set(root, "sched_per_run_ns",
                            json_pack("{s:o, s:o}", "a",
                                      diff->a->sched_per_run_ns >= 0 ? ompc_json_fixed(diff->a->sched_per_run_ns, 1)
                                                                     : json_null(),
                                      "b",
                                      diff->b->sched_per_run_ns >= 0 ? ompc_json_fixed(diff->b->sched_per_run_ns, 1)
                                                                     : json_null()));
    failed |= ompc_json_set(root, "mpi_calls", mpi);
    return failed ? -1 : 0;
}

/* One side's task columns, after a comma. */
static void csv_task_side(FILE *out, const struct ompc_diff_task_side *side)
{
    fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%.1f,%.1f", side->created,
            side->executed, side->runs, side->exec_ns, side->create_ns, side->mean_ns, side->create_per_task_ns);
}

int ompc_diff_calls_csv(struct ompc_csv_tables *tables, const struct ompc_diff *diff)
{
    FILE *out = ompc_csv_begin(tables, "task_construct");
    if (out == NULL)
        return -1;
    fputs("function,file,line,module,module_offset,status,a_created,a_executed,a_runs,a_exec_ns,a_create_ns,a_mean_ns,"
          "a_create_per_task_ns,b_created,b_executed,b_runs,b_exec_ns,b_create_ns,b_mean_ns,b_create_per_task_ns,"
          "change_ns\n", out);
    for (size_t i = 0; i < diff->task_count; i++) {
        const struct ompc_diff_task *row = &diff->tasks[i];
        ompc_csv_lead(tables);
        ompc_merge_csv_place(out, row->where);
        fprintf(out, ",%s", status_name(row->status));
        csv_task_side(out, &row->a);
        csv_task_side(out, &row->b);
        fprintf(out, ",%" PRId64 "\n", row->change_ns);
    }
    if ((out = ompc_csv_begin(tables, "mpi_call")) == NULL)
        return -1;
    fputs("call,function,file,line,setup,status,a_ns,b_ns,change_ns,a_calls,b_calls\n", out);
    for (size_t i = 0; i < diff->mpi_count; i++) {
        const struct ompc_diff_mpi *row = &diff->mpi[i];
        ompc_csv_lead(tables);
        ompc_csv_string(out, row->first->call.text);
        fputc(',', out);
        ompc_csv_string(out, row->first->where.function.text);
        fputc(',', out);
        ompc_csv_string(out, row->first->where.file.text);
        fputc(',', out);
        if (row->first->where.line >= 0)
            fprintf(out, "%" PRId64, row->first->where.line);
        fprintf(out, ",%d,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", row->first->setup,
                status_name(row->status), row->a_ns, row->b_ns, row->change_ns, row->a_calls, row->b_calls);
    }
    return 0;
}
