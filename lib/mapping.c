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

/* Events 1..22 are the header's; anything else is unknown to the shim. */
int oc_event_is_known(int event)
{
    return event >= OMP_EVENT_FORK && event <= OMP_EVENT_THR_END_ATWT;
}

/* Union of what every row producing `event` needs. */
oc_callback_mask oc_event_needs(int event)
{
    oc_callback_mask needs = 0;
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

/* Which row a callback with this kind opens; kinds no row knows give -1. */
int oc_source_begun_by(int callback_index, int kind)
{
    for (int i = 0; i < OC_SRC_COUNT; i++)
        if (oc_event_source_rows[i].begin_callback == callback_index
            && kind_matches(oc_event_source_rows[i].kind, kind))
            return i;
    return -1;
}

/* Which row a callback with this kind closes; kinds no row knows give -1. */
int oc_source_ended_by(int callback_index, int kind)
{
    for (int i = 0; i < OC_SRC_COUNT; i++)
        if (oc_event_source_rows[i].end_callback == callback_index
            && kind_matches(oc_event_source_rows[i].kind, kind))
            return i;
    return -1;
}

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

/* The state table's row for `ompt_state`, or NULL for a state it does not list. */
static const struct oc_state_row *state_row(int ompt_state)
{
    for (int i = 0; i < oc_state_row_count; i++)
        if (oc_state_rows[i].ompt_state == ompt_state)
            return &oc_state_rows[i];
    return NULL;
}

/* A row whose legacy answer is a barrier state and is not a task wait's stand-in. */
int oc_state_is_barrier_wait(int ompt_state)
{
    const struct oc_state_row *row = state_row(ompt_state);
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
    static const struct oc_state_context empty_context = {0, 0, 0, 0, THR_EBAR_STATE};
    if (context == NULL)
        context = &empty_context;
    const struct oc_state_row *row = state_row(ompt_state);
    if (row == NULL)
        return THR_OVHD_STATE;
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
    default:
        return row->legacy_state;
    }
}
