/* bounds_write.c - the limits a run reached as JSON, the same in the report and the trace. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "jsonw.h"

#include <stdio.h>

json_t *ompc_limits_json(const struct ompc_limit *limits, int count)
{
    json_t *array = json_array();
    int failed = 0;
    for (int i = 0; i < count && !failed; i++) {
        json_t *entry = json_object();
        int bad = ompc_json_set(entry, "what", json_string(limits[i].what));
        bad |= ompc_json_set(entry, "count", ompc_json_u64(limits[i].count));
        bad |= ompc_json_set(entry, "bound", ompc_json_u64(limits[i].bound));
        bad |= ompc_json_set(entry, "text", ompc_json_string(limits[i].text));
        failed |= ompc_json_append(array, ompc_json_built(entry, bad));
    }
    return ompc_json_built(array, failed);
}
