/* sampler.c - the sampling signal's handler inside the observed program: each delivery of a thread's timer signal reads the thread's state through the Collector API and counts it in the thread's slot of the record. */
/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Every function in this file is async-signal-safe: it runs in the
 * sampling signal's handler, which interrupts the program's threads
 * anywhere, in malloc or holding any lock.  Here that means: no malloc or
 * free, no lock (no pthread mutex, no stdio, nothing that may take the C
 * library's internal locks), no errno left changed; only async-signal-safe
 * calls (clock_gettime, sigaction, pthread_sigmask, raise), the Collector
 * API's STATE, CURRENT_PRID and OMPCOLLECTOR_REQ_SAMPLE requests (which
 * the API answers async-signal-safely) laid out by the request builder
 * (request.h), the agent's other handler-safe functions
 * (ompc_stackwalk_sample, ompc_stackwalk_pc, ompc_critical_current, ompc_event_pair,
 * ompc_barrier_site), and
 * data that is either the interrupted thread's own
 * (its slot, its timeline, its event log, thread-local variables) or
 * shared through atomics and lock-free tables (regions, constructs, serial places).  A
 * delivery that is not one of our timers' goes to the program's own
 * handler (pass_on), which answers for itself.  Anything that needs more
 * is agent.c's, outside the handler.  The steps of take_sample are always
 * inlined, so splitting it costs a sample no call.  The agent's state
 * (agent_state.h) comes in as `agent` rather than from globals, so what
 * the handler may touch of it is what its parameters show.
 */
#define _GNU_SOURCE 1
#include <config.h>

#include "agent.h"
#include "agent_critical.h"
#include "agent_tasks.h"
#include "names.h"
#include "omp_collector_api.h"
#include "record.h"
#include "request.h"
#include "runtime_text.h"
#include "stackwalk.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

/* OMPCOLLECTOR_REQ_SAMPLE for the calling thread (async-signal-safe); its ec, or -1 when the call failed. */
int ompc_sample_request(struct ompc_agent *agent, ompcollector_sample_t *out)
{
    int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(sizeof *out))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int entry = ompc_request_add(&batch, OMPCOLLECTOR_REQ_SAMPLE, sizeof *out);
    if (ompc_request_send(&batch, agent->api) != 0)
        return -1;
    memcpy(out, ompc_request_mem(&batch, entry), sizeof *out);
    return ompc_request_ec(&batch, entry);
}

/*
 * STATE (state at mem+0, wait id at mem+4) and CURRENT_PRID in one call
 * (async-signal-safe), for a runtime without OMPCOLLECTOR_REQ_SAMPLE.
 */
int ompc_state_request(struct ompc_agent *agent, ompcollector_sample_t *out)
{
    int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(OMPC_REQUEST_STATE_MEM)
                                       + OMPC_REQUEST_SIZE(OMPC_REQUEST_PRID_MEM))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int state = ompc_request_add(&batch, OMP_REQ_STATE, OMPC_REQUEST_STATE_MEM);
    int prid = ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
    *out = (ompcollector_sample_t){0};
    if (ompc_request_send(&batch, agent->api) != 0)
        return -1;
    if (ompc_request_ec(&batch, state) == OMP_ERRCODE_OK) {
        out->state = ompc_request_int(&batch, state, 0);
        out->wait_id = ompc_request_u64(&batch, state, 4);
    }
    if (ompc_request_ec(&batch, prid) == OMP_ERRCODE_OK)
        out->region_id = ompc_request_u64(&batch, prid, 0);
    return 0;
}

/*
 * Timer expirations one delivery of thread `index`'s signal stands for: those
 * the period's fixed expiry points (arm_timer) put between the last counted
 * one and now.  A thread off the CPU or with the signal blocked collects
 * one pending signal for many; and an expiration that came while an earlier
 * signal was being handled is counted by that handler and again brings a
 * signal of its own, which then stands for none (0): counting the kernel's
 * 1 + si_overrun for it would count that time twice, and a thread could
 * then be sampled for longer than its timer ran.  Only before the period's
 * start is known (never, as arm_timer orders it) does the kernel's count serve.
 * Async-signal-safe: yes, only the thread's own signal handler calls it.
 */
