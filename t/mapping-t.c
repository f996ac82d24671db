/* mapping-t.c - walks every row of both translation tables through the shim, with the fake runtime firing callbacks and setting states. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fake-ompt.h"
#include "lib/internal.h"
#include "lib/mapping.h"
#include "lib/tap.h"
#include "omp_collector_api.h"

static int delivered[OC_EVENT_MAX + 1];

/* Every delivery in order, with TASK_ID and TASK_PID asked inside it, for the sequence checks. */
#define MAX_SEQUENCE 256
static int sequence[MAX_SEQUENCE];
static int64_t sequence_task[MAX_SEQUENCE], sequence_parent[MAX_SEQUENCE];
static int sequence_length;

static int task_id_request(int request, int mem_bytes, int64_t *id);

/* Counts and sequences events by the shim's numbers (ompcollector's own arrive by their public ones). */
static void record(OMP_COLLECTORAPI_EVENT public_event)
{
    int event = oc_event_internal((int)public_event);
    if (event < 0)
        return;
    delivered[event]++;
    if (sequence_length < MAX_SEQUENCE) {
        task_id_request(OMP_REQ_TASK_ID, 8, &sequence_task[sequence_length]);
        task_id_request(OMP_REQ_TASK_PID, 8, &sequence_parent[sequence_length]);
        sequence[sequence_length++] = event;
    }
}

static int request(int32_t *entry)
{
    __omp_collector_api(entry);
    return entry[2];
}

static int start_session(void)
{
    int32_t start[5] = {16, OMP_REQ_START, 0, 0, 0};
    return fake_ompt_attach() == 1 && request(start) == OMP_ERRCODE_OK;
}

/* Registers the shim's event `event` by the number a collector knows it by. */
static int register_event(int event)
{
    int32_t entry[8] = {28, OMP_REQ_REGISTER, 0, 0, oc_event_public(event)};
    void (*callback)(OMP_COLLECTORAPI_EVENT) = record;
    memcpy(&entry[5], &callback, sizeof callback);
    return request(entry);
}

static int state_now(uint64_t *wait_id)
{
    int32_t entry[8] = {28, OMP_REQ_STATE, 0, 0, 0, 0, 0, 0};
    request(entry);
    memcpy(wait_id, &entry[5], sizeof *wait_id);
    return entry[4];
}

static uint64_t current_prid(void)
{
    int32_t entry[7] = {24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    request(entry);
    uint64_t id;
    memcpy(&id, &entry[4], sizeof id);
    return id;
}

static ompt_data_t region = {0};

/* Fires the OMPT callback that opens `row`, as a runtime would. */
static void fire_begin(const struct oc_event_source_row *row)
{
    int kind = row->kind == OC_ANY_KIND ? 1 : row->kind;
    switch (row->begin_callback) {
    case OC_CB_parallel_begin:
        fake_fire_parallel_begin(&region);
        break;
    case OC_CB_implicit_task: /* a worker leaving its team */
        fake_fire_implicit_task(OC_SCOPE_BEGIN, &region, 1);
        fake_fire_implicit_task(OC_SCOPE_END, NULL, 1);
        break;
    case OC_CB_sync_region_wait:
        fake_fire_sync_region_wait(kind, OC_SCOPE_BEGIN);
        break;
    case OC_CB_mutex_acquire:
        fake_fire_mutex_acquire(kind, 0x1000);
        break;
    case OC_CB_mutex_acquired:
        fake_fire_mutex_acquired(kind, 0x1000);
        break;
    case OC_CB_work:
        fake_fire_work(kind, OC_SCOPE_BEGIN);
        break;
    case OC_CB_masked:
        fake_fire_masked(OC_SCOPE_BEGIN);
        break;
    default:
        tap_bail("no way to fire callback %s", oc_callback_name(row->begin_callback));
    }
}

/* Fires the OMPT callback that closes `row`. */
static void fire_end(const struct oc_event_source_row *row)
{
    int kind = row->kind == OC_ANY_KIND ? 1 : row->kind;
    switch (row->end_callback) {
    case OC_CB_parallel_end:
        fake_fire_parallel_end(&region);
        break;
    case OC_CB_implicit_task: /* the idle worker joins a new team */
        fake_fire_implicit_task(OC_SCOPE_BEGIN, &region, 1);
        break;
    case OC_CB_sync_region_wait:
        fake_fire_sync_region_wait(kind, OC_SCOPE_END);
        break;
    case OC_CB_mutex_acquired:
        fake_fire_mutex_acquired(kind, 0x1000);
        break;
    case OC_CB_mutex_released:
        fake_fire_mutex_released(kind, 0x1000);
        break;
    case OC_CB_work:
        fake_fire_work(kind, OC_SCOPE_END);
        break;
    case OC_CB_masked:
        fake_fire_masked(OC_SCOPE_END);
        break;
    default:
        tap_bail("no way to fire callback %s", oc_callback_name(row->end_callback));
    }
}

/* A team of one, as every task scenario runs inside: the thread's implicit task is followed. */
static void enter_team(void)
{
    fake_fire_parallel_begin(&region);
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &region, 0);
}

static ompt_data_t stolen_task;

/* Creates stolen_task on another thread, as a team mate would. */
static void *create_elsewhere(void *unused)
{
    (void)unused;
    fake_task_create(&stolen_task, ompt_task_explicit);
    return NULL;
}

/*
 * A task row: the task scenario that opens the row, then the one that
 * closes it.  CREATE, SCHD, STEAL and FINISH come whole from one OMPT
 * callback (OMPT reports those steps as instants); FETCHED is alone.
 */
static int check_task_row(const struct oc_event_source_row *row, int source)
{
    ompt_data_t child;
    int instant = source == OC_SRC_task_create_deferred || source == OC_SRC_task_create_undeferred
                  || source == OC_SRC_task_schedule || source == OC_SRC_task_steal
                  || source == OC_SRC_task_finish;
    enter_team();
    if (source == OC_SRC_task_create_undeferred) {
        fake_task_create(&child, ompt_task_explicit | ompt_task_undeferred);
    } else if (source == OC_SRC_task_steal) {
        pthread_t creator;
        if (pthread_create(&creator, NULL, create_elsewhere, NULL) != 0
            || pthread_join(creator, NULL) != 0)
            return 0;
        fake_task_begin(&stolen_task, OC_TASK_SWITCH);
    } else {
        fake_task_create(&child, ompt_task_explicit);
        if (source != OC_SRC_task_create_deferred && source != OC_SRC_task_finish)
            fake_task_begin(&child, OC_TASK_SWITCH);
    }
    if (row->end_event == OC_NO_EVENT)
        return delivered[row->begin_event] == 1;
    if (instant && source != OC_SRC_task_finish)
        return delivered[row->begin_event] == 1 && delivered[row->end_event] == 1;
    if (source == OC_SRC_task_finish) {
        fake_task_begin(&child, OC_TASK_SWITCH);
        if (delivered[row->begin_event] != 0 || delivered[row->end_event] != 0)
            return 0;
        fake_task_end(OC_TASK_COMPLETE);
        return delivered[row->begin_event] == 1 && delivered[row->end_event] == 1;
    }
    if (delivered[row->begin_event] != 1 || delivered[row->end_event] != 0)
        return 0;
    fake_task_end(OC_TASK_COMPLETE);
    return delivered[row->begin_event] == 1 && delivered[row->end_event] == 1;
}

