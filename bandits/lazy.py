"""Lazy package exports (PEP 562): a package names each export's module, and a name is
imported from it on first use, so that unpickling one algorithm or environment in a worker
imports that module alone, not every kernel and data reader of the package."""

from __future__ import annotations

import importlib


def exports(package: str, home: dict, namespace: dict):
    """The ``__getattr__`` and ``__dir__`` of ``package``: ``home`` maps each name to the
    module defining it; a looked-up name is kept in the package's ``namespace``."""
    def __getattr__(name):
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__():
        return sorted([*namespace, *home])

    return __getattr__, __dir__
