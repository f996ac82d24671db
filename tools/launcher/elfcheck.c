/* elfcheck.c - reads a program's ELF headers for ompcollect: whether the dynamic loader runs it, and which OpenMP runtimes and MPI library it names. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "elfcheck.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Whether a needed library is part of the compilers' and the C library's
 * runtimes, which never load an MPI library: only another one can (a
 * program's own library built with mpicc), which the launcher then asks
 * the dynamic loader about.
 */
static int runtime_library(const char *name)
{
    static const char *const prefixes[] = {
        "libc.so.", "libm.so.", "libmvec.so.", "libpthread.so.", "libdl.so.", "librt.so.", "ld-linux",
        "libgcc_s.so.", "libstdc++.so.", "libatomic.so.", "libquadmath.so.", "libgfortran.so.",
        "libgomp.so.", "libomp.so", "libiomp5.so"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* The DT_NEEDED names of the dynamic section described by section header `dynamic`. */
static void scan_needed(const unsigned char *bytes, size_t size, const Elf64_Ehdr *header,
                        const Elf64_Shdr *dynamic, struct ompc_elf_info *info)
{
    const Elf64_Shdr *sections = (const Elf64_Shdr *)(bytes + header->e_shoff);
    if (dynamic->sh_link >= header->e_shnum)
        return;
    const Elf64_Shdr *strings = &sections[dynamic->sh_link];
    if (dynamic->sh_offset > size || dynamic->sh_size > size - dynamic->sh_offset
        || strings->sh_offset > size || strings->sh_size > size - strings->sh_offset)
        return;
    const Elf64_Dyn *entries = (const Elf64_Dyn *)(bytes + dynamic->sh_offset);
    size_t count = dynamic->sh_size / sizeof(Elf64_Dyn);
    info->needs_read = 1;
    for (size_t k = 0; k < count && entries[k].d_tag != DT_NULL; k++) {
        if (entries[k].d_tag != DT_NEEDED || entries[k].d_un.d_val >= strings->sh_size)
            continue;
        const char *name = (const char *)bytes + strings->sh_offset + entries[k].d_un.d_val;
        size_t room = strings->sh_size - entries[k].d_un.d_val;
        if (strnlen(name, room) == room) {
            info->needs_other = 1; /* unreadable: it may be anything */
            continue;
        }
        info->needs_other |= !runtime_library(name);
        info->needs_gomp |= strncmp(name, "libgomp.so", 10) == 0;
        info->needs_llvm |= strncmp(name, "libomp.so", 9) == 0 || strncmp(name, "libiomp5.so", 11) == 0;
        if (info->mpi[0] == '\0' && (strncmp(name, "libmpi.so", 9) == 0 || strncmp(name, "libmpich.so", 11) == 0)
            && strlen(name) < sizeof info->mpi)
            strcpy(info->mpi, name);
    }
}

/*
 * Program headers say how the file is run (PT_INTERP: through the dynamic
 * loader); section headers name the libraries it needs.  Every offset is
 * checked against the file's size, so a damaged file only yields less.
 */
int ompc_elf_inspect(const char *path, struct ompc_elf_info *info)
{
    memset(info, 0, sizeof *info);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat status;
    void *image = MAP_FAILED;
    if (fstat(fd, &status) == 0 && S_ISREG(status.st_mode)
        && (size_t)status.st_size >= sizeof(Elf64_Ehdr))
        image = mmap(NULL, (size_t)status.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (image == MAP_FAILED)
        return 0;
    const unsigned char *bytes = image;
    size_t size = (size_t)status.st_size;
    const Elf64_Ehdr *header = image;
    const unsigned char order = *(const unsigned char *)&(const unsigned short){1} ? ELFDATA2LSB
                                                                                   : ELFDATA2MSB;
    if (memcmp(bytes, ELFMAG, SELFMAG) != 0 || bytes[EI_CLASS] != ELFCLASS64
        || bytes[EI_DATA] != order) {
        munmap(image, size);
        return 0;
    }
    info->elf = 1;
    if (header->e_phentsize == sizeof(Elf64_Phdr) && header->e_phoff < size
        && header->e_phnum <= (size - header->e_phoff) / sizeof(Elf64_Phdr)) {
        const Elf64_Phdr *segments = (const Elf64_Phdr *)(bytes + header->e_phoff);
        for (unsigned i = 0; i < header->e_phnum; i++) {
            info->interpreter |= segments[i].p_type == PT_INTERP;
            info->dynamic |= segments[i].p_type == PT_DYNAMIC;
            if (segments[i].p_type == PT_INTERP && segments[i].p_offset < size
                && segments[i].p_filesz <= size - segments[i].p_offset
                && segments[i].p_filesz < sizeof info->loader) {
                memcpy(info->loader, bytes + segments[i].p_offset, segments[i].p_filesz);
                info->loader[segments[i].p_filesz] = '\0';
            }
        }
    }
    if (header->e_shentsize == sizeof(Elf64_Shdr) && header->e_shoff < size
        && header->e_shnum <= (size - header->e_shoff) / sizeof(Elf64_Shdr)) {
        const Elf64_Shdr *sections = (const Elf64_Shdr *)(bytes + header->e_shoff);
        for (unsigned i = 0; i < header->e_shnum; i++)
            if (sections[i].sh_type == SHT_DYNAMIC)
                scan_needed(bytes, size, header, &sections[i], info);
    }
    munmap(image, size);
    return 0;
}
