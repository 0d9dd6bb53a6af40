"""The long run's rules for a run with drawn instances (issue 46), fixed in a commit before the
run they judge. ``ctx_long_run`` applies them to a long table whose rows hold instances; a
table of one instance per horizon keeps the earlier rules (issue 36), so that the earlier
verdicts stand as rows of their own next to these.

1. **Intervals.** Every interval is the two-stage bootstrap's
   (:mod:`bandits.experiments.report.bootstrap`; RESAMPLES resamples from BOOTSTRAP_SEED):
   instances, then trials within each. The algorithms of a horizon share both stages
   (paired); horizons share neither (point 5).
2. **Multiplicity.** The long run's CI-based verdicts are one family: per long table, the two
   slope verdicts and the three crossing verdicts, FAMILY = 15 over the three tables. Each
   interval is at the Bonferroni level 1 - 0.05 / FAMILY, so the family's error is at most 5%.
3. **Slopes.** The slope verdict fits log(mean regret) on log T over the horizons of the last
   decade (T >= T_max / 10) and needs at least MIN_HORIZONS of them (else "not measured"); it
   matches the reference when its interval meets [rate - SLOPE_TOLERANCE, rate + SLOPE_TOLERANCE]
   (as before). Reported beside it, with no verdict: the local slopes between consecutive
   horizons of the last decade with their intervals, whether they still fall (the last one's
   interval wholly below the first one's), and the second reading, the exponent a of
   T^a (log T)^b fitted over every horizon.
4. **What the tolerance cannot tell apart.** Over the decade 1e5 to 1e6 a factor (log T)^b
   adds b log(log 1e6 / log 1e5) / log 10 = 0.079 b to a fitted power of T, so a rate T^a log T
   reads as T^(a + 0.079): wider than SLOPE_TOLERANCE. The second reading is there for this.
5. **Horizons paired by instance.** The contextual environment draws each part of instance i
   from its own child stream (``draw_order: by_part``, bandits/environments/drifting_contextual.py),
   so its thetas, policy class and Monte-Carlo contexts are the same at every T and its contexts
   at T are the first T of a longer horizon's: T is the only thing that changes along a slope.
   The horizons therefore share one instance stage (SHARE_INSTANCES = True); the trials, whose
   streams differ between horizons, are resampled within each (T, instance). (Before that
   environment change, committed before this run, the families drew their T-dependent parts
   first, and the rule was False.)
6. **Crossings** as before (the smallest T from which the ratio's interval lies below 1 at that
   and every larger T), at the corrected level.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bandits.experiments.figures.claims import NOT_MEASURED, SLOPE_TOLERANCE
from bandits.experiments.report import bootstrap as bs

RESAMPLES = 2000
BOOTSTRAP_SEED = 20261207
FAMILY = 15
LEVEL = bs.bonferroni_level(0.95, FAMILY)
MIN_HORIZONS = 5
SHARE_INSTANCES = True  # point 5: instance i is the same problem at every T (draw_order: by_part)
LOG_FACTOR_SLOPE = float(np.log(np.log(1e6) / np.log(1e5)) / np.log(10))  # 0.079 per unit of b
REPORTED = "reported (no verdict)"


def nested_regrets(rows: pd.DataFrame) -> dict:
    """(label, T) -> final regrets as instances x trials, over what every label has at T."""
    out = {}
    for T, at in rows.groupby("T"):
        labels, values = bs.nested_by(at, "label")
        out.update({(label, int(T)): x for label, x in zip(labels, values, strict=True)})
    return out


class Draws:
    """The resamples of one long table: per horizon an instance stage (one shared by every
    horizon where ``share``) and a trial stage, both shared by the algorithms."""

    def __init__(self, regrets: dict, rng: np.random.Generator, share: bool = SHARE_INSTANCES,
                 family: int = FAMILY):
        self.family = family  # the verdicts of the family its intervals are corrected over (Bonferroni)
        self.level = bs.bonferroni_level(0.95, family)
        shapes = {T: x.shape for (_, T), x in regrets.items()}
        n = min(s[0] for s in shapes.values())
        self.n = n
        first = bs.resamples(n, 1, rng, RESAMPLES)
        self.by_T = {T: bs.resamples(n, shapes[T][1], rng, RESAMPLES, instances=first.instances if share else None)
                     for T in sorted(shapes)}

    def means(self, regrets: dict, algo: str, T: int) -> np.ndarray:
        return bs.resampled_means(regrets[(algo, T)][: self.n], self.by_T[T])


def drawn_regrets(rows: pd.DataFrame, family: int = FAMILY, share: bool = SHARE_INSTANCES) -> tuple:
    """The nested regrets of a table with drawn instances and their resamples, from the one
    bootstrap seed: (regrets, :class:`Draws`), the intervals corrected over ``family``."""
    regrets = nested_regrets(rows)
    return regrets, Draws(regrets, np.random.default_rng(BOOTSTRAP_SEED), share=share, family=family)


def interval(boot, n: int, level: float = LEVEL) -> tuple:
    return bs.interval(boot, n, level)


def slope_reading(regrets: dict, draws: Draws, algo: str, Ts: list) -> tuple:
    """(slope, lo, hi) of log mean regret on log T over ``Ts``."""
    x = np.log(np.asarray(Ts, dtype=float))
    point = np.polyfit(x, np.log([regrets[(algo, T)].mean() for T in Ts]), 1)[0]
    boot = np.stack([draws.means(regrets, algo, T) for T in Ts], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        fits = np.polyfit(x, np.log(boot).T, 1)[0]
    lo, hi = interval(fits, draws.n, draws.level)
    return float(point), lo, hi


def log_factor_reading(regrets: dict, algo: str, Ts: list) -> tuple | None:
    """(a, b) of log R = a log T + b log log T + c over every horizon (None below 4 horizons)."""
    if len(Ts) < 4:
        return None
    logT = np.log(np.asarray(Ts, dtype=float))
    design = np.column_stack([logT, np.log(logT), np.ones_like(logT)])
    coef = np.linalg.lstsq(design, np.log([regrets[(algo, T)].mean() for T in Ts]), rcond=None)[0]
    return float(coef[0]), float(coef[1])


def last_decade(regrets: dict, algo: str) -> tuple:
    """(the horizons of ``algo``'s last decade, whether its slope is measured there: at least
    MIN_HORIZONS of them and every mean regret positive)."""
    Ts = sorted({T for a, T in regrets if a == algo})
    last = [T for T in Ts if T >= Ts[-1] / 10]
    return last, len(last) >= MIN_HORIZONS and all(regrets[(algo, T)].mean() > 0 for T in last)


def not_measured(claim: str, name: str, expected: str) -> dict:
    """The row of a slope that :func:`last_decade` does not measure, with the reason."""
    return {"claim": claim, "figure": name, "expected": expected, "verdict": NOT_MEASURED,
            "measured": f"n/a (fewer than {MIN_HORIZONS} horizons in the last decade, or a non-positive mean regret)"}


def slope_claims(regrets: dict, draws: Draws, algo: str, label: str, name: str, exponent: float,
                 reference: str) -> list[dict]:
    Ts = sorted({T for a, T in regrets if a == algo})
    last, measured = last_decade(regrets, algo)
    n, trials = draws.n, min(regrets[(algo, T)].shape[1] for T in Ts)
    basis = (f"{n} instances x {trials} trials, {draws.level:.4f} two-stage bootstrap intervals "
             f"(Bonferroni over {draws.family})")
    claim = (f"{label} regret slope over the last decade (T = {last[0]:,} to {last[-1]:,}, {len(last)} horizons) "
             f"against the {reference} reference; {basis}")
    expected = f"{exponent:.3f} +- {SLOPE_TOLERANCE} (the interval meets it)"
    if not measured:
        return [not_measured(claim, name, expected)]
    slope, lo, hi = slope_reading(regrets, draws, algo, last)
    out = [{"claim": claim, "figure": name, "measured": f"{slope:.3f} [{lo:.3f}, {hi:.3f}]", "expected": expected,
            "verdict": "below bound" if hi < exponent - SLOPE_TOLERANCE else
            "exceeds bound" if lo > exponent + SLOPE_TOLERANCE else "agrees"}]
    local = [slope_reading(regrets, draws, algo, [a, b]) for a, b in zip(last, last[1:], strict=False)]
    falling = local[-1][2] < local[0][1]
    out.append({"claim": f"{label}: local slopes between consecutive horizons of the last decade; {basis}",
                "figure": name, "measured": "; ".join(f"{s:.3f} [{lo_:.3f}, {hi_:.3f}]" for s, lo_, hi_ in local)
                + (" (still falling)" if falling else " (not shown to fall)"),
                "expected": "reported", "verdict": REPORTED})
    fit = log_factor_reading(regrets, algo, Ts)
    if fit is not None:
        out.append({"claim": f"{label}: the second reading, log R = a log T + b log log T + c over every horizon",
                    "figure": name, "measured": f"a = {fit[0]:.3f}, b = {fit[1]:.2f}",
                    "expected": f"reported (a (log T)^b factor moves a one-decade slope by {LOG_FACTOR_SLOPE:.3f} b)",
                    "verdict": REPORTED})
    return out


def ratio_curve(regrets: dict, draws: Draws, first: str, second: str) -> pd.DataFrame:
    """mean regret(first) / mean regret(second) per T, with its paired two-stage interval."""
    out = []
    for T in sorted(draws.by_T):
        a, b = regrets[(first, T)], regrets[(second, T)]
        with np.errstate(divide="ignore", invalid="ignore"):
            boot = draws.means(regrets, first, T) / draws.means(regrets, second, T)
        lo, hi = interval(boot, draws.n, draws.level)
        out.append({"pair": f"{first} / {second}", "first": first, "second": second, "T": int(T),
                    "trials": int(a.size), "instances": int(a.shape[0]), "ratio": float(a.mean() / b.mean()),
                    "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(out)
