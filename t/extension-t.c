/* extension-t.c - ompcollector's own requests (SAMPLE, TASK_FRAMES, TASK_INFO, TASK, REGION) and task phase event through the fake runtime: layouts, code addresses, task chains, short mem. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fake-ompt.h"
#include "lib/mapping.h"
#include "lib/tap.h"
#include "omp_collector_api.h"

#define GUARD 0x5a5a5a5a

/* An entry of `mem_size` bytes of mem followed by guard words; the terminator after them. */
struct probe {
    int32_t words[64];
};

static int request(int32_t *entry)
{
    __omp_collector_api(entry);
    return entry[2];
}

static int start_session(void)
{
    int32_t start[5] = {16, OMP_REQ_START, 0, 0, 0};
    return fake_ompt_attach() == 1 && request(start) == OMP_ERRCODE_OK;
}

/* Sends request `number` with `mem_size` bytes of mem; guards follow the entry; returns ec. */
static int send_probe(struct probe *probe, int32_t number, int mem_size)
{
    for (int i = 0; i < 64; i++)
        probe->words[i] = GUARD;
    probe->words[0] = 16 + mem_size;
    probe->words[1] = number;
    int end = 4 + mem_size / 4;
    probe->words[end + 4] = 0; /* terminator after four guard words */
    return request(probe->words);
}

/* Whether the four words after an entry of `mem_size` bytes are untouched. */
static int guards_intact(const struct probe *probe, int mem_size)
{
    int end = 4 + mem_size / 4;
    for (int i = end; i < end + 4; i++)
        if (probe->words[i] != GUARD)
            return 0;
    return 1;
}

static ompcollector_sample_t sample_of(const struct probe *probe)
{
    ompcollector_sample_t out;
    memcpy(&out, &probe->words[4], sizeof out);
    return out;
}

static int before_start_is_sequence_error(void)
{
    struct probe probe;
    fake_ompt_attach();
    return send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 48) == OMP_ERRCODE_SEQUENCE_ERR
           && send_probe(&probe, OMPCOLLECTOR_REQ_TASK_FRAMES, 8) == OMP_ERRCODE_SEQUENCE_ERR;
}

static int numbers_outside_ours_are_unknown(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    return send_probe(&probe, OMPCOLLECTOR_REQ_BASE, 48) == OMP_ERRCODE_UNKNOWN
           && send_probe(&probe, OMPCOLLECTOR_REQ_END, 48) == OMP_ERRCODE_UNKNOWN
           && probe.words[3] == 0 && guards_intact(&probe, 48);
}

static ompt_data_t team;

/* Enters a region forked at `codeptr` on this thread, as its master. */
static void enter_region(const void *codeptr)
{
    fake_ompt_set_codeptr(codeptr);
    fake_fire_parallel_begin(&team);
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &team, 0);
    fake_ompt_set_codeptr(NULL);
}

static int working_thread_names_its_region(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    enter_region((void *)0x1111);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 48) != OMP_ERRCODE_OK || probe.words[3] != 48
        || !guards_intact(&probe, 48))
        return 0;
    ompcollector_sample_t out = sample_of(&probe);
    return out.state == THR_WORK_STATE && out.region_id == team.value && team.value != 0
           && out.region_codeptr == 0x1111 && out.wait_codeptr == 0 && out.wait_object == 0
           && out.wait_id == 0 && out.wait_kind == OMPCOLLECTOR_WAIT_NONE;
}

static int critical_wait_names_call_site_and_lock(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    enter_region((void *)0x1111);
    fake_ompt_set_codeptr((void *)0x2222);
    fake_fire_mutex_acquire(OC_MUTEX_CRITICAL, 0x3000);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_LOCK, 0x9000);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 48) != OMP_ERRCODE_OK)
        return 0;
    ompcollector_sample_t out = sample_of(&probe);
    return out.state == THR_CTWT_STATE && out.wait_id == 0x9000 && out.wait_codeptr == 0x2222
           && out.wait_object == 0x3000 && out.region_codeptr == 0x1111;
}

static int barrier_wait_names_the_barrier(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    enter_region((void *)0x1111);
    fake_ompt_set_codeptr((void *)0x4444);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_EXPLICIT, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER_EXPLICIT, 0);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 48) != OMP_ERRCODE_OK)
        return 0;
    ompcollector_sample_t out = sample_of(&probe);
    return out.state == THR_EBAR_STATE && out.wait_id != 0 && out.wait_codeptr == 0x4444
           && out.wait_object == 0 && out.region_id == team.value && out.wait_kind == OMPCOLLECTOR_WAIT_BARRIER;
}

static int serial_thread_has_no_addresses(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    fake_ompt_set_state(OC_OMPT_STATE_WORK_SERIAL, 0);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 48) != OMP_ERRCODE_OK)
        return 0;
    ompcollector_sample_t out = sample_of(&probe);
    return out.state == THR_SERIAL_STATE && out.region_id == 0 && out.region_codeptr == 0
           && out.wait_codeptr == 0;
}

static int short_mem_writes_nothing(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    if (send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 44) != OMP_ERRCODE_MEM_TOO_SMALL
        || probe.words[3] != 48)
        return 0;
    for (int i = 4; i < 4 + 11 + 4; i++)
        if (probe.words[i] != GUARD)
            return 0;
    return 1;
}

static ompcollector_sample_t in_fork;

static void sample_at_fork(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    struct probe probe;
    if (send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 48) == OMP_ERRCODE_OK)
        in_fork = sample_of(&probe);
}

static int fork_callback_learns_the_region_address(void)
{
    if (!start_session())
        return 0;
    int32_t entry[8] = {28, OMP_REQ_REGISTER, 0, 0, OMP_EVENT_FORK};
    void (*callback)(OMP_COLLECTORAPI_EVENT) = sample_at_fork;
    memcpy(&entry[5], &callback, sizeof callback);
    if (request(entry) != OMP_ERRCODE_OK)
        return 0;
    enter_region((void *)0x7777);
    return in_fork.region_id == team.value && in_fork.region_codeptr == 0x7777;
}

static ompcollector_sample_t worker_saw;

/* A worker of the team: it never saw parallel_begin, yet names the region's construct. */
static void *worker(void *unused)
{
    (void)unused;
    struct probe probe;
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &team, 1);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 48) == OMP_ERRCODE_OK)
        worker_saw = sample_of(&probe);
    return NULL;
}

static int workers_name_the_region_too(void)
{
    if (!start_session())
        return 0;
    enter_region((void *)0x8888);
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker, NULL) != 0)
        return 0;
    pthread_join(thread, NULL);
    return worker_saw.state == THR_WORK_STATE && worker_saw.region_id == team.value
           && worker_saw.region_codeptr == 0x8888;
}

static ompt_data_t outer_team;
static struct fake_task_level chain[3];

/* Three levels: an explicit task inside a nested region's implicit task, inside the initial task. */
static void set_chain(void)
{
    struct fake_task_level levels[3] = {
        {(void *)0x7f00, (void *)0, 1, 0, ompt_task_explicit, 1, &team},
        {(void *)0x7f80, (void *)0x7f40, 1, 1, ompt_task_implicit, 0, &team},
        {(void *)0, (void *)0x7fc0, 0, 1, ompt_task_initial, 0, &outer_team},
    };
    memcpy(chain, levels, sizeof chain);
    fake_ompt_set_task_chain(chain, 3);
}

static int frames_match(const struct probe *probe, int count)
{
    for (int i = 0; i < count; i++) {
        ompcollector_task_frame_t frame;
        memcpy(&frame, (const unsigned char *)&probe->words[4] + 8 + i * 48, sizeof frame);
        if (frame.exit_frame != (uint64_t)(uintptr_t)chain[i].exit_frame
            || frame.enter_frame != (uint64_t)(uintptr_t)chain[i].enter_frame
            || frame.exit_frame_flags != chain[i].exit_frame_flags
            || frame.enter_frame_flags != chain[i].enter_frame_flags
            || frame.task_flags != chain[i].task_flags || frame.thread_num != chain[i].thread_num
            || frame.region_id != chain[i].parallel_data->value)
            return 0;
        if (chain[i].parallel_data == &team && frame.region_codeptr != 0x1111)
            return 0;
    }
    return 1;
}

