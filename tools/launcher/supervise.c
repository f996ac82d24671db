/* supervise.c - running the program under the record: the record it is handed, starting it, forwarding termination signals, waiting for it and for its own recording descendants only, and judging how each recorded process ended. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "supervise.h"
#include "launcher.h"
#include "load.h"
#include "preflight.h"
#include "procstat.h"
#include "record.h"
#include "summary.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A random 64-bit id for the record, so an agent never maps a record of another run. */
static uint64_t random_id(void)
{
    uint64_t id = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &id, sizeof id) != (ssize_t)sizeof id)
            id = 0;
        close(fd);
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    id ^= (uint64_t)now.tv_nsec * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)getpid() << 32;
    return id != 0 ? id : 1;
}

/*
 * The record: an anonymous memory file (memfd) only this run's processes
 * can reach, sized sparsely.  Without memfd_create, an unlinked file made
 * with O_EXCL and mode 0600 in the temporary directory does the same.
 */
static int create_record(uint64_t size)
{
    int fd = -1;
#ifdef HAVE_MEMFD_CREATE
    fd = memfd_create("ompcollect-record", MFD_CLOEXEC);
#endif
    if (fd < 0) {
        const char *tmpdir = getenv("TMPDIR");
        char *path;
        if (asprintf(&path, "%s/ompcollect-record.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp") < 0)
            die(EXIT_OWN_FAILURE, "out of memory");
        fd = mkostemp(path, O_CLOEXEC);
        if (fd >= 0)
            unlink(path);
        free(path);
    }
    if (fd < 0)
        die(EXIT_OWN_FAILURE, "cannot create the record: %s", strerror(errno));
    if (ftruncate(fd, (off_t)size) != 0)
        die(EXIT_OWN_FAILURE, "cannot size the record to %" PRIu64 " bytes: %s", size, strerror(errno));
    return fd;
}

