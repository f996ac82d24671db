/* report.c - turns one process's record into the text, CSV or JSON report, in the launcher after the process ended. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "csv.h"
#include "csvdir.h"
#include "jsonw.h"
#include "locations.h"
#include "omp_collector_api.h"
#include "report.h"
#include "sort.h"
#include "stacks.h"
#include "tasks.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* How many rows the text report shows before summarising the rest. */
#define TEXT_REGION_ROWS 15
#define TEXT_WAIT_ROWS 10
#define TEXT_BLOCKED_ROWS 5

/* One object wait id, merged over every thread that waited for it. */
struct merged_wait {
    int state;
    uint64_t id;
    uint64_t ticks;
    int threads;
};

/* Everything derived once from the record, shared by all formats. */
struct summary {
    const struct ompc_report *report;
    const struct ompc_model_process *process;
    int thread_count;      /* every thread slot */
    int openmp_threads;    /* those the runtime reported; the totals are theirs */
    uint64_t other_ticks;  /* samples of the others */
    uint64_t total_ticks;
    uint64_t state_ticks[OMPC_NSTATES];
    const struct ompc_model_region **regions; /* by id */
    int region_count;
    uint64_t forks, joins, outermost_ns;
    struct merged_wait *waits; /* most samples first */
    int wait_count;
    uint64_t wait_overflow_ticks;
    struct ompc_locations locations; /* constructs and waits by code address, symbolized */
};

/* Samples over all states (and invalid answers) of a thread's or region's counters. */
static uint64_t state_total(const uint64_t *ticks)
{
    uint64_t total = 0;
    for (int state = 0; state < OMPC_NSTATES; state++)
        total += ticks[state];
    return total;
}

/* Samples of a thread, all states together. */
static uint64_t thread_ticks(const struct ompc_model_thread *thread)
{
    return state_total(thread->state_ticks);
}

/* The runtime reported the thread: it is the initial one, had an event, or was sampled in an OpenMP state. */
int ompc_thread_is_openmp(const struct ompc_model_thread *thread)
{
    if (thread->initial)
        return 1;
    for (int event = 1; event < OMPC_NEVENTS; event++)
        if (thread->events[event] != 0)
            return 1;
    for (int state = 1; state < OMPC_NSTATES; state++)
        if (state != THR_SERIAL_STATE && thread->state_ticks[state] != 0)
            return 1;
    return 0;
}

/* How long the thread was sampled: from its slot's claim to its exit or the end of the record. */
static uint64_t thread_lifetime_ns(const struct ompc_model_thread *thread)
{
    uint64_t end = thread->end_ns;
    return end > thread->start_ns ? end - thread->start_ns : 0;
}

/* Samples the thread's lifetime allows at the configured interval. */
static uint64_t thread_expected_ticks(const struct ompc_report *report, const struct ompc_model_thread *thread)
{
    return report->interval_ns > 0 ? thread_lifetime_ns(thread) / (uint64_t)report->interval_ns : 0;
}

/* Samples taken inside a region, all states together. */
static uint64_t region_ticks(const struct ompc_model_region *region)
{
    return state_total(region->ticks);
}

/* Threads seen in a region, from its bit mask of thread slots. */
static int popcount64(uint64_t value)
{
    int count = 0;
    for (; value != 0; value &= value - 1)
        count++;
    return count;
}

/* Events of one kind, all threads together. */
static uint64_t event_count(const struct summary *summary, int event)
{
    uint64_t total = summary->process->untracked.events[event];
    for (int i = 0; i < summary->thread_count; i++)
        total += summary->process->threads[i].events[event];
    return total;
}

/* Time spent between the BEGIN and END of a pair, all threads together. */
static uint64_t pair_time_ns(const struct summary *summary, int pair)
{
    uint64_t total = 0;
    for (int i = 0; i < summary->thread_count; i++)
        total += summary->process->threads[i].pair_ns[pair];
    return total;
}

/* qsort order for regions: by id, the order they were forked in. */
static int compare_region_ids(const void *a, const void *b)
{
    uint64_t x = (*(const struct ompc_model_region *const *)a)->id;
    uint64_t y = (*(const struct ompc_model_region *const *)b)->id;
    return (x > y) - (x < y);
}

