/* tailcall.c - where an OpenMP runtime call that the compiler made a tail call is, read from the program's x86-64 code: its return address names the caller's caller. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "tailcall.h"

#ifdef HAVE_LIBDW
#include <elf.h>
#include <gelf.h>
#include <string.h>

/*
 * A runtime names a construct or wait by the return address of the call
 * of its entry point (codeptr_ra).  When that call is the last thing a
 * function does, -O2 makes it a jump (`jmp GOMP_taskwait@plt`: a taskwait
 * or barrier closing a function, or an outlined body), the function's
 * frame is gone, and the return address is its caller's: the line of a
 * call of the function, or the runtime's own code when the runtime called
 * it (a task or region body).  The jump itself is the call site.  Only
 * x86-64 code is read: elsewhere nothing is found and the return address
 * stands.
 *
 * Jumps are found by their bytes, not by decoding every instruction: a
 * jump's target must be exactly an entry point's PLT stub (or its GOT
 * slot, -fno-plt), or a function's first byte for a further tail call, so
 * stray bytes inside other instructions almost never match.  The
 * caller believes a chain only when its runtime calls are one statement
 * (GCC copies a function's closing call into each path that ends it).
 */

/* How deep tail calls are followed, and how many bytes of one function are read. */
enum { MAX_CHAIN = 4, MAX_SCAN = 1 << 16, MAX_SITES = OMPC_TAIL_SITES };

/* A module's ELF, its load bias, and the code bytes looked at. */
struct code {
    Dwfl_Module *module;
    Elf *elf;
    GElf_Addr bias;
    const char *entry; /* a substring the runtime entry's name must hold; NULL: any OpenMP entry */
};

/* `length` bytes of the module's file at `address` (as loaded), NULL when not all in one section. */
static const unsigned char *bytes_at(struct code *code, GElf_Addr address, size_t length)
{
    Dwarf_Addr relative = address, section_bias = 0;
    Elf_Scn *section = dwfl_module_address_section(code->module, &relative, &section_bias);
    Elf_Data *data = section != NULL ? elf_getdata(section, NULL) : NULL;
    if (data == NULL || data->d_buf == NULL || relative > data->d_size || data->d_size - relative < length)
        return NULL;
    return (const unsigned char *)data->d_buf + relative;
}

/* The name of the section holding `address` (as loaded), NULL when none. */
static const char *section_name(struct code *code, GElf_Addr address)
{
    Dwarf_Addr relative = address, section_bias = 0;
    Elf_Scn *section = dwfl_module_address_section(code->module, &relative, &section_bias);
    GElf_Shdr header;
    size_t strings = 0;
    if (section == NULL || gelf_getshdr(section, &header) == NULL || elf_getshdrstrndx(code->elf, &strings) != 0)
        return NULL;
    return elf_strptr(code->elf, strings, header.sh_name);
}

/* Whether an entry point waits at a barrier: GCC's explicit and closing barriers, clang's. */
static int barrier_entry(const char *name)
{
    return strstr(name, "nowait") == NULL
           && (strstr(name, "barrier") != NULL || strstr(name, "loop_end") != NULL
               || strstr(name, "loop_ull_end") != NULL || strstr(name, "sections_end") != NULL);
}

/* Whether a symbol names an entry of the OpenMP runtime that calls are looked for (code->entry). */
static int runtime_entry(const struct code *code, const char *name)
{
    if (name == NULL
        || (strncmp(name, "GOMP_", 5) != 0 && strncmp(name, "__kmpc_", 7) != 0 && strncmp(name, "omp_", 4) != 0))
        return 0;
    if (code->entry != NULL && strcmp(code->entry, OMPC_TAIL_BARRIER) == 0)
        return barrier_entry(name);
    return code->entry == NULL || strstr(name, code->entry) != NULL;
}

