/* protocol.c - the request protocol on a real libomp: legacy buffer layouts, batches, per-entry error codes, sequencing, and REGISTER answers checked against the events that really fire. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "collector.h"

#define TEAM 4
#define SENTINEL 0x5a5a5a5a
#define TAU_EVENTS 35      /* TAU registers 1..35: the header's 22 and OpenUH's task events */
#define TAU_ENTRY_WORDS 7  /* 28 bytes: header, event, packed 8-byte pointer */
#define LAST_EVENT OMP_EVENT_THR_END_ATWT

static int failures;
static int (*api)(void *);

static const char *const event_names[LAST_EVENT + 1] = {
    "?", "FORK", "JOIN", "BEGIN_IDLE", "END_IDLE", "BEGIN_IBAR", "END_IBAR", "BEGIN_EBAR",
    "END_EBAR", "BEGIN_LKWT", "END_LKWT", "BEGIN_CTWT", "END_CTWT", "BEGIN_ODWT", "END_ODWT",
    "BEGIN_MASTER", "END_MASTER", "BEGIN_SINGLE", "END_SINGLE", "BEGIN_ORDERED", "END_ORDERED",
    "BEGIN_ATWT", "END_ATWT"};

/* One unnumbered TAP line; the script numbers them. */
static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

/* A TAP line for something this compiler's code can never show. */
static void skip(const char *what, const char *why)
{
    printf("ok - %s # SKIP %s\n", what, why);
}

/* The construct each thread is running, so an event can be told apart from one the next construct fires. */
enum construct {
    C_NONE, /* between constructs, and workers waiting between regions */
    C_REGION, C_LOOP, C_BARRIER, C_CRITICAL, C_LOCK, C_MASTER, C_SINGLE, C_ORDERED, C_ATOMIC,
    C_COUNT
};
static const char *const construct_names[C_COUNT] = {
    "between constructs", "a parallel region", "a worksharing loop", "an explicit barrier",
    "a critical", "omp_set_lock and omp_set_nest_lock", "a master", "a single", "an ordered loop",
    "a long double atomic"};
static __thread enum construct construct_now;

static _Atomic long delivered[LAST_EVENT + 1];
static _Atomic long delivered_during[C_COUNT][LAST_EVENT + 1];
static _Atomic long replacement_forks;
static _Atomic uint64_t highest_fork_id;
/* What the forking thread itself read inside its latest FORK. */
static __thread uint64_t fork_id_seen, fork_parent_seen;
static __thread int fork_parent_ec;

/* The recording callback; at FORK it asks CURRENT_PRID and PARENT_PRID as a profiler would. */
static void record(OMP_COLLECTORAPI_EVENT event)
{
    if (event < OMP_EVENT_FORK || event > LAST_EVENT)
        return;
    atomic_fetch_add(&delivered[event], 1);
    atomic_fetch_add(&delivered_during[construct_now][event], 1);
    if (event == OMP_EVENT_FORK) {
        collector_prid(OMP_REQ_CURRENT_PRID, &fork_id_seen);
        fork_parent_ec = collector_prid(OMP_REQ_PARENT_PRID, &fork_parent_seen);
        uint64_t seen = atomic_load(&highest_fork_id);
        while (fork_id_seen > seen && !atomic_compare_exchange_weak(&highest_fork_id, &seen, fork_id_seen)) {
        }
    }
}

/* A second FORK callback, to see which one a REGISTER left in place. */
static void count_replacement(OMP_COLLECTORAPI_EVENT event)
{
    if (event == OMP_EVENT_FORK)
        atomic_fetch_add(&replacement_forks, 1);
}

/* Everything delivered so far, all events together. */
static long total_delivered(void)
{
    long total = 0;
    for (int e = OMP_EVENT_FORK; e <= LAST_EVENT; e++)
        total += atomic_load(&delivered[e]);
    return total;
}

/* Writes a callback pointer at a 4-byte aligned word, as packed entries carry it. */
static void put_callback(int32_t *word, omp_collector_callback_t callback)
{
    memcpy(word, &callback, sizeof callback);
}

/* Fills words [from, to) with the sentinel, so untouched memory can be told apart. */
static void fill(int32_t *buffer, int from, int to)
{
    for (int i = from; i < to; i++)
        buffer[i] = SENTINEL;
}

/* Whether words [from, to) still hold the sentinel: the shim wrote nothing there. */
static int untouched(const int32_t *buffer, int from, int to)
{
    for (int i = from; i < to; i++)
        if (buffer[i] != SENTINEL)
            return 0;
    return 1;
}

/* ec and rsz of the entry at word `at`, compared, with a diagnostic when they differ. */
static int answered(const int32_t *buffer, int at, int ec, int rsz, const char *entry)
{
    if (buffer[at + 2] == ec && buffer[at + 3] == rsz)
        return 1;
    printf("# %s: ec %d rsz %d, expected ec %d rsz %d\n", entry, buffer[at + 2], buffer[at + 3], ec,
           rsz);
    return 0;
}

/* An 8-byte answer at a word only 4-byte aligned, read bytewise as a client must. */
static uint64_t read_u64(const int32_t *word)
{
    uint64_t value;
    memcpy(&value, word, sizeof value);
    return value;
}

static omp_lock_t lock;
static omp_nest_lock_t nest_lock;
static volatile long double atomic_target;

/*
 * One region with every construct an event covers, each thread marking the
 * construct it is in; then one more region, marked on the master, so the
 * first region's workers go idle and come back.
 */
