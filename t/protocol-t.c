/* protocol-t.c - every request-protocol rule as one row of data, each run in a fresh process against the fake runtime. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fake-ompt.h"
#include "lib/tap.h"
#include "omp_collector_api.h"

#define SENTINEL 0x5a5a5a5a
#define UNTOUCHED (-99) /* expected ec/rsz: the entry must keep its sentinels */
#define ANY (-98)       /* expected rsz: not checked */
#define CALLBACK_HERE 0x7ffffff1 /* mem word replaced by the counting callback's address */
#define NULL_CALLBACK_HERE 0x7ffffff8 /* mem word replaced by a NULL pointer */
#define MAX_ENTRIES 4
#define MAX_MEM_WORDS 6

/* What the process has done before the buffer is sent. */
enum setup {
    FRESH_UNATTACHED,      /* runtime initialised long ago without the tool */
    FRESH_DISCOVERABLE,    /* first runtime entry will discover the tool */
    ATTACHED,              /* runtime took the tool on; no session yet */
    STARTED,               /* ... and START went through */
    STOPPED,               /* ... and STOP after it */
    STARTED_NO_MASKED,     /* STARTED, on a runtime that never grants ompt_callback_masked */
    STARTED_NO_TASK_SCHEDULE, /* STARTED, on a runtime that never grants ompt_callback_task_schedule */
    STARTED_FORK_REGISTERED, /* STARTED, FORK registered with the counting callback */
    STARTED_PAUSED         /* STARTED_FORK_REGISTERED, then PAUSE */
};

/* What is checked after the buffer came back. */
enum after {
    NOTHING,
    FORK_FIRES_ONCE,     /* a parallel region then delivers exactly one FORK */
    FORK_DOES_NOT_FIRE,  /* a parallel region then delivers nothing */
    FORK_FIRES_REPLACEMENT /* FORK goes to the second callback only */
};

struct entry_spec {
    int32_t size;
    int32_t request;
    int32_t mem[MAX_MEM_WORDS];
    int32_t expect_ec;
    int32_t expect_rsz;
};

struct protocol_case {
    const char *rule;
    enum setup setup;
    int misalign;             /* send the buffer at a 2-byte offset */
    struct entry_spec entries[MAX_ENTRIES];
    int expect_return;
    enum after after;
};

#define E(size, request, ec, rsz, ...) {(size), (request), {__VA_ARGS__}, (ec), (rsz)}
#define CB_LO CALLBACK_HERE

