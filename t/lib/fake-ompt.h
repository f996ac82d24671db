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

/* Times a dispatch found its callback enabled but the pointer NULL (libomp would have crashed). */
long fake_ompt_null_dispatches(void);

/* Times the tool unset or replaced a set callback after initialize returned. */
long fake_ompt_unsafe_sets(void);

/* The calling thread's state and wait id as ompt_get_state will report them. */
void fake_ompt_set_state(int state, uint64_t wait_id);

/* Firing callbacks the way a runtime would; each does nothing when the shim has not set it. */
void fake_fire_thread_begin(int thread_type);
void fake_fire_thread_end(void);
void fake_fire_parallel_begin(ompt_data_t *parallel_data);
void fake_fire_parallel_end(ompt_data_t *parallel_data);
void fake_fire_implicit_task(int endpoint, ompt_data_t *parallel_data, unsigned int index);
void fake_fire_sync_region_wait(int kind, int endpoint);
void fake_fire_mutex_acquire(int kind, uint64_t wait_id);
void fake_fire_mutex_acquired(int kind, uint64_t wait_id);
void fake_fire_mutex_released(int kind, uint64_t wait_id);
void fake_fire_nest_lock(int endpoint, uint64_t wait_id);
void fake_fire_work(int work_type, int endpoint);
void fake_fire_masked(int endpoint);

#endif /* OMPCOLLECTOR_FAKE_OMPT_H */
