"""Keep numba's on-disk cache in a folder keyed by a hash of this package's sources.

numba invalidates a cached kernel when its own file changes, but not when a
compiled function it calls from another module changes (BOB's kernel inlines the
SW-UCB kernels), so a stale cache could silently run old code. Keying the cache
folder by the sources makes every edit start from a fresh compile. Set
``NUMBA_CACHE_DIR`` yourself to override.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def configure() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    package = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).parts[0] in ("experiments", "examples"):  # the runner, user examples
            continue
        h.update(str(path.relative_to(package)).encode())
        h.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "drift-bandits"
    folder = base / f"numba-{h.hexdigest()[:16]}"
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    import sys
    if "numba" in sys.modules:  # numba read its config already: set it directly
        from numba.core import config
        config.CACHE_DIR = str(folder)
