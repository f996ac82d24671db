/* jsonw-t.c - the launcher's values as jansson JSON (jsonw.c): valid UTF-8 out for any bytes in, control characters and NUL escaped, counts and reals in range, and a failed allocation refused without a crash or a leak. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "lib/tap.h"
#include "names.h"
#include "utf8.h"

/* jansson's allocations: counted, the `fail_at`th failed (0: none), and those still live. */
static long allocations, live, fail_at;

static void *counting_malloc(size_t size)
{
    if (++allocations == fail_at)
        return NULL;
    void *block = malloc(size);
    live += block != NULL;
    return block;
}

static void counting_free(void *block)
{
    live -= block != NULL;
    free(block);
}

/* What `value` dumps as (compact, JSON_ENCODE_ANY), malloc'ed and NUL-terminated; NULL when `value` is NULL. */
static char *dumped(json_t *value, size_t *size)
{
    char *buffer = NULL;
    *size = 0;
    FILE *out = open_memstream(&buffer, size);
    if (out == NULL)
        tap_bail("open_memstream failed");
    int status = ompc_json_dump(value, out, OMPC_JSON_COMPACT | JSON_ENCODE_ANY);
    if (fclose(out) != 0)
        tap_bail("writing to memory failed");
    if (status != 0) {
        free(buffer);
        return NULL;
    }
    return buffer;
}

/* Whether `length` bytes of `text` as a JSON string are exactly `expected` (a C string literal). */
static int writes(const char *text, size_t length, const char *expected, const char *what)
{
    size_t size;
    json_t *value = ompc_json_text(text, length);
    char *got = dumped(value, &size);
    json_decref(value);
    int same = got != NULL && size == strlen(expected) && memcmp(got, expected, size) == 0;
    if (!tap_ok(same, "%s", what))
        tap_diag("wrote %s, expected %s", got != NULL ? got : "nothing", expected);
    free(got);
    return same;
}

/*
 * Whether what `text` becomes is one JSON string to jansson's strict parser
 * (NUL allowed) holding exactly the input with ill-formed sequences replaced
 * (ompc_utf8_sanitize), and is itself well-formed UTF-8 with no raw control
 * character; the same for a reused string set with ompc_json_text_set.
 */
static int round_trip(const char *text, size_t length, json_t *reused, char *why, size_t why_size)
{
    size_t size, reused_size;
    json_t *value = ompc_json_text(text, length);
    char *got = dumped(value, &size);
    char *again = ompc_json_text_set(reused, text, length) == 0 ? dumped(reused, &reused_size) : NULL;
    char *sanitized = malloc(3 * length + 1);
    size_t sanitized_length = ompc_utf8_sanitize(text, length, sanitized);
    json_error_t error;
    json_t *back = got != NULL ? json_loadb(got, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &error) : NULL;
    int ok = 1;
    if (got == NULL || again == NULL)
        ok = 0, snprintf(why, why_size, "nothing was made");
    else if (back == NULL || !json_is_string(back))
        ok = 0, snprintf(why, why_size, "jansson: %s", back == NULL ? error.text : "not a string");
    else if (json_string_length(back) != sanitized_length
             || memcmp(json_string_value(back), sanitized, sanitized_length) != 0)
        ok = 0, snprintf(why, why_size, "read back other than the sanitized input");
    else if (!ompc_utf8_valid(got, size))
        ok = 0, snprintf(why, why_size, "the output is not UTF-8");
    else if (reused_size != size || memcmp(again, got, size) != 0)
        ok = 0, snprintf(why, why_size, "the reused string differs: %s vs %s", again, got);
    for (size_t i = 0; ok && i < size; i++)
        if ((unsigned char)got[i] < 0x20)
            ok = 0, snprintf(why, why_size, "a raw control character 0x%02x in the output", (unsigned char)got[i]);
    json_decref(back);
    json_decref(value);
    free(sanitized);
    free(again);
    free(got);
    return ok;
}

/* Escapes: '"' and '\' get a backslash, every control character (NUL too) an escape, nothing else. */
static void test_escapes(void)
{
    writes("", 0, "\"\"", "the empty string");
    writes("a\"b\\c", 5, "\"a\\\"b\\\\c\"", "quote and backslash get a backslash");
    writes("\n\t\r\b\f", 5, "\"\\n\\t\\r\\b\\f\"", "newline, tab, CR, BS, FF are escaped");
    writes("\x01\x1b\x1f", 3, "\"\\u0001\\u001B\\u001F\"", "other control characters are \\u00XX");
    writes("a\0b", 3, "\"a\\u0000b\"", "a NUL inside a counted string is \\u0000");
    writes("/ \x7f ~", 5, "\"/ \x7f ~\"", "'/' and DEL stay as they are");
    writes("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf", 19,
           "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\"",
           "2-, 3- and 4-byte UTF-8, U+10FFFF included, is copied");
}

