/* cover.c - each thread's sampled time held against its lifetime, and the gap put down to the causes the record can name. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "cover.h"
#include "counts.h"

#include <string.h>

/* Takes up to `part` of what is left of the gap for `gap`. */
static void put_down(struct ompc_cover *cover, uint64_t *left, int gap, uint64_t part)
{
    uint64_t taken = part < *left ? part : *left;
    cover->gap_ns[gap] += taken;
    *left -= taken;
}

/*
 * The samples stand for sampled_ns of the thread's life; the rest is put
 * down, in turn, to the agent's start-up (START, which initializes the
 * runtime, and REGISTER: no sample can be taken before), the rest of the
 * time before its timer was armed, after sampling stopped, with the signal
 * blocked and after its last sample -- each known from the record -- and
 * what none of them explains stays unexplained.  Each cause takes at most what is left, so
 * they never add up to more than the gap.
 */
void ompc_thread_cover(const struct ompc_report *report, const struct ompc_model_thread *thread,
                       struct ompc_cover *cover)
{
    const struct ompc_model_process *process = report->process;
    memset(cover, 0, sizeof *cover);
    cover->lifetime_ns = thread_lifetime_ns(thread);
    if (!report->sampling || report->interval_ns <= 0 || cover->lifetime_ns == 0)
        return;
    cover->known = 1;
    uint64_t interval = (uint64_t)report->interval_ns;
    uint64_t birth = thread_birth_ns(thread), end = birth + cover->lifetime_ns;
    cover->sampled_ns = thread_ticks(thread) * interval;
    cover->share = (double)cover->sampled_ns / (double)cover->lifetime_ns;
    uint64_t left = cover->lifetime_ns > cover->sampled_ns ? cover->lifetime_ns - cover->sampled_ns : 0;
    uint64_t armed = thread->armed_ns;
    if (armed == 0 || armed > end)
        armed = end;
    uint64_t ready = process->session_ns > birth ? process->session_ns : birth;
    if (ready > armed)
        ready = armed;
    put_down(cover, &left, OMPC_GAP_STARTUP, ready - birth);
    put_down(cover, &left, OMPC_GAP_UNARMED, armed - ready);
    uint64_t stopped = process->sampling_stopped_ns;
    uint64_t last = thread->last_sample_ns;
    /*
     * A handler installed behind sigaction's back took the signals from
     * then until the scanner noticed: the thread's samples ended with its
     * last one, so that is when sampling stopped for it.
     */
    if (process->sampling == OMPC_SAMPLING_REPLACED && last != 0 && last < stopped)
        stopped = last;
    if (stopped != 0 && stopped < end)
        put_down(cover, &left, OMPC_GAP_STOPPED, end - (stopped > armed ? stopped : armed));
    put_down(cover, &left, OMPC_GAP_BLOCKED, thread->blocked_ns);
    if (last != 0 && (stopped == 0 || stopped >= end) && last < end)
        put_down(cover, &left, OMPC_GAP_TAIL, end - (last > armed ? last : armed));
    cover->gap_ns[OMPC_GAP_UNEXPLAINED] = left;
}

int ompc_cover_has_gap(const struct ompc_report *report, const struct ompc_cover *cover)
{
    uint64_t gap = 0;
    for (int i = 0; i < OMPC_NGAPS; i++)
        gap += cover->gap_ns[i];
    return cover->known && gap > 2 * (uint64_t)report->interval_ns && gap * 50 > cover->lifetime_ns;
}

const char *ompc_gap_name(int gap)
{
    static const char *const names[OMPC_NGAPS] = {"startup", "unarmed", "stopped", "blocked", "tail", "unexplained"};
    return gap >= 0 && gap < OMPC_NGAPS ? names[gap] : "?";
}

const char *ompc_gap_words(int gap)
{
    static const char *const words[OMPC_NGAPS] = {
        "in ompcollect's start-up before sampling began (START initializes the OpenMP runtime)", "before its sampling timer was armed", "after sampling stopped", "with the sampling signal blocked",
        "after its last sample (expirations pending at its end)", "unexplained (samples lost)"};
    return gap >= 0 && gap < OMPC_NGAPS ? words[gap] : "?";
}
