/* extension.c - ompcollector's own requests (OMPCOLLECTOR_REQ_*): code addresses, region kinds and task frames for samplers. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "internal.h"

#include <string.h>

/*
 * Code addresses and kinds of regions by region id.  Only the master sees
 * parallel_begin, yet every thread of the team answers for the region, so
 * what it learnt is kept where any thread finds it: slot id % size,
 * written id-last and read id-first-and-last, so a slot being reused for
 * a region thousands of ids younger reads as unknown instead of as the
 * wrong place.
 */
#define OC_REGION_CODEPTRS 4096

struct codeptr_slot {
    _Atomic uint64_t region_id;
    _Atomic uint64_t codeptr;
    _Atomic uint64_t teams_codeptr;
    _Atomic uint64_t kind_flags; /* OMPCOLLECTOR_REGION_* << 32 | the OMPT flags */
};

static struct codeptr_slot region_codeptrs[OC_REGION_CODEPTRS];

/* What the slot of `region_id` holds: 1 and *out filled, or 0 when the slot is another region's.  Async-signal-safe: yes. */
static int region_slot_read(uint64_t region_id, ompcollector_region_t *out)
{
    if (region_id == 0)
        return 0;
    struct codeptr_slot *slot = &region_codeptrs[region_id % OC_REGION_CODEPTRS];
    if (atomic_load_explicit(&slot->region_id, memory_order_acquire) != region_id)
        return 0;
    out->codeptr = atomic_load_explicit(&slot->codeptr, memory_order_relaxed);
    out->teams_codeptr = atomic_load_explicit(&slot->teams_codeptr, memory_order_relaxed);
    uint64_t kind_flags = atomic_load_explicit(&slot->kind_flags, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&slot->region_id, memory_order_relaxed) != region_id)
        return 0;
    out->region_id = region_id;
    out->kind = (int)(kind_flags >> 32);
    out->flags = (int)(uint32_t)kind_flags;
    return 1;
}

/*
 * The kind of a region from its OMPT flags and its parent's entry.  A
 * team region without a code address directly inside a league is the one
 * libomp opens on each team's initial thread: it is the teams construct
 * at work, not a construct of its own.
 */
static int region_kind(int flags, const void *codeptr, const ompcollector_region_t *parent)
{
    if ((unsigned int)flags & (unsigned int)ompt_parallel_league)
        return OMPCOLLECTOR_REGION_LEAGUE;
    if (!((unsigned int)flags & (unsigned int)ompt_parallel_team))
        return OMPCOLLECTOR_REGION_UNKNOWN;
    if (codeptr == NULL && parent->kind == OMPCOLLECTOR_REGION_LEAGUE)
        return OMPCOLLECTOR_REGION_LEAGUE_TEAM;
    return OMPCOLLECTOR_REGION_PARALLEL;
}

/* Records where and what `region_id` is, forked inside `parent_id` (0: none).  Async-signal-safe: yes; the forking master. */
void oc_remember_region(uint64_t region_id, uint64_t parent_id, const void *codeptr, int flags)
{
    if (region_id == 0)
        return;
    ompcollector_region_t parent = {0};
    (void)region_slot_read(parent_id, &parent);
    int kind = region_kind(flags, codeptr, &parent);
    uint64_t teams = parent.teams_codeptr;
    if (parent.kind == OMPCOLLECTOR_REGION_LEAGUE || parent.kind == OMPCOLLECTOR_REGION_LEAGUE_TEAM)
        teams = parent.codeptr;
    /* A team of a league does its teams construct's work: it answers for that construct. */
    uint64_t address = kind == OMPCOLLECTOR_REGION_LEAGUE_TEAM ? parent.codeptr : (uint64_t)(uintptr_t)codeptr;
    struct codeptr_slot *slot = &region_codeptrs[region_id % OC_REGION_CODEPTRS];
    atomic_store_explicit(&slot->region_id, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&slot->codeptr, address, memory_order_relaxed);
    atomic_store_explicit(&slot->teams_codeptr, teams, memory_order_relaxed);
    atomic_store_explicit(&slot->kind_flags, (uint64_t)(uint32_t)kind << 32 | (uint32_t)flags,
                          memory_order_relaxed);
    atomic_store_explicit(&slot->region_id, region_id, memory_order_release);
}