/* Ill-formed UTF-8: each maximal subpart is one U+FFFD, as Python's and browsers' decoders do. */
static void test_replacement(void)
{
#define R OMPC_UTF8_REPLACEMENT
    writes("a\xff" "b", 3, "\"a" R "b\"", "a raw 0xff byte is U+FFFD");
    writes("\x80\xbf", 2, "\"" R R "\"", "each stray continuation byte is one U+FFFD");
    writes("\xc0\xaf", 2, "\"" R R "\"", "overlong '/' (C0 AF): two U+FFFD");
    writes("\xe0\x80\xaf", 3, "\"" R R R "\"", "overlong 3-byte form: three U+FFFD");
    writes("\xf0\x80\x80\xaf", 4, "\"" R R R R "\"", "overlong 4-byte form: four U+FFFD");
    writes("\xed\xa0\x80\xed\xb0\x80", 6, "\"" R R R R R R "\"",
           "a surrogate pair encoded as UTF-8 (CESU-8): six U+FFFD, never a surrogate");
    writes("\xed\xa0\x80", 3, "\"" R R R "\"", "a lone high surrogate in UTF-8 form");
    writes("\xf4\x90\x80\x80", 4, "\"" R R R R "\"", "above U+10FFFF");
    writes("\xe2\x82" "x", 3, "\"" R "x\"", "a sequence cut short is one U+FFFD and the next byte stays");
    writes("\xe2\x82", 2, "\"" R "\"", "a sequence cut by the end of the text");
    writes("\xf0\x9f\x98", 3, "\"" R "\"", "a 4-byte sequence cut after three");
    writes("\xc3\"", 2, "\"" R "\\\"\"", "a lead byte before a quote: the quote is still escaped");
    writes("\xff\0", 2, "\"" R "\\u0000\"", "a bad byte then a NUL");
#undef R
}

/* Whether `value` dumps as exactly `expected`; releases it. */
static int is(json_t *value, const char *expected)
{
    size_t size;
    char *got = dumped(value, &size);
    int same = got != NULL && strcmp(got, expected) == 0;
    if (!same)
        tap_diag("wrote %s, expected %s", got != NULL ? got : "nothing", expected);
    json_decref(value);
    free(got);
    return same;
}

/* The NUL-terminated forms: NULL is "" for the reports and traces, null for the locations. */
static void test_strings(void)
{
    tap_ok(is(ompc_json_string(NULL), "\"\"") && is(ompc_json_string("x\n"), "\"x\\n\""),
           "ompc_json_string: NULL is \"\", text is escaped");
    tap_ok(is(ompc_json_string_or_null(NULL), "null")
               && is(ompc_json_string_or_null("a\xff"), "\"a" OMPC_UTF8_REPLACEMENT "\""),
           "ompc_json_string_or_null: NULL is null, text is mended");
}