/* The record, laid out for the options and written with its header; returns the value of OMPC_RECORD_ENV. */
char *make_record(struct run *run, uint32_t event_mask)
{
    uint32_t flags = (run->sampling ? OMPC_OPT_SAMPLE : 0)
                   | (run->timeline || run->trace_json || run->trace || run->gprofng ? OMPC_OPT_TIMELINE : 0);
    if (!run->no_tasks)
        flags |= OMPC_OPT_TASKS;
    /*
     * Task times come from samples unless --tasks=full asks or nothing
     * samples.  A log (--task-graph, --trace) holds every run with its
     * times besides; following each run for the table as well cost as
     * much again as the log (README, "What it costs").
     */
    if (!run->no_tasks && (run->tasks_full || !run->sampling))
        flags |= OMPC_OPT_TASKS_FULL;
    if (run->stacks)
        flags |= OMPC_OPT_STACKS;
    if (run->stacks && run->stack_copy != 0)
        flags |= OMPC_OPT_STACKS_DWARF;
    uint64_t size = ompc_record_layout(&run->header, flags);
    if (flags & OMPC_OPT_TIMELINE)
        size = ompc_record_reserve_timeline_where(&run->header);
    if (run->stacks)
        size = ompc_record_reserve_stacks(&run->header);
    /* --gprofng: the FORKs and JOINs name each region instance's construct. */
    if (run->trace != NULL || run->trace_json != NULL || run->task_graph != NULL || run->gprofng != NULL)
        size = ompc_record_reserve_event_log(&run->header, run->trace_buffer    ? run->trace_buffer
                                                           : run->task_graph ? OMPC_EVENT_LOG_TASK_GRAPH
                                                                             : OMPC_EVENT_LOG_DEFAULT);
    run->header.run_id = random_id();
    run->header.event_mask = event_mask;
    run->header.interval_ns = run->interval_ns;
    run->header.stack_copy_bytes = (uint32_t)run->stack_copy;
    run->header.launcher_pid = (int32_t)getpid();
    run->record_fd = create_record(size);
    if (pwrite(run->record_fd, &run->header, sizeof run->header, 0) != (ssize_t)sizeof run->header)
        die(EXIT_OWN_FAILURE, "cannot write the record: %s", strerror(errno));
    char *record_env;
    if (asprintf(&record_env, "%d,%ld,%" PRIx64, run->record_fd, (long)getpid(), run->header.run_id) < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
    return record_env;
}

/* Monotonic nanoseconds, the clock the agents stamp the record with. */
static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The signal handler's view of the run: a handler gets no argument, so
 * what it reads lives here, and only here (the rest of the run is in
 * struct run).
 */
static pid_t child_pid;
static volatile sig_atomic_t child_running;
static volatile sig_atomic_t pending_signal;
static volatile sig_atomic_t forwarded_signal; /* the last termination request handed to the program */
static volatile sig_atomic_t interrupted_by;   /* after the run: the signal that asked ompcollect to stop */

/* Termination requests to the launcher are meant for the program; after it, for its recording descendants. */
static void forward_signal(int signal_number)
{
    if (child_running && child_pid > 0) {
        kill(child_pid, signal_number);
        forwarded_signal = signal_number;
    } else
        pending_signal = signal_number;
}

/* After the run: a first request to stop is noted (the reports in hand are finished, no others begun); a second one ends ompcollect. */
static void note_interrupt(int signal_number)
{
    interrupted_by = signal_number;
    struct sigaction plain;
    memset(&plain, 0, sizeof plain);
    plain.sa_handler = SIG_DFL;
    sigaction(signal_number, &plain, NULL);
}

void answer_interrupts(void)
{
    static const int asks[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction note;
    memset(&note, 0, sizeof note);
    note.sa_handler = note_interrupt;
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++) {
        sigaction(asks[i], &note, NULL);
        sigaddset(&set, asks[i]);
    }
    /* Blocked by whoever started us, a request would wait forever; one pending arrives now. */
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

int interrupted(void)
{
    return interrupted_by;
}

/* Sets up the child's environment and becomes the program; reports exec failure through `report_fd`. */
static void run_child(char **command, int record_fd, const char *record_env, const char *preload,
                      const char *library_path, int report_fd)
{
    int32_t pid = (int32_t)getpid();
    int error = 0;
    if (pwrite(record_fd, &pid, sizeof pid, offsetof(struct ompc_record_header, main_pid))
            != (ssize_t)sizeof pid
        || fcntl(record_fd, F_SETFD, 0) != 0 || setenv(OMPC_RECORD_ENV, record_env, 1) != 0
        || setenv("LD_PRELOAD", preload, 1) != 0
        || (library_path != NULL && setenv("LD_LIBRARY_PATH", library_path, 1) != 0))
        error = errno ? errno : EIO;
    if (error == 0) {
        execvp(command[0], command);
        error = errno;
    }
    ssize_t ignored = write(report_fd, &error, sizeof error);
    (void)ignored;
    _exit(error == ENOENT ? EXIT_NOT_FOUND : error == EACCES || error == ENOEXEC ? EXIT_CANNOT_EXECUTE
                                                                                 : EXIT_OWN_FAILURE);
}

/* Starts the program; returns the exec error the child reported (0: it runs), with its pid in run->main_pid. */
static int start_program(struct run *run, const char *record_env, const char *preload, const char *library_path)
{
    /* Descendants the program leaves behind are handed to us, so none is lost. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    /* Coarse, as the file times it is held against are (output.c, written_since). */
    clock_gettime(CLOCK_REALTIME_COARSE, &run->start_real);
    run->start_ns = monotonic_ns();
    int exec_report[2];
    if (pipe2(exec_report, O_CLOEXEC) != 0)
        die(EXIT_OWN_FAILURE, "pipe: %s", strerror(errno));
    /* From here on, termination requests are for the program (forwarded once it exists). */
    struct sigaction forward;
    memset(&forward, 0, sizeof forward);
    forward.sa_handler = forward_signal;
    sigaction(SIGTERM, &forward, NULL);
    sigaction(SIGHUP, &forward, NULL);
    fflush(NULL);
    child_running = 1;
    child_pid = fork();
    if (child_pid < 0)
        die(EXIT_OWN_FAILURE, "fork: %s", strerror(errno));
    if (child_pid == 0) {
        close(exec_report[0]);
        run_child(run->command, run->record_fd, record_env, preload, library_path, exec_report[1]);
    }
    close(exec_report[1]);
    run->main_pid = child_pid;
    if (pending_signal) {
        kill(child_pid, pending_signal);
        pending_signal = 0;
    }
    /* Like a shell waiting for a foreground job: the terminal's ^C and ^\ are for the program. */
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, NULL);
    sigaction(SIGQUIT, &ignore, NULL);
    int exec_error = 0;
    ssize_t got;
    do
        got = read(exec_report[0], &exec_error, sizeof exec_error);
    while (got < 0 && errno == EINTR);
    close(exec_report[0]);
    return got == (ssize_t)sizeof exec_error ? exec_error : 0;
}

/* Whether a process recorded in a slot is still running: same pid, same start time, not a zombie. */
static int process_alive(pid_t pid, uint64_t start_ticks)
{
    struct ompc_proc_stat stat;
    return ompc_proc_stat(pid, &stat) == 0 && stat.state != 'Z' && stat.state != 'X'
           && (start_ticks == 0 || stat.start_ticks == start_ticks);
}

/*
 * Whether `pid` is a process this run started: alive with the recorded
 * start time, and with the launcher among its ancestors (a subreaper, it
 * inherits the orphans).  A slot the program forged can name any process;
 * the launcher waits for and signals only its own.
 */
static int our_descendant(pid_t pid, uint64_t start_ticks)
{
    if (pid <= 1 || !process_alive(pid, start_ticks))
        return 0;
    long self = (long)getpid();
    struct ompc_proc_stat stat;
    for (int depth = 0; depth < 4096 && pid > 1; depth++) {
        if (ompc_proc_stat(pid, &stat) != 0)
            return 0;
        if (stat.ppid == self)
            return 1;
        pid = (pid_t)stat.ppid;
    }
    return 0;
}

/* Remembers a process the launcher collected. */
static void remember_reaped(struct run *run, pid_t pid, int status)
{
    if (run->reaped_count == run->reaped_capacity) {
        size_t capacity = run->reaped_capacity ? 2 * run->reaped_capacity : 16;
        struct reaped *grown = realloc(run->reaped, capacity * sizeof *grown);
        if (grown == NULL)
            return;
        run->reaped = grown;
        run->reaped_capacity = capacity;
    }
    run->reaped[run->reaped_count++] = (struct reaped){pid, status, monotonic_ns()};
}

/* The last time the launcher collected `pid`, or NULL. */
static const struct reaped *find_reaped(const struct run *run, pid_t pid)
{
    for (size_t i = run->reaped_count; i-- > 0;)
        if (run->reaped[i].pid == pid)
            return &run->reaped[i];
    return NULL;
}

/*
 * After a termination request was forwarded: waits up to STUBBORN_SECONDS
 * for the program to end, and says once who did not, and what ends it.
 * Returns 1 when the program ended meanwhile (its status in run).
 */
#define STUBBORN_SECONDS 3
static int tell_stubborn(struct run *run)
{
    int signal_number = forwarded_signal;
    forwarded_signal = 0;
    for (int waited = 0; waited < STUBBORN_SECONDS * 20; waited++) {
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            remember_reaped(run, pid, status);
            if (pid == child_pid) {
                child_running = 0;
                run->main_status = status;
                return 1;
            }
        }
        struct timespec pause = {0, 50000000};
        nanosleep(&pause, NULL);
    }
    char name[32];
    say("'%s' (pid %ld) still runs %d s after ompcollect passed %s on to it: it ignores or handles that signal. "
        "'kill -KILL %ld' ends it, and ompcollect then writes its report from what it recorded (killing ompcollect "
        "instead loses the report)", run->command[0], (long)child_pid, STUBBORN_SECONDS,
        ompc_signal_name(signal_number, name, sizeof name), (long)child_pid);
    return 0;
}

