/* preflight.c - before the program runs: it can be observed (found, no MPI launcher, dynamically linked, not set-user-ID), the shim, the agent and the runtime are found and preloadable, the libgomp substitute is linked; and which runtime ran and why, for the reports. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "launcher.h"
#include "preflight.h"
#include "session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* The program as execvp finds it, refused before anything is armed when it cannot be observed. */
void check_program_file(const char *command, struct ompc_elf_info *elf)
{
    char *file = program_file(command);
    refuse_launchers(command, file);
    memset(elf, 0, sizeof *elf);
    if (file != NULL) {
        ompc_elf_inspect(file, elf);
        check_program(command, file, elf);
    }
    free(file);
}

/* Links `name` in `directory` to `target`; on failure removes the directory and ends ompcollect. */
static void private_link(const char *directory, const char *name, const char *target)
{
    char *link_path;
    if (asprintf(&link_path, "%s/%s", directory, name) < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
    if (symlink(target, link_path) != 0) {
        int error = errno;
        remove_private_dir(directory);
        die(EXIT_OWN_FAILURE, "cannot link %s to %s: %s", link_path, target, strerror(error));
    }
    free(link_path);
}

/*
 * A directory only we can use, for the library path: libgomp.so.1 -> our
 * libgomp (tools/gomp), which needs RUNTIME_LINK -> the LLVM runtime; or,
 * without ours, libgomp.so.1 -> the runtime itself.
 */
static char *make_private_dir(const char *gomp, const char *substitute)
{
    const char *tmpdir = getenv("TMPDIR");
    char *directory;
    if (asprintf(&directory, "%s/ompcollect.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp") < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
    if (mkdtemp(directory) == NULL)
        die(EXIT_OWN_FAILURE, "cannot create a private directory in %s: %s",
            tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
    private_link(directory, "libgomp.so.1", gomp != NULL ? gomp : substitute);
    if (gomp != NULL)
        private_link(directory, RUNTIME_LINK, substitute);
    return directory;
}

/* Removes the private directory. */
void remove_private_dir(const char *directory)
{
    if (directory == NULL)
        return;
    static const char *const names[] = {"libgomp.so.1", RUNTIME_LINK};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *link_path;
        if (asprintf(&link_path, "%s/%s", directory, names[i]) >= 0) {
            unlink(link_path);
            free(link_path);
        }
    }
    rmdir(directory);
}

void private_stand_ins(struct run *run)
{
    char *gomp_link = NULL, *runtime_link = NULL;
    if (run->private_dir == NULL || run->substitute == NULL
        || asprintf(&gomp_link, "%s/libgomp.so.1", run->private_dir) < 0
        || asprintf(&runtime_link, "%s/%s", run->private_dir, RUNTIME_LINK) < 0) {
        free(gomp_link);
        return;
    }
    run->stand_ins[0] = gomp_link;
    run->stand_ins[1] = run->gomp != NULL ? run->gomp : run->substitute;
    run->stand_ins[2] = runtime_link;
    run->stand_ins[3] = run->substitute;
    run->stand_ins[4] = NULL;
}

/* ompcollect's libgomp.so.1 beside the agent: installed in the same directory, or in the build tree's tools/gomp; NULL when absent. */
static char *locate_gomp(const char *agent)
{
    const char *slash = strrchr(agent, '/');
    int length = slash != NULL ? (int)(slash - agent) : 0;
    static const char *const places[] = {"%.*s/libgomp.so.1", "%.*s/../gomp/.libs/libgomp.so.1"};
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        char *candidate;
        if (asprintf(&candidate, places[i], length, agent) < 0)
            die(EXIT_OWN_FAILURE, "out of memory");
        char *real = readable_file(candidate) ? realpath(candidate, NULL) : NULL;
        free(candidate);
        if (real != NULL)
            return real;
    }
    return NULL;
}

/* The shim's, the agent's and the runtime's places, and the environment the program gets. */
void arrange_libraries(struct run *run, const char *runtime, char **preload, char **library_path)
{
    char *shim, *agent;
    locate_libraries(&shim, &agent);
    check_preloadable("the shim", shim);
    check_preloadable("the agent", agent);
    run->shim = shim;
    run->agent = agent;
    /* GCC's libgomp has no OMPT: every request for it, at any depth and at any time, gets LLVM's libomp. */
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
    }
    if (run->substitute != NULL) {
        run->gomp = locate_gomp(agent);
        run->private_dir = make_private_dir(run->gomp, run->substitute);
    }
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

/*
 * What the program's loader prints in trace mode (LD_TRACE_LOADED_OBJECTS,
 * as ldd runs it): it maps and binds every library the program needs, with
 * the environment the program will get, and runs nothing of the program.
 * At most `size` - 1 bytes, or NULL when it could not be run.
 */
static char *traced_loader(const char *loader, const char *file, const char *preload, const char *library_path,
                           size_t size)
{
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
        return NULL;
    pid_t child = fork();
    if (child == 0) {
        dup2(pipe_fds[1], STDOUT_FILENO);
        dup2(pipe_fds[1], STDERR_FILENO);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        if (setenv("LD_TRACE_LOADED_OBJECTS", "1", 1) == 0 && setenv("LD_BIND_NOW", "1", 1) == 0
            && setenv("LD_WARN", "1", 1) == 0 && setenv("LD_PRELOAD", preload, 1) == 0
            && (library_path == NULL || setenv("LD_LIBRARY_PATH", library_path, 1) == 0))
            execl(loader, loader, file, (char *)NULL);
        _exit(127);
    }
    close(pipe_fds[1]);
    char *text = child > 0 ? malloc(size) : NULL;
    size_t used = 0;
    char drain[4096];
    for (ssize_t got = 1; child > 0 && got > 0;) {
        /* Beyond `size`, read on so the loader never blocks on a full pipe. */
        int room = text != NULL && used + 1 < size;
        got = read(pipe_fds[0], room ? text + used : drain, room ? size - 1 - used : sizeof drain);
        if (got < 0 && errno == EINTR)
            got = 1;
        else if (got > 0 && room)
            used += (size_t)got;
    }
    close(pipe_fds[0]);
    int status;
    while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (text != NULL)
        text[used] = '\0';
    return text;
}

/* The OpenMP names in the trace the loader could not bind ("omp_x@OMP_5.1 (needed by FILE)", one a line), or NULL. */
static char *unmet_names(char *trace, const char *private_dir, size_t *count)
{
    char *result = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&result, &size);
    *count = 0;
    for (char *line = strtok(trace, "\n"); out != NULL && line != NULL; line = strtok(NULL, "\n")) {
        char name[256], version[64], file[1024];
        const char *at = strstr(line, "undefined symbol: ");
        if (at != NULL && sscanf(at, "undefined symbol: %255[^,], version %63[^\t]\t(%1023[^)])", name, version, file) == 3
            && (strncmp(version, "OMP_", 4) == 0 || strncmp(version, "GOMP_", 5) == 0
                || strncmp(version, "OACC_", 5) == 0 || strncmp(version, "GOACC_", 6) == 0)) {
            fprintf(out, "%s%s@%s (needed by %s)", *count ? ", " : "", name, version, file);
            ++*count;
            continue;
        }
        /* A version needed with no name bound to it: only the loader's version check says so. */
        at = strstr(line, ": version `");
        if (at != NULL && strstr(line, private_dir) != NULL
            && sscanf(at, ": version `%63[^']' not found (required by %1023[^)])", version, file) == 2) {
            char key[80];
            snprintf(key, sizeof key, ", version %s\t", version);
            if (strstr(trace + (line - trace) + strlen(line) + 1, key) == NULL) {
                fprintf(out, "%sversion %s (needed by %s)", *count ? ", " : "", version, file);
                ++*count;
            }
        }
    }
    if (out == NULL || fclose(out) != 0 || *count == 0) {
        free(result);
        return NULL;
    }
    return result;
}

