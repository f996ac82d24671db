/* diff_write.c - ompcollect diff's two outputs of a comparison: text for people (the summary line first, then each table by the size of its change) and JSON written through jsonw.c. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "diff.h"
#include "jsonw.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* `text` on one line: control characters (a hostile report's line breaks) become '?'. */
static char *one_line(char *text)
{
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return text;
}

/* `text` in `buffer`, on one line. */
static const char *clean(const char *text, char *buffer, size_t size)
{
    snprintf(buffer, size, "%s", text != NULL ? text : "?");
    return one_line(buffer);
}

/* Where a part of the change is: "IBAR at main solve.c:42", or "SERIAL outside parallel constructs". */
static const char *part_name(const struct ompc_diff_largest *part, char *buffer, size_t size)
{
    char place[512];
    if (part->where == NULL)
        snprintf(buffer, size, "%s outside parallel constructs", ompc_state_name(part->state));
    else
        snprintf(buffer, size, "%s at %s", ompc_state_name(part->state),
                 ompc_merge_place_name(part->where, place, sizeof place));
    return buffer;
}

const char *ompc_diff_summary(const struct ompc_diff *diff, char *buffer, size_t size)
{
    double a = (double)diff->a->wall_ns / 1e9, b = (double)diff->b->wall_ns / 1e9;
    int64_t net = diff->b_thread_ns - diff->a_thread_ns;
    int faster = diff->speedup >= OMPC_DIFF_SAME, slower = diff->speedup > 0 && 1 / diff->speedup >= OMPC_DIFF_SAME;
    int used;
    if (diff->speedup <= 0)
        used = snprintf(buffer, size, "the wall times cannot be compared (A %.2f s, B %.2f s)", a, b);
    else if (faster || slower)
        used = snprintf(buffer, size, "B is %.2fx %s (wall %.2f s -> %.2f s)", faster ? diff->speedup : 1 / diff->speedup,
                        faster ? "faster" : "slower", a, b);
    else
        used = snprintf(buffer, size, "B is as fast as A (wall %.2f s -> %.2f s)", a, b);
    if (used < 0 || (size_t)used >= size)
        return buffer;
    char part[640];
    const struct ompc_diff_largest *largest = &diff->largest;
    if (largest->state != 0)
        part_name(largest, part, sizeof part);
    if (largest->state != 0 && (faster || slower))
        snprintf(buffer + used, size - (size_t)used, "; %.0f%% of the %s is %s", 100 * largest->share,
                 faster ? "gain" : "loss", part);
    else if (largest->state != 0)
        snprintf(buffer + used, size - (size_t)used, "; thread time %+.2f s, %.0f%% of the %s is %s",
                 (double)net / 1e9, 100 * largest->share, largest->direction < 0 ? "decrease" : "increase", part);
    else if (net == 0)
        snprintf(buffer + used, size - (size_t)used, "; thread time unchanged");
    else
        snprintf(buffer + used, size - (size_t)used, "; thread time %+.2f s", (double)net / 1e9);
    return buffer;
}

