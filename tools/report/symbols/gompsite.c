/* gompsite.c - the outlined body a GCC-compiled OpenMP construct hands its runtime call, read from DWARF call-site records, so the construct is placed at its pragma. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "gompsite.h"

#ifdef HAVE_LIBDW
#include <dwarf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * GCC turns a construct into a call of a GOMP_ entry point (GOMP_parallel,
 * GOMP_task, GOMP_parallel_loop_*, GOMP_teams_reg, ...) whose first
 * argument is the outlined body, main._omp_fn.0.  The call returns to the
 * statement after the construct, so its return address names that line;
 * the body starts at the pragma's.  With -g and optimisation GCC records
 * each call site (DW_TAG_call_site: return pc, callee, and the value of
 * each argument register that is known): the body's address is the value
 * of the first argument.  Only x86-64's first argument register is read
 * (rdi, DWARF register 5); elsewhere nothing is found.
 */
enum { FIRST_ARGUMENT_REGISTER = DW_OP_reg5 };

/* Deepest DIE nesting searched below the function, so a hostile file cannot recurse without end. */
enum { MAX_DEPTH = 32 };

/* The return address a call site DIE records (DWARF 5, or GCC's DWARF 4 extension), 0 if none. */
static Dwarf_Addr return_pc(Dwarf_Die *site)
{
    Dwarf_Attribute attribute;
    Dwarf_Addr pc = 0;
    if (dwarf_attr(site, DW_AT_call_return_pc, &attribute) != NULL
        || (dwarf_tag(site) == DW_TAG_GNU_call_site && dwarf_attr(site, DW_AT_low_pc, &attribute) != NULL))
        if (dwarf_formaddr(&attribute, &pc) != 0)
            pc = 0;
    return pc;
}

/*
 * Whether a GOMP_ entry point takes an outlined body as its first
 * argument: a region's, a task's or a taskloop's, a league's.  Not a
 * taskwait's or a barrier's: their calls sit in a function whose body
 * nesting would otherwise hand them a construct's pragma.
 */
static int takes_body(const char *name)
{
    return strncmp(name, "GOMP_parallel", 13) == 0 || strcmp(name, "GOMP_task") == 0
           || strncmp(name, "GOMP_taskloop", 13) == 0 || strcmp(name, "GOMP_teams_reg") == 0;
}

/* Whether the call site calls a GOMP_ entry point that takes a body (its origin's linkage name). */
static int calls_gomp(Dwarf_Die *site)
{
    Dwarf_Attribute attribute;
    Dwarf_Die callee;
    if ((dwarf_attr(site, DW_AT_call_origin, &attribute) == NULL
         && dwarf_attr(site, DW_AT_abstract_origin, &attribute) == NULL)
        || dwarf_formref_die(&attribute, &callee) == NULL)
        return 0;
    /* GCC declares them as builtins: name __builtin_GOMP_parallel, linkage name GOMP_parallel. */
    Dwarf_Attribute linkage;
    const char *name = dwarf_formstring(dwarf_attr(&callee, DW_AT_linkage_name, &linkage));
    if (name == NULL)
        name = dwarf_diename(&callee);
    return name != NULL && strncmp(name, "GOMP_", 5) == 0 && takes_body(name);
}

/* The one-operation expression of attribute `name` of `die`: its operation, and its operand in *operand. */
static int single_op(Dwarf_Die *die, unsigned int name, Dwarf_Word *operand)
{
    Dwarf_Attribute attribute;
    Dwarf_Op *ops = NULL;
    size_t count = 0;
    if (dwarf_attr(die, name, &attribute) == NULL || dwarf_getlocation(&attribute, &ops, &count) != 0
        || count != 1)
        return -1;
    *operand = ops[0].number;
    return ops[0].atom;
}

/* The first argument's value at a call site when it is a plain address. */
static int first_argument_address(Dwarf_Die *site, Dwarf_Addr *value)
{
    Dwarf_Die parameter;
    if (dwarf_child(site, &parameter) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&parameter);
        if (tag != DW_TAG_call_site_parameter && tag != DW_TAG_GNU_call_site_parameter)
            continue;
        Dwarf_Word operand = 0;
        if (single_op(&parameter, DW_AT_location, &operand) != FIRST_ARGUMENT_REGISTER)
            continue;
        if (single_op(&parameter, DW_AT_call_value, &operand) != DW_OP_addr
            && single_op(&parameter, DW_AT_GNU_call_site_value, &operand) != DW_OP_addr)
            return 0;
        *value = operand;
        return 1;
    } while (dwarf_siblingof(&parameter, &parameter) == 0);
    return 0;
}

