"""Algorithms: compiled SW-UCB, UCB (OFUL), modified EXP3.S, BOB, and the pricing baselines."""

from bandits.algorithms.bandit_over_bandit import BanditOverBandit
from bandits.algorithms.exp3 import EXP3S
from bandits.algorithms.pricing import MovingWindowPricing, RecordedPrices
from bandits.algorithms.protocol import is_protocol_policy, play, play_policy
from bandits.algorithms.sliding_window_ucb import UCB, SlidingWindowUCB
from bandits.algorithms.stationary import KLUCB, UCB1, OracleRestartUCB
from bandits.algorithms.thompson import ThompsonSampling

__all__ = ["BanditOverBandit", "EXP3S", "MovingWindowPricing", "RecordedPrices", "SlidingWindowUCB", "UCB",
           "UCB1", "KLUCB", "OracleRestartUCB", "ThompsonSampling",
           "is_protocol_policy", "play", "play_policy"]
