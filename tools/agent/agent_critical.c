/* agent_critical.c - interposes __kmpc_critical and __kmpc_critical_with_hint in the observed program so the sampler knows which named critical a CTWT wait is for; the calls go on to the runtime untouched. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "agent_critical.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

/*
 * Why: libomp reports a critical's wait id (and the shim's wait_object) as
 * the runtime's own lock, allocated on the heap on first use, while the
 * name the program gave -- `critical(accum)` -- lives only in the
 * compiler's variable `.gomp_critical_user_accum.var` (clang) or
 * `.gomp_critical_user_accum` (GCC), whose address clang passes to
 * __kmpc_critical and libomp's GOMP_critical_name_start passes on to it
 * (a tail jump through the PLT, so the return address stays the user's).
 * The variable holds only a pointer to libomp's indirect lock, so the
 * launcher cannot get from the lock back to the name after the run; the
 * agent, preloaded ahead of the runtime, sees the variable on the way in.
 *
 * The entry points are jumped through, as the shim's GOMP_barrier is
 * (lib/gomp.c): libomp takes __builtin_return_address(0) in
 * __kmpc_critical as the construct's codeptr_ra, which must stay the
 * user's call site.  Only x86-64 has the trampolines; elsewhere nothing is
 * interposed and criticals are named by their line only.
 */

static __thread struct ompc_critical_entry current __attribute__((tls_model("initial-exec")));

const struct ompc_critical_entry *ompc_critical_current(void)
{
    return &current;
}

#if defined(__x86_64__)
typedef void (*entry_t)(void);
static _Atomic(entry_t) next_critical, next_critical_with_hint;

/* What a trampoline jumps to when no later object defines the entry: nothing to lock in a process without a runtime. */
static void no_entry(void)
{
}

/* The next definition of `name` after the agent, looked up once. */
static entry_t next_entry(_Atomic(entry_t) *cache, const char *name)
{
    entry_t next = atomic_load_explicit(cache, memory_order_acquire);
    if (next == NULL) {
        next = (entry_t)dlsym(RTLD_NEXT, name);
        if (next == NULL)
            next = no_entry;
        atomic_store_explicit(cache, next, memory_order_release);
    }
    return next;
}

void *ompc_critical_target(uint64_t variable, uint64_t call_site) __attribute__((used, visibility("hidden")));
void *ompc_critical_with_hint_target(uint64_t variable, uint64_t call_site)
    __attribute__((used, visibility("hidden")));

/* __kmpc_critical's trampoline target: notes the critical, returns the runtime's entry. */
void *ompc_critical_target(uint64_t variable, uint64_t call_site)
{
    current.variable = variable;
    current.call_site = call_site;
    return (void *)next_entry(&next_critical, "__kmpc_critical");
}

/* __kmpc_critical_with_hint's, likewise. */
void *ompc_critical_with_hint_target(uint64_t variable, uint64_t call_site)
{
    current.variable = variable;
    current.call_site = call_site;
    return (void *)next_entry(&next_critical_with_hint, "__kmpc_critical_with_hint");
}

/*
 * (loc, gtid, crit[, hint]) arrive in rdi, rsi, rdx, rcx: saved around the
 * target's call (with rsp 16-byte aligned at it), then restored for the
 * runtime, which is jumped to with the caller's return address in place.
 */
#define OMPC_CRITICAL_TRAMPOLINE(name, target)                         \
    __asm__(".text\n"                                                  \
            ".globl " #name "\n"                                       \
            ".type " #name ", @function\n"                             \
            ".p2align 4\n" #name ":\n"                                 \
            "    .cfi_startproc\n"                                     \
            "    pushq %rdi\n"                                         \
            "    .cfi_adjust_cfa_offset 8\n"                           \
            "    pushq %rsi\n"                                         \
            "    .cfi_adjust_cfa_offset 8\n"                           \
            "    pushq %rdx\n"                                         \
            "    .cfi_adjust_cfa_offset 8\n"                           \
            "    pushq %rcx\n"                                         \
            "    .cfi_adjust_cfa_offset 8\n"                           \
            "    subq $8, %rsp\n"                                      \
            "    .cfi_adjust_cfa_offset 8\n"                           \
            "    movq %rdx, %rdi\n"                                    \
            "    movq 40(%rsp), %rsi\n"                                \
            "    call " #target "\n"                                   \
            "    addq $8, %rsp\n"                                      \
            "    .cfi_adjust_cfa_offset -8\n"                          \
            "    popq %rcx\n"                                          \
            "    .cfi_adjust_cfa_offset -8\n"                          \
            "    popq %rdx\n"                                          \
            "    .cfi_adjust_cfa_offset -8\n"                          \
            "    popq %rsi\n"                                          \
            "    .cfi_adjust_cfa_offset -8\n"                          \
            "    popq %rdi\n"                                          \
            "    .cfi_adjust_cfa_offset -8\n"                          \
            "    jmp *%rax\n"                                          \
            "    .cfi_endproc\n"                                       \
            ".size " #name ", .-" #name "\n")

OMPC_CRITICAL_TRAMPOLINE(__kmpc_critical, ompc_critical_target);
OMPC_CRITICAL_TRAMPOLINE(__kmpc_critical_with_hint, ompc_critical_with_hint_target);
#endif
