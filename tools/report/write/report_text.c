/* report_text.c - the text report: the header, the thread and region tables, waits, tasks, events and totals. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "cover.h"
#include "omp_collector_api.h"
#include "sort.h"
#include "stacks.h"
#include "summary.h"
#include "tasks.h"

#include <inttypes.h>

/* The MPI call sites the text lists (longest first). */
#define OMPC_TEXT_MPI_SITES 5
#include <stdlib.h>
#include <string.h>

/* How many rows the text report shows before summarising the rest. */
#define TEXT_REGION_ROWS 15
#define TEXT_WAIT_ROWS 10
#define TEXT_BLOCKED_ROWS 5

/* A share as a fixed-width cell; exact zero prints "." so the busy cells stand out. */
static void text_share(FILE *out, uint64_t part, uint64_t whole)
{
    if (part == 0 || whole == 0)
        fprintf(out, " %5s", ".");
    else
        fprintf(out, " %5.1f", 100.0 * (double)part / (double)whole);
}

/* The 11 state names as column headings, in the header's numeric order, then MPI. */
static void text_state_header(FILE *out)
{
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, " %5s", ompc_state_name(state));
    fprintf(out, " %5s\n", "MPI");
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
    for (int i = 0; i < summary->limit_count; i++)
        fprintf(out, "  limit reached: %s\n", summary->limits[i].text);
    if (process->damage.count != 0)
        fprintf(out, "  record damaged (%lu finding%s; what did not hold was ignored or clamped): %s\n",
                process->damage.count, process->damage.count == 1 ? "" : "s", process->damage.text);
}

/* Threads whose life the samples do not cover, with what the rest went to. */
static void text_cover_gaps(const struct summary *summary, FILE *out)
{
    int shown = 0;
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &summary->process->threads[i];
        struct ompc_cover cover;
        ompc_thread_cover(summary->report, thread, &cover);
        if (!ompc_cover_has_gap(summary->report, &cover))
            continue;
        if (shown++ >= TEXT_BLOCKED_ROWS)
            continue;
        uint64_t gap = cover.lifetime_ns > cover.sampled_ns ? cover.lifetime_ns - cover.sampled_ns : 0;
        fprintf(out, "  thread %d%s: %.3f s of its %.3f s not sampled:", i, thread->initial ? "*" : "", gap / 1e9,
                cover.lifetime_ns / 1e9);
        const char *separator = " ";
        for (int cause = 0; cause < OMPC_NGAPS; cause++) {
            if (cover.gap_ns[cause] < 500000)
                continue;
            fprintf(out, "%s%.3f s %s", separator, cover.gap_ns[cause] / 1e9,
                    cause == OMPC_GAP_UNARMED && thread->armed_ns == 0 ? "with no sampling timer armed"
                                                                       : ompc_gap_words(cause));
            separator = ", ";
        }
        fputc('\n', out);
    }
    if (shown > TEXT_BLOCKED_ROWS)
        fprintf(out, "  ... %d more threads not fully sampled\n", shown - TEXT_BLOCKED_ROWS);
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
        struct ompc_cover covered;
        ompc_thread_cover(report, thread, &covered);
        char label[16], cover[16];
        snprintf(label, sizeof label, "%d%s", i,
                 thread->initial ? "*" : ompc_thread_is_openmp(thread) ? "" : "-");
        if (covered.known)
            snprintf(cover, sizeof cover, "%.0f%%", 100.0 * covered.share);
        else
            snprintf(cover, sizeof cover, "-");
        fprintf(out, "  %-7s %7ld %8" PRIu64 " %5s", label, (long)thread->tid, ticks, cover);
        for (int state = 1; state < OMPC_NSTATES; state++)
            text_share(out, thread->state_ticks[state], ticks);
        text_share(out, thread->mpi_ticks, ticks);
        fputc('\n', out);
    }
    fprintf(out, "  %-7s %7s %8" PRIu64 " %5s", "all", "", summary->total_ticks, "");
    for (int state = 1; state < OMPC_NSTATES; state++)
        text_share(out, summary->state_ticks[state], summary->total_ticks);
    text_share(out, summary->mpi_ticks, summary->total_ticks);
    fputs("\n  (* initial thread; cover = samples x interval / the thread's life, the initial thread's from the "
          "record's start)\n",
          out);
    text_cover_gaps(summary, out);
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
        uint64_t recorded, dropped, short_waits, short_ns;
        (void)ompc_event_log_totals(process, &recorded, &dropped);
        ompc_short_wait_totals(process, &short_waits, &short_ns);
        fprintf(out, "  event log: %" PRIu64 " events recorded", recorded);
        if (short_waits != 0)
            fprintf(out, "; %" PRIu64 " uncontended lock, critical, ordered or atomic waits (under %u ns, "
                         "%.3f ms in all) are counted, not logged", short_waits, OMPC_SHORT_WAIT_NS, short_ns / 1e6);
        fputc('\n', out);
    }
}

