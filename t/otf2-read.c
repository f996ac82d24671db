/* otf2-read.c - reads an ompcollect --trace archive with the OTF2 reader API and checks its structure: Enter/Leave and thread teams balanced and in time order per location, lock acquisitions in order; prints what t/ompcollect-otf2.sh compares with the report. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#define MAX_LOCATIONS 1024
#define MAX_DEPTH 256
#define MAX_STRINGS 65536

/* What the archive holds, and what went wrong in it. */
struct archive {
    char *strings[MAX_STRINGS];
    uint64_t locations;
    uint64_t location_ids[MAX_LOCATIONS];
    uint32_t region_names[MAX_STRINGS];
    OTF2_RegionRole region_roles[MAX_STRINGS];
    uint32_t region_lines[MAX_STRINGS];
    uint64_t regions;
    /* Per location: the open regions and the last time seen. */
    OTF2_RegionRef stack[MAX_LOCATIONS][MAX_DEPTH];
    int depth[MAX_LOCATIONS];
    uint64_t last[MAX_LOCATIONS];
    uint64_t enters, leaves, forks, joins;
    uint64_t entered_state[12];
    /* Per location: the team it is in (depth of team begins), whether it entered a parallel region. */
    int teams[MAX_LOCATIONS];
    int entered_parallel[MAX_LOCATIONS];
    uint64_t team_begins, team_ends, acquisitions, metrics, bad_states;
    uint64_t last_order[MAX_STRINGS]; /* per lock: 1 + the last acquisition order seen */
    uint64_t states_seen[12];
    int errors;
};

static const char *const states[] = {"OVHD", "WORK", "IBAR", "EBAR", "IDLE", "SERIAL",
                                     "REDUC", "LKWT", "CTWT", "ODWT", "ATWT"};

/* Says what is wrong, at most 20 times. */
static void problem(struct archive *archive, const char *fmt, uint64_t a, uint64_t b)
{
    if (archive->errors++ < 20) {
        fputs("error: ", stdout);
        printf(fmt, a, b);
        fputc('\n', stdout);
    }
}

/* The index of a location id among the defined ones, or -1. */
static int location_index(const struct archive *archive, OTF2_LocationRef location)
{
    for (uint64_t i = 0; i < archive->locations; i++)
        if (archive->location_ids[i] == location)
            return (int)i;
    return -1;
}

