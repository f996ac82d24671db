/* tailcall.h - where an OpenMP runtime call the compiler made a tail call is: the jump in the program's code, found from the return address the runtime reported or from the body that jumps. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_TAILCALL_H
#define OMPCOLLECT_TAILCALL_H 1

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>

/* How many jumps into the runtime one search hands back. */
#define OMPC_TAIL_SITES 4

/* As `entry` below: the entry points that wait at a barrier (GOMP_barrier, GOMP_loop_end, __kmpc_barrier, ...). */
#define OMPC_TAIL_BARRIER "(barrier)"

/*
 * When the call that returns to `return_address` (in `module`, as the
 * program saw it) calls a function of the module rather than the runtime,
 * the runtime's entry was reached from that function by tail calls.
 * Returns how many jumps into an OpenMP entry point (GOMP_*, __kmpc_*,
 * omp_*) its chain of tail calls holds, the first OMPC_TAIL_SITES of them
 * in `sites`; 0 when the call is the runtime's own, or the chain holds none.
 */
int ompc_tail_call_site(Dwfl_Module *module, GElf_Addr return_address, GElf_Addr *sites);

/*
 * The jumps into an OpenMP entry point whose name holds `entry` (any
 * OpenMP entry when NULL, a barrier's for OMPC_TAIL_BARRIER) in the chain of tail calls from the function
 * starting at `function`: how many, the first OMPC_TAIL_SITES in `sites`.
 */
int ompc_tail_call_from(Dwfl_Module *module, GElf_Addr function, const char *entry, GElf_Addr *sites);

/*
 * The outlined body clang's __kmpc_fork_call (or __kmpc_fork_teams)
 * returning to `return_address` was handed: the `lea body(%rip), %rdx`
 * just before the call (x86-64); 0 when the call is none of those or the
 * body was loaded elsewhere.
 */
GElf_Addr ompc_fork_body(Dwfl_Module *module, GElf_Addr return_address);

/*
 * Where the module's code hands `target` to the OpenMP runtime: the
 * return address of the runtime call (*is_return 1) just after the first
 * `lea target(%rip), %reg` (x86-64), else that instruction (*is_return 0),
 * in the function a clang-outlined body's pragma (or a GCC-outlined
 * league's, handed to GOMP_teams_reg) is written in.  0 when
 * none (or not x86-64 code).
 */
GElf_Addr ompc_code_reference(Dwfl_Module *module, GElf_Addr target, int *is_return);

/* `length` bytes of `module`'s code at `address` (as loaded), NULL when not all in one section or not x86-64 code. */
const unsigned char *ompc_code_bytes(Dwfl_Module *module, GElf_Addr address, size_t length);

/*
 * What the instruction at `at` (as loaded, x86-64) calls or jumps to:
 * call or jmp rel32, or through a GOT slot (-fno-plt).  2 for a PLT stub
 * or GOT slot, *name its symbol (may be NULL for a stub); 1 for a
 * function of the module; 0 when it is no such instruction.
 */
int ompc_code_call(Dwfl_Module *module, GElf_Addr at, const char **name);
#endif

#endif