static int task_chain_written_whole(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    enter_region((void *)0x1111);
    set_chain();
    int size = 8 + 3 * 48;
    if (send_probe(&probe, OMPCOLLECTOR_REQ_TASK_FRAMES, size) != OMP_ERRCODE_OK
        || probe.words[3] != size || !guards_intact(&probe, size))
        return 0;
    ompcollector_task_frames_t head;
    memcpy(&head, &probe.words[4], sizeof head);
    return head.count == 3 && head.levels == 3 && frames_match(&probe, 3);
}

static int task_chain_cut_to_fit(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    enter_region((void *)0x1111);
    set_chain();
    int size = 8 + 48 + 40; /* room for one level and most of another */
    if (send_probe(&probe, OMPCOLLECTOR_REQ_TASK_FRAMES, size) != OMP_ERRCODE_MEM_TOO_SMALL
        || probe.words[3] != 8 + 3 * 48 || !guards_intact(&probe, size))
        return 0;
    ompcollector_task_frames_t head;
    memcpy(&head, &probe.words[4], sizeof head);
    for (int i = 4 + (8 + 48) / 4; i < 4 + size / 4; i++)
        if (probe.words[i] != GUARD)
            return 0;
    return head.count == 1 && head.levels == 3 && frames_match(&probe, 1);
}

static int task_chain_header_needs_room(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    set_chain();
    return send_probe(&probe, OMPCOLLECTOR_REQ_TASK_FRAMES, 4) == OMP_ERRCODE_MEM_TOO_SMALL
           && probe.words[3] == 8 && probe.words[4] == GUARD && guards_intact(&probe, 4);
}

static int no_task_is_zero_levels(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    fake_ompt_set_task_chain(NULL, 0);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_TASK_FRAMES, 8) != OMP_ERRCODE_OK || probe.words[3] != 8)
        return 0;
    return probe.words[4] == 0 && probe.words[5] == 0;
}

/*
 * While a team is torn down, libomp answers an ancestor level whose team is
 * already gone with the parallel-data field's offset from a NULL team (0x220
 * seen from a sampler's signal): that level has no region, and reading it
 * must not fault.
 */
static int team_gone_has_no_region(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    struct fake_task_level levels[2] = {
        {(void *)0x7f80, (void *)0x7f40, 1, 1, ompt_task_implicit, 0, &team},
        {(void *)0, (void *)0x7fc0, 0, 1, ompt_task_initial, 0, (ompt_data_t *)(uintptr_t)0x220},
    };
    fake_ompt_set_task_chain(levels, 2);
    int size = 8 + 2 * 48;
    if (send_probe(&probe, OMPCOLLECTOR_REQ_TASK_FRAMES, size) != OMP_ERRCODE_OK || !guards_intact(&probe, size))
        return 0;
    ompcollector_task_frame_t inner, outer;
    memcpy(&inner, (const unsigned char *)&probe.words[4] + 8, sizeof inner);
    memcpy(&outer, (const unsigned char *)&probe.words[4] + 8 + 48, sizeof outer);
    return inner.region_id == team.value && outer.region_id == 0 && outer.enter_frame == 0x7fc0;
}

/* Registers `callback` for `event` (packed layout); whether REGISTER answered OK. */
static int register_event(int event, void (*callback)(OMP_COLLECTORAPI_EVENT))
{
    int32_t entry[8] = {28, OMP_REQ_REGISTER, 0, 0, event};
    memcpy(&entry[5], &callback, sizeof callback);
    return request(entry) == OMP_ERRCODE_OK;
}

/* TASK_INFO with 24 bytes of mem; its ec, the answer in *out. */
static int task_info_of(ompcollector_task_info_t *out)
{
    struct probe probe;
    int ec = send_probe(&probe, OMPCOLLECTOR_REQ_TASK_INFO, 24);
    memcpy(out, &probe.words[4], sizeof *out);
    return ec == OMP_ERRCODE_OK && probe.words[3] == 24 && guards_intact(&probe, 24) ? ec : -1;
}

/* What TASK_INFO answered in the latest delivery of each task event (23..35), and how often it came. */
static ompcollector_task_info_t seen[36];
static int seen_count[36];

static void note_task_info(OMP_COLLECTORAPI_EVENT event)
{
    if ((int)event < 23 || (int)event > 35)
        return;
    seen_count[event]++;
    if (task_info_of(&seen[event]) != OMP_ERRCODE_OK)
        seen[event].flags = -1;
}

static int register_task_events(void)
{
    for (int event = 23; event <= 35; event++)
        if (!register_event(event, note_task_info))
            return 0;
    return 1;
}

static int task_info_names_the_construct(void)
{
    if (!start_session() || !register_task_events())
        return 0;
    enter_region((void *)0x1111);
    static ompt_data_t task;
    fake_ompt_set_codeptr((void *)0x5150);
    fake_task_create(&task, ompt_task_explicit);
    fake_ompt_set_codeptr(NULL);
    const ompcollector_task_info_t *made = &seen[OMP_EVENT_THR_END_CREATE_TASK_DEL];
    if (made->codeptr != 0x5150 || made->task_id == 0 || made->parts != 0 || made->flags != 0)
        return 0;
    fake_task_begin(&task, OC_TASK_SWITCH);
    ompcollector_task_info_t running;
    if (task_info_of(&running) != OMP_ERRCODE_OK || running.codeptr != 0x5150 || running.task_id != made->task_id
        || running.parts != 1 || running.flags != 0)
        return 0;
    fake_task_end(OC_TASK_COMPLETE);
    const ompcollector_task_info_t *done = &seen[OMP_EVENT_THR_BEGIN_FINISH_TASK];
    ompcollector_task_info_t after;
    return done->task_id == made->task_id && done->codeptr == 0x5150 && done->flags == OMPCOLLECTOR_TASK_COMPLETING
           && task_info_of(&after) == OMP_ERRCODE_OK && after.flags == OMPCOLLECTOR_TASK_IMPLICIT
           && after.codeptr == 0 && after.task_id != 0;
}

/*
 * The construct of a task created with the enclosing parallel construct's
 * address, as libomp 14 does now and then for GCC code: `words`, on this
 * frame's stack, stands for the runtime's entry frame, a frame pointer
 * whose next word is where GOMP_task returns to.
 */
static __attribute__((noinline)) uint64_t construct_of_task_at(const void *codeptr, int frame_flags)
{
    void *volatile words[2] = {NULL, (void *)0x5180};
    static ompt_data_t task;
    fake_ompt_set_task_enter_frame((void *)words, frame_flags);
    fake_ompt_set_codeptr(codeptr);
    fake_task_create(&task, ompt_task_explicit);
    fake_ompt_set_codeptr(NULL);
    fake_ompt_set_task_enter_frame(NULL, 0);
    return seen[OMP_EVENT_THR_END_CREATE_TASK_DEL].codeptr;
}

static int parallel_address_on_a_task_is_corrected(void)
{
    if (!start_session() || !register_task_events())
        return 0;
    enter_region((void *)0x1111);
    /* ompt_frame_runtime (0) with ompt_frame_framepointer (0x20), or with ompt_frame_cfa (0x10). */
    int runtime_fp = 0x20, runtime_cfa = 0x10;
    /* Corrected from the frame; kept without a frame pointer to read; a task's own address is never replaced. */
    return construct_of_task_at((void *)0x1111, runtime_fp) == 0x5180
           && construct_of_task_at((void *)0x1111, runtime_cfa) == 0x1111
           && construct_of_task_at((void *)0x5150, runtime_fp) == 0x5150;
}

