/* ompt.h - one place that decides which OMPT declarations the shim compiles against. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECTOR_OMPT_H
#define OMPCOLLECTOR_OMPT_H 1

#ifdef HAVE_CONFIG_H
# include <config.h>
#endif

#if defined(HAVE_OMP_TOOLS_H) && !defined(OMPCOLLECTOR_FORCE_COMPAT_OMPT)
# include <omp-tools.h>
#else
# include "compat/ompt-decls.h"
#endif

/*
 * Enumerator values that differ between OMPT versions, spelled as numbers so
 * the tables compile against any header and match every runtime: libomp
 * 13-16 report the 5.0 values, 19 the 5.1 ones.
 */
enum {
    OC_SYNC_BARRIER = 1,                     /* 5.0, deprecated in 5.1 */
    OC_SYNC_BARRIER_IMPLICIT = 2,            /* 5.0, deprecated in 5.1 */
    OC_SYNC_BARRIER_EXPLICIT = 3,
    OC_SYNC_BARRIER_IMPLEMENTATION = 4,
    OC_SYNC_TASKWAIT = 5,
    OC_SYNC_TASKGROUP = 6,
    OC_SYNC_REDUCTION = 7,
    OC_SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
    OC_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
    OC_SYNC_BARRIER_TEAMS = 10
};

enum {
    OC_MUTEX_LOCK = 1,
    OC_MUTEX_TEST_LOCK = 2,
    OC_MUTEX_NEST_LOCK = 3,
    OC_MUTEX_TEST_NEST_LOCK = 4,
    OC_MUTEX_CRITICAL = 5,
    OC_MUTEX_ATOMIC = 6,
    OC_MUTEX_ORDERED = 7
};

enum {
    OC_WORK_SINGLE_EXECUTOR = 3,
    OC_WORK_SINGLE_OTHER = 4
};

/* ompt_task_flag_t bits the shim reads. */
enum {
    OC_TASK_FLAG_INITIAL = 0x00000001,
    OC_TASK_FLAG_IMPLICIT = 0x00000002,
    OC_TASK_FLAG_EXPLICIT = 0x00000004,
    OC_TASK_FLAG_UNDEFERRED = 0x08000000,
    OC_TASK_FLAG_UNTIED = 0x10000000,
    OC_TASK_FLAG_FINAL = 0x20000000,
    OC_TASK_FLAG_MERGEABLE = 0x40000000
};
#define OC_TASK_FLAG_MERGED 0x80000000u

/* ompt_frame_flag_t: an enter or exit frame that is a frame pointer (the word above it a return address). */
enum { OC_FRAME_FRAMEPOINTER = 0x20 };

/* ompt_task_status_t: how the prior task left the thread at a task_schedule. */
enum {
    OC_TASK_COMPLETE = 1,
    OC_TASK_YIELD = 2,
    OC_TASK_CANCEL = 3,
    OC_TASK_DETACH = 4,
    OC_TASK_EARLY_FULFILL = 5,
    OC_TASK_LATE_FULFILL = 6,
    OC_TASK_SWITCH = 7,
    OC_TASKWAIT_COMPLETE = 8 /* 5.2 */
};

enum {
    OC_SCOPE_BEGIN = 1,
    OC_SCOPE_END = 2,
    OC_SCOPE_BEGINEND = 3
};

enum {
    OC_OMPT_STATE_WORK_SERIAL = 0x000,
    OC_OMPT_STATE_WORK_PARALLEL = 0x001,
    OC_OMPT_STATE_WORK_REDUCTION = 0x002,
    OC_OMPT_STATE_WAIT_BARRIER = 0x010,
    OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT_PARALLEL = 0x011,
    OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT_WORKSHARE = 0x012,
    OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT = 0x013,
    OC_OMPT_STATE_WAIT_BARRIER_EXPLICIT = 0x014,
    OC_OMPT_STATE_WAIT_BARRIER_IMPLEMENTATION = 0x015,
    OC_OMPT_STATE_WAIT_BARRIER_TEAMS = 0x016,
    OC_OMPT_STATE_WAIT_TASKWAIT = 0x020,
    OC_OMPT_STATE_WAIT_TASKGROUP = 0x021,
    OC_OMPT_STATE_WAIT_MUTEX = 0x040,
    OC_OMPT_STATE_WAIT_LOCK = 0x041,
    OC_OMPT_STATE_WAIT_CRITICAL = 0x042,
    OC_OMPT_STATE_WAIT_ATOMIC = 0x043,
    OC_OMPT_STATE_WAIT_ORDERED = 0x044,
    OC_OMPT_STATE_WAIT_TARGET = 0x080,
    OC_OMPT_STATE_WAIT_TARGET_MAP = 0x081,
    OC_OMPT_STATE_WAIT_TARGET_UPDATE = 0x082,
    OC_OMPT_STATE_IDLE = 0x100,
    OC_OMPT_STATE_OVERHEAD = 0x101,
    OC_OMPT_STATE_UNDEFINED = 0x102
};

#endif /* OMPCOLLECTOR_OMPT_H */
