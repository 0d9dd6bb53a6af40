"""Are two results folders the same run? Tables, figure CSVs and claims, code stamps and timings aside.

    python scripts/compare_results.py BEFORE/outputs/quick AFTER/outputs/quick

compares every table (``tables/*.parquet``, rows matched by configuration, T and trial), every
figure CSV (``figures/*.csv``) and ``claims.csv`` of the two folders, column by column, and the
names of the figures drawn (``figures/*.png``); the tables where both folders have them (a
release's ``results/`` ships its figures and claims, not its tables). The columns that say which code ran and how long
it took are reported but not counted as differences: the code stamps (``code_fingerprint``,
``git_commit``, ``cell_key``, which hashes the code fingerprint, and claims' ``code``) and the
timings (``wall_time_s``, ``kernel_s``, ``ns_per_round``). Exit status 0 when nothing else
differs, 1 otherwise. How a refactoring is checked to change no number: make figures SCALE=quick
in a clone of the commit before and one of the commit after, or a release against the shipped
``results/``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

STAMPS = {"code_fingerprint", "git_commit", "cell_key", "code"}
TIMINGS = {"wall_time_s", "kernel_s", "ns_per_round"}
ROW_KEY = ("env", "label", "algo", "T", "seed", "trial")


def differing_columns(a: pd.DataFrame, b: pd.DataFrame) -> list[str] | str:
    """The columns whose values differ (NaN equal to NaN), or a sentence when the shapes differ."""
    if list(a.columns) != list(b.columns):
        return f"columns differ: {sorted(set(a.columns) ^ set(b.columns))}"
    if len(a) != len(b):
        return f"{len(a)} rows against {len(b)}"
    out = []
    for column in a.columns:
        x, y = a[column].reset_index(drop=True), b[column].reset_index(drop=True)
        if x.equals(y):
            continue
        try:
            same = bool(((x == y) | (x.isna() & y.isna())).all())
        except (TypeError, ValueError):  # arrays in cells: compare their text
            same = x.astype(str).equals(y.astype(str))
        if not same:
            out.append(column)
    return out


def in_row_order(frame: pd.DataFrame) -> pd.DataFrame:
    key = [c for c in ROW_KEY if c in frame.columns]
    return frame.sort_values(key, kind="stable").reset_index(drop=True) if key else frame


def compare(before: Path, after: Path) -> tuple[list[str], dict]:
    """(what differs beyond stamps and timings, column -> files where a stamp or timing differs)."""
    problems, aside = [], {}
    pairs = []
    for folder, pattern, reader in (("tables", "*.parquet", pd.read_parquet), ("figures", "*.csv", pd.read_csv)):
        if folder == "tables" and not ((before / folder).is_dir() and (after / folder).is_dir()):
            continue  # the shipped results/ hold no tables: compared where both folders have them
        mine = {p.name for p in (before / folder).glob(pattern)}
        theirs = {p.name for p in (after / folder).glob(pattern)}
        if mine != theirs:
            problems.append(f"{folder}/{pattern}: only before {sorted(mine - theirs)}, only after "
                            f"{sorted(theirs - mine)}")
        pairs += [(f"{folder}/{name}", reader, before / folder / name, after / folder / name)
                  for name in sorted(mine & theirs)]
    pairs.append(("claims.csv", pd.read_csv, before / "claims.csv", after / "claims.csv"))
    drawn = [sorted(p.name for p in (f / "figures").glob("*.png")) for f in (before, after)]
    if drawn[0] != drawn[1]:
        problems.append(f"figures drawn differ: {sorted(set(drawn[0]) ^ set(drawn[1]))}")
    for name, reader, a, b in pairs:
        a_rows, b_rows = reader(a), reader(b)
        if name.startswith("tables/"):
            a_rows, b_rows = in_row_order(a_rows), in_row_order(b_rows)
        found = differing_columns(a_rows, b_rows)
        if isinstance(found, str):
            problems.append(f"{name}: {found}")
            continue
        for column in found:
            if column in STAMPS | TIMINGS:
                aside.setdefault(column, []).append(name)
            else:
                problems.append(f"{name}: column {column!r} differs")
    return problems, aside


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    problems, aside = compare(args.before, args.after)
    both = (args.before / "tables").is_dir() and (args.after / "tables").is_dir()
    tables = len(list((args.before / "tables").glob("*.parquet"))) if both else 0
    csvs = len(list((args.before / "figures").glob("*.csv")))
    claims = len(pd.read_csv(args.before / "claims.csv"))
    print(f"compared {tables} tables, {csvs} figure CSVs and {claims} claims rows")
    for column, names in sorted(aside.items()):
        kind = "code stamp" if column in STAMPS else "timing"
        print(f"  aside ({kind}): {column!r} differs in {len(names)} files")
    for line in problems:
        print(f"DIFFERS: {line}")
    print("identical, code stamps and timings aside" if not problems else f"{len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
