"""Names that become file or folder names (experiment names, the keys under ``algos``) and
display labels, checked before any work: one place for the rules, light enough for the
command line's quick answers."""

from __future__ import annotations

import re

from bandits.errors import ConfigError

EXPERIMENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
NAME_MAX = 100  # characters of a name that becomes a file or folder name (with room for suffixes)
# Names a file system or a shared folder treats specially (Windows' device names, on any host).
RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
RESERVED_SUFFIXES = (".parquet", ".corrupt", ".lock", ".tmp")


def file_name(what: str, value) -> str:
    """A name that becomes a file or folder name, checked before any work: letters, digits and
    _ . + - (starting with a letter or digit), at most NAME_MAX characters, no control character
    (a trailing newline included), no separator, no name a file system reserves."""
    if not isinstance(value, str):
        raise ConfigError(f"{what} must be a name (a string), got {value!r} ({type(value).__name__}).")
    why = None
    if len(value) > NAME_MAX:
        why = f"it has {len(value)} characters, more than {NAME_MAX}"
    elif not EXPERIMENT_NAME.fullmatch(value):
        bad = next((c for c in value if not (c.isascii() and (c.isalnum() or c in "_.+-"))), None)
        why = "it is empty" if not value else f"it contains {bad!r}" if bad else f"it starts with {value[0]!r}"
    elif value.split(".")[0].lower() in RESERVED or ".." in value or value.endswith(RESERVED_SUFFIXES):
        why = "a file system or this tool reserves it"
    if why:
        raise ConfigError(f"{what}={value!r} becomes a file or folder name and {why}: use letters, digits and "
                          f"_ . + - (starting with a letter or digit, at most {NAME_MAX} characters), not a "
                          "reserved name (con, nul, com1, ...) nor one ending in .parquet, .corrupt, .lock or .tmp.")
    return value


ALGO_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
HYDRA_SPECIAL = ("_global_", "_self_", "_here_", "_group_", "_name_")


def check_algo_key(key: str) -> None:
    """A key under ``algos`` names the algorithm and its seed stream, and becomes part of
    file names: letters, digits, _ and -, starting with a letter; none that Hydra treats
    specially (``_global_``, ``_self_``, ...)."""
    if not isinstance(key, str) or not ALGO_KEY.match(key) or len(key) > NAME_MAX or \
            any(w in key for w in HYDRA_SPECIAL):
        raise ConfigError(f"{key!r} cannot name an algorithm under algos: use letters, digits, _ and -, starting "
                          f"with a letter, at most {NAME_MAX} characters (and not _global_, _self_, _here_, which "
                          "Hydra treats specially).")


def check_label(what: str, value) -> None:
    """A display label: at most NAME_MAX characters of text without control characters."""
    if value is None:
        return
    if not isinstance(value, str) or len(value) > NAME_MAX or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ConfigError(f"{what}={value!r}: a label is text of at most {NAME_MAX} characters without control "
                          "characters (newlines, tabs), or null for the automatic label.")
