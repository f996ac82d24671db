/* report.c - turns what the agent recorded into the text, CSV or JSON report and the SVG timeline. */
#include <config.h>

#include "agent.h"
#include "omp_collector_api.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* How many rows the text report shows before summarising the rest. */
#define TEXT_REGION_ROWS 15
#define TEXT_WAIT_ROWS 10

/* One object wait id, merged over every thread that waited for it. */
struct merged_wait {
    int state;
    uint64_t id;
    uint64_t ticks;
    int threads;
};

/* Everything derived once from the raw tables, shared by all formats. */
struct summary {
    const struct ompc_run *run;
    int thread_count;
    uint64_t total_ticks;
    uint64_t state_ticks[OMPC_NSTATES];
    const struct ompc_region **regions; /* by id */
    int region_count;
    uint64_t forks, joins, outermost_ns;
    struct merged_wait *waits; /* most samples first */
    int wait_count;
    uint64_t wait_overflow_ticks;
};

/* Counters are final by now; relaxed loads keep the reads well defined without fences. */
static uint64_t load64(const _Atomic uint64_t *value)
{
    return atomic_load_explicit(value, memory_order_relaxed);
}

/* Samples over all states (and invalid answers) of a thread's or region's counters. */
static uint64_t state_total(const _Atomic uint64_t *ticks)
{
    uint64_t total = 0;
    for (int state = 0; state < OMPC_NSTATES; state++)
        total += load64(&ticks[state]);
    return total;
}

/* Samples of a thread, all states together. */
static uint64_t thread_ticks(const struct ompc_thread *thread)
{
    return state_total(thread->state_ticks);
}

/* How long the thread was sampled: from its slot's claim to its exit or the report. */
static uint64_t thread_lifetime_ns(const struct ompc_thread *thread)
{
    uint64_t end = load64(&thread->end_ns);
    return end > thread->start_ns ? end - thread->start_ns : 0;
}

/* Samples the thread's lifetime allows at the configured interval. */
static uint64_t thread_expected_ticks(const struct ompc_run *run, const struct ompc_thread *thread)
{
    return thread_lifetime_ns(thread) / (uint64_t)run->interval_ns;
}

/* Samples taken inside a region, all states together. */
static uint64_t region_ticks(const struct ompc_region *region)
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
static uint64_t event_count(const struct ompc_run *run, int event)
{
    uint64_t total = load64(&run->untracked->events[event]);
    for (int i = 0; i < run->thread_count; i++)
        total += load64(&run->threads[i].events[event]);
    return total;
}

/* Time spent between the BEGIN and END of a pair, all threads together. */
static uint64_t pair_time_ns(const struct ompc_run *run, int pair)
{
    uint64_t total = 0;
    for (int i = 0; i < run->thread_count; i++)
        total += load64(&run->threads[i].pair_ns[pair]);
    return total;
}

/* qsort order for regions: by id, the order they were forked in. */
static int compare_region_ids(const void *a, const void *b)
{
    uint64_t x = atomic_load(&(*(const struct ompc_region *const *)a)->id);
    uint64_t y = atomic_load(&(*(const struct ompc_region *const *)b)->id);
    return (x > y) - (x < y);
}

/* qsort order for the text report: longest FORK-to-JOIN first. */
static int compare_region_times(const void *a, const void *b)
{
    uint64_t x = atomic_load(&(*(const struct ompc_region *const *)a)->time_ns);
    uint64_t y = atomic_load(&(*(const struct ompc_region *const *)b)->time_ns);
    if (x != y)
        return (x < y) - (x > y);
    return compare_region_ids(a, b);
}

