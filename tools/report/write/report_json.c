/* report_json.c - the JSON report: one object built with jansson and written at once, counts as raw samples so consumers can weigh them. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "cover.h"
#include "jsonw.h"
#include "omp_collector_api.h"
#include "stacks.h"
#include "summary.h"
#include "tasks.h"

/*
 * Each part adds its members to the report object in the order the report
 * has always had them, and returns 0, or -1 once anything failed to be
 * made (memory ran out): the ompc_json_* calls refuse a NULL, so a failed
 * part is never written half.
 */

/* {"how", "exit_status", "signal", "fate"}: how the process ended. */
static json_t *json_end(const struct ompc_report *report)
{
    json_t *end = json_object();
    int failed = ompc_json_set(end, "how", ompc_json_string(report->end_how));
    failed |= ompc_json_set(end, "exit_status",
                            report->exit_status >= 0 ? json_integer(report->exit_status) : json_null());
    failed |= ompc_json_set(end, "signal", json_integer(report->signal));
    failed |= ompc_json_set(end, "fate", ompc_json_string(report->fate));
    return ompc_json_built(end, failed);
}

/* "runtime" and "collector": which runtime ran, why, and which shim and agent. */
static int json_runtime(const struct ompc_report *report, json_t *root)
{
    json_t *runtime = json_object(), *collector = json_object();
    int failed = ompc_json_set(runtime, "path", ompc_json_string(report->runtime_path));
    failed |= ompc_json_set(runtime, "file", ompc_json_string(report->runtime_file));
    failed |= ompc_json_set(runtime, "version", ompc_json_string(report->runtime_version));
    failed |= ompc_json_set(runtime, "why", ompc_json_string(report->runtime_why));
    failed |= ompc_json_set(collector, "shim", ompc_json_string(report->shim));
    failed |= ompc_json_set(collector, "agent", ompc_json_string(report->agent));
    failed |= ompc_json_set(root, "runtime", runtime);
    failed |= ompc_json_set(root, "collector", collector);
    return failed;
}

/* Who ran, where, on which runtime, and how it ended. */
static int json_header(const struct summary *summary, json_t *root)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    int failed = ompc_json_set(root, "tool", json_string("ompcollect"));
    failed |= ompc_json_set(root, "schema_version", json_integer(2));
    failed |= ompc_json_set(root, "version", json_string(PACKAGE_VERSION));
    failed |= ompc_json_set(root, "program", ompc_json_string(report->program));
    failed |= ompc_json_set(root, "pid", json_integer(process->pid));
    failed |= ompc_json_set(root, "rank", report->rank >= 0 ? json_integer(report->rank) : json_null());
    failed |= ompc_json_set(root, "host", ompc_json_string(report->host));
    failed |= ompc_json_set(root, "relation", ompc_json_string(report->relation));
    failed |= ompc_json_set(root, "parent_pid", json_integer(process->ppid));
    failed |= ompc_json_set(root, "complete", json_boolean(report->complete));
    failed |= ompc_json_set(root, "end", json_end(report));
    failed |= json_runtime(report, root);
    return failed;
}

/* How sampling went: the interval, the signal, what stopped it and what the collector left out. */
static int json_sampling(const struct summary *summary, json_t *root)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    char name[32];
    int failed = ompc_json_set(root, "wall_ns", ompc_json_u64(report->wall_ns));
    failed |= ompc_json_set(root, "sampling", json_boolean(report->sampling));
    failed |= ompc_json_set(root, "interval_ns", json_integer(report->interval_ns));
    failed |= ompc_json_set(root, "sample_signal", json_integer(process->sample_signal));
    failed |= ompc_json_set(root, "sample_signal_name",
                            ompc_json_string(process->sample_signal
                                                 ? ompc_signal_name(process->sample_signal, name, sizeof name)
                                                 : ""));
    failed |= ompc_json_set(root, "sampling_status", json_string(ompc_sampling_status_name(process->sampling)));
    failed |= ompc_json_set(root, "sampling_stopped_ns", ompc_json_u64(process->sampling_stopped_ns));
    failed |= ompc_json_set(root, "program_handler_ns", ompc_json_u64(process->program_handler_ns));
    failed |= ompc_json_set(root, "signals_passed", ompc_json_u64(process->signals_passed));
    failed |= ompc_json_set(root, "processes_dropped", json_integer(process->processes_dropped));
    failed |= ompc_json_set(root, "timelines_dropped", ompc_json_u64(process->arena_refused));
    if (summary->report->record_reserved != 0) {
        json_t *record = json_object();
        failed |= ompc_json_set(record, "reserved_bytes", ompc_json_u64(summary->report->record_reserved));
        failed |= ompc_json_set(record, "data_bytes", ompc_json_u64(summary->report->record_data));
        failed |= ompc_json_set(root, "record", record);
    }
    failed |= ompc_json_set(root, "limits", ompc_limits_json(summary->limits, summary->limit_count));
    if (process->damage.count != 0) {
        json_t *damage = json_object();
        failed |= ompc_json_set(damage, "findings", ompc_json_u64(process->damage.count));
        failed |= ompc_json_set(damage, "text", ompc_json_string(process->damage.text));
        failed |= ompc_json_set(root, "record_damage", damage);
    }
    return failed;
}

