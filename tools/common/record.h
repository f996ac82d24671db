/* record.h - the record ompcollect's agent fills inside the observed processes and the launcher reads after they end: one bounded, versioned shared mapping the launcher creates. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_RECORD_H
#define OMPCOLLECT_RECORD_H 1

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi_calls.h"

#include "names.h"

/*
 * Layout of the mapping (offsets in bytes from its start):
 *
 *   header            struct ompc_record_header, written by the launcher
 *   process slots     process_count x process_size, one per process that
 *                     records, claimed with a compare-and-swap
 *   arena             arena_size bytes handed out by a bump allocator, for
 *                     variable-size per-thread buffers (the timeline now;
 *                     event or sample streams later)
 *
 * The launcher sizes the file with ftruncate, so pages cost nothing until a
 * process touches them.  A reader checks magic, version, header_size and
 * total_size and refuses anything else; a newer version may append fields
 * to the header (header_size grows) and to the slot (process_size grows).
 * Every bounded table counts what did not fit, so a report can say what it
 * dropped.
 */
#define OMPC_RECORD_MAGIC "OMPCREC1"
#define OMPC_RECORD_VERSION 8u
/*
 * Older slots are prefixes of today's, so runs saved before stay readable:
 * readers take the fields a version appended as zero.  Version 5 ended the
 * process slot before its MPI fields (mpi_active and mpi_threads, appended
 * by version 6); version 6 before where serial code ran (serial_places,
 * appended by version 7); version 7 before the MPI calls by site (mpi_setup_ns
 * on, appended by version 8, which also gave the threads' MPI rows their
 * idle_ticks where version 7 had a reserved zero).  The construct
 * kinds came later in version 8, appended after mpi_sites: a version-8
 * slot may end before them (process_size says), and readers take its
 * kinds as unknown; the task-stack tables later still, after the kinds,
 * read as none where the slot ends before them, and the threads' pending
 * task creations after those.
 */
#define OMPC_RECORD_VERSION_NO_MPI 5u
#define OMPC_RECORD_VERSION_NO_SERIAL 6u
#define OMPC_RECORD_VERSION_NO_MPI_CALLS 7u

/* The environment variable that hands the record down: "FD,LAUNCHER_PID,RUN_ID" (run id in hex). */
#define OMPC_RECORD_ENV "OMPCOLLECT_RECORD"

/*
 * The bounds below are sizes of reservations, not of memory: the record is
 * a sparse memory file, so a table costs only the pages a run touches.
 * Each is far past what a real run needs (a 2-socket node's hardware
 * threads, a large code's parallel constructs); a run that reaches one
 * loses only what is past it, counts it, and every output says so.
 */
/* Processes that can record in one run; later ones are counted in processes_dropped. */
#define OMPC_MAX_PROCESSES 64
/* Threads followed per process; later ones are counted (threads_not_followed), their events summed in `untracked`. */
#define OMPC_MAX_THREADS 4096
/* Distinct waits (state, object, code address) remembered per thread, in its arena table; samples of others go to wait_overflow_ticks. */
#define OMPC_WAIT_SLOTS 1024
/*
 * Distinct code addresses of serial code (samples of threads in SERIAL)
 * remembered per process; samples at others are counted in
 * serial_places_dropped.  A hot serial loop is a few dozen addresses, a
 * long serial phase a few thousand.
 */
#define OMPC_SERIAL_PLACES 16384
/* MPI (call, call site) pairs of a process with their own row (version 8). */
#define OMPC_MPI_SITES 256
/*
 * Parallel region instances remembered one by one per process (for
 * --list-regions and the instance table); ids past it are counted in
 * regions_overflow_forks.  Every per-construct and total figure counts
 * all instances, whatever this bound.
 */
#define OMPC_MAX_REGIONS 16384
/* Parallel constructs (code addresses) per process; samples and forks of later ones are counted in constructs_dropped. */
#define OMPC_MAX_CONSTRUCTS 16384
/* Task constructs (code addresses, OMPCOLLECTOR_REQ_TASK_INFO) per process; tasks of later ones are counted in task_constructs_dropped. */
#define OMPC_MAX_TASK_CONSTRUCTS 4096
/* Explicit tasks running nested on one thread whose execution the agent times; deeper runs count, untimed, in task_nest_overflow. */
#define OMPC_TASK_NEST_DEPTH 64
/* Region nesting followed on one thread for FORK-to-JOIN times; deeper forks count, untimed, in nest_overflow. */
#define OMPC_NEST_DEPTH 16
/*
 * --trace: a wait for a lock, a critical section, an ordered section or
 * an atomic shorter than this was not contended; it leaves the event log
 * again and is only counted (short_waits, short_wait_ns), so code that
 * takes a lock millions of times does not fill its buffer with them.
 */
#define OMPC_SHORT_WAIT_NS 1000u
/* Loaded objects remembered per process for the launcher's symbolizer. */
#define OMPC_MAX_MODULES 256
#define OMPC_MODULE_PATH 256
/* State changes remembered per thread for --timeline. */
#define OMPC_TIMELINE_CAP 65536u
/* The arena beyond the per-thread reservations (ompc_record_layout), for what is allocated per process. */
#define OMPC_ARENA_DEFAULT ((uint64_t)1 << 20)
/*
 * --trace, --trace-json: the exact event log, per thread a buffer of
 * struct ompc_event_entry.  The default (8 MiB, 262144 events a thread) keeps
 * the dense case -- every event registered, a lock taken every few
 * microseconds -- exact for a few seconds, and a 2-core machine's handful
 * of threads far below its memory even when all are full; the arena holds
 * one such buffer for each of OMPC_MAX_THREADS threads (sparse: only what
 * is written costs memory).
 */
#define OMPC_EVENT_LOG_DEFAULT ((uint64_t)8 << 20)
/*
 * --task-graph without --trace-buffer: a task logs about six events (its
 * creation, run, end and a task wait's two), so 512 MiB a thread holds
 * some 2.5 million tasks a thread -- a graph of a whole fine-grained run,
 * not of its first seconds (issue 36).  Sparse like the trace's: a run
 * pays only for the entries it writes.
 */
