/* stackwalk-t.c - the agent's --stacks walk (tools/agent/stackwalk.c) on the task-frame chains libomp answers while a region ends, through a fake collector API: a worker's stack goes on in its region's fork stack; a leaf without frame pointer keeps its frame; a sleep's samples start at the program's call of the sleep. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A sample reads the thread's state and region first and its task frames
 * after; meanwhile the master can leave the region.  These chains are what
 * libomp then answers a worker that still waits in the region's closing
 * barrier (IBAR), taken from samples of real runs: its master's initial
 * task with no frame at all, or, once a nested team is freed, no task at
 * all.  Such a stack must go on in the region's fork stack, like a
 * worker's whose master is still in the fork, and never end in the middle
 * of nowhere.
 */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "lib/tap.h"
#include "omp_collector_api.h"
#include "record.h"
#include "stackwalk.h"

/* OMPT task flags (ompt_task_flag_t) as libomp reports them. */
#define TASK_INITIAL 0x1
#define TASK_IMPLICIT 0x2

/* The region the test forks, another whose fork stack nobody kept, and one forked by an unseen master. */
#define REGION 9
#define UNKEPT 10
#define FOREIGN 11

static struct ompc_record_header *record;
static struct ompc_process *owner;

/* The calling thread's chain as the fake TASK_FRAMES answers it, innermost first. */
static __thread const ompcollector_task_frame_t *chain;
static __thread int chain_count;

/* The collector API as the agent calls it: one entry, TASK_FRAMES answered from `chain`. */
static int fake_api(void *entry)
{
    int32_t *words = entry;
    if (words[1] != OMPCOLLECTOR_REQ_TASK_FRAMES) {
        words[2] = OMP_ERRCODE_UNKNOWN;
        return 0;
    }
    ompcollector_task_frames_t head = {chain_count, chain_count};
    size_t bytes = sizeof head + (size_t)chain_count * sizeof *chain;
    if ((size_t)words[0] < 16 + bytes) {
        words[2] = OMP_ERRCODE_MEM_TOO_SMALL;
        return 0;
    }
    memcpy(&words[4], &head, sizeof head);
    if (chain_count > 0)
        memcpy((char *)&words[4] + sizeof head, chain, (size_t)chain_count * sizeof *chain);
    words[2] = OMP_ERRCODE_OK;
    words[3] = (int32_t)bytes;
    return 0;
}

/* A mapped record with --stacks tables, process slot 0 as the program's. */
static int make_record(void)
{
    struct ompc_record_header header;
    ompc_record_layout(&header, OMPC_OPT_SAMPLE | OMPC_OPT_STACKS);
    uint64_t size = ompc_record_reserve_stacks(&header);
    void *mapping = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping == MAP_FAILED)
        return 0;
    record = mapping;
    memcpy(record, &header, sizeof header);
    owner = ompc_record_process(record, 0);
    return 1;
}

/* The sleep hooks' record of the thread's sleep (agent_sleep.c), as the test sets it. */
static __thread uint64_t sleep_site, sleep_fp;

uint64_t ompc_sleep_site(void)
{
    return sleep_site;
}

uint64_t ompc_sleep_caller_fp(void)
{
    return sleep_fp;
}

/* The runtime's entry point as the master calls it: its frame is the initial task's enter frame at FORK. */
__attribute__((noinline)) static void fake_gomp_parallel(uint64_t region_id)
{
    ompcollector_task_frame_t initial = {0};
    initial.enter_frame = (uint64_t)(uintptr_t)__builtin_frame_address(0);
    initial.task_flags = TASK_INITIAL;
    chain = &initial;
    chain_count = 1;
    ompc_stackwalk_fork(fake_api, record, owner, &owner->threads[0], region_id);
    chain_count = 0;
    __asm__ volatile("" ::: "memory"); /* no tail call: the frame must stay */
}

/* The user's function that forks the region: its return address is what the fork stack must hold. */
__attribute__((noinline)) static void forking_function(void)
{
    fake_gomp_parallel(REGION);
    __asm__ volatile("" ::: "memory");
}

/* One entry of a thread's stack table, as the walk stored it. */
struct entry {
    int found, state, flags, frames;
    uint64_t continuation;
    uint64_t pcs[OMPC_STACK_DEPTH];
};