/* The task dependence row: one event, alone, when a task created with a dependence on another is reported. */
static int check_dependence_row(const struct oc_event_source_row *row)
{
    static ompt_data_t source, sink;
    if (register_event(row->begin_event) != OMP_ERRCODE_OK || fake_ompt_handler(ompt_callback_task_dependence) == NULL)
        return 0;
    enter_team();
    fake_task_create(&source, ompt_task_explicit);
    fake_task_create(&sink, ompt_task_explicit);
    fake_fire_task_dependence(&source, &sink);
    return delivered[row->begin_event] == 1;
}

/* One event row: registering its events sets its callbacks; firing them delivers BEGIN then END once each. */
static int check_event_row(const struct oc_event_source_row *row)
{
    if (!start_session())
        return 0;
    int source = (int)(row - oc_event_source_rows);
    if (row->begin_callback == OC_CB_task_dependence)
        return check_dependence_row(row);
    if (row->begin_callback == OC_CB_task_create || row->begin_callback == OC_CB_task_schedule) {
        if (register_event(row->begin_event) != OMP_ERRCODE_OK
            || (row->end_event != OC_NO_EVENT && register_event(row->end_event) != OMP_ERRCODE_OK))
            return 0;
        for (int i = 0; i < OC_CB_COUNT; i++)
            if ((row->needs & (1u << i)) && fake_ompt_handler(oc_callback_ompt_id(i)) == NULL)
                return 0;
        return check_task_row(row, source);
    }
    if (register_event(row->begin_event) != OMP_ERRCODE_OK
        || register_event(row->end_event) != OMP_ERRCODE_OK)
        return 0;
    for (int i = 0; i < OC_CB_COUNT; i++)
        if ((row->needs & (1u << i)) && fake_ompt_handler(oc_callback_ompt_id(i)) == NULL)
            return 0;
    fire_begin(row);
    if (delivered[row->begin_event] != 1 || delivered[row->end_event] != 0)
        return 0;
    fire_end(row);
    return delivered[row->begin_event] == 1 && delivered[row->end_event] == 1;
}

/* One event row: a runtime granting none of the row's callbacks makes its events UNSUPPORTED unless another row covers them. */
static int check_unsupported(const struct oc_event_source_row *row)
{
    for (int i = 0; i < OC_CB_COUNT; i++)
        if (row->needs & (1u << i))
            fake_ompt_grant(oc_callback_ompt_id(i), ompt_set_never);
    if (!start_session())
        return 0;
    int expected = OMP_ERRCODE_UNSUPPORTED;
    /* Another row may produce the same event from callbacks still granted. */
    for (int r = 0; r < OC_SRC_COUNT; r++)
        if (oc_event_source_rows[r].begin_event == row->begin_event
            && (oc_event_source_rows[r].needs & row->needs) == 0)
            expected = OMP_ERRCODE_OK;
    return register_event(row->begin_event) == expected;
}

/* One state row with nothing seen beforehand: STATE answers the row's legacy state. */
static int check_state_row(const struct oc_state_row *row)
{
    if (!start_session())
        return 0;
    ompt_data_t team = {0};
    fake_fire_parallel_begin(&team);
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &team, 0);
    fake_ompt_set_state(row->ompt_state, 0x2000);
    uint64_t wait_id;
    int state = state_now(&wait_id);
    int expected = row->legacy_state;
    if (row->refinement == OC_REFINE_BARRIER)
        expected = THR_IBAR_STATE;
    if (row->refinement == OC_REFINE_MUTEX)
        expected = THR_LKWT_STATE;
    if (row->refinement == OC_REFINE_TASKWAIT)
        expected = THR_EBAR_STATE;
    if (row->refinement == OC_REFINE_SERIAL)
        expected = THR_WORK_STATE; /* serial work inside a region: a task of a team of one */
    if (state != expected)
        return 0;
    int carries_lock_id = state == THR_LKWT_STATE || state == THR_CTWT_STATE
                          || state == THR_ODWT_STATE || state == THR_ATWT_STATE;
    return !carries_lock_id || wait_id == 0x2000;
}

typedef int (*refinement_check)(void);

/* critical waits report wait_lock on libomp: the last acquire says critical. */
static int critical_reads_ctwt(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    fake_fire_mutex_acquire(OC_MUTEX_CRITICAL, 0x3000);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_LOCK, 0x3000);
    return state_now(&wait_id) == THR_CTWT_STATE && wait_id == 0x3000;
}

/* gcc atomics through the runtime report wait_lock too. */
static int atomic_reads_atwt(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    fake_fire_mutex_acquire(OC_MUTEX_ATOMIC, 0x3000);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_LOCK, 0x3000);
    return state_now(&wait_id) == THR_ATWT_STATE;
}

/* A real lock stays LKWT. */
static int lock_reads_lkwt(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    fake_fire_mutex_acquire(OC_MUTEX_LOCK, 0x3000);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_LOCK, 0x4000);
    return state_now(&wait_id) == THR_LKWT_STATE && wait_id == 0x4000;
}

/* 13-16 report explicit barriers as plain wait_barrier. */
static int generic_barrier_after_explicit_reads_ebar(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &region, 1);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_EXPLICIT, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER, 0);
    return state_now(&wait_id) == THR_EBAR_STATE && wait_id != 0;
}

/* A worker in the implicit barrier of a region that has ended is idle, with region id 0. */
static int worker_after_region_end_reads_idle(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    ompt_data_t team = {0};
    fake_fire_parallel_begin(&team); /* the master, here on the same thread for brevity */
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &team, 1);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLICIT, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT, 0);
    int before = state_now(&wait_id);
    uint64_t prid_before = current_prid();
    fake_fire_parallel_end(&team);
    int after = state_now(&wait_id);
    return before == THR_IBAR_STATE && prid_before == team.value && after == THR_IDLE_STATE
           && current_prid() == 0;
}

/*
 * libomp marks a thread working just before it reports the implicit task:
 * in that gap a sample must not say WORK with region 0.  The initial thread
 * is still serial, a worker still idle.
 */
static int work_outside_any_region_is_not_work(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    int initial = state_now(&wait_id);
    uint64_t initial_prid = current_prid();
    fake_fire_thread_begin(ompt_thread_worker);
    int worker = state_now(&wait_id);
    uint64_t worker_prid = current_prid();
    return initial == THR_SERIAL_STATE && initial_prid == 0 && worker == THR_IDLE_STATE
           && worker_prid == 0;
}

/*
 * libomp runs the tasks of a serialized team (a team of one) in
 * work_serial: inside the region they work, in its region, their task
 * waits are waits; after the region the thread is serial again.
 */
