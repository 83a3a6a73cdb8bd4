#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Strip a directory of heap dumps on a Dask distributed cluster.

    python3 examples/dask_strip.py [--scheduler tcp://HOST:8786] [-p PRESET]
        [--compress zstd|gzip|none] [--report FILE.jsonl] IN_DIR OUT_DIR

Every *.hprof, *.hprof.gz and *.hprof.zst in IN_DIR is one task: a worker
calls hprofstrip.strip(IN, OUT, preset=..., compress=...), which streams
the dump file to file through libhprofstrip.so, and returns its JSON report
(a dict) to this driver as the task's result. No broker, no result backend:
the scheduler hands each task to a free worker and the report comes back
through the future. OUT_DIR/NAME.hprof[.zst|.gz] is NAME's output.

The driver writes one line per dump to --report (JSON Lines: the run's
report, the document `hprof-strip --stats-file` writes, with a "dask"
member saying which worker ran it and whether the task failed), prints a
summary, and exits 1 when any dump failed (2 for a usage error). A dump
that fails raises hprofstrip.Error on its worker; the error crosses back
whole (status, exit_status, offset, the run's report), the other dumps go
on.

Without --scheduler it starts a LocalCluster of --workers processes on
this machine. With one, IN_DIR and OUT_DIR must be paths every worker sees
the same (shared storage), and every worker must load the library: the
hprofstrip package imported on the worker looks for HPROFSTRIP_LIBRARY
(the path of libhprofstrip.so), then an installed libhprofstrip.so.0.
The driver itself never loads the library (README.md, "Stripping many dumps
on a Dask cluster").
"""
import argparse
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


def failure_line(src, err):
    """What a failed task's report line holds. An hprofstrip.Error keeps
    its run's report (None when the run never started: an input that
    cannot be opened, an output refused); anything else (the library not
    found on the worker, a worker lost) is said as Dask gave it."""
    report = getattr(err, "report", None)
    if isinstance(report, dict):
        return report
    status = getattr(err, "status", None)
    return {
        "exit_status": getattr(err, "exit_status", None),
        "error": {
            "status": status,
            "offset": getattr(err, "offset", None),
            "message": str(err),
            "type": type(err).__name__,
        },
        "input": {"name": src},
        "output": None,
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
    p.add_argument("--force", action="store_true", help="replace existing outputs")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        from distributed import Client, LocalCluster, as_completed, get_task_stream
    except ImportError:
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

    cluster = None
    if args.scheduler:
        client = Client(args.scheduler, timeout="30s")
    else:
        # processes, not threads: what a real cluster's workers are
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        run = uuid.uuid4().hex[:8]
        with get_task_stream(client) as stream:
            futures = {}
            for src, stem in dumps:
                dst = os.path.join(out_dir, stem + OUT_SUFFIX[args.compress])
                # a readable key per dump (the dashboard and the task
                # stream show it); pure=False: a rerun is a new run
                fut = client.submit(strip_one, src, dst, args.preset, args.compress, args.level,
                                    args.threads, args.force, key=f"strip-{stem}-{run}",
                                    pure=False)
                futures[fut] = (src, dst)
            results = {}
            for fut in as_completed(futures):
                src, dst = futures[fut]
                try:
                    results[fut.key] = (src, True, fut.result())
                except Exception as err:  # the task's own, raised here: its fields kept
                    results[fut.key] = (src, False, failure_line(src, err))
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

    failed = 0
    bytes_in = bytes_out = 0
    with open(report_path, "w") as out:
        for src, stem in dumps:
            key = f"strip-{stem}-{run}"
            _, ok, report = results[key]
            report = dict(report)
            report["dask"] = {"task": key, "worker": ran_on.get(key), "failed": not ok}
            out.write(json.dumps(report, sort_keys=True) + "\n")
            if ok:
                c = report.get("counters") or {}
                bytes_in += c.get("bytes_in") or 0
                bytes_out += c.get("bytes_out") or 0
            else:
                failed += 1
                err = report.get("error") or {}
                print(f"dask_strip: {src}: failed ({err.get('status')}, exit status "
                      f"{report.get('exit_status')}, offset {err.get('offset')}) on "
                      f"{ran_on.get(key)}: {err.get('message')}", file=sys.stderr)
    workers = sorted({str(w) for w in ran_on.values()})
    print(f"dask_strip: {len(dumps) - failed} of {len(dumps)} dumps stripped, {failed} failed, "
          f"on {len(workers)} workers ({', '.join(workers)}); {bytes_in} hprof bytes in, "
          f"{bytes_out} out; reports in {report_path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
