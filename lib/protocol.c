/* protocol.c - __omp_collector_api: walks the request buffer and answers each entry. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "internal.h"

#include <stdint.h>
#include <string.h>

#define ENTRY_HEADER_SIZE 16

/* One entry being answered; results go only into its own sz bytes. */
/* The calling thread's state, taken at the first STATE or CURRENT_PRID of a call and shared by the rest of it. */
struct sample {
    int taken;
    int32_t state;
    uint64_t wait_id;
};

struct entry {
    int32_t *header; /* sz, r#, ec, rsz */
    unsigned char *mem;
    int32_t mem_size;
    struct sample *sample; /* this call's */
};

static inline void answer(struct entry *entry, int ec, int32_t rsz)
{
    /* ec and rsz are adjacent: one store, with an immediate the compiler need not keep in a register. */
    int32_t words[2] = {ec, rsz};
    memcpy(&entry->header[2], words, sizeof words);
}

static int32_t read_int(const struct entry *entry, int offset)
{
    int32_t value;
    memcpy(&value, entry->mem + offset, sizeof value);
    return value;
}

/*
 * START.  If the runtime has not taken the shim on yet, try to make it do
 * so now (see oc_try_attach); a process with no OpenMP runtime loaded yet
 * gets a pending session that attaches when one appears.
 * Async-signal-safe: no; any thread.
 */
static void handle_start(struct entry *entry)
{
    if (atomic_load(&oc_session_active)) {
        answer(entry, OMP_ERRCODE_SEQUENCE_ERR, 0);
        return;
    }
    if (oc_try_attach() == 0) {
        oc_log("START refused: the runtime did not accept the tool");
        answer(entry, OMP_ERRCODE_SEQUENCE_ERR, 0);
        return;
    }
    oc_control_lock();
    if (atomic_load(&oc_session_active)) {
        oc_control_unlock();
        answer(entry, OMP_ERRCODE_SEQUENCE_ERR, 0);
        return;
    }
    oc_session_reset();
    oc_gomp_configure();
    atomic_store(&oc_session_active, 1);
    oc_publish_live_events();
    oc_apply_callbacks(oc_wanted_callbacks());
    oc_control_unlock();
    answer(entry, OMP_ERRCODE_OK, 0);
}

/*
 * REGISTER; when it replaces a callback, returns once no thread can still be
 * calling the old one.  Packed entries (sz 28) carry the callback at mem+4; entries of
 * 32 bytes or more with a zero word at mem+4 carry it at mem+8.
 * Async-signal-safe: no; any thread.
 */
static void handle_register(struct entry *entry)
{
    if (entry->mem_size < 12) {
        answer(entry, OMP_ERRCODE_ERROR, 0);
        return;
    }
    int32_t event = oc_event_internal(read_int(entry, 0));
    int pointer_offset = (entry->mem_size >= 16 && read_int(entry, 4) == 0) ? 8 : 4;
    omp_collector_callback_t callback;
    memcpy(&callback, entry->mem + pointer_offset, sizeof callback);
    if (!oc_event_is_known(event)) {
        answer(entry, OMP_ERRCODE_UNKNOWN, 0);
        return;
    }
    if (callback == 0) {
        answer(entry, OMP_ERRCODE_ERROR, 0);
        return;
    }
    oc_control_lock();
    if (atomic_load(&oc_tool_attached)
        && (!oc_event_supported(event, oc_granted) || !oc_event_possible_in_code(event))) {
        oc_control_unlock();
        answer(entry, OMP_ERRCODE_UNSUPPORTED, 0);
        return;
    }
    omp_collector_callback_t replaced = atomic_exchange(&oc_event_callbacks[event], callback);
    oc_publish_live_events();
    oc_apply_callbacks(oc_wanted_callbacks());
    oc_control_unlock();
    if (replaced != 0 && replaced != callback)
        oc_drain_deliveries();
    answer(entry, OMP_ERRCODE_OK, 0);
}