static int task_in_team_of_one_works(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    ompt_data_t team = {0}, child, grandchild;
    fake_fire_parallel_begin(&team);
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &team, 0);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    int implicit = state_now(&wait_id);
    fake_task_create(&child, ompt_task_explicit | ompt_task_undeferred);
    fake_task_begin(&child, OC_TASK_SWITCH);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_SERIAL, 0); /* __kmp_invoke_task in a serialized team */
    int task = state_now(&wait_id);
    uint64_t task_prid = current_prid();
    fake_task_create(&grandchild, ompt_task_explicit | ompt_task_undeferred);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_BEGIN);
    int task_waits = state_now(&wait_id);
    fake_task_begin(&grandchild, OC_TASK_SWITCH);
    int grandchild_runs = state_now(&wait_id);
    fake_task_end(OC_TASK_COMPLETE);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_END);
    fake_fire_reduction(OC_SCOPE_BEGIN);
    int reducing = state_now(&wait_id);
    fake_fire_reduction(OC_SCOPE_END);
    fake_task_end(OC_TASK_COMPLETE);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    fake_fire_implicit_task(OC_SCOPE_END, &team, 0);
    fake_fire_parallel_end(&team);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_SERIAL, 0);
    int after = state_now(&wait_id);
    uint64_t after_prid = current_prid();
    return implicit == THR_WORK_STATE && task == THR_WORK_STATE && task_prid == team.value
           && team.value != 0 && task_waits == THR_EBAR_STATE && grandchild_runs == THR_WORK_STATE
           && reducing == THR_REDUC_STATE && after == THR_SERIAL_STATE && after_prid == 0;
}

/* The table's refinement of work_serial agrees with the inline path above: WORK only inside a region. */
static int serial_row_refines_in_region(void)
{
    struct oc_state_context outside = {.taskwait_state = THR_EBAR_STATE};
    struct oc_state_context inside = {.taskwait_state = THR_EBAR_STATE, .in_region = 1};
    struct oc_state_context waiting = {.taskwait_state = THR_EBAR_STATE, .in_region = 1, .in_task_wait = 1};
    struct oc_state_context reducing = {.taskwait_state = THR_EBAR_STATE, .in_region = 1, .in_reduction = 1};
    return oc_map_state(OC_OMPT_STATE_WORK_SERIAL, &outside) == THR_SERIAL_STATE
           && oc_map_state(OC_OMPT_STATE_WORK_SERIAL, NULL) == THR_SERIAL_STATE
           && oc_map_state(OC_OMPT_STATE_WORK_SERIAL, &inside) == THR_WORK_STATE
           && oc_map_state(OC_OMPT_STATE_WORK_SERIAL, &waiting) == THR_EBAR_STATE
           && oc_map_state(OC_OMPT_STATE_WORK_SERIAL, &reducing) == THR_REDUC_STATE;
}

static int sampled_state = -1;
static uint64_t sampled_prid;

/* A FORK callback that samples as a signal handler landing there would. */
static void sample_in_callback(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    uint64_t wait_id;
    sampled_state = state_now(&wait_id);
    sampled_prid = current_prid();
}

/* Inside FORK delivery CURRENT_PRID names the new region, so STATE is not SERIAL there. */
static int state_inside_fork_agrees_with_prid(void)
{
    if (!start_session())
        return 0;
    int32_t entry[8] = {28, OMP_REQ_REGISTER, 0, 0, OMP_EVENT_FORK};
    void (*callback)(OMP_COLLECTORAPI_EVENT) = sample_in_callback;
    memcpy(&entry[5], &callback, sizeof callback);
    if (request(entry) != OMP_ERRCODE_OK)
        return 0;
    fake_ompt_set_state(OC_OMPT_STATE_WORK_SERIAL, 0);
    ompt_data_t team = {0};
    fake_fire_parallel_begin(&team);
    return sampled_state == THR_OVHD_STATE && sampled_prid == team.value && team.value != 0;
}

/* A region forked before the shim was asked to track forks still gets an id, shared by its team. */
static int region_forked_unseen_gets_an_id(void)
{
    if (!start_session())
        return 0;
    ompt_data_t team = {0}; /* no parallel_begin was seen for it */
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &team, 0);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    uint64_t wait_id;
    int state = state_now(&wait_id);
    uint64_t prid = current_prid();
    return state == THR_WORK_STATE && prid != 0 && prid == team.value;
}

/* Oracle's later numbering, when asked for. */
static int taskwait_numbering_switch(void)
{
    uint64_t wait_id;
    setenv("OMPCOLLECTOR_TASKWAIT_STATE", "12", 1);
    if (!start_session())
        return 0;
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_TASKWAIT, 0);
    return state_now(&wait_id) == OC_THR_TASKWAIT_STATE_ORACLE;
}

/*
 * libomp reports work_parallel inside a taskwait, whether the thread has
 * nothing to run or runs another task there.  The wait belongs to the
 * waiting task: a thread in it with nothing to run reads the task-wait
 * state, a task run inside it works (and its own nested wait is a wait
 * again), and when the waiting task has the thread back it waits again.
 */
static int task_wait_is_per_task(int kind)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &region, 0);
    ompt_data_t child, grandchild;
    fake_task_create(&child, ompt_task_explicit);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    fake_fire_sync_region_wait(kind, OC_SCOPE_BEGIN);
    int waiting = state_now(&wait_id);
    fake_task_begin(&child, OC_TASK_SWITCH); /* the waiting thread runs the child */
    int child_runs = state_now(&wait_id);
    fake_task_create(&grandchild, ompt_task_explicit);
    fake_fire_sync_region_wait(kind, OC_SCOPE_BEGIN);
    int child_waits = state_now(&wait_id);
    fake_task_begin(&grandchild, OC_TASK_SWITCH);
    int grandchild_runs = state_now(&wait_id);
    fake_task_end(OC_TASK_COMPLETE);
    int child_waits_again = state_now(&wait_id);
    fake_fire_sync_region_wait(kind, OC_SCOPE_END);
    int child_after_wait = state_now(&wait_id);
    fake_task_end(OC_TASK_COMPLETE);
    int waiting_again = state_now(&wait_id);
    fake_fire_sync_region_wait(kind, OC_SCOPE_END);
    int after = state_now(&wait_id);
    return waiting == THR_EBAR_STATE && child_runs == THR_WORK_STATE
           && child_waits == THR_EBAR_STATE && grandchild_runs == THR_WORK_STATE
           && child_waits_again == THR_EBAR_STATE && child_after_wait == THR_WORK_STATE
           && waiting_again == THR_EBAR_STATE && after == THR_WORK_STATE;
}

static int taskwait_is_per_task(void)
{
    return task_wait_is_per_task(OC_SYNC_TASKWAIT);
}

static int taskgroup_is_per_task(void)
{
    return task_wait_is_per_task(OC_SYNC_TASKGROUP);
}

/* A thread at a barrier that runs a task there works; back at the barrier it waits. */
static int task_run_at_barrier_works(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    enter_team();
    ompt_data_t child;
    fake_task_create(&child, ompt_task_explicit);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLICIT, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT, 0);
    int at_barrier = state_now(&wait_id);
    fake_task_begin(&child, OC_TASK_SWITCH);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0); /* libomp's state for a task it runs */
    int runs = state_now(&wait_id);
    fake_task_end(OC_TASK_COMPLETE);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT, 0);
    return at_barrier == THR_IBAR_STATE && runs == THR_WORK_STATE
           && state_now(&wait_id) == THR_IBAR_STATE;
}

/* A task wait answered as EBAR is no barrier instance: it must not carry the last barrier's wait id. */
static int taskwait_after_barrier_has_no_barrier_id(void)
{
    uint64_t barrier_id, taskwait_id, working_id;
    if (!start_session())
        return 0;
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &region, 1);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_EXPLICIT, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER_EXPLICIT, 0);
    int at_barrier = state_now(&barrier_id);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_EXPLICIT, OC_SCOPE_END);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_TASKWAIT, 0);
    int in_taskwait = state_now(&taskwait_id);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    int working_in_taskwait = state_now(&working_id);
    return at_barrier == THR_EBAR_STATE && barrier_id != 0 && in_taskwait == THR_EBAR_STATE
           && taskwait_id == 0 && working_in_taskwait == THR_EBAR_STATE && working_id == 0;
}

