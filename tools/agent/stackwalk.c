/* stackwalk.c - walks a sampled thread's frame-pointer chain inside the program, keeping only the user's frames (the runtime's are spliced out with OMPCOLLECTOR_REQ_TASK_FRAMES), and counts each distinct stack in the thread's table in the record. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "agent.h"
#include "omp_collector_api.h"
#include "request.h"
#include "stackcopy.h"
#include "stackwalk.h"

#include <execinfo.h>

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

/*
 * How the walk splices.  TASK_FRAMES gives, innermost task first, the frame
 * where the runtime called each task's code (exit) and where that code
 * called into the runtime (enter).  A task's user frames are the frames
 * whose frame pointer F lies between its enter frame (or the interrupted
 * point) and its exit frame; between one task's exit frame and the next
 * task's enter frame is the runtime, which is never walked: the walk jumps
 * from the exit frame straight to the next enter frame, which is the frame
 * of a runtime entry point (libomp gives those a frame pointer even where
 * the rest of it has none), and goes on with that entry's caller.  So the
 * runtime's own frames are neither read nor recorded.  When the next enter
 * frame lies on another thread's stack -- the thread that forked this
 * thread's team -- the stack continues into what that thread recorded at
 * FORK for the region (the fork cache), which is itself a spliced stack
 * that may continue further out.  Every read is checked against the
 * thread's own stack bounds, and frame pointers must grow outwards, so a
 * frame without a frame pointer ends the walk instead of faulting.
 */

/* OMPT's task and frame flags (ompt_task_flag_t, ompt_frame_flag_t). */
#define TASK_INITIAL 0x1
#define FRAME_CFA 0x10

/* Task levels asked for; deeper nesting marks the stack broken. */
#define MAX_LEVELS 32
/* Frames looked at per walk, kept or elided. */
#define MAX_STEPS 4096
/* Frames the CFI unwinder gives a fork stack (--stacks-unwind=dwarf); a deeper stack is marked broken. */
#define MAX_UNWIND 1024
/* A stack deeper than OMPC_STACK_DEPTH keeps its innermost HEAD and outermost DEPTH - HEAD frames. */
#define HEAD (OMPC_STACK_DEPTH / 2)
#define TAIL (OMPC_STACK_DEPTH - HEAD)

/* The walk so far. */
struct walk {
    uint64_t low, high;                /* the thread's stack: reads stay inside */
    uint64_t last;                     /* the last frame pointer followed: each must be above it */
    uint64_t frames[OMPC_STACK_DEPTH];
    uint64_t total;                    /* frames met, kept or elided */
    int flags;                         /* OMPC_STACK_* */
    uint64_t continuation;             /* fork-stack entry the stack goes on into, 0 none */
    uint64_t copy_high;                /* --stacks-unwind=dwarf: the copy need not reach past this (0: no bound) */
};

/* Reads the calling thread's stack bounds (pthread_getattr_np: not for signal handlers). */
void ompc_stackwalk_bounds(struct ompc_thread *slot)
{
    if (slot->stack_high != 0)
        return;
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0)
        return;
    void *base = NULL;
    size_t size = 0;
    if (pthread_attr_getstack(&attributes, &base, &size) == 0 && base != NULL && size != 0) {
        slot->stack_low = (uint64_t)(uintptr_t)base;
        /* The handler on this thread must never see the high bound before the low one. */
        atomic_signal_fence(memory_order_seq_cst);
        slot->stack_high = (uint64_t)(uintptr_t)base + size;
    }
    pthread_attr_destroy(&attributes);
}

/* One table of `bytes` with `slots` index slots from the arena, initialized; its mapping offset or 0. */
static uint64_t new_table(struct ompc_record_header *record, uint64_t bytes, uint32_t slots)
{
    uint64_t offset = ompc_record_alloc(record, bytes);
    if (offset == 0)
        return 0;
    struct ompc_stack_table *table = (struct ompc_stack_table *)((char *)record + offset);
    uint64_t header = sizeof *table + (uint64_t)slots * sizeof(uint32_t);
    table->index_slots = slots;
    table->pool_words = (bytes - header) / sizeof(uint64_t);
    return offset;
}

