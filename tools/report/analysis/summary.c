/* summary.c - gathers one process's threads, regions and waits from the model once, for every format of the report. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "omp_collector_api.h"
#include "sort.h"
#include "summary.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int ompc_thread_sampled_in_openmp(const struct ompc_model_thread *thread)
{
    for (int state = 1; state < OMPC_NSTATES; state++)
        if (state != THR_SERIAL_STATE && thread->state_ticks[state] != 0)
            return 1;
    return 0;
}

/* The runtime reported the thread: it is the initial one, had an event, or was sampled in an OpenMP state. */
int ompc_thread_is_openmp(const struct ompc_model_thread *thread)
{
    if (thread->initial)
        return 1;
    for (int event = 1; event < OMPC_NEVENTS; event++)
        if (thread->events[event] != 0)
            return 1;
    return ompc_thread_sampled_in_openmp(thread);
}


/* qsort order that puts equal (state, wait id) pairs next to each other for merging. */
static int compare_wait_keys(const void *a, const void *b)
{
    const struct merged_wait *x = a, *y = b;
    if (x->state != y->state)
        return (x->state > y->state) - (x->state < y->state);
    return (x->id > y->id) - (x->id < y->id);
}

/* qsort order for waits: most samples first. */
static int compare_wait_ticks(const void *a, const void *b)
{
    const struct merged_wait *x = a, *y = b;
    if (x->ticks != y->ticks)
        return (x->ticks < y->ticks) - (x->ticks > y->ticks);
    return compare_wait_keys(a, b);
}


/* The samples inside MPI_Init and MPI_Init_thread, which come before the program's first parallel region. */
static uint64_t mpi_init_ticks(const struct ompc_model_process *process)
{
    uint64_t ticks = 0;
    for (uint32_t i = 0; i < process->mpi_site_count; i++)
        if (process->mpi_sites[i].call == OMPC_MPI_Init || process->mpi_sites[i].call == OMPC_MPI_Init_thread)
            ticks += process->mpi_sites[i].ticks;
    return ticks;
}

/* The wait ids merged over the threads, most samples first; 0, or -1 when memory ran out. */
static int merge_waits(const struct ompc_model_process *process, struct summary *summary)
{
    size_t capacity = 1;
    for (int i = 0; i < summary->thread_count; i++)
        capacity += process->threads[i].wait_count;
    struct merged_wait *all = malloc(capacity * sizeof *all);
    if (all == NULL)
        return -1;
    size_t used = 0;
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        summary->wait_overflow_ticks += thread->wait_overflow_ticks;
        for (uint32_t slot = 0; slot < thread->wait_count; slot++) {
            const struct ompc_model_wait *wait = &thread->waits[slot];
            uint32_t state = wait->state;
            /*
             * Barrier entries (code address only) belong to "Waits by location", not to the wait ids;
             * a WORK row is a body held, no wait (record.h), counted by the wait row it names.
             */
            if (state == 0 || state == THR_EBAR_STATE || state == THR_IBAR_STATE || state == THR_WORK_STATE)
                continue;
            all[used++] = (struct merged_wait){(int)state, wait->id, wait->ticks, 1};
        }
    }
    ompc_qsort(all, used, sizeof *all, compare_wait_keys);
    size_t merged = 0;
    for (size_t i = 0; i < used; i++) {
        if (merged > 0 && compare_wait_keys(&all[merged - 1], &all[i]) == 0) {
            all[merged - 1].ticks += all[i].ticks;
            all[merged - 1].threads++;
        } else {
            all[merged++] = all[i];
        }
    }
    ompc_qsort(all, merged, sizeof *all, compare_wait_ticks);
    summary->waits = all;
    summary->wait_count = (int)merged;
    return 0;
}

