/* gomp.c - gcc code's explicit barriers (GOMP_barrier, GOMP_barrier_cancel) seen on their way to the runtime, so they read as explicit. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include "internal.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/*
 * gcc compiles `#pragma omp barrier` to a call of GOMP_barrier (or
 * GOMP_barrier_cancel where cancellation may happen), and libomp reports
 * the barrier behind it to OMPT as an implementation barrier, the kind it
 * uses for its own (t/conformance/checks/gcc-explicit-barrier.c).  But gcc also calls GOMP_barrier to end a single and a
 * statically scheduled loop (its default schedule), so a call does not
 * prove an explicit barrier.  Interposed here, a call marks the calling
 * thread when OMPCOLLECTOR_GCC_BARRIERS=explicit asks for it; the barrier's
 * sync_region_wait, the next one on that thread, then counts as explicit
 * unless a single just ended there (tool.c, explicit_in_gcc_code).  The
 * shim's definitions are found only when the shim comes before the runtime
 * in the lookup order (preloaded ahead of it, or linked); the runtime's
 * own are reached through dlsym(RTLD_NEXT).
 *
 * The entry points are jumped through, not called: libomp takes
 * __builtin_return_address(0) in GOMP_barrier as the construct's
 * codeptr_ra, which must stay the user's call site.  A small trampoline
 * per entry calls oc_gomp_*_target (marking the thread, finding the
 * runtime's entry) and jumps to what it returns with the caller's return
 * address still on the stack.
 */

typedef void (*gomp_barrier_fn)(void);
typedef bool (*gomp_barrier_cancel_fn)(void);

static _Atomic(gomp_barrier_fn) runtime_barrier;
static _Atomic(gomp_barrier_cancel_fn) runtime_barrier_cancel;

/* What the trampolines jump to when no runtime defines the entry: a team of one has nothing to wait for. */
static void no_barrier(void)
{
}

static bool no_barrier_cancel(void)
{
    return false;
}

/*
 * The next definition of `name` after the shim, looked up once; dlsym is
 * not async-signal-safe, but GOMP_barrier is never called from a handler.
 */
static void *next_definition(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

/* OMPCOLLECTOR_GCC_BARRIERS=explicit at START: GOMP_barrier calls count as explicit barriers. */
_Atomic int oc_gomp_barriers_explicit_setting;

/* Reads the setting; START calls this, as it reads OMPCOLLECTOR_TASKWAIT_STATE.  Not async-signal-safe. */
void oc_gomp_configure(void)
{
    const char *setting = getenv("OMPCOLLECTOR_GCC_BARRIERS");
    atomic_store(&oc_gomp_barriers_explicit_setting, setting != NULL && strcmp(setting, "explicit") == 0);
}

/* Marks the thread: its next barrier wait is the one gcc code called GOMP_barrier for. */
static void mark_explicit_barrier(void)
{
    if (oc_gomp_barriers_explicit() && oc_sync_waits_followed())
        oc_self.explicit_barrier_pending = 1;
}

void *oc_gomp_barrier_target(void) __attribute__((used, visibility("hidden")));
void *oc_gomp_barrier_cancel_target(void) __attribute__((used, visibility("hidden")));

/* GOMP_barrier's trampoline target: marks the thread, returns the runtime's GOMP_barrier. */
void *oc_gomp_barrier_target(void)
{
    gomp_barrier_fn next = atomic_load_explicit(&runtime_barrier, memory_order_acquire);
    if (next == NULL) {
        next = (gomp_barrier_fn)next_definition("GOMP_barrier");
        if (next == NULL)
            next = no_barrier;
        atomic_store_explicit(&runtime_barrier, next, memory_order_release);
    }
    mark_explicit_barrier();
    return (void *)next;
}

/* GOMP_barrier_cancel's trampoline target, likewise. */
void *oc_gomp_barrier_cancel_target(void)
{
    gomp_barrier_cancel_fn next = atomic_load_explicit(&runtime_barrier_cancel, memory_order_acquire);
    if (next == NULL) {
        next = (gomp_barrier_cancel_fn)next_definition("GOMP_barrier_cancel");
        if (next == NULL)
            next = no_barrier_cancel;
        atomic_store_explicit(&runtime_barrier_cancel, next, memory_order_release);
    }
    mark_explicit_barrier();
    return (void *)next;
}

/*
 * The exported entry points.  Neither takes arguments, so a trampoline
 * only has to keep the stack aligned around the call and then jump.
 */
#if defined(__x86_64__)
#define OC_GOMP_TRAMPOLINE(name, target)                     \
    __asm__(".text\n"                                        \
            ".globl " #name "\n"                             \
            ".type " #name ", @function\n"                   \
            ".p2align 4\n" #name ":\n"                       \
            "    .cfi_startproc\n"                           \
            "    subq $8, %rsp\n"                            \
            "    .cfi_adjust_cfa_offset 8\n"                 \
            "    call " #target "\n"                         \
            "    addq $8, %rsp\n"                            \
            "    .cfi_adjust_cfa_offset -8\n"                \
            "    jmp *%rax\n"                                \
            "    .cfi_endproc\n"                             \
            ".size " #name ", .-" #name "\n")
#elif defined(__aarch64__)
#define OC_GOMP_TRAMPOLINE(name, target)                     \
    __asm__(".text\n"                                        \
            ".globl " #name "\n"                             \
            ".type " #name ", %function\n"                   \
            ".p2align 2\n" #name ":\n"                       \
            "    .cfi_startproc\n"                           \
            "    stp x29, x30, [sp, #-16]!\n"                \
            "    .cfi_def_cfa_offset 16\n"                   \
            "    .cfi_offset 29, -16\n"                      \
            "    .cfi_offset 30, -8\n"                       \
            "    mov x29, sp\n"                              \
            "    bl " #target "\n"                           \
            "    ldp x29, x30, [sp], #16\n"                  \
            "    .cfi_def_cfa_offset 0\n"                    \
            "    br x0\n"                                    \
            "    .cfi_endproc\n"                             \
            ".size " #name ", .-" #name "\n")
#endif

#ifdef OC_GOMP_TRAMPOLINE
OC_GOMP_TRAMPOLINE(GOMP_barrier, oc_gomp_barrier_target);
OC_GOMP_TRAMPOLINE(GOMP_barrier_cancel, oc_gomp_barrier_cancel_target);
#define OC_GOMP_INTERPOSED 1
#else
/* Elsewhere, plain C: the barrier still reads explicit, but codeptr_ra may name the shim. */
OC_EXPORT void GOMP_barrier(void)
{
    ((gomp_barrier_fn)oc_gomp_barrier_target())();
}

OC_EXPORT bool GOMP_barrier_cancel(void)
{
    return ((gomp_barrier_cancel_fn)oc_gomp_barrier_cancel_target())();
}
#define OC_GOMP_INTERPOSED 1
#endif

void GOMP_barrier(void);

/*
 * Whether gcc code's GOMP_barrier calls reach the shim: the definition the
 * program's lookup scope finds first is the shim's own.  Not when the
 * runtime comes first in the lookup order, nor when the runtime loaded the
 * shim privately (OMP_TOOL_LIBRARIES).  Asked through the main program's
 * handle: the shim is linked -Bsymbolic, so its own dlsym(RTLD_DEFAULT)
 * would search the shim first.
 */
int oc_gomp_barrier_interposed(void)
{
    void *program = dlopen(NULL, RTLD_LAZY);
    if (program == NULL)
        return 0;
    void *found = dlsym(program, "GOMP_barrier");
    dlclose(program);
    return OC_GOMP_INTERPOSED && found == (void *)GOMP_barrier;
}