void ompc_stackwalk_claim(struct ompc_record_header *record, struct ompc_thread *slot, int is_self)
{
    if (!ompc_stacks_supported())
        return;
    uint64_t table = new_table(record, OMPC_STACK_TABLE_BYTES, OMPC_STACK_INDEX);
    ompc_stackcopy_claim(record, table);
    atomic_store(&slot->stacks, table);
    atomic_store(&slot->fork_stacks, new_table(record, OMPC_FORK_TABLE_BYTES, OMPC_FORK_INDEX));
    if (is_self)
        ompc_stackwalk_bounds(slot);
}

/* Whether the 16 bytes of a frame record at `fp` lie on the thread's stack. */
static int readable(const struct walk *walk, uint64_t fp)
{
    return fp >= walk->low && fp <= walk->high - 16 && (fp & 7) == 0;
}

/* Counts one kept frame; past the bound, the outermost frames go round a ring so main stays. */
static void emit(struct walk *walk, uint64_t pc)
{
    if (walk->total < OMPC_STACK_DEPTH)
        walk->frames[walk->total] = pc;
    else
        walk->frames[HEAD + (walk->total - HEAD) % TAIL] = pc;
    walk->total++;
}

/* Puts the ring of outermost frames in order; returns the number of frames kept. */
static int finish(struct walk *walk)
{
    if (walk->total <= OMPC_STACK_DEPTH)
        return (int)walk->total;
    uint64_t ring[TAIL];
    uint64_t start = (walk->total - HEAD) % TAIL;
    for (int i = 0; i < TAIL; i++)
        ring[i] = walk->frames[HEAD + (start + (uint64_t)i) % TAIL];
    memcpy(&walk->frames[HEAD], ring, sizeof ring);
    return OMPC_STACK_DEPTH;
}

/*
 * Follows the chain from the frame (pc, fp) while its frame pointers stay
 * below `upper` (0: no bound), keeping each frame's address.  Returns 1 when
 * it reached `upper` (the runtime's exit frame: the next level follows), 0
 * when the chain ended or broke.
 */
static int follow(struct walk *walk, uint64_t pc, uint64_t fp, uint64_t upper)
{
    /*
     * With an exit frame above, a chain that breaks below it left the
     * user's code for the runtime's (whose frames need not keep a frame
     * pointer, so the saved one is garbage): the level's user frames are
     * done, and the next level's enter frame says where the user's go on.
     */
    int bounded = upper != 0;
    if (upper == 0)
        upper = walk->high;
    /*
     * The first `pc` is known whatever its frame pointer: the interrupted
     * address in the user's code, or the user's call of the runtime that
     * an enter frame held.  Code built without frame pointers may use the
     * register for anything, or leave the runtime's in it -- the exit frame
     * itself, in a task's code -- and such a frame was once dropped with
     * its chain: clang's serial code and tasks sampled as stacks with
     * nothing in them.  A later `pc` came from a record the chain only
     * guessed at, and is kept only when its own frame pointer holds.
     */
    emit(walk, pc);
    for (int steps = 0; steps < MAX_STEPS; steps++) {
        if (fp >= upper || !readable(walk, fp) || fp <= walk->last) {
            if (bounded)
                return 1;
            walk->flags |= OMPC_STACK_BROKEN;
            return 0;
        }
        if (steps > 0)
            emit(walk, pc);
        walk->last = fp;
        const volatile uint64_t *record = (const volatile uint64_t *)(uintptr_t)fp;
        uint64_t next = record[0];
        pc = record[1];
        /* The outermost frame (_start, a thread's start) has no caller. */
        if (next == 0 || pc == 0)
            return bounded;
        fp = next;
    }
    walk->flags |= OMPC_STACK_BROKEN;
    return 0;
}

/* A frame address as the frame pointer it stands for. */
static uint64_t frame_pointer(uint64_t address, int flags)
{
    return address != 0 && (flags & FRAME_CFA) ? address - 16 : address;
}

