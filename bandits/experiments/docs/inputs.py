"""What a documentation page reads from a results folder (:mod:`bandits.experiments.docs.render`):
``claims.csv``, the figure CSVs, ``bench.csv`` and ``constants.csv``, each loaded on first
use, and the one-line errors a missing input or a failed look-up raises."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bandits.experiments.run import timings

ROOT = Path(__file__).resolve().parents[3]  # the checkout (repository root)
PAPER_SCALE = "paper"  # claims.csv's scale of a claim of the shipped run (figures.claims.PAPER_SCALE)
TIMINGS = timings.FILE  # where each run of a results folder recorded its time


class DocsError(Exception):
    """A problem to report in one line (exit code 2). Not a LookupError, so Jinja
    passes it through instead of turning it into an undefined value."""


class MissingInput(DocsError):
    def __init__(self, path: Path, hint: str = ""):
        self.path = path
        super().__init__(f"needs {path}, which does not exist{hint}")


class Lazy:
    """A DataFrame loaded on first use (so a page that does not use it never needs it)."""

    def __init__(self, load):
        self._load, self._frame = load, None

    def frame(self) -> pd.DataFrame:
        if self._frame is None:
            self._frame = self._load()
        return self._frame

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.frame(), name)

    def __getitem__(self, key):
        return self.frame()[key]

    def __iter__(self):
        return iter(self.frame())

    def __len__(self):
        return len(self.frame())


def frame(x) -> pd.DataFrame:
    return x.frame() if isinstance(x, Lazy) else x


class Figures:
    """``figures['fig2a']`` / ``figures.fig2a``: the CSV behind a figure."""

    def __init__(self, load):
        self._load = load

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self._load(name)

    def __getattr__(self, name: str) -> pd.DataFrame:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._load(name)


class Inputs:
    """The results folder a page is rendered from, read once."""

    def __init__(self, results: Path, out: Path):
        self.results, self.out = results, out
        self._cache: dict = {}

    def csv(self, rel: str, hint: str = " (run `make figures`)", **kwargs) -> pd.DataFrame:
        path = self.results / rel
        if rel not in self._cache:
            if not path.is_file():
                raise MissingInput(path, hint)
            self._cache[rel] = pd.read_csv(path, **kwargs)
        return self._cache[rel]

    def claims(self) -> pd.DataFrame:
        """claims.csv as text; a file without the ``scale`` column (written before it
        existed) is all "paper", as is an empty cell."""
        c = self.csv("claims.csv", dtype=str, keep_default_na=False)
        if "scale" not in c.columns or (c["scale"] == "").any():
            c["scale"] = c["scale"].replace("", PAPER_SCALE) if "scale" in c.columns else PAPER_SCALE
        return c

    def figure(self, name: str) -> pd.DataFrame:
        return self.csv(f"figures/{name}.csv")

    def bench(self) -> pd.DataFrame:
        return self.csv("bench.csv", hint=" (run `make bench UPDATE=1`)")

    def constants(self) -> pd.DataFrame:
        frame = self.csv("constants.csv", hint=" (it is written by `make docs` from results/tables)",
                         dtype=str, keep_default_na=False)
        if "T" in frame.columns and not pd.api.types.is_integer_dtype(frame["T"]):
            frame["T"] = frame["T"].astype(int)
        return frame
