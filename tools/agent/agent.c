/* agent.c - the ompcollect collector inside the observed program: attaches through __omp_collector_api alone and records every thread's sampled state, the regions and the events into the launcher's shared record; reports are the launcher's job. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "agent.h"
#include "agent_critical.h"
#include "agent_tasks.h"
#include "names.h"
#include "procstat.h"
#include "omp_collector_api.h"
#include "record.h"
#include "request.h"
#include "runtime_text.h"
#include "stackwalk.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* Exit status of the launched process when the collector cannot attach; the launcher reads why from the record. */
#define AGENT_REFUSE_STATUS 125

/*
 * The agent's state (agent_state.h): the one instance.  The entry points
 * this file owns (the constructor, the event callbacks, the signal
 * handler, fork's and exit's handlers, the scanner) reach it here, as
 * nothing calls them with a pointer of ours; every other module is handed
 * one.  The hooks below that interpose.c calls use the pointer they get,
 * named `state` so as not to shadow this.
 */
static struct ompc_agent agent = {
    .slots_mutex = PTHREAD_MUTEX_INITIALIZER,
    .begin_mutex = PTHREAD_MUTEX_INITIALIZER,
    .scanner_mutex = PTHREAD_MUTEX_INITIALIZER,
    .scan_lock = PTHREAD_MUTEX_INITIALIZER,
};

struct ompc_agent *ompc_agent_instance(void)
{
    return &agent;
}

/*
 * This thread's slot.  Initial-exec: the agent is always preloaded, so its
 * TLS is in the static block, and a load from %fs costs neither a
 * __tls_get_addr call per event nor, in the signal handler, a possible
 * allocation on first touch.
 */
static __thread struct ompc_thread *self __attribute__((tls_model("initial-exec")));

/* The kernel id of the calling thread, which SIGEV_THREAD_ID timers target. */
static pid_t current_tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* Copies `text` into a record field, cut to fit. */
static void set_text(char *field, const char *text)
{
    snprintf(field, OMPC_TEXT_SIZE, "%s", text != NULL ? text : "");
}

/* ---- the record ---- */

/* Maps the record behind `fd` if it is the one the environment names; NULL otherwise. */
static struct ompc_record_header *map_fd(int fd, uint64_t run_id)
{
    struct stat info;
    struct ompc_record_header copy;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || (uint64_t)info.st_size < sizeof copy)
        return NULL;
    if (pread(fd, &copy, sizeof copy, 0) != (ssize_t)sizeof copy
        || ompc_record_check(&copy, (uint64_t)info.st_size) != NULL || copy.version != OMPC_RECORD_VERSION
        || copy.run_id != run_id)
        return NULL;
    void *mapped = mmap(NULL, (size_t)info.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return mapped != MAP_FAILED ? mapped : NULL;
}

/*
 * The launcher's record: the descriptor the environment names, or, when the
 * program closed or reused it, the launcher's own descriptor reopened
 * through /proc.  Anything that is not the expected record is ignored.
 */
static struct ompc_record_header *map_record(void)
{
    const char *text = getenv(OMPC_RECORD_ENV);
    int fd;
    long launcher;
    unsigned long long run_id;
    if (text == NULL || sscanf(text, "%d,%ld,%llx", &fd, &launcher, &run_id) != 3 || fd < 0)
        return NULL;
    struct ompc_record_header *mapped = map_fd(fd, run_id);
    if (mapped == NULL && launcher > 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/fd/%d", launcher, fd);
        int again = open(path, O_RDWR | O_CLOEXEC);
        if (again >= 0) {
            mapped = map_fd(again, run_id);
            close(again);
        }
    }
    return mapped;
}

/* Field 22 of /proc/self/stat: with the pid, it names this process among any that reuse the pid. */
static uint64_t start_ticks(void)
{
    struct ompc_proc_stat stat;
    return ompc_proc_stat(0, &stat) == 0 ? stat.start_ticks : 0;
}

/* dl_iterate_phdr visitor: the first loaded object named like an OpenMP runtime. */
static int runtime_object(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    if (!ompc_runtime_name(info->dlpi_name))
        return 0;
    set_text(found, info->dlpi_name);
    return 1;
}

/* Whether an OpenMP runtime is loaded; its path (as the loader opened it) goes to `path`. */
static int find_runtime(char *path)
{
    path[0] = '\0';
    return dl_iterate_phdr(runtime_object, path) != 0;
}

/* Records the runtime in the process slot once it shows up. */
static void note_runtime(struct ompc_process *slot)
{
    if (slot == NULL || atomic_load(&slot->openmp))
        return;
    char path[OMPC_TEXT_SIZE];
    if (find_runtime(path)) {
        ompc_runtime_text_note();
        set_text(slot->runtime, path);
        atomic_store(&slot->openmp, 1);
    }
}

/* dl_iterate_phdr visitor: whether the loader's add/remove counters moved since `opaque` ({adds, subs}). */
static int modules_changed(struct dl_phdr_info *info, size_t size, void *opaque)
{
    const unsigned long long *counts = opaque;
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        return 1;
    return info->dlpi_adds != counts[0] || info->dlpi_subs != counts[1] ? 1 : 2;
}

/* dl_iterate_phdr visitor: appends every object not yet in the slot's module map. */
static int add_module(struct dl_phdr_info *info, size_t size, void *opaque)
{
    struct ompc_process *slot = opaque;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        agent.modules_adds = info->dlpi_adds;
        agent.modules_subs = info->dlpi_subs;
    }
    char path[OMPC_MODULE_PATH];
    const char *name = info->dlpi_name;
    if (name == NULL || name[0] == '\0') {
        /* The main program has no name here; the vdso and such have no file at all. */
        if (info->dlpi_phnum == 0 || slot->module_count > 0)
            return 0;
        ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
        if (length <= 0 || (size_t)length >= sizeof path - 1)
            return 0;
        path[length] = '\0';
    } else if (strlen(name) >= sizeof path) {
        atomic_fetch_add(&slot->modules_dropped, 1);
        return 0;
    } else {
        strcpy(path, name);
    }
    uint32_t count = atomic_load(&slot->module_count);
    for (uint32_t i = 0; i < count; i++)
        if (slot->modules[i].bias == (uint64_t)info->dlpi_addr && strcmp(slot->modules[i].path, path) == 0)
            return 0;
    if (count >= OMPC_MAX_MODULES) {
        atomic_fetch_add(&slot->modules_dropped, 1);
        return 0;
    }
    slot->modules[count].bias = (uint64_t)info->dlpi_addr;
    memcpy(slot->modules[count].path, path, sizeof path);
    atomic_store(&slot->module_count, count + 1);
    return 0;
}

/* Brings the module map up to date when objects came or went since the last look (the scanner, and once at attach). */
static void refresh_modules(struct ompc_process *slot, int always)
{
    if (!always) {
        /* dlpi_adds/dlpi_subs are the same in every entry: one visit tells whether anything changed. */
        unsigned long long counts[2] = {agent.modules_adds, agent.modules_subs};
        if (dl_iterate_phdr(modules_changed, counts) == 2)
            return;
    }
    dl_iterate_phdr(add_module, slot);
}

/*
 * A free process slot, filled in with who this process is.  `parent` is the
 * slot of the process this one forked from, or -1.
 */
static struct ompc_process *claim_process(int parent)
{
    for (uint32_t i = 0; i < agent.record->process_count; i++) {
        struct ompc_process *slot = ompc_record_process(agent.record, i);
        uint32_t expected = OMPC_PROC_FREE;
        if (!atomic_compare_exchange_strong(&slot->state, &expected, OMPC_PROC_CLAIMED))
            continue;
        slot->index = i;
        slot->pid = getpid();
        slot->ppid = getppid();
        slot->parent_slot = parent;
        slot->exec_slot = -1;
        for (uint32_t k = 0; k < i; k++) {
            const struct ompc_process *other = ompc_record_process(agent.record, k);
            if (other->pid == slot->pid && atomic_load(&other->state) == OMPC_PROC_EXECED)
                slot->exec_slot = (int32_t)k;
        }
        slot->start_ticks = start_ticks();
        slot->origin_ns = agent.origin_ns;
        atomic_store(&slot->session_ns,
                     agent.session_began > agent.origin_ns ? agent.session_began - agent.origin_ns : 0);
        set_text(slot->program, program_invocation_name);
        memcpy(slot->requests, agent.requests, sizeof agent.requests);
        slot->request_count = agent.request_count;
        memcpy(slot->task_requests, agent.task_requests, sizeof agent.task_requests);
        slot->task_request_count = agent.task_request_count;
        slot->task_tier = agent.task_tier;
        slot->event_mask = agent.record->event_mask;
        atomic_store(&slot->alive_ns, now_ns(&agent));
        note_runtime(slot);
        atomic_store(&slot->state, OMPC_PROC_RECORDING);
        return slot;
    }
    /* Once per process: every later event would try again, and a count of attempts is no count of processes. */
    if (!agent.dropped)
        atomic_fetch_add(&agent.record->processes_dropped, 1);
    agent.dropped = 1;
    return NULL;
}

/* ---- sampling ---- */

/* `ns` as a struct timespec. */
static struct timespec timespec_of(uint64_t ns)
{
    struct timespec value = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    return value;
}

/*
 * Arms a wall-clock timer that signals thread `slot` (and only it) every
 * interval.  An interval that is a whole number of ticks is put on the
 * tick's grid (first expiry at the next multiple of the interval), so its
 * expirations ride on the interrupts the tick takes anyway; the period is
 * the interval either way, only its phase changes.  The period is armed at
 * an absolute start that the sampler knows (timer_armed_ns): the
 * expirations by any time are then exactly those the period implies, which
 * is how the handler counts them (sampler.c, expirations).
 */
static void arm_timer(struct ompc_thread *slot, int index)
{
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = agent.sample_signal;
    event.sigev_value.sival_int = index;
    event.sigev_notify_thread_id = slot->tid;
    if (timer_create(CLOCK_MONOTONIC, &event, &agent.timers[index]) != 0)
        return;
    uint64_t interval = (uint64_t)agent.record->interval_ns;
    uint64_t start = monotonic_ns(), period_start = start;
    if (agent.tick_ns != 0 && interval % agent.tick_ns == 0)
        period_start = start / interval * interval;
    struct itimerspec period;
    period.it_interval = timespec_of(interval);
    period.it_value = timespec_of(period_start + interval);
    /* glibc hands out the kernel's timer id for SIGEV_THREAD_ID timers; the signal carries it back. */
    agent.timer_ids[index] = (int)(intptr_t)agent.timers[index];
    atomic_store(&agent.timer_armed_ns[index], period_start);
    atomic_store(&agent.timer_counted[index], 0);
    atomic_store(&agent.has_timer[index], TIMER_LIVE);
    if (timer_settime(agent.timers[index], TIMER_ABSTIME, &period, NULL) != 0) {
        atomic_store(&agent.has_timer[index], TIMER_NONE);
        timer_delete(agent.timers[index]);
        return;
    }
    /* The report's coverage: the thread's life before this was not sampled (never 0: that means never armed). */
    if (atomic_load(&slot->armed_ns) == 0)
        atomic_store(&slot->armed_ns, (start - agent.origin_ns) | 1);
}

