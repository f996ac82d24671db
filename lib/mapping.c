/* mapping.c - pure lookups over the translation tables; no globals are read or written here. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "mapping.h"

#include <stddef.h>

const struct oc_event_source_row oc_event_source_rows[OC_SRC_COUNT] = {
#define OC_SOURCE_ROW(source, begin_cb, end_cb, extra, kind, begin, end)                      \
    {#source, OC_CB_##begin_cb, OC_CB_##end_cb, OC_BIT(begin_cb) | OC_BIT(end_cb) | (extra), \
     (kind), (begin), (end)},
    OC_EVENT_SOURCES(OC_SOURCE_ROW)
#undef OC_SOURCE_ROW
};

const struct oc_source_events oc_source_events_table[OC_SRC_COUNT] = {
#define OC_SOURCE_EVENTS(source, begin_cb, end_cb, extra, kind, begin, end) \
    {((uint64_t)1u << (begin)) | ((uint64_t)1u << (end)), (begin), (end)},
    OC_EVENT_SOURCES(OC_SOURCE_EVENTS)
#undef OC_SOURCE_EVENTS
};

const struct oc_state_row oc_state_rows[] = {
#define OC_STATE_ROW(ompt_state, legacy_state, refinement) {(ompt_state), (legacy_state), (refinement)},
    OC_STATE_MAP(OC_STATE_ROW)
#undef OC_STATE_ROW
};

const int oc_state_row_count = (int)(sizeof oc_state_rows / sizeof oc_state_rows[0]);

static const char *const callback_names[OC_CB_COUNT] = {
#define OC_CALLBACK_NAME(name) #name,
    OC_OMPT_CALLBACKS(OC_CALLBACK_NAME)
#undef OC_CALLBACK_NAME
};

static const int callback_ompt_ids[OC_CB_COUNT] = {
#define OC_CALLBACK_ID(name) (int)ompt_callback_##name,
    OC_OMPT_CALLBACKS(OC_CALLBACK_ID)
#undef OC_CALLBACK_ID
};

/* Name of a callback bit; "?" for an index outside the list. */
const char *oc_callback_name(int callback_index)
{
    if (callback_index < 0 || callback_index >= OC_CB_COUNT)
        return "?";
    return callback_names[callback_index];
}

/* The ompt_callbacks_t value behind a callback bit, 0 when out of range. */
int oc_callback_ompt_id(int callback_index)
{
    if (callback_index < 0 || callback_index >= OC_CB_COUNT)
        return 0;
    return callback_ompt_ids[callback_index];
}

/* Events 1..22 are Oracle's, 23..35 OpenUH's task extension, 36.. ompcollector's own (numbered inside the shim); anything else is unknown. */
int oc_event_is_known(int event)
{
    return event >= OMP_EVENT_FORK && event <= OC_EVENT_MAX;
}

int oc_event_internal(int event)
{
    if (event >= OMP_EVENT_FORK && event <= OC_EVENT_LEGACY_MAX)
        return event;
    if (event > OMPCOLLECTOR_EVENT_BASE && event < OMPCOLLECTOR_EVENT_END)
        return OC_EVENT_LEGACY_MAX + (event - OMPCOLLECTOR_EVENT_BASE);
    return -1;
}

/* Union of what every row producing `event` needs. */
oc_callback_mask oc_event_needs(int event)
{
    oc_callback_mask needs = 0;
    if (OC_IS_PAYLOAD_EVENT(event))
        return OC_TASK_EVENT_NEEDS;
    for (int i = 0; i < OC_SRC_COUNT; i++) {
        const struct oc_event_source_row *row = &oc_event_source_rows[i];
        if (row->begin_event == event || row->end_event == event)
            needs |= row->needs;
    }
    return needs;
}

/* One fully granted row is enough: the others are other runtimes' spellings. */
int oc_event_supported(int event, oc_callback_mask granted)
{
    if (OC_IS_PAYLOAD_EVENT(event))
        return (granted & OC_TASK_EVENT_NEEDS) == OC_TASK_EVENT_NEEDS;
    for (int i = 0; i < OC_SRC_COUNT; i++) {
        const struct oc_event_source_row *row = &oc_event_source_rows[i];
        if ((row->begin_event == event || row->end_event == event)
            && (row->needs & granted) == row->needs)
            return 1;
    }
    return 0;
}

