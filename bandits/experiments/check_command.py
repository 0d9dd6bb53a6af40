"""``drift-bandits check MODULE.CLASS [NAME=VALUE ...]``: the conformance suite
(:mod:`bandits.conformance`) on a policy of your own, built with the parameters given. One line
per check and a verdict; exit 0 when every check passes, 1 when one fails, 2 (one paragraph, no
traceback) for a class that cannot be imported or built, or that is no policy."""

from __future__ import annotations

import argparse
import sys
import traceback

from bandits.errors import ConfigError, UserCodeError, last_line
from bandits.experiments.outcomes import BAD_INPUT, OK, report, wants_debug

CHECK_FAILED = 1  # the exit code when a check fails (or could not run)

ABOUT = """\
Run the conformance suite that every built-in algorithm passes on your policy, on a small
problem (T = 600) of each kind it declares (problem_kinds), and print one line per check
(PASS, FAIL with what failed, SKIP when it could not run, n/a) and a verdict. The three routes
are checked alike: a per-trial policy (reset/select/update), a batched one (batched = True) and
a compiled one (play(rewards, info, rng, features=None), as the built-ins).

  protocol      the methods of its route, callable as the runner calls them; problem_kinds
                and needs() name known kinds and learner keys
  parameters    the constructor only stores its arguments, each under its own name (so the
                results record them all)
  runs          one valid action a round on every kind, the rewards left as they were
  determinism   the same seed gives the same trajectory
  feedback      the same trajectory when every unchosen reward is replaced
  needs         the same trajectory when info holds only its kind's structure and needs()
  independence  batched policies: each trial alone and inside a batch choose alike

MODULE.CLASS is imported as algo._target_ is (a module in the current folder works). The
parameters are the constructor's, written as on the command line of a run (NAME=VALUE,
--param NAME=VALUE or algo.NAME=VALUE; values as Hydra reads them: 0.9, 1e-3, null, [0,1]).
From Python: bandits.check(policy). Exit codes: 0 every check passed, 1 a check failed, 2 bad
input (the class cannot be imported or built, is no policy, or its check_params() refuses the
parameters).

examples:
  drift-bandits check examples.my_policies.DiscountedMeans gamma=0.95
  drift-bandits check examples.batched_policies.BatchedDiscountedUCB gamma=0.99 --kind karmed
"""


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(prog="drift-bandits check", description=ABOUT,
                                  formatter_class=argparse.RawDescriptionHelpFormatter,
                                  usage="drift-bandits check MODULE.CLASS [NAME=VALUE ...] [--param NAME=VALUE] "
                                        "[--kind KIND] [--debug]")
    out.add_argument("target", metavar="MODULE.CLASS", help="your policy's class, e.g. my_policies.MyPolicy")
    out.add_argument("params", nargs="*", metavar="NAME=VALUE", help="a constructor argument")
    out.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                     help="a constructor argument (the same as NAME=VALUE)")
    out.add_argument("--kind", action="append", default=None, metavar="KIND",
                     help="check on this kind of problem only (repeatable; default: every kind it declares)")
    out.add_argument("--debug", action="store_true",
                     help="print the tracebacks of what your policy raised (debug=true works too)")
    return out


def parameters(texts: list[str]) -> dict:
    """``NAME=VALUE`` items as constructor arguments (``algo.`` and a leading ``+`` allowed),
    values as Hydra reads an override's."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    reader, out = OverridesParser.create(), {}
    for text in texts:
        if "=" not in text:
            raise ConfigError(f"cannot read the parameter {text!r}: give NAME=VALUE, e.g. gamma=0.9.")
        try:
            override = reader.parse_override(text.lstrip("+"))
        except HydraException as exc:
            raise ConfigError(f"cannot read the parameter {text!r} ({str(exc).strip()}): give NAME=VALUE with a "
                              "value as on a run's command line, e.g. gamma=0.9, window=null or "
                              "reward_range=[0,1].") from None
        name = override.key_or_group.removeprefix("algo.")
        if override.is_sweep_override() or "." in name:
            raise ConfigError(f"cannot read the parameter {text!r}: give one value for one constructor argument "
                              "(NAME=VALUE; a sweep is for runs).")
        if name in out:
            raise ConfigError(f"the parameter {name} is given twice; give it once.")
        out[name] = override.value()
    return out


def build(target: str, params: dict):
    """The policy: ``target`` imported (a missing module or class named) and built with
    ``params`` (a misspelt one gets a "did you mean")."""
    from hydra.utils import get_class

    from bandits.experiments.compose.building import check_parameters

    check_parameters("policy", target, list(params), head=f"drift-bandits check {target}")
    cls = get_class(target)
    try:
        return cls(**params)
    except Exception as exc:  # noqa: BLE001 -- the user's constructor
        raise UserCodeError(f"{target}({', '.join(f'{k}={v!r}' for k, v in params.items())}) raised "
                            f"{last_line(exc)}", traceback.format_exc()) from None


def main(argv: list[str]) -> int:
    """The ``check`` subcommand (a module of the current folder importable); its exit code."""
    from bandits.conformance import check

    reader = parser()
    try:
        if not argv:
            reader.error("give your policy's class, MODULE.CLASS (e.g. my_policies.MyPolicy)")
        args = reader.parse_intermixed_args(argv)  # NAME=VALUE before or after the options
    except SystemExit as exc:  # --help (0), or arguments argparse cannot read (2, its message printed)
        return OK if exc.code in (0, None) else BAD_INPUT
    given = [*args.params, *args.param]
    debug = args.debug or wants_debug(given)  # debug=true, as for a run, works too
    try:
        params = parameters([p for p in given if not wants_debug([p])])
        result = check(build(args.target, params), kinds=args.kind)
    except ConfigError as exc:
        return report(exc, debug)
    except Exception as exc:  # noqa: BLE001 -- reported as one paragraph (a bug of drift-bandits: exit 1)
        return report(exc, debug)
    result.policy = f"{args.target}({', '.join(f'{k}={v!r}' for k, v in params.items())})"
    print(result, flush=True)
    if debug and result.tracebacks():
        print(result.tracebacks(), file=sys.stderr)
    return OK if result.passed else CHECK_FAILED