/* Deletes thread `index`'s timer; caller holds slots_mutex. */
static void disarm_timer(int index)
{
    unsigned char live = TIMER_LIVE;
    if (atomic_compare_exchange_strong(&agent.has_timer[index], &live, TIMER_DELETED))
        timer_delete(agent.timers[index]);
}

/* Stops every timer of the process, e.g. because the handler is no longer ours; caller holds no lock. */
static void stop_sampling(int why)
{
    struct ompc_process *slot = atomic_load(&agent.process);
    atomic_store(&agent.sampling_on, 0);
    pthread_mutex_lock(&agent.slots_mutex);
    for (int i = 0; i < OMPC_MAX_THREADS; i++)
        disarm_timer(i);
    pthread_mutex_unlock(&agent.slots_mutex);
    if (slot != NULL && atomic_load(&slot->sampling) == OMPC_SAMPLING_ON) {
        atomic_store(&slot->sampling_stopped_ns, now_ns(&agent));
        atomic_store(&slot->sampling, (uint32_t)why);
    }
}

/*
 * The live slot of thread `tid`, claimed (and its timer armed) if it has
 * none.  Slots are never reused, so report order is the order threads were
 * first seen.  NULL once OMPC_MAX_THREADS are taken.
 */
static struct ompc_thread *claim_thread(pid_t tid, int initial, int scanned)
{
    struct ompc_process *owner = atomic_load(&agent.process);
    if (owner == NULL)
        return NULL;
    pthread_mutex_lock(&agent.slots_mutex);
    int count = atomic_load_explicit(&owner->thread_count, memory_order_relaxed);
    for (int i = 0; i < count; i++) {
        /*
         * The scanner lists a thread until it is gone, also after its slot
         * closed as it exited: a tid that had a slot is that same thread,
         * not a new one (tids come round again only after the whole range).
         */
        if (owner->threads[i].tid == tid
            && (scanned || atomic_load(&owner->threads[i].status) == OMPC_SLOT_LIVE)) {
            pthread_mutex_unlock(&agent.slots_mutex);
            return &owner->threads[i];
        }
    }
    if (count == OMPC_MAX_THREADS || !atomic_load(&agent.collecting)) {
        if (count == OMPC_MAX_THREADS)
            atomic_fetch_add(&owner->threads_not_followed, 1);
        pthread_mutex_unlock(&agent.slots_mutex);
        return NULL;
    }
    struct ompc_thread *slot = &owner->threads[count];
    slot->tid = tid;
    slot->initial = initial;
    slot->start_ns = now_ns(&agent);
    slot->last_state = -1;
    /* Without arena room the thread's waits count as overflow and its construct counters are missing: both said in the report. */
    atomic_store(&slot->waits, ompc_record_alloc(agent.record, OMPC_WAIT_SLOTS * sizeof(struct ompc_wait)));
    atomic_store(&slot->construct_work, ompc_record_alloc(agent.record, OMPC_MAX_CONSTRUCTS * sizeof(uint64_t)));
    if (agent.record->flags & OMPC_OPT_TIMELINE) {
        uint64_t offset = ompc_record_alloc(agent.record, OMPC_TIMELINE_CAP * sizeof(uint64_t));
        if (offset != 0)
            atomic_store(&slot->timeline, offset);
        else
            atomic_store(&slot->timeline_truncated, 1);
        /* Each state change's code address, for the SVG's tooltips; without room the timeline only loses them. */
        if (offset != 0 && agent.has_sample)
            atomic_store(&slot->timeline_where, ompc_record_alloc(agent.record, OMPC_TIMELINE_CAP * sizeof(uint64_t)));
    }
    if (agent.record->flags & OMPC_OPT_STACKS)
        ompc_stackwalk_claim(agent.record, slot, tid == current_tid());
    /* Which task construct the sampled stacks ran in: without room the stacks only lose it. */
    if ((agent.record->flags & OMPC_OPT_STACKS) && (agent.record->flags & OMPC_OPT_TASKS)) {
        uint64_t offset = ompc_record_alloc(agent.record, OMPC_TASK_STACK_BYTES);
        if (offset != 0) {
            ((struct ompc_task_stack_table *)((char *)agent.record + offset))->slots = OMPC_TASK_STACK_SLOTS;
            atomic_store(&owner->task_stacks[count], offset);
        }
    }
    if (agent.record->event_log_bytes != 0) {
        /* No room: every event of the thread is counted as dropped from its first. */
        uint64_t offset = ompc_record_alloc(agent.record, agent.record->event_log_bytes);
        slot->event_log_capacity
            = offset != 0 ? (uint32_t)(agent.record->event_log_bytes / sizeof(struct ompc_event_entry)) : 0;
        atomic_store(&slot->event_log, offset);
    }
    atomic_store(&slot->status, OMPC_SLOT_LIVE);
    if (atomic_load(&agent.sampling_on))
        arm_timer(slot, count);
    atomic_store_explicit(&owner->thread_count, count + 1, memory_order_release);
    pthread_mutex_unlock(&agent.slots_mutex);
    return slot;
}

/* Stops sampling a thread; caller holds slots_mutex. */
static void release_locked(struct ompc_process *owner, struct ompc_thread *slot, uint64_t when)
{
    if (atomic_load(&slot->status) != OMPC_SLOT_LIVE)
        return;
    disarm_timer((int)(slot - owner->threads));
    if (atomic_load(&slot->blocked) == 1)
        atomic_fetch_add(&slot->blocked_ns, when - slot->blocked_since_ns);
    atomic_store(&slot->end_ns, when);
    atomic_store(&slot->status, OMPC_SLOT_EXITED);
}

/* A thread that registered itself is exiting: its lifetime ends here. */
static void on_thread_exit(void *slot)
{
    struct ompc_process *owner = atomic_load(&agent.process);
    if (owner == NULL || (struct ompc_thread *)slot < owner->threads
        || (struct ompc_thread *)slot >= owner->threads + OMPC_MAX_THREADS)
        return;
    pthread_mutex_lock(&agent.slots_mutex);
    release_locked(owner, slot, now_ns(&agent));
    pthread_mutex_unlock(&agent.slots_mutex);
}

/* current_thread's first call on a thread: claims its slot (system calls, errno kept as it was). */
static __attribute__((noinline)) struct ompc_thread *claim_current_thread(void)
{
    struct ompc_process *owner = atomic_load(&agent.process);
    if (owner == NULL)
        return NULL;
    int saved_errno = errno;
    pid_t tid = current_tid();
    struct ompc_thread *slot = claim_thread(tid, tid == getpid(), 0);
    if (slot == NULL) {
        self = &owner->untracked;
    } else {
        if (agent.slot_key_made)
            pthread_setspecific(agent.slot_key, slot);
        /* A slot the scanner claimed for this thread has no stack bounds yet: only the thread can read them. */
        if (agent.record->flags & OMPC_OPT_STACKS)
            ompc_stackwalk_bounds(slot);
        self = slot;
    }
    errno = saved_errno;
    return self;
}

/* The calling thread's slot, claimed on first use; threads past the limit share `untracked`; NULL when not recording. */
static inline struct ompc_thread *current_thread(void)
{
    return self != NULL ? self : claim_current_thread();
}

struct ompc_thread *ompc_current_thread(void)
{
    return current_thread();
}

int ompc_thread_sampling_signal(struct ompc_agent *state)
{
    struct ompc_process *owner = atomic_load(&state->process);
    if (owner == NULL || state->sample_signal == 0 || !atomic_load(&state->sampling_on))
        return 0;
    /* The thread's own slot only, never claimed here: a program's signal handler may sleep. */
    struct ompc_thread *slot = self;
    if (slot == NULL || slot < owner->threads || slot >= owner->threads + OMPC_MAX_THREADS)
        return 0;
    if (atomic_load(&state->has_timer[slot - owner->threads]) != TIMER_LIVE || atomic_load(&slot->blocked) == 1)
        return 0;
    return state->sample_signal;
}

/*
 * The sampling signal's handler: the kernel hands it no pointer of ours,
 * so it takes the state from here and the sampler (sampler.c) does the
 * rest.  Async-signal-safe: one call, nothing else.
 */
static void on_sample(int signal_number, siginfo_t *info, void *context)
{
    ompc_sample_signal(&agent, signal_number, info, context);
}

/*
 * A real-time signal nobody in the process handles or blocks: the highest
 * such, because programs that use one usually take SIGRTMIN upwards.  0
 * when every one is taken.
 */
static int choose_signal(void)
{
    sigset_t blocked;
    agent.real.pthread_sigmask(SIG_BLOCK, NULL, &blocked);
    for (int candidate = SIGRTMAX; candidate >= SIGRTMIN; candidate--) {
        struct sigaction current;
        if (sigismember(&blocked, candidate) || agent.real.sigaction(candidate, NULL, &current) != 0)
            continue;
        if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL)
            return candidate;
    }
    return 0;
}

/*
 * Installs the sampling handler (once per image; a forked child inherits
 * it); SA_RESTART keeps the program's system calls from seeing EINTR, and
 * SA_ONSTACK respects a thread's alternate stack.
 */
static void start_sampling(struct ompc_process *owner)
{
    if (!atomic_load(&agent.handler_installed)) {
        agent.sample_signal = choose_signal();
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_sample;
        action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        if (agent.sample_signal == 0
            || agent.real.sigaction(agent.sample_signal, &action, &agent.program_actions[0]) != 0) {
            atomic_store(&owner->sampling, OMPC_SAMPLING_NO_SIGNAL);
            return;
        }
        atomic_store(&agent.program_action_current, 0);
        atomic_store(&agent.handler_installed, 1);
    }
    owner->sample_signal = agent.sample_signal;
    atomic_store(&owner->sampling, OMPC_SAMPLING_ON);
    atomic_store(&agent.sampling_on, 1);
}

/* ---- events ---- */

/* Name of an OMP_COLLECTORAPI_EC value, for messages. */
static const char *ec_name(int ec)
{
    static const char *const names[] = {"OK", "ERROR", "UNKNOWN", "UNSUPPORTED", "SEQUENCE_ERR",
                                        "OBSOLETE", "THREAD_ERR", "MEM_TOO_SMALL"};
    if (ec >= 0 && ec < (int)(sizeof names / sizeof names[0]))
        return names[ec];
    return ec == -1 ? "a malformed-buffer error (-1)" : "an unknown code";
}

/* Sends one request that carries no mem and returns its ec, or -1 when the call itself failed. */
static int simple_request(int request)
{
    int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(0))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int entry = ompc_request_add(&batch, request, 0);
    if (ompc_request_send(&batch, agent.api) != 0)
        return -1;
    return ompc_request_ec(&batch, entry);
}

/* Whether the runtime answers OMPCOLLECTOR_REQ_TASK (others answer UNKNOWN). */
static int probe_task_request(void)
{
    int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(sizeof(ompcollector_task_t)))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int entry = ompc_request_add(&batch, OMPCOLLECTOR_REQ_TASK, sizeof(ompcollector_task_t));
    return ompc_request_send(&batch, agent.api) == 0 && ompc_request_ec(&batch, entry) == OMP_ERRCODE_OK;
}

/*
 * The shim is preloaded, so the lookup normally succeeds at once.  If it was
 * loaded by the runtime instead (OMP_TOOL_LIBRARIES), it only becomes
 * visible once the runtime has initialized and run tool discovery: enter
 * the runtime once and look again.
 */
