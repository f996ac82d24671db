/* fake-ompt.c - the stand-in runtime behind fake-ompt.h. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "fake-ompt.h"

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#define FAKE_CALLBACK_SLOTS 64

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

/*
 * Each callback is an enabled flag and a pointer, read separately by the
 * dispatcher and written pointer-first by set_callback, as libomp does: a
 * tool that unsets a callback while events fire can make the dispatcher
 * jump to NULL.  The fake counts those jumps instead of taking them.
 */
static _Atomic int enabled[FAKE_CALLBACK_SLOTS];
static _Atomic(ompt_callback_t) handlers[FAKE_CALLBACK_SLOTS];
static _Atomic long null_dispatches;
static _Atomic long unsafe_sets;
static _Atomic int initializing;
static int grants[FAKE_CALLBACK_SLOTS];
static int grants_configured;
static enum fake_discovery discovery = FAKE_DISCOVERY_ALREADY_DONE;
static ompt_start_tool_result_t *tool;
static ompt_data_t tool_data;
static __thread int thread_state;
static __thread uint64_t thread_wait_id;

static void configure_default_grants(void)
{
    if (grants_configured)
        return;
    for (int i = 0; i < FAKE_CALLBACK_SLOTS; i++)
        grants[i] = ompt_set_always;
    grants_configured = 1;
}

/* Test-side knob over what set_callback answers. */
void fake_ompt_grant(int ompt_callback_id, int result)
{
    configure_default_grants();
    grants[ompt_callback_id] = result;
}

/* Test-side knob over the fake omp_get_max_threads. */
void fake_ompt_set_discovery(enum fake_discovery mode)
{
    discovery = mode;
}

/* ompt_set_callback: records the handler unless the grant says the event never happens. */
static ompt_set_result_t fake_set_callback(ompt_callbacks_t event, ompt_callback_t callback)
{
    configure_default_grants();
    int id = (int)event;
    if (id <= 0 || id >= FAKE_CALLBACK_SLOTS)
        return ompt_set_error;
    if (callback != NULL && (grants[id] == ompt_set_error || grants[id] == ompt_set_never))
        return (ompt_set_result_t)grants[id];
    /* Outside initialize, changing a live pointer is what crashes libomp. */
    ompt_callback_t previous = atomic_load(&handlers[id]);
    if (previous != NULL && previous != callback && !atomic_load(&initializing))
        atomic_fetch_add(&unsafe_sets, 1);
    atomic_store(&handlers[id], callback);
    atomic_store(&enabled[id], callback != NULL);
    return callback == NULL ? ompt_set_always : (ompt_set_result_t)grants[id];
}

/* ompt_get_state: whatever the test said for this thread. */
static int fake_get_state(ompt_wait_id_t *wait_id)
{
    if (wait_id != NULL)
        *wait_id = thread_wait_id;
    return thread_state;
}

/* The return address fired callbacks report, as a compiler's call site would be. */
static __thread const void *fire_codeptr;

/* The calling thread's task chain as ompt_get_task_info reports it, innermost first. */
static __thread const struct fake_task_level *task_chain;
static __thread int task_chain_levels;

/* ompt_get_task_info: the chain the test set for this thread. */
static int fake_get_task_info(int ancestor_level, int *flags, ompt_data_t **task_data,
                              ompt_frame_t **task_frame, ompt_data_t **parallel_data,
                              int *thread_num)
{
    static __thread ompt_frame_t frame;
    if (ancestor_level < 0 || ancestor_level >= task_chain_levels)
        return 0;
    const struct fake_task_level *level = &task_chain[ancestor_level];
    memset(&frame, 0, sizeof frame);
    frame.exit_frame.ptr = level->exit_frame;
    frame.enter_frame.ptr = level->enter_frame;
    frame.exit_frame_flags = level->exit_frame_flags;
    frame.enter_frame_flags = level->enter_frame_flags;
    if (flags != NULL)
        *flags = level->task_flags;
    if (task_data != NULL)
        *task_data = NULL;
    if (task_frame != NULL)
        *task_frame = &frame;
    if (parallel_data != NULL)
        *parallel_data = level->parallel_data;
    if (thread_num != NULL)
        *thread_num = level->thread_num;
    return 2;
}

