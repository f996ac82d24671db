/* taskgraph_write.c - writes the task graph (taskgraph.h) of a process as Graphviz DOT or as JSON: one node per task, or past the bound one per task construct and creation depth. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "jsonw.h"
#include "locations.h"
#include "report.h"
#include "sections.h"
#include "sort.h"
#include "symbolize.h"
#include "taskgraph.h"
#include "writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A task construct's name, by code address. */
struct construct_label {
    uint64_t codeptr;
    char text[256];
};

/*
 * The graph as drawn: its nodes are tasks, or groups of them (one per task
 * construct and creation depth) when there are more than
 * OMPC_TASK_GRAPH_NODES; node_of maps a task to its node.
 */
struct drawing {
    const struct ompc_report *report;
    const struct ompc_model_process *process;
    struct ompc_task_graph graph;
    struct construct_label *labels;
    size_t label_count;
    int aggregated;
    size_t *node_of;              /* per task */
    size_t *node_first;           /* per node: a task of it (its own, when not aggregated) */
    uint64_t *node_tasks, *node_own_ns, *node_typical_ns;
    int *node_on_path;
    size_t node_count;
};

/* Every task construct the tasks name, sorted and labelled once. */
static int make_labels(struct drawing *drawing)
{
    size_t count = drawing->graph.count;
    uint64_t *codeptrs = malloc((count + 1) * sizeof *codeptrs);
    if (codeptrs == NULL)
        return -1;
    for (size_t i = 0; i < count; i++)
        codeptrs[i] = drawing->process->tasks[i].codeptr;
    ompc_qsort(codeptrs, count, sizeof *codeptrs, ompc_compare_u64);
    size_t unique = 0;
    for (size_t i = 0; i < count; i++)
        if (unique == 0 || codeptrs[unique - 1] != codeptrs[i])
            codeptrs[unique++] = codeptrs[i];
    drawing->labels = calloc(unique + 1, sizeof *drawing->labels);
    struct ompc_symbolizer *symbolizer = ompc_model_symbolizer(drawing->process, NULL);
    for (size_t i = 0; drawing->labels != NULL && i < unique; i++) {
        struct ompc_location where;
        ompc_symbolize(symbolizer, codeptrs[i], OMPC_ADDRESS_CODEPTR, &where);
        drawing->labels[i].codeptr = codeptrs[i];
        ompc_location_label(&where, codeptrs[i], drawing->labels[i].text, sizeof drawing->labels[i].text);
    }
    ompc_symbolizer_free(symbolizer);
    free(codeptrs);
    drawing->label_count = unique;
    return drawing->labels != NULL ? 0 : -1;
}

static const char *label_of(const struct drawing *drawing, uint64_t codeptr)
{
    size_t low = 0, high = drawing->label_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (drawing->labels[middle].codeptr < codeptr)
            low = middle + 1;
        else
            high = middle;
    }
    return low < drawing->label_count && drawing->labels[low].codeptr == codeptr ? drawing->labels[low].text
                                                                                  : "(unknown)";
}

/* A task's key when aggregated: its construct, then its depth. */
struct group_key {
    uint64_t codeptr;
    uint32_t depth;
    size_t task;
};

static int compare_keys(const void *a, const void *b)
{
    const struct group_key *x = a, *y = b;
    if (x->codeptr != y->codeptr)
        return x->codeptr < y->codeptr ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return (x->task > y->task) - (x->task < y->task);
}

