/* session.c - session lifecycle, the registered-callback table and lock-free event delivery. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

_Atomic int oc_session_active;
_Atomic int oc_paused;
_Atomic uint32_t oc_session_generation;
_Atomic(omp_collector_callback_t) oc_event_callbacks[OC_EVENT_MAX + 1];
_Atomic uint64_t oc_live_events;
/* Written at START, read by STATE on any thread and in signal handlers: atomic. */
_Atomic int oc_taskwait_state = THR_EBAR_STATE;

/*
 * What a control request waits for.  The guarantee: once STOP, UNREGISTER,
 * PAUSE or a replacing REGISTER has returned, no thread begins a callback
 * that request removed.  A delivery marks itself in flight *before* it reads
 * oc_live_events and the callback; a request changes the callback, the
 * session or pause flag and republishes oc_live_events *before* it looks
 * for deliveries in flight (oc_drain_deliveries).
 * The mark, the look, the change and the reads are all sequentially
 * consistent, so in their single total order either the mark precedes the
 * look (the request sees the delivery and waits for it) or the change
 * precedes the reads (the delivery sees the change and calls nothing).  That
 * is the store-buffering pattern: acquire/release alone would let both
 * sides miss each other.
 *
 * The marks are per thread so that deliveries on different threads never
 * write one cache line: each thread that delivers claims a slot padded to a
 * line of its own, whose sequence number is odd while the thread is inside
 * a delivery (x86: one xchg to enter, one plain store to leave).  A drain
 * reads every claimed slot once and waits only for the slots it saw odd to
 * move on, which they do when that delivery returns: it waits for the
 * deliveries that began before it and cannot be starved by new ones.
 * Threads that find no slot free count themselves in two shared counters,
 * one per epoch; a drain flips the epoch and waits for the old one to empty.
 */
#define OC_DELIVERY_SLOTS 256

struct oc_delivery_slot {
    _Atomic uint32_t seq;      /* odd while the owner is inside a delivery */
    _Atomic uint32_t draining; /* the owner drains from inside a delivery: nobody waits for it */
    _Atomic uint32_t claimed;  /* a thread owns the slot */
} __attribute__((aligned(64)));

static struct oc_delivery_slot delivery_slots[OC_DELIVERY_SLOTS];
/* Slots ever claimed, a prefix of delivery_slots: what a drain reads. */
static _Atomic uint32_t delivery_slots_used;
/* How many slots threads may claim; lowered only by tests, to exercise the counters. */
static _Atomic uint32_t delivery_slot_limit = OC_DELIVERY_SLOTS;
/* What oc_self.delivery_slot points at in a thread that found no slot free; its odd sequence number sends deliveries to the uncommon path. */
static struct oc_delivery_slot no_slot_free = {.seq = 1};
/*
 * What oc_self.delivery_slot points at before the thread's first delivery
 * and after its end (tool.c initialises every thread's TLS so): the odd
 * sequence number sends that delivery to the uncommon path, which claims a
 * slot, so the common path needs no test for "no slot yet".
 */
struct oc_delivery_slot oc_slot_unclaimed = {.seq = 1};

static _Atomic unsigned delivery_epoch;
static _Atomic long deliveries_in_flight[2];
/* In-flight counted deliveries of threads that drain from inside a delivery: they are not waited for. */
static _Atomic long deliveries_held_by_drainers[2];
/* One drain flips the epoch at a time, so each waits on a counter of its own epoch. */
static pthread_mutex_t drain_mutex = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t control_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Serialises the non-signal requests and the runtime's initialize/finalize. */
void oc_control_lock(void)
{
    pthread_mutex_lock(&control_mutex);
}

/* Counterpart of oc_control_lock. */
void oc_control_unlock(void)
{
    pthread_mutex_unlock(&control_mutex);
}

/* Lowers the number of delivery slots (tests only; before any thread delivers). */
void oc_limit_delivery_slots(unsigned limit)
{
    atomic_store(&delivery_slot_limit, limit < OC_DELIVERY_SLOTS ? limit : OC_DELIVERY_SLOTS);
}

/*
 * Gives this thread a delivery slot: one a finished thread released, else a
 * fresh one, else the mark that it has none.  Claiming is by CAS on the
 * slot's flag, so a fresh slot cannot also be taken by a thread reusing.
 */
