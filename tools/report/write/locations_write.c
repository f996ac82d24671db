/* locations_write.c - the constructs and wait locations in every format: the text tables, the CSV tables and the JSON members, from the tables locations.c built. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "demangle.h"
#include "jsonw.h"
#include "names.h"
#include "omp_collector_api.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* How many rows each text table shows. */
#define TEXT_ROWS 15

/* The construct's main states, as "WORK 51%, IBAR 37%". */
static void main_states(const uint64_t *ticks, char *buffer, size_t size)
{
    uint64_t total = 0;
    for (int state = 0; state < OMPC_NSTATES; state++)
        total += ticks[state];
    buffer[0] = '\0';
    if (total == 0) {
        snprintf(buffer, size, "no samples");
        return;
    }
    int used[OMPC_NSTATES] = {0};
    size_t length = 0;
    for (int n = 0; n < 3; n++) {
        int best = -1;
        for (int state = 1; state < OMPC_NSTATES; state++)
            if (!used[state] && ticks[state] > 0 && (best < 0 || ticks[state] > ticks[best]))
                best = state;
        if (best < 0)
            break;
        used[best] = 1;
        int wrote = snprintf(buffer + length, size - length, "%s%s %.0f%%", n ? ", " : "",
                             ompc_state_name(best), 100.0 * (double)ticks[best] / (double)total);
        if (wrote < 0 || (size_t)wrote >= size - length)
            break;
        length += (size_t)wrote;
    }
}

/* What the kinds and the indented rows mean, when the table has any. */
static void text_nesting_note(const struct ompc_locations *locations, FILE *out)
{
    int kinds = 0, nested = 0;
    for (int i = 0; i < locations->construct_count && i < TEXT_ROWS; i++) {
        kinds |= locations->constructs[i].kind == OMPC_CONSTRUCT_TEAMS || locations->constructs[i].target;
        nested |= locations->constructs[i].teams >= 0;
    }
    if (kinds)
        fputs("  teams = a teams construct's league, its instances the league's; target = a target region "
              "run on the host\n", out);
    if (nested)
        fputs("  an indented row is a parallel construct whose regions the teams of the teams row above it fork\n",
              out);
}

void ompc_locations_text(const struct ompc_locations *locations, uint64_t total, FILE *out)
{
    char label[512], what[256], states[128];
    fputs("\nParallel constructs (one row per construct; time = FORK to JOIN on the master; "
          "widest first):\n", out);
    if (!locations->known)
        fputs("  the runtime does not answer OMPCOLLECTOR_REQ_SAMPLE: constructs are unknown\n", out);
    if (locations->construct_count == 0) {
        fputs("  none\n", out);
    } else {
        fprintf(out, "  %-32s %9s %10s %9s %9s %7s %9s  %s\n", "construct", "instances", "total ms",
                "mean ms", "max ms", "threads", "imbalance", "main states");
        for (int i = 0; i < locations->construct_count && i < TEXT_ROWS; i++) {
            const struct ompc_construct_row *row = &locations->constructs[i];
            main_states(row->ticks, states, sizeof states);
            fprintf(out, "  %-32s %9" PRIu64 " %10.3f %9.3f %9.3f %7d ",
                    ompc_construct_label(row, label, sizeof label), row->instances,
                    row->total_ns / 1e6, row->instances ? row->total_ns / 1e6 / (double)row->instances : 0.0,
                    row->max_ns / 1e6, popcount64(row->thread_mask));
            if (row->imbalance > 0)
                fprintf(out, "%9.2f", row->imbalance);
            else
                fprintf(out, "%9s", "-");
            fprintf(out, "  %s\n", states);
        }
        if (locations->construct_count > TEXT_ROWS)
            fprintf(out, "  ... %d more constructs\n", locations->construct_count - TEXT_ROWS);
        fputs("  imbalance = max/mean of the per-thread WORK samples inside the construct\n", out);
        text_nesting_note(locations, out);
    }
    fputs("\nWaits by location (share of all samples; widest first):\n", out);
    if (locations->wait_count == 0) {
        fputs(locations->known ? "  none\n" : "  unknown (no OMPCOLLECTOR_REQ_SAMPLE)\n", out);
        return;
    }
    for (int i = 0; i < locations->wait_count && i < TEXT_ROWS; i++) {
        const struct ompc_wait_row *row = &locations->waits[i];
        fprintf(out, "  %-28s at %-30s %s %5.1f%% over %d thread%s\n",
                ompc_wait_what(row, what, sizeof what),
                ompc_location_label(&row->where, row->codeptr, label, sizeof label),
                ompc_state_name(row->state), total ? 100.0 * (double)row->ticks / (double)total : 0.0,
                row->threads, row->threads == 1 ? "" : "s");
    }
    if (locations->wait_count > TEXT_ROWS)
        fprintf(out, "  ... %d more locations\n", locations->wait_count - TEXT_ROWS);
}

