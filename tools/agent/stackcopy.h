/* stackcopy.h - --stacks-unwind=dwarf in the agent: copies a bounded slice of the interrupted thread's stack and its registers into the record, for the launcher's CFI unwinder. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_STACKCOPY_H
#define OMPCOLLECT_STACKCOPY_H 1

#include <stdint.h>

#include "record.h"

/*
 * Gives the stack table at mapping offset `table` its copy buffer from the
 * arena (none when the arena is full: samples then keep only their
 * frame-pointer stacks).  Not async-signal-safe: called where slots are claimed.
 */
void ompc_stackcopy_claim(struct ompc_record_header *record, uint64_t table);

/*
 * Copies the registers of the handler's `context` and the stack from its
 * stack pointer up to record->stack_copy_bytes, never past `stack_high`,
 * as `weight` samples in `state` refining the stack-table entry `entry`;
 * a copy identical to the thread's previous one adds to it.  A full buffer
 * counts the samples in the table's copies_dropped.
 * Async-signal-safe: yes (no allocation, no lock, no call but memcpy and
 * memcmp, async-signal-safe in POSIX.1-2017); only the thread's own handler calls it, on its own stack.
 */
void ompc_stackcopy_take(struct ompc_record_header *record, uint64_t table, uint64_t entry, int state,
                         uint64_t weight, const void *context, uint64_t stack_low, uint64_t stack_high);

#endif /* OMPCOLLECT_STACKCOPY_H */
