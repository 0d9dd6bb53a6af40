"""``trials=auto`` as a setting: its looks (how many trials at each) and what resolves a pair,
read from the ``auto.*`` keys with one paragraph for a bad value. The rule itself, and the loop
that runs the looks, are :mod:`bandits.experiments.run.adaptive_trials`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bandits.errors import ConfigError, require_float, require_int


@dataclass(frozen=True)
class AutoTrials:
    """The looks of ``trials=auto`` and what resolves a pair (the module's docstring)."""
    first: int = 10
    step: int = 10
    max_trials: int = 100
    precision: float | None = None
    confidence: float = 0.95

    def looks(self) -> list[int]:
        """The number of trials at each look: first, first + step, ..., max_trials."""
        out = list(range(self.first, self.max_trials, self.step))
        return [*out, self.max_trials] if not out or out[-1] != self.max_trials else out


def auto_trials(trials, auto: dict | None, limit: int) -> AutoTrials | None:
    """The ``AutoTrials`` of ``trials=auto`` and its ``auto.*`` keys (None for a number of
    trials); one paragraph for a bad value."""
    if trials != "auto":
        return None
    if auto is not None and not isinstance(auto, Mapping):
        raise ConfigError(f"auto must be a mapping of its keys (first, step, max_trials, precision, confidence), "
                          f"got {auto!r} ({type(auto).__name__}); for example auto={{'max_trials': 50}}.")
    auto = dict(auto or {})
    unknown = sorted(set(auto) - {"first", "step", "max_trials", "precision", "confidence"})
    if unknown:
        raise ConfigError(f"auto has no key {', '.join(map(repr, unknown))}; its keys: first, step, max_trials, "
                          "precision, confidence.")
    first = require_int("auto.first", auto.get("first", 10), minimum=2, maximum=limit)
    step = require_int("auto.step", auto.get("step", first), minimum=1, maximum=limit)
    cap = require_int("auto.max_trials", auto.get("max_trials", 100), minimum=first, maximum=limit)
    precision = auto.get("precision")
    if precision is not None:
        precision = require_float("auto.precision", precision, minimum=0.0, strict=True)
    confidence = require_float("auto.confidence", auto.get("confidence", 0.95), minimum=0.0, strict=True)
    if not confidence < 1:
        raise ConfigError(f"auto.confidence must lie strictly between 0 and 1, got {confidence}.")
    return AutoTrials(first, step, cap, precision, confidence)
