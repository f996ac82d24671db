/* merge-fuzz.c - libFuzzer target for ompcollect merge's reader of one report, with an oracle for what it keeps, for the summary it writes, for diff of the report with itself, and for scaling of it at two counts. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The input is the bytes of one report file.  ompc_merge_parse reads it
 * within a 1 MiB budget (small, so the fuzzer reaches the refusal of a
 * parsed form that outgrows it).  Refused: the reason is one line.  Taken:
 *   - every string is well-formed UTF-8 of the length said, NUL-terminated;
 *   - every count is from 0 to INT64_MAX, the pid and any rank fit in 32 bits;
 * then the report and a copy of it as another process (pid changed) are
 * summarised as JSON and as text: the JSON is refused only for a sum that
 * would overflow, and otherwise reads back by jansson (\u0000 is JSON too)
 * as an object whose totals are twice the report's, in well-formed UTF-8.
 * And ompcollect diff of the report with itself: refused only for samples
 * that cannot be turned into time within 64 bits, and otherwise JSON that
 * reads back, in well-formed UTF-8, with every change 0.
 * And ompcollect scaling of the report as runs at 1 and 2 threads (twice at
 * 2: a repeat), alone and as both ranks of an MPI job: refused only for a wall time of 0 or a sum beyond 64 bits,
 * and otherwise every known efficiency from 0 to 1, no loss from one count
 * to the other (the same report at both), and JSON, text, CSV and SVG
 * written, the JSON reading back in well-formed UTF-8.
 */
#define _GNU_SOURCE 1
#include <config.h>

