/* scaling_write.c - ompcollect scaling's words and tables: the factors' names, the sentence of what loses most between two counts, and the analysis as text for people. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "scaling.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *ompc_scaling_factor_name(int factor)
{
    static const char *const names[] = {"load balance", "synchronisation", "scheduling", "serialisation",
                                        "MPI load balance", "MPI communication", "computation scalability"};
    return factor >= 0 && factor < OMPC_SCALING_FACTORS ? names[factor] : "?";
}

const char *ompc_scaling_cause_name(int factor)
{
    static const char *const names[] = {"load imbalance", "synchronisation", "scheduling", "serialisation",
                                        "MPI load imbalance", "MPI communication", "computation scalability"};
    return factor >= 0 && factor < OMPC_SCALING_FACTORS ? names[factor] : "?";
}

const char *ompc_scaling_factor_key(int factor)
{
    static const char *const names[] = {"load_balance", "synchronisation", "scheduling", "serialisation",
                                        "mpi_load_balance", "mpi_communication", "computation_scalability"};
    return factor >= 0 && factor < OMPC_SCALING_FACTORS ? names[factor] : "?";
}

int ompc_scaling_factor_shown(const struct ompc_scaling *scaling, int factor)
{
    return scaling->mpi || (factor != OMPC_SCALING_MPI_LOAD_BALANCE && factor != OMPC_SCALING_MPI_COMMUNICATION);
}

const char *ompc_scaling_row_name(const struct ompc_scaling_row *row, char *buffer, size_t size)
{
    char place[512];
    if (row->where == NULL)
        snprintf(buffer, size, "the whole run");
    else
        snprintf(buffer, size, "`%s`", ompc_merge_place_name(row->where, place, sizeof place));
    return buffer;
}

/* "stays 0.97", "falls to 0.80" or "rises to 1.10": how a figure moved from `a` to `b`. */
static const char *movement(double a, double b, char *buffer, size_t size)
{
    if (b - a < OMPC_SCALING_STAYS && a - b < OMPC_SCALING_STAYS)
        snprintf(buffer, size, "stays %.2f", b);
    else
        snprintf(buffer, size, "%s to %.2f", b < a ? "falls" : "rises", b);
    return buffer;
}

const char *ompc_scaling_sentence(const struct ompc_scaling *scaling, const struct ompc_scaling_row *row, size_t k,
                                  char *buffer, size_t size)
{
    if (k == 0 || k >= scaling->count_count || !row->losses[k - 1].known)
        return NULL;
    const struct ompc_scaling_loss *loss = &row->losses[k - 1];
    const struct ompc_scaling_point *a = &row->points[k - 1], *b = &row->points[k];
    char name[600], moved[64];
    int n0 = scaling->counts[k - 1].threads, n1 = scaling->counts[k].threads;
    ompc_scaling_row_name(row, name, sizeof name);
    if (loss->largest < 0) {
        snprintf(buffer, size, "from %d to %d threads, %s keeps its efficiency (global efficiency %.2f -> %.2f)", n0,
                 n1, name, a->global, b->global);
    } else if (loss->largest == OMPC_SCALING_COMPUTATION) {
        snprintf(buffer, size, "from %d to %d threads, %s loses %.0f%% of its efficiency to computation scalability "
                 "(%.2f -> %.2f: useful work %.3f -> %.3f thread-s); parallel efficiency %s", n0, n1, name,
                 100 * loss->parts[loss->largest], a->factors[OMPC_SCALING_COMPUTATION],
                 b->factors[OMPC_SCALING_COMPUTATION], a->useful_s, b->useful_s,
                 movement(a->parallel, b->parallel, moved, sizeof moved));
    } else {
        int f = loss->largest;
        snprintf(buffer, size, "from %d to %d threads, %s loses %.0f%% of its efficiency to %s (%s %.2f -> %.2f); "
                 "computation scalability %s", n0, n1, name, 100 * loss->parts[f], ompc_scaling_cause_name(f),
                 ompc_scaling_factor_name(f), a->factors[f], b->factors[f],
                 movement(a->factors[OMPC_SCALING_COMPUTATION], b->factors[OMPC_SCALING_COMPUTATION], moved,
                          sizeof moved));
    }
    return buffer;
}

/* "thread" or "threads" after `n`. */
static const char *threads_word(int n)
{
    return n == 1 ? "thread" : "threads";
}

/* A figure in a column of `width`, "-" when unknown. */
static void column(FILE *out, int known, const char *format, double value, int width)
{
    if (known && !isnan(value))
        fprintf(out, format, width, value);
    else
        fprintf(out, "%*s", width, "-");
}

