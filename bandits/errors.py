"""The errors the tool reports as one paragraph, not a traceback, and their exit codes
(the CLI's one convention, see :mod:`bandits.experiments.cli`):

* :class:`ConfigError` -- bad input (a config value, a data file, a wrong algorithm /
  environment pair, the results folder), found before any work starts: exit code 2;
* :class:`UserCodeError` -- a user's own policy or environment raised: exit code 2, the
  paragraph names the class, the method, the round and the cell;
* :class:`InternalError` -- a built-in algorithm or environment failed (a bug of this
  tool): exit code 1, with the cell;
* anything else is an internal error too (exit 1); Ctrl-C exits 130.

The full traceback of any of them is printed only with ``debug=true``.
"""

from __future__ import annotations

import math
import numbers


class ConfigError(ValueError):
    """Bad user input (config value, data file). Raised before any work starts."""


class Unavailable(ConfigError):
    """An optional dependency is missing: the runner skips the algorithm with a notice."""


class ReportedError(Exception):
    """An error raised while running, reported as one paragraph; ``detail`` keeps the
    original traceback text (shown with ``debug=true``), also across worker processes."""

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.detail = detail

    def __reduce__(self):  # picklable with its detail (joblib re-raises it in the parent)
        return type(self), (str(self), self.detail)


class UserCodeError(ReportedError, ConfigError):
    """A user's own policy or environment raised an exception."""


class InternalError(ReportedError):
    """A built-in algorithm or environment failed: a bug of this tool."""


def last_line(exc: BaseException) -> str:
    """``Type: message`` on one line (the last line of the exception's message)."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[-1]}" if lines else type(exc).__name__


def install_hint(extra: str) -> str:
    """How to install an optional extra of drift-bandits, for an installed package and for a
    checkout: ``pip install "drift-bandits[vw]" (from a checkout: pip install -e ".[vw]")``."""
    return f'pip install "drift-bandits[{extra}]" (from a checkout: pip install -e ".[{extra}]")'


def is_user_code(obj) -> bool:
    """Is ``obj`` an instance of a class defined outside this library (a user's own)?"""
    return type(obj).__module__.split(".")[0] != "bandits"


def failure(obj, method: str, where: str, exc: BaseException, detail: str) -> ReportedError:
    """The error to raise when ``obj.method`` raised ``exc`` (``where``: round, cell)."""
    name = type(obj).__name__
    if is_user_code(obj):
        return UserCodeError(f"your {name}.{method}() raised {last_line(exc)} ({where})", detail)
    return InternalError(f"{name}.{method}() failed with {last_line(exc)} ({where})", detail)


def require_int(name: str, value, minimum: int | None = None, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        else:
            raise ConfigError(f"{name} must be an integer, got {value!r} ({type(value).__name__}).")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name} must be >= {minimum}, got {value}.")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{name} must be <= {maximum:,}, got {value:,}.")
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
