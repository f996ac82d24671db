/* json.c - a small recursive-descent JSON reader (RFC 8259) for ompcollect merge, with a depth limit so hostile input cannot exhaust the stack. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

/* The parser's position and its first error. */
struct parser {
    const char *text;
    size_t length;
    size_t at;
    char *error;
    size_t error_size;
    int failed;
};

/* Records the first error with the offset it happened at; returns -1 for the caller to pass on. */
static int fail(struct parser *parser, const char *what)
{
    if (!parser->failed && parser->error_size > 0)
        snprintf(parser->error, parser->error_size, "%s at byte %zu", what, parser->at);
    parser->failed = 1;
    return -1;
}

/* Skips JSON whitespace. */
static void skip_space(struct parser *parser)
{
    while (parser->at < parser->length) {
        char c = parser->text[parser->at];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        parser->at++;
    }
}

/* The next byte, or 0 at the end. */
static char peek(const struct parser *parser)
{
    return parser->at < parser->length ? parser->text[parser->at] : '\0';
}

/* Consumes `word` (true, false, null) or fails. */
static int expect_word(struct parser *parser, const char *word)
{
    size_t length = strlen(word);
    if (parser->length - parser->at < length || memcmp(parser->text + parser->at, word, length) != 0)
        return fail(parser, "unexpected text");
    parser->at += length;
    return 0;
}

