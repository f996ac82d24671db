/* advice_write.c - the advice in every format: the text report's "Opportunities" and "Efficiency" sections, the CSV tables of efficiency and opportunities, and the JSON members, from the figures advice.c derived. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "jsonw.h"
#include "omp_collector_api.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* How many rows each of the text tables shows. */
#define TEXT_ROWS 15

/* The hint for a wait location, by what was waited for. */
static const char *wait_hint(int state)
{
    switch (state) {
    case THR_CTWT_STATE:
        return "threads queue for this critical section; a reduction clause, atomic updates or per-thread partial "
               "results combined once typically remove the wait";
    case THR_LKWT_STATE:
        return "threads queue for this lock; holding it for less time, or splitting it into finer-grained locks "
               "(one per data item), may remove the wait";
    case THR_ODWT_STATE:
        return "the ordered region runs one thread at a time; less work inside it, or a larger chunk, may shorten "
               "the wait";
    case THR_ATWT_STATE:
        return "threads contend for these atomic updates; per-thread partial results combined once (a reduction) "
               "may remove the contention";
    default:
        return "threads wait here; less work while others wait may shorten it";
    }
}

const char *ompc_finding_hint(const struct summary *summary, const struct ompc_finding *finding)
{
    const struct ompc_locations *locations = &summary->locations;
    switch (finding->kind) {
    case OMPC_FINDING_IMBALANCE:
        return "the threads' work in this construct is uneven; schedule(dynamic) or schedule(guided), or a smaller "
               "chunk, typically evens it out";
    case OMPC_FINDING_OVERHEAD: {
        if (ompc_construct_short_regions(&locations->constructs[finding->index]))
            return "many short parallel regions; merging them into fewer, longer ones (one parallel region around "
                   "the loop that forks them) may remove most of the fork/join cost";
        return "the runtime's own work (forking, joining, handing out chunks, reducing) is large here; larger "
               "chunks or fewer worksharing constructs may reduce it";
    }
    case OMPC_FINDING_WAIT:
        if (ompc_wait_is_task_wait(&locations->waits[finding->index]))
            return "threads wait here for child tasks while too few tasks are ready to run; tasks too small for "
                   "their overhead (a coarser cut-off) or too few of them (more independent tasks, a smaller "
                   "taskloop grainsize) are typical causes";
        return wait_hint(locations->waits[finding->index].state);
    case OMPC_FINDING_MPI_WAIT:
        return "this rank waits here for the other ranks (its other threads idle meanwhile); balancing the ranks' "
               "work (moving work from the slowest rank, another decomposition) may recover this time";
    case OMPC_FINDING_TOO_FINE:
        return "these tasks are small next to what creating and scheduling each costs; a coarser cutoff or grain "
               "size (a final or if clause, a larger taskloop grainsize) may help";
    default:
        return "the other threads idle while serial code runs; parallelising that code, or overlapping it with "
               "parallel work, may recover this time";
    }
}

/* A finding's kind as the CSV and JSON name it. */
static const char *finding_kind_name(const struct summary *summary, const struct ompc_finding *finding)
{
    switch (finding->kind) {
    case OMPC_FINDING_IMBALANCE:
        return "imbalance";
    case OMPC_FINDING_OVERHEAD:
        return "overhead";
    case OMPC_FINDING_TOO_FINE:
        return "too_fine_tasks";
    case OMPC_FINDING_MPI_WAIT:
        return "mpi_wait";
    case OMPC_FINDING_WAIT:
        switch (summary->locations.waits[finding->index].state) {
        case THR_CTWT_STATE:
            return "critical";
        case THR_LKWT_STATE:
            return "lock";
        case THR_ODWT_STATE:
            return "ordered";
        case THR_ATWT_STATE:
            return "atomic";
        default:
            return ompc_wait_is_task_wait(&summary->locations.waits[finding->index]) ? "taskwait" : "wait";
        }
    default:
        return "serial";
    }
}