/* Waits for the launched program itself, collecting whatever else ends meanwhile. */
static void wait_for_program(struct run *run)
{
    int told = 0;
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno != EINTR)
                die(EXIT_OWN_FAILURE, "waitpid: %s", strerror(errno));
            if (forwarded_signal && !told) {
                told = 1;
                if (tell_stubborn(run))
                    return;
            }
            continue;
        }
        remember_reaped(run, pid, status);
        if (pid == child_pid) {
            child_running = 0;
            run->main_status = status;
            return;
        }
    }
}

/*
 * After the program itself ended: descendants that record and still run
 * (a worker the program did not wait for) are waited for too, collecting
 * any that are handed to us as orphans; descendants that never ran OpenMP
 * (a daemon it started) are not.
 */
static void wait_for_descendants(struct run *run)
{
    for (;;) {
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
            remember_reaped(run, pid, status);
        int waiting = 0;
        for (uint32_t i = 0; i < run->header.process_count; i++) {
            struct ompc_slot_head head;
            if (ompc_load_head(run->record_fd, &run->header, i, &head) != 0 || head.state == OMPC_PROC_FREE)
                break;
            if ((head.state != OMPC_PROC_CLAIMED && head.state != OMPC_PROC_RECORDING) || head.pid == run->main_pid
                || find_reaped(run, head.pid) != NULL || !our_descendant(head.pid, head.start_ticks))
                continue;
            waiting = 1;
            if (pending_signal)
                kill(head.pid, pending_signal);
        }
        pending_signal = 0;
        if (!waiting)
            return;
        struct timespec pause = {0, 20000000};
        nanosleep(&pause, NULL);
    }
}

