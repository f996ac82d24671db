/* scaling_cmd.c - the `ompcollect scaling` command: its options and help, the runs (scaling_runs.c) or the reports given, the analysis (compare/scaling.c) and its outputs through compare's writer table. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "compare_cmd.h"
#include "compare_writers.h"
#include "launcher.h"
#include "merge_input.h"
#include "scaling.h"
#include "scaling_cmd.h"
#include "scaling_runs.h"
#include "writer.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most options given on to the runs. */
#define MAX_RUN_OPTIONS 16

/* What the command line chose beyond the plan. */
struct scaling_options {
    struct scaling_plan plan;
    const char *format;  /* writer name: text, json, csv */
    const char *output;  /* -o, or NULL: stdout */
    const char *svg;     /* --svg */
    int reports;         /* --reports: analyse the reports given */
    int cores;           /* --cores, or 0: this machine's */
    char *mpi;           /* --mpi's copy, cut into the plan's launcher words */
    int done;            /* --help answered */
};

static const char scaling_help[] =
    "Usage: ompcollect scaling [--threads=N,N,...] [--repeat=N] [--env=NAME] [--allow-differences]\n"
    "                          [--mpi='LAUNCHER ARGS'] [--dir=DIR] [-f text|json|csv] [-o FILE] [--svg=FILE]\n"
    "                          [RUN-OPTION]... PROGRAM [ARGS]\n"
    "       ompcollect scaling --reports [--cores=N] [-f text|json|csv] [-o FILE] [--svg=FILE] REPORT.json...\n"
    "Run PROGRAM under ompcollect at each thread count (OMP_NUM_THREADS; default 1, 2, 4, ...\n"
    "up to the cores this process may use), keep each run's JSON report in DIR\n"
    "(default ompcollect-scaling: threads-N.json, or threads-N.rR.json with --repeat, and\n"
    "the program's output and errors beside it), and say per thread count and per\n"
    "parallel construct (matched by code location) how it scales: wall time, speedup,\n"
    "global and parallel efficiency, load balance, synchronisation, scheduling,\n"
    "serialisation and computation scalability, which factor loses most from each\n"
    "count to the next, and Amdahl's serial fraction from the speedups and from the\n"
    "serial time.  DIR also gets scaling.txt, scaling.json, scaling.csv and the\n"
    "picture scaling.svg.  A program whose output or exit status differs between\n"
    "runs is refused unless --allow-differences.  More threads than cores are\n"
    "allowed, and said.\n"
    "  --env=NAME   also set NAME to the count, for programs that size their teams by it\n"
    "  --repeat=N   run each count N times; the run of median wall time stands for it\n"
    "  --mpi='mpirun -np 2'  run each count as an MPI job: ompcollect under LAUNCHER (its words split at\n"
    "               blanks), each rank's report threads-N.RANK.json, the ranks merged per count as\n"
    "               `ompcollect merge` merges them (MPI load balance and communication beside the OpenMP\n"
    "               factors; threads x ranks above the cores: oversubscribed)\n"
    "  --reports    analyse JSON reports instead, each at the count its name says (threads-N.json,\n"
    "               as scaling names them), else at its OpenMP thread count; an MPI rank's report\n"
    "               (threads-N.RANK.json) is merged with the other ranks' at its count\n"
    "  --cores=N    with --reports: the cores the runs had (default: this machine's)\n"
    "RUN-OPTIONs given to every run: -i/--interval, -e/--events, --runtime, --no-tasks,\n"
    "--symfs, --debuginfo-path.\n";

/* Reads --threads' list into the plan: ascending distinct counts from 1 to 4096; 0, or -1 after a message. */
static int take_counts(const char *text, struct scaling_plan *plan)
{
    int n = 0;
    const char *at = text;
    while (*at != '\0') {
        char *end;
        long value = strtol(at, &end, 10);
        if (end == at || value < 1 || value > 4096 || (*end != ',' && *end != '\0') || n == OMPC_SCALING_MAX_COUNTS) {
            ompc_reports_complain("scaling", "--threads takes up to %d counts from 1 to 4096 separated by commas, "
                                  "not '%s'", OMPC_SCALING_MAX_COUNTS, text);
            return -1;
        }
        int place = n;
        while (place > 0 && plan->counts[place - 1] > value)
            place--;
        if (place == 0 || plan->counts[place - 1] != value) {
            memmove(&plan->counts[place + 1], &plan->counts[place], (size_t)(n - place) * sizeof plan->counts[0]);
            plan->counts[place] = (int)value;
            n++;
        }
        at = *end == ',' ? end + 1 : end;
    }
    plan->count_count = n;
    return n > 0 ? 0 : -1;
}

