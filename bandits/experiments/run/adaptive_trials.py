"""``trials=auto``: add trials in rounds until every algorithm is told apart from the best one,
or a cap is reached.

The rule (a group-sequential paired comparison against the best, Bonferroni-corrected):

* the looks are fixed before the first trial runs: ``auto.first`` trials, then ``auto.step``
  more at each look, up to ``auto.max_trials`` (K looks in all);
* at each look, per table and horizon T, the best configuration is the one with the lowest
  mean final regret, and every other configuration a is compared with it on the trials both
  ran: the paired differences d_i = regret_a,i - regret_best,i (every algorithm of a trial
  sees the same rewards, so the pairing removes the trial's own luck), and their Student-t
  interval mean(d) +- t_{1 - alpha/2, n-1} sd(d) / sqrt(n) at alpha = (1 - auto.confidence) /
  (m K), with m the number of such pairs: a union bound over the pairs and the looks, so that
  with probability at least ``auto.confidence`` every interval of every look covers its mean;
* a pair is resolved when its interval lies above 0 (worse than the best) or, with
  ``auto.precision`` set, inside (-precision, +precision) (within the stated precision of the
  best: a difference too small to matter), or when the two ran identically on every trial;
* the run stops at the first look at which every pair is resolved, else at the cap, and says
  which pairs remain unresolved.

The trials are those of ``trials=n``: a trial's seeds depend on its index alone, so an auto run's
first n trials are bit-identical to ``trials=n`` (and reuse its stored cells). rlberry's AdaStop
(Mathieu et al., "AdaStop: adaptive statistical testing for sound comparisons of deep RL
agents", repository TimotheeMathieu/adastop) is the model for the looks fixed in advance and
the family-wise error over all comparisons; it tests independent runs with permutation tests and
a step-down procedure, where the trials here are paired, so a paired t-interval is used, and
the union bound in place of the step-down (simpler to state, and conservative).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bandits.experiments.setup.auto_trials import AutoTrials

WORSE, WITHIN, IDENTICAL, UNRESOLVED = "worse than the best", "within the precision", "identical", "unresolved"


def compare_with_best(rows: pd.DataFrame, auto: AutoTrials) -> pd.DataFrame:
    """One row per (table, T, configuration other than the best): the best's label, the paired
    trials, the mean difference of final regret and its interval, and the verdict."""
    from bandits.experiments.report.summary import t_interval

    groups = []
    for (experiment, T), g in rows.groupby(["experiment", "T"], sort=True):
        wide = g.pivot_table(index="trial", columns="label", values="final_regret", aggfunc="first",
                             observed=True).dropna()
        if wide.shape[1] < 2:
            continue
        means = wide.mean()
        best = means.sort_index().idxmin()  # ties: the first label in order
        groups += [(experiment, int(T), best, label, (wide[label] - wide[best]).to_numpy())
                   for label in sorted(wide.columns) if label != best]
    columns = ["experiment", "T", "best", "label", "trials", "difference", "low", "high", "verdict"]
    if not groups:
        return pd.DataFrame(columns=columns)
    alpha = (1 - auto.confidence) / (len(groups) * len(auto.looks()))
    out = []
    for experiment, T, best, label, d in groups:
        n, mean = len(d), float(np.mean(d))
        if n >= 2 and np.all(d == d[0]):
            low = high = mean
        elif n >= 2:
            _, low, high = t_interval(d, level=1 - alpha)
        else:
            low, high = -math.inf, math.inf
        if n >= 2 and np.all(d == 0):
            verdict = IDENTICAL
        elif low > 0:
            verdict = WORSE
        elif auto.precision is not None and -auto.precision < low and high < auto.precision:
            verdict = WITHIN
        else:
            verdict = UNRESOLVED
        out.append([experiment, T, best, label, n, mean, low, high, verdict])
    return pd.DataFrame(out, columns=columns)


def trials_needed(r) -> str:
    """For an unresolved pair, the trials that would tell it apart if its difference and spread
    stay what they are: the half-width shrinks as 1 / sqrt(n), so n (h / |d|)^2 (a rough guide,
    not a promise; '' when the difference is 0)."""
    half, d = (r.high - r.low) / 2, abs(r.difference)
    if not d > 0 or not np.isfinite(half):
        return ""
    return f"; about {int(np.ceil(r.trials * (half / d) ** 2)):,} trials would resolve it if the difference stays"


def verdict_text(pairs: pd.DataFrame, auto: AutoTrials, trials: int, stopped: str) -> str:
    """What the comparison found: the rule, the looks, and each pair still unresolved."""
    rule = (f"trials=auto ({stopped} at {trials} trials; looks at {', '.join(map(str, auto.looks()))}): each "
            f"configuration against the best of its table and T, paired by trial, {auto.confidence:.0%} "
            "nominal confidence over the pairs and looks (Bonferroni; the best is chosen again from the data "
            "at each look, which the bound does not cover)" +
            (f", resolved within +-{auto.precision:g} regret" if auto.precision is not None else ""))
    if pairs.empty:
        return f"{rule}: nothing to compare (one configuration per table and T)."
    open_ = pairs[pairs["verdict"] == UNRESOLVED]
    counts = pairs["verdict"].value_counts()
    found = "; ".join(f"{counts[v]} {v}" for v in (WORSE, WITHIN, IDENTICAL, UNRESOLVED) if v in counts)
    lines = [f"{rule}.", f"pairs against the best: {found}."]
    if not open_.empty:
        lines.append("unresolved (difference of final regret to the best, interval):")
        for r in open_.itertuples():
            lines.append(f"  {r.experiment} T={r.T}: {r.label} - {r.best} = {r.difference:.1f} "
                         f"[{r.low:.1f}, {r.high:.1f}] over {r.trials} trials{trials_needed(r)}")
    return "\n".join(lines)


def run_auto(setups: list, auto: AutoTrials, run_look, log) -> tuple[pd.DataFrame, str]:
    """Run the looks of ``auto``: ``run_look(setups)`` runs the trials ``setup.trials_from`` to
    ``setup.trials`` of every setup and returns their rows; stop once every pair is resolved.
    Returns every trial's rows and the verdict (:func:`verdict_text`); ``log`` is told of each
    look that adds trials."""
    parts, done = [], 0
    looks = auto.looks()
    for k, n in enumerate(looks):
        for s in setups:
            s.trials_from, s.trials = done, n
        parts.append(run_look(setups))
        done = n
        rows = pd.concat(parts, ignore_index=True)
        pairs = compare_with_best(rows, auto)
        open_ = int((pairs["verdict"] == UNRESOLVED).sum()) if not pairs.empty else 0
        if open_ == 0:
            return rows, verdict_text(pairs, auto, n, "every pair resolved")
        if k + 1 < len(looks):
            log(f"trials=auto: {n} trials, {open_} of {len(pairs)} pairs against the best unresolved: "
                f"{looks[k + 1] - n} more trials.")
    return rows, verdict_text(pairs, auto, done, "stopped at the cap, auto.max_trials")