/* The first entry of the stack table at mapping offset `offset`. */
static struct entry first_entry(uint64_t offset)
{
    struct entry out = {0};
    if (offset == 0)
        return out;
    struct ompc_stack_table *table = (void *)((char *)record + offset);
    const uint64_t *pool = (const uint64_t *)((const uint32_t *)(table + 1) + table->index_slots);
    if (atomic_load(&table->pool_used) == 0)
        return out;
    out.found = 1;
    out.state = (int)(pool[1] & 0xff);
    out.frames = (int)((pool[1] >> 8) & 0xff);
    out.flags = (int)((pool[1] >> 16) & 0xffff);
    out.continuation = pool[2];
    memcpy(out.pcs, &pool[OMPC_STACK_ENTRY_WORDS], (size_t)out.frames * sizeof(uint64_t));
    return out;
}

/* The fork-stack entry the fork cache keeps for `region_id`, 0 none. */
static uint64_t fork_cache_entry(uint64_t region_id)
{
    struct ompc_fork_slot *slot = &owner->fork_cache[region_id % OMPC_FORK_CACHE];
    return atomic_load(&slot->region_id) == region_id ? atomic_load(&slot->entry) : 0;
}

/* What a worker thread samples: its chain, state and region, and where its entry lands. */
struct worker {
    const ompcollector_task_frame_t *chain;
    int count;
    int state;
    uint64_t region_id;
    int index; /* its thread slot */
};

/* A worker's sample in its own thread: the interrupted context is the getcontext below. */
static void *sample_on_worker(void *argument)
{
    struct worker *worker = argument;
    struct ompc_thread *slot = &owner->threads[worker->index];
    ompc_stackwalk_claim(record, slot, 1);
    chain = worker->chain;
    chain_count = worker->count;
    ucontext_t context;
    if (getcontext(&context) == 0)
        ompc_stackwalk_sample(fake_api, record, owner, slot, worker->state, 1, worker->region_id, 0, &context, 0);
    return NULL;
}

/* Runs one worker's sample on a thread of its own (its own stack) and returns the entry it stored. */
static struct entry worker_sample(const ompcollector_task_frame_t *levels, int count, int state,
                                  uint64_t region_id)
{
    static int next_index = 1;
    struct worker worker = {levels, count, state, region_id, next_index++};
    pthread_t thread;
    if (pthread_create(&thread, NULL, sample_on_worker, &worker) != 0)
        tap_bail("pthread_create failed");
    pthread_join(thread, NULL);
    return first_entry(atomic_load(&owner->threads[worker.index].stacks));
}

/*
 * Sets a context's frame pointer to `value`, one that is not the frame's:
 * code built without frame pointers leaves anything in the register --
 * data, or the runtime's frame pointer when it called the code.
 */
static void set_frame_pointer(ucontext_t *context, uint64_t value)
{
#if defined(__x86_64__)
    context->uc_mcontext.gregs[REG_RBP] = (greg_t)value;
#elif defined(__aarch64__)
    context->uc_mcontext.regs[29] = value;
#else
    (void)context;
    (void)value;
#endif
}

/* The interrupted address a context holds. */
static uint64_t context_pc(const ucontext_t *context)
{
#if defined(__x86_64__)
    return (uint64_t)context->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uint64_t)context->uc_mcontext.pc;
#else
    (void)context;
    return 0;
#endif
}

/*
 * A sample in `state` of the calling thread in slot `index`, the runtime
 * answering `levels`, the context's frame pointer set to `fp`; the
 * context's address in *pc.
 */
static struct entry sample_here(int index, int state, const ompcollector_task_frame_t *levels, int count, uint64_t fp,
                                uint64_t *pc)
{
    struct ompc_thread *slot = &owner->threads[index];
    ompc_stackwalk_claim(record, slot, 1);
    chain = levels;
    chain_count = count;
    ucontext_t context;
    if (getcontext(&context) != 0)
        tap_bail("getcontext failed");
    set_frame_pointer(&context, fp);
    *pc = context_pc(&context);
    ompc_stackwalk_sample(fake_api, record, owner, slot, state, 1, 0, 0, &context, 0);
    chain_count = 0;
    return first_entry(atomic_load(&slot->stacks));
}

/* A serial sample of the calling thread in slot `index`, its frame pointer data. */
static struct entry serial_sample(int index, uint64_t *pc)
{
    return sample_here(index, THR_SERIAL_STATE, NULL, 0, 0x10, pc);
}

/* What a sample on another thread found: its entry, its interrupted address, and where the sleep was called. */
struct serial_result {
    struct entry entry;
    uint64_t pc, site;
};

static void *leaf_thread(void *argument)
{
    struct serial_result *result = argument;
    result->entry = serial_sample(3, &result->pc);
    return NULL;
}

/* The hooked sleep as interpose.c's wrapper records it: the call's site and its caller's frame pointer. */
__attribute__((noinline)) static void fake_sleep(struct serial_result *result)
{
    sleep_site = (uint64_t)(uintptr_t)__builtin_return_address(0) - 1;
    sleep_fp = *(const uint64_t *)__builtin_frame_address(0);
    result->site = sleep_site;
    result->entry = serial_sample(4, &result->pc);
    sleep_site = sleep_fp = 0;
    __asm__ volatile("" ::: "memory");
}

