/* request-t.c - the agent's request builder (tools/common/request.h): the bytes it lays out, batches and the terminator, room, and its buffers answered by the shim over the fake runtime. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <string.h>

#include "lib/fake-ompt.h"
#include "lib/tap.h"
#include "omp_collector_api.h"
#include "request.h"

#define GARBAGE 0x5a5a5a5a
#define WORDS 64

/* Storage full of garbage, so a word the builder should have written and did not shows. */
static void fill(int32_t *storage, size_t words)
{
    for (size_t i = 0; i < words; i++)
        storage[i] = GARBAGE;
}

static int same_words(const int32_t *got, const int32_t *expected, size_t words)
{
    for (size_t i = 0; i < words; i++)
        if (got[i] != expected[i]) {
            tap_diag("word %zu: got %d (0x%x), expected %d", i, (int)got[i], (unsigned)got[i], (int)expected[i]);
            return 0;
        }
    return 1;
}

static int forks_seen;
static uint64_t prid_in_fork;

/* A FORK callback that asks CURRENT_PRID through the builder, as the agent's fork_stack does. */
static void on_fork(OMP_COLLECTORAPI_EVENT event)
{
    if (event != OMP_EVENT_FORK)
        return;
    int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(OMPC_REQUEST_PRID_MEM))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int prid = ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
    forks_seen++;
    if (ompc_request_send(&batch, __omp_collector_api) == 0 && ompc_request_ec(&batch, prid) == OMP_ERRCODE_OK)
        prid_in_fork = ompc_request_u64(&batch, prid, 0);
}

/* The builder's bytes against the buffers the agent used to write by hand. */
static void layouts(void)
{
    int32_t storage[WORDS];
    struct ompc_request batch;

    fill(storage, WORDS);
    tap_is_int(ompc_request_init(&batch, storage, sizeof storage), 0, "init: accepted");
    tap_ok(storage[0] == 0 && storage[1] == GARBAGE, "init: an empty list is the terminator alone");
    tap_is_int(ompc_request_init(&batch, storage, 3), -1, "init: storage without room for the terminator is refused");

    fill(storage, WORDS);
    ompc_request_init(&batch, storage, sizeof storage);
    int stop = ompc_request_add(&batch, OMP_REQ_STOP, 0);
    const int32_t stop_words[] = {16, OMP_REQ_STOP, 0, 0, 0, GARBAGE};
    tap_ok(stop == 0 && same_words(storage, stop_words, 6), "a request without mem: sz 16, then the terminator");

    fill(storage, WORDS);
    ompc_request_init(&batch, storage, sizeof storage);
    int state = ompc_request_add(&batch, OMP_REQ_STATE, OMPC_REQUEST_STATE_MEM);
    int prid = ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
    const int32_t sample_words[] = {28, OMP_REQ_STATE, 0, 0, 0, 0, 0, 24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0, GARBAGE};
    tap_ok(same_words(storage, sample_words, 15),
           "STATE + CURRENT_PRID: the sampler's 28- and 24-byte entries, one terminator, nothing after");
    tap_ok(state == 0 && prid == 7, "entries are numbered by their word offsets (0, 7)");

    fill(storage, WORDS);
    ompc_request_init(&batch, storage, sizeof storage);
    ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
    ompc_request_add(&batch, OMP_REQ_PARENT_PRID, OMPC_REQUEST_PRID_MEM);
    const int32_t region_words[] = {24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 24, OMP_REQ_PARENT_PRID, 0, 0, 0, 0, 0};
    tap_ok(same_words(storage, region_words, 13), "CURRENT_PRID + PARENT_PRID: FORK's batch");

    fill(storage, WORDS);
    ompc_request_init(&batch, storage, sizeof storage);
    ompc_request_add(&batch, OMP_REQ_TASK_ID, 1);
    ompc_request_add(&batch, OMP_REQ_TASK_ID, 5);
    const int32_t rounded_words[] = {20, OMP_REQ_TASK_ID, 0, 0, 0, 24, OMP_REQ_TASK_ID, 0, 0, 0, 0, 0};
    tap_ok(same_words(storage, rounded_words, 12), "mem is rounded up to whole words: 1 byte gives sz 20, 5 give sz 24");
    tap_is_int(OMPC_REQUEST_SIZE(sizeof(ompcollector_sample_t)), 64, "SAMPLE's entry: sz 64");
}

