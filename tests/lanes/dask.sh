#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/lanes/dask.sh - examples/dask_strip.py on a real Dask cluster on this
# machine: a `dask scheduler` on a free local port and two `dask worker`
# processes (one thread each), the example run over the corpus
# (../shared/corpus, else fixtures/; HS_TEST_DUMPS=K takes K of them, as
# the C suites do) and one corrupt dump made here. Every output must be the
# CLI's bytes for the same dump and options, every report the CLI's
# --stats-file report (wall times, the output's name and the error's
# message apart), the corrupt dump's failure reported with the CLI's status
# and offset while the others are done, both workers must have run tasks,
# and everything started here must be gone at the end. Then the example's
# LocalCluster (no scheduler given) on two fixtures, and on workers that
# cannot load the library (every task failed, LibraryNotFound). Needs
# python3-distributed: without it the suite is skipped, visibly (a failure
# under CI=true).
# Usage: sh tests/lanes/dask.sh ./hprof-strip   (from the top of the tree)
set -u
BIN=${1:-./hprof-strip}
NAME=dask
. "$(dirname "$0")/../lib.sh"
cd "$TESTS/.."
TOP=$(pwd)
PY=${PYTHON:-/usr/bin/python3}
LIBSO=${HPROFSTRIP_LIBRARY:-build/libhprofstrip.so}
PRESET=privacy

if ! "$PY" -c 'import distributed' 2>/dev/null; then
    if [ "${CI:-}" = true ]; then
        bad "$PY has no Dask distributed (python3-distributed), which CI must have"
    else
        skip=$((skip + 1))
        echo "skipped: dask (needs python3-distributed)"
    fi
    finish
    exit
fi
[ -x "$BIN" ] && ok || { bad "$BIN is not built"; finish; exit; }
[ -e "$LIBSO" ] && ok || { bad "$LIBSO is not built (make lib)"; finish; exit; }
LIBSO=$(cd "$(dirname "$LIBSO")" && pwd)/$(basename "$LIBSO")

# Debian 12's python3-distributed has `dask scheduler`; older ones only
# dask-scheduler; the module always
if command -v dask >/dev/null 2>&1 && dask scheduler --help >/dev/null 2>&1; then
    SCHEDULER="dask scheduler" WORKER="dask worker"
elif command -v dask-scheduler >/dev/null 2>&1; then
    SCHEDULER=dask-scheduler WORKER=dask-worker
else
    SCHEDULER="$PY -m distributed.cli.dask_scheduler" WORKER="$PY -m distributed.cli.dask_worker"
fi

# Everything started here names $T on its command line (the scheduler's
# file, the workers' directories): how the end checks none is left.
PIDS=""
stop_all() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$p" 2>/dev/null
    done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    PIDS=""
}
trap 'stop_all; rm -rf "$T"' EXIT