static int kind_matches(int row_kind, int kind)
{
    return row_kind == OC_ANY_KIND || row_kind == kind;
}

/* First row, in table order, that `callback_index` with `kind` opens; -1 if none. */
int oc_source_scan_begun_by(int callback_index, int kind)
{
    for (int i = 0; i < OC_SRC_COUNT; i++)
        if (oc_event_source_rows[i].begin_callback == callback_index
            && kind_matches(oc_event_source_rows[i].kind, kind))
            return i;
    return -1;
}

/* First row, in table order, that `callback_index` with `kind` closes; -1 if none. */
int oc_source_scan_ended_by(int callback_index, int kind)
{
    for (int i = 0; i < OC_SRC_COUNT; i++)
        if (oc_event_source_rows[i].end_callback == callback_index
            && kind_matches(oc_event_source_rows[i].kind, kind))
            return i;
    return -1;
}

/*
 * The same lookups as direct tables (oc_source_begun_by and
 * oc_source_ended_by in mapping.h read them), filled at compile time from
 * OC_EVENT_SOURCES: one cell per (callback, kind) for kinds below
 * OC_KIND_CELLS, holding 1 + the row or 0.  A row of a given kind fills its
 * one cell, an OC_ANY_KIND row the callback's whole line (GNU range
 * designators).  Two rows claiming one cell would make the linear scan's
 * "first row wins" matter; the compilers flag such overlapping initializers
 * (-Woverride-init in gcc's -Wextra, clang's -Winitializer-overrides), and
 * t/mapping-t.c checks the lookups against a scan cell by cell.  Kinds
 * outside the tables (none of OMPT's are) take the scans above.
 */
#define OC_CELL_FIRST(callback, kind) \
    ((callback) * OC_KIND_CELLS + ((kind) == OC_ANY_KIND ? 0 : (kind)))
#define OC_CELL_LAST(callback, kind) \
    ((callback) * OC_KIND_CELLS + ((kind) == OC_ANY_KIND ? OC_KIND_CELLS - 1 : (kind)))

