/* trace_otf2.c - writes one recorded process as an OTF2 archive with libotf2, for ompcollect --trace (Vampir, otf2-print, the Score-P tool chain). */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "locations.h"
#include "report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <otf2/otf2.h>

/* Attributes every Enter may carry. */
enum { ATTRIBUTE_WAIT_ID, ATTRIBUTE_REGION_ID, ATTRIBUTE_SAMPLED, ATTRIBUTE_COUNT };

/* A definition the archive needs: a string, or a region with the string naming it. */
struct region_def {
    uint32_t name;   /* string ref */
    OTF2_RegionRole role;
};

/* The definitions gathered while the events are written; written last, as OTF2 allows. */
struct definitions {
    char **strings;
    size_t string_count, string_capacity;
    struct region_def *regions;
    size_t region_count, region_capacity;
};

/* The string ref of `text`, defined on first use; UINT32_MAX without memory. */
static uint32_t string_ref(struct definitions *defs, const char *text)
{
    for (size_t i = 0; i < defs->string_count; i++)
        if (strcmp(defs->strings[i], text) == 0)
            return (uint32_t)i;
    if (defs->string_count == defs->string_capacity) {
        size_t capacity = defs->string_capacity ? 2 * defs->string_capacity : 64;
        char **grown = realloc(defs->strings, capacity * sizeof *grown);
        if (grown == NULL)
            return UINT32_MAX;
        defs->strings = grown;
        defs->string_capacity = capacity;
    }
    char *copy = strdup(text);
    if (copy == NULL)
        return UINT32_MAX;
    defs->strings[defs->string_count] = copy;
    return (uint32_t)defs->string_count++;
}

/* The region ref named `text` with `role`, defined on first use; UINT32_MAX without memory. */
static uint32_t region_ref(struct definitions *defs, const char *text, OTF2_RegionRole role)
{
    uint32_t name = string_ref(defs, text);
    if (name == UINT32_MAX)
        return UINT32_MAX;
    for (size_t i = 0; i < defs->region_count; i++)
        if (defs->regions[i].name == name)
            return (uint32_t)i;
    if (defs->region_count == defs->region_capacity) {
        size_t capacity = defs->region_capacity ? 2 * defs->region_capacity : 64;
        struct region_def *grown = realloc(defs->regions, capacity * sizeof *grown);
        if (grown == NULL)
            return UINT32_MAX;
        defs->regions = grown;
        defs->region_capacity = capacity;
    }
    defs->regions[defs->region_count] = (struct region_def){name, role};
    return (uint32_t)defs->region_count++;
}

/* The OTF2 role of a span's region: states are the collector's own classification, not code. */
static OTF2_RegionRole span_role(const struct ompc_span *span)
{
    static const OTF2_RegionRole roles[OMPC_NPAIRS] = {
        OTF2_REGION_ROLE_ARTIFICIAL, OTF2_REGION_ROLE_IMPLICIT_BARRIER, OTF2_REGION_ROLE_BARRIER,
        OTF2_REGION_ROLE_ARTIFICIAL, OTF2_REGION_ROLE_CRITICAL, OTF2_REGION_ROLE_ORDERED,
        OTF2_REGION_ROLE_MASTER, OTF2_REGION_ROLE_SINGLE, OTF2_REGION_ROLE_ORDERED,
        OTF2_REGION_ROLE_ATOMIC,
    };
    if (span->kind == OMPC_SPAN_REGION)
        return OTF2_REGION_ROLE_PARALLEL;
    if (span->kind == OMPC_SPAN_CONSTRUCT && span->pair >= 0 && span->pair < OMPC_NPAIRS)
        return roles[span->pair];
    return OTF2_REGION_ROLE_ARTIFICIAL;
}

/* The threads seen in region `id` (its row in the record), at least 1: what ThreadFork says was requested. */
static uint32_t region_threads(const struct ompc_model_process *process, uint64_t id)
{
    uint64_t hash = id * UINT64_C(0x9E3779B97F4A7C15);
    for (unsigned probe = 0; id != 0 && probe < 64; probe++) {
        const struct ompc_model_region *row = &process->regions[((hash >> 50) + probe) % OMPC_MAX_REGIONS];
        uint64_t seen = row->id;
        if (seen == 0)
            break;
        if (seen == id) {
            int count = __builtin_popcountll(row->thread_mask);
            return count > 0 ? (uint32_t)count : 1;
        }
    }
    return 1;
}