/* The node of each task: itself, or past the bound its construct and depth's group. */
static int make_nodes(struct drawing *drawing)
{
    size_t count = drawing->graph.count;
    struct group_key *keys = malloc((count + 1) * sizeof *keys);
    drawing->node_of = malloc((count + 1) * sizeof *drawing->node_of);
    drawing->node_first = malloc((count + 1) * sizeof *drawing->node_first);
    drawing->node_tasks = calloc(count + 1, sizeof *drawing->node_tasks);
    drawing->node_own_ns = calloc(count + 1, sizeof *drawing->node_own_ns);
    drawing->node_typical_ns = calloc(count + 1, sizeof *drawing->node_typical_ns);
    drawing->node_on_path = calloc(count + 1, sizeof *drawing->node_on_path);
    if (keys == NULL || drawing->node_of == NULL || drawing->node_first == NULL || drawing->node_tasks == NULL
        || drawing->node_own_ns == NULL || drawing->node_typical_ns == NULL || drawing->node_on_path == NULL) {
        free(keys);
        return -1;
    }
    drawing->aggregated = count > OMPC_TASK_GRAPH_NODES;
    for (size_t i = 0; i < count; i++)
        keys[i] = (struct group_key){drawing->aggregated ? drawing->process->tasks[i].codeptr : 0,
                                     drawing->aggregated ? drawing->graph.tasks[i].depth : 0, i};
    if (drawing->aggregated)
        ompc_qsort(keys, count, sizeof *keys, compare_keys);
    for (size_t k = 0; k < count; k++) {
        int fresh = !drawing->aggregated || k == 0 || keys[k].codeptr != keys[k - 1].codeptr
                    || keys[k].depth != keys[k - 1].depth;
        if (fresh)
            drawing->node_first[drawing->node_count++] = keys[k].task;
        size_t node = drawing->node_count - 1, task = keys[k].task;
        drawing->node_of[task] = node;
        drawing->node_tasks[node]++;
        drawing->node_own_ns[node] += drawing->graph.tasks[task].own_ns;
        drawing->node_typical_ns[node] += drawing->graph.tasks[task].typical_ns;
        drawing->node_on_path[node] |= drawing->graph.tasks[task].on_path;
    }
    free(keys);
    return 0;
}

static void drawing_free(struct drawing *drawing)
{
    ompc_task_graph_free(&drawing->graph);
    free(drawing->labels);
    free(drawing->node_of);
    free(drawing->node_first);
    free(drawing->node_tasks);
    free(drawing->node_own_ns);
    free(drawing->node_typical_ns);
    free(drawing->node_on_path);
}

static int drawing_make(struct drawing *drawing, const struct ompc_report *report)
{
    *drawing = (struct drawing){.report = report, .process = report->process};
    if (ompc_task_graph_build(report->process, &drawing->graph) != 0 || make_labels(drawing) != 0
        || make_nodes(drawing) != 0) {
        drawing_free(drawing);
        return -1;
    }
    return 0;
}

/* One edge between nodes, and how many task edges it stands for. */
struct node_edge {
    size_t from, to;
    uint64_t count;
};

static int compare_edges(const void *a, const void *b)
{
    const struct node_edge *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return (x->to > y->to) - (x->to < y->to);
}

/* The kinds of edge the graph files draw. */
enum edge_kind { EDGE_CREATE, EDGE_JOIN, EDGE_DEPEND };

/*
 * The edges of one kind between nodes, one per pair of nodes with their
 * count: creation parent -> child, join parent <- child (from is the
 * parent's node), dependence source -> sink; NULL without memory.
 */
static struct node_edge *node_edges(const struct drawing *drawing, enum edge_kind kind, size_t *count)
{
    const struct ompc_task_graph *graph = &drawing->graph;
    size_t most = kind == EDGE_DEPEND ? graph->dependence_count : graph->count;
    struct node_edge *edges = malloc((most + 1) * sizeof *edges);
    if (edges == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; kind == EDGE_DEPEND && i < graph->dependence_count; i++)
        edges[n++] = (struct node_edge){drawing->node_of[graph->dependences[i].source],
                                        drawing->node_of[graph->dependences[i].sink], 1};
    for (size_t i = 0; kind != EDGE_DEPEND && i < graph->count; i++) {
        const struct ompc_graph_task *task = &graph->tasks[i];
        if (task->parent < 0 || (kind == EDGE_JOIN && !task->joined))
            continue;
        edges[n++] = (struct node_edge){drawing->node_of[task->parent], drawing->node_of[i], 1};
    }
    ompc_qsort(edges, n, sizeof *edges, compare_edges);
    size_t unique = 0;
    for (size_t i = 0; i < n; i++) {
        if (unique > 0 && edges[unique - 1].from == edges[i].from && edges[unique - 1].to == edges[i].to)
            edges[unique - 1].count++;
        else
            edges[unique++] = edges[i];
    }
    *count = unique;
    return edges;
}

