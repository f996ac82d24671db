/* stackwalk.h - the --stacks half of the agent: walks the interrupted thread's user frames in the sampling handler, splicing the runtime out with OMPCOLLECTOR_REQ_TASK_FRAMES, and counts distinct stacks in the record. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_STACKWALK_H
#define OMPCOLLECT_STACKWALK_H 1

#include <stdint.h>

#include "record.h"

/* The collector API's entry point, as the agent found it. */
typedef int (*ompc_api_t)(void *);

/*
 * Gives a newly claimed thread slot its stack tables from the arena, and,
 * when `is_self` (the thread claims its own slot), its stack bounds.
 * Not async-signal-safe: called where slots are claimed.
 */
void ompc_stackwalk_claim(struct ompc_record_header *record, struct ompc_thread *slot, int is_self);

/* Reads the calling thread's stack bounds into its slot if they are not known yet. */
void ompc_stackwalk_bounds(struct ompc_thread *slot);

/*
 * Records the user-model stack of the interrupted thread (`context` is the
 * handler's ucontext_t) under `state`, `weight` samples, in region
 * `region_id` (CURRENT_PRID's answer).  `wait_codeptr` is
 * where the thread called the runtime it waits in (OMPCOLLECTOR_REQ_SAMPLE),
 * 0 when unknown.  `flags` (OMPC_STACK_AT_UNBLOCK or 0) go into the stack's entry.
 * Async-signal-safe: yes; only the thread's own handler calls it.
 */
/* The interrupted code's address from a signal handler's context (0 when NULL or on a machine not known).  Async-signal-safe: yes. */
uint64_t ompc_stackwalk_pc(const void *context);

/* Returns the mapping offset of the sample-table entry the sample was counted in (0: none), what the task-stack table keys by. */
uint64_t ompc_stackwalk_sample(ompc_api_t api, struct ompc_record_header *record, struct ompc_process *owner,
                               struct ompc_thread *slot, int state, uint64_t weight, uint64_t region_id,
                               uint64_t wait_codeptr, void *context, int flags);

/*
 * Records, in the FORK callback on the forking thread, the stack region
 * `region_id` is forked from, where its workers' samples will find it.
 */
void ompc_stackwalk_fork(ompc_api_t api, struct ompc_record_header *record, struct ompc_process *owner,
                         struct ompc_thread *slot, uint64_t region_id);

#endif /* OMPCOLLECT_STACKWALK_H */
