/* jsonw-t.c - the launcher's one JSON string writer: the reports' escapes byte for byte, UTF-8 kept, ill-formed bytes made U+FFFD, and every output read back by jansson as what was meant. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "lib/tap.h"
#include "utf8.h"

/* The escaper every report, trace and merge had before jsonw.c (they were
 * five copies of this), kept here as the reference for well-formed text. */
static void old_json_text(FILE *out, const char *text, size_t length)
{
    fputc('"', out);
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* What a writer wrote for `length` bytes of `text`, malloc'ed and NUL-terminated; `*size` gets its length. */
static char *written(void (*writer)(FILE *, const char *, size_t), const char *text, size_t length, size_t *size)
{
    char *buffer = NULL;
    FILE *out = open_memstream(&buffer, size);
    if (out == NULL)
        tap_bail("open_memstream failed");
    writer(out, text, length);
    if (fclose(out) != 0)
        tap_bail("writing to memory failed");
    return buffer;
}

/* Whether the writer turns `length` bytes of `text` into exactly `expected` (a C string literal). */
static int writes(const char *text, size_t length, const char *expected, const char *what)
{
    size_t size;
    char *got = written(ompc_json_text, text, length, &size);
    int same = size == strlen(expected) && memcmp(got, expected, size) == 0;
    if (!tap_ok(same, "%s", what))
        tap_diag("wrote %s, expected %s", got, expected);
    free(got);
    return same;
}

/*
 * Whether what the writer makes of `text` is one JSON string to jansson (in
 * strict mode, NUL allowed), holding exactly the input with ill-formed
 * sequences replaced (ompc_utf8_sanitize), and is itself well-formed UTF-8;
 * for well-formed input, also whether it is the old escaper's bytes.
 */
static int round_trip(const char *text, size_t length, char *why, size_t why_size)
{
    size_t size, old_size;
    char *got = written(ompc_json_text, text, length, &size);
    char *sanitized = malloc(3 * length + 1);
    size_t sanitized_length = ompc_utf8_sanitize(text, length, sanitized);
    json_error_t error;
    json_t *value = json_loadb(got, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &error);
    int ok = 1;
    if (value == NULL || !json_is_string(value))
        ok = 0, snprintf(why, why_size, "jansson: %s", value == NULL ? error.text : "not a string");
    else if (json_string_length(value) != sanitized_length
             || memcmp(json_string_value(value), sanitized, sanitized_length) != 0)
        ok = 0, snprintf(why, why_size, "read back other than the sanitized input");
    else if (!ompc_utf8_valid(got, size))
        ok = 0, snprintf(why, why_size, "the output is not UTF-8");
    if (ok && ompc_utf8_valid(text, length)) {
        char *old = written(old_json_text, text, length, &old_size);
        if (old_size != size || memcmp(old, got, size) != 0)
            ok = 0, snprintf(why, why_size, "differs from the old escaper: %s vs %s", got, old);
        free(old);
    }
    json_decref(value);
    free(sanitized);
    free(got);
    return ok;
}

/* The reports' escapes, unchanged: \" \\ \u00xx (lowercase), nothing else. */
static void test_escapes(void)
{
    writes("", 0, "\"\"", "the empty string");
    writes("a\"b\\c", 5, "\"a\\\"b\\\\c\"", "quote and backslash get a backslash");
    writes("\n\t\r\b\f", 5, "\"\\u000a\\u0009\\u000d\\u0008\\u000c\"",
           "newline, tab, CR, BS, FF are \\u00xx as the reports always wrote them, not \\n");
    writes("\x01\x1b\x1f", 3, "\"\\u0001\\u001b\\u001f\"", "other control characters: \\u00xx in lowercase hex");
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
#undef R
}

/* Whether `text` (a C string) as written by `writer` is `expected`. */
static int writes_string(void (*writer)(FILE *, const char *), const char *text, const char *expected)
{
    char *buffer = NULL;
    size_t size;
    FILE *out = open_memstream(&buffer, &size);
    if (out == NULL)
        tap_bail("open_memstream failed");
    writer(out, text);
    fclose(out);
    int same = strcmp(buffer, expected) == 0;
    if (!same)
        tap_diag("wrote %s, expected %s", buffer, expected);
    free(buffer);
    return same;
}

/* The NUL-terminated forms: NULL is "" for the reports and traces, null for the locations. */
static void test_strings(void)
{
    tap_ok(writes_string(ompc_json_string, NULL, "\"\"") && writes_string(ompc_json_string, "x\n", "\"x\\u000a\""),
           "ompc_json_string: NULL is \"\", text is escaped");
    tap_ok(writes_string(ompc_json_string_or_null, NULL, "null")
               && writes_string(ompc_json_string_or_null, "a\xff", "\"a" OMPC_UTF8_REPLACEMENT "\""),
           "ompc_json_string_or_null: NULL is null, text is escaped");
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
    char why[512] = "";
    int failed = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed && !failed; i++)
        failed = !round_trip(fixed[i], strlen(fixed[i]), why, sizeof why);
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
        failed = !round_trip(text, length, why, sizeof why);
    }
    if (!tap_ok(!failed, "20000 random byte strings: valid JSON and UTF-8, read back as the sanitized input, "
                         "the old bytes when well-formed"))
        for (size_t i = 0; i < length; i++)
            tap_diag("byte %zu: 0x%02x (%s)", i, (unsigned char)text[i], why);
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
    tap_plan(25);
    test_escapes();
    test_replacement();
    test_strings();
    test_round_trips();
    test_checker();
    return tap_done();
}
