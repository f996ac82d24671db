/* ompcollect.c - the launcher's main: runs a program with the shim and the ompcollect agent preloaded (cli.c, preflight.c, supervise.c), then writes every report of it (reports.c, dispatch.c); `ompcollect report`, `ompcollect merge`, `ompcollect diff` and `ompcollect scaling` start here too. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "cli.h"
#include "compare_cmd.h"
#include "scaling_cmd.h"
#include "launcher.h"
#include "output.h"
#include "preflight.h"
#include "reports.h"
#include "run.h"
#include "session.h"
#include "supervise.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


/* Prints a message prefixed with our name and exits with `status`. */
void die(int status, const char *fmt, ...)
{
    va_list args;
    fprintf(stderr, "%s: ", PROGRAM_NAME);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
    exit(status);
}

/* Prints a message prefixed with our name. */
void say(const char *fmt, ...)
{
    va_list args;
    fprintf(stderr, "%s: ", PROGRAM_NAME);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
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
        die(EXIT_OWN_FAILURE, "'%s report' takes one saved run (a file written by --save)", PROGRAM_NAME);
    answer_interrupts();
    run.session = ompc_session_new();
    char error[512];
    if (run.session == NULL || ompc_session_open(argv[first], &run, error, sizeof error) != 0)
        die(EXIT_OWN_FAILURE, "%s: %s", argv[first], run.session == NULL ? "out of memory" : error);
    /* What was recorded is reported: a saved run with call stacks gets its call trees. */
    if (run.header.flags & OMPC_OPT_STACKS)
        run.stacks = 1;
    check_options(&run, &cli);
    check_recorded(&run, argv[first]);
    clock_gettime(CLOCK_REALTIME_COARSE, &run.start_real);
    int reports = write_reports(&run);
    close(run.record_fd);
    free(run.reaped);
    ompc_session_free(run.session);
    if (interrupted())
        return 128 + interrupted();
    return reports < 0 ? EXIT_OWN_FAILURE : 0;
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
    if (argc > 1 && strcmp(argv[1], "diff") == 0)
        return ompc_diff_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "scaling") == 0)
        return ompc_scaling_main(argc - 1, argv + 1);
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
        die(EXIT_OWN_FAILURE, "no program to run (try '%s --help')", PROGRAM_NAME);
    run.command = &argv[first];
    run.omp_tool = getenv("OMP_TOOL");
    run.session = ompc_session_new();
    if (run.session == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");

    /* Nothing is armed before these checks pass. */
    struct ompc_elf_info elf;
    check_program_file(run.command[0], &elf);
    ompc_detect_rank(&run.rank);
    if (gethostname(run.host, sizeof run.host - 1) != 0)
        snprintf(run.host, sizeof run.host, "unknown");
    check_options(&run, &cli);
    char *preload, *library_path;
    arrange_libraries(&run, cli.runtime, &preload, &library_path);
    arrange_mpi(&run, &elf, &preload);
    check_loadable(&run, &elf, preload, library_path);
    char *record_env = make_record(&run, cli.event_mask);

    int exit_status = supervise(&run, record_env, preload, library_path);
    int reports = write_reports(&run);
    save_run(&run);
    if (interrupted())
        return 128 + interrupted();
    return reports < 0 ? EXIT_OWN_FAILURE : exit_status;
}