/* qsort order that puts equal (state, wait id) pairs next to each other for merging. */
static int compare_wait_keys(const void *a, const void *b)
{
    const struct merged_wait *x = a, *y = b;
    if (x->state != y->state)
        return x->state - y->state;
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

/* Gathers regions and waits; returns -1 when memory runs out. */
static int summarise(const struct ompc_run *run, struct summary *summary)
{
    memset(summary, 0, sizeof *summary);
    summary->run = run;
    summary->thread_count = run->thread_count;
    for (int i = 0; i < run->thread_count; i++)
        for (int state = 0; state < OMPC_NSTATES; state++) {
            uint64_t ticks = load64(&run->threads[i].state_ticks[state]);
            summary->state_ticks[state] += ticks;
            summary->total_ticks += ticks;
        }

    summary->regions = malloc(OMPC_MAX_REGIONS * sizeof *summary->regions);
    if (summary->regions == NULL)
        return -1;
    for (int i = 0; i < OMPC_MAX_REGIONS; i++) {
        const struct ompc_region *region = &run->regions[i];
        if (atomic_load(&region->id) == 0)
            continue;
        summary->regions[summary->region_count++] = region;
        summary->forks += atomic_load(&region->forks);
        summary->joins += atomic_load(&region->joins);
        if (atomic_load(&region->parent) == 0)
            summary->outermost_ns += atomic_load(&region->time_ns);
    }
    summary->forks += load64(&run->regions_overflow_forks);
    summary->outermost_ns += load64(&run->regions_overflow_ns);
    qsort(summary->regions, (size_t)summary->region_count, sizeof *summary->regions,
          compare_region_ids);

    size_t capacity = (size_t)run->thread_count * OMPC_WAIT_SLOTS + 1;
    struct merged_wait *all = malloc(capacity * sizeof *all);
    if (all == NULL)
        return -1;
    size_t used = 0;
    for (int i = 0; i < run->thread_count; i++) {
        const struct ompc_thread *thread = &run->threads[i];
        summary->wait_overflow_ticks += load64(&thread->wait_overflow_ticks);
        for (int slot = 0; slot < OMPC_WAIT_SLOTS; slot++) {
            const struct ompc_wait *wait = &thread->waits[slot];
            uint32_t state = atomic_load(&wait->state);
            if (state == 0)
                continue;
            all[used++] = (struct merged_wait){(int)state, load64(&wait->id), load64(&wait->ticks), 1};
        }
    }
    qsort(all, used, sizeof *all, compare_wait_keys);
    size_t merged = 0;
    for (size_t i = 0; i < used; i++) {
        if (merged > 0 && compare_wait_keys(&all[merged - 1], &all[i]) == 0) {
            all[merged - 1].ticks += all[i].ticks;
            all[merged - 1].threads++;
        } else {
            all[merged++] = all[i];
        }
    }
    qsort(all, merged, sizeof *all, compare_wait_ticks);
    summary->waits = all;
    summary->wait_count = (int)merged;
    return 0;
}

/* Frees what summarise allocated; safe on a half-built summary. */
static void release_summary(struct summary *summary)
{
    free(summary->regions);
    free(summary->waits);
}

/* Name of a REGISTER answer. */
static const char *register_status(int ec)
{
    switch (ec) {
    case OMP_ERRCODE_OK:
        return "ok";
    case OMP_ERRCODE_UNSUPPORTED:
        return "unsupported";
    case OMP_ERRCODE_UNKNOWN:
        return "unknown";
    case -1:
        return "call-failed";
    default:
        return "error";
    }
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
static void text_main_states(FILE *out, const struct ompc_region *region)
{
    uint64_t total = region_ticks(region);
    int shown[3] = {0, 0, 0};
    for (int rank = 0; rank < 3; rank++) {
        int best = 0;
        uint64_t best_ticks = 0;
        for (int state = 0; state < OMPC_NSTATES; state++) {
            uint64_t ticks = load64(&region->ticks[state]);
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

/* The at-a-glance report: thread table, regions, waits, events, totals. */
static void write_text(const struct summary *summary, FILE *out)
{
    const struct ompc_run *run = summary->run;
    fprintf(out, "ompcollect report: %s (pid %ld)\n", run->program, (long)run->pid);
    fprintf(out, "  wall %.3f s, ", run->wall_ns / 1e9);
    if (run->sampling)
        fprintf(out, "sampling every %.3g ms, ", run->interval_ns / 1e6);
    else
        fputs("sampling off, ", out);
    fprintf(out, "%d threads, %" PRIu64 " samples, %" PRIu64 " parallel regions forked\n",
            summary->thread_count, summary->total_ticks, summary->forks);

    if (run->sampling) {
        fputs("\nWhere each thread spent its time (% of its samples; . = none):\n", out);
        fprintf(out, "  %-7s %7s %8s %5s", "thread", "tid", "samples", "cover");
        text_state_header(out);
        for (int i = 0; i < run->thread_count; i++) {
            const struct ompc_thread *thread = &run->threads[i];
            uint64_t ticks = thread_ticks(thread);
            uint64_t expected = thread_expected_ticks(run, thread);
            char label[16], cover[16];
            snprintf(label, sizeof label, "%d%s", i, thread->initial ? "*" : "");
            if (expected > 0)
                snprintf(cover, sizeof cover, "%.0f%%", 100.0 * (double)ticks / (double)expected);
            else
                snprintf(cover, sizeof cover, "-");
            fprintf(out, "  %-7s %7ld %8" PRIu64 " %5s", label, (long)thread->tid, ticks, cover);
            for (int state = 1; state < OMPC_NSTATES; state++)
                text_share(out, load64(&thread->state_ticks[state]), ticks);
            fputc('\n', out);
        }
        fprintf(out, "  %-7s %7s %8" PRIu64 " %5s", "all", "", summary->total_ticks, "");
        for (int state = 1; state < OMPC_NSTATES; state++)
            text_share(out, summary->state_ticks[state], summary->total_ticks);
        fputs("\n  (* initial thread; cover = samples x interval / time the thread was sampled)\n",
              out);
        if (summary->state_ticks[0] != 0)
            fprintf(out, "  %" PRIu64 " samples got no valid state from STATE\n",
                    summary->state_ticks[0]);
    }
    uint64_t not_followed = load64(&run->threads_not_followed);
    if (not_followed != 0)
        fprintf(out, "  %" PRIu64 " further threads were not followed (limit %d)\n", not_followed,
                OMPC_MAX_THREADS);

    fputs("\nParallel regions (time = FORK to JOIN on the master; longest first):\n", out);
    if (summary->region_count == 0) {
        fputs("  none\n", out);
    } else {
        const struct ompc_region **by_time = malloc((size_t)summary->region_count * sizeof *by_time);
        if (by_time != NULL) {
            memcpy(by_time, summary->regions, (size_t)summary->region_count * sizeof *by_time);
            qsort(by_time, (size_t)summary->region_count, sizeof *by_time, compare_region_times);
            fprintf(out, "  %8s %8s %5s %5s %10s %7s %8s  %s\n", "region", "parent", "forks",
                    "joins", "time ms", "threads", "samples", "main states");
            int shown = summary->region_count < TEXT_REGION_ROWS ? summary->region_count
                                                                 : TEXT_REGION_ROWS;
            for (int i = 0; i < shown; i++) {
                const struct ompc_region *region = by_time[i];
                fprintf(out, "  %8" PRIu64 " %8" PRIu64 " %5u %5u %10.3f %7d %8" PRIu64 "  ",
                        (uint64_t)atomic_load(&region->id), (uint64_t)atomic_load(&region->parent),
                        (unsigned)atomic_load(&region->forks), (unsigned)atomic_load(&region->joins),
                        atomic_load(&region->time_ns) / 1e6,
                        popcount64(atomic_load(&region->thread_mask)), region_ticks(region));
                text_main_states(out, region);
                fputc('\n', out);
            }
            if (summary->region_count > shown) {
                uint64_t rest_ns = 0;
                for (int i = shown; i < summary->region_count; i++)
                    rest_ns += atomic_load(&by_time[i]->time_ns);
                fprintf(out, "  ... %d more regions, %.3f ms together\n",
                        summary->region_count - shown, rest_ns / 1e6);
            }
            free(by_time);
        }
    }
    uint64_t overflow = load64(&run->regions_overflow_forks);
    if (overflow != 0)
        fprintf(out, "  %" PRIu64 " forks beyond the table's %d regions were only counted\n",
                overflow, OMPC_MAX_REGIONS);
    fprintf(out, "  total: %" PRIu64 " forks, %" PRIu64 " joins, %.3f s inside outermost regions\n",
            summary->forks, summary->joins, summary->outermost_ns / 1e9);

    if (run->sampling) {
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

    fputs("\nEvents registered:\n", out);
    fprintf(out, "  %-14s %-11s %10s %12s\n", "event", "status", "count", "pair time ms");
    for (int i = 0; i < run->request_count; i++) {
        int event = run->requests[i].event;
        int pair = ompc_event_pair(event);
        fprintf(out, "  %-14s %-11s %10" PRIu64, ompc_event_name(event),
                register_status(run->requests[i].ec), event_count(run, event));
        if (pair >= 0 && event % 2 == 0)
            fprintf(out, " %12.3f", pair_time_ns(run, pair) / 1e6);
        fputc('\n', out);
    }

    if (run->sampling) {
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
                summary->total_ticks, summary->total_ticks * (double)run->interval_ns / 1e9);
    }
}

/* ---- CSV ---- */

/* A CSV field, quoted when it holds a comma, quote or line break. */
static void csv_string(FILE *out, const char *text)
{
    if (strpbrk(text, ",\"\r\n") == NULL) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (; *text; text++) {
        if (*text == '"')
            fputc('"', out);
        fputc(*text, out);
    }
    fputc('"', out);
}

/* A CSV row's state counts, then its invalid answers, ending the row. */
static void csv_states(FILE *out, const _Atomic uint64_t *ticks)
{
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, ",%" PRIu64, load64(&ticks[state]));
    fprintf(out, ",%" PRIu64 "\n", load64(&ticks[0]));
}

/* The state columns of a CSV header row. */
static void csv_state_names(FILE *out)
{
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, ",%s", ompc_state_name(state));
    fputs(",invalid\n", out);
}

/*
 * One stream, several tables: every row starts with its table's name, and
 * each table is preceded by a header row whose first field is "section".
 */
static void write_csv(const struct summary *summary, FILE *out)
{
    const struct ompc_run *run = summary->run;
    fputs("section,program,pid,wall_ns,interval_ns,sampling,threads,samples,forks,joins,"
          "outermost_ns\n",
          out);
    fputs("run,", out);
    csv_string(out, run->program);
    fprintf(out, ",%ld,%" PRIu64 ",%lld,%d,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
            (long)run->pid, run->wall_ns, run->interval_ns, run->sampling, summary->thread_count,
            summary->total_ticks, summary->forks, summary->joins, summary->outermost_ns);

    fputs("section,index,tid,initial,lifetime_ns,signals,samples,expected", out);
    csv_state_names(out);
    for (int i = 0; i < run->thread_count; i++) {
        const struct ompc_thread *thread = &run->threads[i];
        fprintf(out, "thread,%d,%ld,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, i,
                (long)thread->tid, thread->initial, thread_lifetime_ns(thread),
                load64(&thread->signals), thread_ticks(thread), thread_expected_ticks(run, thread));
        csv_states(out, thread->state_ticks);
    }

    fputs("section,id,parent,forks,joins,time_ns,threads,samples", out);
    csv_state_names(out);
    for (int i = 0; i < summary->region_count; i++) {
        const struct ompc_region *region = summary->regions[i];
        fprintf(out, "region,%" PRIu64 ",%" PRIu64 ",%u,%u,%" PRIu64 ",%d,%" PRIu64,
                (uint64_t)atomic_load(&region->id), (uint64_t)atomic_load(&region->parent),
                (unsigned)atomic_load(&region->forks), (unsigned)atomic_load(&region->joins),
                (uint64_t)atomic_load(&region->time_ns),
                popcount64(atomic_load(&region->thread_mask)), region_ticks(region));
        csv_states(out, region->ticks);
    }

    fputs("section,state,wait_id,samples,threads\n", out);
    for (int i = 0; i < summary->wait_count; i++) {
        const struct merged_wait *wait = &summary->waits[i];
        fprintf(out, "wait,%s,0x%016" PRIx64 ",%" PRIu64 ",%d\n", ompc_state_name(wait->state),
                wait->id, wait->ticks, wait->threads);
    }

    fputs("section,event,status,count,pair_time_ns\n", out);
    for (int i = 0; i < run->request_count; i++) {
        int event = run->requests[i].event;
        int pair = ompc_event_pair(event);
        fprintf(out, "event,%s,%s,%" PRIu64 ",", ompc_event_name(event),
                register_status(run->requests[i].ec), event_count(run, event));
        if (pair >= 0 && event % 2 == 0)
            fprintf(out, "%" PRIu64, pair_time_ns(run, pair));
        fputc('\n', out);
    }
}

/* ---- JSON ---- */

/* A JSON string literal. */
static void json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

/* {"OVHD": n, ...} for a thread's or a region's counters. */
static void json_states(FILE *out, const _Atomic uint64_t *ticks)
{
    fputc('{', out);
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, "%s\"%s\": %" PRIu64, state > 1 ? ", " : "", ompc_state_name(state),
                load64(&ticks[state]));
    fputc('}', out);
}

/* The report as one JSON object; counts are raw samples so consumers can weigh them. */
static void write_json(const struct summary *summary, FILE *out)
{
    const struct ompc_run *run = summary->run;
    fputs("{\n  \"tool\": \"ompcollect\",\n  \"version\": ", out);
    json_string(out, PACKAGE_VERSION);
    fputs(",\n  \"program\": ", out);
    json_string(out, run->program);
    fprintf(out, ",\n  \"pid\": %ld,\n  \"wall_ns\": %" PRIu64 ",\n  \"sampling\": %s,\n"
                 "  \"interval_ns\": %lld,\n  \"states\": [",
            (long)run->pid, run->wall_ns, run->sampling ? "true" : "false", run->interval_ns);
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, "%s\"%s\"", state > 1 ? ", " : "", ompc_state_name(state));
    fputs("],\n  \"threads\": [", out);
    for (int i = 0; i < run->thread_count; i++) {
        const struct ompc_thread *thread = &run->threads[i];
        fprintf(out,
                "%s\n    {\"index\": %d, \"tid\": %ld, \"initial\": %s, \"exited\": %s, "
                "\"lifetime_ns\": %" PRIu64 ", \"signals\": %" PRIu64 ", \"samples\": %" PRIu64
                ", \"expected\": %" PRIu64 ", \"invalid\": %" PRIu64 ",\n     \"states\": ",
                i ? "," : "", i, (long)thread->tid, thread->initial ? "true" : "false",
                atomic_load(&thread->status) == OMPC_SLOT_EXITED ? "true" : "false",
                thread_lifetime_ns(thread), load64(&thread->signals), thread_ticks(thread),
                thread_expected_ticks(run, thread), load64(&thread->state_ticks[0]));
        json_states(out, thread->state_ticks);
        fputs(",\n     \"events\": {", out);
        int first = 1;
        for (int event = 1; event < OMPC_NEVENTS; event++) {
            uint64_t count = load64(&thread->events[event]);
            if (count == 0)
                continue;
            fprintf(out, "%s\"%s\": %" PRIu64, first ? "" : ", ", ompc_event_name(event), count);
            first = 0;
        }
        fputs("}}", out);
    }
    fprintf(out, "\n  ],\n  \"threads_not_followed\": %" PRIu64 ",\n  \"regions\": [",
            load64(&run->threads_not_followed));
    for (int i = 0; i < summary->region_count; i++) {
        const struct ompc_region *region = summary->regions[i];
        fprintf(out,
                "%s\n    {\"id\": %" PRIu64 ", \"parent\": %" PRIu64 ", \"forks\": %u, "
                "\"joins\": %u, \"time_ns\": %" PRIu64 ", \"threads\": %d, \"samples\": %" PRIu64
                ", \"states\": ",
                i ? "," : "", (uint64_t)atomic_load(&region->id),
                (uint64_t)atomic_load(&region->parent), (unsigned)atomic_load(&region->forks),
                (unsigned)atomic_load(&region->joins), (uint64_t)atomic_load(&region->time_ns),
                popcount64(atomic_load(&region->thread_mask)), region_ticks(region));
        json_states(out, region->ticks);
        fputc('}', out);
    }
    fprintf(out, "\n  ],\n  \"regions_overflow_forks\": %" PRIu64 ",\n  \"waits\": [",
            load64(&run->regions_overflow_forks));
    for (int i = 0; i < summary->wait_count; i++) {
        const struct merged_wait *wait = &summary->waits[i];
        fprintf(out,
                "%s\n    {\"state\": \"%s\", \"wait_id\": \"0x%016" PRIx64 "\", \"samples\": %" PRIu64
                ", \"threads\": %d}",
                i ? "," : "", ompc_state_name(wait->state), wait->id, wait->ticks, wait->threads);
    }
    fputs("\n  ],\n  \"events\": [", out);
    for (int i = 0; i < run->request_count; i++) {
        int event = run->requests[i].event;
        int pair = ompc_event_pair(event);
        fprintf(out, "%s\n    {\"name\": \"%s\", \"status\": \"%s\", \"count\": %" PRIu64, i ? "," : "",
                ompc_event_name(event), register_status(run->requests[i].ec),
                event_count(run, event));
        if (pair >= 0 && event % 2 == 0)
            fprintf(out, ", \"pair_time_ns\": %" PRIu64, pair_time_ns(run, pair));
        fputc('}', out);
    }
    fprintf(out, "\n  ],\n  \"totals\": {\"threads\": %d, \"samples\": %" PRIu64
                 ", \"invalid\": %" PRIu64 ", \"forks\": %" PRIu64 ", \"joins\": %" PRIu64
                 ", \"regions\": %d, \"outermost_ns\": %" PRIu64 ", \"states\": {",
            summary->thread_count, summary->total_ticks, summary->state_ticks[0], summary->forks,
            summary->joins, summary->region_count, summary->outermost_ns);
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, "%s\"%s\": %" PRIu64, state > 1 ? ", " : "", ompc_state_name(state),
                summary->state_ticks[state]);
    fputs("}}\n}\n", out);
}

