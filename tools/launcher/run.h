/* run.h - what the launcher knows about one run: its options, the processes it collected and the record; the live run and a saved one (session.c) fill it alike. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_RUN_H
#define OMPCOLLECT_RUN_H 1

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "output.h"
#include "record.h"

/* A process the launcher collected itself (its child, or an orphaned descendant). */
struct reaped {
    pid_t pid;
    int status;
    uint64_t when_ns;
};

struct ompc_session;

/* Everything about the run the reports are built from. */
struct run {
    char **command;
    int format;
    int sampling;
    long long interval_ns;
    const char *output;      /* pattern, or NULL: stderr */
    const char *timeline;    /* pattern, or NULL */
    const char *trace_json;  /* pattern, or NULL */
    const char *task_graph;  /* --task-graph: pattern (DOT, or JSON when it ends in .json), or NULL */
    int timeline_width;      /* 0: the default */
    uint64_t from_ns, to_ns; /* the window drawn; to_ns 0: the end */
    const char *shim, *agent;
    const char *mpi_library; /* the MPI library preloaded (arrange_mpi), or NULL */
    const char *runtime_option; /* --runtime PATH (absolute), or NULL */
    const char *substitute;  /* what libgomp.so.1 resolves to, or NULL */
    char *private_dir;       /* holds the libgomp.so.1 link, or NULL */
    const char *gomp;        /* ompcollect's libgomp.so.1 (tools/gomp) that link names, or NULL: it names the runtime */
    const char *stand_ins[5]; /* the private directory's links and their targets, for the symbolizer (model.h) */
    struct ompc_rank rank;
    char host[256];
    struct timespec start_real; /* CLOCK_REALTIME_COARSE, as file times are: the program started (output.c, written_since) */
    uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC: the program started, the launcher read the record */
    int record_fd;
    uint64_t record_data;      /* bytes of the record that hold data when the run ended (record_data_bytes) */
    struct ompc_record_header header;
    struct reaped *reaped;
    size_t reaped_count, reaped_capacity;
    pid_t main_pid;
    int main_status;
    const char *trace;       /* --trace: OTF2 archive directory pattern, or NULL */
    int no_tasks;            /* --no-tasks: leave the task events unregistered */
    int tasks_full;          /* --tasks=full: every task's runs timed, not its construct's time sampled */
    const char *csv_dir;     /* --csv-dir: directory pattern for one CSV file per table, or NULL */
    const char *gprofng;     /* --gprofng: gprofng experiment directory pattern (ends in .er), or NULL */
    int list_regions;        /* --list-regions: every region instance in the text report */
    uint64_t trace_buffer;   /* --trace-buffer: event log bytes per thread (0: the default) */
    int stacks;              /* --stacks: sample call stacks */
    const char *folded;      /* --stacks-file: folded-stacks file pattern, or NULL */
    uint64_t stack_copy;     /* --stacks-unwind=dwarf[,SIZE]: stack bytes copied per sample (0: frame pointers only) */
    const char *save;        /* --save: the file the run's record is kept in, or NULL */
    const char *omp_tool;    /* OMP_TOOL as the program saw it, or NULL */
    const char *symfs;       /* report: the directory the modules are looked up under, or NULL */
    const char *debuginfo_path; /* where separate debug files are looked for (elfutils' syntax), or NULL */
    struct ompc_session *session; /* report: the saved run being reported, or NULL */
    int64_t realtime_offset_ns;
    int record_cut;          /* the record was shorter than laid out when the run ended */ /* CLOCK_REALTIME minus CLOCK_MONOTONIC when the run ended */
};

#endif /* OMPCOLLECT_RUN_H */