static int task_info_undeferred_and_merged(void)
{
    if (!start_session() || !register_task_events())
        return 0;
    enter_region((void *)0x1111);
    static ompt_data_t included, merged;
    fake_ompt_set_codeptr((void *)0x6160);
    fake_task_create(&included, ompt_task_explicit | ompt_task_undeferred);
    ompcollector_task_info_t first = seen[OMP_EVENT_THR_END_CREATE_TASK_IMM];
    fake_ompt_set_codeptr((void *)0x6170);
    fake_task_create(&merged, (int)(ompt_task_explicit | ompt_task_undeferred | ompt_task_mergeable | 0x80000000u));
    fake_ompt_set_codeptr(NULL);
    ompcollector_task_info_t second = seen[OMP_EVENT_THR_END_CREATE_TASK_IMM];
    return first.codeptr == 0x6160 && first.flags == OMPCOLLECTOR_TASK_UNDEFERRED && first.task_id != 0
           && second.codeptr == 0x6170 && second.task_id == 0
           && second.flags == (OMPCOLLECTOR_TASK_UNDEFERRED | OMPCOLLECTOR_TASK_MERGED);
}

/*
 * An untied task whose first part ends at a scheduling point and which
 * resumes later: two runs (parts 1, then 2), one FINISH per part, and only
 * the last one completing.
 */
static int untied_parts_counted_once_complete(void)
{
    if (!start_session() || !register_task_events())
        return 0;
    enter_region((void *)0x1111);
    static ompt_data_t task;
    ompt_data_t *implicit = fake_current_task_data();
    fake_ompt_set_codeptr((void *)0x7170);
    fake_task_create(&task, ompt_task_explicit | ompt_task_untied);
    fake_ompt_set_codeptr(NULL);
    fake_fire_task_schedule(implicit, OC_TASK_SWITCH, &task);
    int first_part = seen[OMP_EVENT_THR_BEGIN_EXEC_TASK].parts;
    fake_fire_task_schedule(&task, OC_TASK_YIELD, implicit);
    ompcollector_task_info_t part_end = seen[OMP_EVENT_THR_BEGIN_FINISH_TASK];
    fake_fire_task_schedule(implicit, OC_TASK_SWITCH, &task);
    int second_part = seen[OMP_EVENT_THR_BEGIN_EXEC_TASK].parts;
    fake_fire_task_schedule(&task, OC_TASK_COMPLETE, implicit);
    ompcollector_task_info_t last = seen[OMP_EVENT_THR_BEGIN_FINISH_TASK];
    return first_part == 1 && second_part == 2 && seen_count[OMP_EVENT_THR_BEGIN_EXEC_TASK] == 2
           && seen_count[OMP_EVENT_THR_BEGIN_FINISH_TASK] == 2 && part_end.flags == OMPCOLLECTOR_TASK_UNTIED
           && last.flags == (OMPCOLLECTOR_TASK_UNTIED | OMPCOLLECTOR_TASK_COMPLETING) && last.codeptr == 0x7170;
}

/* TASK_INFO's answer on this thread: whether it names a task with `flags` and `parts` (and *id, when not 0). */
static int running_is(int flags, int parts, uint64_t *id)
{
    ompcollector_task_info_t now;
    if (task_info_of(&now) != OMP_ERRCODE_OK || now.flags != flags || now.parts != parts || now.task_id == 0)
        return 0;
    if (*id == 0)
        *id = now.task_id;
    return now.task_id == *id;
}

/*
 * With no task event live the shim follows a switch on its quiet path
 * (tool.c, on_ompt_callback_task_schedule): the switches libomp reports
 * for an untied task (prior and next the same task for its second part)
 * and for a child run inside it and completed; then, once the task events
 * are registered, another child, which may have the first one's record.
 * The chain, the parts and the suspensions must come out as the general
 * path leaves them: TASK_INFO names the right task at every step, and the
 * legacy events after REGISTER come as ever (the untied task's SUSPEND
 * opens, so the quiet path resumed it).
 */
static int quiet_switches_follow_tasks(void)
{
    if (!start_session())
        return 0;
    enter_region((void *)0x1111);
    static ompt_data_t untied, child, later;
    ompt_data_t *implicit = fake_current_task_data();
    uint64_t implicit_id = 0, untied_id = 0, child_id = 0, later_id = 0;
    if (!running_is(OMPCOLLECTOR_TASK_IMPLICIT, 0, &implicit_id))
        return 0;
    fake_fire_task_create(implicit, &untied, ompt_task_explicit | ompt_task_untied);
    fake_fire_task_schedule(implicit, OC_TASK_SWITCH, &untied);
    int held = running_is(OMPCOLLECTOR_TASK_UNTIED, 1, &untied_id);
    fake_fire_task_schedule(&untied, OC_TASK_SWITCH, implicit);
    held = held && running_is(OMPCOLLECTOR_TASK_IMPLICIT, 0, &implicit_id);
    fake_fire_task_schedule(&untied, OC_TASK_SWITCH, &untied);
    held = held && running_is(OMPCOLLECTOR_TASK_UNTIED, 2, &untied_id);
    fake_fire_task_create(&untied, &child, ompt_task_explicit);
    fake_fire_task_schedule(&untied, OC_TASK_SWITCH, &child);
    held = held && running_is(0, 1, &child_id) && child_id != untied_id;
    fake_fire_task_schedule(&child, OC_TASK_COMPLETE, &untied);
    held = held && running_is(OMPCOLLECTOR_TASK_UNTIED, 2, &untied_id);
    if (!held || !register_task_events())
        return 0;
    /* The untied task was resumed: its next suspension opens; `later` may have the child's record, not its id. */
    fake_fire_task_create(&untied, &later, ompt_task_explicit);
    fake_fire_task_schedule(&untied, OC_TASK_SWITCH, &later);
    held = running_is(0, 1, &later_id) && later_id != untied_id && later_id != child_id
           && seen_count[OMP_EVENT_THR_BEGIN_SUSPEND_TASK] == 1 && seen_count[OMP_EVENT_THR_BEGIN_SCHD_TASK] == 1
           && seen_count[OMP_EVENT_THR_BEGIN_EXEC_TASK] == 1 && seen[OMP_EVENT_THR_BEGIN_EXEC_TASK].task_id == later_id;
    fake_fire_task_schedule(&later, OC_TASK_COMPLETE, &untied);
    held = held && seen_count[OMP_EVENT_THR_BEGIN_FINISH_TASK] == 1 && seen_count[OMP_EVENT_THR_END_SUSPEND_TASK] == 1
           && seen[OMP_EVENT_THR_BEGIN_FINISH_TASK].flags == OMPCOLLECTOR_TASK_COMPLETING
           && running_is(OMPCOLLECTOR_TASK_UNTIED, 2, &untied_id);
    fake_fire_task_schedule(&untied, OC_TASK_COMPLETE, implicit);
    return held && seen_count[OMP_EVENT_THR_BEGIN_FINISH_TASK] == 2
           && seen[OMP_EVENT_THR_BEGIN_FINISH_TASK].flags == (OMPCOLLECTOR_TASK_UNTIED | OMPCOLLECTOR_TASK_COMPLETING)
           && running_is(OMPCOLLECTOR_TASK_IMPLICIT, 0, &implicit_id);
}

/*
 * Records of finished tasks serve later tasks (tool.c keeps them on the
 * thread that frees them): tasks made on the master and run to completion
 * on a worker, then as many made and run on that worker.  Every task,
 * whichever record it got, answers for itself alone: a fresh id, its own
 * construct, one part, COMPLETING only in its own last FINISH; and no
 * record is handed to two live tasks.
 */
#define REUSE_TASKS 300
static ompt_data_t made_here[REUSE_TASKS], made_there[REUSE_TASKS];
static uint64_t made_ids[REUSE_TASKS];
static int reuse_ok;

/* Runs tasks[0..REUSE_TASKS) in turn on the calling thread; whether each answered for itself. */
static int run_tasks(ompt_data_t *tasks, const uint64_t *ids, uint64_t codeptr)
{
    for (int i = 0; i < REUSE_TASKS; i++) {
        fake_task_begin(&tasks[i], OC_TASK_SWITCH);
        const ompcollector_task_info_t *run = &seen[OMP_EVENT_THR_BEGIN_EXEC_TASK];
        if (run->task_id != ids[i] || run->codeptr != codeptr || run->parts != 1 || run->flags != 0)
            return 0;
        fake_task_end(OC_TASK_COMPLETE);
        const ompcollector_task_info_t *done = &seen[OMP_EVENT_THR_BEGIN_FINISH_TASK];
        if (done->task_id != ids[i] || done->codeptr != codeptr || done->flags != OMPCOLLECTOR_TASK_COMPLETING)
            return 0;
    }
    return 1;
}

