/* scaling_runs.c - ompcollect scaling's runs: this ompcollect started again for each thread count with OMP_NUM_THREADS set, its JSON report, output and error kept per run, and the program's output and exit status compared between runs. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "launcher.h"
#include "scaling_runs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int ompc_scaling_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

int ompc_scaling_default_counts(int cores, int *counts)
{
    int n = 0;
    for (int threads = 1; threads <= cores && n < OMPC_SCALING_MAX_COUNTS - 1; threads *= 2)
        counts[n++] = threads;
    if (counts[n - 1] != cores)
        counts[n++] = cores;
    return n;
}

/* "thread" or "threads" after `n`. */
static const char *threads_word(int n)
{
    return n == 1 ? "thread" : "threads";
}

/* Run `index` at `threads`'s file with `suffix` ("json", "out", "err", "%r.json"); malloc'd, NULL without memory. */
static char *run_file(const struct scaling_plan *plan, int threads, int index, const char *suffix)
{
    char *path;
    int made = plan->repeat > 1 ? asprintf(&path, "%s/threads-%d.r%d.%s", plan->dir, threads, index + 1, suffix)
                                : asprintf(&path, "%s/threads-%d.%s", plan->dir, threads, suffix);
    return made < 0 ? NULL : path;
}

/* The child: OMP_NUM_THREADS (and --env's variable) set, output and errors to their files, this ompcollect again. */
static void run_child(const struct scaling_plan *plan, int threads, const char *report, const char *out,
                      const char *err)
{
    char count[16], self[4096];
    snprintf(count, sizeof count, "%d", threads);
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    int out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err_fd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (length <= 0 || out_fd < 0 || err_fd < 0 || setenv("OMP_NUM_THREADS", count, 1) != 0
        || (plan->env != NULL && setenv(plan->env, count, 1) != 0) || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        _exit(EXIT_OWN_FAILURE);
    self[length] = '\0';
    int words = 0, launcher = 0;
    while (plan->command[words] != NULL)
        words++;
    while (plan->launcher != NULL && plan->launcher[launcher] != NULL)
        launcher++;
    const char **argv = calloc((size_t)(launcher + plan->run_option_count + words + 6), sizeof *argv);
    if (argv == NULL)
        _exit(EXIT_OWN_FAILURE);
    int n = 0;
    /* Under MPI, ompcollect goes after the launcher: one ompcollect per rank. */
    for (int i = 0; i < launcher; i++)
        argv[n++] = plan->launcher[i];
    argv[n++] = launcher > 0 ? self : PROGRAM_NAME;
    for (int i = 0; i < plan->run_option_count; i++)
        argv[n++] = plan->run_options[i];
    argv[n++] = "--format=json";
    argv[n++] = "-o";
    argv[n++] = report;
    argv[n++] = "--";
    for (int i = 0; i < words; i++)
        argv[n++] = plan->command[i];
    if (launcher > 0)
        execvp(argv[0], (char *const *)argv);
    else
        execv(self, (char *const *)argv);
    _exit(EXIT_CANNOT_EXECUTE);
}

/* Shows the end of a run's error file, where ompcollect said why it failed. */
static void show_errors(const char *err)
{
    FILE *in = fopen(err, "r");
    char line[1024];
    int shown = 0;
    while (in != NULL && fgets(line, sizeof line, in) != NULL && shown++ < 20)
        fprintf(stderr, "  %s", line);
    if (in != NULL)
        fclose(in);
}

/*
 * The reports an MPI job's ranks wrote for run `index` at `threads`
 * (threads-N.0.json, threads-N.1.json, ... up to the first missing), into
 * `done`; with `remove`, unlinks them instead (a stale job's).  -1
 * without memory.
 */
static int rank_reports(const struct scaling_plan *plan, int threads, int index, int remove, struct scaling_done *done)
{
    for (int rank = 0;; rank++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "%d.json", rank);
        char *path = run_file(plan, threads, index, suffix), **grown;
        struct stat st;
        if (path == NULL)
            return -1;
        if (stat(path, &st) != 0 || (!remove && st.st_size == 0)) {
            free(path);
            return 0;
        }
        if (remove) {
            unlink(path);
            free(path);
            continue;
        }
        if ((grown = realloc(done->reports, (done->report_count + 1) * sizeof *grown)) == NULL) {
            free(path);
            return -1;
        }
        done->reports = grown;
        done->reports[done->report_count++] = path;
    }
}

