/* agent.c - the ompcollect collector: attaches through __omp_collector_api alone, samples every thread's state on a wall-clock timer, counts regions and events, reports at exit. */
#define _GNU_SOURCE 1
#include <config.h>

#include "agent.h"
#include "omp_collector_api.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define AGENT_EXPORT __attribute__((visibility("default")))

/* Exit status of a process the agent refuses to run unobserved; the launcher reads the reason from the status file. */
#define AGENT_REFUSE_STATUS 125

typedef int (*collector_api_t)(void *);
typedef int (*pthread_create_t)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static collector_api_t api;
static pthread_create_t real_pthread_create;

static struct ompc_run run;
static struct ompc_thread threads[OMPC_MAX_THREADS];
static struct ompc_thread untracked;
static struct ompc_region regions[OMPC_MAX_REGIONS];
static _Atomic int thread_count;

static uint64_t origin_ns;
static _Atomic int collecting;  /* attached, report not yet begun, not a forked child */
static _Atomic int sampling_on; /* the signal handler may record */
static int sample_signal;
static struct sigaction program_action; /* what the program had for sample_signal */
static int runtime_seen_at_start;
static _Atomic int report_begun;
static const char *status_path;

/* Claims, timer changes and releases of thread slots; never taken in the signal handler. */
static pthread_mutex_t slots_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t slot_key;
static int slot_key_made;
static __thread struct ompc_thread *self;

/* The /proc/self/task scanner that catches threads not started through pthread_create. */
static pthread_t scanner;
static int scanner_started;
static pid_t scanner_tid;
static int scanner_stop;
static pthread_mutex_t scanner_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t scanner_cond;

/* Monotonic clock in ns since the agent started; clock_gettime is async-signal-safe. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec - origin_ns;
}

/* The kernel id of the calling thread, which SIGEV_THREAD_ID timers target. */
static pid_t current_tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* Appends one line to the launcher's status file; without a launcher there is no one to tell. */
static void status_line(const char *fmt, ...)
{
    if (status_path == NULL || status_path[0] == '\0')
        return;
    char line[512];
    va_list args;
    va_start(args, fmt);
    int length = vsnprintf(line, sizeof line - 1, fmt, args);
    va_end(args);
    if (length < 0)
        return;
    if ((size_t)length > sizeof line - 2)
        length = (int)sizeof line - 2;
    line[length++] = '\n';
    int fd = open(status_path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, line, (size_t)length);
    (void)ignored;
    close(fd);
}

/*
 * The program cannot be observed: tell the launcher why and end the process
 * before main runs, because a profile was asked for and running unobserved
 * would only waste the user's time.
 */
static void refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void refuse(const char *fmt, ...)
{
    char reason[400];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    if (status_path != NULL && status_path[0] != '\0')
        status_line("cannot-attach %s", reason);
    else
        fprintf(stderr, "ompcollect: cannot attach: %s\n", reason);
    _exit(AGENT_REFUSE_STATUS);
}

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
    int32_t buffer[5] = {16, request, 0, 0, 0};
    if (api(buffer) != 0)
        return -1;
    return buffer[2];
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

/* Arms a wall-clock timer that signals thread `slot` (and only it) every interval. */
static void arm_timer(struct ompc_thread *slot, int index)
{
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = sample_signal;
    event.sigev_value.sival_int = index;
    event.sigev_notify_thread_id = slot->tid;
    if (timer_create(CLOCK_MONOTONIC, &event, &slot->timer) != 0)
        return;
    struct itimerspec period;
    period.it_interval.tv_sec = (time_t)(run.interval_ns / 1000000000);
    period.it_interval.tv_nsec = (long)(run.interval_ns % 1000000000);
    period.it_value = period.it_interval;
    if (timer_settime(slot->timer, 0, &period, NULL) != 0) {
        timer_delete(slot->timer);
        return;
    }
    slot->has_timer = 1;
}

