/* locations.c - groups a finished record's regions and waits by code address and names them with the symbolizer, in the launcher after the program ended. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "csv.h"
#include "demangle.h"
#include "jsonw.h"
#include "locations.h"
#include "names.h"
#include "omp_collector_api.h"
#include "sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* How many rows each text table shows. */
#define TEXT_ROWS 15

static int popcount64(uint64_t value)
{
    int count = 0;
    for (; value; value &= value - 1)
        count++;
    return count;
}

/* The file name without its directories: the tables stay narrow and the JSON keeps the full path. */
static const char *trimmed(const char *path)
{
    const char *slash = path != NULL ? strrchr(path, '/') : NULL;
    return slash != NULL ? slash + 1 : (path != NULL ? path : "");
}

/* Locates `address` with the symbolizer, or leaves it raw. */
static void locate(struct ompc_symbolizer *symbolizer, uint64_t address, int is_return,
                   struct ompc_location *out)
{
    memset(out, 0, sizeof *out);
    if (symbolizer != NULL && address != 0)
        ompc_symbolize(symbolizer, address, is_return, out);
}

const char *ompc_location_label(const struct ompc_location *where, uint64_t address, char *buffer,
                                size_t size)
{
    /* Without return type, parameters and template arguments: a C++ row stays readable; JSON and CSV keep it whole. */
    char function[256];
    if (where->kind >= OMPC_LOC_SYMBOL)
        ompc_short_name(where->enclosing != NULL && where->kind == OMPC_LOC_LINE ? where->enclosing
                        : where->function != NULL                               ? where->function
                                                                                : "?",
                        OMPC_SHORT_PARAMETERS | OMPC_SHORT_TEMPLATES, function, sizeof function);
    switch (where->kind) {
    case OMPC_LOC_LINE:
        snprintf(buffer, size, "%s %s:%d", function, trimmed(where->file), where->line);
        break;
    case OMPC_LOC_SYMBOL:
        snprintf(buffer, size, "%s+0x%" PRIx64, function, where->function_offset);
        break;
    case OMPC_LOC_MODULE:
        snprintf(buffer, size, "%s+0x%" PRIx64, trimmed(where->module), where->module_offset);
        break;
    default:
        if (address == 0)
            snprintf(buffer, size, "(unknown)");
        else
            snprintf(buffer, size, "0x%" PRIx64, address);
        break;
    }
    return buffer;
}

/* qsort: widest construct first (total time, then samples). */
static int compare_constructs(const void *a, const void *b)
{
    const struct ompc_construct_row *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return (x->total_ns < y->total_ns) - (x->total_ns > y->total_ns);
    return (x->codeptr > y->codeptr) - (x->codeptr < y->codeptr);
}

/* One thread's wait entry, before merging. */
struct wait_entry {
    int state, kind;
    uint64_t codeptr, object;
    int thread;
    uint64_t ticks;
};

/* qsort: by key, then thread, so merging counts each thread once. */
static int compare_entries(const void *a, const void *b)
{
    const struct wait_entry *x = a, *y = b;
    if (x->state != y->state)
        return x->state - y->state;
    if (x->codeptr != y->codeptr)
        return (x->codeptr > y->codeptr) - (x->codeptr < y->codeptr);
    if (x->object != y->object)
        return (x->object > y->object) - (x->object < y->object);
    return x->thread - y->thread;
}

/* qsort: most samples first. */
static int compare_wait_rows(const void *a, const void *b)
{
    const struct ompc_wait_row *x = a, *y = b;
    if (x->ticks != y->ticks)
        return (x->ticks < y->ticks) - (x->ticks > y->ticks);
    return (x->codeptr > y->codeptr) - (x->codeptr < y->codeptr);
}