static struct oc_delivery_slot *claim_delivery_slot(void)
{
    uint32_t limit = atomic_load_explicit(&delivery_slot_limit, memory_order_relaxed);
    for (;;) {
        uint32_t used = atomic_load(&delivery_slots_used);
        for (uint32_t i = 0; i < used && i < limit; i++) {
            uint32_t expected = 0;
            if (atomic_load_explicit(&delivery_slots[i].claimed, memory_order_relaxed) == 0
                && atomic_compare_exchange_strong(&delivery_slots[i].claimed, &expected, 1))
                return oc_self.delivery_slot = &delivery_slots[i];
        }
        if (used >= limit)
            return oc_self.delivery_slot = &no_slot_free;
        if (atomic_compare_exchange_strong(&delivery_slots_used, &used, used + 1)) {
            uint32_t expected = 0;
            if (atomic_compare_exchange_strong(&delivery_slots[used].claimed, &expected, 1))
                return oc_self.delivery_slot = &delivery_slots[used];
        }
    }
}

/* A finished thread gives its slot back (it is not inside a delivery, so the slot is even). */
void oc_release_delivery_slot(void)
{
    struct oc_delivery_slot *slot = oc_self.delivery_slot;
    oc_self.delivery_slot = &oc_slot_unclaimed;
    if (slot != &no_slot_free && slot != &oc_slot_unclaimed)
        atomic_store(&slot->claimed, 0);
}

/*
 * Recomputes which events a delivery would reach: none outside a session
 * or while paused, else those with a callback.  Every request that changes
 * the session, the pause flag or a callback calls this under the control
 * lock, before it drains.
 */
void oc_publish_live_events(void)
{
    enum { EVENTS = sizeof oc_event_callbacks / sizeof oc_event_callbacks[0] };
    _Static_assert(EVENTS <= 64, "oc_live_events has a bit per event");
    uint64_t live = 0;
    if (atomic_load(&oc_session_active) && !atomic_load(&oc_paused))
        for (int event = OMP_EVENT_FORK; event < EVENTS; event++)
            if (atomic_load(&oc_event_callbacks[event]) != 0)
                live |= OC_EVENT_BIT(event);
    atomic_store(&oc_live_events, live);
}

/* How a delivery marked itself in flight, so that it unmarks the same way (uncommon paths only). */
struct mark {
    struct oc_delivery_slot *slot; /* its slot, or NULL for the ways below */
    uint32_t seq;                  /* the slot's even sequence number before */
    int epoch;                     /* counted in this epoch's counter, or -1: covered by an outer delivery */
};

/*
 * Marks in flight in every way there is: the thread's first delivery (it
 * claims a slot), a thread without a slot (it counts itself in the current
 * epoch), a delivery inside a delivery (a callback that made the runtime
 * report something), which the outer one's mark covers -- that stays odd
 * until the outer delivery returns -- and the common one.
 */
static void mark_generic(struct mark *mark)
{
    struct oc_delivery_slot *slot = oc_self.delivery_slot;
    if (slot == &oc_slot_unclaimed)
        slot = claim_delivery_slot();
    mark->slot = NULL;
    mark->epoch = -1;
    if (slot == &no_slot_free) {
        unsigned epoch = atomic_load(&delivery_epoch) & 1u;
        atomic_fetch_add(&deliveries_in_flight[epoch], 1);
        oc_self.deliveries_in_slot[epoch]++;
        mark->epoch = (int)epoch;
        return;
    }
    uint32_t seq = atomic_load_explicit(&slot->seq, memory_order_relaxed);
    if (seq & 1u)
        return;
    mark->slot = slot;
    mark->seq = seq;
    atomic_store(&slot->seq, seq + 1);
}

/* Ends what mark_generic began. */
static void unmark_generic(const struct mark *mark)
{
    if (mark->slot != NULL) {
        atomic_store_explicit(&mark->slot->seq, mark->seq + 2, memory_order_release);
    } else if (mark->epoch >= 0) {
        oc_self.deliveries_in_slot[mark->epoch]--;
        atomic_fetch_sub(&deliveries_in_flight[mark->epoch], 1);
    }
}

