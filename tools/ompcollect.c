/* ompcollect.c - the launcher: runs a program with the shim and the ompcollect agent preloaded and passes its exit status through. */
#define _GNU_SOURCE 1
#include <config.h>

#include "names.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef OMPCOLLECT_LIBDIR
#define OMPCOLLECT_LIBDIR "/usr/local/lib"
#endif
/* The LLVM libomp configure found: where a GCC-built program is run unless told otherwise. */
#ifndef OMPCOLLECT_DEFAULT_RUNTIME
#define OMPCOLLECT_DEFAULT_RUNTIME ""
#endif
#ifndef OMPCOLLECT_PKGLIBDIR
#define OMPCOLLECT_PKGLIBDIR OMPCOLLECT_LIBDIR "/ompcollector"
#endif

/* ompcollect's own failures; like env(1): 125 itself, 126 cannot execute, 127 not found. */
enum { EXIT_OWN_FAILURE = 125, EXIT_CANNOT_EXECUTE = 126, EXIT_NOT_FOUND = 127 };

#define AGENT_NAME "libompcollect-agent.so"

static const char *program_name = "ompcollect";

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

/* The --help text; the exit statuses are part of the interface, so they are spelled out. */
static void usage(FILE *out)
{
    fprintf(out,
            "Usage: %s [OPTION]... [--] PROGRAM [ARGUMENT]...\n"
            "Run PROGRAM with the OpenMP Collector API shim and report, at exit, where every\n"
            "OpenMP thread spent its time in the API's 11 thread states.\n"
            "\n"
            "  -o, --output=FILE        write the report to FILE (default: standard error)\n"
            "  -f, --format=FORMAT      text (default), csv or json\n"
            "      --timeline=FILE.svg  also draw each thread's state over time as SVG\n"
            "  -i, --interval=TIME      sampling interval, e.g. 1ms (default), 250us, 2ms\n"
            "  -e, --events=LIST        further events to register besides fork and join:\n"
            "                           comma list of fork, join, begin_X, end_X, or just X\n"
            "                           for both halves, X one of idle ibar ebar lkwt ctwt\n"
            "                           odwt master single ordered atwt; or all, none\n"
            "      --no-sample          do not sample; report events only\n"
            "      --runtime=PATH       run PROGRAM on this LLVM libomp.so.5 (preloaded);\n"
            "                           'none' preloads no runtime.  Default: none, but a\n"
            "                           program linked with GCC's libgomp (no OMPT) runs on\n"
            "                           %s\n"
            "  -h, --help               show this help and exit\n"
            "  -V, --version            show the version and exit\n"
            "\n"
            "Environment: OMPCOLLECT_SHIM and OMPCOLLECT_COLLECTOR override where the shim\n"
            "(libompcollector.so) and the agent (" AGENT_NAME ") are found;\n"
            "OMPCOLLECT_RUNTIME is a default for --runtime.\n"
            "\n"
            "Exit status: PROGRAM's own, or 128+N when signal N killed it; 125 when\n"
            "ompcollect fails or cannot attach to PROGRAM, 126 when PROGRAM cannot be\n"
            "executed, 127 when it is not found.\n",
            program_name, OMPCOLLECT_DEFAULT_RUNTIME[0] ? OMPCOLLECT_DEFAULT_RUNTIME : "(no libomp was found at configure time)");
}

/* An absolute version of `path` (relative to the current directory), which the program may leave. */
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
    /* libtool may put the real binary in .libs next to a wrapper script. */
    size_t length = strlen(exe);
    if (length >= 6 && strcmp(exe + length - 6, "/.libs") == 0)
        exe[length - 6] = '\0';
    return exe;
}

/*
 * Where the shim and the agent are: the environment overrides, then the
 * build tree when this executable sits in one (tools/ompcollect next to
 * tools/.libs and lib/.libs), then the installed locations.
 */
