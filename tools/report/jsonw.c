/* jsonw.c - the one JSON string writer of the launcher: escapes exactly as the reports always did, and never lets a byte that is not UTF-8 through. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "jsonw.h"
#include "utf8.h"

#include <string.h>

/*
 * The escapes are the reports' since their first version ("\u000a", not
 * "\n"; '/' and non-ASCII unescaped), so output for well-formed text is
 * byte for byte what it was.  jansson is not used to encode because it
 * writes "\n" and "\u001B"; t/jsonw-t.c parses the output back with
 * jansson instead, to hold this writer to the grammar.
 */
void ompc_json_text(FILE *out, const char *text, size_t length)
{
    size_t at = 0, plain = 0;
    fputc('"', out);
    while (at < length) {
        unsigned char c = (unsigned char)text[at];
        int step = ompc_utf8_char(text + at, length - at);
        if (step > 0 && c != '"' && c != '\\' && c >= 0x20) {
            at += (size_t)step;
            continue;
        }
        /* Plain bytes go out in one piece up to the one that needs care. */
        if (at > plain)
            fwrite(text + plain, 1, at - plain, out);
        if (step < 0)
            fputs(OMPC_UTF8_REPLACEMENT, out);
        else if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else
            fprintf(out, "\\u%04x", c);
        at += step > 0 ? (size_t)step : (size_t)-step;
        plain = at;
    }
    if (at > plain)
        fwrite(text + plain, 1, at - plain, out);
    fputc('"', out);
}

void ompc_json_string(FILE *out, const char *text)
{
    ompc_json_text(out, text, text != NULL ? strlen(text) : 0);
}

void ompc_json_string_or_null(FILE *out, const char *text)
{
    if (text == NULL)
        fputs("null", out);
    else
        ompc_json_text(out, text, strlen(text));
}