/*
 * The live slot of thread `tid`, claimed (and its timer armed) if it has
 * none.  Slots are never reused, so report order is the order threads were
 * first seen.  NULL once OMPC_MAX_THREADS are taken.
 */
static struct ompc_thread *claim_thread(pid_t tid, int initial)
{
    pthread_mutex_lock(&slots_mutex);
    int count = atomic_load_explicit(&thread_count, memory_order_relaxed);
    for (int i = 0; i < count; i++) {
        if (threads[i].tid == tid && atomic_load(&threads[i].status) == OMPC_SLOT_LIVE) {
            pthread_mutex_unlock(&slots_mutex);
            return &threads[i];
        }
    }
    if (count == OMPC_MAX_THREADS || !atomic_load(&collecting)) {
        if (count == OMPC_MAX_THREADS)
            atomic_fetch_add(&run.threads_not_followed, 1);
        pthread_mutex_unlock(&slots_mutex);
        return NULL;
    }
    struct ompc_thread *slot = &threads[count];
    slot->tid = tid;
    slot->initial = initial;
    slot->start_ns = now_ns();
    slot->last_state = -1;
    if (run.timeline != NULL) {
        void *memory = mmap(NULL, OMPC_TIMELINE_CAP * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        slot->timeline = memory != MAP_FAILED ? memory : NULL;
    }
    atomic_store(&slot->status, OMPC_SLOT_LIVE);
    if (run.sampling)
        arm_timer(slot, count);
    atomic_store_explicit(&thread_count, count + 1, memory_order_release);
    pthread_mutex_unlock(&slots_mutex);
    return slot;
}

/* Stops sampling a thread; caller holds slots_mutex. */
static void release_locked(struct ompc_thread *slot, uint64_t when)
{
    if (atomic_load(&slot->status) != OMPC_SLOT_LIVE)
        return;
    if (slot->has_timer) {
        timer_delete(slot->timer);
        slot->has_timer = 0;
    }
    atomic_store(&slot->end_ns, when);
    atomic_store(&slot->status, OMPC_SLOT_EXITED);
}

/* A thread that registered itself is exiting: its lifetime ends here. */
static void on_thread_exit(void *slot)
{
    pthread_mutex_lock(&slots_mutex);
    release_locked(slot, now_ns());
    pthread_mutex_unlock(&slots_mutex);
}

/* The calling thread's slot, claimed on first use; threads past the limit share `untracked`. */
static struct ompc_thread *current_thread(void)
{
    if (self != NULL)
        return self;
    pid_t tid = current_tid();
    struct ompc_thread *slot = claim_thread(tid, tid == getpid());
    if (slot == NULL)
        return self = &untracked;
    if (slot_key_made)
        pthread_setspecific(slot_key, slot);
    return self = slot;
}

/*
 * The region row for `id`, inserted when `create` is set.  Lock-free (one
 * compare-and-swap per new id) so the signal handler may call it.  NULL
 * when the table is full around this id.
 */
static struct ompc_region *region_row(uint64_t id, int create)
{
    uint64_t hash = id * UINT64_C(0x9E3779B97F4A7C15);
    for (unsigned probe = 0; probe < 64; probe++) {
        struct ompc_region *row = &regions[((hash >> 50) + probe) % OMPC_MAX_REGIONS];
        uint64_t seen = atomic_load_explicit(&row->id, memory_order_acquire);
        if (seen == id)
            return row;
        if (seen == 0) {
            if (!create)
                return NULL;
            uint64_t expected = 0;
            if (atomic_compare_exchange_strong(&row->id, &expected, id) || expected == id)
                return row;
        }
    }
    return NULL;
}

/* Remembers that this thread waited for object `id` in `state`; only the thread's own handler writes here. */
static void count_wait(struct ompc_thread *slot, int state, uint64_t id, uint64_t weight)
{
    uint64_t hash = (id ^ (uint64_t)state) * UINT64_C(0x9E3779B97F4A7C15);
    for (unsigned probe = 0; probe < OMPC_WAIT_SLOTS; probe++) {
        struct ompc_wait *wait = &slot->waits[((hash >> 59) + probe) % OMPC_WAIT_SLOTS];
        uint32_t used = atomic_load_explicit(&wait->state, memory_order_relaxed);
        if (used == 0) {
            atomic_store_explicit(&wait->id, id, memory_order_relaxed);
            atomic_store_explicit(&wait->state, (uint32_t)state, memory_order_release);
            used = (uint32_t)state;
        }
        if (used == (uint32_t)state && atomic_load_explicit(&wait->id, memory_order_relaxed) == id) {
            atomic_fetch_add_explicit(&wait->ticks, weight, memory_order_relaxed);
            return;
        }
    }
    atomic_fetch_add_explicit(&slot->wait_overflow_ticks, weight, memory_order_relaxed);
}

/*
 * One sample of the interrupted thread: STATE (28-byte entry: state at
 * mem+0, wait id at mem+4) and CURRENT_PRID (24-byte entry) in one call,
 * both async-signal-safe.  `weight` counts timer expirations the kernel
 * folded into this signal while the thread was off the CPU: the thread
 * could not change state meanwhile, so they belong to this state.
 */
static void take_sample(struct ompc_thread *slot, int index, uint64_t weight)
{
    int32_t buffer[14] = {28, OMP_REQ_STATE, 0, 0, 0, 0, 0, 24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    int32_t state = 0;
    uint64_t wait_id = 0;
    uint64_t region_id = 0;
    if (api(buffer) == 0) {
        if (buffer[2] == OMP_ERRCODE_OK || buffer[2] == OMP_ERRCODE_MEM_TOO_SMALL)
            memcpy(&state, &buffer[4], sizeof state);
        if (buffer[2] == OMP_ERRCODE_OK)
            memcpy(&wait_id, &buffer[5], sizeof wait_id);
        if (buffer[9] == OMP_ERRCODE_OK)
            memcpy(&region_id, &buffer[11], sizeof region_id);
    }
    if (state < 1 || state >= OMPC_NSTATES)
        state = 0;
    uint64_t now = now_ns();
    atomic_fetch_add_explicit(&slot->signals, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&slot->ticks, weight, memory_order_relaxed);
    atomic_fetch_add_explicit(&slot->state_ticks[state], weight, memory_order_relaxed);
    atomic_store_explicit(&slot->last_sample_ns, now, memory_order_relaxed);
    if (state == THR_LKWT_STATE || state == THR_CTWT_STATE || state == THR_ODWT_STATE
        || state == THR_ATWT_STATE)
        count_wait(slot, state, wait_id, weight);
    if (region_id != 0) {
        struct ompc_region *row = region_row(region_id, 1);
        if (row != NULL) {
            atomic_fetch_add_explicit(&row->ticks[state], weight, memory_order_relaxed);
            atomic_fetch_or_explicit(&row->thread_mask, UINT64_C(1) << (index % 64),
                                     memory_order_relaxed);
        }
    }
    if (slot->timeline != NULL && state != slot->last_state) {
        uint32_t length = atomic_load_explicit(&slot->timeline_length, memory_order_relaxed);
        if (length < OMPC_TIMELINE_CAP) {
            /* Folded expirations mean the thread sat in this state, off the CPU, that long already. */
            uint64_t since = now - (weight - 1) * (uint64_t)run.interval_ns;
            if (since > now || since < slot->start_ns)
                since = slot->start_ns;
            uint64_t since_us = since / 1000;
            if (length > 0 && since_us < (slot->timeline[length - 1] >> 8))
                since_us = slot->timeline[length - 1] >> 8;
            slot->timeline[length] = (since_us << 8) | (uint64_t)state;
            atomic_store_explicit(&slot->timeline_length, length + 1, memory_order_release);
            slot->last_state = state;
        } else {
            atomic_store_explicit(&slot->timeline_truncated, 1, memory_order_relaxed);
        }
    }
}

/* A SIGURG that is not one of our timers' belongs to whatever handler the program had. */
static void pass_on(int signal_number, siginfo_t *info, void *context)
{
    if (program_action.sa_flags & SA_SIGINFO) {
        if (program_action.sa_sigaction != NULL)
            program_action.sa_sigaction(signal_number, info, context);
    } else if (program_action.sa_handler != SIG_DFL && program_action.sa_handler != SIG_IGN
               && program_action.sa_handler != NULL) {
        program_action.sa_handler(signal_number);
    }
}

/*
 * The sampling signal.  The timer's value names the thread's slot, so the
 * handler needs no lookup; it touches only the API, the clock and that
 * slot's preallocated counters.
 */
static void on_sample(int signal_number, siginfo_t *info, void *context)
{
    if (info->si_code != SI_TIMER) {
        pass_on(signal_number, info, context);
        return;
    }
    int saved_errno = errno;
    int index = info->si_value.sival_int;
    if (index >= 0 && index < OMPC_MAX_THREADS
        && atomic_load_explicit(&sampling_on, memory_order_acquire)
        && atomic_load_explicit(&threads[index].status, memory_order_acquire) == OMPC_SLOT_LIVE)
        take_sample(&threads[index], index, 1 + (uint64_t)(info->si_overrun > 0 ? info->si_overrun : 0));
    errno = saved_errno;
}

/* FORK and JOIN: the region's id (and at FORK its parent) as the master sees it. */
static void region_event(int event, uint64_t now)
{
    int32_t buffer[13] = {24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 24, OMP_REQ_PARENT_PRID, 0, 0, 0, 0, 0};
    if (event != OMP_EVENT_FORK)
        buffer[6] = 0;
    if (api(buffer) != 0 || buffer[2] != OMP_ERRCODE_OK)
        return;
    uint64_t region_id, parent_id = 0;
    memcpy(&region_id, &buffer[4], sizeof region_id);
    if (event == OMP_EVENT_FORK && buffer[8] == OMP_ERRCODE_OK)
        memcpy(&parent_id, &buffer[10], sizeof parent_id);
    struct ompc_region *row = region_row(region_id, 1);
    if (event == OMP_EVENT_FORK) {
        if (row == NULL) {
            atomic_fetch_add(&run.regions_overflow_forks, 1);
            return;
        }
        atomic_fetch_add(&row->forks, 1);
        atomic_store(&row->parent, parent_id);
        atomic_store(&row->fork_ns, now);
    } else if (row != NULL) {
        atomic_fetch_add(&row->joins, 1);
        uint64_t began = atomic_load(&row->fork_ns);
        if (began != 0 && now > began)
            atomic_fetch_add(&row->time_ns, now - began);
    }
}

/* The one callback for every registered event; runs on the thread where the event happens. */
static void on_event(OMP_COLLECTORAPI_EVENT event_code)
{
    int event = (int)event_code;
    if (!atomic_load_explicit(&collecting, memory_order_relaxed) || event <= 0
        || event >= OMPC_NEVENTS)
        return;
    int saved_errno = errno;
    uint64_t now = now_ns();
    struct ompc_thread *slot = current_thread();
    atomic_fetch_add_explicit(&slot->events[event], 1, memory_order_relaxed);
    if (event == OMP_EVENT_FORK || event == OMP_EVENT_JOIN) {
        region_event(event, now);
    } else if (slot != &untracked) {
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

/* Registers FORK, JOIN and the --events selection in one batch, remembering each answer. */
static void register_events(uint32_t mask)
{
    enum { ENTRY_INTS = 8 };
    int32_t buffer[ENTRY_INTS * OMPC_NEVENTS + 1];
    int count = 0;
    mask |= (UINT32_C(1) << OMP_EVENT_FORK) | (UINT32_C(1) << OMP_EVENT_JOIN);
    omp_collector_callback_t callback = on_event;
    for (int event = 1; event < OMPC_NEVENTS; event++) {
        if (!(mask & (UINT32_C(1) << event)))
            continue;
        int32_t *entry = &buffer[count * ENTRY_INTS];
        memset(entry, 0, ENTRY_INTS * sizeof *entry);
        entry[0] = ENTRY_INTS * 4;
        entry[1] = OMP_REQ_REGISTER;
        entry[4] = event;
        memcpy(&entry[6], &callback, sizeof callback);
        run.requests[count].event = event;
        count++;
    }
    buffer[count * ENTRY_INTS] = 0;
    int result = api(buffer);
    for (int i = 0; i < count; i++)
        run.requests[i].ec = result == 0 ? buffer[i * ENTRY_INTS + 2] : -1;
    run.request_count = count;
    run.event_mask = mask;
}

/* Threads that already exist or were started behind pthread_create's back get a slot here. */
static void scan_tasks(void)
{
    uint64_t scan_began = now_ns();
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
        if (tid != scanner_tid)
            claim_thread(tid, tid == getpid());
    }
    closedir(directory);
    if (!complete)
        return;
    uint64_t now = now_ns();
    pthread_mutex_lock(&slots_mutex);
    int count = atomic_load(&thread_count);
    for (int i = 0; i < count; i++) {
        /* A thread claimed after the listing began may simply not be in it. */
        if (atomic_load(&threads[i].status) != OMPC_SLOT_LIVE || threads[i].start_ns >= scan_began)
            continue;
        int alive = 0;
        for (int j = 0; j < present_count && !alive; j++)
            alive = present[j] == threads[i].tid;
        if (!alive)
            release_locked(&threads[i], now);
    }
    pthread_mutex_unlock(&slots_mutex);
}

/* The scanner thread: a look at /proc/self/task every 10 ms until the report. */
static void *scanner_main(void *unused)
{
    (void)unused;
    scanner_tid = current_tid();
    pthread_mutex_lock(&scanner_mutex);
    while (!scanner_stop) {
        pthread_mutex_unlock(&scanner_mutex);
        scan_tasks();
        pthread_mutex_lock(&scanner_mutex);
        struct timespec deadline;
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_nsec += 10000000;
        if (deadline.tv_nsec >= 1000000000) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000;
        }
        if (!scanner_stop)
            pthread_cond_timedwait(&scanner_cond, &scanner_mutex, &deadline);
    }
    pthread_mutex_unlock(&scanner_mutex);
    return NULL;
}

/* Starts the scanner with the sampling signal blocked: it is the agent's, not the program's. */
static void start_scanner(void)
{
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&scanner_cond, &attributes);
    pthread_condattr_destroy(&attributes);
    sigset_t blocked, previous;
    sigemptyset(&blocked);
    sigaddset(&blocked, sample_signal);
    pthread_sigmask(SIG_BLOCK, &blocked, &previous);
    scanner_started = real_pthread_create(&scanner, NULL, scanner_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

/* Ends the scanner before the report, so no slot changes under the report's feet. */
static void stop_scanner(void)
{
    if (!scanner_started)
        return;
    pthread_mutex_lock(&scanner_mutex);
    scanner_stop = 1;
    pthread_cond_signal(&scanner_cond);
    pthread_mutex_unlock(&scanner_mutex);
    pthread_join(scanner, NULL);
    scanner_started = 0;
}

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
    if (atomic_load(&collecting))
        current_thread();
    return box.start(box.argument);
}

/*
 * pthread_create, interposed: the agent is preloaded ahead of libc, so the
 * runtime's worker threads come through here and are sampled from their
 * first instruction.  The scanner catches whatever does not.
 */
AGENT_EXPORT int pthread_create(pthread_t *restrict thread, const pthread_attr_t *restrict attributes,
                                void *(*start)(void *), void *restrict argument)
{
    if (real_pthread_create == NULL)
        real_pthread_create = (pthread_create_t)dlsym(RTLD_NEXT, "pthread_create");
    if (real_pthread_create == NULL)
        return EAGAIN;
    if (!atomic_load(&collecting))
        return real_pthread_create(thread, attributes, start, argument);
    struct start_box *box = malloc(sizeof *box);
    if (box == NULL)
        return real_pthread_create(thread, attributes, start, argument);
    box->start = start;
    box->argument = argument;
    int result = real_pthread_create(thread, attributes, thread_trampoline, box);
    if (result != 0)
        free(box);
    return result;
}

/* A forked child is not the program being observed: it must neither sample nor report. */
static void after_fork_in_child(void)
{
    atomic_store(&collecting, 0);
    atomic_store(&sampling_on, 0);
    scanner_started = 0;
}

/* Reads the launcher's settings; malformed ones are the launcher's bug, so refuse loudly. */
static void read_configuration(void)
{
    const char *text;
    run.format = OMPC_FORMAT_TEXT;
    if ((text = getenv("OMPCOLLECT_FORMAT")) != NULL && text[0] != '\0'
        && (run.format = ompc_parse_format(text)) < 0)
        refuse("OMPCOLLECT_FORMAT=%s is not text, csv or json", text);
    run.interval_ns = 1000000;
    if ((text = getenv("OMPCOLLECT_INTERVAL_NS")) != NULL && text[0] != '\0') {
        char *end;
        run.interval_ns = strtoll(text, &end, 10);
        if (*end != '\0' || run.interval_ns < 10000 || run.interval_ns > 10000000000LL)
            refuse("OMPCOLLECT_INTERVAL_NS=%s is not a number of ns in 10000..1e10", text);
    }
    run.event_mask = 0;
    if ((text = getenv("OMPCOLLECT_EVENTS")) != NULL && text[0] != '\0') {
        char bad[64];
        if (ompc_parse_events(text, &run.event_mask, bad, sizeof bad) != 0)
            refuse("OMPCOLLECT_EVENTS names an unknown event '%s'", bad);
    }
    text = getenv("OMPCOLLECT_SAMPLE");
    run.sampling = !(text != NULL && strcmp(text, "0") == 0);
    if ((text = getenv("OMPCOLLECT_OUTPUT")) != NULL && text[0] != '\0')
        run.output = strdup(text);
    if ((text = getenv("OMPCOLLECT_TIMELINE")) != NULL && text[0] != '\0')
        run.timeline = strdup(text);
    run.program = program_invocation_name;
    run.pid = getpid();
    run.threads = threads;
    run.untracked = &untracked;
    run.regions = regions;
}

/* Whether any FORK reached the agent. */
static int any_fork_seen(void)
{
    if (atomic_load(&untracked.events[OMP_EVENT_FORK]) != 0)
        return 1;
    int count = atomic_load(&thread_count);
    for (int i = 0; i < count; i++)
        if (atomic_load(&threads[i].events[OMP_EVENT_FORK]) != 0)
            return 1;
    return 0;
}

/*
 * At exit: stop sampling and the session, then write the report.  Runs as
 * an atexit handler registered after START, so before the runtime's own
 * shutdown (which finalizes the shim) and after the program's handlers.
 */
static void write_report(void)
{
    if (getpid() != run.pid || atomic_exchange(&report_begun, 1))
        return;
    uint64_t end = now_ns();
    atomic_store(&sampling_on, 0);
    stop_scanner();
    pthread_mutex_lock(&slots_mutex);
    int count = atomic_load(&thread_count);
    for (int i = 0; i < count; i++) {
        if (threads[i].has_timer) {
            timer_delete(threads[i].timer);
            threads[i].has_timer = 0;
        }
        if (atomic_load(&threads[i].status) == OMPC_SLOT_LIVE)
            atomic_store(&threads[i].end_ns, end);
    }
    pthread_mutex_unlock(&slots_mutex);
    simple_request(OMP_REQ_STOP);
    atomic_store(&collecting, 0);
    run.wall_ns = end;
    run.thread_count = count;

    if (!any_fork_seen() && !runtime_seen_at_start
        && dlsym(RTLD_DEFAULT, "omp_get_max_threads") == NULL) {
        status_line("cannot-attach the program never loaded an OpenMP runtime, so there was "
                    "nothing to observe (not an OpenMP program?)");
        return;
    }

    FILE *out = stderr;
    if (run.output != NULL && (out = fopen(run.output, "w")) == NULL) {
        status_line("report-error cannot write %s: %s", run.output, strerror(errno));
        return;
    }
    int failed = ompc_write_report(&run, out) != 0;
    failed |= out != stderr ? fclose(out) != 0 : fflush(out) != 0;
    if (failed) {
        status_line("report-error writing the report to %s failed", run.output ? run.output : "stderr");
        return;
    }
    if (run.timeline != NULL) {
        FILE *svg = fopen(run.timeline, "w");
        if (svg == NULL) {
            status_line("report-error cannot write %s: %s", run.timeline, strerror(errno));
            return;
        }
        failed = ompc_write_timeline(&run, svg) != 0;
        failed |= fclose(svg) != 0;
        if (failed) {
            status_line("report-error writing the timeline to %s failed", run.timeline);
            return;
        }
    }
    status_line("reported");
}

/*
 * Installs the sampling handler; SA_RESTART keeps the program's system calls
 * from seeing EINTR.  The signal is SIGURG because its default action is to
 * ignore it: a timer signal still queued when the program execs, or reaching
 * a thread after the report, must not kill anything.
 */
static void start_sampling(void)
{
    sample_signal = SIGURG;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_sample;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(sample_signal, &action, &program_action) != 0)
        refuse("cannot install the sampling signal handler: %s", strerror(errno));
    atomic_store(&sampling_on, 1);
}

/*
 * Runs before main in the process the launcher started (OMPCOLLECT_PID
 * names it; children and exec'ed descendants inherit the preload but stay
 * dormant).  Attaches, registers events, arms the initial thread's timer.
 */
__attribute__((constructor)) static void agent_start(void)
{
    const char *pid_text = getenv("OMPCOLLECT_PID");
    if (pid_text == NULL || strtol(pid_text, NULL, 10) != (long)getpid())
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    origin_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    if ((status_path = getenv("OMPCOLLECT_STATUS")) != NULL)
        status_path = strdup(status_path);
    read_configuration();
    if (real_pthread_create == NULL)
        real_pthread_create = (pthread_create_t)dlsym(RTLD_NEXT, "pthread_create");
    if (real_pthread_create == NULL)
        refuse("cannot find the C library's pthread_create");

    api = find_api();
    if (api == NULL)
        refuse("%s was not found in the process (is libompcollector.so preloaded?)", OMP_COLLECTOR_API);
    int ec = simple_request(OMP_REQ_START);
    if (ec != OMP_ERRCODE_OK)
        refuse("START answered %s: the OpenMP runtime did not take the shim on as its OMPT tool "
               "(OMP_TOOL=disabled, or a runtime without OMPT such as GCC's libgomp)",
               ec_name(ec));
    runtime_seen_at_start = dlsym(RTLD_DEFAULT, "omp_get_max_threads") != NULL;
    register_events(run.event_mask);
    if (run.request_count < 1 || run.requests[0].ec != OMP_ERRCODE_OK)
        refuse("REGISTER of FORK answered %s", ec_name(run.request_count ? run.requests[0].ec : -1));

    pthread_atfork(NULL, NULL, after_fork_in_child);
    slot_key_made = pthread_key_create(&slot_key, on_thread_exit) == 0;
    atomic_store(&collecting, 1);
    if (run.sampling)
        start_sampling();
    current_thread();
    if (run.sampling)
        start_scanner();
    atexit(write_report);
    status_line("attached pid %ld", (long)getpid());
}
