"""env=table: a K-armed problem from a file of means (and rewards), its columns by name, and a
declared reward range that the rewards keep (the noise is refused, clipped with the regret
computed from the clipped rewards' expectations, or Bernoulli on the range's ends)."""

import json

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from scipy import integrate, stats

from bandits import simulate
from bandits.environments import Table
from bandits.environments.table import clipped_gaussian_mean
from bandits.errors import ConfigError
from bandits.simulation import stream

T = 6000


@pytest.fixture
def edge_file(tmp_path):
    """A seeded 2-armed table whose Gaussian noise (sd 0.1) would leave [0, 1]: one arm spread over
    [0.05, 0.95], the other at 0.97 (the issue's 12,000 rewards, about 1 in 5 of them outside)."""
    rng = np.random.default_rng(0)
    means = np.column_stack([0.05 + 0.9 * rng.random(T), np.full(T, 0.97)])
    np.savez(tmp_path / "edge.npz", means=means)
    return tmp_path / "edge.npz", means


def built(path, T=T, **kw):
    env = Table(path=str(path), **kw)
    env.check_params(T)
    return env, env.instance(T, stream(0, 0, T))


class RewardSpy:
    """A protocol policy recording what it is told and every reward it sees."""
    problem_kinds = ("karmed",)
    seen: list = []
    told: list = []

    def reset(self, n_arms, horizon, rng, info):
        RewardSpy.told.append(info.get("reward_range"))
        self.rng = rng

    def select(self, t):
        return int(self.rng.integers(2))

    def update(self, t, arm, reward):
        RewardSpy.seen.append(reward)


def test_gaussian_noise_is_refused_before_any_work_when_a_range_is_declared(edge_file):
    path, means = edge_file
    # what the old behaviour would have handed the learner: rewards outside the range it was told
    unclipped = means + 0.1 * stream(0, 1, T, 0).standard_normal(means.shape)
    assert ((unclipped < 0) | (unclipped > 1)).any()
    with pytest.raises(ConfigError) as err:
        Table(path=str(path), reward_range=[0, 1]).check_params(T)
    message = str(err.value)
    share = (stats.norm.cdf(-means / 0.1) + stats.norm.sf((1 - means) / 0.1)).mean()
    assert "\n" not in message and f"about {100 * share:.2g}% of the rewards" in message
    for fragment in ("unbounded", "env.noise=bernoulli", "env.noise=clipped", "env.R=0", "drop env.reward_range"):
        assert fragment in message
    # no noise, or no declared range: as before
    _, inst = built(path, reward_range=[0, 1], R=0.0)
    np.testing.assert_array_equal(Table(path=str(path), R=0.0).rewards(inst, stream(0, 1, T, 0)), means)
    built(path)


def expected_clipped(m, R, lo, hi):
    """E[clip(m + R Z, lo, hi)] by numerical integration: written without the closed form."""
    inside, _ = integrate.quad(lambda x: x * stats.norm.pdf(x, m, R), lo, hi, epsabs=1e-13, epsrel=1e-13)
    return lo * stats.norm.cdf(lo, m, R) + inside + hi * stats.norm.sf(hi, m, R)


