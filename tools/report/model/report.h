/* report.h - one recorded process's view: its model and what the launcher knows of it (how it ended, where it ran, what was asked). */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_REPORT_H
#define OMPCOLLECT_REPORT_H 1

#include <stdint.h>

#include "model.h"
#include "record.h"

/*
 * One process's report: its record (the launcher's private copy, with the
 * end of every thread still live at the end filled in) and what only the
 * launcher knows -- how the process ended, where it ran, which runtime.
 */
struct ompc_stacks;

struct ompc_report {
    const struct ompc_model_process *process;
    int timeline_width;               /* plot pixels; 0: the default */
    uint64_t from_ns, to_ns;          /* the time window drawn; to_ns 0: the end */
    int sampling;                     /* sampling was asked for */
    long long interval_ns;
    uint64_t wall_ns;                 /* the record's origin to the process's end */
    int64_t realtime_offset_ns;       /* CLOCK_REALTIME minus CLOCK_MONOTONIC when the run ended; 0: unknown */
    const char *program;
    /* How it ended. */
    int complete;                     /* its exit path ran (or it exec'd) */
    const char *end_how;              /* "exit", "signal", "_exit", "exec", "unknown" */
    int exit_status;                  /* -1 when unknown */
    int signal;                       /* 0 when not killed by a signal */
    const char *fate;                 /* one sentence for the header */
    /* Where it ran. */
    int rank;                         /* -1: no MPI or batch rank detected */
    const char *host;
    const char *relation;             /* "forked from pid 12", "exec'd by ...", or "" */
    /* The OpenMP runtime. */
    const char *runtime_path;         /* as the loader opened it */
    const char *runtime_file;         /* the file itself (realpath) */
    const char *runtime_version;
    const char *runtime_why;
    /* The collector. */
    const char *shim;
    const char *agent;
    /* --trace, --trace-json: the event log's bytes per thread (0: no log was kept). */
    uint64_t event_log_bytes;
    /* The record's file: its size (a sparse reservation) and the bytes the run filled (0, 0: unknown). */
    uint64_t record_reserved, record_data;
    /* --stacks: the sampled call stacks (NULL when not asked for or out of memory). */
    const struct ompc_stacks *stacks;
    int stacks_asked;
    /* --list-regions: the text report lists every region instance. */
    int list_regions;
};

#endif /* OMPCOLLECT_REPORT_H */
