"""C1-C3 at short T with drawn instances (bandits.experiments.studies.ctx_synthetic's rules) on
tables built to have a known answer: the slope with its two-stage interval over five horizons,
the ratios at the largest T judged by their intervals at the family's Bonferroni level, and
C3's delays with the two-stage band; and the shipped configs run instances x trials at the same
cells as before, while the long one-instance runs keep their cells."""

import json

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.studies import ctx_synthetic
from bandits.experiments.studies.ctx_synthetic import SHORT_FAMILY, detection_delays, regret_against_T

TS = [2000, 3557, 6325, 11247, 20000]
ALGOS = {"ada_iltcb_plus": 1.0, "iltcb": 2.0, "vw_epsilon": 1.02, "ada_iltcb_plus_noreplay": 1.1}


def table(instances: int = 5, trials: int = 3, rate: float = 0.5, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hardness = np.exp(0.2 * rng.normal(size=instances))  # an instance is as hard at every T
    rows = []
    for algo, scale in ALGOS.items():
        for T in TS:
            for i in range(instances):
                for k in range(trials):
                    value = 30 * scale * hardness[i] * T ** rate * np.exp(0.05 * rng.normal())
                    rows.append({"algo": algo, "label": algo, "T": T, "instance": i, "trial": k * instances + i,
                                 "seed": 12, "final_regret": value, "events": "{}",
                                 "env_info": json.dumps({"change_points": [T // 2]})})
    return pd.DataFrame(rows)


def by_claim(rows, tmp_path, name="ctx_switch"):
    return regret_against_T(name, rows, Drawing(tmp_path))


def test_the_slope_is_judged_on_its_interval_over_five_horizons(tmp_path):
    claims = by_claim(table(), tmp_path)
    slope = claims[0]
    assert "5 horizons" in slope["claim"] and f"Bonferroni over {SHORT_FAMILY}" in slope["claim"]
    value, lo, hi = (float(x) for x in slope["measured"].replace("[", "").replace("]", "").replace(",", "").split())
    assert value == pytest.approx(0.5, abs=0.02) and lo <= 0.5 <= hi and slope["verdict"] == "agrees"
    assert by_claim(table(rate=0.75), tmp_path)[0]["verdict"] == "exceeds bound"


def test_a_ratio_agrees_only_when_its_interval_lies_below_one(tmp_path):
    iltcb, vw = (c for c in by_claim(table(), tmp_path) if "has lower" in c["claim"])
    assert iltcb["verdict"] == "agrees"  # half the regret: the interval is far below 1
    _, lo, hi = (float(x) for x in vw["measured"].replace("[", "").replace("]", "").replace(",", "").split())
    assert lo < 1 < hi and vw["verdict"] == "disagrees"  # 2% apart, with instance spread: not shown
    assert f"Bonferroni over {SHORT_FAMILY}" in vw["claim"] and "5 instances" in vw["claim"]


def test_the_instance_stage_widens_the_ratio_interval(tmp_path):
    """The ratio's interval is resampled by instance: with the instances' hardness differing by
    algorithm, it is wider than a trial-only reading would be on one instance."""
    rows = table()
    rng = np.random.default_rng(3)
    spread = {(a, i): np.exp(0.3 * rng.normal()) for a in ALGOS for i in range(5)}
    rows["final_regret"] *= [spread[(a, i)] for a, i in zip(rows["label"], rows["instance"], strict=True)]
    wide = next(c for c in by_claim(rows, tmp_path) if "has lower" in c["claim"])  # against ILTCB, the first pair
    narrow = next(c for c in by_claim(table(), tmp_path) if "has lower" in c["claim"])

    def width(c):
        _, lo, hi = (float(x) for x in c["measured"].replace("[", "").replace("]", "").replace(",", "").split())
        return hi - lo

    assert width(wide) > 2 * width(narrow)


def test_a_one_instance_table_keeps_the_earlier_point_rules(tmp_path):
    rows = table(instances=1, trials=10).assign(instance=None)
    claims = by_claim(rows, tmp_path)
    assert isinstance(claims[0]["measured"], float) and "Bonferroni" not in claims[0]["claim"]


def test_delays_over_instances_get_the_two_stage_band(tmp_path):
    rows = table()
    rows = rows[rows["T"] == 20000].assign(T=20000)
    rows["events"] = [json.dumps({"restarts": [{"round": 10000 + 100 * (i + 1)}]}) for i in rows["instance"]]
    drawing = Drawing(tmp_path)
    detection_delays({"ctx_delay_shift0.25": rows}, drawing)
    summary = pd.read_csv(next(tmp_path.rglob("ctx_delay.csv")))
    ada = summary[summary["algo"] == "ada_iltcb_plus"].iloc[0]
    # delays 100..500 by instance, none within: a trial-only t interval would be about +-70 (15 rows);
    # the two-stage interval has the t quantile of 4 degrees of freedom over 5 instances
    assert ada["mean_delay"] == pytest.approx(300) and ada["ci_high"] - ada["ci_low"] > 300


@pytest.fixture(scope="module")
def composed():
    from pathlib import Path

    conf = Path(ctx_synthetic.__file__).resolve().parents[2] / "conf"
    names = ("ctx_switch", "ctx_switch_growing", "ctx_drift", "ctx_delay", "ctx_switch_long", "ctx_drift_long",
             "ctx_switch_growing_long", "ctx_delay_long")
    with initialize_config_dir(config_dir=str(conf), version_base="1.3"):
        return {n: compose(config_name="config", overrides=[f"+experiment={n}"]) for n in names}


def test_short_runs_draw_instances_at_no_more_rounds_than_before(composed):
    for name in ("ctx_switch", "ctx_switch_growing", "ctx_drift"):
        cfg = composed[name]
        assert cfg.instances == 5 and cfg.env.draw_order == "by_part" and len(cfg.T) == 5
        assert cfg.T[-1] == 10 * cfg.T[0]  # five horizons over one decade
        assert cfg.instances * cfg.trials * sum(cfg.T) <= 20 * (5000 + 10000 + 20000)  # the one-instance run's rounds
    assert composed["ctx_delay"].instances * composed["ctx_delay"].trials == 20


def test_the_long_one_instance_runs_keep_their_cells(composed):
    for name in ("ctx_switch_long", "ctx_drift_long", "ctx_switch_growing_long", "ctx_delay_long"):
        assert composed[name].instances is None and composed[name].env.draw_order == "sequential"
