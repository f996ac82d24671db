/* runtime_text.h - where the OpenMP runtime's code lies in the observed process, so that a barrier the runtime placed at its own code is not named by a runtime address. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPC_RUNTIME_TEXT_H
#define OMPC_RUNTIME_TEXT_H

#include <link.h>
#include <stdint.h>

/* Runtime objects' executable segments kept; libomp has one, and a process loads at most a few runtimes. */
#define OMPC_RUNTIME_TEXT_RANGES 8

/* Whether a loaded object's path names an OpenMP runtime (libomp, libgomp, libiomp5). */
int ompc_runtime_name(const char *path);

/* Adds the executable segments of `info` when it is a runtime object (outside signal handlers). */
void ompc_runtime_text_add(const struct dl_phdr_info *info);

/* Notes every loaded runtime object's code, once per process image (outside signal handlers). */
void ompc_runtime_text_note(void);

/* Whether `address` lies in a noted runtime's code.  Async-signal-safe: reads atomics only. */
int ompc_runtime_text_holds(uint64_t address);

/*
 * The code address a barrier wait in `state` is at: `wait_codeptr`, or 0
 * (unknown; an implicit barrier then goes to its region's construct) when
 * the runtime gave an address of its own code.  Async-signal-safe.
 */
uint64_t ompc_barrier_site(int state, uint64_t wait_codeptr);

#endif
