/* ompcollect.c - the launcher: runs a program with the shim and the ompcollect agent preloaded, waits for it and every descendant that recorded, and writes their reports from the shared record, however they ended. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "elfcheck.h"
#include "load.h"
#include "names.h"
#include "omp_collector_api.h"
#include "output.h"
#include "procstat.h"
#include "record.h"
#include "report.h"
#include "run.h"
#include "session.h"
#include "stacks.h"
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef OMPCOLLECT_BINDIR
#define OMPCOLLECT_BINDIR "/usr/local/bin"
#endif
#ifndef OMPCOLLECT_LIBDIR
#define OMPCOLLECT_LIBDIR "/usr/local/lib"
#endif
#ifndef OMPCOLLECT_PKGLIBDIR
#define OMPCOLLECT_PKGLIBDIR OMPCOLLECT_LIBDIR "/ompcollector"
#endif
/* The LLVM libomp configure found: what GCC's libgomp is replaced by unless told otherwise. */
#ifndef OMPCOLLECT_DEFAULT_RUNTIME
#define OMPCOLLECT_DEFAULT_RUNTIME ""
#endif

/* ompcollect's own failures; like env(1): 125 itself, 126 cannot execute, 127 not found. */
enum { EXIT_OWN_FAILURE = 125, EXIT_CANNOT_EXECUTE = 126, EXIT_NOT_FOUND = 127 };

#define AGENT_NAME "libompcollect-agent.so"
#define SHIM_NAME "libompcollector.so"

static const char program_name[] = "ompcollect";

int ompc_merge_main(int argc, char **argv);

/* Prints a message prefixed with our name and exits with `status`. */
static void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int status, const char *fmt, ...)
{
    va_list args;
    fprintf(stderr, "%s: ", program_name);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
    exit(status);
}

/* Prints a message prefixed with our name. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list args;
    fprintf(stderr, "%s: ", program_name);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
}

/*
 * The default sampling interval: the tick when it lies in 1-10 ms, else
 * 1 ms.  Timers on the tick are run by the interrupt every CPU takes anyway
 * (tools/agent.c), where any other interval costs an interrupt per sample.
 */
static long long default_interval_ns(void)
{
    long long tick = ompc_kernel_tick_ns();
    return tick >= 1000000 && tick <= 10000000 ? tick : 1000000;
}

/* The --help text; the exit statuses are part of the interface, so they are spelled out. */
static void usage(FILE *out)
{
    char tick[32] = "unknown here";
    if (ompc_kernel_tick_ns() != 0)
        snprintf(tick, sizeof tick, "here %.3g ms", ompc_kernel_tick_ns() / 1e6);
    fprintf(out,
            "Usage: %s [OPTION]... [--] PROGRAM [ARGUMENT]...\n"
            "       %s report [OUTPUT OPTION]... SAVED-RUN\n"
            "       %s merge [-f text|json] [-o FILE] REPORT.json...\n"
            "Run PROGRAM with the OpenMP Collector API shim and report, when it ends, where\n"
            "every OpenMP thread of it (and of every child process running OpenMP) spent its\n"
            "time in the API's 11 thread states.  'report' writes any output again from a\n"
            "run kept with --save.  'merge' sums JSON reports of several processes or MPI\n"
            "ranks into one summary.\n"
            "\n"
            "  -o, --output=FILE        write the report to FILE (default: standard error);\n"
            "                           %%p is the pid, %%r the MPI rank, %%h the host, %%%% a %%\n"
            "  -f, --format=FORMAT      text (default), csv or json\n"
            "      --timeline=FILE.svg  also draw each thread's state over time as SVG\n"
            "                           (same patterns as --output)\n"
            "      --timeline-width=N   draw the timeline N pixels wide (200-20000; 960)\n"
            "      --from=TIME, --to=TIME  draw only this window of the run, times since\n"
            "                           its start, e.g. 1.5s, 200ms, 50us (ms when bare)\n"
            "      --trace-json=FILE.json  also write each thread's states over time as\n"
            "                           Chrome trace-event JSON, for Perfetto or\n"
            "                           chrome://tracing (same patterns as --output)\n"
            "      --trace=DIR          also write an OTF2 archive DIR/traces.otf2 (Vampir,\n"
            "                           otf2-print) from every delivered event and the\n"
            "                           samples (same patterns as --output)\n"
            "      --trace-buffer=SIZE  event log per thread for --trace and --trace-json,\n"
            "                           e.g. 8M (default), 512K; what does not fit is counted\n"
            "      --stacks[=folded]    also sample each thread's call stack: the report gets\n"
            "                           a call tree per state (where IBAR, LKWT... time goes\n"
            "                           by the user's call path, runtime frames spliced\n"
            "                           out); =folded makes the report folded stacks for\n"
            "                           flamegraph.pl (program built -fno-omit-frame-pointer)\n"
            "      --stacks-file=FILE   also write the folded stacks to FILE (implies\n"
            "                           --stacks; same patterns as --output)\n"
            "  -i, --interval=TIME      sampling interval, e.g. 1ms, 250us, or tick: the\n"
            "                           kernel's scheduler tick (%s), which is the\n"
            "                           default when it is 1-10 ms (else 1ms); whole ticks\n"
            "                           cost far less than any other interval\n"
            "  -e, --events=LIST        further events to register besides fork and join:\n"
            "                           comma list of fork, join, begin_X, end_X, or just X\n"
            "                           for both halves, X one of idle ibar ebar lkwt ctwt\n"
            "                           odwt master single ordered atwt; or all, none\n"
            "      --no-sample          do not sample; report events only\n"
            "      --no-tasks           do not register the task events (no task table)\n"
            "      --csv-dir=DIR        also write the CSV report as one file per table,\n"
            "                           DIR/TABLE.csv (same patterns as --output)\n"
            "      --list-regions       text report: list every parallel region instance\n"
            "      --save=FILE          also keep the run's record in FILE, for 'report'\n"
            "      --symfs=DIR          'report': read the program's modules under DIR\n"
            "      --runtime=PATH       run PROGRAM on this LLVM libomp.so.5 (preloaded, and\n"
            "                           in place of GCC's libgomp); 'none' changes nothing.\n"
            "                           Default: GCC's libgomp (no OMPT), wherever it is asked\n"
            "                           for, is replaced by %s\n"
            "  -h, --help               show this help and exit\n"
            "  -V, --version            show the version and exit\n"
            "\n"
            "Under MPI, put ompcollect after the launcher: mpirun -np 4 ompcollect -o r.%%r.txt\n"
            "PROGRAM (srun likewise).  Without %%r in the name each rank's file gets its rank.\n"
            "\n"
            "Environment: OMPCOLLECT_SHIM and OMPCOLLECT_COLLECTOR override where the shim\n"
            "(" SHIM_NAME ") and the agent (" AGENT_NAME ") are found;\n"
            "OMPCOLLECT_RUNTIME is a default for --runtime.\n"
            "\n"
            "Exit status: PROGRAM's own, or 128+N when signal N killed it; 125 when\n"
            "ompcollect fails or refuses before PROGRAM runs (bad options, a static program,\n"
            "an MPI launcher as PROGRAM, a runtime that will not take the shim), 126 when\n"
            "PROGRAM cannot be executed, 127 when it is not found.\n",
            program_name, program_name, program_name, tick,
            OMPCOLLECT_DEFAULT_RUNTIME[0] ? OMPCOLLECT_DEFAULT_RUNTIME
                                          : "(no libomp was found at configure time)");
}

/* Parses a time since the run's start: a decimal number with an optional unit (ns, us, ms, s; ms when absent); -1 when malformed. */
static int parse_time(const char *text, uint64_t *nanoseconds)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || errno != 0 || !(value >= 0) || value > 1e7)
        return -1;
    double scale;
    if (strcmp(end, "") == 0 || strcmp(end, "ms") == 0)
        scale = 1e6;
    else if (strcmp(end, "s") == 0)
        scale = 1e9;
    else if (strcmp(end, "us") == 0)
        scale = 1e3;
    else if (strcmp(end, "ns") == 0)
        scale = 1;
    else
        return -1;
    *nanoseconds = (uint64_t)(value * scale);
    return 0;
}

/* Parses a size in bytes: a whole number with an optional K, M or G (binary; "KiB", "MB" and the like too); -1 when malformed. */
static int parse_size(const char *text, uint64_t *bytes)
{
    char *end;
    errno = 0;
    if (text[0] < '0' || text[0] > '9')
        return -1;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || end == text)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (shift != 0 && *end == 'i')
        end++;
    if (*end == 'B' || (shift == 0 && *end == 'b'))
        end++;
    if (*end != '\0' || value > (UINT64_MAX >> 30))
        return -1;
    *bytes = (uint64_t)value << shift;
    return 0;
}