/* `text` as a DOT string, quoted. */
static void dot_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (; *text != '\0'; text++) {
        if (*text == '\n') {
            fputs("\\n", out);
            continue;
        }
        if (*text == '"' || *text == '\\')
            fputc('\\', out);
        fputc(*text, out);
    }
    fputc('"', out);
}

/* A node's name in DOT and JSON: t<task id>, or g<group> when aggregated. */
static const char *node_name(const struct drawing *drawing, size_t node, char *buffer, size_t size)
{
    if (drawing->aggregated)
        snprintf(buffer, size, "g%zu", node + 1);
    else
        snprintf(buffer, size, "t%" PRIu64, drawing->process->tasks[drawing->node_first[node]].id);
    return buffer;
}

/* What a node's box says: its construct, then the task and its own time, or the group's. */
static const char *node_text(const struct drawing *drawing, size_t node, char *buffer, size_t size)
{
    size_t task = drawing->node_first[node];
    const char *construct = label_of(drawing, drawing->process->tasks[task].codeptr);
    int used;
    if (drawing->aggregated)
        used = snprintf(buffer, size, "%s\ndepth %" PRIu32 ": %" PRIu64 " tasks, %.3f ms", construct,
                        drawing->graph.tasks[task].depth, drawing->node_tasks[node], drawing->node_own_ns[node] / 1e6);
    else
        used = snprintf(buffer, size, "%s\ntask %" PRIu64 ": %.3f ms", construct, drawing->process->tasks[task].id,
                        drawing->node_own_ns[node] / 1e6);
    /* The span counts the typical time: said where it is not the measured one at the box's precision (us). */
    if (used > 0 && (size_t)used < size
        && (drawing->node_typical_ns[node] + 500) / 1000 != (drawing->node_own_ns[node] + 500) / 1000)
        snprintf(buffer + used, size - (size_t)used, " (typical %.3f)", drawing->node_typical_ns[node] / 1e6);
    return buffer;
}

/* The sentence every graph output begins with. */
static const char *graph_summary(const struct drawing *drawing, char *buffer, size_t size)
{
    const struct ompc_task_graph *graph = &drawing->graph;
    int used = snprintf(buffer, size,
                        "%s (pid %ld): %zu tasks, work %.3f ms, span %.3f ms, parallelism %.1f, critical path %zu tasks",
                        drawing->report->program != NULL ? drawing->report->program : "?",
                        (long)drawing->process->pid, graph->count, graph->work_ns / 1e6, graph->span_ns / 1e6,
                        ompc_task_graph_parallelism(graph), graph->path_length);
    if (used > 0 && (size_t)used < size)
        used += ompc_task_graph_partial(graph)
                    ? snprintf(buffer + used, size - (size_t)used,
                               "; of %s%" PRIu64 " tasks created only these %zu (%.1f%%) were logged: the event log "
                               "ran full, and the figures are of those",
                               graph->created_exact ? "" : "at least ", graph->created, graph->count,
                               graph->created != 0 ? 100.0 * (double)graph->count / (double)graph->created : 100.0)
                    : snprintf(buffer + used, size - (size_t)used, ", every task the run created");
    if (used > 0 && (size_t)used < size)
        used += snprintf(buffer + used, size - (size_t)used,
                         "; longest measured path %.3f ms: outliers %zu of its %zu tasks, %.3f ms past their typical "
                         "time",
                         graph->measured_span_ns / 1e6, graph->measured_outliers, graph->measured_path_length,
                         graph->measured_excess_ns / 1e6);
    if (drawing->aggregated && used > 0 && (size_t)used < size)
        snprintf(buffer + used, size - (size_t)used,
                 "; %zu tasks are more than the %d drawn one by one: one node per task construct and creation "
                 "depth", graph->count, OMPC_TASK_GRAPH_NODES);
    return buffer;
}