/* The program's function that sleeps: the walk must go on from it to its caller. */
__attribute__((noinline)) static void sleeping_function(struct serial_result *result)
{
    fake_sleep(result);
    __asm__ volatile("" ::: "memory");
}

/* The sleeping function's caller, whose return address the walk must reach. */
__attribute__((noinline)) static void *sleep_thread(void *argument)
{
    sleeping_function(argument);
    __asm__ volatile("" ::: "memory");
    return NULL;
}

/* An explicit task's code without frame pointers: the register still holds the runtime's, the task's exit frame. */
__attribute__((noinline)) static void *task_code_thread(void *argument)
{
    struct serial_result *result = argument;
    ompcollector_task_frame_t level = {0};
    level.exit_frame = (uint64_t)(uintptr_t)__builtin_frame_address(0);
    level.exit_frame_flags = 0x20;
    level.task_flags = 0x4;
    result->entry = sample_here(5, THR_WORK_STATE, &level, 1, level.exit_frame, &result->pc);
    __asm__ volatile("" ::: "memory");
    return NULL;
}

/* A task in the runtime (a taskwait) called by code without frame pointers: its enter frame saved 0 for the caller's. */
__attribute__((noinline)) static void *runtime_call_thread(void *argument)
{
    struct serial_result *result = argument;
    volatile uint64_t enter_record[2] = {0, (uint64_t)(uintptr_t)runtime_call_thread + 4};
    ompcollector_task_frame_t level = {0};
    level.enter_frame = (uint64_t)(uintptr_t)enter_record;
    level.enter_frame_flags = 0x20;
    level.task_flags = 0x4;
    result->site = enter_record[1];
    uint64_t unused;
    result->entry = sample_here(6, THR_EBAR_STATE, &level, 1, 0x10, &unused);
    __asm__ volatile("" ::: "memory");
    return NULL;
}

/* Runs `body` on a thread of its own and returns what it sampled. */
static struct serial_result on_thread(void *(*body)(void *))
{
    struct serial_result result = {0};
    pthread_t thread;
    if (pthread_create(&thread, NULL, body, &result) != 0)
        tap_bail("pthread_create failed");
    pthread_join(thread, NULL);
    return result;
}

/* Whether `pcs` holds an address in the first 256 bytes after `function`'s start (a call made from it). */
static int calls_from(const struct entry *entry, void *(*function)(void *))
{
    uint64_t start = (uint64_t)(uintptr_t)function;
    for (int i = 0; i < entry->frames; i++)
        if (entry->pcs[i] > start && entry->pcs[i] < start + 256)
            return 1;
    return 0;
}

/* Whether the worker's entry goes on, unmarked, in the fork stack kept for `region_id`. */
static int continues_in(const struct entry *entry, uint64_t region_id)
{
    if (!entry->found || entry->state != THR_IBAR_STATE) {
        tap_diag("no IBAR entry (found %d, state %d)", entry->found, entry->state);
        return 0;
    }
    uint64_t fork = fork_cache_entry(region_id);
    if ((entry->flags & (OMPC_STACK_BROKEN | OMPC_STACK_NO_CALLER)) || entry->continuation == 0
        || entry->continuation != fork) {
        tap_diag("flags %#x, %d frames, continuation %#llx (the fork stack: %#llx)", (unsigned)entry->flags,
                 entry->frames, (unsigned long long)entry->continuation, (unsigned long long)fork);
        return 0;
    }
    return 1;
}

/* A worker's implicit task in `region_id` that runs none of its own code (no frame): level 0 of every chain below. */
static ompcollector_task_frame_t implicit_task(uint64_t region_id)
{
    ompcollector_task_frame_t level = {0};
    level.exit_frame_flags = level.enter_frame_flags = 0x20;
    level.task_flags = TASK_IMPLICIT | 0x08000000;
    level.thread_num = 1;
    level.region_id = region_id;
    return level;
}

