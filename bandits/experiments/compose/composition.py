"""Every job of a command, composed by Hydra before any runs: the overrides of each point of a
``-m`` sweep as Hydra's basic sweeper expands them, each composed (the defaults lists, the
sweeper's syntax and the overrides are Hydra's), and every error of composition turned into one
paragraph (an unknown name or key with a "did you mean", a malformed override, a missing
plugin, a config that refers to itself). The jobs of a sweep over root seeds differ in
``seed=`` alone: one of them is composed, the others are copies with their own seed."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from omegaconf import DictConfig, open_dict

from bandits.errors import ConfigError

# Hydra's informational modes and options that change where configs come from: handed to
# Hydra as they are.
HYDRA_OWN = ("--help", "-h", "--hydra-help", "--version", "--cfg", "-c", "--info", "-i", "--shell-completion",
             "-sc", "--resolve", "--package", "-p", "--config-path", "-cp", "--config-name", "-cn",
             "--config-dir", "-cd", "--experimental-rerun")
BASIC_LAUNCHER = "hydra._internal.core_plugins.basic_launcher.BasicLauncher"
BASIC_SWEEPER = "hydra._internal.core_plugins.basic_sweeper.BasicSweeper"


@dataclass
class Composed:
    """One job of a command: its overrides (as the sweeper hands them to a launcher) and its
    composed config, without Hydra's own node."""
    overrides: list
    config: DictConfig


def is_multirun(argv: list[str]) -> bool:
    return "-m" in argv or "--multirun" in argv


def jobs(argv: list[str]) -> list[list[str]]:
    """The overrides of every job of the command, as Hydra's basic sweeper expands them."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser

    overrides = [a for a in argv if a not in ("-m", "--multirun")]
    if not is_multirun(argv):
        return [overrides]
    parsed = OverridesParser.create().parse_overrides(overrides)
    return [job for batch in BasicSweeper.split_arguments(parsed, max_batch_size=None) for job in batch]


def task_overrides(job) -> tuple:
    """A job's overrides without Hydra's own (``hydra.*``, ``hydra/<group>``): what Hydra's
    sweeper hands its launcher; the command's own Hydra overrides apply to every job alike."""
    return tuple(o for o in job if not o.lstrip("+~").startswith(("hydra.", "hydra/")))


def compose_jobs(argv: list[str]) -> tuple[list[Composed], dict]:
    """Every job of the command, composed, and what Hydra's own node of the first says (where
    runs log: ``run_dir``, ``sweep_dir``, ``subdir`` (a pattern of ``hydra.job.*``); which
    ``launcher`` and ``sweeper`` run them); ConfigError (one paragraph) on the first that cannot
    be composed or pairs an algorithm with an environment it cannot run on."""
    import yaml
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from bandits.experiments.compose.config_files import config_file_problem
    from bandits.experiments.compose.registry import compose, extra_folders, static_pair_problem

    try:
        planned = jobs(argv)
    except (HydraException, OmegaConfBaseException) as exc:
        raise hydra_error(exc) from None
    out: list = []
    hydra = None
    by_rest: dict = {}  # the jobs of a sweep over root seeds differ in seed= alone: composed once
    for job in planned:
        seeds = [o for o in job if o.startswith("seed=")]
        rest = (tuple(o for o in job if not o.startswith("seed=")), len(seeds))
        if len(seeds) == 1 and rest in by_rest:
            cfg = copy.deepcopy(by_rest[rest])
            with open_dict(cfg):
                cfg.seed = OverridesParser.create().parse_overrides(seeds)[0].value()
            out.append(Composed(list(task_overrides(job)), cfg))
            continue
        try:
            cfg = compose(job, hydra=True)
        except (HydraException, OmegaConfBaseException, RecursionError, yaml.YAMLError) as exc:
            # a broken file of your own, named with its chain of files
            broken = config_file_problem(job, extra_folders())
            if broken:
                raise ConfigError(f"{broken}.") from None
            if isinstance(exc, RecursionError):
                raise ConfigError("the configs of this command refer to themselves without end (a defaults list or "
                                  "a YAML alias that leads back to itself).") from None
            raise (unknown_key(exc, job) or hydra_error(exc)) from None
        hydra = hydra if hydra is not None else hydra_settings(cfg)
        with open_dict(cfg):
            cfg.pop("hydra")
        dropped = [o[1:] for o in job if o.startswith("~scenarios.")]
        if dropped and not cfg.get("scenarios"):
            raise ConfigError(f"every scenario of the experiment was dropped ({', '.join(dropped)}): an experiment "
                              "with scenarios runs one table per scenario; keep at least one (drop fewer "
                              "~scenarios.<name>).")
        problem = static_pair_problem(cfg)  # from the sources alone: no kernel imported for a quick answer
        if problem:
            raise ConfigError(problem)
        out.append(Composed(list(task_overrides(job)), cfg))
        by_rest.setdefault(rest, cfg)
    return out, hydra


def hydra_settings(cfg: DictConfig) -> dict:
    """What a command takes from Hydra's node of a composed config (resolved now: one time
    stamp for the command, as Hydra's)."""
    from omegaconf import OmegaConf

    node = cfg.hydra
    return {"run_dir": str(node.run.dir), "sweep_dir": str(node.sweep.dir),
            "subdir": OmegaConf.to_container(node.sweep, resolve=False)["subdir"],
            "launcher": str((node.get("launcher") or {}).get("_target_", BASIC_LAUNCHER)),
            "sweeper": str((node.get("sweeper") or {}).get("_target_", BASIC_SWEEPER))}


def launched_here(hydra: dict) -> bool:
    """The command's jobs run in this process (Hydra's basic launcher and sweeper); another
    launcher (submitit's SLURM or local one) starts a process per job, and Hydra launches them."""
    return hydra["launcher"] == BASIC_LAUNCHER and hydra["sweeper"] == BASIC_SWEEPER


def hydra_error(exc: Exception) -> ConfigError:
    """One paragraph for an error of Hydra's own composition (an unknown config name, a
    malformed override, a key that does not exist)."""
    from hydra.errors import MissingConfigException, OverrideParseException

    from bandits.experiments.compose.messages import missing_plugin, unknown_config

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

    from omegaconf import OmegaConf

    from bandits.experiments.compose.registry import compose

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
    if parent.startswith("algos.") and not keys:  # no such algorithm in this run, not a missing key
        name = parent.split(".")[1]
        return ConfigError(f"{key}: this run has no algorithm {name!r} under algos. A run of one algorithm "
                           f"(algo={name}) sets its keys as algo.{leaf}=...; algos.{name}.{leaf}=... needs {name!r} "
                           f"among the run's algorithms (algos=[{name},...], or an experiment that lists it).")
    if not parent:
        return ConfigError(f"no top-level key {leaf!r}{hint}; the top-level keys are {', '.join(keys)}.")
    return ConfigError(f"the {parent} config has no key {leaf!r}{hint}; its keys: {', '.join(keys)}. A new key "
                       f"of your own (a parameter of your policy, say) is added with +{key}=...")


def static_keys(parent: str, job: list[str]) -> list[str] | None:
    """The keys of the ``algo``, ``env`` or ``algos.<key>`` config a job selects, read from its
    YAML file (a quick hint without composing again); None for any other place."""
    from bandits.experiments.compose.registry import default_choice, raw_config

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