/* Writes the report in the configured format. */
int ompc_write_report(const struct ompc_run *run, FILE *out)
{
    struct summary summary;
    if (summarise(run, &summary) != 0) {
        release_summary(&summary);
        return -1;
    }
    switch (run->format) {
    case OMPC_FORMAT_CSV:
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

/* ---- SVG timeline ---- */

#define SVG_LABEL_WIDTH 120
#define SVG_PLOT_WIDTH 960
#define SVG_ROW_HEIGHT 16
#define SVG_ROW_GAP 4
#define SVG_TOP 48

/* One colour per state, far enough apart to tell waits from work at a glance. */
static const char *const state_colours[OMPC_NSTATES] = {
    "#000000", /* no valid state */
    "#9e9e9e", /* OVHD */
    "#43a047", /* WORK */
    "#fb8c00", /* IBAR */
    "#fdd835", /* EBAR */
    "#e0e0e0", /* IDLE */
    "#1e88e5", /* SERIAL */
    "#8e24aa", /* REDUC */
    "#e53935", /* LKWT */
    "#d81b60", /* CTWT */
    "#6d4c41", /* ODWT */
    "#00acc1", /* ATWT */
};

/* The entity that stands for `c` in XML text and attributes, or NULL when `c` stands for itself. */
static const char *xml_entity(char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    default: return NULL;
    }
}

/* Text escaped for XML character data and attribute values; control characters are dropped. */
static void xml_text(FILE *out, const char *text)
{
    for (; *text; text++) {
        const char *entity = xml_entity(*text);
        if (entity != NULL)
            fputs(entity, out);
        else if ((unsigned char)*text >= 0x20)
            fputc(*text, out);
    }
}

/*
 * One thread's row.  Samples are folded into one column per pixel, each
 * column painted in the state that held it longest, and equal neighbours
 * merged: the file stays small however many state changes there were.
 */
static void svg_thread_row(FILE *out, const struct ompc_thread *thread, int row, double ns_per_pixel)
{
    static uint64_t column_ns[SVG_PLOT_WIDTH][OMPC_NSTATES];
    memset(column_ns, 0, sizeof column_ns);
    uint32_t length = atomic_load(&thread->timeline_length);
    uint64_t row_end = load64(&thread->last_sample_ns);
    for (uint32_t i = 0; i < length; i++) {
        uint64_t begin = (thread->timeline[i] >> 8) * 1000;
        int state = (int)(thread->timeline[i] & 0xff);
        uint64_t end = i + 1 < length ? (thread->timeline[i + 1] >> 8) * 1000 : row_end;
        if (state >= OMPC_NSTATES || end <= begin)
            continue;
        for (uint64_t t = begin; t < end;) {
            uint64_t column = (uint64_t)(t / ns_per_pixel);
            if (column >= SVG_PLOT_WIDTH)
                break;
            uint64_t column_end = (uint64_t)((column + 1) * ns_per_pixel) + 1;
            uint64_t stop = end < column_end ? end : column_end;
            column_ns[column][state] += stop - t;
            t = stop;
        }
    }
    int y = SVG_TOP + row * (SVG_ROW_HEIGHT + SVG_ROW_GAP);
    fprintf(out, "<text x=\"4\" y=\"%d\" class=\"label\">thread %d%s (tid %ld)</text>\n",
            y + SVG_ROW_HEIGHT - 4, row, thread->initial ? "*" : "", (long)thread->tid);
    int run_state = -1, run_start = 0;
    for (int column = 0; column <= SVG_PLOT_WIDTH; column++) {
        int best = -1;
        uint64_t best_ns = 0;
        if (column < SVG_PLOT_WIDTH)
            for (int state = 0; state < OMPC_NSTATES; state++)
                if (column_ns[column][state] > best_ns) {
                    best = state;
                    best_ns = column_ns[column][state];
                }
        if (best == run_state)
            continue;
        if (run_state >= 0)
            fprintf(out,
                    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
                    "<title>%s %.1f-%.1f ms</title></rect>\n",
                    SVG_LABEL_WIDTH + run_start, y, column - run_start, SVG_ROW_HEIGHT,
                    state_colours[run_state], ompc_state_name(run_state),
                    run_start * ns_per_pixel / 1e6, column * ns_per_pixel / 1e6);
        run_state = best;
        run_start = column;
    }
}

/* Per-thread state over time: rows of coloured spans, a time axis and a legend. */
int ompc_write_timeline(const struct ompc_run *run, FILE *out)
{
    int rows = run->thread_count;
    int axis_y = SVG_TOP + rows * (SVG_ROW_HEIGHT + SVG_ROW_GAP) + 4;
    int legend_y = axis_y + 36;
    int width = SVG_LABEL_WIDTH + SVG_PLOT_WIDTH + 20;
    int height = legend_y + 30;
    double span_ns = run->wall_ns > 0 ? (double)run->wall_ns : 1.0;
    double ns_per_pixel = span_ns / SVG_PLOT_WIDTH;

    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
            "<style>.label { fill: #222222; } .axis { stroke: #444444; stroke-width: 1; }</style>\n"
            "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
            width, height, width, height, width, height);
    fputs("<text x=\"4\" y=\"18\" font-size=\"14\" class=\"label\">ompcollect: ", out);
    xml_text(out, run->program);
    fprintf(out, " (pid %ld), thread states over %.3f s</text>\n", (long)run->pid, span_ns / 1e9);
    fputs("<text x=\"4\" y=\"34\" class=\"label\">Each row is a thread (* initial); each column "
          "shows the state sampled most in its time slice.</text>\n",
          out);

    int truncated = 0;
    for (int i = 0; i < rows; i++) {
        if (run->threads[i].timeline != NULL)
            svg_thread_row(out, &run->threads[i], i, ns_per_pixel);
        truncated |= atomic_load(&run->threads[i].timeline_truncated);
    }

    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", SVG_LABEL_WIDTH,
            axis_y, SVG_LABEL_WIDTH + SVG_PLOT_WIDTH, axis_y);
    static const double steps[] = {1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8, 2e8, 5e8, 1e9, 2e9, 5e9, 1e10,
                                   3e10, 6e10, 3e11, 6e11, 3e12};
    double step = steps[sizeof steps / sizeof steps[0] - 1];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (span_ns / steps[i] <= 10) {
            step = steps[i];
            break;
        }
    for (double t = 0; t <= span_ns; t += step) {
        int x = SVG_LABEL_WIDTH + (int)(t / ns_per_pixel);
        fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", x, axis_y,
                x, axis_y + 4);
        if (step >= 1e9)
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"label\">%g s</text>\n",
                    x, axis_y + 16, t / 1e9);
        else
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"label\">%g ms</text>\n",
                    x, axis_y + 16, t / 1e6);
    }
    if (truncated)
        fprintf(out, "<text x=\"4\" y=\"%d\" class=\"label\">(some rows stop early: more than %u "
                     "state changes)</text>\n",
                axis_y + 28, OMPC_TIMELINE_CAP);

    fprintf(out, "<g id=\"legend\">\n");
    for (int state = 1; state < OMPC_NSTATES; state++) {
        int x = 4 + (state - 1) * 96;
        fprintf(out,
                "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\" stroke=\"#444444\"/>"
                "<text x=\"%d\" y=\"%d\" class=\"label\">%s</text>\n",
                x, legend_y, state_colours[state], x + 16, legend_y + 10, ompc_state_name(state));
    }
    fputs("</g>\n</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
