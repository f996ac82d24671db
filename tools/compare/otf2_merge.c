/* otf2_merge.c - ompcollect merge --trace: one OTF2 archive of several (one per MPI rank or process), every archive's definitions unified and its events copied to its own locations, with libotf2's reader and writer. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "merge_input.h"
#include "otf2_merge.h"
#include "writer.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

/* The kinds of definitions, each with its own numbering in the merged archive. */
enum kind {
    K_STRING, K_ATTRIBUTE, K_NODE, K_LOCATION_GROUP, K_LOCATION, K_REGION, K_CALLPATH, K_GROUP,
    K_MEMBER, K_METRIC, K_COMM, K_PARAMETER, K_SOURCE, K_CONTEXT, K_INTERRUPT, K_PARADIGM, K_PROPERTY, K_LOCK, K_COUNT
};

static const char *const kind_names[K_COUNT] = {
    "string", "attribute", "system tree node", "location group", "location", "region", "callpath",
    "group", "metric member", "metric", "communicator", "parameter", "source code location", "calling context",
    "interrupt generator", "paradigm", "property", "lock",
};

/* One entry of a table: a byte string and its value. */
struct entry {
    uint64_t hash;
    unsigned char *key; /* NULL: free slot */
    size_t length;
    uint64_t value;
};

/* A hash table from byte strings to 64-bit values (open addressing). */
struct table {
    struct entry *slots;
    size_t capacity, used;
};

/* A location: which archive's, and the events it says it has (each is copied, so the merged one has as many). */
struct location {
    int input;
    uint64_t old;   /* its ref in its own archive */
    uint64_t self;  /* in the merged one */
    uint64_t events;
};

/* The one COMM_LOCATIONS group of a paradigm: every archive's locations of it, in archive order. */
struct comm_locations {
    OTF2_Paradigm paradigm;
    uint32_t self, name;
    OTF2_GroupFlag flags;
    uint64_t *members;
    uint32_t count;
    uint32_t *offsets; /* per archive: where its members begin (its COMM_GROUPs index from there), or UINT32_MAX */
};

/* A growable key: the kind and fields of one definition, remapped. */
struct key {
    unsigned char bytes[256];
    unsigned char *heap; /* when it outgrows bytes */
    size_t length, capacity;
    int failed;
};

/* Everything one merge holds. */
struct merger {
    OTF2_Archive *archive;
    OTF2_GlobalDefWriter *defs;
    struct table defined; /* every definition written, by its remapped content: its merged ref */
    struct table mapped;  /* every archive's refs (archive, kind, old ref): the merged refs */
    uint64_t next[K_COUNT];
    size_t kept;          /* bytes the tables and lists hold, against the cap */
    struct location *locations;
    size_t location_count, location_capacity;
    struct comm_locations *comms;
    size_t comm_count;
    int inputs;           /* how many archives */
    uint64_t event_chunk, def_chunk; /* the merged archive's chunk sizes: the largest of the inputs' */
    /* The archive being copied. */
    const char *input;
    int input_index;
    int64_t shift;        /* ticks added to its timestamps */
    uint64_t handled;     /* definitions copied */
    OTF2_AttributeList *attributes;
    OTF2_EvtWriter *writer;
    uint64_t position;    /* the last event copied of the location being read */
    uint64_t old_location;
    /* Why it failed. */
    char *error;
    size_t error_size;
    int failed;
    char otf2_message[512]; /* libotf2's last complaint */
};

/* Records why the merge fails (the first reason wins), on one line; returns OTF2_CALLBACK_ERROR. */
static OTF2_CallbackCode fail(struct merger *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static OTF2_CallbackCode fail(struct merger *m, const char *fmt, ...)
{
    if (m->failed || m->error_size == 0)
        return m->failed = 1, OTF2_CALLBACK_ERROR;
    char reason[768];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    snprintf(m->error, m->error_size, "%s%s%s", m->input != NULL ? m->input : "",
             m->input != NULL ? ": " : "", reason);
    for (char *c = m->error; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    m->failed = 1;
    return OTF2_CALLBACK_ERROR;
}

/* libotf2's own complaints go into the merger's message instead of standard error. */
static OTF2_ErrorCode otf2_complaint(void *user, const char *file, uint64_t line, const char *function,
                                     OTF2_ErrorCode code, const char *fmt, va_list args)
{
    struct merger *m = user;
    (void)file, (void)line, (void)function;
    if (m != NULL && m->otf2_message[0] == '\0' && fmt != NULL)
        vsnprintf(m->otf2_message, sizeof m->otf2_message, fmt, args);
    return code;
}

/* The reason for a libotf2 failure in `step`; returns -1. */
static int otf2_failed(struct merger *m, const char *step, OTF2_ErrorCode code)
{
    if (m->otf2_message[0] != '\0')
        fail(m, "%s: %s (libotf2)", step, m->otf2_message);
    else
        fail(m, "%s: %s (libotf2)", step, OTF2_Error_GetDescription(code));
    return -1;
}

/* FNV-1a over the key. */
static uint64_t hash_bytes(const unsigned char *key, size_t length)
{
    uint64_t hash = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < length; i++)
        hash = (hash ^ key[i]) * UINT64_C(0x100000001b3);
    return hash;
}

/* The slot of `key`: its entry, or the free slot it would take. */
static struct entry *table_slot(const struct table *table, const unsigned char *key, size_t length,
                                uint64_t hash)
{
    size_t mask = table->capacity - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        struct entry *slot = &table->slots[i];
        if (slot->key == NULL
            || (slot->hash == hash && slot->length == length && memcmp(slot->key, key, length) == 0))
            return slot;
    }
}

/* Whether `key` is in the table, with its value. */
static int table_find(const struct table *table, const unsigned char *key, size_t length, uint64_t *value)
{
    if (table->capacity == 0)
        return 0;
    const struct entry *slot = table_slot(table, key, length, hash_bytes(key, length));
    if (slot->key != NULL)
        *value = slot->value;
    return slot->key != NULL;
}

/* Adds (or replaces) `key`; -1 with the reason when the cap or memory runs out. */
static int table_put(struct merger *m, struct table *table, const unsigned char *key, size_t length,
                     uint64_t value)
{
    if ((table->used + 1) * 2 > table->capacity) {
        size_t capacity = table->capacity ? table->capacity * 2 : 1024;
        struct entry *slots = calloc(capacity, sizeof *slots);
        if (slots == NULL || m->kept + capacity * sizeof *slots > OMPC_OTF2_MERGE_MAX_DEFINITION_BYTES) {
            free(slots);
            return fail(m, "its definitions would take more than %zu MiB of memory (merge's limit)",
                        OMPC_OTF2_MERGE_MAX_DEFINITION_BYTES >> 20), -1;
        }
        struct table grown = {slots, capacity, table->used};
        for (size_t i = 0; i < table->capacity; i++)
            if (table->slots[i].key != NULL)
                *table_slot(&grown, table->slots[i].key, table->slots[i].length, table->slots[i].hash) =
                    table->slots[i];
        m->kept += (capacity - table->capacity) * sizeof *slots;
        free(table->slots);
        *table = grown;
    }
    uint64_t hash = hash_bytes(key, length);
    struct entry *slot = table_slot(table, key, length, hash);
    if (slot->key == NULL) {
        unsigned char *copy = m->kept + length <= OMPC_OTF2_MERGE_MAX_DEFINITION_BYTES ? malloc(length ? length : 1)
                                                                                       : NULL;
        if (copy == NULL)
            return fail(m, "its definitions would take more than %zu MiB of memory (merge's limit)",
                        OMPC_OTF2_MERGE_MAX_DEFINITION_BYTES >> 20), -1;
        memcpy(copy, key, length);
        m->kept += length;
        *slot = (struct entry){hash, copy, length, value};
        table->used++;
    }
    slot->value = value;
    return 0;
}

/* Frees the table's keys and slots, giving their bytes back to the cap. */
static void table_free(struct merger *m, struct table *table)
{
    for (size_t i = 0; i < table->capacity; i++)
        if (table->slots[i].key != NULL) {
            m->kept -= table->slots[i].length;
            free(table->slots[i].key);
        }
    m->kept -= table->capacity * sizeof *table->slots;
    free(table->slots);
    memset(table, 0, sizeof *table);
}

/* Appends `length` bytes to the key. */
static void key_bytes(struct key *key, const void *bytes, size_t length)
{
    unsigned char *into = key->heap != NULL ? key->heap : key->bytes;
    size_t capacity = key->heap != NULL ? key->capacity : sizeof key->bytes;
    if (key->failed)
        return;
    if (key->length + length > capacity) {
        size_t grown = 2 * (key->length + length);
        unsigned char *heap = realloc(key->heap, grown);
        if (heap == NULL) {
            key->failed = 1;
            return;
        }
        if (key->heap == NULL)
            memcpy(heap, key->bytes, key->length);
        key->heap = heap;
        key->capacity = grown;
        into = heap;
    }
    memcpy(into + key->length, bytes, length);
    key->length += length;
}

/* Appends a number to the key. */
static void key_u64(struct key *key, uint64_t value)
{
    key_bytes(key, &value, sizeof value);
}

/* A key starting with the kind of definition it names. */
static void key_start(struct key *key, enum kind kind)
{
    key->heap = NULL;
    key->length = key->capacity = 0;
    key->failed = 0;
    key_u64(key, kind);
}

/* The key's bytes. */
static const unsigned char *key_data(const struct key *key)
{
    return key->heap != NULL ? key->heap : key->bytes;
}

