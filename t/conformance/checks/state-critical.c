/* state-critical.c - a thread waiting to enter a held critical section is in the critical wait state. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a thread blocked on a held critical section settles in ompt_state_wait_critical"
#define KNOWN_BUG "libomp reports ompt_state_wait_lock, set by the lock behind the critical; the shim tells them apart by the last mutex_acquire kind (lib/mapping.h: OC_REFINE_MUTEX)"
#define MUTEX_LOCK 0
#define MUTEX_HOLDS (state == ompt_state_wait_critical)
#include "check.h"
#include "mutex-wait-probe.h"