static uint64_t expirations(struct ompc_agent *agent, int index, int overrun)
{
    uint64_t armed = atomic_load_explicit(&agent->timer_armed_ns[index], memory_order_relaxed);
    uint64_t counted = atomic_load_explicit(&agent->timer_counted[index], memory_order_relaxed);
    uint64_t now = monotonic_ns();
    if (armed == 0 || agent->record->interval_ns <= 0)
        return 1 + (uint64_t)(overrun > 0 ? overrun : 0);
    uint64_t due = now > armed ? (now - armed) / (uint64_t)agent->record->interval_ns : 0;
    if (due <= counted)
        return 0;
    atomic_store_explicit(&agent->timer_counted[index], due, memory_order_relaxed);
    return due - counted;
}

/* Remembers that this thread waited for object `id` in `state` at `codeptr`; only the thread's own handler writes here. */
static void count_wait(struct ompc_agent *agent, struct ompc_thread *slot, int state, uint64_t id, uint64_t codeptr,
                       uint64_t object, int kind, uint64_t weight)
{
    uint64_t table = atomic_load_explicit(&slot->waits, memory_order_relaxed);
    struct ompc_wait *waits = table != 0 ? (struct ompc_wait *)((char *)agent->record + table) : NULL;
    uint64_t hash = (id ^ (uint64_t)state ^ codeptr) * UINT64_C(0x9E3779B97F4A7C15);
    /* Probing is bounded: a full table costs a sample a few probes, not a walk of every slot. */
    for (unsigned probe = 0; waits != NULL && probe < 64; probe++) {
        struct ompc_wait *wait = &waits[((hash >> 40) + probe) % OMPC_WAIT_SLOTS];
        uint32_t used = atomic_load_explicit(&wait->state, memory_order_relaxed);
        if (used == 0) {
            atomic_store_explicit(&wait->id, id, memory_order_relaxed);
            atomic_store_explicit(&wait->codeptr, codeptr, memory_order_relaxed);
            atomic_store_explicit(&wait->object, object, memory_order_relaxed);
            wait->kind = (uint32_t)kind;
            atomic_store_explicit(&wait->state, (uint32_t)state, memory_order_release);
            used = (uint32_t)state;
        }
        if (used == (uint32_t)state && atomic_load_explicit(&wait->id, memory_order_relaxed) == id
            && atomic_load_explicit(&wait->codeptr, memory_order_relaxed) == codeptr) {
            atomic_fetch_add_explicit(&wait->ticks, weight, memory_order_relaxed);
            return;
        }
    }
    atomic_fetch_add_explicit(&slot->wait_overflow_ticks, weight, memory_order_relaxed);
}

/*
 * In the sampling handler: the thread is in the wait whose BEGIN it logged
 * last; that entry gets the wait id and code address the callback could
 * not see yet.  The handler interrupts the thread itself, so the entry is
 * not being written meanwhile.
 */
static void complete_wait_entry(struct ompc_agent *agent, struct ompc_thread *slot, int state, uint64_t wait_id,
                                uint64_t codeptr)
{
    static const int pair_states[OMPC_NPAIRS] = {0, THR_IBAR_STATE, THR_EBAR_STATE, THR_LKWT_STATE,
                                                  THR_CTWT_STATE, THR_ODWT_STATE, 0, 0, 0, THR_ATWT_STATE};
    uint32_t open = atomic_load_explicit(&slot->event_log_open_wait, memory_order_relaxed);
    if (open == 0 || open > slot->event_log_capacity)
        return;
    struct ompc_event_entry *entry = (struct ompc_event_entry *)((char *)agent->record
                                     + atomic_load_explicit(&slot->event_log, memory_order_relaxed)) + (open - 1);
    int pair = ompc_event_pair(OMPC_EVENT_CODE(entry));
    if (pair < 0 || pair >= OMPC_NPAIRS || pair_states[pair] != state || entry->wait_id != 0)
        return;
    entry->wait_id = wait_id;
    entry->codeptr = codeptr;
    atomic_store_explicit(&slot->event_log_open_wait, 0, memory_order_relaxed);
}

/* What one sample read of the interrupted thread. */
struct sample {
    int state;          /* 0: no valid answer */
    uint64_t wait_id;   /* in a wait state */
    uint64_t region_id; /* 0: none */
    ompcollector_sample_t extended; /* all 0 unless the runtime answers OMPCOLLECTOR_REQ_SAMPLE */
    int runtime_site;   /* the runtime gave the wait an address of its own code, now 0 (ompc_barrier_site) */
};