/* {"share", "sampled_ns", "gaps": {cause: ns}}: how much of the thread's life its samples cover, and why not the rest; null when sampling was off. */
static json_t *json_cover(const struct ompc_report *report, const struct ompc_model_thread *thread)
{
    struct ompc_cover cover;
    ompc_thread_cover(report, thread, &cover);
    if (!cover.known)
        return json_null();
    json_t *object = json_object(), *gaps = json_object();
    int failed = ompc_json_set(object, "share", ompc_json_fixed(cover.share, 4));
    failed |= ompc_json_set(object, "sampled_ns", ompc_json_u64(cover.sampled_ns));
    for (int gap = 0; gap < OMPC_NGAPS && !failed; gap++)
        failed = ompc_json_set(gaps, ompc_gap_name(gap), ompc_json_u64(cover.gap_ns[gap]));
    failed |= ompc_json_set(object, "gaps_ns", gaps);
    return ompc_json_built(object, failed);
}

/* Samples inside MPI calls (in no state), the time inside them and the calls (libompcollect-mpi). */
static json_t *json_mpi(uint64_t samples, uint64_t ns, uint64_t calls)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "samples", ompc_json_u64(samples));
    failed |= ompc_json_set(object, "ns", ompc_json_u64(ns));
    failed |= ompc_json_set(object, "calls", ompc_json_u64(calls));
    return ompc_json_built(object, failed);
}

/* One thread: its identity, lifetime and samples, its states and the events it had. */
static json_t *json_thread(const struct summary *summary, int index)
{
    const struct ompc_model_thread *thread = &summary->process->threads[index];
    json_t *object = json_object(), *events = json_object();
    int failed = ompc_json_set(object, "index", json_integer(index));
    failed |= ompc_json_set(object, "tid", json_integer(thread->tid));
    failed |= ompc_json_set(object, "initial", json_boolean(thread->initial));
    failed |= ompc_json_set(object, "openmp", json_boolean(ompc_thread_is_openmp(thread)));
    failed |= ompc_json_set(object, "exited", json_boolean(thread->status == OMPC_SLOT_EXITED));
    failed |= ompc_json_set(object, "lifetime_ns", ompc_json_u64(thread_lifetime_ns(thread)));
    failed |= ompc_json_set(object, "signals", ompc_json_u64(thread->signals));
    failed |= ompc_json_set(object, "samples", ompc_json_u64(thread_ticks(thread)));
    failed |= ompc_json_set(object, "expected", ompc_json_u64(thread_expected_ticks(summary->report, thread)));
    failed |= ompc_json_set(object, "invalid", ompc_json_u64(thread->state_ticks[0]));
    failed |= ompc_json_set(object, "blocked_ns", ompc_json_u64(thread->blocked_ns));
    failed |= ompc_json_set(object, "blocked_samples", ompc_json_u64(thread->blocked_ticks));
    failed |= ompc_json_set(object, "cover", json_cover(summary->report, thread));
    failed |= ompc_json_set(object, "states", ompc_json_states(thread->state_ticks));
    failed |= ompc_json_set(object, "mpi", json_mpi(thread->mpi_ticks, thread->mpi_ns, thread->mpi_calls));
    for (int event = 1; event < OMPC_NEVENTS && !failed; event++)
        if (thread->events[event] != 0)
            failed = ompc_json_set(events, ompc_event_name(event), ompc_json_u64(thread->events[event]));
    failed |= ompc_json_set(object, "events", events);
    return ompc_json_built(object, failed);
}