/* The construct table, named and widest first; returns -1 when memory runs out. */
static int build_constructs(const struct ompc_model_process *process, struct ompc_locations *out)
{
    out->constructs = calloc(process->construct_count + 1, sizeof *out->constructs);
    if (out->constructs == NULL)
        return -1;
    for (uint32_t i = 0; i < process->construct_count; i++) {
        const struct ompc_model_construct *from = &process->constructs[i];
        struct ompc_construct_row *row = &out->constructs[out->construct_count++];
        row->codeptr = from->codeptr;
        row->instances = from->forks;
        row->total_ns = from->time_ns;
        row->max_ns = from->max_ns;
        row->thread_mask = from->thread_mask;
        memcpy(row->ticks, from->ticks, sizeof row->ticks);
        row->work_sum = from->work_sum;
        row->work_max = from->work_max;
        row->work_threads = from->work_threads;
        if (from->work_sum > 0)
            row->imbalance = (double)from->work_max * from->work_threads / (double)from->work_sum;
        locate(out->symbolizer, row->codeptr, 1, &row->where);
    }
    ompc_qsort(out->constructs, (size_t)out->construct_count, sizeof *out->constructs, compare_constructs);
    return 0;
}

/* Merges every thread's wait entries by (state, code address, object); returns -1 when memory runs out. */
static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * A region's closing barrier is at its parallel construct's call (the
 * master's, and the agent puts a worker's there); any other implicit
 * barrier closes a worksharing construct.  A `parallel for` has both at
 * one pragma, which the rows' names would not tell apart.  -1 when memory
 * runs out.
 */
static int mark_worksharing(struct ompc_locations *out)
{
    uint64_t *calls = malloc(((size_t)out->construct_count + 1) * sizeof *calls);
    if (calls == NULL)
        return -1;
    for (int i = 0; i < out->construct_count; i++)
        calls[i] = out->constructs[i].codeptr;
    ompc_qsort(calls, (size_t)out->construct_count, sizeof *calls, compare_u64);
    for (int j = 0; j < out->wait_count; j++) {
        struct ompc_wait_row *row = &out->waits[j];
        row->worksharing = row->state == THR_IBAR_STATE && row->kind != OMPCOLLECTOR_WAIT_TASKWAIT
                           && row->kind != OMPCOLLECTOR_WAIT_TASKGROUP
                           && ompc_bsearch(&row->codeptr, calls, (size_t)out->construct_count, sizeof *calls,
                                           compare_u64) == NULL;
    }
    free(calls);
    return 0;
}

static int build_waits(const struct ompc_model_process *process, struct ompc_locations *out)
{
    int thread_count = process->thread_count;
    if (thread_count < 0 || thread_count > OMPC_MAX_THREADS)
        thread_count = OMPC_MAX_THREADS;
    size_t capacity = 1;
    for (int i = 0; i < thread_count; i++)
        capacity += process->threads[i].wait_count;
    struct wait_entry *entries = malloc(capacity * sizeof *entries);
    if (entries == NULL)
        return -1;
    size_t used = 0;
    for (int i = 0; i < thread_count; i++) {
        for (uint32_t slot = 0; slot < process->threads[i].wait_count; slot++) {
            const struct ompc_model_wait *wait = &process->threads[i].waits[slot];
            uint32_t state = wait->state;
            uint64_t codeptr = wait->codeptr;
            if (state == 0 || codeptr == 0)
                continue;
            entries[used++] = (struct wait_entry){(int)state, (int)wait->kind, codeptr, wait->object, i,
                                                  wait->ticks};
        }
    }
    ompc_qsort(entries, used, sizeof *entries, compare_entries);
    out->waits = calloc(used + 1, sizeof *out->waits);
    if (out->waits == NULL) {
        free(entries);
        return -1;
    }
    for (size_t i = 0; i < used; i++) {
        const struct wait_entry *entry = &entries[i];
        struct ompc_wait_row *row = out->wait_count > 0 ? &out->waits[out->wait_count - 1] : NULL;
        if (row == NULL || row->state != entry->state || row->codeptr != entry->codeptr
            || row->object != entry->object) {
            row = &out->waits[out->wait_count++];
            row->state = entry->state;
            row->codeptr = entry->codeptr;
            row->object = entry->object;
        }
        if (entry->kind != 0)
            row->kind = entry->kind;
        row->ticks += entry->ticks;
        if (i == 0 || compare_entries(&entries[i - 1], entry) != 0 || entries[i - 1].thread != entry->thread)
            row->threads++;
    }
    free(entries);
    if (mark_worksharing(out) != 0)
        return -1;
    for (int j = 0; j < out->wait_count; j++) {
        struct ompc_wait_row *row = &out->waits[j];
        locate(out->symbolizer, row->codeptr, 1, &row->where);
        locate(out->symbolizer, row->object, 0, &row->what);
    }
    ompc_qsort(out->waits, (size_t)out->wait_count, sizeof *out->waits, compare_wait_rows);
    return 0;
}

