"""What a ``-m`` sweep ends with, once every job ran in this process: one summary of all its
jobs' rows, with every swept setting as a column in its own order (numbers as numbers), and
one figure named after the experiment: its final regret against the swept number, or, when
the sweep is over something else, its regret figure per problem."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from bandits.experiments.figures import common


def swept_settings(job_overrides: list[list[str]]) -> list[tuple[str, list]]:
    """(key, the value of each job) of every override key whose value differs between the jobs
    of a sweep, in the order the command gave them; a value is what Hydra's grammar makes of it
    (``0.995`` a float, ``range(3)``'s jobs 0, 1, 2, ``d_ucb`` a string)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parser = OverridesParser.create()
    per_job = []
    for job in job_overrides:
        values = {}
        for o in parser.parse_overrides([o for o in job if not o.lstrip("+~").startswith(("hydra.", "hydra/"))]):
            if not o.is_delete():
                values[o.get_key_element().lstrip("+")] = o.value()
        per_job.append(values)
    keys = list(dict.fromkeys(k for values in per_job for k in values))
    out = []
    for key in keys:
        values = [v.get(key) for v in per_job]
        if len({repr(v) for v in values}) > 1:
            out.append((key, values))
    return out


def setting_value(value):
    """A swept value as a summary column holds it: a list or a mapping (``env.R_pieces=[0.2,1.0],
    [1.0,0.2]``) as its text, ``[0.2, 1.0]``, which sorts and groups; a scalar as it is."""
    return str(value) if isinstance(value, (list, tuple, dict)) else value


def with_settings(jobs: list, settings: list[tuple[str, list]]) -> tuple[pd.DataFrame, list[str]]:
    """The jobs' rows in one frame, each with its job's swept settings as columns (a setting that
    is a column already, ``T`` or ``seed``, is not repeated), and the names of those columns."""
    parts, columns = [], []
    for i, (_, rows) in enumerate(jobs):
        if rows.empty:
            continue
        extra = {}
        for key, values in settings:
            name = key  # the override key as typed: algo.gamma
            if name not in rows.columns:
                extra[name] = [setting_value(values[i])] * len(rows)
            if name not in columns:
                columns.append(name)
        parts.append(rows.assign(**extra))
    if not parts:
        return pd.DataFrame(), []
    out = pd.concat(parts, ignore_index=True)
    for name in columns:
        numeric = pd.to_numeric(out[name], errors="coerce")
        if numeric.notna().all():
            out[name] = numeric  # sorted as numbers, not as text (0.99 before 0.995 before 0.9995)
    return out, columns


def sweep_summary(jobs: list, job_overrides: list[list[str]] | None = None) -> None:
    """After a -m sweep run in this process (``jobs``: (results folder, rows) of each job, in
    order; ``job_overrides``: each job's overrides): one summary of every job's rows, the swept
    settings as columns, and one figure in the first job's results folder, named after the
    experiment."""
    from bandits.experiments.compose.labels import assign_labels
    from bandits.experiments.report.summary import summary_text

    settings = swept_settings(job_overrides) if job_overrides and len(job_overrides) == len(jobs) else []
    rows, columns = with_settings(jobs, settings)
    if rows.empty:
        return
    if rows["experiment"].nunique() > 1:  # a sweep over experiments: each table has its own summary above
        print(f"\nsweep of {len(jobs)} jobs into {rows['experiment'].nunique()} tables; each one's summary is above.")
        return
    rows = rows.assign(label=assign_labels(rows))
    comparators = set().union(*(job.attrs.get("comparators", ()) for _, job in jobs))
    print(f"\nsweep of {len(jobs)} jobs, {len(rows)} cells:\n"
          f"{summary_text(rows, settings=columns, comparators=comparators)}")
    out = jobs[0][0] / "figures"
    out.mkdir(parents=True, exist_ok=True)
    try:
        names = sweep_figure(rows, out, lambda: with_curves(jobs, rows), sweep_name(rows, job_overrides))
    except Exception as exc:  # noqa: BLE001 -- the sweep ran; only its figure failed
        common.notice("sweep", f"figure failed ({common.one_line(exc)})", "the summary above stands")
        return
    print(f"figure{'s' if len(names) > 1 else ''}: {', '.join(str(out / f'{n}.png') for n in names)}")


def with_curves(jobs: list, rows):
    """``rows`` (a sweep's light rows, labelled) with every column of their tables, curves
    included, read back by cell key from each job's table."""
    from bandits.experiments.store import table_store as store

    parts = [store.read_rows(folder / "tables" / f"{name}.parquet", group["cell_key"])
             for folder, job in jobs if not job.empty for name, group in job.groupby("experiment")]
    full = pd.concat(parts, ignore_index=True).drop_duplicates("cell_key").drop(columns="label")
    return rows[["cell_key", "label"]].merge(full, on="cell_key", how="left", validate="one_to_one")


def sweep_name(rows, job_overrides: list[list[str]] | None) -> str:
    """The name a sweep's figure starts with: its experiment's, or for a sweep into the unnamed
    table (``adhoc``: every run without ``experiment_name``) ``adhoc_<hash>``, a hash of the
    jobs' overrides, so that two different unnamed sweeps never share a file and the same
    command always writes the same one."""
    from bandits.experiments.setup.setups import experiment_name
    from bandits.experiments.store.fingerprint import stable_hash

    experiment = str(rows["experiment"].iloc[0])
    if experiment != experiment_name(None) or not job_overrides:
        return experiment
    mine = sorted(" ".join(o for o in job if not o.startswith(("hydra.", "results_dir="))) for job in job_overrides)
    return f"{experiment}_{stable_hash(mine, 8)}"


def sweep_figure(rows, out: Path, curves=None, name: str | None = None) -> list[str]:
    """The sweep's figure, named after its experiment (two experiments' sweeps over the same
    setting never share a file): its final regret against the swept parameter when the jobs vary
    one setting of one environment (``<experiment>_sweep_<parameter>``), else its regret figure,
    one per problem (``<experiment>_sweep[_<problem>]``; at a single horizon regret against t:
    ``curves()`` gives the rows with their curves, which a run's light rows lack)."""
    from bandits.experiments.figures import generic
    from bandits.experiments.figures.drawing import Drawing

    drawing = Drawing(out)  # where the figure goes (nothing highlighted, no run scale)
    experiment = name or str(rows["experiment"].iloc[0])
    problems = generic.problem_configurations(rows)
    envs = rows["env"].nunique() if "env" in rows else 1
    swept = generic.sweeps(experiment, rows) if envs == 1 else {}
    if swept:
        param, values = next(iter(swept.items()))
        generic.sweep_figure(experiment, param, values, rows, drawing, str(rows["env"].iloc[0]))
        return [f"{experiment}_sweep_{re.sub(r'[^A-Za-z0-9_.-]', '_', param)}"]
    if rows["T"].nunique() == 1 and "regret_curve" not in rows.columns and curves is not None:
        rows = curves()
        problems = generic.problem_configurations(rows)
    names = []
    for suffix, problem, mine in problems:
        name = f"{experiment}_sweep" if len(problems) == 1 else f"{experiment}_sweep_{suffix}"
        generic.regret_figure(name, problem, mine, drawing, table=experiment)
        names.append(name)
    return names