/* qsort order for the text report: longest FORK-to-JOIN first. */
static int compare_region_times(const void *a, const void *b)
{
    uint64_t x = (*(const struct ompc_model_region *const *)a)->time_ns;
    uint64_t y = (*(const struct ompc_model_region *const *)b)->time_ns;
    if (x != y)
        return (x < y) - (x > y);
    return compare_region_ids(a, b);
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

/* Gathers threads, regions and waits; returns -1 when memory runs out. */
static int summarise(const struct ompc_report *report, struct summary *summary)
{
    const struct ompc_model_process *process = report->process;
    memset(summary, 0, sizeof *summary);
    summary->report = report;
    summary->process = process;
    summary->thread_count = process->thread_count;
    if (summary->thread_count < 0 || summary->thread_count > OMPC_MAX_THREADS)
        summary->thread_count = OMPC_MAX_THREADS;
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        if (!ompc_thread_is_openmp(thread)) {
            summary->other_ticks += thread_ticks(thread);
            continue;
        }
        summary->openmp_threads++;
        for (int state = 0; state < OMPC_NSTATES; state++) {
            uint64_t ticks = thread->state_ticks[state];
            summary->state_ticks[state] += ticks;
            summary->total_ticks += ticks;
        }
    }

    summary->regions = malloc(OMPC_MAX_REGIONS * sizeof *summary->regions);
    if (summary->regions == NULL)
        return -1;
    for (int i = 0; i < OMPC_MAX_REGIONS; i++) {
        const struct ompc_model_region *region = &process->regions[i];
        if (region->id == 0)
            continue;
        summary->regions[summary->region_count++] = region;
        summary->forks += region->forks;
        summary->joins += region->joins;
        if (region->parent == 0)
            summary->outermost_ns += region->time_ns;
    }
    summary->forks += process->regions_overflow_forks;
    summary->outermost_ns += process->regions_overflow_ns;
    ompc_qsort(summary->regions, (size_t)summary->region_count, sizeof *summary->regions,
          compare_region_ids);

    size_t capacity = (size_t)summary->thread_count * OMPC_WAIT_SLOTS + 1;
    struct merged_wait *all = malloc(capacity * sizeof *all);
    if (all == NULL)
        return -1;
    size_t used = 0;
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        summary->wait_overflow_ticks += thread->wait_overflow_ticks;
        for (int slot = 0; slot < OMPC_WAIT_SLOTS; slot++) {
            const struct ompc_model_wait *wait = &thread->waits[slot];
            uint32_t state = wait->state;
            /* Barrier entries (code address only) belong to "Waits by location", not to the wait ids. */
            if (state == 0 || state == THR_EBAR_STATE || state == THR_IBAR_STATE)
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
    return ompc_locations_build(process, &summary->locations);
}

/* Frees what summarise allocated; safe on a half-built summary. */
static void release_summary(struct summary *summary)
{
    free(summary->regions);
    free(summary->waits);
    ompc_locations_free(&summary->locations);
}

/* Name of what became of sampling. */
static const char *sampling_status_name(uint32_t status)
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

/* ---- text ---- */

/* A share as a fixed-width cell; exact zero prints "." so the busy cells stand out. */
static void text_share(FILE *out, uint64_t part, uint64_t whole)
{
    if (part == 0 || whole == 0)
        fprintf(out, " %5s", ".");
    else
        fprintf(out, " %5.1f", 100.0 * (double)part / (double)whole);
}

/* The 11 state names as column headings, in the header's numeric order. */
static void text_state_header(FILE *out)
{
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, " %5s", ompc_state_name(state));
    fputc('\n', out);
}

/* The up-to-three biggest states of a region, as "WORK 51%, IBAR 37%". */
static void text_main_states(FILE *out, const struct ompc_model_region *region)
{
    uint64_t total = region_ticks(region);
    int shown[3] = {0, 0, 0};
    for (int rank = 0; rank < 3; rank++) {
        int best = 0;
        uint64_t best_ticks = 0;
        for (int state = 0; state < OMPC_NSTATES; state++) {
            uint64_t ticks = region->ticks[state];
            if (ticks > best_ticks && state != shown[0] && state != shown[1]) {
                best = state;
                best_ticks = ticks;
            }
        }
        if (best_ticks == 0 || (rank > 0 && best_ticks * 100 < total))
            break;
        shown[rank] = best;
        fprintf(out, "%s%s %.0f%%", rank ? ", " : "", ompc_state_name(best),
                100.0 * (double)best_ticks / (double)total);
    }
    if (total == 0)
        fputs("-", out);
}

/* For --list-regions: the construct an instance was forked at, after its states ("  at solve solver.c:15"). */
static void text_region_construct(const struct ompc_locations *locations, uint64_t codeptr, FILE *out)
{
    char label[512];
    for (int i = 0; codeptr != 0 && i < locations->construct_count; i++)
        if (locations->constructs[i].codeptr == codeptr) {
            fprintf(out, "  at %s", ompc_location_label(&locations->constructs[i].where, codeptr, label,
                                                        sizeof label));
            return;
        }
}

/* What happened to sampling, when anything did: the signal's owner, blocked threads, losses. */
static void text_sampling_notes(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    char name[32];
    ompc_signal_name(process->sample_signal, name, sizeof name);
    uint32_t status = process->sampling;
    uint64_t stopped = process->sampling_stopped_ns;
    if (status == OMPC_SAMPLING_NO_SIGNAL)
        fputs("  no samples: every real-time signal was handled or blocked by the program, so "
              "none was free to sample with\n",
              out);
    else if (status == OMPC_SAMPLING_REPLACED)
        fprintf(out, "  sampling stopped at %.3f s: the program replaced ompcollect's handler for %s "
                     "without sigaction or signal (a raw system call); later samples are missing\n",
                stopped / 1e9, name);
    else if (status == OMPC_SAMPLING_DEFAULT)
        fprintf(out, "  sampling stopped at %.3f s: %s reached the program with its default action "
                     "(which ends the process)\n",
                stopped / 1e9, name);
    uint64_t installed = process->program_handler_ns;
    uint64_t passed = process->signals_passed;
    if (installed != 0)
        fprintf(out, "  the program installed its own handler for %s at %.3f s: the %" PRIu64
                     " signals not from ompcollect's timers went to it, and sampling went on\n",
                name, installed / 1e9, passed);
    else if (passed != 0)
        fprintf(out, "  %" PRIu64 " deliveries of %s did not come from ompcollect's timers; they "
                     "got the program's own disposition\n",
                passed, name);
    int shown = 0;
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        uint64_t blocked = thread->blocked_ns;
        if (blocked == 0 && thread->blocked_ticks == 0)
            continue;
        if (shown++ < TEXT_BLOCKED_ROWS)
            fprintf(out, "  thread %d blocked %s for %.3f s: %" PRIu64 " samples missed\n", i, name,
                    blocked / 1e9,
                    report->interval_ns > 0 ? blocked / (uint64_t)report->interval_ns : 0);
    }
    if (shown > TEXT_BLOCKED_ROWS)
        fprintf(out, "  ... %d more threads blocked %s\n", shown - TEXT_BLOCKED_ROWS, name);
}

