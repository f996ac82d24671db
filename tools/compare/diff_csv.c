/* diff_csv.c - ompcollect diff's CSV output: the comparison's tables (the two runs, warnings, limits, summary, states, constructs and wait locations), every row, through the CSV tables of csv.h. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "csv.h"
#include "diff.h"

#include <inttypes.h>
#include <stdio.h>

/* A report's text as a CSV field (empty for null). */
static void csv_text(FILE *out, const struct ompc_merge_text *text)
{
    ompc_csv_string(out, text->text);
}


#define PLACE_COLUMNS "function,file,line,module,module_offset"
#define TIME_COLUMNS "a_ns,b_ns,change_ns,a_share,b_share,share_change"

/* The time columns every row has, after a comma: A's, B's and the change, as time and as share. */
static void csv_times(FILE *out, const struct ompc_diff_side *a, const struct ompc_diff_side *b, int64_t change)
{
    fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%.6f,%.6f,%.6f", a->ns, b->ns, change, a->share, b->share,
            b->share - a->share);
}

/* "appeared", "disappeared" or "matched". */
static const char *status_name(enum ompc_diff_status status)
{
    return status == OMPC_DIFF_APPEARED ? "appeared" : status == OMPC_DIFF_DISAPPEARED ? "disappeared" : "matched";
}

/* One row of the "side" table. */
static void side_row(struct ompc_csv_tables *tables, const char *name, const struct ompc_merge_input *input,
                     int64_t thread_ns)
{
    FILE *out = tables->out;
    ompc_csv_lead(tables);
    fprintf(out, "%s,", name);
    ompc_csv_string(out, input->file);
    fputc(',', out);
    csv_text(out, &input->program);
    fprintf(out, ",%" PRId64 ",", input->pid);
    if (input->rank >= 0)
        fprintf(out, "%" PRId64, input->rank);
    fputc(',', out);
    csv_text(out, &input->host);
    fprintf(out, ",%d,", input->complete);
    csv_text(out, &input->fate);
    fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", input->wall_ns, input->interval_ns,
            input->threads, input->samples, thread_ns);
}

/* The "limit" rows of one report: the bounds its run reached and its record's damage, so no comparison hides them. */
static void limit_rows(struct ompc_csv_tables *tables, const char *name, const struct ompc_merge_input *input)
{
    for (size_t i = 0; i < input->limit_count; i++) {
        const struct ompc_merge_limit *limit = &input->limits[i];
        ompc_csv_lead(tables);
        fprintf(tables->out, "%s,", name);
        csv_text(tables->out, &limit->what);
        fputc(',', tables->out);
        csv_text(tables->out, &limit->text);
        fprintf(tables->out, ",%" PRId64 ",%" PRId64 "\n", limit->count, limit->bound);
    }
}

/* The tables about the two runs: "side", "warning", "limit" and "summary"; -1 when memory ran out. */
static int csv_runs(const struct ompc_diff *diff, struct ompc_csv_tables *tables)
{
    char lines[OMPC_DIFF_WARNINGS][OMPC_DIFF_WARNING_SIZE], summary[1024];
    FILE *out = ompc_csv_begin(tables, "side");
    if (out == NULL)
        return -1;
    fputs("side,file,program,pid,rank,host,complete,fate,wall_ns,interval_ns,threads,samples,thread_ns\n", out);
    side_row(tables, "A", diff->a, diff->a_thread_ns);
    side_row(tables, "B", diff->b, diff->b_thread_ns);
    if ((out = ompc_csv_begin(tables, "warning")) == NULL)
        return -1;
    fputs("text\n", out);
    for (int i = 0, count = ompc_diff_warnings(diff, lines); i < count; i++) {
        ompc_csv_lead(tables);
        ompc_csv_string(out, lines[i]);
        fputc('\n', out);
    }
    if ((out = ompc_csv_begin(tables, "limit")) == NULL)
        return -1;
    fputs("side,what,text,count,bound\n", out);
    limit_rows(tables, "A", diff->a);
    limit_rows(tables, "B", diff->b);
    if ((out = ompc_csv_begin(tables, "summary")) == NULL)
        return -1;
    fputs("text,speedup,wall_change_ns,thread_change_ns,largest_state," PLACE_COLUMNS
          ",largest_change_ns,largest_share_of_change\n", out);
    const struct ompc_diff_largest *largest = &diff->largest;
    ompc_csv_lead(tables);
    ompc_csv_string(out, ompc_diff_summary(diff, summary, sizeof summary));
    fputc(',', out);
    if (diff->speedup > 0)
        fprintf(out, "%.4f", diff->speedup);
    fprintf(out, ",%" PRId64 ",%" PRId64 ",%s,", diff->b->wall_ns - diff->a->wall_ns,
            diff->b_thread_ns - diff->a_thread_ns, largest->state != 0 ? ompc_state_name(largest->state) : "");
    if (largest->state != 0 && largest->where != NULL)
        ompc_merge_csv_place(out, largest->where);
    else
        fputs(",,,,", out);
    if (largest->state != 0)
        fprintf(out, ",%" PRId64 ",%.6f\n", largest->change_ns, largest->share);
    else
        fputs(",,\n", out);
    return 0;
}