/* UNREGISTER; returns once no thread can still be calling the old callback.  Async-signal-safe: no. */
static void handle_unregister(struct entry *entry)
{
    if (entry->mem_size < 4) {
        answer(entry, OMP_ERRCODE_ERROR, 0);
        return;
    }
    int32_t event = oc_event_internal(read_int(entry, 0));
    if (!oc_event_is_known(event)) {
        answer(entry, OMP_ERRCODE_UNKNOWN, 0);
        return;
    }
    oc_control_lock();
    atomic_store(&oc_event_callbacks[event], (omp_collector_callback_t)0);
    oc_publish_live_events();
    oc_control_unlock();
    oc_drain_deliveries();
    answer(entry, OMP_ERRCODE_OK, 0);
}

/*
 * STATE: the state word first, then the wait id at mem+4.  A client with
 * room for the state only (TAU sends sz 20) gets OK and rsz 4 when the
 * state has no wait id, as OpenUH answered; when it has one, the state
 * word is still written and the answer is MEM_TOO_SMALL asking for 12.
 * Async-signal-safe: yes; any thread.
 */
/*
 * The state (and wait id) of the calling thread for this call: one
 * ompt_get_state per call, however many entries ask, so a sampler's
 * STATE + CURRENT_PRID pair costs one state computation and agrees with
 * itself.  Async-signal-safe: yes.
 */
static inline __attribute__((always_inline)) int32_t sampled_state(struct entry *entry, uint64_t *wait_id)
{
    struct sample *sample = entry->sample;
    if (!sample->taken) {
        sample->state = oc_current_state(&sample->wait_id);
        sample->taken = 1;
    }
    *wait_id = sample->wait_id;
    return sample->state;
}

static inline __attribute__((always_inline)) void handle_state(struct entry *entry)
{
    const int32_t needed = 4 + 8;
    if (entry->mem_size < 4) {
        answer(entry, OMP_ERRCODE_MEM_TOO_SMALL, needed);
        return;
    }
    uint64_t wait_id;
    int32_t state = sampled_state(entry, &wait_id);
    memcpy(entry->mem, &state, sizeof state);
    if (entry->mem_size < needed) {
        if (oc_legacy_state_has_wait_id(state))
            answer(entry, OMP_ERRCODE_MEM_TOO_SMALL, needed);
        else
            answer(entry, OMP_ERRCODE_OK, 4);
        return;
    }
    memcpy(entry->mem + 4, &wait_id, sizeof wait_id);
    answer(entry, OMP_ERRCODE_OK, needed);
}

/* Writes a region id, or says how much room it needs. */
static void answer_region_id(struct entry *entry, uint64_t region_id)
{
    if (entry->mem_size < 8) {
        answer(entry, OMP_ERRCODE_MEM_TOO_SMALL, 8);
        return;
    }
    memcpy(entry->mem, &region_id, sizeof region_id);
    answer(entry, OMP_ERRCODE_OK, 8);
}

/* CURRENT_PRID.  Async-signal-safe: yes; any thread. */
static inline __attribute__((always_inline)) void handle_current_prid(struct entry *entry)
{
    uint64_t wait_id;
    int state = oc_self.fork_region_id != 0 ? THR_WORK_STATE : sampled_state(entry, &wait_id);
    answer_region_id(entry, oc_current_region_id(state));
}

/*
 * PARENT_PRID: only a team's master may ask (inside FORK and JOIN the
 * forking master); everyone else gets THREAD_ERR.
 * Async-signal-safe: yes in fact, though the API does not promise it; any thread.
 */
static void handle_parent_prid(struct entry *entry)
{
    if (oc_self.fork_region_id != 0) {
        answer_region_id(entry, oc_self.fork_parent_id);
        return;
    }
    const struct oc_frame *frame = oc_top_frame(&oc_self);
    if (frame == NULL || frame->team_index != 0 || oc_region_has_ended(frame->region_id)) {
        answer(entry, OMP_ERRCODE_THREAD_ERR, 0);
        return;
    }
    int level = oc_self.depth > OC_MAX_NEST ? OC_MAX_NEST : oc_self.depth;
    answer_region_id(entry, level >= 2 ? oc_self.frames[level - 2].region_id : 0);
}