/* The DWARF register the first argument is read from at a call site when its value is that register's, else -1. */
static int first_argument_register(Dwarf_Die *site)
{
    Dwarf_Die parameter;
    if (dwarf_child(site, &parameter) != 0)
        return -1;
    do {
        int tag = dwarf_tag(&parameter);
        Dwarf_Word operand = 0;
        if ((tag != DW_TAG_call_site_parameter && tag != DW_TAG_GNU_call_site_parameter)
            || single_op(&parameter, DW_AT_location, &operand) != FIRST_ARGUMENT_REGISTER)
            continue;
        int op = single_op(&parameter, DW_AT_call_value, &operand);
        if (op < 0)
            op = single_op(&parameter, DW_AT_GNU_call_site_value, &operand);
        return op >= DW_OP_breg0 && op <= DW_OP_breg15 && operand == 0 ? op - DW_OP_breg0 : -1;
    } while (dwarf_siblingof(&parameter, &parameter) == 0);
    return -1;
}

/*
 * When GCC keeps the body's address in a register (a loop of constructs
 * loads each body once, before the loop), the register was loaded by a
 * `lea disp32(%rip), %reg` earlier in the function: the last one before
 * the call is taken, and believed only if it lands on an outlined body.
 * `code` holds the function's bytes from `start` up to the call.
 */
static int lea_target(const unsigned char *code, GElf_Addr start, size_t length, int dwarf_register,
                      GElf_Addr *target)
{
    /* DWARF numbers rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8..r15; the instruction encodes rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8..r15. */
    static const unsigned char encoded[16] = {0, 2, 1, 3, 6, 7, 5, 4, 8, 9, 10, 11, 12, 13, 14, 15};
    if (dwarf_register < 0 || dwarf_register > 15)
        return 0;
    int reg = encoded[dwarf_register];
    unsigned char rex = (unsigned char)(0x48 | (reg >= 8 ? 4 : 0)), modrm = (unsigned char)(((reg & 7) << 3) | 5);
    for (size_t at = length >= 7 ? length - 7 : 0; length >= 7; at--) {
        if (code[at] == rex && code[at + 1] == 0x8d && code[at + 2] == modrm) {
            int32_t displacement;
            memcpy(&displacement, code + at + 3, sizeof displacement);
            *target = start + at + 7 + (GElf_Addr)(int64_t)displacement;
            return 1;
        }
        if (at == 0)
            break;
    }
    return 0;
}

/* Whether `address` is the entry of a body GCC outlined for a construct (*._omp_fn.N). */
static int is_outlined_body(Dwfl_Module *module, GElf_Addr address)
{
    GElf_Off offset = 1;
    const char *name = dwfl_module_addrinfo(module, address, &offset, &(GElf_Sym){0}, NULL, NULL, NULL);
    return name != NULL && offset == 0 && strstr(name, "._omp_fn.") != NULL;
}

/* The body a call site's register names, from the function's code (lea_target); `function` is its DIE. */
static int register_body(Dwfl_Module *module, Dwarf_Die *site, Dwarf_Die *function, Dwarf_Addr cu_bias,
                         GElf_Addr return_address, GElf_Addr *body)
{
    Dwarf_Addr low = 0;
    int dwarf_register = first_argument_register(site);
    if (dwarf_register < 0 || dwarf_lowpc(function, &low) != 0 || low + cu_bias >= return_address)
        return 0;
    GElf_Addr start = low + cu_bias;
    Dwarf_Addr relative = start, section_bias = 0;
    Elf_Scn *section = dwfl_module_address_section(module, &relative, &section_bias);
    Elf_Data *data = section != NULL ? elf_getdata(section, NULL) : NULL;
    size_t length = (size_t)(return_address - start);
    if (data == NULL || data->d_buf == NULL || relative + length > data->d_size)
        return 0;
    GElf_Addr target = 0;
    if (!lea_target((const unsigned char *)data->d_buf + relative, start, length, dwarf_register, &target)
        || !is_outlined_body(module, target))
        return 0;
    *body = target;
    return 1;
}