/* qsort: most execution time first, then most tasks. */
static int compare_task_constructs(const void *a, const void *b)
{
    const struct ompc_model_task_construct *x = ((const struct ompc_task_construct_row *)a)->from;
    const struct ompc_model_task_construct *y = ((const struct ompc_task_construct_row *)b)->from;
    if (x->exec_ns != y->exec_ns)
        return (x->exec_ns < y->exec_ns) - (x->exec_ns > y->exec_ns);
    if (x->created != y->created)
        return (x->created < y->created) - (x->created > y->created);
    return (x->codeptr > y->codeptr) - (x->codeptr < y->codeptr);
}

/* The task construct table, named; returns -1 when memory runs out. */
static int build_task_constructs(const struct ompc_model_process *process, struct ompc_locations *out)
{
    out->task_constructs = calloc(process->task_construct_count + 1, sizeof *out->task_constructs);
    if (out->task_constructs == NULL)
        return -1;
    for (uint32_t i = 0; i < process->task_construct_count; i++) {
        struct ompc_task_construct_row *row = &out->task_constructs[out->task_construct_count++];
        row->from = &process->task_constructs[i];
        locate(out->symbolizer, row->from->codeptr, 1, &row->where);
    }
    ompc_qsort(out->task_constructs, (size_t)out->task_construct_count, sizeof *out->task_constructs,
               compare_task_constructs);
    return 0;
}

int ompc_locations_build(const struct ompc_model_process *process, struct ompc_locations *out)
{
    memset(out, 0, sizeof *out);
    out->known = process->has_sample != 0;
    out->symbolizer = ompc_model_symbolizer(process, NULL);
    if (build_constructs(process, out) != 0 || build_waits(process, out) != 0
        || build_task_constructs(process, out) != 0)
        return -1;
    return 0;
}

void ompc_locations_free(struct ompc_locations *locations)
{
    free(locations->constructs);
    free(locations->waits);
    free(locations->task_constructs);
    if (locations->symbolizer != NULL)
        ompc_symbolizer_free(locations->symbolizer);
    memset(locations, 0, sizeof *locations);
}

/* The name of a named critical from its runtime lock symbol (GCC's and clang's ".gomp_critical_user_NAME"), or NULL. */
static const char *critical_name(const struct ompc_wait_row *row, char *buffer, size_t size)
{
    static const char prefix[] = ".gomp_critical_user_";
    if (row->what.kind < OMPC_LOC_SYMBOL || row->what.function == NULL
        || strncmp(row->what.function, prefix, sizeof prefix - 1) != 0)
        return NULL;
    snprintf(buffer, size, "%s", row->what.function + sizeof prefix - 1);
    char *suffix = strstr(buffer, ".var");
    if (suffix != NULL && suffix[4] == '\0')
        *suffix = '\0';
    /* clang names the unnamed critical's variable with an empty name. */
    return buffer[0] != '\0' ? buffer : NULL;
}

/* The lock's global symbol when wait_object is one ("lk"), or NULL. */
static const char *lock_name(const struct ompc_wait_row *row)
{
    if (row->what.kind >= OMPC_LOC_SYMBOL && row->what.function != NULL && row->what.function_offset == 0)
        return row->what.function;
    return NULL;
}