/*
 * A session that asks for nothing sets only what states need; a callback is
 * set when first needed and then never unset or replaced, because libomp
 * can jump to a pointer being cleared (UNREGISTER and STOP leave it set).
 */
static int callbacks_set_once(void)
{
    if (!start_session())
        return 0;
    if (fake_ompt_handler(ompt_callback_masked) != NULL
        || fake_ompt_handler(ompt_callback_parallel_begin) == NULL)
        return 0;
    register_event(OMP_EVENT_THR_BEGIN_MASTER);
    ompt_callback_t masked = fake_ompt_handler(ompt_callback_masked);
    if (masked == NULL)
        return 0;
    int32_t unregister[6] = {20, OMP_REQ_UNREGISTER, 0, 0, OMP_EVENT_THR_BEGIN_MASTER};
    request(unregister);
    int32_t stop[5] = {16, OMP_REQ_STOP, 0, 0, 0};
    request(stop);
    if (!start_session() || register_event(OMP_EVENT_THR_BEGIN_MASTER) != OMP_ERRCODE_OK)
        return 0;
    request(stop);
    return fake_ompt_handler(ompt_callback_masked) == masked
           && fake_ompt_handler(ompt_callback_parallel_begin) != NULL
           && fake_ompt_unsafe_sets() == 0;
}

/* A failed omp_test_lock on 13-16 is an acquire with no acquired: its END still comes. */
static int failed_test_lock_stays_balanced(void)
{
    if (!start_session() || register_event(OMP_EVENT_THR_BEGIN_LKWT) != OMP_ERRCODE_OK
        || register_event(OMP_EVENT_THR_END_LKWT) != OMP_ERRCODE_OK)
        return 0;
    fake_fire_mutex_acquire(OC_MUTEX_LOCK, 0x5000);
    fake_fire_mutex_acquire(OC_MUTEX_LOCK, 0x5000);
    fake_fire_mutex_acquired(OC_MUTEX_LOCK, 0x5000);
    return delivered[OMP_EVENT_THR_BEGIN_LKWT] == 2 && delivered[OMP_EVENT_THR_END_LKWT] == 2;
}

/* An END whose BEGIN happened before registration is not delivered. */
static int end_without_begin_is_dropped(void)
{
    if (!start_session())
        return 0;
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_EXPLICIT, OC_SCOPE_BEGIN);
    register_event(OMP_EVENT_THR_END_EBAR);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_EXPLICIT, OC_SCOPE_END);
    return delivered[OMP_EVENT_THR_END_EBAR] == 0;
}

/*
 * TASK_ID or TASK_PID with `mem_bytes` of mem (4 or 8): returns ec and
 * stores the answer, widened; a reply that is not OK leaves *id at -99,
 * and a 4-byte one that wrote past its 4 bytes fails the check too.
 */
static int task_id_request(int request, int mem_bytes, int64_t *id)
{
    int32_t entry[8] = {16 + mem_bytes, request, 0, 0, -99, -99, 0, 0};
    entry[4 + mem_bytes / 4] = 0;
    __omp_collector_api(entry);
    *id = -99;
    if (entry[2] == OMP_ERRCODE_OK && mem_bytes == 8 && entry[3] == 8)
        memcpy(id, &entry[4], sizeof *id);
    else if (entry[2] == OMP_ERRCODE_OK && mem_bytes == 4 && entry[3] == 4)
        *id = entry[4];
    return entry[2];
}

static int64_t task_id_now(void)
{
    int64_t id;
    task_id_request(OMP_REQ_TASK_ID, 8, &id);
    return id;
}

static int64_t task_parent_now(void)
{
    int64_t id;
    task_id_request(OMP_REQ_TASK_PID, 8, &id);
    return id;
}

/* Registers all thirteen task events with the recording callback. */
static int register_task_events(void)
{
    for (int event = OMP_EVENT_THR_BEGIN_CREATE_TASK; event <= OC_EVENT_LEGACY_MAX; event++)
        if (register_event(event) != OMP_ERRCODE_OK)
            return 0;
    return 1;
}

/* The recorded sequence is exactly `expected`, each with the TASK_ID given beside it. */
static int sequence_is(const int *expected, const int64_t *expected_task, int count)
{
    int same = sequence_length == count;
    for (int i = 0; same && i < count; i++)
        same = sequence[i] == expected[i] && sequence_task[i] == expected_task[i];
    if (!same) {
        fprintf(stderr, "delivered:");
        for (int i = 0; i < sequence_length; i++)
            fprintf(stderr, " %d(task %lld)", sequence[i], (long long)sequence_task[i]);
        fprintf(stderr, "\nexpected: ");
        for (int i = 0; i < count; i++)
            fprintf(stderr, " %d(task %lld)", expected[i], (long long)expected_task[i]);
        fprintf(stderr, "\n");
    }
    return same;
}

/*
 * A deferred task run by its creator: CREATE with END_DEL on the creator,
 * the implicit task suspended around the child's SCHD, FETCHED, EXEC and
 * FINISH; TASK_ID names the creator at BEGIN_CREATE and the child from
 * END_CREATE on, and the child's TASK_PID is its creator's TASK_ID.
 */
static int deferred_task_sequence(void)
{
    if (!start_session() || !register_task_events())
        return 0;
    enter_team();
    int64_t implicit = task_id_now();
    ompt_data_t child;
    fake_task_create(&child, ompt_task_explicit);
    int64_t created = sequence_task[1];
    fake_task_begin(&child, OC_TASK_SWITCH);
    int64_t inside = task_id_now(), inside_parent = task_parent_now();
    fake_task_end(OC_TASK_COMPLETE);
    static const int expected[] = {
        OMP_EVENT_THR_BEGIN_CREATE_TASK, OMP_EVENT_THR_END_CREATE_TASK_DEL,
        OMP_EVENT_THR_BEGIN_SUSPEND_TASK, OMP_EVENT_THR_BEGIN_SCHD_TASK, OMP_EVENT_THR_FETCHED_TASK,
        OMP_EVENT_THR_END_SCHD_TASK, OMP_EVENT_THR_BEGIN_EXEC_TASK, OMP_EVENT_THR_BEGIN_FINISH_TASK,
        OMP_EVENT_THR_END_FINISH_TASK, OMP_EVENT_THR_END_SUSPEND_TASK};
    const int64_t c = created, i = implicit;
    const int64_t tasks[] = {i, c, i, c, c, c, c, c, c, i};
    return implicit > 0 && created > 0 && created != implicit && inside == created
           && inside_parent == implicit && sequence_parent[1] == implicit
           && task_id_now() == implicit && sequence_is(expected, tasks, 10);
}

