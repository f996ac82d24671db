/* reports.c - which recorded processes get a report and what the launcher adds to each (how it relates to the others, its runtime, how it ended), from every slot read through the loader; the refusals and the damage said once. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "reports.h"
#include "bounds.h"
#include "dispatch.h"
#include "launcher.h"
#include "load.h"
#include "omp_collector_api.h"
#include "preflight.h"
#include "session.h"
#include "stacks.h"
#include "summary.h"
#include "supervise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* Fills in the launcher's side of one process's report. */
static void describe(const struct run *run, struct process_report *entry, struct ompc_model_process **all,
                     uint32_t count)
{
    struct ompc_model_process *process = entry->process;
    struct ompc_report *report = &entry->report;
    int last_image = 1;
    for (uint32_t k = 0; k < count; k++)
        if (all[k] != NULL && all[k]->exec_slot == (int32_t)process->index)
            last_image = 0;
    judge_end(run, entry, last_image);
    report->process = process;
    report->timeline_width = run->timeline_width;
    report->from_ns = run->from_ns;
    report->to_ns = run->to_ns;
    report->sampling = run->sampling;
    report->interval_ns = run->interval_ns;
    report->program = process->pid == run->main_pid && process->exec_slot < 0 ? run->command[0]
                                                                              : process->program;
    report->rank = run->rank.rank;
    report->host = run->host;
    entry->relation[0] = '\0';
    if (process->parent_slot >= 0)
        snprintf(entry->relation, sizeof entry->relation, "forked from pid %ld",
                 (long)process->ppid);
    else if (process->exec_slot >= 0 && (uint32_t)process->exec_slot < count
             && all[process->exec_slot] != NULL) {
        const struct ompc_model_process *before = all[process->exec_slot];
        if (before->parent_slot >= 0)
            snprintf(entry->relation, sizeof entry->relation,
                     "exec'd by %s (pid %ld) after a fork from pid %ld", before->program,
                     (long)process->pid, (long)before->ppid);
        else
            snprintf(entry->relation, sizeof entry->relation, "exec'd by %s (pid %ld)",
                     before->program, (long)process->pid);
    }
    else if (process->pid != run->main_pid)
        snprintf(entry->relation, sizeof entry->relation, "started by pid %ld", (long)process->ppid);
    report->relation = entry->relation;
    report->runtime_path = process->runtime;
    /* The private directory is gone by now: its link stands for the substitute. */
    const char *path = in_private_dir(run, process->runtime) ? run->substitute : process->runtime;
    const char *resolved = path[0] ? ompc_session_realpath(run->session, path) : NULL;
    entry->runtime_file = strdup(resolved != NULL ? resolved : process->runtime);
    entry->runtime_version = runtime_version(entry->runtime_file);
    report->runtime_file = entry->runtime_file;
    report->runtime_version = entry->runtime_version;
    report->runtime_why = process->runtime[0] ? runtime_reason(run, process->runtime, entry->runtime_file) : "";
    report->shim = run->shim;
    report->agent = run->agent;
    report->event_log_bytes = run->header.event_log_bytes;
    report->record_reserved = run->header.total_size;
    report->record_data = run->record_data;
}

/* Messages for processes the collector could not attach to; returns whether the launched one was among them. */
static int report_refusals(const struct run *run, struct ompc_model_process **all, uint32_t count)
{
    int main_refused = 0;
    for (uint32_t i = 0; i < count; i++) {
        const struct ompc_model_process *process = all[i];
        if (process == NULL || process->state != OMPC_PROC_REFUSED)
            continue;
        if (process->pid != run->main_pid) {
            say("pid %ld (%s) ran OpenMP but could not be observed: %s", (long)process->pid,
                process->program, process->attach_error);
            continue;
        }
        main_refused = 1;
        say("cannot attach to '%s': %s", run->command[0], process->attach_error);
        const char *tool = run->omp_tool;
        if (tool != NULL && strcmp(tool, "disabled") == 0)
            say("OMP_TOOL=disabled is set: unset it so the runtime loads the shim");
        else if (run->substitute == NULL && strncmp(process->attach_error, "START", 5) == 0)
            say("a program built with GCC needs --runtime=/path/to/libomp.so.5%s%s",
                OMPCOLLECT_DEFAULT_RUNTIME[0] ? ", e.g. --runtime=" : "", OMPCOLLECT_DEFAULT_RUNTIME);
    }
    return main_refused;
}