static const struct protocol_case cases[] = {
    {"sz below 16 stops processing with -1 and leaves the entry alone", STARTED, 0,
     {E(12, OMP_REQ_PAUSE, UNTOUCHED, ANY, 0)}, -1, NOTHING},
    {"sz not a multiple of 4 stops processing with -1", STARTED, 0,
     {E(18, OMP_REQ_PAUSE, UNTOUCHED, UNTOUCHED, 0)}, -1, NOTHING},
    {"a bad entry after a good one: the good one answered, the bad one untouched", STARTED, 0,
     {E(16, OMP_REQ_RESUME, OMP_ERRCODE_OK, 0, 0), E(20, OMP_REQ_STATE, ANY, ANY, 0),
      E(13, OMP_REQ_PAUSE, UNTOUCHED, UNTOUCHED, 0)},
     -1, NOTHING},
    {"a misaligned buffer gets -1 and nothing is written", STARTED, 1,
     {E(16, OMP_REQ_PAUSE, UNTOUCHED, UNTOUCHED, 0)}, -1, NOTHING},
    {"an empty list returns 0", STARTED, 0, {{0}}, 0, NOTHING},
    {"entries with error codes still return 0", STARTED, 0,
     {E(16, 77, OMP_ERRCODE_UNKNOWN, 0, 0), E(16, OMP_REQ_START, OMP_ERRCODE_SEQUENCE_ERR, 0, 0)},
     0, NOTHING},
    {"REGISTER before START is a sequence error", ATTACHED, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_SEQUENCE_ERR, 0, OMP_EVENT_FORK, CB_LO)}, 0, NOTHING},
    {"UNREGISTER before START is a sequence error", ATTACHED, 0,
     {E(20, OMP_REQ_UNREGISTER, OMP_ERRCODE_SEQUENCE_ERR, 0, OMP_EVENT_FORK)}, 0, NOTHING},
    {"STATE before START is a sequence error", ATTACHED, 0,
     {E(28, OMP_REQ_STATE, OMP_ERRCODE_SEQUENCE_ERR, 0, 0)}, 0, NOTHING},
    {"CURRENT_PRID before START is a sequence error", ATTACHED, 0,
     {E(24, OMP_REQ_CURRENT_PRID, OMP_ERRCODE_SEQUENCE_ERR, 0, 0)}, 0, NOTHING},
    {"PARENT_PRID before START is a sequence error", ATTACHED, 0,
     {E(24, OMP_REQ_PARENT_PRID, OMP_ERRCODE_SEQUENCE_ERR, 0, 0)}, 0, NOTHING},
    {"STOP, PAUSE and RESUME before START are sequence errors", ATTACHED, 0,
     {E(16, OMP_REQ_STOP, OMP_ERRCODE_SEQUENCE_ERR, 0, 0),
      E(16, OMP_REQ_PAUSE, OMP_ERRCODE_SEQUENCE_ERR, 0, 0),
      E(16, OMP_REQ_RESUME, OMP_ERRCODE_SEQUENCE_ERR, 0, 0)},
     0, NOTHING},
    {"START on an attached runtime succeeds", ATTACHED, 0,
     {E(16, OMP_REQ_START, OMP_ERRCODE_OK, 0, 0)}, 0, NOTHING},
    {"a second START is a sequence error", STARTED, 0,
     {E(16, OMP_REQ_START, OMP_ERRCODE_SEQUENCE_ERR, 0, 0)}, 0, NOTHING},
    {"after STOP every request but START is a sequence error", STOPPED, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_SEQUENCE_ERR, 0, OMP_EVENT_FORK, CB_LO),
      E(28, OMP_REQ_STATE, OMP_ERRCODE_SEQUENCE_ERR, 0, 0),
      E(16, OMP_REQ_PAUSE, OMP_ERRCODE_SEQUENCE_ERR, 0, 0),
      E(16, OMP_REQ_STOP, OMP_ERRCODE_SEQUENCE_ERR, 0, 0)},
     0, NOTHING},
    {"START after STOP begins a new session", STOPPED, 0,
     {E(16, OMP_REQ_START, OMP_ERRCODE_OK, 0, 0), E(16, OMP_REQ_PAUSE, OMP_ERRCODE_OK, 0, 0)},
     0, NOTHING},
    {"no registration survives STOP and START", STARTED_FORK_REGISTERED, 0,
     {E(16, OMP_REQ_STOP, OMP_ERRCODE_OK, 0, 0), E(16, OMP_REQ_START, OMP_ERRCODE_OK, 0, 0)},
     0, FORK_DOES_NOT_FIRE},
    {"no pause survives STOP and START", STARTED_PAUSED, 0,
     {E(16, OMP_REQ_STOP, OMP_ERRCODE_OK, 0, 0), E(16, OMP_REQ_START, OMP_ERRCODE_OK, 0, 0),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_FORK, CB_LO)},
     0, FORK_FIRES_ONCE},
    {"START when the runtime initialised without the tool is a sequence error",
     FRESH_UNATTACHED, 0, {E(16, OMP_REQ_START, OMP_ERRCODE_SEQUENCE_ERR, 0, 0)}, 0, NOTHING},
    {"START before the runtime initialised attaches and succeeds", FRESH_DISCOVERABLE, 0,
     {E(16, OMP_REQ_START, OMP_ERRCODE_OK, 0, 0),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_FORK, CB_LO)},
     0, FORK_FIRES_ONCE},
    {"OMP_REQ_LAST is an unknown request", STARTED, 0,
     {E(16, OMP_REQ_LAST, OMP_ERRCODE_UNKNOWN, 0, 0)}, 0, NOTHING},
    {"large and negative request numbers are unknown", STARTED, 0,
     {E(16, 4096, OMP_ERRCODE_UNKNOWN, 0, 0), E(16, -1, OMP_ERRCODE_UNKNOWN, 0, 0),
      E(16, 0x7fffffff, OMP_ERRCODE_UNKNOWN, 0, 0)},
     0, NOTHING},
    {"unknown requests are unknown before START too", ATTACHED, 0,
     {E(16, 11, OMP_ERRCODE_UNKNOWN, 0, 0)}, 0, NOTHING},
    {"OMP_REQ_LAST is 11 with the task extension: 9 and 10 are TASK_ID and TASK_PID", STARTED, 0,
     {E(16, OMP_REQ_LAST, OMP_ERRCODE_UNKNOWN, 0, 0), E(24, 9, OMP_ERRCODE_OK, 8, 0),
      E(24, 10, OMP_ERRCODE_OK, 8, 0)},
     0, NOTHING},
    {"TASK_ID and TASK_PID before START are sequence errors", ATTACHED, 0,
     {E(24, OMP_REQ_TASK_ID, OMP_ERRCODE_SEQUENCE_ERR, 0, 0),
      E(20, OMP_REQ_TASK_PID, OMP_ERRCODE_SEQUENCE_ERR, 0, 0)},
     0, NOTHING},
    {"TASK_ID outside any task: -1 as a 4-byte int (rsz 4) and as a 64-bit one (rsz 8)", STARTED, 0,
     {E(20, OMP_REQ_TASK_ID, OMP_ERRCODE_OK, 4, 0), E(24, OMP_REQ_TASK_ID, OMP_ERRCODE_OK, 8, 0),
      E(20, OMP_REQ_TASK_PID, OMP_ERRCODE_OK, 4, 0), E(24, OMP_REQ_TASK_PID, OMP_ERRCODE_OK, 8, 0)},
     0, NOTHING},
    {"TASK_ID and TASK_PID with no mem ask for 4", STARTED, 0,
     {E(16, OMP_REQ_TASK_ID, OMP_ERRCODE_MEM_TOO_SMALL, 4, 0),
      E(16, OMP_REQ_TASK_PID, OMP_ERRCODE_MEM_TOO_SMALL, 4, 0)},
     0, NOTHING},
    {"REGISTER packed (sz 28, callback at mem+4) works", STARTED, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_FORK, CB_LO)}, 0, FORK_FIRES_ONCE},
    {"REGISTER aligned (sz 32, pad 0, callback at mem+8) works", STARTED, 0,
     {E(32, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_FORK, 0, CB_LO)}, 0,
     FORK_FIRES_ONCE},
    {"REGISTER of event 0 is unknown", STARTED, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_UNKNOWN, 0, 0, CB_LO)}, 0, NOTHING},
    {"REGISTER of OpenUH's task events 23 and 35 is OK", STARTED, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_THR_BEGIN_CREATE_TASK, CB_LO),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_THR_END_FINISH_TASK, CB_LO)},
     0, NOTHING},
    {"REGISTER of task events on a runtime that never grants task_schedule is unsupported",
     STARTED_NO_TASK_SCHEDULE, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_UNSUPPORTED, 0, OMP_EVENT_THR_BEGIN_EXEC_TASK, CB_LO),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_UNSUPPORTED, 0, OMP_EVENT_THR_FETCHED_TASK, CB_LO),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_THR_END_CREATE_TASK_DEL, CB_LO)},
     0, NOTHING},
    {"REGISTER of OMPCOLLECTOR_EVENT_TASK, _TASK_CREATE and _TASK_LOG is OK where task_create and task_schedule are granted", STARTED, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMPCOLLECTOR_EVENT_TASK, CB_LO),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMPCOLLECTOR_EVENT_TASK_CREATE, CB_LO),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMPCOLLECTOR_EVENT_TASK_LOG, CB_LO)},
     0, NOTHING},
    {"REGISTER of OMPCOLLECTOR_EVENT_TASK, _TASK_CREATE and _TASK_LOG on a runtime that never grants task_schedule is unsupported",
     STARTED_NO_TASK_SCHEDULE, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_UNSUPPORTED, 0, OMPCOLLECTOR_EVENT_TASK, CB_LO),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_UNSUPPORTED, 0, OMPCOLLECTOR_EVENT_TASK_CREATE, CB_LO),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_UNSUPPORTED, 0, OMPCOLLECTOR_EVENT_TASK_LOG, CB_LO)},
     0, NOTHING},
    {"REGISTER of event 36 and of OMP_EVENT_THR_RESERVED_IMPL is unknown", STARTED, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_UNKNOWN, 0, 36, CB_LO),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_UNKNOWN, 0, OMP_EVENT_THR_RESERVED_IMPL, CB_LO),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_UNKNOWN, 0, -5, CB_LO)},
     0, NOTHING},
    {"REGISTER of an event the runtime cannot produce is unsupported", STARTED_NO_MASKED, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_UNSUPPORTED, 0, OMP_EVENT_THR_BEGIN_MASTER, CB_LO),
      E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_THR_BEGIN_SINGLE, CB_LO)},
     0, NOTHING},
    {"REGISTER with a NULL callback is an error", STARTED, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_ERROR, 0, OMP_EVENT_FORK, NULL_CALLBACK_HERE)}, 0,
     FORK_DOES_NOT_FIRE},
    {"REGISTER too short to hold a callback is an error", STARTED, 0,
     {E(24, OMP_REQ_REGISTER, OMP_ERRCODE_ERROR, 0, OMP_EVENT_FORK, CB_LO)}, 0,
     FORK_DOES_NOT_FIRE},
    {"a second REGISTER replaces the first", STARTED_FORK_REGISTERED, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_FORK, CB_LO + 1)}, 0,
     FORK_FIRES_REPLACEMENT},
    {"UNREGISTER of an event never registered is accepted", STARTED, 0,
     {E(20, OMP_REQ_UNREGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_JOIN)}, 0, NOTHING},
    {"UNREGISTER stops delivery", STARTED_FORK_REGISTERED, 0,
     {E(20, OMP_REQ_UNREGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_FORK)}, 0, FORK_DOES_NOT_FIRE},
    {"UNREGISTER of an unknown event is unknown", STARTED, 0,
     {E(20, OMP_REQ_UNREGISTER, OMP_ERRCODE_UNKNOWN, 0, 99)}, 0, NOTHING},
    {"PAUSE twice is accepted and stops delivery", STARTED_FORK_REGISTERED, 0,
     {E(16, OMP_REQ_PAUSE, OMP_ERRCODE_OK, 0, 0), E(16, OMP_REQ_PAUSE, OMP_ERRCODE_OK, 0, 0)}, 0,
     FORK_DOES_NOT_FIRE},
    {"RESUME while running is accepted", STARTED_FORK_REGISTERED, 0,
     {E(16, OMP_REQ_RESUME, OMP_ERRCODE_OK, 0, 0)}, 0, FORK_FIRES_ONCE},
    {"RESUME after PAUSE restores delivery", STARTED_PAUSED, 0,
     {E(16, OMP_REQ_RESUME, OMP_ERRCODE_OK, 0, 0)}, 0, FORK_FIRES_ONCE},
    {"REGISTER while paused is kept for after RESUME", STARTED_PAUSED, 0,
     {E(28, OMP_REQ_REGISTER, OMP_ERRCODE_OK, 0, OMP_EVENT_JOIN, CB_LO),
      E(16, OMP_REQ_RESUME, OMP_ERRCODE_OK, 0, 0)},
     0, FORK_FIRES_ONCE},
    {"STATE with room for state and wait id answers rsz 12", STARTED, 0,
     {E(28, OMP_REQ_STATE, OMP_ERRCODE_OK, 12, 0)}, 0, NOTHING},
    {"STATE with room for the state only, serial (no wait id): OK, rsz 4", STARTED, 0,
     {E(20, OMP_REQ_STATE, OMP_ERRCODE_OK, 4, 0)}, 0, NOTHING},
    {"STATE with no mem asks for 12", STARTED, 0,
     {E(16, OMP_REQ_STATE, OMP_ERRCODE_MEM_TOO_SMALL, 12, 0)}, 0, NOTHING},
    {"CURRENT_PRID with 8 bytes answers rsz 8", STARTED, 0,
     {E(24, OMP_REQ_CURRENT_PRID, OMP_ERRCODE_OK, 8, 0)}, 0, NOTHING},
    {"CURRENT_PRID with 4 bytes asks for 8", STARTED, 0,
     {E(20, OMP_REQ_CURRENT_PRID, OMP_ERRCODE_MEM_TOO_SMALL, 8, 0)}, 0, NOTHING},
    {"PARENT_PRID outside any team is a thread error", STARTED, 0,
     {E(24, OMP_REQ_PARENT_PRID, OMP_ERRCODE_THREAD_ERR, 0, 0)}, 0, NOTHING},
    {"STATE and CURRENT_PRID batched answer both", STARTED, 0,
     {E(28, OMP_REQ_STATE, OMP_ERRCODE_OK, 12, 0), E(24, OMP_REQ_CURRENT_PRID, OMP_ERRCODE_OK, 8, 0)},
     0, NOTHING},
};