/* Searches the DIEs below `parent` for the call site returning to `pc`, into *site. */
static int search(Dwarf_Die *parent, Dwarf_Addr pc, int depth, Dwarf_Die *site)
{
    Dwarf_Die child;
    if (depth > MAX_DEPTH || dwarf_child(parent, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        if ((tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) && return_pc(&child) == pc) {
            *site = child;
            return 1;
        }
        if (tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site && dwarf_haschildren(&child) > 0
            && search(&child, pc, depth + 1, site))
            return 1;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* The outlined bodies GCC nests in `scope` (artificial functions named *._omp_fn.N), through lexical blocks when `deep`: how many, the last in *body. */
static int bodies_in(Dwarf_Die *scope, int deep, int depth, Dwarf_Addr *body)
{
    Dwarf_Die child;
    int count = 0;
    if (depth > MAX_DEPTH || dwarf_child(scope, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        const char *name = dwarf_diename(&child);
        Dwarf_Addr low = 0;
        if (tag == DW_TAG_subprogram && dwarf_hasattr(&child, DW_AT_artificial) && name != NULL
            && strstr(name, "._omp_fn.") != NULL && dwarf_lowpc(&child, &low) == 0) {
            *body = low;
            count++;
        } else if (deep && tag == DW_TAG_lexical_block) {
            count += bodies_in(&child, deep, depth + 1, body);
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return count;
}

/*
 * When the argument is not a constant (a loop keeps the body's address in
 * a register), GCC's nesting still says it: the body's DIE sits in the
 * lexical scope of its construct.  The innermost scope around the call
 * holding any body decides, if it holds exactly one; else the emitted
 * function, counting the bodies in all its blocks (a block's ranges need
 * not cover the call GCC moved out of it), if it holds exactly one.
 */
static int nested_body(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *function, Dwarf_Addr *body)
{
    Dwarf_Die *scopes = NULL;
    int count = dwarf_getscopes(cu, pc, &scopes), bodies = 0;
    for (int i = 0; i < count && bodies == 0; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_compile_unit)
            break;
        bodies = bodies_in(&scopes[i], 0, 0, body);
    }
    free(scopes);
    return bodies > 0 ? bodies == 1 : bodies_in(function, 1, 0, body) == 1;
}

/*
 * A subprogram with code at `pc` below `parent`, searching subprograms and
 * lexical blocks: GCC nests an outlined body's DIE inside its function's
 * (main._omp_fn.1 in main, main._omp_fn.2 in main._omp_fn.1), though its
 * code lies apart from the function's.
 */
static int nested_function(Dwarf_Die *parent, Dwarf_Addr pc, int depth, Dwarf_Die *function)
{
    Dwarf_Die child;
    if (depth > MAX_DEPTH || dwarf_child(parent, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram && dwarf_haspc(&child, pc) > 0) {
            *function = child;
            return 1;
        }
        if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block) && dwarf_haschildren(&child) > 0
            && nested_function(&child, pc, depth + 1, function))
            return 1;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/*
 * The function emitted around `pc`: the CU's subprogram with code there,
 * or one nested in a function's DIE.  Scopes of inlined code end at the
 * inlined subroutine and the CU, so the DIE tree is what says it.
 */
static int emitted_function(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *function)
{
    if (dwarf_child(cu, function) != 0)
        return 0;
    do {
        if (dwarf_tag(function) == DW_TAG_subprogram && dwarf_haspc(function, pc) > 0)
            return 1;
    } while (dwarf_siblingof(function, function) == 0);
    return nested_function(cu, pc, 0, function);
}

int ompc_gomp_outlined_body(Dwfl_Module *module, GElf_Addr return_address, GElf_Addr *body)
{
    GElf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(module, &bias);
    GElf_Ehdr header;
    if (elf == NULL || gelf_getehdr(elf, &header) == NULL || header.e_machine != EM_X86_64)
        return 0;
    Dwarf_Addr cu_bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(module, return_address - 1, &cu_bias);
    Dwarf_Die function, site;
    int found = 0;
    Dwarf_Addr value = 0;
    /* Every call site of the emitted function, inlined ones too, lies below its DIE. */
    if (cu == NULL || !emitted_function(cu, return_address - 1 - cu_bias, &function)
        || !search(&function, return_address - cu_bias, 0, &site) || !calls_gomp(&site))
        return 0;
    if (register_body(module, &site, &function, cu_bias, return_address, body))
        return 1;
    found = first_argument_address(&site, &value) || nested_body(cu, return_address - 1 - cu_bias, &function, &value);
    if (found)
        *body = value + cu_bias;
    return found;
}

/*
 * The pragma is the first statement row of the line table at the body's
 * first instruction: a short body's statement comes in further rows at
 * the same address (GCC: the pragma's line, then the statement's at view
 * 1), and a lookup by address gives the last.  A statement row, because
 * the body before it in the file may end with a row of its own last line
 * at that same address, not a statement (BOTS sort's tail-calling task
 * bodies: each then read as the line after the previous body's pragma).
 */
int ompc_gomp_pragma_line(Dwfl_Module *module, GElf_Addr return_address, const char **file, int *line,
                          GElf_Addr *body)
{
    Dwarf_Addr cu_bias = 0;
    Dwarf_Die *cu = NULL;
    Dwarf_Lines *lines = NULL;
    size_t count = 0;
    *body = 0;
    if (!ompc_gomp_outlined_body(module, return_address, body)
        || (cu = dwfl_module_addrdie(module, *body, &cu_bias)) == NULL
        || dwarf_getsrclines(cu, &lines, &count) != 0)
        return 0;
    Dwarf_Line *first = NULL;
    for (size_t i = 0; i < count; i++) {
        Dwarf_Line *row = dwarf_onesrcline(lines, i);
        Dwarf_Addr address = 0;
        bool statement = false;
        if (row == NULL || dwarf_lineaddr(row, &address) != 0 || address != *body - cu_bias)
            continue;
        if (first == NULL)
            first = row;
        if (dwarf_linebeginstatement(row, &statement) == 0 && statement) {
            first = row;
            break;
        }
    }
    if (first == NULL)
        return 0;
    *file = dwarf_linesrc(first, NULL, NULL);
    return *file != NULL && dwarf_lineno(first, line) == 0 && *line > 0;
}
#endif
