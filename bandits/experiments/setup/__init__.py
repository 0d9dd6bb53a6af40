"""Stage 2, setup: a composed job to checked Setups.

Its values, trials=auto's looks, what its regret is measured against, and every up-front
check in one place."""
