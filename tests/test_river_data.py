"""river's bundled datasets and drift streams (bandits/environments/river_data.py)."""

import socket
import sys

import numpy as np
import pytest

from bandits.environments import river_data as rd
from bandits.errors import ConfigError

ROWS = {"shuttle": 49_097, "segment": 2_310, "yeast": 2_417}


@pytest.fixture
def river():
    return pytest.importorskip("river")


@pytest.fixture
def offline(monkeypatch):
    """Any network connection fails, and the bundled files are parsed afresh."""

    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    rd._parse.cache_clear()


def rng(seed):
    return np.random.default_rng(seed)


def test_bundled_full_files_offline(river, offline):
    d = rd.load("shuttle", ROWS["shuttle"], rng(0))
    assert d["X"].shape == (49_097, 9) and d["X"].dtype == np.float64
    assert d["feature_names"] == [f"f{i}" for i in range(1, 10)]
    assert d["classes"] == [0, 1] and d["y"].dtype == np.int64
    assert np.bincount(d["y"]).tolist() == [45_586, 3_511]  # river's ODDS form: normal vs anomaly

    d = rd.load("segment", ROWS["segment"], rng(0))
    assert d["X"].shape == (2_310, 18) and len(d["feature_names"]) == 18
    assert d["classes"] == ["brickface", "cement", "foliage", "grass", "path", "sky", "window"]
    assert np.bincount(d["y"]).tolist() == [330] * 7

    d = rd.load("yeast", ROWS["yeast"], rng(0))
    assert "y" not in d and d["Y"].shape == (2_417, 14) and d["Y"].dtype == np.int64
    assert d["X"].shape == (2_417, 103)
    assert d["labels"] == [f"Class{i}" for i in range(1, 15)]
    assert set(np.unique(d["Y"])) == {0, 1} and (d["Y"].sum(axis=1) >= 1).all()
    for name in rd.BUNDLED:
        d = rd.load(name, 10, rng(0))
        assert d["change_points"] == [] and d["drift"] == "none"
        assert "river" in d["source"] and f"10 of {ROWS[name]:,} rows" in d["source"]


def test_bundled_shuffle_is_a_seeded_permutation(river):
    full = rd.load("segment", ROWS["segment"], rng(0), options={"shuffle": False})
    a = rd.load("segment", 500, rng(7))
    b = rd.load("segment", 500, rng(7))
    c = rd.load("segment", 500, rng(8))
    assert np.array_equal(a["X"], b["X"]) and np.array_equal(a["y"], b["y"])
    assert not np.array_equal(a["X"], c["X"])
    # the rows are the file's rows at the first 500 indices of rng's permutation
    rows = rng(7).permutation(ROWS["segment"])[:500]
    assert np.array_equal(a["X"], full["X"][rows]) and np.array_equal(a["y"], full["y"][rows])
    # file order: the shuttle file's first row is 50,21,77,0,28,0,27,48,22 with anomaly = 1
    first = rd.load("shuttle", 3, rng(0), options={"shuffle": False})
    assert first["X"][0].tolist() == [50, 21, 77, 0, 28, 0, 27, 48, 22] and first["y"][0] == 1


def test_bundled_horizon_longer_than_the_file_is_refused(river):
    with pytest.raises(ConfigError, match=r"2,417 rows, fewer than the horizon T = 2,418"):
        rd.load("yeast", ROWS["yeast"] + 1, rng(0))


@pytest.mark.parametrize("name,K,d,drift", [("hyperplane", 2, 10, "gradual"), ("rbf_drift", 5, 10, "gradual"),
                                            ("agrawal", 2, 9, "abrupt"), ("sea", 2, 3, "abrupt")])
def test_streams_shape_seeding_and_change_points(river, name, K, d, drift):
    T = 600
    a = rd.load(name, T, rng(3))
    b = rd.load(name, T, rng(3))
    c = rd.load(name, T, rng(4))
    assert a["X"].shape == (T, d) and a["X"].dtype == np.float64 and np.isfinite(a["X"]).all()
    assert a["y"].shape == (T,) and a["y"].dtype == np.int64
    assert a["classes"] == list(range(K)) and set(np.unique(a["y"])) == set(range(K))
    assert len(a["feature_names"]) == d
    assert np.array_equal(a["X"], b["X"]) and np.array_equal(a["y"], b["y"])
    assert not np.array_equal(a["X"], c["X"])
    assert a["drift"] == drift
    if drift == "abrupt":
        assert a["change_points"] == [150, 300, 450]
    else:
        assert a["change_points"] == []


def test_sea_concepts_switch_exactly_at_the_change_points(river):
    T, thresholds = 1003, {0: 8, 1: 9, 2: 7, 3: 9.5}
    d = rd.load("sea", T, rng(1), options={"noise": 0.0, "variants": (2, 0, 3)})
    cps = d["change_points"]
    assert cps == [round(T * s / 4) for s in (1, 2, 3)]
    X, y = d["X"], d["y"]
    for s, (lo, hi) in enumerate(zip([0, *cps], [*cps, T], strict=True)):
        variant = (2, 0, 3)[s % 3]  # concepts cycle through the list
        assert np.array_equal(y[lo:hi], (X[lo:hi, 0] + X[lo:hi, 1] > thresholds[variant]).astype(np.int64))


def test_agrawal_segments_follow_the_classification_functions(river):
    # river's function 0: class 1 iff age < 40 or age >= 60; function 1: class 1 iff salary lies in
    # [50k, 100k] (age < 40), [75k, 125k] (40 <= age < 60) or [25k, 75k] (age >= 60)
    d = rd.load("agrawal", 401, rng(2), options={"functions": (0, 1), "n_segments": 2, "perturbation": 0.0})
    assert d["change_points"] == [200]
    age = d["X"][:, d["feature_names"].index("age")]
    salary = d["X"][:, d["feature_names"].index("salary")]
    f0 = (age < 40) | (age >= 60)
    lo = np.where(age < 40, 50_000, np.where(age < 60, 75_000, 25_000))
    f1 = (salary >= lo) & (salary <= lo + 50_000)
    assert np.array_equal(d["y"][:200], f0[:200].astype(np.int64))
    assert np.array_equal(d["y"][200:], f1[200:].astype(np.int64))
    assert not np.array_equal(f0[200:], f1[200:])  # the concepts differ on the second segment


def test_names_and_options_are_checked():
    with pytest.raises(ConfigError, match="valid names: shuttle, segment, yeast, hyperplane, rbf_drift, agrawal, sea"):
        rd.load("covtype", 10, rng(0))
    with pytest.raises(ConfigError, match=r"Unknown option\(s\) \['colour'\]"):
        rd.load("sea", 10, rng(0), options={"colour": 1})
    with pytest.raises(ConfigError, match="T must be >= 1"):
        rd.load("sea", 0, rng(0))


def test_missing_extra_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "river", None)  # import river now raises ImportError
    monkeypatch.setitem(sys.modules, "river.datasets", None)
    for name in ("shuttle", "sea"):
        with pytest.raises(ConfigError) as err:
            rd.load(name, 10, rng(0))
        msg = str(err.value)
        assert "pip install 'drift-bandits[river]'" in msg and "make install" in msg
        assert "\n" not in msg