static collector_api_t find_api(void)
{
    collector_api_t found = (collector_api_t)dlsym(RTLD_DEFAULT, OMP_COLLECTOR_API);
    if (found != NULL)
        return found;
    int (*runtime_entry)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    if (runtime_entry == NULL)
        return NULL;
    (void)runtime_entry();
    return (collector_api_t)dlsym(RTLD_DEFAULT, OMP_COLLECTOR_API);
}

static void region_nest(struct ompc_process *owner, struct ompc_thread *slot, uint64_t parent_id, int construct,
                        uint64_t now);

/*
 * FORK on the master: the instance counts for its construct and the
 * totals whether or not the region table holds it, and goes on the
 * thread's nest stack so JOIN can time it.
 */
static void region_forked(struct ompc_process *owner, struct ompc_thread *slot, uint64_t parent_id,
                          uint64_t codeptr, uint64_t now)
{
    atomic_fetch_add(&owner->forks, 1);
    int construct = codeptr != 0 ? ompc_record_construct(owner, codeptr) : -1;
    if (construct >= 0)
        atomic_fetch_add(&owner->constructs[construct].forks, 1);
    region_nest(owner, slot, parent_id, construct, now);
}

/* The region goes on the forking thread's nest stack, so that its JOIN times it for `construct` (-1: none). */
static void region_nest(struct ompc_process *owner, struct ompc_thread *slot, uint64_t parent_id, int construct,
                        uint64_t now)
{
    /* The shared slot of threads past the limit has no scratch of its own. */
    if (slot == NULL || slot == &owner->untracked)
        return;
    int depth = slot->nest_depth++;
    if (depth >= OMPC_NEST_DEPTH) {
        atomic_fetch_add(&owner->nest_overflow, 1);
        return;
    }
    slot->nest_fork_ns[depth] = now;
    slot->nest_construct[depth] = construct + 1;
    slot->nest_outermost[depth] = parent_id == 0;
}

/* A lock-free maximum. */
static void store_max(_Atomic uint64_t *into, uint64_t value)
{
    uint64_t seen = atomic_load(into);
    while (value > seen && !atomic_compare_exchange_weak(into, &seen, value))
        ;
}

/* JOIN on the master: the instance on top of its nest stack ends. */
static void region_joined(struct ompc_process *owner, struct ompc_thread *slot, uint64_t now)
{
    atomic_fetch_add(&owner->joins, 1);
    if (slot == NULL || slot == &owner->untracked || slot->nest_depth <= 0)
        return;
    int depth = --slot->nest_depth;
    if (depth >= OMPC_NEST_DEPTH)
        return;
    uint64_t began = slot->nest_fork_ns[depth];
    uint64_t time = now > began ? now - began : 0;
    if (slot->nest_outermost[depth])
        atomic_fetch_add(&owner->outermost_ns, time);
    int construct = slot->nest_construct[depth] - 1;
    if (construct >= 0 && construct < OMPC_MAX_CONSTRUCTS) {
        struct ompc_construct *row = &owner->constructs[construct];
        atomic_fetch_add(&row->joins, 1);
        atomic_fetch_add(&row->time_ns, time);
        store_max(&row->max_ns, time);
    }
}

/*
 * What a FORK's region is (OMPCOLLECTOR_REQ_REGION) goes on its construct
 * row: a teams construct's league makes a teams row, a parallel region a
 * parallel row, linked to the teams construct whose team forked it.  The
 * region a team of a league opens for itself is no construct of its own:
 * it counts in the totals only (its samples count for the teams row).
 * Returns whether the fork is an instance of its construct.
 */
static int note_construct_kind(struct ompc_process *owner, const ompcollector_region_t *region)
{
    if (region->kind == OMPCOLLECTOR_REGION_LEAGUE_TEAM)
        return 0;
    int row = region->codeptr != 0 ? ompc_record_construct(owner, region->codeptr) : -1;
    if (row < 0)
        return 1;
    uint32_t kind = region->kind == OMPCOLLECTOR_REGION_LEAGUE     ? OMPC_CONSTRUCT_TEAMS
                    : region->kind == OMPCOLLECTOR_REGION_PARALLEL ? OMPC_CONSTRUCT_PARALLEL
                                                                   : OMPC_CONSTRUCT_UNKNOWN;
    struct ompc_construct_kind *entry = &owner->construct_kinds[row];
    if (kind != OMPC_CONSTRUCT_UNKNOWN && atomic_load_explicit(&entry->kind, memory_order_relaxed) != kind)
        atomic_store_explicit(&entry->kind, kind, memory_order_relaxed);
    int teams = region->teams_codeptr != 0 && kind == OMPC_CONSTRUCT_PARALLEL
                    ? ompc_record_construct(owner, region->teams_codeptr) : -1;
    if (teams >= 0 && atomic_load_explicit(&entry->teams, memory_order_relaxed) != (uint32_t)teams + 1)
        atomic_store_explicit(&entry->teams, (uint32_t)teams + 1, memory_order_relaxed);
    return 1;
}

/* FORK and JOIN: the region's id (and at FORK its parent and what it is) as the master sees it. */
static void region_event(struct ompc_process *owner, struct ompc_thread *slot, int event, uint64_t now)
{
    int32_t storage[OMPC_REQUEST_WORDS(2 * OMPC_REQUEST_SIZE(OMPC_REQUEST_PRID_MEM)
                                       + OMPC_REQUEST_SIZE(sizeof(ompcollector_region_t)))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int current = ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
    /* Only FORK needs the parent and the kind; JOIN spares the runtime the questions. */
    int parent = event == OMP_EVENT_FORK
                     ? ompc_request_add(&batch, OMP_REQ_PARENT_PRID, OMPC_REQUEST_PRID_MEM) : -1;
    int what = event == OMP_EVENT_FORK
                   ? ompc_request_add(&batch, OMPCOLLECTOR_REQ_REGION, sizeof(ompcollector_region_t)) : -1;
    if (ompc_request_send(&batch, agent.api) != 0 || ompc_request_ec(&batch, current) != OMP_ERRCODE_OK)
        return;
    uint64_t region_id = ompc_request_u64(&batch, current, 0), parent_id = 0;
    if (parent >= 0 && ompc_request_ec(&batch, parent) == OMP_ERRCODE_OK)
        parent_id = ompc_request_u64(&batch, parent, 0);
    /* The construct's address, at FORK (OMPCOLLECTOR_REQ_REGION, else _SAMPLE; 0 unknown). */
    ompcollector_region_t region = {0};
    ompcollector_sample_t here;
    int instance = 1;
    if (what >= 0 && ompc_request_ec(&batch, what) == OMP_ERRCODE_OK) {
        memcpy(&region, ompc_request_mem(&batch, what), sizeof region);
        instance = note_construct_kind(owner, &region);
    } else if (event == OMP_EVENT_FORK && agent.has_sample && ompc_sample_request(&agent, &here) == OMP_ERRCODE_OK) {
        region.codeptr = here.region_codeptr;
    }
    uint64_t codeptr = instance ? region.codeptr : 0;
    if (event == OMP_EVENT_FORK && instance)
        region_forked(owner, slot, parent_id, codeptr, now);
    else if (event == OMP_EVENT_FORK) {
        atomic_fetch_add(&owner->forks, 1);
        region_nest(owner, slot, parent_id, -1, now);
    } else
        region_joined(owner, slot, now);
    struct ompc_region *row = region_row(owner, region_id, 1);
    if (event == OMP_EVENT_FORK) {
        if (row == NULL) {
            atomic_fetch_add(&owner->regions_overflow_forks, 1);
            return;
        }
        atomic_fetch_add(&row->forks, 1);
        atomic_store(&row->parent, parent_id);
        if (codeptr != 0)
            atomic_store(&row->codeptr, codeptr);
        atomic_store(&row->fork_ns, now);
    } else if (row != NULL) {
        atomic_fetch_add(&row->joins, 1);
        uint64_t began = atomic_load(&row->fork_ns);
        if (began != 0 && now > began)
            atomic_fetch_add(&row->time_ns, now - began);
    }
}

/*
 * The END of a wait for a lock, a critical, an ordered section or an
 * atomic whose BEGIN is the log's last entry and less than
 * OMPC_SHORT_WAIT_NS ago: the wait was not contended, so the BEGIN
 * leaves the log again and both only count.  Returns 1 when it did.
 */
static int retract_short_wait(struct ompc_thread *slot, int event, uint64_t now)
{
    int pair = ompc_event_pair(event);
    if (event % 2 != 0 || !(pair == 3 || pair == 4 || pair == 5 || pair == 9))
        return 0;
    uint32_t length = atomic_load_explicit(&slot->event_log_length, memory_order_relaxed);
    if (length == 0 || length > slot->event_log_capacity)
        return 0;
    const struct ompc_event_entry *last
        = (const struct ompc_event_entry *)((char *)agent.record
                                            + atomic_load_explicit(&slot->event_log, memory_order_relaxed))
          + (length - 1);
    uint64_t began = OMPC_EVENT_WHEN(last);
    if (OMPC_EVENT_CODE(last) != event - 1 || now < began || now - began >= OMPC_SHORT_WAIT_NS)
        return 0;
    /* The sampler fills the open wait's entry: close it before the entry goes. */
    atomic_store_explicit(&slot->event_log_open_wait, 0, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst);
    atomic_store_explicit(&slot->event_log_length, length - 1, memory_order_release);
    atomic_fetch_add_explicit(&slot->short_waits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&slot->short_wait_ns, now - began, memory_order_relaxed);
    return 1;
}

/* Whether the calling thread's log (--trace) has room for one more event; a full one counts what it drops. */
static inline int log_room(struct ompc_process *owner, struct ompc_thread *slot, uint64_t now)
{
    if (slot == &owner->untracked || slot->event_log_capacity == 0
        || atomic_load_explicit(&slot->event_log_length, memory_order_relaxed) >= slot->event_log_capacity) {
        if (atomic_fetch_add_explicit(&slot->event_log_dropped, 1, memory_order_relaxed) == 0)
            atomic_store_explicit(&slot->event_log_dropped_ns, now != 0 ? now : 1, memory_order_relaxed);
        return 0;
    }
    return 1;
}

/*
 * --task-graph: a task's own time is wall time between its logged events,
 * and a thread the OS took off the CPU inside a task would make that time
 * the span (issue 36).  The thread's CPU clock is a system call (~0.2-1 us,
 * not in the vDSO), too dear for every event of a fine-grained program,
 * but a stretch the thread spent off the CPU is a long gap between two of
 * its logged events: so only after a gap of OFF_CPU_GAP_NS is the clock
 * read, and the wall time since the last reading that the thread did not
 * run -- at most the gap, as shorter gaps each hide less than the
 * threshold -- is kept until the next event that can carry it (record.h:
 * off_cpu_ns): a task's creation or a non-task event ends no stretch of
 * a task's own time, so the next run begin or end or task wait ends the
 * same stretch.
 * A reading per 50 us of gap costs at most ~2%, and nothing in a run of
 * short tasks.  Only the thread itself touches its marks.
 */
#define OFF_CPU_GAP_NS 50000u
static __thread uint64_t off_cpu_wall_mark __attribute__((tls_model("initial-exec")));
static __thread uint64_t off_cpu_cpu_mark __attribute__((tls_model("initial-exec")));
static __thread uint64_t off_cpu_pending __attribute__((tls_model("initial-exec")));

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* off_cpu_gap past its test: a long gap, or the thread's first entry; reads the thread's CPU clock. */
static __attribute__((noinline)) void off_cpu_read(uint32_t length, uint64_t last, uint64_t now)
{
    int saved_errno = errno;
    uint64_t cpu = thread_cpu_ns(), off = 0;
    errno = saved_errno;
    if (cpu == 0)
        return;
    if (off_cpu_wall_mark != 0 && now > off_cpu_wall_mark && cpu >= off_cpu_cpu_mark
        && now - off_cpu_wall_mark > cpu - off_cpu_cpu_mark)
        off = (now - off_cpu_wall_mark) - (cpu - off_cpu_cpu_mark);
    off_cpu_wall_mark = now;
    off_cpu_cpu_mark = cpu;
    off_cpu_pending += length > 0 && off > now - last ? now - last : off;
}

/*
 * Adds the off-CPU time in the gap that ends `now` after the log's last
 * entry to the pending time (none for a short gap).  Inline: the test is
 * what every logged event pays, the reading (off_cpu_read) what a long gap does.
 */
static inline void off_cpu_gap(const struct ompc_event_entry *log, uint32_t length, uint64_t now)
{
    uint64_t last = length > 0 ? OMPC_EVENT_WHEN(&log[length - 1]) : 0;
    if (length > 0 && off_cpu_wall_mark != 0 && (now < last || now - last < OFF_CPU_GAP_NS))
        return;
    off_cpu_read(length, last, now);
}

/* The pending off-CPU time, for an entry that carries it. */
static uint64_t off_cpu_take(void)
{
    uint64_t off = off_cpu_pending;
    off_cpu_pending = 0;
    return off;
}

/*
 * Appends one event to the calling thread's log (--trace), with the
 * region it happened in and, for the BEGIN of a wait, the wait id and
 * where it waited; at FORK the parallel construct's address.  Only the
 * thread itself writes its log.  A full log counts what it drops.
 */
static void log_event(struct ompc_process *owner, struct ompc_thread *slot, int event, uint64_t now)
{
    if (slot != &owner->untracked && slot->event_log_capacity != 0 && retract_short_wait(slot, event, now))
        return;
    if (!log_room(owner, slot, now))
        return;
    struct ompc_event_entry entry = {.when = (now << 8) | (uint64_t)event};
    int pair = ompc_event_pair(event);
    /* IDLE, IBAR, EBAR, LKWT, CTWT, ODWT and ATWT: the pairs that are waits (numbered in names.c). */
    int wait_begin = event % 2 == 1 && pair >= 0 && (pair <= 5 || pair == 9);
    if (agent.has_sample) {
        ompcollector_sample_t here;
        if (ompc_sample_request(&agent, &here) == OMP_ERRCODE_OK) {
            entry.region = here.region_id;
            if (wait_begin) {
                entry.wait_id = here.wait_id;
                entry.codeptr = here.wait_codeptr;
            } else if (event == OMP_EVENT_FORK) {
                entry.codeptr = here.region_codeptr;
            }
        }
    } else {
        ompcollector_sample_t here;
        if (ompc_state_request(&agent, &here) == 0) {
            if (wait_begin)
                entry.wait_id = here.wait_id;
            entry.region = here.region_id;
        }
    }
    uint32_t length = atomic_load_explicit(&slot->event_log_length, memory_order_relaxed);
    struct ompc_event_entry *log
        = (struct ompc_event_entry *)((char *)agent.record
                                      + atomic_load_explicit(&slot->event_log, memory_order_relaxed));
    /* Not a task's event: the next task run or wait event carries the gap's off-CPU time. */
    off_cpu_gap(log, length, now);
    if (pair >= 0 && event % 2 == 0)
        atomic_store_explicit(&slot->event_log_open_wait, 0, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst);
    log[length] = entry;
    atomic_signal_fence(memory_order_seq_cst);
    if (wait_begin && pair != 0 && entry.wait_id == 0)
        atomic_store_explicit(&slot->event_log_open_wait, length + 1, memory_order_relaxed);
    atomic_store_explicit(&slot->event_log_length, length + 1, memory_order_release);
}

/* --stacks: the stack the region being forked was forked from, for its workers' samples. */
static void fork_stack(struct ompc_process *owner, struct ompc_thread *slot)
{
    int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(OMPC_REQUEST_PRID_MEM))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int current = ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
    if (ompc_request_send(&batch, agent.api) != 0 || ompc_request_ec(&batch, current) != OMP_ERRCODE_OK)
        return;
    ompc_stackwalk_fork(agent.api, agent.record, owner, slot, ompc_request_u64(&batch, current, 0));
}

