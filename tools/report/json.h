/* json.h - a small JSON reader for ompcollect merge: parses a whole document into a tree. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_JSON_H
#define OMPCOLLECT_JSON_H 1

#include <stddef.h>

enum ompc_json_type { OMPC_JSON_NULL, OMPC_JSON_BOOL, OMPC_JSON_NUMBER, OMPC_JSON_STRING,
                      OMPC_JSON_ARRAY, OMPC_JSON_OBJECT };

/* One value; arrays and objects hold `count` items (objects with their keys). */
struct ompc_json {
    enum ompc_json_type type;
    int boolean;
    double number;
    char *string;
    size_t count;
    struct ompc_json *items;
    char **keys;
};

/* Parses `text` (`length` bytes); NULL on error with a message naming the byte offset in `error`. */
struct ompc_json *ompc_json_parse(const char *text, size_t length, char *error, size_t error_size);

/* Frees a parsed tree. */
void ompc_json_free(struct ompc_json *value);

/* The member `key` of an object, or NULL. */
const struct ompc_json *ompc_json_get(const struct ompc_json *object, const char *key);

/* A number, or `fallback` when `value` is missing or not a number. */
double ompc_json_number(const struct ompc_json *value, double fallback);

/* A string, or `fallback` when `value` is missing or not a string. */
const char *ompc_json_string(const struct ompc_json *value, const char *fallback);

#endif /* OMPCOLLECT_JSON_H */
