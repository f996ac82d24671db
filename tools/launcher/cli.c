/* cli.c - ompcollect's command line: --help, parsing the options into struct run and struct cli, and checking them and the output places before anything runs. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "cli.h"
#include "launcher.h"
#include "names.h"
#include "output.h"
#include "record.h"
#include "stacks.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The default sampling interval: the tick when it lies in 1-10 ms, else
 * 1 ms, plus 97 us.  A whole number of ticks puts every expiry on the tick
 * (tools/agent/agent.c), which costs no interrupt of its own but samples
 * exactly where the scheduler switches threads: under CPU contention that
 * aliases with the threads' time slices and misplaced a thread's WORK by up
 * to half (doc/sampling-bias.md).  97 us off, the expiries drift across
 * the tick and meet every phase of it within about 40 samples.
 */
long long default_interval_ns(void)
{
    long long tick = ompc_kernel_tick_ns();
    return (tick >= 1000000 && tick <= 10000000 ? tick : 1000000) + 97000;
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
            "       %s merge [-f text|csv|json] [-o FILE] REPORT.json...\n"
            "       %s merge --trace=DIR OTF2-ARCHIVE...\n"
            "       %s diff [-f text|csv|json] [-o FILE] A.json B.json\n"
            "       %s scaling [OPTION]... PROGRAM [ARGUMENT]...\n"
            "Run PROGRAM with the OpenMP Collector API shim and report, when it ends, where\n"
            "every OpenMP thread of it (and of every child process running OpenMP) spent its\n"
            "time in the API's 11 thread states.  'report' writes any output again from a\n"
            "run kept with --save.  'merge' sums JSON reports of several processes or MPI\n"
            "ranks into one summary, or with --trace their OTF2 archives into one.  'diff'\n"
            "compares two JSON reports of one program, before and after a change.\n"
            "'scaling' runs PROGRAM at several thread counts and says per construct where\n"
            "the scaling is lost (see 'ompcollect scaling --help').\n"
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
            "      --task-graph=FILE    also write the tasks as a graph: Graphviz DOT, or JSON\n"
            "                           when FILE ends in .json (logs the task events as\n"
            "                           --trace does; same patterns as --output)\n"
            "      --trace-buffer=SIZE  event log per thread for --trace, --trace-json and\n"
            "                           --task-graph, e.g. 8M (default; 512M with\n"
            "                           --task-graph), 512K; what does not fit is counted\n"
            "      --stacks[=folded]    also sample each thread's call stack: the report gets\n"
            "                           a call tree per state (where IBAR, LKWT... time goes\n"
            "                           by the user's call path, runtime frames spliced\n"
            "                           out); =folded makes the report folded stacks for\n"
            "                           flamegraph.pl\n"
            "      --stacks-unwind=fp|dwarf[,SIZE]  how stacks are unwound (implies --stacks):\n"
            "                           fp (default) follows frame pointers in the program,\n"
            "                           cheap but cut short where code has none; dwarf also\n"
            "                           copies SIZE bytes of stack per sample (default 16K,\n"
            "                           512 to 64K) that ompcollect unwinds by CFI after\n"
            "                           the run, as perf record does with dwarf call graphs\n"
            "      --stacks-file=FILE   also write the folded stacks to FILE (implies\n"
            "                           --stacks; same patterns as --output)\n"
            "  -i, --interval=TIME      sampling interval, e.g. 1ms, 250us, or tick: the\n"
            "                           kernel's scheduler tick (%s); whole ticks cost\n"
            "                           far less than any other interval but can alias\n"
            "                           with the scheduler under contention; the default\n"
            "                           is the tick (when 1-10 ms, else 1ms) plus 97us\n"
            "  -e, --events=LIST        further events to register besides fork and join:\n"
            "                           comma list of fork, join, begin_X, end_X, or just X\n"
            "                           for both halves, X one of idle ibar ebar lkwt ctwt\n"
            "                           odwt master single ordered atwt; or all, none\n"
            "      --no-sample          do not sample; report events only\n"
            "      --no-tasks           do not register the task events (no task table)\n"
            "      --tasks=TIER         sampled (default): tasks counted per construct as\n"
            "                           they are created, their time taken from samples;\n"
            "                           full: every run of every task timed (what\n"
            "                           --trace, --task-graph and --no-sample imply)\n"
            "      --csv-dir=DIR        also write the CSV report as one file per table,\n"
            "                           DIR/TABLE.csv (same patterns as --output)\n"
            "      --gprofng=DIR.er     also write a GNU gprofng experiment, for 'gprofng\n"
            "                           display text': OpenMP states, parallel regions and\n"
            "                           call stacks per sample (implies --stacks; records\n"
            "                           the timeline and event log; same patterns as --output)\n"
            "      --list-regions       text report: list every parallel region instance\n"
            "      --save=FILE          also keep the run's record in FILE, for 'report'\n"
            "      --symfs=DIR          'report': read the program's modules under DIR\n"
            "                           (and their debug files under DIR/usr/lib/debug)\n"
            "      --debuginfo-path=PATH  look for the modules' separate debug files along\n"
            "                           PATH (':' between directories, as elfutils' tools):\n"
            "                           relative ones beside the module, absolute ones also\n"
            "                           by build id; default :.debug:/usr/lib/debug\n"
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
            PROGRAM_NAME, PROGRAM_NAME, PROGRAM_NAME, PROGRAM_NAME, PROGRAM_NAME, PROGRAM_NAME, tick,
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
    double scale = ompc_time_unit_ns(end);
    if (scale == 0)
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

/*
 * Checks that a report can be written where a pattern points, before the
 * program runs; an output that is one file (`file`) must not name a
 * directory, which it would neither replace nor go into.
 */
static void check_output(const char *option, const struct run *run, const char *pattern, int file)
{
    char message[96];
    const char *problem = ompc_check_pattern(pattern, message, sizeof message);
    if (problem != NULL)
        die(EXIT_OWN_FAILURE, "%s %s: %s", option, pattern, problem);
    char *name = ompc_expand_pattern(pattern, (long)getpid(), run->rank.rank, run->host);
    if (name == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    struct stat info;
    if (file && stat(name, &info) == 0 && S_ISDIR(info.st_mode))
        die(EXIT_OWN_FAILURE, "%s %s: that is a directory; name a file (for instance %s/%s)", option, pattern,
            name, option[2] == 'o' ? "report.txt" : "out");
    char *slash = strrchr(name, '/');
    const char *directory = slash == NULL ? "." : slash == name ? "/" : name;
    if (slash != NULL && slash != name)
        *slash = '\0';
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
    check_output("--csv-dir", run, trimmed, 0);
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
 * Checks --gprofng's directory as --csv-dir's, and that its name ends in
 * .er: gprofng opens no experiment named otherwise.
 */
static void check_gprofng(struct run *run, const char *pattern)
{
    char *trimmed = strdup(pattern);
    if (trimmed == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    size_t length = strlen(trimmed);
    for (; length > 1 && trimmed[length - 1] == '/'; length--)
        trimmed[length - 1] = '\0';
    if (length < 4 || strcmp(trimmed + length - 3, ".er") != 0)
        die(EXIT_OWN_FAILURE, "--gprofng %s: gprofng reads experiments whose name ends in .er", pattern);
    check_output("--gprofng", run, trimmed, 0);
    run->gprofng = trimmed;
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
    check_output("--trace", run, pattern, 0);
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

enum { OPT_TIMELINE = 256, OPT_NO_SAMPLE, OPT_RUNTIME, OPT_TIMELINE_WIDTH, OPT_FROM, OPT_TO, OPT_TRACE_JSON,
       OPT_TRACE, OPT_TRACE_BUFFER, OPT_NO_TASKS, OPT_CSV_DIR, OPT_LIST_REGIONS, OPT_STACKS, OPT_FOLDED,
       OPT_SAVE, OPT_SYMFS, OPT_STACKS_UNWIND, OPT_TASK_GRAPH, OPT_DEBUGINFO_PATH, OPT_GPROFNG, OPT_TASKS };

static const struct option long_options[] = {
    {"stacks", optional_argument, NULL, OPT_STACKS},
    {"stacks-file", required_argument, NULL, OPT_FOLDED},
    {"stacks-unwind", required_argument, NULL, OPT_STACKS_UNWIND},
    {"no-tasks", no_argument, NULL, OPT_NO_TASKS},
    {"tasks", required_argument, NULL, OPT_TASKS},
    {"csv-dir", required_argument, NULL, OPT_CSV_DIR},
    {"gprofng", required_argument, NULL, OPT_GPROFNG},
    {"list-regions", no_argument, NULL, OPT_LIST_REGIONS},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"trace-buffer", required_argument, NULL, OPT_TRACE_BUFFER},
    {"task-graph", required_argument, NULL, OPT_TASK_GRAPH},
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
    {"debuginfo-path", required_argument, NULL, OPT_DEBUGINFO_PATH},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* --stacks-unwind=fp|dwarf[,SIZE] into run->stack_copy, or a refusal. */
static void parse_unwind(const char *text, struct run *run)
{
    uint64_t size = OMPC_STACK_COPY_DEFAULT;
    if (strcmp(text, "fp") == 0) {
        run->stack_copy = 0;
        return;
    }
    if (strncmp(text, "dwarf", 5) != 0 || (text[5] != '\0' && text[5] != ',')
        || (text[5] == ',' && (parse_size(text + 6, &size) != 0 || size < OMPC_STACK_COPY_MIN
                               || size > OMPC_STACK_COPY_MAX)))
        die(EXIT_OWN_FAILURE, "--stacks-unwind takes 'fp' or 'dwarf' with an optional stack copy size from 512 "
                              "to 64K (e.g. dwarf,16K), not '%s'", text);
    run->stack_copy = size;
}

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
    case OPT_TASK_GRAPH:
        run->task_graph = nonempty(optarg, "--task-graph needs a file to write the task graph to");
        return 1;
    case OPT_CSV_DIR:
        run->csv_dir = nonempty(optarg, "--csv-dir needs a directory to write the CSV tables into");
        return 1;
    case OPT_GPROFNG:
        run->gprofng = nonempty(optarg, "--gprofng needs an experiment directory (NAME.er) to write");
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
    case OPT_STACKS_UNWIND:
        run->stacks = 1;
        parse_unwind(optarg, run);
        return 1;
    case OPT_SYMFS:
        if (!cli->replay)
            die(EXIT_OWN_FAILURE, "--symfs is for 'ompcollect report': a live run reads the modules where they are");
        run->symfs = nonempty(optarg, "--symfs needs a directory");
        return 1;
    case OPT_DEBUGINFO_PATH:
        run->debuginfo_path = nonempty(optarg, "--debuginfo-path needs directories (':' between them)");
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
    case OPT_TASKS:
        if (strcmp(optarg, "full") != 0 && strcmp(optarg, "sampled") != 0)
            die(EXIT_OWN_FAILURE, "--tasks: '%s' is neither sampled nor full", optarg);
        run->tasks_full = strcmp(optarg, "full") == 0;
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
/*
 * Test-only: OMPCOLLECT_TEST_INTERVAL_SCALE=K makes every interval, given
 * or default, K times longer, so a run gets the samples per unit of work
 * that a K times faster CPU would: a check whose workload is a fixed amount
 * of work, not a time or a sample count, then shows up as a failure (README,
 * "Machines the suite runs on").
 */
static void scale_interval_for_tests(struct run *run)
{
    const char *text = getenv("OMPCOLLECT_TEST_INTERVAL_SCALE");
    if (text == NULL || *text == '\0')
        return;
    char *end;
    double scale = strtod(text, &end);
    if (*end != '\0' || !(scale >= 1 && scale <= 100))
        die(EXIT_OWN_FAILURE, "OMPCOLLECT_TEST_INTERVAL_SCALE '%s' is not a factor from 1 to 100", text);
    double scaled = (double)run->interval_ns * scale;
    run->interval_ns = scaled < 1e10 ? (long long)scaled : 10000000000LL;
}

int parse_options(int argc, char **argv, struct run *run, struct cli *cli)
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
            die(EXIT_OWN_FAILURE, "option '%s' needs a value (try '%s --help')", argv[optind - 1], PROGRAM_NAME);
        if (output_option(option, run, cli))
            continue;
        if (cli->replay && option != '?')
            die(EXIT_OWN_FAILURE, "--%s shapes the recording; 'ompcollect report' writes outputs of what was "
                                  "recorded (run the program again to change it)", option_name(option));
        if (record_option(option, run, cli))
            continue;
        if (optopt != 0)
            die(EXIT_OWN_FAILURE, "unknown option '-%c' (try '%s --help')", optopt, PROGRAM_NAME);
        die(EXIT_OWN_FAILURE, "unknown option '%s' (try '%s --help')", argv[optind - 1], PROGRAM_NAME);
    }
    if (!cli->replay)
        scale_interval_for_tests(run);
    return optind;
}

/*
 * The one name of the file an output pattern gives: the real path of the
 * file when it exists, else of its directory with its own name added;
 * NULL for a device or a pipe, which two outputs may share (/dev/null).
 * check_output has seen the directory exists.
 */
static char *output_identity(const struct run *run, const char *pattern)
{
    char *name = ompc_expand_pattern(pattern, (long)getpid(), run->rank.rank, run->host);
    if (name == NULL)
        die(EXIT_OWN_FAILURE, "out of memory");
    struct stat info;
    char *identity = NULL;
    if (stat(name, &info) == 0) {
        if (S_ISREG(info.st_mode) || S_ISDIR(info.st_mode))
            identity = realpath(name, NULL);
    } else {
        char *slash = strrchr(name, '/');
        const char *base = slash != NULL ? slash + 1 : name;
        if (slash != NULL)
            *slash = '\0';
        char *directory = realpath(slash == NULL ? "." : slash == name ? "/" : name, NULL);
        if (directory != NULL && asprintf(&identity, "%s/%s", directory, base) < 0)
            identity = NULL;
        free(directory);
    }
    free(name);
    return identity;
}

/*
 * Refuses two outputs that name one file: the second written would
 * replace the first, and the launcher would take it for another rank's.
 */
static void check_distinct_outputs(const struct run *run)
{
    const struct {
        const char *option, *pattern;
    } outputs[] = {
        {"--output", run->output}, {"--timeline", run->timeline}, {"--trace-json", run->trace_json},
        {"--trace", run->trace}, {"--csv-dir", run->csv_dir}, {"--stacks-file", run->folded},
        {"--task-graph", run->task_graph}, {"--gprofng", run->gprofng},
        {"--save", run->save},
    };
    enum { COUNT = sizeof outputs / sizeof outputs[0] };
    char *identity[COUNT];
    for (int i = 0; i < COUNT; i++)
        identity[i] = outputs[i].pattern != NULL ? output_identity(run, outputs[i].pattern) : NULL;
    for (int i = 0; i < COUNT; i++)
        for (int j = i + 1; j < COUNT; j++)
            if (identity[i] != NULL && identity[j] != NULL && strcmp(identity[i], identity[j]) == 0)
                die(EXIT_OWN_FAILURE, "%s %s and %s %s name the same file (%s): give each output its own",
                    outputs[i].option, outputs[i].pattern, outputs[j].option, outputs[j].pattern, identity[i]);
    for (int i = 0; i < COUNT; i++)
        free(identity[i]);
}

/* The checks between options, and the output places, before anything runs. */
void check_options(struct run *run, struct cli *cli)
{
    if (run->output != NULL)
        check_output("--output", run, run->output, 1);
    if (run->timeline != NULL)
        check_output("--timeline", run, run->timeline, 1);
    if (run->trace_json != NULL)
        check_output("--trace-json", run, run->trace_json, 1);
    if (run->trace != NULL)
        check_trace_directory(run, run->trace);
    if (run->task_graph != NULL)
        check_output("--task-graph", run, run->task_graph, 1);
    if (run->csv_dir != NULL)
        check_csv_dir(run, run->csv_dir);
    if (run->gprofng != NULL)
        check_gprofng(run, run->gprofng);
    if (run->folded != NULL)
        check_output("--stacks-file", run, run->folded, 1);
    if (run->save != NULL)
        check_output("--save", run, run->save, 1);
    check_distinct_outputs(run);
    if (run->gprofng != NULL && !run->sampling)
        die(EXIT_OWN_FAILURE, "--gprofng writes the samples; it cannot go with --no-sample");
    /* An experiment's samples carry their call stacks. */
    if (run->gprofng != NULL)
        run->stacks = 1;
    if (run->stacks && !run->sampling)
        die(EXIT_OWN_FAILURE, "--stacks and --stacks-file sample call stacks; they cannot go with --no-sample");
    if (run->stack_copy != 0 && !cli->replay && !ompc_stacks_dwarf_supported())
        die(EXIT_OWN_FAILURE, "--stacks-unwind=dwarf copies x86-64 registers; this machine is not one");
    if (run->stacks && !cli->replay && !ompc_stacks_supported())
        die(EXIT_OWN_FAILURE, "--stacks walks frame pointers, which this build does not know how to do "
                              "on this machine (x86-64 and AArch64 only)");
    if (cli->stacks_folded) {
        if (cli->format_given)
            die(EXIT_OWN_FAILURE, "--stacks=folded makes the report folded stacks; it cannot go with "
                                  "--format (use --stacks-file=FILE beside a report)");
        run->format = OMPC_FORMAT_FOLDED;
    }
    if (run->trace_buffer != 0 && run->trace == NULL && run->trace_json == NULL && run->task_graph == NULL)
        die(EXIT_OWN_FAILURE, "--trace-buffer sizes the event log a trace is written from; give "
                              "--trace, --trace-json or --task-graph too");
    if (run->task_graph != NULL && run->no_tasks)
        die(EXIT_OWN_FAILURE, "--task-graph draws the tasks the task events name; it cannot go with --no-tasks");
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
void check_recorded(const struct run *run, const char *file)
{
    uint32_t flags = run->header.flags;
    const char *missing = NULL;
    if ((run->timeline != NULL || run->trace != NULL || run->trace_json != NULL) && !(flags & OMPC_OPT_TIMELINE))
        missing = run->timeline != NULL ? "--timeline" : run->trace != NULL ? "--trace" : "--trace-json";
    else if (run->gprofng != NULL && (!(flags & OMPC_OPT_TIMELINE) || !(flags & OMPC_OPT_STACKS)))
        missing = "--gprofng";
    else if ((run->trace != NULL || run->trace_json != NULL || run->task_graph != NULL)
             && run->header.event_log_bytes == 0)
        missing = run->trace != NULL ? "--trace" : run->trace_json != NULL ? "--trace-json" : "--task-graph";
    else if (run->task_graph != NULL && !(flags & OMPC_OPT_TASKS))
        missing = "--task-graph";
    else if (run->stacks && !(flags & OMPC_OPT_STACKS))
        missing = "--stacks";
    if (missing != NULL)
        die(EXIT_OWN_FAILURE, "%s: %s was not recorded in this run (record it with %s)", file,
            strcmp(missing, "--stacks") == 0 ? "no call stack" : "the data for this output", missing);
}
