"""Everything a documentation template can use (:func:`context`), for
:mod:`bandits.experiments.docs.render`.

The template context:

* data: ``claims`` (``claims.csv``, every column as text, rendered as found; its
  ``scale`` column is "paper" for a claim of the experiment's shipped run, also where a
  file written before that column has none, else the description of the reduced run,
  which ``claims_table`` shows next to the verdict),
  ``figures`` (``figures['fig2a']`` or ``figures.fig2a``: ``figures/fig2a.csv``),
  ``bench`` (``bench.csv``) and ``constants`` (``constants.csv``), all loaded on
  first use (the pages say ``results/`` whatever folder they are rendered from, so
  that the output does not depend on where the results live);
* look-ups: ``claim(figure, text)`` (the one claims row of ``figure`` whose claim
  contains ``text``), ``claims_for(figure, text='')`` (all of them),
  ``const(experiment, label, name, T=None)`` (a constant, parsed back from JSON;
  without T it must be the same at every T), ``consts(...)`` (T -> value),
  ``value(figure, algo, T=None, column=None)`` (a figure CSV's number for one
  algorithm at one horizon T, or at the last round t of a curve; default: the
  largest), ``series(figure, algo, column=None)`` (x -> number), ``at(figure, algo, t)``
  (a curve interpolated at round t), ``horizons(figure)``,
  ``rows(frame)`` (a list of dicts), ``bench_row(text)``, ``have('bench.csv')`` (whether
  an optional input is there);
* formatting: filters ``num`` (3 significant digits, thousands separators from
  1000; ``num(2)``: two decimals), ``pct``, ``sci`` (30000 -> 3e4), ``horizon_of``
  (the T a claim names);
  ``md_table(frame, columns, headers)``, ``claims_table(figure, text='')``,
  ``img(name, alt)`` / ``img_path(name)`` (a figure image, relative to the output
  folder), ``label(algo)`` (the name figures use);
* the code, so lists never go stale: ``names(group)`` (config names under
  ``bandits/conf/<group>``), ``config(group, name)`` (a config file as written),
  ``algo_config(name)`` (an algorithm config as composed), ``algo_kinds()`` and
  ``env_kinds()`` (config name -> problem kinds), ``describe(group, name)`` (a config's comment),
  ``experiment_config(name)`` (composed as ``+experiment=name``), ``config_keys()``
  (the top-level keys of ``config.yaml`` with their defaults and comments),
  ``learner_keys``, ``problem_kinds``, ``docstring(module)``, ``docstring_md(module)``,
  ``signature('pkg.module.function')``, ``table_columns()``, ``test_files()``,
  ``code_value('pkg.module.NAME')`` (a constant of the code, e.g. a limit),
  ``file_text(path)`` (a file shown in full); and ``math``.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from bandits.experiments.docs.formats import horizon_of, md_table, num, pct, sci
from bandits.experiments.docs.inputs import (
    PAPER_SCALE,
    ROOT,
    DocsError,
    Figures,
    Inputs,
    Lazy,
    MissingInput,
    frame,
)
from bandits.experiments.report.constants import decode
from bandits.experiments.run import timings


def _labels() -> dict:
    for module in ("bandits.experiments.figures.common", "bandits.experiments.figures"):
        try:
            return dict(importlib.import_module(module).LABELS)
        except (ImportError, AttributeError):
            continue
    return {}


def context(inputs: Inputs) -> dict:
    """Everything a template can use (see the module docstring)."""
    from bandits.environments.base import LEARNER_KEYS, PROBLEM_KINDS
    from bandits.experiments.compose import registry

    labels_cache: dict = {}

    def label(algo) -> str:
        if not labels_cache:
            labels_cache.update(_labels() or {"": ""})
        return labels_cache.get(algo, algo)

    def claims_for(figure: str, text: str = "") -> pd.DataFrame:
        c = inputs.claims()
        return c[(c["figure"] == figure) & c["claim"].str.contains(text, regex=False)]

    def claim(figure: str, text: str = "") -> dict:
        rows = claims_for(figure, text)
        if len(rows) != 1:
            many = f"{len(rows)} claims" if len(rows) else "no claim"
            raise DocsError(f"finds {many} of figure {figure!r} containing {text!r} in "
                            f"{inputs.results / 'claims.csv'}")
        return rows.iloc[0].to_dict()

    def claims_table(figure, text: str = "", by_figure: bool = False) -> str:
        """The claims rows of ``figure`` (or several) whose claim contains ``text``; ``by_figure``:
        a first column names each row's figure (rows of several figures alike in their text)."""
        figs = [figure] if isinstance(figure, str) else list(figure)
        rows = pd.concat([claims_for(f, text) for f in figs])
        if rows.empty:
            raise DocsError(f"finds no claim of {', '.join(figs)} in {inputs.results / 'claims.csv'}")
        reduced = rows["scale"] != PAPER_SCALE
        if reduced.any():  # a claim of a reduced or changed run says so next to its verdict
            rows = rows.assign(verdict=rows["verdict"].where(~reduced, rows["verdict"] + " (" + rows["scale"] + ")"))
        return md_table(rows, (["figure"] if by_figure else []) + ["claim", "measured", "expected", "verdict"])

    def _constants(experiment, label_, name, T=None) -> pd.DataFrame:
        c = inputs.constants()
        rows = c[(c["experiment"] == experiment) & (c["label"] == label_) & (c["name"] == name)]
        if T is not None:
            rows = rows[rows["T"] == int(T)]
        if rows.empty:
            at = f" at T={T}" if T is not None else ""
            raise DocsError(f"finds no constant {name!r} of {label_!r} in experiment {experiment!r}{at} in "
                            f"{inputs.results / 'constants.csv'}")
        return rows

    def consts(experiment, label_, name) -> dict:
        rows = _constants(experiment, label_, name)
        return {int(T): decode(v) for T, v in zip(rows["T"], rows["value"], strict=True)}

    def const(experiment, label_, name, T=None):
        rows = _constants(experiment, label_, name, T)
        values = set(rows["value"])
        if len(values) > 1:
            raise DocsError(f"asks for constant {name!r} of {label_!r} in experiment {experiment!r} without T, "
                            f"but it differs between horizons in {inputs.results / 'constants.csv'}")
        return decode(rows["value"].iloc[0])

    def _algo_rows(figure, algo) -> pd.DataFrame:
        data = inputs.figure(figure)
        rows = data[data["algo"] == algo]
        if rows.empty:
            raise DocsError(f"finds no algorithm {algo!r} in {inputs.results / 'figures' / (figure + '.csv')}")
        return rows

    def series(figure, algo, column=None) -> dict:
        rows = _algo_rows(figure, algo)
        x = "T" if "T" in rows.columns else ("t" if "t" in rows.columns else "shift")
        column = column or next(c for c in ("mean_regret", "mean", "mean_delay") if c in rows.columns)
        rows = rows.sort_values(x)
        pairs = zip(rows[x], rows[column], strict=True)
        return {(int(k) if float(k).is_integer() else float(k)): float(v) for k, v in pairs}

    def value(figure, algo, T=None, column=None) -> float:
        s = series(figure, algo, column)
        if T is None:
            return s[max(s)]
        key = int(T) if float(T).is_integer() else float(T)
        if key not in s:
            raise DocsError(f"finds no value of {algo!r} at {T} in {inputs.results / 'figures' / (figure + '.csv')}")
        return s[key]

    def bench_has(text: str) -> bool:
        b = inputs.bench()
        return bool(b["case"].astype(str).str.contains(text, regex=False).any())

    def bench_row(text: str) -> dict:
        b = inputs.bench()
        rows = b[b["case"].astype(str).str.contains(text, regex=False)]
        if len(rows) != 1:
            raise DocsError(f"finds {len(rows)} cases containing {text!r} in {inputs.results / 'bench.csv'}")
        return rows.iloc[0].to_dict()

    def img_path(name: str) -> str:
        path = inputs.results / "figures" / f"{name}.png"
        if not path.is_file():
            raise MissingInput(path, " (run `make figures`)")
        return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(inputs.out))).as_posix()

    def img(name: str, alt: str | None = None) -> str:
        return f"![{alt or name}]({img_path(name)})"

    def config(group: str, name: str) -> dict:
        from omegaconf import OmegaConf

        path = registry.CONF / group / f"{name}.yaml"
        if not path.is_file():
            raise MissingInput(path)
        return OmegaConf.to_container(OmegaConf.load(path), resolve=False)

    def describe(group: str, name: str) -> str:
        """What a config is: its first comment block; for a config without one that
        extends another, that config and the values it changes."""
        path = registry.CONF / group / f"{name}.yaml"
        lines, started = [], False
        for line in path.read_text().splitlines():
            if line.startswith("#") and not line.startswith("# @package"):
                lines.append(line.lstrip("#").strip())
                started = True
            elif started:
                break
        if lines:
            return " ".join(lines)
        raw = config(group, name)
        parents = [d for d in raw.get("defaults", []) if isinstance(d, str) and d != "_self_"]
        changed = [f"{k}={v}" for k, v in raw.items() if k not in ("defaults", "name")]
        if parents:
            return f"`{parents[0]}` with {', '.join(changed)}" if changed else f"`{parents[0]}`"
        return ""

    def algo_config(name: str) -> dict:
        return registry.group_config("algo", name)

    def docstring(module: str) -> str:
        return inspect.getdoc(importlib.import_module(module)) or ""

    composed: dict = {}

    def experiment_config(name: str) -> dict:
        """An experiment config as the CLI composes it (``+experiment=name``; composed once
        per render, the templates ask for some many times)."""
        from omegaconf import OmegaConf

        if name not in composed:
            composed[name] = OmegaConf.to_container(registry.compose([f"+experiment={name}"]), resolve=True)
        return copy.deepcopy(composed[name])

    def config_keys(group: str | None = None, name: str = "config") -> list:
        """(key, default, comment) of every key of a config file as written, nested keys
        dotted; the defaults list and the ``hydra`` section are left out."""
        path = registry.CONF / (group or "") / f"{name}.yaml"
        out, parents = [], {}
        for line in path.read_text().splitlines():
            m = re.match(r"^( *)([A-Za-z_][\w]*):\s*([^#]*?)\s*(?:#\s*(.*))?$", line)
            if not m:
                continue
            depth = len(m.group(1)) // 2
            parents[depth] = m.group(2)
            key = ".".join(parents[d] for d in range(depth + 1))
            if key.split(".")[0] in ("defaults", "hydra"):
                continue
            out.append((key, m.group(3), m.group(4) or ""))
        return out

    def docstring_md(module: str) -> str:
        """A module's docstring as markdown: ``x`` and :role:`x` become `x`, indented
        blocks become python code blocks."""
        text = docstring(module)
        text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text).replace("``", "`")
        out, block = [], False
        for line in text.splitlines():
            indented = line.startswith("    ")
            if indented and not block:
                out.append("```python")
                block = True
            elif block and line.strip() and not indented:
                while out and not out[-1].strip():
                    out.pop()
                out += ["```", ""]
                block = False
            out.append(line[4:] if block else line)
        if block:
            while out and not out[-1].strip():
                out.pop()
            out.append("```")
        return "\n".join(out)

    def signature(dotted: str) -> str:
        module, _, name = dotted.rpartition(".")
        sig = inspect.signature(getattr(importlib.import_module(module), name))
        params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
        return f"{name}{sig.replace(parameters=params, return_annotation=inspect.Signature.empty)}"

    def file_text(rel: str) -> str:
        """A file of the repository, as it is (e.g. an example to show in full)."""
        return (ROOT / rel).read_text().rstrip("\n")

    def code_value(dotted: str):
        """A constant of the code (``bandits.experiments.outcomes.EXIT_CODES``, a limit), read at render time."""
        module, _, name = dotted.rpartition(".")
        return getattr(importlib.import_module(module), name)

    def test_files() -> list:
        """(file, first docstring paragraph, test names) of every ``tests/test_*.py``,
        read without importing it."""
        import ast

        out = []
        for path in sorted((ROOT / "tests").glob("test_*.py")):
            tree = ast.parse(path.read_text())
            doc = (ast.get_docstring(tree) or "").split("\n\n")[0]
            tests = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and n.name.startswith("test")]
            out.append((f"tests/{path.name}", " ".join(doc.split()), tests))
        return out

    def table_columns() -> list:
        from bandits.experiments.store.table_store import SCHEMA

        return list(SCHEMA.names)

    def algo_kinds() -> dict:
        return {n: k for n in registry.names("algo") if (k := registry.kinds_of("algo", n)) is not None}

    def env_kinds() -> dict:
        return {n: registry.kinds_of("env", n) or () for n in registry.names("env")}

    def at(figure, algo, t) -> float:
        """A curve's value at round t, interpolated between its checkpoints."""

        s = series(figure, algo)
        x = sorted(s)
        return float(np.interp(float(t), x, [s[k] for k in x]))

    def horizons(figure: str) -> list:
        data = inputs.figure(figure)
        x = "T" if "T" in data.columns else "t"
        return sorted(int(v) for v in data[x].unique())

    def have(rel: str) -> bool:
        """Whether the results folder has this file (``bench.csv`` is optional)."""
        return (inputs.results / rel).is_file()

    def kernel_leaders(top: int = 15) -> dict | None:
        return timings.kernel_leaders(inputs.results, top)

    def speed_breakdown() -> dict | None:
        return timings.speed_breakdown(inputs.results)

    def rows(data) -> list:
        return frame(data).to_dict("records")

    def algo_needs(name: str) -> list:
        """What the algorithm config ``name`` must be told by the environment (its ``needs()``)."""
        from bandits.experiments.compose.building import build
        from bandits.simulation import needs

        return list(needs(build(registry.group_config("algo", name), "algo")[1]))

    def result_csv(rel: str) -> pd.DataFrame:
        """Any CSV of the results folder (``crosscheck/smpybandits.csv``)."""
        return inputs.csv(rel)

    def leaderboard(experiment: str) -> str:
        """The leaderboard of ``<experiment>_leaderboard.csv`` at each scenario's largest T as
        a markdown table: one row per algorithm (by its mean rank), one column per scenario
        with its regret relative to the best learner and the 95% interval, and the median
        measured cost per round."""
        data = inputs.figure(f"{experiment}_leaderboard")
        last = data[data["T"] == data.groupby("scenario")["T"].transform("max")]
        cell = last.assign(text=[f"{num(r)} [{num(lo)}, {num(hi)}]" for r, lo, hi in
                                 zip(last["ratio_to_best"], last["ratio_ci_low"], last["ratio_ci_high"], strict=True)])
        table = cell.pivot(index="algo", columns="scenario", values="text")
        order = last.groupby("algo")["ratio_to_best"].apply(lambda r: float(np.exp(np.log(r).mean())))
        table = table.loc[order.sort_values().index]
        table.insert(0, "geometric mean", [num(v) for v in order.sort_values()])
        table["ns/round"] = [num(v) for v in last.groupby("algo")["ns_per_round"].median().loc[table.index]]
        table.insert(0, "algorithm", [label(a) for a in table.index])
        heads = ["algorithm", "geometric mean"] + [f"{c} (T={sci(last.loc[last['scenario'] == c, 'T'].iloc[0])})"
                                                  for c in table.columns[2:-1]] + ["ns/round"]
        return md_table(table.reset_index(drop=True), list(table.columns), heads)

    return {
        "claims": Lazy(inputs.claims), "figures": Figures(inputs.figure),
        "bench": Lazy(inputs.bench), "constants": Lazy(inputs.constants),
        "claim": claim, "claims_for": claims_for, "claims_table": claims_table, "const": const, "consts": consts,
        "value": value, "series": series, "at": at, "horizons": horizons, "rows": rows, "have": have,
        "bench_row": bench_row, "bench_has": bench_has, "speed_breakdown": speed_breakdown,
        "kernel_leaders": kernel_leaders,
        "md_table": md_table, "img": img,
        "img_path": img_path, "label": label, "names": registry.names, "config": config,
        "describe": describe, "algo_config": algo_config, "docstring": docstring,
        "algo_kinds": algo_kinds, "env_kinds": env_kinds, "experiment_config": experiment_config,
        "config_keys": config_keys, "docstring_md": docstring_md, "signature": signature,
        "table_columns": table_columns, "test_files": test_files, "code_value": code_value,
        "file_text": file_text, "result_csv": result_csv, "leaderboard": leaderboard, "algo_needs": algo_needs,
        "learner_keys": LEARNER_KEYS, "problem_kinds": PROBLEM_KINDS, "math": math,
        "num": num, "pct": pct, "sci": sci, "horizon_of": horizon_of,
    }
