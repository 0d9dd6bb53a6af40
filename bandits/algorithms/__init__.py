"""Algorithms: compiled SW-UCB, UCB (OFUL), modified EXP3.S, BOB, the pricing baselines, and the K-armed
baselines of the non-stationary literature (stationary references, passive forgetting, change detection, MASTER),
and the linear RestartUCB and MASTER over OFUL."""

from bandits.lazy import exports

_HOME = {
    "AdSwitch": "bandits.algorithms.adswitch",
    "BanditOverBandit": "bandits.algorithms.bandit_over_bandit",
    "CUSUMUCB": "bandits.algorithms.change_detection",
    "DiscountedLinTS": "bandits.algorithms.randomized_discounted_linear",
    "DiscountedLinUCB": "bandits.algorithms.discounted_linear_ucb",
    "DiscountedRandLinUCB": "bandits.algorithms.randomized_discounted_linear",
    "DiscountedThompson": "bandits.algorithms.discounted",
    "DiscountedGaussianThompson": "bandits.algorithms.discounted_gaussian_ts",
    "DiscountedUCB": "bandits.algorithms.discounted",
    "EXP3S": "bandits.algorithms.exp3",
    "GLRklUCB": "bandits.algorithms.glr",
    "KLUCB": "bandits.algorithms.stationary",
    "MasterOFUL": "bandits.algorithms.master_oful",
    "MasterUCB": "bandits.algorithms.master",
    "MonitoredUCB": "bandits.algorithms.m_ucb",
    "MovingWindowPricing": "bandits.algorithms.pricing",
    "OracleRestartUCB": "bandits.algorithms.stationary",
    "PHTUCB": "bandits.algorithms.change_detection",
    "RecordedPrices": "bandits.algorithms.pricing",
    "RestartLinUCB": "bandits.algorithms.restart_linear_ucb",
    "SlidingWindowLBSDA": "bandits.algorithms.lb_sda",
    "SlidingWindowThompson": "bandits.algorithms.sliding_window_gm",
    "SlidingWindowUCB": "bandits.algorithms.sliding_window_ucb",
    "SlidingWindowUCBGM": "bandits.algorithms.sliding_window_gm",
    "ThompsonSampling": "bandits.algorithms.thompson",
    "UCB": "bandits.algorithms.sliding_window_ucb",
    "UCB1": "bandits.algorithms.stationary",
    "is_protocol_policy": "bandits.algorithms.protocol",
    "play": "bandits.algorithms.protocol",
    "play_policy": "bandits.algorithms.protocol",
}

__all__ = ["AdSwitch", "BanditOverBandit", "CUSUMUCB", "DiscountedGaussianThompson", "DiscountedLinTS",
           "DiscountedLinUCB", "DiscountedRandLinUCB", "DiscountedThompson",
           "DiscountedUCB", "EXP3S",
           "GLRklUCB", "KLUCB", "MasterOFUL", "MasterUCB", "MonitoredUCB", "MovingWindowPricing", "OracleRestartUCB",
           "PHTUCB",
           "RecordedPrices", "RestartLinUCB", "SlidingWindowLBSDA", "SlidingWindowThompson", "SlidingWindowUCB",
           "SlidingWindowUCBGM",
           "ThompsonSampling", "UCB", "UCB1", "is_protocol_policy", "play", "play_policy"]


__getattr__, __dir__ = exports(__name__, _HOME, globals())
