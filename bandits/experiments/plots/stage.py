"""The plot stage: read the tables under ``<results>/tables``, check each table's run
against its experiment's shipped config (:mod:`scale`), hand the tables a study
owns to that study and the tables of every other experiment to the generic figures, each
run guarded so that one failure costs only its own figures; then write and print claims,
and end with one line per experiment: where its figures went and how its claims came out.

What is drawn. The stage draws in units (:func:`units_of`): a study with all the
tables it owns (its claims may combine them), or one experiment of your own (a table
``NAME`` and its scenarios ``NAME.*``). By default it draws only the units whose tables
changed since their figures were drawn (:mod:`selection`, :mod:`stamps`); the others keep
their figures and their rows of claims.csv, and one line names them. ``--force`` draws
every unit.
``--experiment NAME[,NAME]`` (repeatable) draws those experiments alone: the tables ``NAME``
and ``NAME.*`` (and a shipped experiment's tables by its config's name, ``ctx_delay``), drawn
whether or not they changed; a NAME that matches no table is refused with the experiments
present (exit status 2).

``--highlight LABEL[,LABEL]`` (or the environment variable DRIFT_BANDITS_HIGHLIGHT) draws
those configurations (by label, algorithm key or display name) thicker and on top in
every figure that has them."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import sys
import time
from collections import Counter
from pathlib import Path

import matplotlib.pyplot as plt

from bandits.experiments import studies
from bandits.experiments.figures import claims, common, generic
from bandits.experiments.figures.drawing import SCALE_COLUMN, TABLE_COLUMN, Drawing
from bandits.experiments.figures.names import HIGHLIGHT_ENV, parse_highlight
from bandits.experiments.plots import scale, selection, stamps
from bandits.experiments.plots.selection import Unit, experiment_of
from bandits.experiments.run import timings

OK, BAD_INPUT = 0, 2  # exit statuses (bandits.experiments.cli's)

def units_of(names) -> list[Unit]:
    """The units of the tables ``names``: one per study that owns some of them (in the order of
    :func:`bandits.experiments.studies.studies`), then one per experiment of the others."""
    names = sorted(names)
    units = []
    for module in studies.studies():
        mine = tuple(n for n in names if studies.owner(n) is module)
        if mine:
            units.append(Unit(f"module {studies.short_name(module)}", module, mine))
    own: dict = {}
    for name in names:
        if studies.owner(name) is None:
            own.setdefault(generic.experiment_of(name), []).append(name)
    return units + [Unit(f"experiment {e}", generic, tuple(ns)) for e, ns in sorted(own.items())]


def table_paths(results: Path) -> dict:
    """Every table file under ``<results>/tables`` by name (a notice when there is none)."""
    folder = results / "tables"
    paths = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
    if not paths:
        where = common.shown(folder, parts=2)
        common.notice("plot stage", f"no tables in {where}" if folder.is_dir() else f"no folder {where}",
                      "nothing to plot")
    return {path.stem: path for path in paths}


def read_tables(results: Path, names=None) -> dict:
    """Every readable, non-empty table by name (a notice for each other file); only those
    of ``names`` when given."""
    paths = table_paths(results)
    tables = {name: common.read_table(path) for name, path in paths.items() if names is None or name in names}
    return {name: rows for name, rows in tables.items() if rows is not None}


def draw_guarded(module, tables: dict, drawing: Drawing) -> list[dict] | None:
    """``module.draw``; on any error a notice naming the tables and the error, and None."""
    try:
        return module.draw(tables, drawing)
    except Exception as exc:  # one module's failure must not cost the other figures
        plt.close("all")
        common.notice(", ".join(tables), f"{studies.short_name(module)} failed ({common.one_line(exc)})",
                      "its figures and claims skipped")
        return None


def draw_job(module_name: str, tables: dict, drawing: Drawing, captured: bool = False) -> dict:
    """One unit's figures (:func:`draw_guarded`), drawn into ``drawing`` (the unit's own,
    :meth:`Drawing.for_unit`), and the names its claims use; on a worker (``captured``) also
    what it printed, for the main process to replay in unit order."""
    module = importlib.import_module(module_name)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as printed:
        if captured:
            printed.enter_context(contextlib.redirect_stdout(out))
            printed.enter_context(contextlib.redirect_stderr(err))
        made = draw_guarded(module, tables, drawing)
        drawn = getattr(module, "claim_figures", set)(tables) if made is not None else set()
    return {"made": made, "drawn": drawn, "drawing": drawing, "out": out.getvalue(), "err": err.getvalue()}


def draw_all(drawing: Drawing, tables: dict, jobs: int = 1) -> tuple[list[dict], set, set]:
    """Claims rows of the studies, the names of the figures their claims use, and the
    keys of the units that failed. Each unit (:func:`units_of`) draws into a Drawing of its
    own, whose records ``drawing`` takes back in unit order (:meth:`Drawing.take`). Each row
    carries its run ``scale`` (the figure's, else that of the module's tables) and, for the
    closing summary, the ``_tables`` behind it. With ``jobs`` > 1 the units run on that many
    worker processes, the largest first; their records and what they printed are taken back
    in unit order, as one process has them."""
    units = units_of(tables)
    work = [(unit.module, {name: tables[name] for name in unit.tables}) for unit in units]
    if jobs > 1 and len(work) > 1:
        from joblib import Parallel, delayed

        biggest = sorted(range(len(work)), key=lambda i: -sum(len(t) for t in work[i][1].values()))
        done = Parallel(n_jobs=jobs)(delayed(draw_job)(work[i][0].__name__, work[i][1], drawing.for_unit(), True)
                                     for i in biggest)
        results = [None] * len(work)
        for i, result in zip(biggest, done, strict=True):
            results[i] = result
        for result in results:
            sys.stdout.write(result["out"])
            sys.stderr.write(result["err"])
            drawing.take(result["drawing"])
    else:
        results = []
        for module, owned in work:
            results.append(draw_job(module.__name__, owned, drawing.for_unit()))
            drawing.take(results[-1]["drawing"])
    rows, drawn, failed = [], set(), set()
    for unit, (module, owned), result in zip(units, work, results, strict=True):
        made = result["made"]
        if made is None:
            failed.add(unit.key)
        if module is generic or made is None:
            continue
        own_scale = "; ".join(sorted({s for t in owned.values() for s in t[SCALE_COLUMN].unique() if s}))
        for row in made:
            figure = row["figure"]
            row.setdefault("scale", drawing.scales[figure] if figure in drawing.scales else own_scale)
            row.setdefault("_tables", drawing.sources.get(figure) or set(owned))
        rows += made
        drawn |= result["drawn"]
    return rows, drawn, failed


# ----------------------------------------------------------------------------- the closing summary

VERDICT_GROUPS = (("agrees", ("agrees", "agree")), ("disagrees", ("disagrees", "disagree")),
                  ("exceeds bound", ("exceeds its bound", "exceed their bound")),
                  ("below bound", ("below its bound", "below their bound")),
                  ("not measured", ("not measured", "not measured")))


def verdict_counts(verdicts) -> str:
    """"4 agree, 1 disagrees, ..." (a verdict "disagrees: ours higher" counts as disagrees;
    a verdict of another word is counted under its own)."""
    counts: Counter = Counter()
    for v in verdicts:
        v = str(v)
        word = next((w for w, _ in VERDICT_GROUPS if v == w or v.startswith(w + ":")), v)
        counts[word] += 1
    parts = []
    for word, (one, many) in VERDICT_GROUPS:
        if counts[word]:
            parts.append(f"{counts[word]} {one if counts[word] == 1 else many}")
    parts += [f"{n} {word}" for word, n in sorted(counts.items()) if word not in dict(VERDICT_GROUPS)]
    return ", ".join(parts)


def summary_lines(drawing: Drawing, tables: dict, claim_rows: list[dict]) -> list[str]:
    """One line per experiment drawn: its figures (how many, where) and its claims by verdict."""
    experiment = {name: experiment_of(name) for name in tables}
    reduced = {experiment[n] for n, t in tables.items() if t[SCALE_COLUMN].astype(bool).any()}
    figures: dict = {}
    for fig in drawing.written:
        for table in drawing.sources.get(fig, ()):
            if table in experiment:
                figures.setdefault(experiment[table], set()).add(fig)
    verdicts: dict = {}
    for row in claim_rows:
        for name in {experiment.get(t, t) for t in row.get("_tables", ())}:
            verdicts.setdefault(name, []).append(row["verdict"])
    lines = []
    for name in sorted(set(experiment.values())):
        made = figures.get(name, set())
        claims_text = f"claims: {verdict_counts(verdicts[name])}" if name in verdicts else "no claims"
        head = f"{name}{' (reduced scale)' if name in reduced else ''}: {len(made)} figure{'s' * (len(made) != 1)}"
        line = f"{head} in {drawing.folder}; {claims_text}"
        if len(line) > common.LINE_WIDTH:  # a long folder path: its last two parts
            line = f"{head} in .../{common.shown(drawing.folder, parts=2)}; {claims_text}"
        lines.append(line)
    return lines


def parse(argv):
    parser = argparse.ArgumentParser(prog="drift-bandits plots",
                                     description="Plot stage: figures, the data behind them, and the claims table. "
                                                 "Draws the tables that changed since their figures were drawn.")
    parser.add_argument("--results", default="outputs", type=Path,
                        help="results folder to read tables from and write figures to (default: outputs)")
    parser.add_argument("--experiment", action="append", default=[], metavar="NAME[,NAME]",
                        help="draw these experiments alone (the table NAME and its scenarios NAME.*), changed or not; "
                             "repeatable")
    parser.add_argument("--force", action="store_true",
                        help="redraw every table, not only those that changed since their figures were drawn")
    parser.add_argument("--highlight", default=None, metavar="LABEL[,LABEL]",
                        help="draw these configurations (label, algorithm key or display name) thicker and on top; "
                             f"default: the environment variable {HIGHLIGHT_ENV}")
    parser.add_argument("--jobs", type=int, default=2, metavar="N",
                        help="worker processes that draw the figures (default 2; 1 draws them in this process)")
    parser.add_argument("--timed", action="store_true",
                        help=f"append this stage's time to <results>/{timings.FILE} (make figures does)")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse(argv)
    began = time.time()
    code = plot(args)
    if args.timed and code == OK:
        timings.record(args.results, stage="plots", experiment="", start=round(began, 3), end=round(time.time(), 3))
    return code


def plot(args) -> int:
    """The stage (the module docstring); returns the exit status."""
    import pandas as pd

    from bandits.errors import ConfigError
    from bandits.experiments.setup.checks import check_output_folder

    if args.results.exists() and not args.results.is_dir():
        print(f"error: plots --results {str(args.results)!r} is a file, not a results folder; give the folder a "
              "run wrote (its tables/ hold the tables).", file=sys.stderr)
        return BAD_INPUT
    chosen_highlight = args.highlight if args.highlight is not None else os.environ.get(HIGHLIGHT_ENV)
    drawing = Drawing(args.results / "figures", tuple(parse_highlight(chosen_highlight)))
    wanted = [name.strip() for text in args.experiment for name in text.split(",") if name.strip()]
    if wanted and not any((args.results / "tables").glob("*.parquet")):  # asked for by name: refused, not a quiet 0
        print(f"error: plots --experiment: no experiment {', '.join(map(repr, wanted))} in "
              f"{common.shown(args.results / 'tables', parts=2)}: it holds no tables (run the experiment first, or "
              "give the results folder it wrote with --results).", file=sys.stderr)
        return BAD_INPUT
    paths = table_paths(args.results)
    if not paths:
        return OK
    unknown = unmatched_highlight(parse_highlight(args.highlight), paths)  # the environment's: a standing choice
    if unknown:
        print(f"error: plots --highlight: {', '.join(map(repr, unknown))} names no configuration of the tables in "
              f"{common.shown(args.results / 'tables', parts=2)} (a label, an algorithm's name, or its display "
              "name, as a figure's legend shows it).", file=sys.stderr)
        return BAD_INPUT
    out_dir = drawing.folder
    picked, problem = selection.chosen(paths, wanted, args.results) if wanted else (None, "")
    if problem:
        print(problem, file=sys.stderr)
        return BAD_INPUT
    try:  # what the stage writes, checked before it draws
        where = f"plots --results {str(args.results)!r}"
        check_output_folder(args.results, where, "--results folder", ["claims.csv"])
        check_output_folder(out_dir, where, "--results folder")
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return BAD_INPUT
    code = stamps.code_version()
    every = units_of(paths)
    now = {u.key: stamps.current([paths[t] for t in u.tables], drawing.highlight) for u in every}
    todo, skipped = selection.plan(every, picked, args.force, now, args.results, code)
    tables = read_tables(args.results, {t for u in todo for t in u.tables})
    if tables:
        drawn = draw_tables(drawing, tables, args.jobs, args.results)
        whole = {u.key for u in todo if u in every}  # a unit drawn in part is not stamped: drawn whole next time
        units = {key: value for key, value in stamps.load(out_dir, code).items() if key in now}
        for key, (ok, figures_, claims_) in drawn.items():
            units.pop(key, None)
            if ok and key in whole:
                units[key] = {**now[key], "figures": figures_, "claims": claims_}
        stamps.save(out_dir, code, units)
        light = {}
        for name, path in paths.items():  # docs/speed.md's kernel seconds, over every table
            try:
                light[name] = pd.read_parquet(path, columns=["algo", "wall_time_s"])
            except Exception:  # noqa: BLE001 -- an unreadable table (its notice came with the drawing)
                continue
        write_kernel_seconds(out_dir / timings.KERNELS_FILE, timings.kernel_seconds(light))
    if skipped:
        print(selection.unchanged_line(skipped))
    return OK


def unmatched_highlight(chosen, paths: dict) -> list:
    """The names of ``chosen`` (``--highlight``) that highlight no configuration of any table in
    ``paths`` (by :func:`bandits.experiments.figures.names.is_highlighted`); an unreadable table is
    left to the drawing's own notice."""
    if not chosen:
        return []
    import pandas as pd

    from bandits.experiments.figures.names import is_highlighted

    pairs = set()
    for path in paths.values():
        try:
            pairs |= set(pd.read_parquet(path, columns=["label", "algo"]).drop_duplicates().itertuples(index=False))
        except Exception:  # noqa: BLE001 -- its notice comes with the drawing
            continue
    return [name for name in chosen if not any(is_highlighted(label, [name], algo) for label, algo in pairs)]