/* The symbol a relocation of the GOT slot at `slot` (as loaded) binds, NULL when none. */
static const char *slot_symbol(struct code *code, GElf_Addr slot)
{
    Elf_Scn *section = NULL;
    while ((section = elf_nextscn(code->elf, section)) != NULL) {
        GElf_Shdr header;
        Elf_Data *data;
        if (gelf_getshdr(section, &header) == NULL || header.sh_type != SHT_RELA || header.sh_entsize == 0
            || (data = elf_getdata(section, NULL)) == NULL)
            continue;
        Elf_Scn *symbols = elf_getscn(code->elf, header.sh_link);
        GElf_Shdr symbols_header;
        Elf_Data *symbol_data = symbols != NULL ? elf_getdata(symbols, NULL) : NULL;
        if (symbol_data == NULL || gelf_getshdr(symbols, &symbols_header) == NULL)
            continue;
        for (size_t i = 0; i < header.sh_size / header.sh_entsize; i++) {
            GElf_Rela relocation;
            GElf_Sym symbol;
            if (gelf_getrela(data, (int)i, &relocation) == NULL || relocation.r_offset + code->bias != slot
                || gelf_getsym(symbol_data, (int)GELF_R_SYM(relocation.r_info), &symbol) == NULL)
                continue;
            return elf_strptr(code->elf, symbols_header.sh_link, symbol.st_name);
        }
    }
    return NULL;
}

/* The GOT slot a PLT stub at `stub` jumps through: [endbr64] [bnd] jmp *disp32(%rip); 0 when it is none. */
static GElf_Addr stub_slot(struct code *code, GElf_Addr stub)
{
    const unsigned char *at = bytes_at(code, stub, 11);
    size_t skip = 0;
    int32_t displacement;
    if (at == NULL)
        return 0;
    if (at[0] == 0xf3 && at[1] == 0x0f && at[2] == 0x1e && at[3] == 0xfa)
        skip = 4;
    if (at[skip] == 0xf2)
        skip++;
    if (at[skip] != 0xff || at[skip + 1] != 0x25)
        return 0;
    memcpy(&displacement, at + skip + 2, sizeof displacement);
    return stub + skip + 6 + (GElf_Addr)(int64_t)displacement;
}

/* Whether `target` (as loaded) is a PLT stub, and of which symbol: *name, NULL when its slot names none. */
static int plt_stub(struct code *code, GElf_Addr target, const char **name)
{
    const char *section = section_name(code, target);
    GElf_Addr slot;
    if (section == NULL || strncmp(section, ".plt", 4) != 0)
        return 0;
    *name = (slot = stub_slot(code, target)) != 0 ? slot_symbol(code, slot) : NULL;
    return 1;
}

/* Whether `target` is the first byte of a function of the module: *size is its symbol's. */
static int function_start(struct code *code, GElf_Addr target, GElf_Word *size)
{
    GElf_Off offset = 1;
    GElf_Sym symbol;
    const char *name = dwfl_module_addrinfo(code->module, target, &offset, &symbol, NULL, NULL, NULL);
    if (name == NULL || offset != 0 || GELF_ST_TYPE(symbol.st_info) != STT_FUNC)
        return 0;
    *size = (GElf_Word)symbol.st_size;
    return 1;
}

/* A runtime call site found, kept once. */
static void note_site(GElf_Addr site, GElf_Addr *sites, int *count)
{
    for (int i = 0; i < *count && i < MAX_SITES; i++)
        if (sites[i] == site)
            return;
    if (*count < MAX_SITES)
        sites[*count] = site;
    (*count)++;
}

static void scan_function(struct code *code, GElf_Addr function, int depth, GElf_Addr *sites, int *count);

/* The jump at `at` to `target`: a runtime entry's stub is a site; a function's start, a further tail call. */
static void jump_to(struct code *code, GElf_Addr at, GElf_Addr target, GElf_Addr function, int depth,
                    GElf_Addr *sites, int *count)
{
    const char *name = NULL;
    GElf_Word size = 0;
    if (plt_stub(code, target, &name)) {
        if (runtime_entry(code, name))
            note_site(at, sites, count);
    } else if (target != function && depth + 1 < MAX_CHAIN && function_start(code, target, &size)) {
        scan_function(code, target, depth + 1, sites, count);
    }
}