/*
 * The common case of marking, for the fast paths: this thread has a slot
 * and is not inside a delivery.  Returns 1 with the slot in *slotp (its
 * even sequence number in *seq) after one sequentially consistent store, or
 * 0 when the caller must take its generic path.  A thread without a slot (none claimed
 * yet, or none free) points at a marker whose sequence number stays odd, so
 * it goes generic too; the pointer is never NULL.
 */
static inline __attribute__((always_inline)) int mark_fast(struct oc_delivery_slot **slotp,
                                                           uint32_t *seq)
{
    struct oc_delivery_slot *slot = oc_self.delivery_slot;
    uint32_t now = atomic_load_explicit(&slot->seq, memory_order_relaxed);
    if (now & 1u)
        return 0;
    atomic_store(&slot->seq, now + 1);
    *slotp = slot;
    *seq = now;
    return 1;
}

/* Ends what mark_fast began. */
static inline __attribute__((always_inline)) void unmark_fast(struct oc_delivery_slot *slot, uint32_t seq)
{
    atomic_store_explicit(&slot->seq, seq + 2, memory_order_release);
}

/*
 * Calls the callback of `event` if it is live; the caller is marked in
 * flight and read `live` after marking.  The pointer is read once: a
 * concurrent UNREGISTER can make it NULL, never make us call NULL.
 */
static inline __attribute__((always_inline)) void call_if_live(int event, uint64_t live)
{
    if (!(live & OC_EVENT_BIT(event)))
        return;
    omp_collector_callback_t callback = atomic_load(&oc_event_callbacks[event]);
    if (callback != 0)
        callback((OMP_COLLECTORAPI_EVENT)oc_event_public(event));
}

/* oc_emit_slow for the threads and moments mark_fast does not serve. */
static __attribute__((noinline, cold)) void emit_generic(int event)
{
    struct mark mark;
    mark_generic(&mark);
    call_if_live(event, atomic_load(&oc_live_events));
    unmark_generic(&mark);
}

/* Delivers `event`, marked in flight (see the comment on the slots). */
static inline __attribute__((always_inline)) void emit(int event)
{
    uint32_t seq;
    struct oc_delivery_slot *slot;
    if (!mark_fast(&slot, &seq)) {
        emit_generic(event);
        return;
    }
    call_if_live(event, atomic_load(&oc_live_events));
    unmark_fast(slot, seq);
}

/* The slow half of oc_emit: `event` was live a moment ago; deliver it if it still is. */
void oc_emit_slow(int event)
{
    emit(event);
}

/*
 * Per phase, the payload events with pairs it goes to, as a pair word's
 * low bits (OC_OPEN_*): OMPCOLLECTOR_EVENT_TASK takes CREATE to RESUME,
 * _TASK_LOG all but SUSPEND and RESUME; and PHASE_OPENS for a phase that
 * opens a pair.  A table: this is every task phase's path.
 */
#define PHASE_OPENS 8u
static const uint8_t phase_kinds[8] = {
    [OMPCOLLECTOR_TASK_CREATE] = OC_OPEN_TASK | OC_OPEN_TASK_LOG,
    [OMPCOLLECTOR_TASK_BEGIN] = OC_OPEN_TASK | OC_OPEN_TASK_LOG | PHASE_OPENS,
    [OMPCOLLECTOR_TASK_END] = OC_OPEN_TASK | OC_OPEN_TASK_LOG,
    [OMPCOLLECTOR_TASK_SUSPEND] = OC_OPEN_TASK | PHASE_OPENS,
    [OMPCOLLECTOR_TASK_RESUME] = OC_OPEN_TASK,
    [OMPCOLLECTOR_TASK_WAIT_BEGIN] = OC_OPEN_TASK_LOG | PHASE_OPENS,
    [OMPCOLLECTOR_TASK_WAIT_END] = OC_OPEN_TASK_LOG,
};
_Static_assert(OMPCOLLECTOR_TASK_WAIT_END < 8 && OC_EVENT_TASK_CREATE == OC_EVENT_TASK + 1
                   && OC_EVENT_TASK_LOG == OC_EVENT_TASK + 2 && PHASE_OPENS > (OC_OPEN_TASK | OC_OPEN_TASK_LOG),
               "the phase table, and the payload events' live bits read with one shift");

/* Calls payload event `event`'s callback, registered as omp_collector_callback_t, as the type the header gives it. */
static inline void call_payload(int event, int phase, const ompcollector_task_event_t *payload)
{
    omp_collector_callback_t callback = atomic_load(&oc_event_callbacks[event]);
    if (callback != 0)
        ((ompcollector_task_callback_t)(void (*)(void))callback)(phase, payload);
}

