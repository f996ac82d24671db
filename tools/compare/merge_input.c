/* merge_input.c - ompcollect merge's reader of one report: jansson parses it within a memory budget, and every value the summary uses is checked before it is kept. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "merge_input.h"
#include "omp_collector_api.h"
#include "utf8.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Where the reason for refusing a report goes. */
struct reader {
    char *error;
    size_t error_size;
    size_t limit; /* the budget, for messages */
};

/* jansson's allocator hooks take no argument, so the budget of the parse
 * under way is reached through this; merge reads one report at a time, in
 * one thread, and installs the hooks only for that. */
static struct {
    size_t left;
    int exhausted;
} budget;

/* A block's size ahead of it, so budget_free can give it back; the union keeps malloc's alignment. */
union block_header {
    size_t size;
    max_align_t align;
};

/* malloc within the budget: NULL once the report would take more than it. */
static void *budget_malloc(size_t size)
{
    size_t total = size + sizeof(union block_header);
    if (total < size || total > budget.left) {
        budget.exhausted = 1;
        return NULL;
    }
    union block_header *block = malloc(total);
    if (block == NULL)
        return NULL;
    block->size = total;
    budget.left -= total;
    return block + 1;
}

/* free of a budget_malloc block, which returns its size to the budget. */
static void budget_free(void *pointer)
{
    if (pointer == NULL)
        return;
    union block_header *block = (union block_header *)pointer - 1;
    budget.left += block->size;
    free(block);
}

/* Records why the report is refused, on one line whatever the text held; returns -1. */
static int fail(struct reader *reader, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct reader *reader, const char *fmt, ...)
{
    if (reader->error_size == 0)
        return -1;
    va_list args;
    va_start(args, fmt);
    vsnprintf(reader->error, reader->error_size, fmt, args);
    va_end(args);
    for (char *c = reader->error; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return -1;
}

/* The refusal when the budget ran out. */
static int too_big(struct reader *reader)
{
    if (reader->limit >= (1 << 20))
        return fail(reader, "reading it would take more than %zu MiB of memory (merge's limit per report)",
                    reader->limit >> 20);
    return fail(reader, "reading it would take more than %zu bytes of memory (merge's limit per report)",
                reader->limit);
}

/* Counts memory kept past the parse (plain malloc) against the budget; -1 with the reason when it is spent. */
static int budget_take(struct reader *reader, size_t size)
{
    if (size > budget.left) {
        budget.exhausted = 1;
        return too_big(reader);
    }
    budget.left -= size;
    return 0;
}

/* Four hex digits, or -1. */
static long hex4(const char *text, size_t left)
{
    if (left < 4)
        return -1;
    long value = 0;
    for (int i = 0; i < 4; i++) {
        char c = text[i];
        int digit = c >= '0' && c <= '9' ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0)
            return -1;
        value = value << 4 | digit;
    }
    return value;
}

/*
 * The \u escapes of a lone surrogate in the strings of `text`, which
 * jansson refuses though they only stand for an unpaired UTF-16 unit; each
 * becomes "\ufffd", as long, in `writable` when given (a copy of `text`).
 * Only strings are followed: whatever else is wrong, jansson says.
 */
static size_t lone_surrogates(const char *text, size_t length, char *writable)
{
    size_t count = 0;
    int in_string = 0;
    for (size_t i = 0; i < length; i++) {
        if (text[i] == '"')
            in_string = !in_string;
        if (!in_string || text[i] != '\\' || i + 1 >= length)
            continue;
        long code = text[i + 1] == 'u' ? hex4(text + i + 2, length - i - 2) : -1;
        if (code < 0xD800 || code > 0xDFFF) {
            i++; /* the escaped character, which may be a quote */
            continue;
        }
        if (code < 0xDC00 && length - i >= 12 && text[i + 6] == '\\' && text[i + 7] == 'u') {
            long low = hex4(text + i + 8, length - i - 8);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                i += 11;
                continue;
            }
        }
        if (writable != NULL)
            memcpy(writable + i, "\\ufffd", 6);
        count++;
        i += 5;
    }
    return count;
}