/* The fork-stack entry of `region_id` from the fork cache (read id-first-and-last), 0 unknown. */
static uint64_t fork_entry(struct ompc_process *owner, uint64_t region_id)
{
    if (region_id == 0)
        return 0;
    struct ompc_fork_slot *cache = &owner->fork_cache[region_id % OMPC_FORK_CACHE];
    if (atomic_load_explicit(&cache->region_id, memory_order_acquire) != region_id)
        return 0;
    uint64_t entry = atomic_load_explicit(&cache->entry, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&cache->region_id, memory_order_relaxed) == region_id ? entry : 0;
}

/*
 * The region whose fork stack continues a walk that leaves this thread's
 * stack at `level`: the region of the task below that level, as the
 * runtime says.  libomp moves one team outwards at every parent step, even
 * from an explicit task to its parent in the same team, so a worker's
 * deeper levels can name no region (or an outer one, answered as 0 by a
 * serialized team); the innermost level that names one is then the
 * thread's team.  0 when none does.
 */
static uint64_t crossing_region(const ompcollector_task_frame_t *levels, int level)
{
    for (int at = level - 1; at >= 0; at--)
        if (levels[at].region_id != 0)
            return levels[at].region_id;
    return 0;
}

/*
 * Ends the walk of this thread's stack where the user's frames go on in
 * the fork stack of `region_id`; without one (no region, or its fork stack
 * not kept) the stack is marked as missing its caller.
 * Async-signal-safe: yes.
 */
static void continue_in_fork_stack(struct walk *walk, struct ompc_process *owner, uint64_t region_id)
{
    walk->continuation = fork_entry(owner, region_id);
    if (walk->continuation == 0)
        walk->flags |= OMPC_STACK_NO_CALLER;
}

/*
 * Goes on from a level on this stack inside the runtime: from its enter
 * frame `enter` (0: none) to the user's caller and up to the level's exit
 * frame.  `codeptr` is where the innermost task called the runtime (0 for
 * the other levels, or unknown).  Returns 1 when the next level follows, 0
 * when the walk ended.
 * Async-signal-safe: yes.
 */
static int follow_caller(struct walk *walk, const ompcollector_task_frame_t *level, uint64_t enter, uint64_t codeptr)
{
    /* On this stack, a level outside the runtime has no enter frame to jump to. */
    if (enter == 0 || !readable(walk, enter) || enter <= walk->last) {
        walk->flags |= OMPC_STACK_BROKEN;
        return 0;
    }
    /* `enter` is the runtime entry point's own frame: its caller is the user's. */
    const volatile uint64_t *record = (const volatile uint64_t *)(uintptr_t)enter;
    walk->last = enter;
    uint64_t caller_fp = record[0], caller_pc = record[1];
    /*
     * Where the innermost task called the runtime, as the runtime's
     * callbacks said: some entry points record their caller's frame, or
     * reach the frame through a helper, so the enter frame's return
     * address need not be in the function that made the call.
     */
    if (codeptr != 0 && caller_pc != codeptr)
        emit(walk, codeptr);
    if (caller_pc == 0) {
        walk->flags |= OMPC_STACK_BROKEN;
        return 0;
    }
    /* A caller without frame pointer (0 or anything else in it) still counts: follow keeps its frame. */
    return follow(walk, caller_pc, caller_fp, frame_pointer(level->exit_frame, level->exit_frame_flags));
}

/*
 * Walks level by level (see the comment at the top).  With a context
 * (`pc`, `fp` of the interrupted code) the innermost task's own frames come
 * first when it runs its own code; without one the walk starts at the
 * innermost enter frame.
 */
