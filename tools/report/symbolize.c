/* symbolize.c - code address to function, file and line with elfutils' libdwfl, run by the launcher after the program ended, never inside it. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "symbolize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>

struct ompc_symbolizer {
    Dwfl *dwfl;
};

/* Files are read from disk by path; separate debug files are found the standard ways (build id, .debug). */
static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

/* Creates the libdwfl session that every module joins. */
struct ompc_symbolizer *ompc_symbolizer_new(void)
{
    struct ompc_symbolizer *symbolizer = calloc(1, sizeof *symbolizer);
    if (symbolizer == NULL)
        return NULL;
    symbolizer->dwfl = dwfl_begin(&offline_callbacks);
    if (symbolizer->dwfl == NULL) {
        free(symbolizer);
        return NULL;
    }
    dwfl_report_begin(symbolizer->dwfl);
    return symbolizer;
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
    Dwfl_Module *module = dwfl_report_elf(symbolizer->dwfl, path, file != NULL ? file : path, -1, (GElf_Addr)bias,
                                          false);
    dwfl_report_end(symbolizer->dwfl, NULL, NULL);
    free(file);
    return module != NULL ? 0 : -1;
}

/* DWARF line first, then the ELF symbol, then module + offset. */
void ompc_symbolize(struct ompc_symbolizer *symbolizer, uint64_t address, int is_return_address,
                    struct ompc_location *out)
{
    memset(out, 0, sizeof *out);
    if (symbolizer == NULL || address == 0)
        return;
    /* The call instruction, not the one after it, says where the call is. */
    GElf_Addr lookup = is_return_address ? address - 1 : address;
    Dwfl_Module *module = dwfl_addrmodule(symbolizer->dwfl, lookup);
    if (module == NULL)
        return;
    const char *name = dwfl_module_info(module, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    Dwarf_Addr bias = 0;
    if (dwfl_module_getelf(module, &bias) == NULL)
        bias = 0;
    out->kind = OMPC_LOC_MODULE;
    out->module = name;
    out->module_offset = address - bias;
    GElf_Off symbol_offset = 0;
    GElf_Sym symbol;
    const char *function =
        dwfl_module_addrinfo(module, lookup, &symbol_offset, &symbol, NULL, NULL, NULL);
    if (function == NULL)
        return;
    out->kind = OMPC_LOC_SYMBOL;
    out->function = function;
    out->function_offset = symbol_offset + (address - lookup);
    Dwfl_Line *line = dwfl_module_getsrc(module, lookup);
    int line_number = 0;
    const char *file = NULL;
    if (line != NULL) {
        file = dwfl_lineinfo(line, NULL, &line_number, NULL, NULL, NULL);
    } else {
        /* clang emits no .debug_aranges and older libdw finds no CU without them: search the CUs' ranges. */
        Dwarf_Addr cu_bias = 0;
        Dwarf_Die *cu = NULL;
        while ((cu = dwfl_module_nextcu(module, cu, &cu_bias)) != NULL) {
            if (dwarf_haspc(cu, lookup - cu_bias) <= 0)
                continue;
            Dwarf_Line *found = dwarf_getsrc_die(cu, lookup - cu_bias);
            if (found != NULL && dwarf_lineno(found, &line_number) == 0)
                file = dwarf_linesrc(found, NULL, NULL);
            break;
        }
    }
    if (file == NULL || line_number <= 0)
        return;
    out->kind = OMPC_LOC_LINE;
    out->file = file;
    out->line = line_number;
}

/* Ends the libdwfl session, which owns every string handed out. */
void ompc_symbolizer_free(struct ompc_symbolizer *symbolizer)
{
    if (symbolizer == NULL)
        return;
    dwfl_end(symbolizer->dwfl);
    free(symbolizer);
}

int ompc_symbolizer_available(void)
{
    return 1;
}

#else /* !HAVE_LIBDW */

/* Without libdw there is nothing to read DWARF with: addresses stay raw. */
struct ompc_symbolizer *ompc_symbolizer_new(void)
{
    return NULL;
}

int ompc_symbolizer_add_module(struct ompc_symbolizer *symbolizer, const char *path, const char *symfs,
                               uint64_t bias)
{
    (void)symbolizer, (void)path, (void)symfs, (void)bias;
    return -1;
}

void ompc_symbolize(struct ompc_symbolizer *symbolizer, uint64_t address, int is_return_address,
                    struct ompc_location *out)
{
    (void)symbolizer, (void)address, (void)is_return_address;
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
