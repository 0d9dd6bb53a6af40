"""From a config node to an object: an environment or an algorithm instantiated from its
``_target_``, its class and parameters checked first (a misspelt parameter gets a "did you
mean", a class that cannot be imported says which module was found), an algorithm's own
``check_params()`` called, and its parameters recorded in full (:mod:`params`)."""

from __future__ import annotations

import copy
import json
import logging
import re
from contextlib import contextmanager

from omegaconf import DictConfig, ListConfig, OmegaConf

from bandits.algorithms.protocol import is_protocol_policy
from bandits.errors import ConfigError, ReportedError
from bandits.experiments.compose.names import check_algo_key, check_label
from bandits.experiments.compose.params import recorded_params
from bandits.simulation import guarded


def plain(node) -> dict:
    return OmegaConf.to_container(node, resolve=True) if isinstance(node, (DictConfig, ListConfig)) else dict(node)


class BuildCache(dict):
    """The built-in algorithms a sweep has built and checked: spec (JSON) -> object. The scenarios
    and seeds of a sweep name the same algorithms again and again (7 of them x 12 scenarios x 50
    seeds in master_geo), and Hydra's instantiate costs milliseconds each; a built-in algorithm's
    constructor only stores its parameters, so a copy of the first is the same object. One cache
    per sweep, handed down by whoever owns it."""

    def taken(self, memo: str):
        return copy.deepcopy(self[memo]) if memo in self else None

    def keep(self, memo: str, obj) -> None:
        self[memo] = copy.deepcopy(obj)


def build(spec: dict, kind: str, cache: BuildCache | None = None):
    """Instantiate a config node ``{name, _target_, **params}`` into (name, object). A
    config without a name is named after its class (a user's policy, say).

    A built-in algorithm (a ``bandits.`` class: its constructor only stores its parameters)
    is built and checked once per ``cache`` (a sweep's :class:`BuildCache`) and spec, and
    handed out as a copy."""
    from hydra.errors import InstantiationException
    from hydra.utils import instantiate

    reserved = ("name", "label") if kind == "algo" else ("name",)  # an algorithm's display label; env.label is a column
    spec = {k: v for k, v in spec.items() if k not in reserved}
    target = spec.get("_target_")
    if not target or target == "???":
        raise ConfigError(f"{kind} config has no _target_: set {kind}._target_=package.module.Class.")
    memo = None
    if cache is not None and kind == "algo" and str(target).startswith("bandits."):
        memo = json.dumps(spec, sort_keys=True, default=repr)
        built = cache.taken(memo)
        if built is not None:
            return str(target).rsplit(".", 1)[-1], built
    check_parameters(kind, target, [k for k in spec if k != "_target_"])
    try:
        obj = instantiate(spec, _convert_="all")
    except InstantiationException as exc:
        msg = str(exc).strip().splitlines()
        raise ConfigError(f"cannot build {kind} from _target_={target}: {' '.join(msg)}") from None
    if kind == "algo" and not (callable(getattr(obj, "play", None)) or is_protocol_policy(obj)):
        raise ConfigError(f"algo {target} is not a policy: it needs play(rewards, info, rng) or "
                          "reset/select/update (see bandits/algorithms/protocol.py).")
    if kind == "algo" and callable(getattr(obj, "check_params", None)):
        guarded(obj, "check_params", "before any work")  # environments: per horizon, in check_setup()
    if memo is not None:
        cache.keep(memo, obj)
    return str(target).rsplit(".", 1)[-1], obj


def check_parameters(kind: str, target: str, given: list, head: str | None = None) -> None:
    """The class exists and takes every parameter given (a misspelt one gets a "did you mean");
    ``head`` names the target in the message (default ``<kind>._target_=<target>``)."""
    import difflib
    import inspect

    from hydra.utils import get_class

    from bandits.experiments.compose.targets import import_problem

    quiet = logging.getLogger("hydra.utils")
    level, quiet.level = quiet.level, logging.CRITICAL  # the error is reported below, once
    try:
        cls = get_class(target)
    except Exception as exc:  # noqa: BLE001 -- hydra wraps import errors of every kind
        raise import_problem(kind, target, exc, head) from None  # the class or module missing, named
    finally:
        quiet.setLevel(level)
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return
    valid = [n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key in given:
        if key not in valid:
            close = difflib.get_close_matches(key, valid, 1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{kind} {cls.__name__} has no parameter {key!r}{hint}; its parameters: "
                              f"{', '.join(valid) or 'none'}.")


def algorithm(spec: dict, name: str | None = None, cache: BuildCache | None = None):
    """(name, object, spec) of one algorithm config; the name defaults to the config's
    ``name``, then to the class name."""
    check_label("algo.label", spec.get("label"))
    if name is not None:
        check_algo_key(name)
    built_name, obj = build(spec, "algo", cache)
    name = name or spec.get("name") or built_name
    return name, obj, recorded_params(obj, {**spec, "name": name, "label": spec.get("label")})


ALGO_PREFIX = re.compile(r"(?<![\w.])algo\.(?=\w)")


@contextmanager
def at_key(key: str | None):
    """The key path of an algorithm in its messages: an algorithm under ``algos.<key>``
    reports ``algos.<key>.window`` where its own checks say ``algo.window``."""
    try:
        yield
    except ConfigError as exc:
        if key is None or isinstance(exc, ReportedError):
            raise
        raise type(exc)(ALGO_PREFIX.sub(f"algos.{key}.", str(exc))) from exc
