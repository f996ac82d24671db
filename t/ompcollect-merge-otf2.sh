#!/bin/sh
# ompcollect-merge-otf2.sh - merge --trace: the OTF2 archives of two processes (two runs, and two MPI ranks when mpirun works) become one archive otf2-print reads, with one location group per process, every event of both, and each definition once; duplicate, damaged and hostile archives are refused with one line, never a crash.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
locks=$top_builddir/examples/locks
hybrid=$top_builddir/examples/hybrid$EXEEXT
reader=$top_builddir/t/otf2-read
synth=$top_builddir/t/otf2-synth

if "$oc" --help | grep -q 'built without OTF2'; then
    echo "1..0 # SKIP this ompcollect was built without OTF2"
    exit 0
fi
if ! command -v otf2-print >/dev/null 2>&1; then
    echo "1..0 # SKIP otf2-print is not installed (Debian: otf2-tools)"
    exit 0
fi

echo "1..16"
n=0
result_lines="head -n 40"

# Two processes of one program, each with its own archive (what each rank of a job writes).
for i in 1 2; do
    run --runtime "$LIBOMP" --trace "$tmp/tr$i" "$locks" 0.2
    if [ $status -ne 0 ] || ! [ -f "$tmp/tr$i/traces.otf2" ]; then
        echo "Bail out! examples/locks wrote no OTF2 archive (status $status): $(head -n 3 "$tmp/err" | tr '\n' ' ')"
        exit 1
    fi
done

# printed ARCHIVE: otf2-print's listing of ARCHIVE's events (and its messages) in $listing, made once
# per archive (each otf2-print costs about a CPU-second whatever the archive's size); its status.
printed() {
    listing="$tmp/printed.$(printf %s "${1#"$tmp"/}" | tr / _)"
    [ -f "$listing" ] && return 0
    otf2-print "$1" >"$listing.part" 2>&1 && mv "$listing.part" "$listing"
}
# events ARCHIVE: how many records of each kind otf2-print shows (events and their attribute lines).
events() {
    printed "$1" && awk '$1 ~ /^[A-Z][A-Z_0-9]+$/ && $1 != "ADDITIONAL" {n[$1]++} $1 == "ADDITIONAL" {n["ATTRIBUTES"]++}
        END {for (k in n) printf "%7d %s\n", n[k], k}' "$listing" | sort -k2
}
# definitions ARCHIVE KIND: the global definitions of KIND otf2-print -G shows.
definitions() {
    otf2-print -G "$1" | grep "^$2 "
}
# merged_as_sum OUT ARCHIVE...: OUT's events, kind by kind, are the sums of the ARCHIVEs'.
merged_as_sum() {
    out=$1
    shift
    for archive in "$@"; do events "$archive/traces.otf2"; done \
        | awk '{sum[$2] += $1} END {for (k in sum) print sum[k], k}' | sort -k2 >"$tmp/expected"
    events "$out/traces.otf2" | awk '{print $1, $2}' | sort -k2 >"$tmp/got"
    [ -s "$tmp/got" ] && diff "$tmp/expected" "$tmp/got" >"$tmp/diff"
}

"$oc" merge --trace="$tmp/job" "$tmp/tr1" "$tmp/tr2" >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 0 ] && [ -f "$tmp/job/traces.otf2" ] && { printed "$tmp/job/traces.otf2" || cat "$listing.part" >>"$tmp/err"; } \
    && grep -q "^ompcollect: merge: OTF2 archive of 2 processes: $tmp/job/traces.otf2\$" "$tmp/err" \
    && [ -z "$(ls -d "$tmp"/job.merge-* 2>/dev/null)" ]
result $? "merge --trace=DIR of two archives: DIR/traces.otf2, which otf2-print reads (exit $status)" "$tmp/err"
merged_as_sum "$tmp/job" "$tmp/tr1" "$tmp/tr2"
result $? "every event of both archives is in the merged one: each kind's count is the sum of theirs" \
    "$tmp/diff" "$tmp/got"
