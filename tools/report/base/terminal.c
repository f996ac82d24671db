/* terminal.c - text outputs made unable to act on a terminal (terminal.h). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "terminal.h"
#include "utf8.h"

#include <stdlib.h>

/*
 * Whether the character of `length` bytes at `text` (well-formed UTF-8)
 * would act on a terminal rather than show: C0 controls but newline and
 * tab, DEL, C1 controls (U+0080..U+009F, CSI among them), and the bidi
 * embeddings and isolates that reorder what follows (U+202A..U+202E,
 * U+2066..U+2069).
 */
static int acts_on_terminal(const unsigned char *text, int length)
{
    if (length == 1)
        return (text[0] < 0x20 && text[0] != '\n' && text[0] != '\t') || text[0] == 0x7f;
    if (length == 2)
        return text[0] == 0xc2 && text[1] < 0xa0;
    int embedding = text[1] == 0x80 && text[2] >= 0xaa && text[2] <= 0xae;
    int isolate = text[1] == 0x81 && text[2] >= 0xa6 && text[2] <= 0xa9;
    return length == 3 && text[0] == 0xe2 && (embedding || isolate);
}

void ompc_write_terminal_safe(FILE *out, const char *text, size_t size)
{
    for (size_t at = 0; at < size;) {
        int length = ompc_utf8_char(text + at, size - at);
        for (int k = 0; k < -length; k++) { /* bytes of no UTF-8 character: kept, but 8-bit C1 controls */
            unsigned char byte = (unsigned char)text[at++];
            if (byte >= 0x80 && byte < 0xa0)
                fprintf(out, "\\x%02x", byte);
            else
                fputc(byte, out);
        }
        if (length < 0)
            continue;
        const unsigned char *bytes = (const unsigned char *)text + at;
        if (!acts_on_terminal(bytes, length))
            fwrite(bytes, 1, (size_t)length, out);
        else if (length == 1)
            fprintf(out, "\\x%02x", bytes[0]);
        else if (length == 2)
            fprintf(out, "\\u%04x", (unsigned)(bytes[0] & 0x1f) << 6 | (bytes[1] & 0x3f));
        else
            fprintf(out, "\\u%04x",
                    (unsigned)(bytes[0] & 0x0f) << 12 | (unsigned)(bytes[1] & 0x3f) << 6 | (bytes[2] & 0x3f));
        at += (size_t)length;
    }
}

int ompc_terminal_safe_text(FILE *out, int (*write)(FILE *memory, void *arg), void *arg)
{
    char *text = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&text, &size);
    if (memory == NULL)
        return -1;
    int status = write(memory, arg);
    status = fclose(memory) != 0 || status != 0 ? -1 : 0;
    if (status == 0)
        ompc_write_terminal_safe(out, text, size);
    free(text);
    return status != 0 || ferror(out) ? -1 : 0;
}
