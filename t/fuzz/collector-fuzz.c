/* collector-fuzz.c - libFuzzer target for __omp_collector_api on real libomp, with an oracle for return values, replies and every byte written. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The input: one flags byte, then the request buffer itself, entries of
 * 32-bit ints as a client lays them out.  The harness makes it a buffer a
 * client could legally pass (it appends a terminator, cuts an entry that
 * runs past the input, and turns the callback of every REGISTER into one
 * of its own functions, or NULL), surrounds it with guard bytes, calls the
 * API and holds the result against the header:
 *   - the return value is -1 exactly when arg is NULL or the walk meets a
 *     misaligned entry or one with sz < 16 or sz % 4 != 0, 0 otherwise;
 *   - no byte changes outside the ec, rsz and mem of the well-formed
 *     entries before the terminator (or the malformed entry), nor in sz
 *     and r#; nothing changes at or after the terminator or malformed one;
 *   - each entry's ec and rsz are the ones the header gives for its
 *     request, size and the session state, which the harness tracks (it is
 *     the only thread sending control requests), and mem changes only
 *     within what rsz says was written.
 * Flags byte: bits 0-1 where the call is made (0 or 3: a plain thread,
 * 1: the master inside a live parallel region, 2: a worker there); bit 2:
 * misalign arg by 1, 2 or 3 bytes (bits 3-4, modulo 3); bit 5: pass NULL.  A background
 * thread runs parallel regions all along, so the registered callbacks fire
 * while the fuzzed requests change what is registered.
 */
#define _GNU_SOURCE 1
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_collector_api.h"

#define GUARD 64
#define GUARD_BYTE 0xa5
#define EVENTS OMP_EVENT_THR_END_ATWT
/* OpenUH's task events run to 35; numbers up to here may come to be known. */
#define EXTENDED_EVENTS 63
#define HARNESS_CALLBACKS 4

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static _Atomic long callback_calls[HARNESS_CALLBACKS];
static _Atomic int background_running;

/* The harness's callbacks: what a REGISTER in the input gets instead of its pointer. */
static void count_only(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    atomic_fetch_add(&callback_calls[0], 1);
}