/* The tail jumps of the function at `function` into the runtime, and through further tail calls (`depth` so far). */
static void scan_function(struct code *code, GElf_Addr function, int depth, GElf_Addr *sites, int *count)
{
    GElf_Word size = 0;
    if (!function_start(code, function, &size) || size < 2)
        return;
    size_t length = size < MAX_SCAN ? size : MAX_SCAN;
    const unsigned char *text = bytes_at(code, function, length);
    for (size_t i = 0; text != NULL && i + 2 <= length && *count <= MAX_SITES; i++) {
        int32_t displacement;
        if (i + 5 <= length && text[i] == 0xe9) { /* jmp rel32 */
            memcpy(&displacement, text + i + 1, sizeof displacement);
            jump_to(code, function + i, function + i + 5 + (GElf_Addr)(int64_t)displacement, function, depth, sites,
                    count);
        } else if (text[i] == 0xeb) { /* jmp rel8: only to a function nearby, never a stub */
            GElf_Addr target = function + i + 2 + (GElf_Addr)(int64_t)(int8_t)text[i + 1];
            GElf_Word callee_size = 0;
            if (target != function && depth + 1 < MAX_CHAIN && function_start(code, target, &callee_size))
                scan_function(code, target, depth + 1, sites, count);
        } else if (i + 6 <= length && text[i] == 0x0f && (text[i + 1] & 0xf0) == 0x80) { /* jcc rel32 */
            memcpy(&displacement, text + i + 2, sizeof displacement);
            jump_to(code, function + i, function + i + 6 + (GElf_Addr)(int64_t)displacement, function, depth, sites,
                    count);
        } else if (i + 6 <= length && text[i] == 0xff && text[i + 1] == 0x25) { /* jmp *disp32(%rip), -fno-plt */
            memcpy(&displacement, text + i + 2, sizeof displacement);
            if (runtime_entry(code, slot_symbol(code, function + i + 6 + (GElf_Addr)(int64_t)displacement)))
                note_site(function + i, sites, count);
        }
    }
}

/* Sets up `code` for `module` when its code is x86-64's; 0 otherwise. */
static int code_of(Dwfl_Module *module, const char *entry, struct code *code)
{
    GElf_Ehdr header;
    code->module = module;
    code->entry = entry;
    code->elf = dwfl_module_getelf(module, &code->bias);
    return code->elf != NULL && gelf_getehdr(code->elf, &header) != NULL && header.e_machine == EM_X86_64;
}

int ompc_tail_call_from(Dwfl_Module *module, GElf_Addr function, const char *entry, GElf_Addr *sites)
{
    struct code code;
    int count = 0;
    if (!code_of(module, entry, &code))
        return 0;
    scan_function(&code, function, 0, sites, &count);
    return count;
}

/* The first `lea disp32(%rip), %reg` in `text` (loaded at `start`) whose address is `target`; 0 when none. */
static GElf_Addr lea_of(const unsigned char *text, size_t length, GElf_Addr start, GElf_Addr target)
{
    for (size_t i = 0; i + 7 <= length; i++) {
        int32_t displacement;
        if ((text[i] & 0xfb) != 0x48 || text[i + 1] != 0x8d || (text[i + 2] & 0xc7) != 0x05)
            continue;
        memcpy(&displacement, text + i + 3, sizeof displacement);
        if (start + i + 7 + (GElf_Addr)(int64_t)displacement == target)
            return start + i;
    }
    return 0;
}

/* Whether a runtime entry takes an outlined body: clang's region's (fork) or task's (its entry, to the allocation); GCC's league's. */
static int hands_body(const char *name)
{
    return name != NULL
           && ((strncmp(name, "__kmpc_", 7) == 0
                && (strstr(name, "fork_call") != NULL || strstr(name, "fork_teams") != NULL
                    || strstr(name, "task_alloc") != NULL))
               || strcmp(name, "GOMP_teams_reg") == 0);
}

/*
 * The runtime call a body's address is loaded for: the first call of a
 * clang entry that takes a body in the bytes after the load, whose return address
 * (*is_return) is the construct's; else the load itself.  The call, not the
 * load, lies in the inlined function's code when the compiler moved the
 * load ahead of it.
 */
static GElf_Addr runtime_call_after(struct code *code, GElf_Addr load, int *is_return)
{
    size_t reach = 256; /* a load hoisted out of a loop lies a hundred bytes before the call */
    const unsigned char *text = NULL;
    const char *name = NULL;
    *is_return = 0;
    while (reach >= 16 && (text = bytes_at(code, load, reach)) == NULL)
        reach /= 2;
    for (size_t i = 7; text != NULL && i + 5 <= reach; i++) {
        int32_t displacement;
        if (text[i] != 0xe8)
            continue;
        memcpy(&displacement, text + i + 1, sizeof displacement);
        if (plt_stub(code, load + i + 5 + (GElf_Addr)(int64_t)displacement, &name) && hands_body(name)) {
            *is_return = 1;
            return load + i + 5;
        }
    }
    return load;
}

