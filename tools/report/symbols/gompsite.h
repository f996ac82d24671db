/* gompsite.h - the pragma line of a GCC-compiled OpenMP construct, from the DWARF record of its runtime call. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_GOMPSITE_H
#define OMPCOLLECT_GOMPSITE_H 1

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>

/*
 * When the call that returns to `return_address` (an address in `module`,
 * as the program saw it) is a call of a GOMP_ entry point whose first
 * argument, the outlined body, DWARF names: the file and line of that
 * body's first instruction (the construct's pragma), and 1; else 0.
 * *body is the body's address when the call was found, else 0.
 */
int ompc_gomp_pragma_line(Dwfl_Module *module, GElf_Addr return_address, const char **file, int *line,
                          GElf_Addr *body);

/*
 * The outlined body (its address, as loaded) that the GOMP_ call returning
 * to `return_address` was handed, from the call site's DWARF record or the
 * code before the call: 1 when found, else 0.
 */
int ompc_gomp_outlined_body(Dwfl_Module *module, GElf_Addr return_address, GElf_Addr *body);
#endif

#endif