/* Runs one count once; the exit status (128 + signal when killed), or -1 when no report was written. */
static int run_once(const struct scaling_plan *plan, int threads, const char *report, const char *out, const char *err)
{
    unlink(report);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die(EXIT_OWN_FAILURE, "scaling: fork: %s", strerror(errno));
    if (pid == 0)
        run_child(plan, threads, report, out, err);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            die(EXIT_OWN_FAILURE, "scaling: waitpid: %s", strerror(errno));
    struct stat st;
    if (plan->launcher == NULL && (stat(report, &st) != 0 || st.st_size == 0))
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Whether two files differ: 0 the same, else the first line (from 1) that differs; -1 when one cannot be read. */
static long first_difference(const char *a, const char *b)
{
    FILE *x = fopen(a, "r"), *y = fopen(b, "r");
    long line = 1, differs = 0;
    if (x == NULL || y == NULL)
        differs = -1;
    while (differs == 0) {
        int c = getc(x), d = getc(y);
        if (c != d)
            differs = line;
        else if (c == EOF)
            break;
        else if (c == '\n')
            line++;
    }
    if (x != NULL)
        fclose(x);
    if (y != NULL)
        fclose(y);
    return differs;
}

/*
 * Holds a run against the first: the same exit status and the same output,
 * or the program did not do the same work at every count.  0 to go on, 1
 * to stop (after the message).
 */
static int check_same(const struct scaling_plan *plan, int threads, int status, const char *out, int first_threads,
                      int first_status, const char *first_out)
{
    const char *go_on = plan->allow_differences ? "going on (--allow-differences)"
                                                : "so it may not do the same work at every count; "
                                                  "--allow-differences goes on anyway";
    if (status != first_status) {
        say("scaling: the program exits with status %d at %d %s but %d at %d %s: %s", status, threads,
            threads_word(threads), first_status, first_threads, threads_word(first_threads), go_on);
        return !plan->allow_differences;
    }
    long line = first_difference(first_out, out);
    if (line > 0)
        say("scaling: the program's output at %d %s (%s) differs from that at %d %s (%s) from line %ld: %s", threads,
            threads_word(threads), out, first_threads, threads_word(first_threads), first_out, line, go_on);
    else if (line < 0)
        say("scaling: cannot read the program's output %s or %s", out, first_out);
    return line != 0 && !plan->allow_differences;
}

/*
 * Runs count `threads` once (run `index`), its reports into `done`; the
 * exit status, or -1 after saying that it wrote no report.
 */
static int run_count(const struct scaling_plan *plan, int threads, int index, const char *out, const char *err,
                     struct scaling_done *done)
{
    char *report = run_file(plan, threads, index, plan->launcher != NULL ? "%r.json" : "json");
    *done = (struct scaling_done){NULL, 0, threads};
    /* An MPI job's ranks each write theirs: a stale rank's left from an earlier job would join this one. */
    if (report == NULL || (plan->launcher != NULL && rank_reports(plan, threads, index, 1, done) != 0))
        die(EXIT_OWN_FAILURE, "out of memory");
    say("scaling: %d %s%s, run %d of %d: report%s %s", threads, threads_word(threads),
        threads > ompc_scaling_cores() ? " (oversubscribed)" : "", index + 1, plan->repeat,
        plan->launcher != NULL ? "s (one per rank)" : "", report);
    int status = run_once(plan, threads, report, out, err);
    if (plan->launcher != NULL) {
        free(report);
        if (rank_reports(plan, threads, index, 0, done) != 0)
            die(EXIT_OWN_FAILURE, "out of memory");
        if (done->report_count == 0)
            status = -1;
    } else if (status >= 0) {
        if ((done->reports = malloc(sizeof *done->reports)) == NULL)
            die(EXIT_OWN_FAILURE, "out of memory");
        done->reports[done->report_count++] = report;
    } else {
        free(report);
    }
    if (status < 0) {
        say("scaling: the run at %d %s wrote no report; its errors (%s):", threads, threads_word(threads), err);
        show_errors(err);
    }
    return status;
}

int ompc_scaling_run_all(const struct scaling_plan *plan, struct scaling_done *done)
{
    if (mkdir(plan->dir, 0777) != 0 && errno != EEXIST)
        die(EXIT_OWN_FAILURE, "scaling: cannot make the directory %s: %s", plan->dir, strerror(errno));
    char *first_out = NULL;
    int first_status = 0, n = 0;
    for (int c = 0; c < plan->count_count; c++)
        for (int r = 0; r < plan->repeat; r++, n++) {
            int threads = plan->counts[c];
            char *out = run_file(plan, threads, r, "out"), *err = run_file(plan, threads, r, "err");
            if (out == NULL || err == NULL)
                die(EXIT_OWN_FAILURE, "out of memory");
            int status = run_count(plan, threads, r, out, err, &done[n]);
            if (status < 0)
                return 1;
            if (n == 0) {
                first_out = out;
                first_status = status;
            } else if (check_same(plan, threads, status, out, plan->counts[0], first_status, first_out) != 0) {
                return 1;
            }
            if (n > 0)
                free(out);
            free(err);
        }
    free(first_out);
    return 0;
}

const char *ompc_scaling_counters_note(char *buffer, size_t size)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd < 0) {
        snprintf(buffer, size, "not measured: this machine's PMU is not readable here (perf_event_open of the "
                 "instruction counter: %s); computation scalability rests on useful thread-seconds alone",
                 strerror(errno));
        return buffer;
    }
    close((int)fd);
    snprintf(buffer, size, "not measured: the PMU is readable, but ompcollect does not count the program's "
             "instructions and cycles yet; computation scalability rests on useful thread-seconds alone");
    return buffer;
}
