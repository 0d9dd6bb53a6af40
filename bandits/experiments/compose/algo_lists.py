"""``algos=[...]`` on the command line: a list of algorithms, turned into the Hydra overrides
that compose it.

- ``algos=[mine,ucb1,glr_klucb]`` runs exactly these: with ``+experiment=NAME``, the
  experiment's other algorithms are dropped (``~algos.<key>``), its own configuration of a
  listed one is kept, and a listed one it lacks is added;
- ``+algos=[mine]`` adds these to the experiment's own (``+algo@algos.<key>=<config>``).

An entry is a config name (``ucb1``), ``key:config`` for a second configuration of one algorithm
(``w800:sw_ucb``), or the key of a policy of your own, which starts from the ``custom`` config
when the command sets its class (``algos.mine._target_=module.Class``). A name that is none of
these is refused as ``simulate(algos=[...])`` refuses it: no algorithm config of that name,
with a "did you mean"; so is a key given twice, or one the experiment has already, before
Hydra composes anything (its own message names a defaults list entry, not the command).
"""

from __future__ import annotations

import re

from bandits.errors import ConfigError

ALGO_LIST = re.compile(r"^(\+?)algos=\[(.*)\]$")
ALGO_UNDER = re.compile(r"^\+?algo@algos\.([^=]*)=")
EXPERIMENT = re.compile(r"^\+{0,2}experiment=(.*)$")


def entries(text: str) -> list[tuple[str, str | None]]:
    """(key, config or None) of each entry of a list's text ``mine, w800:sw_ucb``."""
    from bandits.experiments.compose.names import check_algo_key

    out = []
    for item in (i.strip() for i in text.split(",")):
        if not item:
            continue
        key, _, config = item.partition(":")
        check_algo_key(key)
        out.append((key, config or None))
    return out


