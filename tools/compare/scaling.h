/* scaling.h - ompcollect scaling's analysis: JSON reports of one program run at several thread counts, their constructs matched by code location as diff and merge match them, POP efficiency factors per count, what loses most between counts, and Amdahl's serial fraction two ways. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SCALING_H
#define OMPCOLLECT_SCALING_H 1

#include "merge.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The most thread counts one analysis takes, and the most runs at one count. */
#define OMPC_SCALING_MAX_COUNTS 64
#define OMPC_SCALING_MAX_REPEAT 100

/* How many constructs the text and the picture show; JSON and CSV have them all. */
#define OMPC_SCALING_TEXT_ROWS 10
#define OMPC_SCALING_SVG_PANELS 4

/* Below this many points of global efficiency, a change between two counts is called no loss. */
#define OMPC_SCALING_KEPT 0.02

/* Computation scalability moving less than this between two counts "stays". */
#define OMPC_SCALING_STAYS 0.05

/*
 * One run and the thread count it was run at: one report, or an MPI job's
 * `ranks` reports (input points to the first of them), merged as
 * `ompcollect merge` merges ranks.  ranks 0 is one report.
 */
struct ompc_scaling_run {
    const struct ompc_merge_input *input;
    int threads;
    size_t ranks;
};

/*
 * The factors global efficiency is made of: the four of parallel
 * efficiency (additive, as each report computes them), in MPI jobs the two
 * MPI factors of POP's additive hybrid model (merge_hybrid.h), and
 * computation scalability (which multiplies parallel efficiency).  The MPI
 * factors are 1, and not shown, in an analysis without MPI.
 */
enum ompc_scaling_factor {
    OMPC_SCALING_LOAD_BALANCE,
    OMPC_SCALING_SYNCHRONISATION,
    OMPC_SCALING_SCHEDULING,
    OMPC_SCALING_SERIALISATION,
    OMPC_SCALING_MPI_LOAD_BALANCE,
    OMPC_SCALING_MPI_COMMUNICATION,
    OMPC_SCALING_COMPUTATION,
    OMPC_SCALING_FACTORS
};

/* The whole run, or one construct, at one thread count. */
struct ompc_scaling_point {
    int ran;                            /* it ran at this count (a construct: its median report has it) */
    int known;                          /* and that report split its samples (its efficiency figures) */
    int scaled;                         /* and the reference's too: computation scalability and global are known */
    int64_t wall_ns;                    /* the whole run: wall time; a construct: its time fork to join, summed */
    int64_t instances;                  /* a construct's */
    int64_t interval_ns;                /* one sample's time in that report */
    struct ompc_merge_efficiency split; /* its samples, useful and lost, folded over its report rows */
    /* MPI's losses in the split's units: the whole job's (ranks' time outside MPI below the slowest's, and the
     * slowest's time in MPI); a construct's team idle while its master was in MPI (mpi_idle) is communication. */
    int64_t mpi_balance, mpi_communication;
    double useful_s;                    /* useful thread-seconds: useful samples x interval */
    double speedup;                     /* the reference count's wall_ns over this one's */
    double parallel;                    /* useful / samples */
    double factors[OMPC_SCALING_FACTORS]; /* 1 - lost / samples each; COMPUTATION: reference useful_s / this */
    double global;                      /* parallel x computation scalability */
};

/*
 * From one count to the next: how much global efficiency went, split
 * exactly among the factors.  With G = P x C and P = 1 - (sum of the four
 * losses), G_a - G_b = C_a (P_a - P_b) + P_b (C_a - C_b), and P_a - P_b is
 * the sum of the four factors' drops; each term is that factor's part.
 */
struct ompc_scaling_loss {
    int known;                           /* both counts scaled */
    double parts[OMPC_SCALING_FACTORS];  /* points of global efficiency each factor lost (negative: gained) */
    int largest;                         /* the factor that lost most, or -1: none lost OMPC_SCALING_KEPT */
};

