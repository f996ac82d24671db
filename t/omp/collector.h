/* collector.h - a minimal legacy collector written from omp_collector_api.h alone, shared by the integration workloads. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECTOR_TEST_COLLECTOR_H
#define OMPCOLLECTOR_TEST_COLLECTOR_H 1

#include <stddef.h>
#include <stdint.h>

#include "omp_collector_api.h"

/* Looks the entry point up in the global scope; NULL when nobody exports it. */
int (*collector_lookup(void))(void *);

/* collector_lookup with a TAP line saying whether it found the shim. */
int (*collector_lookup_reported(void))(void *);

/* Sends one entry with no mem; returns its ec, or -1 when the API is missing. */
int collector_simple(int request);

/* Registers `callback` for `event` in the packed 28-byte layout; returns ec. */
int collector_register(int event, omp_collector_callback_t callback);

/* Registers in the naturally aligned 32-byte layout; returns ec. */
int collector_register_aligned(int event, omp_collector_callback_t callback);

/* STATE: returns the state word, stores the wait id. */
int collector_state(uint64_t *wait_id);

/* CURRENT_PRID or PARENT_PRID: returns ec, stores the id. */
int collector_prid(int request, uint64_t *region_id);

/*
 * Whether this program's OpenMP entry points run in the file EXPECT_LIBOMP
 * names (and, with EXPECT_NO_GNU_LIBGOMP set, GNU libgomp is not loaded at
 * all): 1 or 0, with what was found in `why`; -1 when EXPECT_LIBOMP is unset.
 */
int collector_check_runtime(char *why, size_t size);

/* collector_check_runtime as a TAP line with its findings; returns 0 only when it failed. */
int collector_report_runtime(void);

#endif