/* The program from its start to the end of its last recording descendant, and ompcollect's exit status from it. */
int supervise(struct run *run, const char *record_env, const char *preload, const char *library_path)
{
    int exec_error = start_program(run, record_env, preload, library_path);
    wait_for_program(run);
    if (exec_error != 0) {
        remove_private_dir(run->private_dir);
        die(exec_error == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE, "cannot run '%s': %s", run->command[0],
            strerror(exec_error));
    }
    wait_for_descendants(run);
    /* The program is gone: from here on a Ctrl-C or SIGTERM is for ompcollect itself. */
    answer_interrupts();
    remove_private_dir(run->private_dir);
    int exit_status = WEXITSTATUS(run->main_status);
    if (WIFSIGNALED(run->main_status)) {
        int number = WTERMSIG(run->main_status);
        say("'%s' was killed by signal %d (%s)", run->command[0], number, strsignal(number));
        exit_status = 128 + number;
    }
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    run->end_ns = monotonic_ns();
    run->realtime_offset_ns = ((int64_t)real.tv_sec * 1000000000 + real.tv_nsec) - (int64_t)run->end_ns;
    return exit_status;
}

/* Seconds as "12.3 s" with enough digits for short runs. */
static void format_seconds(char *buffer, size_t size, uint64_t ns)
{
    snprintf(buffer, size, "%.3f s", ns / 1e9);
}

/*
 * How the process ended, from its slot and what the launcher saw: its exit
 * path ran, it exec'd, the launcher collected it (signal or _exit), or its
 * parent did (then only the last heartbeat dates the end).  Threads still
 * live in the record end there.
 */
void judge_end(const struct run *run, struct process_report *entry, int last_image)
{
    struct ompc_model_process *process = entry->process;
    struct ompc_report *report = &entry->report;
    uint32_t state = process->state;
    const struct reaped *reaped = last_image ? find_reaped(run, process->pid) : NULL;
    uint64_t end = process->end_ns;
    char seconds[32];
    report->exit_status = -1;
    report->signal = 0;
    report->complete = 0;
    if (state == OMPC_PROC_EXECED) {
        report->complete = 1;
        report->end_how = "exec";
        format_seconds(seconds, sizeof seconds, end);
        snprintf(entry->fate, sizeof entry->fate, "replaced itself by exec after %s", seconds);
    } else if (state == OMPC_PROC_ENDED) {
        report->complete = 1;
        report->end_how = "exit";
        report->exit_status = process->exit_status;
        snprintf(entry->fate, sizeof entry->fate, "exit status %d", report->exit_status);
    } else if (reaped != NULL) {
        end = reaped->when_ns > process->origin_ns ? reaped->when_ns - process->origin_ns : 0;
        format_seconds(seconds, sizeof seconds, end);
        if (WIFSIGNALED(reaped->status)) {
            char name[32];
            report->signal = WTERMSIG(reaped->status);
            report->end_how = "signal";
            snprintf(entry->fate, sizeof entry->fate, "killed by signal %d (%s, %s) after %s",
                     report->signal, ompc_signal_name(report->signal, name, sizeof name),
                     strsignal(report->signal), seconds);
        } else {
            report->exit_status = WEXITSTATUS(reaped->status);
            report->end_how = "_exit";
            snprintf(entry->fate, sizeof entry->fate,
                     "ended through _exit (status %d) without running its exit handlers, after %s",
                     report->exit_status, seconds);
        }
    } else {
        end = process->alive_ns;
        for (int i = 0; i < process->thread_count; i++) {
            uint64_t last = process->threads[i].last_sample_ns;
            uint64_t gone = process->threads[i].end_ns;
            end = last > end ? last : end;
            end = gone > end ? gone : end;
        }
        format_seconds(seconds, sizeof seconds, end);
        report->end_how = "unknown";
        snprintf(entry->fate, sizeof entry->fate,
                 "ended without running its exit handlers (_exit or a signal; its parent collected "
                 "the status) after about %s",
                 seconds);
    }
    report->fate = entry->fate;
    report->wall_ns = end;
    report->realtime_offset_ns = run->realtime_offset_ns;
    for (int i = 0; i < process->thread_count; i++)
        if (process->threads[i].status == OMPC_SLOT_LIVE)
            process->threads[i].end_ns = end;
}

uint64_t record_data_bytes(int fd, uint64_t size)
{
    uint64_t data = 0;
    for (off_t at = 0; (uint64_t)at < size;) {
        off_t begin = lseek(fd, at, SEEK_DATA);
        if (begin < 0)
            return errno == ENXIO ? data : size;
        off_t end = lseek(fd, begin, SEEK_HOLE);
        if (end < 0 || (uint64_t)end > size)
            end = (off_t)size;
        data += (uint64_t)(end - begin);
        at = end;
    }
    return data;
}