def write_kernel_seconds(path: Path, fresh) -> None:
    """The kernel seconds of the experiments whose tables are here (``fresh``, a DataFrame), and
    the rows the file already had for the others (a folder holding some tables only, such as
    ``make ctx-long``'s, keeps ``make figures``' rows)."""
    import pandas as pd

    if path.exists():
        try:
            old = pd.read_csv(path)
            fresh = pd.concat([old[~old["experiment"].isin(set(fresh["experiment"]))], fresh], ignore_index=True)
            fresh = fresh.sort_values(["experiment", "algo"], kind="stable").reset_index(drop=True)
        except (ValueError, KeyError, pd.errors.ParserError):  # an unreadable file: written anew
            pass
    fresh.to_csv(path, index=False)


def draw_tables(drawing: Drawing, tables: dict, jobs: int, results: Path) -> dict:
    """Draw ``tables`` (their units) into ``drawing``, write and print claims and the closing
    summary; returns unit key -> (drawn without failure, figures written, figures of its claims
    rows)."""
    for name, rows in tables.items():
        common.report_gaps(name, rows)
    tables = {name: rows.assign(**{TABLE_COLUMN: name, SCALE_COLUMN: scale.run_scale(name, rows)})
              for name, rows in tables.items()}
    for name, rows in tables.items():
        drawing.record_versions(rows, name)  # the figure name of the table's own claims
    rows, drawn, failed = draw_all(drawing, tables, jobs)
    drawing.folder.mkdir(parents=True, exist_ok=True)
    claims.report_skipped(drawing)
    table = claims.write_claims(results, rows, drawing, drawn)
    print(claims.format_claims(table))
    for line in summary_lines(drawing, tables, rows):
        print(line)
    out = {}
    for unit in units_of(tables):
        mine = set(unit.tables)
        figures_ = sorted(f for f in drawing.written if drawing.sources.get(f, set()) & mine)
        claims_ = sorted({str(r["figure"]) for r in rows if set(r.get("_tables", ())) & mine})
        out[unit.key] = (unit.key not in failed, figures_, claims_)
    return out