/* Makes tasks[0..REUSE_TASKS) at `codeptr`, their ids into ids[]; whether each is new and has its own record. */
static int make_tasks(ompt_data_t *tasks, uint64_t *ids, uint64_t codeptr, uint64_t above)
{
    fake_ompt_set_codeptr((void *)(uintptr_t)codeptr);
    for (int i = 0; i < REUSE_TASKS; i++) {
        fake_task_create(&tasks[i], ompt_task_explicit);
        const ompcollector_task_info_t *made = &seen[OMP_EVENT_THR_END_CREATE_TASK_DEL];
        if (made->codeptr != codeptr || made->task_id <= above || made->parts != 0 || made->flags != 0
            || tasks[i].ptr == NULL)
            return 0;
        ids[i] = made->task_id;
        above = made->task_id;
        for (int k = 0; k < i; k++)
            if (tasks[k].ptr == tasks[i].ptr)
                return 0;
    }
    fake_ompt_set_codeptr(NULL);
    return 1;
}

static void *reusing_worker(void *unused)
{
    (void)unused;
    static uint64_t there_ids[REUSE_TASKS];
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &team, 1);
    reuse_ok = run_tasks(made_here, made_ids, 0x9100)
               && make_tasks(made_there, there_ids, 0x9200, made_ids[REUSE_TASKS - 1])
               && run_tasks(made_there, there_ids, 0x9200)
               && make_tasks(made_here, made_ids, 0x9300, there_ids[REUSE_TASKS - 1])
               && run_tasks(made_here, made_ids, 0x9300);
    return NULL;
}

static int reused_records_answer_for_their_task(void)
{
    if (!start_session() || !register_task_events())
        return 0;
    enter_region((void *)0x1111);
    if (!make_tasks(made_here, made_ids, 0x9100, 0))
        return 0;
    pthread_t thread;
    if (pthread_create(&thread, NULL, reusing_worker, NULL) != 0)
        return 0;
    pthread_join(thread, NULL);
    return reuse_ok && seen_count[OMP_EVENT_THR_BEGIN_FINISH_TASK] == 3 * REUSE_TASKS;
}

static int task_info_short_mem_writes_nothing(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    if (send_probe(&probe, OMPCOLLECTOR_REQ_TASK_INFO, 20) != OMP_ERRCODE_MEM_TOO_SMALL || probe.words[3] != 24)
        return 0;
    for (int i = 4; i < 4 + 5 + 4; i++)
        if (probe.words[i] != GUARD)
            return 0;
    return 1;
}

static int serial_thread_runs_no_task(void)
{
    ompcollector_task_info_t out;
    if (!start_session())
        return 0;
    fake_ompt_set_state(OC_OMPT_STATE_WORK_SERIAL, 0);
    return task_info_of(&out) == OMP_ERRCODE_OK && out.task_id == 0 && out.codeptr == 0 && out.flags == 0
           && out.parts == 0;
}

/* A sample in a task wait of kind `kind` (taskwait, taskgroup) at 0x4545. */
static int task_wait_sample_kind(int kind, int expected)
{
    struct probe probe;
    if (!start_session())
        return 0;
    enter_region((void *)0x1111);
    fake_ompt_set_codeptr((void *)0x4545);
    fake_fire_sync_region_wait(kind, OC_SCOPE_BEGIN);
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 48) != OMP_ERRCODE_OK)
        return 0;
    ompcollector_sample_t out = sample_of(&probe);
    fake_fire_sync_region_wait(kind, OC_SCOPE_END);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 48) != OMP_ERRCODE_OK)
        return 0;
    ompcollector_sample_t after = sample_of(&probe);
    return out.state == THR_EBAR_STATE && out.wait_codeptr == 0x4545 && out.wait_kind == expected
           && after.state == THR_WORK_STATE && after.wait_kind == OMPCOLLECTOR_WAIT_NONE;
}

/* A task run inside a barrier's wait waits for its own children: the barrier keeps its call site and kind. */
static int barrier_keeps_its_site_past_a_task_wait(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    enter_region((void *)0x1111);
    fake_ompt_set_codeptr((void *)0x4444);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_IMPLICIT_PARALLEL, OC_SCOPE_BEGIN);
    static ompt_data_t task;
    fake_task_create(&task, ompt_task_explicit);
    fake_task_begin(&task, OC_TASK_SWITCH);
    fake_ompt_set_codeptr((void *)0x4545);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_BEGIN);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_END);
    fake_task_end(OC_TASK_COMPLETE);
    fake_ompt_set_state(OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT_PARALLEL, 0);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 48) != OMP_ERRCODE_OK)
        return 0;
    ompcollector_sample_t out = sample_of(&probe);
    return out.state == THR_IBAR_STATE && out.wait_codeptr == 0x4444 && out.wait_kind == OMPCOLLECTOR_WAIT_BARRIER;
}

static int taskwait_sample_says_taskwait(void)
{
    return task_wait_sample_kind(OC_SYNC_TASKWAIT, OMPCOLLECTOR_WAIT_TASKWAIT);
}

static int taskgroup_sample_says_taskgroup(void)
{
    return task_wait_sample_kind(OC_SYNC_TASKGROUP, OMPCOLLECTOR_WAIT_TASKGROUP);
}

static ompcollector_task_t at_create;
static int at_create_ec = -1;

static void task_at_create(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    struct probe probe;
    at_create_ec = send_probe(&probe, OMPCOLLECTOR_REQ_TASK, 40);
    if (at_create_ec == OMP_ERRCODE_OK && probe.words[3] == 40 && guards_intact(&probe, 40))
        memcpy(&at_create, &probe.words[4], sizeof at_create);
}

static int task_names_the_new_task_and_its_construct(void)
{
    if (!start_session() || !register_event(OMP_EVENT_THR_END_CREATE_TASK_DEL, task_at_create))
        return 0;
    enter_region((void *)0x1111);
    struct probe probe;
    if (send_probe(&probe, OMPCOLLECTOR_REQ_TASK, 40) != OMP_ERRCODE_OK)
        return 0;
    ompcollector_task_t implicit;
    memcpy(&implicit, &probe.words[4], sizeof implicit);
    static ompt_data_t task;
    fake_ompt_set_codeptr((void *)0x4444);
    fake_task_create(&task, 0x4);
    fake_ompt_set_codeptr(NULL);
    return at_create_ec == OMP_ERRCODE_OK && implicit.id != 0 && (implicit.flags & 0x2) && implicit.codeptr == 0
           && at_create.id != 0 && at_create.id != implicit.id && at_create.parent_id == implicit.id
           && at_create.codeptr == 0x4444 && at_create.flags == 0x4 && at_create.region_id == team.value
           && team.value != 0 && at_create.reserved == 0;
}

static int task_short_mem_or_no_task(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    if (send_probe(&probe, OMPCOLLECTOR_REQ_TASK, 36) != OMP_ERRCODE_MEM_TOO_SMALL || probe.words[3] != 40
        || !guards_intact(&probe, 36) || probe.words[4] != GUARD)
        return 0;
    if (send_probe(&probe, OMPCOLLECTOR_REQ_TASK, 40) != OMP_ERRCODE_OK || !guards_intact(&probe, 40))
        return 0;
    ompcollector_task_t none;
    memcpy(&none, &probe.words[4], sizeof none);
    return none.id == 0 && none.parent_id == 0 && none.codeptr == 0 && none.region_id == 0;
}

/* The task-wait events as delivered: each event's number, and the task TASK names then. */
static int wait_events[8], wait_count;
static uint64_t wait_tasks[8];

