/* model.h - the profile model: one finished process as the loader (load.c) accepted it from the record, in plain memory -- counts that hold, strings that end, times inside the run -- and the only thing the writers read. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_MODEL_H
#define OMPCOLLECT_MODEL_H 1

#include <stddef.h>
#include <stdint.h>

#include "names.h"
#include "record.h"

/* One place a thread was seen waiting (record.h's struct ompc_wait). */
struct ompc_model_wait {
    uint64_t id;
    uint32_t state;
    uint32_t kind;       /* OMPCOLLECTOR_WAIT_* (EBAR, IBAR), 0 unknown */
    uint64_t ticks;
    uint64_t codeptr;
    uint64_t object;
};

/* One entry of a stack table (--stacks): a sampled call stack the agent walked by frame pointers. */
struct ompc_model_stack {
    uint64_t id;             /* its place in the record: what continuations and copies name */
    uint64_t count;          /* samples */
    int state, flags, frames; /* flags: record.h's OMPC_STACK_* */
    uint64_t continuation;   /* the id of the forking thread's entry it goes on in; 0: none */
    uint64_t elided;         /* frames the agent left out between its innermost and outermost */
    const uint64_t *pcs;     /* `frames` code addresses, leaf first */
};

/* One stack copy (--stacks-unwind=dwarf): the registers and stack bytes of a sample, for unwinding by CFI. */
struct ompc_model_stack_copy {
    uint64_t count;          /* samples */
    uint64_t entry;          /* the id of the stack-table entry the frame-pointer walk made of it */
    int state;
    uint32_t below;          /* of the bytes, those under regs[OMPC_COPY_REG_SP] (the red zone) */
    uint32_t bytes;          /* of stack, from regs[OMPC_COPY_REG_SP] - below upwards */
    uint64_t regs[OMPC_COPY_REGS];
    const unsigned char *stack;
};

/* One thread (record.h's struct ompc_thread, less the agent's scratch). */
struct ompc_model_thread {
    int32_t tid;
    int32_t initial;
    int32_t status;              /* OMPC_SLOT_* */
    uint64_t start_ns, end_ns;   /* relative to the process's origin; end 0 while it ran */
    uint64_t signals, ticks;
    uint64_t state_ticks[OMPC_NSTATES];
    uint64_t events[OMPC_NEVENTS];
    uint64_t pair_ns[OMPC_NPAIRS];
    struct ompc_model_wait *waits; /* the used slots of the thread's wait table */
    uint32_t wait_count;           /* entries in `waits` */
    uint64_t wait_overflow_ticks;
    uint64_t short_waits, short_wait_ns; /* --trace: uncontended waits left out of the event log */
    uint32_t timeline_length;    /* entries in `timeline` */
    uint32_t timeline_truncated;
    uint64_t last_sample_ns;
    uint64_t blocked_ticks, blocked_ns;
    uint32_t event_log_length;   /* entries in `event_log` */
    uint64_t event_log_dropped, event_log_dropped_ns;
    uint64_t stack_dropped[OMPC_NSTATES];
    uint64_t task_events[OMPC_TASK_EVENTS];
    uint64_t task_create_ns, task_exec_ns, task_suspend_ns, task_suspensions;
    uint64_t task_completions, task_first_steals; /* with has_task_info: tasks counted once (untied parts together) */
    uint64_t runtime_work_ticks; /* WORK samples in the runtime's own code, at most the WORK samples (0 in older records) */
    /*
     * --stacks: the thread's stack table and fork-stack table, their
     * entries decoded by the loader (load_stacks.c) and bounded by the
     * table's own size; an entry's id is where the agent placed it, which
     * continuations and stack copies name it by (an identifier, never
     * followed).
     */
    struct ompc_model_stack_table {
        struct ompc_model_stack *entries; /* NULL: no table */
        size_t count;
        uint64_t *words;   /* the table's words, which the entries' frames point into */
        uint64_t full;     /* insertions the table refused */
    } stacks, fork_stacks;
    /*
     * --stacks-unwind=dwarf: the thread's stack copies, each checked by the
     * loader (its size at most OMPC_STACK_COPY_MAX past a red zone of at most
     * OMPC_STACK_RED_ZONE, its state a state);
     * copy_bytes is what they took in the record, headers included.
     */
    struct ompc_model_stack_copy *copies;
    size_t copy_count;
    unsigned char *copy_data;    /* the bytes the copies' stacks point into */
    uint64_t copy_bytes, copies_dropped;
    /*
     * --stacks with the task sampling: which task construct the samples of
     * a sample-table entry found running (record.h's task-stack table),
     * sorted by entry; each row's construct is a used one of the process's
     * task constructs, its count at most the thread's samples.
     */
    struct ompc_model_task_stack {
        uint64_t entry;              /* the stack-table entry's id */
        uint64_t codeptr;            /* the task construct's */
        uint64_t count;              /* samples */
    } *task_stacks;
    size_t task_stack_count;
    uint64_t task_stacks_full;       /* samples the table had no cell for */
    /* The arena's per-thread buffers, read and checked (NULL: none). */
    uint64_t *timeline;          /* the sampled state changes, time-ordered: read by ompc_change_ns and ompc_change_state */
    uint64_t *timeline_where;    /* one code address per timeline entry */
    struct ompc_event_entry *event_log;
    uint64_t armed_ns;           /* its timer first armed (0: never) */
    /* MPI (record.h's struct ompc_mpi_thread): time inside wrapped MPI calls, those calls, and samples taken inside one (in no state). */
    uint64_t mpi_ns, mpi_calls, mpi_ticks;
    /* Of state_ticks[IDLE], those taken while the initial thread was inside an MPI call (record version 8; 0 before). */
    uint64_t mpi_idle_ticks;
};

