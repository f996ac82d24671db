/* coderanges.c - the executable segments of a process's modules from their ELF program headers (no libdw needed), to tell frame-pointer walks' return addresses from data words. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "coderanges.h"
#include "grow.h"
#include "regular.h"
#include "sort.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Program headers read per module; real objects have a dozen, a file with more is not believed. */
#define MAX_PHDRS 4096

struct range {
    uint64_t low, high;
};

struct ompc_code_ranges {
    struct range *ranges;
    size_t count, capacity;
    int sorted;
    int unknown;      /* modules whose code is not known */
};

struct ompc_code_ranges *ompc_code_ranges_new(void)
{
    return calloc(1, sizeof(struct ompc_code_ranges));
}

int ompc_code_ranges_add(struct ompc_code_ranges *ranges, uint64_t low, uint64_t high)
{
    if (high <= low)
        return 0;
    if (ompc_grow(&ranges->ranges, ranges->count + 1, &ranges->capacity, sizeof *ranges->ranges) != 0)
        return -1;
    ranges->ranges[ranges->count++] = (struct range){low, high};
    ranges->sorted = 0;
    return 0;
}

/* Whether the header is a 64-bit ELF file of this machine's byte order with program headers we can read. */
static int usable_header(const Elf64_Ehdr *header)
{
    static const union { uint16_t word; unsigned char bytes[2]; } order = {1};
    unsigned char data = order.bytes[0] ? ELFDATA2LSB : ELFDATA2MSB;
    return memcmp(header->e_ident, ELFMAG, SELFMAG) == 0 && header->e_ident[EI_CLASS] == ELFCLASS64
           && header->e_ident[EI_DATA] == data && header->e_phentsize == sizeof(Elf64_Phdr) && header->e_phnum > 0
           && header->e_phnum != PN_XNUM && header->e_phnum <= MAX_PHDRS;
}

/* Calls `each` for the executable PT_LOAD segments of the open file `fd` at `bias`; -1 when it is no usable ELF file, has none, or `each` failed. */
static int each_segment(int fd, uint64_t bias, ompc_segment_fn each, void *context)
{
    Elf64_Ehdr header;
    if (pread(fd, &header, sizeof header, 0) != (ssize_t)sizeof header || !usable_header(&header))
        return -1;
    size_t bytes = (size_t)header.e_phnum * sizeof(Elf64_Phdr);
    Elf64_Phdr *phdrs = malloc(bytes);
    if (phdrs == NULL || pread(fd, phdrs, bytes, (off_t)header.e_phoff) != (ssize_t)bytes) {
        free(phdrs);
        return -1;
    }
    int failed = 0, found = 0;
    for (size_t i = 0; i < header.e_phnum && !failed; i++) {
        const Elf64_Phdr *phdr = &phdrs[i];
        if (phdr->p_type != PT_LOAD || !(phdr->p_flags & PF_X))
            continue;
        uint64_t low = bias + phdr->p_vaddr;
        /* Wrapped sums come from a file that is not what was loaded: its code is not known. */
        if (low < bias || low + phdr->p_memsz < low) {
            failed = 1;
            break;
        }
        failed = each(context, low, phdr->p_memsz, phdr->p_offset) != 0;
        found = 1;
    }
    free(phdrs);
    return failed || !found ? -1 : 0;
}

int ompc_code_segments(const char *path, const char *symfs, uint64_t bias, ompc_segment_fn each, void *context)
{
    char *file = NULL;
    int fd = -1;
    if (path != NULL && path[0] != '\0' && (symfs == NULL || asprintf(&file, "%s/%s", symfs, path) >= 0))
        fd = ompc_open_regular(file != NULL ? file : path, 1); /* a FIFO or device the record names would block or act */
    free(file);
    int result = fd >= 0 ? each_segment(fd, bias, each, context) : -1;
    if (fd >= 0)
        close(fd);
    return result;
}

/* A segment as a range of code. */
static int add_range(void *context, uint64_t low, uint64_t size, uint64_t offset)
{
    (void)offset;
    return ompc_code_ranges_add(context, low, low + size);
}

int ompc_code_ranges_add_file(struct ompc_code_ranges *ranges, const char *path, const char *symfs, uint64_t bias)
{
    int result = ompc_code_segments(path, symfs, bias, add_range, ranges);
    if (result != 0)
        ranges->unknown++;
    return result;
}

void ompc_code_ranges_unknown(struct ompc_code_ranges *ranges)
{
    ranges->unknown++;
}

int ompc_code_ranges_complete(const struct ompc_code_ranges *ranges)
{
    return ranges != NULL && ranges->unknown == 0 && ranges->count > 0;
}

static int compare_ranges(const void *a, const void *b)
{
    const struct range *x = a, *y = b;
    return (x->low > y->low) - (x->low < y->low);
}

/* Whether some range that starts at or below the address covers it. */
static int search(const struct range *ranges, size_t count, uint64_t address)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (ranges[middle].low <= address)
            low = middle + 1;
        else
            high = middle;
    }
    /* Ranges may overlap (the same object recorded twice): any of those starting below may cover it. */
    for (size_t i = low; i-- > 0;)
        if (address < ranges[i].high)
            return 1;
    return 0;
}

int ompc_code_ranges_contain(struct ompc_code_ranges *ranges, uint64_t address)
{
    if (ranges == NULL)
        return 0;
    if (!ranges->sorted) {
        ompc_qsort(ranges->ranges, ranges->count, sizeof *ranges->ranges, compare_ranges);
        ranges->sorted = 1;
    }
    return search(ranges->ranges, ranges->count, address);
}

void ompc_code_ranges_free(struct ompc_code_ranges *ranges)
{
    if (ranges == NULL)
        return;
    free(ranges->ranges);
    free(ranges);
}