#define OMPC_EVENT_LOG_TASK_GRAPH ((uint64_t)512 << 20)
#define OMPC_EVENT_LOG_MIN ((uint64_t)64)
#define OMPC_EVENT_LOG_MAX ((uint64_t)1 << 30)
/*
 * --stacks: per thread a table of distinct sampled call stacks (leaf
 * first, runtime frames already spliced out, see tools/agent/stackwalk.c) with a
 * count each, and a smaller one of the stacks the thread forked regions
 * from; every followed thread gets them (sparse arena).  A sample whose
 * stack does not fit is counted in its thread's stack_dropped.
 */
#define OMPC_STACK_DEPTH 64
#define OMPC_STACK_TABLE_BYTES ((uint64_t)2 << 20)
#define OMPC_STACK_INDEX 16384u
#define OMPC_FORK_TABLE_BYTES ((uint64_t)256 << 10)
#define OMPC_FORK_INDEX 2048u
/* Regions whose fork stack a worker's sample can still find (id-tagged, id % size). */
#define OMPC_FORK_CACHE 4096
/*
 * --stacks-unwind=dwarf[,SIZE]: besides the frame-pointer walk, the handler
 * copies SIZE bytes of the interrupted thread's stack from its stack
 * pointer up (less where the stack ends) and the registers CFI needs into
 * the thread's copy buffer (struct ompc_stack_copies), which the launcher
 * unwinds after the run.  A sample that finds the buffer full keeps its
 * frame-pointer stack and is counted in the table's copies_dropped.
 */
#define OMPC_STACK_COPY_DEFAULT 16384u
#define OMPC_STACK_COPY_MIN 512u
#define OMPC_STACK_COPY_MAX 65536u
/*
 * The bytes under the stack pointer a copy also takes: x86-64's red zone,
 * which a signal leaves alone.  GCC's CFI names the slots a function's
 * epilogue has already popped (it emits no restore after a pop), so
 * unwinding from a sample at a `ret` reads there; without them the caller's
 * frame pointer is lost and the stack ends, looking whole, in the runtime.
 */
#define OMPC_STACK_RED_ZONE 128u
#define OMPC_STACK_COPIES_BYTES ((uint64_t)64 << 20)
/* x86-64's DWARF registers 0..16: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, and the return address column (rip). */
#define OMPC_COPY_REGS 17
#define OMPC_COPY_REG_SP 7
#define OMPC_COPY_REG_PC 16

/* Options the launcher writes into the header (flags). */
enum { OMPC_OPT_SAMPLE = 1u << 0, OMPC_OPT_TIMELINE = 1u << 1, OMPC_OPT_STACKS = 1u << 2 };
/* --stacks-unwind=dwarf: stack copies beside the frame-pointer walk (with OMPC_OPT_STACKS; header stack_copy_bytes says how much). */
enum { OMPC_OPT_STACKS_DWARF = 1u << 3 };
/* Register the task extension's events 23..35 (default; --no-tasks leaves them out).  A high bit, clear of the options above. */
enum { OMPC_OPT_TASKS = 1u << 8 };
/*
 * With OMPC_OPT_TASKS: time every run of every task (--tasks=full, and
 * what --trace, --task-graph and --no-sample imply).  Without it the agent
 * counts tasks per construct at their creation alone and takes their time
 * from samples (process task_tier OMPC_TASK_TIER_SAMPLED says it did).
 */
enum { OMPC_OPT_TASKS_FULL = 1u << 9 };

/*
 * Whether the agent walks stacks (OMPC_OPT_STACKS) on this machine: it
 * follows frame pointers, which it knows on x86-64 and AArch64.  Here, so
 * the launcher that refuses --stacks and the agent that walks give one answer.
 */
static inline int ompc_stacks_supported(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}

/* Whether the agent can copy stacks for --stacks-unwind=dwarf here: it knows x86-64's registers. */
static inline int ompc_stacks_dwarf_supported(void)
{
#if defined(__x86_64__)
    return 1;
#else
    return 0;
#endif
}

/* Lifecycle of a thread slot. */
enum { OMPC_SLOT_FREE, OMPC_SLOT_LIVE, OMPC_SLOT_EXITED };

/*
 * Lifecycle of a process slot.  RECORDING at the end means the process
 * ended without its exit path running (_exit, a signal, SIGKILL).
 */
enum ompc_process_state {
    OMPC_PROC_FREE,
    OMPC_PROC_CLAIMED,   /* being filled in */
    OMPC_PROC_RECORDING, /* recording */
    OMPC_PROC_ENDED,     /* its exit handler ran: exit_status is valid */
    OMPC_PROC_EXECED,    /* this image replaced itself by exec */
    OMPC_PROC_REFUSED,   /* the collector could not attach: attach_error says why */
};

/* What became of sampling in a process. */
enum ompc_sampling {
    OMPC_SAMPLING_OFF,       /* --no-sample */
    OMPC_SAMPLING_ON,
    OMPC_SAMPLING_NO_SIGNAL, /* no real-time signal was free to sample with */
    OMPC_SAMPLING_REPLACED,  /* the program replaced the handler behind sigaction's back: stopped */
    OMPC_SAMPLING_DEFAULT,   /* the program asked for the default action and got the signal: stopped */
};