/* The merged ref of the current archive's `old` ref of `kind`; UNDEFINED (all ones) stays so. -1 when it was never defined. */
static int remap(struct merger *m, enum kind kind, uint64_t old, uint64_t undefined, uint64_t *merged)
{
    struct key key;
    if (old == undefined) {
        *merged = old;
        return 0;
    }
    key_start(&key, kind);
    key_u64(&key, (uint64_t)m->input_index);
    key_u64(&key, old);
    if (!table_find(&m->mapped, key_data(&key), key.length, merged))
        return fail(m, "it refers to %s %" PRIu64 ", which it does not define (before the reference)",
                    kind_names[kind], old), -1;
    return 0;
}

/* remap for the 32-bit refs (every kind but locations). */
static int remap32(struct merger *m, enum kind kind, uint32_t old, uint32_t *merged)
{
    uint64_t value;
    if (remap(m, kind, old, UINT32_MAX, &value) != 0)
        return -1;
    *merged = (uint32_t)value;
    return 0;
}

/* Maps the current archive's `old` ref of `kind` to `merged`. */
static int map_ref(struct merger *m, enum kind kind, uint64_t old, uint64_t merged)
{
    struct key key;
    key_start(&key, kind);
    key_u64(&key, (uint64_t)m->input_index);
    key_u64(&key, old);
    uint64_t known;
    if (table_find(&m->mapped, key_data(&key), key.length, &known))
        return fail(m, "it defines %s %" PRIu64 " twice", kind_names[kind], old), -1;
    return table_put(m, &m->mapped, key_data(&key), key.length, merged);
}

/*
 * The merged ref of a definition whose remapped content is `key`: the one
 * already written for equal content, or a new one (*fresh set: write it).
 * The current archive's `old` ref maps to it either way.  -1 on failure.
 */
static int unify(struct merger *m, enum kind kind, struct key *key, uint64_t old, uint64_t *merged, int *fresh)
{
    int status = 0;
    *fresh = 0;
    if (key->failed)
        status = (fail(m, "out of memory"), -1);
    else if (!table_find(&m->defined, key_data(key), key->length, merged)) {
        *merged = m->next[kind]++;
        *fresh = 1;
        status = table_put(m, &m->defined, key_data(key), key->length, *merged);
    }
    free(key->heap);
    key->heap = NULL;
    if (status == 0 && kind != K_PROPERTY && kind != K_PARADIGM)
        status = map_ref(m, kind, old, *merged);
    m->handled++;
    return status;
}

/* The bits of an attribute value its type uses, so that equal values make equal keys. */
static uint64_t value_bits(OTF2_Type type, OTF2_AttributeValue value)
{
    switch (type) {
    case OTF2_TYPE_UINT8:
    case OTF2_TYPE_INT8: return value.uint8;
    case OTF2_TYPE_UINT16:
    case OTF2_TYPE_INT16: return value.uint16;
    case OTF2_TYPE_UINT64:
    case OTF2_TYPE_INT64:
    case OTF2_TYPE_DOUBLE:
    case OTF2_TYPE_LOCATION: return value.uint64;
    default: return value.uint32; /* the 32-bit numbers and every other ref */
    }
}

/* Remaps an attribute value that refers to a definition; -1 for one merge cannot follow. */
static int remap_value(struct merger *m, OTF2_Type type, OTF2_AttributeValue *value)
{
    switch (type) {
    case OTF2_TYPE_STRING: return remap32(m, K_STRING, value->stringRef, &value->stringRef);
    case OTF2_TYPE_ATTRIBUTE: return remap32(m, K_ATTRIBUTE, value->attributeRef, &value->attributeRef);
    case OTF2_TYPE_LOCATION:
        return remap(m, K_LOCATION, value->locationRef, OTF2_UNDEFINED_LOCATION, &value->locationRef);
    case OTF2_TYPE_REGION: return remap32(m, K_REGION, value->regionRef, &value->regionRef);
    case OTF2_TYPE_GROUP: return remap32(m, K_GROUP, value->groupRef, &value->groupRef);
    case OTF2_TYPE_METRIC: return remap32(m, K_METRIC, value->metricRef, &value->metricRef);
    case OTF2_TYPE_COMM: return remap32(m, K_COMM, value->commRef, &value->commRef);
    case OTF2_TYPE_PARAMETER: return remap32(m, K_PARAMETER, value->parameterRef, &value->parameterRef);
    case OTF2_TYPE_SOURCE_CODE_LOCATION:
        return remap32(m, K_SOURCE, value->sourceCodeLocationRef, &value->sourceCodeLocationRef);
    case OTF2_TYPE_CALLING_CONTEXT:
        return remap32(m, K_CONTEXT, value->callingContextRef, &value->callingContextRef);
    case OTF2_TYPE_INTERRUPT_GENERATOR:
        return remap32(m, K_INTERRUPT, value->interruptGeneratorRef, &value->interruptGeneratorRef);
    case OTF2_TYPE_LOCATION_GROUP:
        return remap32(m, K_LOCATION_GROUP, value->locationGroupRef, &value->locationGroupRef);
    case OTF2_TYPE_RMA_WIN:
    case OTF2_TYPE_IO_FILE:
    case OTF2_TYPE_IO_HANDLE:
        return fail(m, "it has an attribute naming an RMA window or I/O file, which merge does not copy"), -1;
    default: return 0;
    }
}

/* The callback's answer after writing a definition. */
static OTF2_CallbackCode wrote(struct merger *m, OTF2_ErrorCode status)
{
    if (status != OTF2_SUCCESS)
        return otf2_failed(m, "writing the merged definitions", status), OTF2_CALLBACK_ERROR;
    return OTF2_CALLBACK_SUCCESS;
}

/*
 * The callbacks below are generated from their arguments' descriptions
 * (DEFINITIONS, EVENTS), so that each kind of definition and event says only
 * what differs: which arguments are refs to remap and what makes two
 * definitions one.  A field is (how, type, name, with), `with` being what
 * the how needs, or _:
 *   id     passed as it is (and part of the key)
 *   ref    a 32-bit ref of kind `with`, remapped
 *   loc    a location ref, remapped
 *   value  an attribute value whose type is field `with`, remapped when it
 *          is a ref, keyed by the bits its type uses
 *   str    a string, keyed by its bytes
 *   lock   a lock of paradigm `with`, given the archive's own merged id
 *   time   a timestamp, moved onto the merged clock
 */
#define REMAP_id(type, name, with)
#define REMAP_str(type, name, with)
#define REMAP_ref(type, name, with) || remap32(m, with, name, &name) != 0
#define REMAP_loc(type, name, with) || remap(m, K_LOCATION, name, OTF2_UNDEFINED_LOCATION, &name) != 0
#define REMAP_value(type, name, with) || remap_value(m, with, &name) != 0
#define REMAP_lock(type, name, with) || lock_id(m, with, &name) != 0
#define REMAP_time(type, name, with) || (name = when(m, name), 0)
#define KEY_id(type, name, with) key_u64(&key, (uint64_t)name);
#define KEY_ref KEY_id
#define KEY_value(type, name, with) key_u64(&key, value_bits(with, name));
#define KEY_str(type, name, with) key_bytes(&key, name, strlen(name));

#define FIELD_PARAM(how, type, name, with) , type name
#define FIELD_ARG(how, type, name, with) , name
#define FIELD_REMAP(how, type, name, with) REMAP_##how(type, name, with)
#define FIELD_KEY(how, type, name, with) KEY_##how(type, name, with)
#define KEYED(...) EACH(FIELD_KEY, __VA_ARGS__)
#define UNKEYED(...)
#define UNPACK(...) __VA_ARGS__

/* EACH(M, (a), (b), ...): M(a) M(b) ...; a callback has at most nine fields past its own ref. */
#define EACH(M, ...) \
    EACH_PICK(__VA_ARGS__, EACH9, EACH8, EACH7, EACH6, EACH5, EACH4, EACH3, EACH2, EACH1, )(M, __VA_ARGS__)
#define EACH_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, each, ...) each
#define EACH1(M, a) M a
#define EACH2(M, a, ...) M a EACH1(M, __VA_ARGS__)
#define EACH3(M, a, ...) M a EACH2(M, __VA_ARGS__)
#define EACH4(M, a, ...) M a EACH3(M, __VA_ARGS__)
#define EACH5(M, a, ...) M a EACH4(M, __VA_ARGS__)
#define EACH6(M, a, ...) M a EACH5(M, __VA_ARGS__)
#define EACH7(M, a, ...) M a EACH6(M, __VA_ARGS__)
#define EACH8(M, a, ...) M a EACH7(M, __VA_ARGS__)
#define EACH9(M, a, ...) M a EACH8(M, __VA_ARGS__)

/*
 * The passes over the archives' definitions, so that the merged archive
 * defines everything before it is referred to and each kind in the order of
 * its refs: everything but groups and what refers to them; the
 * COMM_LOCATIONS groups (merged into one per paradigm, written after the
 * pass); the other groups; communicators, metric instances and recorders,
 * callpath parameters.
 */
enum pass { PASS_MAIN, PASS_COMM_LOCATIONS, PASS_GROUPS, PASS_LATE, PASS_COUNT };

/* The attribute value every property ends with, and its type. */
#define TYPED_VALUE (id, OTF2_Type, type, _), (value, OTF2_AttributeValue, value, type)

