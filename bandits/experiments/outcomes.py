"""How a command ends: its exit code (one convention for the whole command line,
:data:`EXIT_CODES`) and, for a failure, the one paragraph that says what went wrong (with the
traceback only on ``debug=true``). Below the command line and every stage it runs, so that the
stages and the command line share one place for both."""

from __future__ import annotations

import sys

from bandits.errors import ConfigError, ReportedError, UserCodeError, last_line

OK, INTERNAL, BAD_INPUT, MISSING_CELLS, INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CODES = {
    OK: "done (or nothing to do, or `dry_run=true`)",
    INTERNAL: "internal error: a bug of drift-bandits, or a results folder that cannot be written while running "
              "(the cells stored before it are kept); for `drift-bandits check`: a check failed",
    BAD_INPUT: "bad input, found before any work: a config value or key (Hydra's own composition errors "
               "included), a data file, a wrong algorithm/environment pair, a size that does not fit in memory, "
               "the results folder; or your own policy or environment raising an exception",
    MISSING_CELLS: "`drift-bandits collect` (`python -m experiments.collect`): cells of the declared sweep are still "
                   "missing",
    INTERRUPTED: "interrupted (Ctrl-C): the cells written so far are kept (each batch of cells is written when it "
                 "ends; a batch is about `parallel.batch_s` seconds of work), and the same command computes the rest",
}


def report(exc: BaseException, debug: bool) -> int:
    """Print one paragraph for ``exc`` (and its traceback with debug=true); its exit code."""
    if debug:
        import traceback
        traceback.print_exception(exc, file=sys.stderr)
        if getattr(exc, "detail", ""):
            print(exc.detail, file=sys.stderr)
    if isinstance(exc, UserCodeError):
        hint = "" if debug else " Rerun with debug=true for the full traceback."
        print(f"error: {str(exc).rstrip('.')}.{hint}", file=sys.stderr)
        return BAD_INPUT
    if isinstance(exc, ConfigError):
        print(f"error: {exc}", file=sys.stderr)
        return BAD_INPUT
    if isinstance(exc, ReportedError):
        print(f"internal error: {str(exc).rstrip('.')}. This is a bug of drift-bandits; rerun with debug=true for "
              "the traceback and report it.", file=sys.stderr)
        return INTERNAL
    if isinstance(exc, OSError):
        print(f"error: {last_line(exc)} ({getattr(exc, 'filename', None) or 'results folder'}). The cells stored "
              "before this error are kept (none, if nothing could be written); fix the folder or free space, then "
              "run the same command again: it computes only the cells that are missing.", file=sys.stderr)
        return INTERNAL
    print(f"internal error: {last_line(exc)}. This is a bug of drift-bandits; rerun with debug=true for the "
          "traceback and report it.", file=sys.stderr)
    return INTERNAL


def wants_debug(argv) -> bool:
    return any(a.lstrip("+") in ("debug=true", "debug=True") for a in argv)