/* The whole run or one construct, at every count. */
struct ompc_scaling_row {
    const struct ompc_merge_location *where; /* NULL: the whole run */
    size_t reference;                  /* the first count it ran at: speedup and scalability are against it */
    struct ompc_scaling_point *points; /* one per count */
    struct ompc_scaling_loss *losses;  /* one per count but the first: from the one before to it */
};

/* One thread count. */
struct ompc_scaling_count {
    int threads;
    int runs;
    int oversubscribed;                     /* more threads (times ranks) than cores */
    const struct ompc_merge_input *median;  /* the run of median wall time (the lower of two): its figures stand */
    size_t ranks;                           /* that run's reports from median on: its MPI ranks, or 1 */
    int64_t wall_ns;                        /* its wall time: an MPI job's, its slowest rank's */
    int64_t wall_min_ns, wall_max_ns;       /* the spread over the runs */
    double karp_flatt;                      /* the serial fraction this count's speedup implies; NaN at the first */
    double amdahl_fit_speedup, amdahl_time_speedup; /* the speedup Amdahl's law gives with each serial fraction */
};

/* The analysis. */
struct ompc_scaling {
    int cores;                        /* the cores the runs had (0: not known) */
    int same_program;
    int mpi;                          /* a run is an MPI job (ranks, or MPI time measured): the MPI factors are shown */
    struct ompc_scaling_count *counts; /* by thread count, smallest first */
    size_t count_count;
    struct ompc_scaling_row whole;
    struct ompc_scaling_row *constructs; /* by time at their reference count, longest first */
    size_t construct_count;
    double fit_fraction;  /* Amdahl's serial fraction fitted to every speedup (least squares in 1/speedup); NaN: no count to fit */
    double time_fraction; /* from the serial time of the smallest count's run; NaN: its report has none */
    const char *counters; /* what the runs say of instructions and cycles (the caller's sentence), or NULL */
};

/*
 * Builds the analysis of `run_count` runs (any order; several at one count
 * are repeats) on `cores` cores; 0, or -1 with a one-line reason in
 * `error`.  It points into the inputs, which must outlive it; free it with
 * ompc_scaling_free either way.
 */
int ompc_scaling_build(const struct ompc_scaling_run *runs, size_t run_count, int cores, struct ompc_scaling *scaling,
                       char *error, size_t error_size);

/* Frees what ompc_scaling_build made. */
void ompc_scaling_free(struct ompc_scaling *scaling);

/* A factor as a table names it ("load balance") and as a cause ("load imbalance"). */
const char *ompc_scaling_factor_name(int factor);
const char *ompc_scaling_cause_name(int factor);

/* A factor's key in JSON and CSV ("load_balance"). */
const char *ompc_scaling_factor_key(int factor);

/* Whether the outputs show factor `factor`: the MPI factors only in an analysis with MPI. */
int ompc_scaling_factor_shown(const struct ompc_scaling *scaling, int factor);

/* A row as the text names it: "the whole run" or "`solve solver.c:17`". */
const char *ompc_scaling_row_name(const struct ompc_scaling_row *row, char *buffer, size_t size);

/*
 * What row `row` loses from count k-1 to count k, in words ("from 2 to 4
 * threads, `smooth solver.c:88` loses 31% of its efficiency to load
 * imbalance (load balance 0.95 -> 0.64); computation scalability stays
 * 0.97"); NULL when either count is unknown for it.
 */
const char *ompc_scaling_sentence(const struct ompc_scaling *scaling, const struct ompc_scaling_row *row, size_t k,
                                  char *buffer, size_t size);

/* Amdahl's speedup at `p` times the reference threads with serial fraction `f`. */
double ompc_scaling_amdahl(double f, double p);

/* The writers (scaling_write.c, scaling_svg.c); 0, or -1 when memory runs out or the write fails. */
void ompc_scaling_write_text(FILE *out, const struct ompc_scaling *scaling);
int ompc_scaling_write_json(FILE *out, const struct ompc_scaling *scaling);
struct ompc_sink;
int ompc_scaling_write_csv(struct ompc_sink *sink, const struct ompc_scaling *scaling);
int ompc_scaling_write_svg(FILE *out, const struct ompc_scaling *scaling);

#endif /* OMPCOLLECT_SCALING_H */