/* Whether `region_id` is a teams construct's league (0: unknown or not).  Async-signal-safe: yes; any thread. */
int oc_region_is_league(uint64_t region_id)
{
    ompcollector_region_t entry;
    return region_slot_read(region_id, &entry) && entry.kind == OMPCOLLECTOR_REGION_LEAGUE;
}

/* The code address `region_id` was forked at, 0 if unknown.  Async-signal-safe: yes; any thread. */
uint64_t oc_region_codeptr(uint64_t region_id)
{
    ompcollector_region_t entry;
    return region_slot_read(region_id, &entry) ? entry.codeptr : 0;
}

/*
 * Where a task's wait is, from the address the runtime gave at its
 * begin.  When that address is in the runtime's own code (libomp's call
 * of the task's body: the body, or a function it tail-called, ended with
 * the wait), an explicit task's construct is the nearest place of the
 * user's known, and the report follows that construct's body to the wait
 * it jumps to.  An implicit task's stays: the agent puts its region's
 * construct in its place.  Worked out here, when a sample asks, rather
 * than at every task wait (fib waits once a task).
 * Async-signal-safe: yes; oc_runtime_code_holds reads atomics only.
 */
static uint64_t task_wait_site(const struct oc_task *task)
{
    uint64_t site = task->wait_codeptr;
    if (task->implicit || task->codeptr == 0 || !oc_runtime_code_holds(site))
        return site;
    return task->codeptr;
}

/*
 * What a wait in `state` (IBAR, EBAR or the task wait's state) is, and
 * where: the running task's taskwait or taskgroup when it is in one and
 * the state is the one task waits report, else a barrier; and in WORK
 * the lock, critical, atomic or ordered the thread holds, if any.
 * Async-signal-safe: yes; reads only this thread's chain.
 */
static void wait_kind(ompcollector_sample_t *out)
{
    const struct oc_task *top = oc_self.task_top;
    int in_wait = top != NULL ? top->in_task_wait : oc_self.in_task_wait;
    if (in_wait != 0 && out->state == atomic_load_explicit(&oc_taskwait_state, memory_order_relaxed)) {
        out->wait_kind = in_wait;
        out->wait_codeptr = top != NULL ? task_wait_site(top) : oc_self.task_wait_codeptr;
    } else if (out->state == THR_IBAR_STATE || out->state == THR_EBAR_STATE) {
        out->wait_kind = OMPCOLLECTOR_WAIT_BARRIER;
        out->wait_codeptr = oc_self.sync_codeptr;
    } else if (out->state == THR_WORK_STATE && oc_self.held_depth > 0) {
        out->wait_kind = OMPCOLLECTOR_WAIT_HELD;
        out->wait_codeptr = oc_self.held_codeptr;
        out->wait_object = oc_self.held_object;
    }
}

/*
 * OMPCOLLECTOR_REQ_SAMPLE: state, wait id and region id as STATE and
 * CURRENT_PRID answer them (one state computation serves both), plus the
 * code addresses the shim kept from the callbacks that opened the wait and
 * the region.
 * Async-signal-safe: yes; any thread.
 */
static __attribute__((noinline)) int sample(unsigned char *mem, int32_t mem_size, int32_t *rsz)
{
    ompcollector_sample_t out;
    *rsz = (int32_t)sizeof out;
    if (mem_size < (int32_t)sizeof out)
        return OMP_ERRCODE_MEM_TOO_SMALL;
    memset(&out, 0, sizeof out);
    uint64_t wait_id;
    out.state = oc_current_state(&wait_id);
    out.wait_id = wait_id;
    out.region_id = oc_current_region_id(out.state);
    switch (out.state) {
    case THR_LKWT_STATE:
    case THR_CTWT_STATE:
    case THR_ODWT_STATE:
    case THR_ATWT_STATE:
        out.wait_codeptr = oc_self.mutex_codeptr;
        out.wait_object = oc_self.mutex_object;
        break;
    default:
        wait_kind(&out);
        break;
    }
    out.region_codeptr = oc_region_codeptr(out.region_id);
    memcpy(mem, &out, sizeof out);
    return OMP_ERRCODE_OK;
}