/* The mapping's first bytes. */
struct ompc_record_header {
    char magic[8];
    uint32_t version;
    uint32_t header_size;
    uint64_t total_size;
    uint64_t run_id;          /* random; OMPC_RECORD_ENV must name it */
    /* Options. */
    uint32_t flags;           /* OMPC_OPT_* */
    uint32_t event_mask;      /* events to register besides FORK and JOIN */
    int64_t interval_ns;
    int32_t launcher_pid;
    int32_t main_pid;         /* the process the launcher started, written before its exec */
    /* Layout. */
    uint32_t process_count;
    uint32_t process_size;
    uint64_t process_offset;
    uint32_t thread_size;     /* sizeof(struct ompc_thread), for a reader's sanity check */
    uint32_t region_size;
    uint64_t arena_offset;
    uint64_t arena_size;
    /* Shared by every process. */
    _Atomic uint64_t arena_used;
    _Atomic uint64_t arena_refused;      /* allocations that did not fit */
    _Atomic uint32_t processes_dropped;  /* processes that found no free slot */
    uint32_t stack_copy_bytes;           /* --stacks-unwind=dwarf: stack bytes copied per sample (0: no copies) */
    /* --trace, --trace-json: bytes of event log per thread, 0 when no trace was asked for. */
    uint64_t event_log_bytes;
};

/*
 * One delivered event in a thread's event log: when (ns since the
 * process's origin, shifted left by 8) with the event number in the low 8
 * bits, the region CURRENT_PRID named then, the wait id where the event
 * has one (BEGIN of a wait), and a code address: the parallel construct's
 * at FORK, the construct or lock call waited in at the BEGIN of a wait
 * (OMPCOLLECTOR_REQ_SAMPLE; 0 without it).
 *
 * A task run's begin and end and a task wait's begin and end hold in
 * `off_cpu_ns` the time the thread was off the CPU (its CPU clock behind
 * the wall clock) in the gaps since the previous such entry of the thread,
 * each gap between two logged events measured only when 50 us or longer
 * and at most the gap: the own time the stretch the entry ends did not
 * run (agent.c, off_cpu_gap).  The reader clamps it to that stretch.
 *
 * Task events (OMPC_OPT_TASKS, from OMPCOLLECTOR_REQ_TASK) are logged as
 * three of the extension's events, each naming its task in `task`:
 * END_CREATE_TASK_IMM or _DEL (24, 25) on the creating thread, with the
 * parent task's id in `parent` (not a region: 0 unknown) and the task
 * construct's return address in `codeptr` (0 unknown); BEGIN_EXEC_TASK
 * (33) where a run of the task begins, with `region` as above and no code
 * address; BEGIN_FINISH_TASK (34) where it ends (completed, or one part of
 * an untied task), naming no task (0), with `ends` saying which
 * (OMPC_TASK_END_*, from OMPCOLLECTOR_REQ_TASK_INFO's COMPLETING flag;
 * UNKNOWN from a runtime without it, and the reader takes a task's last
 * logged end for its completion) and no code address: per thread the
 * runs nest (a task run inside another's wait ends before it), so it ends
 * the innermost run open on the thread, and the reader names it (a
 * nonzero `task` there must be that run's).  The suspension of a task is
 * the run of another inside it.  Task ids are nonzero; the others of
 * events 23..35 are counted, not logged.
 *
 * With the shim's OMPCOLLECTOR_EVENT_BEGIN/END_TASK_WAIT the log also
 * holds each task wait (a taskwait, or a taskgroup's end) as
 * OMPC_EVENT_TASK_WAIT_BEGIN and _END, naming the waiting task in `task`
 * (no region, no code address): the task runs none of its own code in
 * between, and the task runs inside come in between.  With the shim's
 * OMPCOLLECTOR_EVENT_TASK_DEPENDENCE it holds each dependence between two
 * tasks (depend clauses) as OMPC_EVENT_TASK_DEPENDENCE on the thread that
 * created the sink: the sink in `task`, the source in `parent` (both
 * nonzero), no code address.
 */
struct ompc_event_entry {
    uint64_t when;
    union {
        uint64_t region;
        uint64_t parent; /* END_CREATE_TASK_IMM, _DEL */
        uint64_t ends;   /* BEGIN_FINISH_TASK: OMPC_TASK_END_* */
    };
    union {
        uint64_t wait_id;
        uint64_t task;   /* task events */
    };
    union {
        uint64_t codeptr;
        uint64_t off_cpu_ns; /* BEGIN_EXEC_TASK, BEGIN_FINISH_TASK, task waits: see below */
    };
};
/* What a logged task run's end (BEGIN_FINISH_TASK) ends. */
enum { OMPC_TASK_END_UNKNOWN = 0, OMPC_TASK_END_PART = 1, OMPC_TASK_END_COMPLETES = 2 };
/* The log's codes of a task wait's begin and end (the shim's OMPCOLLECTOR_EVENT_*_TASK_WAIT). */
enum { OMPC_EVENT_TASK_WAIT_BEGIN = 36, OMPC_EVENT_TASK_WAIT_END = 37, OMPC_EVENT_TASK_DEPENDENCE = 38 };
#define OMPC_EVENT_IS_TASK_WAIT(code) ((code) == OMPC_EVENT_TASK_WAIT_BEGIN || (code) == OMPC_EVENT_TASK_WAIT_END)
/* Whether a logged event is one of the task events above. */
#define OMPC_EVENT_IS_TASK(code) \
    ((code) == 24 || (code) == 25 || (code) == 33 || (code) == 34)
#define OMPC_EVENT_WHEN(entry) ((entry)->when >> 8)
#define OMPC_EVENT_CODE(entry) ((int)((entry)->when & 0xff))

/*
 * One place a thread was seen waiting: an object (LKWT, CTWT, ODWT, ATWT,
 * keyed by wait id and code address) or, when the runtime answers
 * OMPCOLLECTOR_REQ_SAMPLE, a barrier (EBAR, IBAR: wait id 0, keyed by code
 * address; OMPC_WAIT_AT_CONSTRUCT when the runtime gave an address in its
 * own code and codeptr is the region's construct in its place).  codeptr
 * and object are 0 without that request.  A WORK row (kind
 * OMPCOLLECTOR_WAIT_HELD) is no wait: the samples the thread took holding
 * the lock, critical, atomic or ordered at codeptr (id and object its
 * object), the body that construct serialises.
 */
