/* state-lock.c - a thread waiting for a held lock is in the lock wait state. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a thread blocked in omp_set_lock on a held lock settles in ompt_state_wait_lock"
#define MUTEX_LOCK 1
#define MUTEX_HOLDS (state == ompt_state_wait_lock)
#include "check.h"
#include "mutex-wait-probe.h"
