/* demangle.c - C++ names through the C++ runtime's __cxa_demangle, legacy Rust and Fortran (gfortran, flang) names by hand, and the short forms text tables print, in the launcher. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "demangle.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_CXA_DEMANGLE
/*
 * The Itanium C++ ABI's demangler, in the C++ runtime every g++ and clang++
 * program already loads (libstdc++, or libc++abi): its own definition of
 * the ABI it implements, kept current by the compiler's authors.
 */
char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);
#endif

/* Legacy Rust escapes ("$LT$") and what they stand for. */
static const char *const rust_escapes[][2] = {
    {"$SP$", "@"}, {"$BP$", "*"}, {"$RF$", "&"},  {"$LT$", "<"},   {"$GT$", ">"},  {"$LP$", "("},
    {"$RP$", ")"}, {"$C$", ","},  {"$u20$", " "}, {"$u27$", "'"},  {"$u5b$", "["}, {"$u5d$", "]"},
    {"$u7b$", "{"}, {"$u7d$", "}"}, {"$u7e$", "~"}, {"$u3b$", ";"}, {"$u22$", "\""}, {"$u2b$", "+"},
};

/* Whether `name` ends a legacy Rust symbol: "17h" and 16 hex digits then "E". */
static int rust_hash_at_end(const char *name, size_t length)
{
    if (length < 21 || name[length - 1] != 'E' || strncmp(name + length - 20, "17h", 3) != 0)
        return 0;
    for (size_t i = length - 17; i < length - 1; i++)
        if (!isxdigit((unsigned char)name[i]))
            return 0;
    return 1;
}

/* Appends one Rust path component (`length` bytes at `from`) with its escapes decoded. */
static char *rust_component(char *to, const char *from, size_t length)
{
    const char *end = from + length;
    if (length > 1 && from[0] == '_' && from[1] == '$')
        from++;
    while (from < end) {
        int replaced = 0;
        for (size_t i = 0; *from == '$' && i < sizeof rust_escapes / sizeof rust_escapes[0]; i++) {
            size_t size = strlen(rust_escapes[i][0]);
            if ((size_t)(end - from) >= size && memcmp(from, rust_escapes[i][0], size) == 0) {
                *to++ = rust_escapes[i][1][0];
                from += size;
                replaced = 1;
                break;
            }
        }
        if (replaced)
            continue;
        if (from + 1 < end && from[0] == '.' && from[1] == '.') {
            *to++ = ':';
            *to++ = ':';
            from += 2;
            continue;
        }
        *to++ = *from++;
    }
    return to;
}

/* "_ZN3std2rt10lang_start17h0123456789abcdefE" as "std::rt::lang_start"; NULL when it is no legacy Rust name. */
static char *rust_demangle(const char *name)
{
    size_t length = strlen(name);
    if (strncmp(name, "_ZN", 3) != 0 || !rust_hash_at_end(name, length))
        return NULL;
    /* Each decoded component is no longer than its mangled text. */
    char *out = malloc(length + 1), *to = out;
    if (out == NULL)
        return NULL;
    const char *at = name + 3, *hash = name + length - 20;
    while (at < hash) {
        char *digits_end;
        unsigned long size = strtoul(at, &digits_end, 10);
        if (digits_end == at || size == 0 || size > (unsigned long)(hash - digits_end)) {
            free(out);
            return NULL;
        }
        if (to != out) {
            *to++ = ':';
            *to++ = ':';
        }
        to = rust_component(to, digits_end, size);
        at = digits_end + size;
    }
    *to = '\0';
    return out;
}

const char *ompc_fortran_main_suffix(const char *name)
{
    /* gfortran's MAIN__, flang's _QQmain (its lowering's doProgramEntry); a '.' starts a compiler's suffix (MAIN__._omp_fn.0). */
    static const char *const mains[] = {"MAIN__", "_QQmain"};
    for (size_t i = 0; name != NULL && i < sizeof mains / sizeof mains[0]; i++) {
        size_t length = strlen(mains[i]);
        if (strncmp(name, mains[i], length) == 0 && (name[length] == '\0' || name[length] == '.'))
            return name + length;
    }
    return NULL;
}

/* `head`, "::" when `scope` is set, then `tail` whole (a compiler's suffix such as "._omp_fn.0" with it), in new memory. */
static char *scoped(const char *head, size_t head_length, int scope, const char *tail)
{
    size_t tail_length = strlen(tail);
    char *out = malloc(head_length + 2 + tail_length + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, head, head_length);
    if (scope)
        memcpy(out + head_length, "::", 2);
    memcpy(out + head_length + (scope ? 2 : 0), tail, tail_length + 1);
    return out;
}