/* What and where a finding is: its description ("imbalance", "critical(accum)") and the location, if any. */
static const char *finding_what(const struct summary *summary, const struct ompc_finding *finding,
                                char *buffer, size_t size, const struct ompc_location **where, uint64_t *codeptr)
{
    const struct ompc_locations *locations = &summary->locations;
    *where = NULL;
    *codeptr = 0;
    if (finding->kind == OMPC_FINDING_WAIT) {
        const struct ompc_wait_row *row = &locations->waits[finding->index];
        *where = &row->where;
        *codeptr = row->codeptr;
        return ompc_wait_what(row, buffer, size);
    }
    if (finding->kind == OMPC_FINDING_SERIAL) {
        /* The busiest place of serial code is where the finding is; the detail names the next ones. */
        if (locations->serial.count > 0) {
            *where = &locations->serial.rows[0].where;
            *codeptr = locations->serial.rows[0].address;
        }
        snprintf(buffer, size, "serial code");
        return buffer;
    }
    if (finding->kind == OMPC_FINDING_MPI_WAIT) {
        const struct ompc_mpi_site_row *row = &locations->mpi.rows[finding->index];
        *where = &row->where;
        *codeptr = row->sum.site;
        snprintf(buffer, size, "MPI waiting in %s", ompc_mpi_call_name(row->sum.call));
        return buffer;
    }
    if (finding->kind == OMPC_FINDING_TOO_FINE) {
        const struct ompc_task_construct_row *site = &locations->task_constructs[finding->index];
        *where = &site->where;
        *codeptr = site->sum.codeptr;
        snprintf(buffer, size, "too-fine tasks");
        return buffer;
    }
    const struct ompc_construct_row *row = &locations->constructs[finding->index];
    *where = &row->where;
    *codeptr = row->codeptr;
    snprintf(buffer, size, finding->kind == OMPC_FINDING_IMBALANCE ? "load imbalance" : "runtime overhead");
    return buffer;
}

/* A share of the run, as a percentage. */
static double run_share(const struct ompc_advice *advice, double seconds)
{
    return advice->run_s > 0 ? 100.0 * seconds / advice->run_s : 0.0;
}

/*
 * A too-fine finding's numbers: the one overhead per task its gain is made
 * of (creation, and the scheduling and waiting per task run that thread
 * sched_thread showed), the tasks and threads it is multiplied and divided
 * by, and the check that found them too fine.
 */
static void too_fine_detail(const struct ompc_advice *advice, int index, char *buffer, size_t size)
{
    const struct ompc_task_grain *grain = &advice->tasks.constructs[index];
    snprintf(buffer, size,
             "mean task %.2f us against %.2f us of overhead per task = creation %.2f us (%.2f us of it the runtime's "
             "work sampled in its code) + scheduling and waiting "
             "%.2f us per task run (thread %d's); %" PRIu64 " tasks x %.2f us over %d threads; too fine: under %dx "
             "the least overhead %.2f us (scheduling counted at most as creation)",
             grain->mean_ns / 1e3, grain->cost_per_task_ns / 1e3, grain->create_ns / 1e3,
             advice->tasks.runtime_per_task_ns / 1e3,
             (grain->cost_per_task_ns - grain->create_ns) / 1e3, advice->tasks.sched_thread, grain->created,
             grain->cost_per_task_ns / 1e3, advice->threads, OMPC_TOO_FINE_FACTOR, grain->overhead_ns / 1e3);
}

/*
 * A lock, critical, atomic or ordered finding's figures: the waiting, the
 * body it serialises, and the two gains (ompcollect(1), POTENTIAL GAIN):
 * the exclusion gone, and the body kept serial.
 */
static void exclusion_detail(const struct ompc_advice *advice, const struct ompc_wait_row *row, int index,
                             char *buffer, size_t size)
{
    int wrote = snprintf(buffer, size, "%s over %d thread%s: %.3f s waited", ompc_state_name(row->state),
                         row->threads, row->threads == 1 ? "" : "s",
                         (double)row->ticks * advice->interval_s);
    if (wrote < 0 || (size_t)wrote >= size)
        return;
    if (row->held_ticks == 0) {
        snprintf(buffer + wrote, size - (size_t)wrote, ", body not measured");
        return;
    }
    snprintf(buffer + wrote, size - (size_t)wrote,
             ", body %.3f s held (serial); without the exclusion up to %.3f s, the body kept serial up to %.3f s",
             advice->wait_body_s[index], advice->wait_gain_s[index], advice->wait_kept_gain_s[index]);
}

/* A runtime-overhead finding's figures: the samples its gain is made of, and how many instances of what length. */
static void overhead_detail(const struct summary *summary, int index, char *buffer, size_t size)
{
    const struct ompc_construct_row *row = &summary->locations.constructs[index];
    const struct ompc_construct_advice *c = &summary->advice.constructs[index];
    if (ompc_construct_short_regions(row))
        snprintf(buffer, size, "%" PRIu64 " instances of %.1f us on average; OVHD, REDUC and the join's barrier "
                 "waiting %" PRIu64 " samples over %d threads", row->instances,
                 (double)row->total_ns / (double)row->instances / 1e3, c->overhead_samples, c->team);
    else
        snprintf(buffer, size, "scheduling efficiency %.2f; OVHD, REDUC %" PRIu64 " samples over %d threads",
                 c->efficiency.scheduling, c->overhead_samples, c->team);
}

/*
 * A serial finding's figures: Amdahl's bound, and how the serial samples
 * share out over the busiest functions, so that the user sees whether one
 * place or many hold the serial time.
 */