static __attribute__((noinline)) void every_construct(void)
{
#pragma omp parallel num_threads(TEAM)
    {
        volatile long sink = 0;
        construct_now = C_LOOP;
#pragma omp for schedule(static)
        for (int i = 0; i < TEAM * 4; i++)
            sink += i;
        construct_now = C_BARRIER;
#pragma omp barrier
        construct_now = C_CRITICAL;
#pragma omp critical
        sink++;
        construct_now = C_LOCK;
        omp_set_lock(&lock);
        sink++;
        omp_unset_lock(&lock);
        omp_set_nest_lock(&nest_lock);
        omp_set_nest_lock(&nest_lock);
        omp_unset_nest_lock(&nest_lock);
        omp_unset_nest_lock(&nest_lock);
        construct_now = C_MASTER;
#pragma omp master
        sink++;
        construct_now = C_SINGLE;
#pragma omp single
        sink++;
        construct_now = C_ORDERED;
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < TEAM * 2; i++) {
#pragma omp ordered
            sink++;
        }
        construct_now = C_ATOMIC;
#pragma omp atomic
        atomic_target += 1.0L;
        construct_now = C_NONE;
    }
    construct_now = C_REGION;
#pragma omp parallel num_threads(TEAM)
    {
        volatile int sink = omp_get_thread_num();
        (void)sink;
    }
    construct_now = C_NONE;
}

/* The construct whose running must fire `event`. */
static enum construct construct_of(int event)
{
    switch (event) {
    case OMP_EVENT_FORK:
    case OMP_EVENT_JOIN:
        return C_REGION;
    case OMP_EVENT_THR_BEGIN_IDLE:
    case OMP_EVENT_THR_END_IDLE:
        return C_NONE;
    case OMP_EVENT_THR_BEGIN_IBAR:
    case OMP_EVENT_THR_END_IBAR:
        return C_LOOP;
    case OMP_EVENT_THR_BEGIN_EBAR:
    case OMP_EVENT_THR_END_EBAR:
        return C_BARRIER;
    case OMP_EVENT_THR_BEGIN_LKWT:
    case OMP_EVENT_THR_END_LKWT:
        return C_LOCK;
    case OMP_EVENT_THR_BEGIN_CTWT:
    case OMP_EVENT_THR_END_CTWT:
        return C_CRITICAL;
    case OMP_EVENT_THR_BEGIN_MASTER:
    case OMP_EVENT_THR_END_MASTER:
        return C_MASTER;
    case OMP_EVENT_THR_BEGIN_SINGLE:
    case OMP_EVENT_THR_END_SINGLE:
        return C_SINGLE;
    case OMP_EVENT_THR_BEGIN_ODWT:
    case OMP_EVENT_THR_END_ODWT:
    case OMP_EVENT_THR_BEGIN_ORDERED:
    case OMP_EVENT_THR_END_ORDERED:
        return C_ORDERED;
    default:
        return C_ATOMIC;
    }
}

/* A region with nothing in it: one FORK and one JOIN when they are registered. */
static __attribute__((noinline)) void plain_region(void)
{
#pragma omp parallel num_threads(TEAM)
    {
        volatile int sink = omp_get_thread_num();
        (void)sink;
    }
}

/*
 * Events this compiler's code never reports to the runtime, whatever the
 * shim does (doc/mapping.md, "What the shim cannot know"); NULL otherwise.
 */
static const char *compiler_gap(int event)
{
#ifdef __clang__
    if (event == OMP_EVENT_THR_BEGIN_ATWT || event == OMP_EVENT_THR_END_ATWT)
        return "clang code does atomics inline or through libatomic: the runtime never sees them";
#else
    if (event == OMP_EVENT_THR_BEGIN_MASTER || event == OMP_EVENT_THR_END_MASTER)
        return "gcc code reports no master/masked construct to libomp";
    if (event == OMP_EVENT_THR_BEGIN_EBAR || event == OMP_EVENT_THR_END_EBAR)
        return "gcc code reports every barrier as barrier_implementation, which counts as implicit";
#endif
    return NULL;
}

/* Requests from every thread of a region before START: all refused, nothing written. */
static void before_start(void)
{
    int32_t buffer[64];
    int n = 0;
    static const int32_t sized[][2] = {{28, OMP_REQ_STATE},       {24, OMP_REQ_CURRENT_PRID},
                                       {24, OMP_REQ_PARENT_PRID}, {28, OMP_REQ_REGISTER},
                                       {20, OMP_REQ_UNREGISTER},  {16, OMP_REQ_STOP},
                                       {16, OMP_REQ_PAUSE},       {16, OMP_REQ_RESUME}};
    int starts[8];
    for (int i = 0; i < 8; i++) {
        starts[i] = n;
        buffer[n] = sized[i][0];
        buffer[n + 1] = sized[i][1];
        fill(buffer, n + 2, n + sized[i][0] / 4);
        n += sized[i][0] / 4;
    }
    int register_at = starts[3];
    buffer[register_at + 4] = OMP_EVENT_FORK;
    put_callback(&buffer[register_at + 5], record);
    buffer[starts[4] + 4] = OMP_EVENT_FORK;
    buffer[n] = 0;
    int returned = api(buffer);
    int refused = returned == 0;
    for (int i = 0; i < 8; i++)
        refused &= answered(buffer, starts[i], OMP_ERRCODE_SEQUENCE_ERR, 0, "request before START");
    int mem_kept = untouched(buffer, starts[0] + 4, starts[0] + 7)
                   && untouched(buffer, starts[1] + 4, starts[1] + 6)
                   && untouched(buffer, starts[2] + 4, starts[2] + 6);
    check(refused, "before START, a batch of every other request returns 0 and each entry answers SEQUENCE_ERR");
    check(mem_kept, "before START, STATE and the PRID requests write nothing into mem");

    /* A sampler may fire before its collector STARTs: threads of a live region get the same answer. */
    _Atomic int refused_in_region = 0;
#pragma omp parallel num_threads(TEAM)
    {
        int32_t sample[14] = {28, OMP_REQ_STATE, 0, 0, SENTINEL, SENTINEL, SENTINEL,
                              24, OMP_REQ_CURRENT_PRID, 0, 0, SENTINEL, SENTINEL, 0};
        if (api(sample) == 0 && sample[2] == OMP_ERRCODE_SEQUENCE_ERR
            && sample[9] == OMP_ERRCODE_SEQUENCE_ERR && untouched(sample, 4, 7)
            && untouched(sample, 11, 13))
            atomic_fetch_add(&refused_in_region, 1);
    }
    check(atomic_load(&refused_in_region) == TEAM,
          "before START, STATE and CURRENT_PRID from every thread of a region answer SEQUENCE_ERR");
    check(total_delivered() == 0, "before START, no event is delivered");
}