/* The header: who, where, on which runtime, how long, how it ended. */
static void text_header(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    fprintf(out, "ompcollect report: %s (pid %ld", report->program, (long)process->pid);
    if (report->rank >= 0)
        fprintf(out, ", rank %d", report->rank);
    fprintf(out, ", host %s)\n", report->host);
    if (report->relation != NULL && report->relation[0] != '\0')
        fprintf(out, "  %s\n", report->relation);
    if (report->runtime_path != NULL && report->runtime_path[0] != '\0') {
        fprintf(out, "  runtime %s", report->runtime_file);
        if (report->runtime_version != NULL && report->runtime_version[0] != '\0')
            fprintf(out, " (%s)", report->runtime_version);
        if (report->runtime_why != NULL && report->runtime_why[0] != '\0')
            fprintf(out, ", %s", report->runtime_why);
        fputc('\n', out);
    }
    fprintf(out, "  wall %.3f s, ", report->wall_ns / 1e9);
    if (report->sampling && process->sample_signal != 0) {
        char name[32];
        fprintf(out, "sampling every %.3g ms with %s, ", report->interval_ns / 1e6,
                ompc_signal_name(process->sample_signal, name, sizeof name));
    } else if (report->sampling) {
        fprintf(out, "sampling every %.3g ms, ", report->interval_ns / 1e6);
    } else {
        fputs("sampling off, ", out);
    }
    fprintf(out, "%d threads, %" PRIu64 " samples, %" PRIu64 " parallel regions forked\n",
            summary->openmp_threads, summary->total_ticks, summary->forks);
    if (!report->complete)
        fprintf(out, "  incomplete: %s\n", report->fate);
    if (report->sampling)
        text_sampling_notes(summary, out);
    if (process->processes_dropped != 0)
        fprintf(out, "  %u further processes found no free record slot (limit %d) and are not "
                     "reported\n",
                process->processes_dropped, OMPC_MAX_PROCESSES);
    if (process->damage.count != 0)
        fprintf(out, "  record damaged (%lu finding%s; what did not hold was ignored or clamped): %s\n",
                process->damage.count, process->damage.count == 1 ? "" : "s", process->damage.text);
}

/* What the threads' event logs (--trace) hold and what did not fit: returns the threads that dropped any. */
static int event_log_totals(const struct ompc_model_process *process, uint64_t *recorded, uint64_t *dropped)
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

/* The thread table: each thread's share of its samples in every state, then the whole process's. */
static void text_thread_table(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    fputs("\nWhere each thread spent its time (% of its samples; . = none):\n", out);
    fprintf(out, "  %-7s %7s %8s %5s", "thread", "tid", "samples", "cover");
    text_state_header(out);
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        uint64_t ticks = thread_ticks(thread);
        uint64_t expected = thread_expected_ticks(report, thread);
        char label[16], cover[16];
        snprintf(label, sizeof label, "%d%s", i,
                 thread->initial ? "*" : ompc_thread_is_openmp(thread) ? "" : "-");
        if (expected > 0)
            snprintf(cover, sizeof cover, "%.0f%%", 100.0 * (double)ticks / (double)expected);
        else
            snprintf(cover, sizeof cover, "-");
        fprintf(out, "  %-7s %7ld %8" PRIu64 " %5s", label, (long)thread->tid, ticks, cover);
        for (int state = 1; state < OMPC_NSTATES; state++)
            text_share(out, thread->state_ticks[state], ticks);
        fputc('\n', out);
    }
    fprintf(out, "  %-7s %7s %8" PRIu64 " %5s", "all", "", summary->total_ticks, "");
    for (int state = 1; state < OMPC_NSTATES; state++)
        text_share(out, summary->state_ticks[state], summary->total_ticks);
    fputs("\n  (* initial thread; cover = samples x interval / time the thread was sampled)\n",
          out);
    if (summary->openmp_threads < summary->thread_count)
        fputs("  (- a thread the OpenMP runtime never reported, e.g. an MPI progress thread or "
              "the program's own: not in 'all' nor in the totals)\n",
              out);
    if (summary->state_ticks[0] != 0)
        fprintf(out, "  %" PRIu64 " samples got no valid state from STATE\n",
                summary->state_ticks[0]);
}