#include "diff.h"
#include "merge.h"
#include "scaling.h"
#include "writer.h"
#include "utf8.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stops the run with what broke; libFuzzer saves the input. */
static void broken(const char *what, const char *detail)
{
    fprintf(stderr, "merge-fuzz: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* Whether a kept string is what ompc_merge_text says it is. */
static int good_text(const struct ompc_merge_text *text)
{
    return text->text != NULL && text->text[text->length] == '\0' && ompc_utf8_valid(text->text, text->length);
}

/* The invariants of a report ompc_merge_parse took. */
static void check_input(const struct ompc_merge_input *input)
{
    if (!good_text(&input->program) || !good_text(&input->host) || !good_text(&input->fate))
        broken("a kept string is not UTF-8 of its length", NULL);
    if (input->pid < 0 || input->pid > INT32_MAX || input->rank < -1 || input->rank > INT32_MAX)
        broken("pid or rank out of range", NULL);
    int negative = input->wall_ns < 0 || input->interval_ns < 0 || input->threads < 0 || input->samples < 0;
    for (int state = 1; state < OMPC_NSTATES; state++)
        negative |= input->states[state] < 0;
    for (size_t i = 0; i < input->region_count; i++) {
        const struct ompc_merge_region *region = &input->regions[i];
        negative |= region->id < 0 || region->time_ns < 0 || region->samples < 0;
        for (int state = 1; state < OMPC_NSTATES; state++)
            negative |= region->states[state] < 0;
    }
    if (negative)
        broken("a negative count was kept", NULL);
}

/* The summary of `inputs` in `format`, malloc'ed; NULL when ompc_merge_write refused, with its reason in `error`. */
static char *summary(struct ompc_merge_input *inputs, int format, size_t *length, char *error, size_t error_size)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, length);
    if (out == NULL)
        broken("open_memstream failed", NULL);
    int status = ompc_merge_write(out, format, inputs, 2, error, error_size);
    fclose(out);
    if (status != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The JSON summary of the report and its twin: valid, UTF-8, and twice the report's samples. */
static void check_summary(const struct ompc_merge_input *input)
{
    struct ompc_merge_input inputs[2] = {*input, *input};
    inputs[1].file = "twin.json";
    inputs[1].pid = input->pid ^ 1;
    char error[1024];
    size_t length;
    char *text = summary(inputs, OMPC_FORMAT_JSON, &length, error, sizeof error);
    if (text == NULL) {
        if (strstr(error, "would pass") == NULL)
            broken("the summary was refused other than for an overflow", error);
        return;
    }
    json_error_t parsed;
    json_t *root = json_loadb(text, length, JSON_ALLOW_NUL, &parsed);
    if (root == NULL)
        broken("the JSON summary does not parse", parsed.text);
    if (!ompc_utf8_valid(text, length))
        broken("the JSON summary is not UTF-8", NULL);
    json_t *samples = json_object_get(json_object_get(root, "totals"), "samples");
    if (!json_is_integer(samples) || json_integer_value(samples) != 2 * input->samples)
        broken("totals.samples is not the sum", NULL);
    json_decref(root);
    free(text);
    struct ompc_merge_input again[2] = {*input, *input};
    again[1].file = "twin.json";
    again[1].pid = input->pid ^ 1;
    free(summary(again, OMPC_FORMAT_TEXT, &length, error, sizeof error));
}

/* Whether every row of the diff's array `key` has a change_ns of 0. */
static int no_change(const json_t *root, const char *key)
{
    const json_t *rows = json_object_get(root, key), *row;
    size_t i;
    if (!json_is_array(rows))
        return 0;
    json_array_foreach(rows, i, row) {
        const json_t *change = json_object_get(row, "change_ns");
        if (!json_is_integer(change) || json_integer_value(change) != 0)
            return 0;
    }
    return 1;
}

/* The report against itself: JSON, UTF-8, and nothing changed; then the text. */
static void check_diff(const struct ompc_merge_input *input)
{
    char *text = NULL, error[1024];
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (out == NULL)
        broken("open_memstream failed", NULL);
    int status = ompc_diff_write(out, OMPC_FORMAT_JSON, input, input, error, sizeof error);
    fclose(out);
    if (status != 0) {
        if (strstr(error, "interval_ns") == NULL && strstr(error, "more than") == NULL)
            broken("the diff was refused other than for samples beyond time", error);
        free(text);
        return;
    }
    json_error_t parsed;
    json_t *root = json_loadb(text, length, JSON_ALLOW_NUL, &parsed);
    if (root == NULL)
        broken("the JSON diff does not parse", parsed.text);
    if (!ompc_utf8_valid(text, length))
        broken("the JSON diff is not UTF-8", NULL);
    if (!no_change(root, "states") || !no_change(root, "constructs") || !no_change(root, "wait_locations"))
        broken("a report against itself shows a change", NULL);
    json_decref(root);
    free(text);
    text = NULL;
    out = open_memstream(&text, &length);
    if (out == NULL || ompc_diff_write(out, OMPC_FORMAT_TEXT, input, input, error, sizeof error) != 0)
        broken("the text diff failed where the JSON one did not", error);
    fclose(out);
    free(text);
}

/* The four scaling writers into memory; the JSON one's output must read back as UTF-8 JSON. */
static void scaling_outputs(const struct ompc_scaling *scaling)
{
    for (int kind = 0; kind < 4; kind++) {
        char *text = NULL;
        size_t length = 0;
        FILE *out = open_memstream(&text, &length);
        if (out == NULL)
            broken("open_memstream failed", NULL);
        struct ompc_sink sink = {.kind = OMPC_SINK_STREAM, .out = out};
        int status = kind == 0 ? ompc_scaling_write_json(out, scaling)
                     : kind == 1 ? ompc_scaling_write_csv(&sink, scaling)
                     : kind == 2 ? ompc_scaling_write_svg(out, scaling)
                                 : (ompc_scaling_write_text(out, scaling), 0);
        fclose(out);
        if (status != 0)
            broken("a scaling writer failed", NULL);
        if (kind == 0) {
            json_error_t parsed;
            json_t *root = json_loadb(text, length, JSON_ALLOW_NUL, &parsed);
            if (root == NULL || !ompc_utf8_valid(text, length))
                broken("the scaling JSON does not read back as UTF-8 JSON", root == NULL ? parsed.text : NULL);
            json_decref(root);
        }
        free(text);
    }
}

/* Whether a known point's efficiencies are from 0 to 1 (computation scalability is 1: the same report). */
static int point_in_range(const struct ompc_scaling_point *p)
{
    int good = !p->known || (p->parallel >= 0 && p->parallel <= 1);
    for (int f = 0; p->known && f < OMPC_SCALING_COMPUTATION; f++)
        good &= p->factors[f] >= 0 && p->factors[f] <= 1;
    return good && (!p->scaled || p->factors[OMPC_SCALING_COMPUTATION] == 1);
}

/*
 * The report as runs at 1 and 2 threads (`ranks` 0: alone; else a job of
 * that many ranks from `input` on): figures in range, nothing lost between
 * two counts of one report.
 */
static void check_scaling(const struct ompc_merge_input *input, size_t ranks)
{
    struct ompc_scaling_run runs[3] = {{input, 2, ranks}, {input, 1, ranks}, {input, 2, ranks}};
    struct ompc_scaling scaling;
    char error[512];
    if (ompc_scaling_build(runs, 3, 2, &scaling, error, sizeof error) != 0) {
        if (strstr(error, "wall time of 0") == NULL && strstr(error, "more than") == NULL)
            broken("scaling was refused other than for a wall time of 0 or a sum beyond 64 bits", error);
        ompc_scaling_free(&scaling);
        return;
    }
    if (scaling.count_count != 2 || scaling.counts[1].runs != 2)
        broken("three runs at two counts are not two counts", NULL);
    for (size_t i = 0; i <= scaling.construct_count; i++) {
        const struct ompc_scaling_row *row = i == 0 ? &scaling.whole : &scaling.constructs[i - 1];
        if (!point_in_range(&row->points[0]) || !point_in_range(&row->points[1]))
            broken("an efficiency out of 0 to 1", NULL);
        for (int f = 0; row->losses[0].known && f < OMPC_SCALING_FACTORS; f++)
            if (row->losses[0].parts[f] != 0 || row->losses[0].largest != -1)
                broken("one report at two counts loses efficiency", NULL);
    }
    scaling_outputs(&scaling);
    ompc_scaling_free(&scaling);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ompc_merge_input input = {.file = "fuzz.json"};
    char error[512];
    if (ompc_merge_parse((const char *)data, size, (size_t)1 << 20, &input, error, sizeof error) != 0) {
        if (error[0] == '\0' || strchr(error, '\n') != NULL)
            broken("a refusal without a one-line reason", error);
    } else {
        check_input(&input);
        check_summary(&input);
        check_diff(&input);
        check_scaling(&input, 0);
        /* Two ranks of one job: the same report twice (copies that share its memory, released once). */
        struct ompc_merge_input ranks[2] = {input, input};
        check_scaling(ranks, 2);
    }
    ompc_merge_input_release(&input);
    return 0;
}