static void walk_levels(struct walk *walk, struct ompc_process *owner, const ompcollector_task_frame_t *levels,
                        int count, int truncated, int have_context, uint64_t pc, uint64_t fp, uint64_t codeptr)
{
    if (count == 0) {
        if (have_context) {
            walk->flags |= OMPC_STACK_LEAF_EXACT;
            follow(walk, pc, fp, 0);
        }
        return;
    }
    int level = 0;
    uint64_t exit0 = frame_pointer(levels[0].exit_frame, levels[0].exit_frame_flags);
    if (levels[0].enter_frame == 0) {
        /* Not inside the runtime on behalf of this task: in its code, or (no exit frame either) between tasks in the runtime. */
        if (have_context && (exit0 != 0 || (levels[0].task_flags & TASK_INITIAL))) {
            walk->flags |= OMPC_STACK_LEAF_EXACT;
            if (!follow(walk, pc, fp, exit0))
                return;
        }
        level = 1;
    }
    for (; level < count; level++) {
        uint64_t enter = frame_pointer(levels[level].enter_frame, levels[level].enter_frame_flags);
        /*
         * A task that has neither frame is not on this stack as far as the
         * runtime says (libomp leaves a worker's implicit task so while the
         * worker runs tasks in a barrier of GCC code): the next level's
         * enter frame says where the user's frames go on.
         */
        if (enter == 0 && levels[level].exit_frame == 0 && level + 1 < count)
            continue;
        /*
         * Where the level is: its enter frame, or, for a task running its
         * own code (the parent of a task this worker took, still running
         * when asked), its exit frame.
         */
        uint64_t at = enter != 0 ? enter : frame_pointer(levels[level].exit_frame, levels[level].exit_frame_flags);
        if (at == 0 && (levels[level].task_flags & TASK_INITIAL)) {
            /*
             * The initial task with no frame at all runs its own code outside
             * the runtime, so on another thread: on this one, inside a team
             * forked under it, its enter frame would be set.  Its thread has
             * left our region while this worker still counts as waiting in
             * the region's closing barrier -- libomp keeps a worker there
             * until it sees the task team retired, and the sample read the
             * state before these frames.  The user's frames go on where the
             * region was forked, as while the master is still in it.
             */
            continue_in_fork_stack(walk, owner, crossing_region(levels, level));
            return;
        }
        if (at == 0) {
            walk->flags |= OMPC_STACK_BROKEN;
            return;
        }
        if (at < walk->low || at >= walk->high) {
            /* This level runs on the thread that forked our team (or created our task): its stack goes on there. */
            continue_in_fork_stack(walk, owner, crossing_region(levels, level));
            return;
        }
        if (!follow_caller(walk, &levels[level], enter, level == 0 ? codeptr : 0))
            return;
    }
    /* Still below an exit frame with no level left: the answer was cut short. */
    if (truncated)
        walk->flags |= OMPC_STACK_BROKEN;
}

/*
 * --stacks-unwind=dwarf: where the user's stack leaves this thread, from the
 * levels' frame addresses alone.  The frame-pointer walk may stop before
 * it gets there (code without frame pointers leaves garbage where it
 * looks), but the stack copy's CFI unwinding covers this thread's frames,
 * so only the crossing matters: the first level whose frame lies on
 * another thread's stack (or the initial task with no frame, running on
 * another thread) continues into its region's fork stack.
 * Async-signal-safe: yes.
 */
static void crossing_continuation(struct walk *walk, struct ompc_process *owner,
                                  const ompcollector_task_frame_t *levels, int count)
{
    for (int level = count > 0 && levels[0].enter_frame == 0 ? 1 : 0; level < count; level++) {
        uint64_t at = frame_pointer(levels[level].enter_frame, levels[level].enter_frame_flags);
        if (at == 0)
            at = frame_pointer(levels[level].exit_frame, levels[level].exit_frame_flags);
        if ((at == 0 && (levels[level].task_flags & TASK_INITIAL)) || (at != 0 && (at < walk->low || at >= walk->high))) {
            if (walk->continuation == 0) {
                walk->flags &= ~OMPC_STACK_NO_CALLER;
                continue_in_fork_stack(walk, owner, crossing_region(levels, level));
            }
            /* What lies above the frame the runtime ran the last level here from is not this stack's user's: the copy stops there. */
            uint64_t exit = level > 0 ? frame_pointer(levels[level - 1].exit_frame, levels[level - 1].exit_frame_flags) : 0;
            if (exit >= walk->low && exit < walk->high - 16)
                walk->copy_high = exit + 16;
            return;
        }
    }
}