static int fork_deliveries;
static int replacement_deliveries;

static void count_fork(OMP_COLLECTORAPI_EVENT event)
{
    if (event == OMP_EVENT_FORK)
        fork_deliveries++;
}

static void count_replacement(OMP_COLLECTORAPI_EVENT event)
{
    if (event == OMP_EVENT_FORK)
        replacement_deliveries++;
}

/* Sends one request with no mem; returns its ec. */
static int simple_request(int request)
{
    int32_t buffer[5] = {16, request, SENTINEL, SENTINEL, 0};
    __omp_collector_api(buffer);
    return buffer[2];
}

/* Registers `callback` for `event` with a packed entry; returns its ec. */
static int register_event(int event, void (*callback)(OMP_COLLECTORAPI_EVENT))
{
    int32_t buffer[8] = {28, OMP_REQ_REGISTER, 0, 0, event};
    memcpy(&buffer[5], &callback, sizeof callback);
    __omp_collector_api(buffer);
    return buffer[2];
}

static int prepare(enum setup setup)
{
    switch (setup) {
    case FRESH_UNATTACHED:
        fake_ompt_set_discovery(FAKE_DISCOVERY_ALREADY_DONE);
        return 1;
    case FRESH_DISCOVERABLE:
        fake_ompt_set_discovery(FAKE_DISCOVERY_ATTACHES);
        return 1;
    case STARTED_NO_MASKED:
        fake_ompt_grant(ompt_callback_masked, ompt_set_never);
        break;
    case STARTED_NO_TASK_SCHEDULE:
        fake_ompt_grant(ompt_callback_task_schedule, ompt_set_never);
        break;
    default:
        break;
    }
    if (fake_ompt_attach() != 1)
        return 0;
    if (setup == ATTACHED)
        return 1;
    if (simple_request(OMP_REQ_START) != OMP_ERRCODE_OK)
        return 0;
    if (setup == STOPPED)
        return simple_request(OMP_REQ_STOP) == OMP_ERRCODE_OK;
    if (setup == STARTED_FORK_REGISTERED || setup == STARTED_PAUSED)
        if (register_event(OMP_EVENT_FORK, count_fork) != OMP_ERRCODE_OK)
            return 0;
    if (setup == STARTED_PAUSED)
        return simple_request(OMP_REQ_PAUSE) == OMP_ERRCODE_OK;
    return 1;
}