/*
 * gfortran's module procedures and variables, "__kern_MOD_work" as
 * "kern::work": "__", the module, "_MOD_", the name.  A submodule's own
 * procedure is "__kern.kimpl_MOD_hidden" (the ancestor module, '.', the
 * submodule: gfortran 12 spells a submodule of a submodule the same way),
 * read "kern.kimpl::hidden" as gdb scopes it by DWARF's module of that
 * name.  gfortran lower-cases identifiers, so the first "_MOD_" ends the
 * module; what follows the name ("._omp_fn.0") stays.  NULL when it is not one.
 */
static char *gfortran_demangle(const char *name)
{
    const char *module = name + 2, *separator = strstr(name, "_MOD_");
    if (strncmp(name, "__", 2) != 0 || separator == NULL || separator <= module || !islower((unsigned char)*module))
        return NULL;
    for (const char *at = module; at < separator; at++)
        if (!islower((unsigned char)*at) && !isdigit((unsigned char)*at) && *at != '_' && *at != '.')
            return NULL;
    const char *procedure = separator + 5;
    if (*procedure == '\0' || *procedure == '.')
        return NULL;
    return scoped(module, (size_t)(separator - module), 1, procedure);
}

/* The length of a Fortran identifier at `at`: flang lower-cases them, so an upper-case letter (its next tag) or a '.' ends one. */
static size_t fortran_identifier(const char *at)
{
    size_t length = 0;
    while (islower((unsigned char)at[length]) || isdigit((unsigned char)at[length]) || at[length] == '_'
           || at[length] == '$')
        length++;
    return length;
}

/* Appends `length` bytes of `text`, then "::" when `scope` is set. */
static char *append(char *to, const char *text, size_t length, int scope)
{
    memcpy(to, text, length);
    to += length;
    if (scope) {
        memcpy(to, "::", 2);
        to += 2;
    }
    return to;
}

/*
 * flang's names, from its lowering's naming conventions (flang's
 * docs/BijectiveInternalNameUniquing.md): "_Q", then the scopes outermost
 * first -- M module, S submodule (each), F host procedure, B block
 * number -- and P the procedure (E a variable): "_QMkernPwork" reads
 * "kern::work", "_QPwork" "work", "_QMkernFworkPinner" "kern::work::inner".
 * A submodule is its ancestor module '.' its own name, as gfortran spells
 * it.  Other tags (common blocks, types, constants, compiler-internal
 * names) give NULL.
 */
static char *flang_demangle(const char *name)
{
    const char *at = name + 2, *module = NULL, *submodule = NULL, *final = NULL;
    size_t module_length = 0, submodule_length = 0, final_length = 0, scopes = 0;
    const char *hosts[16];
    size_t host_lengths[16];
    if (strncmp(name, "_Q", 2) != 0)
        return NULL;
    while (final == NULL && *at != '\0') {
        char tag = *at++;
        size_t length = tag == 'B' ? strspn(at, "0123456789") : fortran_identifier(at);
        if (length == 0)
            return NULL;
        if (tag == 'M' && module == NULL && scopes == 0)
            module = at, module_length = length;
        else if (tag == 'S' && module != NULL && scopes == 0)
            submodule = at, submodule_length = length;
        else if (tag == 'F' && scopes < 16)
            hosts[scopes] = at, host_lengths[scopes++] = length;
        else if (tag == 'P' || tag == 'E')
            final = at, final_length = length;
        else if (tag != 'B')
            return NULL;
        at += length;
    }
    if (final == NULL || (*at != '\0' && *at != '.'))
        return NULL;
    /* Every tag of one letter becomes at most "::" or '.', so twice the length is room enough. */
    char *out = malloc(2 * strlen(name) + 1), *to = out;
    if (out == NULL)
        return NULL;
    if (module != NULL) {
        to = append(to, module, module_length, submodule == NULL);
        if (submodule != NULL)
            to = append(append(to, ".", 1, 0), submodule, submodule_length, 1);
    }
    for (size_t i = 0; i < scopes; i++)
        to = append(to, hosts[i], host_lengths[i], 1);
    to = append(to, final, final_length, 0);
    memcpy(to, at, strlen(at) + 1);
    return out;
}

/* Fortran names: the main program (DWARF's name for it is the symbolizer's to find), gfortran's, flang's. */
static char *fortran_demangle(const char *name)
{
    const char *suffix = ompc_fortran_main_suffix(name);
    if (suffix != NULL)
        return scoped(OMPC_FORTRAN_MAIN_PROGRAM, strlen(OMPC_FORTRAN_MAIN_PROGRAM), 0, suffix);
    char *demangled = gfortran_demangle(name);
    return demangled != NULL ? demangled : flang_demangle(name);
}

int ompc_may_be_mangled(const char *name)
{
    return name != NULL
           && (strncmp(name, "_Z", 2) == 0 || strncmp(name, "_Q", 2) == 0
               || (strncmp(name, "__", 2) == 0 && strstr(name, "_MOD_") != NULL) || ompc_fortran_main_suffix(name) != NULL);
}