/* An undeferred task (if(0), or included in a final task) runs at once: END_IMM, no SCHD or FETCHED. */
static int undeferred_task_sequence(void)
{
    if (!start_session() || !register_task_events())
        return 0;
    enter_team();
    int64_t implicit = task_id_now();
    ompt_data_t child;
    fake_task_create(&child, ompt_task_explicit | ompt_task_undeferred);
    int64_t c = sequence_task[1];
    fake_task_begin(&child, OC_TASK_SWITCH);
    fake_task_end(OC_TASK_COMPLETE);
    static const int expected[] = {
        OMP_EVENT_THR_BEGIN_CREATE_TASK, OMP_EVENT_THR_END_CREATE_TASK_IMM,
        OMP_EVENT_THR_BEGIN_SUSPEND_TASK, OMP_EVENT_THR_BEGIN_EXEC_TASK,
        OMP_EVENT_THR_BEGIN_FINISH_TASK, OMP_EVENT_THR_END_FINISH_TASK,
        OMP_EVENT_THR_END_SUSPEND_TASK};
    const int64_t tasks[] = {implicit, c, implicit, c, c, c, implicit};
    return sequence_is(expected, tasks, 7);
}

/* A task another thread created is stolen: STEAL inside SCHD, before FETCHED. */
static int stolen_task_sequence(void)
{
    if (!start_session() || !register_task_events())
        return 0;
    enter_team();
    int64_t implicit = task_id_now();
    pthread_t creator;
    if (pthread_create(&creator, NULL, create_elsewhere, NULL) != 0 || pthread_join(creator, NULL) != 0)
        return 0;
    int64_t c = sequence_task[1];
    fake_task_begin(&stolen_task, OC_TASK_SWITCH);
    fake_task_end(OC_TASK_COMPLETE);
    static const int expected[] = {
        OMP_EVENT_THR_BEGIN_CREATE_TASK, OMP_EVENT_THR_END_CREATE_TASK_DEL,
        OMP_EVENT_THR_BEGIN_SUSPEND_TASK, OMP_EVENT_THR_BEGIN_SCHD_TASK,
        OMP_EVENT_THR_BEGIN_STEAL_TASK, OMP_EVENT_THR_END_STEAL_TASK, OMP_EVENT_THR_FETCHED_TASK,
        OMP_EVENT_THR_END_SCHD_TASK, OMP_EVENT_THR_BEGIN_EXEC_TASK,
        OMP_EVENT_THR_BEGIN_FINISH_TASK, OMP_EVENT_THR_END_FINISH_TASK,
        OMP_EVENT_THR_END_SUSPEND_TASK};
    const int64_t tasks[] = {-1, c, implicit, c, c, c, c, c, c, c, c, implicit};
    return sequence_is(expected, tasks, 12);
}

/*
 * Ids grow on each thread and a child's is above its parent's, also when
 * the parent came from another thread's later ids (the shim gives ids in
 * per-thread blocks; the report's task graph takes a smaller id for the
 * creator).
 */
static int child_id_above_stolen_parent(void)
{
    if (!start_session())
        return 0;
    enter_team();
    ompt_data_t first, child, later;
    fake_task_create(&first, ompt_task_explicit);
    fake_task_begin(&first, OC_TASK_SWITCH);
    int64_t first_id = task_id_now();
    fake_task_end(OC_TASK_COMPLETE);
    pthread_t creator;
    if (pthread_create(&creator, NULL, create_elsewhere, NULL) != 0 || pthread_join(creator, NULL) != 0)
        return 0;
    fake_task_begin(&stolen_task, OC_TASK_SWITCH);
    int64_t stolen_id = task_id_now();
    fake_task_create(&child, ompt_task_explicit);
    fake_task_begin(&child, OC_TASK_SWITCH);
    int64_t child_id = task_id_now(), child_parent = task_parent_now();
    fake_task_end(OC_TASK_COMPLETE);
    fake_task_end(OC_TASK_COMPLETE);
    fake_task_create(&later, ompt_task_explicit);
    fake_task_begin(&later, OC_TASK_SWITCH);
    int64_t later_id = task_id_now();
    fake_task_end(OC_TASK_COMPLETE);
    return first_id > 0 && stolen_id > first_id && child_parent == stolen_id && child_id > stolen_id
           && later_id > child_id;
}

/*
 * A task that creates a child and waits for it, running the child inside
 * its taskwait: the events nest, and the grandchild's TASK_PID is the
 * child's TASK_ID.
 */
static int nested_tasks_nest(void)
{
    if (!start_session() || !register_task_events())
        return 0;
    enter_team();
    ompt_data_t child, grandchild;
    fake_task_create(&child, ompt_task_explicit);
    fake_task_begin(&child, OC_TASK_SWITCH);
    int64_t child_id = task_id_now();
    fake_task_create(&grandchild, ompt_task_explicit);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_BEGIN);
    fake_task_begin(&grandchild, OC_TASK_SWITCH);
    int64_t grandchild_id = task_id_now(), grandchild_parent = task_parent_now();
    fake_task_end(OC_TASK_COMPLETE);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_END);
    fake_task_end(OC_TASK_COMPLETE);
    /* Every BEGIN is closed, innermost first, by its own END. */
    int stack[64], depth = 0, nested = 1;
    for (int i = 0; i < sequence_length && nested; i++) {
        int e = sequence[i];
        int opens = e == OMP_EVENT_THR_BEGIN_CREATE_TASK || e == OMP_EVENT_THR_BEGIN_SCHD_TASK
                    || e == OMP_EVENT_THR_BEGIN_SUSPEND_TASK || e == OMP_EVENT_THR_BEGIN_STEAL_TASK
                    || e == OMP_EVENT_THR_BEGIN_EXEC_TASK || e == OMP_EVENT_THR_BEGIN_FINISH_TASK;
        int closes_with = e == OMP_EVENT_THR_END_CREATE_TASK_IMM || e == OMP_EVENT_THR_END_CREATE_TASK_DEL
                              ? OMP_EVENT_THR_BEGIN_CREATE_TASK
                          : e == OMP_EVENT_THR_END_SCHD_TASK    ? OMP_EVENT_THR_BEGIN_SCHD_TASK
                          : e == OMP_EVENT_THR_END_SUSPEND_TASK ? OMP_EVENT_THR_BEGIN_SUSPEND_TASK
                          : e == OMP_EVENT_THR_END_STEAL_TASK   ? OMP_EVENT_THR_BEGIN_STEAL_TASK
                          : e == OMP_EVENT_THR_BEGIN_FINISH_TASK ? OMP_EVENT_THR_BEGIN_EXEC_TASK
                          : e == OMP_EVENT_THR_END_FINISH_TASK   ? OMP_EVENT_THR_BEGIN_FINISH_TASK
                                                                 : 0;
        if (closes_with != 0)
            nested = depth > 0 && stack[--depth] == closes_with;
        if (opens && nested && depth < 64)
            stack[depth++] = e;
    }
    return nested && depth == 0 && delivered[OMP_EVENT_THR_BEGIN_EXEC_TASK] == 2
           && delivered[OMP_EVENT_THR_END_FINISH_TASK] == 2 && child_id > 0
           && grandchild_id > 0 && grandchild_id != child_id && grandchild_parent == child_id;
}