/* One parallel region, as the runtime would report it. */
static void run_region(void)
{
    ompt_data_t parallel_data = {0};
    fake_fire_parallel_begin(&parallel_data);
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &parallel_data, 0);
    fake_fire_implicit_task(OC_SCOPE_END, &parallel_data, 0);
    fake_fire_parallel_end(&parallel_data);
}

/* Lays out the entries, sends them, checks every answer; returns 1 when the rule held. */
static int run_case(const struct protocol_case *c)
{
    if (!prepare(c->setup)) {
        fprintf(stderr, "setup failed\n");
        return 0;
    }
    static int32_t storage[128];
    for (size_t i = 0; i < sizeof storage / sizeof storage[0]; i++)
        storage[i] = SENTINEL;
    int32_t *buffer = c->misalign ? (int32_t *)(void *)((char *)storage + 2) : storage;
    int offsets[MAX_ENTRIES] = {0};
    int words = 0, count = 0;
    for (; count < MAX_ENTRIES && c->entries[count].size != 0; count++) {
        const struct entry_spec *spec = &c->entries[count];
        int32_t entry[64];
        int entry_words = (spec->size + 3) / 4;
        entry[0] = spec->size;
        entry[1] = spec->request;
        entry[2] = SENTINEL;
        entry[3] = SENTINEL;
        for (int w = 4; w < entry_words; w++)
            entry[w] = w - 4 < MAX_MEM_WORDS ? spec->mem[w - 4] : 0;
        for (int w = 4; w < entry_words; w++) {
            void (*callback)(OMP_COLLECTORAPI_EVENT) = NULL;
            if (entry[w] == CALLBACK_HERE)
                callback = count_fork;
            else if (entry[w] == CALLBACK_HERE + 1)
                callback = count_replacement;
            else if (entry[w] != NULL_CALLBACK_HERE)
                continue;
            memcpy(&entry[w], &callback, sizeof callback);
        }
        memcpy((char *)buffer + words * 4, entry, (size_t)spec->size);
        offsets[count] = words;
        words += entry_words;
    }
    int32_t terminator = 0;
    memcpy((char *)buffer + words * 4, &terminator, sizeof terminator);

    int result = __omp_collector_api(buffer);
    int held = 1;
    if (result != c->expect_return) {
        fprintf(stderr, "returned %d, expected %d\n", result, c->expect_return);
        held = 0;
    }
    for (int i = 0; i < count; i++) {
        const struct entry_spec *spec = &c->entries[i];
        int32_t ec, rsz;
        memcpy(&ec, (char *)buffer + (offsets[i] + 2) * 4, 4);
        memcpy(&rsz, (char *)buffer + (offsets[i] + 3) * 4, 4);
        int32_t want_ec = spec->expect_ec == UNTOUCHED ? SENTINEL : spec->expect_ec;
        int32_t want_rsz = spec->expect_rsz == UNTOUCHED ? SENTINEL : spec->expect_rsz;
        if (spec->expect_ec != ANY && ec != want_ec) {
            fprintf(stderr, "entry %d: ec %d, expected %d\n", i, ec, want_ec);
            held = 0;
        }
        if (spec->expect_rsz != ANY && rsz != want_rsz) {
            fprintf(stderr, "entry %d: rsz %d, expected %d\n", i, rsz, want_rsz);
            held = 0;
        }
        if (spec->request == OMP_REQ_STATE && spec->size >= 20
            && (ec == OMP_ERRCODE_OK || ec == OMP_ERRCODE_MEM_TOO_SMALL)) {
            int32_t state;
            memcpy(&state, (char *)buffer + (offsets[i] + 4) * 4, 4);
            if (state < THR_OVHD_STATE || state >= THR_LAST_STATE) {
                fprintf(stderr, "entry %d: state %d written\n", i, state);
                held = 0;
            }
        }
    }
    /* Nothing after the terminator, nor past any entry's sz, may change. */
    int32_t guard;
    memcpy(&guard, (char *)buffer + (words + 1) * 4, 4);
    if (guard != SENTINEL) {
        fprintf(stderr, "the word after the terminator changed\n");
        held = 0;
    }
    if (c->entries[0].request == OMP_REQ_CURRENT_PRID && c->entries[0].size == 20) {
        int32_t mem0;
        memcpy(&mem0, (char *)buffer + 16, 4);
        if (mem0 != 0) {
            fprintf(stderr, "CURRENT_PRID wrote into a 4-byte mem\n");
            held = 0;
        }
    }

    fork_deliveries = replacement_deliveries = 0;
    switch (c->after) {
    case FORK_FIRES_ONCE:
        run_region();
        if (fork_deliveries != 1) {
            fprintf(stderr, "%d FORK deliveries, expected 1\n", fork_deliveries);
            held = 0;
        }
        break;
    case FORK_DOES_NOT_FIRE:
        run_region();
        if (fork_deliveries + replacement_deliveries != 0) {
            fprintf(stderr, "FORK was delivered\n");
            held = 0;
        }
        break;
    case FORK_FIRES_REPLACEMENT:
        run_region();
        if (fork_deliveries != 0 || replacement_deliveries != 1) {
            fprintf(stderr, "old %d, new %d deliveries\n", fork_deliveries, replacement_deliveries);
            held = 0;
        }
        break;
    default:
        break;
    }
    return held;
}

