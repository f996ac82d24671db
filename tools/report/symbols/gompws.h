/* gompws.h - the worksharing construct a GCC-compiled implicit barrier closes, read from the code that jumps to it, so the barrier is named at the construct rather than at the loop body's last line. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_GOMPWS_H
#define OMPCOLLECT_GOMPWS_H 1

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>

/*
 * When `site` (in `module`, as loaded) is a call of a GOMP_ entry that
 * waits at a barrier (GOMP_barrier, GOMP_loop_end, GOMP_sections_end;
 * `is_return`: `site` is the call's return address, else the tail jump
 * itself) that GCC gave no line of its own (the closing barrier of a
 * worksharing construct), the line in `file` of the code that decides
 * the thread's share and jumps to that barrier: the construct's.  1 and
 * *line when found, else 0 (an explicit barrier, another compiler's code,
 * not x86-64).
 */
int ompc_gomp_worksharing_line(Dwfl_Module *module, GElf_Addr site, int is_return, const char *file, int *line);
#endif

#endif