/*
 * Every global definition merge copies: X(function, Name, pass, mode, self,
 * key, fields...), read with OTF2_GlobalDefReaderCallbacks_SetNameCallback
 * in `pass` and written with OTF2_GlobalDefWriter_WriteName.
 *   mode   unify: one definition for equal content (the key and every
 *          field), its own ref (of type `self`) mapped to the merged one;
 *          share: the same, for a definition with no ref of its own;
 *          first: one per key alone, the first archive's fields winning;
 *          own: each archive's its own, under a new ref (a process, a team);
 *          copy: written as it comes, as its owner is the archive's own;
 *          hand: `function` is written out below, for what a field cannot say
 *   key    what the key starts with: the kind, then what sets it apart
 * Each field is remapped in turn, so the first bad ref is the one reported.
 */
#define DEFINITIONS(X)                                                                                               \
    X(def_clock, ClockProperties, PASS_MAIN, hand, _, _, _)                                                          \
    X(def_string, String, PASS_MAIN, unify, OTF2_StringRef, (K_STRING), (str, const char *, string, _))              \
    X(def_paradigm, Paradigm, PASS_MAIN, first, _, (K_PARADIGM, paradigm), (id, OTF2_Paradigm, paradigm, _),         \
      (ref, OTF2_StringRef, name, K_STRING), (id, OTF2_ParadigmClass, paradigm_class, _))                            \
    X(def_paradigm_property, ParadigmProperty, PASS_MAIN, first, _, (K_PROPERTY, K_PARADIGM, paradigm, property),    \
      (id, OTF2_Paradigm, paradigm, _), (id, OTF2_ParadigmProperty, property, _), TYPED_VALUE)                       \
    X(def_attribute, Attribute, PASS_MAIN, unify, OTF2_AttributeRef, (K_ATTRIBUTE),                                  \
      (ref, OTF2_StringRef, name, K_STRING), (ref, OTF2_StringRef, description, K_STRING), (id, OTF2_Type, type, _)) \
    X(def_node, SystemTreeNode, PASS_MAIN, unify, OTF2_SystemTreeNodeRef, (K_NODE),                                  \
      (ref, OTF2_StringRef, name, K_STRING), (ref, OTF2_StringRef, class_name, K_STRING),                            \
      (ref, OTF2_SystemTreeNodeRef, parent, K_NODE))                                                                 \
    X(def_node_property, SystemTreeNodeProperty, PASS_MAIN, share, _, (K_PROPERTY, K_NODE),                          \
      (ref, OTF2_SystemTreeNodeRef, node, K_NODE), (ref, OTF2_StringRef, name, K_STRING), TYPED_VALUE)               \
    X(def_node_domain, SystemTreeNodeDomain, PASS_MAIN, share, _, (K_PROPERTY, K_COUNT),                             \
      (ref, OTF2_SystemTreeNodeRef, node, K_NODE), (id, OTF2_SystemTreeDomain, domain, _))                           \
    X(def_location_group, LocationGroup, PASS_MAIN, own, OTF2_LocationGroupRef, (K_LOCATION_GROUP),                  \
      (ref, OTF2_StringRef, name, K_STRING), (id, OTF2_LocationGroupType, type, _),                                  \
      (ref, OTF2_SystemTreeNodeRef, parent, K_NODE), (ref, OTF2_LocationGroupRef, creator, K_LOCATION_GROUP))        \
    X(def_location_group_property, LocationGroupProperty, PASS_MAIN, copy, _, (K_PROPERTY),                          \
      (ref, OTF2_LocationGroupRef, group, K_LOCATION_GROUP), (ref, OTF2_StringRef, name, K_STRING), TYPED_VALUE)     \
    X(def_location, Location, PASS_MAIN, hand, _, _, _)                                                              \
    X(def_location_property, LocationProperty, PASS_MAIN, copy, _, (K_PROPERTY),                                     \
      (loc, OTF2_LocationRef, location, _), (ref, OTF2_StringRef, name, K_STRING), TYPED_VALUE)                      \
    X(def_region, Region, PASS_MAIN, unify, OTF2_RegionRef, (K_REGION), (ref, OTF2_StringRef, name, K_STRING),       \
      (ref, OTF2_StringRef, canonical, K_STRING), (ref, OTF2_StringRef, description, K_STRING),                      \
      (id, OTF2_RegionRole, role, _), (id, OTF2_Paradigm, paradigm, _), (id, OTF2_RegionFlag, flags, _),             \
      (ref, OTF2_StringRef, file, K_STRING), (id, uint32_t, begin, _), (id, uint32_t, end, _))                       \
    X(def_source, SourceCodeLocation, PASS_MAIN, unify, OTF2_SourceCodeLocationRef, (K_SOURCE),                      \
      (ref, OTF2_StringRef, file, K_STRING), (id, uint32_t, line, _))                                                \
    X(def_callpath, Callpath, PASS_MAIN, unify, OTF2_CallpathRef, (K_CALLPATH),                                      \
      (ref, OTF2_CallpathRef, parent, K_CALLPATH), (ref, OTF2_RegionRef, region, K_REGION))                          \
    X(def_comm_locations, Group, PASS_COMM_LOCATIONS, hand, _, _, _)                                                 \
    X(def_group, Group, PASS_GROUPS, hand, _, _, _)                                                                  \
    X(def_comm, Comm, PASS_LATE, own, OTF2_CommRef, (K_COMM), (ref, OTF2_StringRef, name, K_STRING),                 \
      (ref, OTF2_GroupRef, group, K_GROUP), (ref, OTF2_CommRef, parent, K_COMM), (id, OTF2_CommFlag, flags, _))      \
    X(def_member, MetricMember, PASS_MAIN, unify, OTF2_MetricMemberRef, (K_MEMBER),                                  \
      (ref, OTF2_StringRef, name, K_STRING), (ref, OTF2_StringRef, description, K_STRING),                           \
      (id, OTF2_MetricType, type, _), (id, OTF2_MetricMode, mode, _), (id, OTF2_Type, value_type, _),                \
      (id, OTF2_Base, base, _), (id, int64_t, exponent, _), (ref, OTF2_StringRef, unit, K_STRING))                   \
    X(def_metric_class, MetricClass, PASS_MAIN, hand, _, _, _)                                                       \
    X(def_metric_instance, MetricInstance, PASS_LATE, hand, _, _, _)                                                 \
    X(def_metric_recorder, MetricClassRecorder, PASS_LATE, copy, _, (K_PROPERTY),                                    \
      (ref, OTF2_MetricRef, metric, K_METRIC), (loc, OTF2_LocationRef, recorder, _))                                 \
    X(def_parameter, Parameter, PASS_MAIN, unify, OTF2_ParameterRef, (K_PARAMETER),                                  \
      (ref, OTF2_StringRef, name, K_STRING), (id, OTF2_ParameterType, type, _))                                      \
    X(def_context, CallingContext, PASS_MAIN, unify, OTF2_CallingContextRef, (K_CONTEXT),                            \
      (ref, OTF2_RegionRef, region, K_REGION), (ref, OTF2_SourceCodeLocationRef, source, K_SOURCE),                  \
      (ref, OTF2_CallingContextRef, parent, K_CONTEXT))                                                              \
    X(def_context_property, CallingContextProperty, PASS_MAIN, share, _, (K_PROPERTY, K_CONTEXT),                    \
      (ref, OTF2_CallingContextRef, context, K_CONTEXT), (ref, OTF2_StringRef, name, K_STRING), TYPED_VALUE)         \
    X(def_interrupt, InterruptGenerator, PASS_MAIN, unify, OTF2_InterruptGeneratorRef, (K_INTERRUPT),                \
      (ref, OTF2_StringRef, name, K_STRING), (id, OTF2_InterruptGeneratorMode, mode, _), (id, OTF2_Base, base, _),   \
      (id, int64_t, exponent, _), (id, uint64_t, period, _))                                                         \
    X(def_callpath_parameter, CallpathParameter, PASS_LATE, share, _, (K_PROPERTY, K_CALLPATH),                      \
      (ref, OTF2_CallpathRef, callpath, K_CALLPATH), (ref, OTF2_ParameterRef, parameter, K_PARAMETER), TYPED_VALUE)

/* ClockProperties: read in the first pass (see read_clock); the merged archive has one clock. */
static OTF2_CallbackCode def_clock(void *user, uint64_t resolution, uint64_t offset, uint64_t length,
                                   uint64_t realtime)
{
    (void)resolution, (void)offset, (void)length, (void)realtime;
    ((struct merger *)user)->handled++;
    return OTF2_CALLBACK_SUCCESS;
}

/* A thread: kept as the archive's own; its events are copied one for one, which copy_location checks. */
static OTF2_CallbackCode def_location(void *user, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t events, OTF2_LocationGroupRef group)
{
    struct merger *m = user;
    if (m->location_count >= OMPC_OTF2_MERGE_MAX_LOCATIONS)
        return fail(m, "the archives have more than %zu locations (merge's limit)", OMPC_OTF2_MERGE_MAX_LOCATIONS);
    if (m->location_count == m->location_capacity) {
        size_t capacity = m->location_capacity ? 2 * m->location_capacity : 64;
        struct location *grown = realloc(m->locations, capacity * sizeof *grown);
        if (grown == NULL)
            return fail(m, "out of memory");
        m->locations = grown;
        m->location_capacity = capacity;
    }
    struct location *location = &m->locations[m->location_count];
    *location = (struct location){m->input_index, self, m->next[K_LOCATION], events};
    if (remap32(m, K_STRING, name, &name) != 0 || remap32(m, K_LOCATION_GROUP, group, &group) != 0
        || map_ref(m, K_LOCATION, self, location->self) != 0)
        return OTF2_CALLBACK_ERROR;
    m->next[K_LOCATION]++;
    m->location_count++;
    m->handled++;
    return wrote(m, OTF2_GlobalDefWriter_WriteLocation(m->defs, location->self, name, type, events, group));
}

