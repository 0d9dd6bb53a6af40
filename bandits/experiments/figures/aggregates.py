"""Aggregates across the scenarios of a benchmark, as a reviewer expects them: rliable's
conventions (Agarwal, Schwarzer, Castro, Courville & Bellemare, "Deep reinforcement learning
at the edge of the statistical precipice", NeurIPS 2021), written here on numpy and scipy
(the archived ``rliable`` package pins its own stack; what is taken from the paper is named
at each function, regret in place of score, so lower is better throughout).

* **Normalised regret.** Each cell's final regret divided by the mean final regret of the
  reference (:data:`REFERENCE`, the oracle restart, which knows the change points) on the same
  scenario and instance: 1 is the oracle's regret, the reference itself is listed but never
  ranked.
* **Mean and interquartile mean (IQM)** of an algorithm's normalised regrets over every run
  (scenario x instance x trial; the IQM is the mean of the middle 50%, rliable's
  recommendation over the median), with **stratified bootstrap** intervals: every resample
  draws, within each scenario, its instances and then their trials
  (:mod:`bandits.experiments.report.bootstrap`), the same draws for every algorithm.
* **Probability of improvement** P(A < B): per scenario, the chance that a run of A has less
  regret than a run of B (ties count one half; rliable's Mann-Whitney form), averaged over
  scenarios, with its stratified bootstrap interval, for every pair.
* **Performance profiles**: the fraction of scenario-instances on which an algorithm's mean
  regret is within a factor tau of the best learner's there (Dolan & More's profile, the form
  rliable's score distributions take for a "lower is better" measure).
* **Rank distribution**: how often, over the bootstrap resamples, each learner ranks k-th by
  mean normalised regret.

With one instance per scenario the instance stage has nothing to draw and every interval
covers the trials' noise only; the CSVs say how many instances stand behind them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from bandits.experiments.report import bootstrap as bs

REFERENCE = "oracle_restart_ucb"
RESAMPLES = 500  # the probability-of-improvement matrix costs pairs x scenarios per resample
SEED = 20261207
TAUS = np.geomspace(1.0, 30.0, 60)


def nested_by_algo(rows: pd.DataFrame, column: str = "final_regret") -> tuple[list, np.ndarray]:
    """One scenario's rows at one T as (algorithms, array algos x instances x trials), over the
    trials every algorithm and instance has."""
    return bs.nested_by(rows, "algo", column)


def normalised(scenarios: dict, reference: str = REFERENCE) -> tuple[list, dict]:
    """scenario -> rows at one T, as (the learners, scenario -> normalised regret array
    learners x instances x trials), the reference left out of the learners."""
    out, learners = {}, None
    for name, rows in sorted(scenarios.items()):
        algos, x = nested_by_algo(rows)
        if reference not in algos:
            raise ValueError(f"scenario {name} has no {reference} rows to normalise by")
        ref = x[algos.index(reference)].mean(axis=1, keepdims=True)  # per instance
        keep = [a for a in algos if a != reference]
        learners = keep if learners is None else [a for a in learners if a in keep]
        out[name] = (keep, x[[algos.index(a) for a in keep]] / ref)
    return learners, {k: v[[names.index(a) for a in learners]] for k, (names, v) in out.items()}


def iqm(x: np.ndarray, axis=-1) -> np.ndarray:
    """The interquartile mean: the mean of the middle 50% (scipy's trimmed mean, 25% each side)."""
    return stats.trim_mean(x, 0.25, axis=axis)


def stratified_resamples(data: dict, rng: np.random.Generator, B: int) -> dict:
    """Per scenario, B two-stage resamples of its instances x trials (the same for every learner)."""
    return {k: bs.resamples(v.shape[1], v.shape[2], rng, B) for k, v in data.items()}


def pooled(data: dict, draws: dict | None = None) -> np.ndarray:
    """Every learner's runs over the scenarios, learners x runs, or x (B, learners, runs) resampled."""
    if draws is None:
        return np.concatenate([v.reshape(v.shape[0], -1) for v in data.values()], axis=1)
    parts = []
    for k, v in data.items():
        r = draws[k]
        picked = v[:, r.instances[:, :, None], r.trials]  # learners x B x n x m
        parts.append(np.moveaxis(picked, 1, 0).reshape(r.instances.shape[0], v.shape[0], -1))
    return np.concatenate(parts, axis=2)


def aggregate_table(learners: list, data: dict, rng: np.random.Generator, B: int = RESAMPLES) -> pd.DataFrame:
    """Mean and IQM of normalised regret per learner, with stratified bootstrap intervals."""
    draws = stratified_resamples(data, rng, B)
    runs, boot = pooled(data), pooled(data, draws)
    n = min(v.shape[1] for v in data.values())
    out = []
    for name, f in (("mean", lambda x: x.mean(axis=-1)), ("IQM", iqm)):
        point, lo_hi = f(runs), bs.interval(f(boot), n)
        for i, a in enumerate(learners):
            out.append({"algo": a, "statistic": name, "value": float(point[i]),
                        "ci_low": float(lo_hi[0][i]), "ci_high": float(lo_hi[1][i])})
    return pd.DataFrame(out)


def improvement_probability(x: np.ndarray) -> np.ndarray:
    """P[a, b] = P(a run of a has less regret than a run of b), ties one half, for one
    scenario's learners x runs."""
    s = np.sort(x, axis=1)
    k, r = x.shape
    out = np.empty((k, k))
    for b in range(k):
        below = np.searchsorted(s[b], x, side="left")  # runs of b below each run of a
        above = r - np.searchsorted(s[b], x, side="right")  # runs of b above: a is better
        out[:, b] = (above + 0.5 * (r - above - below)).mean(axis=1) / r
    return out


def improvement_matrix(learners: list, data: dict, rng: np.random.Generator, B: int = RESAMPLES) -> pd.DataFrame:
    """P(A better than B) averaged over scenarios, for every pair, with stratified intervals."""
    draws = stratified_resamples(data, rng, B)
    point = np.mean([improvement_probability(v.reshape(v.shape[0], -1)) for v in data.values()], axis=0)
    boot = np.zeros((B, len(learners), len(learners)))
    for k, v in data.items():
        r = draws[k]
        picked = v[:, r.instances[:, :, None], r.trials].reshape(v.shape[0], B, -1)
        for j in range(B):
            boot[j] += improvement_probability(picked[:, j]) / len(data)
    n = min(v.shape[1] for v in data.values())
    lo, hi = bs.interval(boot.reshape(B, -1), n)
    rows = [{"algo": a, "other": b, "p_better": float(point[i, j]), "ci_low": float(lo.reshape(point.shape)[i, j]),
             "ci_high": float(hi.reshape(point.shape)[i, j])}
            for i, a in enumerate(learners) for j, b in enumerate(learners) if i != j]
    return pd.DataFrame(rows)


def performance_profiles(learners: list, data: dict, taus: np.ndarray = TAUS) -> pd.DataFrame:
    """The fraction of scenario-instances on which each learner's mean regret is within tau of
    the best learner's there."""
    ratios = []
    for v in data.values():
        means = v.mean(axis=2)  # learners x instances
        ratios.append(means / means.min(axis=0, keepdims=True))
    r = np.concatenate(ratios, axis=1)  # learners x scenario-instances
    return pd.DataFrame([{"algo": a, "tau": float(t), "fraction": float((r[i] <= t).mean())}
                         for i, a in enumerate(learners) for t in taus])


def rank_distribution(learners: list, data: dict, rng: np.random.Generator, B: int = RESAMPLES) -> pd.DataFrame:
    """How often each learner ranks k-th (1 = least mean normalised regret) over the resamples."""
    boot = pooled(data, stratified_resamples(data, rng, B)).mean(axis=2)  # B x learners
    ranks = stats.rankdata(boot, axis=1, method="min").astype(int)
    k = len(learners)
    return pd.DataFrame([{"algo": a, "rank": r, "frequency": float((ranks[:, i] == r).mean())}
                         for i, a in enumerate(learners) for r in range(1, k + 1)])


def aggregates(scenarios: dict, reference: str = REFERENCE, B: int = RESAMPLES, seed: int = SEED) -> dict:
    """Every aggregate of scenario -> rows at one T: name -> table (see the module docstring)."""
    learners, data = normalised(scenarios, reference)
    rng = np.random.default_rng(seed)
    counts = {k: f"{v.shape[1]} x {v.shape[2]}" for k, v in data.items()}
    return {"learners": learners, "instances_x_trials": counts,
            "aggregate": aggregate_table(learners, data, rng, B),
            "improvement": improvement_matrix(learners, data, rng, B),
            "profiles": performance_profiles(learners, data),
            "ranks": rank_distribution(learners, data, rng, B)}


# ----------------------------------------------------------------------------- figures

def draw(experiment: str, scenarios: dict, drawing, label=lambda a: a) -> list[str]:
    """The four aggregate figures of ``experiment`` (scenario -> rows) at the largest T that
    every scenario has, each with its CSV: ``<experiment>_aggregate`` (mean and IQM),
    ``_improvement`` (the P(A better than B) matrix), ``_profiles`` and ``_ranks``."""
    import matplotlib.pyplot as plt

    from bandits.experiments.figures.charts import save_figure

    T = min(int(rows["T"].max()) for rows in scenarios.values())
    at = {k: rows[rows["T"] == T] for k, rows in scenarios.items()}
    if any(REFERENCE not in set(rows["algo"]) for rows in at.values()):
        drawing.skip(f"{experiment}_aggregate", f"{REFERENCE} in every scenario (the normalising reference)")
        return []
    out = aggregates(at)
    counts = sorted(set(out["instances_x_trials"].values()))
    basis = (f"T = {T:,}; {len(at)} scenarios, instances x trials per scenario: {', '.join(counts)}; regret "
             f"normalised by the oracle restart's mean regret on the same instance; 95% stratified two-stage "
             f"bootstrap intervals ({RESAMPLES} resamples)")
    names = []
    for rows in scenarios.values():
        drawing.record_versions(rows, f"{experiment}_aggregate")

    table = out["aggregate"]
    order = table[table["statistic"] == "IQM"].sort_values("value")["algo"].tolist()
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.28 * len(order) + 1.8), sharey=True)
    for ax, stat in zip(axes, ("IQM", "mean"), strict=True):
        t = table[table["statistic"] == stat].set_index("algo").loc[order]
        y = np.arange(len(order))
        ax.errorbar(t["value"], y, xerr=[t["value"] - t["ci_low"], t["ci_high"] - t["value"]], fmt="o", ms=3)
        ax.axvline(1.0, color="0.6", lw=0.8, ls="--")  # the oracle restart's own regret
        ax.set_xscale("log")
        ax.set_title(f"{stat} of normalised regret (lower is better; 1 = the oracle restart)", fontsize=9)
        ax.set_yticks(y, [label(a) for a in order], fontsize=7)
    axes[0].invert_yaxis()  # the least regret on top
    fig.suptitle(f"{experiment}: aggregates across scenarios", fontsize=10)
    save_figure(fig, table, drawing, f"{experiment}_aggregate", basis)
    names.append(f"{experiment}_aggregate")

    imp = out["improvement"]
    k = len(order)
    matrix = np.full((k, k), np.nan)
    pos = {a: i for i, a in enumerate(order)}
    for r in imp.itertuples(index=False):
        matrix[pos[r.algo], pos[r.other]] = r.p_better
    fig, ax = plt.subplots(figsize=(0.32 * k + 3, 0.32 * k + 2))
    im = ax.imshow(matrix, vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(k), [label(a) for a in order], rotation=90, fontsize=6)
    ax.set_yticks(range(k), [label(a) for a in order], fontsize=6)
    ax.set_xlabel("B"), ax.set_ylabel("A")
    fig.colorbar(im, ax=ax, label="P(A has less regret than B)")
    ax.set_title(f"{experiment}: probability of improvement", fontsize=10)
    drawing.record_versions(next(iter(scenarios.values())), f"{experiment}_improvement")
    save_figure(fig, imp, drawing, f"{experiment}_improvement", basis + "; intervals in the CSV")
    names.append(f"{experiment}_improvement")

    prof = out["profiles"]
    fig, ax = plt.subplots(figsize=(8, 5))
    for a in order:
        p = prof[prof["algo"] == a]
        ax.step(p["tau"], p["fraction"], where="post", lw=1, label=label(a))
    ax.set_xscale("log")
    ax.set_xlabel("tau: mean regret within tau x the best learner's on the scenario-instance")
    ax.set_ylabel("fraction of scenario-instances")
    ax.legend(fontsize=6, ncol=2)
    ax.set_title(f"{experiment}: performance profiles", fontsize=10)
    drawing.record_versions(next(iter(scenarios.values())), f"{experiment}_profiles")
    save_figure(fig, prof, drawing, f"{experiment}_profiles", basis.split("; 95%")[0] + "; point estimates")
    names.append(f"{experiment}_profiles")

    ranks = out["ranks"]
    grid = ranks.pivot(index="algo", columns="rank", values="frequency").loc[order]
    fig, ax = plt.subplots(figsize=(0.32 * k + 3, 0.32 * k + 2))
    im = ax.imshow(grid.to_numpy(), vmin=0, vmax=1, cmap="Greens")
    ax.set_yticks(range(k), [label(a) for a in order], fontsize=6)
    ax.set_xticks(range(k), [str(r) for r in grid.columns], fontsize=6)
    ax.set_xlabel("rank by mean normalised regret (1 = least)")
    fig.colorbar(im, ax=ax, label="fraction of bootstrap resamples")
    ax.set_title(f"{experiment}: rank distribution", fontsize=10)
    drawing.record_versions(next(iter(scenarios.values())), f"{experiment}_ranks")
    save_figure(fig, ranks, drawing, f"{experiment}_ranks", basis)
    names.append(f"{experiment}_ranks")
    return names