/* Test-side knob: the code address later fires on this thread report. */
void fake_ompt_set_codeptr(const void *codeptr)
{
    fire_codeptr = codeptr;
}

/* Test-side knob: this thread's task chain (the array must outlive its use). */
void fake_ompt_set_task_chain(const struct fake_task_level *levels, int count)
{
    task_chain = levels;
    task_chain_levels = count;
}

static __thread ompt_data_t *thread_team;
static __thread int thread_team_size;

/* Test-side knob: the team ompt_get_parallel_info(0) reports for this thread. */
void fake_ompt_set_team(ompt_data_t *parallel_data, int team_size)
{
    thread_team = parallel_data;
    thread_team_size = team_size;
}

/* ompt_get_parallel_info: the team the test set for this thread, at level 0 only. */
static int fake_get_parallel_info(int ancestor_level, ompt_data_t **parallel_data, int *team_size)
{
    int known = ancestor_level == 0 && thread_team != NULL;
    if (parallel_data != NULL)
        *parallel_data = known ? thread_team : NULL;
    if (team_size != NULL)
        *team_size = known ? thread_team_size : 0;
    return known ? 2 : 0;
}

/* The lookup function handed to initialize. */
static ompt_interface_fn_t fake_lookup(const char *name)
{
    if (strcmp(name, "ompt_set_callback") == 0)
        return (ompt_interface_fn_t)fake_set_callback;
    if (strcmp(name, "ompt_get_state") == 0)
        return (ompt_interface_fn_t)fake_get_state;
    if (strcmp(name, "ompt_get_parallel_info") == 0)
        return (ompt_interface_fn_t)fake_get_parallel_info;
    if (strcmp(name, "ompt_get_task_info") == 0)
        return (ompt_interface_fn_t)fake_get_task_info;
    return NULL;
}

/* Discovery as libomp runs it. */
int fake_ompt_attach(void)
{
    tool = ompt_start_tool(201811, "ompcollector fake runtime");
    if (tool == NULL)
        return 0;
    atomic_store(&initializing, 1);
    int accepted = tool->initialize(fake_lookup, 0, &tool_data);
    atomic_store(&initializing, 0);
    return accepted;
}

/* Shutdown as libomp runs it. */
void fake_ompt_finalize(void)
{
    if (tool != NULL)
        tool->finalize(&tool_data);
}

/* The shim enters the "runtime" through this when START finds it unattached. */
int omp_get_max_threads(void)
{
    if (discovery == FAKE_DISCOVERY_ATTACHES && tool == NULL)
        fake_ompt_attach();
    return 1;
}

/* What the shim has set right now. */
ompt_callback_t fake_ompt_handler(int ompt_callback_id)
{
    return atomic_load(&handlers[ompt_callback_id]);
}

/* How often a dispatcher found a callback enabled and its pointer NULL. */
long fake_ompt_null_dispatches(void)
{
    return atomic_load(&null_dispatches);
}

/* How often the tool unset or replaced a set callback after initialize. */
long fake_ompt_unsafe_sets(void)
{
    return atomic_load(&unsafe_sets);
}

/* Per-thread state for fake_get_state. */
void fake_ompt_set_state(int state, uint64_t wait_id)
{
    thread_state = state;
    thread_wait_id = wait_id;
}

/*
 * libomp's dispatch: test the flag, then load the pointer.  The pause
 * between the two widens the window a real runtime has, so a tool that
 * unsets callbacks under load is caught within a short stress run.
 */