#define OMPC_WAIT_AT_CONSTRUCT 1
struct ompc_wait {
    _Atomic uint64_t id;
    _Atomic uint32_t state;
    uint32_t kind;              /* OMPCOLLECTOR_WAIT_* of EBAR and IBAR (barrier, taskwait, taskgroup); 0 unknown */
    _Atomic uint64_t ticks;
    _Atomic uint64_t codeptr;   /* wait_codeptr: the construct or lock call waited in */
    _Atomic uint64_t object;    /* wait_object: the omp_lock_t's address for locks */
};

/*
 * One thread.  The sampling signal handler of the thread itself is the only
 * writer of the sample fields and the event callbacks on it the only writer
 * of the event fields, so every field has one writer; atomics (relaxed) only
 * make reads from other threads and processes well defined.
 */
struct ompc_thread {
    int32_t tid;
    int32_t initial;            /* the process's initial thread */
    _Atomic int32_t status;     /* OMPC_SLOT_* */
    int32_t last_state;         /* the sampler's own: last state put on the timeline */
    uint64_t start_ns;          /* sampling began (relative to the process's origin) */
    _Atomic uint64_t end_ns;    /* thread gone or recording ended; 0 while running */
    _Atomic uint64_t signals;   /* sampling signals handled */
    _Atomic uint64_t ticks;     /* timer expirations they stand for */
    _Atomic uint64_t state_ticks[OMPC_NSTATES];
    _Atomic uint64_t events[OMPC_NEVENTS];
    _Atomic uint64_t pair_ns[OMPC_NPAIRS];
    uint64_t pair_begin_ns[OMPC_NPAIRS]; /* the callbacks' own scratch */
    int32_t pair_depth[OMPC_NPAIRS];
    /* Offset in the mapping of the thread's OMPC_WAIT_SLOTS struct ompc_wait (0: no arena room, every wait overflows). */
    _Atomic uint64_t waits;
    _Atomic uint64_t wait_overflow_ticks;
    /*
     * Offset in the mapping of OMPC_MAX_CONSTRUCTS counters, one per row
     * of the process's construct table: this thread's WORK samples in
     * that construct, for its imbalance figure (0: no arena room).
     */
    _Atomic uint64_t construct_work;
    /*
     * The regions this thread forked and has not joined, innermost last
     * (the callbacks' own scratch): when, the construct row (+1, 0
     * unknown), and whether it was an outermost region.
     */
    uint64_t nest_fork_ns[OMPC_NEST_DEPTH];
    int32_t nest_construct[OMPC_NEST_DEPTH];
    uint8_t nest_outermost[OMPC_NEST_DEPTH];
    int32_t nest_depth;
    /* --trace: uncontended waits taken out of the event log again (OMPC_SHORT_WAIT_NS), and their time. */
    _Atomic uint64_t short_waits;
    _Atomic uint64_t short_wait_ns;
    /* --timeline: offset in the mapping of OMPC_TIMELINE_CAP entries of (µs since origin << 8) | state. */
    _Atomic uint64_t timeline;
    _Atomic uint32_t timeline_length;
    _Atomic uint32_t timeline_truncated; /* full, or no arena room (then timeline is 0) */
    _Atomic uint64_t last_sample_ns;
    /* The thread blocked the sampling signal: expirations it missed, and for how long. */
    _Atomic uint64_t blocked_ticks;
    _Atomic uint64_t blocked_ns;
    uint64_t blocked_since_ns;  /* the interposed sigmask calls' own scratch */
    _Atomic int32_t blocked;    /* 1 now, 2 unblocked since the last sample */
    int32_t ever_blocked;       /* counted once in the process's blocking_threads */
    /* --trace: offset in the mapping of the thread's event log (0: none), entries written, and what did not fit. */
    _Atomic uint64_t event_log;
    _Atomic uint32_t event_log_length;
    uint32_t event_log_capacity;     /* entries */
    _Atomic uint64_t event_log_dropped;
    _Atomic uint64_t event_log_dropped_ns; /* when the first event was dropped (0: none) */
    /*
     * 1 + the entry of the wait whose BEGIN was logged last and whose END
     * not yet (0: none).  Runtimes report the wait state only after the
     * BEGIN callback, so the sampler fills in that entry's wait id and code
     * address when it finds the thread in the wait.
     */
    _Atomic uint32_t event_log_open_wait;
    uint32_t event_log_reserved;
    /* --stacks: offsets in the mapping of the thread's stack table and fork-stack table (0: none). */
    _Atomic uint64_t stacks;
    _Atomic uint64_t fork_stacks;
    uint64_t stack_low, stack_high;       /* the thread's stack, set by the thread itself (0: unknown) */
    _Atomic uint64_t stack_dropped[OMPC_NSTATES]; /* samples per state whose stack was not kept */
    /*
     * Task events (OMPC_OPT_TASKS), written by the event callbacks on the
     * thread itself: how often each of events 23..35 arrived, and the time
     * an explicit task was being created, executing (BEGIN_EXEC to
     * BEGIN_FINISH; a task run nested inside another counts once, as the
     * one running) and suspended (an explicit task waiting for one run in
     * its place on this thread), with how many such suspensions.
     */
    _Atomic uint64_t task_events[OMPC_TASK_EVENTS];
    _Atomic uint64_t task_create_ns;
    _Atomic uint64_t task_exec_ns;
    _Atomic uint64_t task_suspend_ns;
    _Atomic uint64_t task_suspensions;
    uint64_t task_create_since, task_exec_since, task_suspend_since; /* the callbacks' own scratch */
    int32_t task_create_depth, task_exec_depth, task_suspend_depth;
    /*
     * WORK samples (expirations) whose interrupted code was the OpenMP
     * runtime's own: in a task program, the runtime creating, queueing and
     * finishing tasks, which no task event brackets (the creation phase
     * times only the tool's callback).  Written by the thread's own
     * sampling handler; the reserved zero of records before it.
     */
    _Atomic uint32_t runtime_work_ticks;
    /*
     * --timeline with OMPCOLLECTOR_REQ_SAMPLE: offset in the mapping of
     * OMPC_TIMELINE_CAP code addresses, one per timeline entry (0: none): the
     * construct the thread waited in, else its region's parallel construct
     * (0 in serial code).  An entry is also added when only this changes.
     */
    _Atomic uint64_t timeline_where;
    uint64_t last_where;        /* the sampler's own: the last one put on the timeline */
    /* When the thread's sampling timer was first armed (relative; 0: never): the report's coverage counts the time before it as not sampled yet. */
    _Atomic uint64_t armed_ns;
    /*
     * With OMPCOLLECTOR_REQ_TASK_INFO (the process's has_task_info): tasks
     * whose last run ended on this thread (an untied task's parts count
     * once), and tasks whose first run here was stolen from their creator.
     */
    _Atomic uint64_t task_completions;
    _Atomic uint64_t task_first_steals;
};

