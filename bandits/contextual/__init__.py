"""Contextual bandits with an ERM oracle (ada paper): policy classes and oracles, the
OP solver of Agarwal et al. (2014), ILTCB, and baselines."""