/* An absolute version of `path` (relative to the current directory). */
static char *absolute_path(const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    char *directory = getcwd(NULL, 0);
    if (directory == NULL)
        die(EXIT_OWN_FAILURE, "cannot find the current directory: %s", strerror(errno));
    char *result;
    if (asprintf(&result, "%s/%s", directory, path) < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
    free(directory);
    return result;
}

/* Whether `path` names a readable regular file. */
static int readable_file(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 && S_ISREG(info.st_mode) && access(path, R_OK) == 0;
}

/* The directory this executable lives in, or NULL. */
static char *own_directory(void)
{
    char *exe = realpath("/proc/self/exe", NULL);
    if (exe == NULL)
        return NULL;
    char *slash = strrchr(exe, '/');
    if (slash == NULL) {
        free(exe);
        return NULL;
    }
    *slash = '\0';
    return exe;
}

/*
 * The path from directory `from` to `to` ("../lib" from /usr/bin to
 * /usr/lib), both absolute and as configured; NULL when they share
 * nothing but the root, since then no relation survives a relocation.
 */
static char *relative_path(const char *from, const char *to)
{
    size_t common = 0, i = 0;
    for (; from[i] != '\0' && from[i] == to[i]; i++)
        if (from[i] == '/')
            common = i;
    if ((from[i] == '\0' || from[i] == '/') && (to[i] == '\0' || to[i] == '/'))
        common = i;
    if (common == 0)
        return NULL;
    char *result = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&result, &size);
    if (out == NULL)
        return NULL;
    for (const char *c = from + common; *c; c++)
        if (*c == '/' && c[1] != '\0' && c[1] != '/')
            fputs("../", out);
    const char *rest = to + common;
    while (*rest == '/')
        rest++;
    fputs(*rest ? rest : ".", out);
    if (fclose(out) != 0) {
        free(result);
        return NULL;
    }
    return result;
}

/*
 * Where the shim and the agent are: the environment overrides; then the
 * build tree when this executable sits in one (tools/ompcollect next to
 * tools/.libs and lib/.libs); then the installed layout relative to this
 * executable (so `make install prefix=...` and DESTDIR installs work
 * without reconfiguring); then the configured install locations.
 */
static void locate_libraries(char **shim, char **agent)
{
    char *directory = own_directory();
    char *candidate_shim = NULL, *candidate_agent = NULL;
    *shim = *agent = NULL;
    if (directory != NULL) {
        /* libtool may run the real binary from .libs next to a wrapper script. */
        size_t length = strlen(directory);
        if (length >= 6 && strcmp(directory + length - 6, "/.libs") == 0)
            directory[length - 6] = '\0';
        if (asprintf(&candidate_agent, "%s/.libs/%s", directory, AGENT_NAME) < 0
            || asprintf(&candidate_shim, "%s/../lib/.libs/%s", directory, SHIM_NAME) < 0)
            die(EXIT_OWN_FAILURE, "out of memory");
        if (readable_file(candidate_agent) && readable_file(candidate_shim)) {
            *shim = realpath(candidate_shim, NULL);
            *agent = realpath(candidate_agent, NULL);
        }
        free(candidate_shim);
        free(candidate_agent);
        candidate_shim = candidate_agent = NULL;
        char *to_lib = relative_path(OMPCOLLECT_BINDIR, OMPCOLLECT_LIBDIR);
        char *to_pkglib = relative_path(OMPCOLLECT_BINDIR, OMPCOLLECT_PKGLIBDIR);
        if (*shim == NULL && to_lib != NULL && to_pkglib != NULL) {
            if (asprintf(&candidate_shim, "%s/%s/%s.0", directory, to_lib, SHIM_NAME) < 0
                || asprintf(&candidate_agent, "%s/%s/%s", directory, to_pkglib, AGENT_NAME) < 0)
                die(EXIT_OWN_FAILURE, "out of memory");
            if (readable_file(candidate_shim) && readable_file(candidate_agent)) {
                *shim = realpath(candidate_shim, NULL);
                *agent = realpath(candidate_agent, NULL);
            }
            free(candidate_shim);
            free(candidate_agent);
        }
        free(to_lib);
        free(to_pkglib);
        free(directory);
    }
    if (*shim == NULL) {
        if (readable_file(OMPCOLLECT_LIBDIR "/" SHIM_NAME ".0"))
            *shim = strdup(OMPCOLLECT_LIBDIR "/" SHIM_NAME ".0");
        else
            *shim = strdup(OMPCOLLECT_LIBDIR "/" SHIM_NAME);
    }
    if (*agent == NULL)
        *agent = strdup(OMPCOLLECT_PKGLIBDIR "/" AGENT_NAME);

    const char *setting = getenv("OMPCOLLECT_SHIM");
    if (setting != NULL && setting[0] != '\0') {
        free(*shim);
        *shim = absolute_path(setting);
    }
    setting = getenv("OMPCOLLECT_COLLECTOR");
    if (setting != NULL && setting[0] != '\0') {
        free(*agent);
        *agent = absolute_path(setting);
    }
    if (*shim == NULL || !readable_file(*shim))
        die(EXIT_OWN_FAILURE, "cannot find the shim %s (set OMPCOLLECT_SHIM to %s)",
            *shim ? *shim : SHIM_NAME, SHIM_NAME);
    if (*agent == NULL || !readable_file(*agent))
        die(EXIT_OWN_FAILURE, "cannot find the agent %s (set OMPCOLLECT_COLLECTOR to %s)",
            *agent ? *agent : AGENT_NAME, AGENT_NAME);
}

/* Where execvp would find `command`: itself when it holds a slash, else the first match on PATH. */
static char *program_file(const char *command)
{
    if (strchr(command, '/') != NULL)
        return strdup(command);
    const char *search = getenv("PATH");
    if (search == NULL || search[0] == '\0')
        search = "/bin:/usr/bin";
    while (*search != '\0') {
        size_t length = strcspn(search, ":");
        char *candidate;
        if (asprintf(&candidate, "%.*s/%s", (int)length, length ? search : ".", command) < 0)
            return NULL;
        if (access(candidate, X_OK) == 0)
            return candidate;
        free(candidate);
        search += length + (search[length] == ':');
    }
    return NULL;
}

/* Whether a file name is an MPI or batch launcher's (mpirun, mpiexec.hydra, srun, ...). */
static int launcher_name(const char *path)
{
    static const char *const names[] = {"mpirun", "mpiexec", "orterun", "prterun", "srun"};
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t length = strlen(names[i]);
        if (strncmp(base, names[i], length) == 0 && (base[length] == '\0' || base[length] == '.'))
            return 1;
    }
    return 0;
}

/*
 * `ompcollect mpirun ...` would sample mpirun itself and send signals into
 * its ranks.  Refused before anything is set up, with the nesting that works.
 */
static void refuse_launchers(const char *command, const char *file)
{
    char *real = file != NULL ? realpath(file, NULL) : NULL;
    if (launcher_name(command) || (real != NULL && launcher_name(real))) {
        const char *base = strrchr(command, '/');
        base = base != NULL ? base + 1 : command;
        die(EXIT_OWN_FAILURE,
            "'%s' starts MPI or batch ranks: ompcollect must run inside each rank, not around "
            "the launcher; write '%s ... ompcollect [OPTION]... PROGRAM' instead",
            command, base);
    }
    free(real);
}

/* LD_PRELOAD splits on spaces and colons, so a path holding one cannot be preloaded. */
static void check_preloadable(const char *what, const char *path)
{
    if (strpbrk(path, " :\t\n") != NULL)
        die(EXIT_OWN_FAILURE, "cannot preload %s '%s': the path contains a space or colon", what, path);
}

/* Refuses programs the dynamic loader does not run, or runs without honouring LD_PRELOAD. */
static void check_program(const char *command, const char *file, const struct ompc_elf_info *elf)
{
    if (elf->elf && !elf->interpreter)
        die(EXIT_OWN_FAILURE,
            "cannot observe '%s': it is statically linked (its ELF file has no program "
            "interpreter%s), so nothing can be preloaded into it; build it without -static",
            command, elf->dynamic ? "" : " and no dynamic section");
    struct stat info;
    if (stat(file, &info) == 0
        && (((info.st_mode & S_ISUID) && info.st_uid != getuid())
            || ((info.st_mode & S_ISGID) && info.st_gid != getgid())))
        die(EXIT_OWN_FAILURE,
            "cannot observe '%s': it is set-user-ID or set-group-ID, and the dynamic loader "
            "ignores LD_PRELOAD for such programs",
            command);
}

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

/* Monotonic nanoseconds, the clock the agents stamp the record with. */
static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static pid_t child_pid;
static volatile sig_atomic_t child_running;
static volatile sig_atomic_t pending_signal;

