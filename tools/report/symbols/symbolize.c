/* symbolize.c - code address to function, file and line with elfutils' libdwfl, run by the launcher after the program ended, never inside it. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "symbolize.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include "demangle.h"
#include "gompsite.h"
#include "gompws.h"
#include "grow.h"
#include "outlined.h"
#include "regular.h"
#include "tailcall.h"

/* A located address, kept so that asking again costs a lookup. */
struct cached {
    uint64_t key;                     /* address << 3 | address kind; 0: free */
    struct ompc_location where;
    struct ompc_inline_caller *callers; /* owned */
};

/* A symbol's demangled name, found once. */
struct demangled {
    const char *mangled;              /* libdw's string; NULL: free */
    char *name;                       /* NULL: not mangled */
};

/* A clang-outlined body (its emitted function's start) and the function that hands it to the runtime; NULL: none. */
struct handed {
    uint64_t body;
    const char *parent;
};

struct ompc_symbolizer {
    Dwfl *dwfl;
    Dwfl_Callbacks callbacks;         /* the Dwfl keeps a pointer to them */
    char *debuginfo_path;             /* NULL: libdwfl's default */
    struct ompc_module_symbols *modules; /* located in so far; a module's userdata is its index + 1 */
    size_t module_count, module_capacity;
    struct cached *cache;
    size_t cache_capacity, cache_used;
    struct demangled *names;
    size_t name_capacity, name_used;
    char **owned;                     /* names built here */
    size_t owned_count, owned_capacity;
    struct handed *handed;            /* clang-outlined bodies' parents found from the code */
    size_t handed_count, handed_capacity;
    int depth;                        /* locate() calls open: a body handed to the runtime in a body */
};

/* See symbolize.h. */
static char *debuginfo_path;
const Dwfl_Callbacks ompc_dwfl_offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

/* Creates the libdwfl session that every module joins, looking for debug files along `debuginfo_path`. */
struct ompc_symbolizer *ompc_symbolizer_new(const char *debuginfo_path)
{
    struct ompc_symbolizer *symbolizer = calloc(1, sizeof *symbolizer);
    if (symbolizer == NULL)
        return NULL;
    symbolizer->callbacks = ompc_dwfl_offline_callbacks;
    symbolizer->callbacks.debuginfo_path = &symbolizer->debuginfo_path;
    if (debuginfo_path != NULL && (symbolizer->debuginfo_path = strdup(debuginfo_path)) == NULL) {
        free(symbolizer);
        return NULL;
    }
    symbolizer->dwfl = dwfl_begin(&symbolizer->callbacks);
    if (symbolizer->dwfl == NULL) {
        free(symbolizer->debuginfo_path);
        free(symbolizer);
        return NULL;
    }
    dwfl_report_begin(symbolizer->dwfl);
    return symbolizer;
}

Dwfl_Module *ompc_dwfl_report_regular(Dwfl *dwfl, const char *name, const char *file, uint64_t bias)
{
    int fd = ompc_open_regular(file, (long)sizeof(Elf32_Ehdr));
    if (fd < 0)
        return NULL;
    /* libdwfl owns the descriptor once it reports the module; not when it refuses the file. */
    Dwfl_Module *module = dwfl_report_elf(dwfl, name, file, fd, (GElf_Addr)bias, false);
    if (module == NULL)
        close(fd);
    return module;
}

/* Reports the file at its load bias, as the program's loader placed it. */
int ompc_symbolizer_add_module(struct ompc_symbolizer *symbolizer, const char *path, const char *symfs,
                               uint64_t bias)
{
    if (symbolizer == NULL || path == NULL || path[0] == '\0')
        return -1;
    char *file = NULL;
    if (symfs != NULL && asprintf(&file, "%s/%s", symfs, path) < 0)
        return -1;
    dwfl_report_begin_add(symbolizer->dwfl);
    Dwfl_Module *module = ompc_dwfl_report_regular(symbolizer->dwfl, path, file != NULL ? file : path, bias);
    dwfl_report_end(symbolizer->dwfl, NULL, NULL);
    free(file);
    return module != NULL ? 0 : -1;
}

static size_t string_hash(const char *text)
{
    size_t hash = 5381;
    for (; *text; text++)
        hash = hash * 33 + (unsigned char)*text;
    return hash;
}

/* Doubles the demangled-name table; -1 when memory runs out. */
static int names_grow(struct ompc_symbolizer *symbolizer)
{
    size_t capacity = symbolizer->name_capacity ? 2 * symbolizer->name_capacity : 256;
    struct demangled *names = calloc(capacity, sizeof *names);
    if (names == NULL)
        return -1;
    for (size_t i = 0; i < symbolizer->name_capacity; i++) {
        if (symbolizer->names[i].mangled == NULL)
            continue;
        size_t at = string_hash(symbolizer->names[i].mangled) & (capacity - 1);
        while (names[at].mangled != NULL)
            at = (at + 1) & (capacity - 1);
        names[at] = symbolizer->names[i];
    }
    free(symbolizer->names);
    symbolizer->names = names;
    symbolizer->name_capacity = capacity;
    return 0;
}

/* `name` as its programmer wrote it; `*mangled` is `name` when it was demangled, else NULL.  Mangled when memory runs out. */
static const char *demangled_name(struct ompc_symbolizer *symbolizer, const char *name, const char **mangled)
{
    *mangled = NULL;
    if (!ompc_may_be_mangled(name))
        return name;
    if (symbolizer->name_used * 2 >= symbolizer->name_capacity && names_grow(symbolizer) != 0)
        return name;
    size_t at = string_hash(name) & (symbolizer->name_capacity - 1);
    while (symbolizer->names[at].mangled != NULL && strcmp(symbolizer->names[at].mangled, name) != 0)
        at = (at + 1) & (symbolizer->name_capacity - 1);
    struct demangled *slot = &symbolizer->names[at];
    if (slot->mangled == NULL) {
        slot->mangled = name;
        slot->name = ompc_demangle(name);
        symbolizer->name_used++;
    }
    if (slot->name == NULL)
        return name;
    *mangled = name;
    return slot->name;
}

