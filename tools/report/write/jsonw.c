/* jsonw.c - the launcher's values as jansson's json_t (strings made valid UTF-8 first, counts kept in range, reals finite) and the one dump call. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "jsonw.h"
#include "names.h"
#include "utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * `text` itself when its `*length` bytes are well-formed UTF-8, as nearly
 * all are, else a malloc'd copy (also in `*copy`, to be freed) with each
 * ill-formed sequence replaced by U+FFFD and `*length` updated; NULL
 * without memory.  jansson checks the text again and would refuse it.
 */
static const char *valid_text(const char *text, size_t *length, char **copy)
{
    *copy = NULL;
    if (ompc_utf8_valid(text, *length))
        return text;
    *copy = malloc(ompc_utf8_sanitize(text, *length, NULL));
    if (*copy == NULL)
        return NULL;
    *length = ompc_utf8_sanitize(text, *length, *copy);
    return *copy;
}

json_t *ompc_json_text(const char *text, size_t length)
{
    if (length == 0)
        return json_string("");
    char *copy;
    const char *valid = valid_text(text, &length, &copy);
    json_t *string = valid != NULL ? json_stringn(valid, length) : NULL;
    free(copy);
    return string;
}

int ompc_json_text_set(json_t *string, const char *text, size_t length)
{
    if (length == 0)
        return json_string_set(string, "") == 0 ? 0 : -1;
    char *copy;
    const char *valid = valid_text(text, &length, &copy);
    int status = valid != NULL && json_string_setn(string, valid, length) == 0 ? 0 : -1;
    free(copy);
    return status;
}

json_t *ompc_json_string(const char *text)
{
    return text != NULL ? ompc_json_text(text, strlen(text)) : json_string("");
}

char *ompc_json_quoted(const char *text, size_t length, size_t *size)
{
    /* json_dumpb into our own block: json_dumps's would come from jansson's allocator, which the caller may not free. */
    json_t *string = ompc_json_text(text, length);
    size_t flags = JSON_ENCODE_ANY | JSON_COMPACT, needed = string != NULL ? json_dumpb(string, NULL, 0, flags) : 0;
    char *quoted = needed != 0 ? malloc(needed + 1) : NULL;
    if (quoted != NULL && json_dumpb(string, quoted, needed, flags) != needed) {
        free(quoted);
        quoted = NULL;
    }
    json_decref(string);
    if (quoted != NULL) {
        quoted[needed] = '\0';
        *size = needed;
    }
    return quoted;
}

json_t *ompc_json_string_or_null(const char *text)
{
    return text != NULL ? ompc_json_text(text, strlen(text)) : json_null();
}

json_t *ompc_json_u64(uint64_t value)
{
    return value <= (uint64_t)INT64_MAX ? json_integer((json_int_t)value) : json_null();
}

json_t *ompc_json_hex(uint64_t value, int width)
{
    char text[24];
    snprintf(text, sizeof text, "0x%0*" PRIx64, width > 0 && width <= 16 ? width : 1, value);
    return json_string(text);
}

json_t *ompc_json_fixed(double value, int decimals)
{
    if (!isfinite(value))
        return json_null();
    /* Rounded through the decimal text, so the value is what "%.3f" shows, not a binary neighbour of it. */
    char text[400];
    snprintf(text, sizeof text, "%.*f", decimals >= 0 && decimals <= 17 ? decimals : 17, value);
    return json_real(strtod(text, NULL));
}

json_t *ompc_json_states(const uint64_t *ticks)
{
    json_t *states = json_object();
    int failed = states == NULL;
    for (int state = 1; state < OMPC_NSTATES && !failed; state++)
        failed = ompc_json_set(states, ompc_state_name(state), ompc_json_u64(ticks[state]));
    return ompc_json_built(states, failed);
}

json_t *ompc_json_built(json_t *value, int failed)
{
    if (failed) {
        json_decref(value);
        return NULL;
    }
    return value;
}

int ompc_json_set(json_t *object, const char *key, json_t *value)
{
    /* json_object_set_new releases `value` itself when it cannot take it, and refuses a NULL one. */
    if (object == NULL) {
        json_decref(value);
        return -1;
    }
    return json_object_set_new(object, key, value) == 0 ? 0 : -1;
}

int ompc_json_append(json_t *array, json_t *value)
{
    if (array == NULL) {
        json_decref(value);
        return -1;
    }
    return json_array_append_new(array, value) == 0 ? 0 : -1;
}

/*
 * Where a dump goes: jansson hands over each token on its own, and
 * json_dumpf would make each an fwrite (a lock and a call: a quarter of the
 * time of a large trace), so they are gathered here and written in pieces.
 */
struct sink {
    FILE *out;
    size_t used;
    char bytes[8192];
};

/* jansson's callback: keeps `size` bytes, writing out what was kept when they do not fit; -1 ends the dump. */
static int to_sink(const char *buffer, size_t size, void *data)
{
    struct sink *sink = data;
    if (size > sizeof sink->bytes - sink->used) {
        if (fwrite(sink->bytes, 1, sink->used, sink->out) != sink->used)
            return -1;
        sink->used = 0;
        if (size > sizeof sink->bytes)
            return fwrite(buffer, 1, size, sink->out) == size ? 0 : -1;
    }
    memcpy(sink->bytes + sink->used, buffer, size);
    sink->used += size;
    return 0;
}

int ompc_json_dump(const json_t *value, FILE *out, size_t flags)
{
    struct sink sink;
    sink.out = out;
    sink.used = 0;
    if (value == NULL || json_dump_callback(value, to_sink, &sink, flags) != 0)
        return -1;
    return fwrite(sink.bytes, 1, sink.used, out) == sink.used ? 0 : -1;
}