/*
 * In the sampling handler (async-signal-safe): a signal the thread had
 * blocked says nothing of its state, so of the expirations it folded only
 * the one delivered counts, and the rest are counted as blocked.  Returns
 * the weight the sample counts for.
 */
static inline __attribute__((always_inline)) uint64_t unblocked_weight(struct ompc_thread *slot, uint64_t weight)
{
    if (atomic_load_explicit(&slot->blocked, memory_order_relaxed) == 2) {
        atomic_fetch_add_explicit(&slot->blocked_ticks, weight - 1, memory_order_relaxed);
        weight = 1;
        atomic_store_explicit(&slot->blocked, 0, memory_order_relaxed);
    }
    return weight;
}

/*
 * In the sampling handler (async-signal-safe): the interrupted thread's
 * state, wait id and region id, from OMPCOLLECTOR_REQ_SAMPLE when the
 * runtime answered it at START, else from STATE and CURRENT_PRID
 * (ompc_state_request), both async-signal-safe.
 */
static inline __attribute__((always_inline)) void read_sample(struct ompc_agent *agent, struct sample *sample)
{
    *sample = (struct sample){0};
    ompcollector_sample_t legacy;
    const ompcollector_sample_t *answer = NULL;
    if (agent->has_sample) {
        if (ompc_sample_request(agent, &sample->extended) == OMP_ERRCODE_OK)
            answer = &sample->extended;
    } else if (ompc_state_request(agent, &legacy) == 0) {
        /* The legacy answer has no code addresses: sample->extended stays zero. */
        answer = &legacy;
    }
    if (answer == NULL)
        return;
    if (answer->state > 0 && answer->state < OMPC_NSTATES) {
        sample->state = answer->state;
        sample->wait_id = answer->wait_id;
    }
    sample->region_id = answer->region_id;
}

/* In the sampling handler (async-signal-safe): a sample in a wait counts for the object and code address waited for, one holding a lock, critical, atomic or ordered for the object held. */
static inline __attribute__((always_inline)) void sample_wait(struct ompc_agent *agent, struct ompc_thread *slot,
                                                              struct sample *sample, uint64_t weight)
{
    int state = sample->state;
    ompcollector_sample_t *extended = &sample->extended;
    int held = state == THR_WORK_STATE && extended->wait_kind == OMPCOLLECTOR_WAIT_HELD && extended->wait_codeptr != 0;
    if ((state == THR_CTWT_STATE || held) && extended->wait_codeptr != 0) {
        /* A named critical's object is the compiler's variable, when the thread entered it through us at this very call. */
        const struct ompc_critical_entry *entered = ompc_critical_current();
        if (entered->call_site == extended->wait_codeptr && entered->variable != 0)
            extended->wait_object = entered->variable;
    }
    if (state == THR_LKWT_STATE || state == THR_CTWT_STATE || state == THR_ODWT_STATE
        || state == THR_ATWT_STATE)
        count_wait(agent, slot, state, sample->wait_id, extended->wait_codeptr, extended->wait_object, 0, weight);
    else if (held)
        /* The body of a lock, critical, atomic or ordered: WORK in a row of its own, keyed as its wait is on libomp (wait id = object). */
        count_wait(agent, slot, state, extended->wait_object, extended->wait_codeptr, extended->wait_object,
                   OMPCOLLECTOR_WAIT_HELD, weight);
    else if (agent->has_sample && (state == THR_EBAR_STATE || state == THR_IBAR_STATE)) {
        /*
         * Runtimes often give a worker's implicit barrier no code address:
         * it is its region's.  So is a wait the runtime placed in its own
         * code (libomp 14 does for some of GCC code's joins and
         * taskwaits): the region is the nearest place of the user's known.
         */
        uint64_t where = extended->wait_codeptr;
        if (where == 0 && (state == THR_IBAR_STATE || sample->runtime_site))
            where = extended->region_codeptr;
        /* A wait the runtime placed in its own code was reached by a jump closing the region's body: marked apart. */
        if (where != 0)
            count_wait(agent, slot, state, sample->runtime_site ? OMPC_WAIT_AT_CONSTRUCT : 0, where, 0,
                       extended->wait_kind, weight);
    }
}