/*
 * STATE with a 4-byte mem (TAU's sz 20) and with room for the wait id, one
 * row per legacy state: the state word is always written; a state the API
 * gives a wait id needs 12 bytes, the others fit in 4.
 */
struct state_case {
    const char *name;
    int ompt_state;
    int in_team;          /* the thread is inside a parallel region */
    int mutex_kind;       /* a mutex_acquire of this kind came first, 0 if none */
    const char *taskwait_numbering; /* OMPCOLLECTOR_TASKWAIT_STATE, or NULL */
    int expect_state;
    int expect_ec_short;  /* ec with sz 20 */
    int expect_rsz_short;
};

static const struct state_case state_cases[] = {
    {"SERIAL", OC_OMPT_STATE_WORK_SERIAL, 0, 0, NULL, THR_SERIAL_STATE, OMP_ERRCODE_OK, 4},
    {"WORK", OC_OMPT_STATE_WORK_PARALLEL, 1, 0, NULL, THR_WORK_STATE, OMP_ERRCODE_OK, 4},
    {"REDUC", OC_OMPT_STATE_WORK_REDUCTION, 1, 0, NULL, THR_REDUC_STATE, OMP_ERRCODE_OK, 4},
    {"IDLE", OC_OMPT_STATE_IDLE, 1, 0, NULL, THR_IDLE_STATE, OMP_ERRCODE_OK, 4},
    {"OVHD", OC_OMPT_STATE_OVERHEAD, 1, 0, NULL, THR_OVHD_STATE, OMP_ERRCODE_OK, 4},
    {"IBAR", OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT, 1, 0, NULL, THR_IBAR_STATE,
     OMP_ERRCODE_MEM_TOO_SMALL, 12},
    {"EBAR", OC_OMPT_STATE_WAIT_BARRIER_EXPLICIT, 1, 0, NULL, THR_EBAR_STATE,
     OMP_ERRCODE_MEM_TOO_SMALL, 12},
    {"LKWT", OC_OMPT_STATE_WAIT_LOCK, 1, OC_MUTEX_LOCK, NULL, THR_LKWT_STATE,
     OMP_ERRCODE_MEM_TOO_SMALL, 12},
    {"CTWT", OC_OMPT_STATE_WAIT_LOCK, 1, OC_MUTEX_CRITICAL, NULL, THR_CTWT_STATE,
     OMP_ERRCODE_MEM_TOO_SMALL, 12},
    {"ODWT", OC_OMPT_STATE_WAIT_ORDERED, 1, 0, NULL, THR_ODWT_STATE, OMP_ERRCODE_MEM_TOO_SMALL, 12},
    {"ATWT", OC_OMPT_STATE_WAIT_ATOMIC, 1, 0, NULL, THR_ATWT_STATE, OMP_ERRCODE_MEM_TOO_SMALL, 12},
    {"task wait as EBAR", OC_OMPT_STATE_WAIT_TASKWAIT, 1, 0, NULL, THR_EBAR_STATE,
     OMP_ERRCODE_MEM_TOO_SMALL, 12},
    {"task wait as Oracle's state 12", OC_OMPT_STATE_WAIT_TASKWAIT, 1, 0, "12", 12,
     OMP_ERRCODE_OK, 4},
};