/* The region instances, longest first (or in fork order, all of them, for --list-regions). */
static void text_region_rows(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_region **by_time = malloc((size_t)summary->region_count * sizeof *by_time);
    if (by_time == NULL)
        return;
    memcpy(by_time, summary->regions, (size_t)summary->region_count * sizeof *by_time);
    if (!report->list_regions)
        ompc_qsort(by_time, (size_t)summary->region_count, sizeof *by_time, compare_region_times);
    fprintf(out, "  %8s %8s %5s %5s %10s %7s %8s  %s\n", "region", "parent", "forks",
            "joins", "time ms", "threads", "samples", "main states");
    int shown = summary->region_count < TEXT_REGION_ROWS || report->list_regions
                    ? summary->region_count
                    : TEXT_REGION_ROWS;
    for (int i = 0; i < shown; i++) {
        const struct ompc_model_region *region = by_time[i];
        fprintf(out, "  %8" PRIu64 " %8" PRIu64 " %5u %5u %10.3f %7d %8" PRIu64 "  ",
                (uint64_t)region->id, (uint64_t)region->parent,
                (unsigned)region->forks, (unsigned)region->joins,
                region->time_ns / 1e6,
                popcount64(region->thread_mask), region_ticks(region));
        text_main_states(out, region);
        if (report->list_regions)
            text_region_construct(&summary->locations, region->codeptr, out);
        fputc('\n', out);
    }
    if (summary->region_count > shown) {
        uint64_t rest_ns = 0;
        for (int i = shown; i < summary->region_count; i++)
            rest_ns += by_time[i]->time_ns;
        fprintf(out, "  ... %d more regions, %.3f ms together\n",
                summary->region_count - shown, rest_ns / 1e6);
    }
    free(by_time);
}

/* The parallel regions: their instances, or where constructs are known only a pointer to their table; then the totals. */
static void text_regions(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    /* Where constructs are known their table stands for the instances, which --list-regions lists in full. */
    int by_construct = summary->locations.known && summary->locations.construct_count > 0
                       && summary->region_count > 0 && !report->list_regions;
    if (by_construct)
        fputs("\nParallel regions (each instance counts in its construct's row under \"Parallel "
              "constructs\";\n  --list-regions lists every instance):\n", out);
    else if (report->list_regions)
        fputs("\nParallel regions (every instance in fork order; time = FORK to JOIN on the master):\n",
              out);
    else
        fputs("\nParallel regions (time = FORK to JOIN on the master; longest first):\n", out);
    if (summary->region_count == 0)
        fputs("  none\n", out);
    else if (!by_construct)
        text_region_rows(summary, out);
    uint64_t overflow = summary->process->regions_overflow_forks;
    if (overflow != 0)
        fprintf(out, "  %" PRIu64 " forks beyond the table's %d regions were only counted\n",
                overflow, OMPC_MAX_REGIONS);
    fprintf(out, "  total: %" PRIu64 " forks, %" PRIu64 " joins, %.3f s inside outermost regions\n",
            summary->forks, summary->joins, summary->outermost_ns / 1e9);
}

/* The wait ids with the most samples. */
static void text_waits(const struct summary *summary, FILE *out)
{
    fputs("\nMost waited-on objects (samples in LKWT, CTWT, ODWT, ATWT by wait id):\n", out);
    if (summary->wait_count == 0)
        fputs("  none\n", out);
    else
        fprintf(out, "  %-5s %-18s %8s %7s\n", "state", "wait id", "samples", "threads");
    for (int i = 0; i < summary->wait_count && i < TEXT_WAIT_ROWS; i++) {
        const struct merged_wait *wait = &summary->waits[i];
        fprintf(out, "  %-5s 0x%016" PRIx64 " %8" PRIu64 " %7d\n", ompc_state_name(wait->state),
                wait->id, wait->ticks, wait->threads);
    }
    if (summary->wait_count > TEXT_WAIT_ROWS)
        fprintf(out, "  ... %d more wait ids\n", summary->wait_count - TEXT_WAIT_ROWS);
}

/*
 * The events that never arrived, in one line instead of a row of zeros
 * each: those REGISTER accepted (`refused` 0), or those it refused with
 * its answer; both halves of a pair that share their fate by the pair's
 * short name ("lkwt").
 */
static void text_silent_events(const struct summary *summary, int refused, const char *what, FILE *out)
{
    const struct ompc_model_process *process = summary->process;
    int any = 0;
    for (int i = 0; i < process->request_count && i < OMPC_NEVENTS; i++) {
        int event = process->requests[i].event, ec = process->requests[i].ec;
        if (event <= 0 || event >= OMPC_NEVENTS || event_count(summary, event) != 0 || (ec != 0) != refused)
            continue;
        const char *name = ompc_event_name(event);
        int both = strncmp(name, "begin_", 6) == 0 && i + 1 < process->request_count
                   && process->requests[i + 1].event == event + 1 && process->requests[i + 1].ec == ec
                   && event + 1 < OMPC_NEVENTS && event_count(summary, event + 1) == 0;
        if (any)
            fputs(", ", out);
        else
            fprintf(out, "  %s: ", what);
        fputs(both ? name + 6 : name, out);
        if (refused)
            fprintf(out, " [%s]", ompc_register_status_name(ec));
        any = 1;
        i += both;
    }
    if (any)
        fputc('\n', out);
}