int main(void)
{
    if (!ompc_stacks_supported())
        tap_skip_all("no frame-pointer stack walk on this machine");
    tap_plan(11);
    if (!make_record())
        tap_bail("cannot map a record");
    ompc_stackwalk_claim(record, &owner->threads[0], 1);
    owner->threads[0].initial = 1;

    forking_function();
    uint64_t fork = fork_cache_entry(REGION);
    struct entry forked = first_entry(atomic_load(&owner->threads[0].fork_stacks));
    uint64_t site = (uint64_t)(uintptr_t)forking_function;
    int has_site = 0;
    for (int i = 0; i < forked.frames; i++)
        has_site |= forked.pcs[i] > site && forked.pcs[i] < site + 256;
    tap_ok(fork != 0 && has_site, "FORK keeps the region's fork stack, through the forking function");

    /* The master still in the fork: its initial task's enter frame lies on its own stack, not the worker's. */
    ompcollector_task_frame_t in_fork[2] = {implicit_task(REGION), {0}};
    in_fork[1].enter_frame = (uint64_t)(uintptr_t)__builtin_frame_address(0);
    in_fork[1].task_flags = TASK_INITIAL;
    struct entry entry = worker_sample(in_fork, 2, THR_IBAR_STATE, REGION);
    tap_ok(continues_in(&entry, REGION), "a worker whose master is in the fork goes on in the region's fork stack");

    /* The master has left the region: its initial task has no frame at all. */
    ompcollector_task_frame_t left[2] = {implicit_task(REGION), {0}};
    left[1].task_flags = TASK_INITIAL;
    entry = worker_sample(left, 2, THR_IBAR_STATE, REGION);
    tap_ok(continues_in(&entry, REGION),
           "a worker still in the closing barrier when its master has left the region goes on in its fork stack");
    tap_is_int(entry.frames, 0, "... with none of its own frames (the runtime's wait)");

    /* A nested team freed before its end is reported: the worker is in no task at all. */
    entry = worker_sample(NULL, 0, THR_IBAR_STATE, REGION);
    tap_ok(continues_in(&entry, REGION),
           "a worker taken out of its freed team while in the closing barrier goes on in the region's fork stack");

    /* The same, for a region whose fork stack was not kept: honestly marked, not "incomplete". */
    ompcollector_task_frame_t unkept[2] = {implicit_task(UNKEPT), {0}};
    unkept[1].task_flags = TASK_INITIAL;
    entry = worker_sample(unkept, 2, THR_IBAR_STATE, UNKEPT);
    tap_ok(entry.found && entry.flags == OMPC_STACK_NO_CALLER && entry.continuation == 0,
           "without the region's fork stack the stack is marked as missing its caller (flags %#x)",
           (unsigned)entry.flags);

    /* A frameless last level that is not the initial task says nothing of where it runs: still incomplete. */
    ompcollector_task_frame_t cut[2] = {implicit_task(FOREIGN), implicit_task(0)};
    entry = worker_sample(cut, 2, THR_IBAR_STATE, FOREIGN);
    tap_ok(entry.found && (entry.flags & OMPC_STACK_BROKEN) && entry.continuation == 0,
           "a chain ending in a frameless task other than the initial one is marked incomplete (flags %#x)",
           (unsigned)entry.flags);

    /* Serial code without frame pointers: the interrupted address is known whatever the register holds. */
    struct serial_result leaf = on_thread(leaf_thread);
    tap_ok(leaf.entry.found && leaf.entry.frames == 1 && leaf.entry.pcs[0] == leaf.pc
               && (leaf.entry.flags & OMPC_STACK_BROKEN),
           "a leaf whose frame pointer is not one keeps its frame, the stack marked incomplete (%d frames, flags %#x)",
           leaf.entry.frames, (unsigned)leaf.entry.flags);

    /* A sleep's sample arrives where the frame pointer is not one: the walk starts at the program's call instead. */
    struct serial_result slept = on_thread(sleep_thread);
    tap_ok(slept.entry.found && slept.entry.frames >= 2 && slept.entry.pcs[0] == slept.site
               && slept.entry.pcs[0] != slept.pc && calls_from(&slept.entry, sleep_thread),
           "a sample in a sleep starts at the sleep's call and goes on through its caller's frames (%d frames)",
           slept.entry.frames);

    /* Clang's tasks and health's taskwaits sampled as stacks with nothing in them, marked as whole. */
    struct serial_result task = on_thread(task_code_thread);
    tap_ok(task.entry.found && task.entry.frames == 1 && task.entry.pcs[0] == task.pc,
           "a task's code whose frame pointer is the runtime's (its exit frame) keeps its frame (%d frames, flags %#x)",
           task.entry.frames, (unsigned)task.entry.flags);
    struct serial_result call = on_thread(runtime_call_thread);
    tap_ok(call.entry.found && call.entry.frames == 1 && call.entry.pcs[0] == call.site
               && (call.entry.flags & OMPC_STACK_BROKEN),
           "a task in the runtime keeps its caller when the caller's saved frame pointer is 0, marked incomplete "
           "(%d frames, flags %#x)",
           call.entry.frames, (unsigned)call.entry.flags);
    return tap_done();
}
