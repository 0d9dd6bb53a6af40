"""The installed version of drift-bandits (a source tree that is not installed: 0.1.0)."""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

try:
    __version__ = _version("drift-bandits")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"
