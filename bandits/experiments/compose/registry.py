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

from bandits.experiments.compose.config_files import config_file_problem
from bandits.experiments.compose.package import CONF

EXTRA = "DRIFT_BANDITS_CONF"


def extra_folders() -> list:
    """The folders of DRIFT_BANDITS_CONF; a name that is not a folder is an error (a typo would
    otherwise be ignored without a word)."""
    folders = [Path(p).expanduser().resolve() for p in os.environ.get(EXTRA, "").split(os.pathsep) if p.strip()]
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        from bandits.errors import ConfigError

        raise ConfigError(f"{EXTRA} names {'a folder' if len(missing) == 1 else 'folders'} that "
                          f"{'does' if len(missing) == 1 else 'do'} not exist: {', '.join(missing)}; it lists folders "
                          f"of your own configs (algo/, env/, experiment/), separated by {os.pathsep!r}.")
    return folders


def searchpath_override() -> list:
    """``hydra.searchpath=[...]`` for the folders of DRIFT_BANDITS_CONF (none: [])."""
    folders = extra_folders()
    return [f"hydra.searchpath=[{','.join(f'file://{f}' for f in folders)}]"] if folders else []


def names(group: str) -> list:
    return sorted({p.stem for folder in (CONF, *extra_folders()) for p in (folder / group).glob("*.yaml")})


def compose(overrides=(), hydra: bool = False):
    """The project config composed exactly as the CLI does (``hydra``: with Hydra's own node,
    ``hydra.run.dir`` and the like, under ``hydra``)."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    if not any(str(o).startswith("hydra.searchpath=") for o in overrides):
        overrides = [*searchpath_override(), *overrides]
    if GlobalHydra.instance().is_initialized():  # inside a job Hydra launched: its search path is CONF
        return hydra_compose(config_name="config", overrides=list(overrides), return_hydra_config=hydra)
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return hydra_compose(config_name="config", overrides=list(overrides), return_hydra_config=hydra)


def group_config(group: str, name: str) -> dict:
    """One config of a group (``algo`` or ``env``) as a plain dict."""
    import yaml
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    from bandits.errors import ConfigError

    if name not in names(group):
        from bandits.experiments.compose.messages import unknown_config

        raise ConfigError(unknown_config(group, name, names(group)))
    try:
        return OmegaConf.to_container(_composed(group, name), resolve=True)
    except (HydraException, OmegaConfBaseException, RecursionError, yaml.YAMLError) as exc:
        problem = config_file_problem([f"{group}={name}"], extra_folders())
        raise ConfigError(f"{problem}." if problem else f"the {group} config {name!r} cannot be composed: "
                          f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}.") from None


@cache
def _composed(group: str, name: str):
    cfg = compose([f"{group}={name}"])
    return cfg[group]


# ----------------------------------------------------------------------------- a static index
# Which algorithm solves which kind of problem, to name valid alternatives in an error, read
# without composing a config or importing a class: each YAML file is read on its own (its
# `defaults` chain within the group followed), and each class's `problem_kinds` is read from
# its source (:func:`static_kinds`). A file that does not parse is left out of the lists (its
# own command reports it); it never breaks another command's message.

def config_file(group: str, name: str) -> Path | None:
    """The file of config ``name`` in ``group``: a folder of DRIFT_BANDITS_CONF first (as Hydra's
    search path prefers them), then the package's."""
    for folder in (*extra_folders(), CONF):
        path = folder / group / f"{name}.yaml"
        if path.is_file():
            return path
    return None


@cache
def raw_config(group: str, name: str, _seen: tuple = ()) -> dict | None:
    """The keys of one config with its same-group parents (``defaults: [parent, _self_]``)
    merged under it; None when a file of the chain is missing, malformed or recursive."""
    import yaml

    path = config_file(group, name)
    if path is None or name in _seen:
        return None
    try:
        data = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, OSError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    merged: dict = {}
    for entry in data.get("defaults") or []:
        if isinstance(entry, str) and entry != "_self_" and not entry.startswith("/"):
            parent = raw_config(group, entry, (*_seen, name))
            if parent is None:
                return None
            merged.update(parent)
    merged.update({k: v for k, v in data.items() if k != "defaults"})
    return merged


@cache
def default_choice(group: str) -> str | None:
    """The config of ``group`` that conf/config.yaml's defaults list selects (algo, env)."""
    import yaml

    data = yaml.load((CONF / "config.yaml").read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    for entry in data.get("defaults") or []:
        if isinstance(entry, dict) and group in entry:
            return entry[group]
    return None


def _module_source(module: str) -> Path | None:
    """The source file of ``module`` without importing it (nor, for the library's modules, their
    packages: ``bandits.algorithms`` imports every kernel)."""
    import importlib.util

    parts = module.split(".")
    if parts[0] == "bandits":
        base = CONF.parent.joinpath(*parts[1:])
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                return path
        return None
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    origin = getattr(spec, "origin", None) if spec else None
    return Path(origin) if origin and origin.endswith(".py") else None


def static_kinds(target: str, params: dict | None = None, _depth: int = 0):
    """The ``problem_kinds`` of the class ``target`` (a dotted path), read from its source
    with :mod:`ast`, following re-exports and base classes; a ``property`` returning
    ``(self.<param>,)`` is evaluated with ``params`` (or the parameter's default). None when
    it cannot be read that way (the caller then imports the class)."""
    import ast

    module, _, name = target.rpartition(".")
    path = _module_source(module) if module and _depth < 8 else None
    parsed = _parsed(path) if path is not None else None
    if parsed is None:
        return None
    tree, imports = parsed
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
    if cls is None:
        return static_kinds(imports[name], params, _depth + 1) if name in imports else None
    for node in cls.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "problem_kinds" for t in node.targets):
            try:
                return tuple(ast.literal_eval(node.value))
            except ValueError:
                return None
        if isinstance(node, ast.FunctionDef) and node.name == "problem_kinds":
            return _property_kinds(node, cls, params or {})
    for base in cls.bases:
        base_name = getattr(base, "id", None)
        if base_name in imports:
            return static_kinds(imports[base_name], params, _depth + 1)
        if base_name and any(isinstance(n, ast.ClassDef) and n.name == base_name for n in tree.body):
            return static_kinds(f"{module}.{base_name}", params, _depth + 1)
    return PROTOCOL  # a protocol policy that declares nothing