/* The report parsed, its ill-formed UTF-8 and lone surrogates first made U+FFFD in a copy; NULL with the reason. */
static json_t *parse(const char *data, size_t length, struct reader *reader)
{
    int valid = ompc_utf8_valid(data, length);
    const char *text = data;
    size_t size = length;
    char *copy = NULL;
    if (!valid || lone_surrogates(data, length, NULL) != 0) {
        size = valid ? length : ompc_utf8_sanitize(data, length, NULL);
        copy = budget_malloc(size + 1);
        if (copy == NULL)
            return too_big(reader), NULL;
        if (valid)
            memcpy(copy, data, length);
        else
            ompc_utf8_sanitize(data, length, copy);
        lone_surrogates(copy, size, copy);
        text = copy;
    }
    json_error_t error;
    json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &error);
    budget_free(copy);
    if (root == NULL && budget.exhausted)
        too_big(reader);
    else if (root == NULL)
        fail(reader, "not valid JSON: %s at byte %d (line %d, column %d)", error.text, error.position,
             error.line, error.column);
    return root;
}

/* "an object", "a string", ... for messages. */
static const char *type_name(const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* An integer member from `low` to `high`; absent is `fallback`, or refused when `fallback` < `low`. */
static int take_integer(struct reader *reader, const json_t *object, const char *where, const char *key,
                        int64_t low, int64_t high, int64_t fallback, int64_t *value)
{
    const json_t *member = json_object_get(object, key);
    if (member == NULL && fallback >= low) {
        *value = fallback;
        return 0;
    }
    if (member == NULL)
        return fail(reader, "\"%s%s\" is missing", where, key);
    if (!json_is_integer(member))
        return fail(reader, "\"%s%s\" is %s, not an integer from %" PRId64 " to %" PRId64, where, key,
                    type_name(member), low, high);
    json_int_t number = json_integer_value(member);
    if (number < low || number > high)
        return fail(reader, "\"%s%s\" is %lld, out of its range %" PRId64 " to %" PRId64, where, key,
                    (long long)number, low, high);
    *value = number;
    return 0;
}

/* A count (0 to INT64_MAX); absent is 0. */
static int take_count(struct reader *reader, const json_t *object, const char *where, const char *key,
                      int64_t *value)
{
    return take_integer(reader, object, where, key, 0, INT64_MAX, 0, value);
}

/*
 * A time in ns (0 to 2^62, some 146 years; absent is 0): past it a time
 * is no run's, and its sums and conversions to seconds and back could
 * overflow (a damaged report's INT64_MAX became a negative runtime).
 */
static int take_time(struct reader *reader, const json_t *object, const char *where, const char *key,
                     int64_t *value)
{
    return take_integer(reader, object, where, key, 0, INT64_C(1) << 62, 0, value);
}

/* A member that must be an object when present (and present when `required`); NULL when absent. */
static int take_object(struct reader *reader, const json_t *object, const char *where, const char *key,
                       int required, const json_t **member)
{
    *member = json_object_get(object, key);
    if (*member == NULL && required)
        return fail(reader, "\"%s%s\" is missing", where, key);
    if (*member != NULL && !json_is_object(*member))
        return fail(reader, "\"%s%s\" is %s, not an object", where, key, type_name(*member));
    return 0;
}

/* `length` bytes at `from` kept as a text, counted against the budget. */
static int copy_text(struct reader *reader, const char *from, size_t length, struct ompc_merge_text *text)
{
    if (budget_take(reader, length + 1) != 0)
        return -1;
    text->text = malloc(length + 1);
    if (text->text == NULL)
        return fail(reader, "out of memory");
    memcpy(text->text, from, length);
    text->text[length] = '\0';
    text->length = length;
    return 0;
}

/* A string member copied out (absent: `fallback`). */
static int take_text(struct reader *reader, const json_t *object, const char *where, const char *key,
                     const char *fallback, struct ompc_merge_text *text)
{
    const json_t *member = json_object_get(object, key);
    if (member != NULL && !json_is_string(member))
        return fail(reader, "\"%s%s\" is %s, not a string", where, key, type_name(member));
    if (member == NULL)
        return copy_text(reader, fallback, strlen(fallback), text);
    return copy_text(reader, json_string_value(member), json_string_length(member), text);
}

/* The count of every state in `states` (an object of counts by state name, or absent: all 0). */
static int take_states(struct reader *reader, const json_t *states, const char *where, int64_t *counts)
{
    for (int state = 1; state < OMPC_NSTATES; state++)
        if (take_count(reader, states, where, ompc_state_name(state), &counts[state]) != 0)
            return -1;
    return 0;
}

/* Who ran, where, and how it ended. */
static int take_header(struct reader *reader, const json_t *root, struct ompc_merge_input *input)
{
    const json_t *end, *rank = json_object_get(root, "rank"), *complete = json_object_get(root, "complete");
    if (take_text(reader, root, "", "program", "?", &input->program) != 0
        || take_text(reader, root, "", "host", "", &input->host) != 0
        || take_integer(reader, root, "", "pid", 0, INT32_MAX, 0, &input->pid) != 0
        || take_object(reader, root, "", "end", 0, &end) != 0
        || take_text(reader, end, "end.", "fate", "", &input->fate) != 0
        || take_time(reader, root, "", "wall_ns", &input->wall_ns) != 0
        || take_time(reader, root, "", "interval_ns", &input->interval_ns) != 0)
        return -1;
    input->rank = -1;
    if (rank != NULL && !json_is_null(rank)
        && take_integer(reader, root, "", "rank", 0, INT32_MAX, 0, &input->rank) != 0)
        return -1;
    if (complete != NULL && !json_is_boolean(complete))
        return fail(reader, "\"complete\" is %s, not a boolean", type_name(complete));
    input->complete = complete == NULL || json_is_true(complete);
    return 0;
}

/* Every region of the report, each with the counts merge sums. */
static int take_regions(struct reader *reader, const json_t *root, struct ompc_merge_input *input)
{
    const json_t *list = json_object_get(root, "regions");
    if (list == NULL)
        return 0;
    if (!json_is_array(list))
        return fail(reader, "\"regions\" is %s, not an array", type_name(list));
    size_t count = json_array_size(list);
    if (count == 0)
        return 0;
    if (budget_take(reader, count * sizeof *input->regions) != 0)
        return -1;
    input->regions = calloc(count, sizeof *input->regions);
    if (input->regions == NULL)
        return fail(reader, "out of memory");
    for (size_t i = 0; i < count; i++) {
        const json_t *region = json_array_get(list, i), *states;
        struct ompc_merge_region *row = &input->regions[i];
        char where[64], where_states[80];
        snprintf(where, sizeof where, "regions[%zu].", i);
        snprintf(where_states, sizeof where_states, "regions[%zu].states.", i);
        if (!json_is_object(region))
            return fail(reader, "\"regions[%zu]\" is %s, not an object", i, type_name(region));
        if (take_integer(reader, region, where, "id", 0, INT64_MAX, -1, &row->id) != 0
            || take_count(reader, region, where, "time_ns", &row->time_ns) != 0
            || take_count(reader, region, where, "samples", &row->samples) != 0
            || take_object(reader, region, where, "states", 0, &states) != 0
            || take_states(reader, states, where_states, row->states) != 0)
            return -1;
        input->region_count = i + 1;
    }
    return 0;
}

/* A string member that may be null (text NULL then); absent counts as null. */
static int take_text_or_null(struct reader *reader, const json_t *object, const char *where, const char *key,
                             struct ompc_merge_text *text)
{
    const json_t *member = json_object_get(object, key);
    if (member == NULL || json_is_null(member)) {
        text->text = NULL;
        text->length = 0;
        return 0;
    }
    return take_text(reader, object, where, key, "", text);
}

/* A hexadecimal address member ("0x1131"); absent is 0. */
static int take_hex(struct reader *reader, const json_t *object, const char *where, const char *key,
                    uint64_t *value)
{
    const json_t *member = json_object_get(object, key);
    *value = 0;
    if (member == NULL)
        return 0;
    const char *text = json_is_string(member) ? json_string_value(member) : NULL;
    size_t length = text != NULL ? json_string_length(member) : 0;
    int valid = length > 2 && length <= 18 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    for (size_t i = 2; valid && i < length; i++) {
        char c = text[i];
        int digit = c >= '0' && c <= '9' ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        valid = digit >= 0;
        *value = *value << 4 | (uint64_t)(digit & 15);
    }
    if (!valid)
        return fail(reader, "\"%s%s\" is not an address written \"0x\" and 1 to 16 hexadecimal digits", where, key);
    return 0;
}

/* A "location" object of a construct or wait (absent: kind none at address 0). */
static int take_location(struct reader *reader, const json_t *parent, const char *where, const char *key,
                         struct ompc_merge_location *location)
{
    static const char *const kinds[] = {"none", "module", "symbol", "line"};
    const json_t *object, *kind;
    char inner[128];
    snprintf(inner, sizeof inner, "%s%s.", where, key);
    location->line = -1;
    if (take_object(reader, parent, where, key, 0, &object) != 0)
        return -1;
    if (object == NULL)
        return 0;
    kind = json_object_get(object, "kind");
    location->kind = -1;
    for (int k = 0; k < 4 && json_is_string(kind); k++)
        if (strcmp(json_string_value(kind), kinds[k]) == 0)
            location->kind = k;
    if (kind != NULL && location->kind < 0)
        return fail(reader, "\"%skind\" is not one of none, module, symbol, line", inner);
    location->kind = kind == NULL ? 0 : location->kind;
    const json_t *line = json_object_get(object, "line");
    if (take_hex(reader, object, inner, "address", &location->address) != 0
        || take_hex(reader, object, inner, "module_offset", &location->module_offset) != 0
        || take_count(reader, object, inner, "function_offset", &location->function_offset) != 0
        || (line != NULL && !json_is_null(line)
            && take_integer(reader, object, inner, "line", 0, INT32_MAX, 0, &location->line) != 0)
        || take_text_or_null(reader, object, inner, "module", &location->module) != 0
        || take_text_or_null(reader, object, inner, "function", &location->function) != 0
        || take_text_or_null(reader, object, inner, "mangled", &location->mangled) != 0
        || take_text_or_null(reader, object, inner, "enclosing", &location->enclosing) != 0
        || take_text_or_null(reader, object, inner, "file", &location->file) != 0)
        return -1;
    return 0;
}

/* The array member `key` (absent: none); its size in *count, or -1 with the reason, and the room for it counted. */
static int take_array(struct reader *reader, const json_t *root, const char *key, size_t element,
                      const json_t **list, size_t *count)
{
    *list = json_object_get(root, key);
    *count = 0;
    if (*list == NULL || json_is_null(*list))
        return 0;
    if (!json_is_array(*list))
        return fail(reader, "\"%s\" is %s, not an array", key, type_name(*list));
    *count = json_array_size(*list);
    return budget_take(reader, *count * element);
}

/* The report's parallel constructs, named by code location ("constructs"). */
static int take_constructs(struct reader *reader, const json_t *root, struct ompc_merge_input *input)
{
    const json_t *list;
    size_t count;
    if (take_array(reader, root, "constructs", sizeof *input->constructs, &list, &count) != 0)
        return -1;
    if (count == 0)
        return 0;
    input->constructs = calloc(count, sizeof *input->constructs);
    if (input->constructs == NULL)
        return fail(reader, "out of memory");
    for (size_t i = 0; i < count; i++) {
        const json_t *row = json_array_get(list, i), *states;
        struct ompc_merge_construct *construct = &input->constructs[i];
        char where[64], where_states[80];
        snprintf(where, sizeof where, "constructs[%zu].", i);
        snprintf(where_states, sizeof where_states, "constructs[%zu].states.", i);
        if (!json_is_object(row))
            return fail(reader, "\"constructs[%zu]\" is %s, not an object", i, type_name(row));
        input->construct_count = i + 1;
        if (take_location(reader, row, where, "location", &construct->where) != 0
            || take_text_or_null(reader, row, where, "kind", &construct->where.construct) != 0
            || take_count(reader, row, where, "instances", &construct->instances) != 0
            || take_count(reader, row, where, "total_ns", &construct->total_ns) != 0
            || take_count(reader, row, where, "max_ns", &construct->max_ns) != 0
            || take_object(reader, row, where, "states", 0, &states) != 0
            || take_states(reader, states, where_states, construct->states) != 0)
            return -1;
        for (int state = 1; state < OMPC_NSTATES; state++)
            if (construct->states[state] > INT64_MAX - construct->samples)
                return fail(reader, "\"%sstates\" sum to more than %" PRId64, where, INT64_MAX);
            else
                construct->samples += construct->states[state];
    }
    return 0;
}

/* The report's waits by code location and object ("wait_locations"). */
static int take_waits(struct reader *reader, const json_t *root, struct ompc_merge_input *input)
{
    const json_t *list;
    size_t count;
    if (take_array(reader, root, "wait_locations", sizeof *input->waits, &list, &count) != 0)
        return -1;
    if (count == 0)
        return 0;
    input->waits = calloc(count, sizeof *input->waits);
    if (input->waits == NULL)
        return fail(reader, "out of memory");
    for (size_t i = 0; i < count; i++) {
        const json_t *row = json_array_get(list, i), *state;
        struct ompc_merge_wait *wait = &input->waits[i];
        char where[64];
        snprintf(where, sizeof where, "wait_locations[%zu].", i);
        if (!json_is_object(row))
            return fail(reader, "\"wait_locations[%zu]\" is %s, not an object", i, type_name(row));
        input->wait_count = i + 1;
        state = json_object_get(row, "state");
        for (int s = 1; s < OMPC_NSTATES && json_is_string(state); s++)
            if (strcmp(json_string_value(state), ompc_state_name(s)) == 0)
                wait->state = s;
        if (wait->state == 0)
            return fail(reader, "\"%sstate\" is not the name of a thread state", where);
        if (take_text(reader, row, where, "what", "?", &wait->what) != 0
            || take_location(reader, row, where, "location", &wait->where) != 0
            || take_location(reader, row, where, "object", &wait->object) != 0
            || take_count(reader, row, where, "samples", &wait->samples) != 0
            || take_count(reader, row, where, "threads", &wait->threads) != 0)
            return -1;
    }
    return 0;
}

/* A location from the report's short form ({"address", "function", "file", "line"}), its kind from what it names. */
static int take_short_location(struct reader *reader, const json_t *row, const char *where,
                               struct ompc_merge_location *location)
{
    if (take_location(reader, row, where, "location", location) != 0)
        return -1;
    if (location->kind == 0)
        location->kind = location->file.text != NULL && location->line > 0 ? 3 : location->function.text != NULL ? 2 : 0;
    return 0;
}

/* One MPI call site of "totals.mpi.sites". */
static int take_mpi_site(struct reader *reader, const json_t *row, size_t i, struct ompc_merge_mpi_site *site)
{
    char where[64];
    snprintf(where, sizeof where, "totals.mpi.sites[%zu].", i);
    if (!json_is_object(row))
        return fail(reader, "\"totals.mpi.sites[%zu]\" is %s, not an object", i, type_name(row));
    const json_t *setup = json_object_get(row, "setup");
    if (setup != NULL && !json_is_boolean(setup))
        return fail(reader, "\"%ssetup\" is %s, not a boolean", where, type_name(setup));
    site->setup = json_is_true(setup);
    if (take_text(reader, row, where, "call", "?", &site->call) != 0
        || take_short_location(reader, row, where, &site->where) != 0
        || take_count(reader, row, where, "calls", &site->calls) != 0
        || take_count(reader, row, where, "ns", &site->ns) != 0)
        return -1;
    return take_count(reader, row, where, "samples", &site->samples);
}

/* The MPI calls by call site ("totals.mpi.sites"; absent before record version 8: none). */
static int take_mpi_sites(struct reader *reader, const json_t *mpi, struct ompc_merge_input *input)
{
    const json_t *list;
    size_t count;
    if (mpi == NULL || take_array(reader, mpi, "sites", sizeof *input->mpi_sites, &list, &count) != 0)
        return mpi == NULL ? 0 : -1;
    if (count == 0)
        return 0;
    input->mpi_sites = calloc(count, sizeof *input->mpi_sites);
    if (input->mpi_sites == NULL)
        return fail(reader, "out of memory");
    for (size_t i = 0; i < count; i++) {
        input->mpi_site_count = i + 1;
        if (take_mpi_site(reader, json_array_get(list, i), i, &input->mpi_sites[i]) != 0)
            return -1;
    }
    return 0;
}

/* One task construct of "tasks.constructs". */
static int take_task(struct reader *reader, const json_t *row, size_t i, struct ompc_merge_task *task)
{
    char where[64];
    snprintf(where, sizeof where, "tasks.constructs[%zu].", i);
    if (!json_is_object(row))
        return fail(reader, "\"tasks.constructs[%zu]\" is %s, not an object", i, type_name(row));
    if (take_location(reader, row, where, "location", &task->where) != 0
        || take_count(reader, row, where, "created", &task->created) != 0
        || take_count(reader, row, where, "executed", &task->executed) != 0
        || take_count(reader, row, where, "runs", &task->runs) != 0
        || take_count(reader, row, where, "create_ns", &task->create_ns) != 0)
        return -1;
    return take_count(reader, row, where, "exec_ns", &task->exec_ns);
}

/* The task constructs ("tasks.constructs"; "tasks" null when no task ran, "constructs" null when unnamed) and the scheduling cost per task run. */
static int take_tasks(struct reader *reader, const json_t *root, struct ompc_merge_input *input)
{
    const json_t *tasks = json_object_get(root, "tasks"), *list, *sched;
    size_t count;
    input->sched_per_run_ns = -1;
    if (tasks == NULL || json_is_null(tasks))
        return 0;
    if (!json_is_object(tasks))
        return fail(reader, "\"tasks\" is %s, not an object", type_name(tasks));
    sched = json_object_get(tasks, "sched_per_run_ns");
    if (sched != NULL && !json_is_null(sched)) {
        if (!json_is_number(sched) || !(json_number_value(sched) >= 0 && json_number_value(sched) < 1e18))
            return fail(reader, "\"tasks.sched_per_run_ns\" is not a number from 0 to 1e18");
        input->sched_per_run_ns = json_number_value(sched);
    }
    if (take_array(reader, tasks, "constructs", sizeof *input->tasks, &list, &count) != 0)
        return -1;
    if (count == 0)
        return 0;
    input->tasks = calloc(count, sizeof *input->tasks);
    if (input->tasks == NULL)
        return fail(reader, "out of memory");
    for (size_t i = 0; i < count; i++) {
        input->task_count = i + 1;
        if (take_task(reader, json_array_get(list, i), i, &input->tasks[i]) != 0)
            return -1;
    }
    return 0;
}

/* One entry of "limits": what, count, bound and the sentence. */
static int take_limit(struct reader *reader, const json_t *row, size_t i, struct ompc_merge_limit *limit)
{
    char where[64];
    snprintf(where, sizeof where, "limits[%zu].", i);
    if (!json_is_object(row))
        return fail(reader, "\"limits[%zu]\" is %s, not an object", i, type_name(row));
    if (take_text(reader, row, where, "what", "?", &limit->what) != 0
        || take_text(reader, row, where, "text", "", &limit->text) != 0
        || take_count(reader, row, where, "count", &limit->count) != 0)
        return -1;
    return take_count(reader, row, where, "bound", &limit->bound);
}

/* The bounds the report's run reached ("limits") and its record's damage ("record_damage"), kept to be said again. */
static int take_limits(struct reader *reader, const json_t *root, struct ompc_merge_input *input)
{
    const json_t *list, *damage;
    size_t count;
    if (take_array(reader, root, "limits", sizeof *input->limits, &list, &count) != 0
        || take_object(reader, root, "", "record_damage", 0, &damage) != 0
        || budget_take(reader, sizeof *input->limits) != 0)
        return -1;
    if (count == 0 && damage == NULL)
        return 0;
    input->limits = calloc(count + 1, sizeof *input->limits);
    if (input->limits == NULL)
        return fail(reader, "out of memory");
    for (size_t i = 0; i < count; i++) {
        input->limit_count = i + 1;
        if (take_limit(reader, json_array_get(list, i), i, &input->limits[i]) != 0)
            return -1;
    }
    if (damage == NULL)
        return 0;
    struct ompc_merge_limit *entry = &input->limits[input->limit_count++];
    if (copy_text(reader, "record_damage", strlen("record_damage"), &entry->what) != 0
        || take_text(reader, damage, "record_damage.", "text", "", &entry->text) != 0)
        return -1;
    return take_count(reader, damage, "record_damage.", "findings", &entry->count);
}

/*
 * The report's MPI counts ("totals.mpi", and the initial thread's
 * "threads[].mpi.ns"); absent in reports of versions before them, read as
 * none.  Samples in MPI are at most the report's samples.
 */
static int take_mpi(struct reader *reader, const json_t *root, const json_t *totals, struct ompc_merge_input *input)
{
    const json_t *mpi, *measured, *threads = json_object_get(root, "threads");
    if (take_object(reader, totals, "totals.", "mpi", 0, &mpi) != 0
        || take_count(reader, mpi, "totals.mpi.", "samples", &input->mpi_samples) != 0
        || take_count(reader, mpi, "totals.mpi.", "ns", &input->mpi_ns) != 0
        || take_count(reader, mpi, "totals.mpi.", "calls", &input->mpi_calls) != 0
        || take_count(reader, mpi, "totals.mpi.", "setup_ns", &input->mpi_setup_ns) != 0
        || take_count(reader, mpi, "totals.mpi.", "idle_samples", &input->mpi_idle_samples) != 0)
        return -1;
    if (input->mpi_idle_samples > input->states[THR_IDLE_STATE])
        return fail(reader, "\"totals.mpi.idle_samples\" (%" PRId64 ") is more than \"totals.states.IDLE\" (%" PRId64
                    ")", input->mpi_idle_samples, input->states[THR_IDLE_STATE]);
    measured = json_object_get(mpi, "measured");
    if (measured != NULL && !json_is_boolean(measured))
        return fail(reader, "\"totals.mpi.measured\" is %s, not a boolean", type_name(measured));
    input->mpi_measured = json_is_true(measured);
    if (input->mpi_samples > input->samples)
        return fail(reader, "\"totals.mpi.samples\" (%" PRId64 ") is more than \"totals.samples\" (%" PRId64 ")",
                    input->mpi_samples, input->samples);
    if (threads != NULL && !json_is_array(threads))
        return fail(reader, "\"threads\" is %s, not an array", type_name(threads));
    for (size_t i = 0; i < json_array_size(threads); i++) {
        const json_t *thread = json_array_get(threads, i), *thread_mpi;
        char where[64];
        snprintf(where, sizeof where, "threads[%zu].", i);
        if (!json_is_object(thread))
            return fail(reader, "\"threads[%zu]\" is %s, not an object", i, type_name(thread));
        if (!json_is_true(json_object_get(thread, "initial")))
            continue;
        char where_mpi[64];
        snprintf(where_mpi, sizeof where_mpi, "threads[%zu].mpi.", i);
        if (take_object(reader, thread, where, "mpi", 0, &thread_mpi) != 0
            || take_count(reader, thread_mpi, where_mpi, "ns", &input->initial_mpi_ns) != 0)
            return -1;
        break;
    }
    /* MPI_Init and MPI_Finalize are the initial thread's: more of them than its MPI time is no report of ours. */
    if (input->mpi_setup_ns > input->initial_mpi_ns)
        return fail(reader, "\"totals.mpi.setup_ns\" (%" PRId64 ") is more than the initial thread's MPI time (%" PRId64
                    ")", input->mpi_setup_ns, input->initial_mpi_ns);
    return take_mpi_sites(reader, mpi, input);
}

/*
 * One POP split ("samples", "useful", "lost"): every count at most
 * `samples`, and useful work and the losses together too, so no
 * efficiency derived from them leaves 0 to 1.  `object` absent or null:
 * not known.
 */
static int take_efficiency(struct reader *reader, const json_t *object, const char *where,
                           struct ompc_merge_efficiency *e)
{
    const json_t *lost;
    char inner[128];
    memset(e, 0, sizeof *e);
    if (object == NULL || json_is_null(object))
        return 0;
    if (!json_is_object(object))
        return fail(reader, "\"%s\" is %s, not an object", where, type_name(object));
    snprintf(inner, sizeof inner, "%s.lost.", where);
    char outer[128];
    snprintf(outer, sizeof outer, "%s.", where);
    if (take_count(reader, object, outer, "samples", &e->samples) != 0
        || take_count(reader, object, outer, "useful", &e->useful) != 0
        || take_object(reader, object, outer, "lost", 1, &lost) != 0
        || take_count(reader, lost, inner, "load_imbalance", &e->imbalance) != 0
        || take_count(reader, lost, inner, "synchronisation", &e->sync) != 0
        || take_count(reader, lost, inner, "scheduling", &e->sched) != 0
        || take_count(reader, lost, inner, "serialisation", &e->serial) != 0
        || take_count(reader, lost, inner, "mpi_idle", &e->mpi_idle) != 0)
        return -1;
    const int64_t parts[] = {e->useful, e->imbalance, e->sync, e->sched, e->serial, e->mpi_idle};
    int64_t sum = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (parts[i] > e->samples - sum)
            return fail(reader, "\"%s\": useful and lost samples sum to more than its %" PRId64 " samples", where,
                        e->samples);
        sum += parts[i];
    }
    e->known = 1;
    return 0;
}