/* One state row, sent with sz 20 and with sz 28; returns 1 when both answers held. */
static int run_state_case(const struct state_case *c)
{
    if (c->taskwait_numbering != NULL)
        setenv("OMPCOLLECTOR_TASKWAIT_STATE", c->taskwait_numbering, 1);
    if (!prepare(STARTED))
        return 0;
    ompt_data_t team = {0};
    if (c->in_team) {
        fake_fire_parallel_begin(&team);
        fake_fire_implicit_task(OC_SCOPE_BEGIN, &team, 0);
    }
    if (c->mutex_kind != 0)
        fake_fire_mutex_acquire(c->mutex_kind, 0x77);
    fake_ompt_set_state(c->ompt_state, 0x77);
    int held = 1;
    for (int size = 20; size <= 28; size += 8) {
        int32_t buffer[10];
        for (int i = 0; i < 10; i++)
            buffer[i] = SENTINEL;
        buffer[0] = size;
        buffer[1] = OMP_REQ_STATE;
        buffer[size / 4] = 0;
        if (__omp_collector_api(buffer) != 0)
            held = 0;
        int want_ec = size == 20 ? c->expect_ec_short : OMP_ERRCODE_OK;
        int want_rsz = size == 20 ? c->expect_rsz_short : 12;
        if (buffer[2] != want_ec || buffer[3] != want_rsz || buffer[4] != c->expect_state) {
            fprintf(stderr, "sz %d: ec %d rsz %d state %d; expected ec %d rsz %d state %d\n", size,
                    buffer[2], buffer[3], buffer[4], want_ec, want_rsz, c->expect_state);
            held = 0;
        }
        if (buffer[size / 4 + 1] != SENTINEL) {
            fprintf(stderr, "sz %d: the word after the terminator changed\n", size);
            held = 0;
        }
    }
    return held;
}