/* The CU holding `lookup`, and its bias; clang emits no .debug_aranges and older libdw finds no CU without them. */
static Dwarf_Die *cu_of(Dwfl_Module *module, GElf_Addr lookup, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = dwfl_module_addrdie(module, lookup, bias);
    if (cu != NULL)
        return cu;
    while ((cu = dwfl_module_nextcu(module, cu, bias)) != NULL)
        if (dwarf_haspc(cu, lookup - *bias) > 0)
            return cu;
    return NULL;
}

/* The index of the last row of `lines` at or before `pc` (libdw sorts them by address); -1 when none. */
static ptrdiff_t row_at_or_before(Dwarf_Lines *lines, size_t count, Dwarf_Addr pc)
{
    ptrdiff_t found = -1;
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        Dwarf_Addr address = 0;
        Dwarf_Line *row = dwarf_onesrcline(lines, middle);
        if (row == NULL || dwarf_lineaddr(row, &address) != 0)
            return -1;
        if (address <= pc) {
            found = (ptrdiff_t)middle;
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return found;
}

/*
 * clang -O2 gives some calls line 0 (code the optimiser cannot tie to one
 * statement, a __kmpc_fork_call among them), which names no place.  The
 * nearest row before it in the same sequence and function with a line is
 * the statement the code came from (the pragma, for a construct's call);
 * failing that, the innermost function's declaration (an outlined body's
 * is its pragma's line).  1 when found.
 */
static int nearest_line(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Addr function_start, const char **file, int *line)
{
    Dwarf_Lines *lines = NULL;
    size_t count = 0;
    ptrdiff_t at = dwarf_getsrclines(cu, &lines, &count) == 0 ? row_at_or_before(lines, count, pc) : -1;
    for (ptrdiff_t i = at; i >= 0; i--) {
        Dwarf_Line *row = dwarf_onesrcline(lines, (size_t)i);
        Dwarf_Addr address = 0;
        bool ends = false;
        if (row == NULL || dwarf_lineaddr(row, &address) != 0 || address < function_start
            || (i < at && dwarf_lineendsequence(row, &ends) == 0 && ends))
            break;
        if (dwarf_lineno(row, line) == 0 && *line > 0 && (*file = dwarf_linesrc(row, NULL, NULL)) != NULL)
            return 1;
    }
    Dwarf_Die *scopes = NULL;
    int scope_count = dwarf_getscopes(cu, pc, &scopes), found = 0;
    for (int i = 0; i < scope_count && !found; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        found = dwarf_decl_line(&scopes[i], line) == 0 && *line > 0
                && (*file = dwarf_decl_file(&scopes[i])) != NULL;
        break;
    }
    free(scopes);
    return found;
}

/* The file and line from the line table, when there is one for `lookup`; `function_start` bounds a line-0 row's search. */
static void line_of(Dwfl_Module *module, GElf_Addr lookup, GElf_Addr function_start, struct ompc_location *out)
{
    Dwfl_Line *line = dwfl_module_getsrc(module, lookup);
    int line_number = 0;
    const char *file = NULL;
    Dwarf_Addr cu_bias = 0;
    Dwarf_Die *cu = NULL;
    if (line != NULL) {
        file = dwfl_lineinfo(line, NULL, &line_number, NULL, NULL, NULL);
    } else if ((cu = cu_of(module, lookup, &cu_bias)) != NULL) {
        Dwarf_Line *found = dwarf_getsrc_die(cu, lookup - cu_bias);
        if (found != NULL && dwarf_lineno(found, &line_number) == 0)
            file = dwarf_linesrc(found, NULL, NULL);
    }
    if (file != NULL && line_number == 0 && (cu != NULL || (cu = cu_of(module, lookup, &cu_bias)) != NULL)
        && !nearest_line(cu, lookup - cu_bias, function_start - cu_bias, &file, &line_number))
        return;
    if (file == NULL || line_number <= 0)
        return;
    out->kind = OMPC_LOC_LINE;
    out->file = file;
    out->line = line_number;
}

/* The DIE a function's attributes come from: its abstract origin's declaration (inside its class, for a member). */
static Dwarf_Die *declaration_of(Dwarf_Die *die, Dwarf_Die *memory)
{
    Dwarf_Attribute attribute;
    for (int hops = 0; hops < 4; hops++) {
        if (dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &attribute), memory) == NULL
            && dwarf_formref_die(dwarf_attr(die, DW_AT_specification, &attribute), memory) == NULL)
            break;
        die = memory;
    }
    return die;
}

/* Appends `text` to the name being built; -1 when it does not fit. */
static int name_append(char *name, size_t size, size_t *used, const char *text)
{
    size_t length = strlen(text);
    if (*used + length + 1 > size)
        return -1;
    memcpy(name + *used, text, length + 1);
    *used += length;
    return 0;
}

/* A copy of `length` bytes of `text` that the symbolizer keeps; `fallback` when memory runs out. */
static const char *keep(struct ompc_symbolizer *symbolizer, const char *text, size_t length, const char *fallback)
{
    if (ompc_grow(&symbolizer->owned, symbolizer->owned_count + 1, &symbolizer->owned_capacity,
                  sizeof *symbolizer->owned) != 0)
        return fallback;
    char *kept = strndup(text, length);
    if (kept == NULL)
        return fallback;
    symbolizer->owned[symbolizer->owned_count++] = kept;
    return kept;
}