/*
 * The report's efficiency metrics ("efficiency"): the process's split, its
 * serial fraction and each construct's split, whose rows follow
 * "constructs" one for one (the same code address).  Reports without them
 * (none written by ompcollect before they existed) read as unknown.
 */
static int take_efficiencies(struct reader *reader, const json_t *root, struct ompc_merge_input *input)
{
    const json_t *object = json_object_get(root, "efficiency"), *fraction, *rows;
    input->serial_fraction = -1;
    if (take_efficiency(reader, object, "efficiency", &input->efficiency) != 0)
        return -1;
    if (!input->efficiency.known)
        return 0;
    fraction = json_object_get(object, "serial_fraction");
    if (fraction != NULL && (!json_is_number(fraction) || !(json_number_value(fraction) >= 0)
                             || json_number_value(fraction) > 1))
        return fail(reader, "\"efficiency.serial_fraction\" is not a number from 0 to 1");
    if (fraction != NULL)
        input->serial_fraction = json_number_value(fraction);
    rows = json_object_get(object, "constructs");
    if (rows == NULL)
        return 0;
    if (!json_is_array(rows) || json_array_size(rows) != input->construct_count)
        return fail(reader, "\"efficiency.constructs\" is not an array of the %zu rows of \"constructs\"",
                    input->construct_count);
    for (size_t i = 0; i < input->construct_count; i++) {
        const json_t *row = json_array_get(rows, i);
        struct ompc_merge_location at = {0};
        char where[80];
        snprintf(where, sizeof where, "efficiency.constructs[%zu].", i);
        if (!json_is_object(row))
            return fail(reader, "\"efficiency.constructs[%zu]\" is %s, not an object", i, type_name(row));
        const json_t *location;
        char inner[96];
        snprintf(inner, sizeof inner, "%slocation.", where);
        if (take_object(reader, row, where, "location", 1, &location) != 0
            || take_hex(reader, location, inner, "address", &at.address) != 0)
            return -1;
        if (at.address != input->constructs[i].where.address)
            return fail(reader, "\"%saddress\" is not the address of \"constructs[%zu]\"", inner, i);
        snprintf(where, sizeof where, "efficiency.constructs[%zu].efficiency", i);
        if (take_efficiency(reader, json_object_get(row, "efficiency"), where, &input->constructs[i].efficiency) != 0)
            return -1;
    }
    return 0;
}