# ---- the dumps -----------------------------------------------------------
mkdir "$T/in" "$T/cli" "$T/out"
if have_shared ../shared/corpus "the shared corpus's dumps"; then
    ls ../shared/corpus/*.hprof ../shared/corpus/*.hprof.gz ../shared/corpus/*.hprof.zst \
        2>/dev/null >"$T/all"
else
    ls fixtures/*.hprof fixtures/*.hprof.gz fixtures/*.hprof.zst 2>/dev/null >"$T/all"
fi
n=$(wc -l <"$T/all")
k=${HS_TEST_DUMPS:-0}
if [ "$k" -gt 0 ] && [ "$k" -lt "$n" ]; then
    # K consecutive dumps of the list from a start the seed and this
    # suite's name pick (tests/unit/helpers.c sample_dumps)
    h=$(( ${HS_TEST_SEED:-0} ^ $(echo dask | cksum | cut -d' ' -f1) ))
    awk -v h="$h" -v k="$k" -v n="$n" '{ a[NR - 1] = $0 }
        END { for (i = 0; i < k; i++) print a[(h + i) % n] }' "$T/all" >"$T/list"
    echo "HS_TEST_DUMPS=$k: $k of $n dumps: $(tr '\n' ' ' <"$T/list")"
else
    cp "$T/all" "$T/list"
fi
while read -r f; do ln -s "$TOP/$f" "$T/in/$(basename "$f")"; done <"$T/list"
# the corrupt dump: stray bytes in the middle of a real one, as in the
# corpus's bad-corrupt-length dumps (always here, whatever the sample)
src=fixtures/jvm7-hprof-agent.hprof
half=$(( $(wc -c <"$src") / 2 ))
{ head -c "$half" "$src"; printf 'stray!'; tail -c +"$((half + 1))" "$src"; } \
    >"$T/in/zz-corrupt-stray.hprof"
ndumps=$(ls "$T/in" | wc -l)

# ---- what the CLI makes of each: the expected bytes and reports ----------
ms() { date +%s%3N; }
t0=$(ms)
for f in "$T"/in/*; do
    b=$(basename "$f")
    stem=${b%.zst}; stem=${stem%.gz}; stem=${stem%.hprof}
    "$BIN" -p $PRESET -T 1 "$f" "$T/cli/$stem.hprof.zst" --stats-file "$T/cli/$stem.json" \
        2>"$T/cli/$stem.err"
    echo "$?" >"$T/cli/$stem.rc"
done
cli_ms=$(( $(ms) - t0 ))
[ "$(cat "$T/cli/zz-corrupt-stray.rc")" != 0 ] && ok ||
    bad "the CLI strips the corrupt dump: it must fail ($(cat "$T/cli/zz-corrupt-stray.err"))"

# ---- the cluster: a scheduler and two worker processes ------------------
# Port 0: the scheduler takes a free port and says which in its file.
$SCHEDULER --host 127.0.0.1 --port 0 --no-dashboard --scheduler-file "$T/scheduler.json" \
    >"$T/scheduler.log" 2>&1 &
PIDS="$PIDS $!"
i=0
while [ ! -s "$T/scheduler.json" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
ADDR=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["address"])' \
    "$T/scheduler.json" 2>/dev/null)
case $ADDR in
    tcp://127.0.0.1:*) ok ;;
    *) bad "no scheduler address after 60 s: $(tail -5 "$T/scheduler.log")"; finish; exit ;;
esac
# The workers find the package by PYTHONPATH and the library by
# HPROFSTRIP_LIBRARY, as a worker host would (README.md).
for w in w1 w2; do
    HPROFSTRIP_LIBRARY=$LIBSO PYTHONPATH=$TOP/python PYTHONDONTWRITEBYTECODE=1 \
        $WORKER "$ADDR" --name "$w" --nworkers 1 --nthreads 1 --no-nanny --no-dashboard \
        --local-directory "$T/$w" >"$T/$w.log" 2>&1 &
    PIDS="$PIDS $!"
done
"$PY" -c 'import sys; from distributed import Client
c = Client(sys.argv[1], timeout="30s"); c.wait_for_workers(2, timeout=60); c.close()' \
    "$ADDR" >"$T/wait.log" 2>&1 && ok ||
    bad "two workers did not join in 60 s: $(tail -3 "$T/wait.log") $(tail -3 "$T/w1.log")"

# The driver: the package only; the library it never loads (a path that
# is no library would fail it).
t0=$(ms)
HPROFSTRIP_LIBRARY=/nonexistent/libhprofstrip.so PYTHONPATH=$TOP/python PYTHONDONTWRITEBYTECODE=1 \
    timeout 600 "$PY" examples/dask_strip.py --scheduler "$ADDR" -p $PRESET --compress zstd \
    --threads 1 --report "$T/reports.jsonl" "$T/in" "$T/out" >"$T/driver.out" 2>"$T/driver.err"
rc=$?
dask_ms=$(( $(ms) - t0 ))
# for the log: the driver's time includes its start and connecting
echo "dask: $ndumps dumps: the CLI one after another $((cli_ms / 1000)).$((cli_ms % 1000 / 100)) s," \
    "the example on 2 workers $((dask_ms / 1000)).$((dask_ms % 1000 / 100)) s"
expect_rc 1 "the example with corrupt dumps among $ndumps ($(tail -3 "$T/driver.err"))"
# the dumps the CLI fails on: ours, and the corpus's bad-corrupt-length ones
nfail=$(grep -Lx 0 "$T"/cli/*.rc | wc -l)
expect_grep "$((ndumps - nfail)) of $ndumps dumps stripped, $nfail failed, 0 skipped (output there), on 2 workers (w1, w2)" \
    "$T/driver.out" "the driver's summary"
expect_grep "zz-corrupt-stray.hprof: failed (malformed" "$T/driver.err" \
    "the corrupt dump's failure, with its status"

# Every dump against the CLI: outputs byte for byte, reports field by
# field; the failed one's status, exit status and offsets.
for f in "$T"/in/*; do
    b=$(basename "$f")
    stem=${b%.zst}; stem=${stem%.gz}; stem=${stem%.hprof}
    if [ "$(cat "$T/cli/$stem.rc")" = 0 ]; then
        if cmp -s "$T/cli/$stem.hprof.zst" "$T/out/$stem.hprof.zst"; then ok; else
            bad "$b: the Dask output differs from the CLI's"
        fi
    else
        [ ! -e "$T/out/$stem.hprof.zst" ] && ok || bad "$b: failed, yet its output is there"
    fi
done
no_temp "$T/out" "the failed dump's temporary output"
"$PY" - "$T/reports.jsonl" "$T/cli" "$T/in" >"$T/compare" 2>&1 <<'EOF'
import json, os, sys
lines, cli, indir = sys.argv[1:]
reports = [json.loads(l) for l in open(lines)]
names = sorted(os.listdir(indir))
print("ok" if len(reports) == len(names) else f"bad {len(reports)} report lines for {len(names)} dumps")
workers = set()
for line in reports:
    r = line["report"]
    src = r["input"]["name"]
    if line["input"] != src or line["exit_status"] != r["exit_status"]:
        print(f"bad {src}: the line's input or exit status is not its report's: {line}")
    b = os.path.basename(src)
    stem = b
    for s in (".zst", ".gz", ".hprof"):
        stem = stem[: -len(s)] if stem.endswith(s) else stem
    theirs = json.load(open(os.path.join(cli, stem + ".json")))
    rc = int(open(os.path.join(cli, stem + ".rc")).read())
    d = line["dask"]
    workers.add(d["worker"])
    if d["failed"] != (rc != 0):
        print(f"bad {b}: task failed {d['failed']}, the CLI's exit status {rc}")
        continue
    print("ok")
    for x in (r, theirs):
        del x["time"]
        x["output"]["name"] = None
        if x.get("error"):
            # the library names its input "input" in messages when given
            # a path by the package; the CLI names the path
            x["error"]["message"] = None
    if r == theirs:
        print("ok")
    else:
        diff = []  # the members that differ, a dict's by their own members
        for k in sorted(set(r) | set(theirs)):
            a, c = r.get(k), theirs.get(k)
            if isinstance(a, dict) and isinstance(c, dict):
                diff += [f"{k}.{m}: {a.get(m)} / {c.get(m)}" for m in sorted(set(a) | set(c))
                         if a.get(m) != c.get(m)]
            elif a != c:
                diff.append(f"{k}: {a} / {c}")
        print(f"bad {b}: the report differs from the CLI's (Dask / CLI): " + "; ".join(diff)[:800])
    if rc:
        e = r["error"]
        good = (e["status"] in ("malformed", "truncated") and r["exit_status"] == rc
                and isinstance(e["offset"], int) and r["output"]["kept"] is False)
        print("ok" if good else f"bad {b}: failure as reported: {e}, exit {r['exit_status']}")
print("ok" if workers == {"w1", "w2"} else f"bad workers that ran tasks: {sorted(workers)}")
EOF
pass=$((pass + $(grep -c '^ok$' "$T/compare")))
if grep -qv '^ok$' "$T/compare"; then
    fail=$((fail + $(grep -vc '^ok$' "$T/compare")))
    grep -v '^ok$' "$T/compare" >&2
fi

# ---- stopping: nothing started here is left ------------------------------
stop_all
if pgrep -f "$T/" >"$T/left"; then
    bad "processes left after stopping the cluster: $(ps -o pid,args -p "$(tr '\n' ',' <"$T/left" | sed 's/,$//')")"
else
    ok
fi

# ---- no scheduler given: the example's own LocalCluster ------------------
mkdir "$T/in2"
for f in fixtures/jvm17-64bit.hprof fixtures/jvm17-jcmd-gz1.hprof.gz; do
    ln -s "$TOP/$f" "$T/in2/$(basename "$f")"
    "$BIN" -p default -T 1 "$f" "$T/cli/local-$(basename "$f" | sed 's/\.hprof.*//').hprof" || \
        bad "the CLI on $f"