/* The registered events with their counts and pair times, and what the event logs could not hold. */
static void text_events(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    fputs("\nEvents registered:\n", out);
    fprintf(out, "  %-14s %-11s %10s %12s\n", "event", "status", "count", "pair time ms");
    for (int i = 0; i < process->request_count && i < OMPC_NEVENTS; i++) {
        int event = process->requests[i].event;
        if (event <= 0 || event >= OMPC_NEVENTS || event_count(summary, event) == 0)
            continue;
        int pair = ompc_event_pair(event);
        fprintf(out, "  %-14s %-11s %10" PRIu64, ompc_event_name(event),
                ompc_register_status_name(process->requests[i].ec), event_count(summary, event));
        if (pair >= 0 && event % 2 == 0)
            fprintf(out, " %12.3f", pair_time_ns(summary, pair) / 1e6);
        fputc('\n', out);
    }
    text_silent_events(summary, 0, "registered, never delivered", out);
    text_silent_events(summary, 1, "not registered (REGISTER's answer in brackets)", out);
    if (report->event_log_bytes != 0) {
        uint64_t recorded, dropped;
        int threads = event_log_totals(process, &recorded, &dropped);
        if (dropped != 0)
            fprintf(out, "  event log: %" PRIu64 " events recorded; %" PRIu64 " events of %d threads "
                         "did not fit their %" PRIu64 "-byte buffers (--trace-buffer) and are not in "
                         "the trace\n",
                    recorded, dropped, threads, report->event_log_bytes);
    }
}

/* The states' shares of every OpenMP thread's samples together. */
static void text_totals(const struct summary *summary, FILE *out)
{
    fputs("\nTotals: ", out);
    int first = 1;
    for (int state = 1; state < OMPC_NSTATES; state++) {
        if (summary->state_ticks[state] == 0)
            continue;
        fprintf(out, "%s%s %.1f%%", first ? "" : ", ", ompc_state_name(state),
                100.0 * (double)summary->state_ticks[state] / (double)summary->total_ticks);
        first = 0;
    }
    fprintf(out, "%s of %" PRIu64 " samples (%.3f thread-seconds)\n", first ? "no samples" : "",
            summary->total_ticks, summary->total_ticks * (double)summary->report->interval_ns / 1e9);
    if (summary->openmp_threads < summary->thread_count)
        fprintf(out, "  besides %d threads the runtime never reported: %" PRIu64 " samples\n",
                summary->thread_count - summary->openmp_threads, summary->other_ticks);
}

/* The at-a-glance report: header, thread table, regions, waits, events, totals. */
static void write_text(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    text_header(summary, out);
    if (report->sampling)
        text_thread_table(summary, out);
    uint64_t not_followed = process->threads_not_followed;
    if (not_followed != 0)
        fprintf(out, "  %" PRIu64 " further threads were not followed (limit %d)\n", not_followed,
                OMPC_MAX_THREADS);
    text_regions(summary, out);
    ompc_locations_text(&summary->locations, summary->total_ticks, out);
    if (report->stacks_asked)
        ompc_stacks_text(report->stacks, summary->total_ticks + summary->other_ticks, out);
    if (report->sampling)
        text_waits(summary, out);
    ompc_tasks_text(process, out);
    text_events(summary, out);
    if (report->sampling)
        text_totals(summary, out);
}

/* ---- CSV ---- */

/* A CSV row's state counts, then its invalid answers, ending the row. */
static void csv_states(FILE *out, const uint64_t *ticks)
{
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, ",%" PRIu64, ticks[state]);
    fprintf(out, ",%" PRIu64 "\n", ticks[0]);
}

/* The state columns of a CSV header row, then the invalid answers' column, ending the row. */
static void csv_state_names(FILE *out)
{
    ompc_csv_state_names(out);
    fputs(",invalid\n", out);
}

/* The run table (who, how long, how it ended) and, when the loader found any, the record's damage. */
static void csv_run(const struct summary *summary, FILE *out)
{
    int markers = summary->report->format == OMPC_FORMAT_CSV_TABLES;
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    ompc_csv_table(out, "run", markers);
    fputs("section,program,pid,wall_ns,interval_ns,sampling,threads,samples,forks,joins,"
          "outermost_ns,rank,host,complete,end,exit_status,signal,runtime,runtime_version,"
          "sample_signal,sampling_status\n",
          out);
    fputs("run,", out);
    ompc_csv_string(out, report->program);
    fprintf(out, ",%ld,%" PRIu64 ",%lld,%d,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
            (long)process->pid, report->wall_ns, report->interval_ns, report->sampling,
            summary->openmp_threads, summary->total_ticks, summary->forks, summary->joins,
            summary->outermost_ns);
    if (report->rank >= 0)
        fprintf(out, "%d", report->rank);
    fputc(',', out);
    ompc_csv_string(out, report->host);
    fprintf(out, ",%d,%s,", report->complete, report->end_how);
    if (report->exit_status >= 0)
        fprintf(out, "%d", report->exit_status);
    fprintf(out, ",%d,", report->signal);
    ompc_csv_string(out, report->runtime_file);
    fputc(',', out);
    ompc_csv_string(out, report->runtime_version);
    fprintf(out, ",%d,%s\n", process->sample_signal,
            sampling_status_name(process->sampling));
    if (process->damage.count != 0) {
        ompc_csv_table(out, "record_damage", markers);
        fprintf(out, "section,findings,text\nrecord_damage,%lu,", process->damage.count);
        ompc_csv_string(out, process->damage.text);
        fputc('\n', out);
    }
}

