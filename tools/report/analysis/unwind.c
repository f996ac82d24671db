/* unwind.c - unwinds the agent's stack copies (--stacks-unwind=dwarf) with elfutils libdwfl's unwinder: registers and memory served from the copy, CFI from the modules' .eh_frame and .debug_frame, in the launcher after the run. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "unwind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ompc_unwind_end_name(enum ompc_unwind_end end)
{
    static const char *const names[OMPC_UNWIND_ENDS] = {"whole", "slice_too_small", "no_cfi", "unwind_failed",
                                                         "too_deep", "no_unwinder"};
    return end >= 0 && end < OMPC_UNWIND_ENDS ? names[end] : "unknown";
}

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>

#include "symbolize.h"

/* The copy being unwound, which the callbacks serve. */
struct ompc_unwinder {
    Dwfl *dwfl;
    const struct ompc_model_stack_copy *copy;
    int past_slice;            /* a read fell above the copied bytes */
    int under_copy;            /* a read fell under them: the CFI led below the stack pointer's red zone */
    uint64_t *pcs;
    int count, max;
};

/* One thread, the copy's. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
    (void)dwfl;
    if (*thread_arg != NULL)
        return 0;
    *thread_arg = arg;
    return 1;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
    (void)dwfl, (void)tid;
    *thread_arg = arg;
    return true;
}

/*
 * Stack memory: only what the copy holds, from the red zone under the
 * stack pointer up; a read above it means the slice was too small, one
 * under it that the unwinding went wrong.
 */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr address, Dwarf_Word *result, void *arg)
{
    (void)dwfl;
    struct ompc_unwinder *unwinder = arg;
    const struct ompc_model_stack_copy *copy = unwinder->copy;
    uint64_t base = copy->regs[OMPC_COPY_REG_SP] - copy->below;
    if (address >= base && address - base <= copy->bytes && copy->bytes - (address - base) >= 8) {
        memcpy(result, copy->stack + (address - base), sizeof *result);
        return true;
    }
    if (address >= base)
        unwinder->past_slice = 1;
    else
        unwinder->under_copy = 1;
    return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
    struct ompc_unwinder *unwinder = arg;
    Dwarf_Word regs[OMPC_COPY_REGS];
    for (int i = 0; i < OMPC_COPY_REGS; i++)
        regs[i] = unwinder->copy->regs[i];
    dwfl_thread_state_register_pc(thread, regs[OMPC_COPY_REG_PC]);
    return dwfl_thread_state_registers(thread, 0, OMPC_COPY_REG_PC, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

struct ompc_unwinder *ompc_unwinder_new(const struct ompc_model_process *process)
{
    if (process->module_count == 0)
        return NULL;
    struct ompc_unwinder *unwinder = calloc(1, sizeof *unwinder);
    if (unwinder == NULL || (unwinder->dwfl = dwfl_begin(&ompc_dwfl_offline_callbacks)) == NULL) {
        free(unwinder);
        return NULL;
    }
    dwfl_report_begin(unwinder->dwfl);
    for (uint32_t i = 0; i < process->module_count; i++) {
        const char *path = ompc_model_module_file(process, process->modules[i].path);
        char *file = NULL;
        if (path[0] == '\0' || (process->symfs != NULL && asprintf(&file, "%s/%s", process->symfs, path) < 0))
            continue;
        ompc_dwfl_report_regular(unwinder->dwfl, path, file != NULL ? file : path, process->modules[i].bias);
        free(file);
    }
    dwfl_report_end(unwinder->dwfl, NULL, NULL);
    if (!dwfl_attach_state(unwinder->dwfl, NULL, 1, &thread_callbacks, unwinder)) {
        ompc_unwinder_free(unwinder);
        return NULL;
    }
    return unwinder;
}

/* Each frame's code address, leaf first; stops past `max`. */
static int take_frame(Dwfl_Frame *frame, void *arg)
{
    struct ompc_unwinder *unwinder = arg;
    Dwarf_Addr pc;
    if (!dwfl_frame_pc(frame, &pc, NULL))
        return DWARF_CB_ABORT;
    if (unwinder->count == unwinder->max)
        return DWARF_CB_ABORT;
    unwinder->pcs[unwinder->count++] = pc;
    return DWARF_CB_OK;
}

/* Why an unwinding that did not reach the outermost frame stopped at `pc`. */
static enum ompc_unwind_end why_stopped(struct ompc_unwinder *unwinder, uint64_t pc)
{
    if (unwinder->past_slice)
        return OMPC_UNWIND_SLICE;
    if (unwinder->count == unwinder->max)
        return OMPC_UNWIND_DEEP;
    Dwfl_Module *module = dwfl_addrmodule(unwinder->dwfl, pc);
    Dwarf_Addr bias;
    if (module == NULL || (dwfl_module_eh_cfi(module, &bias) == NULL && dwfl_module_dwarf_cfi(module, &bias) == NULL))
        return OMPC_UNWIND_NO_CFI;
    return OMPC_UNWIND_FAILED;
}

int ompc_unwind(struct ompc_unwinder *unwinder, const struct ompc_model_stack_copy *copy,
                uint64_t *pcs, int max, enum ompc_unwind_end *end)
{
    unwinder->copy = copy;
    unwinder->past_slice = 0;
    unwinder->under_copy = 0;
    unwinder->pcs = pcs;
    unwinder->count = 0;
    unwinder->max = max;
    int result = dwfl_getthread_frames(unwinder->dwfl, 1, take_frame, unwinder);
    /* libdwfl ends an unwinding whose memory read failed as if the caller were undefined: the reads decide. */
    if (result == 0 && !unwinder->past_slice && !unwinder->under_copy)
        *end = OMPC_UNWIND_WHOLE;
    else
        *end = why_stopped(unwinder, unwinder->count > 0 ? pcs[unwinder->count - 1] : copy->regs[OMPC_COPY_REG_PC]);
    return unwinder->count;
}

void ompc_unwinder_free(struct ompc_unwinder *unwinder)
{
    if (unwinder == NULL)
        return;
    dwfl_end(unwinder->dwfl);
    free(unwinder);
}

#else /* !HAVE_LIBDW */

struct ompc_unwinder *ompc_unwinder_new(const struct ompc_model_process *process)
{
    (void)process;
    return NULL;
}

int ompc_unwind(struct ompc_unwinder *unwinder, const struct ompc_model_stack_copy *copy,
                uint64_t *pcs, int max, enum ompc_unwind_end *end)
{
    (void)unwinder, (void)copy, (void)pcs, (void)max;
    *end = OMPC_UNWIND_NONE;
    return 0;
}

void ompc_unwinder_free(struct ompc_unwinder *unwinder)
{
    (void)unwinder;
}

#endif /* HAVE_LIBDW */
