/* mapping-t.c - walks every row of both translation tables through the shim, with the fake runtime firing callbacks and setting states. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fake-ompt.h"
#include "lib/mapping.h"
#include "lib/tap.h"
#include "omp_collector_api.h"

static int delivered[OMP_EVENT_THR_END_ATWT + 1];

static void record(OMP_COLLECTORAPI_EVENT event)
{
    delivered[event]++;
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

static int register_event(int event)
{
    int32_t entry[8] = {28, OMP_REQ_REGISTER, 0, 0, event};
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

/* One event row: registering its events sets its callbacks; firing them delivers BEGIN then END once each. */
static int check_event_row(const struct oc_event_source_row *row)
{
    if (!start_session())
        return 0;
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

/* libomp reports work_parallel inside taskwait; the shim saw the taskwait begin. */
static int work_inside_taskwait_reads_taskwait(void)
{
    uint64_t wait_id;
    if (!start_session())
        return 0;
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &region, 0);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    int inside = state_now(&wait_id);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_END);
    return inside == THR_EBAR_STATE && state_now(&wait_id) == THR_WORK_STATE;
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

static const struct {
    const char *name;
    refinement_check check;
} refinements[] = {
    {"wait_lock after a critical acquire reads CTWT with its wait id", critical_reads_ctwt},
    {"wait_lock after an atomic acquire reads ATWT", atomic_reads_atwt},
    {"wait_lock after a lock acquire reads LKWT with the runtime's wait id", lock_reads_lkwt},
    {"generic wait_barrier after an explicit barrier began reads EBAR", generic_barrier_after_explicit_reads_ebar},
    {"implicit-barrier wait reads IBAR, then IDLE with PRID 0 once the region ended", worker_after_region_end_reads_idle},
    {"work_parallel before the implicit task reads SERIAL (initial) or IDLE (worker), PRID 0", work_outside_any_region_is_not_work},
    {"inside FORK delivery STATE reads OVHD while CURRENT_PRID names the new region", state_inside_fork_agrees_with_prid},
    {"a region whose fork the shim did not see gets a nonzero id", region_forked_unseen_gets_an_id},
    {"OMPCOLLECTOR_TASKWAIT_STATE=12 answers 12 for task waits", taskwait_numbering_switch},
    {"work_parallel inside taskwait reads the task-wait state", work_inside_taskwait_reads_taskwait},
    {"a task wait answered as EBAR has wait id 0, not the last barrier's", taskwait_after_barrier_has_no_barrier_id},
    {"OMPT callbacks are set when first needed and never unset or replaced", callbacks_set_once},
    {"a failed test-lock acquire still gets its END", failed_test_lock_stays_balanced},
    {"an END whose BEGIN was not tracked is not delivered", end_without_begin_is_dropped},
};

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
    tap_plan(2 * OC_SRC_COUNT + 2 * oc_state_row_count + refinement_count + 2);
    for (int i = 0; i < OC_SRC_COUNT; i++)
        tap_ok(in_child(event_row_thunk, &oc_event_source_rows[i]),
               "event row %s delivers BEGIN %d then END %d", oc_event_source_rows[i].name,
               oc_event_source_rows[i].begin_event, oc_event_source_rows[i].end_event);
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
    for (int event = OMP_EVENT_FORK; event <= OMP_EVENT_THR_END_ATWT; event++)
        every_event_has_a_row &= oc_event_needs(event) != 0;
    tap_ok(every_event_has_a_row, "every one of the 22 events has a source row");
    tap_is_int(oc_map_state(0x7777, NULL), THR_OVHD_STATE,
               "an implementation-specific state counts as overhead");
    return tap_done();
}
