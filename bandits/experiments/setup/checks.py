"""The checks before any work: what a :class:`bandits.experiments.setup.setups.Setup` asks for can
exist (its environment at every horizon, the memory, the algorithm / environment pairs), its
inputs and outputs are apart, and its results folder can take the cells; and, once an
instance is drawn, what each algorithm needs from it. Each failure is one paragraph
(``ConfigError``)."""

from __future__ import annotations

import os
from pathlib import Path

from bandits.errors import ConfigError, last_line
from bandits.experiments.compose.building import at_key
from bandits.experiments.setup.setups import Setup
from bandits.simulation import check_needs, guarded, learner_info, problem_kinds


def check_compatible(setup: Setup) -> None:
    """Every algorithm against the environment's kind of problem, before any work."""
    kind = setup.env.problem_kind()
    wrong = {name: problem_kinds(obj) for name, (obj, _) in setup.algos.items() if kind not in problem_kinds(obj)}
    if wrong:
        from bandits.experiments.compose.registry import pair_message

        raise ConfigError(pair_message(wrong, setup.env_name, kind))


CELL_BYTES = 40_000  # a stored cell: about 20 KB of curves and metadata, with room to spare


MANAGED = ("runs", "tables", "hydra")  # the parts of a results folder a run writes


def check_output_folder(folder: Path, where: str, setting: str, files=()) -> None:
    """Before anything is written into ``folder``: it is a folder (or can be made) that can be
    written, and none of ``files`` (the names written into it) is a folder or a read-only
    file. One paragraph if not, naming ``where`` (the command's setting and its value) and the
    way out (another ``setting``). Every writer checks its target so: a run's results folder,
    ``docs --out``, ``examples DIR``, the plot stage's ``--results``."""
    import tempfile

    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise ConfigError(f"{where}: {str(existing)!r} is a file, not a folder; choose another {setting}.")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise ConfigError(f"{where} cannot be written ({last_line(exc)}); choose a writable {setting}.") from None
    for name in files:
        path = folder / name
        if path.is_dir():
            raise ConfigError(f"{where}: {str(path)!r} is a folder, where a file of that name is written; move it "
                              f"away or choose another {setting}.")
        if path.exists() and not os.access(path, os.W_OK):
            raise ConfigError(f"{where}: {str(path)!r} cannot be overwritten (it is read-only); choose a writable "
                              f"{setting}.")


def check_results_folder(results_dir: Path | None, cells: int = 0, save_actions_T: int = 0,
                         experiment: str | None = None) -> None:
    """Before any work: the results folder is a folder (or can be made), writable, with
    free space for the cells planned (an estimate), and every path the run will write (its
    cells' folder, the tables folder and its table) is of the right kind and writable. One
    paragraph if not. Without a results folder (``simulate()`` without ``results_dir``) every
    row is kept in memory: the same estimate must fit twice (the rows and the table made of
    them) into :func:`memory_limit`."""
    if results_dir is None:
        need = 2 * cells * (CELL_BYTES + 4 * save_actions_T)
        if need > memory_limit():
            why = " (save_actions keeps every round)" if save_actions_T else ""
            raise ConfigError(f"the {cells:,} cells planned are kept in memory without a results folder and need "
                              f"about {need / 1e9:,.1f} GB{why}, more than the {memory_limit() / 1e9:,.1f} GB "
                              "this machine allows (80% of its memory); give results_dir= (the rows then go to "
                              "disk in shards), or run fewer cells.")
        return
    import shutil

    where = f"results_dir={str(results_dir)!r}"
    check_output_folder(results_dir, where, "results_dir")
    folders = [results_dir / "runs", results_dir / "tables"]
    if experiment is not None:
        folders.insert(1, results_dir / "runs" / experiment)
    for folder in folders:
        if folder.exists() and not folder.is_dir():
            raise ConfigError(f"{where}: {str(folder)!r} is a file, and this run writes its "
                              f"{'cells' if folder.parent.name == 'runs' or folder.name == 'runs' else 'table'} "
                              "into a folder of that name; move the file away or choose another results_dir.")
        if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
            raise ConfigError(f"{where}: {str(folder)!r} cannot be written; choose a writable results_dir.")
    if experiment is not None:
        table = results_dir / "tables" / f"{experiment}.parquet"
        if table.exists() and not table.is_file():
            raise ConfigError(f"{where}: {str(table)!r} is a folder, where this run writes its table; move it away "
                              "or choose another experiment_name or results_dir.")
    need = cells * (CELL_BYTES + 4 * save_actions_T)
    free = shutil.disk_usage(results_dir).free
    if need > free:
        raise ConfigError(f"{where}: the {cells} cells planned need about {need / 1e6:,.0f} MB and only "
                          f"{free / 1e6:,.0f} MB are free; free some space or choose another results_dir.")


