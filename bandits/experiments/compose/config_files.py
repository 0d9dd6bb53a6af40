"""Broken config files, found before Hydra reads them: which files a job's overrides select
(the shipped ``bandits/conf`` and the folders of ``DRIFT_BANDITS_CONF``), and what is wrong with
one, as a sentence naming the file and the line (YAML syntax, a Python-object tag, an alias to
its own node, a defaults list that leads back to a file)."""

from __future__ import annotations

from pathlib import Path

from bandits.experiments.compose.package import CONF


def yaml_problem(path: Path) -> str | None:
    """What is wrong with one config file, as a sentence naming the file and the line, or None:
    a YAML syntax error, a tag that would construct a Python object (refused, never executed),
    an alias that refers to the node that contains it (a defaults list that leads back to a
    file is :func:`config_file_problem`'s)."""
    import yaml

    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        return f"{path} cannot be read ({type(exc).__name__}: {exc})"
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        return f"{path}{where} is not valid YAML: {exc.problem or exc.context}"
    except yaml.YAMLError as exc:
        return f"{path} is not valid YAML: {exc}"
    cycle = _self_containing(node)
    if cycle is not None:
        return (f"{path} at line {cycle.start_mark.line + 1}: a YAML alias refers to a node that contains it "
                "(a structure without end)")
    try:
        yaml.load(text, Loader=loader)  # the tags: construct nothing but plain data
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}" if mark else ""
        return (f"{path}{where} uses a YAML tag that is not plain data ({exc.problem}); configs hold plain values "
                "only (tags that construct Python objects are refused, never run)")
    except yaml.YAMLError as exc:
        return f"{path} is not valid YAML: {exc}"
    return None


def _self_containing(node, path=None):
    """The first YAML node reachable from itself (an alias cycle), or None."""
    import yaml

    stack = [(node, ())]
    while stack:
        current, seen = stack.pop()
        if any(current is s for s in seen):
            return current
        if isinstance(current, yaml.SequenceNode):
            children = current.value
        elif isinstance(current, yaml.MappingNode):
            children = [v for pair in current.value for v in pair]
        else:
            continue
        stack.extend((child, (*seen, current)) for child in children)
    return None


def selected_files(job: list[str], extra: list[Path]) -> list[Path]:
    """The config files of your own folders (``extra``) that a job's overrides select (by group and name:
    ``algo=x``, ``+algo@algos.k=x``, ``env=x``, ``+experiment=x``), each with its same-group
    defaults; the package's own files are trusted."""
    out = []
    for override in job:
        key, _, value = override.lstrip("+").partition("=")
        group = key.split("@")[0]
        if group not in ("algo", "env", "experiment") or not value:
            continue
        for folder in extra:
            path = folder / group / f"{value}.yaml"
            if path.is_file():
                out.append(path)
    return out


def config_file_problem(job: list[str], extra: list[Path]) -> str | None:
    """A sentence for the first broken file of your own (in the folders ``extra``:
    :func:`bandits.experiments.compose.registry.extra_folders`) among those the job selects, or for the
    chain of files whose defaults lists lead back to one of them; None."""
    from bandits.experiments.compose.defaults_chain import cycle_message, find_cycle, folders

    for path in selected_files(job, extra):
        problem = yaml_problem(path)
        if problem:
            return problem
    cycle = find_cycle(job, folders(job, extra, CONF))
    return cycle_message(cycle) if cycle else None
