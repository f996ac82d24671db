/* otf2-synth.c - writes a small OTF2 archive holding every definition and event kind ompcollect merge --trace copies (thread teams, locks, tasks, metrics, parameters, calling contexts, attributes of reference type), for t/ompcollect-merge-otf2.sh. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

/* The archive's strings, by ref. */
enum { S_OPENMP, S_HOST, S_NODE, S_PROCESS, S_THREAD0, S_THREAD1, S_MAIN, S_PARALLEL, S_FILE, S_LABEL, S_LABEL_TEXT,
       S_WHERE, S_TEAM, S_ALL, S_METRIC, S_UNIT, S_PARAMETER, S_PROPERTY, S_SAMPLER, S_COUNT };

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location, void *caller, bool final)
{
    (void)user, (void)type, (void)location, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = NULL};

/* Exits with a message when a libotf2 call failed. */
static void check(OTF2_ErrorCode status, const char *what)
{
    if (status != OTF2_SUCCESS) {
        fprintf(stderr, "otf2-synth: %s: %s\n", what, OTF2_Error_GetDescription(status));
        exit(1);
    }
}

/* Every event kind once or more on one location, the attribute `label` (a string ref) on some. */
static void write_events(OTF2_EvtWriter *w, OTF2_AttributeList *attributes, uint64_t t, int initial)
{
    OTF2_AttributeValue value = {.stringRef = S_LABEL_TEXT};
    OTF2_Type types[1] = {OTF2_TYPE_UINT64};
    OTF2_MetricValue values[1] = {{.unsigned_int = 42}};
    OTF2_StringRef arguments[1] = {S_LABEL_TEXT};
    if (initial)
        check(OTF2_EvtWriter_ProgramBegin(w, NULL, t++, S_MAIN, 1, arguments), "ProgramBegin");
    check(OTF2_AttributeList_AddAttribute(attributes, 0, OTF2_TYPE_STRING, value), "attribute");
    check(OTF2_EvtWriter_Enter(w, attributes, t++, 0), "Enter");
    check(OTF2_EvtWriter_ThreadFork(w, NULL, t++, OTF2_PARADIGM_OPENMP, 2), "ThreadFork");
    check(OTF2_EvtWriter_ThreadTeamBegin(w, NULL, t++, 0), "ThreadTeamBegin");
    check(OTF2_AttributeList_AddAttribute(attributes, 1, OTF2_TYPE_REGION, (OTF2_AttributeValue){.regionRef = 1}),
          "attribute");
    check(OTF2_EvtWriter_Enter(w, attributes, t++, 1), "Enter");
    check(OTF2_EvtWriter_ThreadAcquireLock(w, NULL, t++, OTF2_PARADIGM_OPENMP, 7, 1), "ThreadAcquireLock");
    check(OTF2_EvtWriter_ThreadReleaseLock(w, NULL, t++, OTF2_PARADIGM_OPENMP, 7, 1), "ThreadReleaseLock");
    check(OTF2_EvtWriter_ThreadTaskCreate(w, NULL, t++, 0, 0, 1), "ThreadTaskCreate");
    check(OTF2_EvtWriter_ThreadTaskSwitch(w, NULL, t++, 0, 0, 1), "ThreadTaskSwitch");
    check(OTF2_EvtWriter_ThreadTaskComplete(w, NULL, t++, 0, 0, 1), "ThreadTaskComplete");
    check(OTF2_EvtWriter_Metric(w, NULL, t++, 1, 1, types, values), "Metric");
    check(OTF2_EvtWriter_ParameterInt(w, NULL, t++, 0, -3), "ParameterInt");
    check(OTF2_EvtWriter_ParameterUnsignedInt(w, NULL, t++, 0, 3), "ParameterUnsignedInt");
    check(OTF2_EvtWriter_ParameterString(w, NULL, t++, 0, S_LABEL_TEXT), "ParameterString");
    check(OTF2_EvtWriter_CallingContextEnter(w, NULL, t++, 0, 1), "CallingContextEnter");
    check(OTF2_EvtWriter_CallingContextSample(w, NULL, t++, 0, 1, 0), "CallingContextSample");
    check(OTF2_EvtWriter_CallingContextLeave(w, NULL, t++, 0), "CallingContextLeave");
    check(OTF2_EvtWriter_MeasurementOnOff(w, NULL, t++, OTF2_MEASUREMENT_ON), "MeasurementOnOff");
    check(OTF2_EvtWriter_ThreadCreate(w, NULL, t++, 1, 5), "ThreadCreate");
    check(OTF2_EvtWriter_ThreadBegin(w, NULL, t++, 1, 5), "ThreadBegin");
    check(OTF2_EvtWriter_ThreadEnd(w, NULL, t++, 1, 5), "ThreadEnd");
    check(OTF2_EvtWriter_ThreadWait(w, NULL, t++, 1, 5), "ThreadWait");
    check(OTF2_EvtWriter_Leave(w, NULL, t++, 1), "Leave");
    check(OTF2_EvtWriter_ThreadTeamEnd(w, NULL, t++, 0), "ThreadTeamEnd");
    check(OTF2_EvtWriter_ThreadJoin(w, NULL, t++, OTF2_PARADIGM_OPENMP), "ThreadJoin");
    check(OTF2_EvtWriter_Leave(w, NULL, t++, 0), "Leave");
    if (initial)
        check(OTF2_EvtWriter_ProgramEnd(w, NULL, t++, 0), "ProgramEnd");
}

