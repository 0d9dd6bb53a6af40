"""The command line: ``drift-bandits algo=bob env=sinusoid`` (installed) or, in a
checkout, ``python run.py ...``; multirun sweeps with ``-m``.

A command is one sweep (one job, or every point of a ``-m`` sweep), and its path is the data's:
Hydra composes every job (:mod:`composition`), each is checked into its setups before any runs
(:func:`bandits.experiments.run.sweep.command_jobs`: config values, data files, algorithm /
environment pairs, memory, the results folder), and the sweep runs as one plan in this process
(:func:`bandits.experiments.run.sweep.run_sweep`), logging each job into the folder Hydra would give
it (:mod:`run_folders`). Where a launcher must start the jobs (submitit's SLURM or local
launcher: a process per job), Hydra launches them, each running its own sweep of one job.

Every input either runs correctly or stops with one paragraph and an exit code
(:mod:`outcomes`); the full traceback only with ``debug=true``. A run that stops on bad input
leaves no timestamped folder behind. A module in the current directory is importable as a
policy or environment (``algo._target_=my_policies.MyPolicy``), as ``python -m`` would allow.
Nothing is kept between commands: ``drift-bandits commands`` runs several in one process, each
building its own objects.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig

from bandits.errors import ConfigError
from bandits.experiments.compose.composition import HYDRA_OWN, compose_jobs, launched_here
from bandits.experiments.compose.package import CONF, EXAMPLES
from bandits.experiments.outcomes import BAD_INPUT, INTERRUPTED, OK, report, wants_debug


def _importable_cwd() -> None:
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # joblib's workers inherit sys.path


def algo_list(argv: list[str]) -> list[str]:
    """``algos=[...]`` (exactly these algorithms) and ``+algos=[...]`` (these added to the
    experiment's) as the overrides that compose them: :mod:`bandits.experiments.compose.algo_lists`."""
    from bandits.experiments.compose.algo_lists import expand

    return expand(argv)


def entry(argv: list[str]) -> int:
    """Run a command (the arguments after the program name); return its exit code."""
    from bandits.experiments.compose.registry import searchpath_override
    from bandits.experiments.run.sweep import command_jobs

    _importable_cwd()
    multirun = [a for a in argv if a in ("-m", "--multirun")]  # Hydra wants the flag before the overrides
    argv = multirun + [a for a in argv if a not in multirun]
    debug = wants_debug(argv)
    try:
        if not any(a.startswith("hydra.searchpath=") for a in argv):
            argv = [*searchpath_override(), *argv]  # configs of your own (DRIFT_BANDITS_CONF)
        argv = algo_list(argv)
    except ConfigError as exc:
        return report(exc, debug)
    if any(a.split("=")[0] in HYDRA_OWN for a in argv):
        return through_hydra(argv)
    try:
        composed, settings = compose_jobs(argv)
        jobs = command_jobs([(c.overrides, c.config) for c in composed])  # every job checked before any runs
    except ConfigError as exc:
        return report(exc, debug)
    except KeyboardInterrupt:
        return INTERRUPTED
    if not launched_here(settings):
        return through_hydra(argv)
    return run_here(jobs, composed, settings, bool(multirun), debug)


def run_here(jobs: list, composed: list, settings: dict, multirun: bool, debug: bool) -> int:
    """The command's jobs as one sweep in this process, each logging into its run folder; after
    a -m sweep, one combined summary and figure."""
    from bandits.experiments.run.run_folders import RunFolders
    from bandits.experiments.run.sweep import run_sweep

    folders = RunFolders(settings, [(c.overrides, c.config) for c in composed], multirun)
    for job, logger in zip(jobs, folders.open(), strict=True):
        job.log = logger
        if multirun:
            job.title = f"#{job.num} : {' '.join(job.overrides)}"
    dry = any(job.dry for job in jobs)
    code, rows = OK, []
    try:
        rows = run_sweep(jobs)
    except KeyboardInterrupt:
        code = INTERRUPTED
    except Exception as exc:  # every failure is reported, with its exit code
        code = report(exc, debug)
    finally:
        folders.close(forget=dry or code == BAD_INPUT)  # a single run that ran nothing leaves no folder
    if code == OK and multirun and len(jobs) > 1 and not dry:
        from bandits.experiments.plots.sweep_report import sweep_summary

        results = [job.setups[0].results_dir for job in jobs]
        sweep_summary(list(zip(results, rows, strict=True)), [c.overrides for c in composed])
    return code


def through_hydra(argv: list[str]) -> int:
    """Hand the command to Hydra: its informational options (--cfg, --help, ...), or a launcher
    that starts a process per job (:func:`app`)."""
    saved = sys.argv
    sys.argv = [saved[0] if saved else "drift-bandits", *argv]
    try:
        app()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (OK if exc.code is None else 1)
    except KeyboardInterrupt:
        return INTERRUPTED
    finally:
        sys.argv = saved
    return OK


@hydra.main(version_base="1.3", config_path=str(CONF), config_name="config")
def app(cfg: DictConfig) -> None:
    """One job, in a process Hydra launched for it: run it as a sweep of one job; on failure,
    one paragraph and the exit code."""
    from bandits.experiments.run.sweep import run_config

    _importable_cwd()
    try:
        run_config(cfg)
    except KeyboardInterrupt:
        sys.exit(INTERRUPTED)
    except Exception as exc:  # every failure is reported, with its exit code
        code = report(exc, bool(cfg.get("debug")))
        if code == BAD_INPUT:
            _forget_run_folder()
        sys.exit(code)
    if cfg.get("dry_run"):
        _forget_run_folder()  # nothing ran: nothing to record


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
./examples), drift-bandits check MODULE.CLASS [NAME=VALUE ...] (the conformance suite that
every built-in passes, on your policy), drift-bandits collect +experiment=NAME, drift-bandits
commands 'CMD' 'CMD' ... (several commands in one process), drift-bandits release [--list]
(every shipped experiment, as make figures runs them), drift-bandits cite [TABLE]
(BibTeX for the tool and every algorithm and environment of a table), dry_run=true (validate only),
debug=true (tracebacks). Results go to ./outputs/ (results_dir=...).

