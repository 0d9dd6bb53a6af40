"""What the plot stage drew last time, so that ``plots`` redraws only what changed.

The stage draws in units: a study with every table it owns (its claims may combine
them: Fig. 3 against Fig. 4, the benchmark's scenarios), or one experiment of your own
(a table and its scenarios ``NAME.*``). After drawing a unit it records the unit's stamp in
``<results>/figures/.plot_stamps.json``: each of its table files' size, modification time and
a hash of the file's last 64 KiB (a Parquet file's footer: its row groups and statistics),
the highlighted configurations, the figures the unit wrote and the figures its claims rows
name. A later ``plots`` skips a unit whose stamp is the one it would write now, under the
same code (:func:`code_version`: the stage's and the library's sources, the shipped configs,
matplotlib's version), and whose figures and claims rows are still there;
``--force`` redraws every unit. A unit drawn in part (``--experiment`` naming one of a
module's tables) is not stamped: the next ``plots`` draws it whole.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

FILE = ".plot_stamps.json"
TAIL_BYTES = 65536


def code_version() -> str:
    """A hash of what decides the figures besides the tables: the plot stage's sources (the
    drawing library, the studies, the plot stage and the modules it reads numbers and words from), the library's (what
    each algorithm declares it is told decides its legend group), the package's configs (the
    scale check's shipped runs, the constants a config ships) and matplotlib's version."""
    import matplotlib

    from bandits.experiments.compose.package import PACKAGE
    from bandits.experiments.store.fingerprint import code_fingerprint

    root = PACKAGE
    experiments = root / "experiments"
    files = [path for stage in ("figures", "studies", "plots") for path in sorted((experiments / stage).glob("*.py"))]
    files += [experiments / f"{name}.py" for name in ("setup/regret_kind", "report/summary", "compose/labels",
                                                      "run/timings", "compose/registry")]
    files += sorted((root / "conf").rglob("*.yaml"))
    digest = hashlib.sha256(f"{matplotlib.__version__} {code_fingerprint()}".encode())
    for path in files:
        if path.is_file():
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def table_signature(path: Path) -> dict:
    """The size, modification time and a hash of the last :data:`TAIL_BYTES` of one table file."""
    st = path.stat()
    with open(path, "rb") as fh:
        fh.seek(max(0, st.st_size - TAIL_BYTES))
        tail = hashlib.sha256(fh.read()).hexdigest()[:16]
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "tail": tail}


def current(paths: list[Path], highlight: list) -> dict:
    """The stamp a unit drawn now from the table files ``paths`` would get (outputs aside)."""
    return {"tables": {p.stem: table_signature(p) for p in sorted(paths)}, "highlight": sorted(highlight)}


def load(out_dir: Path, code: str) -> dict:
    """unit -> its stamp, as recorded under this plot-stage code (nothing under another code,
    or when the file is missing or unreadable: every unit is then drawn)."""
    try:
        saved = json.loads((out_dir / FILE).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(saved, dict) or saved.get("code") != code or not isinstance(saved.get("units"), dict):
        return {}
    return saved["units"]


def save(out_dir: Path, code: str, units: dict) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / FILE
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"code": code, "units": units}, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def up_to_date(stamp: dict | None, now: dict, out_dir: Path, claimed: set) -> bool:
    """Whether a unit stamped ``stamp`` needs no drawing: its tables and highlight are those of
    ``now`` (:func:`current`), every figure it wrote is still there, and claims.csv still has
    rows for every figure its claims named (``claimed``: the figures of claims.csv)."""
    if not stamp or {k: stamp.get(k) for k in now} != now:
        return False
    if not all((out_dir / f"{name}.png").is_file() and (out_dir / f"{name}.csv").is_file()
               for name in stamp.get("figures", [])):
        return False
    return set(stamp.get("claims", [])) <= claimed
