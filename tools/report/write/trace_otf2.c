/* trace_otf2.c - writes one recorded process as an OTF2 archive with libotf2, for ompcollect --trace (Vampir, otf2-print, the Score-P tool chain). */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "bounds.h"
#include "checked.h"
#include "grow.h"
#include "locations.h"
#include "report.h"
#include "spans.h"
#include "summary.h"
#include "symbolize.h"
#include "trace_otf2_plan.h"
#include "writer.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <otf2/otf2.h>

/* Attributes events may carry. */
enum { ATTRIBUTE_WAIT_ID, ATTRIBUTE_REGION_ID, ATTRIBUTE_SAMPLED, ATTRIBUTE_COUNT };

/* The one metric: the thread's state (omp_collector_api.h's THR_*_STATE), 0 where none is known. */
enum { METRIC_STATE = 0 };

/* The pair (names.c) whose span is a worker waiting for work: the state metric says IDLE, Score-P has no region for it. */
enum { PAIR_IDLE = 0 };

/* A region definition: its name, role and where its code is. */
struct region_def {
    uint32_t name;   /* string ref */
    OTF2_RegionRole role;
    uint32_t file;   /* string ref, OTF2_UNDEFINED_STRING without line information */
    uint32_t line;   /* 0: unknown */
};

/* Which region a span of this kind at this address was given. */
struct region_key {
    uint64_t codeptr;
    int kind, pair;
    uint32_t region;
};

/* The definitions gathered while the events are written; written last, as OTF2 allows. */
struct definitions {
    char **strings;
    size_t string_count, string_capacity;
    struct region_def *regions;
    size_t region_count, region_capacity;
    struct region_key *keys;
    size_t key_count, key_capacity;
};

/*
 * The longest string defined whole.  A definition must fit in one of the
 * archive's 256 KB chunks; the longest real text is a path (4 KB), and
 * only a damaged binary's line table names a file that is longer.
 */
#define STRING_MAX 4096

/* `text` as the archive keeps it when longer than STRING_MAX: its first STRING_MAX bytes and how long it was; NULL without memory. */
static char *string_cut(const char *text, size_t length)
{
    char *cut = malloc(STRING_MAX + 64);
    if (cut != NULL)
        snprintf(cut, STRING_MAX + 64, "%.*s[... %zu bytes in all]", STRING_MAX, text, length);
    return cut;
}

/* The string ref of `text`, defined on first use; UINT32_MAX without memory. */
static uint32_t string_ref(struct definitions *defs, const char *text)
{
    size_t length = strlen(text);
    char *cut = length > STRING_MAX ? string_cut(text, length) : NULL;
    if (length > STRING_MAX && cut == NULL)
        return UINT32_MAX;
    const char *kept = cut != NULL ? cut : text;
    for (size_t i = 0; i < defs->string_count; i++)
        if (strcmp(defs->strings[i], kept) == 0) {
            free(cut);
            return (uint32_t)i;
        }
    char *copy = cut != NULL ? cut : strdup(text);
    if (copy == NULL || ompc_grow(&defs->strings, defs->string_count + 1, &defs->string_capacity,
                                  sizeof *defs->strings) != 0) {
        free(copy);
        return UINT32_MAX;
    }
    defs->strings[defs->string_count] = copy;
    return (uint32_t)defs->string_count++;
}

/* The region ref named `text`, defined on first use with `role`, file and line; UINT32_MAX without memory. */
static uint32_t region_ref(struct definitions *defs, const char *text, OTF2_RegionRole role, uint32_t file,
                           uint32_t line)
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
    defs->regions[defs->region_count] = (struct region_def){name, role, file, line};
    return (uint32_t)defs->region_count++;
}

/*
 * The OTF2 role of a span's region, as Score-P gives OpenMP's: the lock
 * wait is inside the lock call (WRAPPER, like Score-P's omp_set_lock), the
 * ordered and single events bracket the block one thread runs (SBLOCK).
 */
