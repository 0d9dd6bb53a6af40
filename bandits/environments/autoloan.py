"""Personalised dynamic pricing on auto-loan data (hedging §9.2, Figure 5).

Customer t (the t-th application in date order) has features x_t (see
:mod:`bandits.environments.cprm_data`); the seller offers a price p from the grid
{0, 10, ..., 500}. The acceptance probability is clip(<theta_t, [x_t; p x_t]>, 0, 1)
with theta_t the least-squares estimate of customer t's day (piecewise stationary:
constant within a day, changing across days), and the reward is p times a
Bernoulli acceptance. The optimum is per customer: max_p p * clip(...).

Action vectors for the linear algorithms (our reading of the paper): price p is the
vector (p/P) [x_t; (p/P) x_t] with P = 500, the grid's top price, so expected
revenue is <theta_rev, phi> with theta_rev = P [theta_x; P theta_px], linear in
theta wherever the clip is inactive. Measuring prices in units of P keeps the
vectors of order 1 (the paper's p [x; p x] with p up to 500 has norm ~1e6 and a
V matrix too ill-conditioned for the rank-one updates); SW-UCB's decisions do not
depend on the unit of the reward, only on this choice of price unit.

Constants told to algorithms: d = 16, L = max ||phi||, S = max_t ||theta_rev,t||,
R = P / 2 (a reward in [0, P] is P/2-sub-Gaussian), B_T = the realised variation
of theta_rev, reward_bound = P (BOB's Q, Lemma 7.4). ``B_T_theta`` records the
variation of theta itself, the quantity the paper reports (about 190 on the real
data). ``prices`` and ``recorded_action`` (the company's price, snapped to the
grid) are also revealed: MW and ``company`` use them.

Every trial draws one uniform per customer: she accepts price p iff u_t < prob(p),
so all algorithms, at every price, face the same customer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bandits.environments import change_points, cprm_data, cprm_surrogate
from bandits.environments.base import Instance, bernoulli_noise, variation
from bandits.errors import ConfigError, require_float, require_int


class AutoLoan:
    name = "autoloan"
    problem_kinds = ("pricing",)

    def problem_kind(self) -> str:
        return "pricing"

    def __init__(self, data_path: str | None = None, price_step: float = 10.0, price_max: float = 500.0,
                 ridge: float = 1.0, min_rows_ols: int | None = None, surrogate_path: str | None = None,
                 max_file_mb: float = 1024.0):
        self.data_path = data_path
        self.price_step = price_step
        self.price_max = price_max
        self.ridge = ridge
        self.min_rows_ols = min_rows_ols
        self.surrogate_path = surrogate_path
        self.max_file_mb = max_file_mb

    @property
    def source(self) -> str:
        return "CPRM-12-001" if self.data_path else "synthetic surrogate"

    def check_params(self, T: int) -> None:
        step = require_float("env.price_step", self.price_step, minimum=0.0, strict=True)
        top = require_float("env.price_max", self.price_max, minimum=0.0, strict=True)
        if top < step:
            raise ConfigError(f"env.price_max ({top}) must be at least env.price_step ({step}).")
        require_float("env.ridge", self.ridge, minimum=0.0, strict=True)
        require_float("env.max_file_mb", self.max_file_mb, minimum=0.0, strict=True)
        if self.min_rows_ols is not None:
            require_int("env.min_rows_ols", self.min_rows_ols, minimum=1)
        self._frame(T)  # loads and validates the file now, before any work starts

    def _path(self) -> Path:
        if self.data_path:
            return Path(self.data_path)
        return cprm_surrogate.ensure(self.surrogate_path)

    def _frame(self, T: int):
        cache = self.__dict__.setdefault("frames_", {})
        if T not in cache:
            cache[T] = cprm_data.load_cprm(self._path(), T, float(self.max_file_mb))
        return cache[T]

    def grid(self) -> np.ndarray:
        return np.arange(0.0, float(self.price_max) + float(self.price_step) / 2, float(self.price_step))

    def footprint(self, T: int) -> int:
        """Bytes of the instance in memory: means, acceptance probabilities and the 16-dimensional
        revenue features of every price for every customer."""
        return 8 * T * len(self.grid()) * (2 + 16)

    def instance(self, T: int, rng: np.random.Generator | None = None) -> Instance:
        frame = self._frame(T)
        x = cprm_data.build_features(frame)
        npv = cprm_data.impute_price(frame["mp"], frame["Term"], frame["Amount_Approved"])
        recorded, scale = cprm_data.rescale_prices(npv)
        days = cprm_data.day_index(frame)
        theta_day, ridge_days = cprm_data.recover_theta(x, recorded, frame["apply"].to_numpy(np.float64), days,
                                                        float(self.ridge), self.min_rows_ols)
        theta = theta_day[days]
        k = x.shape[1]
        prices = self.grid()
        P = float(self.price_max)
        base = (x * theta[:, :k]).sum(axis=1)
        slope = (x * theta[:, k:]).sum(axis=1)
        prob = np.clip(base[:, None] + prices[None, :] * slope[:, None], 0.0, 1.0)
        means = prices[None, :] * prob
        unit = prices / P
        features = np.concatenate([unit[None, :, None] * x[:, None, :],
                                   (unit ** 2)[None, :, None] * x[:, None, :]], axis=2)
        theta_rev = np.hstack([P * theta[:, :k], P * P * theta[:, k:]])
        recorded_action = np.clip(np.rint(recorded / float(self.price_step)), 0, len(prices) - 1).astype(np.int64)
        info = {
            "d": 2 * k, "R": P / 2, "L": float(np.linalg.norm(features, axis=-1).max()),
            "S": float(np.linalg.norm(theta_rev, axis=1).max()),
            "B_T": float(np.linalg.norm(np.diff(theta_rev, axis=0), axis=1).sum()),
            "reward_bound": P, "reward_range": (0.0, P), "linear": True,
            "prices": prices, "recorded_action": recorded_action,
        }
        evaluation = {
            "B_T_theta": float(np.linalg.norm(np.diff(theta, axis=0), axis=1).sum()),
            "synthetic": not self.data_path, "data_source": self.source,
            "n_days": int(days.max()) + 1, "ridge_days": int(ridge_days.sum()), "price_scale": scale,
            "acceptance_rate": float(frame["apply"].mean()), "mean_mp": float(frame["mp"].mean()),
            **variation(theta_rev),  # variation_l2 == B_T: the algorithm's parametrisation
            # theta moves by day and the customer with every round: no piece is stationary
            **change_points.gradual(), "trial_noise": bernoulli_noise(prob),
        }
        return Instance(means=means, info=info, evaluation=evaluation, features=features, extras={"prob": prob})

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        u = rng.random(instance.T)
        accept = u[:, None] < instance.extras["prob"]
        return instance.info["prices"][None, :] * accept