/* TAU's START, then a second one. */
static int start_session(void)
{
    int32_t start[5] = {16, OMP_REQ_START, SENTINEL, SENTINEL, 0};
    int returned = api(start);
    check(returned == 0 && answered(start, 0, OMP_ERRCODE_OK, 0, "START"),
          "TAU's START buffer returns 0 and answers OK, rsz 0");
    if (start[2] != OMP_ERRCODE_OK)
        return 0;
    int32_t again[5] = {16, OMP_REQ_START, SENTINEL, SENTINEL, 0};
    api(again);
    check(answered(again, 0, OMP_ERRCODE_SEQUENCE_ERR, 0, "second START"),
          "a second START answers SEQUENCE_ERR");
    return 1;
}

/*
 * TAU's REGISTER batch: 35 packed entries in one buffer.  The answers are
 * then held against what runs: an event answering OK must fire when its
 * construct runs, one answering UNSUPPORTED must never fire.
 */
static void register_everything(int *answers)
{
    int32_t batch[TAU_EVENTS * TAU_ENTRY_WORDS + 1 + 4];
    for (int i = 0; i < TAU_EVENTS; i++) {
        int32_t *entry = &batch[i * TAU_ENTRY_WORDS];
        entry[0] = 28;
        entry[1] = OMP_REQ_REGISTER;
        entry[2] = SENTINEL;
        entry[3] = SENTINEL;
        entry[4] = i + 1;
        put_callback(&entry[5], record);
    }
    batch[TAU_EVENTS * TAU_ENTRY_WORDS] = 0;
    fill(batch, TAU_EVENTS * TAU_ENTRY_WORDS + 1, TAU_EVENTS * TAU_ENTRY_WORDS + 5);
    int returned = api(batch);
    int known_answered = 1, extension_answered = 1, rsz_zero = 1;
    for (int i = 0; i < TAU_EVENTS; i++) {
        const int32_t *entry = &batch[i * TAU_ENTRY_WORDS];
        rsz_zero &= entry[3] == 0;
        if (i + 1 <= LAST_EVENT) {
            answers[i + 1] = entry[2];
            if (entry[2] != OMP_ERRCODE_OK && entry[2] != OMP_ERRCODE_UNSUPPORTED) {
                printf("# REGISTER %s answered %d\n", event_names[i + 1], entry[2]);
                known_answered = 0;
            } else if (entry[2] == OMP_ERRCODE_UNSUPPORTED) {
                printf("# REGISTER %s: UNSUPPORTED on this runtime\n", event_names[i + 1]);
            }
        } else {
            extension_answered &= entry[2] == OMP_ERRCODE_OK || entry[2] == OMP_ERRCODE_UNSUPPORTED;
        }
    }
    check(returned == 0, "TAU's 35-entry packed REGISTER batch returns 0");
    check(known_answered, "each of events 1..22 answers OK or UNSUPPORTED");
    check(extension_answered, "each of OpenUH's task events 23..35 answers OK or UNSUPPORTED");
    check(rsz_zero, "every REGISTER entry answers rsz 0");
    check(batch[TAU_EVENTS * TAU_ENTRY_WORDS] == 0
              && untouched(batch, TAU_EVENTS * TAU_ENTRY_WORDS + 1, TAU_EVENTS * TAU_ENTRY_WORDS + 5),
          "nothing at or after the terminator is written");
    check(answers[OMP_EVENT_FORK] == OMP_ERRCODE_OK && answers[OMP_EVENT_JOIN] == OMP_ERRCODE_OK,
          "FORK and JOIN answer OK");
}

/* Malformed REGISTER and UNREGISTER entries, batched: each gets its own error, the good registration stays. */
static void malformed_registrations(void)
{
    int32_t buffer[80];
    int n = 0, at[9];
    static const int32_t events[] = {0, 36, OMP_EVENT_THR_RESERVED_IMPL, -1};
    for (int i = 0; i < 4; i++) {
        at[i] = n;
        int32_t entry[7] = {28, OMP_REQ_REGISTER, SENTINEL, SENTINEL, events[i], 0, 0};
        put_callback(&entry[5], record);
        memcpy(&buffer[n], entry, sizeof entry);
        n += 7;
    }
    at[4] = n; /* a NULL callback */
    int32_t null_entry[7] = {28, OMP_REQ_REGISTER, SENTINEL, SENTINEL, OMP_EVENT_FORK, 0, 0};
    memcpy(&buffer[n], null_entry, sizeof null_entry);
    n += 7;
    at[5] = n; /* room for the event and half the pointer */
    int32_t pointer_words[2];
    put_callback(pointer_words, record);
    int32_t short_entry[6] = {24, OMP_REQ_REGISTER, SENTINEL, SENTINEL, OMP_EVENT_FORK, pointer_words[0]};
    memcpy(&buffer[n], short_entry, sizeof short_entry);
    n += 6;
    at[6] = n;
    int32_t shorter_entry[5] = {20, OMP_REQ_REGISTER, SENTINEL, SENTINEL, OMP_EVENT_FORK};
    memcpy(&buffer[n], shorter_entry, sizeof shorter_entry);
    n += 5;
    at[7] = n;
    int32_t unregister_unknown[5] = {20, OMP_REQ_UNREGISTER, SENTINEL, SENTINEL, 99};
    memcpy(&buffer[n], unregister_unknown, sizeof unregister_unknown);
    n += 5;
    buffer[n] = 0;
    int returned = api(buffer);
    int unknown = 1;
    for (int i = 0; i < 4; i++)
        unknown &= answered(buffer, at[i], OMP_ERRCODE_UNKNOWN, 0, "REGISTER of an unknown event");
    check(returned == 0 && unknown,
          "REGISTER of events 0, 36, OMP_EVENT_THR_RESERVED_IMPL and -1 answers UNKNOWN");
    check(answered(buffer, at[4], OMP_ERRCODE_ERROR, 0, "REGISTER NULL"),
          "REGISTER with a NULL callback answers ERROR");
    check(answered(buffer, at[5], OMP_ERRCODE_ERROR, 0, "REGISTER sz 24")
              && answered(buffer, at[6], OMP_ERRCODE_ERROR, 0, "REGISTER sz 20"),
          "REGISTER with sz 24 or 20 (no room for the callback) answers ERROR");
    check(answered(buffer, at[7], OMP_ERRCODE_UNKNOWN, 0, "UNREGISTER 99"),
          "UNREGISTER of an unknown event answers UNKNOWN");
}