static void locate_libraries(char **shim, char **agent)
{
    char *directory = own_directory();
    char *build_shim = NULL, *build_agent = NULL;
    if (directory != NULL) {
        if (asprintf(&build_agent, "%s/.libs/%s", directory, AGENT_NAME) < 0
            || asprintf(&build_shim, "%s/../lib/.libs/libompcollector.so", directory) < 0)
            die(EXIT_OWN_FAILURE, "out of memory");
    }
    int in_build_tree = build_agent != NULL && readable_file(build_agent) && readable_file(build_shim);

    const char *setting = getenv("OMPCOLLECT_SHIM");
    if (setting != NULL && setting[0] != '\0')
        *shim = absolute_path(setting);
    else if (in_build_tree)
        *shim = realpath(build_shim, NULL);
    else if (readable_file(OMPCOLLECT_LIBDIR "/libompcollector.so.0"))
        *shim = strdup(OMPCOLLECT_LIBDIR "/libompcollector.so.0");
    else
        *shim = strdup(OMPCOLLECT_LIBDIR "/libompcollector.so");

    setting = getenv("OMPCOLLECT_COLLECTOR");
    if (setting != NULL && setting[0] != '\0')
        *agent = absolute_path(setting);
    else if (in_build_tree)
        *agent = realpath(build_agent, NULL);
    else
        *agent = strdup(OMPCOLLECT_PKGLIBDIR "/" AGENT_NAME);
    free(directory);
    free(build_shim);
    free(build_agent);

    if (*shim == NULL || !readable_file(*shim))
        die(EXIT_OWN_FAILURE, "cannot find the shim %s (set OMPCOLLECT_SHIM to libompcollector.so)",
            *shim ? *shim : "libompcollector.so");
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

/*
 * Whether the ELF file at `path` names libgomp and no LLVM libomp among its
 * DT_NEEDED libraries: such a program would run on a runtime without OMPT.
 * Anything unreadable or unexpected answers no; the agent still reports a
 * runtime that does not take the shim.
 */
static int links_only_libgomp(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat info;
    void *image = MAP_FAILED;
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && (size_t)info.st_size >= sizeof(Elf64_Ehdr))
        image = mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (image == MAP_FAILED)
        return 0;
    const unsigned char *bytes = image;
    size_t size = (size_t)info.st_size;
    const Elf64_Ehdr *header = image;
    int gomp = 0, llvm = 0;
    if (memcmp(bytes, ELFMAG, SELFMAG) == 0 && bytes[EI_CLASS] == ELFCLASS64
        && header->e_shentsize == sizeof(Elf64_Shdr) && header->e_shoff < size
        && header->e_shnum <= (size - header->e_shoff) / sizeof(Elf64_Shdr)) {
        const Elf64_Shdr *sections = (const Elf64_Shdr *)(bytes + header->e_shoff);
        for (unsigned i = 0; i < header->e_shnum; i++) {
            const Elf64_Shdr *dynamic = &sections[i];
            if (dynamic->sh_type != SHT_DYNAMIC || dynamic->sh_link >= header->e_shnum)
                continue;
            const Elf64_Shdr *strings = &sections[dynamic->sh_link];
            if (dynamic->sh_offset > size || dynamic->sh_size > size - dynamic->sh_offset
                || strings->sh_offset > size || strings->sh_size > size - strings->sh_offset)
                continue;
            const Elf64_Dyn *entries = (const Elf64_Dyn *)(bytes + dynamic->sh_offset);
            size_t count = dynamic->sh_size / sizeof(Elf64_Dyn);
            for (size_t k = 0; k < count && entries[k].d_tag != DT_NULL; k++) {
                if (entries[k].d_tag != DT_NEEDED || entries[k].d_un.d_val >= strings->sh_size)
                    continue;
                const char *name = (const char *)bytes + strings->sh_offset + entries[k].d_un.d_val;
                size_t room = strings->sh_size - entries[k].d_un.d_val;
                if (strnlen(name, room) == room)
                    continue;
                gomp |= strncmp(name, "libgomp.so", 10) == 0;
                llvm |= strncmp(name, "libomp.so", 9) == 0 || strncmp(name, "libiomp5.so", 11) == 0;
            }
        }
    }
    munmap(image, size);
    return gomp && !llvm;
}