static void serial_detail(const struct summary *summary, char *buffer, size_t size)
{
    const struct ompc_advice *advice = &summary->advice;
    const struct ompc_serial_places *serial = &summary->locations.serial;
    size_t length = 0;
    int wrote = 0;
    if (advice->amdahl_limit > 0)
        wrote = snprintf(buffer, size, "serial %.3f s on the initial thread, fraction %.2f: run on %d threads it "
                         "saves 1 - 1/%d of it, Amdahl's bound %.2fx", advice->serial_located_s,
                         advice->serial_fraction, advice->threads, advice->threads, advice->amdahl_speedup);
    uint64_t all = serial->located_ticks + serial->dropped;
    /* A place under 1% of the serial samples is not where a fix would start. */
    for (int i = 0; i < serial->count && i < 3 && 100 * serial->rows[i].ticks >= all && wrote >= 0
                    && (size_t)wrote < size - length;
         i++) {
        length += (size_t)wrote;
        char label[256];
        wrote = snprintf(buffer + length, size - length, "%s%.0f%% of it in %s", length > 0 ? (i ? ", " : "; ") : "",
                         all ? 100.0 * (double)serial->rows[i].ticks / (double)all : 0.0,
                         ompc_serial_label(&serial->rows[i], label, sizeof label));
    }
}

/* An MPI wait's figures: its calls, and the other threads idle meanwhile. */
static void mpi_wait_detail(const struct summary *summary, const struct ompc_mpi_site_row *row, char *buffer,
                            size_t size)
{
    snprintf(buffer, size, "%" PRIu64 " call%s, %" PRIu64 " samples inside; the other threads idle %" PRIu64
             " samples while the initial thread was in MPI", row->sum.calls, row->sum.calls == 1 ? "" : "s",
             row->sum.ticks, summary->advice.process.mpi_idle);
}

/* The figure behind a finding: the construct's load balance, the waiting threads, the task sizes, Amdahl's bound ("" none). */
static const char *finding_detail(const struct summary *summary, const struct ompc_finding *finding, char *buffer,
                                  size_t size)
{
    const struct ompc_advice *advice = &summary->advice;
    const struct ompc_wait_row *wait = finding->kind == OMPC_FINDING_WAIT ? &summary->locations.waits[finding->index]
                                                                          : NULL;
    buffer[0] = '\0';
    if (finding->kind == OMPC_FINDING_IMBALANCE)
        snprintf(buffer, size, "load balance %.2f", advice->constructs[finding->index].efficiency.load_balance);
    else if (finding->kind == OMPC_FINDING_OVERHEAD)
        overhead_detail(summary, finding->index, buffer, size);
    else if (wait != NULL && wait->state != THR_IBAR_STATE && wait->state != THR_EBAR_STATE)
        exclusion_detail(advice, wait, finding->index, buffer, size);
    else if (wait != NULL)
        snprintf(buffer, size, "%s over %d thread%s", ompc_state_name(wait->state), wait->threads,
                 wait->threads == 1 ? "" : "s");
    else if (finding->kind == OMPC_FINDING_TOO_FINE)
        too_fine_detail(advice, finding->index, buffer, size);
    else if (finding->kind == OMPC_FINDING_SERIAL)
        serial_detail(summary, buffer, size);
    else if (finding->kind == OMPC_FINDING_MPI_WAIT)
        mpi_wait_detail(summary, &summary->locations.mpi.rows[finding->index], buffer, size);
    return buffer;
}

void ompc_advice_text_opportunities(const struct summary *summary, FILE *out)
{
    const struct ompc_advice *advice = &summary->advice;
    if (!advice->known)
        return;
    fputs("\nOpportunities (largest potential gain first; hypotheses to try, see \"Efficiency\" below):\n",
          out);
    if (advice->finding_count == 0)
        fprintf(out, "  none would gain %.0f%% of the run or more on %d samples or more\n",
                100.0 * OMPC_FINDING_MIN_SHARE, OMPC_FINDING_MIN_SAMPLES);
    for (int i = 0; i < advice->finding_count; i++) {
        const struct ompc_finding *finding = &advice->findings[i];
        const struct ompc_location *where;
        uint64_t codeptr;
        char what[256], label[512], detail[512];
        fprintf(out, "  %d. %s", i + 1, finding_what(summary, finding, what, sizeof what, &where, &codeptr));
        /* Serial code is summed by function (a module without symbols as one): its label says so. */
        if (where != NULL && finding->kind == OMPC_FINDING_SERIAL && summary->locations.serial.count > 0)
            fprintf(out, " at %s", ompc_serial_label(&summary->locations.serial.rows[0], label, sizeof label));
        else if (where != NULL)
            fprintf(out, " at %s", ompc_location_label(where, codeptr, label, sizeof label));
        if (*finding_detail(summary, finding, detail, sizeof detail) != '\0')
            fprintf(out, " (%s)", detail);
        fprintf(out, ": up to %.3f s (%.1f%% of the run)\n     %s\n", finding->gain_s,
                run_share(advice, finding->gain_s), ompc_finding_hint(summary, finding));
    }
}