static OTF2_RegionRole span_role(const struct ompc_span *span)
{
    static const OTF2_RegionRole roles[OMPC_NPAIRS] = {
        OTF2_REGION_ROLE_ARTIFICIAL, OTF2_REGION_ROLE_IMPLICIT_BARRIER, OTF2_REGION_ROLE_BARRIER,
        OTF2_REGION_ROLE_WRAPPER, OTF2_REGION_ROLE_CRITICAL, OTF2_REGION_ROLE_ORDERED,
        OTF2_REGION_ROLE_MASTER, OTF2_REGION_ROLE_SINGLE_SBLOCK, OTF2_REGION_ROLE_ORDERED_SBLOCK,
        OTF2_REGION_ROLE_ATOMIC,
    };
    if (span->kind == OMPC_SPAN_REGION)
        return OTF2_REGION_ROLE_PARALLEL;
    if (span->kind == OMPC_SPAN_TASK)
        return OTF2_REGION_ROLE_TASK;
    if (span->kind == OMPC_SPAN_CONSTRUCT && span->pair >= 0 && span->pair < OMPC_NPAIRS)
        return roles[span->pair];
    return OTF2_REGION_ROLE_ARTIFICIAL;
}

/* The region of a span: named by construct and place, with the source file and line where the symbolizer has them; UINT32_MAX without memory. */
static uint32_t span_region(struct definitions *defs, const struct ompc_span *span,
                            struct ompc_symbolizer *symbolizer)
{
    int pair = span->kind == OMPC_SPAN_CONSTRUCT ? span->pair : -1;
    for (size_t i = 0; i < defs->key_count; i++)
        if (defs->keys[i].codeptr == span->codeptr && defs->keys[i].kind == span->kind && defs->keys[i].pair == pair)
            return defs->keys[i].region;
    if (defs->key_count == defs->key_capacity) {
        size_t capacity = defs->key_capacity ? 2 * defs->key_capacity : 64;
        struct region_key *grown = realloc(defs->keys, capacity * sizeof *grown);
        if (grown == NULL)
            return UINT32_MAX;
        defs->keys = grown;
        defs->key_capacity = capacity;
    }
    uint32_t file = OTF2_UNDEFINED_STRING, line = 0;
    if (span->codeptr != 0) {
        struct ompc_location where;
        ompc_symbolize(symbolizer, span->codeptr, OMPC_ADDRESS_CODEPTR, &where);
        if (where.kind == OMPC_LOC_LINE && where.file != NULL && where.line > 0) {
            file = string_ref(defs, where.file);
            line = (uint32_t)where.line;
            if (file == UINT32_MAX)
                return UINT32_MAX;
        }
    }
    char name[320];
    uint32_t region = region_ref(defs, ompc_span_name(span, symbolizer, name, sizeof name), span_role(span), file,
                                 line);
    if (region != UINT32_MAX)
        defs->keys[defs->key_count++] = (struct region_key){span->codeptr, span->kind, pair, region};
    return region;
}

/* The archive's flushes happen when its buffers fill; the post-flush time is not used by readers of this archive. */
static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location, void *caller,
                                bool final)
{
    (void)user, (void)type, (void)location, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = NULL};

/* One open span on a location's stack, with what its end writes besides the Leave. */
struct open_span {
    uint64_t end;
    uint32_t region, team, lock, order;
    int fork;
    /* A task's run: the task, whether the run completes it, and the task the thread switches back to. */
    int task, complete;
    struct ompc_otf2_task self, back;
};

/* One location's event writing under way. */
struct location_writer {
    OTF2_EvtWriter *writer;
    OTF2_AttributeList *attributes;
    const struct ompc_otf2_plan *plan;
    uint64_t origin;
    uint64_t state_end; /* where the last state written ends */
    int state_open;     /* 1: no state written after it yet, nor 0 for "unknown" */
    OTF2_ErrorCode status;
    /* The tasks this location created (ThreadTaskCreate), in time order: indexes into the model's tasks. */
    const struct ompc_model_process *process;
    int location, thread;
    size_t next_task;
};

