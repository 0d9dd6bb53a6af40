"""Algorithms: compiled SW-UCB, UCB (OFUL), modified EXP3.S, BOB, the pricing baselines, and the K-armed
baselines of the non-stationary literature (stationary references, passive forgetting, change detection, MASTER),
and the linear RestartUCB and MASTER over OFUL."""

from bandits.algorithms.bandit_over_bandit import BanditOverBandit
from bandits.algorithms.change_detection import CUSUMUCB, MonitoredUCB
from bandits.algorithms.discounted import DiscountedThompson, DiscountedUCB
from bandits.algorithms.discounted_linear_ucb import DiscountedLinUCB
from bandits.algorithms.exp3 import EXP3S
from bandits.algorithms.glr import GLRklUCB
from bandits.algorithms.master import MasterUCB
from bandits.algorithms.master_oful import MasterOFUL
from bandits.algorithms.pricing import MovingWindowPricing, RecordedPrices
from bandits.algorithms.protocol import is_protocol_policy, play, play_policy
from bandits.algorithms.restart_linear_ucb import RestartLinUCB
from bandits.algorithms.sliding_window_gm import SlidingWindowThompson, SlidingWindowUCBGM
from bandits.algorithms.sliding_window_ucb import UCB, SlidingWindowUCB
from bandits.algorithms.stationary import KLUCB, UCB1, OracleRestartUCB
from bandits.algorithms.thompson import ThompsonSampling

__all__ = ["BanditOverBandit", "CUSUMUCB", "DiscountedLinUCB", "DiscountedThompson", "DiscountedUCB", "EXP3S",
           "GLRklUCB", "KLUCB", "MasterOFUL", "MasterUCB", "MonitoredUCB", "MovingWindowPricing", "OracleRestartUCB",
           "RecordedPrices", "RestartLinUCB", "SlidingWindowThompson", "SlidingWindowUCB", "SlidingWindowUCBGM",
           "ThompsonSampling", "UCB", "UCB1", "is_protocol_policy", "play", "play_policy"]