definitions "$tmp/job/traces.otf2" LOCATION_GROUP >"$tmp/groups"
[ "$(wc -l <"$tmp/groups")" -eq 2 ] && [ "$(grep -o '(pid [0-9]*)' "$tmp/groups" | sort -u | wc -l)" -eq 2 ] \
    && [ "$(definitions "$tmp/job/traces.otf2" LOCATION | wc -l)" -eq \
         "$(($(definitions "$tmp/tr1/traces.otf2" LOCATION | wc -l) + $(definitions "$tmp/tr2/traces.otf2" LOCATION | wc -l)))" ]
result $? "one location group (process) per archive, each with its own pid, and every archive's locations" \
    "$tmp/groups"
otf2-print -G "$tmp/job/traces.otf2" >"$tmp/defs" 2>&1
! grep -q 'warning' "$tmp/defs" && [ "$(grep -c '^CLOCK_PROPERTIES ' "$tmp/defs")" -eq 1 ] && [ "$(grep -c '^SYSTEM_TREE_NODE ' "$tmp/defs")" -eq 1 ] \
    && [ -z "$(grep '^STRING ' "$tmp/defs" | sed 's/^STRING *[0-9]* *//' | sort | uniq -d)" ] \
    && [ -z "$(grep '^REGION ' "$tmp/defs" | sed 's/^REGION *[0-9]* *//' | sort | uniq -d)" ] \
    && [ "$(grep -c '^REGION ' "$tmp/defs")" -ge "$(definitions "$tmp/tr1/traces.otf2" REGION | wc -l)" ]
result $? "one clock and one node (both ran here); every string and region defined once, each before its use" \
    "$tmp/defs"
env -u LD_PRELOAD "$reader" "$tmp/job/traces.otf2" >"$tmp/read" 2>&1 \
    && grep -q "^locations $(definitions "$tmp/job/traces.otf2" LOCATION | wc -l)\$" "$tmp/read"
result $? "the OTF2 reader API reads it: every location's Enter and Leave balanced and in time order" "$tmp/read"

# Every record kind merge copies (what a newer --trace may write): thread teams, locks, tasks,
# metrics, parameters, calling contexts, attributes that name a string or a region.
env -u LD_PRELOAD "$synth" "$tmp/sa" rank-a 1000 && env -u LD_PRELOAD "$synth" "$tmp/sb" rank-b 5000 \
    && "$oc" merge --trace="$tmp/sjob" "$tmp/sa" "$tmp/sb" >"$tmp/out" 2>"$tmp/err" \
    && merged_as_sum "$tmp/sjob" "$tmp/sa" "$tmp/sb" \
    && [ "$(wc -l <"$tmp/got")" -ge 25 ]
result $? "two archives of every event kind: each kind's count in the merged one is the sum of theirs" \
    "$tmp/err" "$tmp/diff" "$tmp/got"
otf2-print -G "$tmp/sjob/traces.otf2" >"$tmp/sdefs" 2>&1
! grep -q 'warning' "$tmp/sdefs" \
    && grep -q '^GROUP  *0  Name: "all threads" <[0-9]*>, Type: COMM_LOCATIONS, .* 4 Members: "thread 0" <0>, "thread 1" <1>, "thread 0" <2>, "thread 1" <3>$' "$tmp/sdefs" \
    && grep -q '^GROUP .*Type: COMM_GROUP, .*2 Members: 2 ("thread 0" <2>), 3 ("thread 1" <3>)$' "$tmp/sdefs" \
    && [ "$(grep -c '^COMM ' "$tmp/sdefs")" -eq 4 ] && [ "$(grep -c '^METRIC_MEMBER ' "$tmp/sdefs")" -eq 1 ] \
    && [ "$(grep -c '^METRIC_INSTANCE ' "$tmp/sdefs")" -eq 2 ]
result $? "one COMM_LOCATIONS group of both archives' threads, each archive's team indexing its own part; teams and metric instances per archive, metric members once" \
    "$tmp/sdefs"