/* The header: the program, the counts and their runs, the cores, where the reports are. */
static void text_header(FILE *out, const struct ompc_scaling *scaling)
{
    char text[512];
    const struct ompc_merge_input *first = scaling->counts[0].median;
    snprintf(text, sizeof text, "%s", first->program.text != NULL ? first->program.text : "?");
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    fprintf(out, "ompcollect scaling: %s\n  thread counts", text);
    for (size_t k = 0; k < scaling->count_count; k++)
        fprintf(out, "%s%d", k ? ", " : " ", scaling->counts[k].threads);
    if (scaling->cores > 0)
        fprintf(out, " on %d cores", scaling->cores);
    for (size_t k = 0; k < scaling->count_count; k++)
        if (scaling->counts[k].oversubscribed && scaling->counts[k].ranks > 1)
            fprintf(out, "; %d %s x %zu ranks: oversubscribed", scaling->counts[k].threads,
                    threads_word(scaling->counts[k].threads), scaling->counts[k].ranks);
        else if (scaling->counts[k].oversubscribed)
            fprintf(out, "; %d threads: oversubscribed", scaling->counts[k].threads);
    fputc('\n', out);
    if (scaling->mpi)
        fprintf(out, "  an MPI job of %zu rank%s at each count: its ranks' reports merged (POP's additive hybrid "
                     "model: MPI load balance and communication beside the OpenMP factors)\n",
                scaling->counts[0].ranks, scaling->counts[0].ranks == 1 ? "" : "s");
    if (!scaling->same_program)
        fputs("  warning: the reports are not all of the same program\n", out);
    for (size_t k = 0; k < scaling->count_count; k++) {
        const struct ompc_scaling_count *count = &scaling->counts[k];
        snprintf(text, sizeof text, "%s", count->median->file != NULL ? count->median->file : "?");
        for (char *c = text; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        fprintf(out, "  %3d %-7s %s", count->threads, threads_word(count->threads), text);
        if (count->ranks > 1)
            fprintf(out, " and %zu more rank%s", count->ranks - 1, count->ranks == 2 ? "" : "s");
        if (count->runs > 1)
            fprintf(out, " (the median of %d runs; wall %.3f to %.3f s)", count->runs, count->wall_min_ns / 1e9,
                    count->wall_max_ns / 1e9);
        if (count->median->threads != count->threads)
            fprintf(out, " (its report counts %" PRId64 " OpenMP threads)", count->median->threads);
        fputc('\n', out);
    }
}

/* One line of the whole run's table: a figure at every count. */
static void whole_line(FILE *out, const struct ompc_scaling *scaling, const char *label, int what)
{
    fprintf(out, "  %-25s", label);
    for (size_t k = 0; k < scaling->count_count; k++) {
        const struct ompc_scaling_point *p = &scaling->whole.points[k];
        switch (what) {
        case -1: column(out, p->ran, "%*.3f", p->wall_ns / 1e9, 9); break;
        case -2: column(out, p->ran, "%*.2f", p->speedup, 9); break;
        case -3: column(out, p->scaled, "%*.2f", p->global, 9); break;
        case -4: column(out, p->known, "%*.2f", p->parallel, 9); break;
        case -5: column(out, p->known, "%*.3f", p->useful_s, 9); break;
        case OMPC_SCALING_COMPUTATION: column(out, p->scaled, "%*.2f", p->factors[what], 9); break;
        default: column(out, p->known, "%*.2f", p->factors[what], 9); break;
        }
    }
    fputc('\n', out);
}

/* The whole run's POP table: a column per count. */
static void text_whole(FILE *out, const struct ompc_scaling *scaling)
{
    int reference = scaling->counts[scaling->whole.reference].threads;
    fprintf(out, "\nWhole run (POP efficiency factors, 1 = ideal; speedup and scalability against %d %s):\n",
            reference, threads_word(reference));
    fprintf(out, "  %-25s", "threads");
    for (size_t k = 0; k < scaling->count_count; k++)
        fprintf(out, "%9d", scaling->counts[k].threads);
    fputc('\n', out);
    whole_line(out, scaling, "wall s", -1);
    whole_line(out, scaling, "speedup", -2);
    whole_line(out, scaling, "global efficiency", -3);
    whole_line(out, scaling, "  parallel efficiency", -4);
    for (int f = 0; f < OMPC_SCALING_COMPUTATION; f++) {
        char label[64];
        if (!ompc_scaling_factor_shown(scaling, f))
            continue;
        snprintf(label, sizeof label, "    %s", ompc_scaling_factor_name(f));
        whole_line(out, scaling, label, f);
    }
    whole_line(out, scaling, "  computation scalability", OMPC_SCALING_COMPUTATION);
    whole_line(out, scaling, "useful thread-s", -5);
    if (scaling->counters != NULL)
        fprintf(out, "  instructions and cycles: %s\n", scaling->counters);
}

/* What loses most between consecutive counts: the whole run's, then the constructs' the text shows. */
static void text_losses(FILE *out, const struct ompc_scaling *scaling)
{
    char sentence[1024];
    fputs("\nWhat loses most between counts (points of global efficiency, split exactly among the factors):\n", out);
    for (size_t k = 1; k < scaling->count_count; k++)
        if (ompc_scaling_sentence(scaling, &scaling->whole, k, sentence, sizeof sentence) != NULL)
            fprintf(out, "  %s\n", sentence);
    for (size_t i = 0; i < scaling->construct_count && i < OMPC_SCALING_TEXT_ROWS; i++)
        for (size_t k = 1; k < scaling->count_count; k++)
            if (ompc_scaling_sentence(scaling, &scaling->constructs[i], k, sentence, sizeof sentence) != NULL)
                fprintf(out, "  %s\n", sentence);
}

/* One construct's rows of the constructs table: one per count it ran at. */
static void text_construct(FILE *out, const struct ompc_scaling *scaling, const struct ompc_scaling_row *row)
{
    char place[512];
    ompc_merge_place_name(row->where, place, sizeof place);
    /* A name wider than its column gets a line of its own, so the figures stay in theirs. */
    int named = strlen(place) > 32;
    if (named)
        fprintf(out, "  %s\n", place);
    for (size_t k = 0; k < scaling->count_count; k++) {
        const struct ompc_scaling_point *p = &row->points[k];
        if (!p->ran)
            continue;
        fprintf(out, "  %-32s %4d %9" PRId64 " %9.3f", named++ ? "" : place, scaling->counts[k].threads, p->instances,
                p->wall_ns / 1e9);
        column(out, 1, "%*.2f", p->speedup, 8);
        column(out, p->scaled, "%*.2f", p->global, 7);
        column(out, p->known, "%*.2f", p->parallel, 9);
        for (int f = 0; f < OMPC_SCALING_COMPUTATION; f++)
            if (ompc_scaling_factor_shown(scaling, f))
                column(out, p->known, "%*.2f", p->factors[f], 7);
        column(out, p->scaled, "%*.2f", p->factors[OMPC_SCALING_COMPUTATION], 7);
        fputc('\n', out);
    }
}

/* The constructs, each at every count it ran at. */
static void text_constructs(FILE *out, const struct ompc_scaling *scaling)
{
    fputs("\nParallel constructs (matched by code location; time = fork to join; the longest first):\n", out);
    if (scaling->construct_count == 0) {
        fputs("  none\n", out);
        return;
    }
    fprintf(out, "  %-32s %4s %9s %9s %7s %6s %8s %6s %6s %6s %6s%s %6s\n", "construct", "thr", "instances", "time s",
            "speedup", "global", "parallel", "bal", "sync", "sched", "serial", scaling->mpi ? "  mpibal  mpicom" : "",
            "comp");
    for (size_t i = 0; i < scaling->construct_count && i < OMPC_SCALING_TEXT_ROWS; i++)
        text_construct(out, scaling, &scaling->constructs[i]);
    if (scaling->construct_count > OMPC_SCALING_TEXT_ROWS)
        fprintf(out, "  ... %zu more constructs (JSON and CSV have them all)\n",
                scaling->construct_count - OMPC_SCALING_TEXT_ROWS);
    fputs("  bal, sync, sched, serial: load balance, synchronisation, scheduling, serialisation (their sum less 3 is\n"
          "  parallel); comp: computation scalability (useful thread-seconds at its first count over these); global =\n"
          "  parallel x comp\n", out);
    if (scaling->mpi)
        fputs("  mpibal, mpicom: MPI load balance and communication, a construct's team idle while its master was in\n"
              "  MPI (its ranks' constructs are summed)\n", out);
}

/* Amdahl's serial fraction from the speedups and from the serial time, side by side. */
static void text_amdahl(FILE *out, const struct ompc_scaling *scaling)
{
    const struct ompc_scaling_count *first = &scaling->counts[0];
    fprintf(out, "\nAmdahl's serial fraction (against %d %s):\n", first->threads, threads_word(first->threads));
    fputs("  fitted to the measured speedups       ", out);
    column(out, 1, "%*.3f", scaling->fit_fraction, 6);
    if (scaling->fit_fraction > 1)
        fputs("  (above 1: the run slows down as threads are added, which no serial part explains)", out);
    fprintf(out, "\n  from the serial time at %3d %-7s   ", first->threads, threads_word(first->threads));
    column(out, 1, "%*.3f", scaling->time_fraction, 6);
    fputs("  (the initial thread's SERIAL share)\n", out);
    fprintf(out, "  %7s %8s %11s %12s %12s\n", "threads", "speedup", "Karp-Flatt", "Amdahl fit", "Amdahl time");
    for (size_t k = 0; k < scaling->count_count; k++) {
        const struct ompc_scaling_count *count = &scaling->counts[k];
        fprintf(out, "  %7d", count->threads);
        column(out, 1, "%*.2f", scaling->whole.points[k].speedup, 9);
        column(out, 1, "%*.3f", count->karp_flatt, 12);
        column(out, 1, "%*.2f", count->amdahl_fit_speedup, 13);
        column(out, 1, "%*.2f", count->amdahl_time_speedup, 13);
        fputc('\n', out);
    }
    fputs("  Karp-Flatt: the serial fraction each speedup implies; Amdahl fit, time: the speedups Amdahl's law gives\n"
          "  with either fraction\n", out);
}

void ompc_scaling_write_text(FILE *out, const struct ompc_scaling *scaling)
{
    text_header(out, scaling);
    text_whole(out, scaling);
    text_losses(out, scaling);
    text_constructs(out, scaling);
    text_amdahl(out, scaling);
}
