"""What each algorithm of a figure is told: the knowledge groups of its legend.

A stored configuration (a row's ``algo_params`` JSON, with its ``_target_``) belongs to

* an oracle group when its class declares ``oracle_knowledge`` (told the change points);
* "knows B_T", "knows Upsilon_T" or both, from the keys its ``needs()`` reads (a drift
  constant set in its config counts as told, so it is asked with those constants unset);
* "tuned by hand" when a numeric constant of its own was set by hand (and, when it also reads
  B_T or Upsilon_T, "knows ..., and tuned by hand"): a value other than its shipped config's
  (``bandits/conf/algo/<name>.yaml``, the config named by the row's algorithm key, else any
  package config of the same class that it matches best) or, for a parameter that config
  does not list (a policy of your own has none), other than its constructor's default. What
  an environment could tell it (the learner keys: dimensions, bounds, ranges, the drift
  constants) is knowledge, not tuning; a switch between documented readings
  (``rho_cap: true``, ``threshold: experiments``) or ``null`` (derive it) is no constant;
* "told nothing (parameter-free)" otherwise, and "other" when the class cannot be found
  or asked.

So ``-m algo=d_ucb algo.gamma=0.99,0.995`` draws D-UCB "tuned by hand", and the shipped
variants that set a constant by hand (``ns_sensitivity``'s ``discounted_ts_g095``,
``fig2b_sensitivity``'s window scales, the published experiments' authors' windows and
thresholds) are drawn so too.
"""

from __future__ import annotations

import json
import numbers
from functools import cache

KNOWS_B_T = "knows B_T"
KNOWS_UPSILON = "knows Upsilon_T (number of changes)"
KNOWS_BOTH = "knows B_T and Upsilon_T"
TUNED = "tuned by hand"
PARAMETER_FREE = "told nothing (parameter-free)"
ORACLE = "oracle (told the change points)"
OTHER = "other"
# told the drift and a constant set by hand besides (M-UCB with its window given, say)
KNOWING_AND_TUNED = {group: f"{group}, and {TUNED}" for group in (KNOWS_B_T, KNOWS_BOTH, KNOWS_UPSILON)}
GROUP_ORDER = (KNOWS_B_T, KNOWING_AND_TUNED[KNOWS_B_T], KNOWS_BOTH, KNOWING_AND_TUNED[KNOWS_BOTH], KNOWS_UPSILON,
               KNOWING_AND_TUNED[KNOWS_UPSILON], TUNED, PARAMETER_FREE, ORACLE, OTHER)
TUNED_LINE = (0, (5, 1.5, 1, 1.5, 1, 1.5))
GROUP_LINES = {KNOWS_B_T: "--", KNOWS_BOTH: "--", KNOWS_UPSILON: "-.", TUNED: TUNED_LINE,
               **dict.fromkeys(KNOWING_AND_TUNED.values(), TUNED_LINE), PARAMETER_FREE: "-", ORACLE: ":", OTHER: "-"}
# The learner keys (bandits.environments.base.LEARNER_KEYS) that tell an algorithm about the
# drift: a variation budget, or the number (and size) of the changes.
VARIATION_KEYS = ("B_T", "Delta_TV")
CHANGE_KEYS = ("Upsilon_T", "S_switches", "min_change")
NOT_A_LEARNER = ("recorded_action",)  # the data's own recorded decisions (fig5's company)
_HIDDEN_PARAMS = ("derived", "label", "name")


def _bare(cls, spec: dict):
    """An object of ``cls`` with its parameters set but its __init__ not run (for an
    algorithm whose construction fails here, e.g. a missing optional package)."""
    obj = cls.__new__(cls)
    obj.__dict__.update({**constructor_defaults(cls), **{k: v for k, v in spec.items() if k != "_target_"}})
    return obj


def constructor_defaults(cls) -> dict:
    """The default of every constructor argument of ``cls`` that has one."""
    import inspect

    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return {}
    return {n: p.default for n, p in params.items() if p.default is not inspect.Parameter.empty}


def _params(algo_params) -> dict | None:
    try:
        params = json.loads(algo_params) if isinstance(algo_params, str) else {}
    except ValueError:
        return None
    return params if isinstance(params, dict) else None


def _get_class(target: str):
    """The class named by ``target``, or None when it cannot be imported here."""
    import logging

    from hydra.utils import get_class

    quiet = logging.getLogger("hydra.utils")
    level, quiet.level = quiet.level, logging.CRITICAL
    try:
        return get_class(target)
    except Exception:  # noqa: BLE001 -- a class not importable here: its group is unknown
        return None
    finally:
        quiet.setLevel(level)


@cache
def knowledge_group(algo_params: str | None, algo: str | None = None) -> str:
    """The knowledge group of one stored configuration (the module docstring): its
    ``algo_params`` JSON and, to find its shipped config, its algorithm key ``algo``."""
    group = told_group(algo_params)
    if group in (PARAMETER_FREE, *KNOWING_AND_TUNED) and set_by_hand(algo_params, algo):
        return TUNED if group == PARAMETER_FREE else KNOWING_AND_TUNED[group]
    return group