/*
 * A function with no linkage name (g++'s lambdas, C) qualified by what
 * encloses its declaration: "main::{lambda}::operator()".  A string the
 * symbolizer keeps, or `plain` when nothing encloses it or memory runs out.
 */
static const char *qualified_name(struct ompc_symbolizer *symbolizer, Dwarf_Die *die, const char *plain)
{
    Dwarf_Die memory, *declaration = declaration_of(die, &memory), *scopes = NULL;
    int count = dwarf_getscopes_die(declaration, &scopes);
    char name[1024];
    size_t used = 0;
    int failed = 0;
    name[0] = '\0';
    for (int i = count - 1; i >= 1 && !failed; i--) {
        int tag = dwarf_tag(&scopes[i]);
        const char *part = dwarf_diename(&scopes[i]);
        if (tag == DW_TAG_namespace)
            part = part != NULL ? part : "(anonymous namespace)";
        else if (tag == DW_TAG_class_type || tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
            part = part != NULL ? part : "{lambda}";
        else if (tag != DW_TAG_subprogram)
            continue;
        if (part != NULL)
            failed = name_append(name, sizeof name, &used, part) || name_append(name, sizeof name, &used, "::");
    }
    free(scopes);
    if (failed || used == 0 || name_append(name, sizeof name, &used, plain) != 0)
        return plain;
    return keep(symbolizer, name, used, plain);
}

/* A function DIE's name, demangled: from its linkage name when it has one (C++'s qualified, mangled name), else its plain name, qualified. */
static const char *die_name(struct ompc_symbolizer *symbolizer, Dwarf_Die *die, const char **mangled)
{
    Dwarf_Attribute attribute;
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attribute));
    if (name == NULL)
        name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attribute));
    if (name != NULL)
        return demangled_name(symbolizer, name, mangled);
    *mangled = NULL;
    name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attribute));
    /* gfortran names a main program without a PROGRAM statement MAIN__ in DWARF too. */
    if (name != NULL && ompc_fortran_main_suffix(name) != NULL)
        return demangled_name(symbolizer, name, mangled);
    return name != NULL ? qualified_name(symbolizer, die, name) : "?";
}

/* Where an inlined call is: DW_AT_call_file (an index into the CU's file table) and DW_AT_call_line. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inlined, struct ompc_inline_caller *caller)
{
    Dwarf_Attribute attribute;
    Dwarf_Word value = 0;
    Dwarf_Files *files = NULL;
    size_t file_count = 0;
    if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attribute), &value) == 0
        && dwarf_getsrcfiles(cu, &files, &file_count) == 0 && value < file_count)
        caller->file = dwarf_filesrc(files, value, NULL, NULL);
    if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attribute), &value) == 0 && value <= INT32_MAX)
        caller->line = (int)value;
}

/*
 * When `lookup` lies in inlined code, names the inlined function in `out`
 * and lists what it was inlined into (what `addr2line -i` prints); the
 * outermost keeps the ELF symbol's name that `out` came with.  Returns
 * the callers in memory the caller frees, NULL when none (or no memory).
 */
static struct ompc_inline_caller *inlined_frames(struct ompc_symbolizer *symbolizer, Dwfl_Module *module,
                                                 GElf_Addr lookup, struct ompc_location *out)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = cu_of(module, lookup, &bias), *innermost = NULL, *scopes = NULL;
    int count = cu != NULL ? dwarf_getscopes(cu, lookup - bias, &innermost) : -1;
    /*
     * dwarf_getscopes continues an inlined instance's scopes in its
     * abstract definition; the concrete ones it sits in (more inlined
     * calls, then the emitted function) come from dwarf_getscopes_die.
     */
    int first = 0;
    while (first < count && dwarf_tag(&innermost[first]) != DW_TAG_inlined_subroutine
           && dwarf_tag(&innermost[first]) != DW_TAG_subprogram)
        first++;
    int scope_count = first < count && dwarf_tag(&innermost[first]) == DW_TAG_inlined_subroutine
                          ? dwarf_getscopes_die(&innermost[first], &scopes)
                          : -1;
    free(innermost);
    int frames[64], frame_count = 0;
    for (int i = 0; i < scope_count && frame_count < 64; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram)
            break;
        if (tag == DW_TAG_inlined_subroutine)
            frames[frame_count++] = i;
    }
    struct ompc_inline_caller *callers = frame_count > 0 ? calloc((size_t)frame_count, sizeof *callers) : NULL;
    if (callers == NULL) {
        free(scopes);
        return NULL;
    }
    const char *outer = out->function, *outer_mangled = out->mangled;
    for (int j = 0; j < frame_count; j++) {
        Dwarf_Die *die = &scopes[frames[j]];
        const char *mangled;
        const char *name = die_name(symbolizer, die, &mangled);
        if (j == 0) {
            out->function = name;
            out->mangled = mangled;
        } else {
            callers[j - 1].function = name;
            callers[j - 1].mangled = mangled;
        }
        call_site(cu, die, &callers[j]);
    }
    callers[frame_count - 1].function = outer;
    callers[frame_count - 1].mangled = outer_mangled;
    out->callers = callers;
    out->caller_count = frame_count;
    free(scopes);
    return callers;
}

/*
 * A call of GCC's runtime for a construct returns to the line after it:
 * the construct is placed at its pragma instead, the first line of the
 * outlined body the call was handed (gompsite.c), when that is in the
 * same file.  Returns the body's address, 0 when not found.
 */