GElf_Addr ompc_code_reference(Dwfl_Module *module, GElf_Addr target, int *is_return)
{
    struct code code;
    Elf_Scn *section = NULL;
    if (!code_of(module, NULL, &code))
        return 0;
    while ((section = elf_nextscn(code.elf, section)) != NULL) {
        GElf_Shdr header;
        Elf_Data *data;
        if (gelf_getshdr(section, &header) == NULL || header.sh_type != SHT_PROGBITS
            || !(header.sh_flags & SHF_EXECINSTR) || (data = elf_getdata(section, NULL)) == NULL
            || data->d_buf == NULL)
            continue;
        GElf_Addr found = lea_of(data->d_buf, data->d_size, header.sh_addr + code.bias, target);
        if (found != 0)
            return runtime_call_after(&code, found, is_return);
    }
    return 0;
}

GElf_Addr ompc_fork_body(Dwfl_Module *module, GElf_Addr return_address)
{
    enum { BEFORE = 64 };
    struct code code;
    const unsigned char *text;
    const char *name = NULL;
    int32_t displacement;
    GElf_Word size = 0;
    if (!code_of(module, NULL, &code) || return_address < BEFORE
        || (text = bytes_at(&code, return_address - BEFORE, BEFORE)) == NULL || text[BEFORE - 5] != 0xe8)
        return 0;
    memcpy(&displacement, text + BEFORE - 4, sizeof displacement);
    if (!plt_stub(&code, return_address + (GElf_Addr)(int64_t)displacement, &name) || name == NULL
        || strncmp(name, "__kmpc_fork_", 12) != 0)
        return 0;
    /* The third argument, rdx: lea disp32(%rip), %rdx is 48 8d 15; the last one before the call. */
    for (size_t i = BEFORE - 5 - 7 + 1; i-- > 0;) {
        if (text[i] != 0x48 || text[i + 1] != 0x8d || text[i + 2] != 0x15)
            continue;
        memcpy(&displacement, text + i + 3, sizeof displacement);
        GElf_Addr body = return_address - BEFORE + i + 7 + (GElf_Addr)(int64_t)displacement;
        return function_start(&code, body, &size) ? body : 0;
    }
    return 0;
}

const unsigned char *ompc_code_bytes(Dwfl_Module *module, GElf_Addr address, size_t length)
{
    struct code code;
    return code_of(module, NULL, &code) ? bytes_at(&code, address, length) : NULL;
}

int ompc_code_call(Dwfl_Module *module, GElf_Addr at, const char **name)
{
    struct code code;
    const unsigned char *bytes;
    GElf_Word size = 0;
    *name = NULL;
    if (!code_of(module, NULL, &code) || (bytes = bytes_at(&code, at, 6)) == NULL)
        return 0;
    int32_t displacement;
    if (bytes[0] == 0xff && (bytes[1] == 0x15 || bytes[1] == 0x25)) { /* call, jmp *disp32(%rip): -fno-plt */
        memcpy(&displacement, bytes + 2, sizeof displacement);
        *name = slot_symbol(&code, at + 6 + (GElf_Addr)(int64_t)displacement);
        return *name != NULL ? 2 : 0;
    }
    if (bytes[0] != 0xe8 && bytes[0] != 0xe9)
        return 0;
    memcpy(&displacement, bytes + 1, sizeof displacement);
    GElf_Addr target = at + 5 + (GElf_Addr)(int64_t)displacement;
    if (plt_stub(&code, target, name))
        return 2;
    return function_start(&code, target, &size) ? 1 : 0;
}

int ompc_tail_call_site(Dwfl_Module *module, GElf_Addr return_address, GElf_Addr *sites)
{
    struct code code;
    const unsigned char *call;
    const char *name = NULL;
    GElf_Word size = 0;
    int32_t displacement;
    if (!code_of(module, NULL, &code) || return_address < 5 || (call = bytes_at(&code, return_address - 5, 5)) == NULL
        || call[0] != 0xe8)
        return 0;
    memcpy(&displacement, call + 1, sizeof displacement);
    GElf_Addr target = return_address + (GElf_Addr)(int64_t)displacement;
    /* A call through a stub leaves this module: the runtime's entry itself (the usual case), or code not followed. */
    if (plt_stub(&code, target, &name) || !function_start(&code, target, &size))
        return 0;
    return ompc_tail_call_from(module, target, NULL, sites);
}
#endif
