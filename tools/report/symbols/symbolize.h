/* symbolize.h - turns code addresses recorded in a program into function, file and line, in the launcher after the program ended (elfutils libdw). */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SYMBOLIZE_H
#define OMPCOLLECT_SYMBOLIZE_H 1

#include <stddef.h>
#include <stdint.h>

/* How much a location says, best first. */
enum ompc_location_kind {
    OMPC_LOC_NONE,   /* the address lies in no module the program reported */
    OMPC_LOC_MODULE, /* module + offset: no symbol covers it */
    OMPC_LOC_SYMBOL, /* function + offset from the ELF symbol table: no line information */
    OMPC_LOC_LINE    /* function, file and line from DWARF */
};

/* A function that located code was inlined into, and the line in it that the inlined call is on. */
struct ompc_inline_caller {
    const char *function;    /* demangled, as `function` below */
    const char *mangled;     /* NULL when the name was not mangled */
    const char *file;        /* the call's file, NULL when DWARF does not say */
    int line;                /* 0 when DWARF does not say */
};

/* Where an address is.  The strings belong to the symbolizer and live as long as it does. */
struct ompc_location {
    enum ompc_location_kind kind;
    const char *module;      /* path of the object, NULL with OMPC_LOC_NONE */
    uint64_t module_offset;  /* address minus the module's load bias */
    const char *function;    /* NULL below OMPC_LOC_SYMBOL */
    uint64_t function_offset;
    const char *file;        /* NULL below OMPC_LOC_LINE */
    int line;
    const char *mangled;     /* the linkage name `function` was demangled from; NULL when it was not mangled */
    /*
     * When `function` is a body the compiler outlined for an OpenMP
     * construct (GCC's main._omp_fn.N, clang's .omp_outlined..N), the
     * function the programmer wrote it in; NULL otherwise.  Labels show
     * it in place of `function`.
     */
    const char *enclosing;
    /*
     * The address lies in a target region's host code: in or inlined into
     * an entry clang names __omp_offloading_..._FN_lLINE.  `enclosing` is
     * FN then, and such entries among `callers` are named FN too: the
     * entry's name says nothing the programmer wrote.
     */
    int offload;
    /*
     * When the address lies in code the compiler inlined, `function` is the
     * inlined function (DWARF's inline records) and these are the functions
     * it was inlined into, innermost first, each with the call's line; the
     * last one is the function the compiler emitted (the ELF symbol).
     */
    const struct ompc_inline_caller *callers;
    int caller_count;
};

/* What a module's names come from, worst first. */
enum ompc_symbol_source {
    OMPC_SYMBOLS_NONE,    /* no symbol table at all: every address is module + offset */
    OMPC_SYMBOLS_DYNAMIC, /* only .dynsym (strip --strip-all): exported functions, the rest module + offset */
    OMPC_SYMBOLS_TABLE,   /* .symtab (in the file or a separate debug file): every function, no lines */
    OMPC_SYMBOLS_DWARF    /* DWARF (in the file or a separate debug file): functions, files and lines */
};

/* A module the symbolizer located an address in, and what named it. */
struct ompc_module_symbols {
    const char *module;       /* the path it was reported with */
    enum ompc_symbol_source source;
    const char *debug_file;   /* the separate debug file libdwfl found (.gnu_debuglink, build id), or NULL */
};

struct ompc_symbolizer;

/*
 * A symbolizer with no modules yet; NULL when libdw is not built in or
 * memory ran out.  `debuginfo_path` is where separate debug files are
 * looked for, in the syntax of elfutils' --debuginfo-path (directories
 * joined by ':'; relative ones beside the module; absolute ones also hold
 * .build-id/); NULL is libdwfl's default, ":.debug:/usr/lib/debug".
 */
struct ompc_symbolizer *ompc_symbolizer_new(const char *debuginfo_path);

/*
 * Reports an object loaded at `bias` (dl_iterate_phdr's dlpi_addr: 0 for a
 * non-PIE executable) from `path`, read from `symfs`/`path` when `symfs`
 * is given (perf's --symfs: the modules as another machine holds them).  Returns 0, or -1 when the file cannot
 * be read (it may have changed or gone since the run): its addresses then
 * stay unresolved.
 */
