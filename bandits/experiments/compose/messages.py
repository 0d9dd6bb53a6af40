"""The paragraphs for names a user gives that do not exist, the same on the command line and
in ``simulate()``: a config name (of an algorithm, environment, experiment, launcher) with a
"did you mean" and the valid names, and a Hydra launcher whose plugin is not installed, with
the extra of drift-bandits that installs it."""

from __future__ import annotations

import difflib
import re

from bandits.errors import install_hint

DIST = "drift-bandits"  # the distribution whose extras install the optional Hydra plugins
CLOSE = 0.15  # a second suggestion is shown when it is about as close as the first (ucbl: ucb or ucb1)


def did_you_mean(given: str, valid) -> str:
    """`` (did you mean 'x'?)`` for the name of ``valid`` closest to ``given`` (difflib's
    ratio and default cutoff), ``'x' or 'y'`` when a second is about as close, or ``''``."""
    given = str(given)
    close = difflib.get_close_matches(given, sorted({str(v) for v in valid}), n=2)
    ratio = [difflib.SequenceMatcher(None, given, c).ratio() for c in close]
    close = [c for c, r in zip(close, ratio, strict=True) if r >= ratio[0] - CLOSE]
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def unknown_config(group: str, name: str, valid) -> str:
    """``no algo config named 'glr_kl_ucb' (did you mean 'glr_klucb'?); valid names: ...``"""
    valid = list(valid)
    return f"no {group} config named {name!r}{did_you_mean(name, valid)}; valid names: {', '.join(valid)}."


def missing_plugin(exc) -> str | None:
    """For Hydra's MissingConfigException about a launcher or sweeper that no installed plugin
    provides (``hydra/launcher=slurm`` without the ``cluster`` extra: ``Could not load
    'hydra/launcher/submitit_slurm'``), the paragraph naming the extra to install; None when
    the missing config is no plugin's, or an installed plugin should have provided it."""
    group, _, name = str(exc.missing_cfg_file or "").rpartition("/")
    if group not in ("hydra/launcher", "hydra/sweeper") or name in (exc.options or ()):
        return None
    found = plugin_extra(name)
    if found is None:
        return None
    extra, plugin = found
    chosen = re.search(r"In '([^']+)'", str(exc))  # our launcher config that starts from the plugin's
    asked = chosen.group(1) if chosen and chosen.group(1).startswith(f"{group}/") else f"{group}/{name}"
    override = "=".join(asked.rsplit("/", 1))
    what = f"{override}: its plugin" if asked == f"{group}/{name}" else \
        f"{override} runs on Hydra's {name!r} {group.rpartition('/')[2]}, whose plugin"
    return (f"{what} {plugin} is not installed. It comes with the {extra} extra of drift-bandits: "
            f"{install_hint(extra)}; `drift-bandits docs cluster` says how to run on a cluster.")


def plugin_extra(config_name: str) -> tuple[str, str] | None:
    """(extra, distribution) of the extra of drift-bandits whose Hydra plugin provides the
    launcher or sweeper config ``config_name``, when that plugin is not installed, else None.
    Hydra's plugins are distributions named ``hydra-<name>-launcher`` (or ``-sweeper``), whose
    configs are named ``<name>_<variant>``: ``submitit_slurm`` comes from
    ``hydra-submitit-launcher``, which the ``cluster`` extra requires (read from the installed
    metadata, so that pyproject.toml stays the one place that says it)."""
    from importlib import metadata

    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requires = metadata.requires(DIST) or []
        extras = metadata.metadata(DIST).get_all("Provides-Extra") or []
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return None
    stem = config_name.split("_")[0].lower()
    for text in requires:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        words = req.name.lower().replace("_", "-").split("-")
        if req.marker is None or words[0] != "hydra" or stem not in words[1:]:
            continue
        extra = next((e for e in extras if req.marker.evaluate({"extra": e})), None)
        if extra is None:
            continue
        try:
            metadata.version(req.name)
        except metadata.PackageNotFoundError:
            return extra, req.name
        return None  # installed: something else keeps Hydra from finding its config
    return None
