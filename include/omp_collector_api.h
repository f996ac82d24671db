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
 *                        runtime cannot produce: OMP_ERRCODE_UNSUPPORTED;
 *                        NULL callback: OMP_ERRCODE_ERROR.  Registering an
 *                        event again replaces its callback.  Any thread.
 *                        Not async-signal-safe.
 *   OMP_REQ_UNREGISTER   mem+0: the event (int).  Unregistering an event
 *                        that has no callback is accepted and ignored.
 *                        Any thread.  Not async-signal-safe.
 *   OMP_REQ_STATE        writes the thread state (int) at mem+0 and the
 *                        8-byte wait id at mem+4: rsz 12.  With only 4 bytes
 *                        of mem the state is still written, ec is
 *                        OMP_ERRCODE_MEM_TOO_SMALL and rsz is 12.  Any
 *                        thread.  Async-signal-safe.
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
    /* Implementation-specific events start here. */
    OMP_EVENT_THR_RESERVED_IMPL = 4096,
    OMP_EVENT_LAST
} OMP_COLLECTORAPI_EVENT;

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

/* The entry point itself, for collectors that link against ompcollector. */
int __omp_collector_api(void *arg);

#ifdef __cplusplus
}
#endif

#endif /* OMP_COLLECTOR_API_H */