/* One warning line in `line` (a program's name shortened to fit). */
static void warn(char (*line)[OMPC_DIFF_WARNING_SIZE], const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(char (*line)[OMPC_DIFF_WARNING_SIZE], const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(*line, sizeof *line, fmt, args);
    va_end(args);
    one_line(*line);
}

int ompc_diff_warnings(const struct ompc_diff *diff, char (*lines)[OMPC_DIFF_WARNING_SIZE])
{
    const struct ompc_merge_input *sides[2] = {diff->a, diff->b};
    int count = 0;
    if (!diff->same_program)
        warn(&lines[count++], "A and B are reports of different programs (%.200s and %.200s); their constructs "
             "and waits are matched by code location all the same", diff->a->program.text, diff->b->program.text);
    for (int i = 0; i < 2; i++)
        if (!sides[i]->complete)
            warn(&lines[count++], "%c is of a run that did not end normally (%.200s): it may be cut short", "AB"[i],
                 sides[i]->fate.text);
    for (int i = 0; i < 2; i++)
        if ((i ? diff->b_thread_ns : diff->a_thread_ns) == 0)
            warn(&lines[count++], "%c has no samples: its thread times are all 0", "AB"[i]);
    return count;
}

/* One report's line of the header: what ran, where, for how long, sampled how. */
static void text_side(FILE *out, char name, const struct ompc_merge_input *input)
{
    char file[512];
    fprintf(out, "  %c: %s: ", name, clean(input->file, file, sizeof file));
    ompc_merge_one_line(out, &input->program);
    fprintf(out, ", pid %" PRId64, input->pid);
    if (input->rank >= 0)
        fprintf(out, " (rank %" PRId64 ")", input->rank);
    fputs(" on ", out);
    ompc_merge_one_line(out, &input->host);
    fprintf(out, ", wall %.3f s, %" PRId64 " threads, %" PRId64 " samples every %.3f ms\n",
            (double)input->wall_ns / 1e9, input->threads, input->samples, (double)input->interval_ns / 1e6);
}

/* The header: the two reports, the warnings about them, their limits, and the summary. */
static void text_header(FILE *out, const struct ompc_diff *diff)
{
    char lines[OMPC_DIFF_WARNINGS][OMPC_DIFF_WARNING_SIZE], summary[1024];
    fputs("ompcollect diff: A before, B after\n", out);
    text_side(out, 'A', diff->a);
    text_side(out, 'B', diff->b);
    int count = ompc_diff_warnings(diff, lines);
    for (int i = 0; i < count; i++)
        fprintf(out, "warning: %s\n", lines[i]);
    ompc_merge_text_limits(out, "A", diff->a);
    ompc_merge_text_limits(out, "B", diff->b);
    fprintf(out, "\n%s\n", ompc_diff_summary(diff, summary, sizeof summary));
    fprintf(out, "Thread time (samples x interval over the OpenMP threads): %.3f s -> %.3f s (%+.3f s)\n",
            (double)diff->a_thread_ns / 1e9, (double)diff->b_thread_ns / 1e9,
            (double)(diff->b_thread_ns - diff->a_thread_ns) / 1e9);
}

/* The three columns every table has: A, B and the change, in seconds, then the shares in %. */
static void text_times(FILE *out, const struct ompc_diff_side *a, const struct ompc_diff_side *b, int64_t change)
{
    fprintf(out, "  %9.3f %9.3f %+9.3f %6.1f %6.1f %+6.1f", (double)a->ns / 1e9, (double)b->ns / 1e9,
            (double)change / 1e9, 100 * a->share, 100 * b->share, 100 * (b->share - a->share));
}

/* The states table: every state either report has samples of, largest change first. */
static void text_states(FILE *out, const struct ompc_diff *diff)
{
    fputs("\nThread states, largest change first (thread time in s; share of each run's samples in %):\n", out);
    fprintf(out, "  %9s %9s %9s %6s %6s %6s  %s\n", "A s", "B s", "change", "A %", "B %", "change", "state");
    for (int i = 0; i < OMPC_NSTATES - 1; i++) {
        const struct ompc_diff_state *row = &diff->states[i];
        if (row->a.count == 0 && row->b.count == 0)
            continue;
        text_times(out, &row->a, &row->b, row->change_ns);
        fprintf(out, "  %s\n", ompc_state_name(row->state));
    }
}

/* "appeared; " or "disappeared; " or "". */
static const char *status_prefix(enum ompc_diff_status status)
{
    return status == OMPC_DIFF_APPEARED ? "appeared; " : status == OMPC_DIFF_DISAPPEARED ? "disappeared; " : "";
}

/* The state whose thread time in a construct changed most, as "IBAR -0.248 s" (or "no samples"). */
static void text_state_change(FILE *out, const struct ompc_diff_construct *row)
{
    int best = 0;
    int64_t best_change = 0;
    for (int state = 1; state < OMPC_NSTATES; state++) {
        int64_t change = row->b_states_ns[state] - row->a_states_ns[state];
        if ((change < 0 ? -change : change) > (best_change < 0 ? -best_change : best_change)) {
            best = state;
            best_change = change;
        }
    }
    if (best == 0)
        fputs("no change in its samples", out);
    else
        fprintf(out, "%s %+.3f s", ompc_state_name(best), (double)best_change / 1e9);
}

/* The constructs table, largest change first. */
static void text_constructs(FILE *out, const struct ompc_diff *diff)
{
    fputs("\nParallel constructs, largest change first (matched by code location; time from fork\n"
          "to join in s, share of each run's wall time in %; the state that changed most in it):\n", out);
    if (diff->construct_count == 0) {
        fputs("  none (the reports name no constructs)\n", out);
        return;
    }
    fprintf(out, "  %9s %9s %9s %6s %6s %6s %17s  %s\n", "A s", "B s", "change", "A %", "B %", "change",
            "instances", "construct");
    for (size_t i = 0; i < diff->construct_count && i < OMPC_DIFF_TEXT_ROWS; i++) {
        const struct ompc_diff_construct *row = &diff->constructs[i];
        char name[512], instances[48];
        snprintf(instances, sizeof instances, "%" PRId64 " -> %" PRId64, row->a.count, row->b.count);
        text_times(out, &row->a, &row->b, row->change_ns);
        fprintf(out, " %17s  %s (%s", instances, ompc_merge_place_name(row->where, name, sizeof name),
                status_prefix(row->status));
        text_state_change(out, row);
        fputs(")\n", out);
    }
    if (diff->construct_count > OMPC_DIFF_TEXT_ROWS)
        fprintf(out, "  ... %zu more constructs (all of them with -f json)\n", diff->construct_count - OMPC_DIFF_TEXT_ROWS);
}

/* The waits table, largest change first. */
static void text_waits(FILE *out, const struct ompc_diff *diff)
{
    fputs("\nWaits by location, largest change first (matched by state, code location and object;\n"
          "thread time in s, share of each run's samples in %):\n", out);
    if (diff->wait_count == 0) {
        fputs("  none\n", out);
        return;
    }
    fprintf(out, "  %9s %9s %9s %6s %6s %6s  %-28s %s\n", "A s", "B s", "change", "A %", "B %", "change", "wait",
            "location");
    for (size_t i = 0; i < diff->wait_count && i < OMPC_DIFF_TEXT_ROWS; i++) {
        const struct ompc_diff_wait *row = &diff->waits[i];
        char what[256], name[512];
        text_times(out, &row->a, &row->b, row->change_ns);
        fprintf(out, "  %-28s %s", clean(row->first->what.text, what, sizeof what),
                ompc_merge_place_name(&row->first->where, name, sizeof name));
        if (row->status != OMPC_DIFF_MATCHED)
            fprintf(out, " (%s)", row->status == OMPC_DIFF_APPEARED ? "appeared" : "disappeared");
        fputc('\n', out);
    }
    if (diff->wait_count > OMPC_DIFF_TEXT_ROWS)
        fprintf(out, "  ... %zu more waits (all of them with -f json)\n", diff->wait_count - OMPC_DIFF_TEXT_ROWS);
}

void ompc_diff_write_text(FILE *out, const struct ompc_diff *diff)
{
    text_header(out, diff);
    text_states(out, diff);
    text_constructs(out, diff);
    text_waits(out, diff);
    ompc_diff_calls_text(out, diff);
}

/* A share to the 6 decimals merge writes ratios with. */
static json_t *json_share(double value)
{
    return ompc_json_fixed(value, 6);
}

/* The status of a construct or wait row. */
static json_t *json_status(enum ompc_diff_status status)
{
    return json_string(status == OMPC_DIFF_APPEARED ? "appeared"
                       : status == OMPC_DIFF_DISAPPEARED ? "disappeared" : "matched");
}

/* Sets the members every row has: A's, B's and the change, as time and as share. */
static int json_times(json_t *object, const struct ompc_diff_side *a, const struct ompc_diff_side *b, int64_t change)
{
    int failed = ompc_json_set(object, "a_ns", json_integer(a->ns));
    failed |= ompc_json_set(object, "b_ns", json_integer(b->ns));
    failed |= ompc_json_set(object, "change_ns", json_integer(change));
    failed |= ompc_json_set(object, "a_share", json_share(a->share));
    failed |= ompc_json_set(object, "b_share", json_share(b->share));
    failed |= ompc_json_set(object, "share_change", json_share(b->share - a->share));
    return failed;
}

/* One report's entry ("a" or "b"): who ran, how long, sampled how, and the limits it reached. */
static json_t *json_side(const struct ompc_merge_input *input, int64_t thread_ns)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "file", ompc_json_string(input->file));
    failed |= ompc_json_set(object, "program", ompc_json_text(input->program.text, input->program.length));
    failed |= ompc_json_set(object, "pid", json_integer(input->pid));
    failed |= ompc_json_set(object, "rank", input->rank >= 0 ? json_integer(input->rank) : json_null());
    failed |= ompc_json_set(object, "host", ompc_json_text(input->host.text, input->host.length));
    failed |= ompc_json_set(object, "complete", json_boolean(input->complete));
    failed |= ompc_json_set(object, "fate", ompc_json_text(input->fate.text, input->fate.length));
    failed |= ompc_json_set(object, "wall_ns", json_integer(input->wall_ns));
    failed |= ompc_json_set(object, "interval_ns", json_integer(input->interval_ns));
    failed |= ompc_json_set(object, "threads", json_integer(input->threads));
    failed |= ompc_json_set(object, "samples", json_integer(input->samples));
    failed |= ompc_json_set(object, "thread_ns", json_integer(thread_ns));
    failed |= ompc_json_set(object, "limits", ompc_merge_json_limits(input));
    return ompc_json_built(object, failed);
}

