"""The conformance suite: the checks every built-in algorithm passes, for a policy of your own
too (``drift-bandits check MODULE.CLASS``, ``bandits.check(policy)``); the project's own tests
(tests/test_conformance.py) run these same functions on every built-in. In the spirit of
scikit-learn's estimator checks.

A policy takes one of three routes (:func:`route`): per trial (``reset`` / ``select`` /
``update``, :mod:`bandits.algorithms.protocol`), batched (``batched = True`` and the same methods
on arrays, :mod:`bandits.algorithms.batched`) or compiled (``play(rewards, info, rng,
features=None)``, as every built-in). :data:`CHECKS` says what each check asks; the checks that
read the class are in :mod:`.declarations`, those that run it in :mod:`.runs`, on a small problem
(T = 600) of every kind the policy declares (:mod:`.trials`), each run on a fresh copy of the
policy, as the runner runs each cell.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

from bandits.conformance.declarations import parameter_problems, protocol_problems, route
from bandits.conformance.runs import RUN_CHECKS, Outcome, kind_outcomes
from bandits.conformance.trials import PolicyRaised, T, attempt, trial
from bandits.environments.base import PROBLEM_KINDS
from bandits.errors import ConfigError
from bandits.simulation import guarded, problem_kinds

__all__ = ["CHECKS", "CheckReport", "check", "route", "trial"]

CHECKS = {
    "protocol": "the methods of its route, callable as the runner calls them; problem_kinds among the kinds of "
                "problem; needs() among the learner keys",
    "parameters": "the constructor only stores its arguments, each under its own name, so all are recorded",
    "runs": "one valid action a round on every kind it declares, the rewards it is handed left as they were",
    "determinism": "the same seed gives the same trajectory (numpy's and Python's global random state reseeded "
                   "in between)",
    "feedback": "the same trajectory when every unchosen reward is replaced (by NaN, then by other random values)",
    "needs": "the same trajectory when info holds only its kind's structure and what needs() declares (an "
             "undeclared key it looks up is named)",
    "independence": "each trial of a batch of several chooses what it chooses alone",
}


@dataclass
class CheckReport:
    """What :func:`check` found: ``print`` it for one line per check (PASS, FAIL, SKIP: could
    not run, n/a) and a verdict; ``passed`` is the verdict, ``failed`` the checks that failed,
    ``trajectories`` the policy's actions on each kind's problem (trial 0)."""
    policy: str
    route: str
    kinds: tuple
    outcomes: dict
    trajectories: dict = field(default_factory=dict)

    @property
    def failed(self) -> list:
        return [n for n, o in self.outcomes.items() if o.status == "FAIL"]

    @property
    def passed(self) -> bool:
        return all(o.status in ("PASS", "n/a") for o in self.outcomes.values())

    def lines(self) -> list:
        width = max(map(len, CHECKS))
        return [f"{o.status:<4}  {name:<{width}}  {o.detail or CHECKS[name]}" for name, o in self.outcomes.items()]

    def verdict(self) -> str:
        applicable = [n for n, o in self.outcomes.items() if o.status != "n/a"]
        if self.passed:
            return f"verdict: PASS: {self.policy} passes all {len(applicable)} checks."
        if self.failed:
            return f"verdict: FAIL: {self.policy} fails {len(self.failed)} of {len(applicable)} checks " \
                   f"({', '.join(self.failed)})."
        skipped = [n for n, o in self.outcomes.items() if o.status == "SKIP"]
        return f"verdict: FAIL: {self.policy} could not be checked in full ({', '.join(skipped)} not run)."

    def tracebacks(self) -> str:
        """The policy's tracebacks, where it raised (for ``--debug``)."""
        return "\n".join(o.traceback for o in self.outcomes.values() if o.traceback)

    def __str__(self) -> str:
        return "\n".join([f"checking {self.policy}, a {self.route} policy, on {', '.join(self.kinds) or 'no kind'} "
                          f"(T={T})", *self.lines(), self.verdict()])

    __repr__ = __str__


def merged(name: str, outcomes: list) -> Outcome:
    """One check's outcome over the kinds: FAIL if it failed on one, else SKIP if not run on one."""
    for status in ("FAIL", "SKIP"):
        hit = [o for o in outcomes if o.status == status]
        if hit:
            return Outcome(status, "; ".join(dict.fromkeys(o.detail for o in hit)),
                           "\n".join(o.traceback for o in hit if o.traceback))
    return Outcome("PASS")


def declared_kinds(policy, way: str) -> list:
    """The kinds the policy declares that it can be run on (a broken declaration is the protocol
    check's finding)."""
    try:
        kinds = [k for k in attempt(problem_kinds, policy) if isinstance(k, str) and k in PROBLEM_KINDS]
    except PolicyRaised:  # a problem_kinds property that raises
        return []
    return [k for k in kinds if way == "compiled" or k != "semibandit"]


def check(policy, kinds=None) -> CheckReport:
    """Run the conformance suite on ``policy`` (an instance; a class is built with its defaults)
    on a small problem of each kind it declares (or of ``kinds``, some of them). ``print`` the
    report for one line per check and a verdict; ``report.passed`` is the verdict. Raises a
    ConfigError (one paragraph) for an object that is no policy, a kind it does not declare, or
    parameters its ``check_params()`` refuses."""
    if inspect.isclass(policy):
        try:
            policy = attempt(policy)
        except PolicyRaised as exc:
            raise ConfigError(f"{policy.__name__}() {exc}: hand check() an instance, built with its "
                              "parameters.") from None
    way = route(policy)
    name = type(policy).__name__
    if callable(getattr(policy, "check_params", None)):
        guarded(policy, "check_params", "before any work")  # bad parameters: one paragraph, as in a run
    declared = declared_kinds(policy, way)
    if kinds is None:
        kinds = declared
    else:
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        undeclared = [k for k in kinds if k not in declared]
        if undeclared:
            raise ConfigError(f"{name} does not declare {', '.join(map(str, undeclared))} among the kinds of problem "
                              f"it solves (problem_kinds: {', '.join(declared) or 'none'}): choose among those.")
    found = {"protocol": protocol_problems(policy, way), "parameters": parameter_problems(policy)}
    outcomes = {n: Outcome("FAIL", "; ".join(p)) if p else Outcome("PASS") for n, p in found.items()}
    per_kind, trajectories = {n: [] for n in RUN_CHECKS}, {}
    for kind in kinds:
        results, actions = kind_outcomes(policy, kind, way == "batched")
        for n, outcome in results.items():
            per_kind[n].append(outcome)
        if actions is not None:
            trajectories[kind] = actions
    for n in RUN_CHECKS:
        if n == "independence" and way != "batched":
            outcomes[n] = Outcome("n/a", "batched policies only")
        elif per_kind[n]:
            outcomes[n] = merged(n, per_kind[n])
        else:
            outcomes[n] = Outcome("SKIP", "not run: it declares no kind of problem it can be run on")
    return CheckReport(name, way, tuple(kinds), outcomes, trajectories)