/* The "construct" table: every construct, largest change first, with the change of each state's thread time in it. */
static int csv_constructs(const struct ompc_diff *diff, struct ompc_csv_tables *tables)
{
    FILE *out = ompc_csv_begin(tables, "construct");
    if (out == NULL)
        return -1;
    fputs(PLACE_COLUMNS ",status,a_instances,b_instances," TIME_COLUMNS, out);
    ompc_csv_state_names(out);
    fputc('\n', out);
    for (size_t i = 0; i < diff->construct_count; i++) {
        const struct ompc_diff_construct *row = &diff->constructs[i];
        ompc_csv_lead(tables);
        ompc_merge_csv_place(out, row->where);
        fprintf(out, ",%s,%" PRId64 ",%" PRId64, status_name(row->status), row->a.count, row->b.count);
        csv_times(out, &row->a, &row->b, row->change_ns);
        for (int state = 1; state < OMPC_NSTATES; state++)
            fprintf(out, ",%" PRId64, row->b_states_ns[state] - row->a_states_ns[state]);
        fputc('\n', out);
    }
    return 0;
}

/* The "state" table: every state, largest change first. */
static int csv_states(const struct ompc_diff *diff, struct ompc_csv_tables *tables)
{
    FILE *out = ompc_csv_begin(tables, "state");
    if (out == NULL)
        return -1;
    fputs("state,a_samples,b_samples," TIME_COLUMNS "\n", out);
    for (int i = 0; i < OMPC_NSTATES - 1; i++) {
        const struct ompc_diff_state *row = &diff->states[i];
        ompc_csv_lead(tables);
        fprintf(out, "%s,%" PRId64 ",%" PRId64, ompc_state_name(row->state), row->a.count, row->b.count);
        csv_times(out, &row->a, &row->b, row->change_ns);
        fputc('\n', out);
    }
    return 0;
}

/* The "wait_location" table: every wait location, largest change first. */
static int csv_waits(const struct ompc_diff *diff, struct ompc_csv_tables *tables)
{
    FILE *out = ompc_csv_begin(tables, "wait_location");
    if (out == NULL)
        return -1;
    fputs("state,what," PLACE_COLUMNS ",object_module,object_offset,status,a_samples,b_samples," TIME_COLUMNS "\n",
          out);
    for (size_t i = 0; i < diff->wait_count; i++) {
        const struct ompc_diff_wait *row = &diff->waits[i];
        const struct ompc_merge_location *object = &row->first->object;
        int has_object = object->kind > 0 && object->module.text != NULL;
        ompc_csv_lead(tables);
        fprintf(out, "%s,", ompc_state_name(row->first->state));
        csv_text(out, &row->first->what);
        fputc(',', out);
        ompc_merge_csv_place(out, &row->first->where);
        fputc(',', out);
        if (has_object) {
            csv_text(out, &object->module);
            fprintf(out, ",0x%" PRIx64, object->module_offset);
        } else {
            fputc(',', out);
        }
        fprintf(out, ",%s,%" PRId64 ",%" PRId64, status_name(row->status), row->a.count, row->b.count);
        csv_times(out, &row->a, &row->b, row->change_ns);
        fputc('\n', out);
    }
    return 0;
}

int ompc_diff_write_csv(struct ompc_sink *sink, const struct ompc_diff *diff)
{
    struct ompc_csv_tables tables = {sink, NULL, NULL};
    if (csv_runs(diff, &tables) != 0 || csv_states(diff, &tables) != 0 || csv_constructs(diff, &tables) != 0
        || csv_waits(diff, &tables) != 0 || ompc_diff_calls_csv(&tables, diff) != 0)
        return -1;
    return ferror(sink->out) ? -1 : 0;
}