/* TASK_FRAMES for the calling thread into `levels`; the count, -1 when the request failed; *truncated when levels were left out. */
static int task_frames(ompc_api_t api, ompcollector_task_frame_t *levels, int *truncated)
{
    enum { MEM = sizeof(ompcollector_task_frames_t) + MAX_LEVELS * sizeof(ompcollector_task_frame_t) };
    int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(MEM))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int entry = ompc_request_add(&batch, OMPCOLLECTOR_REQ_TASK_FRAMES, MEM);
    *truncated = 0;
    if (ompc_request_send(&batch, api) != 0)
        return -1;
    /* MEM_TOO_SMALL still carries the innermost MAX_LEVELS levels. */
    int ec = ompc_request_ec(&batch, entry);
    if (ec != OMP_ERRCODE_OK && ec != OMP_ERRCODE_MEM_TOO_SMALL)
        return -1;
    const unsigned char *mem = ompc_request_mem(&batch, entry);
    ompcollector_task_frames_t head;
    memcpy(&head, mem, sizeof head);
    if (head.count < 0 || head.count > MAX_LEVELS)
        return -1;
    *truncated = head.count < head.levels;
    memcpy(levels, mem + sizeof head, (size_t)head.count * sizeof *levels);
    return head.count;
}

/* Mixes one word into a hash. */
static uint64_t mix(uint64_t hash, uint64_t value)
{
    hash ^= value + UINT64_C(0x9E3779B97F4A7C15) + (hash << 6) + (hash >> 2);
    return hash * UINT64_C(0xBF58476D1CE4E5B9);
}

/*
 * Adds `weight` to the entry for (state, walk) in the table at `offset`,
 * appending it on first sight.  Returns the entry's mapping offset, or 0
 * when the table is full.  Only the owning thread calls this for a table.
 */
static uint64_t count_stack(struct ompc_record_header *record, uint64_t offset, int state, const struct walk *walk,
                            int frames, uint64_t weight)
{
    if (offset == 0)
        return 0;
    struct ompc_stack_table *table = (struct ompc_stack_table *)((char *)record + offset);
    _Atomic uint32_t *index = (_Atomic uint32_t *)(table + 1);
    uint64_t *pool = (uint64_t *)(index + table->index_slots);
    uint64_t pool_offset = offset + sizeof *table + (uint64_t)table->index_slots * sizeof(uint32_t);
    uint64_t elided = walk->total > (uint64_t)frames ? walk->total - (uint64_t)frames : 0;
    uint64_t hash = mix(mix(mix((uint64_t)state, (uint64_t)walk->flags), walk->continuation), elided);
    for (int i = 0; i < frames; i++)
        hash = mix(hash, walk->frames[i]);
    uint32_t hash32 = (uint32_t)(hash >> 32);
    uint64_t key = (uint64_t)(state & 0xff) | (uint64_t)frames << 8 | (uint64_t)(walk->flags & 0xffff) << 16
                   | (uint64_t)hash32 << 32;
    uint64_t words = OMPC_STACK_ENTRY_WORDS + (uint64_t)frames;
    for (uint32_t probe = 0; probe < 64; probe++) {
        _Atomic uint32_t *cell = &index[(hash32 + probe) & (table->index_slots - 1)];
        uint32_t used = atomic_load_explicit(cell, memory_order_relaxed);
        if (used == 0) {
            uint64_t at = atomic_load_explicit(&table->pool_used, memory_order_relaxed);
            if (at + words > table->pool_words || at + 1 > UINT32_MAX)
                break;
            uint64_t *entry = pool + at;
            entry[0] = weight;
            entry[1] = key;
            entry[2] = walk->continuation;
            entry[3] = elided;
            memcpy(&entry[4], walk->frames, (size_t)frames * sizeof(uint64_t));
            atomic_store_explicit(&table->pool_used, at + words, memory_order_release);
            atomic_store_explicit(cell, (uint32_t)(at + 1), memory_order_release);
            atomic_fetch_add_explicit(&table->entries, 1, memory_order_relaxed);
            return pool_offset + at * sizeof(uint64_t);
        }
        uint64_t *entry = pool + (used - 1);
        if (entry[1] == key && entry[2] == walk->continuation && entry[3] == elided
            && memcmp(&entry[4], walk->frames, (size_t)frames * sizeof(uint64_t)) == 0) {
            atomic_fetch_add_explicit((_Atomic uint64_t *)&entry[0], weight, memory_order_relaxed);
            return pool_offset + (uint64_t)(used - 1) * sizeof(uint64_t);
        }
    }
    atomic_fetch_add_explicit(&table->full, 1, memory_order_relaxed);
    return 0;
}

