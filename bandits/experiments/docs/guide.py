"""``drift-bandits docs [TOPIC]``: the guides that ship with the package, for an installed
user who has no checkout (the usage guide, the error page, the page on adding an algorithm,
the cluster page).

They are the generated pages of ``docs/`` themselves: ``bandits/guide/<topic>.md`` link to
``docs/<topic>.md``, and a wheel holds the text of the link's target (package data in
pyproject.toml), so there is one copy of each page, rendered by ``make docs``.

    drift-bandits docs                    the topics
    drift-bandits docs usage              print one (through a pager on a terminal)
    drift-bandits docs --out DIR [TOPIC]  write them (or one) into DIR as Markdown files
    drift-bandits docs --render [...]     render a checkout's docs/ from its results/ (make docs:
                                          python -m bandits.experiments.docs)
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

from bandits.errors import ConfigError
from bandits.experiments.compose.messages import did_you_mean

FOLDER = "guide"  # in the package: bandits/guide/<topic>.md
ALIASES = {"adding-an-algorithm": "architecture"}  # another name a reader may look for
RENDER_ONLY = ("--results", "--templates", "--timed")  # options of the rendering (bandits.experiments.docs.render)


def pages() -> dict:
    """topic -> the packaged page (a Traversable), by name."""
    folder = resources.files("bandits").joinpath(FOLDER)
    return {p.name[: -len(".md")]: p for p in sorted(folder.iterdir(), key=lambda p: p.name) if p.name.endswith(".md")}


def text(page) -> str:
    """A page without its first line when that is the comment saying which template made it
    (addressed to whoever edits the checkout, not to a reader)."""
    body = page.read_text(encoding="utf-8")
    first, _, rest = body.partition("\n")
    return rest.lstrip("\n") if first.startswith("<!--") else body


def title(page) -> str:
    """The page's first heading."""
    return next((line.lstrip("# ").strip() for line in text(page).splitlines() if line.startswith("# ")), "")


def topic(name: str, known: dict) -> str:
    """The topic ``name`` (or its alias) names; ConfigError with a "did you mean" otherwise."""
    name = ALIASES.get(name, name)
    if name in known:
        return name
    valid = [*known, *also(known).values()]
    raise ConfigError(f"no docs topic named {name!r}{did_you_mean(name, valid)}; the topics: {listing(known)}. "
                      "`drift-bandits docs` lists them.")


def also(known: dict) -> dict:
    """topic -> its alias, for the topics that have one."""
    return {t: a for a, t in ALIASES.items() if t in known}


def listing(known: dict) -> str:
    return ", ".join(f"{t} (or {also(known)[t]})" if t in also(known) else t for t in known)


def topics_text(known: dict) -> str:
    width = max(len(t) for t in known) + 2
    rows = "\n".join(f"  {t:<{width}}{title(p)}" + (f" (also: {also(known)[t]})" if t in also(known) else "")
                     for t, p in known.items())
    return (f"The guides that ship with drift-bandits:\n\n{rows}\n\n"
            "drift-bandits docs TOPIC prints one; drift-bandits docs --out DIR [TOPIC] writes them (or one) into DIR "
            "as Markdown files.\nIn a checkout, drift-bandits docs --render [--results results --out docs] renders "
            "docs/ from the results (what make docs does).")


def write(folder: Path, chosen: list, known: dict, force: bool) -> int:
    targets = [folder / f"{t}.md" for t in chosen]
    clash = [str(p) for p in targets if p.exists() and not force]
    if clash:
        print(f"error: {', '.join(clash)} exist{'s' if len(clash) == 1 else ''} already; --force overwrites "
              f"{'it' if len(clash) == 1 else 'them'}.", file=sys.stderr)
        return 2
    from bandits.experiments.setup.checks import check_output_folder

    try:
        check_output_folder(folder, f"docs --out {str(folder)!r}", "--out folder", [p.name for p in targets])
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for t, path in zip(chosen, targets, strict=True):
        path.write_text(text(known[t]), encoding="utf-8")
    print(f"{len(targets)} page{'s' if len(targets) > 1 else ''} written to {folder}: "
          f"{', '.join(p.name for p in targets)}")
    return 0


def main(argv=None) -> int:
    """The ``docs`` subcommand; its exit code (2 for an unknown topic or a clash)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--render" in argv:
        from bandits.experiments.docs.render import main as render

        return render([a for a in argv if a != "--render"])
    given = [a for a in argv if a.split("=")[0] in RENDER_ONLY]
    if given:
        print(f"error: {given[0].split('=')[0]} is an option of rendering a checkout's docs from its results: "
              "drift-bandits docs --render --results results --out docs (make docs runs it); drift-bandits docs "
              "alone prints the guides that ship with the package.", file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(prog="drift-bandits docs", description=__doc__.split("\n\n")[0].replace(
        "``", ""))
    parser.add_argument("topic", nargs="?", help="the guide to print (without it: the list of topics)")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="write the guides (or the one TOPIC) into this folder instead")
    parser.add_argument("--force", action="store_true", help="with --out: overwrite files that exist")
    parser.add_argument("--render", action="store_true",
                        help="in a checkout: render docs/ from results/ (python -m bandits.experiments.docs --help)")
    args = parser.parse_args(argv)
    known = pages()
    try:
        chosen = [topic(args.topic, known)] if args.topic else list(known)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out is not None:
        return write(args.out, chosen, known, args.force)
    if not args.topic:
        print(topics_text(known))
        return 0
    page = text(known[chosen[0]])
    if sys.stdout.isatty():  # a long page: through $PAGER (less), as pydoc shows a docstring
        import pydoc

        pydoc.pager(page)
    else:
        sys.stdout.write(page)
    return 0
