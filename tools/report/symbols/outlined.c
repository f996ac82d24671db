/* outlined.c - the function the programmer wrote a clang-outlined OpenMP body in (clang up to 15 names it .omp_outlined..N), from the DWARF of the body's compile unit, and the one a target region's host entry (__omp_offloading_...) names. */
/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * clang emits a parallel or task body as a function of its own at the
 * compile unit's top level, with no DWARF link to the function whose
 * pragma it came from; clang 16 and later put that function in the name
 * (main.omp_outlined), older ones do not.  C functions do not nest, so
 * the function declared last before the body's line whose code reaches
 * that line is the one around it; the code test keeps a function (or
 * lambda) that ended before the pragma from being taken.
 */
#define _GNU_SOURCE 1
#include <config.h>

#include "outlined.h"

#include <ctype.h>
#include <string.h>

/* Skips one run of lowercase hex digits and the '_' after it; NULL when there is none. */
static const char *hex_field(const char *at)
{
    const char *start = at;
    while (isdigit((unsigned char)*at) || (*at >= 'a' && *at <= 'f'))
        at++;
    return at > start && *at == '_' ? at + 1 : NULL;
}

size_t ompc_offloading_function(const char *name, const char **function)
{
    static const char prefix[] = "__omp_offloading_", debug[] = "_debug__";
    const char *at;
    if (name == NULL || strncmp(name, prefix, sizeof prefix - 1) != 0
        || (at = hex_field(name + sizeof prefix - 1)) == NULL || (at = hex_field(at)) == NULL)
        return 0;
    size_t length = strlen(at);
    if (length > sizeof debug - 1 && strcmp(at + length - (sizeof debug - 1), debug) == 0)
        length -= sizeof debug - 1;
    /* The line: _l and digits, at the end. */
    size_t digits = 0;
    while (digits < length && isdigit((unsigned char)at[length - 1 - digits]))
        digits++;
    if (digits == 0 || length < digits + 3 || at[length - digits - 1] != 'l' || at[length - digits - 2] != '_')
        return 0;
    *function = at;
    return length - digits - 2;
}

#ifdef HAVE_LIBDW
#include <dwarf.h>

int ompc_is_clang_outlined(const char *name)
{
    return name != NULL
           && (strncmp(name, ".omp_outlined.", 14) == 0 || strncmp(name, ".omp_task_entry.", 16) == 0);
}

/* Whether the code of `function` has a line-table row in `file` at `line` or after it. */
static int reaches(Dwarf_Die *function, Dwarf_Lines *lines, size_t count, const char *file, int line)
{
    for (size_t i = 0; i < count; i++) {
        Dwarf_Line *row = dwarf_onesrcline(lines, i);
        Dwarf_Addr address = 0;
        int number = 0;
        const char *source;
        if (row == NULL || dwarf_lineno(row, &number) != 0 || number < line || dwarf_lineaddr(row, &address) != 0)
            continue;
        if ((source = dwarf_linesrc(row, NULL, NULL)) != NULL && strcmp(source, file) == 0
            && dwarf_haspc(function, address) > 0)
            return 1;
    }
    return 0;
}

/* Deepest DIE nesting searched for inlined instances, so a hostile file cannot recurse without end. */
enum { MAX_DEPTH = 32 };

/*
 * Whether code inlined from `abstract` (a function with no code of its
 * own: LULESH's static EvalEOSForElems, inlined into its one caller)
 * reaches `line`: any of its inlined instances below `scope` does.
 */
static int instances_reach(Dwarf_Die *scope, Dwarf_Off abstract, Dwarf_Lines *lines, size_t count, const char *file,
                           int line, int depth)
{
    Dwarf_Die child, origin;
    Dwarf_Attribute attribute;
    if (depth > MAX_DEPTH || dwarf_child(scope, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_inlined_subroutine
            && dwarf_formref_die(dwarf_attr(&child, DW_AT_abstract_origin, &attribute), &origin) != NULL
            && dwarf_dieoffset(&origin) == abstract && reaches(&child, lines, count, file, line))
            return 1;
        if (dwarf_haschildren(&child) > 0
            && (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block)
            && instances_reach(&child, abstract, lines, count, file, line, depth + 1))
            return 1;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* The file a DIE of `cu` is declared in: its DW_AT_decl_file in the CU's file table (dwarf_decl_file finds none in DWARF 5 here). */
static const char *decl_file(Dwarf_Die *cu, Dwarf_Die *die)
{
    Dwarf_Attribute attribute;
    Dwarf_Word index = 0;
    Dwarf_Files *files = NULL;
    size_t count = 0;
    if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &attribute), &index) != 0
        || dwarf_getsrcfiles(cu, &files, &count) != 0 || index >= count)
        return NULL;
    return dwarf_filesrc(files, index, NULL, NULL);
}

/* A candidate: a function with code (its own, or inlined: DW_AT_inline), not outlined, declared in `file` at or before `line`; its line, or 0. */
static int declared_before(Dwarf_Die *cu, Dwarf_Die *die, const char *file, int line)
{
    Dwarf_Addr low = 0;
    int at = 0;
    const char *name = dwarf_diename(die), *where = decl_file(cu, die);
    if (dwarf_tag(die) != DW_TAG_subprogram || ompc_is_clang_outlined(name) || dwarf_hasattr(die, DW_AT_artificial))
        return 0;
    if (dwarf_lowpc(die, &low) != 0 && !dwarf_hasattr(die, DW_AT_ranges) && !dwarf_hasattr(die, DW_AT_inline))
        return 0;
    if (where == NULL || strcmp(where, file) != 0 || dwarf_decl_line(die, &at) != 0 || at <= 0 || at > line)
        return 0;
    return at;
}

/* The candidate of `cu` declared last before `bound` (exclusive); its line, or 0 when none. */
static int last_declared(Dwarf_Die *cu, const char *file, int line, int bound, Dwarf_Die *found)
{
    Dwarf_Die child;
    int best = 0;
    if (dwarf_child(cu, &child) != 0)
        return 0;
    do {
        int at = declared_before(cu, &child, file, line);
        if (at > best && at < bound) {
            best = at;
            *found = child;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return best;
}

int ompc_outlined_parent(Dwarf_Die *cu, const char *file, int line, Dwarf_Die *parent)
{
    Dwarf_Lines *lines = NULL;
    size_t count = 0;
    if (file == NULL || line <= 0 || dwarf_getsrclines(cu, &lines, &count) != 0)
        return 0;
    /* Nearest declaration first: one scan of the line table settles it, unless a function ended before the line. */
    for (int bound = line + 1, rounds = 0; rounds < 64; rounds++) {
        int at = last_declared(cu, file, line, bound, parent);
        if (at == 0)
            return 0;
        int inlined = dwarf_hasattr(parent, DW_AT_inline);
        if (inlined ? instances_reach(cu, dwarf_dieoffset(parent), lines, count, file, line, 0)
                    : reaches(parent, lines, count, file, line))
            return 1;
        bound = at;
    }
    return 0;
}
#endif