/*
 * A stack table in the arena (--stacks): this header, OMPC_*_INDEX 32-bit
 * hash slots (0 free, else 1 + the entry's word offset in the pool), then
 * the pool of entries, appended and never moved.  An entry is, in 64-bit
 * words: count; key (state | frames << 8 | flags << 16 | hash << 32); the
 * mapping offset of the fork-stack entry the stack continues into (0:
 * none); frames elided in the middle of a deep stack; then the frames'
 * code addresses, leaf first (the leaf is the interrupted address, the
 * others return addresses).  Only the owning thread writes a table.
 */
struct ompc_stack_table {
    uint32_t index_slots;
    uint32_t reserved;
    uint64_t pool_words;
    _Atomic uint64_t pool_used;    /* words */
    _Atomic uint64_t entries;
    _Atomic uint64_t full;         /* insertions that found no room */
    /* --stacks-unwind=dwarf, in the sample table only: mapping offset of the thread's struct ompc_stack_copies (0: none). */
    _Atomic uint64_t copies;
    _Atomic uint64_t copies_dropped;  /* samples the full copy buffer took no copy of */
    uint64_t last_copy;               /* the handler's own: offset in the buffer of the last copy + 1 (0: none) */
};

/*
 * --stacks-unwind=dwarf: a thread's stack copies in the arena, this header
 * then copies appended at 8-byte boundaries, each a struct
 * ompc_stack_copy and its `bytes` bytes of stack rounded up to 8.  Only
 * the owning thread's handler writes it.
 */
struct ompc_stack_copies {
    uint64_t capacity;          /* bytes after this header */
    _Atomic uint64_t used;      /* bytes */
    _Atomic uint64_t count;     /* copies */
    uint64_t reserved;
};

struct ompc_stack_copy {
    _Atomic uint64_t count;     /* samples (a next sample identical in registers and bytes adds to it) */
    uint64_t entry;             /* mapping offset of the stack-table entry the frame-pointer walk made of it */
    uint64_t hash;              /* of state, registers and bytes */
    /*
     * Once a uint32_t state, now split: a state is below 2^16, so a run
     * recorded before reads as below == 0 on the little-endian machines
     * that take stack copies.
     */
    uint16_t state;
    uint16_t below;             /* bytes copied under regs[OMPC_COPY_REG_SP] (the red zone), at most OMPC_STACK_RED_ZONE */
    uint32_t bytes;             /* stack bytes copied, from regs[OMPC_COPY_REG_SP] - below upwards */
    uint64_t regs[OMPC_COPY_REGS];
};
#define OMPC_STACK_ENTRY_WORDS 4 /* before the frames */
/* Entry flags: the walk stopped early (a frame that made no sense), or the forking thread's stack was not found. */
enum { OMPC_STACK_BROKEN = 1, OMPC_STACK_NO_CALLER = 2, OMPC_STACK_NO_BOUNDS = 4, OMPC_STACK_LEAF_EXACT = 8,
       OMPC_STACK_AT_UNBLOCK = 16 };
/*
 * (LEAF_EXACT: the first frame is the interrupted address itself, not a
 * return address.  AT_UNBLOCK: the sample arrived as the thread lifted its
 * block of the sampling signal, so its leaf is the C library's mask call
 * the agent made on the program's behalf, not where the program spent it.)
 */

/* A region's fork stack, for the workers' samples (--stacks). */
struct ompc_fork_slot {
    _Atomic uint64_t region_id;
    _Atomic uint64_t entry; /* mapping offset of the entry in the forking thread's fork-stack table */
};

/* One parallel region, keyed by the id CURRENT_PRID reports. */
struct ompc_region {
    _Atomic uint64_t id; /* 0: free */
    _Atomic uint64_t parent;
    _Atomic uint32_t forks;
    _Atomic uint32_t joins;
    _Atomic uint64_t fork_ns;     /* latest FORK on the master */
    _Atomic uint64_t time_ns;     /* FORK to JOIN, summed */
    _Atomic uint64_t thread_mask; /* bit (slot % 64) of every thread sampled in it */
    _Atomic uint64_t ticks[OMPC_NSTATES];
    _Atomic uint64_t codeptr;     /* the parallel construct's return address (SAMPLE at FORK), 0 unknown */
};

/*
 * One parallel construct (OMPCOLLECTOR_REQ_SAMPLE), keyed by its code
 * address: every instance's FORK, JOIN and time, and every sample taken
 * in it, whether or not the instance found a row in the region table.
 * The per-thread WORK samples are in each thread's construct_work.
 */
struct ompc_construct {
    _Atomic uint64_t codeptr;     /* 0: free */
    _Atomic uint64_t forks;
    _Atomic uint64_t joins;
    _Atomic uint64_t time_ns;     /* FORK to JOIN on the master, summed */
    _Atomic uint64_t max_ns;      /* the longest instance */
    _Atomic uint64_t thread_mask; /* bit (slot % 64) of every thread sampled in it */
    _Atomic uint64_t ticks[OMPC_NSTATES];
};

/*
 * One task construct (OMPCOLLECTOR_REQ_TASK_INFO), keyed by its code
 * address: the tasks created there, on every thread, and their runs.
 * Written by the task event callbacks of whichever thread creates or runs
 * such a task.
 */