/*
 * Whether an image did OpenMP work: a parallel region, or a sample in an
 * OpenMP state.  A fork child that only execs, or an image that loaded the
 * runtime and exec'd before using it, is not worth a report of its own.
 */
static int did_openmp_work(const struct ompc_model_process *process)
{
    if (process->untracked.events[OMP_EVENT_FORK] != 0)
        return 1;
    for (int i = 0; i < process->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        if (thread->events[OMP_EVENT_FORK] != 0 || ompc_thread_sampled_in_openmp(thread))
            return 1;
    }
    return 0;
}

/* What the loader reads beyond the tables every report uses, for the outputs asked for. */
static unsigned load_what(const struct run *run)
{
    unsigned what = 0;
    if (run->timeline != NULL || run->trace_json != NULL || run->trace != NULL || run->gprofng != NULL)
        what |= OMPC_LOAD_TIMELINES;
    if (run->timeline != NULL)
        what |= OMPC_LOAD_WHERE;
    if (run->header.event_log_bytes != 0)
        what |= OMPC_LOAD_EVENT_LOGS;
    if (run->stacks)
        what |= OMPC_LOAD_STACKS;
    return what;
}

/* Every used slot through the loader, into `all` (count entries, NULL past the last used one). */
static void load_all(struct run *run, struct ompc_model_process **all, uint32_t count)
{
    /* One owner for each byte of the arena across the processes too (load.h). */
    struct ompc_load_claims claims = {NULL, 0};
    struct ompc_load_bounds bounds = {run->start_ns, run->end_ns, &claims};
    struct stat info;
    if (fstat(run->record_fd, &info) == 0 && (uint64_t)info.st_size < run->header.total_size) {
        run->record_cut = 1;
        say("the record was cut to %llu of its %llu bytes during the run (the program truncated it?): what lay "
            "beyond is lost", (unsigned long long)info.st_size, (unsigned long long)run->header.total_size);
    }
    private_stand_ins(run);
    if (ompc_load_counts(run->record_fd, &run->header) != 0)
        say("the record lost its header during the run: its run-wide counts are unknown");
    for (uint32_t i = 0; i < count; i++) {
        struct ompc_slot_head head;
        if (ompc_load_head(run->record_fd, &run->header, i, &head) != 0 || head.state == OMPC_PROC_FREE)
            break;
        all[i] = ompc_load_process(run->record_fd, &run->header, i, load_what(run), &bounds);
        if (all[i] == NULL)
            die(EXIT_OWN_FAILURE, "out of memory reading the record of pid %ld", (long)head.pid);
        all[i]->symfs = run->symfs;
        all[i]->debuginfo_path = run->debuginfo_path;
        all[i]->stand_ins = run->stand_ins[0] != NULL ? run->stand_ins : NULL;
    }
    ompc_load_claims_free(&claims);
}

/* Says, once per reported process and once for all the others, where the loader found the record damaged. */
static void say_damage(struct ompc_model_process **all, uint32_t count, const struct process_report *entries,
                       size_t reports)
{
    for (size_t i = 0; i < reports; i++) {
        const struct ompc_model_process *process = entries[i].process;
        if (process->damage.count > 0)
            say("the record of pid %ld is damaged (%lu finding%s; said in its report): %s", (long)process->pid,
                process->damage.count, process->damage.count == 1 ? "" : "s", process->damage.text);
    }
    unsigned long others = 0;
    for (uint32_t i = 0; i < count; i++) {
        int reported = 0;
        for (size_t k = 0; k < reports && !reported; k++)
            reported = entries[k].process == all[i];
        others += all[i] != NULL && !reported && all[i]->damage.count > 0;
    }
    if (others > 0)
        say("%lu further record slots, of no reported process, are damaged or forged: ignored", others);
}

/* One line on stderr for each bound a reported process reached (the run-wide process bound is said once, later). */
static void say_limits(const struct process_report *entries, size_t reports)
{
    for (size_t i = 0; i < reports; i++) {
        struct ompc_limit limits[OMPC_LIMIT_KINDS];
        int count = ompc_limits_reached(entries[i].process, entries[i].report.event_log_bytes, limits);
        for (int k = 0; k < count; k++)
            if (strcmp(limits[k].what, "processes") != 0)
                say("pid %ld: %s", (long)entries[i].process->pid, limits[k].text);
    }
}