static void begin_recording(int parent);

/*
 * The task an event names (OMPCOLLECTOR_REQ_TASK), or, from a runtime
 * without it, what TASK_ID, TASK_PID and CURRENT_PRID say in one batch
 * (no construct address).  0 when no request answered.
 */
static int task_request(ompcollector_task_t *out)
{
    *out = (ompcollector_task_t){0};
    if (agent.has_task_request) {
        int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(sizeof *out))];
        struct ompc_request batch;
        ompc_request_init(&batch, storage, sizeof storage);
        int entry = ompc_request_add(&batch, OMPCOLLECTOR_REQ_TASK, sizeof *out);
        if (ompc_request_send(&batch, agent.api) != 0 || ompc_request_ec(&batch, entry) != OMP_ERRCODE_OK)
            return 0;
        memcpy(out, ompc_request_mem(&batch, entry), sizeof *out);
        return 1;
    }
    int32_t storage[OMPC_REQUEST_WORDS(3 * OMPC_REQUEST_SIZE(8))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int id = ompc_request_add(&batch, OMP_REQ_TASK_ID, 8);
    int parent = ompc_request_add(&batch, OMP_REQ_TASK_PID, 8);
    int region = ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
    if (ompc_request_send(&batch, agent.api) != 0 || ompc_request_ec(&batch, id) != OMP_ERRCODE_OK
        || ompc_request_rsz(&batch, id) != 8)
        return 0;
    int64_t task = (int64_t)ompc_request_u64(&batch, id, 0);
    out->id = task > 0 ? (uint64_t)task : 0;
    if (ompc_request_ec(&batch, parent) == OMP_ERRCODE_OK && ompc_request_rsz(&batch, parent) == 8) {
        int64_t up = (int64_t)ompc_request_u64(&batch, parent, 0);
        out->parent_id = up > 0 ? (uint64_t)up : 0;
    }
    if (ompc_request_ec(&batch, region) == OMP_ERRCODE_OK)
        out->region_id = ompc_request_u64(&batch, region, 0);
    return 1;
}

/*
 * --trace: a task's creation (END_CREATE_TASK_IMM, _DEL), or one of its
 * runs beginning (BEGIN_EXEC_TASK) or ending (BEGIN_FINISH_TASK, `ends`
 * what it ends), into the thread's log (record.h says what each entry
 * holds).  One entry, and one request but at a run's end; an event whose
 * task the runtime does not name is not logged.
 */
static void log_task_event(struct ompc_process *owner, struct ompc_thread *slot, int event, uint64_t now, int ends,
                           const ompcollector_task_event_t *given)
{
    if (!log_room(owner, slot, now))
        return;
    struct ompc_event_entry entry = {.when = (now << 8) | (uint64_t)event};
    ompcollector_task_t task = {0};
    if (given != NULL) {
        /* OMPCOLLECTOR_EVENT_TASK's payload says what the request would. */
        task.id = given->id;
        task.parent_id = given->parent_id;
        task.codeptr = given->codeptr;
        task.region_id = given->region_id;
        if (event != OMP_EVENT_THR_BEGIN_FINISH_TASK && task.id == 0)
            return;
    } else if (event != OMP_EVENT_THR_BEGIN_FINISH_TASK && (!task_request(&task) || task.id == 0)) {
        /* A run's end needs no request: it ends the innermost run open on this thread (record.h). */
        return;
    }
    if (event == OMP_EVENT_THR_BEGIN_FINISH_TASK) {
        entry.ends = (uint64_t)ends;
    } else if (event == OMP_EVENT_THR_END_CREATE_TASK_IMM || event == OMP_EVENT_THR_END_CREATE_TASK_DEL) {
        entry.task = task.id;
        entry.parent = task.parent_id;
        entry.codeptr = task.codeptr;
    } else {
        entry.task = task.id;
        entry.region = task.region_id;
    }
    uint32_t length = atomic_load_explicit(&slot->event_log_length, memory_order_relaxed);
    struct ompc_event_entry *log
        = (struct ompc_event_entry *)((char *)agent.record
                                      + atomic_load_explicit(&slot->event_log, memory_order_relaxed));
    off_cpu_gap(log, length, now);
    if (event == OMP_EVENT_THR_BEGIN_EXEC_TASK || event == OMP_EVENT_THR_BEGIN_FINISH_TASK)
        entry.off_cpu_ns = off_cpu_take();
    log[length] = entry;
    atomic_signal_fence(memory_order_seq_cst);
    atomic_store_explicit(&slot->event_log_length, length + 1, memory_order_release);
}

/* Closes one of a thread's task timers when its depth falls back to 0; a stray END is ignored. */
static void task_timer_end(int32_t *depth, uint64_t since, _Atomic uint64_t *total, uint64_t now)
{
    if (*depth > 0 && --*depth == 0) {
        if (now == 0)
            now = now_ns(&agent);
        if (now > since)
            atomic_fetch_add_explicit(total, now - since, memory_order_relaxed);
    }
}

/*
 * A task event (23..35) on the thread where it happens: counted, and the
 * thread's create, execute and suspend timers moved.  Per thread the
 * events nest (doc/mapping.md), so a depth per timer is enough: execution
 * runs while any EXEC is open, which counts a task run on top of a
 * suspended one once; a suspension is an explicit task's when it begins
 * inside an EXEC, and ends at the END_SUSPEND met at the same EXEC depth.
 * Nothing is allocated, locked or formatted here.
 */
static void task_event(struct ompc_process *owner, struct ompc_thread *slot, int event,
                       const ompcollector_task_event_t *given)
{
    atomic_fetch_add_explicit(&slot->task_events[event - OMPC_TASK_EVENT_FIRST], 1, memory_order_relaxed);
    /* One clock reading, taken where first needed (0 until then), serves the construct table, the log and the timers. */
    uint64_t now = 0;
    ompcollector_task_info_t info;
    if (given != NULL)
        info = (ompcollector_task_info_t){given->id, given->codeptr, given->flags, given->parts};
    /* The task construct table's request comes first: a run's end logs what it ends from its answer. */
    int ends = agent.has_task_info
                   ? ompc_task_site_event(&agent, owner, slot, event, &now, given != NULL ? &info : NULL)
                   : OMPC_TASK_END_UNKNOWN;
    if (agent.record->event_log_bytes != 0 && OMPC_EVENT_IS_TASK(event)) {
        if (now == 0)
            now = now_ns(&agent);
        log_task_event(owner, slot, event, now, ends, given);
    }
    if (slot == &owner->untracked)
        return;
    switch (event) {
    case OMP_EVENT_THR_BEGIN_CREATE_TASK:
        if (slot->task_create_depth++ == 0)
            slot->task_create_since = now != 0 ? now : now_ns(&agent);
        break;
    case OMP_EVENT_THR_END_CREATE_TASK_IMM:
    case OMP_EVENT_THR_END_CREATE_TASK_DEL:
        task_timer_end(&slot->task_create_depth, slot->task_create_since, &slot->task_create_ns, now);
        break;
    case OMP_EVENT_THR_BEGIN_EXEC_TASK:
        if (slot->task_exec_depth++ == 0)
            slot->task_exec_since = now != 0 ? now : now_ns(&agent);
        break;
    case OMP_EVENT_THR_BEGIN_FINISH_TASK:
        task_timer_end(&slot->task_exec_depth, slot->task_exec_since, &slot->task_exec_ns, now);
        break;
    case OMP_EVENT_THR_BEGIN_SUSPEND_TASK:
        if (slot->task_exec_depth > 0) {
            atomic_fetch_add_explicit(&slot->task_suspensions, 1, memory_order_relaxed);
            if (slot->task_suspend_depth++ == 0)
                slot->task_suspend_since = now != 0 ? now : now_ns(&agent);
        }
        break;
    case OMP_EVENT_THR_END_SUSPEND_TASK:
        if (slot->task_exec_depth > 0)
            task_timer_end(&slot->task_suspend_depth, slot->task_suspend_since, &slot->task_suspend_ns, now);
        break;
    default:
        break;
    }
}