/*
 * Runs every construct and holds each REGISTER answer against what was
 * delivered: an OK event must fire on a thread while that thread runs the
 * event's construct (workers' IDLE: while between constructs).
 */
static void registered_events_fire(const int *answers)
{
    every_construct();
    char what[200];
    for (int e = OMP_EVENT_FORK; e <= LAST_EVENT; e++) {
        enum construct c = construct_of(e);
        long count = atomic_load(&delivered_during[c][e]);
        if (answers[e] == OMP_ERRCODE_UNSUPPORTED) {
            snprintf(what, sizeof what, "%s answered UNSUPPORTED and never fires", event_names[e]);
            check(atomic_load(&delivered[e]) == 0, what);
            continue;
        }
        if (answers[e] != OMP_ERRCODE_OK)
            continue;
        snprintf(what, sizeof what, "%s answered OK and fires during %s", event_names[e],
                 construct_names[c]);
        const char *gap = compiler_gap(e);
        if (count == 0 && gap != NULL && atomic_load(&delivered[e]) == 0) {
            skip(what, gap);
            continue;
        }
        check(count > 0, what);
        if (count == 0)
            for (int other = 0; other < C_COUNT; other++)
                if (atomic_load(&delivered_during[other][e]) != 0)
                    printf("# %s fired %ld times during %s instead\n", event_names[e],
                           atomic_load(&delivered_during[other][e]), construct_names[other]);
    }
}

/* Words of the per-entry batch: where each entry starts. */
enum {
    B_STATE = 0,
    B_PRID = 7,
    B_PARENT = 13,
    B_UNKNOWN = 19,
    B_SHORT_STATE = 23,
    B_SHORT_PRID = 28,
    B_BARE_STATE = 33,
    B_BARE_PARENT = 37,
    B_END = 41,
    B_WORDS = 46
};

/* One batch mixing good, unknown and short entries, as a thread of a team sends it. */
static int mixed_batch(int32_t *b)
{
    static const int32_t heads[][3] = {
        {B_STATE, 28, OMP_REQ_STATE},          {B_PRID, 24, OMP_REQ_CURRENT_PRID},
        {B_PARENT, 24, OMP_REQ_PARENT_PRID},   {B_UNKNOWN, 16, 99},
        {B_SHORT_STATE, 20, OMP_REQ_STATE},    {B_SHORT_PRID, 20, OMP_REQ_CURRENT_PRID},
        {B_BARE_STATE, 16, OMP_REQ_STATE},     {B_BARE_PARENT, 16, OMP_REQ_PARENT_PRID}};
    fill(b, 0, B_WORDS);
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        b[heads[i][0]] = heads[i][1];
        b[heads[i][0] + 1] = heads[i][2];
    }
    b[B_END] = 0;
    return api(b);
}

