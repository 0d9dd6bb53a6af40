"""Where a run's time goes: one row per run (and per plot or docs stage) appended to
``<results>/timings.csv``, which ``docs/speed.md`` breaks down per experiment.

Each row has the wall time of the run's parts in the main process (planning, running,
writing the shards, gathering the table), the time the batches took in the workers and,
of that, the kernels' (``play`` alone) and the compiling or loading of kernels (``warm_s``),
and when the process started, so that the time spent starting Python, importing and
composing configs shows as the gaps between rows. Appending a line is atomic for lines this
short, and a lock keeps writers of one host apart.
"""

from __future__ import annotations

import csv
import io
import os
import time
from pathlib import Path

COLUMNS = ["stage", "experiment", "cells_run", "cells_stored", "workers", "process_start", "start", "end", "plan_s",
           "execute_s", "worker_s", "kernel_s", "write_s", "gather_s", "pid", "warm_s"]
FILE = "timings.csv"

_IMPORTED = time.time()
KERNELS_FILE = "kernel_seconds.csv"  # under <results>/figures: kernel seconds per experiment and algorithm


def experiment_group(names):
    """The experiment of each table or run name (a pandas Series of str): a scenario's table is
    ``<experiment>.<scenario>``, and a dot before a digit is the name's own (``ctx_delay_shift0.25``)."""
    return names.astype(str).str.replace(r"\.[A-Za-z_].*$", "", regex=True)


def kernel_seconds(tables: dict):
    """Per experiment and algorithm: the cells and the sum of their kernels' seconds
    (``wall_time_s``, the time of ``play`` alone), from the tables by name."""
    import pandas as pd

    parts = [pd.DataFrame({"table": name, "algo": rows["algo"].astype(str), "kernel_s": rows["wall_time_s"]})
             for name, rows in tables.items() if len(rows)]
    if not parts:
        return pd.DataFrame(columns=["experiment", "algo", "cells", "kernel_s"])
    cells = pd.concat(parts, ignore_index=True)
    cells["experiment"] = experiment_group(cells["table"])
    out = cells.groupby(["experiment", "algo"], sort=True)["kernel_s"].agg(cells="size", kernel_s="sum").reset_index()
    return out.assign(kernel_s=out["kernel_s"].round(3))


def process_started() -> float:
    """When this process started (epoch seconds): from /proc on Linux, else when this module
    was imported."""
    try:
        ticks = os.sysconf("SC_CLK_TCK")
        fields = Path(f"/proc/{os.getpid()}/stat").read_text().rsplit(")", 1)[1].split()
        started_ticks = int(fields[19])  # field 22 of stat(5), counted after the ")" of the name
        boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime"))
        return boot + started_ticks / ticks
    except (OSError, ValueError, IndexError, StopIteration):
        return _IMPORTED


def record(results_dir: Path | None, **row) -> None:
    """Append one row to ``<results_dir>/timings.csv`` (nothing without a results folder; a
    folder that cannot take it costs the run nothing). A file begun by an older version keeps
    its own columns: the row is written in them, so that every line matches the header."""
    if results_dir is None:
        return
    import fcntl

    row = {"process_start": round(process_started(), 3), "pid": os.getpid(), **row}
    row = {k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}
    path = Path(results_dir) / FILE
    try:
        with open(path, "a+", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            columns = COLUMNS
            if fh.tell() == 0:
                fh.write(",".join(COLUMNS) + "\n")
            else:
                fh.seek(0)
                columns = next(csv.reader([fh.readline()]), None) or COLUMNS
                fh.seek(0, os.SEEK_END)
            line = io.StringIO()
            csv.DictWriter(line, columns, extrasaction="ignore").writerow(row)
            fh.write(line.getvalue())
    except OSError:
        pass


# ----------------------------------------------------------------------------- what the docs report

def kernel_leaders(results: Path, top: int = 15) -> dict | None:
    """The algorithms whose kernels took the most seconds over every table, from the plot
    stage's ``<results>/figures/kernel_seconds.csv``: each one's seconds, share, cells and the
    experiments where it spent most."""
    import pandas as pd

    path = results / "figures" / KERNELS_FILE
    if not path.is_file():
        return None
    k = pd.read_csv(path)
    total = float(k["kernel_s"].sum())
    rows = []
    for algo, g in k.groupby("algo"):
        where = g.sort_values("kernel_s", ascending=False)
        rows.append({"algo": algo, "kernel_s": float(g["kernel_s"].sum()), "cells": int(g["cells"].sum()),
                     "share": float(g["kernel_s"].sum()) / total if total > 0 else 0.0,
                     "experiments": ", ".join(where["experiment"].head(3))})
    rows.sort(key=lambda r: -r["kernel_s"])
    return {"rows": rows[:top], "total_s": total, "algos": len(rows),
            "top_share": sum(r["share"] for r in rows[:top])}

def speed_breakdown(results: Path) -> dict | None:
    """Where a ``make figures`` spent its time, from ``<results>/timings.csv``: per experiment (its
    scenarios and seeds together) the cells run, the wall time of its runs, their planning,
    the batches' time in the workers and their kernels', and the main process's writing
    and gathering; the plot and docs stages; and what is left of the span from the first
    process start to the last row (starting Python, imports, composing configs)."""
    import pandas as pd

    path = results / FILE
    if not path.is_file():
        return None
    t = pd.read_csv(path)
    runs = t[t["stage"] == "run"].copy()
    # a scenario's table is <experiment>.<scenario>; a dot before a digit is the name's own
    runs["group"] = experiment_group(runs["experiment"])
    runs["wall"] = runs["end"] - runs["start"]
    order = runs.groupby("group")["start"].min().sort_values().index
    out = []
    for name in order:
        g = runs[runs["group"] == name]
        out.append({"experiment": name, "runs": len(g), "cells": int(g["cells_run"].sum()),
                    "wall_s": float(g["wall"].sum()), "plan_s": float(g["plan_s"].sum()),
                    "kernel_s": float(g["kernel_s"].sum()),
                    "bookkeeping_s": float((g["worker_s"] - g["kernel_s"]).sum()),
                    "storage_s": float((g["write_s"] + g["gather_s"]).sum())})
    stages = {stage: float((g["end"] - g["start"]).sum()) for stage, g in t[t["stage"] != "run"].groupby("stage")}
    span = float(t["end"].max() - t["process_start"].min())
    counted = float(runs["wall"].sum()) + sum(stages.values())
    return {"rows": out, "stages": stages, "span_s": span, "starts_s": max(0.0, span - counted),
            "processes": int(t["pid"].nunique()), "workers": int(runs["workers"].max()) if len(runs) else 0,
            "total": {k: sum(r[k] for r in out) for k in ("cells", "wall_s", "plan_s", "kernel_s",
                                                            "bookkeeping_s", "storage_s")}}
