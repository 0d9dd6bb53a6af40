"""hedging's other settings (ext_glb, ext_semibandit, lower_bound) with drawn instances
(bandits.experiments.studies.hedging_extensions' rules): the slope verdicts on their two-stage
intervals at the family's level, the lower bound's verdict, which tables pair their horizons by
instance, and the fact behind that pairing: instance i is the same problem at every T for the
GLB's rotation and the semi-bandit, not for the lower-bound instance."""

import numpy as np
import pandas as pd
import pytest

from bandits.environments.extensions import DriftingLogistic, DriftingSemiBandit, LowerBound
from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.run.planning import INSTANCE_KEY
from bandits.experiments.studies import hedging_extensions as ext
from bandits.simulation import stream

TS = [8000, 14226, 25298, 44987, 80000]


def table(rates: dict, instances: int = 4, trials: int = 2, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hardness = np.exp(0.1 * rng.normal(size=instances))
    rows = []
    for algo, rate in rates.items():
        for T in TS:
            for i in range(instances):
                for k in range(trials):
                    rows.append({"algo": algo, "label": algo, "T": T, "instance": i, "trial": k * instances + i,
                                 "seed": 21, "final_regret": 5 * hardness[i] * T ** rate * np.exp(0.03 * rng.normal())})
    return pd.DataFrame(rows)


def measured(c):
    return tuple(float(x) for x in c["measured"].replace("[", "").replace("]", "").replace(",", "").split())


def test_table2_slopes_are_judged_on_their_intervals(tmp_path):
    rows = table({"sw_ucb_glb_opt": 2 / 3, "sw_ucb_glb_obl": 0.9, "bob_glb": 0.75})
    claims = [c for c in ext.draw({"ext_glb": rows}, Drawing(tmp_path)) if "regret slope over" in c["claim"]]
    by = {c["claim"].split(" regret slope")[0]: c for c in claims}
    assert len(by) == 3 and all(f"Bonferroni over {ext.EXT_FAMILY}" in c["claim"] for c in claims)
    opt = next(c for name, c in by.items() if "opt" in name)
    slope, lo, hi = measured(opt)
    assert slope == pytest.approx(2 / 3, abs=0.02) and lo <= 2 / 3 <= hi and opt["verdict"] == "agrees"
    assert next(c for name, c in by.items() if "obl" in name)["verdict"] == "exceeds bound"


def test_an_algorithm_beats_the_lower_bound_only_when_its_interval_is_below(tmp_path):
    rows = table({"ucb": 0.4, "sw_ucb_opt": 0.66})
    rows["env_info"] = '{"lower_bound_curve": 1.0}'
    claims = {c["claim"].split(" cannot")[0]: c for c in ext.draw({"lower_bound": rows}, Drawing(tmp_path))}
    assert claims["UCB"]["verdict"] == "disagrees" and measured(claims["UCB"])[2] < 2 / 3 - 0.1
    assert claims["SW-UCB-opt"]["verdict"] == "agrees" and "4 instances" in claims["UCB"]["claim"]


def test_one_instance_tables_keep_the_point_rules(tmp_path):
    rows = table({"sw_ucb_glb_opt": 2 / 3}, instances=1, trials=5).assign(instance=None)
    claims = ext.draw({"ext_glb": rows}, Drawing(tmp_path))
    assert len(claims) == 1 and isinstance(claims[0]["measured"], float)


@pytest.mark.parametrize("env, same", [(DriftingLogistic(), True), (DriftingSemiBandit(), True), (LowerBound(), False)])
def test_which_instances_are_the_same_problem_at_every_T(env, same):
    """The means at t = T (the end of the horizon, the same point of the path at every T) agree
    between two horizons of one instance exactly when the rules pair that table's horizons."""
    a, b = (env.instance(T, stream(21, INSTANCE_KEY, 0)) for T in (400, 800))
    assert np.array_equal(a.means[-1], b.means[-1]) == same
    name = {"drifting_logistic": "ext_glb", "drifting_semibandit": "ext_semibandit"}.get(env.name, "lower_bound")
    assert ext.SHARED[name] == same


def test_the_runs_have_no_more_rounds_than_before():
    from hydra import compose, initialize_config_dir

    from bandits.experiments.studies import ctx_synthetic

    conf = str(__import__("pathlib").Path(ctx_synthetic.__file__).resolve().parents[2] / "conf")
    with initialize_config_dir(config_dir=conf, version_base="1.3"):
        for name in ("ext_glb", "ext_semibandit", "lower_bound"):
            cfg = compose(config_name="config", overrides=[f"+experiment={name}"])
            assert cfg.instances >= 4 and len(cfg.T) >= 5 and cfg.T[-1] == 10 * cfg.T[0]
            assert cfg.instances * cfg.trials * sum(cfg.T) <= 10 * (10000 + 20000 + 40000 + 80000)