/* The dependence OMPCOLLECTOR_REQ_TASK_DEPENDENCE names in its delivery; 0 when not answered. */
static int dependence_request(ompcollector_task_dependence_t *out)
{
    int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(sizeof *out))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int entry = ompc_request_add(&batch, OMPCOLLECTOR_REQ_TASK_DEPENDENCE, sizeof *out);
    if (ompc_request_send(&batch, agent.api) != 0 || ompc_request_ec(&batch, entry) != OMP_ERRCODE_OK)
        return 0;
    memcpy(out, ompc_request_mem(&batch, entry), sizeof *out);
    return 1;
}

/*
 * Appends `entry`, a task wait's begin or end or a dependence (code
 * `code`), to the thread's log at `now`; a wait's carries the off-CPU time
 * pending.  Only the thread itself writes its log.
 */
static inline __attribute__((always_inline)) void log_own_entry(struct ompc_process *owner, struct ompc_thread *slot,
                                                                int code, struct ompc_event_entry *entry, uint64_t now)
{
    if (!log_room(owner, slot, now))
        return;
    uint32_t length = atomic_load_explicit(&slot->event_log_length, memory_order_relaxed);
    struct ompc_event_entry *log
        = (struct ompc_event_entry *)((char *)agent.record + atomic_load_explicit(&slot->event_log, memory_order_relaxed));
    off_cpu_gap(log, length, now);
    if (OMPC_EVENT_IS_TASK_WAIT(code))
        entry->off_cpu_ns = off_cpu_take();
    entry->when = (now << 8) | (uint64_t)code;
    log[length] = *entry;
    atomic_signal_fence(memory_order_seq_cst);
    atomic_store_explicit(&slot->event_log_length, length + 1, memory_order_release);
}

/*
 * --trace, --task-graph: one of the shim's own task events into the
 * thread's log: a task wait's begin or end (OMPCOLLECTOR_EVENT_*_TASK_WAIT)
 * naming the waiting task, or a dependence (OMPCOLLECTOR_EVENT_TASK_DEPENDENCE)
 * naming the sink in `task` and the source in `parent`; one request.
 * Nothing else counts them.
 */
static void on_own_task_event(int code)
{
    if (!atomic_load_explicit(&agent.collecting, memory_order_relaxed))
        return;
    int saved_errno = errno;
    struct ompc_process *owner = atomic_load(&agent.process);
    struct ompc_thread *slot = owner != NULL && agent.record->event_log_bytes != 0 ? current_thread() : NULL;
    struct ompc_event_entry entry = {0};
    ompcollector_task_t task;
    ompcollector_task_dependence_t dependence;
    if (code == OMPC_EVENT_TASK_DEPENDENCE && slot != NULL && dependence_request(&dependence)) {
        entry.task = dependence.sink_id;
        entry.parent = dependence.source_id;
    } else if (code != OMPC_EVENT_TASK_DEPENDENCE && slot != NULL && task_request(&task)) {
        entry.task = task.id;
    }
    if (entry.task != 0 && (code != OMPC_EVENT_TASK_DEPENDENCE || entry.parent != 0))
        log_own_entry(owner, slot, code, &entry, now_ns(&agent));
    errno = saved_errno;
}

/*
 * The process and the calling thread's slot for an event, or NULL: a
 * process that was not recording starts now (it runs OpenMP after all).
 */
static inline __attribute__((always_inline)) struct ompc_process *event_owner(struct ompc_thread **slot)
{
    struct ompc_process *owner = atomic_load(&agent.process);
    if (owner == NULL) {
        int saved_errno = errno;
        begin_recording(-1);
        errno = saved_errno;
        owner = atomic_load(&agent.process);
        if (owner == NULL)
            return NULL;
    }
    if (!atomic_load_explicit(&owner->openmp, memory_order_relaxed)) {
        int saved_errno = errno;
        note_runtime(owner);
        errno = saved_errno;
    }
    *slot = current_thread();
    return *slot != NULL ? owner : NULL;
}

/*
 * The callback of the task events (23..35), apart from on_event so that
 * the several a task has pay for nothing of the other events' work in
 * their frame; runs on the thread where the event happens.
 */
static void on_task_event(OMP_COLLECTORAPI_EVENT event_code)
{
    int event = (int)event_code;
    if (!atomic_load_explicit(&agent.collecting, memory_order_relaxed) || event < OMPC_TASK_EVENT_FIRST
        || event >= OMPC_TASK_EVENT_FIRST + OMPC_TASK_EVENTS)
        return;
    int saved_errno = errno;
    struct ompc_thread *slot;
    struct ompc_process *owner = event_owner(&slot);
    /* Task events read the clock only where a timer starts or stops or --trace logs them (task_event). */
    if (owner != NULL)
        task_event(owner, slot, event, NULL);
    errno = saved_errno;
}

/* Counts a task event that a phase stands for and that only counts. */
static inline void count_task_event(struct ompc_thread *slot, int event)
{
    atomic_fetch_add_explicit(&slot->task_events[event - OMPC_TASK_EVENT_FIRST], 1, memory_order_relaxed);
}

/*
 * One phase of OMPCOLLECTOR_EVENT_TASK as the task events the shim would
 * have delivered for it, in their order (doc/mapping.md), with the task
 * in hand: the same counts, timers, table rows and log entries as those
 * events, and no request.
 */
static void task_phase_events(struct ompc_process *owner, struct ompc_thread *slot, int phase,
                              const ompcollector_task_event_t *task)
{
    switch (phase) {
    case OMPCOLLECTOR_TASK_CREATE:
        task_event(owner, slot, OMP_EVENT_THR_BEGIN_CREATE_TASK, task);
        task_event(owner, slot,
                   task->flags & OMPCOLLECTOR_TASK_UNDEFERRED ? OMP_EVENT_THR_END_CREATE_TASK_IMM
                                                              : OMP_EVENT_THR_END_CREATE_TASK_DEL,
                   task);
        break;
    case OMPCOLLECTOR_TASK_BEGIN:
        if (!(task->flags & OMPCOLLECTOR_TASK_UNDEFERRED)) {
            count_task_event(slot, OMP_EVENT_THR_BEGIN_SCHD_TASK);
            if (task->flags & OMPCOLLECTOR_TASK_STOLEN) {
                task_event(owner, slot, OMP_EVENT_THR_BEGIN_STEAL_TASK, task);
                count_task_event(slot, OMP_EVENT_THR_END_STEAL_TASK);
            }
            count_task_event(slot, OMP_EVENT_THR_FETCHED_TASK);
            count_task_event(slot, OMP_EVENT_THR_END_SCHD_TASK);
        }
        task_event(owner, slot, OMP_EVENT_THR_BEGIN_EXEC_TASK, task);
        break;
    case OMPCOLLECTOR_TASK_END:
        task_event(owner, slot, OMP_EVENT_THR_BEGIN_FINISH_TASK, task);
        count_task_event(slot, OMP_EVENT_THR_END_FINISH_TASK);
        break;
    case OMPCOLLECTOR_TASK_SUSPEND:
        task_event(owner, slot, OMP_EVENT_THR_BEGIN_SUSPEND_TASK, task);
        break;
    case OMPCOLLECTOR_TASK_RESUME:
        task_event(owner, slot, OMP_EVENT_THR_END_SUSPEND_TASK, task);
        break;
    default:
        break;
    }
}

/*
 * --trace, --task-graph: a phase's one log entry, as the task event it
 * stands for would log it (log_task_event): CREATE as END_CREATE_TASK_IMM
 * or _DEL, BEGIN as BEGIN_EXEC_TASK, END as BEGIN_FINISH_TASK; SUSPEND and
 * RESUME log nothing, as their events do not.  Written straight from the
 * payload at the phase's reading `now` (ompc_task_phase's): this is the
 * path --task-graph pays once per phase, so it builds no request-shaped
 * copy of the task and reads no clock of its own.
 */
static inline __attribute__((always_inline)) void log_task_phase(struct ompc_process *owner, struct ompc_thread *slot,
                                                                 int phase, const ompcollector_task_event_t *task,
                                                                 uint64_t now, int ends)
{
    if (phase != OMPCOLLECTOR_TASK_CREATE && phase != OMPCOLLECTOR_TASK_BEGIN && phase != OMPCOLLECTOR_TASK_END)
        return;
    if (!log_room(owner, slot, now) || (phase != OMPCOLLECTOR_TASK_END && task->id == 0))
        return;
    uint32_t length = atomic_load_explicit(&slot->event_log_length, memory_order_relaxed);
    struct ompc_event_entry *log
        = (struct ompc_event_entry *)((char *)agent.record
                                      + atomic_load_explicit(&slot->event_log, memory_order_relaxed));
    off_cpu_gap(log, length, now);
    struct ompc_event_entry entry;
    if (phase == OMPCOLLECTOR_TASK_CREATE) {
        int event = task->flags & OMPCOLLECTOR_TASK_UNDEFERRED ? OMP_EVENT_THR_END_CREATE_TASK_IMM
                                                               : OMP_EVENT_THR_END_CREATE_TASK_DEL;
        entry = (struct ompc_event_entry){.when = (now << 8) | (uint64_t)event, .parent = task->parent_id,
                                          .task = task->id, .codeptr = task->codeptr};
    } else if (phase == OMPCOLLECTOR_TASK_BEGIN) {
        entry = (struct ompc_event_entry){.when = (now << 8) | OMP_EVENT_THR_BEGIN_EXEC_TASK,
                                          .region = task->region_id, .task = task->id,
                                          .off_cpu_ns = off_cpu_take()};
    } else {
        /* A run's end names no task: it ends the innermost run open on this thread (record.h). */
        entry = (struct ompc_event_entry){.when = (now << 8) | OMP_EVENT_THR_BEGIN_FINISH_TASK,
                                          .ends = (uint64_t)ends, .off_cpu_ns = off_cpu_take()};
    }
    log[length] = entry;
    atomic_signal_fence(memory_order_seq_cst);
    atomic_store_explicit(&slot->event_log_length, length + 1, memory_order_release);
}