PROTOCOL = ("protocol",)  # static_kinds' answer for a class that declares no kinds


@cache
def _parsed(path: Path):
    """(module tree, name -> dotted origin of every ``from x import name``), or None."""
    import ast

    try:
        tree = ast.parse(path.read_text())
    except (SyntaxError, OSError, UnicodeDecodeError):
        return None
    imports = {alias.asname or alias.name: f"{node.module}.{alias.name}" for node in tree.body
               if isinstance(node, ast.ImportFrom) and node.module for alias in node.names}
    return tree, imports


def _property_kinds(func, cls, params: dict):
    """``return (self.<param>,)``: the config's value of the parameter, or its default."""
    import ast

    ret = func.body[-1] if func.body else None
    elts = getattr(getattr(ret, "value", None), "elts", None)
    if not isinstance(ret, ast.Return) or not elts or len(elts) != 1 or not isinstance(elts[0], ast.Attribute):
        return None
    attr = elts[0].attr
    if attr in params:
        return (str(params[attr]),)
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return None
    args, defaults = init.args.args, init.args.defaults
    for arg, default in zip(args[len(args) - len(defaults):], defaults, strict=True):
        if arg.arg == attr:
            try:
                return (str(ast.literal_eval(default)),)
            except ValueError:
                return None
    return None


def kinds_of(group: str, name: str):
    """The kinds of problem config ``name`` of ``group`` (algo or env) declares, or None when
    its file or class cannot be read."""
    spec = raw_config(group, name)
    target = (spec or {}).get("_target_")
    if not isinstance(target, str) or target == "???":
        return None
    kinds = static_kinds(target, spec)
    if kinds == PROTOCOL:
        from bandits.simulation import PROTOCOL_KINDS

        return PROTOCOL_KINDS
    if kinds is None:  # not readable from the source: import the class
        try:
            from hydra.utils import get_class

            cls = get_class(target)
        except Exception:  # noqa: BLE001 -- a broken config is left out of a list of alternatives
            return None
        kinds = getattr(cls, "problem_kinds", None)
        if kinds is None or isinstance(kinds, property):
            return None
    return tuple(kinds)


def algorithms_for(kind: str) -> list:
    return [name for name in names("algo") if kind in (kinds_of("algo", name) or ())]


def environments_for(kinds) -> list:
    return [name for name in names("env") if set(kinds_of("env", name) or ()) & set(kinds)]


def _problem_kinds_text() -> dict:
    """``bandits.environments.base.PROBLEM_KINDS`` (kind -> description), read from its source."""
    import ast

    parsed = _parsed(CONF.parent / "environments" / "base.py")
    for node in parsed[0].body if parsed else []:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PROBLEM_KINDS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def pair_message(wrong: dict, env_name: str, kind: str) -> str:
    """The paragraph for algorithms (name -> the kinds they solve) that do not fit an
    environment of ``kind``, with the environments each runs on and the algorithms for it."""
    text = _problem_kinds_text()
    lines = []
    for name, kinds in wrong.items():
        lines.append(f"algorithm {name!r} does not fit env={env_name}: it solves {' / '.join(kinds)} "
                     f"problems, and {env_name} is a {kind} problem ({text.get(kind, kind)}). "
                     f"Environments {name!r} runs on: {', '.join(environments_for(kinds)) or 'none configured'}.")
    lines.append(f"Algorithms for env={env_name}: {', '.join(algorithms_for(kind)) or 'none configured'}.")
    return " ".join(lines)


def static_pair_problem(cfg) -> str | None:
    """A wrong algorithm / environment pair of a composed config, found from the sources alone
    (no class imported: a quick answer); None when it fits or cannot be told this way (the
    runner's full check follows)."""
    from omegaconf import OmegaConf

    if cfg.get("scenarios") or cfg.get("env") is None:
        return None
    env = OmegaConf.to_container(cfg.env, resolve=False)
    env_kinds = static_kinds(str(env.get("_target_", "")), env) if isinstance(env, dict) else None
    if not env_kinds or env_kinds == PROTOCOL or len(env_kinds) != 1:
        return None
    algos = OmegaConf.to_container(cfg.algos, resolve=False) if cfg.get("algos") else {}
    if not algos and cfg.get("algo") is not None:
        algos = {None: OmegaConf.to_container(cfg.algo, resolve=False)}
    wrong = {}
    for key, spec in algos.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("_target_"), str):
            return None
        kinds = static_kinds(spec["_target_"], spec)
        if kinds is None or kinds == PROTOCOL:
            return None
        if env_kinds[0] not in kinds:
            wrong[key or spec.get("name") or spec["_target_"].rsplit(".", 1)[-1]] = kinds
    env_name = env.get("name") or str(env.get("_target_", "env")).rsplit(".", 1)[-1]
    return pair_message(wrong, env_name, env_kinds[0]) if wrong else None