/*
 * The synchronisation line: its samples, and of them only the causes that
 * had any -- a metric that names no cause the tables below show empty.
 */
static void text_sync_causes(const struct summary *summary, FILE *out)
{
    const struct ompc_efficiency *e = &summary->advice.process;
    static const struct {
        int state;
        const char *name;
    } causes[] = {{THR_CTWT_STATE, "critical"}, {THR_LKWT_STATE, "lock"}, {THR_ODWT_STATE, "ordered"},
                  {THR_ATWT_STATE, "atomic"}};
    uint64_t mutex = 0;
    const char *separator = ": ";
    fprintf(out, "  synchronisation     %6.3f  %" PRIu64 " samples", e->synchronisation, e->sync);
    for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++) {
        uint64_t ticks = summary->state_ticks[causes[i].state];
        mutex += ticks;
        if (ticks > 0) {
            fprintf(out, "%s%s waits %" PRIu64, separator, causes[i].name, ticks);
            separator = ", ";
        }
    }
    if (e->sync > mutex)
        fprintf(out, "%sbarrier and task waiting beyond the imbalance %" PRIu64, separator, e->sync - mutex);
    fputc('\n', out);
}

/* The process-wide metrics, each with the samples it comes from. */
static void text_process_metrics(const struct summary *summary, FILE *out)
{
    const struct ompc_advice *advice = &summary->advice;
    const struct ompc_efficiency *e = &advice->process;
    fprintf(out, "\nEfficiency (POP metrics over the %d OpenMP threads' %" PRIu64 " samples; ompcollect(1) "
                 "defines them):\n", advice->threads, e->samples);
    fprintf(out, "  parallel efficiency %6.3f  useful (WORK, SERIAL): %" PRIu64 " samples\n", e->parallel, e->useful);
    fprintf(out, "  load balance        %6.3f  %" PRIu64 " samples of barrier waiting that balanced work would "
                 "remove\n", e->load_balance, e->imbalance);
    text_sync_causes(summary, out);
    if (advice->task_sched == 0)
        fprintf(out, "  scheduling          %6.3f  %" PRIu64 " samples of the runtime's own work (OVHD, REDUC)\n",
                e->scheduling, e->sched);
    else
        fprintf(out, "  scheduling          %6.3f  %" PRIu64 " samples of the runtime's own work (OVHD, REDUC) and "
                     "task scheduling (%" PRIu64 " of them, see \"Tasks\")\n", e->scheduling, e->sched,
                advice->task_sched);
    if (e->before_threads == 0)
        fprintf(out, "  serialisation       %6.3f  %" PRIu64 " samples idle outside parallel regions (IDLE)\n",
                e->serialisation, e->serial);
    else
        fprintf(out, "  serialisation       %6.3f  %" PRIu64 " samples idle outside parallel regions (IDLE), %" PRIu64
                     " of them before the runtime started the threads\n",
                e->serialisation, e->serial, e->before_threads);
    if (summary->process->mpi_active)
        fprintf(out, "  MPI waiting         %" PRIu64 " samples idle while the initial thread was inside MPI (IDLE, "
                     "not serialisation); MPI_Init and MPI_Finalize %.3f s in %" PRIu64 " calls, apart from "
                     "communication\n", e->mpi_idle, summary->process->mpi_setup_ns / 1e9,
                summary->process->mpi_setup_calls);
    if (advice->serial_fraction >= OMPC_FINDING_MIN_SHARE)
        fprintf(out, "  serial fraction %.3f of the initial thread's samples: Amdahl's bound %.2fx on %d threads, "
                     "%.2fx on any number\n", advice->serial_fraction, advice->amdahl_speedup, advice->threads,
                advice->amdahl_limit);
}

/* A gain as "seconds share%" cells, "." for none. */
static void text_gain(const struct ompc_advice *advice, double seconds, FILE *out)
{
    if (seconds > 0)
        fprintf(out, " %9.3f %5.1f", seconds, run_share(advice, seconds));
    else
        fprintf(out, " %9s %5s", ".", ".");
}