done
HPROFSTRIP_LIBRARY=$LIBSO PYTHONPATH=$TOP/python PYTHONDONTWRITEBYTECODE=1 \
    timeout 300 "$PY" examples/dask_strip.py --workers 2 --compress none --threads 1 \
    "$T/in2" "$T/out2" >"$T/local.out" 2>"$T/local.err"
rc=$?
expect_rc 0 "the example on a LocalCluster ($(tail -3 "$T/local.err"))"
expect_grep "2 of 2 dumps stripped, 0 failed, 0 skipped" "$T/local.out" "the LocalCluster's summary"
for s in jvm17-64bit jvm17-jcmd-gz1; do
    cmp -s "$T/cli/local-$s.hprof" "$T/out2/$s.hprof" && ok ||
        bad "$s: the LocalCluster's output differs from the CLI's"
done
[ "$(wc -l <"$T/out2/reports.jsonl")" -eq 2 ] && ok || bad "the LocalCluster's reports.jsonl"
# a rerun: the outputs are there, refused (no --force), the failures said,
# the earlier lines kept; then --skip-existing runs nothing and says so
HPROFSTRIP_LIBRARY=$LIBSO PYTHONPATH=$TOP/python PYTHONDONTWRITEBYTECODE=1 \
    timeout 300 "$PY" examples/dask_strip.py --workers 2 --compress none --threads 1 \
    "$T/in2" "$T/out2" >"$T/again.out" 2>"$T/again.err"