/* The MPI calls that took longest, by call and call site (MPI_Init and MPI_Finalize marked: not communication). */
static void text_mpi_sites(const struct summary *summary, FILE *out)
{
    const struct ompc_mpi_sites *sites = &summary->locations.mpi;
    for (int i = 0; i < sites->count && i < OMPC_TEXT_MPI_SITES; i++) {
        const struct ompc_mpi_site_row *row = &sites->rows[i];
        char label[512];
        fprintf(out, "    %-16s at %-40s %9.3f s %8" PRIu64 " calls %7" PRIu64 " samples%s\n",
                ompc_mpi_call_name(row->sum.call), ompc_location_label(&row->where, row->sum.site, label, sizeof label),
                row->sum.ns / 1e9, row->sum.calls, row->sum.ticks, row->setup ? "  (start/end)" : "");
    }
    if (sites->count > OMPC_TEXT_MPI_SITES)
        fprintf(out, "    and %d more call sites (JSON lists them all)\n", sites->count - OMPC_TEXT_MPI_SITES);
    if (sites->dropped > 0)
        fprintf(out, "    %" PRIu64 " calls at sites past the record's %d rows\n", sites->dropped, OMPC_MPI_SITES);
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
    if (summary->mpi_ticks != 0) {
        fprintf(out, "%sMPI %.1f%%", first ? "" : ", ",
                100.0 * (double)summary->mpi_ticks / (double)summary->total_ticks);
        first = 0;
    }
    fprintf(out, "%s of %" PRIu64 " samples (%.3f thread-seconds)\n", first ? "no samples" : "",
            summary->total_ticks, summary->total_ticks * (double)summary->report->interval_ns / 1e9);
    if (summary->openmp_threads < summary->thread_count)
        fprintf(out, "  besides %d threads the runtime never reported: %" PRIu64 " samples\n",
                summary->thread_count - summary->openmp_threads, summary->other_ticks);
    uint64_t create_ns, sched_ns;
    if (ompc_tasks_overhead(summary->process, &summary->advice.tasks, &create_ns, &sched_ns))
        fprintf(out, "  task overhead %.3f thread-seconds: creating tasks %.3f s, scheduling them up to %.3f s of "
                     "the IBAR and EBAR time (ompcollect(1), TASK GRANULARITY)\n",
                (double)(create_ns + sched_ns) / 1e9, (double)create_ns / 1e9, (double)sched_ns / 1e9);
    if (summary->process->mpi_active)
        fprintf(out, "  MPI: %.3f thread-seconds inside %" PRIu64 " MPI calls (measured by libompcollect-mpi; "
                "their samples count as MPI, in no state)\n", summary->mpi_ns / 1e9, summary->mpi_calls);
    text_mpi_sites(summary, out);
}

/* The at-a-glance report: header, thread table, regions, waits, events, totals. */
void ompc_report_text(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    text_header(summary, out);
    ompc_advice_text_opportunities(summary, out);
    if (report->sampling) {
        text_thread_table(summary, out);
        ompc_serial_text(&summary->locations.serial, summary->total_ticks, out);
    }
    text_regions(summary, out);
    ompc_locations_text(&summary->locations, summary->total_ticks, out);
    if (report->stacks_asked)
        ompc_stacks_text(report->stacks, summary->total_ticks + summary->other_ticks, out);
    ompc_symbols_text(summary, out);
    if (report->sampling)
        text_waits(summary, out);
    ompc_tasks_text(process, &summary->locations, &summary->advice.tasks, out);
    text_events(summary, out);
    ompc_advice_text_efficiency(summary, out);
    if (report->sampling)
        text_totals(summary, out);
}