/* REGISTER's naturally aligned layout, as register_events laid it out by hand. */
static void register_layout(void)
{
    int32_t storage[WORDS], expected[WORDS];
    struct ompc_request batch;
    omp_collector_callback_t callback = on_fork;
    fill(storage, WORDS);
    ompc_request_init(&batch, storage, sizeof storage);
    ompc_request_add_register(&batch, OMP_EVENT_FORK, callback);
    ompc_request_add_register(&batch, OMP_EVENT_JOIN, callback);
    memset(expected, 0, sizeof expected);
    for (int i = 0; i < 2; i++) {
        int32_t *entry = &expected[i * 8];
        entry[0] = 32;
        entry[1] = OMP_REQ_REGISTER;
        entry[4] = OMP_EVENT_FORK + i;
        memcpy(&entry[6], &callback, sizeof callback);
    }
    expected[17] = GARBAGE;
    tap_ok(same_words(storage, expected, 18), "REGISTER: sz 32, the event at mem+0, a zero pad word, the callback at mem+8");
}

/* An entry that does not fit, with its terminator, is refused and changes nothing. */
static void room(void)
{
    int32_t storage[OMPC_REQUEST_WORDS(2 * OMPC_REQUEST_SIZE(OMPC_REQUEST_PRID_MEM))];
    struct ompc_request batch;
    fill(storage, sizeof storage / sizeof storage[0]);
    ompc_request_init(&batch, storage, sizeof storage);
    int first = ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
    int second = ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
    tap_ok(first == 0 && second == 6 && storage[12] == 0,
           "storage sized by the macros holds the entries and the terminator exactly");
    int32_t before[13];
    memcpy(before, storage, sizeof before);
    tap_is_int(ompc_request_add(&batch, OMP_REQ_STOP, 0), -1, "a third entry does not fit: refused");
    tap_ok(memcmp(before, storage, sizeof before) == 0 && batch.used == 12, "... and the list is left as it was");

    int32_t small[5];
    ompc_request_init(&batch, small, sizeof small);
    tap_is_int(ompc_request_add(&batch, OMP_REQ_STOP, 0), 0, "a 16-byte entry and its terminator fit 5 words");
    ompc_request_init(&batch, small, sizeof small);
    tap_is_int(ompc_request_add(&batch, OMP_REQ_TASK_ID, 1), -1, "a 20-byte entry does not (no room for the terminator)");
    ompc_request_init(&batch, storage, sizeof storage);
    tap_is_int(ompc_request_add(&batch, OMP_REQ_TASK_ID, SIZE_MAX), -1, "a mem larger than sz can say is refused");
}

/* The accessors read what the API writes where omp_collector_api.h puts it. */
static void accessors(void)
{
    int32_t storage[WORDS];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    ompc_request_add(&batch, OMP_REQ_STOP, 0);
    int state = ompc_request_add(&batch, OMP_REQ_STATE, OMPC_REQUEST_STATE_MEM);
    uint64_t wait_id = UINT64_C(0x1122334455667788);
    storage[state + 2] = OMP_ERRCODE_MEM_TOO_SMALL;
    storage[state + 3] = 12;
    storage[state + 4] = THR_LKWT_STATE;
    memcpy(&storage[state + 5], &wait_id, sizeof wait_id);
    tap_ok(ompc_request_ec(&batch, state) == OMP_ERRCODE_MEM_TOO_SMALL && ompc_request_rsz(&batch, state) == 12,
           "ec and rsz are the header's third and fourth words");
    tap_ok(ompc_request_int(&batch, state, 0) == THR_LKWT_STATE && ompc_request_u64(&batch, state, 4) == wait_id,
           "mem values read at any 4-byte offset (the wait id at mem+4)");
    ompc_request_set_int(&batch, state, 8, 42);
    tap_is_int(storage[state + 6], 42, "set_int writes at its mem offset");
}

