/* outlined.h - the function the programmer wrote a clang-outlined OpenMP body in (clang up to 15 names it .omp_outlined..N), from the DWARF of the body's compile unit, and the one a target region's host entry (__omp_offloading_...) names. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_OUTLINED_H
#define OMPCOLLECT_OUTLINED_H 1

#include <stddef.h>

/*
 * clang's host entry of a target region, __omp_offloading_DEV_FILE_FN_lLINE
 * (with -g the body is FN_lLINE_debug__ beside it: DEV and FILE are hex
 * ids, FN the function whose pragma it is, mangled for C++): the length
 * of FN with *function at its start inside `name`, or 0 when `name` is no
 * such entry.
 */
size_t ompc_offloading_function(const char *name, const char **function);

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