/* The archive's flushes happen when its buffers fill; the post-flush time is not used by readers of this archive. */
static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location, void *caller,
                                bool final)
{
    (void)user, (void)type, (void)location, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = NULL};

/* One open span on a location's stack. */
struct open_span {
    uint64_t end;
    uint32_t region;
    int fork;
};

/* Closes the innermost open span: Leave, and ThreadJoin after a parallel region. */
static OTF2_ErrorCode leave(OTF2_EvtWriter *writer, uint64_t origin, const struct open_span *open)
{
    OTF2_ErrorCode status = OTF2_EvtWriter_Leave(writer, NULL, origin + open->end, open->region);
    if (status == OTF2_SUCCESS && open->fork)
        status = OTF2_EvtWriter_ThreadJoin(writer, NULL, origin + open->end, OTF2_PARADIGM_OPENMP);
    return status;
}

/*
 * One thread's events: its spans as Enter/Leave (properly nested by
 * construction), parallel regions bracketed by ThreadFork and ThreadJoin,
 * the wait id, region id and sampled flag as attributes.  Returns the
 * latest time written, or sets *status.
 */
static uint64_t write_location(const struct ompc_report *report, int thread, OTF2_EvtWriter *writer,
                               struct definitions *defs, struct ompc_symbolizer *symbolizer,
                               OTF2_AttributeList *attributes, OTF2_ErrorCode *status)
{
    const struct ompc_model_process *process = report->process;
    uint64_t origin = process->origin_ns, last = 0;
    struct ompc_span *spans;
    long count = ompc_trace_spans(report, thread, &spans);
    if (count < 0) {
        *status = OTF2_ERROR_MEM_ALLOC_FAILED;
        return 0;
    }
    struct open_span *stack = malloc(((size_t)count + 1) * sizeof *stack);
    if (stack == NULL) {
        free(spans);
        *status = OTF2_ERROR_MEM_ALLOC_FAILED;
        return 0;
    }
    size_t depth = 0;
    for (long k = 0; k < count && *status == OTF2_SUCCESS; k++) {
        struct ompc_span span = spans[k];
        while (depth > 0 && stack[depth - 1].end <= span.begin_ns && *status == OTF2_SUCCESS)
            *status = leave(writer, origin, &stack[--depth]);
        /* Spans nest by construction; a rounding that says otherwise is cut to fit. */
        if (depth > 0 && span.end_ns > stack[depth - 1].end)
            span.end_ns = stack[depth - 1].end;
        char name[320];
        uint32_t region = region_ref(defs, ompc_span_name(&span, symbolizer, name, sizeof name),
                                     span_role(&span));
        if (region == UINT32_MAX) {
            *status = OTF2_ERROR_MEM_ALLOC_FAILED;
            break;
        }
        int fork = span.kind == OMPC_SPAN_REGION && span.exact;
        if (fork)
            *status = OTF2_EvtWriter_ThreadFork(writer, NULL, origin + span.begin_ns, OTF2_PARADIGM_OPENMP,
                                                region_threads(process, span.region));
        if (span.wait_id != 0)
            OTF2_AttributeList_AddUint64(attributes, ATTRIBUTE_WAIT_ID, span.wait_id);
        if (span.region != 0)
            OTF2_AttributeList_AddUint64(attributes, ATTRIBUTE_REGION_ID, span.region);
        if (!span.exact)
            OTF2_AttributeList_AddUint8(attributes, ATTRIBUTE_SAMPLED, 1);
        if (*status == OTF2_SUCCESS)
            *status = OTF2_EvtWriter_Enter(writer, attributes, origin + span.begin_ns, region);
        OTF2_AttributeList_RemoveAllAttributes(attributes);
        stack[depth++] = (struct open_span){span.end_ns, region, fork};
        last = span.end_ns > last ? span.end_ns : last;
    }
    while (depth > 0 && *status == OTF2_SUCCESS)
        *status = leave(writer, origin, &stack[--depth]);
    free(stack);
    free(spans);
    return last;
}