/*
 * In the sampling handler (async-signal-safe, lock-free rows): a sample
 * counts for its parallel construct (and, working, in this thread's
 * counter of that construct) and for its region.
 */
static inline __attribute__((always_inline)) void sample_region(struct ompc_agent *agent, struct ompc_process *owner,
                                                                struct ompc_thread *slot, int index,
                                                                const struct sample *sample, uint64_t weight)
{
    int construct = sample->extended.region_codeptr != 0
                        ? ompc_record_construct(owner, sample->extended.region_codeptr) : -1;
    if (construct >= 0) {
        struct ompc_construct *row = &owner->constructs[construct];
        atomic_fetch_add_explicit(&row->ticks[sample->state], weight, memory_order_relaxed);
        atomic_fetch_or_explicit(&row->thread_mask, UINT64_C(1) << (index % 64), memory_order_relaxed);
        uint64_t work = atomic_load_explicit(&slot->construct_work, memory_order_relaxed);
        if (sample->state == THR_WORK_STATE && work != 0)
            atomic_fetch_add_explicit((_Atomic uint64_t *)((char *)agent->record + work) + construct, weight,
                                      memory_order_relaxed);
    }
    if (sample->region_id != 0) {
        struct ompc_region *row = region_row(owner, sample->region_id, 1);
        if (row != NULL) {
            atomic_fetch_add_explicit(&row->ticks[sample->state], weight, memory_order_relaxed);
            atomic_fetch_or_explicit(&row->thread_mask, UINT64_C(1) << (index % 64),
                                     memory_order_relaxed);
        }
    }
}

/*
 * In the sampling handler (async-signal-safe; only the thread's own
 * handler appends to its timeline): a timeline entry when the state, or
 * where the thread is, changed since the last one.
 */
static inline __attribute__((always_inline)) void sample_timeline(struct ompc_agent *agent, struct ompc_thread *slot,
                                                                  const struct sample *sample, uint64_t now,
                                                                  uint64_t weight)
{
    int state = sample->state;
    /* Where the thread is, for the timeline's tooltips: the construct it waits in, else its region's. */
    uint64_t where = 0;
    if (agent->has_sample)
        where = state != THR_WORK_STATE && sample->extended.wait_codeptr != 0 ? sample->extended.wait_codeptr
                                                                              : sample->extended.region_codeptr;
    uint64_t where_offset = atomic_load_explicit(&slot->timeline_where, memory_order_relaxed);
    uint64_t offset = atomic_load_explicit(&slot->timeline, memory_order_relaxed);
    if (offset == 0 || (state == slot->last_state && (where_offset == 0 || where == slot->last_where)))
        return;
    uint64_t *timeline = (uint64_t *)((char *)agent->record + offset);
    uint32_t length = atomic_load_explicit(&slot->timeline_length, memory_order_relaxed);
    if (length >= OMPC_TIMELINE_CAP) {
        atomic_store_explicit(&slot->timeline_truncated, 1, memory_order_relaxed);
        return;
    }
    /* Folded expirations mean the thread sat in this state, off the CPU, that long already. */
    uint64_t since = now - (weight - 1) * (uint64_t)agent->record->interval_ns;
    if (since > now || since < slot->start_ns)
        since = slot->start_ns;
    uint64_t since_us = since / 1000;
    if (length > 0 && since_us < (timeline[length - 1] >> 8))
        since_us = timeline[length - 1] >> 8;
    timeline[length] = (since_us << 8) | (uint64_t)state;
    if (where_offset != 0)
        ((uint64_t *)((char *)agent->record + where_offset))[length] = where;
    atomic_store_explicit(&slot->timeline_length, length + 1, memory_order_release);
    slot->last_state = state;
    slot->last_where = where;
}

/*
 * What the thread had done of tasks at its previous sample: tasks created
 * (its count) and the task it ran.  The handler's own (initial-exec TLS).
 */
static __thread struct {
    uint64_t created, task;
} last_seen __attribute__((tls_model("initial-exec")));

/*
 * A WORK sample in the runtime's code (`in_runtime`) counts as the tasks'
 * overhead only on a thread that created a task or went on to another
 * since its previous sample: within one long task the runtime's code is
 * the program's own use of it (omp_get_wtime in a loop) or a taskwait's
 * search for work, which the ASan build of t/ompcollect-advice.c's coarse
 * fib showed as 19 ms of creation per 86 ms task.
 * Async-signal-safe: yes.
 */