/* Numbers: counts within jansson's integers, else null; reals rounded as printf rounds, null when not finite. */
static void test_numbers(void)
{
    tap_ok(is(ompc_json_u64(0), "0") && is(ompc_json_u64(INT64_MAX), "9223372036854775807")
               && is(ompc_json_u64((uint64_t)INT64_MAX + 1), "null") && is(ompc_json_u64(UINT64_MAX), "null"),
           "ompc_json_u64: up to 2^63-1 as it is, above that null (a damaged record's)");
    tap_ok(is(ompc_json_hex(0, 0), "\"0x0\"") && is(ompc_json_hex(0x55d1c2a1b3f1, 0), "\"0x55d1c2a1b3f1\"")
               && is(ompc_json_hex(0x1000001, 16), "\"0x0000000001000001\""),
           "ompc_json_hex: \"0x...\", zero-padded when asked");
    tap_ok(is(ompc_json_fixed(1.0944, 3), "1.094") && is(ompc_json_fixed(1.0946, 3), "1.095")
               && is(ompc_json_fixed(2.0, 3), "2.0") && is(ompc_json_fixed(0.1234567, 6), "0.123457")
               && is(ompc_json_fixed(958920.5554, 3), "958920.555"),
           "ompc_json_fixed: the value printf's %%.Nf shows, written in 15 digits");
    tap_ok(is(ompc_json_fixed(NAN, 3), "null") && is(ompc_json_fixed(INFINITY, 3), "null")
               && is(ompc_json_fixed(-INFINITY, 6), "null"),
           "ompc_json_fixed: NaN and infinity are null, never a NULL that json_real would give");
    uint64_t ticks[OMPC_NSTATES] = {9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    tap_ok(is(ompc_json_states(ticks), "{\"OVHD\":1,\"WORK\":2,\"IBAR\":3,\"EBAR\":4,\"IDLE\":5,\"SERIAL\":6,"
                                       "\"REDUC\":7,\"LKWT\":8,\"CTWT\":9,\"ODWT\":10,\"ATWT\":11}"),
           "ompc_json_states: the 11 states in their order, invalid answers (index 0) left out");
}

/* The readable layout: indented by two, members in the order they were set. */
static void test_layout(void)
{
    json_t *object = json_object(), *inner = json_object();
    int failed = ompc_json_set(object, "zeta", json_integer(1));
    failed |= ompc_json_set(inner, "b", json_true());
    failed |= ompc_json_set(inner, "a", json_array());
    failed |= ompc_json_set(object, "alpha", inner);
    failed |= ompc_json_set(object, "real", json_real(0.5));
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    failed |= out == NULL || ompc_json_dump(object, out, OMPC_JSON_READABLE) != 0;
    if (out != NULL)
        fclose(out);
    const char *expected = "{\n  \"zeta\": 1,\n  \"alpha\": {\n    \"b\": true,\n    \"a\": []\n  },\n"
                           "  \"real\": 0.5\n}";
    if (!tap_ok(!failed && buffer != NULL && strcmp(buffer, expected) == 0,
                "OMPC_JSON_READABLE: two spaces a level, \": \" after a key, insertion order"))
        tap_diag("wrote %s", buffer != NULL ? buffer : "nothing");
    free(buffer);
    json_decref(object);
}

/* The helpers refuse what they cannot take, releasing it; a dump that cannot write says so. */
static void test_refusals(void)
{
    json_t *object = json_object(), *array = json_array();
    tap_ok(ompc_json_set(object, "x", NULL) == -1 && ompc_json_set(NULL, "x", json_string("y")) == -1
               && ompc_json_append(array, NULL) == -1 && ompc_json_append(NULL, json_integer(1)) == -1
               && json_object_size(object) == 0 && json_array_size(array) == 0,
           "ompc_json_set and ompc_json_append: -1 for a NULL value or container");
    json_t *kept = json_string("kept");
    tap_ok(ompc_json_built(json_incref(kept), 1) == NULL && kept->refcount == 1
               && ompc_json_built(kept, 0) == kept,
           "ompc_json_built: a failed value is released and NULL, a made one passed on");
    FILE *full = fopen("/dev/full", "w");
    if (full != NULL)
        setvbuf(full, NULL, _IONBF, 0);
    tap_ok(ompc_json_dump(NULL, stdout, OMPC_JSON_COMPACT) == -1
               && (full == NULL || ompc_json_dump(object, full, OMPC_JSON_COMPACT) == -1),
           "ompc_json_dump: -1 for NULL and for a write that fails (/dev/full)");
    if (full != NULL)
        fclose(full);
    json_decref(kept);
    json_decref(object);
    json_decref(array);
}

/* Makes an object of every kind of value; NULL when anything failed. */
static json_t *make_everything(void)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "text", ompc_json_text("a\xff" "b", 3));
    failed |= ompc_json_set(object, "count", ompc_json_u64(7));
    failed |= ompc_json_set(object, "ratio", ompc_json_fixed(1.5, 3));
    failed |= ompc_json_set(object, "where", ompc_json_hex(0x10, 0));
    uint64_t ticks[OMPC_NSTATES] = {0};
    failed |= ompc_json_set(object, "states", ompc_json_states(ticks));
    json_t *array = json_array();
    failed |= ompc_json_append(array, ompc_json_string("x"));
    failed |= ompc_json_set(object, "list", array);
    json_t *reused = json_string("");
    failed |= ompc_json_text_set(reused, "longer than before", 18);
    failed |= ompc_json_set(object, "reused", reused);
    return ompc_json_built(object, failed);
}

