/* load_tasks.c - the loader's task table: every explicit task the threads' checked event logs name, with its creation (where, by whom, its parent) and its runs, for the trace writers. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "load.h"
#include "omp_collector_api.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

/* One task entry of one thread's log, in the order the table is made from. */
struct task_entry {
    uint64_t id, when;
    const struct ompc_event_entry *entry;
    int32_t thread;
    int code;
};

/* qsort: by task, then time, then thread, creations before runs at one time. */
static int compare_entries(const void *a, const void *b)
{
    const struct task_entry *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->when != y->when)
        return x->when < y->when ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return (x->code > y->code) - (x->code < y->code);
}

/* The task entries of every thread's log, each creation numbered among its thread's; NULL without memory. */
static struct task_entry *gather(const struct ompc_model_process *process, size_t *count)
{
    size_t total = 0;
    for (int t = 0; t < process->thread_count; t++)
        for (uint32_t k = 0; process->threads[t].event_log != NULL && k < process->threads[t].event_log_length; k++)
            total += OMPC_EVENT_IS_TASK(OMPC_EVENT_CODE(&process->threads[t].event_log[k]));
    struct task_entry *entries = malloc((total + 1) * sizeof *entries);
    if (entries == NULL)
        return NULL;
    size_t n = 0;
    for (int t = 0; t < process->thread_count; t++) {
        const struct ompc_model_thread *thread = &process->threads[t];
        for (uint32_t k = 0; thread->event_log != NULL && k < thread->event_log_length; k++) {
            const struct ompc_event_entry *entry = &thread->event_log[k];
            int code = OMPC_EVENT_CODE(entry);
            if (OMPC_EVENT_IS_TASK(code) && entry->task != 0) /* a run's end the log holds no begin of names none */
                entries[n++] = (struct task_entry){entry->task, OMPC_EVENT_WHEN(entry), entry, t, code};
        }
    }
    *count = n;
    return entries;
}

/* Folds one entry into its task's row. */
static void fold(struct ompc_model_task *task, const struct task_entry *e, unsigned long *twice)
{
    switch (e->code) {
    case OMP_EVENT_THR_END_CREATE_TASK_IMM:
    case OMP_EVENT_THR_END_CREATE_TASK_DEL:
        if (task->creator >= 0) {
            (*twice)++;
            break;
        }
        task->creator = e->thread;
        task->create_ns = e->when;
        task->parent = e->entry->parent;
        task->codeptr = e->entry->codeptr;
        task->undeferred = e->code == OMP_EVENT_THR_END_CREATE_TASK_IMM;
        break;
    case OMP_EVENT_THR_BEGIN_EXEC_TASK:
        if (task->runs++ == 0)
            task->region = e->entry->region;
        break;
    default:
        /* BEGIN_FINISH_TASK: the one that says so is the task's completion; when none says, the latest end. */
        if (e->entry->ends == OMPC_TASK_END_PART)
            break;
        task->completer = e->thread;
        task->complete_ns = e->when;
        break;
    }
}

/*
 * Each creation's place among its thread's (OTF2's generation number):
 * task ids grow with time on every thread, so the table's order is each
 * creator's order.
 */
static int number_creations(struct ompc_model_process *process)
{
    uint32_t *made = calloc((size_t)process->thread_count + 1, sizeof *made);
    if (made == NULL)
        return -1;
    for (size_t i = 0; i < process->task_count; i++) {
        struct ompc_model_task *task = &process->tasks[i];
        if (task->creator >= 0 && task->creator < process->thread_count)
            task->generation = ++made[task->creator];
    }
    free(made);
    return 0;
}

int ompc_load_tasks(struct ompc_model_process *process)
{
    size_t count = 0;
    struct task_entry *entries = gather(process, &count);
    if (entries == NULL)
        return -1;
    if (count == 0) {
        free(entries);
        return 0;
    }
    ompc_qsort(entries, count, sizeof *entries, compare_entries);
    size_t tasks = 1;
    for (size_t i = 1; i < count; i++)
        tasks += entries[i].id != entries[i - 1].id;
    process->tasks = calloc(tasks, sizeof *process->tasks);
    if (process->tasks == NULL) {
        free(entries);
        return -1;
    }
    unsigned long twice = 0;
    for (size_t i = 0; i < count; i++) {
        if (i == 0 || entries[i].id != entries[i - 1].id) {
            struct ompc_model_task *fresh = &process->tasks[process->task_count++];
            fresh->id = entries[i].id;
            fresh->creator = fresh->completer = -1;
        }
        fold(&process->tasks[process->task_count - 1], &entries[i], &twice);
    }
    free(entries);
    if (twice > 0)
        ompc_damage_note(&process->damage, "%lu task creations name a task already created (ignored)", twice);
    return number_creations(process);
}

const struct ompc_model_task *ompc_model_task(const struct ompc_model_process *process, uint64_t id)
{
    size_t low = 0, high = process->task_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (process->tasks[middle].id < id)
            low = middle + 1;
        else
            high = middle;
    }
    return low < process->task_count && process->tasks[low].id == id ? &process->tasks[low] : NULL;
}
