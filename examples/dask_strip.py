#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Strip a directory of heap dumps on a Dask distributed cluster.

    python3 examples/dask_strip.py [--scheduler tcp://HOST:8786] [-p PRESET]
        [--compress zstd|gzip|none] [--report FILE.jsonl] [--skip-existing | --force]
        IN_DIR OUT_DIR

Every *.hprof, *.hprof.gz and *.hprof.zst in IN_DIR is one task: a worker
calls hprofstrip.strip(IN, OUT, preset=..., compress=...), which streams
the dump file to file through libhprofstrip.so, and returns its JSON report
(a dict) to this driver as the task's result. No broker, no result backend:
the scheduler hands each task to a free worker and the report comes back
through the future. OUT_DIR/NAME.hprof[.zst|.gz] is NAME's output.

The driver appends one line per dump to --report (JSON Lines; earlier
runs' lines are kept, so a rerun adds its own), every line of one shape:

    {"input": IN, "output": OUT, "exit_status": N or null,
     "error": null or {"status", "offset", "message", "type"},
     "report": the run's report (the document `hprof-strip --stats-file`
               writes) or null when there is none,
     "dask": {"run", "task", "worker", "failed", "skipped"}}

A dump that fails raises hprofstrip.Error on its worker; the error crosses
back whole (status, exit_status, offset, the run's report when the run
started), the other dumps go on; a failure that is no Error (the library
not found on the worker, a worker lost) is said as Dask gave it, with no
report. --skip-existing leaves the dumps whose output is there (a rerun
after some failed, or after more dumps came): no task, a line that says
skipped. It prints a summary, and exits 1 when any dump failed (2 for a
usage error).

Without --scheduler it starts a LocalCluster of --workers processes on
this machine. With one, IN_DIR and OUT_DIR must be paths every worker sees
the same (shared storage), and every worker must load the library: the
hprofstrip package imported on the worker looks for HPROFSTRIP_LIBRARY
(the path of libhprofstrip.so), then the library the installed package
carries (pip install ./python, or its wheel), then an installed
libhprofstrip.so.0.
The driver itself never loads the library (README.md, "Stripping many dumps
on a Dask cluster").
"""
import argparse
import importlib.util
import json
import os
import sys
import uuid

SUFFIXES = (".hprof", ".hprof.gz", ".hprof.zst")
OUT_SUFFIX = {"zstd": ".hprof.zst", "gzip": ".hprof.gz", "none": ".hprof"}


def strip_one(src, dst, preset, compress, level, threads, force):
    """One task, run on a worker: strips src into dst, file to file, and
    returns the report. Failures raise hprofstrip.Error (pickled whole)."""
    import hprofstrip  # on the worker: the package and its library are there

    return hprofstrip.strip(src, dst, preset=preset, compress=compress, level=level,
                            threads=threads, force=force)


def dumps_in(folder):
    """The dumps of folder, sorted by name: (input path, its name less the suffix)."""
    found = []
    for name in sorted(os.listdir(folder)):
        for suffix in SUFFIXES:
            path = os.path.join(folder, name)
            if name.endswith(suffix) and len(name) > len(suffix) and os.path.isfile(path):
                found.append((path, name[: -len(suffix)]))
                break
    return found


def line(src, dst, run, key, worker, report=None, err=None, skipped=False):
    """One report line, the same members whatever happened: a report
    (failed runs' too: exit_status and error are the report's), an error
    with no report (a run that never started, a worker that could not
    load the library), or a dump skipped."""
    if isinstance(report, dict):
        exit_status = report.get("exit_status")
        e = report.get("error")
    else:
        report = None
        exit_status = getattr(err, "exit_status", None)
        e = {} if err is not None else None
    error = None
    if err is not None or e:
        e = e or {}
        error = {
            "status": e.get("status", getattr(err, "status", None)),
            "offset": e.get("offset", getattr(err, "offset", None)),
            "message": e.get("message") or (str(err) if err is not None else None),
            "type": type(err).__name__ if err is not None else None,
        }
    return {
        "input": src,
        "output": dst,
        "exit_status": exit_status,
        "error": error,
        "report": report,
        "dask": {"run": run, "task": key, "worker": worker, "failed": err is not None,
                 "skipped": skipped},
    }


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Strip every *.hprof, *.hprof.gz, *.hprof.zst of IN_DIR into OUT_DIR "
                    "on a Dask cluster, one task per dump.")
    p.add_argument("in_dir")
    p.add_argument("out_dir")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="the Dask scheduler, as tcp://HOST:8786 (default: a LocalCluster here)")
    p.add_argument("--workers", type=int, default=2,
                   help="LocalCluster only: worker processes (default 2)")
    p.add_argument("-p", "--preset", default="default",
                   help="default, privacy, android-app or none (default: default)")
    p.add_argument("--compress", choices=sorted(OUT_SUFFIX), default="zstd",
                   help="the outputs' compression (default zstd)")
    p.add_argument("--level", type=int, default=None, help="compression level")
    p.add_argument("--threads", type=int, default=None,
                   help="compression threads per task (default: every core of the worker's host)")
    p.add_argument("--report", metavar="FILE", default=None,
                   help="the JSON Lines of the reports (default OUT_DIR/reports.jsonl)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--force", action="store_true", help="replace existing outputs")
    how.add_argument("--skip-existing", action="store_true",
                     help="leave the dumps whose output is already there (no task)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if importlib.util.find_spec("distributed") is None:
        print("dask_strip: needs Dask distributed (apt-get install python3-distributed)",
              file=sys.stderr)
        return 2
    if not os.path.isdir(args.in_dir):
        print(f"dask_strip: {args.in_dir}: not a directory", file=sys.stderr)
        return 2
    os.makedirs(args.out_dir, exist_ok=True)
    # absolute paths: the workers' current directories are not ours
    in_dir, out_dir = os.path.abspath(args.in_dir), os.path.abspath(args.out_dir)
    report_path = args.report or os.path.join(out_dir, "reports.jsonl")
    dumps = dumps_in(in_dir)
    if not dumps:
        print(f"dask_strip: {in_dir}: no *.hprof, *.hprof.gz or *.hprof.zst", file=sys.stderr)
        return 2
    names = [stem for _, stem in dumps]
    if len(set(names)) != len(names):  # a.hprof and a.hprof.gz: one output name
        print("dask_strip: two dumps of one name would share an output", file=sys.stderr)
        return 2

    run = uuid.uuid4().hex[:8]
    todo, skipped = [], []
    for src, stem in dumps:
        dst = os.path.join(out_dir, stem + OUT_SUFFIX[args.compress])
        (skipped if args.skip_existing and os.path.exists(dst) else todo).append((src, stem, dst))
    results, ran_on = strip_on_cluster(args, todo, run) if todo else ({}, {})

    failed = 0
    bytes_in = bytes_out = 0
    # appended: the lines of earlier runs stay
    with open(report_path, "a") as out:
        for src, stem, dst in skipped:
            out.write(json.dumps(line(src, dst, run, None, None, skipped=True),
                                 sort_keys=True) + "\n")
        for src, stem, dst in todo:
            key = f"strip-{stem}-{run}"
            report, err = results[key]
            rec = line(src, dst, run, key, ran_on.get(key), report, err)
            out.write(json.dumps(rec, sort_keys=True) + "\n")
            if err is None:
                c = report.get("counters") or {}
                bytes_in += c.get("bytes_in") or 0
                bytes_out += c.get("bytes_out") or 0
            else:
                failed += 1
                e = rec["error"]
                print(f"dask_strip: {src}: failed ({e['status']}, exit status "
                      f"{rec['exit_status']}, offset {e['offset']}) on "
                      f"{ran_on.get(key)}: {e['message']}", file=sys.stderr)
    workers = sorted({str(w) for w in ran_on.values()})
    print(f"dask_strip: {len(todo) - failed} of {len(dumps)} dumps stripped, {failed} failed, "
          f"{len(skipped)} skipped (output there), "
          f"on {len(workers)} workers ({', '.join(workers)}); {bytes_in} hprof bytes in, "
          f"{bytes_out} out; reports in {report_path}")
    return 1 if failed else 0


def strip_on_cluster(args, todo, run):
    """Runs the tasks of `todo` ((src, stem, dst)...) on the cluster: each
    task's (report, None) or (None, the exception it raised), by key, and
    the worker that ran it, by key."""
    from distributed import Client, LocalCluster, as_completed, get_task_stream

    cluster = None
    if args.scheduler:
        client = Client(args.scheduler, timeout="30s")
    else:
        # processes, not threads: what a real cluster's workers are
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        with get_task_stream(client) as stream:
            futures = {}
            for src, stem, dst in todo:
                # a readable key per dump (the dashboard and the task
                # stream show it); pure=False: a rerun is a new run
                fut = client.submit(strip_one, src, dst, args.preset, args.compress, args.level,
                                    args.threads, args.force, key=f"strip-{stem}-{run}",
                                    pure=False)
                futures[fut] = src
            results = {}
            for fut in as_completed(futures):
                try:
                    results[fut.key] = (fut.result(), None)
                except Exception as err:  # the task's own, raised here: its fields kept
                    results[fut.key] = (getattr(err, "report", None), err)
        # which worker ran each task, by name: the scheduler's task stream
        names_by_addr = {a: w.get("name", a)
                         for a, w in client.scheduler_info()["workers"].items()}
        ran_on = {}
        for t in stream.data:
            ran_on[t["key"]] = names_by_addr.get(t.get("worker"), t.get("worker"))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return results, ran_on


if __name__ == "__main__":
    sys.exit(main())