const signed char oc_source_begun_cells[OC_CB_COUNT * OC_KIND_CELLS] = {
#define OC_BEGUN_CELL(source, begin_cb, end_cb, extra, kind, begin, end) \
    [OC_CELL_FIRST(OC_CB_##begin_cb, kind)... OC_CELL_LAST(OC_CB_##begin_cb, kind)] = OC_SRC_##source + 1,
    OC_EVENT_SOURCES(OC_BEGUN_CELL)
#undef OC_BEGUN_CELL
};

const signed char oc_source_ended_cells[OC_CB_COUNT * OC_KIND_CELLS] = {
#define OC_ENDED_CELL(source, begin_cb, end_cb, extra, kind, begin, end) \
    [OC_CELL_FIRST(OC_CB_##end_cb, kind)... OC_CELL_LAST(OC_CB_##end_cb, kind)] = OC_SRC_##source + 1,
    OC_EVENT_SOURCES(OC_ENDED_CELL)
#undef OC_ENDED_CELL
};


/* libomp says wait_lock for a critical too (t/conformance/checks/state-critical.c). */
static int refine_mutex(int last_mutex_kind)
{
    switch (last_mutex_kind) {
    case OC_MUTEX_CRITICAL:
        return THR_CTWT_STATE;
    case OC_MUTEX_ATOMIC:
        return THR_ATWT_STATE;
    case OC_MUTEX_ORDERED:
        return THR_ODWT_STATE;
    default:
        return THR_LKWT_STATE;
    }
}

/*
 * The state table's row for `ompt_state`, or NULL for a state it does not
 * list: a switch generated from OC_STATE_MAP (each case's row a constant
 * equal to that of oc_state_rows), because samplers ask from signal
 * handlers thousands of times a second.  A state listed twice fails to
 * compile (duplicate case), where a scan would silently take the first.
 */
const struct oc_state_row *oc_state_row(int ompt_state)
{
    switch (ompt_state) {
#define OC_STATE_CASE(state, legacy_state, refinement)                                         \
    case (state): {                                                                          \
        static const struct oc_state_row row = {(state), (legacy_state), (refinement)};       \
        return &row;                                                                         \
    }
        OC_STATE_MAP(OC_STATE_CASE)
#undef OC_STATE_CASE
    default:
        return NULL;
    }
}

/* A row whose legacy answer is a barrier state and is not a task wait's stand-in. */
int oc_state_is_barrier_wait(int ompt_state)
{
    return oc_state_row_is_barrier_wait(oc_state_row(ompt_state));
}

/* oc_state_is_barrier_wait for a row already looked up (NULL: a state the table does not list). */
int oc_state_row_is_barrier_wait(const struct oc_state_row *row)
{
    return row != NULL && (row->legacy_state == THR_IBAR_STATE || row->legacy_state == THR_EBAR_STATE)
           && row->refinement != OC_REFINE_TASKWAIT;
}

/*
 * Table lookup plus refinement.  A state the table does not list is an
 * implementation-specific one: the thread is somewhere in the runtime, so
 * it counts as overhead.
 */
int oc_map_state(int ompt_state, const struct oc_state_context *context)
{
    return oc_refine_state(oc_state_row(ompt_state), context);
}

static int refine_row(const struct oc_state_row *row, const struct oc_state_context *context);

/*
 * oc_map_state for a row already looked up (NULL: a state the table does
 * not list).  Inside a reduction's bracket (libomp does not set
 * work_reduction, t/conformance/checks/state-reduction.c; it brackets the
 * combine with ompt_callback_reduction) a thread that works or waits at
 * the reduction's barrier is reducing.
 */
int oc_refine_state(const struct oc_state_row *row, const struct oc_state_context *context)
{
    static const struct oc_state_context empty_context = {0, 0, 0, 0, THR_EBAR_STATE, 0, 0};
    if (context == NULL)
        context = &empty_context;
    if (row == NULL)
        return THR_OVHD_STATE;
    int state = refine_row(row, context);
    if (context->in_reduction && row->refinement != OC_REFINE_TASKWAIT
        && (state == THR_WORK_STATE || state == THR_IBAR_STATE || state == THR_EBAR_STATE))
        return THR_REDUC_STATE;
    return state;
}

/* The table's answer for `row`, refined by what the shim saw the thread do. */
static int refine_row(const struct oc_state_row *row, const struct oc_state_context *context)
{
    switch (row->refinement) {
    case OC_REFINE_IDLE:
        return context->region_ended ? THR_IDLE_STATE : row->legacy_state;
    case OC_REFINE_BARRIER:
        return context->last_sync_kind == OC_SYNC_BARRIER_EXPLICIT ? THR_EBAR_STATE : THR_IBAR_STATE;
    case OC_REFINE_MUTEX:
        return refine_mutex(context->last_mutex_kind);
    case OC_REFINE_TASKWAIT:
        return context->taskwait_state;
    case OC_REFINE_WORK:
        return context->in_task_wait ? context->taskwait_state : row->legacy_state;
    case OC_REFINE_SERIAL:
        /*
         * libomp says work_serial while it runs a task in a serialized team
         * (a team of one: __kmp_invoke_task picks the state by
         * th_team_serialized), though the task is in that parallel region.
         */
        if (!context->in_region)
            return row->legacy_state;
        return context->in_task_wait ? context->taskwait_state : THR_WORK_STATE;
    default:
        return row->legacy_state;
    }
}

/* The header names a wait id for barrier states and the four object waits; the others have none. */
int oc_legacy_state_has_wait_id(int legacy_state)
{
    switch (legacy_state) {
    case THR_IBAR_STATE:
    case THR_EBAR_STATE:
    case THR_LKWT_STATE:
    case THR_CTWT_STATE:
    case THR_ODWT_STATE:
    case THR_ATWT_STATE:
        return 1;
    default:
        return 0;
    }
}