/* Frees the gathered definitions. */
static void free_definitions(struct definitions *defs)
{
    for (size_t i = 0; i < defs->string_count; i++)
        free(defs->strings[i]);
    free(defs->strings);
    free(defs->regions);
}

/* The OTF2 archive of one process (see report.h). */
int ompc_write_otf2(const struct ompc_report *report, const char *directory, const char *name,
                    char *error, size_t error_size)
{
    const struct ompc_model_process *process = report->process;
    int rows = process->thread_count;
    if (rows > OMPC_MAX_THREADS)
        rows = OMPC_MAX_THREADS;
    struct definitions defs;
    memset(&defs, 0, sizeof defs);
    struct ompc_locations locations;
    memset(&locations, 0, sizeof locations);
    OTF2_Archive *archive = NULL;
    OTF2_AttributeList *attributes = NULL;
    OTF2_ErrorCode status = OTF2_SUCCESS;
    const char *step = "";
    char text[512];

    /* The state regions first, so their refs are the states' numbers less one in every archive. */
    for (int state = 1; state < OMPC_NSTATES; state++)
        if (region_ref(&defs, ompc_state_name(state), OTF2_REGION_ROLE_ARTIFICIAL) == UINT32_MAX)
            goto out_of_memory;
    if (ompc_locations_build(process, &locations) != 0)
        goto out_of_memory;
    attributes = OTF2_AttributeList_New();
    if (attributes == NULL)
        goto out_of_memory;

    step = "opening the archive";
    archive = OTF2_Archive_Open(directory, name, OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == NULL) {
        status = OTF2_ERROR_INVALID;
        goto failed;
    }
    if ((status = OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL)) != OTF2_SUCCESS
        || (status = OTF2_Archive_SetSerialCollectiveCallbacks(archive)) != OTF2_SUCCESS)
        goto failed;
    OTF2_Archive_SetCreator(archive, "ompcollect " PACKAGE_VERSION);
    snprintf(text, sizeof text, "%s (pid %ld): OpenMP thread states and events through the Collector API",
             report->program != NULL ? report->program : "?", (long)process->pid);
    OTF2_Archive_SetDescription(archive, text);
    if (report->host != NULL)
        OTF2_Archive_SetMachineName(archive, report->host);

    /* What the trace lacks, as properties a reader can query (otf2-print -A). */
    uint64_t recorded = 0, dropped = process->untracked.event_log_dropped;
    int truncated = 0;
    for (int i = 0; i < rows; i++) {
        recorded += process->threads[i].event_log_length;
        dropped += process->threads[i].event_log_dropped;
        truncated += process->threads[i].timeline_truncated != 0;
    }
    snprintf(text, sizeof text, "%" PRIu64, recorded);
    OTF2_Archive_SetProperty(archive, "OMPCOLLECT::EVENTS_RECORDED", text, true);
    snprintf(text, sizeof text, "%" PRIu64, dropped);
    OTF2_Archive_SetProperty(archive, "OMPCOLLECT::EVENTS_DROPPED", text, true);
    snprintf(text, sizeof text, "%" PRIu64, report->event_log_bytes);
    OTF2_Archive_SetProperty(archive, "OMPCOLLECT::EVENT_BUFFER_BYTES", text, true);
    snprintf(text, sizeof text, "%d", truncated);
    OTF2_Archive_SetProperty(archive, "OMPCOLLECT::TIMELINES_TRUNCATED", text, true);
    OTF2_Archive_SetProperty(archive, "OMPCOLLECT::COMPLETE", report->complete ? "true" : "false", true);
    if (process->damage.count != 0)
        OTF2_Archive_SetProperty(archive, "OMPCOLLECT::RECORD_DAMAGE", process->damage.text, true);

    step = "writing the events";
    if ((status = OTF2_Archive_OpenEvtFiles(archive)) != OTF2_SUCCESS)
        goto failed;
    uint64_t *event_counts = calloc((size_t)rows + 1, sizeof *event_counts);
    if (event_counts == NULL)
        goto out_of_memory;
    uint64_t length = 0;
    /* One location per OpenMP thread: threads the runtime never reported (an MPI progress thread) have no place in it. */
    int *thread_of = calloc((size_t)rows + 1, sizeof *thread_of);
    if (thread_of == NULL) {
        free(event_counts);
        goto out_of_memory;
    }
    int locations_count = 0;
    for (int i = 0; i < rows; i++)
        if (ompc_thread_is_openmp(&process->threads[i]))
            thread_of[locations_count++] = i;
    for (int l = 0; l < locations_count && status == OTF2_SUCCESS; l++) {
        int i = thread_of[l];
        OTF2_EvtWriter *writer = OTF2_Archive_GetEvtWriter(archive, (OTF2_LocationRef)l);
        if (writer == NULL) {
            status = OTF2_ERROR_INVALID;
            break;
        }
        uint64_t last = write_location(report, i, writer, &defs, locations.symbolizer, attributes, &status);
        length = last > length ? last : length;
        if (status == OTF2_SUCCESS)
            status = OTF2_EvtWriter_GetNumberOfEvents(writer, &event_counts[l]);
        OTF2_ErrorCode closed = OTF2_Archive_CloseEvtWriter(archive, writer);
        if (status == OTF2_SUCCESS)
            status = closed;
    }
    if (status == OTF2_SUCCESS)
        status = OTF2_Archive_CloseEvtFiles(archive);
    if (status != OTF2_SUCCESS) {
        free(thread_of);
        free(event_counts);
        goto failed;
    }

    /* Every location has its (empty) local definitions, as readers expect. */
    step = "writing the local definitions";
    status = OTF2_Archive_OpenDefFiles(archive);
    for (int l = 0; l < locations_count && status == OTF2_SUCCESS; l++) {
        OTF2_DefWriter *writer = OTF2_Archive_GetDefWriter(archive, (OTF2_LocationRef)l);
        status = writer != NULL ? OTF2_Archive_CloseDefWriter(archive, writer) : OTF2_ERROR_INVALID;
    }
    if (status == OTF2_SUCCESS)
        status = OTF2_Archive_CloseDefFiles(archive);
    if (status != OTF2_SUCCESS) {
        free(thread_of);
        free(event_counts);
        goto failed;
    }

    step = "writing the global definitions";
    OTF2_GlobalDefWriter *global = OTF2_Archive_GetGlobalDefWriter(archive);
    if (global == NULL) {
        free(thread_of);
        free(event_counts);
        status = OTF2_ERROR_INVALID;
        goto failed;
    }
    /* Timestamps are CLOCK_MONOTONIC ns; the real time of the process's origin lets Vampir show the wall clock. */
    int64_t offset = report->realtime_offset_ns;
    uint64_t realtime = offset != 0 && (offset > 0 || process->origin_ns >= (uint64_t)-offset)
                            ? process->origin_ns + (uint64_t)offset
                            : OTF2_UNDEFINED_TIMESTAMP;
    if (report->wall_ns > length)
        length = report->wall_ns;
    uint32_t openmp = string_ref(&defs, "OpenMP");
    uint32_t attribute_names[ATTRIBUTE_COUNT][2] = {
        {string_ref(&defs, "wait id"),
         string_ref(&defs, "the 8-byte id the Collector API's STATE gives a wait (one per lock, critical, ordered, barrier)")},
        {string_ref(&defs, "parallel region id"),
         string_ref(&defs, "the id CURRENT_PRID gave when the span began")},
        {string_ref(&defs, "sampled"),
         string_ref(&defs, "1: the span comes from timer samples (its ends are within one sampling interval), not events")},
    };
    const char *host = report->host != NULL ? report->host : "localhost";
    uint32_t host_name = string_ref(&defs, host), node_class = string_ref(&defs, "node");
    if (report->rank >= 0)
        snprintf(text, sizeof text, "%s (pid %ld, rank %d)", report->program != NULL ? report->program : "?",
                 (long)process->pid, report->rank);
    else
        snprintf(text, sizeof text, "%s (pid %ld)", report->program != NULL ? report->program : "?",
                 (long)process->pid);
    uint32_t group_name = string_ref(&defs, text);
    uint32_t *location_names = calloc((size_t)rows + 1, sizeof *location_names);
    if (location_names == NULL) {
        free(thread_of);
        free(event_counts);
        goto out_of_memory;
    }
    for (int l = 0; l < locations_count; l++) {
        const struct ompc_model_thread *thread = &process->threads[thread_of[l]];
        snprintf(text, sizeof text, "thread %d (tid %ld%s)", thread_of[l], (long)thread->tid,
                 thread->initial ? ", initial" : "");
        location_names[l] = string_ref(&defs, text);
        if (location_names[l] == UINT32_MAX) {
            free(location_names);
            free(thread_of);
            free(event_counts);
            goto out_of_memory;
        }
    }
    free(thread_of);
    if (openmp == UINT32_MAX || host_name == UINT32_MAX || node_class == UINT32_MAX
        || group_name == UINT32_MAX) {
        free(location_names);
        free(event_counts);
        goto out_of_memory;
    }

    status = OTF2_GlobalDefWriter_WriteClockProperties(global, 1000000000u, process->origin_ns, length + 1,
                                                        realtime);
    for (size_t i = 0; i < defs.string_count && status == OTF2_SUCCESS; i++)
        status = OTF2_GlobalDefWriter_WriteString(global, (OTF2_StringRef)i, defs.strings[i]);
    if (status == OTF2_SUCCESS)
        status = OTF2_GlobalDefWriter_WriteParadigm(global, OTF2_PARADIGM_OPENMP, openmp,
                                                    OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN);
    static const OTF2_Type attribute_types[ATTRIBUTE_COUNT] = {OTF2_TYPE_UINT64, OTF2_TYPE_UINT64,
                                                               OTF2_TYPE_UINT8};
    for (int a = 0; a < ATTRIBUTE_COUNT && status == OTF2_SUCCESS; a++)
        status = OTF2_GlobalDefWriter_WriteAttribute(global, (OTF2_AttributeRef)a, attribute_names[a][0],
                                                     attribute_names[a][1], attribute_types[a]);
    if (status == OTF2_SUCCESS)
        status = OTF2_GlobalDefWriter_WriteSystemTreeNode(global, 0, host_name, node_class,
                                                          OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    if (status == OTF2_SUCCESS)
        status = OTF2_GlobalDefWriter_WriteLocationGroup(global, 0, group_name, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                         0, OTF2_UNDEFINED_LOCATION_GROUP);
    for (int l = 0; l < locations_count && status == OTF2_SUCCESS; l++)
        status = OTF2_GlobalDefWriter_WriteLocation(global, (OTF2_LocationRef)l, location_names[l],
                                                    OTF2_LOCATION_TYPE_CPU_THREAD, event_counts[l], 0);
    for (size_t i = 0; i < defs.region_count && status == OTF2_SUCCESS; i++)
        status = OTF2_GlobalDefWriter_WriteRegion(
            global, (OTF2_RegionRef)i, defs.regions[i].name, defs.regions[i].name, defs.regions[i].name,
            defs.regions[i].role, OTF2_PARADIGM_OPENMP, OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0);
    free(location_names);
    free(event_counts);
    if (status != OTF2_SUCCESS)
        goto failed;
    step = "closing the archive";
    status = OTF2_Archive_Close(archive);
    archive = NULL;
    if (status != OTF2_SUCCESS)
        goto failed;
    OTF2_AttributeList_Delete(attributes);
    ompc_locations_free(&locations);
    free_definitions(&defs);
    return 0;

out_of_memory:
    status = OTF2_ERROR_MEM_ALLOC_FAILED;
failed:
    snprintf(error, error_size, "%s%s%s: %s", step, step[0] ? " " : "", "(libotf2)",
             OTF2_Error_GetDescription(status));
    if (archive != NULL)
        OTF2_Archive_Close(archive);
    if (attributes != NULL)
        OTF2_AttributeList_Delete(attributes);
    ompc_locations_free(&locations);
    free_definitions(&defs);
    return -1;
}
