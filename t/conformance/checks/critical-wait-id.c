/* critical-wait-id.c - a thread waiting to enter a held critical section reports the wait id its mutex_acquire gave. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a thread blocked on a held critical section answers ompt_get_state with the wait_id its mutex_acquire gave"
#define MUTEX_LOCK 0
#define MUTEX_HOLDS (state >= 0 && state_wait_id == acquire_wait_id)
#include "check.h"
#include "mutex-wait-probe.h"