/* The COMM_LOCATIONS group of `paradigm` in the merged archive, made on first use; NULL without memory. */
static struct comm_locations *comm_locations(struct merger *m, OTF2_Paradigm paradigm)
{
    for (size_t i = 0; i < m->comm_count; i++)
        if (m->comms[i].paradigm == paradigm)
            return &m->comms[i];
    struct comm_locations *grown = realloc(m->comms, (m->comm_count + 1) * sizeof *grown);
    if (grown == NULL)
        return NULL;
    m->comms = grown;
    struct comm_locations *comm = &m->comms[m->comm_count];
    memset(comm, 0, sizeof *comm);
    comm->offsets = malloc((size_t)m->inputs * sizeof *comm->offsets);
    if (comm->offsets == NULL)
        return NULL;
    for (int i = 0; i < m->inputs; i++)
        comm->offsets[i] = UINT32_MAX;
    m->comm_count++;
    comm->paradigm = paradigm;
    comm->self = (uint32_t)m->next[K_GROUP]++;
    comm->name = OTF2_UNDEFINED_STRING;
    return comm;
}

/*
 * A paradigm's COMM_LOCATIONS group, read in a pass of its own before any
 * other group: the merged archive has one, of every archive's locations in
 * turn, written before the COMM_GROUPs that index into it, and each
 * archive's COMM_GROUPs are shifted by where its part begins.
 */