/* What the row waited in, as a reader names it: "critical(accum)", "lock `lk` (global)", "barrier (explicit)". */
const char *ompc_wait_what(const struct ompc_wait_row *row, char *buffer, size_t size)
{
    char name[128];
    switch (row->state) {
    case THR_CTWT_STATE:
        if (critical_name(row, name, sizeof name) != NULL)
            snprintf(buffer, size, "critical(%s)", name);
        else
            snprintf(buffer, size, "critical");
        break;
    case THR_LKWT_STATE:
        if (lock_name(row) != NULL)
            snprintf(buffer, size, "lock `%s` (global)", lock_name(row));
        else if (row->object != 0)
            snprintf(buffer, size, "lock at 0x%" PRIx64, row->object);
        else
            snprintf(buffer, size, "lock");
        break;
    case THR_ODWT_STATE:
        snprintf(buffer, size, "ordered");
        break;
    case THR_ATWT_STATE:
        snprintf(buffer, size, "atomic");
        break;
    case THR_EBAR_STATE:
    case THR_IBAR_STATE:
        /* Oracle's numbering reports a task's wait for its children as EBAR; the sample said which it was. */
        if (row->kind == OMPCOLLECTOR_WAIT_TASKWAIT)
            snprintf(buffer, size, "taskwait");
        else if (row->kind == OMPCOLLECTOR_WAIT_TASKGROUP)
            snprintf(buffer, size, "taskgroup");
        else
            snprintf(buffer, size, row->state == THR_EBAR_STATE ? "barrier (explicit)"
                                   : row->worksharing           ? "barrier (end of worksharing)"
                                                                : "barrier (implicit)");
        break;
    default:
        snprintf(buffer, size, "%s", ompc_state_name(row->state));
        break;
    }
    return buffer;
}

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
                    ompc_location_label(&row->where, row->codeptr, label, sizeof label), row->instances,
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
    fputc('\n', out);
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

/* One construct: where, how often and how long, its imbalance (null when unknown) and its samples by state. */
static json_t *json_construct(const struct ompc_construct_row *row)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "location", ompc_location_json(row->codeptr, &row->where));
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
    failed |= ompc_json_set(object, "object", ompc_location_json(row->object, &row->what));
    failed |= ompc_json_set(object, "samples", ompc_json_u64(row->ticks));
    failed |= ompc_json_set(object, "threads", json_integer(row->threads));
    return ompc_json_built(object, failed);
}

/* The modules the process had mapped, each with its load bias. */
static json_t *json_modules(const struct ompc_model_process *process)
{
    json_t *modules = json_array();
    int failed = 0;
    for (uint32_t i = 0; i < process->module_count && i < OMPC_MAX_MODULES && !failed; i++) {
        char path[OMPC_MODULE_PATH];
        memcpy(path, process->modules[i].path, sizeof path);
        path[sizeof path - 1] = '\0';
        json_t *module = json_object();
        failed = ompc_json_set(module, "path", ompc_json_string_or_null(path));
        failed |= ompc_json_set(module, "bias", ompc_json_hex(process->modules[i].bias, 0));
        failed |= ompc_json_append(modules, module);
    }
    return ompc_json_built(modules, failed);
}

int ompc_locations_json(const struct ompc_locations *locations, const struct ompc_model_process *process,
                        json_t *report)
{
    json_t *constructs = json_array(), *waits = json_array();
    int failed = ompc_json_set(report, "locations_known", json_boolean(locations->known));
    for (int i = 0; i < locations->construct_count && !failed; i++)
        failed = ompc_json_append(constructs, json_construct(&locations->constructs[i]));
    for (int i = 0; i < locations->wait_count && !failed; i++)
        failed = ompc_json_append(waits, json_wait_location(&locations->waits[i]));
    failed |= ompc_json_set(report, "constructs", constructs);
    failed |= ompc_json_set(report, "wait_locations", waits);
    failed |= ompc_json_set(report, "modules", json_modules(process));
    failed |= ompc_json_set(report, "modules_dropped", json_integer(process->modules_dropped));
    return failed ? -1 : 0;
}