/* A run option given on to every run as "--name=value" (or "--name"). */
static int pass_on(struct scaling_options *chosen, const char *name, const char *value)
{
    char *word;
    if (chosen->plan.run_option_count == MAX_RUN_OPTIONS) {
        ompc_reports_complain("scaling", "more than %d options for the runs", MAX_RUN_OPTIONS);
        return -1;
    }
    if ((value != NULL ? asprintf(&word, "--%s=%s", name, value) : asprintf(&word, "--%s", name)) < 0)
        return -1;
    chosen->plan.run_options[chosen->plan.run_option_count++] = word;
    return 0;
}

/* A positive count option (--repeat, --cores) up to `high`; 0, or -1 after a message. */
static int take_number(const char *name, const char *text, int high, int *value)
{
    char *end;
    long number = strtol(text, &end, 10);
    if (end == text || *end != '\0' || number < 1 || number > high) {
        ompc_reports_complain("scaling", "--%s takes a number from 1 to %d, not '%s'", name, high, text);
        return -1;
    }
    *value = (int)number;
    return 0;
}

/* --mpi's launcher, its words split at blanks (no quoting: a launcher's options seldom need it); 0, or -1. */
static int take_launcher(const char *text, struct scaling_options *chosen)
{
    free(chosen->mpi);
    free(chosen->plan.launcher);
    chosen->mpi = strdup(text);
    chosen->plan.launcher = calloc(strlen(text) / 2 + 2, sizeof *chosen->plan.launcher);
    if (chosen->mpi == NULL || chosen->plan.launcher == NULL)
        return -1;
    int n = 0;
    char *rest = NULL;
    for (char *word = strtok_r(chosen->mpi, " \t", &rest); word != NULL; word = strtok_r(NULL, " \t", &rest))
        chosen->plan.launcher[n++] = word;
    if (n > 0)
        return 0;
    ompc_reports_complain("scaling", "--mpi takes the MPI launcher and its options ('mpirun -np 2'), not '%s'", text);
    return -1;
}

enum { OPT_THREADS = 256, OPT_REPEAT, OPT_ENV, OPT_ALLOW, OPT_DIR, OPT_SVG, OPT_REPORTS, OPT_CORES, OPT_RUNTIME,
       OPT_NO_TASKS, OPT_SYMFS, OPT_DEBUGINFO, OPT_MPI };

