/* symbols_write.c - what named each module's code: the text report's "Symbols" section (the modules holding reported code that have no symbols, or only .dynsym) and the JSON report's "modules" with their "symbols" and "debug_file". */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "jsonw.h"
#include "report.h"

#include <stdio.h>
#include <string.h>

/* A module's recorded path, NUL-terminated whatever the record held. */
static void module_path(const struct ompc_model_process *process, uint32_t i, char *path)
{
    memcpy(path, process->modules[i].path, OMPC_MODULE_PATH);
    path[OMPC_MODULE_PATH - 1] = '\0';
}

/*
 * What named the code of the module the symbolizers were given as `file`:
 * the locations' symbolizer (constructs, waits, task constructs) first,
 * then the stacks' frames.  0 when no reported address lay in it.
 */
static int module_names(const struct ompc_locations *locations, const struct ompc_stacks *stacks, const char *file,
                        enum ompc_symbol_source *source, const char **debug_file)
{
    size_t count;
    const struct ompc_module_symbols *modules = ompc_symbolizer_modules(locations->symbolizer, &count);
    for (size_t i = 0; i < count; i++)
        if (strcmp(modules[i].module, file) == 0) {
            *source = modules[i].source;
            *debug_file = modules[i].debug_file;
            return 1;
        }
    for (size_t i = 0; stacks != NULL && i < stacks->module_count; i++)
        if (strcmp(stacks->modules[i].path, file) == 0) {
            *source = stacks->modules[i].source;
            *debug_file = stacks->modules[i].debug_file;
            return 1;
        }
    return 0;
}

void ompc_symbols_text(const struct summary *summary, FILE *out)
{
    const struct ompc_model_process *process = summary->process;
    const struct ompc_stacks *stacks = summary->report->stacks_asked ? summary->report->stacks : NULL;
    int any = 0;
    for (uint32_t i = 0; i < process->module_count && i < OMPC_MAX_MODULES; i++) {
        char path[OMPC_MODULE_PATH];
        module_path(process, i, path);
        const char *file = ompc_model_module_file(process, path), *debug_file;
        enum ompc_symbol_source source;
        /* The runtime's own code is not the user's to name: its entry points are exported, which is all a report needs. */
        if (!module_names(&summary->locations, stacks, file, &source, &debug_file) || source >= OMPC_SYMBOLS_TABLE
            || ompc_runtime_module(file, process->runtime))
            continue;
        if (!any)
            fputs("\nSymbols (modules holding reported code that have no symbol table; a separate debug file would "
                  "name it, see ompcollect(1) SYMBOLS):\n", out);
        fprintf(out, "  %-12s %s\n", source == OMPC_SYMBOLS_DYNAMIC ? "dynsym only" : "no symbols", path);
        any = 1;
    }
    if (any)
        fputs("  dynsym only: exported functions by name, the rest module+offset; no symbols: module+offset\n", out);
}

json_t *ompc_modules_json(const struct ompc_model_process *process, const struct ompc_locations *locations,
                          const struct ompc_stacks *stacks)
{
    json_t *modules = json_array();
    int failed = 0;
    for (uint32_t i = 0; i < process->module_count && i < OMPC_MAX_MODULES && !failed; i++) {
        char path[OMPC_MODULE_PATH];
        module_path(process, i, path);
        enum ompc_symbol_source source;
        const char *debug_file = NULL;
        int named = module_names(locations, stacks, ompc_model_module_file(process, path), &source, &debug_file);
        json_t *module = json_object();
        failed = ompc_json_set(module, "path", ompc_json_string_or_null(path));
        failed |= ompc_json_set(module, "bias", ompc_json_hex(process->modules[i].bias, 0));
        failed |= ompc_json_set(module, "symbols",
                                named ? ompc_json_string_or_null(ompc_symbol_source_name(source)) : json_null());
        failed |= ompc_json_set(module, "debug_file", ompc_json_string_or_null(debug_file));
        failed |= ompc_json_append(modules, module);
    }
    return ompc_json_built(modules, failed);
}
