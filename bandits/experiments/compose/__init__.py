"""Stage 1, compose: the command line and the configs to jobs.

Hydra's composition of every job, the registry of config names and their files, the
algorithm lists, the algorithms and environments built from a config, their names and labels."""