/* The strings, with this archive's own process name and label. */
static void write_strings(OTF2_GlobalDefWriter *d, const char *label)
{
    char process[128], text[128];
    snprintf(process, sizeof process, "synth (%s)", label);
    snprintf(text, sizeof text, "label of %s", label);
    const char *strings[S_COUNT] = {"OpenMP", "host", "node", process, "thread 0", "thread 1", "main", "parallel",
                                    "synth.c", "label", text, "where", "team", "all threads", "cycles", "#",
                                    "size", "cores", "sampler"};
    for (int i = 0; i < S_COUNT; i++)
        check(OTF2_GlobalDefWriter_WriteString(d, (OTF2_StringRef)i, strings[i]), "String");
}

/* Every definition kind merge copies; `offset` is the clock's start. */
static void write_definitions(OTF2_GlobalDefWriter *d, const char *label, uint64_t offset, const uint64_t *events)
{
    OTF2_AttributeValue cores = {.uint32 = 4};
    uint64_t all[2] = {0, 1}, team[2] = {0, 1};
    OTF2_MetricMemberRef members[1] = {0};
    check(OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000u, offset, 1000, OTF2_UNDEFINED_TIMESTAMP), "Clock");
    write_strings(d, label);
    check(OTF2_GlobalDefWriter_WriteParadigm(d, OTF2_PARADIGM_OPENMP, S_OPENMP, OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN),
          "Paradigm");
    check(OTF2_GlobalDefWriter_WriteAttribute(d, 0, S_LABEL, S_LABEL, OTF2_TYPE_STRING), "Attribute");
    check(OTF2_GlobalDefWriter_WriteAttribute(d, 1, S_WHERE, S_WHERE, OTF2_TYPE_REGION), "Attribute");
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, S_HOST, S_NODE, OTF2_UNDEFINED_SYSTEM_TREE_NODE), "Node");
    check(OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(d, 0, S_PROPERTY, OTF2_TYPE_UINT32, cores), "NodeProperty");
    check(OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(d, 0, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY), "NodeDomain");
    check(OTF2_GlobalDefWriter_WriteLocationGroup(d, 0, S_PROCESS, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                  OTF2_UNDEFINED_LOCATION_GROUP), "LocationGroup");
    check(OTF2_GlobalDefWriter_WriteLocationGroupProperty(d, 0, S_PROPERTY, OTF2_TYPE_UINT32, cores), "GroupProperty");
    for (int l = 0; l < 2; l++)
        check(OTF2_GlobalDefWriter_WriteLocation(d, (OTF2_LocationRef)l, S_THREAD0 + l, OTF2_LOCATION_TYPE_CPU_THREAD,
                                                 events[l], 0), "Location");
    check(OTF2_GlobalDefWriter_WriteLocationProperty(d, 1, S_PROPERTY, OTF2_TYPE_UINT32, cores), "LocationProperty");
    check(OTF2_GlobalDefWriter_WriteRegion(d, 0, S_MAIN, S_MAIN, S_MAIN, OTF2_REGION_ROLE_FUNCTION,
                                           OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, S_FILE, 3, 9), "Region");
    check(OTF2_GlobalDefWriter_WriteRegion(d, 1, S_PARALLEL, S_PARALLEL, S_PARALLEL, OTF2_REGION_ROLE_PARALLEL,
                                           OTF2_PARADIGM_OPENMP, OTF2_REGION_FLAG_NONE, S_FILE, 5, 7), "Region");
    check(OTF2_GlobalDefWriter_WriteSourceCodeLocation(d, 0, S_FILE, 5), "SourceCodeLocation");
    check(OTF2_GlobalDefWriter_WriteCallingContext(d, 0, 1, 0, OTF2_UNDEFINED_CALLING_CONTEXT), "CallingContext");
    check(OTF2_GlobalDefWriter_WriteCallingContextProperty(d, 0, S_PROPERTY, OTF2_TYPE_UINT32, cores),
          "CallingContextProperty");
    check(OTF2_GlobalDefWriter_WriteInterruptGenerator(d, 0, S_SAMPLER, OTF2_INTERRUPT_GENERATOR_MODE_TIME,
                                                       OTF2_BASE_DECIMAL, -3, 1), "InterruptGenerator");
    check(OTF2_GlobalDefWriter_WriteGroup(d, 0, S_ALL, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP,
                                          OTF2_GROUP_FLAG_NONE, 2, all), "Group");
    check(OTF2_GlobalDefWriter_WriteGroup(d, 1, S_TEAM, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                          OTF2_GROUP_FLAG_NONE, 2, team), "Group");
    check(OTF2_GlobalDefWriter_WriteComm(d, 0, S_TEAM, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "Comm");
    check(OTF2_GlobalDefWriter_WriteComm(d, 1, S_ALL, 1, 0, OTF2_COMM_FLAG_NONE), "Comm");
    check(OTF2_GlobalDefWriter_WriteMetricMember(d, 0, S_METRIC, S_METRIC, OTF2_METRIC_TYPE_OTHER,
                                                 OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0,
                                                 S_UNIT), "MetricMember");
    check(OTF2_GlobalDefWriter_WriteMetricClass(d, 0, 1, members, OTF2_METRIC_SYNCHRONOUS_STRICT,
                                                OTF2_RECORDER_KIND_CPU), "MetricClass");
    check(OTF2_GlobalDefWriter_WriteMetricInstance(d, 1, 0, 0, OTF2_SCOPE_LOCATION_GROUP, 0), "MetricInstance");
    check(OTF2_GlobalDefWriter_WriteMetricClassRecorder(d, 0, 0), "MetricClassRecorder");
    check(OTF2_GlobalDefWriter_WriteParameter(d, 0, S_PARAMETER, OTF2_PARAMETER_TYPE_INT64), "Parameter");
}