/* "summary": the line, and the figures it is made of. */
static json_t *json_summary(const struct ompc_diff *diff)
{
    char line[1024];
    const struct ompc_diff_largest *largest = &diff->largest;
    json_t *object = json_object(), *part = json_null();
    int failed = ompc_json_set(object, "text", ompc_json_string(ompc_diff_summary(diff, line, sizeof line)));
    failed |= ompc_json_set(object, "speedup", diff->speedup > 0 ? ompc_json_fixed(diff->speedup, 4) : json_null());
    failed |= ompc_json_set(object, "wall_change_ns", json_integer(diff->b->wall_ns - diff->a->wall_ns));
    failed |= ompc_json_set(object, "thread_change_ns", json_integer(diff->b_thread_ns - diff->a_thread_ns));
    if (largest->state != 0) {
        part = json_object();
        failed |= ompc_json_set(part, "state", json_string(ompc_state_name(largest->state)));
        failed |= ompc_json_set(part, "construct",
                                largest->where != NULL ? ompc_merge_json_place(largest->where) : json_null());
        failed |= ompc_json_set(part, "change_ns", json_integer(largest->change_ns));
        failed |= ompc_json_set(part, "share_of_change", json_share(largest->share));
    }
    failed |= ompc_json_set(object, "largest", part);
    return ompc_json_built(object, failed);
}