struct ompc_task_construct {
    _Atomic uint64_t codeptr;     /* 0: free */
    _Atomic uint64_t created;     /* END_CREATE_TASK_IMM or _DEL */
    _Atomic uint64_t undeferred;  /* ... of them _IMM: ran at once on the creator */
    _Atomic uint64_t create_ns;   /* BEGIN_CREATE to END_CREATE, summed */
    _Atomic uint64_t completed;   /* tasks whose last run ended (COMPLETING) */
    _Atomic uint64_t runs;        /* BEGIN_EXEC: one per task, one per part for untied ones */
    _Atomic uint64_t stolen;      /* first runs on a thread other than the creator */
    _Atomic uint64_t timed_runs;  /* runs whose time is in exec_ns (not nested too deep) */
    _Atomic uint64_t exec_ns;     /* BEGIN_EXEC to BEGIN_FINISH less the time suspended, summed */
    _Atomic uint64_t max_ns;      /* the longest such run */
    _Atomic uint64_t suspend_ns;  /* suspended while another task ran in its place on the thread */
    _Atomic uint64_t suspensions;
    _Atomic uint64_t thread_mask; /* bit (slot % 64) of every thread that ran one */
    /* Sampled tier: sample intervals of samples that found a task of this construct running (0 in the full tier). */
    _Atomic uint64_t sampled_ns;
};

/*
 * Which task construct each sampled stack ran in (--stacks with the task
 * sampling), for the task views of sample-by-sample formats (--gprofng):
 * a thread's table in the arena, this header then `slots` cells claimed
 * once (open addressing) by key: the mapping offset of the sample
 * stack-table entry the sample's walk counted in, shifted left by
 * OMPC_TASK_STACK_ROW_BITS, with 1 + the row of the task construct whose
 * explicit task the sample found running.  Only the owning thread's
 * sampling handler writes it; what finds no cell is counted in `full`.
 */
#define OMPC_TASK_STACK_SLOTS 1024
#define OMPC_TASK_STACK_ROW_BITS 13
struct ompc_task_stack_table {
    uint32_t slots;
    uint32_t reserved;
    _Atomic uint64_t full;      /* samples */
};
struct ompc_task_stack {
    _Atomic uint64_t key;       /* 0: free */
    _Atomic uint64_t count;     /* samples */
};
/*
 * Creations a thread counted for its last few task construct rows and has
 * not yet added to the rows' `created` and `undeferred`: a thread keeps
 * counting a construct here while it creates its tasks, and adds the
 * count to the shared row only when the construct leaves its last few
 * (OMPC_TASK_PENDING_ROWS).  A row every thread adds to is one cache line
 * all of them write: in a fine task program the shared count was most
 * of the agent's cost per task (fib, two threads: 8% of the run in one
 * locked add).  Only the owning thread writes its entries; a reader adds
 * each entry to its row.  A line of its own per thread.
 */
#define OMPC_TASK_PENDING_ROWS 4
struct ompc_task_pending {
    _Alignas(64) _Atomic int32_t row[OMPC_TASK_PENDING_ROWS]; /* 1 + the task construct row, 0 none */
    _Atomic uint64_t created[OMPC_TASK_PENDING_ROWS];
    _Atomic uint64_t undeferred[OMPC_TASK_PENDING_ROWS];
};

#define OMPC_TASK_STACK_BYTES \
    (sizeof(struct ompc_task_stack_table) + OMPC_TASK_STACK_SLOTS * sizeof(struct ompc_task_stack))
_Static_assert(OMPC_MAX_TASK_CONSTRUCTS < (1 << OMPC_TASK_STACK_ROW_BITS), "a task-stack key holds 1 + any row");

/* A process's task_tier: every run timed (what records before the field say too), or counted at creation and sampled. */
enum { OMPC_TASK_TIER_FULL = 0, OMPC_TASK_TIER_SAMPLED = 1 };

/*
 * What task_requests[].ec holds for a task event the agent did not
 * register because the shim's payload event stands for it: the answer is
 * that event's (OK), the legacy event was not asked for.  Numbers in the
 * private range, clear of any OMP_ERRCODE.
 */
enum { OMPC_EC_VIA_TASK_EVENT = 0x4F430004, OMPC_EC_VIA_TASK_CREATE = 0x4F430005, OMPC_EC_VIA_TASK_LOG = 0x4F430006 };

/* One object loaded in the process, as dl_iterate_phdr reports it. */
struct ompc_module {
    uint64_t bias;                  /* dlpi_addr */
    char path[OMPC_MODULE_PATH];    /* dlpi_name, or the executable's path for the main program */
};

/*
 * Time inside MPI calls of one followed thread (the same index as the
 * process's threads[]), written by the MPI library libompcollect-mpi,
 * which the launcher preloads when the program links libmpi: each wrapped
 * call (PMPI interposition) adds its time, outermost call to its return,
 * when it returns.  The sampler counts a sample that finds the thread
 * inside such a call in `ticks`, not in the thread's state_ticks.  Only
 * the thread itself writes its row.
 */
struct ompc_mpi_thread {
    _Atomic uint64_t ns;        /* inside wrapped MPI calls, summed */
    _Atomic uint64_t calls;     /* wrapped calls that returned (outermost only) */
    _Atomic uint64_t ticks;     /* timer expirations the sampler counted inside one */
    /* Of the thread's IDLE samples, those taken while the initial thread was inside a wrapped call: the team waits for its master's MPI, not for serial code. */
    _Atomic uint64_t idle_ticks;
};

/*
 * One MPI call at one call site (version 8), keyed by both: `key` is the
 * return address in the program's code (below 2^48 on every 64-bit ABI we
 * run on) with the call's number + 1 (mpi_calls.h) in its top 16 bits.
 * Rows are claimed once (open addressing), like the construct table; the
 * calling thread adds its outermost call's time when it returns, the
 * sampler the samples it takes inside.
 */
struct ompc_mpi_site {
    _Atomic uint64_t key;   /* 0: free */
    _Atomic uint64_t calls;
    _Atomic uint64_t ns;
    _Atomic uint64_t ticks;
};