/* The thread table with each thread's states, then the thread_kind table. */
static void csv_threads(const struct summary *summary, FILE *out)
{
    int markers = summary->report->format == OMPC_FORMAT_CSV_TABLES;
    const struct ompc_model_process *process = summary->process;
    ompc_csv_table(out, "thread", markers);
    fputs("section,index,tid,initial,lifetime_ns,signals,samples,expected", out);
    csv_state_names(out);
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        fprintf(out, "thread,%d,%ld,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, i,
                (long)thread->tid, thread->initial, thread_lifetime_ns(thread),
                thread->signals, thread_ticks(thread), thread_expected_ticks(summary->report, thread));
        csv_states(out, thread->state_ticks);
    }

    ompc_csv_table(out, "thread_kind", markers);
    fputs("section,index,openmp,blocked_ns,blocked_samples\n", out);
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        fprintf(out, "thread_kind,%d,%d,%" PRIu64 ",%" PRIu64 "\n", i, ompc_thread_is_openmp(thread),
                thread->blocked_ns, thread->blocked_ticks);
    }
}

/* The region table, by id, then the wait table, most samples first. */
static void csv_regions_and_waits(const struct summary *summary, FILE *out)
{
    int markers = summary->report->format == OMPC_FORMAT_CSV_TABLES;
    ompc_csv_table(out, "region", markers);
    fputs("section,id,parent,forks,joins,time_ns,threads,samples", out);
    csv_state_names(out);
    for (int i = 0; i < summary->region_count; i++) {
        const struct ompc_model_region *region = summary->regions[i];
        fprintf(out, "region,%" PRIu64 ",%" PRIu64 ",%u,%u,%" PRIu64 ",%d,%" PRIu64,
                (uint64_t)region->id, (uint64_t)region->parent,
                (unsigned)region->forks, (unsigned)region->joins,
                (uint64_t)region->time_ns,
                popcount64(region->thread_mask), region_ticks(region));
        csv_states(out, region->ticks);
    }

    ompc_csv_table(out, "wait", markers);
    fputs("section,state,wait_id,samples,threads\n", out);
    for (int i = 0; i < summary->wait_count; i++) {
        const struct merged_wait *wait = &summary->waits[i];
        fprintf(out, "wait,%s,0x%016" PRIx64 ",%" PRIu64 ",%d\n", ompc_state_name(wait->state),
                wait->id, wait->ticks, wait->threads);
    }
}

/* The event table: each registered event, its count and, once per pair, the pair's time. */
static void csv_events(const struct summary *summary, FILE *out)
{
    int markers = summary->report->format == OMPC_FORMAT_CSV_TABLES;
    const struct ompc_model_process *process = summary->process;
    ompc_csv_table(out, "event", markers);
    fputs("section,event,status,count,pair_time_ns\n", out);
    for (int i = 0; i < process->request_count && i < OMPC_NEVENTS; i++) {
        int event = process->requests[i].event;
        if (event <= 0 || event >= OMPC_NEVENTS)
            continue;
        int pair = ompc_event_pair(event);
        fprintf(out, "event,%s,%s,%" PRIu64 ",", ompc_event_name(event),
                ompc_register_status_name(process->requests[i].ec), event_count(summary, event));
        if (pair >= 0 && event % 2 == 0)
            fprintf(out, "%" PRIu64, pair_time_ns(summary, pair));
        fputc('\n', out);
    }
}

/*
 * One stream, several tables: every row starts with its table's name, and
 * each table is preceded by a header row whose first field is "section".
 */
static void write_csv(const struct summary *summary, FILE *out)
{
    int markers = summary->report->format == OMPC_FORMAT_CSV_TABLES;
    csv_run(summary, out);
    csv_threads(summary, out);
    csv_regions_and_waits(summary, out);
    ompc_locations_csv(&summary->locations, markers, out);
    ompc_tasks_csv(summary->process, markers, out);
    csv_events(summary, out);
}

/* ---- JSON ---- */

/* A JSON string literal; NULL is the empty string. */
static void json_string(FILE *out, const char *text)
{
    ompc_json_string(out, text);
}

/* {"OVHD": n, ...} for a thread's or a region's counters. */
static void json_states(FILE *out, const uint64_t *ticks)
{
    fputc('{', out);
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, "%s\"%s\": %" PRIu64, state > 1 ? ", " : "", ompc_state_name(state),
                ticks[state]);
    fputc('}', out);
}

