"""What every environment hands to the runner: an instance, then per-trial rewards.

An environment is drawn in two steps so that every algorithm of a trial faces the
same draw (spec §1):

1. ``instance(T, rng)`` -> :class:`Instance`: the expected rewards ``means[t, a]``
   of every arm at every round, what a learner may be told (``info``: only the
   keys of :data:`LEARNER_KEYS`, e.g. R, L, S, B_T, d) and what only the
   evaluation may use (``evaluation``: change points, the optimal policy, realised
   variation, ...; free-form, with the keys of :data:`EVALUATION_KEYS` recorded by
   every built-in environment). Drawn once per (experiment, T) from the root seed.
2. ``rewards(instance, rng)`` -> ``(T, K)`` array: what arm ``a`` pays if chosen at
   round ``t``. Drawn once per trial and shared by every algorithm of the trial, so
   two algorithms choosing the same arm at the same round see the same noise.

Dynamic regret is always computed from ``means`` (pseudo-regret, spec §1).

Feedback is enforced, not assumed: an :class:`Instance` refuses an ``info`` key
that is not in :data:`LEARNER_KEYS`, so every new key must be classified as
learner knowledge (here) or evaluation data (``evaluation``). The runner hands a
policy ``info`` only; ``means``, ``optimal`` and ``evaluation`` never reach it
(an oracle baseline gets named evaluation keys through one explicit channel, see
:func:`bandits.simulation.learner_info`). Contexts and action sets are revealed
for all rounds at once for speed: they do not depend on the learner's actions,
and a learner must read row t only at round t (the protocol's loop does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# The kinds of problem, as environments report them and algorithms declare them
# (``problem_kinds``); the runner refuses a pair that does not match before any work.
PROBLEM_KINDS = {
    "karmed": "K arms, one reward per arm and round",
    "linear": "linear bandit: action sets D_t of feature vectors",
    "pricing": "personalised pricing: a price grid, linear revenue features",
    "contextual": "contextual bandit with a finite policy class",
    "glb": "generalized linear bandit (logistic link)",
    "semibandit": "combinatorial semi-bandit: actions are subsets of items",
}


# What every environment of a kind tells a learner about the problem's structure; an
# algorithm declares any other key it needs (constants such as R or B_T) in ``needs()``.
KIND_KEYS = {
    "karmed": ("d",),
    "linear": ("d", "linear"),
    "pricing": ("d", "linear", "prices", "recorded_action"),
    "contextual": ("K", "contextual", "contexts", "policy_actions", "n_policies"),
    "glb": ("d", "linear", "glb", "link"),
    "semibandit": ("d", "m", "family", "semibandit"),
}


def kind_of(info: dict) -> str:
    """The kind of problem an instance's learner information describes."""
    for kind in ("semibandit", "glb", "contextual"):
        if info.get(kind):
            return kind
    if "prices" in info:
        return "pricing"
    return "linear" if info.get("linear") else "karmed"


# What an environment may tell a learner. Anything else an environment knows goes to
# Instance.evaluation, which only the evaluation and the stored records see.
LEARNER_KEYS = {
    "d": "dimension of the action vectors (K for basis-vector arms)",
    "K": "number of actions (contextual problems)",
    "R": "sub-Gaussian noise scale of the rewards",
    "L": "bound on the action norms",
    "S": "bound on ||theta_t|| (hedging's S)",
    "B_T": "variation budget (told to algorithms that know it)",
    "S_switches": "number of stationary pieces (ada's S), for algorithms that know it",
    "Upsilon_T": "number of change points in rounds 1..T (Upsilon_T), for algorithms that know it",
    "min_change": "size of the smallest change: min over change points of the largest move of an arm's mean "
                  "(CUSUM's epsilon, M-UCB's delta are read from it), for algorithms that know it",
    "Delta_TV": "total-variation budget (ada's Delta), for algorithms that know it",
    "reward_bound": "rewards lie in [0, reward_bound] (or |reward| <= reward_bound)",
    "reward_range": "(lo, hi): every reward lies in [lo, hi], when the environment guarantees it",
    "linear": "the actions are feature vectors (Instance.features)",
    "glb": "generalized linear rewards", "link": "the GLB link function",
    "semibandit": "actions are subsets of items (bit masks)", "m": "items per action",
    "family": "the feasible subsets (0/1 rows; none = every subset of size m)",
    "contextual": "contextual problem", "n_policies": "size of the finite policy class",
    "contexts": "x_t for every round (T, d); read row t at round t",
    "policy_actions": "every policy's action at every round (T, N): the class, evaluated on x_t",
    "prices": "the price grid (pricing)", "recorded_action": "the price recorded in the data (pricing)",
}


# Evaluation keys every built-in environment records (Instance.evaluation is free-form otherwise:
# any key is allowed there; scalars and lists are stored in each row's env_info). The figures and
# the summary read them to say what a regret is measured against and whether noise varies.
EVALUATION_KEYS = {
    "change_points": "0-based rounds t in 1..T-1 where a new stationary piece starts ([] when there is none; "
                     "left out for a gradual drift; the definition: bandits/environments/change_points.py)",
    "change_points_source": "where the change points come from: a key of CHANGE_POINT_SOURCES",
    "comparator": "what the regret is measured against, round by round: a key of COMPARATORS",
    "trial_noise": "true when the rewards are drawn afresh in every trial (noise varies between trials); false "
                   "when every trial replays the same rewards",
}