/* Every thread of a team sends the mixed batch; each entry is judged on its own. */
static void per_entry_answers(void)
{
    int32_t batches[TEAM][B_WORDS];
    int returned[TEAM];
    int threads = 0;
#pragma omp parallel num_threads(TEAM)
    {
        int me = omp_get_thread_num();
        returned[me] = mixed_batch(batches[me]);
#pragma omp single
        threads = omp_get_num_threads();
    }
    uint64_t region = fork_id_seen; /* the master's FORK saw this region's id */
    if (threads != TEAM)
        printf("# team of %d threads, asked for %d\n", threads, TEAM);
    int all_return = threads == TEAM, state_ok = threads == TEAM, prid_ok = threads == TEAM;
    int parent_ok = threads == TEAM, unknown_ok = threads == TEAM, short_ok = threads == TEAM;
    int bare_ok = threads == TEAM, tail_ok = threads == TEAM;
    for (int t = 0; t < threads && t < TEAM; t++) {
        int32_t *b = batches[t];
        int32_t state;
        memcpy(&state, &b[B_STATE + 4], sizeof state);
        all_return &= returned[t] == 0;
        state_ok &= answered(b, B_STATE, OMP_ERRCODE_OK, 12, "STATE") && state == THR_WORK_STATE
                    && read_u64(&b[B_STATE + 5]) == 0;
        prid_ok &= answered(b, B_PRID, OMP_ERRCODE_OK, 8, "CURRENT_PRID") && region != 0
                   && read_u64(&b[B_PRID + 4]) == region;
        if (t == 0)
            parent_ok &= answered(b, B_PARENT, OMP_ERRCODE_OK, 8, "master's PARENT_PRID")
                         && read_u64(&b[B_PARENT + 4]) == 0;
        else
            parent_ok &= answered(b, B_PARENT, OMP_ERRCODE_THREAD_ERR, 0, "worker's PARENT_PRID")
                         && untouched(b, B_PARENT + 4, B_PARENT + 6);
        unknown_ok &= answered(b, B_UNKNOWN, OMP_ERRCODE_UNKNOWN, 0, "request 99");
        short_ok &= answered(b, B_SHORT_STATE, OMP_ERRCODE_OK, 4, "STATE sz 20")
                    && b[B_SHORT_STATE + 4] == THR_WORK_STATE
                    && answered(b, B_SHORT_PRID, OMP_ERRCODE_MEM_TOO_SMALL, 8, "CURRENT_PRID sz 20")
                    && untouched(b, B_SHORT_PRID + 4, B_SHORT_PRID + 5);
        bare_ok &= answered(b, B_BARE_STATE, OMP_ERRCODE_MEM_TOO_SMALL, 12, "STATE sz 16")
                   && (t == 0 ? answered(b, B_BARE_PARENT, OMP_ERRCODE_MEM_TOO_SMALL, 8,
                                         "master's PARENT_PRID sz 16")
                              : answered(b, B_BARE_PARENT, OMP_ERRCODE_THREAD_ERR, 0,
                                         "worker's PARENT_PRID sz 16"));
        /* Each short entry's neighbour still has its header: nothing spilled past an entry's sz. */
        tail_ok &= b[B_SHORT_PRID] == 20 && b[B_SHORT_PRID + 1] == OMP_REQ_CURRENT_PRID
                   && b[B_BARE_STATE] == 16 && b[B_BARE_PARENT] == 16
                   && b[B_BARE_PARENT + 1] == OMP_REQ_PARENT_PRID && b[B_END] == 0
                   && untouched(b, B_END + 1, B_WORDS);
    }
    check(all_return, "a batch of 8 entries from each team thread returns 0 despite per-entry errors");
    check(state_ok, "in the batch, STATE answers OK, rsz 12, WORK with wait id 0");
    check(prid_ok, "in the batch, CURRENT_PRID answers OK, rsz 8, the id FORK announced");
    check(parent_ok, "in the batch, PARENT_PRID answers 0 to the master and THREAD_ERR to workers");
    check(unknown_ok, "in the batch, request 99 answers UNKNOWN");
    check(short_ok, "STATE with 4 bytes of mem in WORK (no wait id) writes the state and answers OK, "
                    "rsz 4; CURRENT_PRID with 4 answers MEM_TOO_SMALL, rsz 8, writing nothing");
    check(bare_ok, "STATE and PARENT_PRID with no mem answer MEM_TOO_SMALL with the size needed");
    check(tail_ok, "short entries write nothing past their sz: the next headers, terminator and "
                   "what follows it are intact");
}

/* Malformed buffers: -1, with the offending entry and everything after it untouched. */
static void malformed_buffers(void)
{
    check(api(NULL) == -1, "a NULL buffer returns -1");
    int32_t good_then_short[12] = {16, OMP_REQ_RESUME, SENTINEL, SENTINEL,
                                   12, OMP_REQ_PAUSE,  SENTINEL, SENTINEL,
                                   16, OMP_REQ_PAUSE,  SENTINEL, SENTINEL};
    int returned = api(good_then_short);
    check(returned == -1 && answered(good_then_short, 0, OMP_ERRCODE_OK, 0, "RESUME")
              && untouched(good_then_short, 6, 8) && untouched(good_then_short, 10, 12),
          "an entry with sz 12 after a good one: -1, the good one answered, nothing after it written");
    int32_t odd_size[6] = {18, OMP_REQ_PAUSE, SENTINEL, SENTINEL, SENTINEL, 0};
    check(api(odd_size) == -1 && untouched(odd_size, 2, 5),
          "an entry with sz 18 returns -1 and is left alone");
    int32_t room[8];
    fill(room, 0, 8);
    char *misaligned = (char *)room + 2;
    int32_t entry[5] = {16, OMP_REQ_PAUSE, SENTINEL, SENTINEL, 0};
    memcpy(misaligned, entry, sizeof entry);
    int32_t before[8];
    memcpy(before, room, sizeof room);
    check(api(misaligned) == -1 && memcmp(before, room, sizeof room) == 0,
          "a buffer at a 2-byte offset returns -1 and nothing is written");
}

/* Layouts told apart by sz and the word at mem+4; a second REGISTER replaces the first; UNREGISTER. */
static void layouts_and_replacement(void)
{
    long forks = atomic_load(&delivered[OMP_EVENT_FORK]);
    check(collector_register_aligned(OMP_EVENT_FORK, count_replacement) == OMP_ERRCODE_OK,
          "REGISTER FORK again, aligned 32-byte layout, answers OK");
    plain_region();
    check(atomic_load(&replacement_forks) == 1 && atomic_load(&delivered[OMP_EVENT_FORK]) == forks,
          "the second REGISTER replaced the first: only the new callback gets FORK");

    /* A packed entry padded to 32 bytes: the pointer's low word at mem+4 is nonzero. */
    int32_t padded[9] = {32, OMP_REQ_REGISTER, SENTINEL, SENTINEL, OMP_EVENT_FORK, 0, 0, SENTINEL, 0};
    put_callback(&padded[5], record);
    if (padded[5] == 0) {
        skip("a 32-byte entry with a nonzero word at mem+4 is read as packed",
             "the callback's address has a zero low word");
    } else {
        api(padded);
        plain_region();
        check(padded[2] == OMP_ERRCODE_OK && atomic_load(&delivered[OMP_EVENT_FORK]) == forks + 1
                  && atomic_load(&replacement_forks) == 1,
              "a 32-byte entry with a nonzero word at mem+4 is read as packed: its callback gets FORK");
    }
    forks = atomic_load(&delivered[OMP_EVENT_FORK]);
    int32_t unregister[11] = {20, OMP_REQ_UNREGISTER, SENTINEL, SENTINEL, OMP_EVENT_FORK,
                              20, OMP_REQ_UNREGISTER, SENTINEL, SENTINEL, OMP_EVENT_FORK, 0};
    api(unregister);
    plain_region();
    check(answered(unregister, 0, OMP_ERRCODE_OK, 0, "UNREGISTER FORK")
              && answered(unregister, 5, OMP_ERRCODE_OK, 0, "UNREGISTER FORK again")
              && atomic_load(&delivered[OMP_EVENT_FORK]) == forks,
          "UNREGISTER FORK, twice in one batch, answers OK both times and FORK stops");
    check(collector_register(OMP_EVENT_FORK, record) == OMP_ERRCODE_OK,
          "REGISTER FORK once more (packed) answers OK");
}