rc=$?
expect_rc 1 "the rerun over outputs that are there"
expect_grep "0 of 2 dumps stripped, 2 failed, 0 skipped" "$T/again.out" "the rerun's summary"
HPROFSTRIP_LIBRARY=$LIBSO PYTHONPATH=$TOP/python PYTHONDONTWRITEBYTECODE=1 \
    timeout 300 "$PY" examples/dask_strip.py --workers 2 --compress none --threads 1 \
    --skip-existing "$T/in2" "$T/out2" >"$T/skip.out" 2>"$T/skip.err"
rc=$?
expect_rc 0 "--skip-existing over outputs that are all there ($(tail -3 "$T/skip.err"))"
expect_grep "0 of 2 dumps stripped, 0 failed, 2 skipped (output there), on 0 workers" \
    "$T/skip.out" "--skip-existing's summary"
for s in jvm17-64bit jvm17-jcmd-gz1; do
    cmp -s "$T/cli/local-$s.hprof" "$T/out2/$s.hprof" && ok ||
        bad "$s: the output changed by the reruns"
done
# one new dump: --skip-existing strips it alone
ln -s "$TOP/fixtures/jvm7-hprof-agent.hprof" "$T/in2/jvm7-hprof-agent.hprof"
HPROFSTRIP_LIBRARY=$LIBSO PYTHONPATH=$TOP/python PYTHONDONTWRITEBYTECODE=1 \
    timeout 300 "$PY" examples/dask_strip.py --workers 2 --compress none --threads 1 \
    --skip-existing "$T/in2" "$T/out2" >"$T/skip2.out" 2>"$T/skip2.err"
rc=$?
expect_rc 0 "--skip-existing with one new dump ($(tail -3 "$T/skip2.err"))"
expect_grep "1 of 3 dumps stripped, 0 failed, 2 skipped" "$T/skip2.out" "the new dump's run"
[ "$(wc -l <"$T/out2/reports.jsonl")" -eq 9 ] && ok ||
    bad "the reruns' lines not appended to the earlier ones: $(wc -l <"$T/out2/reports.jsonl")"
rm "$T/in2/jvm7-hprof-agent.hprof"
# workers that cannot load the library: every task fails, said in its line
HPROFSTRIP_LIBRARY=/nonexistent/libhprofstrip.so PYTHONPATH=$TOP/python PYTHONDONTWRITEBYTECODE=1 \
    timeout 300 "$PY" examples/dask_strip.py --workers 2 --compress none \
    "$T/in2" "$T/out3" >"$T/nolib.out" 2>"$T/nolib.err"
rc=$?
expect_rc 1 "the example on workers without the library"
expect_grep "0 of 2 dumps stripped, 2 failed" "$T/nolib.out" "the summary without the library"
[ "$(grep -c '"type": "LibraryNotFound"' "$T/out3/reports.jsonl")" -eq 2 ] && ok ||
    bad "LibraryNotFound not in both report lines: $(cat "$T/out3/reports.jsonl")"
[ "$(ls "$T/out3")" = reports.jsonl ] && ok || bad "outputs without the library: $(ls "$T/out3")"
# every line of every run one shape: stripped, refused, skipped, failed
# with a report and without (no library)
cat "$T/reports.jsonl" "$T/out2/reports.jsonl" "$T/out3/reports.jsonl" >"$T/all-lines"
"$PY" - "$T/all-lines" >"$T/shape" 2>&1 <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
kinds = set()
for l in lines:
    kinds.add((l["dask"]["failed"], l["dask"]["skipped"], l["report"] is None))
    shape = (sorted(l), sorted(l["dask"]), sorted(l["error"]) if l["error"] else None)
    want = (["dask", "error", "exit_status", "input", "output", "report"],
            ["failed", "run", "skipped", "task", "worker"],
            ["message", "offset", "status", "type"] if l["dask"]["failed"] else None)
    print("ok" if shape == want else f"bad line shape {shape}: {l}")
    if l["report"] is not None:
        print("ok" if l["exit_status"] == l["report"]["exit_status"] else f"bad {l}")
# stripped; failed with a report (corrupt); skipped; failed with none
# (refused output, no library)
print("ok" if kinds >= {(False, False, False), (True, False, False), (False, True, True),
                        (True, False, True)} else f"bad kinds of lines: {kinds}")
EOF
pass=$((pass + $(grep -c '^ok$' "$T/shape")))
if grep -qv '^ok$' "$T/shape"; then
    fail=$((fail + $(grep -vc '^ok$' "$T/shape")))
    grep -v '^ok$' "$T/shape" >&2
fi
finish