char *ompc_demangle(const char *name)
{
    if (name == NULL)
        return NULL;
    if (strncmp(name, "_Z", 2) != 0)
        return fortran_demangle(name);
    char *rust = rust_demangle(name);
    if (rust != NULL)
        return rust;
#ifdef HAVE_CXA_DEMANGLE
    int status = -1;
    char *demangled = __cxa_demangle(name, NULL, NULL, &status);
    if (status == 0 && demangled != NULL)
        return demangled;
    free(demangled);
#endif
    return NULL;
}

int ompc_demangle_cxx_available(void)
{
#ifdef HAVE_CXA_DEMANGLE
    return 1;
#else
    return 0;
#endif
}

/* A bounded writer into the caller's buffer. */
struct out {
    char *buffer;
    size_t size, used;
};

static void put(struct out *out, const char *text, size_t length)
{
    for (size_t i = 0; i < length && out->used + 1 < out->size; i++)
        out->buffer[out->used++] = text[i];
    out->buffer[out->used] = '\0';
}

/* The end (one past the closer) of the group that opens at `at` ("<...>", "(...)", "{...}"), nested groups skipped. */
static const char *group_end(const char *at)
{
    int depth = 0;
    for (; *at; at++) {
        if (*at == '<' || *at == '(' || *at == '{' || *at == '[')
            depth++;
        else if ((*at == '>' || *at == ')' || *at == '}' || *at == ']') && --depth == 0)
            return at + 1;
    }
    return at;
}

/* Whether a parenthesised group still follows at the top level: the one at hand is then not the parameter list. */
static int group_follows(const char *at)
{
    while (*at) {
        if (*at == '(')
            return 1;
        at = (*at == '<' || *at == '{' || *at == '[') ? group_end(at) : at + 1;
    }
    return 0;
}

/* The length of an operator's name at `at` ("operator()", "operator<<", "operator int"), 0 when none is there. */
static size_t operator_length(const char *name, const char *at)
{
    static const char word[] = "operator";
    if (strncmp(at, word, sizeof word - 1) != 0 || (at > name && (isalnum((unsigned char)at[-1]) || at[-1] == '_')))
        return 0;
    const char *end = at + sizeof word - 1;
    if (strncmp(end, "()", 2) == 0 || strncmp(end, "[]", 2) == 0)
        return (size_t)(end + 2 - at);
    if (*end == ' ') {
        /* A conversion: its type runs to the parameter list. */
        while (*end && *end != '(')
            end = *end == '<' ? group_end(end) : end + 1;
        return (size_t)(end - at);
    }
    while (*end && strchr("<>=!+-*/%&|^~,", *end) != NULL)
        end++;
    return (size_t)(end - at);
}

const char *ompc_short_name(const char *name, int what, char *buffer, size_t size)
{
    struct out out = {buffer, size, 0};
    if (size == 0)
        return buffer;
    buffer[0] = '\0';
    if (name == NULL)
        return buffer;
    /* Not C++: its space is no return type's end. */
    if (strncmp(name, OMPC_FORTRAN_MAIN_PROGRAM, sizeof OMPC_FORTRAN_MAIN_PROGRAM - 1) == 0) {
        put(&out, name, strlen(name));
        return buffer;
    }
    static const char anonymous[] = "(anonymous namespace)";
    for (const char *at = name; *at;) {
        size_t length = operator_length(name, at);
        if (length > 0) {
            put(&out, at, length);
            at += length;
        } else if (strncmp(at, anonymous, sizeof anonymous - 1) == 0) {
            put(&out, at, sizeof anonymous - 1);
            at += sizeof anonymous - 1;
        } else if (*at == '{') {
            /* A lambda's or another unnamed entity's name: "{lambda(int)#1}". */
            const char *end = group_end(at);
            put(&out, at, (size_t)(end - at));
            at = end;
        } else if (*at == '<') {
            const char *end = group_end(at);
            if (what & OMPC_SHORT_TEMPLATES)
                put(&out, "<...>", 5);
            else
                put(&out, at, (size_t)(end - at));
            at = end;
        } else if (*at == '(' && (what & OMPC_SHORT_PARAMETERS)) {
            const char *end = group_end(at);
            if (!group_follows(end))
                break; /* the parameter list, then " const" or " [clone .constprop.0]" */
            put(&out, at, (size_t)(end - at));
            at = end;
        } else if (*at == ' ' && (what & OMPC_SHORT_PARAMETERS)) {
            /* What came before a space at the top level was the return type. */
            out.used = 0;
            buffer[0] = '\0';
            at++;
        } else {
            put(&out, at, 1);
            at++;
        }
    }
    if (out.used == 0)
        put(&out, name, strlen(name));
    return buffer;
}
