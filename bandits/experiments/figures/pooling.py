"""What a figure pools, said in its caption: the instances behind its curves, and whether
the rewards vary from one trial to the next.

An instance is one draw of a problem: its environment configuration and root seed at one
horizon T (each T draws its own). A figure pools only what is one experiment: the trials
of one instance, or the instances of one stated generator (a sweep over root seeds of one
configuration). Its caption says which, with the counts: "one instance, noise varies",
"3 trials each on 2 instances: root seeds 0, 1; noise varies". A table of your own that
holds runs with several root seeds gets a curve per seed where that stays readable
(:func:`separate_seeds`), else one pooled curve whose caption names the seeds.

Noise. ``env_info``'s ``trial_noise`` (evaluation data: false when every trial replays the
same rewards) decides "noise varies" against "the same rewards replayed; the algorithms' own
randomness varies". A table written before the key existed is read as drawing its rewards
per trial, except where its ``env_info`` shows otherwise: a ``table`` problem whose rewards
came from the file (``noise: replayed``), a ``contextual_table`` (its ``source`` recorded)
without the rotation drift, whose rewards are the data's own.
"""

from __future__ import annotations

import json

import pandas as pd

from bandits.experiments.report import bootstrap

NOISE = "noise varies"
REPLAYED = "the same rewards replayed; the algorithms' own randomness varies"
MIXED_NOISE = "noise varies in some instances, the same rewards are replayed in others"
CONTEXTUAL_TABLE_SOURCES = ("file", "supervised", "river")
NESTED = " instances x "  # in a caption: the rows hold drawn instances (instances=N)
MAX_SEED_CURVES = 8  # a table of your own with several seeds: a curve per (configuration, seed) up to this many


def mean_over(rows: pd.DataFrame) -> str:
    """What an axis's mean is taken over: "mean over trials", or "mean over instances x trials"
    where ``rows`` hold drawn instances (instances=N)."""
    return "mean over instances x trials" if bootstrap.instance_count(rows) > 1 else "mean over trials"


def _dict(text) -> dict:
    if isinstance(text, dict):
        return text
    try:
        value = json.loads(text) if isinstance(text, str) else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def trial_noise(env_info, env_params=None) -> bool:
    """Whether the rewards of one row's problem are drawn afresh in every trial (the
    module docstring): ``trial_noise`` where recorded, else derived where ``env_info``
    shows that the rewards are replayed, else True."""
    info = _dict(env_info)
    recorded = info.get("trial_noise")
    if isinstance(recorded, bool):
        return recorded
    if info.get("noise") == "replayed":  # the table environment with the file's rewards
        return False
    if info.get("source") in CONTEXTUAL_TABLE_SOURCES and "regret_gap_best_action" in info:
        return _dict(env_params).get("drift") == "rotation"  # the only drift that draws rewards per trial
    return True


def seeds_of(rows: pd.DataFrame) -> list:
    return sorted(int(s) for s in rows["seed"].dropna().unique()) if "seed" in rows.columns else []


def listed(values, most: int = 4) -> str:
    """``0, 1, 2`` (or ``0 to 9`` for a run of consecutive whole numbers, ``0, 3, 7 and 5 more``)."""
    values = list(values)
    if len(values) > 2 and values == list(range(values[0], values[0] + len(values))):
        return f"{values[0]} to {values[-1]}"
    return ", ".join(map(str, values[:most])) + (f" and {len(values) - most} more" if len(values) > most else "")


def noise_text(rows: pd.DataFrame) -> str:
    if "env_info" not in rows.columns:
        return NOISE
    params = rows["env_params"] if "env_params" in rows.columns else pd.Series(None, index=rows.index)
    pairs = pd.DataFrame({"info": rows["env_info"], "params": params}).drop_duplicates()
    varies = {trial_noise(i, p) for i, p in pairs.itertuples(index=False)}
    return NOISE if varies == {True} else REPLAYED if varies == {False} else MIXED_NOISE


def pooled_text(rows: pd.DataFrame) -> str:
    """What the rows of one figure pool, for its caption: "10 instances x 5 trials (the same
    instances at every T); noise varies" for drawn instances, "one instance, noise varies",
    "one instance per T, ...", or, with several root seeds, "one instance per curve: root
    seeds 0, 1; ..." (:func:`separate_seeds`) or "k trials each on n instances: root seeds
    ...; ..." (per curve and T)."""
    per_T = " per T" if "T" in rows.columns and rows["T"].nunique() > 1 else ""
    seeds = seeds_of(rows)
    noise = noise_text(rows)
    if "instance" in rows.columns and rows["instance"].notna().any():  # drawn instances (instances=N)
        n = int(rows["instance"].nunique())
        keys = [c for c in ("label", "algo") if c in rows.columns][:1] + [c for c in ("T", "seed", "instance")
                                                                        if c in rows.columns]
        counts = rows.groupby(keys).size()
        each = f"{counts.min()}" if counts.min() == counts.max() else f"{counts.min()} to {counts.max()}"
        across = " (the same instances at every T)" if per_T else ""
        root = f", root seeds {listed(seeds)}" if len(seeds) > 1 else ""
        return f"{n}{NESTED}{each} trials{across}{root}; {noise}"
    if len(seeds) <= 1:
        return f"one instance{per_T}, {noise}"
    curve = [c for c in ("label", "algo") if c in rows.columns][:1]
    if curve and rows.groupby(curve)["seed"].nunique().max() == 1:  # separate_seeds: a curve per seed
        return f"one instance per curve{per_T}: root seeds {listed(seeds)}; {noise}"
    counts = rows.groupby(curve + [c for c in ("T", "seed") if c in rows.columns]).size()
    each = f"{counts.min()}" if counts.min() == counts.max() else f"{counts.min()} to {counts.max()}"
    return f"{each} trials each on {len(seeds)} instances{per_T}: root seeds {listed(seeds)}; {noise}"


def separate_seeds(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with each configuration's label suffixed by its root seed (``ucb1 (seed=1)``)
    when they hold several seeds and that makes at most :data:`MAX_SEED_CURVES` curves; else
    unchanged (one pooled curve per configuration, its caption naming the seeds)."""
    seeds = seeds_of(rows)
    if len(seeds) <= 1 or rows["label"].nunique() * len(seeds) > MAX_SEED_CURVES:
        return rows
    return rows.assign(label=rows["label"].astype(str) + " (seed=" + rows["seed"].astype("Int64").astype(str) + ")")
