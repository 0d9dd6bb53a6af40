"""Algorithms: compiled SW-UCB, UCB (OFUL), modified EXP3.S, BOB, GLR-klUCB, and the pricing baselines."""

from bandits.algorithms.bandit_over_bandit import BanditOverBandit
from bandits.algorithms.exp3 import EXP3S
from bandits.algorithms.glr import GLRklUCB
from bandits.algorithms.pricing import MovingWindowPricing, RecordedPrices
from bandits.algorithms.protocol import is_protocol_policy, play, play_policy
from bandits.algorithms.sliding_window_ucb import UCB, SlidingWindowUCB

__all__ = ["BanditOverBandit", "EXP3S", "GLRklUCB", "MovingWindowPricing", "RecordedPrices", "SlidingWindowUCB", "UCB",
           "is_protocol_policy", "play", "play_policy"]