/* The interrupted code's address, frame pointer and stack pointer from the handler's context. Async-signal-safe: yes. */
static void interrupted_registers(const void *context, uint64_t *pc, uint64_t *fp, uint64_t *sp)
{
    const ucontext_t *uc = context;
#if defined(__x86_64__)
    *pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    *fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
    *sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    *pc = (uint64_t)uc->uc_mcontext.pc;
    *fp = (uint64_t)uc->uc_mcontext.regs[29];
    *sp = (uint64_t)uc->uc_mcontext.sp;
#else
    (void)uc;
    *pc = *fp = *sp = 0;
#endif
}

uint64_t ompc_stackwalk_pc(const void *context)
{
    uint64_t pc = 0, fp, sp;
    if (context != NULL)
        interrupted_registers(context, &pc, &fp, &sp);
    return pc;
}

/*
 * A thread asleep in a hooked sleep: its samples, held for the sleep,
 * arrive in the hook's unblock, inside the C library's mask call and the
 * agent's frames, which keep no frame pointers, so a frame-pointer walk
 * from there ended at once.  It starts at the program's call of the sleep
 * instead, with the frame pointer its caller had.  DWARF unwinding takes
 * the interrupted context as it is: CFI covers those frames.
 * Async-signal-safe: yes, thread-local reads.
 */
static void sleep_start(const struct ompc_record_header *record, uint64_t *pc, uint64_t *fp, int *flags)
{
    uint64_t site = ompc_sleep_site();
    if (site == 0 || (record->flags & OMPC_OPT_STACKS_DWARF))
        return;
    *pc = site;
    *fp = ompc_sleep_caller_fp();
    *flags &= ~OMPC_STACK_AT_UNBLOCK;
}

uint64_t ompc_stackwalk_sample(ompc_api_t api, struct ompc_record_header *record, struct ompc_process *owner,
                               struct ompc_thread *slot, int state, uint64_t weight, uint64_t region_id,
                               uint64_t wait_codeptr, void *context, int flags)
{
    uint64_t offset = atomic_load_explicit(&slot->stacks, memory_order_relaxed);
    if (offset == 0 || context == NULL || state < 0 || state >= OMPC_NSTATES) {
        atomic_fetch_add_explicit(&slot->stack_dropped[state >= 0 && state < OMPC_NSTATES ? state : 0], weight,
                                  memory_order_relaxed);
        return 0;
    }
    uint64_t pc, fp, sp;
    interrupted_registers(context, &pc, &fp, &sp);
    struct walk walk;
    walk.total = 0;
    walk.flags = flags & OMPC_STACK_AT_UNBLOCK;
    sleep_start(record, &pc, &fp, &walk.flags);
    walk.continuation = 0;
    walk.last = 0;
    walk.copy_high = 0;
    int copy = 0;
    uint64_t high = slot->stack_high;
    atomic_signal_fence(memory_order_seq_cst);
    walk.low = sp > slot->stack_low ? sp : slot->stack_low;
    walk.high = high;
    if (high == 0 || sp >= high || sp < slot->stack_low) {
        /* No bounds yet, or running on an alternate signal stack: only the interrupted address is safe to take. */
        walk.flags |= OMPC_STACK_NO_BOUNDS | OMPC_STACK_LEAF_EXACT;
        emit(&walk, pc);
    } else {
        ompcollector_task_frame_t levels[MAX_LEVELS];
        int truncated = 0;
        copy = 1;
        if (state == THR_IDLE_STATE) {
            /* A worker waiting for work: nothing of the user's is on its stack, and the runtime's frames need not have frame pointers. */
            walk.flags |= OMPC_STACK_LEAF_EXACT;
            copy = 0;
        } else if (state == THR_OVHD_STATE && region_id != 0
                   && (walk.continuation = fork_entry(owner, region_id)) != 0) {
            /*
             * The runtime is setting a team up or tearing it down: the
             * thread's user stack here is where its region was forked, and
             * the fork stack says so without walking the runtime's frames.
             * Before the fork stack is stored (a sample inside the FORK
             * delivery itself), the task frames below still say it.
             */
            copy = 0;
        } else {
            int count = task_frames(api, levels, &truncated);
            if (count == 0 && state == THR_IBAR_STATE && !slot->initial && region_id != 0)
                /*
                 * A worker the runtime has taken out of its team, so in no
                 * task, while it still waits in the region's closing barrier
                 * (libomp frees a nested team before its master reports the
                 * region's end): nothing of the user's is on its stack, and it
                 * waits where the region was forked.
                 */
                continue_in_fork_stack(&walk, owner, region_id);
            else if (count == 0 && state == THR_OVHD_STATE && !slot->initial)
                /* A worker in no task at all is starting or ending in the runtime: nothing of the user's is on its stack. */
                walk.flags |= OMPC_STACK_LEAF_EXACT;
            else
            {
                walk_levels(&walk, owner, levels, count > 0 ? count : 0, truncated, 1, pc, fp, wait_codeptr);
                if (record->flags & OMPC_OPT_STACKS_DWARF)
                    crossing_continuation(&walk, owner, levels, count);
            }
        }
    }
    int frames = finish(&walk);
    uint64_t entry = count_stack(record, offset, state, &walk, frames, weight);
    if (entry == 0)
        atomic_fetch_add_explicit(&slot->stack_dropped[state], weight, memory_order_relaxed);
    else if (copy && (record->flags & OMPC_OPT_STACKS_DWARF))
        /* The user's frames are on this stack from the interrupted point on: the launcher unwinds them by CFI. */
        ompc_stackcopy_take(record, offset, entry, state, weight, context, slot->stack_low,
                            walk.copy_high != 0 ? walk.copy_high : high);
    return entry;
}