/* Each of jansson's allocations failing in turn, the others not: the object is refused every time, nothing leaks. */
static void test_allocation_failures(void)
{
    live = allocations = fail_at = 0;
    json_decref(make_everything());
    long needed = allocations;
    int leaked = live != 0, refused = 0;
    for (fail_at = 1; fail_at <= needed; fail_at++) {
        allocations = 0;
        json_t *object = make_everything();
        refused += object == NULL;
        json_decref(object);
        if (live != 0)
            leaked = 1, tap_diag("failing allocation %ld: %ld blocks left", fail_at, live);
        live = 0;
    }
    fail_at = 0;
    tap_ok(!leaked && needed > 20 && refused == needed,
           "each of the %ld allocations failing: the object refused %d times, nothing leaks", needed, refused);
}

/* A small deterministic generator, so a failure repeats. */
static unsigned next_random(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(*state >> 33);
}

/* Fixed cases and 20000 random byte strings (biased to the bytes UTF-8 and JSON care about) read back by jansson. */
static void test_round_trips(void)
{
    static const char *const fixed[] = {"plain", "\"\\/\b\f\n\r\t", "\xed\xa0\x80", "\xc3\xa9\xff\xe2\x82",
                                        "\xef\xbf\xbd", "\xef\xbf\xbf", "\xe2\x80\xa8"};
    static const unsigned char alphabet[] = {'a', '"', '\\', '/', 0, 1, '\n', 0x1f, 0x7f, 0x80, 0xbf,
                                             0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xa0, 0x9f, 0xf0, 0xf4,
                                             0x8f, 0x90, 0xf5, 0xff, 0xc3, 0xa9, 0xe2, 0x82, 0xac};
    json_t *reused = json_string("");
    char why[512] = "";
    int failed = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed && !failed; i++)
        failed = !round_trip(fixed[i], strlen(fixed[i]), reused, why, sizeof why);
    tap_ok(!failed, "fixed cases read back by jansson as the sanitized input%s%s", failed ? ": " : "", why);
    unsigned long long state = 22;
    char text[24];
    size_t length = 0;
    failed = 0;
    for (int round = 0; round < 20000 && !failed; round++) {
        length = next_random(&state) % sizeof text;
        for (size_t i = 0; i < length; i++)
            text[i] = (char)(next_random(&state) % 3 == 0 ? next_random(&state) & 0xff
                                                           : alphabet[next_random(&state) % sizeof alphabet]);
        failed = !round_trip(text, length, reused, why, sizeof why);
    }
    if (!tap_ok(!failed, "20000 random byte strings: valid JSON and UTF-8 without a raw control character, "
                         "read back as the sanitized input, alike new and reused"))
        for (size_t i = 0; i < length; i++)
            tap_diag("byte %zu: 0x%02x (%s)", i, (unsigned char)text[i], why);
    json_decref(reused);
}

/* The checker itself at the edges of table 3-7. */
static void test_checker(void)
{
    tap_ok(ompc_utf8_char("\xc2\x80", 2) == 2 && ompc_utf8_char("\xc1\xbf", 2) == -1
               && ompc_utf8_char("\xe0\xa0\x80", 3) == 3 && ompc_utf8_char("\xe0\x9f\xbf", 3) == -1
               && ompc_utf8_char("\xed\x9f\xbf", 3) == 3 && ompc_utf8_char("\xed\xa0\x80", 3) == -1
               && ompc_utf8_char("\xf0\x90\x80\x80", 4) == 4 && ompc_utf8_char("\xf4\x8f\xbf\xbf", 4) == 4
               && ompc_utf8_char("\xf4\x90\x80\x80", 4) == -1 && ompc_utf8_char("\xf0\x90\x80", 3) == -3
               && ompc_utf8_char("\xf5\x80", 2) == -1,
           "ompc_utf8_char: the first and last well-formed sequences of each row, and their neighbours");
    tap_ok(ompc_utf8_sanitize("\xff\xfe", 2, NULL) == 6 && ompc_utf8_valid("a\xc3\xa9", 3)
               && !ompc_utf8_valid("a\xc3", 2),
           "ompc_utf8_sanitize counts 3 bytes per U+FFFD; ompc_utf8_valid sees a cut sequence");
}

int main(void)
{
    json_set_alloc_funcs(counting_malloc, counting_free);
    tap_plan(36);
    test_escapes();
    test_replacement();
    test_strings();
    test_numbers();
    test_layout();
    test_refusals();
    test_allocation_failures();
    test_round_trips();
    test_checker();
    return tap_done();
}
