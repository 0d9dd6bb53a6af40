"""Claims: the verdict words and tolerances, the slope claim under the slope rule,
claims skipped for lack of input, ``claims.csv`` and its printed form."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd

from bandits.experiments.figures.common import LINE_WIDTH, measured_slope, notice
from bandits.experiments.figures.drawing import Drawing

CLAIM_COLUMNS = ["claim", "figure", "measured", "expected", "verdict", "source", "code", "scale"]
PAPER_SCALE = "paper"  # the scale of a claim made from its experiment's shipped run

# Tolerances fixed before looking at any result (README, "Claims"): a fitted slope
# "matches" theory within +-0.1; "about 20%" means a ratio in [0.1, 0.3].
SLOPE_TOLERANCE = 0.1
RATIO_ABOUT_20 = (0.1, 0.3)
NOT_MEASURED = "not measured"


def verdict(ok: bool) -> str:
    return "agrees" if ok else "disagrees"


def slope_verdict(slope: float, exponent: float) -> str:
    """The theoretical exponents are upper-bound rates: a slope well below one is
    consistent with the bound but does not "roughly match" it, so it gets its own word."""
    if abs(slope - exponent) <= SLOPE_TOLERANCE:
        return "agrees"
    return "below bound" if slope < exponent else "exceeds bound"


def slope_claim(claim: str, figure: str, curve: pd.DataFrame, expected: str, judge) -> dict:
    """A claim on one curve's fitted slope (``curve``: regret_by_T rows of one
    configuration), judged by ``judge(slope)``; where the slope rule measures no slope
    the row says why and the verdict is ``not measured``."""
    slope, why_not = measured_slope(curve["T"], curve["mean_regret"])
    if why_not:
        return {"claim": claim, "figure": figure, "measured": f"n/a ({why_not})", "expected": expected,
                "verdict": NOT_MEASURED}
    return {"claim": claim, "figure": figure, "measured": round(slope, 3), "expected": expected,
            "verdict": judge(slope)}


# ----------------------------------------------------------------------------- skipped claims

def have(drawing: Drawing, figure: str, available, needed) -> bool:
    """Whether every configuration (or table) in ``needed`` is among ``available``; if
    not, the claim is skipped and ``drawing`` records the missing inputs for ``figure``
    (:meth:`~bandits.experiments.figures.drawing.Drawing.skip`)."""
    missing = set(needed) - set(available)
    if missing:
        drawing.skip(figure, *missing)
    return not missing


def report_skipped(drawing: Drawing) -> None:
    """One notice per figure whose claims ``drawing`` skipped, naming the missing inputs."""
    for figure, missing in sorted(drawing.skipped.items()):
        notice(figure, f"claims skipped, missing input: {', '.join(sorted(missing))}", "")


# ----------------------------------------------------------------------------- claims.csv

def write_claims(results: Path, new: list[dict], drawing: Drawing, replotted=()) -> pd.DataFrame:
    """Replace the rows of the re-plotted figures (those of ``new`` and the names in
    ``replotted``) in claims.csv, keep the others. ``source`` says where the numbers
    come from: simulation, the synthetic surrogate, or the real CPRM-12-001 data;
    ``code`` the code versions ``drawing`` recorded for the row's figure; ``scale`` whether
    they come from the experiment's shipped run ("paper") or from a reduced or changed one
    (its description, the stage's scale check, as recorded in ``drawing``; rows of a file
    written before the column existed are "paper")."""
    path = results / "claims.csv"
    new = [{**row, "source": row.get("source", "simulation"), "code": drawing.versions.get(row["figure"], ""),
            "scale": row.get("scale") or drawing.scales.get(row["figure"]) or PAPER_SCALE} for row in new]
    new_df = pd.DataFrame(new, columns=CLAIM_COLUMNS)
    if path.exists():
        old = pd.read_csv(path)
        if "source" not in old.columns:
            old["source"] = "simulation"
        if "code" not in old.columns:
            old["code"] = ""
        old["scale"] = old["scale"].fillna(PAPER_SCALE) if "scale" in old.columns else PAPER_SCALE
        old = old[~old["figure"].isin(set(new_df["figure"]) | set(replotted))]
        new_df = pd.concat([old, new_df], ignore_index=True)
    new_df = new_df.sort_values("figure", kind="stable").reset_index(drop=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    new_df.to_csv(path, index=False)
    return new_df


def format_claims(table: pd.DataFrame, width: int = LINE_WIDTH) -> str:
    """The claims table for a terminal: figure and verdict, then the claim and what was
    measured against what was expected, wrapped to ``width`` columns."""
    if table.empty:
        return "no claims"
    fig_w = min(int(table["figure"].astype(str).str.len().max()), 24)
    verdict_w = min(int(table["verdict"].astype(str).str.len().max()), 22)
    indent = fig_w + verdict_w + 4
    text_w = width - indent
    lines = [f"{'figure':<{fig_w}}  {'verdict':<{verdict_w}}  claim / measured; expected", "-" * width]
    for row in table.itertuples(index=False):
        detail = f"measured {row.measured}; expected {row.expected}"
        if pd.notna(row.source) and row.source != "simulation":
            detail += f"; source {row.source}"
        if pd.notna(row.scale) and row.scale != PAPER_SCALE:
            detail += f"; {str(row.scale).split(':')[0]}"  # "reduced scale" (claims.csv has the details)
        body = textwrap.wrap(str(row.claim), text_w) + textwrap.wrap(detail, text_w, initial_indent="  ",
                                                                      subsequent_indent="  ")
        lines.append(f"{str(row.figure)[:fig_w]:<{fig_w}}  {str(row.verdict)[:verdict_w]:<{verdict_w}}  {body[0]}")
        lines += [" " * indent + text for text in body[1:]]
    return "\n".join(lines)