/* One parallel region (record.h's struct ompc_region). */
struct ompc_model_region {
    uint64_t id;
    uint32_t slot; /* its row in the record's table */
    uint64_t parent;
    uint32_t forks, joins;
    uint64_t fork_ns, time_ns;
    uint64_t thread_mask;
    uint64_t ticks[OMPC_NSTATES];
    uint64_t codeptr;
};

/* One parallel construct (record.h's struct ompc_construct, with its threads' WORK samples folded in). */
struct ompc_model_construct {
    uint64_t codeptr;
    uint64_t forks, joins;
    uint64_t time_ns, max_ns;
    uint64_t thread_mask;
    uint64_t ticks[OMPC_NSTATES];
    /* WORK samples in it over the threads: their sum, the most of one thread, and how many threads had any. */
    uint64_t work_sum, work_max;
    uint32_t work_threads;
    /* What it is (OMPC_CONSTRUCT_*; UNKNOWN in records without them), and 1 + the row of the teams construct it runs in (0 none or unknown). */
    uint32_t kind;
    uint32_t teams;
};

/*
 * One explicit task the event logs name (--trace with the task events):
 * where and when it was created, and its runs, from the checked log
 * entries of every thread (record.h's task events).  A task a full log
 * did not keep the creation of has creator -1; its runs still count.
 */
struct ompc_model_task {
    uint64_t id;           /* nonzero; the table is sorted by it */
    uint64_t parent;       /* the creating task's id, 0 unknown (or an implicit task the shim did not name) */
    uint64_t codeptr;      /* the task construct's return address, 0 unknown */
    uint64_t create_ns;    /* when it was created (valid when creator >= 0) */
    uint64_t region;       /* the region its first logged run began in: its team's, 0 unknown */
    uint64_t complete_ns;  /* the end of the run that completed it (valid when completer >= 0) */
    int32_t creator;       /* the thread slot whose log holds its creation, -1 none */
    int32_t completer;     /* the thread slot of that run's end: the logged end marked completing, or
                              without marks (runtimes with no TASK_INFO) its last logged end; -1 none */
    uint32_t generation;   /* its place among its creator's logged creations, from 1 (0: none) */
    uint32_t runs;         /* runs logged (BEGIN_EXEC_TASK): 1 for a tied task, one per part of an untied one */
    int undeferred;        /* created undeferred (END_CREATE_TASK_IMM) */
};

