"""Run the long contextual experiments (``make ctx-long``) and record what they cost.

    python scripts/ctx_long.py --results results --release ctx-long
    python scripts/ctx_long.py --results results -- 'CMD' ['CMD' ...]

runs the release's command lines (those the studies declare for ``ctx-long``,
:func:`bandits.experiments.studies.release_commands`), or the commands given, as
``python run.py commands CMD ...`` (one process for every command, as ``make figures``
does) and adds a row to ``<results>/ctx_long_run.csv`` (one row per run): when it started and ended, its wall time, the
peak resident memory of the whole process tree (the runner and its workers together, sampled
every second from /proc) and of its largest single process, and the machine. docs/ada.md
("The long run") quotes it. The runner's own timing rows are added to ``<results>/ctx_long_timings.csv``,
not into ``timings.csv``, which is ``make figures``' record. An interrupted run loses nothing:
the cells already stored are kept, and the same command goes on from them.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import platform
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

FILE = "ctx_long_run.csv"
TIMINGS_FILE = "ctx_long_timings.csv"  # the long run's rows of the runner's timings, apart from make figures'


def append_rows(path: Path, header: bytes, rows: bytes) -> None:
    """Append ``rows`` (CSV lines) to ``path``, writing ``header`` first when the file is new
    or has other columns (then it starts afresh): one file records every long run."""
    old = path.read_bytes() if path.exists() else b""
    path.write_bytes((old if old.startswith(header) else header) + rows)


def keep_timings_apart(timings: Path, before: bytes | None, apart: Path) -> None:
    """Move the rows the run appended to ``<results>/timings.csv`` (make figures' own record,
    which docs/speed.md breaks down) to the end of ``apart``, and leave timings.csv as it was."""
    if not timings.exists():
        return
    after = timings.read_bytes()
    header = after.split(b"\n", 1)[0] + b"\n"
    if before is None:  # no timings.csv before: the whole file is the run's
        append_rows(apart, header, after[len(header):])
        timings.unlink()
        return
    if after.startswith(before) and len(after) > len(before):
        append_rows(apart, header, after[len(before):])
        timings.write_bytes(before)


def tree_rss(root: int) -> tuple[int, int]:
    """(sum, largest) resident bytes of ``root`` and its descendants, from /proc."""
    parent, rss = {}, {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            parent[int(entry.name)] = int(stat[1])
            rss[int(entry.name)] = int((entry / "statm").read_text().split()[1]) * page
        except (OSError, IndexError, ValueError):
            continue
    members, frontier = {root}, [root]
    while frontier:
        here = frontier.pop()
        children = [pid for pid, ppid in parent.items() if ppid == here and pid not in members]
        members.update(children)
        frontier += children
    sizes = [rss.get(pid, 0) for pid in members]
    return sum(sizes), max(sizes, default=0)


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor() or "unknown CPU")
    memory = next((int(line.split()[1]) / 2 ** 20 for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal")), 0.0)
    return f"{os.cpu_count()} cores, {model}, {memory:.0f} GiB"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="results")
    parser.add_argument("--release", default=None, help="run this release's command lines (ctx-long)")
    parser.add_argument("commands", nargs="*", help="run.py command lines, each one argument")
    args = parser.parse_args(argv)
    if args.release:
        from bandits.experiments.studies import release_commands

        args.commands = [*release_commands(args.release, results=args.results), *args.commands]
    if not args.commands:
        parser.error("give --release NAME or the command lines to run")
    peak = {"tree": 0, "process": 0}
    timings = Path(args.results) / "timings.csv"  # make figures' breakdown (docs/speed.md): kept as it was
    before = timings.read_bytes() if timings.exists() else None
    began = time.time()
    child = subprocess.Popen([sys.executable, "run.py", "commands", *args.commands])
    done = threading.Event()

    def sample():
        while not done.wait(1.0):
            total, largest = tree_rss(child.pid)
            peak["tree"], peak["process"] = max(peak["tree"], total), max(peak["process"], largest)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    status = child.wait()
    done.set()
    sampler.join()
    ended = time.time()
    stamp = lambda t: datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")  # noqa: E731
    row = {"started": stamp(began), "ended": stamp(ended), "wall_s": round(ended - began, 1),
           "peak_tree_rss_mb": round(peak["tree"] / 1e6), "peak_process_rss_mb": round(peak["process"] / 1e6),
           "exit_status": status, "machine": machine(), "commands": " ; ".join(args.commands)}
    keep_timings_apart(timings, before, Path(args.results) / TIMINGS_FILE)
    path = Path(args.results) / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    line = io.StringIO(newline="")
    writer = csv.DictWriter(line, fieldnames=list(row))
    writer.writeheader()
    writer.writerow(row)
    header, _, body = line.getvalue().encode().partition(b"\n")
    append_rows(path, header + b"\n", body)
    print(f"ctx-long: {row['wall_s'] / 60:.1f} min, peak memory {row['peak_tree_rss_mb']:,} MB (all processes), "
          f"{row['peak_process_rss_mb']:,} MB (largest); {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