/* PAUSE drops every event while the queries go on answering; RESUME brings the events back. */
static void pause_and_resume(void)
{
    int32_t pause[9] = {16, OMP_REQ_PAUSE, SENTINEL, SENTINEL, 16, OMP_REQ_PAUSE, SENTINEL, SENTINEL, 0};
    api(pause);
    check(answered(pause, 0, OMP_ERRCODE_OK, 0, "PAUSE") && answered(pause, 4, OMP_ERRCODE_OK, 0, "PAUSE again"),
          "PAUSE, twice in one batch, answers OK both times");
    uint64_t before_pause = atomic_load(&highest_fork_id);
    long total = total_delivered();
    every_construct();
    uint64_t ids[TEAM] = {0};
    int states[TEAM] = {0};
#pragma omp parallel num_threads(TEAM)
    {
        int me = omp_get_thread_num();
        uint64_t wait_id;
        collector_prid(OMP_REQ_CURRENT_PRID, &ids[me]);
        states[me] = collector_state(&wait_id);
    }
    check(total_delivered() == total, "while paused, no event is delivered though every construct runs");
    int agree = ids[0] > before_pause;
    for (int t = 0; t < TEAM; t++)
        agree &= ids[t] == ids[0] && states[t] == THR_WORK_STATE;
    check(agree, "while paused, STATE and CURRENT_PRID still answer: WORK and a new region id the team agrees on");

    int32_t resume[9] = {16, OMP_REQ_RESUME, SENTINEL, SENTINEL, 16, OMP_REQ_RESUME, SENTINEL, SENTINEL, 0};
    api(resume);
    check(answered(resume, 0, OMP_ERRCODE_OK, 0, "RESUME") && answered(resume, 4, OMP_ERRCODE_OK, 0, "RESUME again"),
          "RESUME, twice in one batch, answers OK both times");
    long forks = atomic_load(&delivered[OMP_EVENT_FORK]), joins = atomic_load(&delivered[OMP_EVENT_JOIN]);
    plain_region();
    check(atomic_load(&delivered[OMP_EVENT_FORK]) == forks + 1
              && atomic_load(&delivered[OMP_EVENT_JOIN]) == joins + 1 && fork_id_seen > ids[0],
          "after RESUME, FORK and JOIN are delivered again, with ids that kept counting while paused");
}

/* What each thread read at each level of a three-deep nest. */
static struct {
    int teams[3];
    uint64_t outer_fork, outer_fork_parent;
    int outer_fork_parent_ec;
    uint64_t outer_read[2], outer_parent[2], outer_after[2];
    int outer_parent_ec[2];
    uint64_t inner_fork[2], inner_fork_parent[2];
    int inner_fork_parent_ec[2];
    uint64_t inner_read[2][2], inner_parent[2][2], inner_after;
    int inner_parent_ec[2][2];
    uint64_t third_fork, third_read[2], third_parent;
    int third_parent_ec;
} nest;

/* Three levels of active regions, every thread asking CURRENT_PRID and PARENT_PRID at each. */
static __attribute__((noinline)) void nested_regions(void)
{
    omp_set_max_active_levels(3);
#pragma omp parallel num_threads(2)
    {
        int o = omp_get_thread_num();
        if (o == 0) {
            nest.teams[0] = omp_get_num_threads();
            nest.outer_fork = fork_id_seen;
            nest.outer_fork_parent = fork_parent_seen;
            nest.outer_fork_parent_ec = fork_parent_ec;
        }
        collector_prid(OMP_REQ_CURRENT_PRID, &nest.outer_read[o]);
        nest.outer_parent_ec[o] = collector_prid(OMP_REQ_PARENT_PRID, &nest.outer_parent[o]);
#pragma omp parallel num_threads(2)
        {
            int i = omp_get_thread_num();
            if (i == 0) {
                if (o == 0)
                    nest.teams[1] = omp_get_num_threads();
                nest.inner_fork[o] = fork_id_seen;
                nest.inner_fork_parent[o] = fork_parent_seen;
                nest.inner_fork_parent_ec[o] = fork_parent_ec;
            }
            collector_prid(OMP_REQ_CURRENT_PRID, &nest.inner_read[o][i]);
            nest.inner_parent_ec[o][i] = collector_prid(OMP_REQ_PARENT_PRID, &nest.inner_parent[o][i]);
            if (o == 0 && i == 0) {
#pragma omp parallel num_threads(2)
                {
                    int k = omp_get_thread_num();
                    if (k == 0) {
                        nest.teams[2] = omp_get_num_threads();
                        nest.third_fork = fork_id_seen;
                        nest.third_parent_ec = collector_prid(OMP_REQ_PARENT_PRID, &nest.third_parent);
                    }
                    collector_prid(OMP_REQ_CURRENT_PRID, &nest.third_read[k]);
                }
                collector_prid(OMP_REQ_CURRENT_PRID, &nest.inner_after);
            }
        }
        collector_prid(OMP_REQ_CURRENT_PRID, &nest.outer_after[o]);
    }
    omp_set_max_active_levels(1);
}