Docs, shipped with the package (drift-bandits docs lists them; --out DIR writes them as files):
  drift-bandits docs usage            every key, algorithm, environment and experiment, your
                                      policy and data, the Python API
  drift-bandits docs errors           exit codes, what is checked before any work, the limits
  drift-bandits docs architecture     adding an algorithm, an environment or an experiment
  drift-bandits docs cluster          SLURM and Dask
and `python -m pydoc bandits`.
"""

SUBCOMMANDS = ("plots", "docs", "collect", "examples", "commands", "check", "release", "cite")


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


def release(argv: list[str]) -> int:
    """``drift-bandits release [figures|ctx-long]``: run every experiment a release ships, as
    the studies declare them (:func:`bandits.experiments.studies.release_commands`), in one
    process (:func:`commands`); ``make figures`` and ``make ctx-long`` call it."""
    import argparse

    from bandits.experiments import studies

    parser = argparse.ArgumentParser(prog="drift-bandits release", description=release.__doc__.splitlines()[0])
    parser.add_argument("release", nargs="?", default=studies.FIGURES, choices=studies.RELEASES)
    parser.add_argument("--scale", default="full", choices=studies.SCALES,
                        help="quick: a tenth of the horizons (a quarter for the contextual ones) and 3 trials")
    parser.add_argument("--ctx-scale", default="quick", choices=studies.CTX_SCALES,
                        help="paper: the contextual experiments C1-C3 at T up to 1e5")
    parser.add_argument("--results", default="results", help="the results folder (default: results)")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--list", action="store_true", help="print the command lines, one a line, and run nothing")
    shown.add_argument("--experiments", action="store_true",
                       help="print the release's experiments, separated by commas, and run nothing")
    args = parser.parse_args(argv)
    if args.experiments:
        print(",".join(run.experiment for run in studies.runs(args.release)))
        return OK
    lines = studies.release_commands(args.release, args.scale, args.ctx_scale, args.results)
    if args.list:
        print("\n".join(lines))
        return OK
    return commands(lines)


def examples(argv: list[str]) -> int:
    """``drift-bandits examples [DIR]``: copy the example policy and problems into DIR
    (default ./examples), so that the tour's commands run from any folder."""
    import argparse

    parser = argparse.ArgumentParser(prog="drift-bandits examples", description=examples.__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default="examples", type=Path)
    parser.add_argument("--force", action="store_true", help="overwrite files that exist")
    args = parser.parse_args(argv)
    files = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".py", ".csv"))
    clash = [args.dir / p.name for p in files if (args.dir / p.name).exists() and not args.force]
    if clash:
        print(f"error: {', '.join(str(c) for c in clash)} exist already; --force overwrites them.", file=sys.stderr)
        return BAD_INPUT
    from bandits.experiments.setup.checks import check_output_folder

    try:
        check_output_folder(args.dir, f"examples {str(args.dir)!r}", "folder", [p.name for p in files])
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return BAD_INPUT
    for p in files:
        shutil.copyfile(p, args.dir / p.name)
    print(f"{len(files)} files written to {args.dir}: {', '.join(p.name for p in files)}")
    return OK