/* The edges of one kind in DOT: creation parent -> child, join child -> the parent's join node, dependence source -> sink. */
static int dot_edges(FILE *out, const struct drawing *drawing, enum edge_kind kind)
{
    size_t count = 0;
    struct node_edge *edges = node_edges(drawing, kind, &count);
    if (edges == NULL)
        return -1;
    char from[32], to[32];
    int attributes = kind != EDGE_CREATE || drawing->aggregated;
    for (size_t i = 0; i < count; i++) {
        node_name(drawing, edges[i].from, from, sizeof from);
        node_name(drawing, edges[i].to, to, sizeof to);
        if (kind == EDGE_CREATE) {
            fprintf(out, "  %s -> %s%s", from, to, attributes ? " [" : "");
        } else if (kind == EDGE_DEPEND) {
            fprintf(out, "  %s -> %s [style=dotted, color=blue", from, to);
        } else {
            if (i == 0 || edges[i - 1].from != edges[i].from)
                fprintf(out, "  j%s [shape=circle, label=\"join\", fontsize=8];\n  %s -> j%s [style=bold];\n", from,
                        from, from);
            fprintf(out, "  %s -> j%s [style=dashed", to, from);
        }
        if (drawing->aggregated)
            fprintf(out, "%slabel=\"%" PRIu64 "\"", kind != EDGE_CREATE ? ", " : "", edges[i].count);
        fputs(attributes ? "];\n" : ";\n", out);
    }
    free(edges);
    return 0;
}

static int write_dot(const struct drawing *drawing, FILE *out)
{
    char text[1024], name[32];
    fprintf(out, "// ompcollect --task-graph: tasks are boxes (construct, task id, own time), arrows from a task to\n"
                 "// those it created; a join circle is where its creator completes after them (ompcollect(1), TASK GRAPH).\n"
                 "// Dotted blue arrows are dependences from depend clauses; the critical path is red.\n"
                 "digraph tasks {\n  graph [labelloc=t, label=");
    dot_string(out, graph_summary(drawing, text, sizeof text));
    fputs("];\n  node [shape=box, fontsize=10];\n", out);
    for (size_t node = 0; node < drawing->node_count; node++) {
        fprintf(out, "  %s [label=", node_name(drawing, node, name, sizeof name));
        dot_string(out, node_text(drawing, node, text, sizeof text));
        fputs(drawing->node_on_path[node] ? ", color=red, penwidth=2];\n" : "];\n", out);
    }
    if (dot_edges(out, drawing, EDGE_CREATE) != 0 || dot_edges(out, drawing, EDGE_JOIN) != 0
        || dot_edges(out, drawing, EDGE_DEPEND) != 0)
        return -1;
    fputs("}\n", out);
    return ferror(out) ? -1 : 0;
}

int ompc_task_graph_dot_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    struct drawing drawing;
    if (drawing_make(&drawing, view->process) != 0)
        return -1;
    int status = write_dot(&drawing, sink->out);
    drawing_free(&drawing);
    return status;
}

/* One node as a JSON object. */
static json_t *json_node(const struct drawing *drawing, size_t node)
{
    char name[32];
    size_t first = drawing->node_first[node];
    const struct ompc_model_task *task = &drawing->process->tasks[first];
    const struct ompc_graph_task *own = &drawing->graph.tasks[first];
    json_t *object = json_object();
    int failed = ompc_json_set(object, "id", json_string(node_name(drawing, node, name, sizeof name)));
    failed |= ompc_json_set(object, "construct", ompc_json_string(label_of(drawing, task->codeptr)));
    failed |= ompc_json_set(object, "codeptr", ompc_json_hex(task->codeptr, 0));
    failed |= ompc_json_set(object, "depth", json_integer(own->depth));
    failed |= ompc_json_set(object, "tasks", ompc_json_u64(drawing->node_tasks[node]));
    failed |= ompc_json_set(object, "own_ns", ompc_json_u64(drawing->node_own_ns[node]));
    failed |= ompc_json_set(object, "typical_ns", ompc_json_u64(drawing->node_typical_ns[node]));
    failed |= ompc_json_set(object, "on_critical_path", json_boolean(drawing->node_on_path[node]));
    if (!drawing->aggregated) {
        failed |= ompc_json_set(object, "task", ompc_json_u64(task->id));
        failed |= ompc_json_set(object, "children", json_integer(own->children));
        failed |= ompc_json_set(object, "class_size", json_integer(own->class_size));
        failed |= ompc_json_set(object, "start_path_ns", ompc_json_u64(own->start_path));
        failed |= ompc_json_set(object, "end_path_ns", ompc_json_u64(own->end_path));
    }
    return ompc_json_built(object, failed);
}