/* One task construct (record.h's struct ompc_task_construct, checked). */
struct ompc_model_task_construct {
    uint64_t codeptr;
    uint64_t created, undeferred, create_ns;
    uint64_t completed, runs, stolen, timed_runs;
    uint64_t exec_ns, max_ns, suspend_ns, suspensions;
    uint64_t sampled_ns; /* what samples that found one of its tasks running add up to (0 unsampled, or before records had it) */
    uint64_t thread_mask;
};

/* One loaded object. */
struct ompc_model_module {
    uint64_t bias;
    char path[OMPC_MODULE_PATH]; /* ends within the array */
};

/* What the loader had to reject of one process's record, said in every output. */
struct ompc_damage {
    unsigned long count;          /* findings, each a line in `text` */
    char text[1024];              /* "; "-joined, cut at its size (count says how many) */
};

/* A code address where threads ran serial code, and the samples that found them there. */
struct ompc_model_place {
    uint64_t pc, ticks;
};

/* One MPI call at one call site (record.h's struct ompc_mpi_site, checked): call is its number in mpi_calls.h. */
struct ompc_model_mpi_site {
    int call;
    uint64_t site; /* the return address in the program */
    uint64_t calls, ns, ticks;
};

/* One process image (record.h's struct ompc_process, checked). */
struct ompc_model_process {
    uint32_t state;               /* enum ompc_process_state */
    uint32_t index;
    int32_t pid, ppid;
    int32_t parent_slot, exec_slot; /* -1, or a slot below the record's process count */
    uint64_t start_ticks;
    uint64_t origin_ns;
    uint64_t end_ns, alive_ns;
    int32_t exit_status;
    uint32_t openmp;
    char program[OMPC_TEXT_SIZE], runtime[OMPC_TEXT_SIZE], attach_error[OMPC_TEXT_SIZE];
    int32_t sample_signal;
    uint32_t sampling;            /* enum ompc_sampling */
    uint64_t sampling_stopped_ns, program_handler_ns, signals_passed;
    uint32_t blocking_threads;
    struct ompc_event_request requests[OMPC_NEVENTS];
    int32_t request_count;        /* within requests[] */
    uint32_t event_mask;
    int32_t thread_count;         /* entries in threads[], 0..OMPC_MAX_THREADS */
    uint64_t threads_not_followed, regions_overflow_forks;
    /* Every region instance: FORKs, JOINs, FORK to JOIN of the outermost, FORKs nested too deep to time. */
    uint64_t forks, joins, outermost_ns, nest_overflow;
    struct ompc_model_thread untracked;
    struct ompc_model_thread *threads;
    struct ompc_model_region *regions; /* the used rows, by id */
    uint32_t region_count;
    uint32_t has_sample;
    uint64_t constructs_dropped;
    struct ompc_model_construct *constructs; /* the used rows, in table order */
    uint32_t construct_count;
    uint32_t threads_without_tables; /* threads the arena had no wait table or construct counters for */
    uint32_t module_count;        /* entries in modules[] */
    uint32_t modules_dropped;
    struct ompc_model_module *modules;
    struct ompc_event_request task_requests[OMPC_TASK_EVENTS];
    int32_t task_request_count;   /* within task_requests[] */
    /* --trace: the tasks the threads' event logs name, by id (NULL, 0: none logged, or no logs read). */
    struct ompc_model_task *tasks;
    size_t task_count;
    /* Run-wide, from the record's header when the run ended. */
    uint64_t arena_refused;
    uint32_t processes_dropped;
    /* Where the report's symbolizers read modules from: a --symfs prefix, or NULL. */
    const char *symfs;
    /* Where they look for separate debug files (elfutils' --debuginfo-path syntax), or NULL: see ompc_model_symbolizer. */
    const char *debuginfo_path;
    /*
     * Modules the launcher linked into its private directory, gone when the
     * reports are written: a module whose path is stand_ins[2k] is symbolized
     * as the file stand_ins[2k + 1]; NULL-terminated, or NULL.
     */
    const char *const *stand_ins;
    struct ompc_damage damage;
    uint64_t session_ns;          /* the agent's start-up (START initializes the runtime) ended */
    /* Tasks by construct (OMPCOLLECTOR_REQ_TASK_INFO). */
    uint32_t has_task_info;
    /*
     * OMPC_TASK_TIER_SAMPLED: tasks were counted at creation only, and a
     * construct's exec_ns is its sampled time spread over its tasks
     * (timed_runs = created); runs, executed, stolen, max and suspended
     * were not followed (0).
     */
    int32_t task_tier;
    uint64_t task_constructs_dropped, task_nest_overflow;
    struct ompc_model_task_construct *task_constructs; /* the used rows, in table order */
    uint32_t task_construct_count;
    /* The MPI library's wrappers ran (a call returned): the threads' MPI counts are measured, not merely zero. */
    uint32_t mpi_active;
    /* Where serial code ran (record version 7 on): serial_located 0 for an older record, which did not keep it. */
    uint32_t serial_located;
    uint32_t serial_place_count;
    struct ompc_model_place *serial_places; /* in table order */
    uint64_t serial_places_dropped;         /* SERIAL samples not located (table full, or no code address) */
    /* MPI's start and end (MPI_Init, MPI_Init_thread, MPI_Finalize) and the calls by site (record version 8 on; zero before). */
    uint64_t mpi_setup_ns, mpi_setup_calls;
    uint32_t mpi_site_count;
    struct ompc_model_mpi_site *mpi_sites; /* in table order */
    uint64_t mpi_sites_dropped;            /* outermost calls that found no row */
};