/* otf2-synth DIR LABEL OFFSET: the archive DIR/traces.otf2, LABEL naming its process, its clock starting at OFFSET. */
int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: otf2-synth DIR LABEL OFFSET\n");
        return 2;
    }
    uint64_t offset = strtoull(argv[3], NULL, 10), events[2];
    OTF2_Archive *archive = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == NULL)
        return 1;
    check(OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL), "flush callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "collective callbacks");
    check(OTF2_Archive_OpenEvtFiles(archive), "event files");
    OTF2_AttributeList *attributes = OTF2_AttributeList_New();
    for (int l = 0; l < 2; l++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, (OTF2_LocationRef)l);
        write_events(w, attributes, offset + 10 + (uint64_t)l, l == 0);
        check(OTF2_EvtWriter_GetNumberOfEvents(w, &events[l]), "events");
        check(OTF2_Archive_CloseEvtWriter(archive, w), "event writer");
    }
    check(OTF2_Archive_CloseEvtFiles(archive), "event files");
    check(OTF2_Archive_OpenDefFiles(archive), "definition files");
    for (int l = 0; l < 2; l++)
        check(OTF2_Archive_CloseDefWriter(archive, OTF2_Archive_GetDefWriter(archive, (OTF2_LocationRef)l)),
              "definition writer");
    check(OTF2_Archive_CloseDefFiles(archive), "definition files");
    write_definitions(OTF2_Archive_GetGlobalDefWriter(archive), argv[2], offset, events);
    OTF2_AttributeList_Delete(attributes);
    check(OTF2_Archive_Close(archive), "closing");
    return 0;
}
