/* unwind.h - --stacks-unwind=dwarf in the launcher: unwinds the stack copies the agent took, by the modules' CFI (elfutils libdwfl), after the program ended. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_UNWIND_H
#define OMPCOLLECT_UNWIND_H 1

#include <stdint.h>

#include "model.h"

/* Why an unwinding ended. */
enum ompc_unwind_end {
    OMPC_UNWIND_WHOLE,   /* at the outermost frame (_start, a thread's start) */
    OMPC_UNWIND_SLICE,   /* a caller's frame lies past the copied bytes: the slice was too small */
    OMPC_UNWIND_NO_CFI,  /* a frame's code has no CFI (or lies in no known module) */
    OMPC_UNWIND_FAILED,  /* the CFI led nowhere sensible (libdwfl gave up) */
    OMPC_UNWIND_DEEP,    /* more frames than asked for */
    OMPC_UNWIND_NONE,    /* no unwinder: libdw not built in */
    OMPC_UNWIND_ENDS
};

/* The name of an end, for the reports ("slice_too_small"...). */
const char *ompc_unwind_end_name(enum ompc_unwind_end end);

struct ompc_unwinder;

/* An unwinder over the process's modules; NULL without libdw, without modules, or when memory ran out. */
struct ompc_unwinder *ompc_unwinder_new(const struct ompc_model_process *process);

/*
 * Unwinds one copy (its registers, and `copy->bytes` bytes of stack from
 * its red zone up that the loader checked) into at most `max` code addresses, leaf first: the
 * interrupted address, then return addresses.  Returns how many, and why
 * it stopped in *end.
 */
int ompc_unwind(struct ompc_unwinder *unwinder, const struct ompc_model_stack_copy *copy, uint64_t *pcs, int max,
                enum ompc_unwind_end *end);

void ompc_unwinder_free(struct ompc_unwinder *unwinder);

#endif /* OMPCOLLECT_UNWIND_H */
