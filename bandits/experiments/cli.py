"""The command line: ``drift-bandits algo=bob env=sinusoid`` (installed) or, in a
checkout, ``python run.py ...``; multirun sweeps with ``-m``.

Every input either runs correctly or stops with one paragraph, before any work:
before Hydra launches anything, every job of the command (each point of a ``-m``
sweep) is composed and validated (:func:`preflight`: config values, data files,
algorithm/environment pairs, memory, the results folder). The exit codes, one
convention for the whole command line, are :data:`EXIT_CODES`.

The full traceback of an error is printed only with ``debug=true``. A run that stops
on bad input leaves no timestamped folder behind. A module in the current directory
is importable as a policy or environment (``algo._target_=my_policies.MyPolicy``),
as ``python -m`` would allow.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig

import bandits
from bandits.errors import ConfigError, ReportedError, UserCodeError, last_line

CONF = str(Path(bandits.__file__).resolve().parent / "conf")
OK, INTERNAL, BAD_INPUT, MISSING_CELLS, INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CODES = {
    OK: "done (or nothing to do, or `dry_run=true`)",
    INTERNAL: "internal error: a bug of drift-bandits, or a results folder that cannot be written while running "
              "(the cells stored before it are kept)",
    BAD_INPUT: "bad input, found before any work: a config value or key (Hydra's own composition errors "
               "included), a data file, a wrong algorithm/environment pair, a size that does not fit in memory, "
               "the results folder; or your own policy or environment raising an exception",
    MISSING_CELLS: "`drift-bandits collect` (`python -m experiments.collect`): cells of the declared sweep are still "
                   "missing",
    INTERRUPTED: "interrupted (Ctrl-C): the cells written so far are kept (each batch of cells is written when it "
                 "ends; a batch is about `parallel.batch_s` seconds of work), and the same command computes the rest",
}

# Hydra's informational modes and options that change where configs come from: handed
# to Hydra as they are.
HYDRA_OWN = ("--help", "-h", "--hydra-help", "--version", "--cfg", "-c", "--info", "-i", "--shell-completion",
             "-sc", "--resolve", "--package", "-p", "--config-path", "-cp", "--config-name", "-cn",
             "--config-dir", "-cd", "--experimental-rerun")


def _importable_cwd() -> None:
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # joblib's workers inherit sys.path


def _wants_debug(argv) -> bool:
    return any(a.lstrip("+") in ("debug=true", "debug=True") for a in argv)


def report(exc: BaseException, debug: bool) -> int:
    """Print one paragraph for ``exc`` (and its traceback with debug=true); its exit code."""
    if debug:
        import traceback
        traceback.print_exception(exc, file=sys.stderr)
        if getattr(exc, "detail", ""):
            print(exc.detail, file=sys.stderr)
    if isinstance(exc, UserCodeError):
        hint = "" if debug else " Rerun with debug=true for the full traceback."
        print(f"error: {str(exc).rstrip('.')}.{hint}", file=sys.stderr)
        return BAD_INPUT
    if isinstance(exc, ConfigError):
        print(f"error: {exc}", file=sys.stderr)
        return BAD_INPUT
    if isinstance(exc, ReportedError):
        print(f"internal error: {str(exc).rstrip('.')}. This is a bug of drift-bandits; rerun with debug=true for "
              "the traceback and report it.", file=sys.stderr)
        return INTERNAL
    if isinstance(exc, OSError):
        print(f"error: {last_line(exc)} ({getattr(exc, 'filename', None) or 'results folder'}). The cells stored "
              "before this error are kept (none, if nothing could be written); fix the folder or free space, then "
              "run the same command again: it computes only the cells that are missing.", file=sys.stderr)
        return INTERNAL
    print(f"internal error: {last_line(exc)}. This is a bug of drift-bandits; rerun with debug=true for the "
          "traceback and report it.", file=sys.stderr)
    return INTERNAL


def hydra_error(exc: Exception) -> ConfigError:
    """One paragraph for an error of Hydra's own composition (an unknown config name, a
    malformed override, a key that does not exist)."""
    from hydra.errors import MissingConfigException, OverrideParseException

    from bandits.experiments.messages import missing_plugin, unknown_config

    plugin = missing_plugin(exc) if isinstance(exc, MissingConfigException) else None
    if plugin:  # hydra/launcher=slurm without the cluster extra
        return ConfigError(plugin)
    if isinstance(exc, MissingConfigException) and exc.missing_cfg_file and exc.options:
        group, _, name = str(exc.missing_cfg_file).rpartition("/")
        return ConfigError(unknown_config(group or "config", name, exc.options))
    lines = [line.strip() for line in str(exc).splitlines() if line.strip() and not line.startswith("See https")]
    text = " ".join(lines) or type(exc).__name__
    if isinstance(exc, OverrideParseException):
        return ConfigError(f"cannot read the override {exc.override!r}: {text} (the grammar: key=value, "
                           "key=[a,b] for a list, -m key=a,b for a sweep).")
    return ConfigError(text[0].lower() + text[1:])


def unknown_key(exc: Exception, job: list[str]) -> ConfigError | None:
    """For an override of a key that does not exist: the valid keys of that place, with
    a "did you mean" (Hydra only suggests appending it with +)."""
    import difflib
    import re

    from omegaconf import OmegaConf

    from bandits.experiments.registry import compose

    match = re.search(r"Could not override '([^']+)'", str(exc))
    if not match:
        return None
    key = match.group(1)
    parent, _, leaf = key.rpartition(".")
    rest = [o for o in job if o.split("=")[0].lstrip("+~") != key]
    keys = static_keys(parent, rest)
    if keys is None:  # not one algorithm or environment config: compose the rest
        try:
            node = OmegaConf.select(compose(rest), parent) if parent else compose(rest)
        except Exception:  # noqa: BLE001 -- only a hint: the plain message is still reported
            return None
        keys = sorted(str(k) for k in node.keys() if k != "hydra") if hasattr(node, "keys") else []
    close = difflib.get_close_matches(leaf, keys, 1)
    hint = f" (did you mean {parent + '.' if parent else ''}{close[0]}?)" if close else ""
    if not parent:
        return ConfigError(f"no top-level key {leaf!r}{hint}; the top-level keys are {', '.join(keys)}.")
    return ConfigError(f"the {parent} config has no key {leaf!r}{hint}; its keys: {', '.join(keys)}. A new key "
                       f"of your own (a parameter of your policy, say) is added with +{key}=...")


def algo_list(argv: list[str]) -> list[str]:
    """``algos=[...]`` (exactly these algorithms) and ``+algos=[...]`` (these added to the
    experiment's) as the overrides that compose them: :mod:`bandits.experiments.algo_lists`."""
    from bandits.experiments.algo_lists import expand

    return expand(argv)


def static_keys(parent: str, job: list[str]) -> list[str] | None:
    """The keys of the ``algo``, ``env`` or ``algos.<key>`` config a job selects, read from its
    YAML file (a quick hint without composing again); None for any other place."""
    from bandits.experiments.registry import default_choice, raw_config

    if any(o.lstrip("+").startswith("experiment=") for o in job):
        return None
    chosen = {o.split("=", 1)[0].lstrip("+"): o.split("=", 1)[1] for o in job if "=" in o and not o.startswith("~")}
    if parent in ("algo", "env"):
        name = chosen.get(parent, default_choice(parent))
        group = parent
    elif parent.startswith("algos.") and parent.count(".") == 1:
        name, group = chosen.get(f"algo@{parent}"), "algo"
    else:
        return None
    spec = raw_config(group, name) if name else None
    if spec is None:
        return None
    return sorted(spec)


def jobs(argv: list[str]) -> list[list[str]]:
    """The overrides of every job of the command, as Hydra's basic sweeper expands them."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser

    multirun = "-m" in argv or "--multirun" in argv
    overrides = [a for a in argv if a not in ("-m", "--multirun")]
    if not multirun:
        return [overrides]
    parsed = OverridesParser.create().parse_overrides(overrides)
    return [job for batch in BasicSweeper.split_arguments(parsed, max_batch_size=None) for job in batch]


CHECKED: set = set()  # the jobs preflight composed and checked in this process (task_overrides of each)
COMPOSED: list = []  # their configs, in the order Hydra's basic sweeper launches them (the job's hydra.job.num)
TABLES: list = []  # the tables each of them writes (job_tables)
LAST_JOB: dict = {}  # table -> the last job that writes it (from TABLES, when the first job runs)


def task_overrides(job) -> tuple:
    """A job's overrides without Hydra's own (``hydra.*``, ``hydra/<group>``): what Hydra's
    sweeper hands its launcher; the command's own Hydra overrides apply to every job alike."""
    return tuple(o for o in job if not o.lstrip("+~").startswith(("hydra.", "hydra/")))


def preflight(argv: list[str]) -> int:
    """Compose and validate every job of the command; raise ConfigError on the first
    problem. Returns the number of jobs (each one's overrides are added to CHECKED)."""
    import copy

    import yaml
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException
    from omegaconf import open_dict
    from omegaconf.errors import OmegaConfBaseException

    from bandits.experiments.registry import compose, config_file_problem, static_pair_problem

    try:
        planned = jobs(argv)
    except (HydraException, OmegaConfBaseException) as exc:
        raise hydra_error(exc) from None
    composed = []
    by_rest: dict = {}  # the jobs of a sweep over root seeds differ in seed= alone: composed once
    for job in planned:
        seeds = [o for o in job if o.startswith("seed=")]
        rest = (tuple(o for o in job if not o.startswith("seed=")), len(seeds))
        if len(seeds) == 1 and rest in by_rest:
            cfg = copy.deepcopy(by_rest[rest])
            with open_dict(cfg):
                cfg.seed = OverridesParser.create().parse_overrides(seeds)[0].value()
            composed.append(cfg)
            CHECKED.add(task_overrides(job))
            continue
        try:
            cfg = compose(job)
        except (HydraException, OmegaConfBaseException, RecursionError, yaml.YAMLError) as exc:
            broken = config_file_problem(job)  # a broken file of your own, named with its line
            if broken:
                raise ConfigError(f"{broken}.") from None
            if isinstance(exc, RecursionError):
                raise ConfigError("the configs of this command refer to themselves without end (a defaults list or "
                                  "a YAML alias that leads back to itself).") from None
            raise (unknown_key(exc, job) or hydra_error(exc)) from None
        dropped = [o[1:] for o in job if o.startswith("~scenarios.")]
        if dropped and not cfg.get("scenarios"):
            raise ConfigError(f"every scenario of the experiment was dropped ({', '.join(dropped)}): an experiment "
                              "with scenarios runs one table per scenario; keep at least one (drop fewer "
                              "~scenarios.<name>).")
        problem = static_pair_problem(cfg)  # from the sources alone: no kernel imported for a quick answer
        if problem:
            raise ConfigError(problem)
        composed.append(cfg)
        by_rest.setdefault(rest, cfg)
        CHECKED.add(task_overrides(job))
    COMPOSED[:] = composed
    from bandits.experiments.runner import (
        check_results_folder,
        check_seed,
        check_setup,
        scenario_configs,
        setup_from_config,
        setup_key,
    )

    checked: set = set()  # jobs that differ in their root seed alone (a sweep over seeds) are checked once
    for cfg in composed:
        key = setup_key(cfg)
        if key is not None and key in checked:
            check_seed(cfg)
            continue
        for one in scenario_configs(cfg):
            setup = check_setup(setup_from_config(one))
            check_results_folder(setup.results_dir)
        if key is not None:
            checked.add(key)
    TABLES[:] = [job_tables(cfg) for cfg in composed]
    return len(planned)


def _forget_run_folder() -> None:
    """A single run that stopped on bad input (or a dry run) leaves no timestamped folder
    behind. A multirun job's folder stays: its launcher (submitit, say) still writes there."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    try:
        hc = HydraConfig.get()
    except ValueError:
        return
    if hc.mode != RunMode.RUN:
        return
    folder = Path(hc.runtime.output_dir).resolve()
    loggers = [logging.getLogger(), *(lg for lg in logging.Logger.manager.loggerDict.values()
                                      if isinstance(lg, logging.Logger))]
    for logger in loggers:  # release run.log before removing it, and never write to it again
        for handler in list(logger.handlers):
            if isinstance(handler, logging.FileHandler) and folder in Path(handler.baseFilename).resolve().parents:
                handler.close()
                logger.removeHandler(handler)
    shutil.rmtree(folder, ignore_errors=True)


SWEEP: list = []  # (results folder, rows) of every job this process ran: the sweep's summary


@hydra.main(version_base="1.3", config_path=CONF, config_name="config")
def app(cfg: DictConfig) -> None:
    """One job: run it; on failure, one paragraph and the exit code."""
    from bandits.experiments import runner

    _importable_cwd()
    runner.AHEAD["next"] = next_job()
    runner.DEFER.clear()
    runner.DEFER.update(deferred_tables())
    try:
        rows = runner.run(cfg)
        if not cfg.get("dry_run"):
            SWEEP.append((Path(str(cfg.get("results_dir", "outputs"))), rows))
    except KeyboardInterrupt:
        sys.exit(INTERRUPTED)
    except Exception as exc:  # every failure is reported, with its exit code
        code = report(exc, bool(cfg.get("debug")))
        if code == BAD_INPUT:
            _forget_run_folder()
        sys.exit(code)
    if cfg.get("dry_run"):
        _forget_run_folder()  # nothing ran: nothing to record


def deferred_tables() -> set:
    """The tables of this job of a -m sweep that a later job adds to as well: the last of them
    writes each (``runner.DEFER``)."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    try:
        hc = HydraConfig.get()
    except ValueError:
        return set()
    num = hc.job.get("num")
    if hc.mode != RunMode.MULTIRUN or num is None or num >= len(TABLES):
        return set()
    if not LAST_JOB:
        for i, paths in enumerate(TABLES):
            LAST_JOB.update(dict.fromkeys(paths, i))
    return {p for p in TABLES[num] if LAST_JOB[p] > num}


def job_tables(cfg) -> set:
    """The tables a composed job writes: ``<results_dir>/tables/<experiment>.parquet``, one per
    scenario (as :func:`bandits.experiments.runner.scenario_configs` names them); none for a
    dry run."""
    from bandits.experiments.runner import experiment_name

    if cfg.get("dry_run") is True:
        return set()
    folder = Path(str(cfg.get("results_dir", "outputs"))) / "tables"
    name = experiment_name(cfg.get("experiment_name"))
    scenarios = cfg.get("scenarios")
    names = [f"{name}.{s}" for s in scenarios] if scenarios else [name]
    return {folder / f"{experiment_name(n)}.parquet" for n in names}


def next_job():
    """The composed config of the job after this one in a -m sweep (the runner plans it while
    the workers finish this one: :func:`bandits.experiments.runner.plan_ahead`), or None."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    try:
        hc = HydraConfig.get()
    except ValueError:
        return None
    num = hc.job.get("num")
    if hc.mode != RunMode.MULTIRUN or num is None or num + 1 >= len(COMPOSED):
        return None
    return COMPOSED[num + 1]


def entry(argv: list[str]) -> int:
    """Run a command (the arguments after the program name); return its exit code."""
    from bandits.experiments.registry import searchpath_override

    _importable_cwd()
    multirun = [a for a in argv if a in ("-m", "--multirun")]  # Hydra wants the flag before the overrides
    argv = multirun + [a for a in argv if a not in multirun]
    try:
        if not any(a.startswith("hydra.searchpath=") for a in argv):
            argv = [*searchpath_override(), *argv]  # configs of your own (DRIFT_BANDITS_CONF)
        argv = algo_list(argv)
    except ConfigError as exc:
        return report(exc, _wants_debug(argv))
    CHECKED.clear()  # what an earlier command of this process checked may have changed since
    COMPOSED.clear()
    TABLES.clear()
    LAST_JOB.clear()
    if not any(a.split("=")[0] in HYDRA_OWN for a in argv):
        try:
            preflight(argv)
        except ConfigError as exc:
            return report(exc, _wants_debug(argv))
        except KeyboardInterrupt:
            return INTERRUPTED
    saved = sys.argv
    sys.argv = [saved[0] if saved else "drift-bandits", *argv]
    SWEEP.clear()
    _skip_validating_checked_jobs()
    code = OK
    try:
        app()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (OK if exc.code is None else INTERNAL)
    except KeyboardInterrupt:
        code = INTERRUPTED
    finally:
        sys.argv = saved
        code = wind_up(code, _wants_debug(argv))
    if code != OK:
        return code
    if multirun and len(SWEEP) > 1:
        from bandits.experiments.sweep_report import sweep_summary

        sweep_summary(SWEEP, jobs(argv))
    return OK


def wind_up(code: int, debug: bool) -> int:
    """At the end of a command, also a failed or interrupted one: no batch left running (a
    next job that never came), and every table a later job of the sweep was to write written
    (``runner.DEFER``). Returns the command's exit code (an error here if it had none)."""
    runner = sys.modules.get("bandits.experiments.runner")
    if runner is None:
        return code
    runner.DEFER.clear()
    try:
        runner.close_stream(abort=True)
        runner.flush_deferred()
    except KeyboardInterrupt:
        return INTERRUPTED
    except Exception as exc:  # noqa: BLE001 -- reported like any failure of the run
        runner.DEFERRED.clear()
        return code if code != OK else report(exc, debug)
    return code


def _skip_validating_checked_jobs() -> None:
    """Hydra's sweeper composes every job of a batch once before launching it, only to find
    composition errors early ("this repeat work the launcher will do", Hydra's
    ``Sweeper.validate_batch_is_legal``); preflight has composed and checked those jobs
    already, so they are not composed a third time (about half a second each: 25 s of a
    50-seed master_geo sweep). A job preflight did not see is validated as before."""
    from hydra.plugins.sweeper import Sweeper

    if getattr(Sweeper.validate_batch_is_legal, "skips_checked", False):
        return
    validate = Sweeper.validate_batch_is_legal

    def validate_unchecked(self, batch):
        rest = [job for job in batch if task_overrides(job) not in CHECKED]
        if rest:
            validate(self, rest)

    validate_unchecked.skips_checked = True
    Sweeper.validate_batch_is_legal = validate_unchecked


HELP = """\
drift-bandits: experiments with bandits in changing environments. Faithful, fast
baselines (SW-UCB, BOB, EXP3.S, UCB, GLR-klUCB, M-UCB, CUSUM-UCB, D-LinUCB, MASTER,
Ada-ILTCB+, ...), the figures and claims of two papers, and your own policies and
data against them. Same seed, same numbers, whatever the number of workers.

Common commands:
  drift-bandits algo=bob env=sinusoid                  one algorithm, 10 trials
  drift-bandits 'algos=[mine,ucb1,glr_klucb]' algos.mine._target_=examples.my_policies.DiscountedMeans \\
      env=piecewise_bernoulli T=2000                   your policy against two baselines: one table
  drift-bandits -m algo=sw_ucb algo.window=200,800     a sweep: one combined summary and figure
  drift-bandits +experiment=fig2a                      a paper experiment (its sweep over T)
  drift-bandits plots --highlight mine                 figures and claims of every table in outputs/

Also: drift-bandits examples [DIR] (writes the example policy and problems, default
./examples), drift-bandits collect +experiment=NAME, drift-bandits commands 'CMD' 'CMD' ...
(several commands in one process), dry_run=true (validate only), debug=true (tracebacks).
Results go to ./outputs/ (results_dir=...).

Docs, shipped with the package (drift-bandits docs lists them; --out DIR writes them as files):
  drift-bandits docs usage            every key, algorithm, environment and experiment, your
                                      policy and data, the Python API
  drift-bandits docs errors           exit codes, what is checked before any work, the limits
  drift-bandits docs architecture     adding an algorithm, an environment or an experiment
  drift-bandits docs cluster          SLURM and Dask
and `python -m pydoc bandits`.
"""

SUBCOMMANDS = ("plots", "docs", "collect", "examples", "commands")


def commands(argv: list[str]) -> int:
    """``drift-bandits commands 'CMD' 'CMD' ...``: run several commands one after the other in
    this one process, each CMD the arguments of one drift-bandits command (quoted as a shell
    reads them), stopping at the first that fails, with its exit code. What they share is
    started once: Python and its imports, and the workers with the kernels they loaded (each
    new process costs about 5 s of these: `make experiments` runs its commands this way)."""
    import shlex
    import textwrap

    if not argv or argv[0] in ("--help", "-h"):
        about = textwrap.dedent(commands.__doc__.split(":", 1)[1].replace("\n    ", "\n")).strip()
        print(f"usage: drift-bandits commands 'CMD' ['CMD' ...]\n\nR{about[1:]}",
              file=sys.stdout if argv else sys.stderr)
        return OK if argv else BAD_INPUT
    try:
        lines = [shlex.split(text) for text in argv]
    except ValueError as exc:
        print(f"error: cannot read the command {exc}: quote each command as one argument.", file=sys.stderr)
        return BAD_INPUT
    for text, args in zip(argv, lines, strict=True):
        print(f"==> drift-bandits {text}", flush=True)
        if args and args[0] in SUBCOMMANDS:
            code = subcommand(args[0], args[1:])
        else:
            code = entry(args)
        sys.stdout.flush()
        if code != OK:
            return code
    return OK


def examples(argv: list[str]) -> int:
    """``drift-bandits examples [DIR]``: copy the example policy and problems into DIR
    (default ./examples), so that the tour's commands run from any folder."""
    import argparse

    parser = argparse.ArgumentParser(prog="drift-bandits examples", description=examples.__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default="examples", type=Path)
    parser.add_argument("--force", action="store_true", help="overwrite files that exist")
    args = parser.parse_args(argv)
    source = Path(bandits.__file__).resolve().parent / "examples"
    files = sorted(p for p in source.iterdir() if p.suffix in (".py", ".csv"))
    clash = [args.dir / p.name for p in files if (args.dir / p.name).exists() and not args.force]
    if clash:
        print(f"error: {', '.join(str(c) for c in clash)} exist already; --force overwrites them.", file=sys.stderr)
        return BAD_INPUT
    args.dir.mkdir(parents=True, exist_ok=True)
    for p in files:
        shutil.copyfile(p, args.dir / p.name)
    print(f"{len(files)} files written to {args.dir}: {', '.join(p.name for p in files)}")
    return OK


def subcommand(name: str, argv: list[str]) -> int:
    """The stages behind the subcommands: plots, docs, collect, examples, commands."""
    if name == "examples":
        return examples(argv)
    if name == "commands":
        return commands(argv)
    if name == "plots":
        from bandits.experiments.figures.stage import main as plots

        return plots(argv)  # OK, or BAD_INPUT for an --experiment that names no table
    if name == "docs":  # the guides shipped with the package (--render: a checkout's docs from its results)
        from bandits.experiments.guide import main as docs

        return docs(argv)
    from bandits.experiments.collect import collect

    try:
        return collect(argv)
    except ConfigError as exc:
        return report(exc, _wants_debug(argv))


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv and argv[0] in SUBCOMMANDS:
            code = subcommand(argv[0], argv[1:])
        else:
            if any(a in ("--help", "-h") for a in argv):
                print(HELP)
            code = entry(argv)
        sys.stdout.flush()
    except BrokenPipeError:  # the output was piped into a reader that stopped (head, say)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = OK
    sys.exit(code)


if __name__ == "__main__":
    main()