/* Each construct's metrics and what balancing it or removing its overhead would gain. */
static void text_constructs(const struct summary *summary, FILE *out)
{
    const struct ompc_advice *advice = &summary->advice;
    const struct ompc_locations *locations = &summary->locations;
    char label[512];
    if (locations->construct_count == 0)
        return;
    fprintf(out, "\nPotential gain by construct (elapsed seconds and %% of the %.3f s run):\n", advice->run_s);
    fprintf(out, "  %-32s %8s %7s %6s %6s %9s %5s %9s %5s\n", "construct", "parallel", "balance", "sync", "sched",
            "balanced", "%", "no ovhd", "%");
    for (int i = 0; i < locations->construct_count && i < TEXT_ROWS; i++) {
        const struct ompc_construct_row *row = &locations->constructs[i];
        const struct ompc_construct_advice *c = &advice->constructs[i];
        if (c->efficiency.samples == 0)
            fprintf(out, "  %-32s %8s %7s %6s %6s", ompc_construct_label(row, label, sizeof label), "-", "-", "-",
                    "-");
        else
            fprintf(out, "  %-32s %8.3f %7.3f %6.3f %6.3f",
                    ompc_construct_label(row, label, sizeof label), c->efficiency.parallel,
                    c->efficiency.load_balance, c->efficiency.synchronisation, c->efficiency.scheduling);
        text_gain(advice, c->balance_gain_s, out);
        text_gain(advice, c->overhead_gain_s, out);
        fputc('\n', out);
    }
    if (locations->construct_count > TEXT_ROWS)
        fprintf(out, "  ... %d more constructs\n", locations->construct_count - TEXT_ROWS);
    fputs("  balanced = the longest thread's WORK minus the mean thread's (at most the barrier waiting); "
          "no ovhd = OVHD, REDUC per thread\n  (and for instances under 1 ms on average, their barrier waiting "
          "beyond the imbalance: the join of a short region)\n", out);
}

/* Each wait location's waiting, averaged over the threads: what the run would save without it. */
static void text_waits(const struct summary *summary, FILE *out)
{
    const struct ompc_advice *advice = &summary->advice;
    const struct ompc_locations *locations = &summary->locations;
    char label[512], what[256];
    if (locations->wait_count == 0)
        return;
    fprintf(out, "\nPotential gain by wait location (its waiting over the %d threads; seconds and %% of the run):\n",
            advice->threads);
    for (int i = 0; i < locations->wait_count && i < TEXT_ROWS; i++) {
        const struct ompc_wait_row *row = &locations->waits[i];
        fprintf(out, "  %-28s at %-30s %-5s", ompc_wait_what(row, what, sizeof what),
                ompc_location_label(&row->where, row->codeptr, label, sizeof label), ompc_state_name(row->state));
        text_gain(advice, advice->wait_gain_s[i], out);
        fputc('\n', out);
    }
    if (locations->wait_count > TEXT_ROWS)
        fprintf(out, "  ... %d more locations\n", locations->wait_count - TEXT_ROWS);
}

void ompc_advice_text_efficiency(const struct summary *summary, FILE *out)
{
    if (!summary->advice.known)
        return;
    text_process_metrics(summary, out);
    text_constructs(summary, out);
    text_waits(summary, out);
}

/* A real with `decimals` places as a CSV field, empty when it is no number. */
static void csv_real(FILE *out, double value, int decimals)
{
    if (isfinite(value))
        fprintf(out, ",%.*f", decimals, value);
    else
        fputc(',', out);
}

/* The losses and efficiencies of an ompc_efficiency as CSV fields, each after a comma. */
static void csv_efficiency(FILE *out, const struct ompc_efficiency *e)
{
    fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, e->samples, e->useful,
            e->imbalance, e->sync, e->sched, e->serial);
    csv_real(out, e->parallel, 3);
    csv_real(out, e->load_balance, 3);
    csv_real(out, e->synchronisation, 3);
    csv_real(out, e->scheduling, 3);
    csv_real(out, e->serialisation, 3);
}

#define CSV_EFFICIENCY_COLUMNS                                                                                   \
    "samples,useful,load_imbalance,synchronisation,scheduling,serialisation,parallel_efficiency,load_balance," \
    "synchronisation_efficiency,scheduling_efficiency,serialisation_efficiency"

/* function,file,line of a location as CSV fields, each after a comma. */
static void csv_where(FILE *out, const struct ompc_location *where)
{
    fputc(',', out);
    ompc_csv_string(out, where != NULL ? where->function : NULL);
    fputc(',', out);
    ompc_csv_string(out, where != NULL ? where->file : NULL);
    fputc(',', out);
    if (where != NULL && where->kind == OMPC_LOC_LINE)
        fprintf(out, "%d", where->line);
}

