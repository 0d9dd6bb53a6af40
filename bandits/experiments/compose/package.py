"""Where the installed package lives: its folder, its configs and its examples, found from this
file (not by importing ``bandits``, whose lazy ``simulate`` would tie the package to its runner)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2]  # the bandits/ folder
CONF = PACKAGE / "conf"
EXAMPLES = PACKAGE / "examples"
