/* codescan.c - which compiler's OpenMP code the process holds, read from the loaded objects' undefined dynamic symbols, so REGISTER can say what that code never reports. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include "internal.h"

#include <elf.h>
#include <link.h>
#include <string.h>

/*
 * Code gcc compiled calls the runtime through GOMP_* entry points and
 * never reports some constructs at all (it inlines `master` as a test of
 * the thread number); code clang compiled calls __kmpc_*.  A loaded object
 * that calls an entry point holds it as an undefined dynamic symbol, which
 * is what this looks for: the runtime defines them, the shim defines only
 * GOMP_barrier(_cancel).  The answer is cached until objects are loaded or
 * unloaded (dlpi_adds, dlpi_subs).
 */

/* The d_ptr of a dynamic entry as an address: glibc relocates them in place, except in the vDSO. */
static const void *dynamic_address(const struct dl_phdr_info *info, ElfW(Addr) pointer)
{
    if (pointer < info->dlpi_addr)
        pointer += info->dlpi_addr;
    return (const void *)pointer;
}

/* Symbols in an object's dynamic symbol table, from its DT_HASH or DT_GNU_HASH section. */
static size_t symbol_count(const ElfW(Word) *hash, const ElfW(Word) *gnu_hash)
{
    if (hash != NULL)
        return hash[1]; /* nchain */
    if (gnu_hash == NULL)
        return 0;
    ElfW(Word) buckets = gnu_hash[0], base = gnu_hash[1], bloom_words = gnu_hash[2];
    const ElfW(Word) *bucket = (const ElfW(Word) *)((const ElfW(Addr) *)(gnu_hash + 4) + bloom_words);
    const ElfW(Word) *chain = bucket + buckets;
    ElfW(Word) last = 0;
    for (ElfW(Word) b = 0; b < buckets; b++)
        if (bucket[b] > last)
            last = bucket[b];
    if (last < base)
        return base;
    while ((chain[last - base] & 1u) == 0)
        last++;
    return last + 1;
}

struct scan {
    int kinds;
};

/* One loaded object: its undefined symbols named GOMP_* or __kmpc_*. */
static int scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct scan *scan = data;
    const ElfW(Dyn) *dynamic = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dynamic == NULL)
        return 0;
    const ElfW(Sym) *symbols = NULL;
    const char *strings = NULL;
    const ElfW(Word) *hash = NULL, *gnu_hash = NULL;
    ElfW(Xword) strings_size = 0;
    for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB:
            symbols = dynamic_address(info, d->d_un.d_ptr);
            break;
        case DT_STRTAB:
            strings = dynamic_address(info, d->d_un.d_ptr);
            break;
        case DT_STRSZ:
            strings_size = d->d_un.d_val;
            break;
        case DT_HASH:
            hash = dynamic_address(info, d->d_un.d_ptr);
            break;
        case DT_GNU_HASH:
            gnu_hash = dynamic_address(info, d->d_un.d_ptr);
            break;
        default:
            break;
        }
    }
    if (symbols == NULL || strings == NULL)
        return 0;
    size_t count = symbol_count(hash, gnu_hash);
    for (size_t i = 1; i < count; i++) {
        if (symbols[i].st_shndx != SHN_UNDEF || symbols[i].st_name >= strings_size)
            continue;
        const char *name = strings + symbols[i].st_name;
        if (strncmp(name, "GOMP_", 5) == 0)
            scan->kinds |= OC_CODE_GCC;
        else if (strncmp(name, "__kmpc_", 7) == 0)
            scan->kinds |= OC_CODE_CLANG;
    }
    return 0;
}

static int loaded_objects(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    unsigned long long *generation = data;
    *generation = (unsigned long long)info->dlpi_adds * 1000003ull + info->dlpi_subs;
    return 1;
}

/*
 * OC_CODE_GCC and OC_CODE_CLANG, ORed, for the OpenMP code loaded now.
 * Not async-signal-safe (dl_iterate_phdr); REGISTER calls it under the
 * control lock.
 */
int oc_openmp_code_kinds(void)
{
    static unsigned long long cached_generation = ~0ull;
    static int cached_kinds;
    unsigned long long generation = 0;
    dl_iterate_phdr(loaded_objects, &generation);
    if (generation != cached_generation) {
        struct scan scan = {0};
        dl_iterate_phdr(scan_object, &scan);
        cached_kinds = scan.kinds;
        cached_generation = generation;
    }
    return cached_kinds;
}

/*
 * Whether code the process holds can produce `event` here, beyond what the
 * runtime grants: gcc code alone never reports master (it inlines it), and
 * its explicit barriers read explicit only through the shim's GOMP_barrier,
 * which the process must find before the runtime's, and only when
 * OMPCOLLECTOR_GCC_BARRIERS=explicit asks for it (lib/gomp.c says why).
 */
int oc_event_possible_in_code(int event)
{
    int kinds = oc_openmp_code_kinds();
    if (kinds != OC_CODE_GCC)
        return 1;
    switch (event) {
    case OMP_EVENT_THR_BEGIN_MASTER:
    case OMP_EVENT_THR_END_MASTER:
        return 0;
    case OMP_EVENT_THR_BEGIN_EBAR:
    case OMP_EVENT_THR_END_EBAR:
        return oc_gomp_barriers_explicit() && oc_gomp_barrier_interposed();
    default:
        return 1;
    }
}

/*
 * The runtime's own code: the executable segments of the object that
 * holds its OMPT entry points, noted once when it initializes the tool.
 * libomp 14 gives a task wait the return address of its own call of a
 * task's body when the body (or a function it tail-calls) ends with the
 * wait: gcc code's `jmp GOMP_taskwait` leaves the runtime's call as the
 * caller.  Such an address names no place of the user's (tool.c).
 */
#define OC_RUNTIME_CODE_RANGES 4
static _Atomic uintptr_t runtime_code[OC_RUNTIME_CODE_RANGES][2];

/* dl_iterate_phdr: the executable segments of the object holding `data`'s address. */
static int note_runtime_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t inside = (uintptr_t)data, ranges[OC_RUNTIME_CODE_RANGES][2];
    int count = 0, holds = 0;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD || !(segment->p_flags & PF_X))
            continue;
        uintptr_t start = info->dlpi_addr + segment->p_vaddr, end = start + segment->p_memsz;
        holds |= inside >= start && inside < end;
        if (count < OC_RUNTIME_CODE_RANGES) {
            ranges[count][0] = start;
            ranges[count++][1] = end;
        }
    }
    if (!holds)
        return 0;
    for (int i = 0; i < count; i++) {
        atomic_store_explicit(&runtime_code[i][0], ranges[i][0], memory_order_relaxed);
        atomic_store_explicit(&runtime_code[i][1], ranges[i][1], memory_order_release);
    }
    return 1;
}

void oc_runtime_code_note(const void *inside)
{
    if (inside != NULL)
        dl_iterate_phdr(note_runtime_object, (void *)(uintptr_t)inside);
}

int oc_runtime_code_holds(uint64_t address)
{
    for (int i = 0; i < OC_RUNTIME_CODE_RANGES; i++) {
        uintptr_t end = atomic_load_explicit(&runtime_code[i][1], memory_order_acquire);
        if (end != 0 && address < end && address >= atomic_load_explicit(&runtime_code[i][0], memory_order_relaxed))
            return 1;
    }
    return 0;
}
