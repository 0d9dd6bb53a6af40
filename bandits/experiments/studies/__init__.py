"""Stage 7, studies: one module per study (a paper's experiments, their figures and their claims).

A study is a module of this package that declares

* ``EXPERIMENTS``: the experiments it ships, each a :class:`Run` of a config
  ``bandits/conf/experiment/<name>.yaml`` and how the release runs it (a sweep it adds, a sweep
  over root seeds, the contextual horizons, which release: ``make figures`` or ``make
  ctx-long``);
* ``TABLES``: the tables it draws (names or shell-style patterns);
* ``draw(tables, drawing) -> claims rows``, given those of its tables that exist and the plot
  stage's :class:`~bandits.experiments.figures.drawing.Drawing`; and optionally
  ``claim_figures(tables)``, the figures its claims rows are keyed by.

The studies are found here (:func:`studies`), not listed anywhere else: the plot stage hands
each its tables, the release (:func:`release_commands`, what ``make figures`` and ``make
ctx-long`` run) reads their ``EXPERIMENTS``, and the scale check of the plot stage reads from them
which full runs differ from their config's defaults. Adding a study is one YAML, one module
here, its section of a docs template and its test.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import cache

FIGURES, CTX_LONG = "figures", "ctx-long"  # the releases: make figures, make ctx-long
RELEASES = (FIGURES, CTX_LONG)
BY_NAME = "by-name"  # a shipped config that no release runs: `python run.py +experiment=<name>`
SCALES = ("full", "quick")
CTX_SCALES = ("quick", "paper")
QUICK = {"horizon_scale": 0.1, "trials": 3}  # make figures SCALE=quick: a tenth of the horizons, 3 trials
QUICK_CONTEXTUAL = {"horizon_scale": 0.25, "trials": 3}  # a quarter for the contextual experiments
QUICK_SEEDS = 2  # a sweep over root seeds at quick scale: range(2)


@dataclass(frozen=True)
class Run:
    """How the release runs one experiment config.

    ``sweep``: overrides the release sweeps over (``env.n_pieces=1,5``); ``seeds``: a sweep over
    root seeds ``range(seeds)`` at full scale (``QUICK_SEEDS`` at quick scale), 0 for the
    config's one seed; ``contextual``: quick scale takes a quarter of its horizons, not a
    tenth; ``paper_T``: its horizons under ``CTX_SCALE=paper`` (the config's otherwise);
    ``release``: ``make figures``, ``make ctx-long``, or :data:`BY_NAME` (shipped, run on request);
    ``quick_instances``: the drawn instances at quick scale (the config's otherwise)."""
    experiment: str
    sweep: tuple = ()
    seeds: int = 0
    contextual: bool = False
    paper_T: tuple = ()
    release: str = FIGURES
    quick_instances: int = 0


def is_study(module) -> bool:
    return all(hasattr(module, name) for name in ("EXPERIMENTS", "TABLES", "draw"))


@cache
def studies() -> tuple:
    """Every study module of this package, in the order of their names."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if is_study(module):
            found.append(module)
    return tuple(found)


def short_name(module) -> str:
    return module.__name__.rsplit(".", 1)[-1]


def owner(table: str, among=None):
    """The study that draws ``table``, or None (the generic figures)."""
    return next((m for m in (among or studies()) if any(fnmatch(table, pattern) for pattern in m.TABLES)), None)


def runs(release: str | None = None, among=None) -> list[Run]:
    """Every study's runs (of one ``release``), study by study."""
    return [run for m in (among or studies()) for run in m.EXPERIMENTS if release is None or run.release == release]


def seed_sweeps(among=None) -> dict:
    """experiment -> n, for the experiments a full release runs as a sweep over root seeds range(n)."""
    return {run.experiment: run.seeds for run in runs(among=among) if run.seeds}


def other_full_horizons(among=None) -> dict:
    """experiment -> its horizons under ``CTX_SCALE=paper``, where they differ from its config's."""
    return {run.experiment: list(run.paper_T) for run in runs(among=among) if run.paper_T}


def scale_args(run: Run, scale: str, results: str) -> list[str]:
    quick = QUICK_CONTEXTUAL if run.contextual else QUICK
    sized = [f"{key}={value}" for key, value in quick.items()] if scale == "quick" else []
    if scale == "quick" and run.quick_instances:
        sized.append(f"instances={run.quick_instances}")
    return [*sized, f"results_dir={results}"]


def release_commands(release: str = FIGURES, scale: str = "full", ctx_scale: str = "quick", results: str = "results",
                     among=None) -> list[str]:
    """The command lines of a release (``run.py commands`` runs each in turn): the runs that
    differ only in their experiment share one ``-m`` command, in the order they first appear."""
    groups: dict = {}
    for run in runs(release, among):
        extra = list(run.sweep)
        if run.paper_T and ctx_scale == "paper":
            horizons = ",".join(str(T) for T in run.paper_T)
            extra.append(f'"T=[{horizons}]"' if len(run.paper_T) > 1 else f"T={horizons}")
        if run.seeds:
            extra.append(f'"seed=range({QUICK_SEEDS if scale == "quick" else run.seeds})"')
        key = (*extra, *scale_args(run, scale, results))
        groups.setdefault(key, []).append(run.experiment)
    return [" ".join(["-m", f"+experiment={','.join(names)}", *key]) for key, names in groups.items()]


def catalogue(among=None) -> dict:
    """study -> the experiments it ships (docs/architecture.md's table)."""
    return {short_name(m): [run.experiment for run in m.EXPERIMENTS] for m in (among or studies())}
