/* lock-wait-id.c - a thread waiting for a held lock reports the wait id its mutex_acquire gave. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "a thread blocked in omp_set_lock on a held lock answers ompt_get_state with the wait_id its mutex_acquire gave"
#define KNOWN_BUG "libomp gives mutex_acquire the omp_lock_t's address but ompt_get_state its internal lock's, so a sampled wait cannot be matched to its lock"
#define MUTEX_LOCK 1
#define MUTEX_HOLDS (state >= 0 && state_wait_id == acquire_wait_id)
#include "check.h"
#include "mutex-wait-probe.h"