/* Writes the state metric: `state` from `time` on (OTF2_METRIC_ABSOLUTE_NEXT). */
static void state_metric(struct location_writer *w, uint64_t time, uint64_t state, int sampled)
{
    OTF2_Type type = OTF2_TYPE_UINT64;
    OTF2_MetricValue value = {.unsigned_int = state};
    if (sampled)
        OTF2_AttributeList_AddUint8(w->attributes, ATTRIBUTE_SAMPLED, 1);
    if (w->status == OTF2_SUCCESS)
        w->status = OTF2_EvtWriter_Metric(w->writer, w->attributes, w->origin + time, METRIC_STATE, 1, &type, &value);
    OTF2_AttributeList_RemoveAllAttributes(w->attributes);
}

/* Before anything at `time`: the last state, if it ended earlier with none after it, gives way to 0 (unknown). */
static void catch_up(struct location_writer *w, uint64_t time)
{
    if (w->state_open && w->state_end < time) {
        w->state_open = 0;
        state_metric(w, w->state_end, 0, 0);
    }
}

/* The next task this location created, by `until`: its index in the model's tasks, or -1. */
static long next_creation(struct location_writer *w, uint64_t until)
{
    const struct ompc_model_process *process = w->process;
    for (; w->next_task < process->task_count; w->next_task++) {
        const struct ompc_model_task *task = &process->tasks[w->next_task];
        if (task->creator != w->thread || w->plan->tasks[w->next_task].team == OMPC_OTF2_NONE)
            continue;
        return task->create_ns <= until ? (long)w->next_task : -1;
    }
    return -1;
}

/* ThreadTaskCreate for every task this location created by `until` (task ids grow with time on a thread). */
static void create_tasks(struct location_writer *w, uint64_t until)
{
    long i;
    while (w->status == OTF2_SUCCESS && (i = next_creation(w, until)) >= 0) {
        const struct ompc_otf2_task *named = &w->plan->tasks[i];
        catch_up(w, w->process->tasks[i].create_ns);
        w->status = OTF2_EvtWriter_ThreadTaskCreate(w->writer, NULL, w->origin + w->process->tasks[i].create_ns,
                                                    named->team, named->creator, named->generation);
        w->next_task++;
    }
}

/* Switches the location to task `named` (a task the plan names), as Score-P does before a task's Enter and after its Leave. */
static void switch_task(struct location_writer *w, uint64_t time, const struct ompc_otf2_task *named)
{
    if (w->status == OTF2_SUCCESS && named->team != OMPC_OTF2_NONE)
        w->status = OTF2_EvtWriter_ThreadTaskSwitch(w->writer, NULL, w->origin + time, named->team, named->creator,
                                                    named->generation);
}

/* Closes the innermost open span: Leave, the lock it acquired, the team it leaves, the join it ends with; a task's completion and the switch back. */
static void leave(struct location_writer *w, const struct open_span *open)
{
    uint64_t time = w->origin + open->end;
    create_tasks(w, open->end);
    catch_up(w, open->end);
    if (w->status == OTF2_SUCCESS)
        w->status = OTF2_EvtWriter_Leave(w->writer, NULL, time, open->region);
    if (w->status == OTF2_SUCCESS && open->task && open->complete)
        w->status = OTF2_EvtWriter_ThreadTaskComplete(w->writer, NULL, time, open->self.team, open->self.creator,
                                                      open->self.generation);
    if (open->task)
        switch_task(w, open->end, &open->back);
    if (w->status == OTF2_SUCCESS && open->lock != OMPC_OTF2_NONE)
        w->status = OTF2_EvtWriter_ThreadAcquireLock(w->writer, NULL, time, OTF2_PARADIGM_OPENMP, open->lock,
                                                     open->order);
    if (w->status == OTF2_SUCCESS && open->team != OMPC_OTF2_NONE)
        w->status = OTF2_EvtWriter_ThreadTeamEnd(w->writer, NULL, time, open->team);
    if (w->status == OTF2_SUCCESS && open->fork)
        w->status = OTF2_EvtWriter_ThreadJoin(w->writer, NULL, time, OTF2_PARADIGM_OPENMP);
}