/*
 * A task id as OpenUH's clients read it: a 32-bit int in a 4-byte mem
 * (rsz 4), a 64-bit one given 8 bytes (rsz 8); -1 for no task.  An id past
 * 31 bits does not fit in 4 bytes: MEM_TOO_SMALL asking for 8, nothing
 * written.
 */
static void answer_task_id(struct entry *entry, uint64_t id)
{
    int64_t wide = id == 0 ? -1 : (int64_t)id;
    if (entry->mem_size >= 8) {
        memcpy(entry->mem, &wide, sizeof wide);
        answer(entry, OMP_ERRCODE_OK, 8);
        return;
    }
    int32_t needed = wide > INT32_MAX ? 8 : 4;
    if (entry->mem_size < needed) {
        answer(entry, OMP_ERRCODE_MEM_TOO_SMALL, needed);
        return;
    }
    int32_t narrow = (int32_t)wide;
    memcpy(entry->mem, &narrow, sizeof narrow);
    answer(entry, OMP_ERRCODE_OK, 4);
}

/* TASK_ID (task extension).  Async-signal-safe: yes; any thread. */
static void handle_task_id(struct entry *entry)
{
    const struct oc_task *task = oc_current_task();
    answer_task_id(entry, task != NULL ? task->id : 0);
}

/* TASK_PID (task extension).  Async-signal-safe: yes; any thread. */
static void handle_task_pid(struct entry *entry)
{
    const struct oc_task *task = oc_current_task();
    answer_task_id(entry, task != NULL ? task->parent_id : 0);
}

/* STOP: no callback begins once this returns.  Async-signal-safe: no; any thread. */
static void handle_stop(struct entry *entry)
{
    oc_control_lock();
    atomic_store(&oc_session_active, 0);
    for (int event = 0; event <= OC_EVENT_MAX; event++)
        atomic_store(&oc_event_callbacks[event], (omp_collector_callback_t)0);
    oc_publish_live_events();
    oc_control_unlock();
    oc_drain_deliveries();
    answer(entry, OMP_ERRCODE_OK, 0);
}

/* PAUSE: events are dropped from the moment this returns.  Async-signal-safe: no. */
static void handle_pause(struct entry *entry)
{
    oc_control_lock();
    atomic_store(&oc_paused, 1);
    oc_publish_live_events();
    oc_control_unlock();
    oc_drain_deliveries();
    answer(entry, OMP_ERRCODE_OK, 0);
}

/* RESUME.  Async-signal-safe: no. */
static void handle_resume(struct entry *entry)
{
    oc_control_lock();
    atomic_store(&oc_paused, 0);
    oc_publish_live_events();
    oc_control_unlock();
    answer(entry, OMP_ERRCODE_OK, 0);
}

typedef void (*request_handler)(struct entry *entry);

/* One row per request number, in OMP_COLLECTORAPI_REQUEST order. */
static const request_handler request_handlers[OMP_REQ_LAST] = {
    [OMP_REQ_START] = handle_start,
    [OMP_REQ_REGISTER] = handle_register,
    [OMP_REQ_UNREGISTER] = handle_unregister,
    [OMP_REQ_STATE] = handle_state,
    [OMP_REQ_CURRENT_PRID] = handle_current_prid,
    [OMP_REQ_PARENT_PRID] = handle_parent_prid,
    [OMP_REQ_STOP] = handle_stop,
    [OMP_REQ_PAUSE] = handle_pause,
    [OMP_REQ_RESUME] = handle_resume,
    [OMP_REQ_TASK_ID] = handle_task_id,
    [OMP_REQ_TASK_PID] = handle_task_pid,
};