/*
 * One code address where threads ran serial code, keyed by the address
 * (open addressing, claimed once, like the construct table): the samples
 * that found a thread in SERIAL with the interrupted code there.
 */
struct ompc_place {
    _Atomic uint64_t pc;    /* 0: free */
    _Atomic uint64_t ticks;
};

/*
 * What kind of construct a row of the construct table is
 * (OMPCOLLECTOR_REQ_REGION at its FORKs; UNKNOWN from a runtime without
 * it, or a record before version 8 that holds them), and the teams construct whose teams
 * fork it.  A target construct is one of these too: the report tells it
 * by its code.
 */
enum { OMPC_CONSTRUCT_UNKNOWN = 0, OMPC_CONSTRUCT_PARALLEL = 1, OMPC_CONSTRUCT_TEAMS = 2, OMPC_CONSTRUCT_KINDS = 3 };
struct ompc_construct_kind {
    _Atomic uint32_t kind;  /* OMPC_CONSTRUCT_* */
    _Atomic uint32_t teams; /* 1 + the construct row of the teams construct it runs inside, 0 none or unknown */
};

/* What REGISTER answered for an event asked for. */
struct ompc_event_request {
    int32_t event;
    int32_t ec; /* OMP_COLLECTORAPI_EC, or -1 when the call itself failed */
};

#define OMPC_TEXT_SIZE 512

/* One process image: everything its report needs. */
struct ompc_process {
    _Atomic uint32_t state;       /* enum ompc_process_state */
    uint32_t index;
    int32_t pid;
    int32_t ppid;
    int32_t parent_slot;          /* -1, or the slot of the process this one forked from */
    int32_t exec_slot;            /* -1, or the slot of the image (same pid) that exec'd this one */
    uint64_t start_ticks;         /* /proc start time, to tell a reused pid */
    uint64_t origin_ns;           /* CLOCK_MONOTONIC when this record began */
    _Atomic uint64_t end_ns;      /* relative: exit path ran or exec; 0 otherwise */
    _Atomic uint64_t alive_ns;    /* relative: last heartbeat of the scanner */
    _Atomic int32_t exit_status;  /* valid in OMPC_PROC_ENDED */
    _Atomic uint32_t openmp;      /* an OpenMP runtime is (was) in the process */
    char program[OMPC_TEXT_SIZE];
    char runtime[OMPC_TEXT_SIZE]; /* the path the loader opened the runtime by */
    char attach_error[OMPC_TEXT_SIZE];
    /* Sampling. */
    int32_t sample_signal;
    _Atomic uint32_t sampling;              /* enum ompc_sampling */
    _Atomic uint64_t sampling_stopped_ns;
    _Atomic uint64_t program_handler_ns;    /* the program asked for its own handler (0: never) */
    _Atomic uint64_t signals_passed;        /* deliveries that were not our timers', given to the program */
    _Atomic uint32_t blocking_threads;      /* threads that blocked the signal at some point */
    uint32_t reserved;
    /* Events. */
    struct ompc_event_request requests[OMPC_NEVENTS];
    int32_t request_count;
    uint32_t event_mask;
    /* Threads and regions. */
    _Atomic int32_t thread_count;
    int32_t reserved2;
    _Atomic uint64_t threads_not_followed;
    _Atomic uint64_t regions_overflow_forks;
    /* Every region instance, whether or not the region table held it: FORKs, JOINs, and FORK to JOIN of outermost ones. */
    _Atomic uint64_t forks;
    _Atomic uint64_t joins;
    _Atomic uint64_t outermost_ns;
    _Atomic uint64_t nest_overflow;     /* FORKs nested deeper than OMPC_NEST_DEPTH on one thread: counted, not timed */
    struct ompc_thread untracked; /* events of threads past OMPC_MAX_THREADS */
    struct ompc_thread threads[OMPC_MAX_THREADS];
    struct ompc_region regions[OMPC_MAX_REGIONS];
    /* Code locations (OMPCOLLECTOR_REQ_SAMPLE). */
    _Atomic uint32_t has_sample;        /* the runtime answered the extension at START */
    uint32_t reserved3;
    _Atomic uint64_t constructs_dropped; /* FORKs and samples of constructs past OMPC_MAX_CONSTRUCTS */
    struct ompc_construct constructs[OMPC_MAX_CONSTRUCTS];
    /* The module map: every object seen loaded (appended by the scanner, never removed, so addresses in a closed library still resolve). */
    _Atomic uint32_t module_count;
    _Atomic uint32_t modules_dropped;   /* objects past OMPC_MAX_MODULES, or paths too long */
    struct ompc_module modules[OMPC_MAX_MODULES];
    /* --stacks: where each recent region was forked from. */
    struct ompc_fork_slot fork_cache[OMPC_FORK_CACHE];
    /* What REGISTER answered for the task events 23..35 (OMPC_OPT_TASKS); task_request_count 0 when they were not asked for. */
    struct ompc_event_request task_requests[OMPC_TASK_EVENTS];
    int32_t task_request_count;
    int32_t task_tier;                  /* OMPC_TASK_TIER_*: how the task constructs' figures were taken (0 in records before it) */
    /* When the agent's start-up ended (relative; 0: before the origin, as in a forked child): START, which initializes the OpenMP runtime, and REGISTER; sampling begins only after it. */
    _Atomic uint64_t session_ns;
    /* Task constructs: the runtime answered OMPCOLLECTOR_REQ_TASK_INFO at START (and the task events were asked for). */
    _Atomic uint32_t has_task_info;
    uint32_t reserved4;
    _Atomic uint64_t task_constructs_dropped; /* creations and runs of tasks of constructs past OMPC_MAX_TASK_CONSTRUCTS */
    _Atomic uint64_t task_nest_overflow;      /* runs nested deeper than OMPC_TASK_NEST_DEPTH on one thread: counted, not timed */
    struct ompc_task_construct task_constructs[OMPC_MAX_TASK_CONSTRUCTS];
    /* Version 6: MPI.  The MPI library's wrappers ran in this process (its first wrapped call returned); */
    _Atomic uint32_t mpi_active;
    uint32_t mpi_reserved;
    struct ompc_mpi_thread mpi_threads[OMPC_MAX_THREADS];
    /* Version 7: where serial code ran, from the sampler (leaf code addresses of SERIAL samples outside MPI calls). */
    _Atomic uint64_t serial_places_dropped; /* samples whose address found no free row */
    uint64_t serial_reserved;
    struct ompc_place serial_places[OMPC_SERIAL_PLACES];
    /* Version 8: MPI_Init, MPI_Init_thread and MPI_Finalize (outermost), over the threads: in the threads' MPI time, but not communication. */
    _Atomic uint64_t mpi_setup_ns;
    _Atomic uint64_t mpi_setup_calls;
    _Atomic uint64_t mpi_sites_dropped; /* outermost calls whose (call, site) found no free row */
    uint64_t mpi_sites_reserved;
    struct ompc_mpi_site mpi_sites[OMPC_MPI_SITES];
    /* Version 8 too (after the MPI sites): the kind of each row of constructs[], written at its FORKs. */
    struct ompc_construct_kind construct_kinds[OMPC_MAX_CONSTRUCTS];
    /* Version 8 too (after the construct kinds): per thread slot, the mapping offset of its task-stack table (0: none). */
    _Atomic uint64_t task_stacks[OMPC_MAX_THREADS];
    /* Version 8 too (after the task-stack tables): per thread slot, its creations not yet in the task construct rows. */
    struct ompc_task_pending task_pending[OMPC_MAX_THREADS];
};

