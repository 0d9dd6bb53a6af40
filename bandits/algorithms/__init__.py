"""Algorithms: compiled SW-UCB, UCB (OFUL), modified EXP3.S, BOB, the pricing baselines, and the passively
adaptive K-armed baselines (D-UCB, SW-UCB in G&M's form, discounted and sliding-window Thompson sampling)."""

from bandits.algorithms.bandit_over_bandit import BanditOverBandit
from bandits.algorithms.discounted import DiscountedThompson, DiscountedUCB
from bandits.algorithms.exp3 import EXP3S
from bandits.algorithms.master import MasterUCB
from bandits.algorithms.pricing import MovingWindowPricing, RecordedPrices
from bandits.algorithms.protocol import is_protocol_policy, play, play_policy
from bandits.algorithms.sliding_window_gm import SlidingWindowThompson, SlidingWindowUCBGM
from bandits.algorithms.sliding_window_ucb import UCB, SlidingWindowUCB

__all__ = ["BanditOverBandit", "DiscountedThompson", "DiscountedUCB", "EXP3S", "MasterUCB", "MovingWindowPricing",
           "RecordedPrices", "SlidingWindowThompson", "SlidingWindowUCB", "SlidingWindowUCBGM", "UCB",
           "is_protocol_policy", "play", "play_policy"]