printed "$tmp/sjob/traces.otf2"
cp "$listing"* "$tmp/sevents"
grep -q '^PROGRAM_BEGIN  *2 .*Argument: "label of rank-b"' "$tmp/sevents" \
    && grep -q '("label" <0>; STRING; "label of rank-b" <[0-9]*>)' "$tmp/sevents" \
    && grep -q '^THREAD_TASK_CREATE  *2 .*Creating Thread: 0 ("thread 0" <2>)' "$tmp/sevents" \
    && ! grep -q 'warning\|INVALID' "$tmp/sevents"
result $? "the second archive's events keep their own strings, attributes and creating threads, remapped" \
    "$tmp/sevents"

# Any record of an input fits in the merged archive's chunks: they are the
# largest of the inputs' (otf2-synth's libotf2 defaults, ompcollect's 256 KB).
chunks() {
    otf2-print -A "$1/traces.otf2" | awk '/^Chunk size (events|definitions)/ {printf "%s ", $4}'
}
[ "$(chunks "$tmp/sjob")" = "1048576 4194304 " ] && [ "$(chunks "$tmp/job")" = "262144 262144 " ] \
    && [ "$(chunks "$tmp/tr1")" = "262144 262144 " ]
result $? "the merged archive's chunk sizes are the largest of its inputs' ($(chunks "$tmp/sjob")and $(chunks "$tmp/job"))"

# What merge refuses: one archive twice, an output directory in use, damaged archives.
"$oc" merge --trace="$tmp/twice" "$tmp/tr1" "$tmp/tr2" "$tmp/tr1/traces.otf2" >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'tr1 and .*tr1/traces.otf2 are the same OTF2 archive' "$tmp/err" \
    && ! [ -e "$tmp/twice" ]
result $? "the same archive twice (as its directory and its anchor) is refused (exit $status)" "$tmp/err"
(cd "$tmp/job" && find . -type f | sort | xargs cksum) >"$tmp/job.before"
"$oc" merge --trace="$tmp/job" "$tmp/tr1" "$tmp/tr2" >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 1 ] && grep -q 'the directory is not empty' "$tmp/err" \
    && (cd "$tmp/job" && find . -type f | sort | xargs cksum) | cmp -s "$tmp/job.before" -
result $? "an output directory that is not empty is refused and left alone (exit $status)" "$tmp/err"
cp -r "$tmp/tr2" "$tmp/cut"
head -c 200 "$tmp/tr2/traces.def" >"$tmp/cut/traces.def"
"$oc" merge --trace="$tmp/cutjob" "$tmp/tr1" "$tmp/cut" >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^ompcollect: merge: .*cut/traces.otf2: reading its global definitions: ' "$tmp/err" \
    && [ -z "$(ls -d "$tmp"/cutjob* 2>/dev/null)" ]
result $? "an archive whose definitions are cut short: one line naming it, nothing left behind (exit $status)" "$tmp/err"
mkdir "$tmp/plain"
"$oc" merge --trace="$tmp/plainjob" "$tmp/tr1" "$tmp/plain" >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 1 ] && grep -q 'plain is not an OTF2 archive' "$tmp/err"
result $? "a directory without an archive is refused (exit $status)" "$tmp/err"
# An anchor whose description runs into the property count: libotf2 then
# reads a count of about a billion properties from the text after it and
# asks for 20 GB, which the merge's address-space cap turns into a refusal.
cp -r "$tmp/tr1" "$tmp/huge"
python3 - "$tmp/huge/traces.otf2" <<'EOF'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[data.index(b"Collector API\0") + len(b"Collector API")] = ord("!")
open(sys.argv[1], "wb").write(data)
EOF
"$oc" merge --trace="$tmp/hugejob" "$tmp/tr2" "$tmp/huge" >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^ompcollect: merge: .*huge/traces.otf2: ' "$tmp/err" \
    && [ -z "$(ls -d "$tmp"/hugejob* 2>/dev/null)" ]