/* TASK_ID in 4 bytes (OpenUH's int) and in 8; -1 without a task; ids past 31 bits need 8. */
static int task_id_sizes(void)
{
    if (!start_session())
        return 0;
    int64_t narrow, wide;
    if (task_id_request(OMP_REQ_TASK_ID, 4, &narrow) != OMP_ERRCODE_OK || narrow != -1
        || task_id_request(OMP_REQ_TASK_ID, 8, &wide) != OMP_ERRCODE_OK || wide != -1
        || task_id_request(OMP_REQ_TASK_PID, 4, &narrow) != OMP_ERRCODE_OK || narrow != -1)
        return 0;
    enter_team();
    ompt_data_t child, big;
    fake_task_create(&child, ompt_task_explicit);
    fake_task_begin(&child, OC_TASK_SWITCH);
    if (task_id_request(OMP_REQ_TASK_ID, 4, &narrow) != OMP_ERRCODE_OK
        || task_id_request(OMP_REQ_TASK_ID, 8, &wide) != OMP_ERRCODE_OK || narrow != wide
        || narrow <= 0)
        return 0;
    fake_task_end(OC_TASK_COMPLETE);
    oc_task_ids_restart((uint64_t)INT32_MAX + 5);
    fake_task_create(&big, ompt_task_explicit);
    fake_task_begin(&big, OC_TASK_SWITCH);
    int32_t entry[6] = {20, OMP_REQ_TASK_ID, 0, 0, 0x5a5a5a5a, 0};
    __omp_collector_api(entry);
    int too_big = entry[2] == OMP_ERRCODE_MEM_TOO_SMALL && entry[3] == 8 && entry[4] == 0x5a5a5a5a;
    int32_t bare[5] = {16, OMP_REQ_TASK_ID, 0, 0, 0};
    __omp_collector_api(bare);
    return too_big && task_id_request(OMP_REQ_TASK_ID, 8, &wide) == OMP_ERRCODE_OK
           && wide == (int64_t)INT32_MAX + 5 && bare[2] == OMP_ERRCODE_MEM_TOO_SMALL
           && bare[3] == 8;
}

static ompt_data_t inner_region;
static int64_t worker_task, worker_parent;

/* A worker of the inner team: its implicit task's parent is the task that forked the team. */
static void *inner_worker(void *unused)
{
    (void)unused;
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &inner_region, 1);
    worker_task = task_id_now();
    worker_parent = task_parent_now();
    fake_fire_implicit_task(OC_SCOPE_END, NULL, 1);
    return NULL;
}

/* Implicit tasks have ids too, and a worker's TASK_PID names the task that met the parallel construct. */
static int implicit_task_parents(void)
{
    if (!start_session())
        return 0;
    enter_team();
    int64_t outer = task_id_now();
    fake_fire_parallel_begin(&inner_region);
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &inner_region, 0);
    int64_t master_task = task_id_now(), master_parent = task_parent_now();
    pthread_t worker;
    if (pthread_create(&worker, NULL, inner_worker, NULL) != 0 || pthread_join(worker, NULL) != 0)
        return 0;
    fake_fire_implicit_task(OC_SCOPE_END, NULL, 0);
    fake_fire_parallel_end(&inner_region);
    return outer > 0 && master_task > 0 && master_task != outer && master_parent == outer
           && worker_task > 0 && worker_task != master_task && worker_parent == outer
           && task_id_now() == outer;
}

/* A task cancelled before it ran is reported complete without a start: no EXEC, no FINISH. */
static int cancelled_task_never_runs(void)
{
    if (!start_session() || !register_task_events())
        return 0;
    enter_team();
    int64_t implicit = task_id_now();
    ompt_data_t child;
    fake_task_create(&child, ompt_task_explicit);
    fake_fire_task_schedule(&child, OC_TASK_CANCEL, fake_current_task_data());
    return delivered[OMP_EVENT_THR_BEGIN_EXEC_TASK] == 0
           && delivered[OMP_EVENT_THR_BEGIN_FINISH_TASK] == 0
           && delivered[OMP_EVENT_THR_BEGIN_SUSPEND_TASK] == 0 && task_id_now() == implicit;
}

/*
 * An untied task whose part ends (switch back to the task below it) has
 * its run here closed by FINISH, and runs again later under the same id;
 * a detached task finishes at detach, and the fulfilment after it is no
 * switch.
 */
static int untied_and_detached_tasks(void)
{
    if (!start_session() || !register_task_events())
        return 0;
    enter_team();
    int64_t implicit = task_id_now();
    ompt_data_t untied, detached;
    fake_task_create(&untied, ompt_task_explicit | ompt_task_untied);
    fake_task_begin(&untied, OC_TASK_SWITCH);
    int64_t first_part = task_id_now();
    fake_task_end(OC_TASK_SWITCH); /* the part ends; the implicit task has the thread back */
    int64_t between = task_id_now();
    int finished_parts = delivered[OMP_EVENT_THR_END_FINISH_TASK];
    fake_task_begin(&untied, OC_TASK_SWITCH);
    int64_t second_part = task_id_now();
    fake_task_end(OC_TASK_COMPLETE);
    fake_task_create(&detached, ompt_task_explicit);
    fake_task_begin(&detached, OC_TASK_SWITCH);
    fake_task_end(OC_TASK_DETACH);
    int before_fulfil = sequence_length;
    fake_fire_task_schedule(&detached, OC_TASK_LATE_FULFILL, NULL);
    return first_part > 0 && second_part == first_part && between == implicit
           && finished_parts == 1 && sequence_length == before_fulfil
           && delivered[OMP_EVENT_THR_BEGIN_CREATE_TASK] == 2
           && delivered[OMP_EVENT_THR_BEGIN_EXEC_TASK] == 3
           && delivered[OMP_EVENT_THR_BEGIN_FINISH_TASK] == 3
           && delivered[OMP_EVENT_THR_END_FINISH_TASK] == 3
           && delivered[OMP_EVENT_THR_BEGIN_SUSPEND_TASK] == 3
           && delivered[OMP_EVENT_THR_END_SUSPEND_TASK] == 3 && task_id_now() == implicit;
}

/* Serial code runs no task, but an explicit task it makes (undeferred) runs with an id and no parent. */
static int serial_task_has_no_parent(void)
{
    if (!start_session())
        return 0;
    int64_t before = task_id_now();
    ompt_data_t child;
    fake_task_create(&child, ompt_task_explicit | ompt_task_undeferred);
    fake_task_begin(&child, OC_TASK_SWITCH);
    int64_t inside = task_id_now(), parent = task_parent_now();
    fake_task_end(OC_TASK_COMPLETE);
    return before == -1 && inside > 0 && parent == -1 && task_id_now() == -1;
}

/* A worker whose region ended but who has not been told its implicit task ended runs no task. */
static int idle_worker_runs_no_task(void)
{
    if (!start_session())
        return 0;
    ompt_data_t team = {0};
    fake_fire_parallel_begin(&team);
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &team, 1);
    int64_t inside = task_id_now();
    fake_fire_parallel_end(&team);
    return inside > 0 && task_id_now() == -1;
}

/*
 * A worker whose region has ended but whom the runtime has already put in
 * the next team (an inner team, another root's team), before it reported
 * its implicit task there: it waits in that region's barrier, not idle.
 * Without such a team it is idle.
 */
static int worker_put_in_next_team_reads_ibar(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    ompt_data_t first = {0}, next = {0};
    fake_fire_parallel_begin(&first);
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &first, 1);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLICIT, OC_SCOPE_BEGIN);
    fake_fire_parallel_end(&first);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT, 0);
    fake_ompt_set_team(&first, 2);
    int between = state_now(&wait_id);
    uint64_t between_prid = current_prid();
    fake_fire_parallel_begin(&next); /* the master forks the next team, the worker in it */
    fake_ompt_set_team(&next, 2);
    int put_in = state_now(&wait_id);
    uint64_t put_in_prid = current_prid();
    fake_ompt_set_team(NULL, 0);
    int pooled = state_now(&wait_id);
    return between == THR_IDLE_STATE && between_prid == 0 && put_in == THR_IBAR_STATE
           && put_in_prid == next.value && next.value != 0 && wait_id == 0
           && pooled == THR_IDLE_STATE && current_prid() == 0;
}