static GElf_Addr pragma_line(Dwfl_Module *module, GElf_Addr return_address, struct ompc_location *out)
{
    const char *file = NULL;
    int line = 0;
    GElf_Addr body = 0;
    if (ompc_gomp_pragma_line(module, return_address, &file, &line, &body) && out->file != NULL
        && strcmp(file, out->file) == 0)
        out->line = line;
    return body;
}

/*
 * The name of the Fortran main program whose code holds `lookup`, from
 * DWARF: gfortran and flang emit its code as MAIN__ and _QQmain, and keep
 * the PROGRAM statement's name only on its DIE, a subprogram of the
 * compile unit marked DW_AT_main_subprogram (gfortran) or with the
 * DW_CC_program calling convention (flang).  NULL when DWARF names none,
 * or only MAIN__ (a program without a PROGRAM statement).
 */
/* Whether `die` or a subprogram nested in it (an outlined body: MAIN__._omp_fn.0 is the program's child) holds `pc`. */
static int holds(Dwarf_Die *die, Dwarf_Addr pc, int depth)
{
    Dwarf_Die child;
    if (dwarf_haspc(die, pc) > 0)
        return 1;
    if (depth >= 8 || dwarf_child(die, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block) && holds(&child, pc, depth + 1))
            return 1;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

static const char *program_name(Dwfl_Module *module, GElf_Addr lookup)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = cu_of(module, lookup, &bias), child;
    if (cu == NULL || dwarf_child(cu, &child) != 0)
        return NULL;
    do {
        Dwarf_Attribute attribute;
        Dwarf_Word convention = 0;
        if (dwarf_tag(&child) != DW_TAG_subprogram)
            continue;
        if (!dwarf_hasattr(&child, DW_AT_main_subprogram)
            && (dwarf_formudata(dwarf_attr(&child, DW_AT_calling_convention, &attribute), &convention) != 0
                || convention != DW_CC_program))
            continue;
        if (!holds(&child, lookup - bias, 0))
            continue;
        const char *name = dwarf_diename(&child);
        return name != NULL && ompc_fortran_main_suffix(name) == NULL ? name : NULL;
    } while (dwarf_siblingof(&child, &child) == 0);
    return NULL;
}

/* A Fortran main program's code, demangled to OMPC_FORTRAN_MAIN_PROGRAM, named by its PROGRAM statement when DWARF has it. */
static void fortran_program(struct ompc_symbolizer *symbolizer, Dwfl_Module *module, GElf_Addr lookup,
                            struct ompc_location *out)
{
    const char *suffix = out->mangled != NULL ? ompc_fortran_main_suffix(out->mangled) : NULL, *program;
    char name[512];
    if (suffix == NULL || (program = program_name(module, lookup)) == NULL)
        return;
    int length = snprintf(name, sizeof name, "%s%s", program, suffix);
    if (length > 0 && (size_t)length < sizeof name)
        out->function = keep(symbolizer, name, (size_t)length, out->function);
}

/* Whether a compile unit is Fortran's (DW_AT_language; the numbers of DWARF 5 for what older headers lack). */
static int fortran_unit(Dwarf_Die *cu)
{
    int language = dwarf_srclang(cu);
    return language == DW_LANG_Fortran77 || language == DW_LANG_Fortran90 || language == DW_LANG_Fortran95
           || language == 0x22 /* Fortran03 */ || language == 0x23 /* Fortran08 */ || language == 0x2d /* Fortran18 */;
}

/*
 * An external Fortran procedure's name without the underscore gfortran
 * (and flang, for the same ABI) appends to its symbol: count_up_ is
 * count_up, count_up_._omp_fn.0 its outlined body.  `name` itself when it
 * is no such symbol; *mangled keeps the symbol when it had none.
 */
static const char *fortran_plain(struct ompc_symbolizer *symbolizer, const char *name, const char **mangled)
{
    if (name == NULL || (mangled != NULL && *mangled != NULL))
        return name;
    const char *suffix = strstr(name, "._omp_fn.");
    size_t length = suffix != NULL ? (size_t)(suffix - name) : strlen(name);
    if (length < 2 || name[length - 1] != '_' || name[length - 2] == '_' || memchr(name, ':', length) != NULL)
        return name;
    char shorter[512];
    int written = snprintf(shorter, sizeof shorter, "%.*s%s", (int)(length - 1), name, suffix != NULL ? suffix : "");
    if (written <= 0 || (size_t)written >= sizeof shorter)
        return name;
    if (mangled != NULL)
        *mangled = name;
    return keep(symbolizer, shorter, (size_t)written, name);
}

/* In a Fortran compile unit, every name of a location (the function, the one it is outlined from, the inlined-into) without gfortran's underscore. */
static void fortran_externals(struct ompc_symbolizer *symbolizer, Dwfl_Module *module, GElf_Addr lookup,
                              struct ompc_location *out, struct ompc_inline_caller *callers)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = cu_of(module, lookup, &bias);
    if (cu == NULL || !fortran_unit(cu))
        return;
    out->function = fortran_plain(symbolizer, out->function, &out->mangled);
    out->enclosing = fortran_plain(symbolizer, out->enclosing, NULL);
    for (int i = 0; callers != NULL && i < out->caller_count; i++)
        callers[i].function = fortran_plain(symbolizer, callers[i].function, &callers[i].mangled);
}

/*
 * The line a clang-outlined body around `pc` starts at: the least
 * declaration line of the outlined functions it is inlined in (clang
 * declares the emitted wrapper at the pragma, the _debug__ body it
 * inlines a line below), at most `line`.  The function around the pragma
 * reaches that line with its own code (the runtime call) even when the
 * region is its last statement, which `line` itself it may not.
 */
