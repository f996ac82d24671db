/* gompsite.h - where a GCC-compiled OpenMP construct's outlined body starts, from the DWARF record of its runtime call. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_GOMPSITE_H
#define OMPCOLLECT_GOMPSITE_H 1

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>

/*
 * When the call that returns to `return_address` (an address in `module`,
 * as the program saw it) is a call of a GOMP_ entry point whose first
 * argument DWARF records as a code address, that address (the outlined
 * body, whose first line is the construct's pragma) in *body, and 1;
 * else 0.
 */
int ompc_gomp_outlined_body(Dwfl_Module *module, GElf_Addr return_address, GElf_Addr *body);
#endif

#endif
