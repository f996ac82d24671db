/* demangle-t.c - C++, legacy Rust and Fortran names demangled, and the short forms the text tables print, on names compilers really emit. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "lib/tap.h"

/* Whether `mangled` demangles to `expected` (NULL: stays as it is). */
static int demangles(const char *mangled, const char *expected)
{
    char *got = ompc_demangle(mangled);
    int same = expected == NULL ? got == NULL : got != NULL && strcmp(got, expected) == 0;
    if (!same)
        tap_diag("%s -> %s, expected %s", mangled, got ? got : "(null)", expected ? expected : "(null)");
    free(got);
    return same;
}

/* Whether the short form of `name` with `what` left out is `expected`. */
static int shortens(const char *name, int what, const char *expected)
{
    char buffer[256];
    ompc_short_name(name, what, buffer, sizeof buffer);
    if (strcmp(buffer, expected) != 0)
        tap_diag("%s -> %s, expected %s", name, buffer, expected);
    return strcmp(buffer, expected) == 0;
}

int main(void)
{
    tap_plan(16);
    const int all = OMPC_SHORT_PARAMETERS | OMPC_SHORT_TEMPLATES;
    tap_ok(demangles("main", NULL) && demangles("solve.constprop.0", NULL) && demangles("_Zbogus", NULL)
               && demangles(NULL, NULL),
           "C names, clones of them and damaged names are not demangled");
    tap_ok(demangles("_ZN4core3fmt5write17h4d1a1e6f0c2b3a4dE", "core::fmt::write")
               && demangles("_ZN51_$LT$std..io..Write$u20$as$u20$core..fmt..Write$GT$9write_str17h5c3e5b3f1e1e1e1eE",
                            "<std::io::Write as core::fmt::Write>::write_str"),
           "legacy Rust names lose their hash and their escapes");
    tap_ok(demangles("__kern_MOD_work", "kern::work") && demangles("__a_b_MOD_w", "a_b::w")
               && demangles("__kern_MOD_lk", "kern::lk"),
           "gfortran's module procedures and variables: __kern_MOD_work is kern::work");
    tap_ok(demangles("__kern_MOD_work._omp_fn.0", "kern::work._omp_fn.0")
               && demangles("__kern_MOD_work.constprop.0", "kern::work.constprop.0"),
           "... its OpenMP outlined bodies and clones keep their suffix, so the body's construct is named kern::work");
    tap_ok(demangles("__kern.kimpl_MOD_hidden", "kern.kimpl::hidden") && demangles("__a_b.s2_MOD_deep", "a_b.s2::deep"),
           "... a submodule's procedure, as gfortran 12 spells it: kern.kimpl::hidden");
    tap_ok(demangles("MAIN__", OMPC_FORTRAN_MAIN_PROGRAM) && demangles("MAIN__._omp_fn.1", "main program._omp_fn.1")
               && demangles("_QQmain", OMPC_FORTRAN_MAIN_PROGRAM) && ompc_fortran_main_suffix("MAIN__") != NULL
               && strcmp(ompc_fortran_main_suffix("MAIN__._omp_fn.1"), "._omp_fn.1") == 0
               && ompc_fortran_main_suffix("MAIN___") == NULL && ompc_fortran_main_suffix("main") == NULL,
           "the main program of gfortran (MAIN__) and flang (_QQmain), with its outlined bodies");
    tap_ok(demangles("_QMkernPwork", "kern::work") && demangles("_QPext_proc", "ext_proc")
               && demangles("_QMkernFworkPinner", "kern::work::inner") && demangles("_QFsubPfun", "sub::fun")
               && demangles("_QMmodSs1modSs2modFsubPfun", "mod.s2mod::sub::fun") && demangles("_QMkernElk", "kern::lk")
               && demangles("_QMkernPwork..omp_par", "kern::work..omp_par"),
           "flang's names (its lowering's conventions): _QMkernPwork is kern::work");
    tap_ok(demangles("__libc_start_main", NULL) && demangles("__kmp_fork_call", NULL) && demangles("__MOD_x", NULL)
               && demangles("__Kern_MOD_x", NULL) && demangles("__kern_MOD_", NULL) && demangles("_QMkern", NULL)
               && demangles("_QMkernECpi", NULL) && demangles("_QCwork", NULL) && demangles("_QQclX9a37c0", NULL)
               && demangles("_QMkernPwork_X", NULL) && demangles("_Q", NULL) && demangles("ext_proc_", NULL)
               && !ompc_may_be_mangled("main") && !ompc_may_be_mangled("__libc_start_main")
               && ompc_may_be_mangled("__kern_MOD_work") && ompc_may_be_mangled("MAIN__"),
           "... but not C names with underscores, types, constants, common blocks or damaged ones");
    if (!ompc_demangle_cxx_available()) {
        tap_skip(3, "built without __cxa_demangle (configure --without-demangle, or no libstdc++): C++ names stay mangled");
    } else {
        tap_ok(demangles("_ZN2ns3fooIiEEvT_", "void ns::foo<int>(int)")
                   && demangles("_ZNSt6vectorIiSaIiEE9push_backERKi",
                                "std::vector<int, std::allocator<int> >::push_back(int const&)"),
               "C++ functions and templates are demangled by the C++ runtime");
        tap_ok(demangles("_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const")
                   && demangles("_ZZ4mainENK3$_0clEv", "main::$_0::operator()() const"),
               "g++'s and clang++'s lambdas");
        tap_ok(demangles("_Z3fooi.constprop.0", "foo(int) [clone .constprop.0]"), "gcc's clones");
    }
    tap_ok(shortens("void ns::foo<int>(int)", all, "ns::foo<...>")
               && shortens("void ns::foo<int>(int)", OMPC_SHORT_PARAMETERS, "ns::foo<int>")
               && shortens("void ns::foo<int>(int)", 0, "void ns::foo<int>(int)"),
           "short names: no return type or parameters, template arguments elided on request");
    tap_ok(shortens("std::vector<int, std::allocator<int> >::push_back(int const&)", all, "std::vector<...>::push_back")
               && shortens("foo(int) [clone .constprop.0]", all, "foo"),
           "... nested templates and clones");
    tap_ok(shortens("main::{lambda()#1}::operator()() const", all, "main::{lambda()#1}::operator()")
               && shortens("(anonymous namespace)::bar()", all, "(anonymous namespace)::bar")
               && shortens("A::operator<<(int)", all, "A::operator<<") && shortens("A::operator int() const", all, "A::operator int")
               && shortens("A::operator<(A const&)", all, "A::operator<"),
           "... lambdas, anonymous namespaces and operators keep their names");
    tap_ok(shortens("decltype (g({parm#1})) f<int>(int)", all, "f<...>") && shortens("main._omp_fn.0", all, "main._omp_fn.0")
               && shortens("kern::work._omp_fn.0", all, "kern::work._omp_fn.0")
               && shortens("main program", OMPC_SHORT_PARAMETERS, "main program")
               && shortens("main program._omp_fn.0", all, "main program._omp_fn.0"),
           "... a return type with parentheses; C and Fortran names come back whole");
    char small[8];
    ompc_short_name("std::vector<int>::push_back(int)", OMPC_SHORT_PARAMETERS, small, sizeof small);
    tap_ok(strcmp(small, "std::ve") == 0, "a short buffer is cut and terminated");
    return tap_done();
}
