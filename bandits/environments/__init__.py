"""Environments. Each has ``check_params(T)``, ``instance(T, rng)`` and ``rewards(instance, rng)``."""

from bandits.lazy import exports

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


__getattr__, __dir__ = exports(__name__, _HOME, globals())
