"""The plot stage: read every table under ``<results>/tables``, hand the tables a paper
module owns to that module and every other table to the generic figure, each run
guarded so that one failure costs only its own figures; then write and print claims."""

from __future__ import annotations

import argparse
from fnmatch import fnmatch
from pathlib import Path

import matplotlib.pyplot as plt

from bandits.experiments.figures import (
    ada,
    claims,
    common,
    ctx_baselines,
    ctx_data,
    extensions,
    fig2,
    fig5,
    generic,
    nonstationary,
    piecewise,
    published,
)

# The paper modules, each owning the tables its TABLES names or patterns match (the first
# match wins). Adding an experiment's figure and claims means adding a module here.
PAPER_MODULES = (fig2, piecewise, fig5, ctx_baselines, ada, extensions, nonstationary, ctx_data, published)


def owner(table: str):
    """The paper module that draws ``table``, or None (the generic figure)."""
    return next((m for m in PAPER_MODULES if any(fnmatch(table, pattern) for pattern in m.TABLES)), None)


def read_tables(results: Path) -> dict:
    """Every readable, non-empty table by name (a notice for each other file)."""
    folder = results / "tables"
    paths = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
    if not paths:
        where = common.shown(folder, parts=2)
        common.notice("plot stage", f"no tables in {where}" if folder.is_dir() else f"no folder {where}",
                      "nothing to plot")
    tables = {path.stem: common.read_table(path) for path in paths}
    return {name: rows for name, rows in tables.items() if rows is not None}


def draw_guarded(module, tables: dict, out_dir: Path) -> list[dict] | None:
    """``module.draw``; on any error a notice naming the tables and the error, and None."""
    try:
        return module.draw(tables, out_dir)
    except Exception as exc:  # one module's failure must not cost the other figures
        plt.close("all")
        common.notice(", ".join(tables), f"{module.__name__.rsplit('.', 1)[-1]} failed ({common.one_line(exc)})",
                      "its figures and claims skipped")
        return None


def draw_all(tables: dict, out_dir: Path) -> tuple[list[dict], set]:
    """Claims rows of the paper modules and the names of the tables they drew."""
    rows, drawn = [], set()
    for module in PAPER_MODULES:
        owned = {name: t for name, t in tables.items() if owner(name) is module}
        made = draw_guarded(module, owned, out_dir) if owned else None
        if made is not None:
            rows += made
            drawn |= getattr(module, "claim_figures", set)(owned)  # the figure names its claims use
    for name, table in tables.items():
        if owner(name) is None:
            draw_guarded(generic, {name: table}, out_dir)
    return rows, drawn


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="drift-bandits plots",
                                     description="Plot stage: figures, the data behind them, and the claims table.")
    parser.add_argument("--results", default="outputs", type=Path,
                        help="results folder to read tables from and write figures to (default: outputs)")
    args = parser.parse_args(argv)
    common.VERSIONS.clear()
    claims.SKIPPED.clear()
    tables = read_tables(args.results)
    if not tables:
        return
    for name, rows in tables.items():
        common.report_gaps(name, rows)
    rows, drawn = draw_all(tables, args.results / "figures")
    claims.report_skipped()
    table = claims.write_claims(args.results, rows, drawn)
    print(claims.format_claims(table))
