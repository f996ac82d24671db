/* agent_tasks.h - the agent's tasks by construct: each task event attributed to the task construct that made the task (OMPCOLLECTOR_REQ_TASK_INFO), its tasks counted once and their runs timed. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_AGENT_TASKS_H
#define OMPCOLLECT_AGENT_TASKS_H 1

#include "agent_state.h"
#include "omp_collector_api.h"
#include "record.h"

/* Whether the runtime answers OMPCOLLECTOR_REQ_TASK_INFO; asked once at START.  Not async-signal-safe. */
int ompc_task_info_probe(struct ompc_agent *agent);

/*
 * A task event (23..35) on the thread where it happens, asked of the
 * collector API `agent` found, for the task construct table of `owner`
 * and the thread's task counters in `slot` (the shared slot of threads
 * past the limit included).  Only a process
 * whose has_task_info is set gets here.  Allocates, locks and formats
 * nothing.  Returns what a BEGIN_FINISH_TASK ends, for the event log
 * (OMPC_TASK_END_PART or _COMPLETES; OMPC_TASK_END_UNKNOWN for the other
 * events, or when the shim did not answer).  *now is the event's clock
 * reading, shared with the caller's timers: 0 until someone reads it,
 * and set here when this needs it.  `given`: what the shim's
 * OMPCOLLECTOR_EVENT_TASK phase said of the task, so nothing is asked;
 * NULL to ask TASK_INFO (a legacy task event).
 */
int ompc_task_site_event(struct ompc_agent *agent, struct ompc_process *owner, struct ompc_thread *slot, int event,
                         uint64_t *now, const ompcollector_task_info_t *given);

/*
 * One phase of the shim's OMPCOLLECTOR_EVENT_TASK without the event log:
 * the counts, timers and construct rows the task events it stands for
 * would give (the legacy path in agent.c's task_event), straight from
 * the payload, with one clock reading (two at creation).  Allocates,
 * locks and formats nothing.  Returns what an END ends, as
 * ompc_task_site_event; *when is the reading the event log's entry for
 * the phase takes (at creation the later one, as END_CREATE's).
 */
int ompc_task_phase(struct ompc_agent *agent, struct ompc_process *owner, struct ompc_thread *slot, int phase,
                    const ompcollector_task_event_t *task, uint64_t *when);

/*
 * The sampled tier's CREATE (OMPCOLLECTOR_EVENT_TASK_CREATE): the task
 * counted for its construct and the creating thread, untimed (its time is
 * the runtime's, sampled); no run is followed.  Allocates, locks, formats
 * and reads no clock.
 */
void ompc_task_counted(struct ompc_process *owner, struct ompc_thread *slot, const ompcollector_task_event_t *task);

/*
 * In the sampling handler, sampled tier (async-signal-safe: one
 * OMPCOLLECTOR_REQ_TASK, lock-free rows): a sample of thread `index`
 * (`weight` expirations) that finds an explicit task running adds its
 * time to the task's construct (sampled_ns, thread_mask) and to the
 * thread's task execution time, and counts the sample-table entry `stack`
 * it was counted in (0: none) as run in that construct.  Returns the id of
 * the task the thread runs (0: unknown).
 */
uint64_t ompc_task_sample(struct ompc_agent *agent, struct ompc_process *owner, int index, uint64_t weight,
                          uint64_t stack);

#endif /* OMPCOLLECT_AGENT_TASKS_H */