CHANGE_POINT_SOURCES = {
    "generator": "the environment made them: its own construction, exact",
    "derived from means": "the rounds where some arm's mean moves (bandits/environments/change_points.py)",
    "declared": "the user declared them (env.change_points / env.change_column); not checked against the data",
    "best-arm switches": "a smooth drift has none; the rounds where the best arm switches play them (sinusoid)",
    "none": "no change point is known: a gradual drift, or data whose change points were not declared",
}

COMPARATORS = {
    "best action per round": "max_a mu_t(a) at every round: dynamic regret",
    "best policy per piece": "the policy class's best policy in each stationary piece between the change points: "
                             "dynamic regret against the class",
    "best policy per round": "the policy class's best policy at each round (estimated on a grid of rounds): "
                             "dynamic regret against the class",
    "best fixed policy": "the policy class's best policy over all rounds, no change point being known: regret "
                         "against the best fixed policy, not dynamic regret",
}


def bernoulli_noise(p: np.ndarray) -> bool:
    """Whether Bernoulli rewards of success probabilities ``p`` vary between trials: some p
    lies strictly between 0 and 1 (else every draw is the same)."""
    return bool(((p > 0) & (p < 1)).any())


@dataclass
class Instance:
    means: np.ndarray  # (T, K) float64, expected reward of arm a at round t
    info: dict = field(default_factory=dict)  # what a learner may be told: LEARNER_KEYS only
    # Evaluation only (never shown to a policy): change points, optimal policy, realised
    # variation, data provenance. Scalars and lists are stored with every result row.
    evaluation: dict = field(default_factory=dict)
    rewards: np.ndarray | None = None  # fixed realised rewards (replayed tables), else None
    # Linear problems: the action sets D_t as feature vectors, (T, K, d), or (1, K, d) when
    # the same set is offered every round. None means the K arms are the basis vectors e_1..e_K.
    features: np.ndarray | None = None
    # Expected reward of the comparator at each round when it is not the best action of the
    # round (contextual problems: the best policy in the class); None means means.max(axis=1).
    optimal: np.ndarray | None = None
    # Arrays only the environment uses (never shown to algorithms), e.g. acceptance probabilities.
    extras: dict = field(default_factory=dict)

    def __post_init__(self):
        unknown = sorted(set(self.info) - set(LEARNER_KEYS))
        if unknown:
            raise TypeError(f"Instance.info may only hold what a learner may be told (LEARNER_KEYS); "
                            f"classify {unknown}: add them to LEARNER_KEYS or move them to Instance.evaluation.")
        # without `optimal` the regret is against the per-round best action (simulation.evaluate);
        # trial_noise: every built-in environment sets it, and one of your own that does not is
        # read as drawing its rewards per trial unless it hands fixed `rewards`
        self.evaluation.setdefault("trial_noise", self.rewards is None)
        if self.optimal is None:
            self.evaluation.setdefault("comparator", "best action per round")

    @property
    def T(self) -> int:
        return int(self.means.shape[0])

    @property
    def K(self) -> int:
        return int(self.means.shape[1])


def gaussian_rewards(means: np.ndarray, R: float, rng: np.random.Generator) -> np.ndarray:
    """Realised rewards ``means + eta`` with eta ~ N(0, R^2), one draw per (round, arm)."""
    noise = rng.standard_normal(means.shape)
    noise *= R
    noise += means
    return noise


def bernoulli_rewards(means: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Realised rewards 1{U < means}, U ~ U[0, 1): Bernoulli with the given means, one draw
    per (round, arm)."""
    return (rng.random(means.shape) < means).astype(np.float64)


def reward_blocks(env, instance: Instance, rng: np.random.Generator, rounds: int):
    """A trial's rewards in blocks of ``rounds`` consecutive rounds, the same numbers as
    ``env.rewards(instance, rng)`` (the environment's ``reward_blocks`` draws each block in
    turn from the same stream, so that a batch of many trials at a long horizon holds a block
    of each, not its whole table; an environment without one draws the table and slices it)."""
    own = getattr(env, "reward_blocks", None)
    if callable(own):
        yield from own(instance, rng, rounds)
        return
    table = env.rewards(instance, rng)
    for start in range(0, table.shape[0], rounds):
        yield table[start:start + rounds]


def drawn_in_blocks(draw, means: np.ndarray, rounds: int):
    """``draw(means[a:b])`` for consecutive blocks of rows: a draw that fills its array in order
    from one stream (``gaussian_rewards``, ``bernoulli_rewards``) gives, block after block, the
    numbers it gives for the whole table at once."""
    for start in range(0, means.shape[0], rounds):
        yield draw(means[start:start + rounds])


def unit_vectors(rng: np.random.Generator, shape) -> np.ndarray:
    """Vectors uniform on the unit sphere (last axis): normalised standard normals."""
    v = rng.standard_normal(shape)
    v /= np.linalg.norm(v, axis=-1, keepdims=True)
    return v


def variation(means: np.ndarray) -> dict:
    """Realised variation of theta_t = means[t]: sum_t ||theta_{t+1} - theta_t|| in the
    infinity norm (the K-armed budget of hedging §8.2) and the 2-norm (eq. (1))."""
    diff = np.diff(means, axis=0)
    return {
        "variation_inf": float(np.abs(diff).max(axis=1).sum()) if len(diff) else 0.0,
        "variation_l2": float(np.sqrt((diff ** 2).sum(axis=1)).sum()) if len(diff) else 0.0,
    }
