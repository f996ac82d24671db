/* fake-ompt.h - a stand-in OpenMP runtime for unit tests: hands the shim a lookup function, records what it sets, fires callbacks. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECTOR_FAKE_OMPT_H
#define OMPCOLLECTOR_FAKE_OMPT_H 1

#include <stdint.h>

#include "lib/ompt.h"

/* What the fake omp_get_max_threads does when the shim enters the "runtime" to attach. */
enum fake_discovery {
    FAKE_DISCOVERY_ALREADY_DONE, /* the runtime initialised long ago without the tool */
    FAKE_DISCOVERY_ATTACHES      /* first entry: discovery finds the shim */
};

/* Makes set_callback answer `result` for `ompt_callback_id` (default: ompt_set_always). */
void fake_ompt_grant(int ompt_callback_id, int result);

/* How the fake omp_get_max_threads behaves. */
void fake_ompt_set_discovery(enum fake_discovery discovery);

/* Runs tool discovery: ompt_start_tool, then initialize.  Returns initialize's answer. */
int fake_ompt_attach(void);

/* Calls the shim's finalize, as the runtime does at exit. */
void fake_ompt_finalize(void);

/* The handler the shim has set for `ompt_callback_id`, or NULL. */
ompt_callback_t fake_ompt_handler(int ompt_callback_id);

/* One level of a thread's task chain, for fake_ompt_set_task_chain. */
struct fake_task_level {
    void *exit_frame, *enter_frame;
    int exit_frame_flags, enter_frame_flags;
    int task_flags;
    int thread_num;
    ompt_data_t *parallel_data;
};

/* The code address (codeptr_ra) that parallel_begin, sync_region_wait and mutex_acquire fires report. */
void fake_ompt_set_codeptr(const void *codeptr);

/* What ompt_get_task_info answers on this thread, innermost level first. */
void fake_ompt_set_task_chain(const struct fake_task_level *levels, int count);

/* Times a dispatch found its callback enabled but the pointer NULL (libomp would have crashed). */
long fake_ompt_null_dispatches(void);

/* Times the tool unset or replaced a set callback after initialize returned. */
long fake_ompt_unsafe_sets(void);

/* The calling thread's team as ompt_get_parallel_info(0) will report it (NULL: none). */
void fake_ompt_set_team(ompt_data_t *parallel_data, int team_size);

/* The calling thread's state and wait id as ompt_get_state will report them. */
void fake_ompt_set_state(int state, uint64_t wait_id);

/* Firing callbacks the way a runtime would; each does nothing when the shim has not set it. */
void fake_fire_thread_begin(int thread_type);
void fake_fire_thread_end(void);
/* The OMPT flags later parallel_begin fires report (ompt_parallel_league for a teams construct); 0: invoker_program | team. */
void fake_ompt_set_parallel_flags(int flags);
void fake_fire_parallel_begin(ompt_data_t *parallel_data);
void fake_fire_parallel_end(ompt_data_t *parallel_data);
void fake_fire_implicit_task(int endpoint, ompt_data_t *parallel_data, unsigned int index);
/* A team's initial task in a league, as libomp reports it: implicit_task with ompt_task_initial. */
void fake_fire_initial_task(int endpoint, ompt_data_t *parallel_data, unsigned int index);
void fake_fire_sync_region_wait(int kind, int endpoint);
void fake_fire_mutex_acquire(int kind, uint64_t wait_id);
void fake_fire_mutex_acquired(int kind, uint64_t wait_id);
void fake_fire_mutex_released(int kind, uint64_t wait_id);
void fake_fire_nest_lock(int endpoint, uint64_t wait_id);
void fake_fire_work(int work_type, int endpoint);
void fake_fire_masked(int endpoint);
void fake_fire_task_create(ompt_data_t *encountering, ompt_data_t *new_task, int flags);
void fake_fire_task_schedule(ompt_data_t *prior, int status, ompt_data_t *next);
void fake_fire_reduction(int endpoint);
void fake_fire_task_dependence(ompt_data_t *source, ompt_data_t *sink);

/*
 * Tasks as libomp runs them, on a per-thread stack of task data whose
 * bottom is the thread's implicit task (fake_fire_implicit_task keeps one
 * per nesting level): fake_task_create reports `task` created by the
 * running task; fake_task_begin switches from the running task to `task`
 * (status ompt_task_switch or ompt_task_yield); fake_task_end reports the
 * running task leaving with `status` (complete, cancel, detach) and the one
 * below it resuming.
 */
void fake_task_create(ompt_data_t *task, int flags);
/* The encountering task's enter frame and its flags that later task_create fires report (NULL, 0: none). */
void fake_ompt_set_task_enter_frame(void *enter_frame, int flags);
void fake_task_begin(ompt_data_t *task, int status);
void fake_task_end(int status);

/* The data of the task the calling thread runs in the fake, or NULL. */
ompt_data_t *fake_current_task_data(void);

#endif /* OMPCOLLECTOR_FAKE_OMPT_H */