static OTF2_CallbackCode on_string(void *user, OTF2_StringRef self, const char *string)
{
    struct archive *archive = user;
    if (self < MAX_STRINGS)
        archive->strings[self] = strdup(string);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *user, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events, OTF2_LocationGroupRef group)
{
    struct archive *archive = user;
    (void)name, (void)events, (void)group;
    if (type != OTF2_LOCATION_TYPE_CPU_THREAD)
        problem(archive, "location %" PRIu64 " is not a CPU thread (type %" PRIu64 ")", self, type);
    if (archive->locations < MAX_LOCATIONS)
        archive->location_ids[archive->locations++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *user, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef canonical, OTF2_StringRef description, OTF2_RegionRole role,
                                   OTF2_Paradigm paradigm, OTF2_RegionFlag flags, OTF2_StringRef file,
                                   uint32_t begin, uint32_t end)
{
    struct archive *archive = user;
    (void)canonical, (void)description, (void)paradigm, (void)flags, (void)end;
    if (self < MAX_STRINGS) {
        archive->region_names[self] = name;
        archive->region_roles[self] = role;
        archive->region_lines[self] = file != OTF2_UNDEFINED_STRING ? begin : 0;
        if (self + 1 > archive->regions)
            archive->regions = self + 1;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* Checks time order on a location; returns its index or -1. */
static int event_at(struct archive *archive, OTF2_LocationRef location, OTF2_TimeStamp time)
{
    int index = location_index(archive, location);
    if (index < 0) {
        problem(archive, "event on undefined location %" PRIu64 "%.0" PRIu64, location, 0);
        return -1;
    }
    if (time < archive->last[index])
        problem(archive, "time goes back on location %" PRIu64 " at %" PRIu64, location, time);
    archive->last[index] = time;
    return index;
}

/* The state a region names (1..11), or 0. */
static int region_state(const struct archive *archive, OTF2_RegionRef region)
{
    const char *name = region < archive->regions ? archive->strings[archive->region_names[region]] : NULL;
    for (int s = 0; name != NULL && s < 11; s++)
        if (strcmp(name, states[s]) == 0)
            return s + 1;
    return 0;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                  OTF2_AttributeList *attributes, OTF2_RegionRef region)
{
    struct archive *archive = user;
    (void)attributes;
    int index = event_at(archive, location, time);
    archive->enters++;
    if (region >= archive->regions)
        problem(archive, "enter of undefined region %" PRIu64 " on %" PRIu64, region, location);
    archive->entered_state[region_state(archive, region)]++;
    if (index >= 0 && region < archive->regions && archive->region_roles[region] == OTF2_REGION_ROLE_PARALLEL)
        archive->entered_parallel[index] = 1;
    if (index >= 0 && archive->depth[index] < MAX_DEPTH)
        archive->stack[index][archive->depth[index]++] = region;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                  OTF2_AttributeList *attributes, OTF2_RegionRef region)
{
    struct archive *archive = user;
    (void)attributes;
    int index = event_at(archive, location, time);
    archive->leaves++;
    if (index < 0)
        return OTF2_CALLBACK_SUCCESS;
    if (archive->depth[index] == 0)
        problem(archive, "leave without enter on location %" PRIu64 " at %" PRIu64, location, time);
    else if (archive->stack[index][--archive->depth[index]] != region)
        problem(archive, "leave of region %" PRIu64 " that is not the innermost on %" PRIu64, region, location);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_fork(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                 OTF2_AttributeList *attributes, OTF2_Paradigm model, uint32_t threads)
{
    struct archive *archive = user;
    (void)attributes, (void)threads;
    event_at(archive, location, time);
    if (model != OTF2_PARADIGM_OPENMP)
        problem(archive, "fork of paradigm %" PRIu64 " on %" PRIu64, model, location);
    archive->forks++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_join(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                 OTF2_AttributeList *attributes, OTF2_Paradigm model)
{
    struct archive *archive = user;
    (void)attributes, (void)model;
    event_at(archive, location, time);
    archive->joins++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_team_begin(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                       OTF2_AttributeList *attributes, OTF2_CommRef team)
{
    struct archive *archive = user;
    (void)attributes, (void)team;
    int index = event_at(archive, location, time);
    archive->team_begins++;
    if (index >= 0)
        archive->teams[index]++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_team_end(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                     OTF2_AttributeList *attributes, OTF2_CommRef team)
{
    struct archive *archive = user;
    (void)attributes, (void)team;
    int index = event_at(archive, location, time);
    archive->team_ends++;
    if (index >= 0 && archive->teams[index]-- <= 0)
        problem(archive, "team end without a begin on location %" PRIu64 " at %" PRIu64, location, time);
    return OTF2_CALLBACK_SUCCESS;
}

/* Acquisition orders rise per lock, as OTF2 defines them. */
static OTF2_CallbackCode on_acquire(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                    OTF2_AttributeList *attributes, OTF2_Paradigm model, uint32_t lock,
                                    uint32_t order)
{
    struct archive *archive = user;
    (void)attributes, (void)model;
    event_at(archive, location, time);
    archive->acquisitions++;
    if (lock < MAX_STRINGS) {
        if (order + UINT64_C(1) <= archive->last_order[lock])
            problem(archive, "lock %" PRIu64 " acquisition order goes back at %" PRIu64, lock, time);
        archive->last_order[lock] = order + UINT64_C(1);
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The state metric: one UINT64 value, a state 1..11 or 0. */
static OTF2_CallbackCode on_metric(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                   OTF2_AttributeList *attributes, OTF2_MetricRef metric, uint8_t count,
                                   const OTF2_Type *types, const OTF2_MetricValue *values)
{
    struct archive *archive = user;
    (void)attributes, (void)metric;
    event_at(archive, location, time);
    archive->metrics++;
    if (count != 1 || types[0] != OTF2_TYPE_UINT64 || values[0].unsigned_int > 11)
        archive->bad_states++;
    else
        archive->states_seen[values[0].unsigned_int]++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Every location's events through the global reader, in time order. */
static void read_events(OTF2_Reader *reader, struct archive *archive)
{
    uint64_t read = 0;
    for (uint64_t i = 0; i < archive->locations; i++)
        OTF2_Reader_SelectLocation(reader, archive->location_ids[i]);
    bool def_files = OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(reader);
    for (uint64_t i = 0; i < archive->locations; i++) {
        if (def_files) {
            OTF2_DefReader *local = OTF2_Reader_GetDefReader(reader, archive->location_ids[i]);
            if (local != NULL) {
                uint64_t local_read = 0;
                OTF2_Reader_ReadAllLocalDefinitions(reader, local, &local_read);
                OTF2_Reader_CloseDefReader(reader, local);
            }
        }
        OTF2_Reader_GetEvtReader(reader, archive->location_ids[i]);
    }
    if (def_files)
        OTF2_Reader_CloseDefFiles(reader);
    OTF2_GlobalEvtReader *events = OTF2_Reader_GetGlobalEvtReader(reader);
    OTF2_GlobalEvtReaderCallbacks *event_callbacks = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(event_callbacks, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(event_callbacks, on_leave);
    OTF2_GlobalEvtReaderCallbacks_SetThreadForkCallback(event_callbacks, on_fork);
    OTF2_GlobalEvtReaderCallbacks_SetThreadJoinCallback(event_callbacks, on_join);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTeamBeginCallback(event_callbacks, on_team_begin);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTeamEndCallback(event_callbacks, on_team_end);
    OTF2_GlobalEvtReaderCallbacks_SetThreadAcquireLockCallback(event_callbacks, on_acquire);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(event_callbacks, on_metric);
    OTF2_Reader_RegisterGlobalEvtCallbacks(reader, events, event_callbacks, archive);
    OTF2_GlobalEvtReaderCallbacks_Delete(event_callbacks);
    if (OTF2_Reader_ReadAllGlobalEvents(reader, events, &read) != OTF2_SUCCESS)
        problem(archive, "reading the events failed%.0" PRIu64 "%.0" PRIu64, 0, 0);
    OTF2_Reader_CloseGlobalEvtReader(reader, events);
    OTF2_Reader_CloseEvtFiles(reader);
}

/* Reads ARCHIVE.otf2 and prints one "name value" line per figure; exit 1 on any structural error. */
int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s ARCHIVE.otf2\n", argv[0]);
        return 2;
    }
    static struct archive archive;
    OTF2_Reader *reader = OTF2_Reader_Open(argv[1]);
    if (reader == NULL) {
        printf("error: cannot open %s\n", argv[1]);
        return 1;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    OTF2_GlobalDefReader *defs = OTF2_Reader_GetGlobalDefReader(reader);
    OTF2_GlobalDefReaderCallbacks *def_callbacks = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(def_callbacks, on_string);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(def_callbacks, on_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(def_callbacks, on_region);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, def_callbacks, &archive);
    OTF2_GlobalDefReaderCallbacks_Delete(def_callbacks);
    uint64_t read = 0;
    if (OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &read) != OTF2_SUCCESS)
        problem(&archive, "reading the global definitions failed%.0" PRIu64 "%.0" PRIu64, 0, 0);
    OTF2_Reader_CloseGlobalDefReader(reader, defs);

    /* OTF2's readers (otf2-print) refuse an archive of no location: ompcollect must not write one. */
    if (archive.locations > 0)
        read_events(reader, &archive);
    else
        problem(&archive, "no location definition%.0" PRIu64 "%.0" PRIu64 ": no OTF2 reader opens this archive", 0, 0);

    for (uint64_t i = 0; i < archive.locations; i++)
        if (archive.depth[i] != 0)
            problem(&archive, "location %" PRIu64 " ends with %" PRIu64 " regions open",
                    archive.location_ids[i], (uint64_t)archive.depth[i]);
    uint64_t in_team = 0, entered_parallel = 0;
    for (uint64_t i = 0; i < archive.locations; i++) {
        in_team += archive.teams[i] != 0;
        entered_parallel += archive.entered_parallel[i];
    }
    uint64_t state_regions = 0, parallel_regions = 0, states_entered = 0, artificial = 0, with_line = 0;
    for (uint64_t r = 0; r < archive.regions; r++) {
        state_regions += region_state(&archive, (OTF2_RegionRef)r) != 0;
        parallel_regions += archive.region_roles[r] == OTF2_REGION_ROLE_PARALLEL;
        artificial += archive.region_roles[r] == OTF2_REGION_ROLE_ARTIFICIAL;
        with_line += archive.region_lines[r] != 0;
    }
    uint64_t states_distinct = 0;
    for (int s = 1; s < 12; s++)
        states_distinct += archive.states_seen[s] != 0;
    for (int s = 1; s < 12; s++)
        states_entered += archive.entered_state[s];
    char *dropped = NULL;
    if (OTF2_Reader_GetProperty(reader, "OMPCOLLECT::EVENTS_DROPPED", &dropped) != OTF2_SUCCESS)
        dropped = NULL;
    printf("locations %" PRIu64 "\nenters %" PRIu64 "\nleaves %" PRIu64 "\nforks %" PRIu64
           "\njoins %" PRIu64 "\nstate_regions %" PRIu64 "\nparallel_regions %" PRIu64
           "\nstates_entered %" PRIu64 "\nevents_dropped %s\nartificial_regions %" PRIu64
           "\nregions_with_line %" PRIu64 "\nteam_begins %" PRIu64 "\nteam_ends %" PRIu64
           "\nlocations_left_in_team %" PRIu64 "\nlocations_entering_parallel %" PRIu64 "\nacquisitions %" PRIu64
           "\nstate_metrics %" PRIu64 "\nstates_distinct %" PRIu64 "\nbad_state_metrics %" PRIu64 "\n",
           archive.locations, archive.enters, archive.leaves, archive.forks, archive.joins, state_regions,
           parallel_regions, states_entered, dropped != NULL ? dropped : "none", artificial, with_line,
           archive.team_begins, archive.team_ends, in_team, entered_parallel, archive.acquisitions,
           archive.metrics, states_distinct, archive.bad_states);
    free(dropped);
    OTF2_Reader_Close(reader);
    for (int i = 0; i < MAX_STRINGS; i++)
        free(archive.strings[i]);
    return archive.errors != 0;
}