struct ompc_symbolizer;
struct ompc_code_ranges;

/* The bytes of code the kernel's vDSO is taken to hold from its load address: it has no file that would say (two pages today, four allowed). */
#define OMPC_VDSO_SIZE 0x4000

/* Whether a module is the kernel's vDSO, which has no file to read (its bias is its load address). */
int ompc_model_vdso_module(const char *path);

/* Whether `address` lies in the vDSO loaded at `vdso` (0: none known). */
static inline int ompc_model_in_vdso(uint64_t vdso, uint64_t address)
{
    return vdso != 0 && address >= vdso && address - vdso < OMPC_VDSO_SIZE;
}

/*
 * A symbolizer over the process's modules (under model->symfs), or NULL;
 * `vdso`, when given, gets the vDSO's bias (0: none).  It looks for debug
 * files along model->debuginfo_path, else, under --symfs, beside the
 * modules and under SYMFS/usr/lib/debug (perf's --symfs covers the debug
 * files too), else libdwfl's default.
 */
struct ompc_symbolizer *ompc_model_symbolizer(const struct ompc_model_process *process, uint64_t *vdso);

/*
 * Where the process's modules keep their code (the vDSO, which has no file,
 * by its usual size), NULL when memory runs out.  Incomplete when a module
 * was not recorded or its file cannot be read under model->symfs.
 */
struct ompc_code_ranges *ompc_model_code_ranges(const struct ompc_model_process *process);

/* The task with id `id` in the model's task table, NULL when the logs do not name it. */
const struct ompc_model_task *ompc_model_task(const struct ompc_model_process *process, uint64_t id);

/* The file a module loaded from `path` is read from (see stand_ins). */
const char *ompc_model_module_file(const struct ompc_model_process *process, const char *path);

/* Frees a model the loader built. */
void ompc_model_free(struct ompc_model_process *process);

/* When a timeline entry's state change happened, in ns since the record's origin (the model keeps microseconds). */
static inline uint64_t ompc_change_ns(uint64_t change)
{
    return (change >> 8) * 1000;
}

/* The state a timeline entry changed to. */
static inline int ompc_change_state(uint64_t change)
{
    return (int)(change & 0xff);
}

#endif /* OMPCOLLECT_MODEL_H */