/* A phase for more than one payload event (rare: a collector registers one): each in the header's order. */
static __attribute__((noinline)) void call_several(int phase, const ompcollector_task_event_t *payload, uint32_t to,
                                                   int created)
{
    if (created)
        call_payload(OC_EVENT_TASK_CREATE, phase, payload);
    if (to & OC_OPEN_TASK)
        call_payload(OC_EVENT_TASK, phase, payload);
    if (to & OC_OPEN_TASK_LOG)
        call_payload(OC_EVENT_TASK_LOG, phase, payload);
}

/*
 * What oc_emit_task does once marked: opens or closes the task's pair
 * word and calls the callbacks.  The word holds the session's generation
 * above the events the opening phase went to (OC_OPEN_*), so each event's
 * pairs balance on their own.  CREATE goes to
 * OMPCOLLECTOR_EVENT_TASK_CREATE's callback too (a counting collector
 * registers that one alone).  One event's callback is called last and
 * alone, so this path keeps nothing across the call but the mark; more
 * than one go through call_several.
 */
static inline __attribute__((always_inline)) void task_phase_marked(int phase, const ompcollector_task_event_t *payload,
                                                                   uint32_t *open, uint64_t live)
{
    uint32_t kind = phase_kinds[(unsigned)phase & 7u];
    uint32_t payload_live = (uint32_t)(live >> OC_EVENT_TASK);
    uint32_t to = kind & payload_live & (OC_OPEN_TASK | OC_OPEN_TASK_LOG);
    int created = 0;
    if (open == NULL) {
        /* CREATE, which no pair follows. */
        created = (payload_live >> (OC_EVENT_TASK_CREATE - OC_EVENT_TASK)) & 1u;
    } else {
        uint32_t generation = atomic_load_explicit(&oc_session_generation, memory_order_relaxed) << OC_OPEN_SHIFT;
        uint32_t word = *open;
        /* Never an END without its BEGIN in this session, per event: a pair cut by STOP or START stays cut. */
        if (!(kind & PHASE_OPENS))
            to &= (word ^ generation) < (1u << OC_OPEN_SHIFT) ? word : 0u;
        *open = (kind & PHASE_OPENS) && to != 0 ? generation | to : 0;
    }
    /* The one event to call (its live bit's distance from OC_EVENT_TASK), 0 none, -1 several. */
    int event = to == 0 ? 0 : (to & (to - 1)) != 0 ? -1 : OC_EVENT_TASK + (int)(to >> 1);
    if (created)
        event = event == 0 ? OC_EVENT_TASK_CREATE : -1;
    if (event > 0)
        call_payload(event, phase, payload);
    else if (event < 0)
        call_several(phase, payload, to, created);
}

/* oc_emit_task for the threads and moments mark_fast does not serve. */
static __attribute__((noinline, cold)) void emit_task_generic(int phase, const ompcollector_task_event_t *payload,
                                                              uint32_t *open)
{
    struct mark mark;
    mark_generic(&mark);
    task_phase_marked(phase, payload, open, atomic_load(&oc_live_events));
    unmark_generic(&mark);
}

void oc_emit_task(int phase, const ompcollector_task_event_t *payload, uint32_t *open)
{
    uint32_t seq;
    struct oc_delivery_slot *slot;
    if (!mark_fast(&slot, &seq)) {
        emit_task_generic(phase, payload, open);
        return;
    }
    task_phase_marked(phase, payload, open, atomic_load(&oc_live_events));
    unmark_fast(slot, seq);
}

/* Counts from an earlier session mean nothing in this one. */
static inline void sync_pair_generation(void)
{
    uint32_t generation = atomic_load_explicit(&oc_session_generation, memory_order_relaxed);
    if (oc_self.pair_generation != generation) {
        memset(oc_self.open_pairs, 0, sizeof oc_self.open_pairs);
        oc_self.open_pair_rows = 0;
        oc_self.pair_generation = generation;
    }
}

/*
 * Opens a pair of row `source` if either of its events is live, as read
 * after marking in flight: a pair is tracked whenever either event is
 * live, so that an END is delivered exactly when this thread owes one --
 * never without its BEGIN having been tracked, which keeps pairs balanced
 * across REGISTER, PAUSE and START.
 */
