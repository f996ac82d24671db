/* load_stacks.c - the loader's stack tables and stack copies: the words the agent wrote, read and bounded by load.c, decoded into entries and copies, so nothing after the loader knows their layout. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "grow.h"
#include "load.h"

#include <stdlib.h>
#include <string.h>

/*
 * A stack table's pool of `used` words at record offset `at`, into entries:
 * each a header of OMPC_STACK_ENTRY_WORDS and its frames.  An entry that
 * claims more frames than an entry holds or than the pool has left ends the
 * table there.  Returns -1 when memory runs out (then no entries).
 */
int ompc_load_stack_entries(struct ompc_model_stack_table *table, uint64_t used, uint64_t at)
{
    const uint64_t *words = table->words;
    size_t capacity = 0;
    for (uint64_t i = 0; words != NULL && i + OMPC_STACK_ENTRY_WORDS <= used;) {
        uint64_t key = words[i + 1];
        int frames = (int)((key >> 8) & 0xff);
        if (frames > OMPC_STACK_DEPTH || i + OMPC_STACK_ENTRY_WORDS + (uint64_t)frames > used)
            break;
        if (ompc_grow(&table->entries, table->count + 1, &capacity, sizeof *table->entries) != 0) {
            free(table->entries);
            table->entries = NULL;
            table->count = 0;
            return -1;
        }
        table->entries[table->count++] = (struct ompc_model_stack){
            at + i * sizeof(uint64_t), words[i], (int)(key & 0xff), (int)((key >> 16) & 0xffff), frames,
            words[i + 2], words[i + 3], &words[i + OMPC_STACK_ENTRY_WORDS]};
        i += OMPC_STACK_ENTRY_WORDS + (uint64_t)frames;
    }
    return 0;
}

/*
 * The length of the well-formed copies at the start of `bytes` (used of
 * them): each header whole, its stack bytes a multiple of 8 and at most
 * OMPC_STACK_COPY_MAX past its red zone, within what is used, its red zone
 * a multiple of 8 of at most OMPC_STACK_RED_ZONE within the bytes, and its
 * state a state.
 */
uint64_t ompc_load_good_copies(const unsigned char *bytes, uint64_t used)
{
    uint64_t at = 0;
    while (used - at >= sizeof(struct ompc_stack_copy)) {
        struct ompc_stack_copy copy;
        memcpy(&copy, bytes + at, sizeof copy);
        if (copy.bytes > OMPC_STACK_COPY_MAX + OMPC_STACK_RED_ZONE || copy.bytes % 8 != 0
            || copy.below > OMPC_STACK_RED_ZONE || copy.below % 8 != 0 || copy.below > copy.bytes
            || copy.bytes - copy.below > OMPC_STACK_COPY_MAX || copy.state >= OMPC_NSTATES
            || used - at - sizeof copy < copy.bytes)
            break;
        at += sizeof copy + copy.bytes;
    }
    return at;
}

/* The thread's checked copies (its copy_data up to copy_bytes) as copies; -1 when memory runs out (then none). */
int ompc_load_stack_copies(struct ompc_model_thread *thread)
{
    size_t capacity = 0;
    for (uint64_t at = 0; at < thread->copy_bytes; thread->copy_count++) {
        struct ompc_stack_copy copy;
        memcpy(&copy, thread->copy_data + at, sizeof copy);
        if (ompc_grow(&thread->copies, thread->copy_count + 1, &capacity, sizeof *thread->copies) != 0) {
            free(thread->copies);
            thread->copies = NULL;
            thread->copy_count = 0;
            return -1;
        }
        struct ompc_model_stack_copy *to = &thread->copies[thread->copy_count];
        *to = (struct ompc_model_stack_copy){atomic_load(&copy.count), copy.entry, (int)copy.state, copy.below,
                                             copy.bytes, {0}, thread->copy_data + at + sizeof copy};
        memcpy(to->regs, copy.regs, sizeof to->regs);
        at += sizeof copy + copy.bytes;
    }
    return 0;
}
