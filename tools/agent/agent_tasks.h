/* agent_tasks.h - the agent's tasks by construct: each task event attributed to the task construct that made the task (OMPCOLLECTOR_REQ_TASK_INFO), its tasks counted once and their runs timed. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_AGENT_TASKS_H
#define OMPCOLLECT_AGENT_TASKS_H 1

#include "agent_state.h"
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
 * and set here when this needs it.
 */
int ompc_task_site_event(struct ompc_agent *agent, struct ompc_process *owner, struct ompc_thread *slot, int event,
                         uint64_t *now);

#endif /* OMPCOLLECT_AGENT_TASKS_H */
