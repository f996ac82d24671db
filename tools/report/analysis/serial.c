/* serial.c - where serial code ran: the sampler's code addresses of SERIAL samples, named and summed by function, each with its hottest line. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "locations.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

/* One located address of the record's table. */
struct item {
    uint64_t pc, ticks;
    struct ompc_location where;
};

/* strcmp with NULL first: a location's strings may be absent. */
static int compare_strings(const char *x, const char *y)
{
    if (x == NULL || y == NULL)
        return (x != NULL) - (y != NULL);
    return strcmp(x, y);
}

/*
 * The function the row is for, as the programmer wrote it: an inlined
 * function is its own (the source says where it is), an outlined body its
 * enclosing function.  Without a symbol the module stands for it.
 */
static const char *function_of(const struct ompc_location *where)
{
    if (where->kind == OMPC_LOC_LINE && where->enclosing != NULL)
        return where->enclosing;
    return where->kind >= OMPC_LOC_SYMBOL ? where->function : NULL;
}

/* Orders items by module and function (the row), then file and line (the line within it), then address. */
static int compare_functions(const struct item *x, const struct item *y)
{
    int by = compare_strings(x->where.module, y->where.module);
    return by != 0 ? by : compare_strings(function_of(&x->where), function_of(&y->where));
}

/* qsort: items by row, then line, then address. */
static int compare_items(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    int by = compare_functions(x, y);
    if (by == 0)
        by = ompc_compare_sources(&x->where, x->pc, &y->where, y->pc);
    return by != 0 ? by : (x->pc > y->pc) - (x->pc < y->pc);
}

/* Whether two items count on one line of one row: a function without lines, or a module without symbols, is one. */
static int same_line(const struct item *x, const struct item *y)
{
    if (compare_functions(x, y) != 0 || x->where.kind != y->where.kind)
        return 0;
    if (x->where.kind != OMPC_LOC_LINE)
        return x->where.kind != OMPC_LOC_NONE || x->pc == y->pc;
    return ompc_compare_sources(&x->where, x->pc, &y->where, y->pc) == 0;
}

/* qsort: most samples first, then by address so equal rows keep one order. */
static int compare_rows(const void *a, const void *b)
{
    const struct ompc_serial_row *x = a, *y = b;
    if (x->ticks != y->ticks)
        return x->ticks < y->ticks ? 1 : -1;
    return (x->address > y->address) - (x->address < y->address);
}

/*
 * Sums sorted items into rows: one per function (per address where
 * nothing names the function), named at the line that holds most of its
 * samples.
 */
static int fold_rows(const struct item *items, size_t count, struct ompc_serial_places *out)
{
    out->rows = calloc(count + 1, sizeof *out->rows);
    if (out->rows == NULL)
        return -1;
    for (size_t i = 0; i < count;) {
        struct ompc_serial_row *row = &out->rows[out->count++];
        size_t end = i;
        uint64_t best = 0;
        /* A module without symbols is one row (its busiest address names it); an address in none is its own. */
        int named = items[i].where.kind != OMPC_LOC_NONE;
        while (end < count && (end == i || (named && compare_functions(&items[i], &items[end]) == 0))) {
            size_t line_end = end;
            uint64_t line_ticks = 0;
            while (line_end < count && (line_end == end || same_line(&items[end], &items[line_end])))
                line_ticks += items[line_end++].ticks;
            if (line_ticks > best) {
                best = line_ticks;
                row->where = items[end].where;
                row->address = items[end].pc;
                row->line_ticks = line_ticks;
            }
            row->ticks += line_ticks;
            end = line_end;
        }
        i = end;
    }
    ompc_qsort(out->rows, (size_t)out->count, sizeof *out->rows, compare_rows);
    return 0;
}

/* The kernel's vDSO has no file to symbolize: code there (clock_gettime) is named by the module alone. */
static void name_vdso(struct ompc_location *where, uint64_t pc, uint64_t vdso)
{
    if (where->kind == OMPC_LOC_NONE && ompc_model_in_vdso(vdso, pc)) {
        where->kind = OMPC_LOC_MODULE;
        where->module = "[vdso]";
        where->module_offset = pc - vdso;
    }
}

int ompc_serial_places_build(const struct ompc_model_process *process, struct ompc_symbolizer *symbolizer,
                             uint64_t vdso, struct ompc_serial_places *out)
{
    memset(out, 0, sizeof *out);
    out->located = process->serial_located != 0;
    out->dropped = process->serial_places_dropped;
    size_t count = process->serial_place_count;
    struct item *items = calloc(count + 1, sizeof *items);
    if (items == NULL)
        return -1;
    for (size_t i = 0; i < count; i++) {
        items[i].pc = process->serial_places[i].pc;
        items[i].ticks = process->serial_places[i].ticks;
        out->located_ticks += items[i].ticks;
        /* The interrupted instruction itself, not a return address: no step back into the call. */
        if (symbolizer != NULL)
            ompc_symbolize(symbolizer, items[i].pc, 0, &items[i].where);
        name_vdso(&items[i].where, items[i].pc, vdso);
    }
    ompc_qsort(items, count, sizeof *items, compare_items);
    int failed = fold_rows(items, count, out);
    free(items);
    return failed;
}