/* Holds what each level read against the ids its FORK announced. */
static void nested_ids(void)
{
    nested_regions();
    if (nest.teams[0] != 2 || nest.teams[1] != 2 || nest.teams[2] != 2) {
        printf("# teams of %d, %d, %d threads: the runtime did not nest as asked\n", nest.teams[0],
               nest.teams[1], nest.teams[2]);
        check(0, "three levels of nested regions get teams of 2");
        return;
    }
    uint64_t outer = nest.outer_fork, inner0 = nest.inner_fork[0], inner1 = nest.inner_fork[1];
    check(outer != 0 && nest.outer_read[0] == outer && nest.outer_read[1] == outer,
          "outer region: both threads read the id FORK announced");
    check(nest.outer_fork_parent_ec == OMP_ERRCODE_OK && nest.outer_fork_parent == 0
              && nest.outer_parent_ec[0] == OMP_ERRCODE_OK && nest.outer_parent[0] == 0,
          "outer region: PARENT_PRID is 0, at FORK and from its master");
    check(nest.outer_parent_ec[1] == OMP_ERRCODE_THREAD_ERR,
          "outer region: PARENT_PRID from its worker answers THREAD_ERR");
    int inner_ok = inner0 != 0 && inner1 != 0 && inner0 != inner1 && inner0 != outer && inner1 != outer;
    for (int o = 0; o < 2; o++)
        for (int i = 0; i < 2; i++)
            inner_ok &= nest.inner_read[o][i] == nest.inner_fork[o];
    check(inner_ok, "inner regions: two new ids, and each team's threads read the one its FORK announced");
    int parents_ok = 1;
    for (int o = 0; o < 2; o++)
        parents_ok &= nest.inner_fork_parent_ec[o] == OMP_ERRCODE_OK
                      && nest.inner_fork_parent[o] == outer
                      && nest.inner_parent_ec[o][0] == OMP_ERRCODE_OK
                      && nest.inner_parent[o][0] == outer;
    check(parents_ok, "inner regions: PARENT_PRID is the outer id, at FORK and from both inner masters "
                      "(one of them the outer worker)");
    check(nest.inner_parent_ec[0][1] == OMP_ERRCODE_THREAD_ERR
              && nest.inner_parent_ec[1][1] == OMP_ERRCODE_THREAD_ERR,
          "inner regions: PARENT_PRID from inner workers answers THREAD_ERR");
    uint64_t third = nest.third_fork;
    check(third != 0 && third != inner0 && third != inner1 && third != outer
              && nest.third_read[0] == third && nest.third_read[1] == third
              && nest.third_parent_ec == OMP_ERRCODE_OK && nest.third_parent == inner0,
          "third level: a new id read by its team, and PARENT_PRID the enclosing inner region's");
    check(nest.inner_after == inner0 && nest.outer_after[0] == outer && nest.outer_after[1] == outer,
          "after a nested region returns, its threads read the enclosing region's id again");
}

/*
 * Many more threads than cores, each the master of a nested team: libomp
 * frees a nested team before it reports the team's end, and a preempted
 * master's report can then name a team another thread has already taken
 * over.  Every inner master must still read its own region and its parent.
 */
static void oversubscribed_nested_parents(void)
{
    enum { OUTER = 64, ROUNDS = 20 };
    static uint64_t outer_id[OUTER];
    _Atomic long asked = 0, wrong = 0, teams_short = 0;
    omp_set_max_active_levels(2);
    for (int round = 0; round < ROUNDS; round++) {
#pragma omp parallel num_threads(OUTER)
        {
            int o = omp_get_thread_num();
            collector_prid(OMP_REQ_CURRENT_PRID, &outer_id[o]);
#pragma omp parallel num_threads(2)
            {
                if (omp_get_thread_num() == 0) {
                    uint64_t parent = 0, current = 0;
                    int ec = collector_prid(OMP_REQ_PARENT_PRID, &parent);
                    collector_prid(OMP_REQ_CURRENT_PRID, &current);
                    atomic_fetch_add(&asked, 1);
                    if (omp_get_num_threads() != 2)
                        atomic_fetch_add(&teams_short, 1);
                    if (ec != OMP_ERRCODE_OK || parent != outer_id[o] || current == 0
                        || current == outer_id[o])
                        atomic_fetch_add(&wrong, 1);
                }
#pragma omp barrier
            }
        }
    }
    omp_set_max_active_levels(1);
    printf("# %ld inner masters asked, %ld wrong, %ld teams not of 2\n", (long)asked, (long)wrong,
           (long)teams_short);
    check(asked == OUTER * ROUNDS && wrong == 0,
          "64 threads on few cores, each master of a nested team: PARENT_PRID answers the outer "
          "region's id on every inner master");
}

struct foreign_answers {
    int32_t batch[20];
    int returned;
};

/* A thread the runtime does not own sends STATE, CURRENT_PRID and PARENT_PRID in one batch. */
static void *foreign_thread(void *arg)
{
    struct foreign_answers *answers = arg;
    int32_t batch[20] = {28, OMP_REQ_STATE,       SENTINEL, SENTINEL, SENTINEL, SENTINEL, SENTINEL,
                         24, OMP_REQ_CURRENT_PRID, SENTINEL, SENTINEL, SENTINEL, SENTINEL,
                         24, OMP_REQ_PARENT_PRID,  SENTINEL, SENTINEL, SENTINEL, SENTINEL, 0};
    answers->returned = api(batch);
    memcpy(answers->batch, batch, sizeof batch);
    return NULL;
}

