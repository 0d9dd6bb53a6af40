"""One error type for bad input, so the CLI can print one paragraph, not a traceback."""

from __future__ import annotations

import math
import numbers


class ConfigError(ValueError):
    """Bad user input (config value, data file). Raised before any work starts."""


class Unavailable(ConfigError):
    """An optional dependency is missing: the runner skips the algorithm with a notice."""


def require_int(name: str, value, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ConfigError(f"{name} must be an integer, got {value!r} ({type(value).__name__}).")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name} must be >= {minimum}, got {value}.")
    return value


def require_float(name: str, value, minimum: float | None = None, strict: bool = False,
                  allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigError(f"{name} must be a number, got {value!r} ({type(value).__name__}).")
    value = float(value)
    if not math.isfinite(value):
        raise ConfigError(f"{name} must be finite, got {value}.")
    if minimum is not None:
        if strict and value <= minimum:
            raise ConfigError(f"{name} must be > {minimum}, got {value}.")
        if not strict and value < minimum:
            raise ConfigError(f"{name} must be >= {minimum}, got {value}.")
    return value


def require_choice(name: str, value, choices) -> str:
    if value not in choices:
        raise ConfigError(f"{name} must be one of {sorted(choices)}, got {value!r}.")
    return value