static void note_task_wait(OMP_COLLECTORAPI_EVENT event)
{
    struct probe probe;
    ompcollector_task_t task = {0};
    if (send_probe(&probe, OMPCOLLECTOR_REQ_TASK, 40) == OMP_ERRCODE_OK)
        memcpy(&task, &probe.words[4], sizeof task);
    if (wait_count < 8) {
        wait_tasks[wait_count] = task.id;
        wait_events[wait_count++] = (int)event;
    }
}

/*
 * A taskwait of an explicit task and a taskgroup's wait of the implicit
 * one: BEGIN and END by their public numbers, each naming the waiting
 * task; a barrier delivers neither; the shim's internal numbers (36, 37)
 * stay unknown to a collector.
 */
static int task_waits_are_delivered(void)
{
    if (!start_session() || !register_event(OMPCOLLECTOR_EVENT_BEGIN_TASK_WAIT, note_task_wait)
        || !register_event(OMPCOLLECTOR_EVENT_END_TASK_WAIT, note_task_wait))
        return 0;
    int32_t unknown[8] = {28, OMP_REQ_REGISTER, 0, 0, 36};
    void (*callback)(OMP_COLLECTORAPI_EVENT) = note_task_wait;
    memcpy(&unknown[5], &callback, sizeof callback);
    if (request(unknown) != OMP_ERRCODE_UNKNOWN)
        return 0;
    enter_region((void *)0x1111);
    static ompt_data_t task;
    fake_task_create(&task, ompt_task_explicit);
    fake_task_begin(&task, OC_TASK_SWITCH);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_BEGIN);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_END);
    fake_task_end(OC_TASK_COMPLETE);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_EXPLICIT, OC_SCOPE_BEGIN);
    fake_fire_sync_region_wait(OC_SYNC_BARRIER_EXPLICIT, OC_SCOPE_END);
    fake_fire_sync_region_wait(OC_SYNC_TASKGROUP, OC_SCOPE_BEGIN);
    fake_fire_sync_region_wait(OC_SYNC_TASKGROUP, OC_SCOPE_END);
    return wait_count == 4 && wait_events[0] == OMPCOLLECTOR_EVENT_BEGIN_TASK_WAIT
           && wait_events[1] == OMPCOLLECTOR_EVENT_END_TASK_WAIT && wait_events[2] == OMPCOLLECTOR_EVENT_BEGIN_TASK_WAIT
           && wait_events[3] == OMPCOLLECTOR_EVENT_END_TASK_WAIT && wait_tasks[0] != 0 && wait_tasks[1] == wait_tasks[0]
           && wait_tasks[2] != 0 && wait_tasks[2] != wait_tasks[0] && wait_tasks[3] == wait_tasks[2];
}

/* What TASK_DEPENDENCE delivery answered, and how often it came. */
static ompcollector_task_dependence_t dependence_seen;
static int dependence_count;

static void note_dependence(OMP_COLLECTORAPI_EVENT event)
{
    struct probe probe;
    if ((int)event == OMPCOLLECTOR_EVENT_TASK_DEPENDENCE
        && send_probe(&probe, OMPCOLLECTOR_REQ_TASK_DEPENDENCE, 16) == OMP_ERRCODE_OK && probe.words[3] == 16
        && guards_intact(&probe, 16)) {
        memcpy(&dependence_seen, &probe.words[4], sizeof dependence_seen);
        dependence_count++;
    }
}

/*
 * A dependence between two tasks: one delivery naming the source and the
 * sink (the ids TASK names for them); outside it both 0; 12 bytes of mem
 * ask for 16 and get nothing.
 */
static int task_dependence_names_both(void)
{
    if (!start_session() || !register_event(OMPCOLLECTOR_EVENT_TASK_DEPENDENCE, note_dependence)
        || !register_event(OMP_EVENT_THR_END_CREATE_TASK_DEL, task_at_create))
        return 0;
    enter_region((void *)0x1111);
    static ompt_data_t source, sink;
    fake_task_create(&source, ompt_task_explicit);
    uint64_t source_id = at_create.id;
    fake_task_create(&sink, ompt_task_explicit);
    uint64_t sink_id = at_create.id;
    fake_fire_task_dependence(&source, &sink);
    struct probe probe;
    if (send_probe(&probe, OMPCOLLECTOR_REQ_TASK_DEPENDENCE, 16) != OMP_ERRCODE_OK)
        return 0;
    ompcollector_task_dependence_t after;
    memcpy(&after, &probe.words[4], sizeof after);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_TASK_DEPENDENCE, 12) != OMP_ERRCODE_MEM_TOO_SMALL || probe.words[3] != 16
        || !guards_intact(&probe, 12) || probe.words[4] != GUARD)
        return 0;
    return dependence_count == 1 && source_id != 0 && sink_id != 0 && source_id != sink_id
           && dependence_seen.source_id == source_id && dependence_seen.sink_id == sink_id && after.source_id == 0
           && after.sink_id == 0;
}

static ompcollector_region_t region_of(const struct probe *probe)
{
    ompcollector_region_t out;
    memcpy(&out, &probe->words[4], sizeof out);
    return out;
}

/* What REGION answered in each FORK delivery, in order. */
static ompcollector_region_t forked[4];
static int forked_count;

static void region_at_fork(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    struct probe probe;
    if (forked_count < 4 && send_probe(&probe, OMPCOLLECTOR_REQ_REGION, 32) == OMP_ERRCODE_OK
        && probe.words[3] == 32 && guards_intact(&probe, 32))
        forked[forked_count++] = region_of(&probe);
}

static int register_fork(void (*callback)(OMP_COLLECTORAPI_EVENT))
{
    int32_t entry[8] = {28, OMP_REQ_REGISTER, 0, 0, OMP_EVENT_FORK};
    memcpy(&entry[5], &callback, sizeof callback);
    return request(entry) == OMP_ERRCODE_OK;
}

static int region_of_a_parallel_construct(void)
{
    if (!start_session() || !register_fork(region_at_fork))
        return 0;
    enter_region((void *)0x7777);
    ompcollector_region_t in = forked[0];
    return forked_count == 1 && in.region_id == team.value && in.region_id != 0 && in.codeptr == 0x7777
           && in.kind == OMPCOLLECTOR_REGION_PARALLEL && in.teams_codeptr == 0
           && in.flags == (int)(ompt_parallel_invoker_program | ompt_parallel_team);
}

static ompt_data_t league, league_team, inner;

/*
 * libomp 14's teams: the league (flags league, the teams construct's
 * address), each team's initial task in it (an initial task, no frame),
 * on that team's initial thread a team region without an address, and
 * inside it the user's parallel region.
 */
static void enter_teams(void)
{
    fake_ompt_set_parallel_flags((int)(ompt_parallel_invoker_runtime | ompt_parallel_league));
    fake_ompt_set_codeptr((void *)0x1000);
    fake_fire_parallel_begin(&league);
    fake_fire_initial_task(OC_SCOPE_BEGIN, &league, 0);
    fake_ompt_set_parallel_flags((int)(ompt_parallel_invoker_runtime | ompt_parallel_team));
    fake_ompt_set_codeptr(NULL);
    fake_fire_parallel_begin(&league_team);
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &league_team, 0);
}

static int teams_league_team_and_inner_parallel(void)
{
    struct probe probe;
    if (!start_session() || !register_fork(region_at_fork))
        return 0;
    enter_teams();
    /* The team's own work, outside the inner region: the teams construct. */
    fake_ompt_set_state(OC_OMPT_STATE_WORK_PARALLEL, 0);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_SAMPLE, 48) != OMP_ERRCODE_OK)
        return 0;
    ompcollector_sample_t team_work = sample_of(&probe);
    fake_ompt_set_codeptr((void *)0x2000);
    fake_fire_parallel_begin(&inner);
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &inner, 0);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_REGION, 32) != OMP_ERRCODE_OK)
        return 0;
    ompcollector_region_t working = region_of(&probe);
    const ompcollector_region_t *l = &forked[0], *t = &forked[1], *p = &forked[2];
    return forked_count == 3 && l->region_id == league.value && l->kind == OMPCOLLECTOR_REGION_LEAGUE
           && l->codeptr == 0x1000 && l->teams_codeptr == 0 && (l->flags & (int)ompt_parallel_league)
           && t->region_id == league_team.value && t->kind == OMPCOLLECTOR_REGION_LEAGUE_TEAM
           && t->codeptr == 0x1000 && t->teams_codeptr == 0x1000
           && team_work.region_id == league_team.value && team_work.region_codeptr == 0x1000
           && p->region_id == inner.value && p->kind == OMPCOLLECTOR_REGION_PARALLEL && p->codeptr == 0x2000
           && p->teams_codeptr == 0x1000 && working.region_id == inner.value && working.codeptr == 0x2000
           && working.kind == OMPCOLLECTOR_REGION_PARALLEL && working.teams_codeptr == 0x1000;
}