void ompc_location_csv(FILE *out, const struct ompc_location *where)
{
    ompc_csv_string(out, where->function);
    fputc(',', out);
    ompc_csv_string(out, where->file);
    fputc(',', out);
    if (where->kind == OMPC_LOC_LINE)
        fprintf(out, "%d", where->line);
    fputc(',', out);
    ompc_csv_string(out, where->module);
    fprintf(out, ",0x%" PRIx64, where->module_offset);
}

int ompc_locations_csv(const struct ompc_locations *locations, struct ompc_csv_tables *tables)
{
    char buffer[256];
    FILE *out = ompc_csv_begin(tables, "construct");
    if (out == NULL)
        return -1;
    fputs("codeptr,function,file,line,module,module_offset,instances,total_ns,mean_ns,max_ns,"
          "threads,imbalance",
          out);
    ompc_csv_state_names(out);
    fputs(",kind,teams_codeptr\n", out);
    for (int i = 0; i < locations->construct_count; i++) {
        const struct ompc_construct_row *row = &locations->constructs[i];
        ompc_csv_lead(tables);
        fprintf(out, "0x%" PRIx64 ",", row->codeptr);
        ompc_location_csv(out, &row->where);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,", row->instances, row->total_ns,
                row->instances ? row->total_ns / row->instances : 0, row->max_ns,
                popcount64(row->thread_mask));
        if (row->imbalance > 0)
            fprintf(out, "%.3f", row->imbalance);
        for (int state = 1; state < OMPC_NSTATES; state++)
            fprintf(out, ",%" PRIu64, row->ticks[state]);
        /* The teams row's own address, which names it in this table: an empty field outside any. */
        fprintf(out, ",%s,", ompc_construct_kind_name(row));
        if (row->teams >= 0)
            fprintf(out, "0x%" PRIx64, locations->constructs[row->teams].codeptr);
        fputc('\n', out);
    }
    if ((out = ompc_csv_begin(tables, "wait_location")) == NULL)
        return -1;
    fputs("state,kind,codeptr,function,file,line,module,module_offset,object,object_symbol,"
          "samples,threads\n",
          out);
    for (int i = 0; i < locations->wait_count; i++) {
        const struct ompc_wait_row *row = &locations->waits[i];
        ompc_csv_lead(tables);
        fprintf(out, "%s,", ompc_state_name(row->state));
        ompc_csv_string(out, ompc_wait_what(row, buffer, sizeof buffer));
        fprintf(out, ",0x%" PRIx64 ",", row->codeptr);
        ompc_location_csv(out, &row->where);
        fprintf(out, ",0x%" PRIx64 ",", row->object);
        ompc_csv_string(out, row->what.kind >= OMPC_LOC_SYMBOL ? row->what.function : NULL);
        fprintf(out, ",%" PRIu64 ",%d\n", row->ticks, row->threads);
    }
    return 0;
}

/* The functions inlined code was inlined into, innermost first: [{"function", "mangled", "file", "line"}]. */
static json_t *json_inlined_into(const struct ompc_location *where)
{
    json_t *callers = json_array();
    int failed = 0;
    for (int i = 0; i < where->caller_count && !failed; i++) {
        const struct ompc_inline_caller *caller = &where->callers[i];
        json_t *object = json_object();
        failed = ompc_json_set(object, "function", ompc_json_string_or_null(caller->function));
        failed |= ompc_json_set(object, "mangled", ompc_json_string_or_null(caller->mangled));
        failed |= ompc_json_set(object, "file", ompc_json_string_or_null(caller->file));
        failed |= ompc_json_set(object, "line", caller->line > 0 ? json_integer(caller->line) : json_null());
        failed |= ompc_json_append(callers, ompc_json_built(object, failed));
    }
    return ompc_json_built(callers, failed);
}