static OTF2_CallbackCode def_comm_locations(void *user, OTF2_GroupRef self, OTF2_StringRef name,
                                            OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
                                            uint32_t count, const uint64_t *members)
{
    struct merger *m = user;
    if (type != OTF2_GROUP_TYPE_COMM_LOCATIONS)
        return OTF2_CALLBACK_SUCCESS;
    struct comm_locations *comm = comm_locations(m, paradigm);
    if (comm == NULL)
        return fail(m, "out of memory");
    if (comm->offsets[m->input_index] != UINT32_MAX)
        return fail(m, "it defines two COMM_LOCATIONS groups of paradigm %d", (int)paradigm);
    if ((uint64_t)comm->count + count >= UINT32_MAX)
        return fail(m, "the archives' COMM_LOCATIONS groups hold more than %" PRIu32 " members", UINT32_MAX - 1);
    uint64_t *grown = realloc(comm->members, ((size_t)comm->count + count + 1) * sizeof *grown);
    if (grown == NULL)
        return fail(m, "out of memory");
    comm->members = grown;
    for (uint32_t i = 0; i < count; i++)
        if (remap(m, K_LOCATION, members[i], OTF2_UNDEFINED_LOCATION, &comm->members[comm->count + i]) != 0)
            return OTF2_CALLBACK_ERROR;
    comm->offsets[m->input_index] = comm->count;
    comm->count += count;
    comm->flags = flags;
    if (comm->name == OTF2_UNDEFINED_STRING && remap32(m, K_STRING, name, &comm->name) != 0)
        return OTF2_CALLBACK_ERROR;
    m->handled++;
    return map_ref(m, K_GROUP, self, comm->self) != 0 ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

/* Writes the merged COMM_LOCATIONS groups, once every archive's are read. */
static int write_comm_locations(struct merger *m)
{
    OTF2_ErrorCode status = OTF2_SUCCESS;
    for (size_t i = 0; i < m->comm_count && status == OTF2_SUCCESS; i++) {
        const struct comm_locations *comm = &m->comms[i];
        status = OTF2_GlobalDefWriter_WriteGroup(m->defs, comm->self, comm->name, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                                 comm->paradigm, comm->flags, comm->count, comm->members);
    }
    return status == OTF2_SUCCESS ? 0 : otf2_failed(m, "writing the merged definitions", status);
}

/* The members of a group remapped as its type says; -1 for a type merge cannot follow. */
static int remap_members(struct merger *m, OTF2_GroupType type, OTF2_Paradigm paradigm, uint32_t count,
                         const uint64_t *members, uint64_t *out)
{
    static const enum kind kinds[] = {[OTF2_GROUP_TYPE_LOCATIONS] = K_LOCATION,
                                      [OTF2_GROUP_TYPE_REGIONS] = K_REGION, [OTF2_GROUP_TYPE_METRIC] = K_METRIC};
    struct comm_locations *comm = NULL;
    if (type == OTF2_GROUP_TYPE_COMM_GROUP) {
        for (size_t i = 0; i < m->comm_count && comm == NULL; i++)
            if (m->comms[i].paradigm == paradigm && m->comms[i].offsets[m->input_index] != UINT32_MAX)
                comm = &m->comms[i];
        if (comm == NULL)
            return fail(m, "it has a COMM_GROUP group of paradigm %d but no COMM_LOCATIONS group", (int)paradigm),
                   -1;
    } else if (type != OTF2_GROUP_TYPE_LOCATIONS && type != OTF2_GROUP_TYPE_REGIONS
               && type != OTF2_GROUP_TYPE_METRIC && type != OTF2_GROUP_TYPE_COMM_SELF)
        return fail(m, "it has a group of type %d, which merge does not copy", (int)type), -1;
    uint32_t offset = comm != NULL ? comm->offsets[m->input_index] : 0;
    uint32_t end = comm != NULL ? comm->count : 0; /* this archive's part ends where the next archive's begins */
    for (int i = m->input_index + 1; comm != NULL && i < m->inputs; i++)
        if (comm->offsets[i] != UINT32_MAX && comm->offsets[i] < end)
            end = comm->offsets[i];
    for (uint32_t i = 0; i < count; i++) {
        if (comm != NULL) {
            if (members[i] >= end - offset)
                return fail(m, "a COMM_GROUP group names member %" PRIu64 " of a COMM_LOCATIONS group of %" PRIu32,
                            members[i], end - offset), -1;
            out[i] = members[i] + offset;
        } else if (type == OTF2_GROUP_TYPE_COMM_SELF)
            out[i] = members[i];
        else if (remap(m, kinds[type], members[i], type == OTF2_GROUP_TYPE_LOCATIONS ? OTF2_UNDEFINED_LOCATION
                                                                                      : UINT32_MAX, &out[i]) != 0)
            return -1;
    }
    return 0;
}

/* By hand, as a group's members are refs of the kind its type says, or indexes into a COMM_LOCATIONS group. */
static OTF2_CallbackCode def_group(void *user, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t count,
                                   const uint64_t *members)
{
    struct merger *m = user;
    struct key key;
    uint64_t merged;
    int fresh;
    if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
        return OTF2_CALLBACK_SUCCESS; /* read in the pass before */
    if (remap32(m, K_STRING, name, &name) != 0)
        return OTF2_CALLBACK_ERROR;
    uint64_t *remapped = malloc(((size_t)count + 1) * sizeof *remapped);
    if (remapped == NULL)
        return fail(m, "out of memory");
    if (remap_members(m, type, paradigm, count, members, remapped) != 0) {
        free(remapped);
        return OTF2_CALLBACK_ERROR;
    }
    key_start(&key, K_GROUP);
    uint64_t fields[] = {name, type, paradigm, flags, count};
    key_bytes(&key, fields, sizeof fields);
    key_bytes(&key, remapped, (size_t)count * sizeof *remapped);
    OTF2_CallbackCode code = OTF2_CALLBACK_ERROR;
    if (unify(m, K_GROUP, &key, self, &merged, &fresh) == 0)
        code = fresh ? wrote(m, OTF2_GlobalDefWriter_WriteGroup(m->defs, (OTF2_GroupRef)merged, name, type, paradigm,
                                                                flags, count, remapped))
                     : OTF2_CALLBACK_SUCCESS;
    free(remapped);
    return code;
}

/* By hand, as its members are an array of refs. */
static OTF2_CallbackCode def_metric_class(void *user, OTF2_MetricRef self, uint8_t count,
                                          const OTF2_MetricMemberRef *members, OTF2_MetricOccurrence occurrence,
                                          OTF2_RecorderKind recorder)
{
    struct merger *m = user;
    struct key key;
    uint64_t merged;
    int fresh;
    OTF2_MetricMemberRef remapped[256];
    for (unsigned i = 0; i < count; i++)
        if (remap32(m, K_MEMBER, members[i], &remapped[i]) != 0)
            return OTF2_CALLBACK_ERROR;
    key_start(&key, K_METRIC);
    key_u64(&key, occurrence);
    key_u64(&key, recorder);
    key_bytes(&key, remapped, count * sizeof *remapped);
    if (unify(m, K_METRIC, &key, self, &merged, &fresh) != 0)
        return OTF2_CALLBACK_ERROR;
    return fresh ? wrote(m, OTF2_GlobalDefWriter_WriteMetricClass(m->defs, (OTF2_MetricRef)merged, count, remapped,
                                                                  occurrence, recorder))
                 : OTF2_CALLBACK_SUCCESS;
}

/* A metric recorded by one location for a scope: the archive's own; by hand, as the scope's kind of ref varies. */
static OTF2_CallbackCode def_metric_instance(void *user, OTF2_MetricRef self, OTF2_MetricRef metric_class,
                                             OTF2_LocationRef recorder, OTF2_MetricScope scope_kind, uint64_t scope)
{
    struct merger *m = user;
    uint32_t merged = (uint32_t)m->next[K_METRIC];
    int status = remap32(m, K_METRIC, metric_class, &metric_class)
                 | remap(m, K_LOCATION, recorder, OTF2_UNDEFINED_LOCATION, &recorder);
    if (status == 0 && scope_kind == OTF2_SCOPE_LOCATION)
        status = remap(m, K_LOCATION, scope, OTF2_UNDEFINED_LOCATION, &scope);
    else if (status == 0 && scope_kind <= OTF2_SCOPE_GROUP) {
        static const enum kind kinds[] = {[OTF2_SCOPE_LOCATION_GROUP] = K_LOCATION_GROUP,
                                          [OTF2_SCOPE_SYSTEM_TREE_NODE] = K_NODE, [OTF2_SCOPE_GROUP] = K_GROUP};
        status = remap(m, kinds[scope_kind], scope, UINT32_MAX, &scope);
    } else if (status == 0)
        return fail(m, "it has a metric instance of scope %d, which merge does not copy", (int)scope_kind);
    if (status != 0 || map_ref(m, K_METRIC, self, merged) != 0)
        return OTF2_CALLBACK_ERROR;
    m->next[K_METRIC]++;
    m->handled++;
    return wrote(m, OTF2_GlobalDefWriter_WriteMetricInstance(m->defs, merged, metric_class, recorder, scope_kind,
                                                             scope));
}

/* A key starting with `words`: the kind of definition first. */
static void key_begin(struct key *key, const uint64_t *words, size_t count)
{
    key_start(key, (enum kind)words[0]);
    key_bytes(key, words + 1, (count - 1) * sizeof *words);
}

/*
 * How a row of DEFINITIONS gets its merged ref, by its mode: 1 when the
 * definition is to be written, 0 when an equal one already is, -1 on failure.
 */
/* unify, share, first. */
static int unified_ref(struct merger *m, enum kind kind, struct key *key, uint64_t old, uint64_t *merged)
{
    int fresh;
    return unify(m, kind, key, old, merged, &fresh) != 0 ? -1 : fresh;
}

/* own: a new ref, whatever the content; truncated, as the kinds made so have 32-bit refs. */
static int own_ref(struct merger *m, enum kind kind, struct key *key, uint64_t old, uint64_t *merged)
{
    (void)key;
    *merged = (uint32_t)m->next[kind];
    if (map_ref(m, kind, old, *merged) != 0)
        return -1;
    m->next[kind]++;
    m->handled++;
    return 1;
}

/* copy: no ref of its own, so the merged one is never read. */
static int copied_ref(struct merger *m, enum kind kind, struct key *key, uint64_t old, uint64_t *merged)
{
    (void)kind, (void)key, (void)old;
    *merged = 0;
    m->handled++;
    return 1;
}

/*
 * The callback of a row of DEFINITIONS (hand: none, it is written out
 * above).  Its mode says how the merged ref is found, whether the fields
 * join the key, and its own ref as a parameter, as the ref written and as
 * the old ref unify maps.
 */
#define DEFINITION_FUNCTION(function, Name, pass, mode, ...) DEF_##mode(function, Name, __VA_ARGS__)
#define DEF_hand(...)
#define DEF_unify(f, N, T, k, ...) DEF_BODY(f, N, unified_ref, KEYED, (, T self), (, (T)merged), self, k, __VA_ARGS__)
#define DEF_share(f, N, T, k, ...) DEF_BODY(f, N, unified_ref, KEYED, (), (), 0, k, __VA_ARGS__)
#define DEF_first(f, N, T, k, ...) DEF_BODY(f, N, unified_ref, UNKEYED, (), (), 0, k, __VA_ARGS__)
#define DEF_own(f, N, T, k, ...) DEF_BODY(f, N, own_ref, UNKEYED, (, T self), (, (T)merged), self, k, __VA_ARGS__)
#define DEF_copy(f, N, T, k, ...) DEF_BODY(f, N, copied_ref, UNKEYED, (), (), 0, k, __VA_ARGS__)
#define DEF_BODY(function, Name, merged_ref, keys, self_param, self_arg, old, key_words, ...)                    \
    static OTF2_CallbackCode function(void *user UNPACK self_param EACH(FIELD_PARAM, __VA_ARGS__))               \
    {                                                                                                            \
        struct merger *m = user;                                                                                 \
        struct key key;                                                                                          \
        uint64_t merged;                                                                                         \
        if (0 EACH(FIELD_REMAP, __VA_ARGS__))                                                                    \
            return OTF2_CALLBACK_ERROR;                                                                          \
        const uint64_t words[] = {UNPACK key_words};                                                             \
        key_begin(&key, words, sizeof words / sizeof *words);                                                    \
        keys(__VA_ARGS__)                                                                                        \
        int fresh = merged_ref(m, (enum kind)words[0], &key, old, &merged);                                      \
        if (fresh <= 0)                                                                                          \
            return fresh < 0 ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;                                      \
        return wrote(m, OTF2_GlobalDefWriter_Write##Name(m->defs UNPACK self_arg EACH(FIELD_ARG, __VA_ARGS__))); \
    }
DEFINITIONS(DEFINITION_FUNCTION)

/* The definition callbacks of one pass; the reader skips the others, which the count of definitions read then shows. */
static OTF2_GlobalDefReaderCallbacks *definition_callbacks(enum pass pass)
{
    OTF2_GlobalDefReaderCallbacks *c = OTF2_GlobalDefReaderCallbacks_New();
#define REGISTER_DEFINITION(function, Name, row_pass, ...) \
    if (c != NULL && pass == (row_pass))                   \
        OTF2_GlobalDefReaderCallbacks_Set##Name##Callback(c, function);
    DEFINITIONS(REGISTER_DEFINITION)
#undef REGISTER_DEFINITION
    return c;
}

/*
 * Before copying an event: it must be the next of its location (a gap is
 * an event of a kind merge has no callback for, skipped by the reader),
 * and its attributes are remapped into m->attributes.  -1 on failure.
 */
static int event_begin(struct merger *m, OTF2_LocationRef location, uint64_t position, OTF2_AttributeList *list)
{
    if (m->failed)
        return -1;
    if (location != m->old_location)
        return fail(m, "an event of location %" PRIu64 " came while reading location %" PRIu64, location,
                    m->old_location), -1;
    if (position != m->position + 1)
        return fail(m, "event %" PRIu64 " of location %" PRIu64 " is of a kind merge does not copy (MPI, RMA or I/O)",
                    m->position + 1, location), -1;
    m->position = position;
    OTF2_AttributeList_RemoveAllAttributes(m->attributes);
    uint32_t count = list != NULL ? OTF2_AttributeList_GetNumberOfElements(list) : 0;
    for (uint32_t i = 0; i < count; i++) {
        OTF2_AttributeRef attribute;
        OTF2_Type type;
        OTF2_AttributeValue value;
        if (OTF2_AttributeList_GetAttributeByIndex(list, i, &attribute, &type, &value) != OTF2_SUCCESS
            || remap32(m, K_ATTRIBUTE, attribute, &attribute) != 0 || remap_value(m, type, &value) != 0)
            return m->failed ? -1 : (fail(m, "an event's attribute list cannot be read"), -1);
        if (OTF2_AttributeList_AddAttribute(m->attributes, attribute, type, value) != OTF2_SUCCESS)
            return fail(m, "an event has attribute %" PRIu32 " twice", attribute), -1;
    }
    return 0;
}

/* After writing an event: the callback's answer. */
static OTF2_CallbackCode event_end(struct merger *m, OTF2_ErrorCode status)
{
    if (status != OTF2_SUCCESS)
        return otf2_failed(m, "writing the merged events", status), OTF2_CALLBACK_ERROR;
    return OTF2_CALLBACK_SUCCESS;
}

/* The event's time on the merged archive's clock. */
static OTF2_TimeStamp when(const struct merger *m, OTF2_TimeStamp time)
{
    return time + (uint64_t)m->shift;
}

/*
 * The merged id of a lock: a lock is one process's memory, so two archives'
 * lock 0 are two locks, and each archive's locks get ids of their own
 * (numbered as first seen), which keeps every lock's acquisition order rising.
 */
static int lock_id(struct merger *m, OTF2_Paradigm model, uint32_t *lock)
{
    struct key key;
    uint64_t merged;
    key_start(&key, K_LOCK);
    key_u64(&key, (uint64_t)m->input_index);
    key_u64(&key, (uint64_t)model << 32 | *lock);
    if (!table_find(&m->mapped, key_data(&key), key.length, &merged)) {
        if (m->next[K_LOCK] > UINT32_MAX)
            return fail(m, "the archives use more than 2^32 locks"), -1;
        merged = m->next[K_LOCK]++;
        if (table_put(m, &m->mapped, key_data(&key), key.length, merged) != 0)
            return -1;
    }
    *lock = (uint32_t)merged;
    return 0;
}

/*
 * Every event merge copies, all but MPI, RMA, I/O and communicator
 * creation: X(function, Name, mode, fields...), read with
 * OTF2_EvtReaderCallbacks_SetNameCallback and written with
 * OTF2_EvtWriter_Name, its attributes remapped and its time moved onto the
 * merged clock.  mode copy: generated from the fields; hand: `function` is
 * written out below.  The reader gives OTF2 1.x's deprecated Omp* events to
 * the Thread* callbacks.
 */
#define EVENTS(X)                                                                                                  \
    X(evt_enter, Enter, copy, (ref, OTF2_RegionRef, region, K_REGION))                                             \
    X(evt_leave, Leave, copy, (ref, OTF2_RegionRef, region, K_REGION))                                             \
    X(evt_thread_fork, ThreadFork, copy, (id, OTF2_Paradigm, model, _), (id, uint32_t, threads, _))                \
    X(evt_thread_join, ThreadJoin, copy, (id, OTF2_Paradigm, model, _))                                            \
    X(evt_team_begin, ThreadTeamBegin, copy, (ref, OTF2_CommRef, team, K_COMM))                                    \
    X(evt_team_end, ThreadTeamEnd, copy, (ref, OTF2_CommRef, team, K_COMM))                                        \
    X(evt_acquire_lock, ThreadAcquireLock, copy, (id, OTF2_Paradigm, model, _), (lock, uint32_t, lock, model),     \
      (id, uint32_t, order, _))                                                                                    \
    X(evt_release_lock, ThreadReleaseLock, copy, (id, OTF2_Paradigm, model, _), (lock, uint32_t, lock, model),     \
      (id, uint32_t, order, _))                                                                                    \
    X(evt_task_create, ThreadTaskCreate, copy, (ref, OTF2_CommRef, team, K_COMM), (id, uint32_t, creator, _),      \
      (id, uint32_t, generation, _))                                                                               \
    X(evt_task_switch, ThreadTaskSwitch, copy, (ref, OTF2_CommRef, team, K_COMM), (id, uint32_t, creator, _),      \
      (id, uint32_t, generation, _))                                                                               \
    X(evt_task_complete, ThreadTaskComplete, copy, (ref, OTF2_CommRef, team, K_COMM),                              \
      (id, uint32_t, creator, _), (id, uint32_t, generation, _))                                                   \
    X(evt_thread_create, ThreadCreate, copy, (ref, OTF2_CommRef, contingent, K_COMM), (id, uint64_t, sequence, _)) \
    X(evt_thread_begin, ThreadBegin, copy, (ref, OTF2_CommRef, contingent, K_COMM), (id, uint64_t, sequence, _))   \
    X(evt_thread_wait, ThreadWait, copy, (ref, OTF2_CommRef, contingent, K_COMM), (id, uint64_t, sequence, _))     \
    X(evt_thread_end, ThreadEnd, copy, (ref, OTF2_CommRef, contingent, K_COMM), (id, uint64_t, sequence, _))       \
    X(evt_metric, Metric, copy, (ref, OTF2_MetricRef, metric, K_METRIC), (id, uint8_t, count, _),                  \
      (id, const OTF2_Type *, types, _), (id, const OTF2_MetricValue *, values, _))                                \
    X(evt_measurement, MeasurementOnOff, copy, (id, OTF2_MeasurementMode, mode, _))                                \
    X(evt_flush, BufferFlush, copy, (time, OTF2_TimeStamp, stop, _))                                               \
    X(evt_parameter_string, ParameterString, copy, (ref, OTF2_ParameterRef, parameter, K_PARAMETER),               \
      (ref, OTF2_StringRef, string, K_STRING))                                                                     \
    X(evt_parameter_int, ParameterInt, copy, (ref, OTF2_ParameterRef, parameter, K_PARAMETER),                     \
      (id, int64_t, value, _))                                                                                     \
    X(evt_parameter_unsigned, ParameterUnsignedInt, copy, (ref, OTF2_ParameterRef, parameter, K_PARAMETER),        \
      (id, uint64_t, value, _))                                                                                    \
    X(evt_context_enter, CallingContextEnter, copy, (ref, OTF2_CallingContextRef, context, K_CONTEXT),             \
      (id, uint32_t, distance, _))                                                                                 \
    X(evt_context_leave, CallingContextLeave, copy, (ref, OTF2_CallingContextRef, context, K_CONTEXT))             \
    X(evt_context_sample, CallingContextSample, copy, (ref, OTF2_CallingContextRef, context, K_CONTEXT),           \
      (id, uint32_t, distance, _), (ref, OTF2_InterruptGeneratorRef, generator, K_INTERRUPT))                      \
    X(evt_program_begin, ProgramBegin, hand, _)                                                                    \
    X(evt_program_end, ProgramEnd, copy, (id, int64_t, status, _))

/* The callback of a row of EVENTS (hand: none, it is written out below). */
#define EVENT_FUNCTION(function, Name, mode, ...) EVENT_##mode(function, Name, __VA_ARGS__)
#define EVENT_hand(...)
#define EVENT_copy(function, Name, ...)                                                                    \
    static OTF2_CallbackCode function(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position,   \
                                      void *user, OTF2_AttributeList *list EACH(FIELD_PARAM, __VA_ARGS__)) \
    {                                                                                                      \
        struct merger *m = user;                                                                           \
        if (event_begin(m, location, position, list) != 0 EACH(FIELD_REMAP, __VA_ARGS__))                  \
            return OTF2_CALLBACK_ERROR;                                                                    \
        return event_end(m, OTF2_EvtWriter_##Name(m->writer, m->attributes, when(m, time)                  \
                                                  EACH(FIELD_ARG, __VA_ARGS__)));                          \
    }
EVENTS(EVENT_FUNCTION)

/* A program's arguments are an array of string refs, which a field cannot say: remapped into a copy. */
static OTF2_CallbackCode evt_program_begin(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position,
                                           void *user, OTF2_AttributeList *list, OTF2_StringRef name, uint32_t count,
                                           const OTF2_StringRef *arguments)
{
    struct merger *m = user;
    if (event_begin(m, location, position, list) != 0)
        return OTF2_CALLBACK_ERROR;
    OTF2_StringRef *remapped = malloc(((size_t)count + 1) * sizeof *remapped);
    if (remapped == NULL)
        return fail(m, "out of memory");
    int status = remap32(m, K_STRING, name, &name);
    for (uint32_t i = 0; i < count && status == 0; i++)
        status = remap32(m, K_STRING, arguments[i], &remapped[i]);
    OTF2_CallbackCode code = status == 0 ? event_end(m, OTF2_EvtWriter_ProgramBegin(m->writer, m->attributes,
                                                                                    when(m, time), name, count,
                                                                                    remapped))
                                         : OTF2_CALLBACK_ERROR;
    free(remapped);
    return code;
}

/* The event callbacks, one for each row of EVENTS. */
static OTF2_EvtReaderCallbacks *event_callbacks(void)
{
    OTF2_EvtReaderCallbacks *c = OTF2_EvtReaderCallbacks_New();
#define REGISTER_EVENT(function, Name, ...) \
    if (c != NULL)                          \
        OTF2_EvtReaderCallbacks_Set##Name##Callback(c, function);
    EVENTS(REGISTER_EVENT)
#undef REGISTER_EVENT
    return c;
}

/* One archive's clock, from its ClockProperties. */
struct clock {
    int seen;
    uint64_t resolution, offset, length, realtime;
};

static OTF2_CallbackCode read_clock_properties(void *user, uint64_t resolution, uint64_t offset, uint64_t length,
                                               uint64_t realtime)
{
    struct clock *clock = user;
    *clock = (struct clock){1, resolution, offset, length, realtime};
    return OTF2_CALLBACK_SUCCESS;
}

/* An archive opened for reading, its collective operations done in this one process; NULL after a message. */
static OTF2_Reader *open_reader(struct merger *m, const char *anchor)
{
    OTF2_Reader *reader = OTF2_Reader_Open(anchor);
    if (reader == NULL) {
        otf2_failed(m, "it cannot be opened as an OTF2 archive", OTF2_ERROR_INVALID);
        return NULL;
    }
    OTF2_ErrorCode status = OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    if (status != OTF2_SUCCESS) {
        otf2_failed(m, "it cannot be read", status);
        OTF2_Reader_Close(reader);
        return NULL;
    }
    return reader;
}

/* Reads every global definition of `reader` with `callbacks` and `user`; -1 after a message. */
static int read_definitions(struct merger *m, OTF2_Reader *reader, OTF2_GlobalDefReaderCallbacks *callbacks,
                            void *user, uint64_t *count)
{
    OTF2_GlobalDefReader *definitions = OTF2_Reader_GetGlobalDefReader(reader);
    if (definitions == NULL)
        return otf2_failed(m, "its global definitions cannot be read", OTF2_ERROR_INVALID);
    OTF2_ErrorCode status = OTF2_Reader_RegisterGlobalDefCallbacks(reader, definitions, callbacks, user);
    if (status == OTF2_SUCCESS)
        status = OTF2_Reader_ReadAllGlobalDefinitions(reader, definitions, count);
    OTF2_Reader_CloseGlobalDefReader(reader, definitions);
    if (m->failed)
        return -1;
    return status == OTF2_SUCCESS ? 0 : otf2_failed(m, "reading its global definitions", status);
}

/* A chunk size of an input, held to what libotf2 writes, and kept when it is the largest so far. */
static void keep_chunk(uint64_t *largest, uint64_t size)
{
    size = size < OTF2_CHUNK_SIZE_MIN ? OTF2_CHUNK_SIZE_MIN : size > OTF2_CHUNK_SIZE_MAX ? OTF2_CHUNK_SIZE_MAX : size;
    *largest = size > *largest ? size : *largest;
}

/* The first pass over an archive: its clock, and its chunk sizes (any of its records fits in the merged archive's). */
static int read_clock(struct merger *m, const char *anchor, struct clock *clock)
{
    OTF2_Reader *reader = open_reader(m, anchor);
    OTF2_GlobalDefReaderCallbacks *callbacks = OTF2_GlobalDefReaderCallbacks_New();
    uint64_t count, event_chunk, def_chunk;
    int status = reader != NULL && callbacks != NULL ? 0 : -1;
    if (callbacks == NULL && reader != NULL)
        fail(m, "out of memory");
    if (status == 0 && OTF2_Reader_GetChunkSize(reader, &event_chunk, &def_chunk) == OTF2_SUCCESS) {
        keep_chunk(&m->event_chunk, event_chunk);
        keep_chunk(&m->def_chunk, def_chunk);
    }
    if (status == 0) {
        OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks, read_clock_properties);
        status = read_definitions(m, reader, callbacks, clock, &count);
    }
    if (status == 0 && !clock->seen)
        status = (fail(m, "it has no ClockProperties definition"), -1);
    else if (status == 0 && clock->resolution == 0)
        status = (fail(m, "its clock has a resolution of 0 ticks per second"), -1);
    if (callbacks != NULL)
        OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
    if (reader != NULL)
        OTF2_Reader_Close(reader);
    return status;
}