/* LD_PRELOAD splits on spaces and colons, so a path holding one cannot be preloaded. */
static void check_preloadable(const char *what, const char *path)
{
    if (strpbrk(path, " :\t\n") != NULL)
        die(EXIT_OWN_FAILURE, "cannot preload %s '%s': the path contains a space or colon", what, path);
}

/* Creates (truncates) a report file now, so a bad path fails before the program runs. */
static char *prepare_output(const char *option, const char *path)
{
    char *absolute = absolute_path(path);
    int fd = open(absolute, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        die(EXIT_OWN_FAILURE, "%s %s: %s", option, path, strerror(errno));
    close(fd);
    return absolute;
}

/* Reads the whole status file the agent appended to. */
static char *read_status(const char *path)
{
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return strdup("");
    char *text = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&text, &size);
    if (memory == NULL) {
        fclose(file);
        return strdup("");
    }
    char chunk[512];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, file)) > 0)
        fwrite(chunk, 1, got, memory);
    fclose(file);
    fclose(memory);
    return text;
}

/* A copy of the rest of the first status line starting with `key`, or NULL. */
static char *status_value(const char *status, const char *key)
{
    size_t key_length = strlen(key);
    for (const char *line = status; line != NULL && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        if (length >= key_length && strncmp(line, key, key_length) == 0
            && (length == key_length || line[key_length] == ' ')) {
            size_t skip = length == key_length ? key_length : key_length + 1;
            return strndup(line + skip, length - skip);
        }
        line = end != NULL ? end + 1 : NULL;
    }
    return NULL;
}

static pid_t child_pid;

/* Termination requests to the launcher are meant for the program. */
static void forward_signal(int signal_number)
{
    if (child_pid > 0)
        kill(child_pid, signal_number);
}

/* Sets up the child's environment and becomes the program; reports exec failure through `report_fd`. */
static void run_child(char **command, const char *preload, int report_fd)
{
    char pid_text[32];
    snprintf(pid_text, sizeof pid_text, "%ld", (long)getpid());
    if (setenv("OMPCOLLECT_PID", pid_text, 1) != 0 || setenv("LD_PRELOAD", preload, 1) != 0) {
        int error = errno;
        ssize_t ignored = write(report_fd, &error, sizeof error);
        (void)ignored;
        _exit(EXIT_OWN_FAILURE);
    }
    execvp(command[0], command);
    int error = errno;
    ssize_t ignored = write(report_fd, &error, sizeof error);
    (void)ignored;
    _exit(error == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE);
}

/*
 * Checks everything that can be checked before the program runs, runs it,
 * and turns the agent's status lines and the wait status into our own.
 */