/* Opens a span: ThreadFork on the thread that forked its team, ThreadTeamBegin on every member, then Enter with its attributes. */
static void enter(struct location_writer *w, const struct ompc_otf2_item *item, uint32_t region)
{
    const struct ompc_span *span = &item->span;
    uint64_t time = w->origin + span->begin_ns;
    create_tasks(w, span->begin_ns);
    catch_up(w, span->begin_ns);
    int team = item->team != OMPC_OTF2_NONE && item->team < w->plan->team_count;
    if (w->status == OTF2_SUCCESS && team && item->fork)
        w->status = OTF2_EvtWriter_ThreadFork(w->writer, NULL, time, OTF2_PARADIGM_OPENMP,
                                              w->plan->teams[item->team].size);
    if (w->status == OTF2_SUCCESS && team)
        w->status = OTF2_EvtWriter_ThreadTeamBegin(w->writer, NULL, time, item->team);
    if (span->wait_id != 0)
        OTF2_AttributeList_AddUint64(w->attributes, ATTRIBUTE_WAIT_ID, span->wait_id);
    if (span->region != 0)
        OTF2_AttributeList_AddUint64(w->attributes, ATTRIBUTE_REGION_ID, span->region);
    if (!span->exact)
        OTF2_AttributeList_AddUint8(w->attributes, ATTRIBUTE_SAMPLED, 1);
    if (w->status == OTF2_SUCCESS)
        w->status = OTF2_EvtWriter_Enter(w->writer, w->attributes, time, region);
    OTF2_AttributeList_RemoveAllAttributes(w->attributes);
}

/*
 * A task's run begins: the location switches to the task (when the plan
 * names it), remembering what it switches back to at the run's end: the
 * run of a task it began inside, else the thread's implicit task.
 */
static void task_switch_in(struct location_writer *w, const struct ompc_span *span, const struct open_span *stack,
                           size_t depth, struct open_span *open)
{
    const struct ompc_model_task *task = ompc_model_task(w->process, span->task);
    if (task == NULL || w->plan->tasks[task - w->process->tasks].team == OMPC_OTF2_NONE)
        return;
    open->task = 1;
    open->complete = span->complete;
    open->self = w->plan->tasks[task - w->process->tasks];
    size_t below = depth;
    while (below > 0 && !stack[below - 1].task)
        below--;
    open->back = below > 0 ? stack[below - 1].self
                           : ompc_otf2_plan_implicit(w->plan, w->location, span->region, span->begin_ns);
    create_tasks(w, span->begin_ns);
    catch_up(w, span->begin_ns);
    switch_task(w, span->begin_ns, &open->self);
}

/*
 * One location's events: its spans as Enter/Leave (properly nested by
 * construction; a worker's idle time is no region), parallel regions with
 * the team's records, lock acquisitions, and the state as a metric.
 * Returns the latest time written.
 */
