"""What the plot stage draws: the experiments ``--experiment`` names, or the units whose
tables changed since their figures were drawn (:mod:`bandits.experiments.plots.stamps`),
and the line that names the others."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bandits.experiments.figures import common, generic
from bandits.experiments.plots import scale, stamps


@dataclass(frozen=True)
class Unit:
    """What the stage draws together: a study with the tables it owns, or the tables
    of one experiment of your own (the generic figures); ``key`` names it in the stamps."""
    key: str
    module: object
    tables: tuple


def experiment_of(table: str) -> str:
    """The experiment a table belongs to: its shipped experiment config's name
    (``ctx_delay`` for ``ctx_delay_shift0.25``), else the table's name before its scenario
    (``bench_mine`` for ``bench_mine.abrupt_few``)."""
    shipped = scale.experiment_of(table)
    return shipped if shipped != table else generic.experiment_of(table)


def chosen(names, wanted: list[str], results: Path) -> tuple[set, str]:
    """The tables that ``--experiment`` names (``wanted``): for each NAME the table NAME and
    its scenarios NAME.*, else the tables of the shipped experiment config NAME; or, for a
    NAME that matches none, (an empty set, the paragraph that says so)."""
    from bandits.experiments.compose.messages import did_you_mean

    picked, unknown = set(), []
    for name in wanted:
        hit = {n for n in names if n == name or n.startswith(name + ".")}
        hit = hit or {n for n in names if scale.experiment_of(n) == name}
        picked |= hit
        if not hit:
            unknown.append(name)
    if not unknown:
        return picked, ""
    present = sorted({experiment_of(n) for n in names})
    where = common.shown(results / "tables", parts=2)
    head = "; ".join(f"no experiment {name!r} in {where}{did_you_mean(name, present)}" for name in unknown)
    listed = ", ".join(present) if present else "none (run one first)"
    return set(), (f"error: plots --experiment: {head}. The experiments there: {listed}. A NAME draws the table "
                   "NAME and its scenarios NAME.*; give several as NAME,NAME or repeat --experiment.")


def claimed_figures(results: Path) -> set:
    """The figures claims.csv has rows for (empty without the file)."""
    import pandas as pd

    try:
        return set(pd.read_csv(results / "claims.csv", usecols=["figure"])["figure"].astype(str))
    except (OSError, ValueError):
        return set()


def unchanged_line(units: list[Unit]) -> str:
    """One line naming the experiments not redrawn because nothing changed."""
    names = sorted({experiment_of(t) for u in units for t in u.tables})
    head, tail = f"unchanged since drawn, not redrawn ({len(names)}): ", "; --force redraws them"
    shown_names = []
    for name in names:
        rest = len(names) - len(shown_names) - 1
        more = f" and {rest} more" if rest else ""
        if len(head + ", ".join([*shown_names, name]) + more + tail) > common.LINE_WIDTH and shown_names:
            return head + ", ".join(shown_names) + f" and {len(names) - len(shown_names)} more" + tail
        shown_names.append(name)
    return head + ", ".join(shown_names) + tail


def plan(every: list[Unit], picked: set | None, force: bool, now: dict, results: Path, code: str) \
        -> tuple[list[Unit], list[Unit]]:
    """(units to draw, units left as they are): with ``picked`` (the tables ``--experiment``
    named) each unit restricted to those of its tables; else every unit whose stamp is not
    ``now``'s (:func:`stamps.up_to_date`), or every unit with ``force``."""
    if picked is not None:
        todo = [Unit(u.key, u.module, tuple(t for t in u.tables if t in picked)) for u in every]
        return [u for u in todo if u.tables], []
    out_dir = results / "figures"
    stamped, claimed = stamps.load(out_dir, code), claimed_figures(results)
    fresh = {u.key for u in every if not force and stamps.up_to_date(stamped.get(u.key), now[u.key], out_dir,
                                                                      claimed)}
    return [u for u in every if u.key not in fresh], [u for u in every if u.key in fresh]
