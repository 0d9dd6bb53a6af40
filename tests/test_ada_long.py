"""The long run's claims (figures/ada_long.py) on tables built to have a known answer: the
slope with its bootstrap CI, 'beats from T0', the replay crossing and the theory preset's
restarts; and the compact timeline CSV."""

import json

import numpy as np
import pandas as pd
import pytest

from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.studies import ctx_long_run as ada_long

TS = [10_000, 31_623, 100_000, 316_228, 1_000_000]


def table(regret, trials: int = 8, restarts: int = 0) -> pd.DataFrame:
    """Rows of a long table: ``regret(algo, T, trial)`` is each final regret."""
    algos = ("ada_iltcb_plus", "ada_iltcb_plus_theory", "ada_iltcb_plus_noreplay", "iltcb", "epsilon_greedy")
    rows = []
    for algo in algos:
        for T in TS:
            for k in range(trials):
                ev = {"restarts": [{"round": 5}] * restarts} if algo == "ada_iltcb_plus_theory" else {}
                rows.append({"algo": algo, "label": algo, "T": T, "trial": k, "final_regret": regret(algo, T, k),
                             "events": json.dumps(ev), "env_info": json.dumps({"change_points": [T // 2]})})
    return pd.DataFrame(rows)


def noise(k):
    return 1.0 + 0.02 * np.sin(7.0 * k)  # a small, trial-dependent factor (deterministic)


def power(algo, T, k):
    """Ada: T^0.5; its theory preset T^0.9; no replay: below Ada up to 1e5, above from 3.2e5;
    ILTCB and epsilon-greedy: linear, above Ada from 1e5 on."""
    if algo == "ada_iltcb_plus":
        return 50 * T ** 0.5 * noise(k)
    if algo == "ada_iltcb_plus_theory":
        return 0.5 * T ** 0.9 * noise(k)
    if algo == "ada_iltcb_plus_noreplay":
        return 50 * T ** 0.5 * noise(k + 1) * (0.8 if T <= 100_000 else 1.3)
    return 0.05 * T * noise(k + 2)


def claims_of(rows, tmp_path, name="ctx_switch_long"):
    return {c["claim"].split(":")[0].split(" regret slope")[0]: c
            for c in ada_long.long_run(name, rows, Drawing(tmp_path))}


def test_a_known_slope_is_measured_with_a_ci_that_covers_it(tmp_path):
    claims = claims_of(table(power), tmp_path)
    practical = claims["Ada-ILTCB+ (practical)"]
    slope, lo, hi = (float(x) for x in practical["measured"].replace("[", "").replace("]", "").replace(",", "").split())
    assert slope == pytest.approx(0.5, abs=0.01) and lo <= 0.5 <= hi and hi - lo < 0.05
    assert practical["verdict"] == "agrees"
    assert "T = 100,000 to 1,000,000" in practical["claim"]  # the last decade only
    theory = claims["Ada-ILTCB+ (theory)"]
    assert theory["verdict"] == "exceeds bound"  # 0.9, CI far above 0.5 + 0.1


def test_beats_from_is_the_first_T_of_a_run_of_wins_to_the_largest(tmp_path):
    claims = claims_of(table(power), tmp_path)
    iltcb = claims["Ada-ILTCB+ (practical) beats ILTCB (no restarts)"]
    # ratio 50 T^0.5 / (0.05 T) = 1000 / sqrt(T): above 1 at 1e4 (10), 3.2e4 (5.6), 1e5 (3.2), 3.2e5 (1.8), 1e6 (1)
    assert iltcb["verdict"] == "disagrees" and iltcb["measured"].startswith("never")
    replay = claims["replay phases pay for themselves"]
    assert replay["verdict"] == "agrees" and replay["measured"].startswith("from T = 316,228")


def test_a_win_that_is_lost_again_does_not_count():
    curve = pd.DataFrame({"T": TS, "ratio": 0.5, "ci_low": 0.4, "ci_high": [0.9, 0.9, 1.1, 0.9, 0.9]})
    assert ada_long.beats_from(curve) == 316_228
    assert ada_long.beats_from(curve.assign(ci_high=[0.9, 0.9, 0.9, 0.9, 1.01])) is None


def test_slope_verdict_reads_the_ci_against_the_tolerance():
    assert ada_long.ci_slope_verdict(0.55, 0.75, 0.5) == "agrees"  # meets 0.5 +- 0.1
    assert ada_long.ci_slope_verdict(0.61, 0.75, 0.5) == "exceeds bound"
    assert ada_long.ci_slope_verdict(0.2, 0.39, 0.5) == "below bound"


def test_theory_restarts_are_counted_per_T(tmp_path):
    assert claims_of(table(power), tmp_path)["the theory preset restarts at some T <= 1e6 (restarts summed over its "
                                             "trials, per T)"]["verdict"] == "agrees"
    row = ada_long.theory_restarts("ctx_switch_long", table(power, trials=2, restarts=1))
    assert row["verdict"] == "disagrees" and row["measured"].startswith("10 restarts in 10 runs")


def test_the_bootstrap_is_seeded(tmp_path):
    first = ada_long.long_run("ctx_drift_long", table(power), Drawing(tmp_path / "a"))
    second = ada_long.long_run("ctx_drift_long", table(power), Drawing(tmp_path / "b"))
    assert first == second
    assert (tmp_path / "a" / "ctx_drift_long_ratios.csv").read_bytes() == \
        (tmp_path / "b" / "ctx_drift_long_ratios.csv").read_bytes()


def test_long_timeline_csv_keeps_only_the_steps(tmp_path):
    from bandits.experiments.studies import ctx_synthetic as ada

    events = {"replays": [{"start": 100, "end": 300, "m": 1}], "blocks": [], "restarts": []}
    rows = pd.DataFrame([{"algo": "ada_iltcb_plus", "label": "ada_iltcb_plus", "T": 5000, "trial": 0,
                          "events": json.dumps(events), "env_info": json.dumps({"change_points": [2500]})}])
    ada.timeline_figure(rows, Drawing(tmp_path), figure="long", steps_only=True)
    data = pd.read_csv(tmp_path / "long.csv")
    assert data["t"].tolist() == [0, 100, 301] and data["replays_in_progress"].tolist() == [0, 1, 0]
