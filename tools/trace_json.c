/* trace_json.c - writes one recorded process's thread states over time as Chrome trace-event JSON, for ompcollect --trace-json (Perfetto, chrome://tracing). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "report.h"

#include <stdlib.h>

/* A JSON string literal of `text`; control characters become \u escapes. */
static void json_text(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)(text != NULL ? text : ""); *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

/* A time in the trace's unit, microseconds, keeping the record's nanoseconds. */
static void json_us(FILE *out, const char *key, uint64_t ns)
{
    fprintf(out, ",\"%s\":%llu.%03u", key, (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
}

/* One complete ("X") event on a thread. */
static void complete_event(FILE *out, long pid, long tid, const char *name, const char *category,
                           uint64_t begin_ns, uint64_t end_ns, const char *region)
{
    fputs(",\n{\"ph\":\"X\",\"name\":", out);
    json_text(out, name);
    fprintf(out, ",\"cat\":\"%s\",\"pid\":%ld,\"tid\":%ld", category, pid, tid);
    json_us(out, "ts", begin_ns);
    json_us(out, "dur", end_ns - begin_ns);
    if (region != NULL) {
        fputs(",\"args\":{\"region\":", out);
        json_text(out, region);
        fputc('}', out);
    }
    fputc('}', out);
}

/* One metadata ("M") event naming a process or thread. */
static void name_event(FILE *out, const char *what, long pid, long tid, const char *name)
{
    fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":", what,
            pid, tid);
    json_text(out, name);
    fputs("}}", out);
}

/*
 * The trace: per thread, one complete event per recorded state span (the
 * --timeline state changes, so sampled where events are not registered);
 * on the initial thread also one per parallel region, from leaving SERIAL
 * to returning to it, emitted before the states it encloses so every
 * thread's events come in time order.
 */
int ompc_write_trace_json(const struct ompc_report *report, FILE *out)
{
    const struct ompc_process *process = report->process;
    long pid = (long)process->pid;
    int rows = atomic_load(&process->thread_count);
    if (rows > OMPC_MAX_THREADS)
        rows = OMPC_MAX_THREADS;
    uint64_t *regions;
    long region_count = ompc_timeline_regions(report, &regions);
    if (region_count < 0)
        return -1;

    int truncated = 0;
    for (int i = 0; i < rows; i++)
        truncated += atomic_load(&process->threads[i].timeline_truncated) != 0;
    fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"collector\":\"ompcollect " PACKAGE_VERSION
          "\",\"program\":",
          out);
    json_text(out, report->program);
    fprintf(out, ",\"pid\":%ld,\"runtime\":", pid);
    json_text(out, report->runtime_file);
    fputs(",\"runtime_version\":", out);
    json_text(out, report->runtime_version);
    fprintf(out,
            ",\"complete\":%s,\"wall_ns\":%llu,\"timeline_cap_per_thread\":%u,"
            "\"threads_truncated\":%d,\"regions_from\":\"the initial thread's time out of SERIAL\"},\n"
            "\"traceEvents\":[\n",
            report->complete ? "true" : "false", (unsigned long long)report->wall_ns,
            OMPC_TIMELINE_CAP, truncated);

    char name[160];
    snprintf(name, sizeof name, "%s (pid %ld%s)", report->program != NULL ? report->program : "?",
             pid, report->complete ? "" : ", incomplete");
    /* The first event carries no leading comma; every later one does. */
    fprintf(out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%ld,\"tid\":0,\"args\":{\"name\":",
            pid);
    json_text(out, name);
    fputs("}}", out);
    for (int i = 0; i < rows; i++) {
        const struct ompc_thread *thread = &process->threads[i];
        long tid = (long)thread->tid;
        snprintf(name, sizeof name, "thread %d%s%s", i, thread->initial ? " (initial)" : "",
                 atomic_load(&thread->timeline_truncated) ? " (stops early: record full)" : "");
        name_event(out, "thread_name", pid, tid, name);
        fprintf(out,
                ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%ld,\"tid\":%ld,"
                "\"args\":{\"sort_index\":%d}}",
                pid, tid, i);
        long next_region = thread->initial ? 0 : region_count;
        uint64_t begin, end;
        int state;
        for (uint32_t k = 0; ompc_timeline_span(report, i, k, &begin, &end, &state); k++) {
            for (; next_region < region_count && regions[2 * next_region] <= begin; next_region++) {
                snprintf(name, sizeof name, "parallel region %ld", next_region + 1);
                complete_event(out, pid, tid, name, "region", regions[2 * next_region],
                               regions[2 * next_region + 1], NULL);
            }
            if (state <= 0 || state >= OMPC_NSTATES)
                continue;
            char region[48];
            ompc_timeline_region_name(regions, region_count, begin, region, sizeof region);
            complete_event(out, pid, tid, ompc_state_name(state), "state", begin, end, region);
        }
    }
    fputs("\n]}\n", out);
    free(regions);
    return ferror(out) ? -1 : 0;
}