/* A team region without an address outside any league stays a parallel region (another runtime's nameless fork). */
static int nameless_team_outside_a_league_is_parallel(void)
{
    if (!start_session() || !register_fork(region_at_fork))
        return 0;
    enter_region(NULL);
    return forked_count == 1 && forked[0].kind == OMPCOLLECTOR_REGION_PARALLEL && forked[0].codeptr == 0
           && forked[0].teams_codeptr == 0;
}

static int region_short_mem_or_serial(void)
{
    struct probe probe;
    if (!start_session())
        return 0;
    if (send_probe(&probe, OMPCOLLECTOR_REQ_REGION, 28) != OMP_ERRCODE_MEM_TOO_SMALL || probe.words[3] != 32)
        return 0;
    for (int i = 4; i < 4 + 7 + 4; i++)
        if (probe.words[i] != GUARD)
            return 0;
    fake_ompt_set_state(OC_OMPT_STATE_WORK_SERIAL, 0);
    if (send_probe(&probe, OMPCOLLECTOR_REQ_REGION, 32) != OMP_ERRCODE_OK || probe.words[3] != 32)
        return 0;
    ompcollector_region_t out = region_of(&probe);
    return out.region_id == 0 && out.codeptr == 0 && out.teams_codeptr == 0 && out.kind == 0 && out.flags == 0;
}

/* OMPCOLLECTOR_EVENT_TASK's deliveries, in order: the phase and a copy of the payload. */
#define PHASES_KEPT 16
static int phases_seen;
static int phase_of[PHASES_KEPT];
static ompcollector_task_event_t payload_of[PHASES_KEPT];

/* Keeps delivery *seen (the first PHASES_KEPT) in phases[] and payloads[], and counts it. */
static void keep_phase(int *seen, int *phases, ompcollector_task_event_t *payloads, int phase,
                       const ompcollector_task_event_t *task)
{
    if (*seen < PHASES_KEPT) {
        phases[*seen] = phase;
        payloads[*seen] = *task;
    }
    ++*seen;
}

static void note_phase(int phase, const ompcollector_task_event_t *task)
{
    keep_phase(&phases_seen, phase_of, payload_of, phase, task);
}

static int register_phases(void)
{
    return register_event(OMPCOLLECTOR_EVENT_TASK, (void (*)(OMP_COLLECTORAPI_EVENT))(void (*)(void))note_phase);
}

static int simple_request(int number)
{
    int32_t entry[5] = {16, number, 0, 0, 0};
    return request(entry);
}

/* A deferred tied task: CREATE, BEGIN and END, one each, with its id, parent, construct, region, parts and flags. */
static int task_phases_of_a_tied_task(void)
{
    if (!start_session() || !register_phases())
        return 0;
    enter_region((void *)0x1111);
    ompcollector_task_info_t implicit;
    if (task_info_of(&implicit) != OMP_ERRCODE_OK)
        return 0;
    static ompt_data_t task;
    fake_ompt_set_codeptr((void *)0x5150);
    fake_task_create(&task, ompt_task_explicit);
    fake_ompt_set_codeptr(NULL);
    fake_task_begin(&task, OC_TASK_SWITCH);
    fake_task_end(OC_TASK_COMPLETE);
    const ompcollector_task_event_t *made = &payload_of[0], *run = &payload_of[1], *done = &payload_of[2];
    return phases_seen == 3 && phase_of[0] == OMPCOLLECTOR_TASK_CREATE && phase_of[1] == OMPCOLLECTOR_TASK_BEGIN
           && phase_of[2] == OMPCOLLECTOR_TASK_END && made->id != 0 && made->parent_id == implicit.task_id
           && made->codeptr == 0x5150 && made->parts == 0 && made->flags == 0 && made->region_id == team.value
           && run->id == made->id && run->parts == 1 && run->flags == 0 && done->id == made->id
           && done->flags == OMPCOLLECTOR_TASK_COMPLETING && done->codeptr == 0x5150;
}

/* An undeferred task is UNDEFERRED in every phase; a merged one is created (no id, MERGED) and has no run. */
static int task_phases_of_undeferred_and_merged(void)
{
    if (!start_session() || !register_phases())
        return 0;
    enter_region((void *)0x1111);
    static ompt_data_t included, merged;
    fake_ompt_set_codeptr((void *)0x6160);
    fake_task_create(&included, ompt_task_explicit | ompt_task_undeferred);
    fake_task_begin(&included, OC_TASK_SWITCH);
    fake_task_end(OC_TASK_COMPLETE);
    fake_ompt_set_codeptr((void *)0x6170);
    fake_task_create(&merged, (int)(ompt_task_explicit | ompt_task_undeferred | ompt_task_mergeable | 0x80000000u));
    fake_ompt_set_codeptr(NULL);
    return phases_seen == 4 && payload_of[0].flags == OMPCOLLECTOR_TASK_UNDEFERRED
           && payload_of[1].flags == OMPCOLLECTOR_TASK_UNDEFERRED
           && payload_of[2].flags == (OMPCOLLECTOR_TASK_UNDEFERRED | OMPCOLLECTOR_TASK_COMPLETING)
           && phase_of[3] == OMPCOLLECTOR_TASK_CREATE && payload_of[3].id == 0 && payload_of[3].codeptr == 0x6170
           && (payload_of[3].flags & OMPCOLLECTOR_TASK_MERGED);
}

/* In a region, an untied task that runs in two parts (switched to, yields, switched to again, completes); the implicit task it left. */
static ompt_data_t *run_untied_task(void)
{
    enter_region((void *)0x1111);
    static ompt_data_t task;
    ompt_data_t *implicit = fake_current_task_data();
    fake_task_create(&task, ompt_task_explicit | ompt_task_untied);
    fake_fire_task_schedule(implicit, OC_TASK_SWITCH, &task);
    fake_fire_task_schedule(&task, OC_TASK_YIELD, implicit);
    fake_fire_task_schedule(implicit, OC_TASK_SWITCH, &task);
    fake_fire_task_schedule(&task, OC_TASK_COMPLETE, implicit);
    return implicit;
}

/* An untied task: a BEGIN and an END per part, parts 1 then 2, COMPLETING only on the last END. */
static int task_phases_of_an_untied_task(void)
{
    if (!start_session() || !register_phases())
        return 0;
    run_untied_task();
    return phases_seen == 5 && phase_of[1] == OMPCOLLECTOR_TASK_BEGIN && payload_of[1].parts == 1
           && phase_of[2] == OMPCOLLECTOR_TASK_END && payload_of[2].flags == OMPCOLLECTOR_TASK_UNTIED
           && phase_of[3] == OMPCOLLECTOR_TASK_BEGIN && payload_of[3].parts == 2 && phase_of[4] == OMPCOLLECTOR_TASK_END
           && payload_of[4].flags == (OMPCOLLECTOR_TASK_UNTIED | OMPCOLLECTOR_TASK_COMPLETING);
}

/*
 * Pairs stay balanced: a run begun before REGISTER ends without an END;
 * one begun before PAUSE ends, paused, without one, and none comes after
 * RESUME; one begun in an earlier session (STOP, START) gets none either.
 */