/* `line`, or the declaration line of `die` when it is a clang-outlined function declared before it. */
static int outlined_decl_line(Dwarf_Die *die, int line)
{
    Dwarf_Attribute attribute;
    int tag = dwarf_tag(die), at = 0;
    if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
        && ompc_is_clang_outlined(dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attribute)))
        && dwarf_decl_line(die, &at) == 0 && at > 0 && at < line)
        return at;
    return line;
}

static int outlined_line(Dwarf_Die *cu, Dwarf_Addr pc, int line)
{
    Dwarf_Die *scopes = NULL, emitted;
    int count = dwarf_getscopes(cu, pc, &scopes);
    for (int i = 0; i < count; i++)
        line = outlined_decl_line(&scopes[i], line);
    free(scopes);
    /* dwarf_getscopes ends an inlined body's scopes in its abstract definition: the emitted wrapper is the CU's. */
    if (dwarf_child(cu, &emitted) == 0)
        do {
            if (dwarf_tag(&emitted) == DW_TAG_subprogram && dwarf_haspc(&emitted, pc) > 0)
                return outlined_decl_line(&emitted, line);
        } while (dwarf_siblingof(&emitted, &emitted) == 0);
    return line;
}

/* The function a GCC-outlined body's name holds (main._omp_fn.1, "f() [clone ._omp_fn.1]"), kept; NULL when it is none. */
static const char *gcc_outlined_parent(struct ompc_symbolizer *symbolizer, const char *name)
{
    const char *cut;
    if ((cut = strstr(name, " [clone ._omp_fn.")) == NULL && (cut = strstr(name, "._omp_fn.")) == NULL)
        return NULL;
    return cut > name ? keep(symbolizer, name, (size_t)(cut - name), NULL) : NULL;
}

static struct ompc_inline_caller *locate(struct ompc_symbolizer *symbolizer, uint64_t address, int address_kind,
                                         struct ompc_location *out);

/*
 * Without DWARF's declarations (clang -gline-tables-only), a clang body's
 * function is the one whose code hands the body's address to the runtime
 * (tailcall.c), as located at that call: a body handed over in another
 * body (a task in a region) is named by that one's.  Once per body; NULL
 * when none is found.
 */
static const char *handing_function(struct ompc_symbolizer *symbolizer, Dwfl_Module *module, GElf_Addr lookup)
{
    GElf_Off offset = 0;
    if (dwfl_module_addrinfo(module, lookup, &offset, &(GElf_Sym){0}, NULL, NULL, NULL) == NULL)
        return NULL;
    GElf_Addr body = lookup - offset, site;
    for (size_t i = 0; i < symbolizer->handed_count; i++)
        if (symbolizer->handed[i].body == body)
            return symbolizer->handed[i].parent;
    const char *parent = NULL;
    int is_return = 0;
    if (symbolizer->depth < 8 && (site = ompc_code_reference(module, body, &is_return)) != 0) {
        struct ompc_location where;
        symbolizer->depth++;
        free(locate(symbolizer, site, is_return ? OMPC_ADDRESS_RETURN : OMPC_ADDRESS_CODE, &where));
        symbolizer->depth--;
        parent = where.enclosing != NULL ? where.enclosing : where.function;
        if (parent != NULL && (ompc_is_clang_outlined(parent) || strstr(parent, "._omp_fn.") != NULL))
            parent = NULL;
    }
    if (ompc_grow(&symbolizer->handed, symbolizer->handed_count + 1, &symbolizer->handed_capacity,
                  sizeof *symbolizer->handed) == 0)
        symbolizer->handed[symbolizer->handed_count++] = (struct handed){body, parent};
    return parent;
}

/*
 * For code in a body the compiler outlined for an OpenMP construct, the
 * function the programmer wrote it in: GCC keeps it in the body's name
 * (main._omp_fn.1; demangled C++: "f() [clone ._omp_fn.1]", Fortran:
 * "kern::work._omp_fn.0"), clang up to 15 only in its DWARF (outlined.c).
 */
static void enclosing_function(struct ompc_symbolizer *symbolizer, Dwfl_Module *module, GElf_Addr lookup,
                               struct ompc_location *out)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu, parent;
    const char *mangled, *name = out->function;
    if (name == NULL)
        return;
    if (strstr(name, "._omp_fn.") != NULL) {
        out->enclosing = gcc_outlined_parent(symbolizer, name);
    } else if (ompc_is_clang_outlined(name) && (cu = cu_of(module, lookup, &bias)) != NULL
               && ompc_outlined_parent(cu, out->file, outlined_line(cu, lookup - bias, out->line), &parent)) {
        out->enclosing = die_name(symbolizer, &parent, &mangled);
    } else if (ompc_is_clang_outlined(name)) {
        out->enclosing = handing_function(symbolizer, module, lookup);
    }
}

/* Whether `elf` holds a full symbol table: .symtab, or Fedora's MiniDebugInfo (.gnu_debugdata), which libdwfl reads too. */
static int has_symbol_table(Elf *elf)
{
    size_t strings;
    if (elf == NULL || elf_getshdrstrndx(elf, &strings) != 0)
        return 0;
    for (Elf_Scn *section = elf_nextscn(elf, NULL); section != NULL; section = elf_nextscn(elf, section)) {
        GElf_Shdr header;
        if (gelf_getshdr(section, &header) == NULL)
            continue;
        const char *name = elf_strptr(elf, strings, header.sh_name);
        if (header.sh_type == SHT_SYMTAB || (name != NULL && strcmp(name, ".gnu_debugdata") == 0))
            return 1;
    }
    return 0;
}

/* Whether the separate debug file at `path` holds a .symtab (objcopy --only-keep-debug of a build without -g). */
static int file_has_symbol_table(const char *path)
{
    int fd = ompc_open_regular(path, (long)sizeof(Elf32_Ehdr));
    if (fd < 0)
        return 0;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    int found = has_symbol_table(elf);
    elf_end(elf);
    close(fd);
    return found;
}

