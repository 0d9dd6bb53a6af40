"""The build's one addition to pyproject.toml: a built package records where it was built from.

``build_py`` writes ``bandits/build_info.json`` into the build (never into the sources): the
commit of the checkout it was built from (``-dirty`` when the library's sources had local
edits, as :func:`bandits.experiments.store.fingerprint.provenance` marks a checkout) and the
code fingerprint of the sources it packed. An installed package's rows then say which commit
their numbers came from, where a checkout's say it from git. Built outside a git checkout
(a source archive), the commit is null and rows leave it empty.
"""

import hashlib
import json
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
NOT_NUMBERS = ("experiments", "examples")  # as bandits/experiments/store/fingerprint.py: NOT_NUMBERS


def git(*args):
    try:
        done = subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def fingerprint(package: Path) -> str:
    """tree_hash of bandits/experiments/store/fingerprint.py, on the sources being packed."""
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).parts[0] not in NOT_NUMBERS:
            h.update(str(path.relative_to(package)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


class BuildWithProvenance(build_py):
    def run(self):
        super().run()
        commit = git("rev-parse", "HEAD")
        if commit and git("status", "--porcelain", "--", "bandits", ":!bandits/experiments"):
            commit += "-dirty"
        out = Path(self.build_lib) / "bandits" / "build_info.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"git_commit": commit, "code_fingerprint": fingerprint(HERE / "bandits")}) + "\n")


setup(cmdclass={"build_py": BuildWithProvenance})