/* The "efficiency" and "construct_efficiency" tables. */
static int csv_efficiency_tables(const struct summary *summary, struct ompc_csv_tables *tables)
{
    const struct ompc_advice *advice = &summary->advice;
    FILE *out = ompc_csv_begin(tables, "efficiency");
    if (out == NULL)
        return -1;
    fputs("threads," CSV_EFFICIENCY_COLUMNS ",serial_fraction,amdahl_speedup,amdahl_limit,serial_gain_s\n", out);
    if (advice->known) {
        ompc_csv_lead(tables);
        fprintf(out, "%d", advice->threads);
        csv_efficiency(out, &advice->process);
        fprintf(out, ",%.3f,%.3f,%.3f,%.6f\n", advice->serial_fraction, advice->amdahl_speedup,
                advice->amdahl_limit, advice->serial_gain_s);
    }
    if ((out = ompc_csv_begin(tables, "construct_efficiency")) == NULL)
        return -1;
    fputs("codeptr,function,file,line,team," CSV_EFFICIENCY_COLUMNS
          ",balance_gain_s,balance_gain_share,overhead_gain_s,overhead_gain_share\n", out);
    for (int i = 0; advice->known && i < summary->locations.construct_count; i++) {
        const struct ompc_construct_row *row = &summary->locations.constructs[i];
        const struct ompc_construct_advice *c = &advice->constructs[i];
        ompc_csv_lead(tables);
        fprintf(out, "0x%" PRIx64, row->codeptr);
        csv_where(out, &row->where);
        fprintf(out, ",%d", c->team);
        csv_efficiency(out, &c->efficiency);
        fprintf(out, ",%.6f,%.4f,%.6f,%.4f\n", c->balance_gain_s, run_share(advice, c->balance_gain_s) / 100,
                c->overhead_gain_s, run_share(advice, c->overhead_gain_s) / 100);
    }
    return 0;
}

int ompc_advice_csv(const struct summary *summary, struct ompc_csv_tables *tables)
{
    const struct ompc_advice *advice = &summary->advice;
    char what[256], detail[512];
    if (csv_efficiency_tables(summary, tables) != 0)
        return -1;
    FILE *out = ompc_csv_begin(tables, "wait_gain");
    if (out == NULL)
        return -1;
    fputs("state,kind,codeptr,function,file,line,samples,gain_s,gain_share\n", out);
    for (int i = 0; advice->known && i < summary->locations.wait_count; i++) {
        const struct ompc_wait_row *row = &summary->locations.waits[i];
        ompc_csv_lead(tables);
        fprintf(out, "%s,", ompc_state_name(row->state));
        ompc_csv_string(out, ompc_wait_what(row, what, sizeof what));
        fprintf(out, ",0x%" PRIx64, row->codeptr);
        csv_where(out, &row->where);
        fprintf(out, ",%" PRIu64 ",%.6f,%.4f\n", row->ticks, advice->wait_gain_s[i],
                run_share(advice, advice->wait_gain_s[i]) / 100);
    }
    if ((out = ompc_csv_begin(tables, "opportunity")) == NULL)
        return -1;
    fputs("rank,kind,what,codeptr,function,file,line,gain_s,gain_share,hint,detail\n", out);
    for (int i = 0; i < advice->finding_count; i++) {
        const struct ompc_finding *finding = &advice->findings[i];
        const struct ompc_location *where;
        uint64_t codeptr;
        ompc_csv_lead(tables);
        fprintf(out, "%d,%s,", i + 1, finding_kind_name(summary, finding));
        ompc_csv_string(out, finding_what(summary, finding, what, sizeof what, &where, &codeptr));
        fprintf(out, ",0x%" PRIx64, codeptr);
        csv_where(out, where);
        fprintf(out, ",%.6f,%.4f,", finding->gain_s, run_share(advice, finding->gain_s) / 100);
        ompc_csv_string(out, ompc_finding_hint(summary, finding));
        fputc(',', out);
        ompc_csv_string(out, finding_detail(summary, finding, detail, sizeof detail));
        fputc('\n', out);
    }
    return 0;
}

/* An ompc_efficiency as JSON: the samples of each kind and the efficiencies (null: no samples). */
static json_t *json_efficiency(const struct ompc_efficiency *e)
{
    json_t *object = json_object(), *lost = json_object();
    int failed = ompc_json_set(object, "samples", ompc_json_u64(e->samples));
    failed |= ompc_json_set(object, "useful", ompc_json_u64(e->useful));
    failed |= ompc_json_set(lost, "load_imbalance", ompc_json_u64(e->imbalance));
    failed |= ompc_json_set(lost, "synchronisation", ompc_json_u64(e->sync));
    failed |= ompc_json_set(lost, "scheduling", ompc_json_u64(e->sched));
    failed |= ompc_json_set(lost, "serialisation", ompc_json_u64(e->serial));
    failed |= ompc_json_set(lost, "mpi_idle", ompc_json_u64(e->mpi_idle));
    failed |= ompc_json_set(lost, "before_threads", ompc_json_u64(e->before_threads));
    failed |= ompc_json_set(object, "lost", lost);
    failed |= ompc_json_set(object, "parallel_efficiency", ompc_json_fixed(e->parallel, 3));
    failed |= ompc_json_set(object, "load_balance", ompc_json_fixed(e->load_balance, 3));
    failed |= ompc_json_set(object, "synchronisation_efficiency", ompc_json_fixed(e->synchronisation, 3));
    failed |= ompc_json_set(object, "scheduling_efficiency", ompc_json_fixed(e->scheduling, 3));
    failed |= ompc_json_set(object, "serialisation_efficiency", ompc_json_fixed(e->serialisation, 3));
    return ompc_json_built(object, failed);
}