/* Whether libdwfl's table for `module` defines any symbol: a stripped executable's .dynsym holds only what it imports. */
static int defines_symbols(Dwfl_Module *module, int count)
{
    for (int i = 1; i < count; i++) {
        GElf_Sym symbol;
        GElf_Addr address;
        if (dwfl_module_getsym_info(module, i, &symbol, &address, NULL, NULL, NULL) != NULL
            && symbol.st_shndx != SHN_UNDEF && address != 0)
            return 1;
    }
    return 0;
}

/*
 * What libdwfl names `module`'s code by: loading its symbol table and its
 * DWARF makes libdwfl look for a separate debug file (build id under the
 * debuginfo path's absolute directories, then .gnu_debuglink beside the
 * module and in them), whose name `*debug_file` gets (NULL: none).
 */
static enum ompc_symbol_source symbol_source(Dwfl_Module *module, const char **debug_file)
{
    Dwarf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(module, &bias);
    int symbols = dwfl_module_getsymtab(module);
    Dwarf *dwarf = dwfl_module_getdwarf(module, &bias);
    const char *main_file = NULL;
    *debug_file = NULL;
    dwfl_module_info(module, NULL, NULL, NULL, NULL, NULL, &main_file, debug_file);
    if (*debug_file != NULL && main_file != NULL && strcmp(*debug_file, main_file) == 0)
        *debug_file = NULL;
    if (dwarf != NULL)
        return OMPC_SYMBOLS_DWARF;
    if (has_symbol_table(elf) || (*debug_file != NULL && file_has_symbol_table(*debug_file)))
        return OMPC_SYMBOLS_TABLE;
    return defines_symbols(module, symbols) ? OMPC_SYMBOLS_DYNAMIC : OMPC_SYMBOLS_NONE;
}

