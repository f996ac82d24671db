#!/bin/sh
# ompcollect-faults.sh - the launcher against faults of the machine and the job: processes past the record's bound counted once each, a child that ignores SIGTERM named with what ends it, Ctrl-C after the run, a save that fails on a full disk, and -o naming a directory.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
jobs=$top_builddir/t/ompcollect-jobs

echo "1..8"
n=0

# 70 children one after another, each with three regions (three chances to look for a slot): 71 processes
# for 64 slots, so 7 are dropped, each counted once.
"$oc" --runtime "$LIBOMP" -f json -o "$tmp/fork.%p.json" "$jobs" forkmany 70 >"$tmp/fork.out" 2>"$tmp/fork.err"
status=$?
[ $status -eq 0 ] && grep -q "^ompcollect: 7 further processes found no free record slot (limit 64)" "$tmp/fork.err" &&
    python3 - "$tmp"/fork.*.json >"$tmp/fork.check" 2>&1 <<'PY'
import json, sys
dropped = {json.load(open(name))["processes_dropped"] for name in sys.argv[1:]}
assert len(sys.argv) - 1 == 64 and dropped == {7}, (len(sys.argv) - 1, dropped)
PY
result $? "71 processes for 64 record slots: 7 dropped, each counted once (exit $status)" "$tmp/fork.err" \
    "$tmp/fork.check"