static void runtime_work(struct ompc_thread *slot, int in_runtime, uint64_t task, uint64_t weight)
{
    uint64_t created = atomic_load_explicit(
        &slot->task_events[OMP_EVENT_THR_BEGIN_CREATE_TASK - OMPC_TASK_EVENT_FIRST], memory_order_relaxed);
    if (in_runtime && (created != last_seen.created || task != last_seen.task))
        atomic_fetch_add_explicit(&slot->runtime_work_ticks, (uint32_t)weight, memory_order_relaxed);
    last_seen.created = created;
    last_seen.task = task;
}

/*
 * One sample of the interrupted thread, in the sampling handler: every
 * step is async-signal-safe.  `weight` counts timer expirations the kernel
 * folded into this signal while the thread was off the CPU: the thread
 * could not change state meanwhile, so they all count for this state --
 * unless the thread had the signal blocked, which says nothing of its state.
 */
static void take_sample(struct ompc_agent *agent, struct ompc_process *owner, int index, uint64_t weight,
                        void *context)
{
    int in_runtime = 0;
    struct ompc_thread *slot = &owner->threads[index];
    /* A signal held back while the thread blocked it arrives inside the mask call that lifts the block. */
    int at_unblock = atomic_load_explicit(&slot->blocked, memory_order_relaxed) == 2 ? OMPC_STACK_AT_UNBLOCK : 0;
    weight = unblocked_weight(slot, weight);
    uint64_t now = now_ns(agent);
    atomic_fetch_add_explicit(&slot->signals, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&slot->ticks, weight, memory_order_relaxed);
    atomic_store_explicit(&slot->last_sample_ns, now, memory_order_relaxed);
    struct sample sample;
    read_sample(agent, &sample);
    uint64_t reported = sample.extended.wait_codeptr;
    /* Not a frame of the user's, nor a place: the stack walk and the logs get none, the wait table the region. */
    sample.extended.wait_codeptr = ompc_barrier_site(sample.state, reported);
    sample.runtime_site = sample.extended.wait_codeptr != reported;
    /* Inside a wrapped MPI call the thread's time is MPI's, whatever state the runtime names. */
    if (ompc_mpi_inside()) {
        atomic_fetch_add_explicit(&owner->mpi_threads[index].ticks, weight, memory_order_relaxed);
        int row = ompc_mpi_site_row();
        if (row >= 0 && row < OMPC_MPI_SITES)
            atomic_fetch_add_explicit(&owner->mpi_sites[row].ticks, weight, memory_order_relaxed);
    } else {
        atomic_fetch_add_explicit(&slot->state_ticks[sample.state], weight, memory_order_relaxed);
        /* Working in the runtime's code: creating and queueing tasks costs there, unseen by the task events. */
        in_runtime = sample.state == THR_WORK_STATE && ompc_runtime_text_holds(ompc_stackwalk_pc(context));
        /* Idle while the initial thread is inside MPI: still IDLE, and also counted as waiting for that MPI call. */
        if (sample.state == THR_IDLE_STATE && ompc_mpi_initial_inside())
            atomic_fetch_add_explicit(&owner->mpi_threads[index].idle_ticks, weight, memory_order_relaxed);
        /*
         * Serial code has no construct to be counted in: its place is the
         * interrupted code itself, or for a sleeping thread the sleep's
         * call (the samples it folded arrive in the agent's unblock).
         * Only an OpenMP program's serial code: the initial thread's, or a
         * thread's that forked regions of its own; a helper thread (MPI's
         * progress thread) also reads SERIAL.
         */
        if (sample.state == THR_SERIAL_STATE
            && (slot->initial || atomic_load_explicit(&slot->events[OMP_EVENT_FORK], memory_order_relaxed) != 0)) {
            uint64_t sleep_site = ompc_sleep_site();
            ompc_record_serial_place(owner, sleep_site != 0 ? sleep_site : ompc_stackwalk_pc(context), weight);
        }
    }
    if (sample.wait_id != 0 && atomic_load_explicit(&slot->event_log_open_wait, memory_order_relaxed) != 0)
        complete_wait_entry(agent, slot, sample.state, sample.wait_id, sample.extended.wait_codeptr);
    uint64_t entry = 0;
    if (agent->record->flags & OMPC_OPT_STACKS)
        entry = ompc_stackwalk_sample(agent->api, agent->record, owner, slot, sample.state, weight, sample.region_id,
                                      sample.extended.wait_codeptr, context, at_unblock);
    sample_wait(agent, slot, &sample, weight);
    sample_region(agent, owner, slot, index, &sample, weight);
    sample_timeline(agent, slot, &sample, now, weight);
    /*
     * The sampled tier times tasks here; the full tier samples them too,
     * beside its exact times, so that a run shows how far the sampled
     * figures stray (t/ompcollect-tasktier.sh).  A thread out of any region
     * runs no explicit task worth the request.
     */
    uint64_t task = 0;
    if (agent->task_sampling && sample.region_id != 0)
        task = ompc_task_sample(agent, owner, index, weight, entry);
    runtime_work(slot, in_runtime, task, weight);
}

