/* omp_collector_api.h - the OpenMP Collector API as served by ompcollector. */
/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * This header describes the one entry point a performance collector uses to
 * talk to the OpenMP runtime: int __omp_collector_api(void *arg).  Names and
 * numeric values match the historical Sun/Oracle collector interface, so a
 * collector written against that interface compiles and runs unchanged.  The
 * text is ompcollector's own.
 *
 * Finding the entry point
 *   A collector looks the name OMP_COLLECTOR_API up with
 *   dlsym(RTLD_DEFAULT, OMP_COLLECTOR_API) and calls it; it need not link
 *   against anything.
 *
 * The request buffer
 *   `arg` points at a list of entries laid out back to back.  Every entry
 *   starts with four 32-bit ints, followed by request-specific bytes:
 *
 *     offset 0   int sz    whole entry length in bytes, header included
 *     offset 4   int r#    the request (OMP_COLLECTORAPI_REQUEST)
 *     offset 8   int ec    filled in: the outcome (OMP_COLLECTORAPI_EC)
 *     offset 12  int rsz   filled in: bytes written to mem, or, with
 *                          OMP_ERRCODE_MEM_TOO_SMALL, bytes mem must have
 *     offset 16  mem[]     sz - 16 bytes of arguments and results
 *
 *   An entry with sz == 0 ends the list.  `arg` and every entry must be
 *   4-byte aligned; 8-byte values inside mem need only 4-byte alignment
 *   (ompcollector reads and writes them bytewise).
 *
 *   The call returns 0 when it reached the terminating entry, even if some
 *   entries carry error codes.  It returns -1 when `arg` is NULL, or when it
 *   meets an entry whose sz is below 16, not a multiple of 4, or whose
 *   address is not 4-byte aligned; processing stops at that entry and
 *   nothing at or after it is written.  Entries before it were processed.
 *   ompcollector never writes outside the sz bytes of the entry a result
 *   belongs to.
 *
 * Requests (mem layout; which threads; async-signal safety)
 *   OMP_REQ_START        no mem.  Begins a session.  Must come first; a
 *                        second START gets OMP_ERRCODE_SEQUENCE_ERR, and so
 *                        does a START when the runtime will not accept
 *                        ompcollector as its OMPT tool.  START after STOP
 *                        begins a fresh session.  Any thread.  Not
 *                        async-signal-safe.
 *   OMP_REQ_REGISTER     mem holds the event (int) and the callback
 *                        (void (*)(OMP_COLLECTORAPI_EVENT)).  Two layouts
 *                        are accepted, told apart by sz:
 *                          sz == 28: packed; event at mem+0, callback at
 *                                    mem+4 (what TAU and OpenUH send);
 *                          sz >= 32: natural alignment; event at mem+0,
 *                                    zero pad word at mem+4, callback at
 *                                    mem+8.  A nonzero pad word with
 *                                    sz >= 32 is read as the packed layout.
 *                        sz of 20 or 24 is too small (OMP_ERRCODE_ERROR).
 *                        Unknown event: OMP_ERRCODE_UNKNOWN; an event this
 *                        runtime, or the program's code, cannot produce
 *                        (gcc code never reports master):
 *                        OMP_ERRCODE_UNSUPPORTED;
 *                        NULL callback: OMP_ERRCODE_ERROR.  Registering an
 *                        event again replaces its callback.  Any thread.
 *                        Not async-signal-safe.
 *   OMP_REQ_UNREGISTER   mem+0: the event (int).  Unregistering an event
 *                        that has no callback is accepted and ignored.
 *                        Any thread.  Not async-signal-safe.
 *   OMP_REQ_STATE        writes the thread state (int) at mem+0 and the
 *                        8-byte wait id at mem+4: rsz 12.  With room for
 *                        the state only (4 to 11 bytes of mem) the state is
 *                        written; a state without a wait id (WORK, SERIAL,
 *                        IDLE, OVHD, REDUC) then answers OK with rsz 4, a
 *                        state with one (IBAR, EBAR, LKWT, CTWT, ODWT,
 *                        ATWT) answers OMP_ERRCODE_MEM_TOO_SMALL with rsz
 *                        12.  Any thread.  Async-signal-safe.
 *   OMP_REQ_CURRENT_PRID writes the calling thread's parallel region id as a
 *                        uint64_t at mem+0 (rsz 8); 0 when the thread is in
 *                        THR_SERIAL_STATE or THR_IDLE_STATE.  Any thread.
 *                        Async-signal-safe.
 *   OMP_REQ_PARENT_PRID  writes the id of the region enclosing the caller's
 *                        current region (0 when outermost) at mem+0.  Only
 *                        the master of a team may ask; other threads get
 *                        OMP_ERRCODE_THREAD_ERR.  Not async-signal-safe.
 *   OMP_REQ_STOP         no mem.  Ends the session: once it returns no
 *                        callback is begun again.  Not async-signal-safe.
 *   OMP_REQ_PAUSE        no mem.  Events are dropped (not queued) until
 *                        RESUME.  Pausing twice is accepted.
 *   OMP_REQ_RESUME       no mem.  Resuming while running is accepted.
 *   OMP_REQ_TASK_ID      (task extension, below) the id of the task the
 *                        calling thread runs.  Async-signal-safe.
 *   OMP_REQ_TASK_PID     (task extension, below) the id of that task's
 *                        parent.  Async-signal-safe.
 *
 *   Every request but START gets OMP_ERRCODE_SEQUENCE_ERR before START and
 *   after STOP.  A request number outside the list gets
 *   OMP_ERRCODE_UNKNOWN.  A result that does not fit gets
 *   OMP_ERRCODE_MEM_TOO_SMALL with rsz set to the bytes needed.
 *
 * Events
 *   A registered callback is called with the event number, synchronously, on
 *   the thread where the event happens.  The first call may arrive before
 *   the REGISTER request returns.
 *
 * The OpenUH task extension
 *   OpenUH's runtime (University of Houston) extended Oracle's interface
 *   with task events 23..35 and the requests OMP_REQ_TASK_ID (9) and
 *   OMP_REQ_TASK_PID (10); TAU's collector client and OpenUH's validation
 *   send them.  ompcollector serves them with the same names and numbers,
 *   marked "task extension" below.  What each event means on an OMPT
 *   runtime is written down, row by row, in ompcollector's doc/mapping.md.
 *
 *   OMP_REQ_TASK_ID, OMP_REQ_TASK_PID: the id of the task the calling
 *   thread runs, or of that task's parent (the task that created it; for
 *   an implicit task, the task that met the parallel construct).  Ids are
 *   nonzero, unique within the process, the same for a task all its life,
 *   and given to implicit tasks too.  A thread outside any parallel region
 *   (SERIAL, IDLE) runs no task unless it executes an explicit one, and a
 *   task made there has no parent: both answer -1 then.
 *     mem of 8 bytes or more: the id as a 64-bit integer (-1 for none),
 *                             rsz 8;
 *     mem of 4 to 7 bytes:    the id as a 32-bit int (-1 for none), rsz 4,
 *                             as OpenUH answered; once ids outgrow 31 bits
 *                             they no longer fit: OMP_ERRCODE_MEM_TOO_SMALL,
 *                             rsz 8, mem untouched;
 *     less mem:               OMP_ERRCODE_MEM_TOO_SMALL, rsz 4 (or 8 for an
 *                             id that needs it).
 *   Inside the END_CREATE_TASK_IMM/DEL callback TASK_ID names the task just
 *   created and TASK_PID its creator.  Any thread; async-signal-safe.
 *
 *   Sentinels: with the extension OMP_REQ_LAST is 11 (it was 9 in Oracle's
 *   header).  A client built against the old header that sends its
 *   OMP_REQ_LAST (9) expecting OMP_ERRCODE_UNKNOWN now gets TASK_ID's
 *   answer; request numbers from 11 up, and negative ones, still answer
 *   UNKNOWN.  OMP_EVENT_LAST and OMP_EVENT_THR_RESERVED_IMPL keep their
 *   values, and THR_LAST_STATE stays 12: OpenUH's task states 12..16 are
 *   not part of the extension, because Oracle's later tools gave 12 another
 *   meaning (see OMPCOLLECTOR_TASKWAIT_STATE) and no OMPT runtime reports
 *   them.  OMP_COLLECTOR_API_TASK_EXTENSION is defined for code that wants
 *   to know it builds against this header.
 */

