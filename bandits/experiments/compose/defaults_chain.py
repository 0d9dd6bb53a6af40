"""A defaults list that leads back to its own file, found by reading the YAML files of the
config search path: the chain of files, for a message that names them (Hydra itself only
recurses until Python's stack runs out).

Each file's ``defaults`` entries are read the way Hydra resolves them: ``- b`` and ``- foo: b``
are relative to the file's own group (``experiment/a.yaml``: ``experiment/b``,
``experiment/foo/b``), a leading ``/`` makes them absolute (``- /algo@algos.x: ucb1``:
``algo/ucb1``), ``@package`` and the ``override`` / ``optional`` keywords do not change the
file. The job's own overrides choose among the primary config's defaults (``algo=mine``)."""

from __future__ import annotations

import re
from pathlib import Path

PRIMARY = "config"  # the primary config, conf/config.yaml
SEARCHPATH = re.compile(r"file://([^,\]\s'\"]+)")


def folders(job, extra, conf: Path) -> list[Path]:
    """The config folders of a job, preferred first: those of its ``hydra.searchpath=[...]``
    override and ``extra`` (DRIFT_BANDITS_CONF), then the package's ``conf``."""
    given = [Path(p) for o in job if o.lstrip("+").startswith("hydra.searchpath=") for p in SEARCHPATH.findall(o)]
    out = []
    for folder in (*given, *extra, conf):
        if folder not in out:
            out.append(folder)
    return out


def config_path(config: str, search: list[Path]) -> Path | None:
    for folder in search:
        path = folder / f"{config}.yaml"
        if path.is_file():
            return path
    return None


def referenced(path: Path, config: str) -> list[str]:
    """The configs (``group/name``) that the defaults list of ``path`` (config ``config``)
    names; [] for a file that does not parse (its own message names it)."""
    import yaml

    try:
        data = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, OSError, UnicodeDecodeError, RecursionError):
        return []
    entries = data.get("defaults") if isinstance(data, dict) else None
    group = config.rpartition("/")[0]
    out = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, str) and entry != "_self_":
            out.append(_absolute(group, entry.split("@")[0]))
        elif isinstance(entry, dict) and len(entry) == 1:
            (key, value), = entry.items()
            where = _absolute(group, str(key).split()[-1].split("@")[0])  # override /env@pkg -> env
            for name in value if isinstance(value, list) else [value]:
                if _plain(name):
                    out.append(f"{where}/{name}")
    return out


def _absolute(group: str, ref: str) -> str:
    return ref[1:] if ref.startswith("/") else f"{group}/{ref}" if group else ref


def _plain(name) -> bool:
    """A config name (not null, ``???``, an interpolation or a list)."""
    return isinstance(name, str) and bool(name) and name != "???" and not any(c in name for c in "${}[],")


def job_configs(job) -> tuple[list[str], dict, set]:
    """What a job's overrides select: the configs it adds (``+experiment=a``,
    ``+algo@algos.k=x``), its choices among the primary config's defaults (``algo=mine``) and
    the defaults it deletes (``~algo``)."""
    added, chosen, deleted = [], {}, set()
    for override in job:
        if override.startswith("~"):
            deleted.add(override[1:].split("=")[0])
            continue
        key, sep, value = override.partition("=")
        if not sep or not _plain(value) or key.lstrip("+").startswith("hydra"):
            continue
        if key.startswith("+"):
            added.append(f"{key.lstrip('+').split('@')[0]}/{value}")
        else:
            chosen[key] = value
    return added, chosen, deleted


def find_cycle(job, search: list[Path]) -> list[tuple[str, Path]] | None:
    """The first defaults chain of the job that leads back to one of its configs: a list of
    (config, file) from the config the job selects to the first config met twice (its last
    item); None when there is none."""
    added, chosen, deleted = job_configs(job)
    done: set = set()  # configs whose defaults were followed to the end without a cycle

    def follow(config: str, path: Path, chain: tuple) -> list | None:
        if config in chain:
            return [*chain, config]
        if config in done:
            return None
        for child in referenced(path, config):
            child_path = config_path(child, search)
            if child_path is not None:
                found = follow(child, child_path, (*chain, config))
                if found:
                    return found
        done.add(config)
        return None

    roots = []
    primary = config_path(PRIMARY, search)
    for child in referenced(primary, PRIMARY) if primary else []:
        group, _, name = child.rpartition("/")
        if group in deleted:
            continue
        roots.append(f"{group}/{chosen[group]}" if group in chosen else child)
    for config in (*roots, *added):
        path = config_path(config, search)
        if path is None:
            continue
        found = follow(config, path, ())
        if found:
            return [(c, config_path(c, search)) for c in found]
    return None


def cycle_message(chain: list[tuple[str, Path]]) -> str:
    """``<file>: its defaults list leads back to itself (a -> b -> a; through <file of b>)``,
    and the config the job selected that leads to it."""
    names = [c for c, _ in chain]
    start = names.index(names[-1])
    lead, cycle = chain[:start], chain[start:]
    others = [str(p) for _, p in cycle[1:-1]]
    through = f"; through {', '.join(others)}" if others else ""
    reached = f", reached from {' -> '.join(c for c, _ in lead)}" if lead else ""
    return (f"{cycle[0][1]}: its defaults list leads back to itself ({' -> '.join(names[start:])}{through})"
            f"{reached}; a config may start from another one, not from itself")
