/* utf8.c - the one UTF-8 checker of the launcher's writers (JSON strings, SVG text, merge's inputs), by the well-formed byte sequences of Unicode's table 3-7. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "utf8.h"

#include <string.h>

/* Follows table 3-7 of the Unicode standard: the lead byte fixes how many
 * continuation bytes follow and the range of the first of them, which is
 * what excludes overlong forms (E0, F0), surrogates (ED) and code points
 * above U+10FFFF (F4); C0, C1 and F5..FF never lead. */
int ompc_utf8_char(const char *text, size_t left)
{
    const unsigned char *bytes = (const unsigned char *)text;
    unsigned char lead = bytes[0], low = 0x80, high = 0xBF;
    int need;
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF) {
        need = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        need = 2;
        low = lead == 0xE0 ? 0xA0 : 0x80;
        high = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        need = 3;
        low = lead == 0xF0 ? 0x90 : 0x80;
        high = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
        return -1;
    }
    for (int i = 1; i <= need; i++) {
        /* A sequence cut short, or by a byte out of range, is replaced up to
         * (not including) that byte, which starts the next character. */
        if ((size_t)i >= left || bytes[i] < low || bytes[i] > high)
            return -i;
        low = 0x80;
        high = 0xBF;
    }
    return need + 1;
}

size_t ompc_utf8_sanitize(const char *text, size_t length, char *out)
{
    size_t at = 0, written = 0;
    while (at < length) {
        int step = ompc_utf8_char(text + at, length - at);
        const char *from = step > 0 ? text + at : OMPC_UTF8_REPLACEMENT;
        size_t size = step > 0 ? (size_t)step : sizeof OMPC_UTF8_REPLACEMENT - 1;
        if (out != NULL)
            memcpy(out + written, from, size);
        written += size;
        at += step > 0 ? (size_t)step : (size_t)-step;
    }
    return written;
}

int ompc_utf8_valid(const char *text, size_t length)
{
    for (size_t at = 0; at < length;) {
        int step = ompc_utf8_char(text + at, length - at);
        if (step < 0)
            return 0;
        at += (size_t)step;
    }
    return 1;
}