#define FIRE(id, type, ...)                                                     \
    do {                                                                        \
        if (atomic_load_explicit(&enabled[(id)], memory_order_relaxed)) {       \
            for (volatile int spin = 0; spin < 16; spin++) {                    \
            }                                                                   \
            ompt_callback_t handler =                                           \
                atomic_load_explicit(&handlers[(id)], memory_order_relaxed);    \
            if (handler == NULL)                                                \
                atomic_fetch_add(&null_dispatches, 1);                          \
            else                                                                \
                ((type)handler)(__VA_ARGS__);                                   \
        }                                                                       \
    } while (0)

/* The fire functions below mirror one OMPT callback each. */
void fake_fire_thread_begin(int thread_type)
{
    static __thread ompt_data_t thread_data;
    FIRE(ompt_callback_thread_begin, ompt_callback_thread_begin_t, (ompt_thread_t)thread_type,
         &thread_data);
}

void fake_fire_thread_end(void)
{
    static __thread ompt_data_t thread_data;
    FIRE(ompt_callback_thread_end, ompt_callback_thread_end_t, &thread_data);
}

/* The flags later parallel_begin fires report; 0: a parallel construct's team. */
static int parallel_flags;

void fake_ompt_set_parallel_flags(int flags)
{
    parallel_flags = flags;
}

void fake_fire_parallel_begin(ompt_data_t *parallel_data)
{
    static __thread ompt_data_t task_data;
    int flags = parallel_flags != 0 ? parallel_flags : (int)(ompt_parallel_invoker_program | ompt_parallel_team);
    FIRE(ompt_callback_parallel_begin, ompt_callback_parallel_begin_t, &task_data, NULL,
         parallel_data, 4, flags, fire_codeptr);
}

void fake_fire_parallel_end(ompt_data_t *parallel_data)
{
    static __thread ompt_data_t task_data;
    FIRE(ompt_callback_parallel_end, ompt_callback_parallel_end_t, parallel_data, &task_data,
         ompt_parallel_invoker_program | ompt_parallel_team, NULL);
}

/*
 * Per thread, the tasks it runs, innermost last: implicit tasks (one
 * ompt_data_t per nesting level, as libomp keeps one per team member) and
 * the explicit tasks the tests begin on top of them.
 */
#define FAKE_TASK_DEPTH 64
static __thread ompt_data_t implicit_data[FAKE_TASK_DEPTH];
static __thread ompt_data_t *task_stack[FAKE_TASK_DEPTH];
static __thread int task_depth;

ompt_data_t *fake_current_task_data(void)
{
    return task_depth > 0 ? task_stack[task_depth - 1] : NULL;
}

void fake_fire_implicit_task(int endpoint, ompt_data_t *parallel_data, unsigned int index)
{
    ompt_data_t *task_data;
    if (endpoint == OC_SCOPE_BEGIN) {
        int level = task_depth < FAKE_TASK_DEPTH ? task_depth : FAKE_TASK_DEPTH - 1;
        task_data = &implicit_data[level];
        task_data->value = 0; /* libomp starts every implicit task with empty data */
        if (task_depth < FAKE_TASK_DEPTH)
            task_stack[task_depth++] = task_data;
    } else {
        task_data = task_depth > 0 ? task_stack[--task_depth] : &implicit_data[0];
    }
    FIRE(ompt_callback_implicit_task, ompt_callback_implicit_task_t,
         (ompt_scope_endpoint_t)endpoint, endpoint == OC_SCOPE_BEGIN ? parallel_data : NULL,
         task_data, 4, index, ompt_task_implicit);
}

void fake_fire_initial_task(int endpoint, ompt_data_t *parallel_data, unsigned int index)
{
    static __thread ompt_data_t task_data;
    FIRE(ompt_callback_implicit_task, ompt_callback_implicit_task_t, (ompt_scope_endpoint_t)endpoint,
         endpoint == OC_SCOPE_BEGIN ? parallel_data : NULL, &task_data, 1, index, ompt_task_initial);
}