/* Appends a code point as UTF-8. */
static void put_utf8(char *out, size_t *used, uint32_t code)
{
    if (code < 0x80) {
        out[(*used)++] = (char)code;
    } else if (code < 0x800) {
        out[(*used)++] = (char)(0xC0 | (code >> 6));
        out[(*used)++] = (char)(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out[(*used)++] = (char)(0xE0 | (code >> 12));
        out[(*used)++] = (char)(0x80 | ((code >> 6) & 0x3F));
        out[(*used)++] = (char)(0x80 | (code & 0x3F));
    } else {
        out[(*used)++] = (char)(0xF0 | (code >> 18));
        out[(*used)++] = (char)(0x80 | ((code >> 12) & 0x3F));
        out[(*used)++] = (char)(0x80 | ((code >> 6) & 0x3F));
        out[(*used)++] = (char)(0x80 | (code & 0x3F));
    }
}

/* Four hex digits of a \u escape, or -1. */
static long hex4(struct parser *parser)
{
    if (parser->length - parser->at < 4)
        return -1;
    long value = 0;
    for (int i = 0; i < 4; i++) {
        char c = parser->text[parser->at++];
        value <<= 4;
        if (c >= '0' && c <= '9')
            value |= c - '0';
        else if (c >= 'a' && c <= 'f')
            value |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            value |= c - 'A' + 10;
        else
            return -1;
    }
    return value;
}

/* A string literal (the opening quote is next); the result is malloc'ed UTF-8. */
static char *parse_string(struct parser *parser)
{
    parser->at++;
    /* Escapes never make the text longer than its source. */
    char *out = malloc(parser->length - parser->at + 1);
    size_t used = 0;
    if (out == NULL) {
        fail(parser, "out of memory");
        return NULL;
    }
    while (parser->at < parser->length) {
        unsigned char c = (unsigned char)parser->text[parser->at++];
        if (c == '"') {
            out[used] = '\0';
            return out;
        }
        if (c < 0x20)
            break;
        if (c != '\\') {
            out[used++] = (char)c;
            continue;
        }
        if (parser->at >= parser->length)
            break;
        char escape = parser->text[parser->at++];
        const char *plain = strchr("\"\\/bfnrt", escape);
        if (plain != NULL && escape != '\0') {
            static const char replacement[] = "\"\\/\b\f\n\r\t";
            out[used++] = replacement[plain - "\"\\/bfnrt"];
            continue;
        }
        if (escape != 'u')
            break;
        long code = hex4(parser);
        if (code < 0)
            break;
        if (code >= 0xD800 && code < 0xDC00 && parser->length - parser->at >= 6
            && parser->text[parser->at] == '\\' && parser->text[parser->at + 1] == 'u') {
            parser->at += 2;
            long low = hex4(parser);
            if (low < 0xDC00 || low > 0xDFFF)
                break;
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        if (code == 0)
            code = '?';
        put_utf8(out, &used, (uint32_t)code);
    }
    free(out);
    fail(parser, "bad string");
    return NULL;
}

/* A number, by JSON's grammar; strtod does the conversion. */
static int parse_number(struct parser *parser, struct ompc_json *value)
{
    size_t start = parser->at;
    if (peek(parser) == '-')
        parser->at++;
    if (peek(parser) < '0' || peek(parser) > '9')
        return fail(parser, "bad number");
    while (peek(parser) >= '0' && peek(parser) <= '9')
        parser->at++;
    if (peek(parser) == '.') {
        parser->at++;
        if (peek(parser) < '0' || peek(parser) > '9')
            return fail(parser, "bad number");
        while (peek(parser) >= '0' && peek(parser) <= '9')
            parser->at++;
    }
    if (peek(parser) == 'e' || peek(parser) == 'E') {
        parser->at++;
        if (peek(parser) == '+' || peek(parser) == '-')
            parser->at++;
        if (peek(parser) < '0' || peek(parser) > '9')
            return fail(parser, "bad number");
        while (peek(parser) >= '0' && peek(parser) <= '9')
            parser->at++;
    }
    char buffer[64];
    size_t length = parser->at - start;
    if (length >= sizeof buffer)
        return fail(parser, "number too long");
    memcpy(buffer, parser->text + start, length);
    buffer[length] = '\0';
    value->type = OMPC_JSON_NUMBER;
    value->number = strtod(buffer, NULL);
    return 0;
}

static int parse_value(struct parser *parser, struct ompc_json *value, int depth);

/* Grows an array's or object's storage to hold one more item. */
static int grow(struct parser *parser, struct ompc_json *value, size_t *capacity, int keyed)
{
    if (value->count < *capacity)
        return 0;
    size_t wanted = *capacity ? 2 * *capacity : 8;
    struct ompc_json *items = realloc(value->items, wanted * sizeof *items);
    if (items == NULL)
        return fail(parser, "out of memory");
    value->items = items;
    if (keyed) {
        char **keys = realloc(value->keys, wanted * sizeof *keys);
        if (keys == NULL)
            return fail(parser, "out of memory");
        value->keys = keys;
    }
    *capacity = wanted;
    return 0;
}

/* An array or object (its opening bracket is next). */
static int parse_container(struct parser *parser, struct ompc_json *value, int depth)
{
    int keyed = peek(parser) == '{';
    char close = keyed ? '}' : ']';
    value->type = keyed ? OMPC_JSON_OBJECT : OMPC_JSON_ARRAY;
    size_t capacity = 0;
    parser->at++;
    skip_space(parser);
    if (peek(parser) == close) {
        parser->at++;
        return 0;
    }
    for (;;) {
        if (grow(parser, value, &capacity, keyed) != 0)
            return -1;
        struct ompc_json *item = &value->items[value->count];
        memset(item, 0, sizeof *item);
        if (keyed) {
            skip_space(parser);
            if (peek(parser) != '"')
                return fail(parser, "expected a member name");
            char *key = parse_string(parser);
            if (key == NULL)
                return -1;
            value->keys[value->count] = key;
            skip_space(parser);
            if (peek(parser) != ':') {
                value->count++;
                return fail(parser, "expected ':'");
            }
            parser->at++;
        }
        value->count++;
        if (parse_value(parser, item, depth + 1) != 0)
            return -1;
        skip_space(parser);
        if (peek(parser) == ',') {
            parser->at++;
            continue;
        }
        if (peek(parser) == close) {
            parser->at++;
            return 0;
        }
        return fail(parser, keyed ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

/* Any value. */
static int parse_value(struct parser *parser, struct ompc_json *value, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(parser, "nested too deeply");
    skip_space(parser);
    switch (peek(parser)) {
    case '{':
    case '[':
        return parse_container(parser, value, depth);
    case '"':
        value->type = OMPC_JSON_STRING;
        value->string = parse_string(parser);
        return value->string != NULL ? 0 : -1;
    case 't':
        value->type = OMPC_JSON_BOOL;
        value->boolean = 1;
        return expect_word(parser, "true");
    case 'f':
        value->type = OMPC_JSON_BOOL;
        return expect_word(parser, "false");
    case 'n':
        value->type = OMPC_JSON_NULL;
        return expect_word(parser, "null");
    case '\0':
        return fail(parser, "unexpected end");
    default:
        return parse_number(parser, value);
    }
}

/* Frees what a value owns (not the value itself). */
static void release(struct ompc_json *value)
{
    free(value->string);
    for (size_t i = 0; i < value->count; i++) {
        release(&value->items[i]);
        if (value->keys != NULL)
            free(value->keys[i]);
    }
    free(value->items);
    free(value->keys);
}

/* Parses one document with nothing after it but whitespace. */
struct ompc_json *ompc_json_parse(const char *text, size_t length, char *error, size_t error_size)
{
    struct parser parser = {text, length, 0, error, error_size, 0};
    struct ompc_json *value = calloc(1, sizeof *value);
    if (value == NULL) {
        fail(&parser, "out of memory");
        return NULL;
    }
    if (parse_value(&parser, value, 0) == 0) {
        skip_space(&parser);
        if (parser.at == parser.length)
            return value;
        fail(&parser, "text after the document");
    }
    release(value);
    free(value);
    return NULL;
}

/* Frees a tree from ompc_json_parse. */
void ompc_json_free(struct ompc_json *value)
{
    if (value == NULL)
        return;
    release(value);
    free(value);
}

/* Linear lookup: reports have a few dozen members. */
const struct ompc_json *ompc_json_get(const struct ompc_json *object, const char *key)
{
    if (object == NULL || object->type != OMPC_JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < object->count; i++)
        if (strcmp(object->keys[i], key) == 0)
            return &object->items[i];
    return NULL;
}

/* A number or the fallback. */
double ompc_json_number(const struct ompc_json *value, double fallback)
{
    return value != NULL && value->type == OMPC_JSON_NUMBER ? value->number : fallback;
}

/* A string or the fallback. */
const char *ompc_json_string(const struct ompc_json *value, const char *fallback)
{
    return value != NULL && value->type == OMPC_JSON_STRING ? value->string : fallback;
}