/* `module`'s entry among those located in, classified when first met; NULL when memory runs out. */
static const struct ompc_module_symbols *module_symbols(struct ompc_symbolizer *symbolizer, Dwfl_Module *module,
                                                        const char *name)
{
    void **userdata = NULL;
    dwfl_module_info(module, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
    uintptr_t index = userdata != NULL ? (uintptr_t)*userdata : 0;
    if (index != 0 && index <= symbolizer->module_count)
        return &symbolizer->modules[index - 1];
    if (userdata == NULL || ompc_grow(&symbolizer->modules, symbolizer->module_count + 1,
                                      &symbolizer->module_capacity, sizeof *symbolizer->modules) != 0)
        return NULL;
    struct ompc_module_symbols *entry = &symbolizer->modules[symbolizer->module_count++];
    entry->module = name;
    entry->source = symbol_source(module, &entry->debug_file);
    *userdata = (void *)(uintptr_t)symbolizer->module_count;
    return entry;
}

/*
 * Whether libdwfl's symbol for `lookup` may name it.  With .dynsym alone
 * the exported symbol before an address need not hold it: the static
 * functions between exports have no entry, and libdwfl lets a symbol
 * without a size (hand-written assembly) run up to the next symbol.  An
 * address past the symbol's size is then module + offset: better no name
 * than a wrong one.
 */
static int symbol_holds(const struct ompc_module_symbols *symbols, const GElf_Sym *symbol, GElf_Off offset)
{
    return symbols == NULL || symbols->source != OMPC_SYMBOLS_DYNAMIC || offset == 0 || offset < symbol->st_size;
}

/*
 * GCC's call of the runtime for a construct in a function inlined into
 * another may be scheduled out of the inlined code (LULESH's and
 * t/ompcollect-sites.c's): its body's name still says the function the
 * pragma is in, which then names the construct.
 */
static void construct_function(struct ompc_symbolizer *symbolizer, Dwfl_Module *module, GElf_Addr body,
                               struct ompc_location *out)
{
    GElf_Off offset = 1;
    const char *mangled, *name = dwfl_module_addrinfo(module, body, &offset, &(GElf_Sym){0}, NULL, NULL, NULL);
    if (name == NULL || offset != 0)
        return;
    const char *parent = gcc_outlined_parent(symbolizer, demangled_name(symbolizer, name, &mangled));
    if (parent != NULL && out->function != NULL && strcmp(parent, out->function) != 0)
        out->enclosing = parent;
}

/* Whether the `count` jumps in `sites` are one statement (file and line): GCC copies a closing call into each path. */
static int one_statement(Dwfl_Module *module, const GElf_Addr *sites, int count)
{
    const char *first_file = NULL;
    int first_line = 0;
    if (count < 1 || count > OMPC_TAIL_SITES)
        return 0;
    for (int i = 0; i < count; i++) {
        Dwfl_Line *row = dwfl_module_getsrc(module, sites[i]);
        int line = 0;
        const char *file = row != NULL ? dwfl_lineinfo(row, NULL, &line, NULL, NULL, NULL) : NULL;
        if (i == 0) {
            first_file = file;
            first_line = line;
        } else if (file == NULL || first_file == NULL || strcmp(file, first_file) != 0 || line != first_line) {
            return 0;
        }
    }
    return 1;
}

/*
 * Where the runtime call a codeptr_ra (`address_kind` CODEPTR and up) came
 * from was: the jump of a tail call (tailcall.c), or for a wait put at its
 * construct's call (TASKWAIT, TASKGROUP, BARRIER), the wait its outlined
 * body (GCC's from DWARF, clang's from the fork call's code) jumps to;
 * else the return address itself.  *is_return says which.
 */
static GElf_Addr runtime_call_site(Dwfl_Module *module, uint64_t address, int address_kind, int *is_return)
{
    GElf_Addr sites[OMPC_TAIL_SITES], body = 0;
    const char *entry = address_kind == OMPC_ADDRESS_TASKWAIT    ? "taskwait"
                        : address_kind == OMPC_ADDRESS_TASKGROUP ? "taskgroup"
                        : address_kind == OMPC_ADDRESS_BARRIER   ? OMPC_TAIL_BARRIER
                                                                 : NULL;
    *is_return = address_kind != OMPC_ADDRESS_CODE;
    if (address_kind < OMPC_ADDRESS_CODEPTR)
        return address;
    int count = ompc_tail_call_site(module, address, sites);
    if (count == 0 && entry != NULL
        && (ompc_gomp_outlined_body(module, address, &body) || (body = ompc_fork_body(module, address)) != 0))
        count = ompc_tail_call_from(module, body, entry, sites);
    if (!one_statement(module, sites, count))
        return address;
    *is_return = 0;
    return sites[0];
}

/*
 * `name`'s function when it is a target region's host entry (kept by the
 * symbolizer, demangled with its linkage name in *mangled), else NULL.
 */
static const char *offloaded_from(struct ompc_symbolizer *symbolizer, const char *name, const char **mangled)
{
    const char *function = NULL, *kept;
    size_t length = ompc_offloading_function(name, &function);
    if (length == 0 || (kept = keep(symbolizer, function, length, NULL)) == NULL)
        return NULL;
    return demangled_name(symbolizer, kept, mangled);
}

/*
 * Code of a target region run on the host: clang names its entry after
 * the device, the file, the function and the line, and outlines parallel
 * bodies inside it as usual.  The entry's name says nothing the
 * programmer wrote: the location and its callers are named by the
 * function the pragma is in, and the location says it is offloaded code.
 */
static void offloading_entry(struct ompc_symbolizer *symbolizer, struct ompc_location *out,
                             struct ompc_inline_caller *callers, int caller_count)
{
    const char *named, *mangled;
    if ((named = offloaded_from(symbolizer, out->function, &mangled)) != NULL) {
        out->function = named;
        out->mangled = mangled;
        out->offload = 1;
    }
    if ((named = offloaded_from(symbolizer, out->enclosing, &mangled)) != NULL) {
        out->enclosing = named;
        out->offload = 1;
    }
    for (int i = 0; i < caller_count; i++)
        if ((named = offloaded_from(symbolizer, callers[i].function, &mangled)) != NULL) {
            callers[i].function = named;
            callers[i].mangled = mangled;
            out->offload = 1;
        }
}

/* OMPC_ADDRESS_HANDED: the runtime call handing over the outlined body that holds `address`, located as a codeptr. */
static struct ompc_inline_caller *locate_handing(struct ompc_symbolizer *symbolizer, uint64_t address,
                                                 struct ompc_location *out)
{
    Dwfl_Module *module = dwfl_addrmodule(symbolizer->dwfl, address - 1);
    GElf_Off offset = 0;
    GElf_Addr site = 0;
    int is_return = 0;
    if (module == NULL || symbolizer->depth >= 8
        || dwfl_module_addrinfo(module, address - 1, &offset, &(GElf_Sym){0}, NULL, NULL, NULL) == NULL
        || (site = ompc_code_reference(module, address - 1 - offset, &is_return)) == 0 || !is_return)
        return NULL;
    symbolizer->depth++;
    struct ompc_inline_caller *callers = locate(symbolizer, site, OMPC_ADDRESS_CODEPTR, out);
    symbolizer->depth--;
    return callers;
}

/* DWARF line first, then the ELF symbol, then module + offset; the callers when inlined (owned by the caller). */
static struct ompc_inline_caller *locate(struct ompc_symbolizer *symbolizer, uint64_t address, int address_kind,
                                         struct ompc_location *out)
{
    memset(out, 0, sizeof *out);
    if (address_kind == OMPC_ADDRESS_HANDED)
        return locate_handing(symbolizer, address, out);
    /* The call instruction, not the one after it, says where the call is. */
    Dwfl_Module *module = dwfl_addrmodule(symbolizer->dwfl, address_kind != OMPC_ADDRESS_CODE ? address - 1 : address);
    if (module == NULL)
        return NULL;
    int is_return_address;
    address = runtime_call_site(module, address, address_kind, &is_return_address);
    GElf_Addr lookup = is_return_address ? address - 1 : address;
    const char *name = dwfl_module_info(module, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    Dwarf_Addr bias = 0;
    if (dwfl_module_getelf(module, &bias) == NULL)
        bias = 0;
    out->kind = OMPC_LOC_MODULE;
    out->module = name;
    out->module_offset = address - bias;
    const struct ompc_module_symbols *symbols = module_symbols(symbolizer, module, name);
    GElf_Off symbol_offset = 0;
    GElf_Sym symbol;
    const char *function =
        dwfl_module_addrinfo(module, lookup, &symbol_offset, &symbol, NULL, NULL, NULL);
    if (function == NULL || !symbol_holds(symbols, &symbol, symbol_offset))
        return NULL;
    out->kind = OMPC_LOC_SYMBOL;
    /* A versioned symbol (pthread_getspecific@@GLIBC_2.34) is the function the source names without its version. */
    const char *version = strchr(function, '@');
    if (version != NULL && version > function)
        function = keep(symbolizer, function, (size_t)(version - function), function);
    out->function = demangled_name(symbolizer, function, &out->mangled);
    out->function_offset = symbol_offset + (address - lookup);
    line_of(module, lookup, lookup - symbol_offset, out);
    if (out->kind != OMPC_LOC_LINE)
        return NULL;
    GElf_Addr body = is_return_address ? pragma_line(module, address, out) : 0;
    int line = 0;
    if ((address_kind == OMPC_ADDRESS_WORKSHARE || (address_kind == OMPC_ADDRESS_BARRIER && !is_return_address))
        && ompc_gomp_worksharing_line(module, address, is_return_address, out->file, &line))
        out->line = line;
    fortran_program(symbolizer, module, lookup, out);
    struct ompc_inline_caller *callers = inlined_frames(symbolizer, module, lookup, out);
    enclosing_function(symbolizer, module, lookup, out);
    if (out->enclosing == NULL && body != 0)
        construct_function(symbolizer, module, body, out);
    fortran_externals(symbolizer, module, lookup, out, callers);
    offloading_entry(symbolizer, out, callers, callers != NULL ? out->caller_count : 0);
    return callers;
}

/* Doubles the cache; -1 when memory runs out. */
static int cache_grow(struct ompc_symbolizer *symbolizer)
{
    size_t capacity = symbolizer->cache_capacity ? 2 * symbolizer->cache_capacity : 256;
    struct cached *cache = calloc(capacity, sizeof *cache);
    if (cache == NULL)
        return -1;
    for (size_t i = 0; i < symbolizer->cache_capacity; i++) {
        if (symbolizer->cache[i].key == 0)
            continue;
        size_t at = (size_t)(symbolizer->cache[i].key * UINT64_C(0x9E3779B97F4A7C15) >> 24) & (capacity - 1);
        while (cache[at].key != 0)
            at = (at + 1) & (capacity - 1);
        cache[at] = symbolizer->cache[i];
    }
    free(symbolizer->cache);
    symbolizer->cache = cache;
    symbolizer->cache_capacity = capacity;
    return 0;
}

void ompc_symbolize(struct ompc_symbolizer *symbolizer, uint64_t address, int address_kind,
                    struct ompc_location *out)
{
    memset(out, 0, sizeof *out);
    if (symbolizer == NULL || address == 0)
        return;
    if (address_kind < OMPC_ADDRESS_CODE || address_kind > OMPC_ADDRESS_HANDED)
        address_kind = OMPC_ADDRESS_RETURN;
    uint64_t key = address << 3 | (uint64_t)address_kind;
    if (key == 0 || (symbolizer->cache_used * 2 >= symbolizer->cache_capacity && cache_grow(symbolizer) != 0)) {
        /* Nowhere to keep the callers: the location without them. */
        free(locate(symbolizer, address, address_kind, out));
        out->callers = NULL;
        out->caller_count = 0;
        return;
    }
    size_t at = (size_t)(key * UINT64_C(0x9E3779B97F4A7C15) >> 24) & (symbolizer->cache_capacity - 1);
    while (symbolizer->cache[at].key != 0 && symbolizer->cache[at].key != key)
        at = (at + 1) & (symbolizer->cache_capacity - 1);
    struct cached *slot = &symbolizer->cache[at];
    if (slot->key == 0) {
        slot->callers = locate(symbolizer, address, address_kind, &slot->where);
        slot->key = key;
        symbolizer->cache_used++;
    }
    *out = slot->where;
}

const struct ompc_module_symbols *ompc_symbolizer_modules(const struct ompc_symbolizer *symbolizer, size_t *count)
{
    *count = symbolizer != NULL ? symbolizer->module_count : 0;
    return symbolizer != NULL ? symbolizer->modules : NULL;
}

/* Ends the libdwfl session, which owns every string handed out. */
void ompc_symbolizer_free(struct ompc_symbolizer *symbolizer)
{
    if (symbolizer == NULL)
        return;
    dwfl_end(symbolizer->dwfl);
    free(symbolizer->modules);
    free(symbolizer->debuginfo_path);
    for (size_t i = 0; i < symbolizer->cache_capacity; i++)
        free(symbolizer->cache[i].callers);
    free(symbolizer->cache);
    for (size_t i = 0; i < symbolizer->name_capacity; i++)
        free(symbolizer->names[i].name);
    free(symbolizer->names);
    for (size_t i = 0; i < symbolizer->owned_count; i++)
        free(symbolizer->owned[i]);
    free(symbolizer->owned);
    free(symbolizer->handed);
    free(symbolizer);
}

int ompc_symbolizer_available(void)
{
    return 1;
}

#else /* !HAVE_LIBDW */

/* Without libdw there is nothing to read DWARF with: addresses stay raw. */
struct ompc_symbolizer *ompc_symbolizer_new(const char *debuginfo_path)
{
    (void)debuginfo_path;
    return NULL;
}

const struct ompc_module_symbols *ompc_symbolizer_modules(const struct ompc_symbolizer *symbolizer, size_t *count)
{
    (void)symbolizer;
    *count = 0;
    return NULL;
}

int ompc_symbolizer_add_module(struct ompc_symbolizer *symbolizer, const char *path, const char *symfs,
                               uint64_t bias)
{
    (void)symbolizer, (void)path, (void)symfs, (void)bias;
    return -1;
}

void ompc_symbolize(struct ompc_symbolizer *symbolizer, uint64_t address, int address_kind,
                    struct ompc_location *out)
{
    (void)symbolizer, (void)address, (void)address_kind;
    memset(out, 0, sizeof *out);
}

void ompc_symbolizer_free(struct ompc_symbolizer *symbolizer)
{
    (void)symbolizer;
}

int ompc_symbolizer_available(void)
{
    return 0;
}

#endif /* HAVE_LIBDW */

const char *ompc_symbol_source_name(enum ompc_symbol_source source)
{
    static const char *const names[] = {"none", "dynsym", "symtab", "dwarf"};
    return source >= OMPC_SYMBOLS_NONE && source <= OMPC_SYMBOLS_DWARF ? names[source] : "none";
}