void fake_fire_sync_region_wait(int kind, int endpoint)
{
    FIRE(ompt_callback_sync_region_wait, ompt_callback_sync_region_t, (ompt_sync_region_t)kind,
         (ompt_scope_endpoint_t)endpoint, NULL, NULL, fire_codeptr);
}

void fake_fire_mutex_acquire(int kind, uint64_t wait_id)
{
    FIRE(ompt_callback_mutex_acquire, ompt_callback_mutex_acquire_t, (ompt_mutex_t)kind, 0, 0,
         wait_id, fire_codeptr);
}

void fake_fire_mutex_acquired(int kind, uint64_t wait_id)
{
    FIRE(ompt_callback_mutex_acquired, ompt_callback_mutex_t, (ompt_mutex_t)kind, wait_id, NULL);
}

void fake_fire_mutex_released(int kind, uint64_t wait_id)
{
    FIRE(ompt_callback_mutex_released, ompt_callback_mutex_t, (ompt_mutex_t)kind, wait_id, NULL);
}

void fake_fire_nest_lock(int endpoint, uint64_t wait_id)
{
    FIRE(ompt_callback_nest_lock, ompt_callback_nest_lock_t, (ompt_scope_endpoint_t)endpoint,
         wait_id, NULL);
}

void fake_fire_work(int work_type, int endpoint)
{
    FIRE(ompt_callback_work, ompt_callback_work_t, (ompt_work_t)work_type,
         (ompt_scope_endpoint_t)endpoint, NULL, NULL, 1, NULL);
}

/* The encountering task's frame task_create fires hand over (fake_ompt_set_task_enter_frame). */
static __thread ompt_frame_t create_frame;

void fake_ompt_set_task_enter_frame(void *enter_frame, int flags)
{
    create_frame.enter_frame.ptr = enter_frame;
    create_frame.enter_frame_flags = flags;
}

void fake_fire_task_create(ompt_data_t *encountering, ompt_data_t *new_task, int flags)
{
    ompt_frame_t frame = create_frame;
    FIRE(ompt_callback_task_create, ompt_callback_task_create_t, encountering, &frame, new_task,
         flags, 0, fire_codeptr);
}

void fake_fire_task_schedule(ompt_data_t *prior, int status, ompt_data_t *next)
{
    FIRE(ompt_callback_task_schedule, ompt_callback_task_schedule_t, prior,
         (ompt_task_status_t)status, next);
}

void fake_fire_task_dependence(ompt_data_t *source, ompt_data_t *sink)
{
    FIRE(ompt_callback_task_dependence, ompt_callback_task_dependence_t, source, sink);
}

void fake_fire_reduction(int endpoint)
{
    FIRE(ompt_callback_reduction, ompt_callback_sync_region_t,
         (ompt_sync_region_t)OC_SYNC_REDUCTION, (ompt_scope_endpoint_t)endpoint, NULL,
         fake_current_task_data(), NULL);
}

void fake_task_create(ompt_data_t *task, int flags)
{
    task->value = 0; /* libomp starts every task with empty data */
    fake_fire_task_create(fake_current_task_data(), task, flags);
}

void fake_task_begin(ompt_data_t *task, int status)
{
    ompt_data_t *prior = fake_current_task_data();
    if (task_depth < FAKE_TASK_DEPTH)
        task_stack[task_depth++] = task;
    fake_fire_task_schedule(prior, status, task);
}

void fake_task_end(int status)
{
    if (task_depth == 0)
        return;
    ompt_data_t *ending = task_stack[--task_depth];
    fake_fire_task_schedule(ending, status, fake_current_task_data());
}

void fake_fire_masked(int endpoint)
{
    FIRE(ompt_callback_masked, ompt_callback_masked_t, (ompt_scope_endpoint_t)endpoint, NULL,
         NULL, NULL);
}
