/* serial_write.c - where serial code ran, in every format: the text table "Serial code by location", the CSV table "serial_location" and the JSON member "serial_code", from the rows serial.c built. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "demangle.h"
#include "jsonw.h"
#include "paths.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* How many functions the text table shows. */
#define TEXT_ROWS 10

const char *ompc_serial_label(const struct ompc_serial_row *row, char *buffer, size_t size)
{
    /* A function without lines is one place whatever the offset: its module says where it is. */
    if (row->where.kind == OMPC_LOC_SYMBOL) {
        char function[256];
        ompc_short_name(row->where.function != NULL ? row->where.function : "?",
                        OMPC_SHORT_PARAMETERS | OMPC_SHORT_TEMPLATES, function, sizeof function);
        snprintf(buffer, size, "%s (%s)", function, ompc_base_name(row->where.module, "?"));
        return buffer;
    }
    /* Code no symbol names is one row per module: its name says so, [vdso] needs no saying. */
    if (row->where.kind == OMPC_LOC_MODULE) {
        const char *module = ompc_base_name(row->where.module, "?");
        snprintf(buffer, size, module[0] == '[' ? "%s" : "%s (unnamed code)", module);
        return buffer;
    }
    return ompc_location_label(&row->where, row->address, buffer, size);
}

void ompc_serial_text(const struct ompc_serial_places *serial, uint64_t total, FILE *out)
{
    if (!serial->located)
        return;
    fputs("\nSerial code by location (samples in SERIAL by function, at its busiest line; most first):\n", out);
    if (serial->count == 0 && serial->dropped == 0) {
        fputs("  none\n", out);
        return;
    }
    uint64_t all = serial->located_ticks + serial->dropped;
    char label[512];
    if (serial->count > 0)
        fprintf(out, "  %-44s %9s %7s %8s %6s\n", "function at its busiest line", "samples", "% all", "% serial",
                "line");
    for (int i = 0; i < serial->count && i < TEXT_ROWS; i++) {
        const struct ompc_serial_row *row = &serial->rows[i];
        fprintf(out, "  %-44s %9" PRIu64 " %6.1f%% %7.1f%% %5.0f%%\n", ompc_serial_label(row, label, sizeof label),
                row->ticks, total ? 100.0 * (double)row->ticks / (double)total : 0.0,
                all ? 100.0 * (double)row->ticks / (double)all : 0.0,
                row->ticks ? 100.0 * (double)row->line_ticks / (double)row->ticks : 0.0);
    }
    if (serial->count > TEXT_ROWS)
        fprintf(out, "  ... %d more functions\n", serial->count - TEXT_ROWS);
    if (serial->dropped > 0)
        fprintf(out, "  %" PRIu64 " samples not located (past the record's %d code addresses, or no address)\n",
                serial->dropped, OMPC_SERIAL_PLACES);
    fputs("  line = the busiest line's share of its function's samples\n", out);
}

int ompc_serial_csv(const struct ompc_serial_places *serial, struct ompc_csv_tables *tables)
{
    /* A record that did not keep them has no table, rather than an empty one that would read as none. */
    if (!serial->located)
        return 0;
    FILE *out = ompc_csv_begin(tables, "serial_location");
    if (out == NULL)
        return -1;
    fputs("address,function,file,line,module,module_offset,samples,line_samples\n", out);
    for (int i = 0; i < serial->count; i++) {
        const struct ompc_serial_row *row = &serial->rows[i];
        ompc_csv_lead(tables);
        fprintf(out, "0x%" PRIx64 ",", row->address);
        ompc_location_csv(out, &row->where);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 "\n", row->ticks, row->line_ticks);
    }
    if (serial->dropped > 0) {
        ompc_csv_lead(tables);
        fprintf(out, ",(not located),,,,,%" PRIu64 ",\n", serial->dropped);
    }
    return 0;
}

int ompc_serial_json(const struct ompc_serial_places *serial, json_t *report)
{
    if (!serial->located)
        return ompc_json_set(report, "serial_code", json_null());
    json_t *object = json_object(), *rows = json_array();
    int failed = 0;
    for (int i = 0; i < serial->count && !failed; i++) {
        const struct ompc_serial_row *row = &serial->rows[i];
        json_t *entry = json_object();
        int bad = ompc_json_set(entry, "location", ompc_location_json(row->address, &row->where));
        bad |= ompc_json_set(entry, "samples", ompc_json_u64(row->ticks));
        bad |= ompc_json_set(entry, "line_samples", ompc_json_u64(row->line_ticks));
        failed = ompc_json_append(rows, ompc_json_built(entry, bad));
    }
    failed |= ompc_json_set(object, "located_samples", ompc_json_u64(serial->located_ticks));
    failed |= ompc_json_set(object, "not_located", ompc_json_u64(serial->dropped));
    failed |= ompc_json_set(object, "functions", rows);
    return ompc_json_set(report, "serial_code", ompc_json_built(object, failed)) | failed;
}
