"""Identity of code and configuration, so a finished cell is reused only when
neither has changed."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

import bandits

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bandits", "experiments")


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Hash of every .py file of the library and runner (path and bytes). Unlike a
    git commit it also changes with uncommitted edits, and it is the same on any
    clone of the same sources."""
    h = hashlib.sha256()
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            h.update(str(path.relative_to(ROOT)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


@lru_cache(maxsize=1)
def provenance() -> dict:
    """Versions and host recorded with every cell."""
    import platform
    import socket
    import subprocess

    import numba
    import numpy

    commit = None
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10)
        if head.returncode == 0:
            dirty = subprocess.run(["git", "status", "--porcelain", "--", *PACKAGES], cwd=ROOT, capture_output=True,
                                   text=True, timeout=10).stdout.strip()
            commit = head.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        commit = None
    return {"git_commit": commit, "python_version": platform.python_version(), "numpy_version": numpy.__version__,
            "numba_version": numba.__version__, "host": socket.gethostname()}


def package_version() -> str:
    return bandits.__version__


def stable_hash(obj, length: int = 16) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:length]