/* The state names, then every thread with its states and the events it had. */
static int json_threads(const struct summary *summary, json_t *root)
{
    json_t *states = json_array(), *threads = json_array();
    int failed = 0;
    for (int state = 1; state < OMPC_NSTATES && !failed; state++)
        failed = ompc_json_append(states, json_string(ompc_state_name(state)));
    for (int i = 0; i < summary->thread_count && !failed; i++)
        failed = ompc_json_append(threads, json_thread(summary, i));
    failed |= ompc_json_set(root, "states", states);
    failed |= ompc_json_set(root, "threads", threads);
    failed |= ompc_json_set(root, "threads_not_followed", ompc_json_u64(summary->process->threads_not_followed));
    return failed;
}

/* One region instance: its ids, forks and joins, time, threads and samples by state. */
static json_t *json_region(const struct ompc_model_region *region)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "id", ompc_json_u64(region->id));
    failed |= ompc_json_set(object, "parent", ompc_json_u64(region->parent));
    failed |= ompc_json_set(object, "forks", json_integer(region->forks));
    failed |= ompc_json_set(object, "joins", json_integer(region->joins));
    failed |= ompc_json_set(object, "time_ns", ompc_json_u64(region->time_ns));
    failed |= ompc_json_set(object, "threads", json_integer(popcount64(region->thread_mask)));
    failed |= ompc_json_set(object, "samples", ompc_json_u64(region_ticks(region)));
    failed |= ompc_json_set(object, "states", ompc_json_states(region->ticks));
    failed |= ompc_json_set(object, "codeptr", ompc_json_hex(region->codeptr, 0));
    return ompc_json_built(object, failed);
}

/* One wait id merged over its threads. */
static json_t *json_wait(const struct merged_wait *wait)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "state", json_string(ompc_state_name(wait->state)));
    failed |= ompc_json_set(object, "wait_id", ompc_json_hex(wait->id, 16));
    failed |= ompc_json_set(object, "samples", ompc_json_u64(wait->ticks));
    failed |= ompc_json_set(object, "threads", json_integer(wait->threads));
    return ompc_json_built(object, failed);
}

/* The regions by id, then the wait ids, most samples first. */
static int json_regions_and_waits(const struct summary *summary, json_t *root)
{
    json_t *regions = json_array(), *waits = json_array();
    int failed = 0;
    for (int i = 0; i < summary->region_count && !failed; i++)
        failed = ompc_json_append(regions, json_region(summary->regions[i]));
    for (int i = 0; i < summary->wait_count && !failed; i++)
        failed = ompc_json_append(waits, json_wait(&summary->waits[i]));
    failed |= ompc_json_set(root, "regions", regions);
    failed |= ompc_json_set(root, "regions_overflow_forks", ompc_json_u64(summary->process->regions_overflow_forks));
    failed |= ompc_json_set(root, "waits", waits);
    return failed;
}

/* The registered events, each with its count and, once per pair, the pair's time. */
static int json_events(const struct summary *summary, json_t *root)
{
    const struct ompc_model_process *process = summary->process;
    json_t *events = json_array();
    int failed = 0;
    for (int i = 0; i < process->request_count && i < OMPC_NEVENTS && !failed; i++) {
        int event = process->requests[i].event;
        if (event <= 0 || event >= OMPC_NEVENTS)
            continue;
        int pair = ompc_event_pair(event);
        json_t *object = json_object();
        failed = ompc_json_set(object, "name", json_string(ompc_event_name(event)));
        failed |= ompc_json_set(object, "status", json_string(ompc_register_status_name(process->requests[i].ec)));
        failed |= ompc_json_set(object, "count", ompc_json_u64(event_count(summary, event)));
        if (pair >= 0 && event % 2 == 0)
            failed |= ompc_json_set(object, "pair_time_ns", ompc_json_u64(pair_time_ns(summary, pair)));
        failed |= ompc_json_append(events, object);
    }
    failed |= ompc_json_set(root, "events", events);
    return failed;
}