/* "states": every state, largest change first. */
static json_t *json_states(const struct ompc_diff *diff)
{
    json_t *list = json_array();
    int failed = 0;
    for (int i = 0; i < OMPC_NSTATES - 1 && !failed; i++) {
        const struct ompc_diff_state *row = &diff->states[i];
        json_t *object = json_object();
        int bad = ompc_json_set(object, "state", json_string(ompc_state_name(row->state)));
        bad |= ompc_json_set(object, "a_samples", json_integer(row->a.count));
        bad |= ompc_json_set(object, "b_samples", json_integer(row->b.count));
        bad |= json_times(object, &row->a, &row->b, row->change_ns);
        failed = ompc_json_append(list, ompc_json_built(object, bad));
    }
    return ompc_json_built(list, failed);
}

/* One construct row: where, whether in both, instances, time, share, and the change of each state's thread time in it. */
static json_t *json_construct(const struct ompc_diff_construct *row)
{
    json_t *object = json_object(), *states = json_object();
    int failed = ompc_json_set(object, "location", ompc_merge_json_place(row->where));
    failed |= ompc_json_set(object, "status", json_status(row->status));
    failed |= ompc_json_set(object, "a_instances", json_integer(row->a.count));
    failed |= ompc_json_set(object, "b_instances", json_integer(row->b.count));
    failed |= json_times(object, &row->a, &row->b, row->change_ns);
    for (int state = 1; state < OMPC_NSTATES && !failed; state++)
        failed = ompc_json_set(states, ompc_state_name(state),
                               json_integer(row->b_states_ns[state] - row->a_states_ns[state]));
    failed |= ompc_json_set(object, "states_change_ns", states);
    return ompc_json_built(object, failed);
}