# A program that ignores SIGTERM: the launcher passes it on, and when the program stays, says who it is and
# what ends it; SIGKILL to that pid ends the run with its report.
python3 - "$oc" "$LIBOMP" "$jobs" "$tmp" >"$tmp/stubborn.check" 2>&1 <<'PY'
import json, os, re, signal, subprocess, sys, time
oc, libomp, jobs, tmp = sys.argv[1:]
marker, log = tmp + "/stubborn.marker", tmp + "/stubborn.err"
with open(log, "w") as err:
    job = subprocess.Popen([oc, "--runtime", libomp, "-f", "json", "-o", tmp + "/stubborn.json", jobs, "stubborn",
                            marker], stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
deadline = time.monotonic() + 60
def wait_for(found):
    while time.monotonic() < deadline and job.poll() is None:
        value = found()
        if value:
            return value
        time.sleep(0.01)
    return None
def announced():
    try:
        return int(open(marker).read().strip() or 0)
    except (OSError, ValueError):
        return 0
def told():
    return re.search(r"\(pid (\d+)\) still runs .*'kill -KILL (\d+)' ends it", open(log).read())
pid = wait_for(announced)
assert pid, "the program never announced itself"
os.kill(job.pid, signal.SIGTERM)
said = wait_for(told)
if not said:
    job.kill()
assert said, "no word of the program that stays: " + open(log).read()
assert int(said.group(1)) == pid == int(said.group(2)), (said.groups(), pid)
os.kill(pid, signal.SIGKILL)
status = job.wait(timeout=60)
assert status == 137, status
report = json.load(open(tmp + "/stubborn.json"))
assert report["end"]["signal"] == 9, report["end"]
print("ok")
PY
result $? "a program that ignores SIGTERM: named with its pid and 'kill -KILL PID'; then its report is written" \
    "$tmp/stubborn.check" "$tmp/stubborn.err"

# Ctrl-C after the run (here pending when 'ompcollect report' starts, so it meets the first phase): the
# main report is written whole, the other outputs are not begun, and the exit status is 130.
gunzip -c "$top_srcdir/t/golden/solver.ses.gz" >"$tmp/solver.ses"
python3 - "$oc" "$tmp" >"$tmp/int.check" 2>&1 <<'PY'
import os, signal, subprocess, sys
oc, tmp = sys.argv[1:]
def pending():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    os.kill(os.getpid(), signal.SIGINT)
with open(tmp + "/int.err", "w") as err:
    status = subprocess.run([oc, "report", "-o", tmp + "/int.txt", "--timeline=" + tmp + "/int.svg",
                             "--trace-json=" + tmp + "/int.trace.json", tmp + "/solver.ses"],
                            preexec_fn=pending, stderr=err).returncode
said = open(tmp + "/int.err").read()
assert status == 130, (status, said)
assert "interrupted by SIGINT: 2 further outputs" in said, said
assert open(tmp + "/int.txt").read().startswith("ompcollect report:")
assert not os.path.exists(tmp + "/int.svg") and not os.path.exists(tmp + "/int.trace.json")
print("ok")
PY
result $? "Ctrl-C after the run: the main report written, the rest not begun, exit 130, and said" \
    "$tmp/int.check" "$tmp/int.err"

# --save on a full disk (the launcher's file size limit lowered to 16 KiB, under a saved run and over a text report, once the program runs): the save
# fails and says so, the saved run there before stays as it was, no temporary is left; the report stands.
if command -v prlimit >/dev/null 2>&1; then
    mkdir "$tmp/keep" && cp "$tmp/solver.ses" "$tmp/keep/run.ses"
    "$oc" --runtime "$LIBOMP" --save "$tmp/keep/run.ses" -o "$tmp/full.txt" "$jobs" wait "$tmp/full.marker" \
        >/dev/null 2>"$tmp/full.err" &
    launcher=$!
    tries=0
    while [ ! -s "$tmp/full.marker" ] && [ $tries -lt 6000 ] && kill -0 $launcher 2>/dev/null; do
        sleep 0.01
        tries=$((tries + 1))
    done
    prlimit --pid $launcher --fsize=16384 >>"$tmp/full.err" 2>&1 && kill -KILL "$(cat "$tmp/full.marker")"
    wait $launcher
    status=$?
    [ $status -eq 137 ] && grep -q "cannot keep the run in $tmp/keep/run.ses: .*left as it was" "$tmp/full.err" &&
        cmp -s "$tmp/solver.ses" "$tmp/keep/run.ses" && [ "$(ls "$tmp/keep")" = run.ses ] && [ -s "$tmp/full.txt" ]
    result $? "--save on a full disk: said, the earlier save intact, no temporary left (exit $status)" \
        "$tmp/full.err"
else
    skip "--save on a full disk: no prlimit to lower the launcher's file size limit"
fi

# -o naming a directory: refused before the program runs, saying so.
mkdir "$tmp/adir"
run --runtime "$LIBOMP" -o "$tmp/adir" "$jobs" block
[ $status -eq 125 ] && grep -q "^ompcollect: --output $tmp/adir: that is a directory; name a file" "$tmp/err" &&
    [ -z "$(ls "$tmp/adir")" ]
result $? "-o naming a directory: refused with exit 125, saying it is a directory (exit $status)" "$tmp/err"
run --runtime "$LIBOMP" -o /dev/null --timeline="$tmp/adir" "$jobs" block
[ $status -eq 125 ] && grep -q "^ompcollect: --timeline $tmp/adir: that is a directory" "$tmp/err"
result $? "--timeline naming a directory: refused the same way (exit $status)" "$tmp/err"

# The OTF2 archive and the Chrome trace of a run: what ompcollect says it wrote, their readers open.
if command -v otf2-print >/dev/null 2>&1 && "$oc" --help 2>&1 | grep -q -- '--trace='; then
    "$oc" report -o /dev/null --trace="$tmp/solver.otf2" --trace-json="$tmp/solver.trace.json" "$tmp/solver.ses" \
        >"$tmp/read.err" 2>&1 &&
        otf2-print "$tmp/solver.otf2/traces.otf2" >"$tmp/read.out" 2>>"$tmp/read.err" &&
        python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/solver.trace.json" 2>>"$tmp/read.err"
    result $? "the OTF2 archive and the Chrome trace ompcollect wrote are read by otf2-print and python's json" \
        "$tmp/read.err"
else
    skip "no otf2-print, or a build without OTF2"
fi

# A report whose run claims INT64_MAX ns: merge refuses it, naming the member, instead of writing a
# negative runtime.
"$oc" report -f json -o "$tmp/good.json" "$tmp/solver.ses" >"$tmp/range.err" 2>&1 &&
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
r["wall_ns"] = 2**63 - 1
r["pid"] += 1
json.dump(r, open(sys.argv[2], "w"))' "$tmp/good.json" "$tmp/huge.json" 2>>"$tmp/range.err"
"$oc" merge -f json -o "$tmp/merged.json" "$tmp/good.json" "$tmp/huge.json" >>"$tmp/range.err" 2>&1
status=$?
[ $status -ne 0 ] && grep -q '"wall_ns" is 9223372036854775807, out of its range' "$tmp/range.err" &&
    [ ! -e "$tmp/merged.json" ]
result $? "merge of a report with wall_ns INT64_MAX: refused, naming the member (exit $status)" "$tmp/range.err"