static inline __attribute__((always_inline)) void begin_pair_marked(int source, uint64_t live)
{
    const struct oc_source_events *row = &oc_source_events_table[source];
    if (!(live & row->bits))
        return;
    sync_pair_generation();
    if (oc_self.open_pairs[source] < UINT8_MAX)
        oc_self.open_pairs[source]++;
    oc_self.open_pair_rows |= OC_SOURCE_BIT(source);
    call_if_live(row->begin_event, live);
}

/* oc_begin_pair_slow for the threads and moments mark_fast does not serve. */
static __attribute__((noinline, cold)) void begin_pair_generic(int source)
{
    struct mark mark;
    mark_generic(&mark);
    begin_pair_marked(source, atomic_load(&oc_live_events));
    unmark_generic(&mark);
}

/* Opens a BEGIN/END pair of row `source` on this thread: oc_begin_pair saw one of its events live. */
void oc_begin_pair_slow(int source)
{
    uint32_t seq;
    struct oc_delivery_slot *slot;
    if (!mark_fast(&slot, &seq)) {
        begin_pair_generic(source);
        return;
    }
    begin_pair_marked(source, atomic_load(&oc_live_events));
    unmark_fast(slot, seq);
}

/*
 * Closes the innermost open pair of `source` (oc_end_pair saw one open),
 * unless it is a past session's, and delivers its END if that is live.  An
 * open pair means its events were live a moment ago, so this marks itself
 * in flight without testing first.
 */
void oc_end_pair_slow(int source)
{
    sync_pair_generation();
    if (oc_self.open_pairs[source] == 0)
        return;
    if (--oc_self.open_pairs[source] == 0)
        oc_self.open_pair_rows &= ~OC_SOURCE_BIT(source);
    emit(oc_source_events_table[source].end_event);
}

/* The counted half of a drain: waits for the counted deliveries of the old epoch. */
static void drain_counted(void)
{
    long held[2] = {oc_self.deliveries_in_slot[0], oc_self.deliveries_in_slot[1]};
    for (int s = 0; s < 2; s++)
        if (held[s] != 0)
            atomic_fetch_add(&deliveries_held_by_drainers[s], held[s]);
    pthread_mutex_lock(&drain_mutex);
    unsigned old_epoch = atomic_fetch_add(&delivery_epoch, 1u) & 1u;
    for (unsigned spins = 0;; spins++) {
        long busy = atomic_load(&deliveries_in_flight[old_epoch])
                    - atomic_load(&deliveries_held_by_drainers[old_epoch]);
        if (busy <= 0)
            break;
        if (spins > 64)
            sched_yield();
    }
    pthread_mutex_unlock(&drain_mutex);
    for (int s = 0; s < 2; s++)
        if (held[s] != 0)
            atomic_fetch_sub(&deliveries_held_by_drainers[s], held[s]);
}

/*
 * Waits until every delivery that might have read the old callbacks or
 * flags has returned (see the comment on the delivery slots).  A thread
 * draining from inside a delivery (a callback that sends STOP, say) flags
 * its slot first so nobody waits on it, itself included: two callbacks
 * draining at once would otherwise wait on each other for ever.  Must be
 * called without the control lock: a callback being waited for may itself
 * make a request.
 */
void oc_drain_deliveries(void)
{
    struct oc_delivery_slot *mine = oc_self.delivery_slot;
    int inside = mine != &no_slot_free && mine != &oc_slot_unclaimed
                 && (atomic_load_explicit(&mine->seq, memory_order_relaxed) & 1u);
    if (inside)
        atomic_store(&mine->draining, 1);
    drain_counted();
    uint32_t used = atomic_load(&delivery_slots_used);
    for (uint32_t i = 0; i < used; i++) {
        struct oc_delivery_slot *slot = &delivery_slots[i];
        uint32_t seq = atomic_load(&slot->seq);
        if (slot == mine || !(seq & 1u))
            continue;
        for (unsigned spins = 0; atomic_load(&slot->seq) == seq && !atomic_load(&slot->draining);
             spins++)
            if (spins > 64)
                sched_yield();
    }
    if (inside)
        atomic_store(&mine->draining, 0);
}

