/* report.h - one recorded process's view (its model and what the launcher knows of it), and what the writers of that view share. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_REPORT_H
#define OMPCOLLECT_REPORT_H 1

#include <stdint.h>
#include <stdio.h>

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

/* Whether the OpenMP runtime ever reported the thread: the initial thread, or one with an event or a state other than SERIAL. */
int ompc_thread_is_openmp(const struct ompc_model_thread *thread);

/* Whether the thread was sampled in an OpenMP state: any but SERIAL, which a thread outside OpenMP reads too. */
int ompc_thread_sampled_in_openmp(const struct ompc_model_thread *thread);

/* Name of a signal number ("SIGRTMAX", "SIGRTMIN+3", "SIGSEGV"). */
const char *ompc_signal_name(int number, char *buffer, size_t size);

/* One recorded span of thread slot `thread`: the `index`th state change to the next (or the last sample); 0 past the end. */
int ompc_timeline_span(const struct ompc_report *report, int thread, uint32_t index,
                       uint64_t *begin_ns, uint64_t *end_ns, int *state);

/*
 * One top-level parallel region instance of the run: FORK to JOIN on the
 * initial thread when its events were logged, else the initial thread's
 * time out of SERIAL.  `instance` of `of` numbers it among the instances
 * of its construct (of all, when the constructs are unknown), from 1.
 */
struct ompc_region_instance {
    uint64_t begin_ns, end_ns;
    uint64_t id;        /* the region id of its FORK; 0 without events */
    uint64_t codeptr;   /* its parallel construct; 0 unknown */
    long instance, of;
};

/* The region instances, in time order, and until when they are known: the event log's cut, or the run's end. */
struct ompc_regions {
    struct ompc_region_instance *items; /* malloc'd */
    long count;
    int from_events;
    uint64_t known_until_ns;            /* UINT64_MAX: the whole run */
};

/* Finds the region instances of a process; 0, or -1 without memory. */
int ompc_regions_find(const struct ompc_report *report, struct ompc_regions *regions);

/* The index of the instance a time falls in; -1 outside every region, -2 past where the regions are known. */
long ompc_region_at(const struct ompc_regions *regions, uint64_t t);

/*
 * The instance a time falls in as a tooltip says it: "parallel region at
 * solver.c:34, instance 3 of 8", "parallel region 3 of 8" (construct
 * unknown), "serial part", or what is unknown past the log's cut;
 * `where` names the construct (NULL: unknown).
 */
void ompc_region_label(const struct ompc_regions *regions, long index, const char *where, char *text, size_t size);

/* Where a thread's sampled state changes stop being complete (its timeline ran full); 0 when they are complete. */
uint64_t ompc_timeline_cut_ns(const struct ompc_report *report, int thread);

/* Writes the Chrome trace-event JSON of the recorded state spans to `out`; returns 0, or -1 on a write error. */
int ompc_write_trace_json(const struct ompc_report *report, FILE *out);

/*
 * One span of a thread's trace.  REGION: a parallel region, FORK to JOIN on
 * its master (or, without an event log, the initial thread's time out of
 * SERIAL); CONSTRUCT: a BEGIN/END pair of events (a wait, master, single,
 * ordered); STATE: the thread's state, exact inside a wait's pair of
 * events and sampled elsewhere; TASK: one run of an explicit task on the
 * thread, from its BEGIN_EXEC_TASK to its BEGIN_FINISH_TASK (inside the
 * barrier or task wait it ran in; a task run inside another's wait is
 * inside that one's span).
 */
enum ompc_span_kind { OMPC_SPAN_REGION, OMPC_SPAN_CONSTRUCT, OMPC_SPAN_STATE, OMPC_SPAN_TASK };
struct ompc_span {
    uint64_t begin_ns, end_ns;
    int kind;           /* enum ompc_span_kind */
    int depth;          /* how many events' spans enclose it; STATE spans are innermost */
    int state;          /* STATE: the state */
    int pair;           /* CONSTRUCT: the event pair (names.h), else -1 */
    int exact;          /* from events (1) or from samples (0) */
    uint64_t region;    /* the region id recorded at its begin (REGION: its own), 0 unknown */
    uint64_t wait_id;   /* CONSTRUCT of a wait: its wait id */
    uint64_t codeptr;   /* REGION: the parallel construct; CONSTRUCT: where it waited; 0 unknown */
    int ended;          /* 1: its own END (JOIN) closed it, so end_ns is that event's time */
    /* TASK: the task's id, and 1 in `complete` when this run completes the task (model.h's completer). */
    uint64_t task;
    int complete;
};

/*
 * The spans of thread slot `thread`, properly nested, ordered by begin
 * (an enclosing span before those it encloses): from the event log where
 * there is one (until the log ran full), from the sampled state changes
 * elsewhere.  Returns the count (*spans malloc'd), or -1 without memory.
 */
long ompc_trace_spans(const struct ompc_report *report, int thread, struct ompc_span **spans);

struct ompc_symbolizer;

/* A span's name: its state, or its construct with the source location where known ("lock wait at solve solver.c:34"); `buffer` holds it. */
const char *ompc_span_name(const struct ompc_span *span, struct ompc_symbolizer *symbolizer, char *buffer,
                           size_t size);

/* The name OTF2 archives get inside their --trace directory. */
#define OMPC_OTF2_NAME "traces"

/*
 * Writes the OTF2 archive `directory`/`name`.otf2 (with its directory
 * `name`/) of one process; returns 0, or -1 with a reason in `error`.
 */
int ompc_write_otf2(const struct ompc_report *report, const char *directory, const char *name,
                    char *error, size_t error_size);

/* Writes the SVG timeline to `out`; returns 0, or -1 on a write error. */
int ompc_write_timeline(const struct ompc_report *report, FILE *out);

#endif /* OMPCOLLECT_REPORT_H */
