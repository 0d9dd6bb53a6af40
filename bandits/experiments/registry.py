"""The configs: names, composition, and which algorithm solves which kind of problem
(to name valid alternatives in an error).

The configs shipped with the package live in ``bandits/conf``. Configs of your own
(``algo/``, ``env/``, ``experiment/`` folders holding YAML files) are added with the
environment variable ``DRIFT_BANDITS_CONF`` (one or more folders, separated by
``os.pathsep``), which the command line, the Python API and the conformance suite all
read; on the command line ``hydra.searchpath=[file:///path/to/conf]`` does the same.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import bandits

CONF = Path(bandits.__file__).resolve().parent / "conf"
EXTRA = "DRIFT_BANDITS_CONF"


def extra_folders() -> list:
    return [Path(p).expanduser().resolve() for p in os.environ.get(EXTRA, "").split(os.pathsep) if p.strip()]


def searchpath_override() -> list:
    """``hydra.searchpath=[...]`` for the folders of DRIFT_BANDITS_CONF (none: [])."""
    folders = extra_folders()
    return [f"hydra.searchpath=[{','.join(f'file://{f}' for f in folders)}]"] if folders else []


def names(group: str) -> list:
    return sorted({p.stem for folder in (CONF, *extra_folders()) for p in (folder / group).glob("*.yaml")})


def compose(overrides=()):
    """The project config composed exactly as the CLI does."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    overrides = [*searchpath_override(), *overrides]
    if GlobalHydra.instance().is_initialized():  # inside the running CLI: its search path is CONF
        return hydra_compose(config_name="config", overrides=overrides)
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return hydra_compose(config_name="config", overrides=overrides)


def group_config(group: str, name: str) -> dict:
    """One config of a group (``algo`` or ``env``) as a plain dict."""
    from omegaconf import OmegaConf

    if name not in names(group):
        from bandits.errors import ConfigError
        raise ConfigError(f"no {group} config named {name!r}; valid names: {', '.join(names(group))}.")
    return OmegaConf.to_container(_composed(group, name), resolve=True)


@cache
def _composed(group: str, name: str):
    cfg = compose([f"{group}={name}"])
    return cfg[group]


@cache
def _algo_kinds() -> dict:
    from hydra.utils import get_class

    from bandits.simulation import PROTOCOL_KINDS

    out = {}
    for name in names("algo"):
        spec = group_config("algo", name)
        target = spec.get("_target_")
        if not target or target == "???":
            continue
        cls = get_class(target)
        kinds = getattr(cls, "problem_kinds", PROTOCOL_KINDS)
        if isinstance(kinds, property):  # kinds that depend on the settings (BOB over GLB / semi-bandits)
            kinds = cls(**{k: v for k, v in spec.items() if k not in ("name", "label", "_target_")}).problem_kinds
        out[name] = tuple(kinds)
    return out


def algorithms_for(kind: str) -> list:
    return [name for name, kinds in _algo_kinds().items() if kind in kinds]


def environments_for(kinds) -> list:
    from hydra.utils import get_class

    out = []
    for name in names("env"):
        cls = get_class(group_config("env", name)["_target_"])
        if set(getattr(cls, "problem_kinds", ())) & set(kinds):
            out.append(name)
    return out