/*
 * The sampling signal reached the program's default action (it asked for
 * it, or never asked): a real-time signal's default ends the process, so
 * stop sampling, restore that default and let the signal do what it would
 * have done without us.
 */
static void default_action(struct ompc_agent *agent, int signal_number)
{
    struct ompc_process *owner = atomic_load(&agent->process);
    atomic_store(&agent->sampling_on, 0);
    if (owner != NULL && atomic_load(&owner->sampling) == OMPC_SAMPLING_ON) {
        atomic_store(&owner->sampling_stopped_ns, now_ns(agent));
        atomic_store(&owner->sampling, OMPC_SAMPLING_DEFAULT);
    }
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    atomic_store(&agent->handler_installed, 0);
    agent->real.sigaction(signal_number, &fallback, NULL);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, signal_number);
    raise(signal_number);
    agent->real.pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
}

/* A delivery of the sampling signal that is not one of our timers' belongs to the program's handler. */
static void pass_on(struct ompc_agent *agent, int signal_number, siginfo_t *info, void *context)
{
    struct ompc_process *owner = atomic_load(&agent->process);
    if (owner != NULL)
        atomic_fetch_add_explicit(&owner->signals_passed, 1, memory_order_relaxed);
    int current = atomic_load(&agent->program_action_current);
    struct sigaction action = agent->program_actions[current];
    if (action.sa_handler == SIG_IGN)
        return;
    if (action.sa_handler == SIG_DFL) {
        default_action(agent, signal_number);
        return;
    }
    if (action.sa_flags & SA_RESETHAND) {
        agent->program_actions[current].sa_handler = SIG_DFL;
        agent->program_actions[current].sa_flags &= ~SA_SIGINFO;
    }
    sigset_t saved;
    agent->real.pthread_sigmask(SIG_BLOCK, &action.sa_mask, &saved);
    if (action.sa_flags & SA_SIGINFO)
        action.sa_sigaction(signal_number, info, context);
    else
        action.sa_handler(signal_number);
    agent->real.pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/*
 * The sampling signal, from agent.c's handler (on_sample), which passes
 * the agent's state on.  The timer's value names the thread's slot and the
 * kernel's timer id proves the timer is ours, so the handler does no
 * lookup; it touches only the API, the clock and that slot's counters.
 */
void ompc_sample_signal(struct ompc_agent *agent, int signal_number, siginfo_t *info, void *context)
{
    int saved_errno = errno;
    int index = info->si_value.sival_int;
    unsigned char timer = index >= 0 && index < OMPC_MAX_THREADS
                              ? atomic_load_explicit(&agent->has_timer[index], memory_order_acquire)
                              : TIMER_NONE;
    if (info->si_code == SI_TIMER && timer != TIMER_NONE && info->si_timerid == agent->timer_ids[index]) {
        /* A deleted timer's last signal, delivered late, is ours all the same: never the program's. */
        struct ompc_process *owner = atomic_load_explicit(&agent->process, memory_order_acquire);
        if (timer == TIMER_LIVE && owner != NULL && atomic_load_explicit(&agent->sampling_on, memory_order_acquire)
            && atomic_load_explicit(&owner->threads[index].status, memory_order_acquire)
                   == OMPC_SLOT_LIVE) {
            uint64_t weight = expirations(agent, index, info->si_overrun);
            if (weight > 0)
                take_sample(agent, owner, index, weight, context);
        }
    } else {
        pass_on(agent, signal_number, info, context);
    }
    errno = saved_errno;
}
