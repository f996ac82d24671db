/* demangle.h - C++, Rust and Fortran symbol names as their programmers wrote them, and shortened for narrow tables, in the launcher. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_DEMANGLE_H
#define OMPCOLLECT_DEMANGLE_H 1

#include <stddef.h>

/*
 * The demangled form of a C++ (Itanium ABI), legacy Rust or Fortran
 * (gfortran's "__kern_MOD_work", flang's "_QMkernPwork": "kern::work")
 * symbol, in memory the caller frees; NULL when `name` is not mangled,
 * cannot be demangled (a C name, a damaged one) or memory ran out.  C++
 * needs the C++ runtime's demangler, which configure looks for
 * (ompc_demangle_cxx_available).  A Fortran main program (MAIN__,
 * _QQmain) reads OMPC_FORTRAN_MAIN_PROGRAM: its name is only in DWARF.
 */
char *ompc_demangle(const char *name);

/* What a Fortran main program is called when DWARF does not name it (no -g, or no PROGRAM statement). */
#define OMPC_FORTRAN_MAIN_PROGRAM "main program"

/*
 * When `name` is a Fortran main program's symbol, gfortran's MAIN__ or
 * flang's _QQmain, alone or with a compiler's suffix ("MAIN__._omp_fn.0"):
 * that suffix ("" when none), else NULL.
 */
const char *ompc_fortran_main_suffix(const char *name);

/* Whether `name` may be one ompc_demangle demangles: a cheap test on its spelling, so C names skip the lookup. */
int ompc_may_be_mangled(const char *name);

/* Whether this build demangles C++ names (configure found __cxa_demangle). */
int ompc_demangle_cxx_available(void);

/* What ompc_short_name leaves out. */
enum {
    OMPC_SHORT_PARAMETERS = 1, /* the parameter list, its qualifiers and the return type: "ns::f<int>" */
    OMPC_SHORT_TEMPLATES = 2   /* template arguments too: "ns::f<...>" */
};

/*
 * A shortened demangled name written into `buffer` (always terminated,
 * cut to `size`): `what` (OMPC_SHORT_*) says what to leave out.  Names
 * that are not C++ come back whole.  Returns `buffer`.
 */
const char *ompc_short_name(const char *name, int what, char *buffer, size_t size);

#endif /* OMPCOLLECT_DEMANGLE_H */