/* The same wait, read with its wait id: barrier 0 of the new region. */
static int worker_put_in_next_team_wait_id(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    ompt_data_t first = {0}, next = {0};
    fake_fire_parallel_begin(&first);
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &first, 1);
    fake_fire_parallel_end(&first);
    fake_fire_parallel_begin(&next);
    fake_ompt_set_team(&next, 2);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT_PARALLEL, 0);
    return state_now(&wait_id) == THR_IBAR_STATE && wait_id == next.value << 24;
}

/*
 * Inside a reduction's bracket the running task reduces: work and barrier
 * waits read REDUC, a lock wait stays a lock wait, a task run inside the
 * bracket works; after it, WORK again.
 */
static int reduction_bracket_reads_reduc(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    enter_team();
    fake_fire_reduction(OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    int combining = state_now(&wait_id);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLICIT, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER, 0);
    int in_barrier = state_now(&wait_id);
    uint64_t barrier_wait_id = wait_id;
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLICIT, OC_SCOPE_END);
    fake_fire_mutex_acquire(OC_MUTEX_CRITICAL, 0x6000);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_LOCK, 0x6000);
    int locked_out = state_now(&wait_id);
    fake_fire_mutex_acquired(OC_MUTEX_CRITICAL, 0x6000);
    ompt_data_t child;
    fake_task_create(&child, ompt_task_explicit);
    fake_task_begin(&child, OC_TASK_SWITCH);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    int task_inside = state_now(&wait_id);
    fake_task_end(OC_TASK_COMPLETE);
    int back = state_now(&wait_id);
    fake_fire_reduction(OC_SCOPE_END);
    return combining == THR_REDUC_STATE && in_barrier == THR_REDUC_STATE && barrier_wait_id == 0
           && locked_out == THR_CTWT_STATE && task_inside == THR_WORK_STATE
           && back == THR_REDUC_STATE && state_now(&wait_id) == THR_WORK_STATE;
}

void GOMP_barrier(void);

/*
 * gcc code's explicit barrier with OMPCOLLECTOR_GCC_BARRIERS=explicit: a
 * call of GOMP_barrier (the shim's, which marks the thread and forwards; no
 * runtime behind it here) followed by the barrier_implementation wait
 * libomp reports for it reads and delivers EBAR; an implementation barrier
 * without the call stays IBAR, and so does an implicit barrier after the
 * call.
 */
static int gcc_explicit_barrier_reads_ebar(void)
{
    uint64_t wait_id;
    setenv("OMPCOLLECTOR_GCC_BARRIERS", "explicit", 1);
    if (!start_session() || register_event(OMP_EVENT_THR_BEGIN_EBAR) != OMP_ERRCODE_OK
        || register_event(OMP_EVENT_THR_END_EBAR) != OMP_ERRCODE_OK
        || register_event(OMP_EVENT_THR_BEGIN_IBAR) != OMP_ERRCODE_OK
        || register_event(OMP_EVENT_THR_END_IBAR) != OMP_ERRCODE_OK)
        return 0;
    enter_team();
    GOMP_barrier();
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLEMENTATION, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER, 0);
    int explicit_generic = state_now(&wait_id);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER_IMPLEMENTATION, 0);
    int explicit_implementation = state_now(&wait_id);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLEMENTATION, OC_SCOPE_END);
    int ebar_pairs = delivered[OMP_EVENT_THR_BEGIN_EBAR] == 1 && delivered[OMP_EVENT_THR_END_EBAR] == 1
                     && delivered[OMP_EVENT_THR_BEGIN_IBAR] == 0;
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLEMENTATION, OC_SCOPE_BEGIN);
    int runtime_own = state_now(&wait_id);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLEMENTATION, OC_SCOPE_END);
    GOMP_barrier();
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLICIT, OC_SCOPE_BEGIN);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLICIT, OC_SCOPE_END);
    return explicit_generic == THR_EBAR_STATE && explicit_implementation == THR_EBAR_STATE
           && ebar_pairs && runtime_own == THR_IBAR_STATE
           && delivered[OMP_EVENT_THR_BEGIN_EBAR] == 1 && delivered[OMP_EVENT_THR_BEGIN_IBAR] == 2
           && delivered[OMP_EVENT_THR_END_IBAR] == 2;
}

/* A single ends, in gcc code, with a GOMP_barrier call of its own: that barrier stays the single's, IBAR. */
static int gcc_single_barrier_stays_ibar(void)
{
    uint64_t wait_id;
    setenv("OMPCOLLECTOR_GCC_BARRIERS", "explicit", 1);
    if (!start_session())
        return 0;
    enter_team();
    fake_fire_work(OC_WORK_SINGLE_OTHER, OC_SCOPE_BEGIN);
    fake_fire_work(OC_WORK_SINGLE_OTHER, OC_SCOPE_END);
    GOMP_barrier();
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLEMENTATION, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER, 0);
    int single_end = state_now(&wait_id);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLEMENTATION, OC_SCOPE_END);
    GOMP_barrier(); /* the next one, with no single before it, is explicit */
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLEMENTATION, OC_SCOPE_BEGIN);
    int explicit_one = state_now(&wait_id);
    return single_end == THR_IBAR_STATE && explicit_one == THR_EBAR_STATE;
}

/* Without OMPCOLLECTOR_GCC_BARRIERS=explicit, GOMP_barrier calls change nothing. */
static int gcc_barriers_implementation_by_default(void)
{
    uint64_t wait_id;
    unsetenv("OMPCOLLECTOR_GCC_BARRIERS");
    if (!start_session())
        return 0;
    enter_team();
    GOMP_barrier();
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLEMENTATION, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER, 0);
    return state_now(&wait_id) == THR_IBAR_STATE;
}

