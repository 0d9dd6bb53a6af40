"""Environments. Each has ``check_params(T)``, ``instance(T, rng)`` and ``rewards(instance, rng)``."""

# Each name is imported from its module on first use (PEP 562), so that unpickling one
# algorithm or environment in a worker imports that module alone, not every kernel and data
# reader of the package.
_HOME = {
    "AutoLoan": "bandits.environments.autoloan",
    "ContextualTable": "bandits.environments.contextual_table",
    "DriftingContextual": "bandits.environments.drifting_contextual",
    "DriftingLogistic": "bandits.environments.extensions",
    "DriftingSemiBandit": "bandits.environments.extensions",
    "Instance": "bandits.environments.base",
    "LowerBound": "bandits.environments.extensions",
    "PiecewiseBernoulli": "bandits.environments.piecewise_bernoulli",
    "PiecewiseLinear": "bandits.environments.piecewise_linear",
    "Sinusoid": "bandits.environments.sinusoid",
    "Table": "bandits.environments.table",
    "gaussian_rewards": "bandits.environments.base",
    "load_table": "bandits.environments.table",
    "variation": "bandits.environments.base",
}

__all__ = ["AutoLoan", "ContextualTable", "DriftingContextual", "DriftingLogistic", "DriftingSemiBandit",
           "LowerBound", "Instance", "PiecewiseBernoulli", "PiecewiseLinear", "Sinusoid", "Table",
           "gaussian_rewards", "load_table", "variation"]


def __getattr__(name):
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted([*globals(), *_HOME])
