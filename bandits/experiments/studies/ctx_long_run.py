"""The contextual experiments at long horizons (``make ctx-long``; docs/ada.md, "The long run").

C1 and C2 at T = 1e4 ... 1e6 (``ctx_switch_long``, ``ctx_switch_growing_long``,
``ctx_drift_long``) and C3 at T = 1e6 (``ctx_delay_long_shift<size>``) answer the ada paper's
questions with numbers, each with a bootstrap CI over trials:

1. Ada-ILTCB+'s fitted slope over the last decade of T against the reference rate (1/2 with S
   fixed, 2/3 with S = T^(1/3) and for the Delta^(1/3) T^(2/3) instance);
2. the T from which it beats ILTCB (no restarts) and epsilon-greedy, if it does;
3. replay against no replay as a function of T: where, if anywhere, the curves cross;
4. the theory preset against the practical one: does the theory preset ever restart?

The rules below were fixed in a commit before the long run (issue 36), and the verdicts
follow them whatever the numbers are. Figures: each table's log-log regret against T, the
ratios of mean regrets against T with their bootstrap CIs (``<table>_ratios``), the timeline
of one Ada-ILTCB+ trial at T = 1e6 (``ctx_timeline_long``) and C3's detection delays
(``ctx_delay_long``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bandits.experiments.figures.charts import loglog_figure, save_figure
from bandits.experiments.figures.claims import NOT_MEASURED, SLOPE_TOLERANCE, have
from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.figures.names import LABELS
from bandits.experiments.report.bootstrap import instance_count
from bandits.experiments.studies import CTX_LONG, Run
from bandits.experiments.studies import ctx_long_rules as rules
from bandits.experiments.studies.ctx_synthetic import ADA, ADA_LABEL, THEORY, detection_delays, events, timeline_figure

# table -> (exponent, reference text): the one-instance tables (issue 36) and, next to them, the
# same with drawn instances (issue 46; ctx_long_rules)
LONG = {f"{name}{suffix}": rate for suffix in ("_long", "_long_instances") for name, rate in THEORY.items()}
DELAY_PREFIX = "ctx_delay_long_shift"
# make ctx-long alone (about an hour on 2 cores; not part of make figures or CI)
EXPERIMENTS = (*(Run(name, release=CTX_LONG)
                 for name in ("ctx_switch_long", "ctx_switch_growing_long", "ctx_drift_long")),
               *(Run(f"{name}_instances", release=CTX_LONG)
                 for name in ("ctx_switch_long", "ctx_switch_growing_long", "ctx_drift_long")),
               Run("ctx_delay_long", sweep=("env.shift=0.25,0.5,1.0",), release=CTX_LONG))
TABLES = (*LONG, f"{DELAY_PREFIX}[0-9]*")

# Fixed before the run (issue 36). Each CI is the percentile interval of BOOTSTRAP resamples of
# the trials (drawn with replacement, the same trials for every algorithm and horizon, since an
# algorithm's trials share their instance and reward draws with the others'), from BOOTSTRAP_SEED.
BOOTSTRAP = 2000
BOOTSTRAP_SEED = 20261203
CI_LEVEL = 0.95
# 1. The slope over the last decade (the horizons T >= T_max / 10) matches the reference when its
# CI meets [rate - SLOPE_TOLERANCE, rate + SLOPE_TOLERANCE]; a CI wholly above "exceeds bound",
# wholly below "below bound" (an upper-bound rate: a slower growth is consistent with it).
# 2, 3. A beats B from T0 when the CI of mean regret(A) / mean regret(B) lies below 1 at T0 and at
# every larger horizon of the run; "never" when it does not at the largest.
BEATEN = (("iltcb", "ILTCB (no restarts)"), ("epsilon_greedy", "epsilon-greedy"))
NOREPLAY = "ada_iltcb_plus_noreplay"
THEORY_PRESET = "ada_iltcb_plus_theory"
RATIO_PAIRS = ((ADA, "iltcb"), (ADA, "epsilon_greedy"), (ADA, NOREPLAY), (THEORY_PRESET, ADA))


def claim_figures(tables) -> set:
    """The figure names this module's claims use for ``tables``."""
    out = {"ctx_delay_long"} if any(name.startswith(DELAY_PREFIX) for name in tables) else set()
    return out | {name for name in tables if name in LONG} | {f"{name}_ratios" for name in tables if name in LONG}