static int task_phases_balanced_across_register_pause_and_stop(void)
{
    if (!start_session())
        return 0;
    enter_region((void *)0x1111);
    static ompt_data_t before, paused, stopped;
    fake_task_create(&before, ompt_task_explicit);
    fake_task_begin(&before, OC_TASK_SWITCH);
    if (!register_phases())
        return 0;
    fake_task_end(OC_TASK_COMPLETE);
    int after_register = phases_seen;
    fake_task_create(&paused, ompt_task_explicit);
    fake_task_begin(&paused, OC_TASK_SWITCH);
    simple_request(OMP_REQ_PAUSE);
    fake_task_end(OC_TASK_COMPLETE);
    simple_request(OMP_REQ_RESUME);
    int after_pause = phases_seen;
    fake_task_create(&stopped, ompt_task_explicit);
    fake_task_begin(&stopped, OC_TASK_SWITCH);
    simple_request(OMP_REQ_STOP);
    if (simple_request(OMP_REQ_START) != OMP_ERRCODE_OK || !register_phases())
        return 0;
    fake_task_end(OC_TASK_COMPLETE);
    return after_register == 0 && after_pause == 2 && phases_seen == 4 && phase_of[3] == OMPCOLLECTOR_TASK_BEGIN;
}

/* REGISTER of the event by number answers OK here; an unknown number past it UNKNOWN; legacy events stay as they were. */
static int task_phase_event_is_known_and_legacy_events_unchanged(void)
{
    if (!start_session() || !register_phases() || !register_task_events())
        return 0;
    enter_region((void *)0x1111);
    static ompt_data_t task;
    fake_task_create(&task, ompt_task_explicit);
    fake_task_begin(&task, OC_TASK_SWITCH);
    fake_task_end(OC_TASK_COMPLETE);
    int32_t unknown[8] = {28, OMP_REQ_REGISTER, 0, 0, OMPCOLLECTOR_EVENT_END};
    void (*callback)(OMP_COLLECTORAPI_EVENT) = note_task_info;
    memcpy(&unknown[5], &callback, sizeof callback);
    return phases_seen == 3 && seen_count[OMP_EVENT_THR_END_CREATE_TASK_DEL] == 1
           && seen_count[OMP_EVENT_THR_BEGIN_EXEC_TASK] == 1 && seen_count[OMP_EVENT_THR_END_FINISH_TASK] == 1
           && request(unknown) == OMP_ERRCODE_UNKNOWN;
}

/* TASK_CREATE alone: one CREATE per task (merged ones too), none of the run phases; with EVENT_TASK beside it, CREATE from each. */
static int task_create_event_is_creation_alone(void)
{
    if (!start_session()
        || !register_event(OMPCOLLECTOR_EVENT_TASK_CREATE,
                           (void (*)(OMP_COLLECTORAPI_EVENT))(void (*)(void))note_phase))
        return 0;
    enter_region((void *)0x1111);
    static ompt_data_t task, merged, both;
    fake_ompt_set_codeptr((void *)0x7170);
    fake_task_create(&task, ompt_task_explicit);
    fake_task_begin(&task, OC_TASK_SWITCH);
    fake_task_end(OC_TASK_COMPLETE);
    fake_task_create(&merged, (int)(ompt_task_explicit | ompt_task_undeferred | ompt_task_mergeable | 0x80000000u));
    int alone = phases_seen;
    if (!register_phases())
        return 0;
    fake_task_create(&both, ompt_task_explicit);
    fake_ompt_set_codeptr(NULL);
    fake_task_begin(&both, OC_TASK_SWITCH);
    fake_task_end(OC_TASK_COMPLETE);
    return alone == 2 && phase_of[0] == OMPCOLLECTOR_TASK_CREATE && payload_of[0].codeptr == 0x7170
           && payload_of[0].id != 0 && phase_of[1] == OMPCOLLECTOR_TASK_CREATE && (payload_of[1].flags & OMPCOLLECTOR_TASK_MERGED)
           && phases_seen == 6 && phase_of[2] == OMPCOLLECTOR_TASK_CREATE && phase_of[3] == OMPCOLLECTOR_TASK_CREATE
           && phase_of[4] == OMPCOLLECTOR_TASK_BEGIN && phase_of[5] == OMPCOLLECTOR_TASK_END;
}

/* OMPCOLLECTOR_EVENT_TASK_LOG's deliveries, apart from OMPCOLLECTOR_EVENT_TASK's (note_phase). */
static int log_seen;
static int log_phase_of[PHASES_KEPT];
static ompcollector_task_event_t log_payload_of[PHASES_KEPT];

static void note_log_phase(int phase, const ompcollector_task_event_t *task)
{
    keep_phase(&log_seen, log_phase_of, log_payload_of, phase, task);
}

static int register_log_phases(void)
{
    return register_event(OMPCOLLECTOR_EVENT_TASK_LOG,
                          (void (*)(OMP_COLLECTORAPI_EVENT))(void (*)(void))note_log_phase);
}

/* Whether log delivery i was `phase` of task `id` with flags `flags`. */
static int log_was(int i, int phase, unsigned long long id, int flags)
{
    return i < log_seen && log_phase_of[i] == phase && log_payload_of[i].id == id && log_payload_of[i].flags == flags;
}

/*
 * TASK_LOG: a task that creates a child and waits for it, the child run
 * inside the wait, then the implicit task's own taskwait: CREATE, BEGIN
 * and END, and the waits naming the waiting task (IMPLICIT for the
 * implicit one); no SUSPEND or RESUME, though the task is suspended.
 */
static int task_log_event_runs_and_waits(void)
{
    if (!start_session() || !register_log_phases())
        return 0;
    enter_region((void *)0x1111);
    ompcollector_task_info_t implicit;
    if (task_info_of(&implicit) != OMP_ERRCODE_OK)
        return 0;
    static ompt_data_t task, child;
    fake_task_create(&task, ompt_task_explicit);
    fake_task_begin(&task, OC_TASK_SWITCH);
    fake_task_create(&child, ompt_task_explicit);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_BEGIN);
    fake_task_begin(&child, OC_TASK_SWITCH);
    fake_task_end(OC_TASK_COMPLETE);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_END);
    fake_task_end(OC_TASK_COMPLETE);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_BEGIN);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_END);
    unsigned long long t = log_payload_of[0].id, c = log_payload_of[2].id, i = implicit.task_id;
    const int done = OMPCOLLECTOR_TASK_COMPLETING, mine = OMPCOLLECTOR_TASK_IMPLICIT;
    return log_seen == 10 && t != 0 && c != 0 && c != t && log_payload_of[2].parent_id == t
           && log_was(0, OMPCOLLECTOR_TASK_CREATE, t, 0) && log_was(1, OMPCOLLECTOR_TASK_BEGIN, t, 0)
           && log_was(2, OMPCOLLECTOR_TASK_CREATE, c, 0) && log_was(3, OMPCOLLECTOR_TASK_WAIT_BEGIN, t, 0)
           && log_was(4, OMPCOLLECTOR_TASK_BEGIN, c, 0) && log_was(5, OMPCOLLECTOR_TASK_END, c, done)
           && log_was(6, OMPCOLLECTOR_TASK_WAIT_END, t, 0) && log_was(7, OMPCOLLECTOR_TASK_END, t, done)
           && log_was(8, OMPCOLLECTOR_TASK_WAIT_BEGIN, i, mine) && log_was(9, OMPCOLLECTOR_TASK_WAIT_END, i, mine)
           && log_payload_of[8].codeptr == 0;
}

/* TASK_LOG alone on an untied task (the shim's logged switch path): a BEGIN and an END per part, parts 1 then 2. */
static int task_log_event_untied_parts(void)
{
    if (!start_session() || !register_log_phases())
        return 0;
    ompt_data_t *implicit = run_untied_task();
    unsigned long long t = log_payload_of[0].id;
    const int untied = OMPCOLLECTOR_TASK_UNTIED;
    return log_seen == 5 && log_was(1, OMPCOLLECTOR_TASK_BEGIN, t, untied) && log_payload_of[1].parts == 1
           && log_was(2, OMPCOLLECTOR_TASK_END, t, untied) && log_was(3, OMPCOLLECTOR_TASK_BEGIN, t, untied)
           && log_payload_of[3].parts == 2 && log_was(4, OMPCOLLECTOR_TASK_END, t, untied | OMPCOLLECTOR_TASK_COMPLETING)
           && fake_current_task_data() == implicit;
}