def cite(argv: list[str]) -> int:
    """``drift-bandits cite [TABLE | EXPERIMENT] [--results DIR]``: BibTeX for the tool and for
    every algorithm and environment of a table (a .parquet file, or an experiment's tables
    under DIR/tables/, scenarios included); with no table, the tool and the two papers it
    reproduces (:mod:`bandits.experiments.report.citations`)."""
    import argparse

    from bandits.experiments.report.citations import bibtex, cite
    from bandits.experiments.store.fingerprint import code_fingerprint
    from bandits.version import __version__

    ap = argparse.ArgumentParser(prog="drift-bandits cite", description=cite.__doc__.split("\n\n")[0])
    ap.add_argument("table", nargs="?", help="a table file (.parquet) or an experiment name (default: none)")
    ap.add_argument("--results", type=Path, default=Path("outputs"), help="the results folder (default outputs)")
    args = ap.parse_args(argv)
    if args.table is None:
        import pandas as pd

        text = cite(pd.DataFrame(columns=["algo", "algo_params", "env", "env_params"]), __version__,
                    code_fingerprint())
        print(text + "\n" + "\n\n".join(bibtex(k) for k in ("cheung_hedging", "chen_ada_iltcb")))
        return OK
    path = Path(args.table)
    files = [path] if path.suffix == ".parquet" and path.is_file() else sorted(
        p for p in (args.results / "tables").glob(f"{args.table}*.parquet")
        if p.stem == args.table or p.stem.startswith(f"{args.table}."))
    if not files:
        there = sorted(p.stem for p in (args.results / "tables").glob("*.parquet"))
        listed = ", ".join(there[:12]) + (f" and {len(there) - 12} more" if len(there) > 12 else "")
        print(f"error: no table {args.table!r}: neither a .parquet file nor a table under "
              f"{args.results / 'tables'} (" + (f"its tables: {listed}" if there else "it holds none")
              + "); --results DIR names another results folder.", file=sys.stderr)
        return BAD_INPUT
    import pandas as pd

    rows = pd.concat([pd.read_parquet(p, columns=["algo", "algo_params", "env", "env_params"]) for p in files])
    print(cite(rows.astype(str), __version__, code_fingerprint()), end="")
    return OK


def subcommand(name: str, argv: list[str]) -> int:
    """The stages behind the subcommands: plots, docs, collect, examples, commands, check, release, cite."""
    if name == "examples":
        return examples(argv)
    if name == "cite":
        return cite(argv)
    if name == "check":  # the conformance suite on a policy of your own
        from bandits.experiments.check_command import main as check

        _importable_cwd()
        return check(argv)
    if name == "commands":
        return commands(argv)
    if name == "release":
        return release(argv)
    if name == "plots":
        from bandits.experiments.plots.stage import main as plots

        _importable_cwd()  # your own classes, as the run found them: their legend groups and defaults
        return plots(argv)  # OK, or BAD_INPUT for an --experiment that names no table
    if name == "docs":  # the guides shipped with the package (--render: a checkout's docs from its results)
        from bandits.experiments.docs.guide import main as docs

        return docs(argv)
    from bandits.experiments.collect import collect

    try:
        return collect(argv)
    except ConfigError as exc:
        return report(exc, wants_debug(argv))


def version_text() -> str:
    """What ``drift-bandits --version`` prints: the tool's version, the code fingerprint of the
    sources it runs (which every table row records) and, in a git checkout, their commit."""
    from bandits.experiments.store.fingerprint import code_fingerprint, provenance
    from bandits.version import __version__

    commit = provenance()["git_commit"]
    where = f"git commit {commit}" if commit else "not a git checkout"
    return f"drift-bandits {__version__} (code fingerprint {code_fingerprint()}; {where})"


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv in (["--version"], ["-V"]):  # the tool's version, not Hydra's
            print(version_text())
            code = OK
        elif argv and argv[0] in SUBCOMMANDS:
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