int ompc_symbolizer_add_module(struct ompc_symbolizer *symbolizer, const char *path, const char *symfs,
                               uint64_t bias);


/*
 * What an address handed to ompc_symbolize is.  A return address points
 * after its call, so its line lookup uses the byte before it: the call's
 * own line.
 */
enum ompc_address_kind {
    OMPC_ADDRESS_CODE = 0,      /* an instruction's own address */
    OMPC_ADDRESS_RETURN = 1,    /* a return address: a stack frame's */
    /*
     * A codeptr_ra the OpenMP runtime reported: the return address of the
     * call of its entry point.  When that call was a tail call (the jump
     * closing a function, whose frame is then gone), the return address
     * is the caller's; the location is then the jump's (tailcall.c).
     */
    OMPC_ADDRESS_CODEPTR = 2,
    /*
     * A task wait's or taskgroup's codeptr_ra: as CODEPTR, and when it is
     * the call of a construct with an outlined body (what the shim and
     * the agent put for a wait the runtime placed in its own code: the
     * call was the body's closing jump), the taskwait (taskgroup end)
     * that body jumps to.
     */
    OMPC_ADDRESS_TASKWAIT = 3,
    OMPC_ADDRESS_TASKGROUP = 4,
    /*
     * A barrier's that the agent put at its region's construct in place
     * of the runtime's own code: likewise; the barrier found in the body
     * closes a worksharing construct, named as WORKSHARE's.
     */
    OMPC_ADDRESS_BARRIER = 5,
    /*
     * An implicit barrier's codeptr_ra that is no region's join: as
     * CODEPTR, and when GCC gave the call no line of its own (the closing
     * barrier of a worksharing construct), named at the construct's line
     * (gompws.c), not at the last line of the loop's body.
     */
    OMPC_ADDRESS_WORKSHARE = 6,
    /*
     * A return address in a body the compiler outlined for a construct
     * (a region forked inside it): located as the codeptr of the runtime
     * call in the program that hands that body over (tailcall.c), so a
     * construct whose own codeptr the runtime put in its own code (GCC's
     * host teams on libomp: inside GOMP_teams_reg) is named at its
     * pragma.  Kind none when no such call is found.
     */
    OMPC_ADDRESS_HANDED = 7
};

/*
 * Locates `address`, an `ompc_address_kind`.  Always fills `out` (kind
 * NONE at worst).  C++ and Rust names come demangled (the mangled one in
 * `mangled`), and code inlined into another function is named by the
 * inlined function (`callers`).  Results are cached: asking again for an
 * address costs a lookup.
 */
void ompc_symbolize(struct ompc_symbolizer *symbolizer, uint64_t address, int address_kind,
                    struct ompc_location *out);

/*
 * The modules ompc_symbolize located an address in so far, in the order
 * first met, *count of them; owned by the symbolizer and valid until it
 * locates another address or is freed.
 */
const struct ompc_module_symbols *ompc_symbolizer_modules(const struct ompc_symbolizer *symbolizer, size_t *count);

/* A word for a source in the reports: "none", "dynsym", "symtab" or "dwarf". */
const char *ompc_symbol_source_name(enum ompc_symbol_source source);

/* Frees the symbolizer and every string it handed out. */
void ompc_symbolizer_free(struct ompc_symbolizer *symbolizer);

/* Whether this build can read DWARF (configure found libdw). */
int ompc_symbolizer_available(void);

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>
/*
 * dwfl_report_elf of `file` (reported as `name`) at `bias`, handed to
 * libdwfl by descriptor and only when it is a regular file (regular.h):
 * the record names it, so it may be a FIFO that would block the
 * launcher.  NULL when it is not, or libdwfl refuses it.
 */
Dwfl_Module *ompc_dwfl_report_regular(Dwfl *dwfl, const char *name, const char *file, uint64_t bias);
/*
 * How the unwinder (unwind.c) finds a module's file and its debug
 * information: files by path, separate debug files the standard ways
 * (build id, .gnu_debuglink) in libdwfl's default directories.  The
 * symbolizer uses a copy with its own debuginfo_path.
 */
extern const Dwfl_Callbacks ompc_dwfl_offline_callbacks;
#endif

#endif /* OMPCOLLECT_SYMBOLIZE_H */
