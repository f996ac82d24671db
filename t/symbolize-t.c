/* symbolize-t.c - the launcher's symbolizer on this very program: DWARF lines for its own code, ELF symbols for libc, module + offset for a stripped copy, nothing for an address no module holds. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/tap.h"
#include "symbolize.h"

static volatile uint64_t sink;
static int call_line;

/* Hands back the address its caller continues at. */
__attribute__((noinline)) static uint64_t return_address(void)
{
    return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

/* Calls return_address on a line this test knows; the work after it keeps the call a call. */
__attribute__((noinline)) uint64_t symbolize_target(void)
{
    call_line = __LINE__ + 1;
    uint64_t here = return_address();
    sink = here;
    return here + sink - here;
}

static uint64_t executable_bias;

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    executable_bias = info->dlpi_addr;
    return 1;
}

int main(void)
{
    if (!ompc_symbolizer_available()) {
        printf("1..0 # SKIP ompcollect was built without libdw (install libdw-dev)\n");
        return 0;
    }
    tap_plan(7);
    char self[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0)
        tap_bail("cannot read /proc/self/exe");
    self[length] = '\0';
    dl_iterate_phdr(first_object, NULL);

    struct ompc_symbolizer *symbolizer = ompc_symbolizer_new(NULL);
    tap_ok(symbolizer != NULL && ompc_symbolizer_add_module(symbolizer, self, NULL, executable_bias) == 0,
           "the test's own executable is reported at its load bias");

    uint64_t address = symbolize_target();
    struct ompc_location where;
    ompc_symbolize(symbolizer, address, 1, &where);
    tap_diag("return address %#llx: kind %d, %s+%#llx, %s:%d, module %s+%#llx",
             (unsigned long long)address, where.kind, where.function ? where.function : "?",
             (unsigned long long)where.function_offset, where.file ? where.file : "?", where.line,
             where.module ? where.module : "?", (unsigned long long)where.module_offset);
    tap_ok(where.kind == OMPC_LOC_LINE && where.function != NULL
               && strcmp(where.function, "symbolize_target") == 0 && where.file != NULL
               && strstr(where.file, "symbolize-t.c") != NULL && where.line == call_line,
           "a return address in our code: function, file and the line of the call");
    tap_ok(where.module != NULL && strcmp(where.module, self) == 0
               && where.module_offset == address - executable_bias,
           "... and the module with the offset from its load bias");

    ompc_symbolize(symbolizer, (uint64_t)(uintptr_t)&getpid, 0, &where);
    tap_diag("getpid: kind %d, %s+%#llx in %s", where.kind, where.function ? where.function : "?",
             (unsigned long long)where.function_offset, where.module ? where.module : "?");
    tap_ok(where.kind == OMPC_LOC_NONE, "a library not reported is not guessed at");

    ompc_symbolize(symbolizer, 0x1000, 0, &where);
    tap_ok(where.kind == OMPC_LOC_NONE && where.module == NULL,
           "an address no module holds stays unresolved");
    tap_ok(ompc_symbolizer_add_module(symbolizer, "/nonexistent/libgone.so", NULL, 0x7f0000000000) == -1,
           "a module whose file is gone is refused, not fatal");
    ompc_symbolizer_free(symbolizer);

    /* A stripped copy at the same bias: only the module and the offset are left. */
    char stripped[] = "/tmp/symbolize-t-XXXXXX";
    int fd = mkstemp(stripped);
    char command[2 * PATH_MAX + 64];
    snprintf(command, sizeof command, "strip --strip-all -o '%s' '%s' 2>/dev/null", stripped, self);
    if (fd < 0 || system(command) != 0) {
        tap_skip(1, "strip (binutils) could not make a stripped copy");
    } else {
        struct ompc_symbolizer *bare = ompc_symbolizer_new(NULL);
        ompc_symbolizer_add_module(bare, stripped, NULL, executable_bias);
        ompc_symbolize(bare, address, 1, &where);
        tap_ok(where.kind == OMPC_LOC_MODULE && where.function == NULL
                   && where.module_offset == address - executable_bias,
               "in a stripped binary: module + offset, no name");
        ompc_symbolizer_free(bare);
    }
    if (fd >= 0) {
        close(fd);
        unlink(stripped);
    }
    return tap_done();
}