/*
 * The OMPT callbacks this session needs right now: states always (thread
 * begin tells a new worker, idle, from a serial thread before its first
 * team; task_create and task_schedule follow tasks for TASK_ID, TASK_PID
 * and the task-wait state; reduction brackets REDUC), plus every
 * registered event's.
 */
oc_callback_mask oc_wanted_callbacks(void)
{
    if (!atomic_load(&oc_session_active))
        return 0;
    oc_callback_mask wanted = OC_BIT(thread_begin) | OC_BIT(thread_end) | OC_BIT(parallel_begin)
                              | OC_BIT(parallel_end) | OC_BIT(implicit_task)
                              | OC_BIT(sync_region_wait) | OC_BIT(mutex_acquire)
                              | OC_BIT(mutex_acquired) | OC_BIT(mutex_released)
                              | OC_BIT(task_create) | OC_BIT(task_schedule) | OC_BIT(reduction);
    /* A single's begin tells its closing GOMP_barrier from an explicit barrier (lib/gomp.c). */
    if (oc_gomp_barriers_explicit())
        wanted |= OC_BIT(work);
    for (int event = OMP_EVENT_FORK; event <= OC_EVENT_MAX; event++)
        if (atomic_load(&oc_event_callbacks[event]) != 0)
            wanted |= oc_event_needs(event);
    return wanted;
}

/*
 * In the child of a fork(): only the forking thread came along.  Every
 * other thread's delivery slot keeps whatever it held at that instant, and
 * one whose thread was inside a callback stays odd for ever, so the next
 * drain (STOP, UNREGISTER, PAUSE) would wait for a delivery that cannot
 * end.  Those slots are freed, the shared counters keep only this thread's
 * own deliveries, and the two mutexes, which a vanished thread may have
 * held, start unlocked.  Runs only in the child, with one thread.
 */
static void reset_deliveries_in_child(void)
{
    struct oc_delivery_slot *mine = oc_self.delivery_slot;
    uint32_t used = atomic_load(&delivery_slots_used);
    for (uint32_t i = 0; i < used && i < OC_DELIVERY_SLOTS; i++) {
        struct oc_delivery_slot *slot = &delivery_slots[i];
        if (slot == mine)
            continue;
        atomic_store(&slot->seq, 0);
        atomic_store(&slot->draining, 0);
        atomic_store(&slot->claimed, 0);
    }
    for (int epoch = 0; epoch < 2; epoch++) {
        atomic_store(&deliveries_in_flight[epoch], oc_self.deliveries_in_slot[epoch]);
        atomic_store(&deliveries_held_by_drainers[epoch], 0);
    }
    pthread_mutex_init(&drain_mutex, NULL);
    pthread_mutex_init(&control_mutex, NULL);
}

static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;

/* Registers reset_deliveries_in_child with pthread_atfork, once per process. */
static void install_fork_handler(void)
{
    if (pthread_atfork(NULL, NULL, reset_deliveries_in_child) != 0)
        oc_log("pthread_atfork failed: a child forked mid-delivery may hang in STOP");
}

/* Forget every registration and the pause flag: what START after STOP needs. */
void oc_session_reset(void)
{
    /* Deliveries begin only after START, which comes here first. */
    pthread_once(&fork_handler_once, install_fork_handler);
    for (int event = 0; event <= OC_EVENT_MAX; event++)
        atomic_store(&oc_event_callbacks[event], (omp_collector_callback_t)0);
    atomic_store(&oc_paused, 0);
    oc_publish_live_events();
    atomic_fetch_add(&oc_session_generation, 1);
    const char *numbering = getenv("OMPCOLLECTOR_TASKWAIT_STATE");
    atomic_store_explicit(&oc_taskwait_state,
                          (numbering != NULL && strcmp(numbering, "12") == 0)
                              ? OC_THR_TASKWAIT_STATE_ORACLE
                              : THR_EBAR_STATE,
                          memory_order_relaxed);
}

/*
 * Closes the innermost open pair of `source` on this thread without
 * delivering its END: for a row whose END event is the BEGIN of the row
 * that follows it (EXEC ends with BEGIN_FINISH), which that row delivers.
 */
void oc_drop_pair(int source)
{
    sync_pair_generation();
    if (oc_self.open_pairs[source] != 0 && --oc_self.open_pairs[source] == 0)
        oc_self.open_pair_rows &= ~OC_SOURCE_BIT(source);
}