/* {"address", "function", "file", "line"} of a location (nulls where unknown). */
static json_t *json_where(uint64_t codeptr, const struct ompc_location *where)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "address", ompc_json_hex(codeptr, 0));
    failed |= ompc_json_set(object, "function", ompc_json_string_or_null(where != NULL ? where->function : NULL));
    failed |= ompc_json_set(object, "file", ompc_json_string_or_null(where != NULL ? where->file : NULL));
    failed |= ompc_json_set(object, "line", where != NULL && where->kind == OMPC_LOC_LINE ? json_integer(where->line)
                                                                                         : json_null());
    return ompc_json_built(object, failed);
}

/* One MPI call site: the call, where the program made it, and its calls, time and samples. */
static json_t *json_mpi_site(const struct ompc_mpi_site_row *row)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "call", json_string(ompc_mpi_call_name(row->sum.call)));
    failed |= ompc_json_set(object, "location", json_where(row->sum.site, &row->where));
    failed |= ompc_json_set(object, "setup", json_boolean(row->setup));
    failed |= ompc_json_set(object, "calls", ompc_json_u64(row->sum.calls));
    failed |= ompc_json_set(object, "ns", ompc_json_u64(row->sum.ns));
    failed |= ompc_json_set(object, "samples", ompc_json_u64(row->sum.ticks));
    return ompc_json_built(object, failed);
}

int ompc_mpi_json(const struct summary *summary, json_t *mpi)
{
    const struct ompc_mpi_sites *sites = &summary->locations.mpi;
    int failed = ompc_json_set(mpi, "setup_ns", ompc_json_u64(summary->process->mpi_setup_ns));
    failed |= ompc_json_set(mpi, "setup_calls", ompc_json_u64(summary->process->mpi_setup_calls));
    failed |= ompc_json_set(mpi, "idle_samples", ompc_json_u64(summary->mpi_idle_ticks));
    json_t *rows = json_array();
    for (int i = 0; i < sites->count && rows != NULL; i++)
        failed |= ompc_json_append(rows, json_mpi_site(&sites->rows[i]));
    failed |= ompc_json_set(mpi, "sites", rows);
    failed |= ompc_json_set(mpi, "sites_dropped", ompc_json_u64(sites->dropped));
    return failed ? -1 : 0;
}

/* A gain as {"seconds", "share"} of the run. */
static json_t *json_gain(const struct ompc_advice *advice, double seconds)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "seconds", ompc_json_fixed(seconds, 6));
    failed |= ompc_json_set(object, "share", ompc_json_fixed(run_share(advice, seconds) / 100, 4));
    return ompc_json_built(object, failed);
}

/* One construct's metrics and gains, in the order of the report's "constructs". */
static json_t *json_construct(const struct summary *summary, int i)
{
    const struct ompc_construct_row *row = &summary->locations.constructs[i];
    const struct ompc_construct_advice *c = &summary->advice.constructs[i];
    json_t *object = json_object();
    int failed = ompc_json_set(object, "location", json_where(row->codeptr, &row->where));
    failed |= ompc_json_set(object, "team", json_integer(c->team));
    failed |= ompc_json_set(object, "efficiency", json_efficiency(&c->efficiency));
    failed |= ompc_json_set(object, "balance_gain", json_gain(&summary->advice, c->balance_gain_s));
    failed |= ompc_json_set(object, "overhead_gain", json_gain(&summary->advice, c->overhead_gain_s));
    return ompc_json_built(object, failed);
}

/* One wait location's gain, in the order of the report's "wait_locations". */
static json_t *json_wait(const struct summary *summary, int i)
{
    const struct ompc_wait_row *row = &summary->locations.waits[i];
    char what[256];
    json_t *object = json_object();
    int failed = ompc_json_set(object, "state", json_string(ompc_state_name(row->state)));
    failed |= ompc_json_set(object, "what", ompc_json_string(ompc_wait_what(row, what, sizeof what)));
    failed |= ompc_json_set(object, "location", json_where(row->codeptr, &row->where));
    failed |= ompc_json_set(object, "gain", json_gain(&summary->advice, summary->advice.wait_gain_s[i]));
    failed |= ompc_json_set(object, "body_seconds", ompc_json_fixed(summary->advice.wait_body_s[i], 6));
    failed |= ompc_json_set(object, "kept_serial_gain", json_gain(&summary->advice, summary->advice.wait_kept_gain_s[i]));
    return ompc_json_built(object, failed);
}

