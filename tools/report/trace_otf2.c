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

/* What the steps of writing one archive share, and what the last of them frees. */
struct archive_job {
    const struct ompc_report *report;
    int rows; /* thread slots, at most OMPC_MAX_THREADS */
    struct definitions defs;
    struct ompc_locations locations;
    OTF2_Archive *archive;
    OTF2_AttributeList *attributes;
    /* One location per OpenMP thread: threads the runtime never reported (an MPI progress thread) have no place in it. */
    int *thread_of;         /* the thread slot of each location */
    int location_count;
    uint64_t *event_counts; /* per location */
    uint64_t length;        /* the latest time written */
    const char *step;       /* what was under way, for the error message */
};

/* The state regions, the code locations' symbolizer and the attribute list, before the archive exists. */
static OTF2_ErrorCode archive_prepare(struct archive_job *job)
{
    /* The state regions first, so their refs are the states' numbers less one in every archive. */
    for (int state = 1; state < OMPC_NSTATES; state++)
        if (region_ref(&job->defs, ompc_state_name(state), OTF2_REGION_ROLE_ARTIFICIAL) == UINT32_MAX)
            return OTF2_ERROR_MEM_ALLOC_FAILED;
    if (ompc_locations_build(job->report->process, &job->locations) != 0)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    job->attributes = OTF2_AttributeList_New();
    return job->attributes != NULL ? OTF2_SUCCESS : OTF2_ERROR_MEM_ALLOC_FAILED;
}

/* What the trace lacks, as properties a reader can query (otf2-print -A). */
static void archive_properties(const struct archive_job *job)
{
    const struct ompc_model_process *process = job->report->process;
    char text[32];
    uint64_t recorded = 0, dropped = process->untracked.event_log_dropped;
    int truncated = 0;
    for (int i = 0; i < job->rows; i++) {
        recorded += process->threads[i].event_log_length;
        dropped += process->threads[i].event_log_dropped;
        truncated += process->threads[i].timeline_truncated != 0;
    }
    snprintf(text, sizeof text, "%" PRIu64, recorded);
    OTF2_Archive_SetProperty(job->archive, "OMPCOLLECT::EVENTS_RECORDED", text, true);
    snprintf(text, sizeof text, "%" PRIu64, dropped);
    OTF2_Archive_SetProperty(job->archive, "OMPCOLLECT::EVENTS_DROPPED", text, true);
    snprintf(text, sizeof text, "%" PRIu64, job->report->event_log_bytes);
    OTF2_Archive_SetProperty(job->archive, "OMPCOLLECT::EVENT_BUFFER_BYTES", text, true);
    snprintf(text, sizeof text, "%d", truncated);
    OTF2_Archive_SetProperty(job->archive, "OMPCOLLECT::TIMELINES_TRUNCATED", text, true);
    OTF2_Archive_SetProperty(job->archive, "OMPCOLLECT::COMPLETE", job->report->complete ? "true" : "false", true);
    if (process->damage.count != 0)
        OTF2_Archive_SetProperty(job->archive, "OMPCOLLECT::RECORD_DAMAGE", process->damage.text, true);
}