/* The bytes of a process slot a version-5 record holds (everything before the MPI fields). */
#define OMPC_PROCESS_SIZE_NO_MPI offsetof(struct ompc_process, mpi_active)
/* The bytes of a process slot a version-6 record holds (everything before the serial places). */
#define OMPC_PROCESS_SIZE_NO_SERIAL offsetof(struct ompc_process, serial_places_dropped)
/* The bytes of a process slot a version-7 record holds (everything before the MPI call sites). */
#define OMPC_PROCESS_SIZE_NO_MPI_CALLS offsetof(struct ompc_process, mpi_setup_ns)
/* The least a version-8 slot holds: everything before the construct kinds, which came later in version 8. */
#define OMPC_PROCESS_SIZE_NO_KINDS offsetof(struct ompc_process, construct_kinds)
/* A version-8 slot with the construct kinds but before the task-stack tables, which came later still. */
#define OMPC_PROCESS_SIZE_NO_TASK_STACKS offsetof(struct ompc_process, task_stacks)
/* A version-8 slot with the task-stack tables but before the pending creations, which came after them. */
#define OMPC_PROCESS_SIZE_NO_TASK_PENDING offsetof(struct ompc_process, task_pending)

/* The least bytes of a process slot of record version `version`; 0 for a version this build cannot read. */
size_t ompc_record_slot_bytes(uint32_t version);

/* Fills in a header (magic, version, layout) for the options; returns the mapping's total size. */
uint64_t ompc_record_layout(struct ompc_record_header *header, uint32_t flags);

/* Makes the arena hold every thread's timeline code addresses (--timeline, --trace-json); returns the mapping's new total size. */
uint64_t ompc_record_reserve_timeline_where(struct ompc_record_header *header);

/* The construct row of `codeptr` in a process's table, inserted on first sight (lock-free, async-signal-safe); -1 when the table is full. */
int ompc_record_construct(struct ompc_process *process, uint64_t codeptr);

/* Counts `weight` samples of stack-table entry `entry` (a mapping offset) in task construct `row` in thread slot `index`'s task-stack table (async-signal-safe; the owning thread only). */
void ompc_record_task_stack(struct ompc_record_header *header, struct ompc_process *process, int index, uint64_t entry,
                            int row, uint64_t weight);

/* Counts `weight` samples of serial code at `pc` in a process's table (lock-free, async-signal-safe); past its bound, in serial_places_dropped. */
void ompc_record_serial_place(struct ompc_process *process, uint64_t pc, uint64_t weight);

/* The row of MPI call `call` (mpi_calls.h) at return address `site` in a process's table, inserted on first sight (lock-free); -1 when full or the key cannot be made. */
int ompc_record_mpi_site(struct ompc_process *process, int call, uint64_t site);

/* The row of `codeptr` in a process's task construct table, inserted on first sight (lock-free, async-signal-safe); -1 when full (counted). */
int ompc_record_task_construct(struct ompc_process *process, uint64_t codeptr);

/* Makes the arena hold the per-thread stack tables of --stacks; returns the mapping's new total size. */
uint64_t ompc_record_reserve_stacks(struct ompc_record_header *header);

/* Makes the arena hold per-thread event logs of `bytes` each (--trace); returns the mapping's new total size. */
uint64_t ompc_record_reserve_event_log(struct ompc_record_header *header, uint64_t bytes);

/* 0 when `header` is a record this build can read (its version, or an older one ompc_record_slot_bytes knows) and `file_size` is its size; else a reason. */
const char *ompc_record_check(const struct ompc_record_header *header, uint64_t file_size);

/* The process slot `index` of a mapped record. */
struct ompc_process *ompc_record_process(struct ompc_record_header *header, uint32_t index);

/*
 * Takes `size` bytes (rounded to 64) from the arena of a mapped record;
 * returns their offset in the mapping, or 0 when the arena is full (counted
 * in arena_refused).  Lock-free; any process.
 */
uint64_t ompc_record_alloc(struct ompc_record_header *header, uint64_t size);

/* Whether `extent` bytes at mapping offset `offset` lie in the arena of a record of header->total_size bytes (offset 0: none). */
int ompc_record_in_arena(const struct ompc_record_header *header, uint64_t offset, uint64_t extent);

/* Name of a process state, for reports. */
const char *ompc_process_state_name(uint32_t state);

#endif /* OMPCOLLECT_RECORD_H */