/* As TAU's callbacks do: CURRENT_PRID first, 24-byte entry. */
static void ask_region(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    int32_t request[7] = {24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    __omp_collector_api(request);
    atomic_fetch_add(&callback_calls[1], 1);
}

/* TAU's 20-byte STATE from inside an event. */
static void ask_state(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    int32_t request[6] = {20, OMP_REQ_STATE, 0, 0, 0, 0};
    __omp_collector_api(request);
    atomic_fetch_add(&callback_calls[2], 1);
}

/* A sampler's batch from inside an event. */
static void ask_both(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    int32_t batch[14] = {28, OMP_REQ_STATE, 0, 0, 0, 0, 0, 24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    __omp_collector_api(batch);
    atomic_fetch_add(&callback_calls[3], 1);
}

/*
 * OMPCOLLECTOR_EVENT_TASK's callback has its own type (phase, payload),
 * as OMPCOLLECTOR_EVENT_TASK_CREATE's and _TASK_LOG's: a REGISTER of any
 * of them gets this one, which checks what it is given -- a known phase
 * and a payload whose flags are OMPCOLLECTOR_TASK_* and whose parts are
 * not negative -- and asks for the state as TAU would.
 */
static _Atomic long task_phase_calls;
static void task_phases(int phase, const ompcollector_task_event_t *task)
{
    if (phase < OMPCOLLECTOR_TASK_CREATE || phase > OMPCOLLECTOR_TASK_WAIT_END || task == NULL || task->parts < 0
        || (task->flags & ~0x3f) != 0)
        abort();
    int32_t request[6] = {20, OMP_REQ_STATE, 0, 0, 0, 0};
    __omp_collector_api(request);
    atomic_fetch_add(&task_phase_calls, 1);
}

static const omp_collector_callback_t harness_callbacks[HARNESS_CALLBACKS] = {
    count_only, ask_region, ask_state, ask_both};

/* ---- the session as the harness knows it ---- */

static int session_active;
/*
 * Slots of the events REGISTER may know: 1..EXTENDED_EVENTS, then
 * ompcollector's own (OMPCOLLECTOR_EVENT_BASE + 1 up to _END, a private
 * range that other runtimes answer UNKNOWN).
 */
#define EVENT_SLOTS (EXTENDED_EVENTS + (OMPCOLLECTOR_EVENT_END - OMPCOLLECTOR_EVENT_BASE))
/* What REGISTER first answered per known event (OK or UNSUPPORTED), plus 1; it must stay so. */
static int register_answer[EVENT_SLOTS];
/* Events past 22: 0 not asked yet, 1 known, 2 unknown. */
static int extended_known[EVENT_SLOTS];

/* The slot of `event`, -1 for a number no request may know. */
static int event_slot(int32_t event)
{
    if (event >= 1 && event <= EXTENDED_EVENTS)
        return event;
    if (event > OMPCOLLECTOR_EVENT_BASE && event < OMPCOLLECTOR_EVENT_END)
        return EXTENDED_EVENTS + (event - OMPCOLLECTOR_EVENT_BASE);
    return -1;
}

/* A finding: say what, and abort so libFuzzer keeps the input. */
static void __attribute__((noreturn)) finding(const char *what, int entry, const int32_t *header)
{
    fprintf(stderr, "oracle: %s (entry %d", what, entry);
    if (header != NULL)
        fprintf(stderr, ": sz %d r# %d ec %d rsz %d", header[0], header[1], header[2], header[3]);
    fprintf(stderr, ")\n");
    abort();
}

/* ---- the call, in the place the flags ask for ---- */

struct call {
    unsigned char *arg;   /* what is passed (NULL allowed) */
    int context;          /* 0 plain, 1 master, 2 worker */
    int result;
    int in_region;        /* the call really ran inside a team */
    int as_master;        /* ... as its thread 0 */
    uint64_t region_seen; /* CURRENT_PRID asked just before, by the calling thread */
    int region_known;
};

/* The calling thread's region, as a plain 24-byte CURRENT_PRID says; 0 if unanswered. */
static int current_region(uint64_t *region)
{
    int32_t request[7] = {24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    __omp_collector_api(request);
    memcpy(region, &request[4], sizeof *region);
    return request[2] == OMP_ERRCODE_OK;
}

/* Calls the API where the flags ask: a plain thread, or a team's master or worker. */
static void make_call(struct call *call)
{
    if (call->context == 0) {
        call->result = __omp_collector_api(call->arg);
        return;
    }
    int wanted = call->context == 1 ? 0 : 1;
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();
        int caller = omp_get_num_threads() > wanted ? wanted : 0;
        if (me == caller) {
            call->in_region = 1;
            call->as_master = me == 0;
            call->region_known = current_region(&call->region_seen);
            call->result = __omp_collector_api(call->arg);
        }
#pragma omp barrier
    }
}

/* ---- making the input a legal buffer ---- */

static int32_t read32(const unsigned char *p)
{
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Stores an int at any alignment. */
static void write32(unsigned char *p, int32_t v)
{
    memcpy(p, &v, sizeof v);
}

/*
 * The offset in mem of a REGISTER entry's callback, by the header's rule:
 * sz 28 packed (mem+4); sz >= 32 at mem+8 when the pad word is 0, else
 * packed; -1 when the entry is too small to hold one.
 */
static int callback_offset(const unsigned char *entry, int32_t size)
{
    if (size < 28)
        return -1;
    if (size >= 32 && read32(entry + 20) == 0)
        return 8;
    return 4;
}

/* Replaces a fuzzed callback with one of the harness's, or NULL when it was NULL. */
static void tame_callback(unsigned char *entry, int32_t size)
{
    int offset = callback_offset(entry, size);
    if (offset < 0)
        return;
    unsigned char *where = entry + 16 + offset;
    uint64_t fuzzed;
    memcpy(&fuzzed, where, sizeof fuzzed);
    omp_collector_callback_t callback = NULL;
    if (fuzzed != 0) {
        int32_t event = read32(entry + 16);
        callback = event == OMPCOLLECTOR_EVENT_TASK || event == OMPCOLLECTOR_EVENT_TASK_CREATE
                           || event == OMPCOLLECTOR_EVENT_TASK_LOG
                       ? (omp_collector_callback_t)(void (*)(void))task_phases
                       : harness_callbacks[fuzzed % HARNESS_CALLBACKS];
        uint64_t bits;
        memcpy(&bits, &callback, sizeof bits);
        /* A packed pointer whose low word were 0 would read as the aligned layout's pad. */
        if (offset == 4 && (uint32_t)bits == 0)
            callback = NULL;
    }
    memcpy(where, &callback, sizeof callback);
}

/* ---- the oracle ---- */

/* Whether bytes [from, to) of `after` equal `before`. */
static int unchanged(const unsigned char *before, const unsigned char *after, size_t from, size_t to)
{
    return to <= from || memcmp(before + from, after + from, to - from) == 0;
}

/*
 * Whether REGISTER and UNREGISTER know `event`: 1..22 always; OpenUH's task
 * events past 22 and ompcollector's own may be known or not, as long as the
 * answer never changes (`ec` is this entry's answer, which decides it the
 * first time).
 */
static int event_known(int32_t event, int32_t ec, int index, const int32_t *header)
{
    if (event >= 1 && event <= EVENTS)
        return 1;
    int slot = event_slot(event);
    if (slot < 0)
        return 0;
    int known = ec != OMP_ERRCODE_UNKNOWN;
    if (extended_known[slot] == 0)
        extended_known[slot] = known ? 1 : 2;
    if (extended_known[slot] != (known ? 1 : 2))
        finding("an event past 22 is known to one request and not another", index, header);
    return known;
}

/* The states the header gives a wait id: STATE needs 12 bytes of mem for them. */
static int state_has_wait_id(int32_t state)
{
    return state == THR_IBAR_STATE || state == THR_EBAR_STATE || state == THR_LKWT_STATE
           || state == THR_CTWT_STATE || state == THR_ODWT_STATE || state == THR_ATWT_STATE;
}

/* The state word is one of the 11 states. */
static int state_valid(int32_t state)
{
    return state >= THR_OVHD_STATE && state <= THR_ATWT_STATE;
}

/*
 * SAMPLE's answer as the harness's calls can see it: the state STATE
 * answers, and no wait -- least of all OMPCOLLECTOR_WAIT_HELD, as the
 * calling thread holds no lock, critical, atomic or ordered (a held mark
 * left over from the background's critical would show here).
 */
static void check_sample(int index, const unsigned char *mem_after, const struct call *call, const int32_t *header)
{
    ompcollector_sample_t answer;
    memcpy(&answer, mem_after, sizeof answer);
    if (!state_valid(answer.state))
        finding("SAMPLE wrote a state outside 1..11", index, header);
    if (answer.wait_kind < OMPCOLLECTOR_WAIT_NONE || answer.wait_kind > OMPCOLLECTOR_WAIT_HELD)
        finding("SAMPLE wrote a wait_kind outside OMPCOLLECTOR_WAIT_*", index, header);
    else if (answer.wait_kind == OMPCOLLECTOR_WAIT_HELD && answer.state != THR_WORK_STATE)
        finding("SAMPLE's wait_kind is HELD in a state other than WORK", index, header);
    else if (answer.wait_kind == OMPCOLLECTOR_WAIT_HELD)
        finding("SAMPLE's wait_kind is HELD on a thread that holds nothing", index, header);
    if (!call->in_region && answer.state != THR_SERIAL_STATE)
        finding("SAMPLE on a thread outside OpenMP is not SERIAL", index, header);
    if (call->in_region && answer.state != THR_WORK_STATE)
        finding("SAMPLE from user code in a parallel region is not WORK", index, header);
}

/*
 * Checks one answered entry against the header and the harness's model,
 * and updates the model.  `before` is the entry as passed, `after` as
 * returned.
 */
static void check_entry(int index, const unsigned char *before, const unsigned char *after,
                        const struct call *call, uint64_t *region_answered, int *region_answers)
{
    int32_t size = read32(before), request = read32(before + 4);
    int32_t ec = read32(after + 8), rsz = read32(after + 12);
    int32_t mem_size = size - 16;
    const int32_t header[4] = {size, request, ec, rsz};
    const unsigned char *mem_before = before + 16, *mem_after = after + 16;
    if (read32(after) != size || read32(after + 4) != request)
        finding("sz or r# was rewritten", index, header);
    if (ec < OMP_ERRCODE_OK || ec >= OMP_ERRCODE_LAST)
        finding("ec out of range", index, header);
    int expected_ec = -1;
    int32_t expected_rsz = 0;
    size_t may_write = 0; /* bytes of mem that may change */

    /* A new private request must get its model here before the fuzzer builds again. */
    _Static_assert(OMPCOLLECTOR_REQ_END == OMPCOLLECTOR_REQ_BASE + 7, "a private request without an oracle");
    if (request > OMPCOLLECTOR_REQ_BASE && request < OMPCOLLECTOR_REQ_END) {
        /* Our extension requests (their own section of the header): the sizes they document. */
        const int32_t level_size = (int32_t)sizeof(ompcollector_task_frame_t);
        const int32_t head_size = (int32_t)sizeof(ompcollector_task_frames_t);
        if (!session_active) {
            expected_ec = OMP_ERRCODE_SEQUENCE_ERR;
        } else if (request != OMPCOLLECTOR_REQ_TASK_FRAMES) {
            expected_rsz = (int32_t)(request == OMPCOLLECTOR_REQ_SAMPLE      ? sizeof(ompcollector_sample_t)
                                     : request == OMPCOLLECTOR_REQ_TASK_INFO ? sizeof(ompcollector_task_info_t)
                                     : request == OMPCOLLECTOR_REQ_TASK      ? sizeof(ompcollector_task_t)
                                     : request == OMPCOLLECTOR_REQ_REGION    ? sizeof(ompcollector_region_t)
                                                                             : sizeof(ompcollector_task_dependence_t));
            expected_ec = mem_size < expected_rsz ? OMP_ERRCODE_MEM_TOO_SMALL : OMP_ERRCODE_OK;
            may_write = mem_size < expected_rsz ? 0 : (size_t)expected_rsz;
            if (request == OMPCOLLECTOR_REQ_SAMPLE && ec == OMP_ERRCODE_OK && mem_size >= expected_rsz)
                check_sample(index, mem_after, call, header);
        } else if (mem_size < head_size) {
            expected_rsz = head_size;
            expected_ec = OMP_ERRCODE_MEM_TOO_SMALL;
        } else {
            /* The header says how many levels there are and how many were written; rsz and ec follow. */
            ompcollector_task_frames_t head;
            memcpy(&head, mem_after, sizeof head);
            int32_t fits = (mem_size - head_size) / level_size;
            if (head.count < 0 || head.count > head.levels || (int32_t)head.count > fits
                || (head.count < head.levels && (int32_t)head.count != fits) || head.levels > 1024)
                finding("TASK_FRAMES levels written and counted disagree with mem", index, header);
            expected_rsz = head_size + (int32_t)head.levels * level_size;
            expected_ec = head.count < head.levels ? OMP_ERRCODE_MEM_TOO_SMALL : OMP_ERRCODE_OK;
            may_write = (size_t)head_size + (size_t)head.count * (size_t)level_size;
        }
    } else if (request < 0 || request >= OMP_REQ_LAST) {
        expected_ec = OMP_ERRCODE_UNKNOWN;
    } else if (request != OMP_REQ_START && !session_active) {
        expected_ec = OMP_ERRCODE_SEQUENCE_ERR;
    } else if (request > OMP_REQ_RESUME) {
        /*
         * A request the header added after the nine (OpenUH's task
         * requests): no model here, only what holds for every request.
         */
        if (ec == OMP_ERRCODE_OK && (rsz < 0 || rsz > mem_size))
            finding("OK with rsz outside mem", index, header);
        if (ec == OMP_ERRCODE_MEM_TOO_SMALL && rsz <= mem_size)
            finding("MEM_TOO_SMALL with an rsz that would have fit", index, header);
        if (ec != OMP_ERRCODE_OK && ec != OMP_ERRCODE_MEM_TOO_SMALL && rsz != 0)
            finding("an error with a nonzero rsz", index, header);
        size_t written = ec == OMP_ERRCODE_OK ? (size_t)rsz
                         : ec == OMP_ERRCODE_MEM_TOO_SMALL ? (size_t)mem_size : 0;
        if (!unchanged(mem_before, mem_after, written, (size_t)mem_size))
            finding("bytes of mem changed beyond what was answered", index, header);
        return;
    } else {
        switch (request) {
        case OMP_REQ_START:
            expected_ec = session_active ? OMP_ERRCODE_SEQUENCE_ERR : OMP_ERRCODE_OK;
            session_active = 1;
            break;
        case OMP_REQ_STOP:
            expected_ec = OMP_ERRCODE_OK;
            session_active = 0;
            break;
        case OMP_REQ_PAUSE:
        case OMP_REQ_RESUME:
            expected_ec = OMP_ERRCODE_OK;
            break;
        case OMP_REQ_UNREGISTER: {
            int32_t event = mem_size >= 4 ? read32(mem_before) : 0;
            if (mem_size < 4)
                expected_ec = OMP_ERRCODE_ERROR;
            else if (!event_known(event, ec, index, header))
                expected_ec = OMP_ERRCODE_UNKNOWN;
            else
                expected_ec = OMP_ERRCODE_OK;
            break;
        }
        case OMP_REQ_REGISTER: {
            int offset = callback_offset(before, size);
            int32_t event = mem_size >= 4 ? read32(mem_before) : 0;
            omp_collector_callback_t callback = NULL;
            if (offset >= 0)
                memcpy(&callback, mem_before + offset, sizeof callback);
            if (offset < 0) {
                expected_ec = OMP_ERRCODE_ERROR;
            } else if (!event_known(event, ec, index, header)) {
                expected_ec = OMP_ERRCODE_UNKNOWN;
            } else if (callback == NULL) {
                expected_ec = OMP_ERRCODE_ERROR;
            } else {
                if (ec != OMP_ERRCODE_OK && ec != OMP_ERRCODE_UNSUPPORTED)
                    finding("REGISTER of a known event answered neither OK nor UNSUPPORTED",
                            index, header);
                int slot = event_slot(event);
                if (register_answer[slot] == 0)
                    register_answer[slot] = ec + 1;
                expected_ec = register_answer[slot] - 1;
            }
            break;
        }
        case OMP_REQ_STATE:
            expected_rsz = 12;
            if (mem_size < 4) {
                expected_ec = OMP_ERRCODE_MEM_TOO_SMALL;
            } else {
                int32_t state = read32(mem_after);
                expected_ec = OMP_ERRCODE_OK;
                may_write = 12;
                if (mem_size < 12) {
                    /* Room for the state only (TAU's sz 20): enough unless a wait id comes with it. */
                    may_write = 4;
                    if (state_has_wait_id(state)) {
                        expected_ec = OMP_ERRCODE_MEM_TOO_SMALL;
                    } else {
                        expected_rsz = 4;
                    }
                }
                if (!state_valid(state))
                    finding("STATE wrote a state outside 1..11", index, header);
                /* Code outside any region is serial; user code inside one works. */
                if (!call->in_region && state != THR_SERIAL_STATE)
                    finding("STATE on a thread outside OpenMP is not SERIAL", index, header);
                if (call->in_region && state != THR_WORK_STATE)
                    finding("STATE from user code in a parallel region is not WORK", index, header);
            }
            break;
        case OMP_REQ_CURRENT_PRID:
        case OMP_REQ_PARENT_PRID:
            if (request == OMP_REQ_PARENT_PRID && !(call->in_region && call->as_master)) {
                /* A worker may not ask; a thread outside any team gets THREAD_ERR or 0. */
                if (call->in_region || ec == OMP_ERRCODE_THREAD_ERR) {
                    expected_ec = OMP_ERRCODE_THREAD_ERR;
                    break;
                }
            }
            expected_rsz = 8;
            expected_ec = mem_size < 8 ? OMP_ERRCODE_MEM_TOO_SMALL : OMP_ERRCODE_OK;
            if (mem_size >= 8) {
                uint64_t region;
                memcpy(&region, mem_after, sizeof region);
                may_write = 8;
                if (request == OMP_REQ_PARENT_PRID) {
                    if (region != 0)
                        finding("PARENT_PRID of an outermost region is not 0", index, header);
                } else if (!call->in_region) {
                    if (region != 0)
                        finding("CURRENT_PRID outside any region is not 0", index, header);
                } else {
                    if (region == 0 || (call->region_known && region != call->region_seen))
                        finding("CURRENT_PRID in a region is not the region's id", index, header);
                    if (*region_answers && region != *region_answered)
                        finding("CURRENT_PRID changed within one call", index, header);
                    *region_answered = region;
                    *region_answers = 1;
                }
            }
            break;
        default:
            break;
        }
    }
    if (ec != expected_ec)
        finding("ec is not what the header gives", index, header);
    if (rsz != expected_rsz)
        finding("rsz is not what the header gives", index, header);
    if (ec == OMP_ERRCODE_MEM_TOO_SMALL && rsz <= mem_size)
        finding("MEM_TOO_SMALL with an rsz that would have fit", index, header);
    if (ec == OMP_ERRCODE_OK && rsz > mem_size)
        finding("rsz larger than mem", index, header);
    if (!unchanged(mem_before, mem_after, may_write, (size_t)mem_size))
        finding("bytes of mem changed beyond what was answered", index, header);
}

/* ---- the target ---- */

/* Regions all along, with a critical and a barrier, as the program being observed. */
static void *background(void *unused)
{
    (void)unused;
    long sum = 0;
    while (atomic_load(&background_running)) {
#pragma omp parallel num_threads(2) reduction(+ : sum)
        {
#pragma omp critical
            sum += omp_get_thread_num();
#pragma omp barrier
        }
    }
    return (void *)sum;
}

/* Starts the session the inputs work in, and the background regions. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* Workers that sleep at once leave the cores to the fuzzer on a small machine. */
    setenv("KMP_BLOCKTIME", "0", 0);
    int32_t start[5] = {16, OMP_REQ_START, 0, 0, 0};
    if (__omp_collector_api(start) != 0 || start[2] != OMP_ERRCODE_OK) {
        fprintf(stderr, "collector-fuzz: START answered %d: the shim is not the runtime's tool\n",
                start[2]);
        abort();
    }
    session_active = 1;
    atomic_store(&background_running, 1);
    pthread_t thread;
    if (pthread_create(&thread, NULL, background, NULL) != 0)
        abort();
    pthread_detach(thread);
    return 0;
}

/* One input: make it a legal buffer, call, hold the result against the header. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int flags = data[0];
    data++, size--;
    /* Every input starts on a live session; the previous one may have stopped it. */
    if (!session_active) {
        int32_t start[5] = {16, OMP_REQ_START, 0, 0, 0};
        __omp_collector_api(start);
        if (start[2] != OMP_ERRCODE_OK)
            finding("START after STOP failed", -1, start);
        session_active = 1;
    }

    size_t misalign = (flags & 4) ? 1 + ((flags >> 3) & 3) % 3 : 0;
    size_t body = (size + 3) / 4 * 4 + 4; /* room for a terminator */
    size_t total = GUARD + misalign + body + GUARD;
    unsigned char *passed = malloc(total), *expected = malloc(total);
    if (passed == NULL || expected == NULL)
        abort();
    memset(passed, GUARD_BYTE, total);
    unsigned char *arg = passed + GUARD + misalign;
    memset(arg, 0, body);
    memcpy(arg, data, size);

    /* Walk as the header says, making the buffer legal: cut runaway entries, tame callbacks. */
    int expect_error = misalign != 0 || (flags & 32);
    size_t offset = 0, stop_at = 0;
    int entries = 0;
    if (!expect_error) {
        for (;;) {
            int32_t sz = read32(arg + offset);
            if (sz == 0)
                break;
            if (sz < 16 || sz % 4 != 0) {
                expect_error = 1;
                break;
            }
            if ((size_t)sz > body - 4 - offset) {
                /* The entry runs past the input: it becomes the terminator. */
                write32(arg + offset, 0);
                break;
            }
            if (read32(arg + offset + 4) == OMP_REQ_REGISTER)
                tame_callback(arg + offset, sz);
            offset += (size_t)sz;
            entries++;
        }
    }
    stop_at = offset;
    memcpy(expected, passed, total);

    struct call call = {(flags & 32) ? NULL : arg, flags & 3, -2, 0, 0, 0, 0};
    if (call.context == 3)
        call.context = 0;
    make_call(&call);

    if (call.result != (expect_error ? -1 : 0))
        finding(expect_error ? "a malformed buffer did not return -1" : "a well-formed buffer did not return 0",
                entries, NULL);
    if (!unchanged(expected, passed, 0, GUARD + misalign))
        finding("bytes before arg changed", -1, NULL);
    if (!unchanged(expected, passed, GUARD + misalign + stop_at, total))
        finding("bytes at or after the terminator or malformed entry changed", entries, NULL);
    uint64_t region_answered = 0;
    int region_answers = 0;
    size_t at = 0;
    for (int i = 0; i < entries; i++) {
        int32_t sz = read32(expected + GUARD + misalign + at);
        check_entry(i, expected + GUARD + misalign + at, arg + at, &call, &region_answered,
                    &region_answers);
        at += (size_t)sz;
    }
    free(passed);
    free(expected);
    return 0;
}
