/* request.h - lays out OpenMP Collector API request buffers (one or more entries and the terminator) in storage the caller provides, and reads each entry's answer back. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_REQUEST_H
#define OMPCOLLECT_REQUEST_H 1

/*
 * Every function here is async-signal-safe: the sampling signal's handler
 * builds its requests with them.  They allocate nothing, take no lock,
 * touch no stdio and keep errno; they write only the caller's storage
 * (memset and memcpy, async-signal-safe since POSIX.1-2008 TC2).  They
 * are static inline so that a request built in the handler costs no call,
 * as the hand-written initializers they replace did not.
 *
 * The layout is omp_collector_api.h's: each entry is sz, r#, ec, rsz (four
 * 32-bit ints) and sz - 16 bytes of mem; sz is a multiple of 4 and an entry
 * with sz 0 ends the list.  Storage is an int32_t array, so the buffer and,
 * since every sz is a multiple of 4, every entry are 4-byte aligned as the
 * API demands.  The list is kept terminated after every addition, so the
 * buffer can be sent at any point.
 *
 * Usage, with the storage sized by the macros below:
 *
 *     int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(12) + OMPC_REQUEST_SIZE(8))];
 *     struct ompc_request batch;
 *     ompc_request_init(&batch, storage, sizeof storage);
 *     int state = ompc_request_add(&batch, OMP_REQ_STATE, OMPC_REQUEST_STATE_MEM);
 *     int prid = ompc_request_add(&batch, OMP_REQ_CURRENT_PRID, OMPC_REQUEST_PRID_MEM);
 *     if (ompc_request_send(&batch, api) == 0 && ompc_request_ec(&batch, prid) == OMP_ERRCODE_OK)
 *         region = ompc_request_u64(&batch, prid, 0);
 */

#include "omp_collector_api.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* An entry's header: sz, r#, ec, rsz. */
#define OMPC_REQUEST_HEADER_SIZE 16

/*
 * Bytes an entry with `mem` bytes of mem takes: mem is rounded up to whole
 * 32-bit words, because sz must be a multiple of 4.  Requests whose answer
 * depends on the mem size (STATE, TASK_ID, TASK_PID) see the rounded size,
 * so ask for a multiple of 4.
 */
#define OMPC_REQUEST_SIZE(mem) (OMPC_REQUEST_HEADER_SIZE + ((size_t)(mem) + 3) / 4 * 4)

/* int32_t words of storage for entries of `bytes` in all (a sum of OMPC_REQUEST_SIZE) and the terminator. */
#define OMPC_REQUEST_WORDS(bytes) ((bytes) / 4 + 1)

/* mem that holds each request's whole answer (omp_collector_api.h). */
#define OMPC_REQUEST_STATE_MEM 12    /* STATE: the state, then the 8-byte wait id at mem+4 */
#define OMPC_REQUEST_PRID_MEM 8      /* CURRENT_PRID, PARENT_PRID: a 64-bit region id */
#define OMPC_REQUEST_REGISTER_MEM 16 /* REGISTER, naturally aligned: event, zero pad word, callback */

/* A buffer being laid out.  `entry` numbers below are word offsets into `words`, as ompc_request_add returns them. */
struct ompc_request {
    int32_t *words;  /* the caller's storage */
    size_t capacity; /* its length in words */
    size_t used;     /* words the entries take; words[used] is the terminator */
};

/* Starts an empty list (just the terminator) in `storage` of `size` bytes; -1 when not even the terminator fits. */
static inline int ompc_request_init(struct ompc_request *batch, int32_t *storage, size_t size)
{
    batch->words = storage;
    batch->capacity = size / sizeof *storage;
    batch->used = 0;
    if (batch->capacity == 0)
        return -1;
    storage[0] = 0;
    return 0;
}

/*
 * Appends request `request` with `mem_size` bytes of mem, the header's ec
 * and rsz and the mem zeroed, and moves the terminator behind it.  Returns
 * the entry's number for the accessors, or -1 (nothing changed) when the
 * storage has no room for it and the terminator.
 */
static inline int ompc_request_add(struct ompc_request *batch, int32_t request, size_t mem_size)
{
    /* sz is an int32_t: a larger entry cannot be said, whatever the storage. */
    if (mem_size > (size_t)INT32_MAX - OMPC_REQUEST_HEADER_SIZE - 3)
        return -1;
    size_t words = OMPC_REQUEST_SIZE(mem_size) / 4;
    if (batch->capacity - batch->used < words + 1)
        return -1;
    int32_t *entry = batch->words + batch->used;
    memset(entry, 0, words * sizeof *entry);
    entry[0] = (int32_t)(words * 4);
    entry[1] = request;
    entry[words] = 0;
    int number = (int)batch->used;
    batch->used += words;
    return number;
}

/* The entry's mem: where arguments go before the call and results come back after it. */
static inline unsigned char *ompc_request_mem(const struct ompc_request *batch, int entry)
{
    return (unsigned char *)(batch->words + entry + OMPC_REQUEST_HEADER_SIZE / 4);
}

/* Writes a 32-bit argument at byte `offset` of the entry's mem. */
static inline void ompc_request_set_int(struct ompc_request *batch, int entry, size_t offset, int32_t value)
{
    memcpy(ompc_request_mem(batch, entry) + offset, &value, sizeof value);
}

/*
 * Appends REGISTER of `event` for `callback` in the naturally aligned
 * layout (sz 32: event at mem+0, a zero pad word, the callback at mem+8),
 * which the API reads alike on 32- and 64-bit targets.  As ompc_request_add.
 */
static inline int ompc_request_add_register(struct ompc_request *batch, int event, omp_collector_callback_t callback)
{
    int entry = ompc_request_add(batch, OMP_REQ_REGISTER, OMPC_REQUEST_REGISTER_MEM);
    if (entry >= 0) {
        ompc_request_set_int(batch, entry, 0, event);
        memcpy(ompc_request_mem(batch, entry) + 8, &callback, sizeof callback);
    }
    return entry;
}

/* Sends the list through `api` (__omp_collector_api): 0 when it reached the terminator, -1 when it refused the buffer. */
static inline int ompc_request_send(struct ompc_request *batch, int (*api)(void *))
{
    return api(batch->words);
}

/* The entry's outcome (an OMP_COLLECTORAPI_EC), meaningful once a send returned 0. */
static inline int32_t ompc_request_ec(const struct ompc_request *batch, int entry)
{
    return batch->words[entry + 2];
}

/* Bytes the answer wrote to mem, or with OMP_ERRCODE_MEM_TOO_SMALL the bytes mem must have. */
static inline int32_t ompc_request_rsz(const struct ompc_request *batch, int entry)
{
    return batch->words[entry + 3];
}

/* The 32-bit int at byte `offset` of the entry's mem. */
static inline int32_t ompc_request_int(const struct ompc_request *batch, int entry, size_t offset)
{
    int32_t value;
    memcpy(&value, ompc_request_mem(batch, entry) + offset, sizeof value);
    return value;
}

/* The 64-bit value at byte `offset` of the entry's mem, which need only be 4-byte aligned. */
static inline uint64_t ompc_request_u64(const struct ompc_request *batch, int entry, size_t offset)
{
    uint64_t value;
    memcpy(&value, ompc_request_mem(batch, entry) + offset, sizeof value);
    return value;
}

#endif /* OMPCOLLECT_REQUEST_H */
