/* outlined.h - the function the programmer wrote a clang-outlined OpenMP body in (clang up to 15 names it .omp_outlined..N), from the DWARF of the body's compile unit. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_OUTLINED_H
#define OMPCOLLECT_OUTLINED_H 1

#ifdef HAVE_LIBDW
#include <elfutils/libdw.h>

/* Whether `name` is one clang gives the bodies it outlines (.omp_outlined..N, .omp_task_entry..N). */
int ompc_is_clang_outlined(const char *name);

/*
 * The function of `cu` that holds `file`:`line` in its source: of the
 * functions emitted in the CU, not outlined, declared in `file` at or
 * before `line` and with code at or after it there, the one declared
 * last.  1 with its DIE in *parent, else 0.
 */
int ompc_outlined_parent(Dwarf_Die *cu, const char *file, int line, Dwarf_Die *parent);
#endif

#endif