/* What the summary needs of a parsed report. */
static int take(struct reader *reader, const json_t *root, struct ompc_merge_input *input)
{
    const json_t *tool = json_object_get(root, "tool"), *totals, *states;
    if (!json_is_object(root) || !json_is_string(tool) || json_string_length(tool) != strlen("ompcollect")
        || strcmp(json_string_value(tool), "ompcollect") != 0)
        return fail(reader, "not an ompcollect JSON report (write one with --format=json)");
    if (take_object(reader, root, "", "totals", 1, &totals) != 0
        || take_object(reader, totals, "totals.", "states", 1, &states) != 0
        || take_count(reader, totals, "totals.", "threads", &input->threads) != 0
        || take_count(reader, totals, "totals.", "samples", &input->samples) != 0
        || take_states(reader, states, "totals.states.", input->states) != 0
        || take_header(reader, root, input) != 0 || take_regions(reader, root, input) != 0
        || take_constructs(reader, root, input) != 0 || take_waits(reader, root, input) != 0
        || take_mpi(reader, root, totals, input) != 0 || take_tasks(reader, root, input) != 0
        || take_efficiencies(reader, root, input) != 0)
        return -1;
    return take_limits(reader, root, input);
}

int ompc_merge_parse(const char *data, size_t length, size_t limit, struct ompc_merge_input *input,
                     char *error, size_t error_size)
{
    struct reader reader = {error, error_size, limit};
    const char *file = input->file;
    memset(input, 0, sizeof *input);
    input->file = file;
    if (error_size > 0)
        error[0] = '\0';
    if (length > limit)
        return too_big(&reader);
    json_malloc_t old_malloc;
    json_free_t old_free;
    json_get_alloc_funcs(&old_malloc, &old_free);
    budget.left = limit;
    budget.exhausted = 0;
    json_set_alloc_funcs(budget_malloc, budget_free);
    json_t *root = parse(data, length, &reader);
    int status = root != NULL ? take(&reader, root, input) : -1;
    json_decref(root);
    json_set_alloc_funcs(old_malloc, old_free);
    return status;
}