static uint64_t write_location(struct location_writer *w, const struct ompc_otf2_item *items, size_t count,
                               struct definitions *defs, struct ompc_symbolizer *symbolizer)
{
    uint64_t last = 0;
    struct open_span *stack = malloc((count + 1) * sizeof *stack);
    if (stack == NULL) {
        w->status = OTF2_ERROR_MEM_ALLOC_FAILED;
        return 0;
    }
    size_t depth = 0;
    for (size_t k = 0; k < count && w->status == OTF2_SUCCESS; k++) {
        const struct ompc_otf2_item *item = &items[k];
        struct ompc_span span = item->span;
        while (depth > 0 && stack[depth - 1].end <= span.begin_ns && w->status == OTF2_SUCCESS)
            leave(w, &stack[--depth]);
        last = span.end_ns > last ? span.end_ns : last;
        if (span.kind == OMPC_SPAN_STATE) {
            create_tasks(w, span.begin_ns);
            catch_up(w, span.begin_ns);
            state_metric(w, span.begin_ns, (uint64_t)span.state, !span.exact);
            w->state_open = 1;
            w->state_end = span.end_ns;
            continue;
        }
        if (span.kind == OMPC_SPAN_CONSTRUCT && span.pair == PAIR_IDLE)
            continue;
        /* Spans nest by construction; a rounding that says otherwise is cut to fit. */
        if (depth > 0 && span.end_ns > stack[depth - 1].end)
            span.end_ns = stack[depth - 1].end;
        uint32_t region = span_region(defs, &span, symbolizer);
        if (region == UINT32_MAX) {
            w->status = OTF2_ERROR_MEM_ALLOC_FAILED;
            break;
        }
        struct ompc_otf2_item opened = *item;
        opened.span = span;
        int team = item->team != OMPC_OTF2_NONE && item->team < w->plan->team_count;
        struct open_span open = {span.end_ns, region, team ? item->team : OMPC_OTF2_NONE, item->lock,
                                 item->order, team && item->fork, 0, 0, {0, 0, 0}, {0, 0, 0}};
        if (span.kind == OMPC_SPAN_TASK)
            task_switch_in(w, &span, stack, depth, &open);
        enter(w, &opened, region);
        stack[depth++] = open;
    }
    while (depth > 0 && w->status == OTF2_SUCCESS)
        leave(w, &stack[--depth]);
    create_tasks(w, UINT64_MAX);
    catch_up(w, UINT64_MAX);
    free(stack);
    return last;
}

/* Frees the gathered definitions. */
static void free_definitions(struct definitions *defs)
{
    for (size_t i = 0; i < defs->string_count; i++)
        free(defs->strings[i]);
    free(defs->strings);
    free(defs->regions);
    free(defs->keys);
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
    struct ompc_otf2_plan plan; /* the teams, who was in them, the lock acquisitions */
    uint64_t *event_counts; /* per location */
    uint64_t length;        /* the latest time written */
    const char *step;       /* what was under way, for the error message */
};

/* The locations, their plan, the code locations' symbolizer and the attribute list, before the archive exists. */
static OTF2_ErrorCode archive_prepare(struct archive_job *job)
{
    const struct ompc_model_process *process = job->report->process;
    job->thread_of = calloc((size_t)job->rows + 1, sizeof *job->thread_of);
    if (job->thread_of == NULL)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (int i = 0; i < job->rows; i++)
        if (ompc_thread_is_openmp(&process->threads[i]))
            job->thread_of[job->location_count++] = i;
    if (ompc_otf2_plan_build(job->report, job->thread_of, job->location_count, &job->plan) != 0)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    if (ompc_locations_build(job->report->process, &job->locations) != 0)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    job->attributes = OTF2_AttributeList_New();
    return job->attributes != NULL ? OTF2_SUCCESS : OTF2_ERROR_MEM_ALLOC_FAILED;
}

/*
 * Each bound the run reached, as OMPCOLLECT::LIMIT_<WHAT> holding its
 * sentence, and how many there are (OMPCOLLECT::LIMITS_REACHED).
 */
static void limit_properties(const struct archive_job *job)
{
    struct ompc_limit limits[OMPC_LIMIT_KINDS];
    int count = ompc_limits_reached(job->report->process, job->report->event_log_bytes, limits);
    char name[64];
    snprintf(name, sizeof name, "%d", count);
    OTF2_Archive_SetProperty(job->archive, "OMPCOLLECT::LIMITS_REACHED", name, true);
    for (int i = 0; i < count; i++) {
        int length = snprintf(name, sizeof name, "OMPCOLLECT::LIMIT_%s", limits[i].what);
        for (int c = (int)sizeof "OMPCOLLECT::LIMIT_" - 1; c < length && c < (int)sizeof name; c++)
            name[c] = name[c] >= 'a' && name[c] <= 'z' ? (char)(name[c] - 'a' + 'A') : name[c];
        OTF2_Archive_SetProperty(job->archive, name, limits[i].text, true);
    }
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
    limit_properties(job);
}