/* Opens the archive and says who wrote it, of what, where, and what it lacks. */
static OTF2_ErrorCode archive_open(struct archive_job *job, const char *directory, const char *name)
{
    const struct ompc_report *report = job->report;
    OTF2_ErrorCode status;
    char text[512];
    job->step = "opening the archive";
    job->archive = OTF2_Archive_Open(directory, name, OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                     OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (job->archive == NULL)
        return OTF2_ERROR_INVALID;
    if ((status = OTF2_Archive_SetFlushCallbacks(job->archive, &flush_callbacks, NULL)) != OTF2_SUCCESS
        || (status = OTF2_Archive_SetSerialCollectiveCallbacks(job->archive)) != OTF2_SUCCESS)
        return status;
    OTF2_Archive_SetCreator(job->archive, "ompcollect " PACKAGE_VERSION);
    snprintf(text, sizeof text, "%s (pid %ld): OpenMP thread states and events through the Collector API",
             report->program != NULL ? report->program : "?", (long)report->process->pid);
    OTF2_Archive_SetDescription(job->archive, text);
    if (report->host != NULL)
        OTF2_Archive_SetMachineName(job->archive, report->host);
    archive_properties(job);
    return OTF2_SUCCESS;
}

/* Every OpenMP thread's events, one location each, counting them for the location definitions. */
static OTF2_ErrorCode archive_events(struct archive_job *job)
{
    const struct ompc_model_process *process = job->report->process;
    OTF2_ErrorCode status;
    job->step = "writing the events";
    if ((status = OTF2_Archive_OpenEvtFiles(job->archive)) != OTF2_SUCCESS)
        return status;
    job->event_counts = calloc((size_t)job->rows + 1, sizeof *job->event_counts);
    if (job->event_counts == NULL)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    job->thread_of = calloc((size_t)job->rows + 1, sizeof *job->thread_of);
    if (job->thread_of == NULL)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (int i = 0; i < job->rows; i++)
        if (ompc_thread_is_openmp(&process->threads[i]))
            job->thread_of[job->location_count++] = i;
    for (int l = 0; l < job->location_count && status == OTF2_SUCCESS; l++) {
        OTF2_EvtWriter *writer = OTF2_Archive_GetEvtWriter(job->archive, (OTF2_LocationRef)l);
        if (writer == NULL) {
            status = OTF2_ERROR_INVALID;
            break;
        }
        uint64_t last = write_location(job->report, job->thread_of[l], writer, &job->defs,
                                       job->locations.symbolizer, job->attributes, &status);
        job->length = last > job->length ? last : job->length;
        if (status == OTF2_SUCCESS)
            status = OTF2_EvtWriter_GetNumberOfEvents(writer, &job->event_counts[l]);
        OTF2_ErrorCode closed = OTF2_Archive_CloseEvtWriter(job->archive, writer);
        if (status == OTF2_SUCCESS)
            status = closed;
    }
    if (status == OTF2_SUCCESS)
        status = OTF2_Archive_CloseEvtFiles(job->archive);
    return status;
}

/* Every location has its (empty) local definitions, as readers expect. */
static OTF2_ErrorCode archive_local_definitions(struct archive_job *job)
{
    job->step = "writing the local definitions";
    OTF2_ErrorCode status = OTF2_Archive_OpenDefFiles(job->archive);
    for (int l = 0; l < job->location_count && status == OTF2_SUCCESS; l++) {
        OTF2_DefWriter *writer = OTF2_Archive_GetDefWriter(job->archive, (OTF2_LocationRef)l);
        status = writer != NULL ? OTF2_Archive_CloseDefWriter(job->archive, writer) : OTF2_ERROR_INVALID;
    }
    if (status == OTF2_SUCCESS)
        status = OTF2_Archive_CloseDefFiles(job->archive);
    return status;
}

/* The string refs the global definitions name besides the regions'. */
struct global_names {
    uint32_t openmp;
    uint32_t attributes[ATTRIBUTE_COUNT][2]; /* name, description */
    uint32_t host, node_class, group;
    uint32_t *locations; /* per location */
};

/* Defines the strings of the global definitions, in the order that numbers them; OTF2_ERROR_MEM_ALLOC_FAILED without memory. */
static OTF2_ErrorCode define_global_names(struct archive_job *job, struct global_names *names)
{
    const struct ompc_report *report = job->report;
    struct definitions *defs = &job->defs;
    char text[512];
    names->openmp = string_ref(defs, "OpenMP");
    uint32_t attribute_names[ATTRIBUTE_COUNT][2] = {
        {string_ref(defs, "wait id"),
         string_ref(defs, "the 8-byte id the Collector API's STATE gives a wait (one per lock, critical, ordered, barrier)")},
        {string_ref(defs, "parallel region id"),
         string_ref(defs, "the id CURRENT_PRID gave when the span began")},
        {string_ref(defs, "sampled"),
         string_ref(defs, "1: the span comes from timer samples (its ends are within one sampling interval), not events")},
    };
    memcpy(names->attributes, attribute_names, sizeof attribute_names);
    const char *host = report->host != NULL ? report->host : "localhost";
    names->host = string_ref(defs, host);
    names->node_class = string_ref(defs, "node");
    if (report->rank >= 0)
        snprintf(text, sizeof text, "%s (pid %ld, rank %d)", report->program != NULL ? report->program : "?",
                 (long)report->process->pid, report->rank);
    else
        snprintf(text, sizeof text, "%s (pid %ld)", report->program != NULL ? report->program : "?",
                 (long)report->process->pid);
    names->group = string_ref(defs, text);
    names->locations = calloc((size_t)job->rows + 1, sizeof *names->locations);
    if (names->locations == NULL)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (int l = 0; l < job->location_count; l++) {
        const struct ompc_model_thread *thread = &report->process->threads[job->thread_of[l]];
        snprintf(text, sizeof text, "thread %d (tid %ld%s)", job->thread_of[l], (long)thread->tid,
                 thread->initial ? ", initial" : "");
        names->locations[l] = string_ref(defs, text);
        if (names->locations[l] == UINT32_MAX)
            return OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    if (names->openmp == UINT32_MAX || names->host == UINT32_MAX || names->node_class == UINT32_MAX
        || names->group == UINT32_MAX)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    return OTF2_SUCCESS;
}

/* Timestamps are CLOCK_MONOTONIC ns; the real time of the process's origin lets Vampir show the wall clock. */
static uint64_t realtime_of_origin(const struct ompc_report *report)
{
    int64_t offset = report->realtime_offset_ns;
    uint64_t origin = report->process->origin_ns;
    return offset != 0 && (offset > 0 || origin >= (uint64_t)-offset) ? origin + (uint64_t)offset
                                                                      : OTF2_UNDEFINED_TIMESTAMP;
}

/* The clock, every string, the paradigm, attributes, system tree, process, locations and regions. */
static OTF2_ErrorCode write_global_definitions(const struct archive_job *job, OTF2_GlobalDefWriter *global,
                                               const struct global_names *names, uint64_t length)
{
    const struct definitions *defs = &job->defs;
    OTF2_ErrorCode status = OTF2_GlobalDefWriter_WriteClockProperties(
        global, 1000000000u, job->report->process->origin_ns, length + 1, realtime_of_origin(job->report));
    for (size_t i = 0; i < defs->string_count && status == OTF2_SUCCESS; i++)
        status = OTF2_GlobalDefWriter_WriteString(global, (OTF2_StringRef)i, defs->strings[i]);
    if (status == OTF2_SUCCESS)
        status = OTF2_GlobalDefWriter_WriteParadigm(global, OTF2_PARADIGM_OPENMP, names->openmp,
                                                    OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN);
    static const OTF2_Type attribute_types[ATTRIBUTE_COUNT] = {OTF2_TYPE_UINT64, OTF2_TYPE_UINT64,
                                                               OTF2_TYPE_UINT8};
    for (int a = 0; a < ATTRIBUTE_COUNT && status == OTF2_SUCCESS; a++)
        status = OTF2_GlobalDefWriter_WriteAttribute(global, (OTF2_AttributeRef)a, names->attributes[a][0],
                                                     names->attributes[a][1], attribute_types[a]);
    if (status == OTF2_SUCCESS)
        status = OTF2_GlobalDefWriter_WriteSystemTreeNode(global, 0, names->host, names->node_class,
                                                          OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    if (status == OTF2_SUCCESS)
        status = OTF2_GlobalDefWriter_WriteLocationGroup(global, 0, names->group, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                         0, OTF2_UNDEFINED_LOCATION_GROUP);
    for (int l = 0; l < job->location_count && status == OTF2_SUCCESS; l++)
        status = OTF2_GlobalDefWriter_WriteLocation(global, (OTF2_LocationRef)l, names->locations[l],
                                                    OTF2_LOCATION_TYPE_CPU_THREAD, job->event_counts[l], 0);
    for (size_t i = 0; i < defs->region_count && status == OTF2_SUCCESS; i++)
        status = OTF2_GlobalDefWriter_WriteRegion(
            global, (OTF2_RegionRef)i, defs->regions[i].name, defs->regions[i].name, defs->regions[i].name,
            defs->regions[i].role, OTF2_PARADIGM_OPENMP, OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0);
    return status;
}

/* The global definitions, written last so that they hold every string and region the events used. */
static OTF2_ErrorCode archive_global_definitions(struct archive_job *job)
{
    job->step = "writing the global definitions";
    OTF2_GlobalDefWriter *global = OTF2_Archive_GetGlobalDefWriter(job->archive);
    if (global == NULL)
        return OTF2_ERROR_INVALID;
    uint64_t length = job->length;
    if (job->report->wall_ns > length)
        length = job->report->wall_ns;
    struct global_names names;
    memset(&names, 0, sizeof names);
    OTF2_ErrorCode status = define_global_names(job, &names);
    if (status == OTF2_SUCCESS)
        status = write_global_definitions(job, global, &names, length);
    free(names.locations);
    return status;
}

/* Closes the archive if still open and frees everything the job holds. */
static void archive_job_free(struct archive_job *job)
{
    if (job->archive != NULL)
        OTF2_Archive_Close(job->archive);
    if (job->attributes != NULL)
        OTF2_AttributeList_Delete(job->attributes);
    ompc_locations_free(&job->locations);
    free_definitions(&job->defs);
    free(job->thread_of);
    free(job->event_counts);
}

/* The OTF2 archive of one process (see report.h). */
int ompc_write_otf2(const struct ompc_report *report, const char *directory, const char *name,
                    char *error, size_t error_size)
{
    struct archive_job job;
    memset(&job, 0, sizeof job);
    job.report = report;
    job.rows = report->process->thread_count;
    if (job.rows > OMPC_MAX_THREADS)
        job.rows = OMPC_MAX_THREADS;
    job.step = "";
    OTF2_ErrorCode status = archive_prepare(&job);
    if (status == OTF2_SUCCESS)
        status = archive_open(&job, directory, name);
    if (status == OTF2_SUCCESS)
        status = archive_events(&job);
    if (status == OTF2_SUCCESS)
        status = archive_local_definitions(&job);
    if (status == OTF2_SUCCESS)
        status = archive_global_definitions(&job);
    if (status == OTF2_SUCCESS) {
        job.step = "closing the archive";
        status = OTF2_Archive_Close(job.archive);
        job.archive = NULL;
    }
    if (status != OTF2_SUCCESS)
        snprintf(error, error_size, "%s%s%s: %s", job.step, job.step[0] ? " " : "", "(libotf2)",
                 OTF2_Error_GetDescription(status));
    archive_job_free(&job);
    return status == OTF2_SUCCESS ? 0 : -1;
}