/* A non-OpenMP thread asks while a team is running. */
static void foreign_requests(void)
{
    struct foreign_answers answers;
    int created = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp master
        {
            pthread_t thread;
            if (pthread_create(&thread, NULL, foreign_thread, &answers) == 0) {
                pthread_join(thread, NULL);
                created = 1;
            }
        }
    }
    if (!created) {
        check(0, "a plain pthread can be created");
        return;
    }
    const int32_t *b = answers.batch;
    check(answers.returned == 0 && answered(b, 0, OMP_ERRCODE_OK, 12, "foreign STATE")
              && b[4] == THR_SERIAL_STATE && read_u64(&b[5]) == 0
              && answered(b, 7, OMP_ERRCODE_OK, 8, "foreign CURRENT_PRID") && read_u64(&b[11]) == 0,
          "a thread the runtime does not own reads SERIAL, wait id 0, CURRENT_PRID 0 while a team runs");
    check(answered(b, 13, OMP_ERRCODE_THREAD_ERR, 0, "foreign PARENT_PRID") && untouched(b, 17, 19),
          "PARENT_PRID from a thread the runtime does not own answers THREAD_ERR");
}

/* STOP then START, three times: each session starts empty and region ids never repeat. */
static void stop_start_cycles(void)
{
    int stop_ok = 1, silent = 1, start_ok = 1, empty = 1, fresh = 1;
    for (int cycle = 0; cycle < 3; cycle++) {
        if (cycle == 1)
            collector_simple(OMP_REQ_PAUSE); /* a pause must not outlive its session */
        uint64_t highest = atomic_load(&highest_fork_id);
        int32_t stop[15] = {16, OMP_REQ_STOP,  SENTINEL, SENTINEL, 28, OMP_REQ_STATE, SENTINEL,
                            SENTINEL, SENTINEL, SENTINEL, SENTINEL, 16, OMP_REQ_STOP, SENTINEL, SENTINEL};
        int32_t stop_buffer[16];
        memcpy(stop_buffer, stop, sizeof stop);
        stop_buffer[15] = 0;
        int returned = api(stop_buffer);
        int cycle_stop = returned == 0 && answered(stop_buffer, 0, OMP_ERRCODE_OK, 0, "STOP")
                         && answered(stop_buffer, 4, OMP_ERRCODE_SEQUENCE_ERR, 0, "STATE after STOP")
                         && untouched(stop_buffer, 8, 11)
                         && answered(stop_buffer, 11, OMP_ERRCODE_SEQUENCE_ERR, 0, "STOP after STOP");
        long total = total_delivered();
        every_construct();
        int cycle_silent = total_delivered() == total;
        int cycle_start = collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK;
        plain_region();
        int cycle_empty = total_delivered() == total;
        int32_t reg[15] = {32, OMP_REQ_REGISTER, SENTINEL, SENTINEL, OMP_EVENT_FORK, 0, 0, 0,
                           28, OMP_REQ_REGISTER, SENTINEL, SENTINEL, OMP_EVENT_JOIN, 0, 0};
        int32_t reg_buffer[16];
        put_callback(&reg[6], record);
        put_callback(&reg[13], record);
        memcpy(reg_buffer, reg, sizeof reg);
        reg_buffer[15] = 0;
        api(reg_buffer);
        long forks = atomic_load(&delivered[OMP_EVENT_FORK]), joins = atomic_load(&delivered[OMP_EVENT_JOIN]);
        plain_region();
        int cycle_fresh = answered(reg_buffer, 0, OMP_ERRCODE_OK, 0, "REGISTER FORK aligned")
                          && answered(reg_buffer, 8, OMP_ERRCODE_OK, 0, "REGISTER JOIN packed")
                          && atomic_load(&delivered[OMP_EVENT_FORK]) == forks + 1
                          && atomic_load(&delivered[OMP_EVENT_JOIN]) == joins + 1
                          && fork_id_seen > highest;
        if (!(cycle_stop && cycle_silent && cycle_start && cycle_empty && cycle_fresh))
            printf("# cycle %d: stop %d silent %d start %d empty %d fresh %d\n", cycle, cycle_stop,
                   cycle_silent, cycle_start, cycle_empty, cycle_fresh);
        stop_ok &= cycle_stop;
        silent &= cycle_silent;
        start_ok &= cycle_start;
        empty &= cycle_empty;
        fresh &= cycle_fresh;
    }
    check(stop_ok, "STOP answers OK; in the same batch, STATE and a second STOP after it answer SEQUENCE_ERR");
    check(silent, "after STOP, no event is delivered though every construct runs");
    check(start_ok, "START after STOP answers OK, three times over");
    check(empty, "a new session starts with nothing registered and not paused");
    check(fresh, "registering again in the new session delivers FORK and JOIN, with region ids "
                 "above every earlier session's");
}

int main(void)
{
    if ((api = collector_lookup_reported()) == NULL)
        return 1;
    failures += !collector_report_runtime();
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest_lock);

    before_start();
    if (!start_session())
        return 1;
    int answers[LAST_EVENT + 1] = {0};
    register_everything(answers);
    malformed_registrations();
    registered_events_fire(answers);
    per_entry_answers();
    malformed_buffers();
    layouts_and_replacement();
    pause_and_resume();
    nested_ids();
    oversubscribed_nested_parents();
    foreign_requests();
    stop_start_cycles();
    check(collector_simple(OMP_REQ_STOP) == OMP_ERRCODE_OK, "the last STOP answers OK");

    omp_destroy_nest_lock(&nest_lock);
    omp_destroy_lock(&lock);
    return failures != 0;
}