/* Who ran, where, on which runtime, and how it ended. */
static void json_header(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    fputs("{\n  \"tool\": \"ompcollect\",\n  \"schema_version\": 2,\n  \"version\": ", out);
    json_string(out, PACKAGE_VERSION);
    fputs(",\n  \"program\": ", out);
    json_string(out, report->program);
    fprintf(out, ",\n  \"pid\": %ld,\n  \"rank\": ", (long)process->pid);
    if (report->rank >= 0)
        fprintf(out, "%d", report->rank);
    else
        fputs("null", out);
    fputs(",\n  \"host\": ", out);
    json_string(out, report->host);
    fputs(",\n  \"relation\": ", out);
    json_string(out, report->relation);
    fprintf(out, ",\n  \"parent_pid\": %ld", (long)process->ppid);
    fprintf(out, ",\n  \"complete\": %s,\n  \"end\": {\"how\": ", report->complete ? "true" : "false");
    json_string(out, report->end_how);
    fputs(", \"exit_status\": ", out);
    if (report->exit_status >= 0)
        fprintf(out, "%d", report->exit_status);
    else
        fputs("null", out);
    fprintf(out, ", \"signal\": %d, \"fate\": ", report->signal);
    json_string(out, report->fate);
    fputs("},\n  \"runtime\": {\"path\": ", out);
    json_string(out, report->runtime_path);
    fputs(", \"file\": ", out);
    json_string(out, report->runtime_file);
    fputs(", \"version\": ", out);
    json_string(out, report->runtime_version);
    fputs(", \"why\": ", out);
    json_string(out, report->runtime_why);
    fputs("},\n  \"collector\": {\"shim\": ", out);
    json_string(out, report->shim);
    fputs(", \"agent\": ", out);
    json_string(out, report->agent);
    char name[32];
    fprintf(out, "},\n  \"wall_ns\": %" PRIu64 ",\n  \"sampling\": %s,\n  \"interval_ns\": %lld,\n"
                 "  \"sample_signal\": %d,\n  \"sample_signal_name\": ",
            report->wall_ns, report->sampling ? "true" : "false", report->interval_ns,
            process->sample_signal);
    json_string(out, process->sample_signal ? ompc_signal_name(process->sample_signal, name, sizeof name) : "");
    fprintf(out, ",\n  \"sampling_status\": \"%s\",\n  \"sampling_stopped_ns\": %" PRIu64
                 ",\n  \"program_handler_ns\": %" PRIu64 ",\n  \"signals_passed\": %" PRIu64
                 ",\n  \"processes_dropped\": %u,\n  \"timelines_dropped\": %" PRIu64,
            sampling_status_name(process->sampling),
            process->sampling_stopped_ns, process->program_handler_ns,
            process->signals_passed, process->processes_dropped, process->arena_refused);
    if (process->damage.count != 0) {
        fprintf(out, ",\n  \"record_damage\": {\"findings\": %lu, \"text\": ", process->damage.count);
        json_string(out, process->damage.text);
        fputc('}', out);
    }
}

/* The state names, then every thread with its states and the events it had. */
static void json_threads(const struct summary *summary, FILE *out)
{
    const struct ompc_model_process *process = summary->process;
    fputs(",\n  \"states\": [", out);
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, "%s\"%s\"", state > 1 ? ", " : "", ompc_state_name(state));
    fputs("],\n  \"threads\": [", out);
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        fprintf(out,
                "%s\n    {\"index\": %d, \"tid\": %ld, \"initial\": %s, \"openmp\": %s, "
                "\"exited\": %s, \"lifetime_ns\": %" PRIu64 ", \"signals\": %" PRIu64
                ", \"samples\": %" PRIu64 ", \"expected\": %" PRIu64 ", \"invalid\": %" PRIu64
                ", \"blocked_ns\": %" PRIu64 ", \"blocked_samples\": %" PRIu64 ",\n     \"states\": ",
                i ? "," : "", i, (long)thread->tid, thread->initial ? "true" : "false",
                ompc_thread_is_openmp(thread) ? "true" : "false",
                thread->status == OMPC_SLOT_EXITED ? "true" : "false",
                thread_lifetime_ns(thread), thread->signals, thread_ticks(thread),
                thread_expected_ticks(summary->report, thread), thread->state_ticks[0],
                thread->blocked_ns, thread->blocked_ticks);
        json_states(out, thread->state_ticks);
        fputs(",\n     \"events\": {", out);
        int first = 1;
        for (int event = 1; event < OMPC_NEVENTS; event++) {
            uint64_t count = thread->events[event];
            if (count == 0)
                continue;
            fprintf(out, "%s\"%s\": %" PRIu64, first ? "" : ", ", ompc_event_name(event), count);
            first = 0;
        }
        fputs("}}", out);
    }
}