/* Picks the processes that get a report and fills in what the launcher knows of each; returns their count. */
static size_t choose_reports(struct run *run, struct ompc_model_process **all, uint32_t count,
                             struct process_report *entries)
{
    size_t reports = 0;
    int initial_taken = 0;
    for (uint32_t i = 0; i < count; i++) {
        struct ompc_model_process *process = all[i];
        if (process == NULL || process->state == OMPC_PROC_REFUSED || !process->openmp)
            continue;
        /* The launched process is always reported (its last image); others when they did OpenMP work. */
        int launched = process->pid == run->main_pid && process->state != OMPC_PROC_EXECED;
        if (!launched && !did_openmp_work(process))
            continue;
        struct process_report *entry = &entries[reports++];
        entry->process = process;
        entry->initial = !initial_taken && process->pid == run->main_pid;
        initial_taken |= entry->initial;
        describe(run, entry, all, count);
        entry->report.list_regions = run->list_regions;
        if (run->stacks) {
            entry->stacks = ompc_stacks_build(process);
            if (entry->stacks == NULL)
                say("out of memory reading the call stacks of pid %ld", (long)process->pid);
            else if (entry->stacks->frame_pointers_missing)
                /* The report says it too, but a flame graph made from --stacks=folded has no report to read. */
                say("pid %ld: %llu of %llu call stacks walked by frame pointers end before main: the program keeps no "
                    "frame pointers; --stacks-unwind=dwarf unwinds without them", (long)process->pid,
                    (unsigned long long)entry->stacks->walk_broken, (unsigned long long)entry->stacks->walked);
            entry->report.stacks = entry->stacks;
            entry->report.stacks_asked = 1;
        }
    }
    return reports;
}

/*
 * Reads every slot through the loader and writes a report for each process
 * that ran OpenMP: all to standard error, or each to its file (rank and pid
 * added to the name where the pattern does not tell processes apart).
 * Returns the number of reports, or -1 when the launched process was refused.
 */
int write_reports(struct run *run)
{
    uint32_t count = run->header.process_count;
    struct ompc_model_process **all = calloc(count, sizeof *all);
    struct process_report *entries = calloc(count, sizeof *entries);
    if (all == NULL || entries == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    /* A saved run says what its live record held (its copy leaves out zero pages the program touched). */
    if (run->session == NULL || run->record_data == 0)
        run->record_data = record_data_bytes(run->record_fd, run->header.total_size);
    load_all(run, all, count);
    if (report_refusals(run, all, count))
        return -1;
    size_t reports = choose_reports(run, all, count, entries);
    say_damage(all, count, entries, reports);
    say_limits(entries, reports);
    write_outputs(run, entries, reports);
    if (run->header.processes_dropped != 0)
        say("%u further processes found no free record slot (limit %d) and are not reported",
            run->header.processes_dropped, OMPC_MAX_PROCESSES);
    int any_slot = 0;
    for (size_t i = 0; i < reports; i++) {
        free(entries[i].runtime_file);
        free(entries[i].runtime_version);
        ompc_stacks_free(entries[i].stacks);
    }
    for (uint32_t i = 0; i < count; i++) {
        any_slot |= all[i] != NULL && all[i]->pid == run->main_pid;
        ompc_model_free(all[i]);
    }
    free(entries);
    free(all);
    if (reports == 0 && run->record_cut)
        say("no report: the record of '%s' was lost", run->command[0]);
    else if (reports == 0 && !any_slot && WIFEXITED(run->main_status) && WEXITSTATUS(run->main_status) == 127)
        /* The status the dynamic loader ends a process with when it cannot load or bind it. */
        say("'%s' ended with status 127 before the agent ran: the dynamic loader could not load it, or it was not "
            "found (the message above says which): no report", run->command[0]);
    else if (reports == 0 && !any_slot)
        say("the agent never ran in '%s' (a static program started by a script, setuid, or LD_PRELOAD removed?): "
            "no report", run->command[0]);
    else if (reports == 0)
        say("'%s' never loaded an OpenMP runtime, so there was nothing to observe (not an OpenMP program?): no report",
            run->command[0]);
    return (int)reports;
}
