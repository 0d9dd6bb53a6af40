"""Files written whole or not at all: the one write-to-a-temporary-then-rename of the result
store, its shards and tables, and the docs."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once, at import, before any worker thread writes (os.umask is process-wide).
FILE_MODE = 0o666 & ~_umask()


@contextmanager
def replaced(path: Path):
    """Yield a temporary path next to ``path`` to write; on success it becomes ``path`` with
    the permissions the umask allows (mkstemp makes 0600 whatever the umask), on any error
    it is removed and ``path`` is left as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        os.chmod(tmp, FILE_MODE)
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (UTF-8, newlines as given)."""
    with replaced(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
