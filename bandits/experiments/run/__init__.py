"""Stage 5, run: checked Setups to stored tables.

Plans, batches, workers, the stream of a sweep, adaptive trials, run folders and timings."""
