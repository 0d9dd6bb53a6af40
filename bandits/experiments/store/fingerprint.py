"""Identity of code and configuration, so a finished cell is reused only when
neither has changed.

The code fingerprint hashes what produces a cell's numbers and nothing else: the
library (every ``.py`` under ``bandits/``: algorithms, environments and the trial
loop of :mod:`bandits.simulation`) except the runner's own subpackage
(``bandits/experiments/``: the bookkeeping, the store, the summaries, the figures
and the CLI), so editing those reuses finished cells. A user's own policy or
environment class defined outside the library is hashed from its source file
(:func:`source_hash`).
"""

from __future__ import annotations

import hashlib
import inspect
import json
from functools import cache, lru_cache
from pathlib import Path

from bandits.experiments.compose.package import PACKAGE
from bandits.version import __version__

ROOT = Path(__file__).resolve().parents[3]  # the checkout (repository root)
LIBRARY = PACKAGE


# Folders of the library that produce no built-in numbers: the runner's subpackage, and the
# examples (user code that ships with the package, hashed like any user's own file).
NOT_NUMBERS = ("experiments", "examples")


def library_sources(package: Path) -> list[Path]:
    """Every .py file under ``package`` that produces numbers: all but :data:`NOT_NUMBERS`."""
    return [p for p in sorted(package.rglob("*.py")) if p.relative_to(package).parts[0] not in NOT_NUMBERS]


def tree_hash(package: Path) -> str:
    """Hash of every number-producing .py file under ``package`` (relative path and bytes)."""
    h = hashlib.sha256()
    for path in library_sources(package):
        h.update(str(path.relative_to(package)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Hash of the library's sources. Unlike a git commit it also changes with
    uncommitted edits, and it is the same on any clone of the same sources."""
    return tree_hash(LIBRARY)


@cache
def source_hash(cls: type) -> str:
    """Hash of the file defining ``cls`` when it lies outside the library (a user's
    policy or environment), else ''."""
    try:
        path = Path(inspect.getsourcefile(cls) or "").resolve()
    except (TypeError, OSError):
        return ""
    if not path.is_file() or (LIBRARY in path.parents and path.relative_to(LIBRARY).parts[0] not in NOT_NUMBERS):
        return ""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


BUILD_INFO = "build_info.json"  # written into a built package by setup.py (never into the sources)


def checkout_commit(root: Path) -> str | None:
    """The commit of the git checkout whose top is ``root`` (``-dirty`` with local edits of the
    library's sources), else None: a package installed into a venv that lies inside some other
    git repository is not that repository's commit."""
    import subprocess

    def git(*args) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != root.resolve():
        return None
    head = git("rev-parse", "HEAD")
    if head is None:
        return None
    return head + ("-dirty" if git("status", "--porcelain", "--", "bandits", ":!bandits/experiments") else "")


def built_commit(package: Path) -> str | None:
    """The commit a built (pip-installed) package was built from, as its ``build_info.json``
    records it; ``-dirty`` when the library's sources differ from the ones packed (their code
    fingerprint changed since), None when it records none."""
    try:
        info = json.loads((package / BUILD_INFO).read_text())
    except (OSError, ValueError):
        return None
    commit = info.get("git_commit")
    if commit and info.get("code_fingerprint") != tree_hash(package) and not commit.endswith("-dirty"):
        commit += "-dirty"
    return commit


@lru_cache(maxsize=1)
def provenance() -> dict:
    """Versions and host recorded with every cell, and the commit of the sources: the checkout's
    (git), else the one a built package records (:func:`built_commit`)."""
    import platform
    import socket

    import numba
    import numpy

    commit = checkout_commit(ROOT) or built_commit(LIBRARY)
    return {"git_commit": commit, "python_version": platform.python_version(), "numpy_version": numpy.__version__,
            "numba_version": numba.__version__, "host": socket.gethostname()}


def package_version() -> str:
    return __version__


def stable_hash(obj, length: int = 16) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:length]