def data_paths(cfg, prefix: str = "env") -> list[tuple[str, str]]:
    """(key, value) of every file path of an environment config: ``path`` and ``*_path`` keys
    holding text (its input files, and a file it writes such as autoloan's surrogate)."""
    out = []
    for key, value in (cfg or {}).items():
        if isinstance(value, dict):
            out += data_paths(value, f"{prefix}.{key}")
        elif (key == "path" or str(key).endswith("_path")) and isinstance(value, str) and value.strip():
            out.append((f"{prefix}.{key}", value))
    return out


def check_inputs_apart(setup: Setup) -> None:
    """Inputs and outputs never overlap: a data path that lies inside the results folder's
    managed parts (cells, tables, run logs), or resolves through links into them, is refused
    before any work (the run would overwrite it)."""
    if setup.results_dir is None:
        return
    managed = [(setup.results_dir / part).resolve() for part in MANAGED]
    for key, value in data_paths(setup.env_cfg):
        target = Path(value).expanduser().resolve()
        inside = next((m for m in managed if target == m or m in target.parents), None)
        if inside is not None:
            raise ConfigError(f"{key}={value!r} lies inside {str(inside)!r}, a part of the results folder that runs "
                              f"write ({', '.join(f'{m}/' for m in MANAGED)}): the run could overwrite your data. "
                              "Keep data files outside them (anywhere else, the results folder itself included).")


def memory_limit() -> int:
    """What a run may use: 80% of the machine's memory."""
    return int(0.8 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def check_memory(setup: Setup, T: int) -> None:
    """The instance (``env.footprint``) is held by the main process and by every worker,
    each with a trial's rewards of the same size: refuse what cannot fit, before drawing it."""
    footprint = getattr(setup.env, "footprint", None)
    if footprint is None:
        return
    from joblib import effective_n_jobs
    workers = effective_n_jobs(setup.n_jobs)
    one = guarded(setup.env, "footprint", f"T={T}", T)
    need, limit = one * (1 + 2 * workers), memory_limit()
    if need > limit:
        raise ConfigError(f"env={setup.env_name} at T={T:,}: the instance takes about {one / 1e9:,.1f} GB in memory, "
                          f"and with {workers} worker(s) each holding a copy and a trial's rewards the run needs "
                          f"about {need / 1e9:,.1f} GB, more than the {limit / 1e9:,.1f} GB this machine allows (80% "
                          "of its memory). Use a smaller T, fewer workers (n_jobs) or a smaller problem.")


def check_figure_names_free(results_dir: Path | None, experiment: str) -> None:
    """A table's figures are named after it with its dots as underscores (``ns_benchmark.abrupt_few``
    draws ``ns_benchmark_abrupt_few.png``): an experiment whose name reads the same as another
    experiment's table would overwrite that table's figures, so it is refused."""
    tables = None if results_dir is None else Path(results_dir) / "tables"
    if tables is None or not tables.is_dir():
        return
    mine = experiment.replace(".", "_")
    for other in sorted(p.stem for p in tables.glob("*.parquet")):
        if other.split(".")[0] != experiment.split(".")[0] and other.replace(".", "_") == mine:
            raise ConfigError(f"experiment_name={experiment.split('.')[0]!r}: its figures would be named like those of "
                              f"the table {other!r} in {tables} ({mine}.png), and overwrite them. Choose another "
                              "experiment_name, or another results_dir.")


def check_setup(setup: Setup, folder: bool = True) -> Setup:
    """Every up-front check of a setup that needs no instance, in one place, called once (a
    checked setup says so): the environment at every horizon, the memory it needs, every
    algorithm / environment pair, the data paths apart from the results, and (``folder``) the
    results folder with room for the cells (no instance is drawn: cheap enough for any quoted
    command; a quoted command's folder is its reader's, so the docs' test leaves it out)."""
    if setup.checked:
        return setup
    for T in setup.Ts:
        guarded(setup.env, "check_params", f"T={T}", T)
        check_memory(setup, T)
    check_compatible(setup)
    check_inputs_apart(setup)
    if not folder:
        return setup
    trials = setup.auto.max_trials if setup.auto else setup.trials  # trials=auto: room for its cap
    check_results_folder(setup.results_dir, len(setup.Ts) * trials * len(setup.algos),
                         max(setup.Ts) if setup.save_actions else 0, setup.experiment)
    check_figure_names_free(setup.results_dir, setup.experiment)
    setup.checked = True
    return setup


def check_instance(setup: Setup, T: int, instance) -> None:
    """The checks that need the drawn instance, before any cell runs: every algorithm is told
    what it needs, an oracle reference only what this problem knows, and its constants at this
    horizon can exist (``resolve``)."""
    for name, (obj, _) in setup.algos.items():
        with at_key(setup.algo_key(name)):
            check_needs(obj, name, instance, setup.env_name, setup.env)
            learner_info(obj, instance)  # an oracle reference told what this problem does not know: refused now
            if callable(getattr(obj, "resolve", None)):
                guarded(obj, "resolve", f"algo={name}, T={T}", T, instance.info)  # impossible constants, now
