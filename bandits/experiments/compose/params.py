"""The parameters a configuration records: every argument of the algorithm's constructor,
defaults included, as scikit-learn's ``get_params`` reads them. A row's ``algo_params`` (and
the configuration's hash) must say which window or threshold made it, also when the value is
the class's default that no config file or command line spelt out."""

from __future__ import annotations

import inspect

import numpy as np


def _plain(value):
    """A value as JSON can hold it (numpy scalars and arrays as numbers and lists)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def constructor_params(obj) -> dict:
    """Each argument of ``type(obj).__init__`` (positional-or-keyword and keyword-only) with the
    value the object stores under its name (a constructor only stores its parameters), or, for
    one it does not store, the signature's default; an argument with neither is left out."""
    try:
        signature = inspect.signature(type(obj))
    except (TypeError, ValueError):
        return {}
    out = {}
    for name, p in signature.parameters.items():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        if name in getattr(obj, "__dict__", {}):
            out[name] = _plain(obj.__dict__[name])
        elif p.default is not p.empty:
            out[name] = _plain(p.default)
    return out


def recorded_params(obj, spec: dict) -> dict:
    """The configuration as recorded: ``spec`` (its config: ``_target_``, name, label and the
    values given), with every constructor argument it did not give added at its value."""
    return {**{k: v for k, v in constructor_params(obj).items() if k not in ("name", "label")}, **spec}