/* "efficiency": the process's metrics, Amdahl's bounds, and the constructs' and wait locations' gains. */
static json_t *json_process(const struct summary *summary)
{
    const struct ompc_advice *advice = &summary->advice;
    json_t *object = json_efficiency(&advice->process), *constructs = json_array(), *waits = json_array();
    int failed = ompc_json_set(object, "threads", json_integer(advice->threads));
    failed |= ompc_json_set(object, "task_scheduling", ompc_json_u64(advice->task_sched));
    failed |= ompc_json_set(object, "serial_seconds", ompc_json_fixed(advice->serial_located_s, 6));
    failed |= ompc_json_set(object, "serial_fraction", ompc_json_fixed(advice->serial_fraction, 3));
    failed |= ompc_json_set(object, "amdahl_speedup", ompc_json_fixed(advice->amdahl_speedup, 3));
    failed |= ompc_json_set(object, "amdahl_limit",
                            advice->amdahl_limit > 0 ? ompc_json_fixed(advice->amdahl_limit, 3) : json_null());
    failed |= ompc_json_set(object, "serial_gain", json_gain(advice, advice->serial_gain_s));
    for (int i = 0; i < summary->locations.construct_count && !failed; i++)
        failed = ompc_json_append(constructs, json_construct(summary, i));
    for (int i = 0; i < summary->locations.wait_count && !failed; i++)
        failed = ompc_json_append(waits, json_wait(summary, i));
    failed |= ompc_json_set(object, "constructs", constructs);
    failed |= ompc_json_set(object, "wait_locations", waits);
    return ompc_json_built(object, failed);
}

/* A too-fine finding's numbers, in nanoseconds: the mean task, the overhead per task and its parts. */
static json_t *json_grain(const struct ompc_advice *advice, int index)
{
    const struct ompc_task_grain *grain = &advice->tasks.constructs[index];
    json_t *object = json_object();
    int failed = ompc_json_set(object, "mean_task_ns", ompc_json_fixed(grain->mean_ns, 1));
    failed |= ompc_json_set(object, "overhead_ns", ompc_json_fixed(grain->overhead_ns, 1));
    failed |= ompc_json_set(object, "create_ns", ompc_json_fixed(grain->create_ns, 1));
    failed |= ompc_json_set(object, "runtime_per_task_ns", ompc_json_fixed(advice->tasks.runtime_per_task_ns, 1));
    failed |= ompc_json_set(object, "sched_ns", ompc_json_fixed(grain->sched_ns, 1));
    failed |= ompc_json_set(object, "waited_per_run_ns", ompc_json_fixed(advice->tasks.sched_ns, 1));
    failed |= ompc_json_set(object, "waited_thread", json_integer(advice->tasks.sched_thread));
    failed |= ompc_json_set(object, "work_share", ompc_json_fixed(advice->tasks.work_share, 3));
    failed |= ompc_json_set(object, "factor", json_integer(OMPC_TOO_FINE_FACTOR));
    failed |= ompc_json_set(object, "tasks", ompc_json_u64(grain->created));
    failed |= ompc_json_set(object, "cost_per_task_ns", ompc_json_fixed(grain->cost_per_task_ns, 1));
    return ompc_json_built(object, failed);
}

/* One opportunity: its rank, kind, what and where, its gain, the hint and the figures behind it. */
static json_t *json_finding(const struct summary *summary, int i)
{
    const struct ompc_finding *finding = &summary->advice.findings[i];
    const struct ompc_location *where;
    uint64_t codeptr;
    char what[256], detail[512];
    json_t *object = json_object();
    int failed = ompc_json_set(object, "rank", json_integer(i + 1));
    failed |= ompc_json_set(object, "kind", json_string(finding_kind_name(summary, finding)));
    failed |= ompc_json_set(object, "what",
                            ompc_json_string(finding_what(summary, finding, what, sizeof what, &where, &codeptr)));
    failed |= ompc_json_set(object, "location", where != NULL ? json_where(codeptr, where) : json_null());
    failed |= ompc_json_set(object, "gain", json_gain(&summary->advice, finding->gain_s));
    failed |= ompc_json_set(object, "hint", json_string(ompc_finding_hint(summary, finding)));
    failed |= ompc_json_set(object, "detail", ompc_json_string(finding_detail(summary, finding, detail, sizeof detail)));
    if (finding->kind == OMPC_FINDING_TOO_FINE)
        failed |= ompc_json_set(object, "tasks", json_grain(&summary->advice, finding->index));
    return ompc_json_built(object, failed);
}

int ompc_advice_json(const struct summary *summary, json_t *root)
{
    json_t *list = json_array();
    int failed = ompc_json_set(root, "efficiency", summary->advice.known ? json_process(summary) : json_null());
    for (int i = 0; i < summary->advice.finding_count && !failed; i++)
        failed = ompc_json_append(list, json_finding(summary, i));
    failed |= ompc_json_set(root, "opportunities", list);
    return failed ? -1 : 0;
}
