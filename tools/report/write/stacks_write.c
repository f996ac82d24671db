/* stacks_write.c - the sampled call stacks in every format: folded stacks, the text report's call tree per state, and the JSON member, from the paths and trees stacks.c built. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "jsonw.h"
#include "names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Tree rows the text report shows per state, and the share of a state's samples a row needs. */
#define TEXT_ROWS 30
#define TEXT_MIN_SHARE 0.01

/* The name of a state for the outputs; samples without a valid state are "invalid". */
static const char *state_label(int state)
{
    return state > 0 && state < OMPC_NSTATES ? ompc_state_name(state) : "invalid";
}

int ompc_stacks_folded(const struct ompc_stacks *stacks, FILE *out)
{
    if (stacks == NULL)
        return 0;
    for (size_t i = 0; i < stacks->path_count; i++) {
        const struct ompc_stack_path *path = &stacks->paths[i];
        fprintf(out, "%s%s%s %" PRIu64 "\n", path->text, path->text[0] ? ";" : "", state_label(path->state),
                path->samples);
    }
    return ferror(out) ? -1 : 0;
}

/*
 * The last node of the run of recursive calls that `node` begins: its
 * only child, and that one's, while each is the same function with every
 * sample of its parent.  `*repeats` gets the run's length (1: no run).
 */
static const struct ompc_stack_node *recursion_end(const struct ompc_stack_node *node, int *repeats)
{
    *repeats = 1;
    while (node->child_count == 1 && node->children[0].samples == node->samples
           && node->children[0].name_length == node->name_length
           && memcmp(node->children[0].name, node->name, node->name_length) == 0) {
        node = &node->children[0];
        ++*repeats;
    }
    return node;
}

/*
 * Prints the rows of a tree below `node`, depth-first, the widest first;
 * `rows` counts what is left to print.  A run of recursive calls is one
 * row ("recurse (x62)"), so a deep recursion leaves rows for its siblings.
 */
static void text_tree(const struct ompc_stack_node *node, int depth, uint64_t state_samples, uint64_t total,
                      int *rows, FILE *out)
{
    for (int i = 0; i < node->child_count && *rows > 0; i++) {
        const struct ompc_stack_node *next = &node->children[i];
        if ((double)next->samples < TEXT_MIN_SHARE * (double)state_samples)
            break;
        (*rows)--;
        int repeats;
        const struct ompc_stack_node *last = recursion_end(next, &repeats);
        fprintf(out, "  %6.1f%% %*s%.*s", total ? 100.0 * (double)next->samples / (double)total : 0.0,
                2 * depth + 2, "", (int)next->name_length, next->name);
        if (repeats > 1)
            fprintf(out, " (x%d)", repeats);
        fputc('\n', out);
        text_tree(last, depth + 1, state_samples, total, rows, out);
    }
}

/* How the stacks were unwound, and why CFI-unwound ones ended before main (--stacks-unwind=dwarf). */
static void text_methods(const struct ompc_stacks *stacks, FILE *out)
{
    static const char *const why[OMPC_UNWIND_ENDS] = {"", "the stack copy was too small (--stacks-unwind=dwarf,SIZE)",
                                                      "code without CFI", "CFI that led nowhere", "too many frames",
                                                      "no unwinder in this build"};
    if (stacks->by_cfi == 0 && stacks->copies_dropped == 0)
        return;
    fprintf(out, "  stacks unwound: %" PRIu64 " samples by CFI over a stack copy, %" PRIu64 " by frame pointers "
                 "(%" PRIu64 " copies, %.1f KiB of record)\n",
            stacks->by_cfi, stacks->by_frame_pointers, stacks->copies, stacks->copy_bytes / 1024.0);
    if (stacks->copies_dropped != 0)
        fprintf(out, "  %" PRIu64 " samples found their thread's stack-copy buffer full: frame pointers instead\n",
                stacks->copies_dropped);
    for (int end = 1; end < OMPC_UNWIND_ENDS; end++)
        if (stacks->cut[end] != 0)
            fprintf(out, "  %" PRIu64 " CFI-unwound samples end before main: %s\n", stacks->cut[end], why[end]);
}

void ompc_stacks_text(const struct ompc_stacks *stacks, uint64_t total, FILE *out)
{
    fputs("\nCall paths by state (--stacks: the user's call stacks, runtime frames spliced out, workers' "
          "stacks continued into the forking thread's; % of all samples):\n", out);
    if (stacks == NULL) {
        fputs("  not available (out of memory)\n", out);
        return;
    }
    if (stacks->samples == 0) {
        fputs("  no samples\n", out);
        return;
    }
    if (total == 0)
        total = stacks->samples;
    int order[OMPC_NSTATES], used = 0;
    for (int state = 0; state < OMPC_NSTATES; state++)
        if (stacks->trees[state].samples != 0)
            order[used++] = state;
    for (int i = 1; i < used; i++)
        for (int j = i; j > 0 && stacks->trees[order[j]].samples > stacks->trees[order[j - 1]].samples; j--) {
            int swap = order[j];
            order[j] = order[j - 1];
            order[j - 1] = swap;
        }
    for (int i = 0; i < used; i++) {
        const struct ompc_stack_node *tree = &stacks->trees[order[i]];
        fprintf(out, "  %s: %.1f%% (%" PRIu64 " samples)\n", state_label(order[i]),
                100.0 * (double)tree->samples / (double)total, tree->samples);
        int rows = TEXT_ROWS;
        text_tree(tree, 0, tree->samples, total, &rows, out);
    }
    fprintf(out, "  (rows under %.0f%% of their state's samples are left out; --stacks=folded has every stack)\n",
            100 * TEXT_MIN_SHARE);
    if (!stacks->symbolized)
        fputs("  (no symbolizer: frames are raw addresses)\n", out);
    if (stacks->not_recorded != 0)
        fprintf(out, "  %" PRIu64 " samples' stacks did not fit their thread's table: [stack not recorded]\n",
                stacks->not_recorded);
    if (stacks->incomplete != 0)
        fprintf(out, "  %" PRIu64 " samples' stacks end before main (a frame without frame pointer?): "
                     "[incomplete stack]\n", stacks->incomplete);
    if (stacks->not_code != 0)
        fprintf(out, "  %" PRIu64 " of them were cut where a frame's return address lay in no module's code: "
                     "[incomplete stack: not code]\n", stacks->not_code);
    if (stacks->frame_pointers_missing)
        fprintf(out, "  %" PRIu64 " of %" PRIu64 " stacks walked by frame pointers end before main: the code they ran "
                     "keeps no frame pointers; --stacks-unwind=dwarf unwinds without them (or build with "
                     "-fno-omit-frame-pointer)\n", stacks->walk_broken, stacks->walked);
    if (stacks->no_caller != 0)
        fprintf(out, "  %" PRIu64 " worker samples did not find their forking thread's stack\n", stacks->no_caller);
    text_methods(stacks, out);
}