/* The regions by id, then the wait ids, most samples first. */
static void json_regions_and_waits(const struct summary *summary, FILE *out)
{
    const struct ompc_model_process *process = summary->process;
    fprintf(out, "\n  ],\n  \"threads_not_followed\": %" PRIu64 ",\n  \"regions\": [",
            process->threads_not_followed);
    for (int i = 0; i < summary->region_count; i++) {
        const struct ompc_model_region *region = summary->regions[i];
        fprintf(out,
                "%s\n    {\"id\": %" PRIu64 ", \"parent\": %" PRIu64 ", \"forks\": %u, "
                "\"joins\": %u, \"time_ns\": %" PRIu64 ", \"threads\": %d, \"samples\": %" PRIu64
                ", \"states\": ",
                i ? "," : "", (uint64_t)region->id,
                (uint64_t)region->parent, (unsigned)region->forks,
                (unsigned)region->joins, (uint64_t)region->time_ns,
                popcount64(region->thread_mask), region_ticks(region));
        json_states(out, region->ticks);
        fprintf(out, ", \"codeptr\": \"0x%" PRIx64 "\"}", (uint64_t)region->codeptr);
    }
    fprintf(out, "\n  ],\n  \"regions_overflow_forks\": %" PRIu64 ",\n  \"waits\": [",
            process->regions_overflow_forks);
    for (int i = 0; i < summary->wait_count; i++) {
        const struct merged_wait *wait = &summary->waits[i];
        fprintf(out,
                "%s\n    {\"state\": \"%s\", \"wait_id\": \"0x%016" PRIx64 "\", \"samples\": %" PRIu64
                ", \"threads\": %d}",
                i ? "," : "", ompc_state_name(wait->state), wait->id, wait->ticks, wait->threads);
    }
    fputs("\n  ]", out);
}

/* The registered events, each with its count and, once per pair, the pair's time. */
static void json_events(const struct summary *summary, FILE *out)
{
    const struct ompc_model_process *process = summary->process;
    fputs(",\n  \"events\": [", out);
    int listed = 0;
    for (int i = 0; i < process->request_count && i < OMPC_NEVENTS; i++) {
        int event = process->requests[i].event;
        if (event <= 0 || event >= OMPC_NEVENTS)
            continue;
        int pair = ompc_event_pair(event);
        fprintf(out, "%s\n    {\"name\": \"%s\", \"status\": \"%s\", \"count\": %" PRIu64,
                listed++ ? "," : "", ompc_event_name(event), ompc_register_status_name(process->requests[i].ec),
                event_count(summary, event));
        if (pair >= 0 && event % 2 == 0)
            fprintf(out, ", \"pair_time_ns\": %" PRIu64, pair_time_ns(summary, pair));
        fputc('}', out);
    }
}

/* The threads the runtime never reported, the event logs' fill, and the totals over the OpenMP threads. */
static void json_totals(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    fprintf(out, "\n  ],\n  \"other_threads\": {\"threads\": %d, \"samples\": %" PRIu64 "},",
            summary->thread_count - summary->openmp_threads, summary->other_ticks);
    if (report->event_log_bytes != 0) {
        uint64_t recorded, dropped;
        int threads = event_log_totals(summary->process, &recorded, &dropped);
        fprintf(out, "\n  \"event_log\": {\"bytes_per_thread\": %" PRIu64 ", \"recorded\": %" PRIu64
                     ", \"dropped\": %" PRIu64 ", \"threads_dropping\": %d},",
                report->event_log_bytes, recorded, dropped, threads);
    }
    fprintf(out, "\n  \"totals\": {\"threads\": %d, \"samples\": %" PRIu64
                 ", \"invalid\": %" PRIu64 ", \"forks\": %" PRIu64 ", \"joins\": %" PRIu64
                 ", \"regions\": %d, \"outermost_ns\": %" PRIu64 ", \"states\": {",
            summary->openmp_threads, summary->total_ticks, summary->state_ticks[0], summary->forks,
            summary->joins, summary->region_count, summary->outermost_ns);
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, "%s\"%s\": %" PRIu64, state > 1 ? ", " : "", ompc_state_name(state),
                summary->state_ticks[state]);
    fputs("}}\n}\n", out);
}

/* The report as one JSON object; counts are raw samples so consumers can weigh them. */
static void write_json(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    json_header(summary, out);
    json_threads(summary, out);
    json_regions_and_waits(summary, out);
    ompc_locations_json(&summary->locations, summary->process, out);
    if (report->stacks_asked)
        ompc_stacks_json(report->stacks, out);
    ompc_tasks_json(summary->process, out);
    json_events(summary, out);
    json_totals(summary, out);
}

/* The folded stacks alone: --stacks=folded's report and --folded's file. */
int ompc_write_folded(const struct ompc_report *report, FILE *out)
{
    if (report->stacks != NULL && ompc_stacks_folded(report->stacks, out) != 0)
        return -1;
    return ferror(out) ? -1 : 0;
}

/* Writes the report in the configured format. */
int ompc_write_report(const struct ompc_report *report, FILE *out)
{
    if (report->format == OMPC_FORMAT_FOLDED)
        return ompc_write_folded(report, out);
    struct summary summary;
    if (summarise(report, &summary) != 0) {
        release_summary(&summary);
        return -1;
    }
    switch (report->format) {
    case OMPC_FORMAT_CSV:
    case OMPC_FORMAT_CSV_TABLES:
        write_csv(&summary, out);
        break;
    case OMPC_FORMAT_JSON:
        write_json(&summary, out);
        break;
    default:
        write_text(&summary, out);
        break;
    }
    release_summary(&summary);
    return ferror(out) ? -1 : 0;
}