#ifndef OMP_COLLECTOR_API_H
#define OMP_COLLECTOR_API_H 1

#ifdef __cplusplus
extern "C" {
#endif

/* The symbol a collector looks up. */
#define OMP_COLLECTOR_API "__omp_collector_api"

/* Request numbers (the r# field). */
typedef enum {
    OMP_REQ_START = 0,
    OMP_REQ_REGISTER = 1,
    OMP_REQ_UNREGISTER = 2,
    OMP_REQ_STATE = 3,
    OMP_REQ_CURRENT_PRID = 4,
    OMP_REQ_PARENT_PRID = 5,
    OMP_REQ_STOP = 6,
    OMP_REQ_PAUSE = 7,
    OMP_REQ_RESUME = 8,
    /* Task extension (OpenUH): see "The OpenUH task extension" above. */
    OMP_REQ_TASK_ID = 9,   /* id of the calling thread's current task */
    OMP_REQ_TASK_PID = 10, /* id of that task's parent task */
    OMP_REQ_LAST
} OMP_COLLECTORAPI_REQUEST;

/* Outcomes (the ec field). */
typedef enum {
    OMP_ERRCODE_OK = 0,            /* done */
    OMP_ERRCODE_ERROR = 1,         /* malformed entry or argument */
    OMP_ERRCODE_UNKNOWN = 2,       /* request or event number not known */
    OMP_ERRCODE_UNSUPPORTED = 3,   /* known, but this runtime cannot do it */
    OMP_ERRCODE_SEQUENCE_ERR = 4,  /* not allowed at this point of a session */
    OMP_ERRCODE_OBSOLETE = 5,      /* no longer offered */
    OMP_ERRCODE_THREAD_ERR = 6,    /* not allowed from the calling thread */
    OMP_ERRCODE_MEM_TOO_SMALL = 7, /* mem too small; rsz says how much */
    OMP_ERRCODE_LAST
} OMP_COLLECTORAPI_EC;

/*
 * Events a collector may register for.  FORK is always available; the others
 * depend on what the runtime reports (REGISTER answers UNSUPPORTED when it
 * cannot).  BEGIN and END events come in pairs on the same thread.
 */
typedef enum {
    OMP_EVENT_FORK = 1,             /* master: a team is about to run */
    OMP_EVENT_JOIN = 2,             /* master: the team has finished */
    OMP_EVENT_THR_BEGIN_IDLE = 3,   /* worker: left its team, waits for work */
    OMP_EVENT_THR_END_IDLE = 4,
    OMP_EVENT_THR_BEGIN_IBAR = 5,   /* implicit barrier wait */
    OMP_EVENT_THR_END_IBAR = 6,
    OMP_EVENT_THR_BEGIN_EBAR = 7,   /* explicit barrier wait */
    OMP_EVENT_THR_END_EBAR = 8,
    OMP_EVENT_THR_BEGIN_LKWT = 9,   /* waiting for an OpenMP lock */
    OMP_EVENT_THR_END_LKWT = 10,
    OMP_EVENT_THR_BEGIN_CTWT = 11,  /* waiting to enter a critical region */
    OMP_EVENT_THR_END_CTWT = 12,
    OMP_EVENT_THR_BEGIN_ODWT = 13,  /* waiting to enter an ordered region */
    OMP_EVENT_THR_END_ODWT = 14,
    OMP_EVENT_THR_BEGIN_MASTER = 15, /* inside a master/masked region */
    OMP_EVENT_THR_END_MASTER = 16,
    OMP_EVENT_THR_BEGIN_SINGLE = 17, /* executing a single region */
    OMP_EVENT_THR_END_SINGLE = 18,
    OMP_EVENT_THR_BEGIN_ORDERED = 19, /* inside an ordered region */
    OMP_EVENT_THR_END_ORDERED = 20,
    OMP_EVENT_THR_BEGIN_ATWT = 21,  /* waiting to enter an atomic region */
    OMP_EVENT_THR_END_ATWT = 22,
    /*
     * Task extension (OpenUH); delivered on the thread that creates
     * (CREATE) or runs (the others) the task.  See doc/mapping.md.
     */
    OMP_EVENT_THR_BEGIN_CREATE_TASK = 23,   /* creator: a task is being created */
    OMP_EVENT_THR_END_CREATE_TASK_IMM = 24, /* ... it is undeferred: runs at once */
    OMP_EVENT_THR_END_CREATE_TASK_DEL = 25, /* ... it is deferred: queued */
    OMP_EVENT_THR_BEGIN_SCHD_TASK = 26,     /* the thread takes a queued task to run */
    OMP_EVENT_THR_END_SCHD_TASK = 27,
    OMP_EVENT_THR_BEGIN_SUSPEND_TASK = 28,  /* the running task leaves the thread for another */
    OMP_EVENT_THR_END_SUSPEND_TASK = 29,    /* ... and resumes */
    OMP_EVENT_THR_BEGIN_STEAL_TASK = 30,    /* the task taken was created by another thread */
    OMP_EVENT_THR_END_STEAL_TASK = 31,
    OMP_EVENT_THR_FETCHED_TASK = 32,        /* the queued task has been taken */
    OMP_EVENT_THR_BEGIN_EXEC_TASK = 33,     /* an explicit task starts executing */
    OMP_EVENT_THR_BEGIN_FINISH_TASK = 34,   /* ... its execution ends (ends EXEC) */
    OMP_EVENT_THR_END_FINISH_TASK = 35,
    /* Implementation-specific events start here. */
    OMP_EVENT_THR_RESERVED_IMPL = 4096,
    OMP_EVENT_LAST
} OMP_COLLECTORAPI_EVENT;

/* This header carries the OpenUH task extension (events 23..35, requests 9 and 10). */
#define OMP_COLLECTOR_API_TASK_EXTENSION 1

/* The type of an event callback. */
typedef void (*omp_collector_callback_t)(OMP_COLLECTORAPI_EVENT event);

/*
 * Thread states answered by OMP_REQ_STATE.  The wait id that comes with a
 * state names the barrier instance (IBAR, EBAR) or the lock, critical,
 * ordered or atomic object (LKWT, CTWT, ODWT, ATWT); it is 0 otherwise.
 */
typedef enum {
    THR_OVHD_STATE = 1,   /* runtime overhead inside a parallel region */
    THR_WORK_STATE = 2,   /* user code inside a parallel region */
    THR_IBAR_STATE = 3,   /* waiting in an implicit barrier */
    THR_EBAR_STATE = 4,   /* waiting in an explicit barrier */
    THR_IDLE_STATE = 5,   /* worker waiting for the next parallel region */
    THR_SERIAL_STATE = 6, /* outside any parallel region */
    THR_REDUC_STATE = 7,  /* combining reduction results */
    THR_LKWT_STATE = 8,   /* waiting for an OpenMP lock */
    THR_CTWT_STATE = 9,   /* waiting to enter a critical region */
    THR_ODWT_STATE = 10,  /* waiting to enter an ordered region */
    THR_ATWT_STATE = 11,  /* waiting to enter an atomic region */
    THR_LAST_STATE
} OMP_COLLECTOR_API_THR_STATE;

/*
 * ompcollector's own extensions.
 *
 * Requests in a private range, far from Oracle's numbers and OpenUH's, so
 * that no other runtime can mean anything by them: every runtime without
 * them answers OMP_ERRCODE_UNKNOWN, which is how a client probes for them.
 * Like every request they answer OMP_ERRCODE_SEQUENCE_ERR outside a session.
 * Results are plain little-endian fields at fixed offsets of mem; mem need
 * only be 4-byte aligned (copy 8-byte fields bytewise, or memcpy into the
 * structs below).
 *
 *   OMPCOLLECTOR_REQ_SAMPLE  everything a sampler needs about the calling
 *       thread, in one request no dearer than STATE + CURRENT_PRID:
 *       an ompcollector_sample_t (48 bytes, rsz 48).  state, wait_id and
 *       region_id are what STATE and CURRENT_PRID answer.  wait_codeptr is
 *       the return address, in the program, of the construct the thread
 *       waits in: the barrier, critical, ordered, atomic or the lock call
 *       (0 when the state is not a wait or the runtime did not say; in
 *       WORK, see OMPCOLLECTOR_WAIT_HELD below);
 *       wait_object is the awaited object as the runtime's callbacks name
 *       it: for locks the omp_lock_t's address (a global lock resolves to
 *       its symbol), for critical, ordered and atomic the runtime's own
 *       lock object (equal to wait_id on libomp: one per construct, and per
 *       name for named criticals, which wait_codeptr then locates), 0 when
 *       the state is not such a wait.  region_codeptr is the return address
 *       of the innermost parallel construct (0 in serial code; in a
 *       team of a teams construct outside any parallel region inside it,
 *       the teams construct's, see OMPCOLLECTOR_REQ_REGION).  Valid in
 *       event callbacks too: in FORK and JOIN delivery it describes the
 *       region being forked or joined.  mem smaller than 48 bytes:
 *       OMP_ERRCODE_MEM_TOO_SMALL, rsz 48, nothing written.
 *       Async-signal-safe; any thread.
 *
 *   OMPCOLLECTOR_REQ_TASK_FRAMES  the calling thread's chain of task
 *       frames, innermost task first, up to the initial task, as OMPT's
 *       ompt_get_task_info reports it (ancestor levels follow the task
 *       tree): an ompcollector_task_frames_t header (count, and how many
 *       levels exist) followed by count ompcollector_task_frame_t (48
 *       bytes each).  For level i, exit_frame is the canonical frame
 *       address where the runtime called the task's code, and enter_frame
 *       where the task's code called into the runtime (0 while it runs its
 *       own code); stacks grow down, so a task's user frames lie below its
 *       exit_frame and above the enter_frame of the task it runs nested.
 *       Splicing a raw stack into the user's model, by each frame's
 *       address A, innermost first: keep A < exit[0]; drop exit[0] <= A <
 *       enter[1] (the runtime: task scheduling, barriers, fork); keep
 *       enter[1] <= A < exit[1]; drop exit[1] <= A < enter[2]; and so on;
 *       keep everything from the initial task's enter_frame on (main and
 *       its callers).  A level whose frames are 0 has none on this stack.
 *       On a worker thread the chain goes on past its implicit task into
 *       the tasks of the thread that forked the region: their frames lie on
 *       that thread's stack, where the user model continues (a sampler
 *       keeps the forking thread's stack from FORK, region_id says which
 *       region).  Levels that do not fit are left out:
 *       count < levels with OMP_ERRCODE_MEM_TOO_SMALL and rsz the size
 *       that would hold all.  0 levels (no task, or a thread the runtime
 *       does not know) is OK with count 0.  Async-signal-safe; any thread.
 *
 *   OMPCOLLECTOR_REQ_TASK_INFO  the task TASK_ID names on the calling
 *       thread (inside END_CREATE_TASK_IMM/DEL delivery the task just
 *       created), for a collector that tells tasks apart by their code:
 *       an ompcollector_task_info_t (24 bytes, rsz 24).  codeptr is the
 *       return address, in the program, of the task construct that made
 *       the task (task_create's codeptr_ra on OMPT: just after the
 *       __kmpc_omp_task_alloc or GOMP_task call; for a taskloop's tasks
 *       the taskloop), 0 for an implicit task or when the runtime did not
 *       say.  flags are OMPCOLLECTOR_TASK_* bits.  parts counts the runs
 *       the task has begun on a thread: 1 for a tied task once it
 *       started, one more for each part of an untied task (0 before it
 *       ran, as in creation delivery), so BEGIN_EXEC_TASK with parts 1 is
 *       its first run and BEGIN_FINISH_TASK with OMPCOLLECTOR_TASK_COMPLETING
 *       its last.  task_id is TASK_ID's answer (0 for no task; a merged
 *       task, which no runtime follows on its own, has id 0 but its
 *       codeptr in creation delivery).  mem smaller than 24 bytes:
 *       OMP_ERRCODE_MEM_TOO_SMALL, rsz 24, nothing written.
 *       Async-signal-safe; any thread.
 *
 *   OMPCOLLECTOR_REQ_TASK  the task TASK_ID names (inside END_CREATE_TASK
 *       delivery the one just created), with what a tracer logs of it in
 *       one request: an ompcollector_task_t (40 bytes, rsz 40).  id and
 *       parent_id are what TASK_ID and TASK_PID answer (0, not -1, for
 *       none); codeptr is the return address of the task construct that
 *       made an explicit task (task_create's codeptr_ra: the line of the
 *       pragma once symbolized; 0 for implicit tasks or when the runtime
 *       did not say); region_id is the region the calling thread is in,
 *       as CURRENT_PRID names it while the thread works (0 outside any);
 *       flags are the OMPT task flags the task was created with
 *       (ompt_task_explicit, ompt_task_undeferred, ompt_task_untied, ...;
 *       ompt_task_implicit for an implicit task).  No task: OK with id 0.
 *       mem smaller than 40 bytes: OMP_ERRCODE_MEM_TOO_SMALL, rsz 40,
 *       nothing written.  Async-signal-safe; any thread.
 *
 *   OMPCOLLECTOR_REQ_REGION  the region the calling thread works in (inside
 *       FORK and JOIN delivery the region forked or joined), with what the
 *       legacy API cannot say of it: its kind, for a collector that shows
 *       a teams construct and the parallel regions inside it as what the
 *       programmer wrote: an ompcollector_region_t (32 bytes, rsz 32).
 *       region_id is what CURRENT_PRID answers (0 outside any region, all
 *       else 0 too); codeptr is what SAMPLE's region_codeptr answers for
 *       it.  kind is OMPCOLLECTOR_REGION_*: PARALLEL for a parallel
 *       construct's team, LEAGUE for a teams construct's league (its
 *       threads are the teams' initial threads; OMPT's
 *       ompt_parallel_league), LEAGUE_TEAM for the region a runtime opens
 *       on a team's initial thread for the team itself (libomp: a team
 *       region with no code address whose parent is a league; its codeptr
 *       is the teams construct's, so code a team runs outside any inner
 *       parallel region counts for the teams construct), UNKNOWN where the
 *       runtime did not say (no OMPT flags, or the region began before the
 *       session).  teams_codeptr is the code address of the innermost
 *       teams construct the region runs in (0 when none or unknown): a
 *       parallel region inside a team of a league names its teams
 *       construct there.  flags are the OMPT parallel flags the runtime
 *       gave (0 unknown).  The legacy requests are unchanged by it, and a
 *       runtime without the request answers OMP_ERRCODE_UNKNOWN, so a
 *       collector takes every region for a parallel one there.  No
 *       runtime reports target regions run on the host as such (libomp 14
 *       answers ompt_set_never for ompt_callback_target): a target
 *       region's teams or parallel region is one of the kinds above, and
 *       a collector tells it by its code (an __omp_offloading_ entry).
 *       mem smaller than 32 bytes: OMP_ERRCODE_MEM_TOO_SMALL, rsz 32,
 *       nothing written.  Async-signal-safe; any thread.
 *
 *   wait_kind of OMPCOLLECTOR_REQ_SAMPLE (mem+4) tells the waits that one
 *   state stands for apart: OMPCOLLECTOR_WAIT_BARRIER for a barrier,
 *   OMPCOLLECTOR_WAIT_TASKWAIT and _TASKGROUP for a task's wait for its
 *   children or its taskgroup (which Oracle's numbering reports as EBAR,
 *   see OMPCOLLECTOR_TASKWAIT_STATE), OMPCOLLECTOR_WAIT_HELD in WORK while
 *   the thread holds a lock, critical, atomic or ordered (the outermost
 *   one it acquired, which wait_codeptr and wait_object then name as its
 *   wait would: the serialised body of that construct, measured apart
 *   from the rest of the work), OMPCOLLECTOR_WAIT_NONE otherwise.
 */
#define OMPCOLLECTOR_REQ_BASE 0x4F430000 /* 'O' 'C' << 16 */
#define OMPCOLLECTOR_REQ_SAMPLE (OMPCOLLECTOR_REQ_BASE + 1)
#define OMPCOLLECTOR_REQ_TASK_FRAMES (OMPCOLLECTOR_REQ_BASE + 2)
#define OMPCOLLECTOR_REQ_TASK_INFO (OMPCOLLECTOR_REQ_BASE + 3)
#define OMPCOLLECTOR_REQ_TASK (OMPCOLLECTOR_REQ_BASE + 4)
#define OMPCOLLECTOR_REQ_TASK_DEPENDENCE (OMPCOLLECTOR_REQ_BASE + 5)
#define OMPCOLLECTOR_REQ_REGION (OMPCOLLECTOR_REQ_BASE + 6)
#define OMPCOLLECTOR_REQ_END (OMPCOLLECTOR_REQ_BASE + 7) /* one past the last */

/*
 * ompcollector's own events, in a private range like its requests:
 * REGISTER them by these numbers (a runtime without them answers
 * OMP_ERRCODE_UNKNOWN, which is how a client probes for them), and the
 * callback is called with the same number.
 *
 *   OMPCOLLECTOR_EVENT_BEGIN_TASK_WAIT, OMPCOLLECTOR_EVENT_END_TASK_WAIT
 *       a task begins and ends waiting for its children in a taskwait, or
 *       for its taskgroup's tasks at the taskgroup's end (OMPT's
 *       sync_region_wait of kind taskwait or taskgroup), on the thread
 *       that runs it.  In either delivery TASK_ID (and
 *       OMPCOLLECTOR_REQ_TASK) names the waiting task; tasks the thread
 *       runs inside the wait come between BEGIN and END, and may wait
 *       themselves (the pairs nest).  A runtime without OMPT's
 *       sync_region_wait answers REGISTER with OMP_ERRCODE_UNSUPPORTED.
 *       The shim's part of the delivery is async-signal-safe, as for
 *       every event; the callback runs where the runtime's own callback
 *       runs.
 *
 *   OMPCOLLECTOR_EVENT_TASK_DEPENDENCE
 *       a dependence between two tasks from their depend clauses (OMPT's
 *       task_dependence): the sink may not start before the source
 *       completes.  Delivered on the thread creating the sink, as it is
 *       created and while the source is still pending (a source already
 *       complete makes no dependence); inside the delivery
 *       OMPCOLLECTOR_REQ_TASK_DEPENDENCE names both.  A runtime that does
 *       not report task_dependence answers REGISTER with
 *       OMP_ERRCODE_UNSUPPORTED.  Async-signal-safe as above.
 *
 *   OMPCOLLECTOR_REQ_TASK_DEPENDENCE  inside TASK_DEPENDENCE delivery, the
 *       dependence: an ompcollector_task_dependence_t (16 bytes, rsz 16),
 *       the source's and the sink's ids as TASK_ID names them (0 for a
 *       task the shim does not follow); outside that delivery both 0.
 *       mem smaller than 16 bytes: OMP_ERRCODE_MEM_TOO_SMALL, rsz 16,
 *       nothing written.  Async-signal-safe; any thread.
 *
 *   OMPCOLLECTOR_EVENT_TASK  every phase of an explicit task's life that a
 *       profiler counts or times, in one event whose callback gets the
 *       task with it: REGISTER it like any event, but with a function of
 *       type ompcollector_task_callback_t (cast to omp_collector_callback_t
 *       for the mem of REGISTER); the shim calls it as
 *       callback(phase, task), phase one of OMPCOLLECTOR_TASK_CREATE ..
 *       _RESUME below, task an ompcollector_task_event_t that is valid
 *       for the callback's duration only (copy what you keep).  Phases:
 *         CREATE   on the creating thread, once per task construct
 *                  executed, merged tasks too (id 0, flags MERGED);
 *                  parts 0.  UNDEFERRED in flags: it runs at once.
 *         BEGIN    a run of the task begins on this thread (parts 1: its
 *                  first; an untied task has one run per part); STOLEN
 *                  in flags when the thread is not the task's creator.
 *         END      that run ends; COMPLETING in flags when the task
 *                  completes with it.
 *         SUSPEND  the running explicit task leaves the thread for
 *         RESUME   another one at a scheduling point, and has it back.
 *       BEGIN/END and SUSPEND/RESUME are balanced as legacy pairs are: an
 *       END or RESUME is delivered only after its BEGIN or SUSPEND was,
 *       in the same session; PAUSE drops phases, STOP ends them, and a
 *       pair cut by either is not completed later.  Implicit tasks have no
 *       phases.  It replaces, for a collector that knows it, the 13 task
 *       extension events and the TASK_INFO round trip each of them needs:
 *       a task costs one delivery per phase (three for a task that runs
 *       once without suspending, against nine legacy events and three
 *       requests), with the construct, the ids and the flags in hand.
 *       Legacy events stay as they are, and both may be registered at
 *       once.  A runtime without it answers REGISTER with
 *       OMP_ERRCODE_UNKNOWN; one without OMPT task callbacks with
 *       OMP_ERRCODE_UNSUPPORTED.  The shim's part of the delivery is
 *       async-signal-safe; the callback runs where the runtime's own task
 *       callback runs.
 *
 *   OMPCOLLECTOR_EVENT_TASK_CREATE  OMPCOLLECTOR_EVENT_TASK's CREATE phase
 *       alone, with the same callback type and payload (phase always
 *       OMPCOLLECTOR_TASK_CREATE).  Why a second event: a collector that
 *       counts tasks per construct and takes their time from samples
 *       needs one delivery per task, not three; with this one registered
 *       and OMPCOLLECTOR_EVENT_TASK not, the shim does not build or
 *       deliver the BEGIN, END, SUSPEND and RESUME phases at all (one
 *       load tests for them).  Registering both gets CREATE once from
 *       each.  Answers as OMPCOLLECTOR_EVENT_TASK's (UNKNOWN on other
 *       runtimes, UNSUPPORTED without OMPT task callbacks).
 *
 *   OMPCOLLECTOR_EVENT_TASK_LOG  the phases a collector that logs task
 *       runs needs, and no others, with the same callback type and
 *       payload: CREATE, BEGIN and END as OMPCOLLECTOR_EVENT_TASK gives
 *       them, no SUSPEND or RESUME, and besides
 *         WAIT_BEGIN  the task the thread runs begins a task wait (a
 *         WAIT_END    taskwait, or the end of a taskgroup), and ends it;
 *                     the payload is the waiting task, explicit or
 *                     implicit (IMPLICIT in flags, codeptr 0), as
 *                     OMPCOLLECTOR_EVENT_BEGIN/END_TASK_WAIT's delivery
 *                     would name it through OMPCOLLECTOR_REQ_TASK.
 *       Why a third event: a log of every run (a task graph, a trace)
 *       reads a run's nesting from its BEGINs and ENDs, so SUSPEND and
 *       RESUME are a delivery each for nothing, and a task wait delivered
 *       without its task costs a request to name it (two of each per task
 *       in a recursive program).  Pairs are balanced per event: this
 *       event's END or WAIT_END only after its own BEGIN or WAIT_BEGIN, in
 *       the same session, whatever else is registered.  A wait of a task
 *       the shim does not follow is not delivered.  Answers REGISTER as
 *       OMPCOLLECTOR_EVENT_TASK's; registering it with the others gets
 *       each phase once from each.
 */
#define OMPCOLLECTOR_EVENT_BASE 0x4F430000 /* 'O' 'C' << 16, as the requests */
#define OMPCOLLECTOR_EVENT_BEGIN_TASK_WAIT (OMPCOLLECTOR_EVENT_BASE + 1)
#define OMPCOLLECTOR_EVENT_END_TASK_WAIT (OMPCOLLECTOR_EVENT_BASE + 2)
#define OMPCOLLECTOR_EVENT_TASK_DEPENDENCE (OMPCOLLECTOR_EVENT_BASE + 3)
#define OMPCOLLECTOR_EVENT_TASK (OMPCOLLECTOR_EVENT_BASE + 4)
#define OMPCOLLECTOR_EVENT_TASK_CREATE (OMPCOLLECTOR_EVENT_BASE + 5)
#define OMPCOLLECTOR_EVENT_TASK_LOG (OMPCOLLECTOR_EVENT_BASE + 6)
#define OMPCOLLECTOR_EVENT_END (OMPCOLLECTOR_EVENT_BASE + 7) /* one past the last */

/* The phases OMPCOLLECTOR_EVENT_TASK's callback is called with. */
#define OMPCOLLECTOR_TASK_CREATE 1
#define OMPCOLLECTOR_TASK_BEGIN 2
#define OMPCOLLECTOR_TASK_END 3
#define OMPCOLLECTOR_TASK_SUSPEND 4
#define OMPCOLLECTOR_TASK_RESUME 5
#define OMPCOLLECTOR_TASK_WAIT_BEGIN 6 /* OMPCOLLECTOR_EVENT_TASK_LOG only */
#define OMPCOLLECTOR_TASK_WAIT_END 7

/* What OMPCOLLECTOR_EVENT_TASK's callback gets with each phase. */
typedef struct ompcollector_task_event {
    unsigned long long id;        /* +0: TASK_ID's id of the task, 0 for one the shim does not follow (merged) */
    unsigned long long parent_id; /* +8: the task that created it, 0 none */
    unsigned long long codeptr;   /* +16: the task construct's return address, 0 unknown */
    unsigned long long region_id; /* +24: the calling thread's region, as CURRENT_PRID names it while it works */
    int flags;                    /* +32: OMPCOLLECTOR_TASK_* */
    int parts;                    /* +36: as ompcollector_task_info_t's */
} ompcollector_task_event_t;

/* The real type of OMPCOLLECTOR_EVENT_TASK's callback. */
typedef void (*ompcollector_task_callback_t)(int phase, const ompcollector_task_event_t *task);

/* What a sample's wait is (ompcollector_sample_t.wait_kind). */
#define OMPCOLLECTOR_WAIT_NONE 0
#define OMPCOLLECTOR_WAIT_BARRIER 1
#define OMPCOLLECTOR_WAIT_TASKWAIT 2
#define OMPCOLLECTOR_WAIT_TASKGROUP 3
#define OMPCOLLECTOR_WAIT_HELD 4 /* not a wait: WORK holding a lock, critical, atomic or ordered */

/* What OMPCOLLECTOR_REQ_SAMPLE writes at mem+0. */
typedef struct ompcollector_sample {
    int state;                          /* mem+0: an OMP_COLLECTOR_API_THR_STATE */
    int wait_kind;                      /* mem+4: OMPCOLLECTOR_WAIT_* */
    unsigned long long wait_id;         /* mem+8 */
    unsigned long long region_id;       /* mem+16 */
    unsigned long long wait_codeptr;    /* mem+24 */
    unsigned long long wait_object;     /* mem+32 */
    unsigned long long region_codeptr;  /* mem+40 */
} ompcollector_sample_t;

/* What OMPCOLLECTOR_REQ_TASK_FRAMES writes at mem+0 ... */
typedef struct ompcollector_task_frames {
    int count;  /* levels written after this header */
    int levels; /* levels there are */
} ompcollector_task_frames_t;

/* ... followed by `count` of these, innermost task first. */
typedef struct ompcollector_task_frame {
    unsigned long long exit_frame;     /* +0 */
    unsigned long long enter_frame;    /* +8 */
    int exit_frame_flags;              /* +16: OMPT frame flags */
    int enter_frame_flags;             /* +20 */
    int task_flags;                    /* +24: OMPT task flags (initial, implicit, explicit...) */
    int thread_num;                    /* +28: the thread's number in the task's team */
    unsigned long long region_id;      /* +32: the region the task belongs to, as CURRENT_PRID names it (0 if unknown) */
    unsigned long long region_codeptr; /* +40: that region's parallel construct (0 if unknown) */
} ompcollector_task_frame_t;

/* What OMPCOLLECTOR_REQ_TASK_INFO writes at mem+0. */
typedef struct ompcollector_task_info {
    unsigned long long task_id; /* +0: TASK_ID's answer, 0 for none */
    unsigned long long codeptr; /* +8: the task construct's return address, 0 unknown */
    int flags;                  /* +16: OMPCOLLECTOR_TASK_* */
    int parts;                  /* +20: runs begun on a thread */
} ompcollector_task_info_t;

/* ompcollector_task_info_t.flags. */
#define OMPCOLLECTOR_TASK_IMPLICIT 0x1   /* an implicit task (codeptr 0) */
#define OMPCOLLECTOR_TASK_UNDEFERRED 0x2 /* undeferred or included: ran at once on its creator */
#define OMPCOLLECTOR_TASK_UNTIED 0x4
#define OMPCOLLECTOR_TASK_COMPLETING 0x8 /* in its last FINISH: the task completes, not just a part */
#define OMPCOLLECTOR_TASK_MERGED 0x10    /* merged into its creator: never runs on its own */
#define OMPCOLLECTOR_TASK_STOLEN 0x20    /* OMPCOLLECTOR_EVENT_TASK's BEGIN: run by a thread other than its creator */

/* What OMPCOLLECTOR_REQ_TASK writes at mem+0. */
typedef struct ompcollector_task {
    unsigned long long id;        /* mem+0: TASK_ID's task, 0 for none */
    unsigned long long parent_id; /* mem+8: TASK_PID's, 0 for none */
    unsigned long long codeptr;   /* mem+16: the task construct's return address, 0 unknown */
    unsigned long long region_id; /* mem+24: the calling thread's region, 0 outside any */
    int flags;                    /* mem+32: OMPT task flags */
    int reserved;                 /* mem+36: 0 */
} ompcollector_task_t;

/* What OMPCOLLECTOR_REQ_TASK_DEPENDENCE writes at mem+0. */
typedef struct ompcollector_task_dependence {
    unsigned long long source_id; /* mem+0: the task the sink waits for */
    unsigned long long sink_id;   /* mem+8: the task that waits */
} ompcollector_task_dependence_t;

/* What OMPCOLLECTOR_REQ_REGION writes at mem+0. */
typedef struct ompcollector_region {
    unsigned long long region_id;     /* mem+0: CURRENT_PRID's answer, 0 outside any region */
    unsigned long long codeptr;       /* mem+8: the construct's return address, 0 unknown */
    unsigned long long teams_codeptr; /* mem+16: the enclosing teams construct's, 0 none or unknown */
    int kind;                         /* mem+24: OMPCOLLECTOR_REGION_* */
    int flags;                        /* mem+28: OMPT parallel flags, 0 unknown */
} ompcollector_region_t;

/* ompcollector_region_t.kind. */
#define OMPCOLLECTOR_REGION_UNKNOWN 0
#define OMPCOLLECTOR_REGION_PARALLEL 1
#define OMPCOLLECTOR_REGION_LEAGUE 2
#define OMPCOLLECTOR_REGION_LEAGUE_TEAM 3

/* The entry point itself, for collectors that link against ompcollector. */
int __omp_collector_api(void *arg);

#ifdef __cplusplus
}
#endif

#endif /* OMP_COLLECTOR_API_H */