/*
 * --stacks-unwind=dwarf at FORK, outside any signal handler: the frames on
 * this thread's stack come from the C library's CFI unwinder (backtrace)
 * instead of the frame-pointer chain, which optimized code does not keep;
 * the levels' walk still says where the stack continues (another thread's
 * fork stack).  The launcher drops the runtime's and the collector's frames
 * and what lies outside main, as it does for every stack.
 */
static void unwind_here(struct walk *walk)
{
    void *addresses[MAX_UNWIND];
    int count = backtrace(addresses, MAX_UNWIND);
    walk->total = 0;
    walk->flags &= OMPC_STACK_NO_CALLER | (walk->continuation == 0 ? OMPC_STACK_BROKEN : 0);
    if (count >= MAX_UNWIND)
        walk->flags |= OMPC_STACK_BROKEN;
    for (int i = 0; i < count; i++)
        emit(walk, (uint64_t)(uintptr_t)addresses[i]);
}

void ompc_stackwalk_fork(ompc_api_t api, struct ompc_record_header *record, struct ompc_process *owner,
                         struct ompc_thread *slot, uint64_t region_id)
{
    uint64_t offset = atomic_load_explicit(&slot->fork_stacks, memory_order_relaxed);
    if (offset == 0 || region_id == 0)
        return;
    ompc_stackwalk_bounds(slot);
    if (slot->stack_high == 0)
        return;
    struct walk walk;
    walk.total = 0;
    walk.flags = 0;
    walk.continuation = 0;
    walk.last = 0;
    walk.low = (uint64_t)(uintptr_t)__builtin_frame_address(0);
    walk.high = slot->stack_high;
    if (walk.low < slot->stack_low || walk.low >= walk.high)
        return;
    ompcollector_task_frame_t levels[MAX_LEVELS];
    int truncated = 0;
    int count = task_frames(api, levels, &truncated);
    if (count <= 0)
        return;
    walk_levels(&walk, owner, levels, count, truncated, 0, 0, 0, 0);
    if (record->flags & OMPC_OPT_STACKS_DWARF)
        unwind_here(&walk);
    int frames = finish(&walk);
    uint64_t entry = count_stack(record, offset, 0, &walk, frames, 1);
    if (entry == 0)
        return;
    struct ompc_fork_slot *cache = &owner->fork_cache[region_id % OMPC_FORK_CACHE];
    atomic_store_explicit(&cache->region_id, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&cache->entry, entry, memory_order_relaxed);
    atomic_store_explicit(&cache->region_id, region_id, memory_order_release);
}
