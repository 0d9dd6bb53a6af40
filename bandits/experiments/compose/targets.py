"""Why a ``_target_`` (``algo._target_=mypol.ShiftTestUBC``) cannot be imported, as one
paragraph: the module that was found (its file) and the class it lacks, with a "did you mean"
among its classes; a module that no folder of the import path holds; or a module that was found
but raised while importing. Asked only after the import failed, so a working ``_target_`` costs
nothing here."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import sys

from bandits.errors import ConfigError, last_line
from bandits.experiments.compose.messages import did_you_mean

LISTED = 12  # classes named in a message at most (a large module would fill the screen)


def import_problem(kind: str, target: str, exc: BaseException, head: str | None = None) -> ConfigError:
    """The error for ``<kind>._target_=<target>`` (or what ``head`` names), which Hydra's
    ``get_class`` could not load (``exc``: its exception)."""
    head = head or f"{kind}._target_={target}"
    parts = str(target).split(".")
    if len(parts) < 2 or not all(parts):
        return ConfigError(f"{head} cannot be imported: give module.Class (a module in the current folder works, "
                           "as python -m would allow), or package.module.Class.")
    try:
        obj = importlib.import_module(parts[0])
    except ModuleNotFoundError as error:
        if error.name == parts[0]:
            return ConfigError(f"{head}: no module named {parts[0]!r} is importable from {_searched()}"
                               f"{did_you_mean(parts[0], _local_modules())}; put {parts[0]}.py in the current "
                               "folder, or give package.module.Class of an installed package.")
        return _raised(head, parts[0], error)
    except Exception as error:  # noqa: BLE001 -- whatever the user's module raises on import is reported
        return _raised(head, parts[0], error)
    for i, part in enumerate(parts[1:], start=1):
        where = ".".join(parts[:i])
        try:
            obj = getattr(obj, part)
            continue
        except AttributeError:
            pass
        except Exception as error:  # noqa: BLE001 -- a lazy export (PEP 562) whose module raised on import
            return _raised(head, where, error)
        if inspect.ismodule(obj) and hasattr(obj, "__path__"):  # a package: maybe a submodule not yet imported
            try:
                obj = importlib.import_module(f"{where}.{part}")
                continue
            except ModuleNotFoundError as error:
                if error.name != f"{where}.{part}":
                    return _raised(head, f"{where}.{part}", error)
            except Exception as error:  # noqa: BLE001
                return _raised(head, f"{where}.{part}", error)
        return _missing(head, obj, where, part, last=i == len(parts) - 1)
    if not inspect.isclass(obj):
        return ConfigError(f"{head} is a {type(obj).__name__}, not a class: _target_ names a class.")
    return ConfigError(f"{head} cannot be imported ({last_line(exc.__cause__ or exc)}).")


def _missing(head: str, owner, where: str, part: str, last: bool) -> ConfigError:
    """``owner`` (the module or class ``where``) has no attribute ``part``."""
    if inspect.ismodule(owner):
        found = f"the module {where} was found ({_file(owner)})"
        loaded = vars(owner)  # a lazy package (PEP 562) lists in dir() the names it has not imported yet
        classes = sorted({n for n in dir(owner) if not n.startswith("_") and (
            inspect.isclass(loaded[n]) if n in loaded else n[:1].isupper())})
        home = owner.__name__  # its own classes (or its subpackages'), not those it imported
        own = [n for n in classes if (getattr(loaded.get(n), "__module__", home) + ".").startswith(home + ".")]
        own = own or classes
        subs = sorted(m.name for m in pkgutil.iter_modules(getattr(owner, "__path__", None) or []))
        what = "class" if last else "class or submodule"
        shown = ", ".join(own[:LISTED]) + (f" and {len(own) - LISTED} more" if len(own) > LISTED else "")
        listing = f"; its classes: {shown}" if own else "; it defines no class"
        if subs and not last:
            listing += f"; its submodules: {', '.join(subs[:LISTED])}"
        return ConfigError(f"{head}: {found}, but it has no {what} {part!r}"
                           f"{did_you_mean(part, classes if last else classes + subs)}{listing}.")
    names = sorted(n for n in vars(owner) if not n.startswith("_")) if hasattr(owner, "__dict__") else []
    return ConfigError(f"{head}: {where} was found, but it has no attribute {part!r}{did_you_mean(part, names)}.")


def _raised(head: str, module: str, error: BaseException) -> ConfigError:
    """The module was found, but importing it raised ``error``."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    origin = f" ({spec.origin})" if spec is not None and spec.origin else ""
    return ConfigError(f"{head}: the module {module} was found{origin}, but importing it raised "
                       f"{last_line(error)}; fix the module and run the command again.")


def _file(module) -> str:
    path = getattr(module, "__file__", None)
    return str(path) if path else ", ".join(getattr(module, "__path__", [])) or "a built-in module"


def _searched() -> str:
    """Where imports were looked for: the current folder (when it is on the import path, as on
    the command line) and the installed packages."""
    cwd = os.getcwd()
    here = any(os.path.abspath(p or os.curdir) == cwd for p in sys.path)
    return f"the current folder ({cwd}) or the installed packages" if here else \
        f"the installed packages (sys.path; the current folder {cwd} is not on it)"


def _local_modules() -> list:
    """The modules of the current folder (for a "did you mean")."""
    return sorted(m.name for m in pkgutil.iter_modules([os.getcwd()]))