def test_clipped_noise_keeps_the_range_and_the_regret_is_that_of_the_clipped_rewards(edge_file):
    path, means = edge_file
    env, inst = built(path, reward_range=[0, 1], noise="clipped")
    # the means the regret is computed from are the expectations of the clipped rewards
    for t, a in [(0, 0), (1, 1), (17, 0), *((int(t), 0) for t in np.argsort(means[:, 0])[[0, 1, -2, -1]])]:
        assert inst.means[t, a] == pytest.approx(expected_clipped(means[t, a], 0.1, 0.0, 1.0), abs=1e-12)
    assert inst.means[0, 1] < 0.97 - 0.01  # the ceiling pulls the 0.97 arm down by more than 0.01
    draws = [env.rewards(inst, stream(0, 1, T, trial)) for trial in range(300)]
    assert all(((r >= 0) & (r <= 1)).all() for r in draws)
    # the same Gaussian draw as gaussian noise, clipped; and centred on the instance's means
    raw = Table(path=str(path)).rewards(Table(path=str(path)).instance(T), stream(0, 1, T, 0))
    np.testing.assert_array_equal(draws[0], np.clip(raw, 0, 1))
    resid = np.mean(draws, axis=0) - inst.means
    assert abs(resid.mean()) < 5 * 0.1 / np.sqrt(resid.size * 300)
    assert abs(resid[:, 1].mean()) < 5 * 0.1 / np.sqrt(T * 300)  # the 0.97 arm: the unclipped mean is far off
    assert abs((np.mean(draws, axis=0) - means)[:, 1].mean()) > 100 * 0.1 / np.sqrt(T * 300)
    ev = inst.evaluation
    assert ev["noise"] == "clipped" and 0.2 < ev["clip_probability"] < 0.23 and ev["clip_mean_shift"] > 0.01
    assert inst.info["reward_range"] == (0.0, 1.0) and inst.info["R"] == 0.1
    assert inst.info["B_T"] == pytest.approx(np.abs(np.diff(inst.means, axis=0)).max(axis=1).sum())

    # through the runner: every reward the learner sees lies in the range it is told, and the dynamic regret
    # is computed from the clipped rewards' expectations against the per-round optimum
    RewardSpy.seen, RewardSpy.told = [], []
    table = simulate(env={"name": "table", "path": str(path), "reward_range": [0, 1], "noise": "clipped"},
                     algos={"spy": RewardSpy()}, T=T, trials=2, seed=0, save_actions=True)
    assert RewardSpy.told == [(0.0, 1.0)] * 2 and len(RewardSpy.seen) == 2 * T
    assert min(RewardSpy.seen) >= 0 and max(RewardSpy.seen) <= 1 and 0.0 in RewardSpy.seen
    for _, row in table.iterrows():
        actions = np.asarray(row["actions"])
        g = inst.means  # checked above against the integral, cell by cell
        assert row["final_regret"] == pytest.approx((g.max(axis=1) - g[np.arange(T), actions]).sum(), rel=1e-12)
        unclipped = (means.max(axis=1) - means[np.arange(T), actions]).sum()
        assert abs(row["final_regret"] - unclipped) > 1.0  # the file's means would misstate it
        assert json.loads(row["env_info"])["noise"] == "clipped"


def test_closed_form_of_the_clipped_mean():
    m = np.array([-0.3, 0.0, 0.02, 0.5, 0.97, 1.0, 1.4])
    for R in (0.05, 0.3, 2.0):
        got = clipped_gaussian_mean(m, R, 0.0, 1.0)
        np.testing.assert_allclose(got, [expected_clipped(x, R, 0.0, 1.0) for x in m], atol=1e-12)
        assert (np.diff(got) > 0).all() and (np.diff(got) < np.diff(m)).all()  # increasing, a contraction
    np.testing.assert_allclose(clipped_gaussian_mean(m, 0.4, -1.0, 2.0), [expected_clipped(x, 0.4, -1.0, 2.0)
                                                                          for x in m], atol=1e-12)
    assert clipped_gaussian_mean(m, 0.0, 0.0, 1.0).tolist() == m.tolist()


@pytest.mark.parametrize("lo,hi", [(0.0, 1.0), (-1.0, 2.0)])
def test_bernoulli_noise_keeps_the_range_and_the_file_means(tmp_path, lo, hi):
    rng = np.random.default_rng(1)
    means = lo + (hi - lo) * rng.random((2000, 3))
    np.savez(tmp_path / "p.npz", means=means)
    env, inst = built(tmp_path / "p.npz", T=2000, reward_range=[lo, hi], noise="bernoulli")
    np.testing.assert_array_equal(inst.means, means)  # the file's means are the rewards' expectations exactly
    draws = np.stack([env.rewards(inst, stream(0, 1, 2000, trial)) for trial in range(200)])
    assert set(np.unique(draws)) == {lo, hi}
    sd = (hi - lo) / 2
    assert abs((draws.mean(axis=0) - means).mean()) < 5 * sd / np.sqrt(draws.size)
    assert inst.info["R"] == sd and inst.info["reward_range"] == (lo, hi) and inst.evaluation["noise"] == "bernoulli"
    if (lo, hi) == (0.0, 1.0):  # Bernoulli(m): the same uniforms as the piecewise-Bernoulli environments
        np.testing.assert_array_equal(draws[0], stream(0, 1, 2000, 0).random(means.shape) < means)


def test_noise_options_that_cannot_apply_are_refused(tmp_path):
    means = np.full((10, 2), 0.5)
    np.savez(tmp_path / "m.npz", means=means)
    np.savez(tmp_path / "r.npz", means=means, rewards=np.ones((10, 2)))
    cases = [("m.npz", {"noise": "clipped"}, "env.reward_range=[lo, hi]"),
             ("m.npz", {"noise": "bernoulli"}, "env.reward_range=[0,1] for Bernoulli rewards"),
             ("r.npz", {"noise": "clipped", "reward_range": [0, 1]}, "holds its own rewards"),
             ("m.npz", {"noise": "uniform"}, "env.noise must be one of")]
    for name, kw, words in cases:
        with pytest.raises(ConfigError, match=words.replace("[", r"\[").replace("]", r"\]")):
            Table(path=str(tmp_path / name), **kw).check_params(10)
    env, inst = built(tmp_path / "r.npz", T=10, reward_range=[0, 1])  # replayed rewards in the range: no noise
    np.testing.assert_array_equal(env.rewards(inst, stream(0)), np.ones((10, 2)))
    assert inst.evaluation["noise"] == "replayed"


