"""The checks that read a policy without running it: its route and the methods the runner calls
(``protocol``), and a constructor that only stores its arguments, all recorded (``parameters``,
scikit-learn's rule)."""

from __future__ import annotations

import inspect

from bandits.algorithms.protocol import METHODS
from bandits.conformance.trials import PolicyRaised, attempt
from bandits.environments.base import LEARNER_KEYS, PROBLEM_KINDS
from bandits.errors import ConfigError

# How the runner calls each method of a route: (positional arguments, keyword arguments)
CALLS = {
    "per-trial": {"reset": ((), ("n_arms", "horizon", "rng", "info")), "select": (("t",), ()),
                  "update": (("t", "arm", "reward"), ())},
    "batched": {"reset": ((), ("n_trials", "n_arms", "horizon", "rng", "info")), "select": (("t",), ()),
                "update": (("t", "arms", "rewards"), ())},
    "compiled": {"play": (("rewards", "info", "rng"), ("features",))},
}


def route(policy) -> str:
    """``"compiled"``, ``"batched"`` or ``"per-trial"``, as :func:`bandits.algorithms.protocol.play`
    dispatches; a ConfigError, in one paragraph, for an object that is no policy."""
    if callable(getattr(policy, "play", None)):
        return "compiled"
    present = [m for m in METHODS if callable(getattr(policy, m, None))]
    if len(present) == len(METHODS):
        return "batched" if getattr(policy, "batched", False) else "per-trial"
    has = f"it has {', '.join(present)} but no {', '.join(m for m in METHODS if m not in present)}" if present \
        else "it has none of these methods"
    raise ConfigError(f"{type(policy).__name__} is not a policy ({has}): a policy has play(rewards, info, rng, "
                      "features=None) (compiled, as the built-ins), or reset, select and update (per trial: "
                      "bandits/algorithms/protocol.py; batched, with the class attribute batched = True: "
                      "bandits/algorithms/batched.py).")


def call_problem(policy, method: str, positional: tuple, keywords: tuple) -> str | None:
    """Why ``policy.method`` cannot be called as the runner calls it (None: it can)."""
    try:
        signature = inspect.signature(getattr(policy, method))
    except (TypeError, ValueError):  # a builtin or an extension's method: nothing to read
        return None
    try:
        signature.bind(*[None] * len(positional), **dict.fromkeys(keywords))
    except TypeError as exc:
        shown = ", ".join([*positional, *(f"{k}=..." for k in keywords)])
        return f"{method}() cannot be called as the runner calls it, {method}({shown}): {exc}"
    return None


def protocol_problems(policy, way: str) -> list[str]:
    """What is wrong with the methods and declarations of ``policy``, a policy of route ``way``."""
    from bandits.experiments.compose.messages import did_you_mean

    problems = [p for m, (pos, kw) in CALLS[way].items() if (p := call_problem(policy, m, pos, kw))]
    declared = getattr(policy, "problem_kinds", None)
    if declared is not None:
        if isinstance(declared, str) or not isinstance(declared, (tuple, list, set, frozenset)):
            problems.append(f"problem_kinds must be a tuple of kind names, got {declared!r}")
        elif not declared:
            problems.append("problem_kinds is empty: it declares no kind of problem it solves")
        else:
            for kind in declared:
                if kind not in PROBLEM_KINDS:
                    problems.append(f"problem_kinds names {kind!r}, which is no kind of problem"
                                    f"{did_you_mean(kind, PROBLEM_KINDS)}; the kinds: {', '.join(PROBLEM_KINDS)}")
            if way != "compiled" and "semibandit" in declared:
                problems.append("problem_kinds declares semibandit, whose actions are sets of items: a "
                                f"{way} policy chooses one arm a round (only a compiled play() returns item sets)")
    told = getattr(policy, "needs", None)
    if told is not None and not callable(told):
        problems.append(f"needs must be a method returning the keys of info it reads, got {told!r}")
    elif told is not None:
        try:
            keys = attempt(told)
        except PolicyRaised as exc:
            keys = ()
            problems.append(f"needs() {exc}")
        if isinstance(keys, str):
            problems.append(f"needs() must return a tuple of keys, got the string {keys!r}")
        else:
            for key in keys:
                if key not in LEARNER_KEYS:
                    problems.append(f"needs() names {key!r}, which no environment tells a learner"
                                    f"{did_you_mean(key, LEARNER_KEYS)} (the learner keys: "
                                    "bandits/environments/base.py LEARNER_KEYS)")
    if hasattr(policy, "check_params") and not callable(policy.check_params):
        problems.append("check_params must be a method (it validates the parameters before any work)")
    return problems


class Placeholder:
    """What the parameters check hands a constructor for an argument: a constructor that only
    stores its arguments stores it as it is; any work with it (arithmetic, an order comparison, a
    conversion) raises TypeError."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<placeholder for {self.name}>"


ONLY_STORE = "only store them (validate in check_params(), convert or compute in reset() or play())"


def parameter_problems(policy) -> list[str]:
    """scikit-learn's rule: after ``__init__`` every argument is an attribute of its own name
    holding the value given (``is``), nothing else was set, and so
    :func:`bandits.experiments.compose.params.constructor_params` records every argument as used."""
    from bandits.experiments.compose.params import constructor_params

    cls = type(policy)
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return []
    named = [n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    problems = []
    varargs = [("*" if p.kind == p.VAR_POSITIONAL else "**") + n for n, p in params.items()
               if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if varargs:
        problems.append(f"the constructor takes {', '.join(varargs)}: name every parameter in its signature, so "
                        "that each is recorded with the results")
    stored, recorded = getattr(policy, "__dict__", {}), constructor_params(policy)
    for name in named:
        if name not in stored:
            records = f"the default {recorded[name]!r}" if name in recorded else "nothing"
            problems.append(f"{name} is not stored as self.{name}, so the results would record {records} for it: "
                            "store each argument under its own name")
    given = {n: Placeholder(n) for n in named}
    defaults = {n: params[n].default for n in named if params[n].default is not params[n].empty}
    builds = [("given a placeholder for each argument", given, {})]
    if defaults:  # the arguments that have one left out: each default stored as it is
        builds.append(("with its defaults", {n: v for n, v in given.items() if n not in defaults}, defaults))
    for how, kwargs, defaulted in builds:
        try:
            obj = attempt(cls, **kwargs)
        except PolicyRaised as exc:
            problems.append(f"{how}, the constructor {exc}: it works with its arguments; {ONLY_STORE}")
            continue
        attrs = getattr(obj, "__dict__", {})
        expected = {**kwargs, **defaulted}
        changed = [f"{n}={attrs[n]!r}" + (f" (default {expected[n]!r})" if n in defaulted else "")
                   for n in named if n in attrs and attrs[n] is not expected[n]]
        if changed:
            problems.append(f"{how}, the constructor stores {', '.join(changed)}, not the value given; {ONLY_STORE}")
        extra = sorted(set(attrs) - set(named))
        if extra:
            problems.append(f"the constructor also sets {', '.join(extra)}: it should set nothing but its arguments "
                            "(what a run computes belongs in reset() or play(), named with a trailing _)")
    return list(dict.fromkeys(problems))