/* Opens the archive and says who wrote it, of what, where, and what it lacks. */
static OTF2_ErrorCode archive_open(struct archive_job *job, const char *directory, const char *name)
{
    const struct ompc_report *report = job->report;
    OTF2_ErrorCode status;
    char text[512];
    job->step = "opening the archive";
    /* The smallest chunks libotf2 allows: every location's writer holds one (256 threads, 64 MB), every reader
     * clears one per location and per pass over the definitions; no definition is longer than STRING_MAX. */
    job->archive = OTF2_Archive_Open(directory, name, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN, OTF2_CHUNK_SIZE_MIN,
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
    OTF2_ErrorCode status;
    job->step = "writing the events";
    if ((status = OTF2_Archive_OpenEvtFiles(job->archive)) != OTF2_SUCCESS)
        return status;
    job->event_counts = calloc((size_t)job->rows + 1, sizeof *job->event_counts);
    if (job->event_counts == NULL)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (int l = 0; l < job->location_count && status == OTF2_SUCCESS; l++) {
        OTF2_EvtWriter *writer = OTF2_Archive_GetEvtWriter(job->archive, (OTF2_LocationRef)l);
        if (writer == NULL) {
            status = OTF2_ERROR_INVALID;
            break;
        }
        struct location_writer w = {writer, job->attributes, &job->plan, job->report->process->origin_ns, 0, 0,
                                    OTF2_SUCCESS, job->report->process, l, job->thread_of[l], 0};
        struct ompc_otf2_item *items;
        long count = ompc_otf2_plan_items(job->report, &job->plan, l, job->thread_of[l], &items);
        uint64_t last = 0;
        if (count < 0) {
            w.status = OTF2_ERROR_MEM_ALLOC_FAILED;
        } else {
            last = write_location(&w, items, (size_t)count, &job->defs, job->locations.symbolizer);
            free(items);
        }
        status = w.status;
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
    uint32_t state[3];   /* the state metric's name, description, unit */
    uint32_t threads;    /* the group of every location a team is numbered in */
    uint32_t *teams;     /* per team */
};

/* The names of the state metric and the thread teams; OTF2_ERROR_MEM_ALLOC_FAILED without memory. */
static OTF2_ErrorCode define_team_names(struct archive_job *job, struct global_names *names)
{
    struct definitions *defs = &job->defs;
    char text[512];
    size_t used = (size_t)snprintf(text, sizeof text, "the thread's OpenMP state from this time on:");
    for (int state = 1; state < OMPC_NSTATES && used < sizeof text; state++)
        used += (size_t)snprintf(text + used, sizeof text - used, " %d %s%s", state, ompc_state_name(state),
                                 state + 1 < OMPC_NSTATES ? "," : "; 0 unknown");
    names->state[0] = string_ref(defs, "thread state");
    names->state[1] = string_ref(defs, text);
    names->state[2] = string_ref(defs, "");
    names->threads = string_ref(defs, "OpenMP threads");
    names->teams = calloc(job->plan.team_count + 1, sizeof *names->teams);
    if (names->teams == NULL)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (size_t t = 0; t < job->plan.team_count; t++) {
        const struct ompc_otf2_team *team = &job->plan.teams[t];
        /* Named by its members' thread slots, the forking one first: teams of one size differ by who is in them. */
        size_t at = (size_t)snprintf(text, sizeof text, "team of thread %d with", job->thread_of[team->members[0]]);
        for (uint32_t m = 1; m < team->size && at < sizeof text - 16; m++)
            at += (size_t)snprintf(text + at, sizeof text - at, " %d", job->thread_of[team->members[m]]);
        if (team->size == 1)
            snprintf(text + at, sizeof text - at, " no other");
        else if (at >= sizeof text - 16)
            snprintf(text + at, sizeof text - at, " ...");
        names->teams[t] = string_ref(defs, text);
        if (names->teams[t] == UINT32_MAX)
            return OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    for (int i = 0; i < 3; i++)
        if (names->state[i] == UINT32_MAX)
            return OTF2_ERROR_MEM_ALLOC_FAILED;
    return names->threads != UINT32_MAX ? OTF2_SUCCESS : OTF2_ERROR_MEM_ALLOC_FAILED;
}

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
         string_ref(defs, "1: the region or state comes from timer samples (its ends are within one sampling interval), not events")},
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
    /* A damaged saved run's offset may be INT64_MIN, whose negation is undefined. */
    if (offset == 0 || (offset < 0 && origin < ompc_magnitude(offset)))
        return OTF2_UNDEFINED_TIMESTAMP;
    return offset > 0 ? origin + (uint64_t)offset : origin - ompc_magnitude(offset);
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
            defs->regions[i].role, OTF2_PARADIGM_OPENMP, OTF2_REGION_FLAG_NONE, defs->regions[i].file,
            defs->regions[i].line, 0);
    return status;
}

