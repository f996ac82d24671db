/* coderanges.h - where a process's modules keep their code, read from their ELF program headers, so a frame's return address can be told from a data word the walk mistook for one. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_CODERANGES_H
#define OMPCOLLECT_CODERANGES_H 1

#include <stdint.h>

struct ompc_code_ranges;

/* An empty set of ranges; NULL when memory runs out. */
struct ompc_code_ranges *ompc_code_ranges_new(void);

/*
 * Adds the executable segments (PT_LOAD with PF_X) of the ELF file `path`
 * (under `symfs` when given) loaded at `bias`.  Returns 0, or -1 when the
 * file cannot be read as an ELF file of this machine: the module is then
 * unknown, and the set incomplete.
 */
int ompc_code_ranges_add_file(struct ompc_code_ranges *ranges, const char *path, const char *symfs, uint64_t bias);

/* Called per executable segment: its load address, size in memory and offset in the file; nonzero stops. */
typedef int (*ompc_segment_fn)(void *context, uint64_t low, uint64_t size, uint64_t offset);

/*
 * Calls `each` for every executable segment (PT_LOAD with PF_X) of the ELF
 * file `path` (under `symfs` when given) loaded at `bias`.  Returns 0, or
 * -1 when the file cannot be read as an ELF file of this machine, has no
 * code, or `each` stopped.
 */
int ompc_code_segments(const char *path, const char *symfs, uint64_t bias, ompc_segment_fn each, void *context);

/* Adds [low, high) as code (a module without a file: the vDSO); -1 when memory runs out. */
int ompc_code_ranges_add(struct ompc_code_ranges *ranges, uint64_t low, uint64_t high);

/* Marks the set incomplete: a module whose code could lie anywhere (not recorded, or its file unreadable). */
void ompc_code_ranges_unknown(struct ompc_code_ranges *ranges);

/* Whether every module's code is known, so an address outside the ranges is certainly not code. */
int ompc_code_ranges_complete(const struct ompc_code_ranges *ranges);

/* Whether `address` lies in one of the ranges. */
int ompc_code_ranges_contain(struct ompc_code_ranges *ranges, uint64_t address);

void ompc_code_ranges_free(struct ompc_code_ranges *ranges);

#endif /* OMPCOLLECT_CODERANGES_H */
