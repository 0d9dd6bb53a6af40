"""The instance as a random factor (``instances=N``): N drawn instances, each the same at every
horizon, trials nested in them, every algorithm of an instance facing it; the table's instance
column, the caption and the summary's intervals over instances x trials."""

import json

import numpy as np
import pytest

from bandits.errors import ConfigError
from bandits.experiments.api import simulate
from bandits.experiments.figures.pooling import pooled_text
from bandits.experiments.report.summary import summarize

ENV = {"name": "piecewise_bernoulli", "K": 3, "n_changes": 2}  # drawn means, changes at fractions of T


@pytest.fixture(scope="module")
def rows():
    return simulate(env=ENV, algos=["ucb1", "thompson"], T=[300, 600], trials=2, instances=3, seed=5)


def test_every_cell_has_its_instance_and_trial(rows):
    assert sorted(rows["instance"].unique()) == [0, 1, 2]
    per = rows.groupby(["algo", "T", "instance"]).size()
    assert (per == 2).all() and len(per) == 2 * 2 * 3
    assert not rows.duplicated(["algo", "T", "trial"]).any()  # one stored trial number per cell


def test_an_instance_is_the_same_at_every_horizon_and_for_every_algorithm(rows):
    info = rows.assign(info=rows["env_info"].map(lambda s: json.loads(s)["B_T"]))
    per_instance = info.groupby("instance")["info"].nunique()
    assert (per_instance == 1).all()  # the same means at T = 300 and 600, for both algorithms
    assert info.groupby("instance")["info"].first().nunique() == 3  # three different draws


def test_instances_do_not_depend_on_workers():
    a = simulate(env=ENV, algos=["ucb1", "thompson"], T=300, trials=2, instances=3, seed=5, n_jobs=1)
    b = simulate(env=ENV, algos=["ucb1", "thompson"], T=300, trials=2, instances=3, seed=5, n_jobs=2)
    key = ["algo", "T", "trial"]
    assert np.array_equal(a.sort_values(key)["final_regret"].to_numpy(), b.sort_values(key)["final_regret"].to_numpy())


def test_without_instances_the_cells_are_as_before():
    """No ``instances``: one instance per horizon (spawn key (0, T)), the instance column null,
    the same numbers as a run with no such option."""
    rows = simulate(env=ENV, algos=["ucb1"], T=300, trials=2, seed=5)
    assert rows["instance"].isna().all()
    assert summarize(rows)["trials"].tolist() == [2]


def test_summary_and_caption_say_instances_by_trials(rows):
    table = summarize(rows)
    assert set(table["trials"]) == {"3 x 2"}
    assert pooled_text(rows).startswith("3 instances x 2 trials (the same instances at every T)")


def test_bad_instances_is_one_paragraph():
    with pytest.raises(ConfigError, match="instances"):
        simulate(env=ENV, algos=["ucb1"], T=300, trials=2, instances=0)


def test_a_figure_of_instances_says_its_bands_are_the_two_stage_bootstraps(rows):
    from bandits.experiments.figures.charts import band_footer

    text = band_footer(None, rows.groupby(["algo", "T"]).size(), pooled_text(rows))
    assert text.startswith("bands: 95% two-stage bootstrap interval (instances, then trials) over 3 instances x 2")
