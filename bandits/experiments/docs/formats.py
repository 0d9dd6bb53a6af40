"""The number formats of the documentation pages (Jinja filters ``num``, ``pct``, ``sci``,
``horizon_of``) and their markdown tables."""

from __future__ import annotations

import math
import re

import pandas as pd

from bandits.experiments.docs.inputs import Lazy, frame


def _number(x):
    """A float from a number or numeric text; None when it is not one."""
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, (int, float)):
        return float(x)
    try:
        return float(str(x).strip())
    except ValueError:
        return None


def num(x, decimals: int | None = None) -> str:
    """3 significant digits below 1000, whole numbers with thousands separators from
    1000 (``num(x, 2)``: two decimals). Text that is not a number is returned as it is
    (a claim measured ``n/a (...)`` renders as found)."""
    v = _number(x)
    if v is None or not math.isfinite(v):
        return str(x)
    if decimals is not None:
        return f"{v:,.{decimals}f}"
    if v == 0:
        return "0"
    if abs(v) >= 999.5:
        return f"{round(v):,}"
    text = f"{v:.3g}"
    if "e" in text:  # very small numbers
        mant, exp = text.split("e")
        return f"{mant}e{int(exp)}"
    return text


def pct(x, decimals: int = 0) -> str:
    v = _number(x)
    return str(x) if v is None else f"{100 * v:.{decimals}f}%"


def sci(x) -> str:
    """A horizon the way the text writes it: 30000 -> 3e4, 240000 -> 2.4e5, 500 -> 500."""
    v = _number(x)
    if v is None:
        return str(x)
    if abs(v) < 1000 or v != round(v):
        return num(v)
    exp = int(math.floor(math.log10(abs(v))))
    mant = f"{v / 10 ** exp:.4g}"
    return f"{mant}e{exp}"


def horizon_of(text) -> int | None:
    """The horizon a claim names, ``... (T=30000)`` -> 30000."""
    m = re.search(r"\bT\s*=\s*([0-9]+)", str(text))
    return int(m.group(1)) if m else None


def _cell(v) -> str:
    if isinstance(v, float):
        v = num(v)
    return str(v).replace("|", "\\|").replace("\n", " ")


def md_table(data, columns=None, headers=None) -> str:
    """A GitHub markdown table of ``data`` (a DataFrame or a list of dicts / lists)."""
    if isinstance(data, (pd.DataFrame, Lazy)):
        data = frame(data)
        columns = list(columns or data.columns)
        rows = [[r[c] for c in columns] for _, r in data.iterrows()]
    else:
        rows = [[r[c] for c in columns] if isinstance(r, dict) else list(r) for r in data]
    headers = list(headers or columns)
    lines = ["| " + " | ".join(_cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)
