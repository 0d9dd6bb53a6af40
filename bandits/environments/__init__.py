"""Environments. Each has ``check_params(T)``, ``instance(T, rng)`` and ``rewards(instance, rng)``."""

from bandits.environments.autoloan import AutoLoan
from bandits.environments.base import Instance, gaussian_rewards, variation
from bandits.environments.contextual_table import ContextualTable
from bandits.environments.drifting_contextual import DriftingContextual
from bandits.environments.extensions import DriftingLogistic, DriftingSemiBandit, LowerBound
from bandits.environments.piecewise_bernoulli import PiecewiseBernoulli
from bandits.environments.piecewise_linear import PiecewiseLinear
from bandits.environments.sinusoid import Sinusoid
from bandits.environments.table import Table, load_table

__all__ = ["AutoLoan", "ContextualTable", "DriftingContextual", "DriftingLogistic", "DriftingSemiBandit",
           "LowerBound", "Instance", "PiecewiseBernoulli", "PiecewiseLinear", "Sinusoid", "Table",
           "gaussian_rewards", "load_table", "variation"]