/*
 * OMPCOLLECTOR_REQ_TASK_FRAMES: walks ompt_get_task_info up the ancestor
 * levels, which OMPT defines as async-signal-safe, writing as many levels
 * as fit and counting the rest.  Each level's thread_num is the runtime's:
 * libomp before 14 answers the enclosing team's at an explicit task's
 * parent level (t/conformance/checks/task-info-ancestor.c).
 * Async-signal-safe: yes; any thread.
 */
static __attribute__((noinline)) int task_frames(unsigned char *mem, int32_t mem_size, int32_t *rsz)
{
    ompcollector_task_frames_t head = {0, 0};
    const int32_t head_size = (int32_t)sizeof head, level_size = (int32_t)sizeof(ompcollector_task_frame_t);
    if (mem_size < head_size) {
        *rsz = head_size;
        return OMP_ERRCODE_MEM_TOO_SMALL;
    }
    ompt_get_task_info_t get_task_info = oc_runtime.get_task_info;
    if (get_task_info != NULL && atomic_load_explicit(&oc_tool_attached, memory_order_acquire)) {
        /* The chain ends at the initial task; the bound only guards against a runtime that loops. */
        for (int level = 0; level < 1024; level++) {
            int flags = 0, thread_num = 0;
            ompt_data_t *task_data = NULL, *parallel_data = NULL;
            ompt_frame_t *frame = NULL;
            if (get_task_info(level, &flags, &task_data, &frame, &parallel_data, &thread_num) != 2)
                break;
            head.levels++;
            if (head_size + (head.count + 1) * level_size > mem_size)
                continue;
            ompcollector_task_frame_t out;
            memset(&out, 0, sizeof out);
            if (frame != NULL) {
                out.exit_frame = (uint64_t)(uintptr_t)frame->exit_frame.ptr;
                out.enter_frame = (uint64_t)(uintptr_t)frame->enter_frame.ptr;
                out.exit_frame_flags = frame->exit_frame_flags;
                out.enter_frame_flags = frame->enter_frame_flags;
            }
            out.task_flags = flags;
            out.thread_num = thread_num;
            /*
             * During a team's teardown libomp can answer a level whose team is
             * already gone with the field's offset from a NULL team, not NULL:
             * no object lives in the first page, so such a level has no region.
             */
            out.region_id = (uintptr_t)parallel_data >= 4096 ? parallel_data->value : 0;
            out.region_codeptr = oc_region_codeptr(out.region_id);
            memcpy(mem + head_size + head.count * level_size, &out, sizeof out);
            head.count++;
        }
    }
    memcpy(mem, &head, sizeof head);
    *rsz = head_size + head.levels * level_size;
    return head.count < head.levels ? OMP_ERRCODE_MEM_TOO_SMALL : OMP_ERRCODE_OK;
}

/*
 * OMPCOLLECTOR_REQ_TASK_INFO: the task TASK_ID names, from the shim's own
 * record of it; inside task_create delivery from what the callback gave,
 * so a merged task (no record) still has its construct.
 * Async-signal-safe: yes; reads only this thread's TLS and chain.
 */
static int task_info(unsigned char *mem, int32_t mem_size, int32_t *rsz)
{
    ompcollector_task_info_t out;
    *rsz = (int32_t)sizeof out;
    if (mem_size < (int32_t)sizeof out)
        return OMP_ERRCODE_MEM_TOO_SMALL;
    memset(&out, 0, sizeof out);
    const struct oc_task *task = oc_current_task();
    int creating = oc_self.creating_flags;
    if (creating != 0) {
        out.codeptr = oc_self.creating_codeptr;
        out.flags = (creating & OC_TASK_FLAG_UNDEFERRED ? OMPCOLLECTOR_TASK_UNDEFERRED : 0)
                    | (creating & OC_TASK_FLAG_UNTIED ? OMPCOLLECTOR_TASK_UNTIED : 0)
                    | ((unsigned int)creating & OC_TASK_FLAG_MERGED ? OMPCOLLECTOR_TASK_MERGED : 0);
        task = oc_self.creating;
    } else if (task != NULL) {
        out.codeptr = task->implicit ? 0 : task->codeptr;
        out.flags = (task->implicit ? OMPCOLLECTOR_TASK_IMPLICIT : 0)
                    | (task->flags & OC_TASK_FLAG_UNDEFERRED ? OMPCOLLECTOR_TASK_UNDEFERRED : 0)
                    | (task->flags & OC_TASK_FLAG_UNTIED ? OMPCOLLECTOR_TASK_UNTIED : 0)
                    | (task->completing ? OMPCOLLECTOR_TASK_COMPLETING : 0);
    }
    if (task != NULL) {
        out.task_id = task->id;
        out.parts = (int)task->parts;
    }
    memcpy(mem, &out, sizeof out);
    return OMP_ERRCODE_OK;
}

