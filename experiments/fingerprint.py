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


def package_version() -> str:
    return bandits.__version__


def stable_hash(obj, length: int = 16) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:length]