# ----------------------------------------------------------------------------- columns by name

def test_mean_and_reward_columns_by_name(tmp_path):
    rng = np.random.default_rng(2)
    means, rewards = rng.random((30, 2)).round(3), rng.random((30, 2)).round(3)
    frame = pd.DataFrame({"round": np.arange(30), "control": means[:, 0], "variant": means[:, 1],
                          "paid_control": rewards[:, 0], "paid_variant": rewards[:, 1]})
    frame.to_csv(tmp_path / "ab.csv", index=False)
    frame.to_parquet(tmp_path / "ab.parquet")
    for name in ("ab.csv", "ab.parquet"):
        env, inst = built(tmp_path / name, T=30, means=["variant", "control"], rewards=["paid_variant", "paid_control"])
        np.testing.assert_allclose(inst.means, means[:, ::-1], rtol=1e-15)  # arm order = the order named
        np.testing.assert_allclose(env.rewards(inst, stream(0)), rewards[:, ::-1], rtol=1e-15)
        ev = inst.evaluation
        assert ev["mean_columns"] == ["variant", "control"] and ev["reward_columns"] == ["paid_variant", "paid_control"]
        assert ev["ignored_columns"] == ["round"] and ev["noise"] == "replayed"
        _, inst = built(tmp_path / name, T=30, means=["control", "variant"])  # no rewards named, none by convention
        assert inst.rewards is None and inst.evaluation["reward_columns"] == []


TWO_ARMS = {"exp3s": [155.7444, 163.54200000000003], "sw_ucb_obl": [19.42559999999999, 20.221299999999996]}


def test_old_form_and_renamed_columns_give_the_numbers_of_main(tmp_path):
    """examples/two_arms.csv (mean_0, mean_1; Gaussian noise): final_regret computed by the code of main
    (29b1413) before columns could be named, and the same file with its columns renamed and named."""
    kw = dict(algos=["sw_ucb_obl", "exp3s"], T=2000, trials=2, seed=1)
    path = ROOT / "examples" / "two_arms.csv"
    old = simulate(env={"name": "table", "path": str(path)}, **kw)
    pd.read_csv(path).rename(columns={"mean_0": "drifting", "mean_1": "switching"}).to_csv(tmp_path / "named.csv",
                                                                                           index=False)
    new = simulate(env={"name": "table", "path": str(tmp_path / "named.csv"), "means": ["drifting", "switching"]},
                   **kw)
    for table in (old, new):
        got = {a: sorted(g["final_regret"]) for a, g in table.groupby("algo")}
        assert got == TWO_ARMS  # exactly


BAD_NAMES = [
    ({"means": ["control", "varient"]}, ["env.means names 'varient'", "did you mean 'variant'",
                                         "its columns are 'control', 'variant', 'r'"]),
    ({"means": ["control"], "rewards": ["r", "control"]}, ["named both as a mean and as a reward column"]),
    ({"means": ["control", "variant"], "rewards": ["r"]}, ["2 mean columns", "1 reward columns"]),
    ({"rewards": ["r"]}, ["no columns named mean_0", "env.means=[...]"]),
]


@pytest.mark.parametrize("settings,words", BAD_NAMES, ids=range(len(BAD_NAMES)))
def test_each_bad_name_gives_its_paragraph(tmp_path, settings, words):
    pd.DataFrame({"control": [0.5] * 3, "variant": [0.4] * 3, "r": [1.0] * 3}).to_csv(tmp_path / "ab.csv",
                                                                                      index=False)
    with pytest.raises(ConfigError) as err:
        Table(path=str(tmp_path / "ab.csv"), **settings).check_params(3)
    assert "\n" not in str(err.value) and all(w in str(err.value) for w in words), str(err.value)


def test_names_are_refused_for_an_npz(tmp_path):
    np.savez(tmp_path / "m.npz", means=np.full((5, 2), 0.5))
    with pytest.raises(ConfigError, match="env.means names the columns of a .csv or .parquet file"):
        Table(path=str(tmp_path / "m.npz"), means=["a", "b"]).check_params(5)