/*
 * OMPCOLLECTOR_REQ_TASK: the task TASK_ID names, with its parent, the task
 * construct it came from and its flags, and the thread's region, for a
 * tracer's one request per task event.
 * Async-signal-safe: yes; reads only this thread's chain; any thread.
 */
static int task_event(unsigned char *mem, int32_t mem_size, int32_t *rsz)
{
    ompcollector_task_t out;
    *rsz = (int32_t)sizeof out;
    if (mem_size < (int32_t)sizeof out)
        return OMP_ERRCODE_MEM_TOO_SMALL;
    memset(&out, 0, sizeof out);
    const struct oc_task *task = oc_current_task();
    if (task != NULL) {
        out.id = task->id;
        out.parent_id = task->parent_id;
        out.codeptr = task->codeptr;
        out.flags = task->flags;
    }
    out.region_id = oc_current_region_id(THR_WORK_STATE);
    memcpy(mem, &out, sizeof out);
    return OMP_ERRCODE_OK;
}

/*
 * OMPCOLLECTOR_REQ_TASK_DEPENDENCE: inside TASK_DEPENDENCE delivery, the
 * dependence's source and sink; elsewhere both 0.
 * Async-signal-safe: yes; reads only this thread's TLS.
 */
static int task_dependence(unsigned char *mem, int32_t mem_size, int32_t *rsz)
{
    ompcollector_task_dependence_t out;
    *rsz = (int32_t)sizeof out;
    if (mem_size < (int32_t)sizeof out)
        return OMP_ERRCODE_MEM_TOO_SMALL;
    out.source_id = oc_self.dependence_source;
    out.sink_id = oc_self.dependence_sink;
    memcpy(mem, &out, sizeof out);
    return OMP_ERRCODE_OK;
}

/*
 * OMPCOLLECTOR_REQ_REGION: the region the thread works in (in FORK and
 * JOIN delivery that region), with the kind parallel_begin's flags gave it.
 * Async-signal-safe: yes; any thread.
 */
static int region_info(unsigned char *mem, int32_t mem_size, int32_t *rsz)
{
    ompcollector_region_t out;
    *rsz = (int32_t)sizeof out;
    if (mem_size < (int32_t)sizeof out)
        return OMP_ERRCODE_MEM_TOO_SMALL;
    memset(&out, 0, sizeof out);
    uint64_t region_id = oc_current_region_id(THR_WORK_STATE);
    if (!region_slot_read(region_id, &out)) {
        memset(&out, 0, sizeof out);
        out.region_id = region_id;
    }
    memcpy(mem, &out, sizeof out);
    return OMP_ERRCODE_OK;
}

/*
 * Answers one of our requests; returns the ec and sets *rsz.  Writes only
 * inside mem[0, mem_size).  The per-event requests (TASK_INFO, TASK,
 * TASK_DEPENDENCE) are inlined here, SAMPLE and TASK_FRAMES are not: their
 * locals would make every request pay their prologue.
 * Async-signal-safe: yes; any thread.
 */
int oc_extension_request(int32_t request, unsigned char *mem, int32_t mem_size, int32_t *rsz)
{
    *rsz = 0;
    switch (request) {
    case OMPCOLLECTOR_REQ_SAMPLE:
        return sample(mem, mem_size, rsz);
    case OMPCOLLECTOR_REQ_TASK_FRAMES:
        return task_frames(mem, mem_size, rsz);
    case OMPCOLLECTOR_REQ_TASK_INFO:
        return task_info(mem, mem_size, rsz);
    case OMPCOLLECTOR_REQ_TASK:
        return task_event(mem, mem_size, rsz);
    case OMPCOLLECTOR_REQ_TASK_DEPENDENCE:
        return task_dependence(mem, mem_size, rsz);
    case OMPCOLLECTOR_REQ_REGION:
        return region_info(mem, mem_size, rsz);
    default:
        return OMP_ERRCODE_UNKNOWN;
    }
}
