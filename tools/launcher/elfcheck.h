/* elfcheck.h - what ompcollect reads from a program's ELF file before it runs it: static or dynamic, and which OpenMP runtime and MPI library it names. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_ELFCHECK_H
#define OMPCOLLECT_ELFCHECK_H 1

/* The facts the launcher needs; all zero for a file that is not a 64-bit ELF. */
struct ompc_elf_info {
    int elf;           /* a 64-bit ELF file of this machine's byte order */
    int interpreter;   /* has PT_INTERP: the dynamic loader runs it, so LD_PRELOAD works */
    int dynamic;       /* has PT_DYNAMIC */
    int needs_gomp;    /* DT_NEEDED names libgomp */
    int needs_llvm;    /* DT_NEEDED names an LLVM or Intel OpenMP runtime */
    char loader[256];  /* PT_INTERP's path, or "" (none, or too long) */
    char mpi[64];      /* the first DT_NEEDED that names an MPI library (libmpi.so.N, libmpich.so.N), or "" */
    int needs_read;    /* its DT_NEEDED names were read (a file without section headers has none to read) */
    int needs_other;   /* a DT_NEEDED names a library outside the C, C++, Fortran and OpenMP runtimes */
};

/* Reads `path`; returns 0 with `info` filled in, or -1 when it cannot be read. */
int ompc_elf_inspect(const char *path, struct ompc_elf_info *info);

#endif /* OMPCOLLECT_ELFCHECK_H */
