"""The closed-form constants against hand computation and the paper's formulas."""

import math

import pytest

from bandits.algorithms.tuning import (
    bob_parameters,
    confidence_radius,
    integer_root_floor,
    karmed_radius,
    window_bar,
    window_obl,
    window_opt,
)
from bandits.errors import ConfigError


def test_confidence_radius_eq3_by_hand():
    # R=0.1, d=2, w=100, L=1, lambda=1, delta=0.01, S=0.5
    expected = 0.1 * math.sqrt(2 * math.log((1 + 100) / 0.01)) + 0.5
    assert confidence_radius(0.1, 2, 100, 1.0, 1.0, 0.01, 0.5) == pytest.approx(expected, rel=1e-15)
    assert expected == pytest.approx(0.1 * math.sqrt(2 * 9.220291) + 0.5, rel=1e-6)


def test_karmed_radius_eq22():
    assert karmed_radius(0.1, 2, 1000) == pytest.approx(0.1 * math.sqrt(2 * math.log(4e6)))


def test_window_bar_eq101_by_hand():
    T, d, R, L, S, lam = 30000, 2, 0.1, 1.0, 0.8, 1.0
    radius = R * math.sqrt(d * math.log(T + T * T)) + S
    expected = (2 ** (1 / 3) * T ** (2 / 3) / 2 ** (1 / 3)) * radius ** (2 / 3) * math.log(1 + T / 2) ** (1 / 3)
    assert window_bar(T, d, R, L, S, lam) == pytest.approx(expected, rel=1e-12)
    kw = dict(d=d, R=R, L=L, S=S, lam=lam)
    assert window_obl(T, **kw) == math.ceil(expected)
    assert window_opt(T, 8.0, **kw) == math.ceil(expected / 4.0)  # 8^(2/3) = 4


def test_windows_are_capped_at_T():
    kw = dict(d=2, R=0.1, L=1.0, S=0.8, lam=1.0)
    big = dict(kw, R=10.0)
    assert window_bar(50, **big) > 50 and window_obl(50, **big) == 50
    assert window_opt(50, 1e-9, **kw) == 50
    assert window_opt(50, 0.0, **kw) == 50


@pytest.mark.parametrize("H,j,Delta,expected", [(8, 3, 3, 8), (8, 1, 3, 2), (8, 2, 3, 4), (27, 1, 3, 3),
                                                (244, 4, 6, 39), (10 ** 6, 1, 2, 1000), (10 ** 6 - 1, 1, 2, 999)])
def test_integer_root_is_exact(H, j, Delta, expected):
    assert integer_root_floor(H, j, Delta) == expected


def test_bob_parameters_eq23_by_hand():
    p = bob_parameters(30000, 2, 0.1, "karmed")
    assert p["H"] == 244  # floor(sqrt(60000)) = 244
    assert p["Delta"] == 6  # ceil(ln 244) = ceil(5.497)
    assert p["J"] == [1, 2, 6, 15, 39, 97, 244]
    assert p["Q"] == pytest.approx(2 * 244 + 4 * 0.1 * math.sqrt(244 * math.log(30000 / math.sqrt(244))))
    assert p["n_blocks"] == math.ceil(30000 / 244)
    assert p["gamma"] == pytest.approx(math.sqrt(7 * math.log(7) / ((math.e - 1) * 123)))


def test_bob_linear_setting_eq11_caps_H_at_T():
    assert bob_parameters(10 ** 5, 5, 0.1, "linear")["H"] == math.floor(5 * math.sqrt(10 ** 5))
    assert bob_parameters(20, 5, 0.1, "linear")["H"] == 20


def test_bob_needs_H_at_least_2():
    with pytest.raises(ConfigError, match="H >= 2"):
        bob_parameters(1, 2, 0.1, "karmed")