/*
 * The state metric, and the thread teams as OTF2 wants them: a group of
 * every location (COMM_LOCATIONS), per team a group of its members' places
 * in it, the forking thread first (COMM_GROUP), and a Comm over that.
 */
static OTF2_ErrorCode write_team_definitions(const struct archive_job *job, OTF2_GlobalDefWriter *global,
                                             const struct global_names *names)
{
    const struct ompc_otf2_plan *plan = &job->plan;
    uint64_t *members = malloc(((size_t)job->location_count + 1) * sizeof *members);
    if (members == NULL)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (int l = 0; l < job->location_count; l++)
        members[l] = (uint64_t)l;
    OTF2_ErrorCode status = OTF2_GlobalDefWriter_WriteGroup(global, 0, names->threads,
                                                            OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP,
                                                            OTF2_GROUP_FLAG_NONE, (uint32_t)job->location_count,
                                                            members);
    for (size_t t = 0; t < plan->team_count && status == OTF2_SUCCESS; t++) {
        for (uint32_t m = 0; m < plan->teams[t].size; m++)
            members[m] = plan->teams[t].members[m];
        status = OTF2_GlobalDefWriter_WriteGroup(global, (OTF2_GroupRef)(t + 1), names->teams[t],
                                                 OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                                 OTF2_GROUP_FLAG_NONE, plan->teams[t].size, members);
    }
    free(members);
    OTF2_MetricMemberRef member = 0;
    if (status == OTF2_SUCCESS)
        status = OTF2_GlobalDefWriter_WriteMetricMember(global, member, names->state[0], names->state[1],
                                                        OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_NEXT,
                                                        OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, names->state[2]);
    if (status == OTF2_SUCCESS)
        status = OTF2_GlobalDefWriter_WriteMetricClass(global, METRIC_STATE, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                                       OTF2_RECORDER_KIND_CPU);
    for (size_t t = 0; t < plan->team_count && status == OTF2_SUCCESS; t++)
        status = OTF2_GlobalDefWriter_WriteComm(global, (OTF2_CommRef)t, names->teams[t], (OTF2_GroupRef)(t + 1),
                                                OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
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
        status = define_team_names(job, &names);
    if (status == OTF2_SUCCESS)
        status = write_global_definitions(job, global, &names, length);
    if (status == OTF2_SUCCESS)
        status = write_team_definitions(job, global, &names);
    free(names.locations);
    free(names.teams);
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
    ompc_otf2_plan_free(&job->plan);
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
    /* An archive without locations is one no OTF2 reader opens (otf2-print: "Find location definitions"). */
    if (job.rows <= 0) {
        snprintf(error, error_size, "the record holds no usable thread (its thread table is damaged or empty): "
                                    "no archive, since one without locations is no OTF2 trace");
        return -1;
    }
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