def told_group(algo_params: str | None) -> str:
    """What the algorithm of one stored configuration is told about the drift, from what its
    class declares: an oracle's ``oracle_knowledge``, else the keys its ``needs()`` reads;
    "other" when the class cannot be found or asked."""
    from hydra.utils import instantiate

    from bandits.simulation import needs, oracle_knowledge

    params = _params(algo_params)
    target = params.get("_target_") if params is not None else None
    if not isinstance(target, str):
        return OTHER
    cls = _get_class(target)
    if cls is None:
        return OTHER
    spec = {k: v for k, v in params.items() if k not in _HIDDEN_PARAMS}

    def build(spec: dict):
        try:
            return instantiate(spec, _convert_="all")
        except Exception:  # noqa: BLE001 -- construction failed here (an optional package): a bare object
            return _bare(cls, spec)

    try:
        oracle = oracle_knowledge(build(spec))
        if oracle:
            return ORACLE if set(oracle) <= {"change_points"} else f"oracle (told {', '.join(oracle)})"
        told = set(needs(build({**spec, **{k: None for k in (*VARIATION_KEYS, *CHANGE_KEYS) if k in spec}})))
    except Exception:  # noqa: BLE001 -- a class that cannot be asked: its group is unknown
        return OTHER
    variation, changes = bool(told & set(VARIATION_KEYS)), bool(told & set(CHANGE_KEYS))
    if told & set(NOT_A_LEARNER):
        return OTHER
    if variation and changes:
        return KNOWS_BOTH
    return KNOWS_B_T if variation else KNOWS_UPSILON if changes else PARAMETER_FREE


# ----------------------------------------------------------------------------- set by hand

@cache
def package_configs() -> dict:
    """class path -> {config name: its keys} of the package's own algorithm configs
    (``bandits/conf/algo``; a folder of your own configs is yours, set by hand)."""
    from bandits.experiments.compose.registry import CONF, config_file, names, raw_config

    out: dict = {}
    for name in names("algo"):
        path = config_file("algo", name)
        if path is None or path.parent != CONF / "algo":
            continue
        raw = raw_config("algo", name)
        if raw and isinstance(raw.get("_target_"), str):
            out.setdefault(raw["_target_"], {})[name] = raw
    return out


def _same(a, b) -> bool:
    """Equal as configured values: numbers by value (1 and 1.0 alike), lists and dicts item by item."""
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        return float(a) == float(b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def _numeric(value) -> bool:
    """A value a hand can tune: a number, or a list or mapping holding one (not a switch
    between documented readings, ``true`` or ``"theorem"``, nor ``null``: derive it)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Real):
        return True
    if isinstance(value, (list, tuple)):
        return any(_numeric(v) for v in value)
    return isinstance(value, dict) and any(_numeric(v) for v in value.values())


def _differing(params: dict, shipped: dict, defaults: dict) -> list[str]:
    from bandits.environments.base import LEARNER_KEYS

    out = []
    for key, value in params.items():
        if key in _HIDDEN_PARAMS or key in LEARNER_KEYS or key.startswith("_") or not _numeric(value):
            continue  # bookkeeping, what an environment could tell (knowledge), or a reading, not a constant
        if key in shipped:
            reference = shipped[key]
        elif key in defaults:
            reference = defaults[key]
        else:
            out.append(key)  # neither shipped nor a default: set by hand
            continue
        if not _same(value, reference):
            out.append(key)
    return sorted(out)


def hand_set_text(algo_params: str | None, algo: str | None = None, label: str = "") -> str:
    """The constants of one configuration set by hand, as a legend shows them ("window=400"),
    those its ``label`` spells out already left out; "" when none was."""
    params = _params(algo_params) or {}
    target = params.get("_target_")
    if not isinstance(target, str) or _get_class(target) is None:
        return ""  # its defaults cannot be read here: nothing is known to be set by hand
    shown = []
    for name in set_by_hand(algo_params, algo):
        value = params.get(name)
        if f"{name}=" in str(label) or isinstance(value, dict | list):
            continue
        shown.append(f"{name}={value:g}" if isinstance(value, float) else f"{name}={value}")
    return ", ".join(shown)


def set_by_hand(algo_params: str | None, algo: str | None = None) -> list[str]:
    """The parameters of one stored configuration that were set by hand (the module
    docstring), against its shipped config and its constructor's defaults."""
    params = _params(algo_params)
    target = params.get("_target_") if params is not None else None
    if not isinstance(target, str):
        return []
    cls = _get_class(target)
    defaults = constructor_defaults(cls) if cls is not None else {}
    shipped = package_configs().get(target, {})
    if algo in shipped:
        shipped = {algo: shipped[algo]}
    candidates = [_differing(params, config, defaults) for config in shipped.values()] or \
        [_differing(params, {}, defaults)]
    return min(candidates, key=len)