/* The builder's buffers through the shim, the sampler's and the agent's requests among them. */
static void round_trip(void)
{
    int32_t storage[WORDS];
    struct ompc_request batch;
    if (fake_ompt_attach() != 1)
        tap_bail("fake runtime did not attach the shim");

    ompc_request_init(&batch, storage, sizeof storage);
    int start = ompc_request_add(&batch, OMP_REQ_START, 0);
    int forks = ompc_request_add_register(&batch, OMP_EVENT_FORK, on_fork);
    int joins = ompc_request_add_register(&batch, OMP_EVENT_JOIN, on_fork);
    tap_ok(ompc_request_send(&batch, __omp_collector_api) == 0 && ompc_request_ec(&batch, start) == OMP_ERRCODE_OK
               && ompc_request_ec(&batch, forks) == OMP_ERRCODE_OK && ompc_request_ec(&batch, joins) == OMP_ERRCODE_OK,
           "START and two REGISTERs in one batch: each answered OK");

    ompt_data_t team = {0};
    fake_fire_parallel_begin(&team);
    tap_ok(forks_seen == 1 && prid_in_fork != 0 && prid_in_fork == team.value,
           "FORK delivered once; CURRENT_PRID inside it names the new region");
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &team, 0);
    /* A lock wait: its wait id is the runtime's own, so the answer can be held to it. */
    fake_fire_mutex_acquire(OC_MUTEX_LOCK, 0x77);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_LOCK, 0x77);

    fill(storage, WORDS);
    ompc_request_init(&batch, storage, sizeof storage);
    int state = ompc_request_add(&batch, OMP_REQ_STATE, OMPC_REQUEST_STATE_MEM);
    int prid = ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
    int sent = ompc_request_send(&batch, __omp_collector_api);
    tap_ok(sent == 0 && ompc_request_ec(&batch, state) == OMP_ERRCODE_OK && ompc_request_rsz(&batch, state) == 12
               && ompc_request_int(&batch, state, 0) == THR_LKWT_STATE && ompc_request_u64(&batch, state, 4) == 0x77,
           "the sampler's STATE: LKWT, rsz 12, the wait id at mem+4");
    tap_ok(ompc_request_ec(&batch, prid) == OMP_ERRCODE_OK && ompc_request_rsz(&batch, prid) == 8
               && ompc_request_u64(&batch, prid, 0) == team.value,
           "... and CURRENT_PRID in the same call: the region, rsz 8");
    tap_ok(storage[batch.used] == 0 && storage[batch.used + 1] == GARBAGE, "the terminator, and nothing past it, is left alone");

    ompc_request_init(&batch, storage, sizeof storage);
    int sample = ompc_request_add(&batch, OMPCOLLECTOR_REQ_SAMPLE, sizeof(ompcollector_sample_t));
    int short_sample = ompc_request_add(&batch, OMPCOLLECTOR_REQ_SAMPLE, 8);
    int unknown = ompc_request_add(&batch, OMP_REQ_LAST, 0);
    int task = ompc_request_add(&batch, OMP_REQ_TASK_ID, 4);
    ompcollector_sample_t answer;
    ompc_request_send(&batch, __omp_collector_api);
    memcpy(&answer, ompc_request_mem(&batch, sample), sizeof answer);
    tap_ok(ompc_request_ec(&batch, sample) == OMP_ERRCODE_OK && ompc_request_rsz(&batch, sample) == 48
               && answer.state == THR_LKWT_STATE && answer.wait_id == 0x77 && answer.region_id == team.value,
           "SAMPLE: OK, rsz 48, the same state, wait id and region");
    tap_ok(ompc_request_ec(&batch, short_sample) == OMP_ERRCODE_MEM_TOO_SMALL && ompc_request_rsz(&batch, short_sample) == 48,
           "SAMPLE with 8 bytes of mem: MEM_TOO_SMALL, rsz 48 says what it needs");
    tap_is_int(ompc_request_ec(&batch, unknown), OMP_ERRCODE_UNKNOWN, "an unknown request: UNKNOWN, and the batch goes on");
    tap_ok(ompc_request_ec(&batch, task) == OMP_ERRCODE_OK && ompc_request_rsz(&batch, task) == 4
               && ompc_request_int(&batch, task, 0) > 0,
           "TASK_ID with 4 bytes of mem: the implicit task's id as an int, rsz 4");

    ompc_request_init(&batch, storage, sizeof storage);
    int stop = ompc_request_add(&batch, OMP_REQ_STOP, 0);
    prid = ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
    ompc_request_send(&batch, __omp_collector_api);
    tap_ok(ompc_request_ec(&batch, stop) == OMP_ERRCODE_OK && ompc_request_ec(&batch, prid) == OMP_ERRCODE_SEQUENCE_ERR,
           "STOP, then CURRENT_PRID in the same batch: SEQUENCE_ERR");
}

int main(void)
{
    tap_plan(29);
    layouts();
    register_layout();
    room();
    accessors();
    round_trip();
    return tap_done();
}