/* Whether the loader's trace of `file` (as ldd lists it) maps a library of soname `name`. */
static int loads_library(const struct ompc_elf_info *elf, const char *file, const char *name)
{
    const char *base = strrchr(elf->loader, '/');
    if (file == NULL || base == NULL || strncmp(base + 1, "ld-linux", 8) != 0)
        return 0;
    char *trace = traced_loader(elf->loader, file, "", NULL, 1 << 16);
    char *key = NULL;
    int found = trace != NULL && asprintf(&key, "\t%s => ", name) >= 0 && strstr(trace, key) != NULL;
    free(key);
    free(trace);
    return found;
}

void arrange_mpi(struct run *run, const struct ompc_elf_info *elf, char **preload)
{
    const char *slash = strrchr(run->agent, '/');
    const char *soname = OMPC_MPI_SONAME;
    char *library = NULL;
    if (slash == NULL
        || asprintf(&library, "%.*s/%s", (int)(slash - run->agent), run->agent, MPI_LIBRARY_NAME) < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
    /* Without the library (no MPI at configure time) there is nothing to match. */
    if (soname[0] == '\0' || !readable_file(library)) {
        free(library);
        return;
    }
    char *file = elf->mpi[0] == '\0' ? program_file(run->command[0]) : NULL;
    /* Only a library outside the runtimes can bring libmpi in (elfcheck.c); the loader says which does. */
    int linked = strcmp(elf->mpi, soname) == 0
              || (elf->mpi[0] == '\0' && (elf->needs_other || !elf->needs_read) && loads_library(elf, file, soname));
    free(file);
    if (!linked) {
        if (elf->mpi[0] != '\0')
            say("'%s' links %s, not the %s ompcollect's MPI library was built for: its time in MPI calls is "
                "not measured and counts in the OpenMP states", run->command[0], elf->mpi, soname);
        free(library);
        return;
    }
    check_preloadable("the MPI library", library);
    /* After the agent, whose calls it makes; anywhere before libmpi, whose MPI_ names it takes over. */
    size_t agent_length = strlen(run->agent);
    char *joined;
    if (asprintf(&joined, "%s:%s%s", run->agent, library, *preload + agent_length) < 0)
        die(EXIT_OWN_FAILURE, "out of memory");
    free(*preload);
    *preload = joined;
    run->mpi_library = library;
}

void check_loadable(const struct run *run, const struct ompc_elf_info *elf, const char *preload,
                    const char *library_path)
{
    const char *base = strrchr(elf->loader, '/');
    /* Only glibc's loader is known to trace instead of running the program. */
    int traced = run->private_dir != NULL && elf->elf && base != NULL && strncmp(base + 1, "ld-linux", 8) == 0;
    char *file = traced ? program_file(run->command[0]) : NULL;
    char *trace = file != NULL ? traced_loader(elf->loader, file, preload, library_path, 1 << 16) : NULL;
    size_t count = 0;
    char *unmet = trace != NULL ? unmet_names(trace, run->private_dir, &count) : NULL;
    free(trace);
    free(file);
    if (unmet == NULL) {
        if (run->runtime_option == NULL && run->substitute != NULL && elf->needs_gomp && !elf->needs_llvm
            && run->output == NULL)
            say("'%s' is linked with GCC's libgomp, which has no OMPT; running it on %s", run->command[0],
                run->substitute);
        return;
    }
    remove_private_dir(run->private_dir);
    die(EXIT_OWN_FAILURE,
        "cannot run '%s' on %s in place of GCC's libgomp: it needs %s, which neither that runtime nor "
        "ompcollect's libgomp.so.1 provides, so the loader would refuse it; give --runtime an LLVM libomp "
        "that has %s, or run it with --runtime=none on GCC's libgomp, where ompcollect sees nothing OpenMP",
        run->command[0], run->substitute, unmet, count == 1 ? "it" : "them");
}

/* The LLVM version in a runtime's real path (".../llvm-14/lib/libomp.so.5"), or the kind of runtime. */
char *runtime_version(const char *file)
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
int in_private_dir(const struct run *run, const char *path)
{
    size_t length = run->private_dir != NULL ? strlen(run->private_dir) : 0;
    return length > 0 && strncmp(path, run->private_dir, length) == 0 && path[length] == '/';
}

/* Why this runtime ran, as the launcher arranged it. */
const char *runtime_reason(const struct run *run, const char *path, const char *file)
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