/* One wait row: state, what, where, the object, whether in both, samples, time and share. */
static json_t *json_wait(const struct ompc_diff_wait *row)
{
    const struct ompc_merge_location *object_where = &row->first->object;
    json_t *object = json_object();
    int failed = ompc_json_set(object, "state", json_string(ompc_state_name(row->first->state)));
    failed |= ompc_json_set(object, "what", ompc_json_text(row->first->what.text, row->first->what.length));
    failed |= ompc_json_set(object, "location", ompc_merge_json_place(&row->first->where));
    failed |= ompc_json_set(object, "object", object_where->kind > 0 && object_where->module.text != NULL
                                                  ? ompc_merge_json_place(object_where) : json_null());
    failed |= ompc_json_set(object, "status", json_status(row->status));
    failed |= ompc_json_set(object, "a_samples", json_integer(row->a.count));
    failed |= ompc_json_set(object, "b_samples", json_integer(row->b.count));
    failed |= json_times(object, &row->a, &row->b, row->change_ns);
    return ompc_json_built(object, failed);
}

/* The "constructs" and "wait_locations" arrays, largest change first; -1 when memory runs out. */
static int json_places(json_t *root, const struct ompc_diff *diff)
{
    json_t *constructs = json_array(), *waits = json_array();
    int failed = 0;
    for (size_t i = 0; i < diff->construct_count && !failed; i++)
        failed = ompc_json_append(constructs, json_construct(&diff->constructs[i]));
    for (size_t i = 0; i < diff->wait_count && !failed; i++)
        failed = ompc_json_append(waits, json_wait(&diff->waits[i]));
    failed |= ompc_json_set(root, "constructs", constructs);
    failed |= ompc_json_set(root, "wait_locations", waits);
    return failed ? -1 : 0;
}

int ompc_diff_write_json(FILE *out, const struct ompc_diff *diff)
{
    char lines[OMPC_DIFF_WARNINGS][OMPC_DIFF_WARNING_SIZE];
    int count = ompc_diff_warnings(diff, lines), failed = 0;
    json_t *root = json_object(), *warnings = json_array();
    for (int i = 0; i < count && !failed; i++)
        failed = ompc_json_append(warnings, ompc_json_string(lines[i]));
    failed |= ompc_json_set(root, "tool", json_string("ompcollect diff"));
    failed |= ompc_json_set(root, "version", json_string(PACKAGE_VERSION));
    failed |= ompc_json_set(root, "a", json_side(diff->a, diff->a_thread_ns));
    failed |= ompc_json_set(root, "b", json_side(diff->b, diff->b_thread_ns));
    failed |= ompc_json_set(root, "same_program", json_boolean(diff->same_program));
    failed |= ompc_json_set(root, "warnings", warnings);
    failed |= ompc_json_set(root, "summary", json_summary(diff));
    failed |= ompc_json_set(root, "states", json_states(diff));
    if (!failed)
        failed = json_places(root, diff) != 0 || ompc_diff_calls_json(root, diff) != 0;
    root = ompc_json_built(root, failed);
    int status = ompc_json_dump(root, out, OMPC_JSON_READABLE) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(root);
    return status;
}