def draw(tables: dict, drawing: Drawing) -> list[dict]:
    claims = []
    for name in (n for n in LONG if n in tables):
        claims += long_run(name, tables[name], drawing)
    if "ctx_switch_long" in tables:
        timeline_figure(tables["ctx_switch_long"], drawing, figure="ctx_timeline_long", steps_only=True)
    delays = {name: rows for name, rows in tables.items() if name.startswith(DELAY_PREFIX)}
    if delays:
        claims += detection_delays(delays, drawing, figure="ctx_delay_long", prefix=DELAY_PREFIX)
    return claims


def final_regrets(rows: pd.DataFrame) -> dict:
    """(algo, T) -> final regrets ordered by trial, for the trials every configuration has at T."""
    out = {}
    for T, at in rows.groupby("T"):
        trials = sorted(set.intersection(*(set(g["trial"]) for _, g in at.groupby("label"))))
        for algo, g in at.groupby("label"):
            g = g.set_index("trial").loc[trials]
            out[(str(algo), int(T))] = g["final_regret"].to_numpy(dtype=float)
    return out


def resamples(n: int, rng: np.random.Generator) -> np.ndarray:
    """BOOTSTRAP resamples of n trials (indices), the same for every algorithm and horizon."""
    return rng.integers(0, n, size=(BOOTSTRAP, n))


def percentile_ci(values: np.ndarray) -> tuple[float, float]:
    tail = (1 - CI_LEVEL) / 2 * 100
    return float(np.percentile(values, tail)), float(np.percentile(values, 100 - tail))


def slope_with_ci(regrets: dict, algo: str, Ts: list, rng: np.random.Generator) -> tuple[float, float, float]:
    """Least-squares slope of log(mean final regret) on log T over ``Ts``, and its bootstrap CI."""
    x = np.log(np.asarray(Ts, dtype=float))
    means = np.array([regrets[(algo, T)].mean() for T in Ts])
    n = min(len(regrets[(algo, T)]) for T in Ts)
    idx = resamples(n, rng)
    boot = np.stack([regrets[(algo, T)][:n][idx].mean(axis=1) for T in Ts], axis=1)  # (BOOTSTRAP, len(Ts))
    with np.errstate(divide="ignore", invalid="ignore"):
        fits = np.polyfit(x, np.log(boot).T, 1)[0]
    lo, hi = percentile_ci(fits[np.isfinite(fits)])
    return float(np.polyfit(x, np.log(means), 1)[0]), lo, hi