/* Frees the strings of a location. */
static void release_location(struct ompc_merge_location *location)
{
    free(location->module.text);
    free(location->function.text);
    free(location->mangled.text);
    free(location->enclosing.text);
    free(location->file.text);
    free(location->construct.text);
}

void ompc_merge_input_release(struct ompc_merge_input *input)
{
    for (size_t i = 0; i < input->construct_count; i++)
        release_location(&input->constructs[i].where);
    for (size_t i = 0; i < input->wait_count; i++) {
        free(input->waits[i].what.text);
        release_location(&input->waits[i].where);
        release_location(&input->waits[i].object);
    }
    for (size_t i = 0; i < input->mpi_site_count; i++) {
        free(input->mpi_sites[i].call.text);
        release_location(&input->mpi_sites[i].where);
    }
    for (size_t i = 0; i < input->task_count; i++)
        release_location(&input->tasks[i].where);
    free(input->mpi_sites);
    free(input->tasks);
    input->mpi_sites = NULL;
    input->tasks = NULL;
    input->mpi_site_count = input->task_count = 0;
    for (size_t i = 0; i < input->limit_count; i++) {
        free(input->limits[i].what.text);
        free(input->limits[i].text.text);
    }
    free(input->limits);
    input->limits = NULL;
    input->limit_count = 0;
    free(input->constructs);
    free(input->waits);
    input->constructs = NULL;
    input->waits = NULL;
    input->construct_count = input->wait_count = 0;
    free(input->program.text);
    free(input->host.text);
    free(input->fate.text);
    free(input->regions);
    input->program.text = input->host.text = input->fate.text = NULL;
    input->regions = NULL;
    input->region_count = 0;
}