/* The threads the runtime never reported, the event logs' fill, and the totals over the OpenMP threads. */
static int json_totals(const struct summary *summary, json_t *root)
{
    const struct ompc_report *report = summary->report;
    json_t *other = json_object(), *totals = json_object();
    int failed = ompc_json_set(other, "threads", json_integer(summary->thread_count - summary->openmp_threads));
    failed |= ompc_json_set(other, "samples", ompc_json_u64(summary->other_ticks));
    failed |= ompc_json_set(root, "other_threads", other);
    if (report->event_log_bytes != 0) {
        uint64_t recorded, dropped;
        int threads = ompc_event_log_totals(summary->process, &recorded, &dropped);
        json_t *log = json_object();
        failed |= ompc_json_set(log, "bytes_per_thread", ompc_json_u64(report->event_log_bytes));
        failed |= ompc_json_set(log, "recorded", ompc_json_u64(recorded));
        failed |= ompc_json_set(log, "dropped", ompc_json_u64(dropped));
        failed |= ompc_json_set(log, "threads_dropping", json_integer(threads));
        uint64_t short_waits, short_ns;
        ompc_short_wait_totals(summary->process, &short_waits, &short_ns);
        failed |= ompc_json_set(log, "short_waits", ompc_json_u64(short_waits));
        failed |= ompc_json_set(log, "short_wait_ns", ompc_json_u64(short_ns));
        failed |= ompc_json_set(root, "event_log", log);
    }
    failed |= ompc_json_set(totals, "threads", json_integer(summary->openmp_threads));
    failed |= ompc_json_set(totals, "samples", ompc_json_u64(summary->total_ticks));
    failed |= ompc_json_set(totals, "invalid", ompc_json_u64(summary->state_ticks[0]));
    failed |= ompc_json_set(totals, "forks", ompc_json_u64(summary->forks));
    failed |= ompc_json_set(totals, "joins", ompc_json_u64(summary->joins));
    failed |= ompc_json_set(totals, "regions", json_integer(summary->region_count));
    failed |= ompc_json_set(totals, "outermost_ns", ompc_json_u64(summary->outermost_ns));
    failed |= ompc_json_set(totals, "states", ompc_json_states(summary->state_ticks));
    uint64_t create_ns, sched_ns;
    json_t *overhead = json_null();
    if (ompc_tasks_overhead(summary->process, &summary->advice.tasks, &create_ns, &sched_ns)) {
        overhead = json_object();
        failed |= ompc_json_set(overhead, "create_ns", ompc_json_u64(create_ns));
        failed |= ompc_json_set(overhead, "sched_ns", ompc_json_u64(sched_ns));
    }
    failed |= ompc_json_set(totals, "task_overhead", overhead);
    json_t *mpi = json_mpi(summary->mpi_ticks, summary->mpi_ns, summary->mpi_calls);
    failed |= ompc_json_set(mpi, "measured", json_boolean(summary->process->mpi_active));
    failed |= mpi == NULL || ompc_mpi_json(summary, mpi) != 0;
    failed |= ompc_json_set(totals, "mpi", mpi);
    failed |= ompc_json_set(root, "totals", totals);
    return failed;
}

/* The report as one JSON object; counts are raw samples so consumers can weigh them.  -1 when memory runs out or the write fails. */
int ompc_report_json(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    json_t *root = json_object();
    int failed = root == NULL || json_header(summary, root) || json_sampling(summary, root)
                 || json_threads(summary, root) || json_regions_and_waits(summary, root)
                 || ompc_locations_json(&summary->locations, summary->process, report->stacks_asked ? report->stacks : NULL, root)
                 || ompc_serial_json(&summary->locations.serial, root)
                 || (report->stacks_asked && ompc_stacks_json(report->stacks, root))
                 || ompc_tasks_json(summary->process, &summary->locations, &summary->advice.tasks, root) || json_events(summary, root)
                 || json_totals(summary, root) || ompc_advice_json(summary, root)
                 || ompc_json_dump(root, out, OMPC_JSON_READABLE)
                 || fputc('\n', out) == EOF;
    json_decref(root);
    return failed ? -1 : 0;
}
