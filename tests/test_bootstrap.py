"""The two-stage bootstrap (bandits.experiments.report.bootstrap): its coverage on synthetic
nested data of known variance components, a trials-only bootstrap's failure on the same data
(the negative control), pairing, and Holm's correction."""

import numpy as np
import pandas as pd
import pytest

from bandits.experiments.report import bootstrap as bs

N_INSTANCES, N_TRIALS, REPS, B = 10, 5, 1000, 1000


def coverage(sd_between: float, sd_within: float, seed: int, two_stage: bool = True) -> float:
    """How often the 95% interval of the mean covers the true mean (0) over REPS data sets."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(REPS):
        x = rng.normal(0, sd_between, (N_INSTANCES, 1)) + rng.normal(0, sd_within, (N_INSTANCES, N_TRIALS))
        if two_stage:
            _, lo, hi = bs.mean_interval(x, rng, B)
        else:  # the trials as one sample, the instances ignored
            flat = x.reshape(1, -1)
            r = bs.resamples(1, flat.shape[1], rng, B)
            lo, hi = np.quantile(bs.resampled_means(flat, r), [0.025, 0.975])
        hits += lo <= 0 <= hi
    return hits / REPS


MC_SE = np.sqrt(0.95 * 0.05 / REPS)  # 0.0069


@pytest.mark.parametrize("sd_between, sd_within, least", [
    (1.0, 0.1, 0.95 - 3 * MC_SE),  # instances dominate: measured 0.952, 0.949, 0.950 (seeds 11-13)
    (1.0, 1.0, 0.95 - 3 * MC_SE),  # mixed: 0.962 to 0.971
    (0.1, 1.0, 0.95 - 3 * MC_SE),  # noise dominates: 0.995 to 0.997, conservative (the noise is counted twice)
])
def test_two_stage_interval_reaches_its_level(sd_between, sd_within, least):
    assert coverage(sd_between, sd_within, seed=11) >= least


def test_the_expanded_percentile_interval_of_a_mean_falls_short_where_instances_dominate():
    """Why a mean takes the t interval on the bootstrap's standard error: the expanded
    percentile interval (what :func:`interval` gives a ratio or a slope) of the same means
    covers about 0.94 where the instances dominate (0.939 over 3,000 sets), below the
    interval above on the same data sets."""
    rng = np.random.default_rng(11)
    percentile = t_based = 0
    for _ in range(REPS):
        x = rng.normal(0, 1.0, (N_INSTANCES, 1)) + rng.normal(0, 0.1, (N_INSTANCES, N_TRIALS))
        state = rng.bit_generator.state
        lo, hi = bs.interval(bs.resampled_means(x, bs.resamples(N_INSTANCES, N_TRIALS, rng, B)), N_INSTANCES)
        percentile += lo <= 0 <= hi
        rng.bit_generator.state = state  # the same resamples for both
        _, lo, hi = bs.mean_interval(x, rng, B)
        t_based += lo <= 0 <= hi
    assert percentile / REPS < 0.95 <= t_based / REPS + MC_SE


def test_an_interval_over_trials_alone_does_not_cover_the_instances():
    """The negative control: where instances dominate, the bootstrap of the 50 trials as one
    sample (what the tool did before) covers far less than 95%."""
    assert coverage(1.0, 0.1, seed=11, two_stage=False) < 0.7  # measured 0.55


def test_resamples_pair_algorithms_and_share_the_instance_stage():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 3))
    r = bs.resamples(4, 3, rng, 50)
    assert np.allclose(bs.resampled_means(a, r) - bs.resampled_means(a + 1.0, r), -1.0)  # paired: same picks
    shared = bs.resamples(4, 3, rng, 50, instances=r.instances)
    assert (shared.instances == r.instances).all() and not (shared.trials == r.trials).all()


def test_nested_orders_instances_and_trials():
    rows = pd.DataFrame({"instance": [1, 0, 1, 0, 0], "trial": [3, 2, 1, 0, 4], "final_regret": [13, 2, 11, 0, 4.0]})
    assert bs.nested(rows).tolist() == [[0, 2], [11, 13]]  # the trials every instance has (2)
    assert bs.instance_count(rows) == 2
    legacy = rows.assign(instance=None)
    assert bs.nested(legacy).shape == (1, 5) and bs.instance_count(legacy) == 1


def test_holm_and_bonferroni():
    adjusted = bs.holm([0.01, 0.04, 0.03, 0.2])
    assert np.allclose(adjusted, [0.04, 0.09, 0.09, 0.2])
    assert bs.bonferroni_level(0.95, 5) == pytest.approx(0.99)
