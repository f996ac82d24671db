/* stackcopy.c - --stacks-unwind=dwarf in the sampling handler: copies a bounded slice of the interrupted thread's stack and the registers CFI unwinding needs into the thread's copy buffer in the record. */
/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Every function here but ompc_stackcopy_claim runs in the sampling
 * signal's handler: no allocation, no lock, no library call; the copy
 * reads only the interrupted thread's own stack between the red zone under
 * its stack pointer and the top of the stack its slot names, so it cannot
 * fault: the handler's own frame lies below the red zone.  The
 * unwinding itself (CFI, modules, symbols) happens in the launcher after
 * the run, as perf's --stacks-unwind=dwarf does.
 */
#define _GNU_SOURCE 1
#include <config.h>

#include "stackcopy.h"

#include <signal.h>
#include <string.h>
#include <ucontext.h>

void ompc_stackcopy_claim(struct ompc_record_header *record, uint64_t table)
{
    if (table == 0 || !(record->flags & OMPC_OPT_STACKS_DWARF) || !ompc_stacks_dwarf_supported())
        return;
    uint64_t offset = ompc_record_alloc(record, OMPC_STACK_COPIES_BYTES);
    if (offset == 0)
        return;
    struct ompc_stack_copies *copies = (struct ompc_stack_copies *)((char *)record + offset);
    copies->capacity = OMPC_STACK_COPIES_BYTES - sizeof *copies;
    struct ompc_stack_table *owner = (struct ompc_stack_table *)((char *)record + table);
    atomic_store(&owner->copies, offset);
}

/*
 * The registers CFI needs, in x86-64's DWARF numbering, from the handler's
 * context; 0 when this machine is not known.
 * Async-signal-safe: yes.
 */
static int context_registers(const void *context, uint64_t regs[OMPC_COPY_REGS])
{
#if defined(__x86_64__)
    static const int order[OMPC_COPY_REGS] = {REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI,
                                              REG_RBP, REG_RSP, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                              REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP};
    const ucontext_t *uc = context;
    for (int i = 0; i < OMPC_COPY_REGS; i++)
        regs[i] = (uint64_t)uc->uc_mcontext.gregs[order[i]];
    return 1;
#else
    (void)context;
    memset(regs, 0, OMPC_COPY_REGS * sizeof *regs);
    return 0;
#endif
}

/* The red zone's bytes under `sp` the copy takes (less where the stack ends). Async-signal-safe: yes. */
static uint64_t red_zone(uint64_t sp, uint64_t stack_low)
{
#if defined(__x86_64__)
    return (sp - stack_low < OMPC_STACK_RED_ZONE ? sp - stack_low : OMPC_STACK_RED_ZONE) & ~(uint64_t)7;
#else
    (void)sp, (void)stack_low;
    return 0;
#endif
}

/* Mixes one word into a hash. Async-signal-safe: yes. */
static inline uint64_t mix(uint64_t hash, uint64_t word)
{
    return (hash ^ word) * UINT64_C(0x100000001B3) + (hash >> 29);
}

/*
 * Copies `words` words of stack from `from` to `to`, returning their hash
 * mixed into `hash`.  The stack is the interrupted code's, changing under
 * no one (its thread is in this handler), so plain loads suffice.
 * Async-signal-safe: yes.
 */
static uint64_t copy_words(uint64_t *to, const uint64_t *from, uint64_t words, uint64_t hash)
{
    for (uint64_t i = 0; i < words; i++) {
        uint64_t word = ((const volatile uint64_t *)from)[i];
        to[i] = word;
        hash = mix(hash, word);
    }
    return hash;
}

/* Whether `old` says the same as `fresh` (the bytes follow each header). Async-signal-safe: yes. */
static int same_copy(const struct ompc_stack_copy *old, const struct ompc_stack_copy *fresh)
{
    return old->hash == fresh->hash && old->entry == fresh->entry && old->state == fresh->state
           && old->below == fresh->below && old->bytes == fresh->bytes && memcmp(old->regs, fresh->regs, sizeof fresh->regs) == 0
           && memcmp(old + 1, fresh + 1, (fresh->bytes + 7u) & ~7u) == 0;
}

void ompc_stackcopy_take(struct ompc_record_header *record, uint64_t table, uint64_t entry, int state,
                         uint64_t weight, const void *context, uint64_t stack_low, uint64_t stack_high)
{
    struct ompc_stack_table *owner = (struct ompc_stack_table *)((char *)record + table);
    uint64_t offset = atomic_load_explicit(&owner->copies, memory_order_relaxed);
    if (offset == 0)
        return;
    struct ompc_stack_copies *copies = (struct ompc_stack_copies *)((char *)record + offset);
    char *pool = (char *)(copies + 1);
    uint64_t regs[OMPC_COPY_REGS];
    uint64_t sp;
    if (!context_registers(context, regs) || (sp = regs[OMPC_COPY_REG_SP]) < stack_low || sp >= stack_high
        || (sp & 7) != 0) {
        atomic_fetch_add_explicit(&owner->copies_dropped, weight, memory_order_relaxed);
        return;
    }
    uint64_t limit = record->stack_copy_bytes;
    if (limit > OMPC_STACK_COPY_MAX)
        limit = OMPC_STACK_COPY_MAX;
    uint64_t below = red_zone(sp, stack_low);
    uint64_t bytes = below + ((stack_high - sp < limit ? stack_high - sp : limit) & ~(uint64_t)7);
    uint64_t used = atomic_load_explicit(&copies->used, memory_order_relaxed);
    uint64_t size = sizeof(struct ompc_stack_copy) + bytes;
    if (used + size > copies->capacity) {
        atomic_fetch_add_explicit(&owner->copies_dropped, weight, memory_order_relaxed);
        return;
    }
    struct ompc_stack_copy *fresh = (struct ompc_stack_copy *)(pool + used);
    fresh->entry = entry;
    fresh->state = (uint16_t)state;
    fresh->below = (uint16_t)below;
    fresh->bytes = (uint32_t)bytes;
    memcpy(fresh->regs, regs, sizeof regs);
    uint64_t hash = mix(mix(UINT64_C(0xCBF29CE484222325), (uint64_t)state), regs[OMPC_COPY_REG_PC]);
    fresh->hash = copy_words((uint64_t *)(fresh + 1), (const uint64_t *)(uintptr_t)(sp - below), bytes / 8, hash);
    /* A thread sampled again where nothing changed (a spin, a long wait) costs its old copy a count, not a new copy. */
    if (owner->last_copy != 0 && owner->last_copy - 1 < used) {
        struct ompc_stack_copy *last = (struct ompc_stack_copy *)(pool + owner->last_copy - 1);
        if (same_copy(last, fresh)) {
            atomic_fetch_add_explicit(&last->count, weight, memory_order_relaxed);
            return;
        }
    }
    atomic_store_explicit(&fresh->count, weight, memory_order_relaxed);
    owner->last_copy = used + 1;
    atomic_store_explicit(&copies->used, used + size, memory_order_release);
    atomic_fetch_add_explicit(&copies->count, 1, memory_order_relaxed);
}