int main(int argc, char **argv)
{
    enum { OPT_TIMELINE = 256, OPT_NO_SAMPLE, OPT_RUNTIME };
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, 'f'},
        {"timeline", required_argument, NULL, OPT_TIMELINE},
        {"interval", required_argument, NULL, 'i'},
        {"events", required_argument, NULL, 'e'},
        {"no-sample", no_argument, NULL, OPT_NO_SAMPLE},
        {"runtime", required_argument, NULL, OPT_RUNTIME},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char *output = NULL, *timeline = NULL, *format = "text", *events = NULL;
    const char *runtime = getenv("OMPCOLLECT_RUNTIME");
    long long interval_ns = 1000000;
    int sampling = 1;

    int option;
    while ((option = getopt_long(argc, argv, "+o:f:i:e:hV", options, NULL)) != -1) {
        switch (option) {
        case 'o':
            output = optarg;
            break;
        case 'f':
            if (ompc_parse_format(optarg) < 0)
                die(EXIT_OWN_FAILURE, "--format must be text, csv or json, not '%s'", optarg);
            format = optarg;
            break;
        case OPT_TIMELINE:
            timeline = optarg;
            break;
        case 'i':
            if (ompc_parse_interval(optarg, &interval_ns) != 0)
                die(EXIT_OWN_FAILURE,
                    "--interval '%s' is not a time between 10us and 10s (e.g. 1ms, 250us)", optarg);
            break;
        case 'e': {
            uint32_t mask;
            char bad[64];
            if (ompc_parse_events(optarg, &mask, bad, sizeof bad) != 0)
                die(EXIT_OWN_FAILURE, "--events: unknown event '%s' (see --help)", bad);
            events = optarg;
            break;
        }
        case OPT_NO_SAMPLE:
            sampling = 0;
            break;
        case OPT_RUNTIME:
            runtime = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("ompcollect (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
            return 0;
        default:
            fprintf(stderr, "Try '%s --help'.\n", program_name);
            return EXIT_OWN_FAILURE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "%s: no program to run\nTry '%s --help'.\n", program_name, program_name);
        return EXIT_OWN_FAILURE;
    }
    char **command = &argv[optind];

    char *shim, *agent;
    locate_libraries(&shim, &agent);
    check_preloadable("the shim", shim);
    check_preloadable("the agent", agent);
    /* GCC-built programs would run on libgomp, which has no OMPT: give them the LLVM runtime. */
    const char *chosen_for = NULL;
    if ((runtime == NULL || runtime[0] == '\0') && OMPCOLLECT_DEFAULT_RUNTIME[0] != '\0') {
        char *file = program_file(command[0]);
        if (file != NULL && links_only_libgomp(file)) {
            runtime = OMPCOLLECT_DEFAULT_RUNTIME;
            chosen_for = command[0];
        }
        free(file);
    }
    if (runtime != NULL && strcmp(runtime, "none") == 0)
        runtime = NULL;
    char *runtime_path = NULL;
    if (runtime != NULL && runtime[0] != '\0') {
        runtime_path = absolute_path(runtime);
        if (!readable_file(runtime_path))
            die(EXIT_OWN_FAILURE, "--runtime %s: no such readable file", runtime);
        check_preloadable("the runtime", runtime_path);
    }
    if (chosen_for != NULL && output == NULL)
        fprintf(stderr, "%s: '%s' is linked with GCC's libgomp, which has no OMPT; running it on %s\n",
                program_name, chosen_for, runtime_path);

    /* The agent first, so its pthread_create is the one the runtime's threads come through. */
    char *preload;
    const char *inherited = getenv("LD_PRELOAD");
    if (asprintf(&preload, "%s:%s%s%s%s%s", agent, shim, runtime_path ? ":" : "",
                 runtime_path ? runtime_path : "", inherited && *inherited ? ":" : "",
                 inherited && *inherited ? inherited : "")
        < 0)
        die(EXIT_OWN_FAILURE, "out of memory");

    char interval_text[32];
    snprintf(interval_text, sizeof interval_text, "%lld", interval_ns);
    const char *tmpdir = getenv("TMPDIR");
    char *status_path;
    if (asprintf(&status_path, "%s/ompcollect-status.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp") < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
    int status_fd = mkstemp(status_path);
    if (status_fd < 0)
        die(EXIT_OWN_FAILURE, "cannot create a status file in %s: %s",
            tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
    close(status_fd);

    char *output_path = output ? prepare_output("--output", output) : NULL;
    char *timeline_path = timeline ? prepare_output("--timeline", timeline) : NULL;
    if (setenv("OMPCOLLECT_STATUS", status_path, 1) != 0
        || setenv("OMPCOLLECT_FORMAT", format, 1) != 0
        || setenv("OMPCOLLECT_INTERVAL_NS", interval_text, 1) != 0
        || setenv("OMPCOLLECT_SAMPLE", sampling ? "1" : "0", 1) != 0
        || setenv("OMPCOLLECT_EVENTS", events ? events : "", 1) != 0
        || setenv("OMPCOLLECT_OUTPUT", output_path ? output_path : "", 1) != 0
        || setenv("OMPCOLLECT_TIMELINE", timeline_path ? timeline_path : "", 1) != 0)
        die(EXIT_OWN_FAILURE, "cannot set up the environment: %s", strerror(errno));

    int exec_report[2];
    if (pipe2(exec_report, O_CLOEXEC) != 0)
        die(EXIT_OWN_FAILURE, "pipe: %s", strerror(errno));
    fflush(NULL);
    child_pid = fork();
    if (child_pid < 0)
        die(EXIT_OWN_FAILURE, "fork: %s", strerror(errno));
    if (child_pid == 0) {
        close(exec_report[0]);
        run_child(command, preload, exec_report[1]);
    }
    close(exec_report[1]);

    /* Like a shell waiting for a foreground job: the terminal's ^C and ^\ are for the program. */
    struct sigaction ignore, forward;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, NULL);
    sigaction(SIGQUIT, &ignore, NULL);
    memset(&forward, 0, sizeof forward);
    forward.sa_handler = forward_signal;
    sigaction(SIGTERM, &forward, NULL);
    sigaction(SIGHUP, &forward, NULL);

    int exec_error = 0;
    ssize_t got;
    do
        got = read(exec_report[0], &exec_error, sizeof exec_error);
    while (got < 0 && errno == EINTR);
    close(exec_report[0]);

    int wait_status;
    while (waitpid(child_pid, &wait_status, 0) < 0) {
        if (errno != EINTR)
            die(EXIT_OWN_FAILURE, "waitpid: %s", strerror(errno));
    }
    char *status = read_status(status_path);
    unlink(status_path);

    if (got == (ssize_t)sizeof exec_error) {
        if (exec_error == ENOENT)
            die(EXIT_NOT_FOUND, "cannot run '%s': %s", command[0], strerror(exec_error));
        die(EXIT_CANNOT_EXECUTE, "cannot run '%s': %s", command[0], strerror(exec_error));
    }

    char *reason = status_value(status, "cannot-attach");
    if (reason != NULL) {
        const char *tool = getenv("OMP_TOOL");
        fprintf(stderr, "%s: cannot attach to '%s': %s\n", program_name, command[0], reason);
        if (tool != NULL && strcmp(tool, "disabled") == 0)
            fprintf(stderr, "%s: OMP_TOOL=disabled is set: unset it so the runtime loads the shim\n",
                    program_name);
        else if (runtime_path == NULL && strncmp(reason, "START", 5) == 0)
            fprintf(stderr, "%s: a program built with GCC needs --runtime=/path/to/libomp.so.5%s%s\n",
                    program_name, OMPCOLLECT_DEFAULT_RUNTIME[0] ? ", e.g. --runtime=" : "",
                    OMPCOLLECT_DEFAULT_RUNTIME);
        return EXIT_OWN_FAILURE;
    }
    const char *report_error = status_value(status, "report-error");
    int attached = status_value(status, "attached") != NULL;
    int reported = status_value(status, "reported") != NULL;

    int exit_status;
    if (WIFSIGNALED(wait_status)) {
        int number = WTERMSIG(wait_status);
        fprintf(stderr, "%s: '%s' was killed by signal %d (%s)%s\n", program_name, command[0],
                number, strsignal(number), reported ? "" : "; no report");
        exit_status = 128 + number;
    } else {
        exit_status = WEXITSTATUS(wait_status);
        if (!attached)
            die(EXIT_OWN_FAILURE,
                "the agent never ran in '%s' (statically linked, setuid, or not exec'ed directly?)",
                command[0]);
        if (report_error != NULL)
            die(EXIT_OWN_FAILURE, "%s", report_error);
        if (!reported)
            fprintf(stderr, "%s: '%s' ended without running its exit handlers (_exit?); no report\n",
                    program_name, command[0]);
    }
    return exit_status;
}
