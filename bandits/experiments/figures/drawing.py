"""One plot stage's drawing: where it draws and what it records as it draws (:class:`Drawing`).

The plot stage (:func:`bandits.experiments.plots.stage.plot`) makes one :class:`Drawing` per
run and hands it down explicitly: to every module's ``draw(tables, drawing)``, to the figure
helpers (:func:`~bandits.experiments.figures.charts.loglog_figure`,
:func:`~bandits.experiments.figures.charts.curve_figure`,
:func:`~bandits.experiments.figures.charts.save_figure`) and to the claims' bookkeeping
(:func:`~bandits.experiments.figures.claims.have`,
:func:`~bandits.experiments.figures.claims.report_skipped`,
:func:`~bandits.experiments.figures.claims.write_claims`). Each unit the stage draws (a paper
module, or one experiment of your own) draws into a Drawing of its own (:meth:`Drawing.for_unit`),
in this process or on a worker, and the stage takes its records back in unit order
(:meth:`Drawing.take`): what one process and several workers record is the same.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from bandits.experiments.figures.names import parse_highlight

# The rows' columns the stage adds: the table a row came from, and its run scale.
TABLE_COLUMN, SCALE_COLUMN = "_table", "_scale"


def code_versions(rows: pd.DataFrame, figure: str) -> str:
    """The code versions behind ``rows``, "fingerprint (git commit)" pairs joined by "; ";
    mixing versions in one figure gives a warning that names them (their cells were computed
    by different code). :meth:`Drawing.record_versions` also records them for the figure."""
    cols = [c for c in ("code_fingerprint", "git_commit") if c in rows.columns]
    pairs = sorted({" ".join(str(v) for v in r if v is not None and v == v)
                    for r in rows[cols].drop_duplicates().itertuples(index=False)}) if cols else []
    text = "; ".join(pairs)
    if len(pairs) > 1:
        warnings.warn(f"{figure} mixes cells from different code versions: {text}", stacklevel=2)
    return text


@dataclass
class Drawing:
    """Where one plot stage draws (its figures folder) and what it records as it draws: the code
    versions, run scales and tables behind each figure, the figures written, the claims skipped
    for lack of input, the configurations to highlight."""

    folder: Path
    # The configurations the stage highlights (``--highlight`` or DRIFT_BANDITS_HIGHLIGHT); a
    # drawing function's ``highlight=`` replaces them for its figure (:meth:`highlight_names`).
    highlight: tuple = ()
    # figure -> the code versions behind it ("fingerprint (git commit)"; several joined by "; ")
    versions: dict = field(default_factory=dict)
    # figure -> its run scale (the stage's scale check): "" for the shipped configuration, else a
    # short description ("reduced scale: 2 of 50 trials")
    scales: dict = field(default_factory=dict)
    # figure -> the names of the tables it is drawn from (the closing summary, the stamps)
    sources: dict = field(default_factory=dict)
    # the figures written into the folder
    written: set = field(default_factory=set)
    # figure -> the inputs its skipped claims lacked (one notice per figure at the end)
    skipped: dict = field(default_factory=dict)

    # ------------------------------------------------------------------------- what is recorded

    def record_sources(self, rows: pd.DataFrame, figure: str) -> None:
        """Remember which tables (and which run scales) ``figure`` is drawn from."""
        if TABLE_COLUMN in rows.columns:
            self.sources.setdefault(figure, set()).update(rows[TABLE_COLUMN].dropna().astype(str).unique())
        if SCALE_COLUMN in rows.columns:
            scales = sorted({s for s in rows[SCALE_COLUMN].dropna().astype(str).unique() if s})
            self.scales[figure] = "; ".join(scales)

    def record_versions(self, rows: pd.DataFrame, figure: str) -> str:
        """The code versions behind ``rows`` (:func:`code_versions`), recorded for ``figure``
        with the tables and run scale behind it (:meth:`record_sources`)."""
        self.record_sources(rows, figure)
        text = code_versions(rows, figure)
        self.versions[figure] = text
        return text

    def wrote(self, figure: str) -> None:
        self.written.add(figure)

    def skip(self, figure: str, *missing: str) -> None:
        """Record that claims of ``figure`` were skipped for lack of the inputs ``missing``."""
        self.skipped.setdefault(figure, set()).update(missing)

    # ------------------------------------------------------------------------- what is read

    def scale_banner(self, figure: str) -> str:
        """The banner of a figure drawn from a reduced run ("" for the shipped configuration):
        from the run scale recorded for it (:meth:`record_versions`)."""
        scale = self.scales.get(figure, "")
        return f"{scale} \N{EM DASH} not the paper's figure" if scale else ""

    def highlight_names(self, highlight=None) -> list:
        """The configurations one figure highlights: ``highlight`` where its drawing function was
        given one, else the stage's."""
        return list(self.highlight) if highlight is None else parse_highlight(highlight)

    # ------------------------------------------------------------------------- units

    def for_unit(self) -> Drawing:
        """A Drawing for one unit of the stage: the same folder and highlight, records of its own
        (empty: what the unit draws depends on its tables alone, wherever it is drawn; a figure's
        banner comes from the scale its own unit recorded)."""
        return Drawing(self.folder, self.highlight)

    def take(self, unit: Drawing) -> None:
        """Add what ``unit`` (:meth:`for_unit`) recorded, as if it had been recorded here: a later
        unit's code version and scale of a figure replace an earlier one's, tables and skipped
        inputs add up."""
        self.versions.update(unit.versions)
        self.scales.update(unit.scales)
        self.written |= unit.written
        for mine, theirs in ((self.sources, unit.sources), (self.skipped, unit.skipped)):
            for figure, names in theirs.items():
                mine.setdefault(figure, set()).update(names)