/* The callback of OMPCOLLECTOR_EVENT_TASK_CREATE, the sampled tier's one delivery per task (ompcollector_task_callback_t). */
static void on_task_created(int phase, const ompcollector_task_event_t *task)
{
    if (!atomic_load_explicit(&agent.collecting, memory_order_relaxed) || task == NULL
        || phase != OMPCOLLECTOR_TASK_CREATE)
        return;
    int saved_errno = errno;
    struct ompc_thread *slot;
    struct ompc_process *owner = event_owner(&slot);
    if (owner != NULL)
        ompc_task_counted(owner, slot, task);
    errno = saved_errno;
}

/*
 * The callback of OMPCOLLECTOR_EVENT_TASK_LOG (or, from a shim without
 * it, OMPCOLLECTOR_EVENT_TASK) in the sampled tier with a log
 * (--task-graph, --trace): a creation counts as on_task_created counts
 * it, and creations, runs and task waits are logged; nothing else is
 * kept, as the log holds every run with its times and the samples time
 * the constructs.  SUSPEND and RESUME (OMPCOLLECTOR_EVENT_TASK's) log
 * nothing and return at once.
 */
static void on_task_logged(int phase, const ompcollector_task_event_t *task)
{
    if (phase == OMPCOLLECTOR_TASK_SUSPEND || phase == OMPCOLLECTOR_TASK_RESUME || task == NULL
        || !atomic_load_explicit(&agent.collecting, memory_order_relaxed))
        return;
    /*
     * No errno to save on this path, which runs once per phase of every
     * task: the clock is the vDSO's, the rest the record's memory, and the
     * calls that may fail a system call (a thread's first event, the
     * process's, the thread CPU clock after a long gap) keep errno
     * themselves.
     */
    struct ompc_thread *slot;
    struct ompc_process *owner = event_owner(&slot);
    /* WAIT_BEGIN and WAIT_END, the last two phases (OMPCOLLECTOR_EVENT_TASK_LOG's own). */
    if (owner != NULL && phase >= OMPCOLLECTOR_TASK_WAIT_BEGIN) {
        struct ompc_event_entry entry = {.task = task->id};
        if (task->id != 0)
            log_own_entry(owner, slot,
                          phase == OMPCOLLECTOR_TASK_WAIT_BEGIN ? OMPC_EVENT_TASK_WAIT_BEGIN : OMPC_EVENT_TASK_WAIT_END,
                          &entry, now_ns(&agent));
    } else if (owner != NULL) {
        if (phase == OMPCOLLECTOR_TASK_CREATE)
            ompc_task_counted(owner, slot, task);
        int ends = phase != OMPCOLLECTOR_TASK_END                 ? OMPC_TASK_END_UNKNOWN
                   : task->flags & OMPCOLLECTOR_TASK_COMPLETING ? OMPC_TASK_END_COMPLETES
                                                                 : OMPC_TASK_END_PART;
        log_task_phase(owner, slot, phase, task, now_ns(&agent), ends);
    }
}

/* The callback of OMPCOLLECTOR_EVENT_TASK (ompcollector_task_callback_t); runs on the thread where the phase happens. */
static void on_task_phase(int phase, const ompcollector_task_event_t *task)
{
    if (!atomic_load_explicit(&agent.collecting, memory_order_relaxed) || task == NULL)
        return;
    int saved_errno = errno;
    struct ompc_thread *slot;
    struct ompc_process *owner = event_owner(&slot);
    /* The payload serves the construct table, the timers and the log (--trace, --task-graph) with one clock reading. */
    if (owner != NULL && agent.has_task_info) {
        uint64_t when;
        int ends = ompc_task_phase(&agent, owner, slot, phase, task, &when);
        if (agent.record->event_log_bytes != 0)
            log_task_phase(owner, slot, phase, task, when, ends);
    } else if (owner != NULL) {
        task_phase_events(owner, slot, phase, task);
    }
    errno = saved_errno;
}

/* The callback of the other registered events (task events: on_task_event); runs on the thread where the event happens. */
static void on_event(OMP_COLLECTORAPI_EVENT event_code)
{
    int event = (int)event_code;
    if (event == OMPCOLLECTOR_EVENT_BEGIN_TASK_WAIT || event == OMPCOLLECTOR_EVENT_END_TASK_WAIT
        || event == OMPCOLLECTOR_EVENT_TASK_DEPENDENCE) {
        on_own_task_event(event == OMPCOLLECTOR_EVENT_BEGIN_TASK_WAIT ? OMPC_EVENT_TASK_WAIT_BEGIN
                          : event == OMPCOLLECTOR_EVENT_END_TASK_WAIT ? OMPC_EVENT_TASK_WAIT_END
                                                                       : OMPC_EVENT_TASK_DEPENDENCE);
        return;
    }
    if (event >= OMPC_TASK_EVENT_FIRST && event < OMPC_TASK_EVENT_FIRST + OMPC_TASK_EVENTS) {
        on_task_event(event_code);
        return;
    }
    if (!atomic_load_explicit(&agent.collecting, memory_order_relaxed) || event <= 0 || event >= OMPC_NEVENTS)
        return;
    int saved_errno = errno;
    struct ompc_thread *slot;
    struct ompc_process *owner = event_owner(&slot);
    if (owner == NULL) {
        errno = saved_errno;
        return;
    }
    uint64_t now = now_ns(&agent);
    atomic_fetch_add_explicit(&slot->events[event], 1, memory_order_relaxed);
    if (agent.record->event_log_bytes != 0)
        log_event(owner, slot, event, now);
    if (event == OMP_EVENT_FORK && (agent.record->flags & OMPC_OPT_STACKS) && slot != &owner->untracked)
        fork_stack(owner, slot);
    if (event == OMP_EVENT_FORK || event == OMP_EVENT_JOIN) {
        region_event(owner, slot, event, now);
    } else if (slot != &owner->untracked) {
        int pair = ompc_event_pair(event);
        if (event % 2 == 1) {
            if (slot->pair_depth[pair]++ == 0)
                slot->pair_begin_ns[pair] = now;
        } else if (slot->pair_depth[pair] > 0 && --slot->pair_depth[pair] == 0) {
            atomic_fetch_add_explicit(&slot->pair_ns[pair], now - slot->pair_begin_ns[pair],
                                      memory_order_relaxed);
        }
    }
    errno = saved_errno;
}

/*
 * Registers answers[0..count-1].event for `callback` in one batch and
 * fills in each answer's ec (-1 when the call itself failed).  One batch,
 * so a runtime that refuses the buffer refuses every event alike.
 */
static void register_batch(struct ompc_event_request *answers, int count, omp_collector_callback_t callback)
{
    _Static_assert(OMPC_TASK_EVENTS <= OMPC_NEVENTS, "the task events fit the batch");
    int32_t storage[OMPC_REQUEST_WORDS(OMPC_NEVENTS * OMPC_REQUEST_SIZE(OMPC_REQUEST_REGISTER_MEM))];
    int entries[OMPC_NEVENTS];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    for (int i = 0; i < count; i++)
        entries[i] = ompc_request_add_register(&batch, answers[i].event, callback);
    int result = ompc_request_send(&batch, agent.api);
    for (int i = 0; i < count; i++)
        answers[i].ec = result == 0 && entries[i] >= 0 ? ompc_request_ec(&batch, entries[i]) : -1;
}

/* Registers `event` for `callback`, a payload event's (ompcollector_task_callback_t); whether the runtime took it. */
static int register_payload_event(int event, ompcollector_task_callback_t callback)
{
    struct ompc_event_request request = {.event = event};
    register_batch(&request, 1, (omp_collector_callback_t)(void (*)(void))callback);
    return request.ec == OMP_ERRCODE_OK;
}

/*
 * The sampled tier (OMPC_OPT_TASKS without OMPC_OPT_TASKS_FULL, sampling
 * on): OMPCOLLECTOR_EVENT_TASK_CREATE alone, one delivery per task that
 * counts it, its time from samples; whether the runtime took it.  With a
 * log (--task-graph, --trace) every run and task wait is logged, so the
 * tier takes OMPCOLLECTOR_EVENT_TASK_LOG instead (or
 * OMPCOLLECTOR_EVENT_TASK from a shim without it), for the log alone
 * (on_task_logged): the log already holds each run and its times, which
 * the full tier's accounting would keep a second time at twice the log's
 * cost a task.  Sets *waits when the task waits come with it.
 */
static int register_task_creation(int *waits)
{
    uint32_t flags = agent.record->flags;
    *waits = 0;
    if ((flags & OMPC_OPT_TASKS_FULL) || !(flags & OMPC_OPT_SAMPLE))
        return 0;
    int via = OMPC_EC_VIA_TASK_CREATE;
    if (agent.record->event_log_bytes == 0) {
        if (!register_payload_event(OMPCOLLECTOR_EVENT_TASK_CREATE, on_task_created))
            return 0;
    } else if (register_payload_event(OMPCOLLECTOR_EVENT_TASK_LOG, on_task_logged)) {
        via = OMPC_EC_VIA_TASK_LOG;
        *waits = 1;
    } else if (register_payload_event(OMPCOLLECTOR_EVENT_TASK, on_task_logged)) {
        via = OMPC_EC_VIA_TASK_EVENT;
    } else {
        return 0;
    }
    agent.task_tier = OMPC_TASK_TIER_SAMPLED;
    agent.task_phases = via != OMPC_EC_VIA_TASK_CREATE;
    for (int i = 0; i < OMPC_TASK_EVENTS; i++)
        agent.task_requests[i].ec = via;
    return 1;
}

/*
 * The shim's task waits (unless OMPCOLLECTOR_EVENT_TASK_LOG brings them:
 * `waits`) and dependences, for the event log only (--trace,
 * --task-graph); other runtimes answer UNKNOWN.
 */
static void register_logged_task_events(int waits)
{
    if (agent.record->event_log_bytes == 0)
        return;
    struct ompc_event_request own[3] = {{.event = OMPCOLLECTOR_EVENT_TASK_DEPENDENCE},
                                        {.event = OMPCOLLECTOR_EVENT_BEGIN_TASK_WAIT},
                                        {.event = OMPCOLLECTOR_EVENT_END_TASK_WAIT}};
    register_batch(own, waits ? 1 : 3, on_event);
}

/* Registers the task events 23..35, remembering each answer; a runtime without them answers UNKNOWN or UNSUPPORTED. */
static void register_task_events(void)
{
    for (int i = 0; i < OMPC_TASK_EVENTS; i++)
        agent.task_requests[i].event = OMPC_TASK_EVENT_FIRST + i;
    agent.task_request_count = OMPC_TASK_EVENTS;
    int waits;
    if (register_task_creation(&waits)) {
        register_logged_task_events(waits);
        return;
    }
    /*
     * The shim's OMPCOLLECTOR_EVENT_TASK first: one delivery per phase of
     * a task, with the task in hand, stands for the 13 events and the
     * requests each would need (README, "What it costs").  The 13 are then
     * not registered, and their answers say so (OMPC_EC_VIA_TASK_EVENT);
     * a runtime without it gets the legacy events.
     */
    struct ompc_event_request phases = {.event = OMPCOLLECTOR_EVENT_TASK};
    register_batch(&phases, 1, (omp_collector_callback_t)(void (*)(void))on_task_phase);
    agent.task_phases = phases.ec == OMP_ERRCODE_OK;
    if (agent.task_phases)
        for (int i = 0; i < OMPC_TASK_EVENTS; i++)
            agent.task_requests[i].ec = OMPC_EC_VIA_TASK_EVENT;
    else
        register_batch(agent.task_requests, OMPC_TASK_EVENTS, on_task_event);
    register_logged_task_events(0);
}