/* Every archive's clock, read before the merged archive is made (a damaged input is refused before that); -1 after a message. */
static int read_clocks(struct merger *m, const char *const *anchors, int count, struct clock *clocks)
{
    int status = 0;
    for (int i = 0; i < count && status == 0; i++) {
        m->input = anchors[i];
        status = read_clock(m, anchors[i], &clocks[i]);
    }
    m->input = NULL;
    return status;
}

/*
 * The merged clock: every archive's timestamps moved onto the real time
 * (nanoseconds since 1970, in ticks) when every archive knows it, so ranks
 * on different hosts line up; else kept as they are (one host's clock).
 * Archives with different resolutions are refused.  Writes ClockProperties.
 */
static int merged_clock(struct merger *m, struct clock *clocks, const char *const *anchors, int count,
                        int64_t *shifts)
{
    int realtime = 1;
    for (int i = 0; i < count; i++) {
        if (clocks[i].resolution != clocks[0].resolution)
            return fail(m, "%s: its clock ticks %" PRIu64 " times a second, %s's %" PRIu64 "; merge takes one resolution",
                        anchors[i], clocks[i].resolution, anchors[0], clocks[0].resolution), -1;
        realtime &= clocks[i].realtime != OTF2_UNDEFINED_TIMESTAMP;
    }
    uint64_t begin = UINT64_MAX, end = 0;
    for (int i = 0; i < count; i++) {
        uint64_t start = clocks[i].offset;
        if (realtime)
            start = (uint64_t)((unsigned __int128)clocks[i].realtime * clocks[0].resolution / 1000000000u);
        shifts[i] = (int64_t)(start - clocks[i].offset);
        begin = start < begin ? start : begin;
        end = start + clocks[i].length > end ? start + clocks[i].length : end;
    }
    uint64_t realtime_ns = realtime ? (uint64_t)((unsigned __int128)begin * 1000000000u / clocks[0].resolution)
                                    : OTF2_UNDEFINED_TIMESTAMP;
    OTF2_ErrorCode status = OTF2_GlobalDefWriter_WriteClockProperties(m->defs, clocks[0].resolution, begin,
                                                                      end > begin ? end - begin : 0, realtime_ns);
    return status == OTF2_SUCCESS ? 0 : otf2_failed(m, "writing the merged clock", status);
}