/* {"address", "kind", "function", "mangled", "function_offset", "file", "line", "inlined_into", "module", "module_offset"[, "enclosing"]} of a location. */
json_t *ompc_location_json(uint64_t address, const struct ompc_location *where)
{
    static const char *const kinds[] = {"none", "module", "symbol", "line"};
    json_t *object = json_object();
    int failed = ompc_json_set(object, "address", ompc_json_hex(address, 0));
    failed |= ompc_json_set(object, "kind", json_string(kinds[where->kind]));
    failed |= ompc_json_set(object, "function", ompc_json_string_or_null(where->function));
    failed |= ompc_json_set(object, "mangled", ompc_json_string_or_null(where->mangled));
    failed |= ompc_json_set(object, "function_offset", ompc_json_u64(where->function_offset));
    failed |= ompc_json_set(object, "file", ompc_json_string_or_null(where->file));
    failed |= ompc_json_set(object, "line", where->kind == OMPC_LOC_LINE ? json_integer(where->line) : json_null());
    failed |= ompc_json_set(object, "inlined_into", json_inlined_into(where));
    failed |= ompc_json_set(object, "module", ompc_json_string_or_null(where->module));
    failed |= ompc_json_set(object, "module_offset", ompc_json_hex(where->module_offset, 0));
    /* Only for clang-outlined code: reports of every other location read as before. */
    if (where->enclosing != NULL)
        failed |= ompc_json_set(object, "enclosing", ompc_json_string(where->enclosing));
    return ompc_json_built(object, failed);
}

/*
 * One construct: what it is and where, the teams construct it runs in
 * (null: none), how often and how long, its imbalance (null when unknown)
 * and its samples by state.
 */
static json_t *json_construct(const struct ompc_locations *locations, const struct ompc_construct_row *row)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "kind", json_string(ompc_construct_kind_name(row)));
    failed |= ompc_json_set(object, "location", ompc_location_json(row->codeptr, &row->where));
    const struct ompc_construct_row *teams = row->teams >= 0 ? &locations->constructs[row->teams] : NULL;
    failed |= ompc_json_set(object, "inside",
                            teams != NULL ? ompc_location_json(teams->codeptr, &teams->where) : json_null());
    failed |= ompc_json_set(object, "copies", json_integer(row->copies));
    failed |= ompc_json_set(object, "instances", ompc_json_u64(row->instances));
    failed |= ompc_json_set(object, "total_ns", ompc_json_u64(row->total_ns));
    failed |= ompc_json_set(object, "max_ns", ompc_json_u64(row->max_ns));
    failed |= ompc_json_set(object, "threads", json_integer(popcount64(row->thread_mask)));
    /* Three decimals, as the text and CSV tables show it. */
    failed |= ompc_json_set(object, "imbalance", row->imbalance > 0 ? ompc_json_fixed(row->imbalance, 3) : json_null());
    failed |= ompc_json_set(object, "states", ompc_json_states(row->ticks));
    return ompc_json_built(object, failed);
}

/* One wait location: the state, what was waited for, where, on which object, and its samples. */
static json_t *json_wait_location(const struct ompc_wait_row *row)
{
    char buffer[256];
    json_t *object = json_object();
    int failed = ompc_json_set(object, "state", json_string(ompc_state_name(row->state)));
    failed |= ompc_json_set(object, "what", ompc_json_string_or_null(ompc_wait_what(row, buffer, sizeof buffer)));
    failed |= ompc_json_set(object, "location", ompc_location_json(row->codeptr, &row->where));
    failed |= ompc_json_set(object, "copies", json_integer(row->copies));
    failed |= ompc_json_set(object, "object", ompc_location_json(row->object, &row->what));
    failed |= ompc_json_set(object, "samples", ompc_json_u64(row->ticks));
    failed |= ompc_json_set(object, "threads", json_integer(row->threads));
    return ompc_json_built(object, failed);
}

int ompc_locations_json(const struct ompc_locations *locations, const struct ompc_model_process *process,
                        const struct ompc_stacks *stacks, json_t *report)
{
    json_t *constructs = json_array(), *waits = json_array();
    int failed = ompc_json_set(report, "locations_known", json_boolean(locations->known));
    for (int i = 0; i < locations->construct_count && !failed; i++)
        failed = ompc_json_append(constructs, json_construct(locations, &locations->constructs[i]));
    for (int i = 0; i < locations->wait_count && !failed; i++)
        failed = ompc_json_append(waits, json_wait_location(&locations->waits[i]));
    failed |= ompc_json_set(report, "constructs", constructs);
    failed |= ompc_json_set(report, "wait_locations", waits);
    failed |= ompc_json_set(report, "modules", ompc_modules_json(process, locations, stacks));
    failed |= ompc_json_set(report, "modules_dropped", json_integer(process->modules_dropped));
    return failed ? -1 : 0;
}
