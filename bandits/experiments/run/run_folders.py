"""Where a command's jobs log, as Hydra lays it out: a single run in ``hydra.run.dir``
(``<results_dir>/hydra/<date>_<time>/``), each job of a ``-m`` sweep in ``hydra.sweep.dir`` /
``hydra.sweep.subdir`` (``<results_dir>/hydra/multirun/<date>_<time>/<job>/``), each with its
``run.log`` and its composed config (``.hydra/config.yaml``, ``.hydra/overrides.yaml``).

The sweep runs in this process as one plan, so its jobs' lines interleave on the console; each
line carries its job (a logger adapter per job), and each job's ``run.log`` takes its own lines
(a line of no job, such as a damaged table rebuilt, goes to every one). A single run that stops
on bad input, or a dry run, leaves no folder behind. The handlers are removed when the command
ends: a second command of the same process starts from nothing.
"""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path

from omegaconf import OmegaConf

LOGGER = "drift_bandits"
FILE_FORMAT = "[%(asctime)s][%(name)s][%(levelname)s] - %(message)s"  # Hydra's "simple" format


class OfJob(logging.Filter):
    """The records of one job, and those of no job."""

    def __init__(self, num: int):
        super().__init__()
        self.num = num

    def filter(self, record: logging.LogRecord) -> bool:
        return getattr(record, "job", self.num) == self.num


class RunFolders:
    """The folders and logs of one command's jobs (``jobs``: (overrides, config) of each;
    ``hydra``: Hydra's node of the first, composed)."""

    def __init__(self, hydra: dict, jobs: list, multirun: bool):
        self.multirun = multirun
        self.jobs = jobs
        self.folders = [self.folder(hydra, i, overrides) for i, (overrides, _) in enumerate(jobs)]
        self.handlers: list = []
        self.level = None

    def folder(self, hydra: dict, num: int, overrides: list) -> Path:
        if not self.multirun:
            return Path(hydra["run_dir"])
        job = {"hydra": {"job": {"num": num, "override_dirname": ",".join(sorted(overrides))}},
               "subdir": hydra["subdir"]}
        return Path(hydra["sweep_dir"]) / str(OmegaConf.create(job).subdir)

    def open(self) -> list[logging.LoggerAdapter]:
        """Make the folders, save each job's config, and log to the console and to each run.log;
        returns each job's logger."""
        console = logging.StreamHandler(sys.stdout)
        console.setFormatter(logging.Formatter("%(message)s"))
        self.handlers.append(console)
        for i, (folder, (overrides, cfg)) in enumerate(zip(self.folders, self.jobs, strict=True)):
            (folder / ".hydra").mkdir(parents=True, exist_ok=True)
            OmegaConf.save(cfg, folder / ".hydra" / "config.yaml")
            OmegaConf.save(OmegaConf.create(list(overrides)), folder / ".hydra" / "overrides.yaml")
            handler = logging.FileHandler(folder / "run.log")
            handler.setFormatter(logging.Formatter(FILE_FORMAT))
            handler.addFilter(OfJob(i))
            self.handlers.append(handler)
        root = logging.getLogger()
        self.level = root.level
        root.setLevel(logging.INFO)
        for handler in self.handlers:
            root.addHandler(handler)
        return [logging.LoggerAdapter(logging.getLogger(LOGGER), {"job": i}) for i in range(len(self.jobs))]

    def close(self, forget: bool = False) -> None:
        """Stop logging to the folders (``forget``: a single run that ran nothing leaves none)."""
        root = logging.getLogger()
        for handler in self.handlers:
            root.removeHandler(handler)
            handler.close()
        self.handlers = []
        if self.level is not None:
            root.setLevel(self.level)
        if forget and not self.multirun:
            for folder in self.folders:
                shutil.rmtree(folder, ignore_errors=True)