def experiments_named(argv: list[str]) -> list[str]:
    """The experiment configs the command names (``+experiment=a`` or a sweep ``a,b``)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    found = []
    for a in argv:
        if EXPERIMENT.match(a):
            override = OverridesParser.create().parse_overrides([a])[0]
            found += list(override.sweep_string_iterator()) if override.is_sweep_override() else \
                [str(override.value())]
    return found


def experiment_algos(experiment: str, argv: list[str]) -> dict:
    """The algorithms an experiment lists, as composed: key -> config name (the searchpath of
    the command, for an experiment of your own)."""
    from omegaconf import OmegaConf

    from bandits.experiments.compose.registry import compose, names

    if experiment not in names("experiment"):
        return {}  # an unknown name: reported when the command is composed, with its "did you mean"
    searchpath = [a for a in argv if a.startswith("hydra.searchpath=")]
    cfg = compose([*searchpath, f"+experiment={experiment}"])
    algos = OmegaConf.to_container(cfg.get("algos") or {}, resolve=False)
    return {str(k): (v or {}).get("name") for k, v in algos.items()}


def config_of(key: str, config: str | None, argv: list[str]) -> str:
    """The algorithm config an entry starts from: its own (``key:config``), the config named as
    the key, or ``custom`` for a policy of your own whose class the command sets."""
    from bandits.experiments.compose.messages import unknown_config
    from bandits.experiments.compose.registry import names

    valid = names("algo")
    if config is not None:
        if config not in valid:
            raise ConfigError(f"algos=[...], entry {key}:{config}: {unknown_config('algo', config, valid)}")
        return config
    if key in valid:
        return key
    if any(a.lstrip("+").startswith(f"algos.{key}._target_=") for a in argv):
        return "custom"
    misspelt = misspelt_target(key, argv)
    if misspelt:
        raise ConfigError(f"algos=[...] lists {key!r}, no algorithm config of that name, and the command sets "
                          f"{misspelt} (did you mean algos.{key}._target_?): a policy of your own under algos "
                          f"needs its class as algos.{key}._target_=module.Class.")
    raise ConfigError(f"algos=[...]: {unknown_config('algo', key, valid)[:-1]}; a policy of your own under algos "
                      f"needs its class too: algos.{key}._target_=module.Class (a module in the current folder "
                      "works).")


def misspelt_target(key: str, argv: list[str]) -> str | None:
    """The override ``algos.<key>.<leaf>`` of ``argv`` whose leaf is close to ``_target_`` (a
    misspelt class key: ``_targt_``, ``target``), or None."""
    import difflib

    prefix = f"algos.{key}."
    leaves = [a.lstrip("+").split("=")[0][len(prefix):] for a in argv if a.lstrip("+").startswith(prefix)]
    close = difflib.get_close_matches("_target_", [leaf for leaf in leaves if leaf != "_target_"], 1)
    return f"{prefix}{close[0]}" if close else None


def unknown_names(lists, argv: list[str], shipped: dict) -> None:
    """Every name of ``algos=[...]`` lists that is no algorithm config (nor a policy of your own
    with its class, nor an algorithm of the experiment), reported together when there are
    several (one at a time would take as many runs to find them all)."""
    from bandits.experiments.compose.messages import did_you_mean
    from bandits.experiments.compose.registry import names

    valid = names("algo")
    owned = {k for algos in shipped.values() for k in algos}
    unknown = []
    for _, m in lists:
        for key, config in entries(m.group(2)):
            name = config if config is not None else key
            custom = config is None and any(a.lstrip("+").startswith(f"algos.{key}._target_=") for a in argv)
            if name not in valid and not custom and not (config is None and key in owned):
                unknown.append(f"{name!r}{did_you_mean(name, valid)}")
    if len(unknown) > 1:
        raise ConfigError(f"algos=[...] names {len(unknown)} algorithms with no config: {', '.join(unknown)}; valid "
                          f"names: {', '.join(valid)}. A policy of your own under algos needs its class too: "
                          "algos.<key>._target_=module.Class.")


def expand(argv: list[str]) -> list[str]:
    """``argv`` with every ``algos=[...]`` / ``+algos=[...]`` replaced by the overrides that
    compose it (in place: a leading -m stays first). Outside an experiment, a command that
    lists algorithms under ``algos`` runs those alone: the default ``algo`` is dropped unless
    ``algo=...`` is given."""
    from bandits.experiments.compose.names import check_algo_key

    lists = [(i, m) for i, a in enumerate(argv) if (m := ALGO_LIST.match(a))]
    under = [m.group(1) for a in argv if (m := ALGO_UNDER.match(a))]
    for key in under:
        check_algo_key(key)  # before Hydra reads `_global_` as a package
    experiments = experiments_named(argv) if lists or under else []
    if lists and len(experiments) > 1:
        raise ConfigError(f"algos=[...] with a sweep over experiments ({', '.join(experiments)}): each experiment "
                          "lists its own algorithms, so give the list to one experiment at a time (one command per "
                          "experiment, or `drift-bandits commands '...' '...'`).")
    shipped = {e: experiment_algos(e, argv) for e in experiments}
    unknown_names(lists, argv, shipped)
    listed: dict = {}  # key -> where it was given, to name a key given twice
    out = []
    for i, a in enumerate(argv):
        m = next((m for j, m in lists if j == i), None)
        if m is None:
            out.append(a)
            continue
        adding = m.group(1) == "+"
        given = f"{m.group(1)}algos=[...]"
        for key, config in entries(m.group(2)):
            if key in listed:
                again = f"{key}:{config}" if config else key
                raise ConfigError(f"{given} lists {key!r} twice ({listed[key]} and {again}): each key names one "
                                  "algorithm and its seed stream; give the second configuration a key of its own "
                                  f"({key}_2:{config or key}).")
            listed[key] = f"{key}:{config}" if config else key
            owner = next((e for e, algos in shipped.items() if key in algos), None)
            if owner is not None and adding:
                raise ConfigError(f"+algos=[...] adds {key!r}, which experiment {owner} runs already (as "
                                  f"{shipped[owner][key]}); to add a second configuration give it a key of its own "
                                  f"({key}_2:{config or key}), or list the algorithms to run with algos=[...] (no +).")
            if owner is not None:
                if config is not None:  # the experiment's entry takes the config given
                    out.append(f"algo@algos.{key}={config_of(key, config, argv)}")
                continue  # the experiment's own configuration of it
            out.append(f"+algo@algos.{key}={config_of(key, config, argv)}")
        if not adding:
            dropped = {a.lstrip("~").split("=")[0] for a in argv if a.startswith("~algos.")}
            for algos in shipped.values():
                out += [f"~algos.{k}" for k in algos if k not in listed and f"algos.{k}" not in dropped]
    for key in under:
        owner = next((e for e, algos in shipped.items() if key in algos), None)
        if owner is not None:
            raise ConfigError(f"+algo@algos.{key}=... adds {key!r}, which experiment {owner} runs already: give it a "
                              f"key of its own (+algo@algos.{key}_2=...), or change its config with "
                              f"algo@algos.{key}=<config> (no +).")
    keys = [a.split("=")[0] for a in out if "=" in a]
    adhoc = not experiments
    listed_algos = any(k.lstrip("+").startswith("algo@algos.") for k in keys)
    explicit = any(k.lstrip("+~") == "algo" for k in keys) or "~algo" in out
    if adhoc and listed_algos and not explicit:
        out.append("~algo")
    return out