static const struct option scaling_options_table[] = {
    {"threads", required_argument, NULL, OPT_THREADS},     {"repeat", required_argument, NULL, OPT_REPEAT},
    {"env", required_argument, NULL, OPT_ENV},             {"allow-differences", no_argument, NULL, OPT_ALLOW},
    {"dir", required_argument, NULL, OPT_DIR},             {"svg", required_argument, NULL, OPT_SVG},
    {"reports", no_argument, NULL, OPT_REPORTS},           {"cores", required_argument, NULL, OPT_CORES},
    {"format", required_argument, NULL, 'f'},              {"output", required_argument, NULL, 'o'},
    {"interval", required_argument, NULL, 'i'},            {"events", required_argument, NULL, 'e'},
    {"runtime", required_argument, NULL, OPT_RUNTIME},     {"no-tasks", no_argument, NULL, OPT_NO_TASKS},
    {"symfs", required_argument, NULL, OPT_SYMFS},         {"debuginfo-path", required_argument, NULL, OPT_DEBUGINFO},
    {"mpi", required_argument, NULL, OPT_MPI},             {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* One option; 0, or -1 after a message. */
static int take_option(int option, char **argv, struct scaling_options *chosen)
{
    struct scaling_plan *plan = &chosen->plan;
    switch (option) {
    case OPT_THREADS: return take_counts(optarg, plan);
    case OPT_REPEAT: return take_number("repeat", optarg, OMPC_SCALING_MAX_REPEAT, &plan->repeat);
    case OPT_CORES: return take_number("cores", optarg, 1 << 20, &chosen->cores);
    case OPT_ENV: plan->env = optarg; return optarg[0] != '\0' && strchr(optarg, '=') == NULL ? 0
        : (ompc_reports_complain("scaling", "--env takes the name of a variable, not '%s'", optarg), -1);
    case OPT_ALLOW: plan->allow_differences = 1; return 0;
    case OPT_DIR: plan->dir = optarg; return 0;
    case OPT_SVG: chosen->svg = optarg; return 0;
    case OPT_REPORTS: chosen->reports = 1; return 0;
    case OPT_MPI: return take_launcher(optarg, chosen);
    case 'o': chosen->output = optarg; return 0;
    case 'f':
        chosen->format = optarg;
        if (strcmp(optarg, "text") == 0 || strcmp(optarg, "json") == 0 || strcmp(optarg, "csv") == 0)
            return 0;
        ompc_reports_complain("scaling", "--format must be text, json or csv, not '%s'", optarg);
        return -1;
    case 'i': return pass_on(chosen, "interval", optarg);
    case 'e': return pass_on(chosen, "events", optarg);
    case OPT_RUNTIME: return pass_on(chosen, "runtime", optarg);
    case OPT_NO_TASKS: return pass_on(chosen, "no-tasks", NULL);
    case OPT_SYMFS: return pass_on(chosen, "symfs", optarg);
    case OPT_DEBUGINFO: return pass_on(chosen, "debuginfo-path", optarg);
    case 'h': fputs(scaling_help, stdout); chosen->done = 1; return 0;
    case ':': ompc_reports_complain("scaling", "option '%s' needs a value", argv[optind - 1]); return -1;
    default:
        ompc_reports_complain("scaling", "unknown option '%s' (scaling passes on only -i, -e, --runtime, --no-tasks, "
                              "--symfs and --debuginfo-path to its runs; see --help)", argv[optind - 1]);
        return -1;
    }
}

/* Reads the options; 0, or -1 after a message. */
static int parse_options(int argc, char **argv, struct scaling_options *chosen)
{
    int option;
    opterr = 0;
    optind = 1;
    while (!chosen->done && (option = getopt_long(argc, argv, "+:f:o:i:e:h", scaling_options_table, NULL)) != -1)
        if (take_option(option, argv, chosen) != 0)
            return -1;
    return 0;
}

/* Writes the analysis with writer `name` to `output` (NULL: stdout); 0, or 1 after a message. */
static int write_one(const struct ompc_scaling *scaling, const char *name, const char *output)
{
    struct ompc_view view = {.kind = OMPC_VIEW_SCALING, .scaling = scaling};
    return ompc_compare_write_view("scaling", name, &view, output);
}

/* Every output asked for: the chosen format, --svg, and (after runs) the four files in the directory. */
static int write_outputs(const struct ompc_scaling *scaling, const struct scaling_options *chosen, int ran)
{
    int status = write_one(scaling, chosen->format, chosen->output);
    if (chosen->svg != NULL)
        status |= write_one(scaling, "svg", chosen->svg);
    static const char *const kinds[][2] = {{"text", "txt"}, {"json", "json"}, {"csv", "csv"}, {"svg", "svg"}};
    for (size_t i = 0; ran && i < sizeof kinds / sizeof kinds[0]; i++) {
        char *path;
        if (asprintf(&path, "%s/scaling.%s", chosen->plan.dir, kinds[i][1]) < 0)
            return 1;
        status |= write_one(scaling, kinds[i][0], path);
        free(path);
    }
    if (ran && status == 0)
        say("scaling: the analysis is in %s/scaling.txt, .json, .csv and .svg", chosen->plan.dir);
    return status;
}

/* Builds the analysis of the runs over loaded reports and writes it; the exit status. */
static int analyse_runs(const struct ompc_scaling_run *runs, size_t count, const struct scaling_options *chosen,
                        int ran)
{
    struct ompc_scaling scaling;
    char error[512], note[512];
    int status = 0;
    if (ompc_scaling_build(runs, count, chosen->cores > 0 ? chosen->cores : ompc_scaling_cores(), &scaling, error,
                           sizeof error) != 0) {
        ompc_reports_complain("scaling", "%s", error);
        status = 1;
    } else {
        scaling.counters = ran ? ompc_scaling_counters_note(note, sizeof note)
                               : "not measured: the reports hold no instruction or cycle counts";
        status = write_outputs(&scaling, chosen, ran);
    }
    ompc_scaling_free(&scaling);
    return status;
}

/* Releases `count` loaded reports and the array. */
static void release_all(struct ompc_merge_input *inputs, size_t count)
{
    for (size_t i = 0; inputs != NULL && i < count; i++)
        ompc_merge_input_release(&inputs[i]);
    free(inputs);
}

/* The runs scaling made: their reports loaded (an MPI job's ranks side by side) and analysed; the exit status. */
static int analyse(const struct scaling_done *done, size_t count, const struct scaling_options *chosen)
{
    size_t total = 0, at = 0;
    for (size_t i = 0; i < count; i++)
        total += done[i].report_count;
    struct ompc_merge_input *inputs = calloc(total, sizeof *inputs);
    struct ompc_scaling_run *runs = calloc(count, sizeof *runs);
    int status = inputs == NULL || runs == NULL;
    for (size_t i = 0; i < count && status == 0; i++) {
        runs[i] = (struct ompc_scaling_run){&inputs[at], done[i].threads,
                                            chosen->plan.launcher != NULL ? done[i].report_count : 0};
        for (size_t r = 0; r < done[i].report_count && status == 0; r++)
            status = ompc_merge_load("scaling", done[i].reports[r], &inputs[at++]) != 0;
    }
    if (status == 0)
        status = analyse_runs(runs, count, chosen, 1);
    release_all(inputs, total);
    free(runs);
    return status;
}

/*
 * The count a report's name says, as scaling names its runs' reports
 * (threads-N.json, threads-N.rR.json, threads-N.RANK.json,
 * threads-N.rR.RANK.json), and in `repeat` R (0: none); 0 when it says
 * none.  A short run's report may count fewer OpenMP threads than ran: a
 * worker that no sample found is not known to be one.
 */
static int named_count(const char *path, int *repeat)
{
    const char *base = strrchr(path, '/');
    int threads, used = 0, r, more = 0;
    base = base != NULL ? base + 1 : path;
    *repeat = 0;
    if (sscanf(base, "threads-%d%n", &threads, &used) != 1 || threads < 1 || base[used] != '.')
        return 0;
    if (sscanf(base + used, ".r%d%n", &r, &more) == 1 && more > 0 && base[used + more] == '.')
        *repeat = r;
    return threads;
}

/* A report given with --reports: where it was given, its count, repeat and MPI rank (-1: none). */
struct given {
    size_t index;
    int threads, repeat;
    int64_t rank;
};

/* qsort order: single processes first, then one job's ranks side by side (count, repeat, rank). */
static int compare_given(const void *x, const void *y)
{
    const struct given *a = x, *b = y;
    if ((a->rank >= 0) != (b->rank >= 0))
        return a->rank >= 0 ? 1 : -1;
    if (a->threads != b->threads)
        return a->threads < b->threads ? -1 : 1;
    if (a->repeat != b->repeat)
        return a->repeat < b->repeat ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/*
 * The runs over the given reports, sorted by `given`: a report of a
 * single process is a run; the reports of MPI ranks at one count (and
 * repeat) are one job.  How many runs, or 0 after a message.
 */
static size_t group_runs(const struct given *given, size_t count, struct ompc_merge_input *inputs,
                         struct ompc_scaling_run *runs)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        int same_job = i > 0 && given[i].rank >= 0 && given[i - 1].rank >= 0 && given[i].threads == given[i - 1].threads
                       && given[i].repeat == given[i - 1].repeat;
        if (given[i].rank >= 0 && given[0].rank < 0) {
            ompc_reports_complain("scaling", "%s is an MPI rank's report among reports of single processes",
                                  inputs[i].file);
            return 0;
        }
        if (same_job && given[i].rank == given[i - 1].rank) {
            ompc_reports_complain("scaling", "%s and %s are both of rank %" PRId64 " at %d threads", inputs[i - 1].file,
                                  inputs[i].file, given[i].rank, given[i].threads);
            return 0;
        }
        if (same_job)
            runs[n - 1].ranks++;
        else
            runs[n++] = (struct ompc_scaling_run){&inputs[i], given[i].threads, given[i].rank >= 0};
    }
    return n;
}

/* The reports given with --reports, each at its count (named_count, else its OpenMP threads); the exit status. */
static int analyse_reports(int argc, char **argv, const struct scaling_options *chosen)
{
    size_t count = argc > optind ? (size_t)(argc - optind) : 0;
    if (count < 1) {
        ompc_reports_complain("scaling", "--reports needs the JSON reports of the runs (ompcollect -f json)");
        return 2;
    }
    struct ompc_merge_input *loaded = calloc(count, sizeof *loaded), *inputs = calloc(count, sizeof *inputs);
    struct given *given = calloc(count, sizeof *given);
    struct ompc_scaling_run *runs = calloc(count, sizeof *runs);
    int status = loaded == NULL || inputs == NULL || given == NULL || runs == NULL;
    for (size_t i = 0; i < count && status == 0; i++) {
        status = ompc_merge_load("scaling", argv[optind + i], &loaded[i]) != 0;
        int named = named_count(argv[optind + i], &given[i].repeat);
        given[i] = (struct given){i, named > 0 ? named : (int)loaded[i].threads, given[i].repeat, loaded[i].rank};
        if (status == 0 && given[i].threads < 1) {
            ompc_reports_complain("scaling", "%s: its run had no OpenMP thread", argv[optind + i]);
            status = 1;
        }
    }
    size_t run_count = 0;
    if (status == 0) {
        /* One job's reports side by side: the inputs move, each to its place in the sorted order. */
        qsort(given, count, sizeof *given, compare_given);
        for (size_t i = 0; i < count; i++)
            inputs[i] = loaded[given[i].index];
        free(loaded);
        loaded = NULL;
        run_count = group_runs(given, count, inputs, runs);
        status = run_count == 0 ? 1 : analyse_runs(runs, run_count, chosen, 0);
    }
    release_all(loaded != NULL ? loaded : inputs, count);
    if (loaded != NULL)
        free(inputs);
    free(given);
    free(runs);
    return status;
}

int ompc_scaling_main(int argc, char **argv)
{
    const char *run_options[MAX_RUN_OPTIONS];
    struct scaling_options chosen = {.format = "text", .plan = {.repeat = 1, .dir = "ompcollect-scaling",
                                                                .run_options = run_options}};
    if (parse_options(argc, argv, &chosen) != 0)
        return 2;
    if (chosen.done)
        return 0;
    if (chosen.reports)
        return analyse_reports(argc, argv, &chosen);
    if (optind >= argc) {
        ompc_reports_complain("scaling", "no program to run (try 'ompcollect scaling --help')");
        return 2;
    }
    chosen.plan.command = argv + optind;
    if (chosen.plan.count_count == 0)
        chosen.plan.count_count = ompc_scaling_default_counts(ompc_scaling_cores(), chosen.plan.counts);
    size_t runs = (size_t)chosen.plan.count_count * (size_t)chosen.plan.repeat;
    struct scaling_done *done = calloc(runs, sizeof *done);
    if (done == NULL)
        return 1;
    int status = ompc_scaling_run_all(&chosen.plan, done);
    if (status == 0)
        status = analyse(done, runs, &chosen);
    for (size_t i = 0; i < runs; i++) {
        for (size_t r = 0; r < done[i].report_count; r++)
            free(done[i].reports[r]);
        free(done[i].reports);
    }
    free(done);
    free(chosen.mpi);
    free(chosen.plan.launcher);
    for (int i = 0; i < chosen.plan.run_option_count; i++)
        free((char *)run_options[i]);
    return status;
}