/* Gathers threads, regions and waits; returns -1 when memory runs out. */
int ompc_summarise(const struct ompc_report *report, struct summary *summary)
{
    const struct ompc_model_process *process = report->process;
    memset(summary, 0, sizeof *summary);
    summary->report = report;
    summary->process = process;
    summary->thread_count = process->thread_count;
    uint64_t init_ticks = mpi_init_ticks(process);
    if (summary->thread_count < 0 || summary->thread_count > OMPC_MAX_THREADS)
        summary->thread_count = OMPC_MAX_THREADS;
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        if (!ompc_thread_is_openmp(thread)) {
            summary->other_ticks += thread_ticks(thread);
            continue;
        }
        summary->openmp_threads++;
        /* From when the collector's session began: its own start-up is not the program's serial code. */
        if (!thread->initial && report->interval_ns > 0 && thread_birth_ns(thread) > process->session_ns) {
            uint64_t before = (thread_birth_ns(thread) - process->session_ns) / (uint64_t)report->interval_ns;
            /* While the initial thread was in MPI_Init the worker waited for MPI to start, not for serial code. */
            uint64_t in_init = before < init_ticks ? before : init_ticks;
            summary->before_threads += before - in_init;
            summary->mpi_before_threads += in_init;
        }
        for (int state = 0; state < OMPC_NSTATES; state++) {
            uint64_t ticks = thread->state_ticks[state];
            summary->state_ticks[state] += ticks;
            summary->total_ticks += ticks;
        }
        summary->mpi_ticks += thread->mpi_ticks;
        summary->mpi_idle_ticks += thread->mpi_idle_ticks;
        summary->total_ticks += thread->mpi_ticks;
        summary->mpi_ns += thread->mpi_ns;
        summary->mpi_calls += thread->mpi_calls;
    }

    summary->regions = malloc((process->region_count + 1) * sizeof *summary->regions);
    if (summary->regions == NULL)
        return -1;
    for (uint32_t i = 0; i < process->region_count; i++)
        summary->regions[summary->region_count++] = &process->regions[i];
    /* The totals count every instance, also those past the region table. */
    summary->forks = process->forks;
    summary->joins = process->joins;
    summary->outermost_ns = process->outermost_ns;
    ompc_qsort(summary->regions, (size_t)summary->region_count, sizeof *summary->regions,
          compare_region_ids);

    if (merge_waits(process, summary) != 0)
        return -1;
    summary->limit_count = ompc_limits_reached(process, report->event_log_bytes, summary->limits);
    if (ompc_locations_build(process, &summary->locations) != 0)
        return -1;
    struct ompc_advice_input input = {report, process, &summary->locations, summary->thread_count,
                                      summary->openmp_threads, summary->state_ticks, summary->total_ticks,
                                      summary->mpi_ticks, summary->before_threads, summary->mpi_idle_ticks,
                                      summary->mpi_before_threads};
    return ompc_advice_build(&input, &summary->advice);
}

/* Frees what summarise allocated; safe on a half-built summary. */
void ompc_summary_release(struct summary *summary)
{
    free(summary->regions);
    free(summary->waits);
    ompc_locations_free(&summary->locations);
    ompc_advice_free(&summary->advice);
}

/* Name of what became of sampling. */
const char *ompc_sampling_status_name(uint32_t status)
{
    static const char *const names[] = {"off", "on", "no-signal", "replaced", "default-action"};
    return status < sizeof names / sizeof names[0] ? names[status] : "?";
}

/* Real-time signals by their distance from SIGRTMIN or SIGRTMAX, others by their usual names. */
const char *ompc_signal_name(int number, char *buffer, size_t size)
{
    static const struct {
        int number;
        const char *name;
    } names[] = {{SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
                 {SIGILL, "SIGILL"},   {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
                 {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"},
                 {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
                 {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
                 {SIGCHLD, "SIGCHLD"}, {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"},
                 {SIGPROF, "SIGPROF"}, {SIGSYS, "SIGSYS"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].number == number) {
            snprintf(buffer, size, "%s", names[i].name);
            return buffer;
        }
    if (number == SIGRTMAX)
        snprintf(buffer, size, "SIGRTMAX");
    else if (number >= SIGRTMIN && number < SIGRTMAX && number - SIGRTMIN <= SIGRTMAX - number)
        snprintf(buffer, size, "SIGRTMIN+%d", number - SIGRTMIN);
    else if (number > SIGRTMIN && number < SIGRTMAX)
        snprintf(buffer, size, "SIGRTMAX-%d", SIGRTMAX - number);
    else if (number == SIGRTMIN)
        snprintf(buffer, size, "SIGRTMIN");
    else
        snprintf(buffer, size, "signal %d", number);
    return buffer;
}


/* What the threads' event logs (--trace) hold and what did not fit: returns the threads that dropped any. */
int ompc_event_log_totals(const struct ompc_model_process *process, uint64_t *recorded, uint64_t *dropped)
{
    int threads = 0, count = process->thread_count;
    *recorded = 0;
    *dropped = process->untracked.event_log_dropped;
    for (int i = 0; i < count && i < OMPC_MAX_THREADS; i++) {
        uint64_t lost = process->threads[i].event_log_dropped;
        *recorded += process->threads[i].event_log_length;
        *dropped += lost;
        threads += lost != 0;
    }
    return threads;
}


/* The uncontended waits the threads took out of their event logs again (OMPC_SHORT_WAIT_NS): how many, and their time. */
void ompc_short_wait_totals(const struct ompc_model_process *process, uint64_t *count, uint64_t *ns)
{
    *count = process->untracked.short_waits;
    *ns = process->untracked.short_wait_ns;
    for (int i = 0; i < process->thread_count; i++) {
        *count += process->threads[i].short_waits;
        *ns += process->threads[i].short_wait_ns;
    }
}
