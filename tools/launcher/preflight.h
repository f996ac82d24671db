/* preflight.h - what the launcher settles before the program runs (the program can be observed; where the shim, the agent and the runtime are; the environment the program gets), and which runtime a report names. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_PREFLIGHT_H
#define OMPCOLLECT_PREFLIGHT_H 1

#include "elfcheck.h"
#include "run.h"

/* Finds the program as execvp would and refuses what cannot be observed (MPI launchers, static and set-user-ID programs); fills `elf`. */
void check_program_file(const char *command, struct ompc_elf_info *elf);

/* The shim's, the agent's and the runtime's places (--runtime or OMPCOLLECT_RUNTIME: `runtime`), and the environment the program gets. */
void arrange_libraries(struct run *run, const char *runtime, char **preload, char **library_path);

/*
 * When the program links the libmpi ompcollect's MPI library was built
 * against (itself or through a library it needs), puts that library in
 * `preload` after the agent, so MPI time is measured; says so when it
 * links another MPI, whose calls then count in the OpenMP states.
 */
void arrange_mpi(struct run *run, const struct ompc_elf_info *elf, char **preload);

/* Sets run->stand_ins: the private directory's links and the files they named, for the symbolizer. */
void private_stand_ins(struct run *run);

/* Refuses, before it runs, a program the loader would refuse for a versioned OpenMP name the runtime in GCC's libgomp's place lacks; else says when GCC's libgomp is replaced. */
void check_loadable(const struct run *run, const struct ompc_elf_info *elf, const char *preload,
                    const char *library_path);

/* Removes the private directory arrange_libraries made (NULL: none). */
void remove_private_dir(const char *directory);

/* The LLVM version in a runtime's real path, or the kind of runtime (malloc'd). */
char *runtime_version(const char *file);

/* Whether the loader found `path` through the private directory's libgomp.so.1. */
int in_private_dir(const struct run *run, const char *path);

/* Why this runtime ran, as the launcher arranged it. */
const char *runtime_reason(const struct run *run, const char *path, const char *file);

#endif /* OMPCOLLECT_PREFLIGHT_H */