/* Answers one well-formed legacy entry: unknown requests, then sequencing, then the handler. */
static __attribute__((noinline)) void process_entry(int32_t *header, int32_t size, struct sample *sample)
{
    struct entry entry = {header, (unsigned char *)header + ENTRY_HEADER_SIZE,
                          size - ENTRY_HEADER_SIZE, sample};
    int32_t request = header[1];
    if (request < 0 || request >= OMP_REQ_LAST) {
        answer(&entry, OMP_ERRCODE_UNKNOWN, 0);
        return;
    }
    if (request != OMP_REQ_START && !atomic_load(&oc_session_active)) {
        answer(&entry, OMP_ERRCODE_SEQUENCE_ERR, 0);
        return;
    }
    request_handlers[request](&entry);
}

/*
 * A sampler's two requests, answered as process_entry would but inline in
 * the loop, with the entry kept in registers: a STATE + CURRENT_PRID pair
 * costs about what the two OMPT inquiries it stands for do.  Returns 0 for
 * any other request, which process_entry then answers.
 */
static inline __attribute__((always_inline)) int sample_entry(int32_t *header, int32_t size,
                                                              struct sample *sample)
{
    int32_t request = header[1];
    if (request != OMP_REQ_STATE && request != OMP_REQ_CURRENT_PRID)
        return 0;
    struct entry entry = {header, (unsigned char *)header + ENTRY_HEADER_SIZE,
                          size - ENTRY_HEADER_SIZE, sample};
    if (!atomic_load_explicit(&oc_session_active, memory_order_seq_cst))
        answer(&entry, OMP_ERRCODE_SEQUENCE_ERR, 0);
    else if (request == OMP_REQ_STATE)
        handle_state(&entry);
    else
        handle_current_prid(&entry);
    return 1;
}

/*
 * Our own requests (OMPCOLLECTOR_REQ_*), answered inline in the loop as
 * sample_entry answers a sampler's: an agent asks TASK_INFO on each task
 * event.  Returns 0 for any other request.
 */
static inline __attribute__((always_inline)) int extension_entry(int32_t *header, int32_t size)
{
    int32_t request = header[1];
    if (!oc_is_extension_request(request))
        return 0;
    struct entry entry = {header, (unsigned char *)header + ENTRY_HEADER_SIZE, size - ENTRY_HEADER_SIZE, NULL};
    if (!atomic_load(&oc_session_active)) {
        answer(&entry, OMP_ERRCODE_SEQUENCE_ERR, 0);
        return 1;
    }
    int32_t rsz;
    int ec = oc_extension_request(request, entry.mem, entry.mem_size, &rsz);
    answer(&entry, ec, rsz);
    return 1;
}

/*
 * The entry point.  Entries are 32-bit ints; processing stops with -1 at
 * the first entry that is misaligned or whose size is malformed, leaving it
 * and everything after it untouched.
 * Async-signal-safe: yes for buffers holding only STATE, CURRENT_PRID,
 * TASK_ID, TASK_PID and ompcollector's SAMPLE and TASK_FRAMES entries;
 * any thread.
 */
int oc_collector_api(void *arg)
{
    if (arg == NULL)
        return -1;
    unsigned char *cursor = arg;
    struct sample sample = {0, 0, 0};
    /* Sizes are multiples of 4, so an aligned first entry makes every entry aligned. */
    if ((uintptr_t)cursor % 4 != 0)
        return -1;
    for (;;) {
        int32_t *header = (int32_t *)(void *)cursor;
        int32_t size = header[0];
        if (size == 0)
            return 0;
        if (size < ENTRY_HEADER_SIZE || size % 4 != 0)
            return -1;
        if (!sample_entry(header, size, &sample) && !extension_entry(header, size))
            process_entry(header, size, &sample);
        cursor += size;
    }
}

/* The exported name is the same function (an alias), so a client's call goes straight in. */
OC_EXPORT int __omp_collector_api(void *arg) __attribute__((alias("oc_collector_api")));