/* Registers FORK, JOIN and the launcher's selection, remembering each answer. */
static void register_events(uint32_t mask)
{
    int count = 0;
    mask |= (UINT32_C(1) << OMP_EVENT_FORK) | (UINT32_C(1) << OMP_EVENT_JOIN);
    for (int event = 1; event < OMPC_NEVENTS; event++)
        if (mask & (UINT32_C(1) << event))
            agent.requests[count++].event = event;
    register_batch(agent.requests, count, on_event);
    agent.request_count = count;
}

/* ---- the scanner ---- */

/* Threads that already exist or were started behind pthread_create's back get a slot here. */
static void scan_tasks(struct ompc_process *owner)
{
    uint64_t scan_began = now_ns(&agent);
    DIR *directory = opendir("/proc/self/task");
    if (directory == NULL)
        return;
    pid_t present[2 * OMPC_MAX_THREADS];
    int present_count = 0;
    int complete = 1;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
            continue;
        pid_t tid = (pid_t)strtol(entry->d_name, NULL, 10);
        if (present_count < (int)(sizeof present / sizeof present[0]))
            present[present_count++] = tid;
        else
            complete = 0;
        if (tid != agent.scanner_tid)
            claim_thread(tid, tid == getpid(), 1);
    }
    closedir(directory);
    if (!complete)
        return;
    uint64_t now = now_ns(&agent);
    pthread_mutex_lock(&agent.slots_mutex);
    int count = atomic_load(&owner->thread_count);
    for (int i = 0; i < count; i++) {
        /* A thread claimed after the listing began may simply not be in it. */
        if (atomic_load(&owner->threads[i].status) != OMPC_SLOT_LIVE
            || owner->threads[i].start_ns >= scan_began)
            continue;
        int alive = 0;
        for (int j = 0; j < present_count && !alive; j++)
            alive = present[j] == owner->threads[i].tid;
        if (!alive)
            release_locked(owner, &owner->threads[i], now);
    }
    pthread_mutex_unlock(&agent.slots_mutex);
}

/*
 * Whether the sampling handler is still ours.  A program that installs its
 * own through sigaction or signal keeps ours (see the interposers below);
 * one that goes around them (a raw system call) has replaced it, and from
 * then on must not get our timers' signals.
 */
static void check_handler(void)
{
    if (!atomic_load(&agent.handler_installed) || !atomic_load(&agent.sampling_on))
        return;
    struct sigaction current;
    if (agent.real.sigaction(agent.sample_signal, NULL, &current) != 0)
        return;
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_sample)
        return;
    atomic_store(&agent.handler_installed, 0);
    stop_sampling(OMPC_SAMPLING_REPLACED);
}

/* The scanner thread: every 10 ms, rounded up to the tick's grid (see tick_ns), until exit. */
static void *scanner_main(void *unused)
{
    (void)unused;
    agent.scanner_tid = current_tid();
    pthread_mutex_lock(&agent.scanner_mutex);
    while (!agent.scanner_stop) {
        pthread_mutex_unlock(&agent.scanner_mutex);
        pthread_mutex_lock(&agent.scan_lock);
        struct ompc_process *owner = atomic_load(&agent.process);
        if (owner != NULL) {
            scan_tasks(owner);
            check_handler();
            if (!atomic_load(&owner->openmp))
                note_runtime(owner);
            refresh_modules(owner, 0);
            atomic_store(&owner->alive_ns, now_ns(&agent));
        }
        pthread_mutex_unlock(&agent.scan_lock);
        pthread_mutex_lock(&agent.scanner_mutex);
        /* Waking on a tick costs no timer interrupt of its own. */
        uint64_t wake = monotonic_ns() + 10000000;
        if (agent.tick_ns != 0)
            wake = (wake + agent.tick_ns - 1) / agent.tick_ns * agent.tick_ns;
        struct timespec deadline = timespec_of(wake);
        if (!agent.scanner_stop)
            pthread_cond_timedwait(&agent.scanner_cond, &agent.scanner_mutex, &deadline);
    }
    pthread_mutex_unlock(&agent.scanner_mutex);
    return NULL;
}

/*
 * Starts the scanner with every signal blocked: it is the agent's thread,
 * not the program's.  The mask is the new thread's own where the C library
 * can give it one.  Else the calling thread blocks its signals around the
 * creation, and the sampling timer's expirations meanwhile (the thread's
 * timer is armed by then) arrive in the unblock: a loaded machine's slow
 * pthread_create then showed as the program's serial code in
 * pthread_sigmask.
 */
static void start_scanner(void)
{
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&agent.scanner_cond, &attributes);
    pthread_condattr_destroy(&attributes);
    agent.scanner_stop = 0;
    sigset_t blocked, previous;
    sigfillset(&blocked);
#ifdef HAVE_PTHREAD_ATTR_SETSIGMASK_NP
    pthread_attr_t thread;
    if (pthread_attr_init(&thread) == 0) {
        if (pthread_attr_setsigmask_np(&thread, &blocked) == 0)
            agent.scanner_started = agent.real.pthread_create(&agent.scanner, &thread, scanner_main, NULL) == 0;
        pthread_attr_destroy(&thread);
        if (agent.scanner_started)
            return;
    }
#endif
    agent.real.pthread_sigmask(SIG_BLOCK, &blocked, &previous);
    agent.scanner_started = agent.real.pthread_create(&agent.scanner, NULL, scanner_main, NULL) == 0;
    agent.real.pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

/* Ends the scanner, so no slot changes after the process's record is closed. */
static void stop_scanner(void)
{
    if (!agent.scanner_started)
        return;
    pthread_mutex_lock(&agent.scanner_mutex);
    agent.scanner_stop = 1;
    pthread_cond_signal(&agent.scanner_cond);
    pthread_mutex_unlock(&agent.scanner_mutex);
    pthread_join(agent.scanner, NULL);
    agent.scanner_started = 0;
}

/*
 * Claims this process's slot and starts sampling it.  The launched process
 * does so from its constructor; any other does once it turns out to run
 * OpenMP (a runtime loaded, an event, the runtime starting threads), so a
 * shell or a helper tool spends no slot.
 */
static void begin_recording(int parent)
{
    if (agent.record == NULL || !agent.session_live || atomic_load(&agent.process) != NULL || agent.dropped)
        return;
    pthread_mutex_lock(&agent.begin_mutex);
    if (atomic_load(&agent.process) == NULL && atomic_load(&agent.collecting)) {
        struct ompc_process *slot = claim_process(parent);
        if (slot != NULL) {
            atomic_store(&slot->has_sample, (uint32_t)agent.has_sample);
            atomic_store(&slot->has_task_info, (uint32_t)agent.has_task_info);
            refresh_modules(slot, 1);
            atomic_store(&agent.process, slot);
            if (agent.record->flags & OMPC_OPT_SAMPLE)
                start_sampling(slot);
            current_thread();
            start_scanner();
        }
    }
    pthread_mutex_unlock(&agent.begin_mutex);
}

/* A process without a slot that now has an OpenMP runtime begins recording. */
static void begin_if_openmp(void)
{
    char path[OMPC_TEXT_SIZE];
    if (atomic_load(&agent.process) == NULL && agent.session_live && atomic_load(&agent.collecting)
        && find_runtime(path))
        begin_recording(-1);
}

/* ---- threads ---- */

/* What a thread started through our pthread_create runs first. */
struct start_box {
    void *(*start)(void *);
    void *argument;
};

/* Gives a new thread its slot and timer before any of its own code runs. */
static void *thread_trampoline(void *opaque)
{
    struct start_box box = *(struct start_box *)opaque;
    free(opaque);
    if (atomic_load(&agent.collecting))
        current_thread();
    return box.start(box.argument);
}

/*
 * pthread_create's hook (interpose.c): the agent is preloaded ahead of
 * libc, so the runtime's worker threads come through here and are sampled
 * from their first instruction.  The scanner catches whatever does not.
 */
int ompc_hook_pthread_create(struct ompc_agent *state, pthread_t *restrict thread,
                             const pthread_attr_t *restrict attributes, void *(*start)(void *),
                             void *restrict argument)
{
    if (state->real.pthread_create == NULL)
        return EAGAIN;
    if (!atomic_load(&state->collecting))
        return state->real.pthread_create(thread, attributes, start, argument);
    begin_if_openmp();
    if (atomic_load(&state->process) == NULL)
        return state->real.pthread_create(thread, attributes, start, argument);
    struct start_box *box = malloc(sizeof *box);
    if (box == NULL)
        return state->real.pthread_create(thread, attributes, start, argument);
    box->start = start;
    box->argument = argument;
    int result = state->real.pthread_create(thread, attributes, thread_trampoline, box);
    if (result != 0)
        free(box);
    return result;
}

/* ---- the program's own use of the sampling signal ---- */

/*
 * sigaction's hook (interpose.c).  For the sampling signal the program
 * gets a disposition of its own that our handler honours for every
 * delivery that is not our timers': its handler sees exactly its own
 * signals, we keep sampling, and what it reads back is what it set.
 * Every other signal goes straight to the C library.
 */