static const struct {
    const char *name;
    refinement_check check;
} refinements[] = {
    {"OMPCOLLECTOR_GCC_BARRIERS=explicit: GOMP_barrier makes the implementation barrier behind it EBAR, and only that one", gcc_explicit_barrier_reads_ebar},
    {"... but a single's closing GOMP_barrier stays IBAR", gcc_single_barrier_stays_ibar},
    {"without the setting, gcc's GOMP_barrier calls leave implementation barriers IBAR", gcc_barriers_implementation_by_default},
    {"a worker the runtime put in the next team before it said so reads IBAR and that region, not IDLE", worker_put_in_next_team_reads_ibar},
    {"... with the wait id of the new region's first barrier", worker_put_in_next_team_wait_id},
    {"inside a reduction bracket work and barrier waits read REDUC, lock waits and tasks run there do not", reduction_bracket_reads_reduc},
    {"a deferred task: CREATE..END_DEL, SUSPEND around SCHD, FETCHED, EXEC, FINISH; TASK_ID/PID at each", deferred_task_sequence},
    {"an undeferred task: CREATE..END_IMM, SUSPEND around EXEC, FINISH; no SCHD or FETCHED", undeferred_task_sequence},
    {"a task created on another thread is stolen: STEAL inside SCHD", stolen_task_sequence},
    {"a child's id is above its parent's, made on another thread later; a thread's ids grow", child_id_above_stolen_parent},
    {"nested tasks in a taskwait: events well nested, grandchild's TASK_PID is the child's TASK_ID", nested_tasks_nest},
    {"TASK_ID: 4-byte and 8-byte answers agree, -1 without a task, ids past 31 bits need 8 bytes", task_id_sizes},
    {"implicit tasks have ids; a worker's TASK_PID is the task that forked the team", implicit_task_parents},
    {"a task cancelled before it ran gets no EXEC, FINISH or SUSPEND", cancelled_task_never_runs},
    {"an untied task's parts and a detached task each close their run with FINISH", untied_and_detached_tasks},
    {"serial code runs no task; an undeferred task made there has an id and no parent", serial_task_has_no_parent},
    {"a worker whose region has ended (told late) runs no task", idle_worker_runs_no_task},
    {"wait_lock after a critical acquire reads CTWT with its wait id", critical_reads_ctwt},
    {"wait_lock after an atomic acquire reads ATWT", atomic_reads_atwt},
    {"wait_lock after a lock acquire reads LKWT with the runtime's wait id", lock_reads_lkwt},
    {"generic wait_barrier after an explicit barrier began reads EBAR", generic_barrier_after_explicit_reads_ebar},
    {"implicit-barrier wait reads IBAR, then IDLE with PRID 0 once the region ended", worker_after_region_end_reads_idle},
    {"work_parallel before the implicit task reads SERIAL (initial) or IDLE (worker), PRID 0", work_outside_any_region_is_not_work},
    {"a task of a team of one (libomp: work_serial) reads WORK in its region, its taskwait a wait; SERIAL after", task_in_team_of_one_works},
    {"the table refines work_serial to WORK (task wait, REDUC) inside a region only", serial_row_refines_in_region},
    {"inside FORK delivery STATE reads OVHD while CURRENT_PRID names the new region", state_inside_fork_agrees_with_prid},
    {"a region whose fork the shim did not see gets a nonzero id", region_forked_unseen_gets_an_id},
    {"OMPCOLLECTOR_TASKWAIT_STATE=12 answers 12 for task waits", taskwait_numbering_switch},
    {"taskwait: the waiting task reads the task-wait state, a task run inside it WORK, its own wait a wait", taskwait_is_per_task},
    {"taskgroup: the same per-task rule at the end of a taskgroup", taskgroup_is_per_task},
    {"a task run at a barrier reads WORK, the barrier IBAR before and after", task_run_at_barrier_works},
    {"a task wait answered as EBAR has wait id 0, not the last barrier's", taskwait_after_barrier_has_no_barrier_id},
    {"OMPT callbacks are set when first needed and never unset or replaced", callbacks_set_once},
    {"a failed test-lock acquire still gets its END", failed_test_lock_stays_balanced},
    {"an END whose BEGIN was not tracked is not delivered", end_without_begin_is_dropped},
};

/*
 * The shim's O(1) lookups answer what a scan of the table in row order
 * answers, for every callback and every kind in and around OMPT's ranges.
 */
static int lookups_match_scan(int end_side)
{
    int mismatches = 0;
    for (int callback = -1; callback <= OC_CB_COUNT; callback++) {
        for (int kind = -3; kind <= 40; kind++) {
            int expected = -1;
            for (int i = 0; i < OC_SRC_COUNT && expected < 0; i++) {
                const struct oc_event_source_row *row = &oc_event_source_rows[i];
                int row_callback = end_side ? row->end_callback : row->begin_callback;
                if (row_callback == callback && (row->kind == OC_ANY_KIND || row->kind == kind))
                    expected = i;
            }
            int got = end_side ? oc_source_ended_by(callback, kind) : oc_source_begun_by(callback, kind);
            if (got != expected) {
                tap_diag("%s(%d, %d) = %d, the first matching row is %d",
                         end_side ? "oc_source_ended_by" : "oc_source_begun_by", callback, kind, got,
                         expected);
                mismatches++;
            }
        }
    }
    return mismatches == 0;
}

/* Runs `check` in a child so each starts from a fresh shim. */
static int in_child(int (*check)(const void *), const void *arg)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        _exit(check(arg) ? 0 : 1);
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int event_row_thunk(const void *row) { return check_event_row(row); }
static int unsupported_thunk(const void *row) { return check_unsupported(row); }
static int state_row_thunk(const void *row) { return check_state_row(row); }
static int refinement_thunk(const void *check) { return ((refinement_check)check)(); }

int main(void)
{
    int refinement_count = (int)(sizeof refinements / sizeof refinements[0]);
    tap_plan(2 * OC_SRC_COUNT + 2 * oc_state_row_count + refinement_count + 4);
    for (int i = 0; i < OC_SRC_COUNT; i++) {
        if (oc_event_source_rows[i].end_event == OC_NO_EVENT)
            tap_ok(in_child(event_row_thunk, &oc_event_source_rows[i]),
                   "event row %s delivers its event %d once", oc_event_source_rows[i].name,
                   oc_event_source_rows[i].begin_event);
        else
            tap_ok(in_child(event_row_thunk, &oc_event_source_rows[i]),
                   "event row %s delivers BEGIN %d then END %d", oc_event_source_rows[i].name,
                   oc_event_source_rows[i].begin_event, oc_event_source_rows[i].end_event);
    }
    for (int i = 0; i < OC_SRC_COUNT; i++)
        tap_ok(in_child(unsupported_thunk, &oc_event_source_rows[i]),
               "event row %s: REGISTER answers from what the runtime granted",
               oc_event_source_rows[i].name);
    for (int i = 0; i < oc_state_row_count; i++)
        tap_ok(in_child(state_row_thunk, &oc_state_rows[i]), "OMPT state 0x%03x maps to %d",
               oc_state_rows[i].ompt_state, oc_state_rows[i].legacy_state);
    for (int i = 0; i < oc_state_row_count; i++) {
        const struct oc_state_row *row = &oc_state_rows[i];
        int barrier_row = (row->legacy_state == THR_IBAR_STATE || row->legacy_state == THR_EBAR_STATE)
                          && row->refinement != OC_REFINE_TASKWAIT;
        tap_is_int(oc_state_is_barrier_wait(row->ompt_state), barrier_row,
                   "OMPT state 0x%03x %s a barrier instance's wait id", row->ompt_state,
                   barrier_row ? "carries" : "does not carry");
    }
    for (int i = 0; i < refinement_count; i++)
        tap_ok(in_child(refinement_thunk, (const void *)refinements[i].check), "%s",
               refinements[i].name);
    int every_event_has_a_row = 1;
    for (int event = OMP_EVENT_FORK; event <= OC_EVENT_MAX; event++)
        every_event_has_a_row &= oc_event_needs(event) != 0;
    tap_ok(every_event_has_a_row, "every one of the 38 events (22, the task extension's 13, ompcollector's 2 task waits and task dependence) has a source row");
    tap_is_int(oc_map_state(0x7777, NULL), THR_OVHD_STATE,
               "an implementation-specific state counts as overhead");
    tap_ok(lookups_match_scan(0), "oc_source_begun_by answers the first matching row for every callback and kind");
    tap_ok(lookups_match_scan(1), "oc_source_ended_by answers the first matching row for every callback and kind");
    return tap_done();
}