result $? "an anchor file whose property count reads as about a billion: refused with one line naming it (exit $status)" "$tmp/err"
# Damaged copies: bytes changed, cut or inserted in each file of an archive, 40 ways (seeded).
python3 - "$tmp" "$oc" >"$tmp/damage" 2>&1 <<'EOF'
import os, random, shutil, subprocess, sys
tmp, oc = sys.argv[1], sys.argv[2]
files = ["traces.otf2", "traces.def", "traces/0.evt", "traces/0.def"]
bad = 0
for seed in range(40):
    rng = random.Random(seed)
    shutil.rmtree(tmp + "/dmg", ignore_errors=True)
    shutil.rmtree(tmp + "/dmgjob", ignore_errors=True)
    shutil.copytree(tmp + "/tr1", tmp + "/dmg")
    name = tmp + "/dmg/" + files[seed % len(files)]
    data = bytearray(open(name, "rb").read())
    how = rng.randrange(3)
    if how == 0 and data:
        for _ in range(rng.randrange(1, 10)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif how == 1:
        data = data[:rng.randrange(len(data) + 1)]
    else:
        at = rng.randrange(len(data) + 1)
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
    open(name, "wb").write(data)
    try:
        r = subprocess.run([oc, "merge", "--trace=" + tmp + "/dmgjob", tmp + "/tr2", tmp + "/dmg"],
                           capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        print("seed %d (%s): no answer in 60 s" % (seed, name))
        bad += 1
        continue
    lines = r.stderr.decode("utf-8", "replace").splitlines()
    if r.returncode not in (0, 1) or len(lines) != 1 or (r.returncode == 1 and "dmg/traces.otf2" not in lines[0]
                                                          and "dmg is not" not in lines[0]):
        print("seed %d (%s): exit %d, %r" % (seed, name, r.returncode, lines[:3]))
        bad += 1
print("%d of 40 damaged archives answered wrongly" % bad)
sys.exit(1 if bad else 0)
EOF
result $? "40 damaged copies of an archive: each merged or refused with one line naming it, no crash or hang" "$tmp/damage"

# Real ranks: mpirun -np 2 ompcollect --trace=tr.%r, merged into one archive of the job.
if ! [ -x "$hybrid" ] || ! command -v "${MPIRUN:-mpirun}" >/dev/null 2>&1; then
    skip "no examples/hybrid or no mpirun to record two MPI ranks with" 1 "two MPI ranks"
    exit 0
fi
mpi_flags
mkdir "$tmp/mpi"
(cd "$tmp/mpi" && $limit "${MPIRUN:-mpirun}" -np 2 $flags "$oc" --runtime "$LIBOMP" -o /dev/null --trace='tr.%r' \
    "$hybrid" 0.2 >"$tmp/mpi.out" 2>"$tmp/mpi.err")
if ! [ -f "$tmp/mpi/tr.0/traces.otf2" ] || ! [ -f "$tmp/mpi/tr.1/traces.otf2" ]; then
    skip "mpirun -np 2 could not record examples/hybrid here: $(head -n 2 "$tmp/mpi.err" | tr '\n' ' ')" 1 "two MPI ranks"
    exit 0
fi
"$oc" merge --trace="$tmp/mpi/job" "$tmp/mpi/tr.0" "$tmp/mpi/tr.1" >"$tmp/out" 2>"$tmp/err" \
    && merged_as_sum "$tmp/mpi/job" "$tmp/mpi/tr.0" "$tmp/mpi/tr.1" \
    && definitions "$tmp/mpi/job/traces.otf2" LOCATION_GROUP >"$tmp/groups" \
    && [ "$(wc -l <"$tmp/groups")" -eq 2 ] && grep -q 'rank 0)' "$tmp/groups" && grep -q 'rank 1)' "$tmp/groups"
result $? "two MPI ranks' archives: one archive of the job, a location group per rank, every event of both" \
    "$tmp/err" "$tmp/groups" "$tmp/diff"