/* Reads every local definition (mapping tables, clock offsets), which the reader applies to the events; they are optional. */
static void read_local_definitions(struct merger *m, OTF2_Reader *reader)
{
    if (OTF2_Reader_OpenDefFiles(reader) != OTF2_SUCCESS)
        return;
    for (size_t l = 0; l < m->location_count; l++) {
        if (m->locations[l].input != m->input_index)
            continue;
        OTF2_DefReader *definitions = OTF2_Reader_GetDefReader(reader, m->locations[l].old);
        uint64_t count;
        if (definitions == NULL)
            continue;
        OTF2_Reader_ReadAllLocalDefinitions(reader, definitions, &count);
        OTF2_Reader_CloseDefReader(reader, definitions);
    }
    OTF2_Reader_CloseDefFiles(reader);
    m->otf2_message[0] = '\0'; /* what a missing local definition file made libotf2 say */
}

/* Copies the events of one location to its merged location; -1 after a message, also when they are not as many as its definition said. */
static int copy_location(struct merger *m, OTF2_Reader *reader, OTF2_EvtReaderCallbacks *callbacks,
                         const struct location *location)
{
    OTF2_EvtReader *events = OTF2_Reader_GetEvtReader(reader, location->old);
    if (events == NULL)
        return otf2_failed(m, "its events cannot be read", OTF2_ERROR_INVALID);
    m->writer = OTF2_Archive_GetEvtWriter(m->archive, location->self);
    m->position = 0;
    m->old_location = location->old;
    uint64_t read = 0, written = 0;
    OTF2_ErrorCode status = m->writer != NULL ? OTF2_Reader_RegisterEvtCallbacks(reader, events, callbacks, m)
                                              : OTF2_ERROR_INVALID;
    if (status == OTF2_SUCCESS)
        status = OTF2_Reader_ReadAllLocalEvents(reader, events, &read);
    OTF2_Reader_CloseEvtReader(reader, events);
    if (status == OTF2_SUCCESS && m->writer != NULL)
        status = OTF2_EvtWriter_GetNumberOfEvents(m->writer, &written);
    if (m->writer != NULL) {
        OTF2_ErrorCode closed = OTF2_Archive_CloseEvtWriter(m->archive, m->writer);
        status = status == OTF2_SUCCESS ? closed : status;
    }
    m->writer = NULL;
    if (m->failed)
        return -1;
    if (status != OTF2_SUCCESS)
        return otf2_failed(m, "copying its events", status);
    if (read != m->position)
        return fail(m, "location %" PRIu64 " has %" PRIu64 " events of kinds merge does not copy (MPI, RMA or I/O)",
                    location->old, read - m->position), -1;
    if (written != location->events)
        return fail(m, "location %" PRIu64 " has %" PRIu64 " events, its definition says %" PRIu64, location->old,
                    written, location->events), -1;
    return 0;
}

/* Copies the events of the archive's every location. */
static int copy_events(struct merger *m, OTF2_Reader *reader, OTF2_EvtReaderCallbacks *events)
{
    uint64_t locations = 0, defined = 0;
    OTF2_ErrorCode status = OTF2_Reader_GetNumberOfLocations(reader, &locations);
    if (status != OTF2_SUCCESS)
        return otf2_failed(m, "reading its number of locations", status);
    for (size_t l = 0; l < m->location_count && status == OTF2_SUCCESS; l++)
        if (m->locations[l].input == m->input_index) {
            defined++;
            status = OTF2_Reader_SelectLocation(reader, m->locations[l].old);
        }
    if (status != OTF2_SUCCESS)
        return otf2_failed(m, "selecting its locations", status);
    if (locations != defined)
        return fail(m, "its anchor file says %" PRIu64 " locations, its definitions %" PRIu64, locations, defined), -1;
    read_local_definitions(m, reader);
    if ((status = OTF2_Reader_OpenEvtFiles(reader)) != OTF2_SUCCESS)
        return otf2_failed(m, "opening its event files", status);
    int result = 0;
    for (size_t l = 0; l < m->location_count && result == 0; l++)
        if (m->locations[l].input == m->input_index)
            result = copy_location(m, reader, events, &m->locations[l]);
    OTF2_Reader_CloseEvtFiles(reader);
    return result;
}

/* One pass over archive `i`: its definitions of the pass (or, with `events`, its events). */
static int read_archive(struct merger *m, const char *anchor, int i, OTF2_GlobalDefReaderCallbacks *definitions,
                        OTF2_EvtReaderCallbacks *events, uint64_t *handled, uint64_t *count)
{
    m->input = anchor;
    m->input_index = i;
    m->handled = 0;
    OTF2_Reader *reader = open_reader(m, anchor);
    if (reader == NULL)
        return -1;
    int status = events != NULL ? copy_events(m, reader, events) : read_definitions(m, reader, definitions, m, count);
    OTF2_Reader_Close(reader);
    *handled += m->handled;
    return status;
}

/* Every pass over every archive: the clocks, the definitions pass by pass, the events. */
static int merge_archives(struct merger *m, const char *const *anchors, int count, struct clock *clocks)
{
    int64_t *shifts = calloc((size_t)count, sizeof *shifts);
    uint64_t *handled = calloc((size_t)count, sizeof *handled), *defined = calloc((size_t)count, sizeof *defined);
    OTF2_EvtReaderCallbacks *events = event_callbacks();
    int status = shifts != NULL && handled != NULL && defined != NULL && events != NULL
                     ? 0 : (fail(m, "out of memory"), -1);
    if (status == 0)
        status = merged_clock(m, clocks, anchors, count, shifts);
    for (int pass = 0; pass < PASS_COUNT && status == 0; pass++) {
        OTF2_GlobalDefReaderCallbacks *definitions = definition_callbacks((enum pass)pass);
        if (definitions == NULL)
            status = (fail(m, "out of memory"), -1);
        for (int i = 0; i < count && status == 0; i++)
            status = read_archive(m, anchors[i], i, definitions, NULL, &handled[i], &defined[i]);
        if (definitions != NULL)
            OTF2_GlobalDefReaderCallbacks_Delete(definitions);
        if (status == 0 && pass == PASS_COMM_LOCATIONS)
            status = write_comm_locations(m);
    }
    for (int i = 0; i < count && status == 0; i++)
        if (handled[i] != defined[i]) {
            m->input = anchors[i];
            status = (fail(m, "%" PRIu64 " of its %" PRIu64 " definitions are of kinds merge does not copy (MPI, RMA or I/O)",
                           defined[i] - handled[i], defined[i]), -1);
        }
    for (int i = 0; i < count && status == 0; i++) {
        m->shift = shifts[i];
        status = read_archive(m, anchors[i], i, NULL, events, &handled[i], &defined[i]);
    }
    if (events != NULL)
        OTF2_EvtReaderCallbacks_Delete(events);
    free(shifts);
    free(handled);
    free(defined);
    return status;
}