/* The edges of one kind as JSON objects appended to `array`: creation parent -> child, join child -> parent, dependence source -> sink. */
static int json_edges(const struct drawing *drawing, enum edge_kind kind, json_t *array)
{
    static const char *const names[] = {[EDGE_CREATE] = "create", [EDGE_JOIN] = "join", [EDGE_DEPEND] = "depend"};
    int joins = kind == EDGE_JOIN;
    size_t count = 0;
    struct node_edge *edges = node_edges(drawing, kind, &count);
    if (edges == NULL)
        return -1;
    char from[32], to[32];
    int failed = 0;
    for (size_t i = 0; i < count && !failed; i++) {
        node_name(drawing, edges[i].from, from, sizeof from);
        node_name(drawing, edges[i].to, to, sizeof to);
        json_t *edge = json_object();
        failed = ompc_json_set(edge, "from", json_string(joins ? to : from));
        failed |= ompc_json_set(edge, "to", json_string(joins ? from : to));
        failed |= ompc_json_set(edge, "kind", json_string(names[kind]));
        failed |= ompc_json_set(edge, "count", ompc_json_u64(edges[i].count));
        failed |= ompc_json_append(array, ompc_json_built(edge, failed));
    }
    free(edges);
    return failed ? -1 : 0;
}

static json_t *json_graph(const struct drawing *drawing)
{
    const struct ompc_task_graph *graph = &drawing->graph;
    char text[1024];
    json_t *object = json_object(), *nodes = json_array(), *edges = json_array(), *path = json_array();
    int failed = nodes == NULL || edges == NULL || path == NULL;
    for (size_t node = 0; node < drawing->node_count && !failed; node++)
        failed = ompc_json_append(nodes, json_node(drawing, node));
    for (size_t i = 0; i < graph->path_length && !failed; i++)
        failed = ompc_json_append(path, ompc_json_u64(drawing->process->tasks[graph->path[i]].id));
    failed |= json_edges(drawing, EDGE_CREATE, edges) | json_edges(drawing, EDGE_JOIN, edges)
              | json_edges(drawing, EDGE_DEPEND, edges);
    failed |= ompc_json_set(object, "summary", ompc_json_string(graph_summary(drawing, text, sizeof text)));
    failed |= ompc_json_set(object, "pid", json_integer(drawing->process->pid));
    failed |= ompc_json_set(object, "tasks", ompc_json_u64(graph->count));
    failed |= ompc_json_set(object, "created_tasks", ompc_json_u64(graph->created));
    failed |= ompc_json_set(object, "created_exact", json_boolean(graph->created_exact));
    failed |= ompc_json_set(object, "complete", json_boolean(!ompc_task_graph_partial(graph)));
    failed |= ompc_json_set(object, "node_bound", json_integer(OMPC_TASK_GRAPH_NODES));
    failed |= ompc_json_set(object, "aggregated", json_boolean(drawing->aggregated));
    failed |= ompc_json_set(object, "work_ns", ompc_json_u64(graph->work_ns));
    failed |= ompc_json_set(object, "span_ns", ompc_json_u64(graph->span_ns));
    failed |= ompc_json_set(object, "parallelism", ompc_json_fixed(ompc_task_graph_parallelism(graph), 2));
    failed |= ompc_task_graph_json_measured(graph, object);
    failed |= ompc_json_set(object, "critical_path", path);
    failed |= ompc_json_set(object, "nodes", nodes);
    failed |= ompc_json_set(object, "edges", edges);
    return ompc_json_built(object, failed);
}

int ompc_task_graph_json_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    struct drawing drawing;
    if (drawing_make(&drawing, view->process) != 0)
        return -1;
    json_t *value = json_graph(&drawing);
    int status = ompc_json_dump(value, sink->out, OMPC_JSON_READABLE);
    if (status == 0 && fputc('\n', sink->out) == EOF)
        status = -1;
    json_decref(value);
    drawing_free(&drawing);
    return status;
}