/* Termination requests to the launcher are meant for the program; after it, for its recording descendants. */
static void forward_signal(int signal_number)
{
    if (child_running && child_pid > 0)
        kill(child_pid, signal_number);
    else
        pending_signal = signal_number;
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

/* The LLVM version in a runtime's real path (".../llvm-14/lib/libomp.so.5"), or the kind of runtime. */
static char *runtime_version(const char *file)
{
    char *result = NULL;
    const char *llvm = strstr(file, "/llvm-");
    if (llvm != NULL && llvm[6] >= '0' && llvm[6] <= '9') {
        int digits = (int)strspn(llvm + 6, "0123456789.");
        if (asprintf(&result, "LLVM libomp %.*s", digits, llvm + 6) < 0)
            result = NULL;
        return result;
    }
    const char *base = strrchr(file, '/');
    base = base != NULL ? base + 1 : file;
    if (strncmp(base, "libgomp", 7) == 0)
        return strdup("GCC libgomp");
    if (strncmp(base, "libiomp", 7) == 0)
        return strdup("Intel OpenMP");
    if (strncmp(base, "libomp", 6) == 0)
        return strdup("LLVM libomp");
    return strdup("");
}

/* Whether the loader found `path` through the private directory's libgomp.so.1. */
static int in_private_dir(const struct run *run, const char *path)
{
    size_t length = run->private_dir != NULL ? strlen(run->private_dir) : 0;
    return length > 0 && strncmp(path, run->private_dir, length) == 0 && path[length] == '/';
}

/* Why this runtime ran, as the launcher arranged it. */
static const char *runtime_reason(const struct run *run, const char *path, const char *file)
{
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    int substituted = in_private_dir(run, path);
    if (substituted && run->runtime_option != NULL)
        return "chosen with --runtime, in place of GCC's libgomp (which has no OMPT) that the "
               "program or one of its libraries asked for";
    if (substituted)
        return "in place of GCC's libgomp (which has no OMPT) that the program or one of its "
               "libraries asked for";
    if (run->runtime_option != NULL) {
        const char *chosen = ompc_session_realpath(run->session, run->runtime_option);
        int same = chosen != NULL && strcmp(chosen, file) == 0;
        if (same)
            return "chosen with --runtime";
    }
    if (strncmp(base, "libgomp", 7) == 0)
        return "GCC's libgomp, which has no OMPT: its regions and thread states were invisible to "
               "ompcollect (run without --runtime=none, or give --runtime an LLVM libomp)";
    return "the program's own";
}

/* Seconds as "12.3 s" with enough digits for short runs. */
static void format_seconds(char *buffer, size_t size, uint64_t ns)
{
    snprintf(buffer, size, "%.3f s", ns / 1e9);
}

/* One recorded process, read from the record, with what the launcher adds. */
struct process_report {
    struct ompc_model_process *process;
    struct ompc_report report;
    char fate[256];
    char relation[OMPC_TEXT_SIZE + 64];
    char *runtime_file;
    char *runtime_version;
    int initial;
    struct ompc_stacks *stacks;  /* --stacks */
};

/*
 * How the process ended, from its slot and what the launcher saw: its exit
 * path ran, it exec'd, the launcher collected it (signal or _exit), or its
 * parent did (then only the last heartbeat dates the end).  Threads still
 * live in the record end there.
 */
static void judge_end(const struct run *run, struct process_report *entry, int last_image)
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

/* Fills in the launcher's side of one process's report. */
static void describe(const struct run *run, struct process_report *entry, struct ompc_model_process **all,
                     uint32_t count)
{
    struct ompc_model_process *process = entry->process;
    struct ompc_report *report = &entry->report;
    int last_image = 1;
    for (uint32_t k = 0; k < count; k++)
        if (all[k] != NULL && all[k]->exec_slot == (int32_t)process->index)
            last_image = 0;
    judge_end(run, entry, last_image);
    report->process = process;
    report->timeline_width = run->timeline_width;
    report->from_ns = run->from_ns;
    report->to_ns = run->to_ns;
    report->sampling = run->sampling;
    report->interval_ns = run->interval_ns;
    report->program = process->pid == run->main_pid && process->exec_slot < 0 ? run->command[0]
                                                                              : process->program;
    report->rank = run->rank.rank;
    report->host = run->host;
    entry->relation[0] = '\0';
    if (process->parent_slot >= 0)
        snprintf(entry->relation, sizeof entry->relation, "forked from pid %ld",
                 (long)process->ppid);
    else if (process->exec_slot >= 0 && (uint32_t)process->exec_slot < count
             && all[process->exec_slot] != NULL) {
        const struct ompc_model_process *before = all[process->exec_slot];
        if (before->parent_slot >= 0)
            snprintf(entry->relation, sizeof entry->relation,
                     "exec'd by %s (pid %ld) after a fork from pid %ld", before->program,
                     (long)process->pid, (long)before->ppid);
        else
            snprintf(entry->relation, sizeof entry->relation, "exec'd by %s (pid %ld)",
                     before->program, (long)process->pid);
    }
    else if (process->pid != run->main_pid)
        snprintf(entry->relation, sizeof entry->relation, "started by pid %ld", (long)process->ppid);
    report->relation = entry->relation;
    report->runtime_path = process->runtime;
    /* The private directory is gone by now: its link stands for the substitute. */
    const char *path = in_private_dir(run, process->runtime) ? run->substitute : process->runtime;
    const char *resolved = path[0] ? ompc_session_realpath(run->session, path) : NULL;
    entry->runtime_file = strdup(resolved != NULL ? resolved : process->runtime);
    entry->runtime_version = runtime_version(entry->runtime_file);
    report->runtime_file = entry->runtime_file;
    report->runtime_version = entry->runtime_version;
    report->runtime_why = process->runtime[0] ? runtime_reason(run, process->runtime, entry->runtime_file) : "";
    report->shim = run->shim;
    report->agent = run->agent;
    report->event_log_bytes = run->header.event_log_bytes;
}

/* The file name one report goes to, from the pattern: rank and pid added where the pattern cannot tell processes apart. */
static char *report_name(const struct run *run, const char *pattern, const struct process_report *entry)
{
    char *name = ompc_expand_pattern(pattern, (long)entry->process->pid, run->rank.rank, run->host);
    if (name == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    char tag[32];
    if (run->rank.rank >= 0 && run->rank.size != 1 && !ompc_pattern_has(pattern, 'r')) {
        snprintf(tag, sizeof tag, "%d", run->rank.rank);
        char *tagged = ompc_insert_tag(name, tag);
        free(name);
        name = tagged;
    }
    if (!entry->initial && !ompc_pattern_has(pattern, 'p') && name != NULL) {
        snprintf(tag, sizeof tag, "%ld", (long)entry->process->pid);
        char *tagged = ompc_insert_tag(name, tag);
        free(name);
        name = tagged;
    }
    if (name == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    return name;
}

/* Whether `name` is among the first `count` of `names`. */
static int name_taken(char **names, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (names[i] != NULL && strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* Messages for processes the collector could not attach to; returns whether the launched one was among them. */
static int report_refusals(const struct run *run, struct ompc_model_process **all, uint32_t count)
{
    int main_refused = 0;
    for (uint32_t i = 0; i < count; i++) {
        const struct ompc_model_process *process = all[i];
        if (process == NULL || process->state != OMPC_PROC_REFUSED)
            continue;
        if (process->pid != run->main_pid) {
            say("pid %ld (%s) ran OpenMP but could not be observed: %s", (long)process->pid,
                process->program, process->attach_error);
            continue;
        }
        main_refused = 1;
        say("cannot attach to '%s': %s", run->command[0], process->attach_error);
        const char *tool = run->omp_tool;
        if (tool != NULL && strcmp(tool, "disabled") == 0)
            say("OMP_TOOL=disabled is set: unset it so the runtime loads the shim");
        else if (run->substitute == NULL && strncmp(process->attach_error, "START", 5) == 0)
            say("a program built with GCC needs --runtime=/path/to/libomp.so.5%s%s",
                OMPCOLLECT_DEFAULT_RUNTIME[0] ? ", e.g. --runtime=" : "", OMPCOLLECT_DEFAULT_RUNTIME);
    }
    return main_refused;
}

/*
 * Whether an image did OpenMP work: a parallel region, or a sample in an
 * OpenMP state.  A fork child that only execs, or an image that loaded the
 * runtime and exec'd before using it, is not worth a report of its own.
 */
static int did_openmp_work(const struct ompc_model_process *process)
{
    if (process->untracked.events[OMP_EVENT_FORK] != 0)
        return 1;
    for (int i = 0; i < process->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        if (thread->events[OMP_EVENT_FORK] != 0)
            return 1;
        for (int state = 1; state < OMPC_NSTATES; state++)
            if (state != THR_SERIAL_STATE && thread->state_ticks[state] != 0)
                return 1;
    }
    return 0;
}

/* What the loader reads beyond the tables every report uses, for the outputs asked for. */
static unsigned load_what(const struct run *run)
{
    unsigned what = 0;
    if (run->timeline != NULL || run->trace_json != NULL || run->trace != NULL)
        what |= OMPC_LOAD_TIMELINES;
    if (run->timeline != NULL)
        what |= OMPC_LOAD_WHERE;
    if (run->header.event_log_bytes != 0)
        what |= OMPC_LOAD_EVENT_LOGS;
    if (run->stacks)
        what |= OMPC_LOAD_STACKS;
    return what;
}

/* Every used slot through the loader, into `all` (count entries, NULL past the last used one). */
static void load_all(struct run *run, struct ompc_model_process **all, uint32_t count)
{
    struct ompc_load_bounds bounds = {run->start_ns, run->end_ns};
    struct stat info;
    if (fstat(run->record_fd, &info) == 0 && (uint64_t)info.st_size < run->header.total_size) {
        run->record_cut = 1;
        say("the record was cut to %llu of its %llu bytes during the run (the program truncated it?): what lay "
            "beyond is lost", (unsigned long long)info.st_size, (unsigned long long)run->header.total_size);
    }
    if (ompc_load_counts(run->record_fd, &run->header) != 0)
        say("the record lost its header during the run: its run-wide counts are unknown");
    for (uint32_t i = 0; i < count; i++) {
        struct ompc_slot_head head;
        if (ompc_load_head(run->record_fd, &run->header, i, &head) != 0 || head.state == OMPC_PROC_FREE)
            break;
        all[i] = ompc_load_process(run->record_fd, &run->header, i, load_what(run), &bounds);
        if (all[i] == NULL)
            die(EXIT_OWN_FAILURE, "out of memory reading the record of pid %ld", (long)head.pid);
        all[i]->symfs = run->symfs;
    }
}

/* Says, once per reported process and once for all the others, where the loader found the record damaged. */
static void say_damage(struct ompc_model_process **all, uint32_t count, const struct process_report *entries,
                       size_t reports)
{
    for (size_t i = 0; i < reports; i++) {
        const struct ompc_model_process *process = entries[i].process;
        if (process->damage.count > 0)
            say("the record of pid %ld is damaged (%lu finding%s; said in its report): %s", (long)process->pid,
                process->damage.count, process->damage.count == 1 ? "" : "s", process->damage.text);
    }
    unsigned long others = 0;
    for (uint32_t i = 0; i < count; i++) {
        int reported = 0;
        for (size_t k = 0; k < reports && !reported; k++)
            reported = entries[k].process == all[i];
        others += all[i] != NULL && !reported && all[i]->damage.count > 0;
    }
    if (others > 0)
        say("%lu further record slots, of no reported process, are damaged or forged: ignored", others);
}

/* Picks the processes that get a report and fills in what the launcher knows of each; returns their count. */
static size_t choose_reports(struct run *run, struct ompc_model_process **all, uint32_t count,
                             struct process_report *entries)
{
    size_t reports = 0;
    int initial_taken = 0;
    for (uint32_t i = 0; i < count; i++) {
        struct ompc_model_process *process = all[i];
        if (process == NULL || process->state == OMPC_PROC_REFUSED || !process->openmp)
            continue;
        /* The launched process is always reported (its last image); others when they did OpenMP work. */
        int launched = process->pid == run->main_pid && process->state != OMPC_PROC_EXECED;
        if (!launched && !did_openmp_work(process))
            continue;
        struct process_report *entry = &entries[reports++];
        entry->process = process;
        entry->initial = !initial_taken && process->pid == run->main_pid;
        initial_taken |= entry->initial;
        describe(run, entry, all, count);
        entry->report.list_regions = run->list_regions;
        if (run->stacks) {
            entry->stacks = ompc_stacks_build(process);
            if (entry->stacks == NULL)
                say("out of memory reading the call stacks of pid %ld", (long)process->pid);
            entry->report.stacks = entry->stacks;
            entry->report.stacks_asked = 1;
        }
    }
    return reports;
}

/* A file being written: a temporary file put in place whole when finished, or a device or pipe written as it is. */
struct placed_file {
    const char *what; /* what messages call it: "report", "timeline", ... */
    const char *name;
    char *temp;       /* NULL: written to `name` itself */
    FILE *out;
};

/* Opens the file an output goes to; NULL after a message. */
static FILE *open_placed(struct placed_file *file, const char *what, const char *name)
{
    file->what = what;
    file->name = name;
    file->temp = NULL;
    /* A device or pipe (/dev/null, /dev/stdout, a FIFO) is written as it is: there is no file to replace. */
    struct stat existing;
    if (stat(name, &existing) == 0 && !S_ISREG(existing.st_mode) && !S_ISDIR(existing.st_mode)) {
        if ((file->out = fopen(name, "w")) == NULL)
            say("writing the %s %s failed: %s", what, name, strerror(errno));
        return file->out;
    }
    if ((file->out = ompc_open_temp(name, &file->temp)) == NULL)
        say("cannot write the %s %s: %s", what, name, strerror(errno));
    return file->out;
}

/*
 * Closes a file whose writer returned `status` and puts it in place; a
 * name another process of the run wrote meanwhile stays, and this file
 * goes beside it with `pid` in its name.  Returns the name it got
 * (malloc'd), or NULL after a message.
 */
static char *close_placed(const struct run *run, struct placed_file *file, int status, long pid)
{
    int failed = status != 0;
    failed |= fclose(file->out) != 0;
    if (failed) {
        say("writing the %s %s failed: %s", file->what, file->name, strerror(errno));
        if (file->temp != NULL)
            unlink(file->temp);
        free(file->temp);
        return NULL;
    }
    if (file->temp == NULL)
        return strdup(file->name);
    char tag[32];
    snprintf(tag, sizeof tag, "%ld", pid);
    char *fallback = ompc_insert_tag(file->name, tag);
    const char *where = ompc_place_file(file->temp, file->name, fallback, &run->start_real);
    char *placed = NULL;
    if (where == NULL) {
        say("cannot put the %s in place at %s: %s", file->what, file->name, strerror(errno));
        unlink(file->temp);
    } else {
        if (where != file->name)
            say("%s was written by another process during this run (another rank ompcollect could not "
                "tell apart?): it stays, and this %s went to %s",
                file->name, file->what, where);
        placed = strdup(where);
    }
    free(fallback);
    free(file->temp);
    return placed;
}

/* One output asked for: its writer, the pattern its names come from (the report's NULL: standard error), and what messages call it. */
struct output {
    const struct ompc_writer *writer;
    const char *pattern;
    const char *what;
};

/* The writers of the report's formats (-f, --stacks=folded), by enum ompc_format. */
static const char *const format_writers[] = {
    [OMPC_FORMAT_TEXT] = "text", [OMPC_FORMAT_CSV] = "csv", [OMPC_FORMAT_JSON] = "json",
    [OMPC_FORMAT_FOLDED] = "folded",
};

/* The outputs asked for, the report first, in the order each process's are written; returns their count. */
static size_t outputs_asked(const struct run *run, struct output *outputs)
{
    const struct output asked[] = {
        {ompc_writer_find(OMPC_VIEW_PROCESS, format_writers[run->format]), run->output, "report"},
        {ompc_writer_find(OMPC_VIEW_PROCESS, "svg"), run->timeline, "timeline"},
        {ompc_writer_find(OMPC_VIEW_PROCESS, "trace-json"), run->trace_json, "trace"},
        {ompc_writer_find(OMPC_VIEW_PROCESS, "csv-dir"), run->csv_dir, "CSV table"},
        /* NULL without libotf2, where check_trace_directory refused --trace before the run. */
        {ompc_writer_find(OMPC_VIEW_PROCESS, "otf2"), run->trace, "OTF2 trace"},
        {ompc_writer_find(OMPC_VIEW_PROCESS, "folded"), run->folded, "folded stacks"},
    };
    size_t count = 0;
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++)
        if (asked[i].writer != NULL && (i == 0 || asked[i].pattern != NULL))
            outputs[count++] = asked[i];
    return count;
}

/* A process's view, for its writers. */
static struct ompc_view process_view(const struct process_report *entry)
{
    return (struct ompc_view){.kind = OMPC_VIEW_PROCESS, .process = &entry->report};
}

/* A stream output to the file `name`; returns the name it got (malloc'd), or NULL after a message. */
static char *write_stream(const struct run *run, const struct output *output, const char *name,
                          const struct process_report *entry)
{
    struct placed_file file;
    if (open_placed(&file, output->what, name) == NULL)
        return NULL;
    struct ompc_sink sink = {.kind = OMPC_SINK_STREAM, .out = file.out};
    struct ompc_view view = process_view(entry);
    int status = ompc_writer_write(output->writer, &view, &sink);
    return close_placed(run, &file, status, (long)entry->process->pid);
}

/*
 * A report on standard error in one write where the system allows, so the
 * reports of MPI ranks sharing the launcher's stderr do not interleave.
 */
static int write_to_stderr(const struct output *output, const struct process_report *entry, int separate)
{
    char *text = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&text, &size);
    if (memory == NULL)
        return -1;
    if (separate)
        fputc('\n', memory);
    struct ompc_sink sink = {.kind = OMPC_SINK_STREAM, .out = memory};
    struct ompc_view view = process_view(entry);
    int failed = ompc_writer_write(output->writer, &view, &sink) != 0;
    failed |= fclose(memory) != 0;
    fflush(stderr);
    for (size_t done = 0; !failed && done < size;) {
        ssize_t wrote = write(STDERR_FILENO, text + done, size - done);
        if (wrote < 0 && errno == EINTR)
            continue;
        failed = wrote <= 0;
        done += wrote > 0 ? (size_t)wrote : 0;
    }
    free(text);
    return failed ? -1 : 0;
}

/* A file of a directory output, held in memory until its writer finished. */
struct held_file {
    char *name;
    char *bytes;
    size_t length;
    FILE *out;
};

/* A directory output of one process in the making: the files its writer opened, or the directory it fills. */
struct directory_output {
    const struct run *run;
    const struct output *output;
    const struct process_report *entry;
    struct held_file **files; /* each allocated alone: its stream updates `bytes` and `length` in place */
    size_t count;
    char *path;  /* directory(): where the directory goes (the pattern's name, rank and pid added) */
    char *temp;  /* directory(): the private directory being filled, or NULL */
    int said;    /* a message said why the output failed */
};

/* The sink's open: a file held in memory, so that a writer that fails leaves no table behind. */
static FILE *hold_file(struct ompc_sink *sink, const char *name)
{
    struct directory_output *output = sink->context;
    struct held_file **grown = realloc(output->files, (output->count + 1) * sizeof *grown);
    if (grown == NULL)
        return NULL;
    output->files = grown;
    struct held_file *file = calloc(1, sizeof *file);
    if (file == NULL || (file->name = strdup(name)) == NULL
        || (file->out = open_memstream(&file->bytes, &file->length)) == NULL) {
        free(file != NULL ? file->name : NULL);
        free(file);
        return NULL;
    }
    grown[output->count++] = file;
    return file->out;
}

/*
 * The sink's directory: a private one next to where the output goes,
 * renamed into place once full, so a reader never sees half an archive.
 */
static const char *private_directory(struct ompc_sink *sink)
{
    struct directory_output *output = sink->context;
    if (output->temp != NULL)
        return output->temp;
    if (asprintf(&output->temp, "%s.tmp.XXXXXX", output->path) < 0)
        output->temp = NULL;
    if (output->temp == NULL || mkdtemp(output->temp) == NULL) {
        say("cannot make a directory next to %s for the %s: %s", output->path, output->output->what,
            strerror(errno));
        free(output->temp);
        output->temp = NULL;
        output->said = 1;
    }
    return output->temp;
}

/* Closes the held files; -1 when any ran out of memory. */
static int close_held(struct directory_output *output)
{
    int failed = 0;
    for (size_t i = 0; i < output->count; i++) {
        failed |= ferror(output->files[i]->out) != 0;
        failed |= fclose(output->files[i]->out) != 0;
    }
    return failed ? -1 : 0;
}

/*
 * Puts the held files in place one by one, in the output's directory
 * (made when missing), each named from the pattern as --output's are: a
 * directory the processes of a run share holds each one's files.
 */
static void place_held(struct directory_output *output)
{
    const struct run *run = output->run;
    long pid = (long)output->entry->process->pid;
    char *directory = ompc_expand_pattern(output->output->pattern, pid, run->rank.rank, run->host);
    if (directory == NULL) {
        say("cannot write the %ss: out of memory", output->output->what);
        return;
    }
    if (mkdir(directory, 0777) != 0 && errno != EEXIST)
        say("cannot make the directory %s for the %ss: %s", directory, output->output->what, strerror(errno));
    for (size_t i = 0; i < output->count; i++) {
        const struct held_file *held = output->files[i];
        char *pattern;
        if (asprintf(&pattern, "%s/%s", output->output->pattern, held->name) < 0)
            die(EXIT_OWN_FAILURE, "out of memory");
        char *name = report_name(run, pattern, output->entry);
        struct placed_file file;
        if (open_placed(&file, output->output->what, name) != NULL) {
            fwrite(held->bytes, 1, held->length, file.out);
            free(close_placed(run, &file, ferror(file.out) ? -1 : 0, pid));
        }
        free(name);
        free(pattern);
    }
    free(directory);
}

/*
 * Renames the filled private directory into place; a directory some
 * other process of the run filled meanwhile stays, and this one goes to a
 * name with the pid instead.
 */
static void place_directory(struct directory_output *output)
{
    const char *what = output->output->what, *where = output->path;
    const struct process_report *entry = output->entry;
    char *fallback = NULL;
    if (rename(output->temp, output->path) != 0) {
        char tag[32];
        snprintf(tag, sizeof tag, "%ld", (long)entry->process->pid);
        fallback = ompc_insert_tag(output->path, tag);
        if ((errno != ENOTEMPTY && errno != EEXIST) || fallback == NULL || rename(output->temp, fallback) != 0) {
            say("cannot put the %s in place at %s: %s", what, output->path, strerror(errno));
            ompc_remove_tree(output->temp);
            free(fallback);
            return;
        }
        where = fallback;
        say("%s was filled by another process during this run: it stays, and this %s went to %s", output->path,
            what, where);
    }
    if (output->output->writer->entry != NULL && (output->run->output != NULL || !entry->initial))
        say("%s of pid %ld: %s/%s", what, (long)entry->process->pid, where, output->output->writer->entry);
    free(fallback);
}

/* A directory output (--csv-dir, --trace): written through a sink that makes its files and puts them in place. */
static void write_directory(const struct run *run, const struct output *output, const struct process_report *entry)
{
    struct directory_output made = {run, output, entry, NULL, 0, NULL, NULL, 0};
    made.path = report_name(run, output->pattern, entry);
    struct ompc_sink sink = {
        .kind = OMPC_SINK_DIRECTORY, .open = hold_file, .directory = private_directory, .context = &made};
    struct ompc_view view = process_view(entry);
    int status = ompc_writer_write(output->writer, &view, &sink);
    status |= close_held(&made);
    if (status == 0 && made.temp != NULL) {
        place_directory(&made);
    } else if (status == 0) {
        place_held(&made);
    } else if (made.temp != NULL) {
        say("writing the %s %s failed: %s", output->what, made.path, sink.error);
        ompc_remove_tree(made.temp);
    } else if (!made.said) {
        say("cannot write the %ss: %s", output->what, sink.error[0] ? sink.error : "out of memory");
    }
    for (size_t i = 0; i < made.count; i++) {
        free(made.files[i]->name);
        free(made.files[i]->bytes);
        free(made.files[i]);
    }
    free(made.files);
    free(made.temp);
    free(made.path);
}

/* The report itself, to stderr or its file (a name another process took gets a number). */
static void write_main_report(const struct run *run, const struct output *output, const struct process_report *entry,
                              size_t i, char **names, char **placed, int *rank_said)
{
    if (output->pattern == NULL) {
        if (write_to_stderr(output, entry, i > 0) != 0)
            say("writing the report to standard error failed");
        return;
    }
    names[i] = report_name(run, output->pattern, entry);
    for (int n = 2; name_taken(names, i, names[i]); n++) {
        char tag[16];
        snprintf(tag, sizeof tag, "%d", n);
        char *tagged = ompc_insert_tag(names[i], tag);
        free(names[i]);
        names[i] = tagged;
    }
    if (run->rank.rank == 0 && !*rank_said && run->rank.size != 1 && !ompc_pattern_has(output->pattern, 'r')) {
        say("%s is set and --output names no %%r: each rank writes its own file (rank 0: %s)", run->rank.from,
            names[i]);
        *rank_said = 1;
    }
    placed[i] = write_stream(run, output, names[i], entry);
}

/* Every output of every chosen process, each through its writer from the table. */
static void write_outputs(const struct run *run, const struct process_report *entries, size_t reports)
{
    struct output outputs[8];
    size_t count = outputs_asked(run, outputs);
    char **names = calloc(reports + 1, sizeof *names);
    char **placed = calloc(reports + 1, sizeof *placed);
    if (names == NULL || placed == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    int rank_said = 0;
    for (size_t i = 0; i < reports; i++) {
        const struct process_report *entry = &entries[i];
        write_main_report(run, &outputs[0], entry, i, names, placed, &rank_said);
        for (size_t k = 1; k < count; k++) {
            if (outputs[k].writer->sink == OMPC_SINK_DIRECTORY) {
                write_directory(run, &outputs[k], entry);
                continue;
            }
            char *name = report_name(run, outputs[k].pattern, entry);
            free(write_stream(run, &outputs[k], name, entry));
            free(name);
        }
    }
    if (run->output != NULL && reports > 1) {
        fprintf(stderr, "%s: %zu processes ran OpenMP; reports:", program_name, reports);
        for (size_t i = 0; i < reports; i++)
            fprintf(stderr, " %s", placed[i] != NULL ? placed[i] : "(not written)");
        fputc('\n', stderr);
    }
    for (size_t i = 0; i < reports; i++) {
        free(names[i]);
        free(placed[i]);
    }
    free(names);
    free(placed);
}

/*
 * Reads every slot through the loader and writes a report for each process
 * that ran OpenMP: all to standard error, or each to its file (rank and pid
 * added to the name where the pattern does not tell processes apart).
 * Returns the number of reports, or -1 when the launched process was refused.
 */
static int write_reports(struct run *run)
{
    uint32_t count = run->header.process_count;
    struct ompc_model_process **all = calloc(count, sizeof *all);
    struct process_report *entries = calloc(count, sizeof *entries);
    if (all == NULL || entries == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    load_all(run, all, count);
    if (report_refusals(run, all, count))
        return -1;
    size_t reports = choose_reports(run, all, count, entries);
    say_damage(all, count, entries, reports);
    write_outputs(run, entries, reports);
    if (run->header.processes_dropped != 0)
        say("%u further processes found no free record slot (limit %d) and are not reported",
            run->header.processes_dropped, OMPC_MAX_PROCESSES);
    int any_slot = 0;
    for (size_t i = 0; i < reports; i++) {
        free(entries[i].runtime_file);
        free(entries[i].runtime_version);
        ompc_stacks_free(entries[i].stacks);
    }
    for (uint32_t i = 0; i < count; i++) {
        any_slot |= all[i] != NULL && all[i]->pid == run->main_pid;
        ompc_model_free(all[i]);
    }
    free(entries);
    free(all);
    if (reports == 0 && run->record_cut)
        say("no report: the record of '%s' was lost", run->command[0]);
    else if (reports == 0 && !any_slot)
        say("the agent never ran in '%s' (a static program started by a script, setuid, or LD_PRELOAD removed?): "
            "no report", run->command[0]);
    else if (reports == 0)
        say("'%s' never loaded an OpenMP runtime, so there was nothing to observe (not an OpenMP program?): no report",
            run->command[0]);
    return (int)reports;
}

/* A directory only we can use, holding libgomp.so.1 -> the LLVM runtime, for the library path. */
static char *make_private_dir(const char *substitute)
{
    const char *tmpdir = getenv("TMPDIR");
    char *directory;
    if (asprintf(&directory, "%s/ompcollect.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp") < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
    if (mkdtemp(directory) == NULL)
        die(EXIT_OWN_FAILURE, "cannot create a private directory in %s: %s",
            tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
    char *link_path;
    if (asprintf(&link_path, "%s/libgomp.so.1", directory) < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
    if (symlink(substitute, link_path) != 0) {
        int error = errno;
        rmdir(directory);
        die(EXIT_OWN_FAILURE, "cannot link %s to %s: %s", link_path, substitute, strerror(error));
    }
    free(link_path);
    return directory;
}

/* Removes the private directory. */
static void remove_private_dir(const char *directory)
{
    if (directory == NULL)
        return;
    char *link_path;
    if (asprintf(&link_path, "%s/libgomp.so.1", directory) >= 0) {
        unlink(link_path);
        free(link_path);
    }
    rmdir(directory);
}

/* Checks that a report can be written where a pattern points, before the program runs. */
static void check_output(const char *option, const struct run *run, const char *pattern)
{
    const char *problem = ompc_check_pattern(pattern);
    if (problem != NULL)
        die(EXIT_OWN_FAILURE, "%s %s: %s", option, pattern, problem);
    char *name = ompc_expand_pattern(pattern, (long)getpid(), run->rank.rank, run->host);
    if (name == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    char *slash = strrchr(name, '/');
    const char *directory = slash == NULL ? "." : slash == name ? "/" : name;
    if (slash != NULL && slash != name)
        *slash = '\0';
    struct stat info;
    if (stat(directory, &info) != 0)
        die(EXIT_OWN_FAILURE, "%s %s: %s: %s", option, pattern, directory, strerror(errno));
    if (!S_ISDIR(info.st_mode))
        die(EXIT_OWN_FAILURE, "%s %s: %s is not a directory", option, pattern, directory);
    if (access(directory, W_OK | X_OK) != 0)
        die(EXIT_OWN_FAILURE, "%s %s: cannot create files in %s: %s", option, pattern, directory,
            strerror(errno));
    free(name);
}

/*
 * Checks, before the program runs, that --csv-dir can be written: its
 * parent takes new entries, and the directory, when it exists already, is
 * a directory that takes files.  It is made after the run.
 */
static void check_csv_dir(struct run *run, const char *pattern)
{
    char *trimmed = strdup(pattern);
    if (trimmed == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    for (size_t length = strlen(trimmed); length > 1 && trimmed[length - 1] == '/'; length--)
        trimmed[length - 1] = '\0';
    run->csv_dir = trimmed;
    check_output("--csv-dir", run, trimmed);
    char *name = ompc_expand_pattern(trimmed, (long)getpid(), run->rank.rank, run->host);
    if (name == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    struct stat info;
    if (stat(name, &info) == 0) {
        if (!S_ISDIR(info.st_mode))
            die(EXIT_OWN_FAILURE, "--csv-dir %s: %s exists and is not a directory", pattern, name);
        if (access(name, W_OK | X_OK) != 0)
            die(EXIT_OWN_FAILURE, "--csv-dir %s: cannot create files in %s: %s", pattern, name,
                strerror(errno));
    }
    free(name);
}

/*
 * Checks, before the program runs, that an OTF2 archive can be written
 * where --trace points: the build has OTF2, the parent directory takes new
 * entries, and the directory itself is new or empty (an archive is a whole
 * directory, which cannot be replaced in one step as a file can).
 */
static void check_trace_directory(const struct run *run, const char *pattern)
{
#ifndef HAVE_OTF2
    (void)run;
    die(EXIT_OWN_FAILURE, "--trace %s: this ompcollect was built without OTF2 (configure found no "
                          "libotf2; on Debian install libopen-trace-format2-dev and rebuild); "
                          "--trace-json writes a trace without it",
        pattern);
#else
    check_output("--trace", run, pattern);
    char *name = ompc_expand_pattern(pattern, (long)getpid(), run->rank.rank, run->host);
    if (name == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    struct stat info;
    if (!ompc_pattern_has(pattern, 'p') && stat(name, &info) == 0) {
        if (!S_ISDIR(info.st_mode))
            die(EXIT_OWN_FAILURE, "--trace %s: %s exists and is not a directory", pattern, name);
        if (!ompc_directory_empty(name))
            die(EXIT_OWN_FAILURE, "--trace %s: the directory %s is not empty; remove it or name "
                                  "another (the archive is written as a new directory)",
                pattern, name);
    }
    free(name);
#endif
}

/* What the command line chose beyond the run itself. */
struct cli {
    uint32_t event_mask;
    int events_given, stacks_folded, format_given;
    const char *runtime;
    int replay; /* `ompcollect report`: only the options that choose outputs */
};

enum { OPT_TIMELINE = 256, OPT_NO_SAMPLE, OPT_RUNTIME, OPT_TIMELINE_WIDTH, OPT_FROM, OPT_TO, OPT_TRACE_JSON,
       OPT_TRACE, OPT_TRACE_BUFFER, OPT_NO_TASKS, OPT_CSV_DIR, OPT_LIST_REGIONS, OPT_STACKS, OPT_FOLDED,
       OPT_SAVE, OPT_SYMFS };

static const struct option long_options[] = {
    {"stacks", optional_argument, NULL, OPT_STACKS},
    {"stacks-file", required_argument, NULL, OPT_FOLDED},
    {"no-tasks", no_argument, NULL, OPT_NO_TASKS},
    {"csv-dir", required_argument, NULL, OPT_CSV_DIR},
    {"list-regions", no_argument, NULL, OPT_LIST_REGIONS},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"trace-buffer", required_argument, NULL, OPT_TRACE_BUFFER},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, 'f'},
    {"timeline", required_argument, NULL, OPT_TIMELINE},
    {"timeline-width", required_argument, NULL, OPT_TIMELINE_WIDTH},
    {"from", required_argument, NULL, OPT_FROM},
    {"to", required_argument, NULL, OPT_TO},
    {"trace-json", required_argument, NULL, OPT_TRACE_JSON},
    {"interval", required_argument, NULL, 'i'},
    {"events", required_argument, NULL, 'e'},
    {"no-sample", no_argument, NULL, OPT_NO_SAMPLE},
    {"runtime", required_argument, NULL, OPT_RUNTIME},
    {"save", required_argument, NULL, OPT_SAVE},
    {"symfs", required_argument, NULL, OPT_SYMFS},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* A non-empty value, or a refusal naming the option. */
static const char *nonempty(const char *value, const char *what)
{
    if (value[0] == '\0')
        die(EXIT_OWN_FAILURE, "%s", what);
    return value;
}

/* The options that choose what is written and where; 0 when `option` is not one of them. */
static int output_option(int option, struct run *run, struct cli *cli)
{
    switch (option) {
    case 'o':
        run->output = optarg;
        return 1;
    case 'f':
        cli->format_given = 1;
        if ((run->format = ompc_parse_format(optarg)) < 0)
            die(EXIT_OWN_FAILURE, "--format must be text, csv or json, not '%s'", optarg);
        return 1;
    case OPT_TIMELINE:
        run->timeline = optarg;
        return 1;
    case OPT_TIMELINE_WIDTH: {
        char *end;
        long width = strtol(optarg, &end, 10);
        if (end == optarg || *end != '\0' || width < 200 || width > 20000)
            die(EXIT_OWN_FAILURE, "--timeline-width '%s' is not a number of pixels from 200 to 20000", optarg);
        run->timeline_width = (int)width;
        return 1;
    }
    case OPT_FROM:
    case OPT_TO:
        if (parse_time(optarg, option == OPT_FROM ? &run->from_ns : &run->to_ns) != 0)
            die(EXIT_OWN_FAILURE, "%s '%s' is not a time since the start (e.g. 1.5s, 200ms, 50us)",
                option == OPT_FROM ? "--from" : "--to", optarg);
        return 1;
    case OPT_TRACE_JSON:
        run->trace_json = optarg;
        return 1;
    case OPT_CSV_DIR:
        run->csv_dir = nonempty(optarg, "--csv-dir needs a directory to write the CSV tables into");
        return 1;
    case OPT_LIST_REGIONS:
        run->list_regions = 1;
        return 1;
    case OPT_TRACE:
        run->trace = nonempty(optarg, "--trace needs a directory to write the OTF2 archive into");
        return 1;
    case OPT_FOLDED:
        run->stacks = 1;
        run->folded = nonempty(optarg, "--stacks-file needs a file to write the folded stacks into");
        return 1;
    case OPT_STACKS:
        run->stacks = 1;
        if (optarg != NULL && strcmp(optarg, "folded") == 0)
            cli->stacks_folded = 1;
        else if (optarg != NULL && strcmp(optarg, "tree") != 0)
            die(EXIT_OWN_FAILURE, "--stacks takes no value, 'tree' (the default: a call tree per state "
                                  "in the report) or 'folded' (the report is folded stacks), not '%s'",
                optarg);
        return 1;
    case OPT_SYMFS:
        if (!cli->replay)
            die(EXIT_OWN_FAILURE, "--symfs is for 'ompcollect report': a live run reads the modules where they are");
        run->symfs = nonempty(optarg, "--symfs needs a directory");
        return 1;
    }
    return 0;
}

/* The options that shape the recording itself; 0 when `option` is not one of them. */
static int record_option(int option, struct run *run, struct cli *cli)
{
    switch (option) {
    case 'i':
        if (strcmp(optarg, "tick") == 0) {
            if ((run->interval_ns = ompc_kernel_tick_ns()) == 0)
                die(EXIT_OWN_FAILURE, "--interval=tick: cannot read the kernel's tick "
                                      "(CLOCK_MONOTONIC_COARSE's resolution); give a time (e.g. 1ms)");
        } else if (ompc_parse_interval(optarg, &run->interval_ns) != 0)
            die(EXIT_OWN_FAILURE, "--interval '%s' is not a time between 10us and 10s (e.g. 1ms, 250us) or 'tick'",
                optarg);
        return 1;
    case 'e': {
        char bad[64];
        if (ompc_parse_events(optarg, &cli->event_mask, bad, sizeof bad) != 0)
            die(EXIT_OWN_FAILURE, "--events: unknown event '%s' (see --help)", bad);
        cli->events_given = 1;
        return 1;
    }
    case OPT_NO_SAMPLE:
        run->sampling = 0;
        return 1;
    case OPT_NO_TASKS:
        run->no_tasks = 1;
        return 1;
    case OPT_TRACE_BUFFER:
        if (parse_size(optarg, &run->trace_buffer) != 0 || run->trace_buffer < OMPC_EVENT_LOG_MIN
            || run->trace_buffer > OMPC_EVENT_LOG_MAX)
            die(EXIT_OWN_FAILURE, "--trace-buffer '%s' is not a size from 64 bytes to 1G per thread (e.g. 8M, 512K)",
                optarg);
        return 1;
    case OPT_RUNTIME:
        cli->runtime = optarg;
        return 1;
    case OPT_SAVE:
        run->save = nonempty(optarg, "--save needs a file to keep the run in");
        return 1;
    }
    return 0;
}

/* An option's long name (every option has one). */
static const char *option_name(int option)
{
    for (const struct option *entry = long_options; entry->name != NULL; entry++)
        if (entry->val == option)
            return entry->name;
    return "?";
}

/* Parses the command line up to the program (or the saved run); returns the index of its first word. */
static int parse_options(int argc, char **argv, struct run *run, struct cli *cli)
{
    opterr = 0;
    int option;
    while ((option = getopt_long(argc, argv, "+:o:f:i:e:hV", long_options, NULL)) != -1) {
        if (option == 'h') {
            usage(stdout);
            exit(0);
        }
        if (option == 'V') {
            printf("ompcollect (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
            exit(0);
        }
        if (option == ':')
            die(EXIT_OWN_FAILURE, "option '%s' needs a value (try '%s --help')", argv[optind - 1], program_name);
        if (output_option(option, run, cli))
            continue;
        if (cli->replay && option != '?')
            die(EXIT_OWN_FAILURE, "--%s shapes the recording; 'ompcollect report' writes outputs of what was "
                                  "recorded (run the program again to change it)", option_name(option));
        if (record_option(option, run, cli))
            continue;
        if (optopt != 0)
            die(EXIT_OWN_FAILURE, "unknown option '-%c' (try '%s --help')", optopt, program_name);
        die(EXIT_OWN_FAILURE, "unknown option '%s' (try '%s --help')", argv[optind - 1], program_name);
    }
    return optind;
}

/* The checks between options, and the output places, before anything runs. */
static void check_options(struct run *run, struct cli *cli)
{
    if (run->output != NULL)
        check_output("--output", run, run->output);
    if (run->timeline != NULL)
        check_output("--timeline", run, run->timeline);
    if (run->trace_json != NULL)
        check_output("--trace-json", run, run->trace_json);
    if (run->trace != NULL)
        check_trace_directory(run, run->trace);
    if (run->csv_dir != NULL)
        check_csv_dir(run, run->csv_dir);
    if (run->folded != NULL)
        check_output("--stacks-file", run, run->folded);
    if (run->save != NULL)
        check_output("--save", run, run->save);
    if (run->stacks && !run->sampling)
        die(EXIT_OWN_FAILURE, "--stacks and --stacks-file sample call stacks; they cannot go with --no-sample");
    if (run->stacks && !cli->replay && !ompc_stacks_supported())
        die(EXIT_OWN_FAILURE, "--stacks walks frame pointers, which this build does not know how to do "
                              "on this machine (x86-64 and AArch64 only)");
    if (cli->stacks_folded) {
        if (cli->format_given)
            die(EXIT_OWN_FAILURE, "--stacks=folded makes the report folded stacks; it cannot go with "
                                  "--format (use --stacks-file=FILE beside a report)");
        run->format = OMPC_FORMAT_FOLDED;
    }
    if (run->trace_buffer != 0 && run->trace == NULL && run->trace_json == NULL)
        die(EXIT_OWN_FAILURE, "--trace-buffer sizes the event log a trace is written from; give "
                              "--trace or --trace-json too");
    /* A trace shows every event the runtime delivers unless --events chose. */
    if ((run->trace != NULL || run->trace_json != NULL) && !cli->events_given)
        ompc_parse_events("all", &cli->event_mask, NULL, 0);
    if (run->to_ns != 0 && run->to_ns <= run->from_ns)
        die(EXIT_OWN_FAILURE, "--to must be later than --from");
    if ((run->timeline_width != 0 || run->from_ns != 0 || run->to_ns != 0) && run->timeline == NULL)
        die(EXIT_OWN_FAILURE, "--timeline-width, --from and --to shape the picture --timeline draws; "
                              "give --timeline too");
}

/* Refuses outputs a saved run holds nothing for: what it was not recorded with. */
static void check_recorded(const struct run *run, const char *file)
{
    uint32_t flags = run->header.flags;
    const char *missing = NULL;
    if ((run->timeline != NULL || run->trace != NULL || run->trace_json != NULL) && !(flags & OMPC_OPT_TIMELINE))
        missing = run->timeline != NULL ? "--timeline" : run->trace != NULL ? "--trace" : "--trace-json";
    else if ((run->trace != NULL || run->trace_json != NULL) && run->header.event_log_bytes == 0)
        missing = run->trace != NULL ? "--trace" : "--trace-json";
    else if (run->stacks && !(flags & OMPC_OPT_STACKS))
        missing = "--stacks";
    if (missing != NULL)
        die(EXIT_OWN_FAILURE, "%s: %s was not recorded in this run (record it with %s)", file,
            strcmp(missing, "--stacks") == 0 ? "no call stack" : "the data for this output", missing);
}

/* `ompcollect report [OPTION]... FILE`: every output again from a run kept with --save. */
static int report_main(int argc, char **argv)
{
    struct run run;
    memset(&run, 0, sizeof run);
    run.format = OMPC_FORMAT_TEXT;
    run.sampling = 1;
    struct cli cli = {.replay = 1};
    int first = parse_options(argc, argv, &run, &cli);
    if (first != argc - 1)
        die(EXIT_OWN_FAILURE, "'%s report' takes one saved run (a file written by --save)", program_name);
    run.session = ompc_session_new();
    char error[512];
    if (run.session == NULL || ompc_session_open(argv[first], &run, error, sizeof error) != 0)
        die(EXIT_OWN_FAILURE, "%s: %s", argv[first], run.session == NULL ? "out of memory" : error);
    /* What was recorded is reported: a saved run with call stacks gets its call trees. */
    if (run.header.flags & OMPC_OPT_STACKS)
        run.stacks = 1;
    check_options(&run, &cli);
    check_recorded(&run, argv[first]);
    clock_gettime(CLOCK_REALTIME, &run.start_real);
    int reports = write_reports(&run);
    close(run.record_fd);
    free(run.reaped);
    ompc_session_free(run.session);
    return reports < 0 ? EXIT_OWN_FAILURE : 0;
}

/* The shim's, the agent's and the runtime's places, and the environment the program gets. */
static void arrange_libraries(struct run *run, const struct cli *cli, const struct ompc_elf_info *elf,
                              char **preload, char **library_path)
{
    char *shim, *agent;
    locate_libraries(&shim, &agent);
    check_preloadable("the shim", shim);
    check_preloadable("the agent", agent);
    run->shim = shim;
    run->agent = agent;
    /* GCC's libgomp has no OMPT: every request for it, at any depth and at any time, gets LLVM's libomp. */
    const char *runtime = cli->runtime;
    if (runtime != NULL && strcmp(runtime, "none") == 0) {
        runtime = NULL;
    } else if (runtime != NULL && runtime[0] != '\0') {
        char *path = absolute_path(runtime);
        if (!readable_file(path))
            die(EXIT_OWN_FAILURE, "--runtime %s: no such readable file", runtime);
        check_preloadable("the runtime", path);
        run->runtime_option = path;
        run->substitute = path;
    } else if (OMPCOLLECT_DEFAULT_RUNTIME[0] != '\0' && readable_file(OMPCOLLECT_DEFAULT_RUNTIME)) {
        run->substitute = OMPCOLLECT_DEFAULT_RUNTIME;
        if (elf->needs_gomp && !elf->needs_llvm && run->output == NULL)
            say("'%s' is linked with GCC's libgomp, which has no OMPT; running it on %s", run->command[0],
                run->substitute);
    }
    if (run->substitute != NULL)
        run->private_dir = make_private_dir(run->substitute);
    /* The agent first, so its pthread_create is the one the runtime's threads come through. */
    const char *inherited = getenv("LD_PRELOAD");
    if (asprintf(preload, "%s:%s%s%s%s%s", agent, shim, run->runtime_option ? ":" : "",
                 run->runtime_option ? run->runtime_option : "", inherited && *inherited ? ":" : "",
                 inherited && *inherited ? inherited : "")
        < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
    *library_path = NULL;
    const char *old = getenv("LD_LIBRARY_PATH");
    if (run->private_dir != NULL
        && asprintf(library_path, "%s%s%s", run->private_dir, old && *old ? ":" : "", old && *old ? old : "") < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
}

/* The record, laid out for the options and written with its header; returns the value of OMPC_RECORD_ENV. */
static char *make_record(struct run *run, uint32_t event_mask)
{
    uint32_t flags = (run->sampling ? OMPC_OPT_SAMPLE : 0)
                   | (run->timeline || run->trace_json || run->trace ? OMPC_OPT_TIMELINE : 0);
    if (!run->no_tasks)
        flags |= OMPC_OPT_TASKS;
    if (run->stacks)
        flags |= OMPC_OPT_STACKS;
    uint64_t size = ompc_record_layout(&run->header, flags);
    if (flags & OMPC_OPT_TIMELINE)
        size = ompc_record_reserve_timeline_where(&run->header);
    if (run->stacks)
        size = ompc_record_reserve_stacks(&run->header);
    if (run->trace != NULL || run->trace_json != NULL)
        size = ompc_record_reserve_event_log(&run->header, run->trace_buffer ? run->trace_buffer
                                                                             : OMPC_EVENT_LOG_DEFAULT);
    run->header.run_id = random_id();
    run->header.event_mask = event_mask;
    run->header.interval_ns = run->interval_ns;
    run->header.launcher_pid = (int32_t)getpid();
    run->record_fd = create_record(size);
    if (pwrite(run->record_fd, &run->header, sizeof run->header, 0) != (ssize_t)sizeof run->header)
        die(EXIT_OWN_FAILURE, "cannot write the record: %s", strerror(errno));
    char *record_env;
    if (asprintf(&record_env, "%d,%ld,%" PRIx64, run->record_fd, (long)getpid(), run->header.run_id) < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
    return record_env;
}

/* Starts the program; returns the exec error the child reported (0: it runs), with its pid in run->main_pid. */
static int start_program(struct run *run, const char *record_env, const char *preload, const char *library_path)
{
    /* Descendants the program leaves behind are handed to us, so none is lost. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    clock_gettime(CLOCK_REALTIME, &run->start_real);
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

/* Waits for the launched program itself, collecting whatever else ends meanwhile. */
static void wait_for_program(struct run *run)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            die(EXIT_OWN_FAILURE, "waitpid: %s", strerror(errno));
        }
        remember_reaped(run, pid, status);
        if (pid == child_pid) {
            child_running = 0;
            run->main_status = status;
            return;
        }
    }
}

/* Keeps the run for `ompcollect report` (--save); a failure is said, and the reports stand. */
static void save_run(const struct run *run)
{
    if (run->save == NULL)
        return;
    char error[256];
    char *name = ompc_expand_pattern(run->save, (long)run->main_pid, run->rank.rank, run->host);
    if (name == NULL || ompc_session_save(run, name, error, sizeof error) != 0)
        say("cannot keep the run in %s: %s", name != NULL ? name : run->save, name != NULL ? error : "out of memory");
    free(name);
}

/*
 * Checks everything that can be checked before the program runs, runs it
 * under the record, waits for it and its recording descendants, and turns
 * the record and the wait status into reports and our exit status.
 */
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return ompc_merge_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "report") == 0)
        return report_main(argc - 1, argv + 1);
    struct run run;
    memset(&run, 0, sizeof run);
    run.format = OMPC_FORMAT_TEXT;
    run.interval_ns = default_interval_ns();
    run.sampling = 1;
    struct cli cli = {.runtime = getenv("OMPCOLLECT_RUNTIME")};
    int first = parse_options(argc, argv, &run, &cli);
    if (first >= argc)
        die(EXIT_OWN_FAILURE, "no program to run (try '%s --help')", program_name);
    run.command = &argv[first];
    run.omp_tool = getenv("OMP_TOOL");
    run.session = ompc_session_new();
    if (run.session == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");

    /* Nothing is armed before these checks pass. */
    char *file = program_file(run.command[0]);
    refuse_launchers(run.command[0], file);
    struct ompc_elf_info elf;
    memset(&elf, 0, sizeof elf);
    if (file != NULL) {
        ompc_elf_inspect(file, &elf);
        check_program(run.command[0], file, &elf);
    }
    ompc_detect_rank(&run.rank);
    if (gethostname(run.host, sizeof run.host - 1) != 0)
        snprintf(run.host, sizeof run.host, "unknown");
    check_options(&run, &cli);
    char *preload, *library_path;
    arrange_libraries(&run, &cli, &elf, &preload, &library_path);
    char *record_env = make_record(&run, cli.event_mask);

    int exec_error = start_program(&run, record_env, preload, library_path);
    wait_for_program(&run);
    if (exec_error != 0) {
        remove_private_dir(run.private_dir);
        die(exec_error == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE, "cannot run '%s': %s", run.command[0],
            strerror(exec_error));
    }
    wait_for_descendants(&run);
    remove_private_dir(run.private_dir);
    int exit_status = WEXITSTATUS(run.main_status);
    if (WIFSIGNALED(run.main_status)) {
        int number = WTERMSIG(run.main_status);
        say("'%s' was killed by signal %d (%s)", run.command[0], number, strsignal(number));
        exit_status = 128 + number;
    }
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    run.end_ns = monotonic_ns();
    run.realtime_offset_ns = ((int64_t)real.tv_sec * 1000000000 + real.tv_nsec) - (int64_t)run.end_ns;
    int reports = write_reports(&run);
    save_run(&run);
    return reports < 0 ? EXIT_OWN_FAILURE : exit_status;
}
