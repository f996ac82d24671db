/* locations.c - groups a finished record's regions and waits by code address and names them with the symbolizer, in the launcher after the program ended. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "demangle.h"
#include "locations.h"
#include "names.h"
#include "omp_collector_api.h"
#include "paths.h"
#include "record.h"
#include "sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Locates `address` (an ompc_address_kind) with the symbolizer, or leaves it raw. */
static void locate(struct ompc_symbolizer *symbolizer, uint64_t address, int address_kind,
                   struct ompc_location *out)
{
    memset(out, 0, sizeof *out);
    if (symbolizer != NULL && address != 0)
        ompc_symbolize(symbolizer, address, address_kind, out);
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
        snprintf(buffer, size, "%s %s:%d", function, ompc_base_name(where->file, ""), where->line);
        break;
    case OMPC_LOC_SYMBOL:
        snprintf(buffer, size, "%s+0x%" PRIx64, function, where->function_offset);
        break;
    case OMPC_LOC_MODULE:
        snprintf(buffer, size, "%s+0x%" PRIx64, ompc_base_name(where->module, ""), where->module_offset);
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

const char *ompc_construct_kind_name(const struct ompc_construct_row *row)
{
    switch (row->kind) {
    case OMPC_CONSTRUCT_PARALLEL:
        return row->target ? "target parallel" : "parallel";
    case OMPC_CONSTRUCT_TEAMS:
        return row->target ? "target teams" : "teams";
    default:
        return "unknown";
    }
}

const char *ompc_construct_label(const struct ompc_construct_row *row, char *buffer, size_t size)
{
    char where[480];
    ompc_location_label(&row->where, row->codeptr, where, sizeof where);
    if (row->kind == OMPC_CONSTRUCT_UNKNOWN || (row->kind == OMPC_CONSTRUCT_PARALLEL && !row->target && row->teams < 0))
        snprintf(buffer, size, "%s", where);
    else
        snprintf(buffer, size, "%s%s %s", row->teams >= 0 ? "  " : "", ompc_construct_kind_name(row), where);
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
    int state, kind, at_construct;
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
    if (x->at_construct != y->at_construct)
        return x->at_construct - y->at_construct;
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

/* The folded teams row a parallel row runs in, by the teams construct's source line; -1 none. */
static int teams_row(const struct ompc_locations *locations, const struct ompc_construct_row *row)
{
    if (row->teams_codeptr == 0)
        return -1;
    for (int i = 0; i < locations->construct_count; i++) {
        const struct ompc_construct_row *teams = &locations->constructs[i];
        if (teams->kind == OMPC_CONSTRUCT_TEAMS
            && ompc_compare_sources(&teams->where, teams->codeptr, &row->teams_where, row->teams_codeptr) == 0)
            return i;
    }
    return -1;
}

/*
 * Puts each parallel construct that runs inside a teams construct right
 * after that teams row (widest first among them), so a table shows it
 * nested; rows outside any stay widest first.  -1 when memory runs out.
 */
static int nest_under_teams(struct ompc_locations *out)
{
    int count = out->construct_count, placed = 0;
    int *parent = malloc(((size_t)count + 1) * sizeof *parent);
    struct ompc_construct_row *rows = malloc(((size_t)count + 1) * sizeof *rows);
    if (parent == NULL || rows == NULL) {
        free(parent);
        free(rows);
        return -1;
    }
    for (int i = 0; i < count; i++)
        parent[i] = out->constructs[i].kind == OMPC_CONSTRUCT_PARALLEL ? teams_row(out, &out->constructs[i]) : -1;
    for (int i = 0; i < count; i++) {
        if (parent[i] >= 0)
            continue;
        int at = placed;
        rows[placed++] = out->constructs[i];
        for (int j = 0; j < count; j++)
            if (parent[j] == i) {
                rows[placed] = out->constructs[j];
                rows[placed].target |= rows[at].target; /* inside a target region's teams */
                rows[placed++].teams = at;
            }
    }
    memcpy(out->constructs, rows, (size_t)count * sizeof *rows);
    free(parent);
    free(rows);
    return 0;
}

/*
 * A teams construct the runtime reported from its own code (GCC's host
 * teams on libomp: an address in GOMP_teams_reg) is named where the
 * program hands over the body a parallel region inside it was forked
 * from; its parallel rows' teams locations follow.  `rows` are the
 * process's constructs, one each, before folding.
 */
static void teams_by_body(const struct ompc_model_process *process, struct ompc_locations *out)
{
    for (uint32_t i = 0; i < process->construct_count; i++) {
        struct ompc_construct_row *teams = &out->constructs[i];
        struct ompc_location where = {.kind = OMPC_LOC_NONE};
        if (teams->kind != OMPC_CONSTRUCT_TEAMS || teams->where.kind == OMPC_LOC_LINE)
            continue;
        for (uint32_t j = 0; j < process->construct_count; j++) {
            if (process->constructs[j].teams != i + 1)
                continue;
            locate(out->symbolizer, process->constructs[j].codeptr, OMPC_ADDRESS_HANDED, &where);
            if (where.kind == OMPC_LOC_LINE)
                break;
        }
        if (where.kind != OMPC_LOC_LINE)
            continue;
        teams->where = where;
        for (uint32_t j = 0; j < process->construct_count; j++)
            if (out->constructs[j].teams_codeptr == teams->codeptr)
                out->constructs[j].teams_where = where;
    }
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
        row->copies = 1;
        locate(out->symbolizer, row->codeptr, OMPC_ADDRESS_CODEPTR, &row->where);
        row->kind = from->kind;
        row->target = row->where.offload;
        row->teams = -1;
        if (from->teams > 0 && from->teams <= process->construct_count) {
            row->teams_codeptr = process->constructs[from->teams - 1].codeptr;
            locate(out->symbolizer, row->teams_codeptr, OMPC_ADDRESS_CODEPTR, &row->teams_where);
        }
    }
    teams_by_body(process, out);
    ompc_fold_constructs(out->constructs, &out->construct_count);
    ompc_qsort(out->constructs, (size_t)out->construct_count, sizeof *out->constructs, compare_constructs);
    return nest_under_teams(out);
}

/*
 * A region's closing barrier is at its parallel construct's call (the
 * master's, and the agent puts a worker's there); any other implicit
 * barrier closes a worksharing construct.  A `parallel for` has both at
 * one pragma, which the rows' names would not tell apart.  -1 when memory
 * runs out.
 */
static int mark_worksharing(const struct ompc_model_process *process, struct ompc_locations *out)
{
    uint64_t *calls = malloc(((size_t)process->construct_count + 1) * sizeof *calls);
    if (calls == NULL)
        return -1;
    for (uint32_t i = 0; i < process->construct_count; i++)
        calls[i] = process->constructs[i].codeptr;
    ompc_qsort(calls, (size_t)process->construct_count, sizeof *calls, ompc_compare_u64);
    for (int j = 0; j < out->wait_count; j++) {
        struct ompc_wait_row *row = &out->waits[j];
        row->worksharing = row->state == THR_IBAR_STATE && row->kind != OMPCOLLECTOR_WAIT_TASKWAIT
                           && row->kind != OMPCOLLECTOR_WAIT_TASKGROUP
                           && ompc_bsearch(&row->codeptr, calls, (size_t)process->construct_count, sizeof *calls,
                                           ompc_compare_u64) == NULL;
    }
    free(calls);
    return 0;
}

/* Every thread's wait entries, in key order; NULL when memory runs out. */
static struct wait_entry *wait_entries(const struct ompc_model_process *process, size_t *used)
{
    int thread_count = process->thread_count;
    if (thread_count < 0 || thread_count > OMPC_MAX_THREADS)
        thread_count = OMPC_MAX_THREADS;
    size_t capacity = 1;
    for (int i = 0; i < thread_count; i++)
        capacity += process->threads[i].wait_count;
    struct wait_entry *entries = malloc(capacity * sizeof *entries);
    *used = 0;
    for (int i = 0; entries != NULL && i < thread_count; i++) {
        for (uint32_t slot = 0; slot < process->threads[i].wait_count; slot++) {
            const struct ompc_model_wait *wait = &process->threads[i].waits[slot];
            /* A WORK row is a body held, no wait (record.h): add_held counts it. */
            if (wait->state == 0 || wait->state == THR_WORK_STATE || wait->codeptr == 0)
                continue;
            int at_construct = (wait->state == THR_EBAR_STATE || wait->state == THR_IBAR_STATE)
                               && wait->id == OMPC_WAIT_AT_CONSTRUCT;
            entries[(*used)++] = (struct wait_entry){(int)wait->state, (int)wait->kind, at_construct, wait->codeptr,
                                                     wait->object, i, wait->ticks};
        }
    }
    if (entries != NULL)
        ompc_qsort(entries, *used, sizeof *entries, compare_entries);
    return entries;
}

/* The entries merged by (state, code address, object); each entry's row and thread in `refs`. */
static void merge_entries(const struct wait_entry *entries, size_t used, struct ompc_locations *out,
                          struct ompc_wait_ref *refs)
{
    for (size_t i = 0; i < used; i++) {
        const struct wait_entry *entry = &entries[i];
        struct ompc_wait_row *row = out->wait_count > 0 ? &out->waits[out->wait_count - 1] : NULL;
        if (row == NULL || row->state != entry->state || row->codeptr != entry->codeptr
            || row->object != entry->object || row->at_construct != entry->at_construct) {
            row = &out->waits[out->wait_count++];
            row->state = entry->state;
            row->codeptr = entry->codeptr;
            row->object = entry->object;
            row->at_construct = entry->at_construct;
            row->copies = 1;
        }
        if (entry->kind != 0)
            row->kind = entry->kind;
        row->ticks += entry->ticks;
        refs[i] = (struct ompc_wait_ref){out->wait_count - 1, entry->thread};
    }
}

/* Whether a state is a wait for a lock, critical, ordered or atomic: one that a thread holding it makes others wait. */
static int mutex_state(int state)
{
    return state == THR_LKWT_STATE || state == THR_CTWT_STATE || state == THR_ODWT_STATE || state == THR_ATWT_STATE;
}

/*
 * Each body held (the WORK rows of record.h) goes to the wait row of the
 * same construct and object: what that lock, critical, atomic or ordered
 * serialises.  A body no thread ever waited for has no row and no gain.
 */
static void add_held(const struct ompc_model_process *process, struct ompc_locations *out)
{
    int thread_count = process->thread_count < 0 ? 0 : process->thread_count > OMPC_MAX_THREADS ? OMPC_MAX_THREADS
                                                                                               : process->thread_count;
    for (int i = 0; i < thread_count; i++)
        for (uint32_t slot = 0; slot < process->threads[i].wait_count; slot++) {
            const struct ompc_model_wait *held = &process->threads[i].waits[slot];
            if (held->state != THR_WORK_STATE || held->codeptr == 0)
                continue;
            for (int j = 0; j < out->wait_count; j++) {
                struct ompc_wait_row *row = &out->waits[j];
                if (mutex_state(row->state) && row->codeptr == held->codeptr && row->object == held->object) {
                    row->held_ticks += held->ticks;
                    break;
                }
            }
        }
}

/*
 * How a wait's code address is read: a task wait's may be its construct's
 * call, standing in for an address in the runtime's own code (the shim's
 * and the agent's fallback), which the symbolizer follows into the body.
 */
static int wait_address_kind(const struct ompc_wait_row *row)
{
    if (row->kind == OMPCOLLECTOR_WAIT_TASKWAIT)
        return OMPC_ADDRESS_TASKWAIT;
    if (row->kind == OMPCOLLECTOR_WAIT_TASKGROUP)
        return OMPC_ADDRESS_TASKGROUP;
    if (row->at_construct)
        return OMPC_ADDRESS_BARRIER;
    return row->worksharing ? OMPC_ADDRESS_WORKSHARE : OMPC_ADDRESS_CODEPTR;
}

/*
 * Locates a wait row.  A barrier the runtime placed in its own code, put
 * at its region's construct, that the symbolizer finds the region's body
 * jumping to closes a worksharing construct there (a region's join is
 * never such a jump); else it stays the region's.
 */
static void locate_wait(struct ompc_symbolizer *symbolizer, struct ompc_wait_row *row)
{
    struct ompc_location construct;
    locate(symbolizer, row->codeptr, wait_address_kind(row), &row->where);
    locate(symbolizer, row->object, OMPC_ADDRESS_CODE, &row->what);
    if (!row->at_construct || row->kind == OMPCOLLECTOR_WAIT_TASKWAIT || row->kind == OMPCOLLECTOR_WAIT_TASKGROUP)
        return;
    locate(symbolizer, row->codeptr, OMPC_ADDRESS_CODEPTR, &construct);
    row->worksharing = row->state == THR_IBAR_STATE && construct.module_offset != row->where.module_offset;
}

/* A wait the runtime put at a construct it reported from its own code (GCC's host teams: GOMP_teams_reg) takes the construct's name (teams_by_body). */
static void wait_at_renamed_construct(const struct ompc_locations *out, struct ompc_wait_row *row)
{
    if (row->where.kind == OMPC_LOC_LINE)
        return;
    for (int i = 0; i < out->construct_count; i++)
        if (out->constructs[i].codeptr == row->codeptr && out->constructs[i].kind == OMPC_CONSTRUCT_TEAMS
            && out->constructs[i].where.kind == OMPC_LOC_LINE) {
            row->where = out->constructs[i].where;
            return;
        }
}

/* The wait table, by source, named and most waited first; -1 when memory runs out. */
static int build_waits(const struct ompc_model_process *process, struct ompc_locations *out)
{
    size_t used;
    struct wait_entry *entries = wait_entries(process, &used);
    struct ompc_wait_ref *refs = malloc((used + 1) * sizeof *refs);
    out->waits = calloc(used + 1, sizeof *out->waits);
    int failed = entries == NULL || refs == NULL || out->waits == NULL;
    if (!failed) {
        merge_entries(entries, used, out, refs);
        add_held(process, out);
        failed = mark_worksharing(process, out) != 0;
    }
    for (int j = 0; !failed && j < out->wait_count; j++) {
        locate_wait(out->symbolizer, &out->waits[j]);
        wait_at_renamed_construct(out, &out->waits[j]);
    }
    if (!failed)
        failed = ompc_fold_waits(out->waits, &out->wait_count, refs, used) != 0;
    free(entries);
    free(refs);
    if (failed)
        return -1;
    ompc_qsort(out->waits, (size_t)out->wait_count, sizeof *out->waits, compare_wait_rows);
    return 0;
}

/* qsort: most execution time first, then most tasks. */
static int compare_task_constructs(const void *a, const void *b)
{
    const struct ompc_model_task_construct *x = &((const struct ompc_task_construct_row *)a)->sum;
    const struct ompc_model_task_construct *y = &((const struct ompc_task_construct_row *)b)->sum;
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
        row->sum = process->task_constructs[i];
        row->copies = 1;
        locate(out->symbolizer, row->sum.codeptr, OMPC_ADDRESS_CODEPTR, &row->where);
    }
    ompc_fold_task_constructs(out->task_constructs, &out->task_construct_count);
    ompc_qsort(out->task_constructs, (size_t)out->task_construct_count, sizeof *out->task_constructs,
               compare_task_constructs);
    return 0;
}

int ompc_locations_build(const struct ompc_model_process *process, struct ompc_locations *out)
{
    memset(out, 0, sizeof *out);
    out->known = process->has_sample != 0;
    out->symbolizer = ompc_model_symbolizer(process, &out->vdso);
    if (build_constructs(process, out) != 0 || build_waits(process, out) != 0
        || build_task_constructs(process, out) != 0
        || ompc_serial_places_build(process, out->symbolizer, out->vdso, &out->serial) != 0
        || ompc_mpi_sites_build(process, out->symbolizer, &out->mpi) != 0)
        return -1;
    return 0;
}

void ompc_locations_free(struct ompc_locations *locations)
{
    free(locations->constructs);
    free(locations->waits);
    free(locations->task_constructs);
    free(locations->serial.rows);
    free(locations->mpi.rows);
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
