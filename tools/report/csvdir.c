/* csvdir.c - splits ompcollect's CSV report stream into one table per file for --csv-dir: the section column dropped, the header row kept. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "csvdir.h"

#include <stdlib.h>
#include <string.h>

void ompc_csv_table(FILE *out, const char *name, int markers)
{
    if (markers)
        fprintf(out, "#table %s\n", name);
}

/* The end of the CSV record starting at `p` (its newline, or `end`): a quoted field may hold line breaks. */
static const char *record_end(const char *p, const char *end)
{
    int quoted = 0;
    for (; p < end; p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (*p == '\n' && !quoted)
            return p;
    }
    return end;
}

/* Appends `length` bytes and a newline to a table's text; -1 without memory. */
static int append(struct ompc_csv_table *table, const char *text, size_t length)
{
    char *grown = realloc(table->text, table->length + length + 2);
    if (grown == NULL)
        return -1;
    memcpy(grown + table->length, text, length);
    table->length += length;
    grown[table->length++] = '\n';
    grown[table->length] = '\0';
    table->text = grown;
    return 0;
}

/* Starts a new table; -1 without memory. */
static int add_table(struct ompc_csv_table **tables, long *count, char *name)
{
    struct ompc_csv_table *grown = realloc(*tables, (size_t)(*count + 1) * sizeof *grown);
    if (grown == NULL) {
        free(name);
        return -1;
    }
    *tables = grown;
    grown[*count] = (struct ompc_csv_table){name, NULL, 0};
    (*count)++;
    return 0;
}

long ompc_csv_split(const char *stream, size_t size, struct ompc_csv_table **tables)
{
    *tables = NULL;
    long count = 0;
    char *pending = NULL; /* the name the last marker gave */
    const char *end = stream + size;
    for (const char *p = stream; p < end;) {
        const char *stop = record_end(p, end);
        size_t length = (size_t)(stop - p);
        const char *comma = memchr(p, ',', length);
        if (length > 7 && strncmp(p, "#table ", 7) == 0) {
            free(pending);
            pending = strndup(p + 7, length - 7);
            if (pending == NULL)
                goto fail;
        } else if (length > 8 && strncmp(p, "section,", 8) == 0) {
            if (add_table(tables, &count, pending) != 0) {
                pending = NULL;
                goto fail;
            }
            pending = NULL;
            if (append(&(*tables)[count - 1], p + 8, length - 8) != 0)
                goto fail;
        } else if (length > 0 && comma != NULL && count > 0) {
            struct ompc_csv_table *table = &(*tables)[count - 1];
            if (table->name == NULL && (table->name = strndup(p, (size_t)(comma - p))) == NULL)
                goto fail;
            if (append(table, comma + 1, length - (size_t)(comma + 1 - p)) != 0)
                goto fail;
        }
        p = stop < end ? stop + 1 : end;
    }
    free(pending);
    for (long i = 0; i < count; i++)
        if ((*tables)[i].name == NULL && asprintf(&(*tables)[i].name, "table-%ld", i + 1) < 0) {
            (*tables)[i].name = NULL;
            ompc_csv_tables_free(*tables, count);
            *tables = NULL;
            return -1;
        }
    return count;
fail:
    free(pending);
    ompc_csv_tables_free(*tables, count);
    *tables = NULL;
    return -1;
}

void ompc_csv_tables_free(struct ompc_csv_table *tables, long count)
{
    for (long i = 0; tables != NULL && i < count; i++) {
        free(tables[i].name);
        free(tables[i].text);
    }
    free(tables);
}
