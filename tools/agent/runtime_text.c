/* runtime_text.c - where the OpenMP runtime's code lies in the observed process, so that a barrier the runtime placed at its own code is not named by a runtime address. */
/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * libomp 14 sometimes reports the join barrier of a GCC-compiled region
 * (GOMP_parallel) with a return address inside GOMP_parallel itself: the
 * call-site slot it reads was already consumed.  Such an address is no
 * place in the user's code; the wait belongs to its region's construct.
 * The ranges are written once, outside any signal handler, and published
 * by their count; the sampling handler reads them lock-free.
 */
#define _GNU_SOURCE 1
#include <config.h>

#include "omp_collector_api.h"
#include "runtime_text.h"

#include <stdatomic.h>
#include <string.h>

static _Atomic uint64_t range_low[OMPC_RUNTIME_TEXT_RANGES], range_high[OMPC_RUNTIME_TEXT_RANGES];
static _Atomic int range_count;
static atomic_flag noted = ATOMIC_FLAG_INIT;

int ompc_runtime_name(const char *path)
{
    if (path == NULL || path[0] == '\0')
        return 0;
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    /* libompcollect-runtime.so: the launcher's link to the LLVM runtime behind its libgomp.so.1 (tools/gomp). */
    return strncmp(base, "libomp.so", 9) == 0 || strncmp(base, "libgomp.so", 10) == 0
           || strncmp(base, "libiomp5.so", 11) == 0 || strcmp(base, "libompcollect-runtime.so") == 0;
}

void ompc_runtime_text_add(const struct dl_phdr_info *info)
{
    if (!ompc_runtime_name(info->dlpi_name))
        return;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        int used = atomic_load_explicit(&range_count, memory_order_relaxed);
        if (segment->p_type != PT_LOAD || !(segment->p_flags & PF_X) || used >= OMPC_RUNTIME_TEXT_RANGES)
            continue;
        uint64_t low = (uint64_t)info->dlpi_addr + segment->p_vaddr;
        atomic_store_explicit(&range_low[used], low, memory_order_relaxed);
        atomic_store_explicit(&range_high[used], low + segment->p_memsz, memory_order_relaxed);
        atomic_store_explicit(&range_count, used + 1, memory_order_release);
    }
}

/* dl_iterate_phdr visitor. */
static int add_object(struct dl_phdr_info *info, size_t size, void *unused)
{
    (void)size;
    (void)unused;
    ompc_runtime_text_add(info);
    return 0;
}

void ompc_runtime_text_note(void)
{
    /* One noter per process image: a forked child shares its parent's runtime at the same addresses. */
    if (atomic_flag_test_and_set(&noted))
        return;
    dl_iterate_phdr(add_object, NULL);
}

int ompc_runtime_text_holds(uint64_t address)
{
    int used = atomic_load_explicit(&range_count, memory_order_acquire);
    for (int i = 0; i < used; i++)
        if (address >= atomic_load_explicit(&range_low[i], memory_order_relaxed)
            && address < atomic_load_explicit(&range_high[i], memory_order_relaxed))
            return 1;
    return 0;
}

uint64_t ompc_barrier_site(int state, uint64_t wait_codeptr)
{
    if ((state == THR_IBAR_STATE || state == THR_EBAR_STATE) && ompc_runtime_text_holds(wait_codeptr))
        return 0;
    return wait_codeptr;
}
