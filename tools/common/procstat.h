/* procstat.h - the one reader of /proc/PID/stat, for the agent (its own start time) and the launcher (whether a recorded process is alive, and whose it is). */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_PROCSTAT_H
#define OMPCOLLECT_PROCSTAT_H 1

#include <stdint.h>

/* What /proc/PID/stat says of a process. */
struct ompc_proc_stat {
    char state;           /* R, S, D, Z, X, ... */
    long ppid;
    uint64_t start_ticks; /* field 22: with the pid, names the process among any that reuse the pid */
};

/*
 * Reads /proc/PID/stat (PID 0: the calling process).  0, or -1 when the
 * process is gone or the file cannot be read.  Only open, read and close:
 * no allocation, so it may run anywhere the agent runs.
 */
int ompc_proc_stat(long pid, struct ompc_proc_stat *out);

#endif /* OMPCOLLECT_PROCSTAT_H */