/* A tree node's children as a JSON array, each {"name", "samples", "children"}; NULL when memory runs out. */
static json_t *json_children(const struct ompc_stack_node *node)
{
    json_t *children = json_array();
    int failed = 0;
    for (int i = 0; i < node->child_count && !failed; i++) {
        const struct ompc_stack_node *next = &node->children[i];
        json_t *child = json_object();
        failed = ompc_json_set(child, "name", ompc_json_text(next->name, next->name_length));
        failed |= ompc_json_set(child, "samples", ompc_json_u64(next->samples));
        failed |= ompc_json_set(child, "children", json_children(next));
        failed |= ompc_json_append(children, child);
    }
    return ompc_json_built(children, failed);
}

/* "trees": one call tree per state that has samples. */
static json_t *json_trees(const struct ompc_stacks *stacks)
{
    json_t *trees = json_array();
    int failed = 0;
    for (int state = 0; state < OMPC_NSTATES && !failed; state++) {
        const struct ompc_stack_node *tree = &stacks->trees[state];
        if (tree->samples == 0)
            continue;
        json_t *object = json_object();
        failed = ompc_json_set(object, "state", json_string(state_label(state)));
        failed |= ompc_json_set(object, "samples", ompc_json_u64(tree->samples));
        failed |= ompc_json_set(object, "children", json_children(tree));
        failed |= ompc_json_append(trees, object);
    }
    return ompc_json_built(trees, failed);
}

/* "folded": every stack and state with its samples. */
static json_t *json_folded(const struct ompc_stacks *stacks)
{
    json_t *folded = json_array();
    int failed = 0;
    for (size_t i = 0; i < stacks->path_count && !failed; i++) {
        const struct ompc_stack_path *path = &stacks->paths[i];
        json_t *object = json_object();
        failed = ompc_json_set(object, "stack", ompc_json_text(path->text, strlen(path->text)));
        failed |= ompc_json_set(object, "state", json_string(state_label(path->state)));
        failed |= ompc_json_set(object, "samples", ompc_json_u64(path->samples));
        failed |= ompc_json_append(folded, object);
    }
    return ompc_json_built(folded, failed);
}

/* "unwinding": samples per method, copies that did not fit, and why CFI-unwound stacks ended before main. */
static json_t *json_unwinding(const struct ompc_stacks *stacks)
{
    json_t *object = json_object(), *cut = json_object();
    int failed = ompc_json_set(object, "frame_pointers", ompc_json_u64(stacks->by_frame_pointers));
    failed |= ompc_json_set(object, "cfi", ompc_json_u64(stacks->by_cfi));
    failed |= ompc_json_set(object, "copies_dropped", ompc_json_u64(stacks->copies_dropped));
    failed |= ompc_json_set(object, "copies", ompc_json_u64(stacks->copies));
    failed |= ompc_json_set(object, "copy_bytes", ompc_json_u64(stacks->copy_bytes));
    for (int end = 1; end < OMPC_UNWIND_ENDS; end++)
        failed |= ompc_json_set(cut, ompc_unwind_end_name((enum ompc_unwind_end)end), ompc_json_u64(stacks->cut[end]));
    failed |= ompc_json_set(object, "cut_short", ompc_json_built(cut, 0));
    return ompc_json_built(object, failed);
}

int ompc_stacks_json(const struct ompc_stacks *stacks, json_t *report)
{
    if (stacks == NULL)
        return ompc_json_set(report, "stacks", json_null());
    json_t *object = json_object();
    int failed = ompc_json_set(object, "samples", ompc_json_u64(stacks->samples));
    failed |= ompc_json_set(object, "not_recorded", ompc_json_u64(stacks->not_recorded));
    failed |= ompc_json_set(object, "incomplete", ompc_json_u64(stacks->incomplete));
    failed |= ompc_json_set(object, "no_caller", ompc_json_u64(stacks->no_caller));
    failed |= ompc_json_set(object, "not_code", ompc_json_u64(stacks->not_code));
    failed |= ompc_json_set(object, "frame_pointers_missing", json_boolean(stacks->frame_pointers_missing));
    failed |= ompc_json_set(object, "symbolized", json_boolean(stacks->symbolized));
    failed |= ompc_json_set(object, "unwinding", json_unwinding(stacks));
    failed |= ompc_json_set(object, "trees", json_trees(stacks));
    failed |= ompc_json_set(object, "folded", json_folded(stacks));
    failed |= ompc_json_set(report, "stacks", object);
    return failed ? -1 : 0;
}