/* The merged archive's buffers are flushed when they fill. */
static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location, void *caller, bool final)
{
    (void)user, (void)type, (void)location, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = NULL};

/* Opens the merged archive for writing, with its global definition writer and open event files. */
static int open_output(struct merger *m, const char *directory, const char *name, int count)
{
    char description[128];
    m->archive = OTF2_Archive_Open(directory, name, OTF2_FILEMODE_WRITE, m->event_chunk, m->def_chunk,
                                   OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (m->archive == NULL)
        return otf2_failed(m, "making the merged archive", OTF2_ERROR_INVALID);
    OTF2_ErrorCode status = OTF2_Archive_SetFlushCallbacks(m->archive, &flush_callbacks, NULL);
    if (status == OTF2_SUCCESS)
        status = OTF2_Archive_SetSerialCollectiveCallbacks(m->archive);
    if (status == OTF2_SUCCESS)
        status = OTF2_Archive_SetCreator(m->archive, "ompcollect merge " PACKAGE_VERSION);
    snprintf(description, sizeof description, "%d OTF2 archives (one per process or MPI rank) merged by ompcollect",
             count);
    if (status == OTF2_SUCCESS)
        status = OTF2_Archive_SetDescription(m->archive, description);
    if (status == OTF2_SUCCESS)
        status = OTF2_Archive_OpenEvtFiles(m->archive);
    if (status != OTF2_SUCCESS)
        return otf2_failed(m, "making the merged archive", status);
    m->defs = OTF2_Archive_GetGlobalDefWriter(m->archive);
    m->attributes = OTF2_AttributeList_New();
    if (m->defs == NULL || m->attributes == NULL)
        return otf2_failed(m, "making the merged archive", OTF2_ERROR_MEM_ALLOC_FAILED);
    return 0;
}

/* Closes the merged archive: every location's (empty) local definitions, as readers expect, and its files. */
static int close_output(struct merger *m)
{
    OTF2_ErrorCode status = OTF2_Archive_CloseEvtFiles(m->archive);
    if (status == OTF2_SUCCESS)
        status = OTF2_Archive_OpenDefFiles(m->archive);
    for (size_t l = 0; l < m->location_count && status == OTF2_SUCCESS; l++) {
        OTF2_DefWriter *writer = OTF2_Archive_GetDefWriter(m->archive, m->locations[l].self);
        status = writer != NULL ? OTF2_Archive_CloseDefWriter(m->archive, writer) : OTF2_ERROR_INVALID;
    }
    if (status == OTF2_SUCCESS)
        status = OTF2_Archive_CloseDefFiles(m->archive);
    if (status == OTF2_SUCCESS)
        status = OTF2_Archive_Close(m->archive);
    m->archive = NULL;
    m->input = NULL;
    return status == OTF2_SUCCESS ? 0 : otf2_failed(m, "closing the merged archive", status);
}

int ompc_otf2_merge(const char *const *anchors, int count, const char *directory, const char *name, char *error,
                    size_t error_size)
{
    struct merger m;
    memset(&m, 0, sizeof m);
    m.error = error;
    m.error_size = error_size;
    if (error_size > 0)
        error[0] = '\0';
    OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(otf2_complaint, &m);
    m.inputs = count;
    struct clock *clocks = calloc((size_t)count, sizeof *clocks);
    int status = clocks != NULL ? read_clocks(&m, anchors, count, clocks) : (fail(&m, "out of memory"), -1);
    if (status == 0)
        status = open_output(&m, directory, name, count);
    if (status == 0)
        status = merge_archives(&m, anchors, count, clocks);
    free(clocks);
    if (status == 0)
        status = close_output(&m);
    if (m.archive != NULL)
        OTF2_Archive_Close(m.archive);
    if (m.attributes != NULL)
        OTF2_AttributeList_Delete(m.attributes);
    OTF2_Error_RegisterCallback(old, NULL);
    table_free(&m, &m.defined);
    table_free(&m, &m.mapped);
    for (size_t i = 0; i < m.comm_count; i++) {
        free(m.comms[i].members);
        free(m.comms[i].offsets);
    }
    free(m.comms);
    free(m.locations);
    return status;
}


/* The anchor file of an archive given as its directory or its anchor; NULL after a message. */
static char *anchor_of(const char *archive, struct stat *identity)
{
    struct stat status;
    char *anchor = NULL;
    if (stat(archive, &status) != 0) {
        ompc_merge_complain("cannot read %s: %s", archive, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(status.st_mode)) {
        if (asprintf(&anchor, "%s/%s.otf2", archive, OMPC_OTF2_NAME) < 0) {
            ompc_merge_complain("out of memory");
            return NULL;
        }
    } else
        anchor = strdup(archive);
    if (anchor == NULL)
        ompc_merge_complain("out of memory");
    else if (stat(anchor, identity) != 0 || !S_ISREG(identity->st_mode)) {
        ompc_merge_complain("%s is not an OTF2 archive (give the directory --trace wrote, holding %s.otf2, or an anchor file)",
                 archive, OMPC_OTF2_NAME);
        free(anchor);
        anchor = NULL;
    }
    return anchor;
}

/* nftw visitor: removes what it is given (depth first, so directories are empty by then). */
static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *where)
{
    (void)info, (void)flag, (void)where;
    remove(path);
    return 0;
}

/* Every archive's anchor, none given twice (by any name); NULL after a message. */
static char **anchors_of(char *const *archives, int count)
{
    char **anchors = calloc((size_t)count + 1, sizeof *anchors);
    struct stat *identities = calloc((size_t)count + 1, sizeof *identities);
    int status = anchors != NULL && identities != NULL ? 0 : (ompc_merge_complain("out of memory"), -1);
    for (int i = 0; i < count && status == 0; i++) {
        anchors[i] = anchor_of(archives[i], &identities[i]);
        status = anchors[i] != NULL ? 0 : -1;
        for (int k = 0; k < i && status == 0; k++)
            if (identities[k].st_dev == identities[i].st_dev && identities[k].st_ino == identities[i].st_ino) {
                ompc_merge_complain("%s and %s are the same OTF2 archive; give each process's archive once", archives[k],
                         archives[i]);
                status = -1;
            }
    }
    free(identities);
    if (status != 0 && anchors != NULL) {
        for (int i = 0; i < count; i++)
            free(anchors[i]);
        free(anchors);
        anchors = NULL;
    }
    return anchors;
}

/* A new private directory next to `final`; NULL after a message.  `final` must not exist, or be an empty directory. */
static char *private_directory(const char *final)
{
    struct stat status;
    char *temp = NULL;
    if (stat(final, &status) == 0 && !S_ISDIR(status.st_mode)) {
        ompc_merge_complain("--trace %s: it exists and is not a directory", final);
        return NULL;
    }
    DIR *existing = opendir(final);
    struct dirent *entry;
    while (existing != NULL && (entry = readdir(existing)) != NULL)
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
            ompc_merge_complain("--trace %s: the directory is not empty; remove it or name another (the merged archive is "
                     "written as a new directory)", final);
            closedir(existing);
            return NULL;
        }
    if (existing != NULL)
        closedir(existing);
    if (asprintf(&temp, "%s.merge-XXXXXX", final) < 0)
        return ompc_merge_complain("out of memory"), NULL;
    if (mkdtemp(temp) == NULL) {
        ompc_merge_complain("--trace %s: cannot make a directory next to it: %s", final, strerror(errno));
        free(temp);
        return NULL;
    }
    return temp;
}

/*
 * Caps this process's address space: a damaged count in an archive can make
 * libotf2 allocate and fill memory without end (an anchor file's property
 * count does), and only a limit turns that into a failed allocation it
 * reports.  The cap is what the process has mapped already plus the
 * bound, so a sanitizer's reserved shadow memory (terabytes, before main)
 * still fits.
 */
static void cap_memory(void)
{
    struct rlimit limit;
    unsigned long long pages = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    if (statm != NULL) {
        if (fscanf(statm, "%llu", &pages) != 1)
            pages = 0;
        fclose(statm);
    }
    long page = sysconf(_SC_PAGESIZE);
    uint64_t cap = (uint64_t)pages * (uint64_t)(page > 0 ? page : 4096) + OMPC_OTF2_MERGE_MAX_ADDRESS_SPACE;
    if (getrlimit(RLIMIT_AS, &limit) != 0)
        return;
    if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > cap) {
        limit.rlim_cur = (rlim_t)cap;
        setrlimit(RLIMIT_AS, &limit);
    }
}

int ompc_otf2_merge_main(const char *directory, char *const *archives, int count)
{
    cap_memory();
    char **anchors = anchors_of(archives, count);
    char *temp = anchors != NULL ? private_directory(directory) : NULL;
    char error[1024];
    int status = temp != NULL ? 0 : 1;
    if (status == 0 && ompc_otf2_merge((const char *const *)anchors, count, temp, OMPC_OTF2_NAME, error,
                                       sizeof error) != 0) {
        ompc_merge_complain("%s", error);
        status = 1;
    }
    if (status == 0) {
        rmdir(directory); /* an empty one, which rename cannot replace with a full one */
        if (rename(temp, directory) != 0) {
            ompc_merge_complain("--trace %s: cannot put the merged archive there: %s", directory, strerror(errno));
            status = 1;
        } else
            fprintf(stderr, "ompcollect: merge: OTF2 archive of %d processes: %s/%s.otf2\n", count, directory,
                    OMPC_OTF2_NAME);
    }
    if (status != 0 && temp != NULL)
        nftw(temp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    for (int i = 0; anchors != NULL && i < count; i++)
        free(anchors[i]);
    free(anchors);
    free(temp);
    return status;
}
