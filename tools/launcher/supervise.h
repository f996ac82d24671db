/* supervise.h - running the program under the record: handing it the record, starting it, forwarding signals, waiting for it and its recording descendants, and judging how each process ended. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SUPERVISE_H
#define OMPCOLLECT_SUPERVISE_H 1

#include <stdint.h>

#include "reports.h"
#include "run.h"

/* The record, laid out for the options and written with its header; returns the value of OMPC_RECORD_ENV. */
char *make_record(struct run *run, uint32_t event_mask);

/*
 * Runs the program with the record and the environment, waits for it and
 * for its descendants that still record, and notes when the run ended;
 * returns the exit status ompcollect passes on (the program's, 128+N for
 * signal N).  A program that cannot be executed dies with 126 or 127.
 */
int supervise(struct run *run, const char *record_env, const char *preload, const char *library_path);

/*
 * After the run (and in `ompcollect report`): SIGINT, SIGTERM and SIGHUP
 * are noted, not fatal, so the reports being written are finished and the
 * rest skipped; a second one ends ompcollect at once.  interrupted()
 * names the signal (0: none).
 */
void answer_interrupts(void);
int interrupted(void);

/* The bytes of the record's file that hold data, hole by hole (what the run made the kernel back); `size` where holes cannot be told. */
uint64_t record_data_bytes(int fd, uint64_t size);

/* How the process ended, from its slot and what the launcher collected; threads still live in the record end there. */
void judge_end(const struct run *run, struct process_report *entry, int last_image);

#endif /* OMPCOLLECT_SUPERVISE_H */
