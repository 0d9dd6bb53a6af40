"""D-LinTS (Kim & Tewari, UAI 2020) transcribed literally from the authors' code
(``baekjin-kim/NonstationaryLB`` @ 7f8d7d1, ``D_LinTS_class.py``; the paper's text was not
found, so this is the authors' code's reading), with the whole history kept: every round the
discounted statistics are rebuilt from the chosen actions and rewards so far,

    V  = lambda I + sum_s gamma^(n-s) A_s A_s^T,    V~ = lambda I + sum_s gamma^(2(n-s)) A_s A_s^T,
    b  = sum_s gamma^(n-s) X_s A_s                  (n updates: the closed form of the authors' recursion).

While n < warmup (null = d, the authors' ``if self.t < self.dim``): K draws ``rng.random()``,
the action with the largest is played (the authors' +inf scores and their ``mixer``).
Afterwards z = (``rng.normal(0, 1)`` d times), theta~ = pinv(V) (b + alpha R z) with R =
``np.linalg.cholesky(V~)`` (``root: cholesky``) or ``scipy.linalg.sqrtm(V~).real`` (``root:
sqrtm``, the authors' line), and the action with the largest a^T theta~ is played (ties: the
lowest index). An independent check of :class:`bandits.algorithms.DiscountedLinTS`.

``gamma`` is a number in (0, 1] here. Use it as ``python run.py algo=custom
algo._target_=bandits.reference.ReferenceDLinTS +algo.gamma=0.99``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from bandits.reference.common import lowest_argmax


class ReferenceDLinTS:
    problem_kinds = ("karmed", "linear")

    def __init__(self, gamma: float = 0.99, alpha: float = 1.0, lam: float = 1.0, warmup: int | None = None,
                 root: str = "cholesky"):
        self.gamma = gamma
        self.alpha = alpha
        self.lam = lam
        self.warmup = warmup
        self.root = root

    def needs(self) -> tuple:
        return ()

    def reset(self, n_arms, horizon, rng, info):
        self.features_ = info.get("features")
        if self.features_ is None:
            self.features_ = np.eye(n_arms)[None, :, :]
        self.rng_, self.K_ = rng, n_arms
        self.d_ = self.features_.shape[2]
        self.warmup_ = self.d_ if self.warmup is None else self.warmup
        self.A_, self.X_ = [], []

    def _actions(self, t):
        return self.features_[t if self.features_.shape[0] > 1 else 0]

    def select(self, t):
        g, lam, d, n = self.gamma, self.lam, self.d_, len(self.A_)
        if n < self.warmup_:
            return lowest_argmax([self.rng_.random() for _ in range(self.K_)])
        A = np.array(self.A_).reshape(n, d)
        w = g ** np.arange(n - 1, -1, -1, dtype=float)
        V = lam * np.eye(d) + (A * w[:, None]).T @ A
        Vt = lam * np.eye(d) + (A * (w * w)[:, None]).T @ A
        b = A.T @ (w * np.array(self.X_))
        z = np.array([self.rng_.normal(0.0, 1.0) for _ in range(d)])
        root = np.linalg.cholesky(Vt) if self.root == "cholesky" else scipy.linalg.sqrtm(Vt).real
        theta_tilde = np.linalg.pinv(V) @ (b + self.alpha * root @ z)
        return lowest_argmax([a @ theta_tilde for a in self._actions(t)])

    def update(self, t, arm, reward):
        self.A_.append(self._actions(t)[arm])
        self.X_.append(reward)