def ratio_curve(regrets: dict, first: str, second: str, Ts: list, rng: np.random.Generator) -> pd.DataFrame:
    """mean regret(first) / mean regret(second) at each T, with its bootstrap CI (paired trials)."""
    out = []
    for T in Ts:
        a, b = regrets[(first, T)], regrets[(second, T)]
        n = min(len(a), len(b))
        idx = resamples(n, rng)
        with np.errstate(divide="ignore", invalid="ignore"):
            boot = a[:n][idx].mean(axis=1) / b[:n][idx].mean(axis=1)
        lo, hi = percentile_ci(boot[np.isfinite(boot)])
        out.append({"pair": f"{first} / {second}", "first": first, "second": second, "T": int(T), "trials": n,
                    "ratio": float(a[:n].mean() / b[:n].mean()), "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(out)


def beats_from(curve: pd.DataFrame):
    """The smallest T of the run from which the ratio's CI lies below 1 at every larger T, or None."""
    below = (curve.sort_values("T")["ci_high"] < 1.0).to_numpy()
    Ts = curve.sort_values("T")["T"].to_numpy()
    if not below[-1]:
        return None
    k = len(below) - 1
    while k > 0 and below[k - 1]:
        k -= 1
    return int(Ts[k])


def long_run(name: str, rows: pd.DataFrame, drawing: Drawing) -> list[dict]:
    """One long table: its log-log figure, the ratio figure, and the claims of questions 1-4
    (a table with drawn instances: the rules of :mod:`~bandits.experiments.studies.ctx_long_rules`)."""
    exponent, reference = THEORY[name.removesuffix("_instances").removesuffix("_long")]
    theory = {a: (exponent, reference.split(" ")[0]) for a in rows["label"].unique()}
    title = f"{name}: dynamic regret against T up to {int(rows['T'].max()):,} (K = 5, d = 10, N = 500)"
    loglog_figure(rows, name, title, theory, drawing)
    if instance_count(rows) > 1:
        return long_run_instances(name, rows, drawing, exponent, reference)
    regrets = final_regrets(rows)
    Ts = sorted({T for _, T in regrets})
    algos = {a for a, _ in regrets}
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    claims = []
    last = [T for T in Ts if T >= Ts[-1] / 10]
    expected = f"{exponent:.3f} +- {SLOPE_TOLERANCE} (95% CI meets it)"
    for algo in (ADA, THEORY_PRESET):
        if not have(drawing, name, algos, [algo]):
            continue
        claim = (f"{LABELS.get(algo, ADA_LABEL) if algo != ADA else ADA_LABEL} regret slope over the last decade "
                 f"(T = {last[0]:,} to {last[-1]:,}) against the {reference} reference, bootstrap 95% CI")
        if len(last) < 2 or any(regrets[(algo, T)].mean() <= 0 for T in last):
            claims.append({"claim": claim, "figure": name, "measured": "n/a (fewer than 2 horizons in the last "
                           "decade, or a non-positive mean regret)", "expected": expected, "verdict": NOT_MEASURED})
            continue
        slope, lo, hi = slope_with_ci(regrets, algo, last, rng)
        claims.append({"claim": claim, "figure": name, "measured": f"{slope:.3f} [{lo:.3f}, {hi:.3f}]",
                       "expected": expected, "verdict": ci_slope_verdict(lo, hi, exponent)})
    curves = [ratio_curve(regrets, a, b, Ts, rng) for a, b in RATIO_PAIRS if {a, b} <= algos]
    if curves:
        ratios_figure(name, pd.concat(curves, ignore_index=True), rows, drawing)
    by_pair = {(c["first"].iloc[0], c["second"].iloc[0]): c for c in curves}
    figure = f"{name}_ratios"
    for other, text in BEATEN:
        if have(drawing, figure, algos, [ADA, other]):
            claims.append(crossing_claim(f"{ADA_LABEL} beats {text}: the smallest T from which the 95% CI of "
                                         f"the ratio of mean regrets lies below 1", figure, by_pair[(ADA, other)],
                                         "some T <= 1e6 (the paper: its rate beats a learner without restarts, "
                                         "and a fixed exploration rate, whose regret is linear in T)"))
    if have(drawing, figure, algos, [ADA, NOREPLAY]):
        claims.append(crossing_claim("replay phases pay for themselves: the smallest T from which Ada-ILTCB+ "
                                     "with replay has lower regret than without (95% CI of the ratio below 1)",
                                     figure, by_pair[(ADA, NOREPLAY)],
                                     "some T <= 1e6 (the paper's rate needs the replays)"))
    if have(drawing, name, algos, [THEORY_PRESET]):
        claims.append(theory_restarts(name, rows))
    return claims


def long_run_instances(name: str, rows: pd.DataFrame, drawing: Drawing, exponent: float, reference: str) -> list:
    """Questions 1-4 on a table with drawn instances, by the rules fixed in ``ctx_long_rules``."""
    regrets, draws = rules.drawn_regrets(rows)
    algos = {a for a, _ in regrets}
    claims = []
    for algo in (ADA, THEORY_PRESET):
        if have(drawing, name, algos, [algo]):
            label = ADA_LABEL if algo == ADA else LABELS.get(algo, algo)
            claims += rules.slope_claims(regrets, draws, algo, label, name, exponent, reference)
    curves = [rules.ratio_curve(regrets, draws, a, b) for a, b in RATIO_PAIRS if {a, b} <= algos]
    if curves:
        ratios_figure(name, pd.concat(curves, ignore_index=True), rows, drawing,
                      band=f"bands: {rules.LEVEL:.4f} two-stage bootstrap intervals ({rules.RESAMPLES} resamples of "
                           f"{draws.n} instances, then their trials; Bonferroni over {rules.FAMILY} verdicts)")
    by_pair = {(c["first"].iloc[0], c["second"].iloc[0]): c for c in curves}
    figure = f"{name}_ratios"
    level = f"{rules.LEVEL:.4f} interval, Bonferroni over {rules.FAMILY}"
    for other, text in BEATEN:
        if have(drawing, figure, algos, [ADA, other]):
            claims.append(crossing_claim(f"{ADA_LABEL} beats {text}: the smallest T from which the {level} of the "
                                         f"ratio of mean regrets lies below 1 ({draws.n} instances)", figure,
                                         by_pair[(ADA, other)], "some T <= 1e6"))
    if have(drawing, figure, algos, [ADA, NOREPLAY]):
        claims.append(crossing_claim(f"replay phases pay for themselves: the smallest T from which Ada-ILTCB+ with "
                                     f"replay has lower regret than without ({level} of the ratio below 1, "
                                     f"{draws.n} instances)", figure, by_pair[(ADA, NOREPLAY)], "some T <= 1e6"))
    if have(drawing, name, algos, [THEORY_PRESET]):
        claims.append(theory_restarts(name, rows))
    return claims


def ci_slope_verdict(lo: float, hi: float, exponent: float) -> str:
    if hi < exponent - SLOPE_TOLERANCE:
        return "below bound"
    if lo > exponent + SLOPE_TOLERANCE:
        return "exceeds bound"
    return "agrees"


def crossing_claim(claim: str, figure: str, curve: pd.DataFrame, expected: str) -> dict:
    T0 = beats_from(curve)
    top = curve.sort_values("T").iloc[-1]
    at_top = f"ratio at T = {int(top['T']):,}: {top['ratio']:.2f} [{top['ci_low']:.2f}, {top['ci_high']:.2f}]"
    measured = f"from T = {T0:,}; {at_top}" if T0 is not None else f"never at T <= {int(top['T']):,}; {at_top}"
    return {"claim": claim, "figure": figure, "measured": measured, "expected": expected,
            "verdict": "agrees" if T0 is not None else "disagrees"}


def theory_restarts(name: str, rows: pd.DataFrame) -> dict:
    """The theory preset's restarts at each T of the run, summed over its trials."""
    theory = rows[rows["label"] == THEORY_PRESET]
    counts = {int(T): int(sum(len(events(row).get("restarts", [])) for _, row in g.iterrows()))
              for T, g in theory.groupby("T")}
    total = sum(counts.values())
    per_T = ", ".join(f"{T:,}: {n}" for T, n in sorted(counts.items()))
    return {"claim": "the theory preset restarts at some T <= 1e6 (restarts summed over its trials, per T)",
            "figure": name, "measured": f"{total} restarts in {len(theory)} runs ({per_T})",
            "expected": "0 (its test thresholds D1 Kbar nu stay above every gap at T <= 1e6: docs/ada.md)",
            "verdict": "agrees" if total == 0 else "disagrees"}


def ratios_figure(name: str, data: pd.DataFrame, rows: pd.DataFrame, drawing: Drawing, band: str = "") -> None:
    """Ratio of mean final regrets against T (log-log), one curve per pair, 95% bootstrap CIs."""
    import matplotlib.pyplot as plt

    figure = f"{name}_ratios"
    data = data.assign(code=drawing.record_versions(rows, figure))
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for k, (_, g) in enumerate(data.groupby("pair", sort=False)):
        first, second = g["first"].iloc[0], g["second"].iloc[0]
        label = f"{LABELS.get(first, first)} / {LABELS.get(second, second)}"
        ax.plot(g["T"], g["ratio"], marker="osD^"[k % 4], label=label)
        ax.fill_between(g["T"], g["ci_low"], g["ci_high"], alpha=0.2)
    ax.axhline(1.0, color="black", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("T")
    ax.set_ylabel("ratio of mean final dynamic regrets")
    ax.set_title(f"{name}: who wins as T grows (below 1: the first wins)", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    trials = int(data["trials"].min())
    save_figure(fig, data, drawing, figure, band or f"bands: 95% percentile bootstrap CI ({BOOTSTRAP} resamples of "
                                                    f"{trials} paired trials)")