/* Runs `rule` in a fresh child process; the TAP line says whether it held. */
static void in_child(int (*rule)(const void *), const void *arg, const char *description)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        _exit(rule(arg) ? 0 : 1);
    int status = 0;
    waitpid(child, &status, 0);
    int held = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!tap_ok(held, "%s", description) && WIFSIGNALED(status))
        tap_diag("killed by signal %d", WTERMSIG(status));
}

static int state_case_thunk(const void *c) { return run_state_case(c); }

int main(void)
{
    int count = (int)(sizeof cases / sizeof cases[0]);
    int state_count = (int)(sizeof state_cases / sizeof state_cases[0]);
    tap_plan(count + 1 + state_count);
    tap_is_int(__omp_collector_api(NULL), -1, "a NULL buffer returns -1");
    for (int i = 0; i < count; i++) {
        fflush(stdout);
        pid_t child = fork();
        if (child == 0)
            _exit(run_case(&cases[i]) ? 0 : 1);
        int status = 0;
        waitpid(child, &status, 0);
        int held = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!tap_ok(held, "%s", cases[i].rule) && WIFSIGNALED(status))
            tap_diag("killed by signal %d", WTERMSIG(status));
    }
    for (int i = 0; i < state_count; i++) {
        char description[160];
        snprintf(description, sizeof description,
                 "STATE in %s: sz 20 answers ec %d rsz %d, sz 28 OK rsz 12, state word written",
                 state_cases[i].name, state_cases[i].expect_ec_short,
                 state_cases[i].expect_rsz_short);
        in_child(state_case_thunk, &state_cases[i], description);
    }
    return tap_done();
}