int ompc_hook_sigaction(struct ompc_agent *state, int signal_number, const struct sigaction *restrict action,
                        struct sigaction *restrict previous)
{
    if (state->real.sigaction == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (signal_number == 0 || signal_number != state->sample_signal || !atomic_load(&state->handler_installed))
        return state->real.sigaction(signal_number, action, previous);
    int current = atomic_load(&state->program_action_current);
    struct sigaction before = state->program_actions[current];
    if (action != NULL) {
        state->program_actions[1 - current] = *action;
        atomic_store(&state->program_action_current, 1 - current);
        struct ompc_process *owner = atomic_load(&state->process);
        if (owner != NULL && action->sa_handler != SIG_DFL && action->sa_handler != SIG_IGN
            && atomic_load(&owner->program_handler_ns) == 0) {
            uint64_t now = now_ns(state);
            atomic_store(&owner->program_handler_ns, now != 0 ? now : 1);
        }
    }
    if (previous != NULL)
        *previous = before;
    return 0;
}

/* signal() and friends in terms of the sigaction above, with the semantics glibc gives them. */
static sighandler_t emulate_signal(int signal_number, sighandler_t handler, int flags)
{
    struct sigaction action, previous;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    action.sa_flags = flags;
    sigemptyset(&action.sa_mask);
    /* The exported sigaction, as the program's own call would reach it (another interposer ahead of us included). */
    if (sigaction(signal_number, &action, &previous) != 0)
        return SIG_ERR;
    return previous.sa_handler;
}

/*
 * The hook of signal, bsd_signal and sysv_signal (interpose.c): `flags`
 * give each one's semantics when the sampling signal is emulated; glibc's
 * own call the library's sigaction internally, past our interposer.
 */
sighandler_t ompc_hook_signal(struct ompc_agent *state, signal_t real_signal, int signal_number,
                              sighandler_t handler, int flags)
{
    if (signal_number != 0 && signal_number == state->sample_signal && atomic_load(&state->handler_installed))
        return emulate_signal(signal_number, handler, flags);
    return real_signal != NULL ? real_signal(signal_number, handler) : SIG_ERR;
}

/*
 * The hook of sigprocmask and pthread_sigmask (interpose.c): a signal-mask
 * change of the calling thread through `change`.  Blocking the sampling
 * signal is the program's right; the thread's samples stop meanwhile, and
 * the time and the expirations it missed are recorded so the report can
 * say so instead of counting them as a state.
 */
int ompc_hook_mask_change(struct ompc_agent *state, sigmask_t change, int how, const sigset_t *set,
                          sigset_t *previous)
{
    if (change == NULL) {
        errno = ENOSYS;
        return -1;
    }
    struct ompc_thread *slot = self;
    struct ompc_process *owner = atomic_load(&state->process);
    int signal_number = state->sample_signal;
    if (slot == NULL || owner == NULL || slot == &owner->untracked || signal_number == 0
        || set == NULL)
        return change(how, set, previous);
    int was_blocked = atomic_load(&slot->blocked) == 1;
    int unblocks = was_blocked && ((how == SIG_UNBLOCK && sigismember(set, signal_number))
                                   || (how == SIG_SETMASK && !sigismember(set, signal_number)));
    int blocks = !was_blocked && (how == SIG_BLOCK || how == SIG_SETMASK)
                 && sigismember(set, signal_number);
    if (unblocks) {
        atomic_fetch_add(&slot->blocked_ns, now_ns(state) - slot->blocked_since_ns);
        atomic_store(&slot->blocked, 2);
    }
    int result = change(how, set, previous);
    if (result == 0 && blocks) {
        slot->blocked_since_ns = now_ns(state);
        atomic_store(&slot->blocked, 1);
        if (!slot->ever_blocked) {
            slot->ever_blocked = 1;
            atomic_fetch_add(&owner->blocking_threads, 1);
        }
    }
    return result;
}

/* ---- fork, exec, exit ---- */

/* Before fork: no scan and no slot claim may be half done in the child's copy. */
static void before_fork(void)
{
    pthread_mutex_lock(&agent.scan_lock);
    pthread_mutex_lock(&agent.begin_mutex);
    pthread_mutex_lock(&agent.slots_mutex);
}

/* In the parent after fork. */
static void after_fork_parent(void)
{
    pthread_mutex_unlock(&agent.slots_mutex);
    pthread_mutex_unlock(&agent.begin_mutex);
    pthread_mutex_unlock(&agent.scan_lock);
}

/*
 * In a forked child: it shares the parent's mapping, so it must never write
 * into the parent's slot.  A child of a recording process claims a slot of
 * its own at once (its timers and scanner are not inherited, so they are
 * started again); a child of one that was not recording waits, like any
 * other process, until it runs OpenMP.
 */
static void after_fork_child(void)
{
    pthread_mutex_unlock(&agent.slots_mutex);
    pthread_mutex_unlock(&agent.begin_mutex);
    pthread_mutex_unlock(&agent.scan_lock);
    pthread_mutex_init(&agent.scanner_mutex, NULL);
    agent.scanner_started = 0;
    /* A child inherits neither timers nor pending signals. */
    for (int i = 0; i < OMPC_MAX_THREADS; i++)
        atomic_store(&agent.has_timer[i], TIMER_NONE);
    self = NULL;
    if (agent.slot_key_made)
        pthread_setspecific(agent.slot_key, NULL);
    struct ompc_process *parent = atomic_exchange(&agent.process, NULL);
    agent.dropped = 0; /* a new process, with a slot to look for of its own */
    if (parent == NULL || !atomic_load(&agent.collecting))
        return;
    agent.origin_ns = monotonic_ns();
    begin_recording((int)parent->index);
}

/*
 * Before an exec: close this image's record and make sure no sampling
 * signal is left pending, because the new image starts with the default
 * action for it, which would end the process.  A vfork child shares our
 * memory but not our pid, and must leave the record alone.  The exec
 * interposers' hook (interpose.c), with ompc_hook_exec_returned.
 */
void ompc_hook_exec_before(struct ompc_agent *state)
{
    struct ompc_process *owner = atomic_load(&state->process);
    if (owner == NULL || owner->pid != getpid())
        return;
    int was_sampling = atomic_exchange(&state->sampling_on, 0);
    pthread_mutex_lock(&state->slots_mutex);
    for (int i = 0; i < OMPC_MAX_THREADS; i++)
        disarm_timer(i);
    pthread_mutex_unlock(&state->slots_mutex);
    if (state->sample_signal != 0) {
        sigset_t only, saved;
        sigemptyset(&only);
        sigaddset(&only, state->sample_signal);
        state->real.pthread_sigmask(SIG_BLOCK, &only, &saved);
        struct timespec zero = {0, 0};
        while (sigtimedwait(&only, NULL, &zero) > 0)
            continue;
        state->real.pthread_sigmask(SIG_SETMASK, &saved, NULL);
    }
    note_runtime(owner);
    atomic_store(&owner->end_ns, now_ns(state));
    atomic_store(&owner->state, OMPC_PROC_EXECED);
    atomic_store(&state->sampling_on, was_sampling);
}

/* The exec failed: the image goes on, and so does its record. */
static void after_failed_exec(struct ompc_agent *state)
{
    struct ompc_process *owner = atomic_load(&state->process);
    if (owner == NULL || owner->pid != getpid()
        || atomic_load(&owner->state) != OMPC_PROC_EXECED)
        return;
    atomic_store(&owner->end_ns, 0);
    atomic_store(&owner->state, OMPC_PROC_RECORDING);
    if (!atomic_load(&state->sampling_on))
        return;
    pthread_mutex_lock(&state->slots_mutex);
    int count = atomic_load(&owner->thread_count);
    for (int i = 0; i < count; i++)
        if (atomic_load(&owner->threads[i].status) == OMPC_SLOT_LIVE)
            arm_timer(&owner->threads[i], i);
    pthread_mutex_unlock(&state->slots_mutex);
}

/* An exec interposer's answer once the exec has come back (failed): its result and errno, with the record resumed. */
int ompc_hook_exec_returned(struct ompc_agent *state, int result)
{
    int error = errno;
    after_failed_exec(state);
    errno = error;
    return result;
}

/*
 * At exit: stop sampling and the session and close the record with the
 * exit status.  Registered after START, so it runs before the runtime's
 * own shutdown (which finalizes the shim) and after the program's
 * handlers.  Nothing is written anywhere but the record.
 */
static void at_exit(int status, void *unused)
{
    (void)unused;
    struct ompc_process *owner = atomic_load(&agent.process);
    if (owner == NULL || owner->pid != getpid())
        return;
    atomic_store(&agent.sampling_on, 0);
    /* Under the slots' lock, before the end is read: a claim either came first or finds collecting over, so no slot begins after the end. */
    pthread_mutex_lock(&agent.slots_mutex);
    atomic_store(&agent.collecting, 0);
    pthread_mutex_unlock(&agent.slots_mutex);
    uint64_t end = now_ns(&agent);
    stop_scanner();
    pthread_mutex_lock(&agent.slots_mutex);
    int count = atomic_load(&owner->thread_count);
    for (int i = 0; i < count; i++)
        release_locked(owner, &owner->threads[i], end);
    pthread_mutex_unlock(&agent.slots_mutex);
    note_runtime(owner);
    if (agent.session_live)
        simple_request(OMP_REQ_STOP);
    atomic_store(&owner->exit_status, status);
    atomic_store(&owner->end_ns, end);
    atomic_store(&owner->state, OMPC_PROC_ENDED);
}

/*
 * The collector cannot attach.  The launched process records why and ends
 * before main: a profile was asked for, and running unobserved would only
 * waste the user's time.  Any other process runs on unobserved; if it has
 * an OpenMP runtime, the record says that it was missed and why.
 */
static void cannot_attach(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void cannot_attach(const char *fmt, ...)
{
    char reason[OMPC_TEXT_SIZE], path[OMPC_TEXT_SIZE];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    int runtime = find_runtime(path);
    if (agent.is_main || runtime) {
        struct ompc_process *slot = claim_process(-1);
        if (slot != NULL) {
            set_text(slot->attach_error, reason);
            atomic_store(&slot->state, OMPC_PROC_REFUSED);
        } else if (agent.is_main) {
            fprintf(stderr, "ompcollect: cannot attach: %s\n", reason);
        }
    }
    if (agent.is_main)
        _exit(AGENT_REFUSE_STATUS);
}

/*
 * Runs before main in every process that inherits the preload and the
 * record (the launched one, its children, exec'd descendants).  Attaches,
 * registers events, and starts recording when the process runs OpenMP (the
 * launched one always).
 */
__attribute__((constructor)) static void agent_start(void)
{
    agent.record = map_record();
    if (agent.record == NULL)
        return;
    OMPC_RESOLVE(&agent, pthread_create);
    OMPC_RESOLVE(&agent, sigaction);
    OMPC_RESOLVE(&agent, sigprocmask);
    OMPC_RESOLVE(&agent, pthread_sigmask);
    OMPC_RESOLVE(&agent, signal);
    OMPC_RESOLVE(&agent, bsd_signal);
    OMPC_RESOLVE(&agent, sysv_signal);
    OMPC_RESOLVE(&agent, execve);
    OMPC_RESOLVE(&agent, execvpe);
    OMPC_RESOLVE(&agent, execv);
    OMPC_RESOLVE(&agent, execvp);
    OMPC_RESOLVE(&agent, fexecve);
    ompc_sleep_resolve(&agent);
    agent.origin_ns = monotonic_ns();
    agent.is_main = getpid() == agent.record->main_pid;
    agent.tick_ns = (uint64_t)ompc_kernel_tick_ns();
    if (agent.real.pthread_create == NULL || agent.real.sigaction == NULL || agent.real.pthread_sigmask == NULL) {
        cannot_attach("cannot find the C library's pthread_create, sigaction or pthread_sigmask");
        return;
    }
    agent.api = find_api();
    if (agent.api == NULL) {
        cannot_attach("%s was not found in the agent.process (is libompcollector.so preloaded?)",
                      OMP_COLLECTOR_API);
        return;
    }
    int ec = simple_request(OMP_REQ_START);
    if (ec != OMP_ERRCODE_OK) {
        cannot_attach("START answered %s: the OpenMP runtime did not take the shim on as its OMPT "
                      "tool (OMP_TOOL=disabled, or a runtime without OMPT such as GCC's libgomp)",
                      ec_name(ec));
        return;
    }
    ompcollector_sample_t probe;
    agent.has_sample = ompc_sample_request(&agent, &probe) == OMP_ERRCODE_OK;
    agent.has_task_request = probe_task_request();
    register_events(agent.record->event_mask);
    if (agent.record->flags & OMPC_OPT_TASKS) {
        register_task_events();
        agent.has_task_info = ompc_task_info_probe(&agent);
        agent.task_sampling = agent.has_task_info && agent.has_task_request && (agent.record->flags & OMPC_OPT_SAMPLE);
    }
    if (agent.request_count < 1 || agent.requests[0].ec != OMP_ERRCODE_OK) {
        cannot_attach("REGISTER of FORK answered %s", ec_name(agent.request_count ? agent.requests[0].ec : -1));
        simple_request(OMP_REQ_STOP);
        return;
    }
    agent.session_live = 1;
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    agent.slot_key_made = pthread_key_create(&agent.slot_key, on_thread_exit) == 0;
    on_exit(at_exit, NULL);
    atomic_store(&agent.collecting, 1);
    agent.session_began = monotonic_ns();
    char path[OMPC_TEXT_SIZE];
    if (agent.is_main || find_runtime(path))
        begin_recording(-1);
}