/*
 * Each payload event's pairs balance on their own: TASK_LOG registered
 * while a run and a wait are open gets neither's end, TASK beside it
 * gets its END; a wait begun before STOP gets no WAIT_END after START.
 */
static int task_log_pairs_balanced_per_event(void)
{
    if (!start_session() || !register_phases())
        return 0;
    enter_region((void *)0x1111);
    static ompt_data_t task, later;
    fake_task_create(&task, ompt_task_explicit);
    fake_task_begin(&task, OC_TASK_SWITCH);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_BEGIN);
    if (!register_log_phases())
        return 0;
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_END);
    fake_task_end(OC_TASK_COMPLETE);
    int unowed = log_seen, task_phases = phases_seen;
    fake_task_create(&later, ompt_task_explicit);
    fake_task_begin(&later, OC_TASK_SWITCH);
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_BEGIN);
    simple_request(OMP_REQ_STOP);
    if (simple_request(OMP_REQ_START) != OMP_ERRCODE_OK || !register_log_phases())
        return 0;
    fake_fire_sync_region_wait(OC_SYNC_TASKWAIT, OC_SCOPE_END);
    fake_task_end(OC_TASK_COMPLETE);
    return unowed == 0 && task_phases == 3 && phase_of[2] == OMPCOLLECTOR_TASK_END && log_seen == 3
           && log_phase_of[0] == OMPCOLLECTOR_TASK_CREATE && log_phase_of[1] == OMPCOLLECTOR_TASK_BEGIN
           && log_phase_of[2] == OMPCOLLECTOR_TASK_WAIT_BEGIN;
}

static const struct {
    const char *name;
    int (*check)(void);
} cases[] = {
    {"our requests before START answer SEQUENCE_ERR", before_start_is_sequence_error},
    {"numbers at the edges of our range answer UNKNOWN and write nothing", numbers_outside_ours_are_unknown},
    {"SAMPLE from a working thread: WORK, its region and the region's construct, no wait", working_thread_names_its_region},
    {"SAMPLE in a critical wait: CTWT, the runtime's wait id, the call site and the critical's lock", critical_wait_names_call_site_and_lock},
    {"SAMPLE at an explicit barrier: EBAR, the barrier's wait id and call site", barrier_wait_names_the_barrier},
    {"SAMPLE in serial code: SERIAL, region 0, no addresses", serial_thread_has_no_addresses},
    {"SAMPLE with 44 bytes of mem: MEM_TOO_SMALL, rsz 48, nothing written", short_mem_writes_nothing},
    {"SAMPLE inside FORK delivery names the region being forked and its construct", fork_callback_learns_the_region_address},
    {"SAMPLE on a worker names the construct its master forked", workers_name_the_region_too},
    {"TASK_FRAMES writes every level of the chain, innermost first", task_chain_written_whole},
    {"TASK_FRAMES with room for one level: that level, MEM_TOO_SMALL and the size for all", task_chain_cut_to_fit},
    {"TASK_FRAMES with mem smaller than its header: MEM_TOO_SMALL, rsz 8, nothing written", task_chain_header_needs_room},
    {"TASK_FRAMES with no task: OK, zero levels", no_task_is_zero_levels},
    {"TASK_FRAMES on a level whose team is gone (libomp's NULL-team offset): region 0, no fault", team_gone_has_no_region},
    {"TASK_INFO names the task construct in creation, while it runs and in its completing FINISH", task_info_names_the_construct},
    {"TASK_INFO of a task libomp gave the parallel construct's address: the caller of the runtime's entry frame instead", parallel_address_on_a_task_is_corrected},
    {"TASK_INFO in creation of undeferred and merged tasks: their constructs and flags (merged: no id)", task_info_undeferred_and_merged},
    {"TASK_INFO of an untied task: parts 1 then 2, a FINISH per part, COMPLETING only on the last", untied_parts_counted_once_complete},
    {"TASK_INFO with no task event live (the quiet switches): an untied task's parts and a child inside it, then the legacy events as ever", quiet_switches_follow_tasks},
    {"TASK_INFO of tasks made on one thread and finished on another, then made and run there (reused records): each its own", reused_records_answer_for_their_task},
    {"TASK_INFO with 20 bytes of mem: MEM_TOO_SMALL, rsz 24, nothing written", task_info_short_mem_writes_nothing},
    {"TASK_INFO in serial code: no task, all zero", serial_thread_runs_no_task},
    {"SAMPLE in a taskwait: EBAR (Oracle's numbering), its call site, wait_kind TASKWAIT", taskwait_sample_says_taskwait},
    {"SAMPLE in a taskgroup's wait: wait_kind TASKGROUP", taskgroup_sample_says_taskgroup},
    {"SAMPLE in a barrier after a task run in its wait did a taskwait: the barrier's call site and kind", barrier_keeps_its_site_past_a_task_wait},
    {"TASK inside END_CREATE_TASK_DEL: the new task, its parent (the implicit task), the construct, flags, region", task_names_the_new_task_and_its_construct},
    {"TASK with 36 bytes: MEM_TOO_SMALL, rsz 40, nothing written; in serial code: OK, no task", task_short_mem_or_no_task},
    {"BEGIN/END_TASK_WAIT at a taskwait and a taskgroup's end, by public number, naming the waiting task; none at a barrier", task_waits_are_delivered},
    {"REGION inside FORK of a parallel construct: PARALLEL, its address and flags, no teams", region_of_a_parallel_construct},
    {"REGION of teams: LEAGUE, the team's own region LEAGUE_TEAM at the teams address, the inner parallel PARALLEL inside that teams", teams_league_team_and_inner_parallel},
    {"REGION of an addressless team outside any league: PARALLEL, no teams", nameless_team_outside_a_league_is_parallel},
    {"REGION with 28 bytes: MEM_TOO_SMALL, rsz 32, nothing written; in serial code: OK, all zero", region_short_mem_or_serial},
    {"TASK_DEPENDENCE delivered once, TASK_DEPENDENCE naming source and sink in it, zeros after; 12 bytes: MEM_TOO_SMALL, rsz 16", task_dependence_names_both},
    {"EVENT_TASK of a tied task: CREATE, BEGIN, END once each, with id, parent, construct, region, parts, COMPLETING", task_phases_of_a_tied_task},
    {"EVENT_TASK of undeferred and merged tasks: UNDEFERRED throughout; merged created with no id, MERGED, no run", task_phases_of_undeferred_and_merged},
    {"EVENT_TASK of an untied task: BEGIN/END per part, parts 1 then 2, COMPLETING on the last", task_phases_of_an_untied_task},
    {"EVENT_TASK pairs balanced across REGISTER, PAUSE and STOP/START: no END without its BEGIN", task_phases_balanced_across_register_pause_and_stop},
    {"EVENT_TASK beside the legacy task events: both delivered, the legacy ones unchanged; the next number UNKNOWN", task_phase_event_is_known_and_legacy_events_unchanged},
    {"EVENT_TASK_CREATE alone: one CREATE per task, merged too, no run phases; beside EVENT_TASK: CREATE from each", task_create_event_is_creation_alone},
    {"EVENT_TASK_LOG: CREATE, BEGIN, END and the waits naming the waiting task (IMPLICIT for an implicit one); no SUSPEND or RESUME", task_log_event_runs_and_waits},
    {"EVENT_TASK_LOG alone on an untied task: BEGIN and END per part, parts 1 then 2, COMPLETING on the last", task_log_event_untied_parts},
    {"EVENT_TASK_LOG's pairs balance apart from EVENT_TASK's: none owed for a run or wait open at REGISTER, or across STOP/START", task_log_pairs_balanced_per_event},
};

/* Runs `check` in a child so each starts from a fresh shim. */
static int in_child(int (*check)(void))
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        _exit(check() ? 0 : 1);
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
    int count = (int)(sizeof cases / sizeof cases[0]);
    tap_plan(count);
    for (int i = 0; i < count; i++)
        tap_ok(in_child(cases[i].check), "%s", cases[i].name);
    return tap_done();
}
