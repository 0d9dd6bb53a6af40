"""Every shell command and Python snippet of the README, the usage guide and the examples'
docstrings runs, as a reader would run it, from a folder of the reader's own (for the README, whose tour runs
in a clone, a folder with the clone's ``examples/``): one folder per page, the page's
commands in their order (``plots`` after the runs it draws).

The runs are shrunk by documented overrides only, appended to the command as written:
``T`` or ``horizon_scale`` (see :func:`tiny`), ``trials=2`` (for
``trials=auto``: ``auto.first=2 auto.step=2 auto.max_trials=4``) and, where instances are
drawn, ``instances=2``. What is not run is :data:`NOT_RUN`, each with its reason; those
commands are still checked by ``tests/test_quoted_commands.py`` (``make -n``, a dry
composition)."""

from __future__ import annotations

import ast
import shlex
import subprocess
import sys

import pytest
from conftest import ROOT
from test_quoted_commands import blocks

TINY_T = 4000
PAGES = {"README.md": ROOT / "README.md", "usage.md": ROOT / "docs" / "usage.md"}
NOT_RUN = {  # command -> why this test does not run it (test_quoted_commands checks each with make -n)
    "make figures": "the release itself (about 50 minutes); CI's clean clone runs the suite, a release its own job",
    "make figures SCALE=quick": "every experiment at a tenth (about 10 minutes); the release's quick form",
    "make test": "this test suite itself",
    "make bench": "the benchmarks (minutes of timing on a quiet machine)",
    "make plots": "the plot stage over results/ (tests/test_figures.py runs it on small tables)",
    "make docs": "renders docs/ from results/ (tests/test_docs.py checks the rendering)",
    "python scripts/compare_results.py before/outputs/quick after/outputs/quick":
        "compares two quick releases, one per clone; tests/test_compare_results.py runs it on small folders",
}


def page_commands(text: str) -> list[str]:
    out = []
    for block in blocks(text, "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words:
                out.append(shlex.join(words))
    return out


def docstring_commands() -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "bandits" / "examples").glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        for line in doc.replace("\\\n", " ").splitlines():
            if line.strip().startswith(("python run.py ", "drift-bandits ")):
                out.append((path.name, shlex.join(shlex.split(line.strip()))))
    return out


def tiny(args: list[str]) -> list[str]:
    """The overrides that shrink a run command. Horizons up to :data:`TINY_T` stay as written
    (a command's other settings may depend on them: ``env.change_points=[1000]`` at T = 2000); a
    command that sets larger ones gets ``horizon_scale`` down to TINY_T, and an experiment's own
    horizons (spanning up to three decades) become ``T=[300,600]``. Two trials (two looks of two
    for trials=auto), two instances where they are drawn."""
    from bandits.experiments.cli import algo_list
    from bandits.experiments.compose.composition import jobs
    from bandits.experiments.compose.registry import compose
    from bandits.experiments.setup.setups import scenario_configs

    if "dry_run=true" in args:
        return []
    Ts, instances = [], False
    for job in jobs(algo_list(args)):
        for one in scenario_configs(compose(job)):
            T = one.get("T")
            Ts += list(T) if not isinstance(T, int) else [T]
            instances = instances or one.get("instances") is not None
    horizons = []
    if max(Ts) > TINY_T:
        given = any(a.startswith("T=") for a in args)
        horizons = [f"horizon_scale={TINY_T / max(Ts):.6g}"] if given else ["T=[300,600]" if len(set(Ts)) > 1
                                                                              else "T=300"]
    trials = ["auto.first=2", "auto.step=2", "auto.max_trials=4"] if "trials=auto" in args else ["trials=2"]
    return [*horizons, *trials, *(["instances=2"] if instances else [])]


def run_command(command: str, folder) -> subprocess.CompletedProcess:
    words = shlex.split(command)
    if words[:2] == ["python", "run.py"]:
        args = words[2:]
    elif words[0] == "drift-bandits":
        args = words[1:]
    else:
        pytest.fail(f"this test does not know how to run: {command}")
    from bandits.experiments.cli import SUBCOMMANDS

    extra = [] if args and args[0] in SUBCOMMANDS else tiny(args)
    return subprocess.run([sys.executable, str(ROOT / "run.py"), *args, *extra], cwd=folder, capture_output=True,
                          text=True, timeout=900)


def run_in_order(commands: list[str], folder) -> list[str]:
    failed = []
    for command in commands:
        if command in NOT_RUN:
            continue
        done = run_command(command, folder)
        if done.returncode != 0:
            failed.append(f"{command}\n  exit {done.returncode}: {(done.stderr or done.stdout).strip()[-600:]}")
    return failed


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_command_of_the_page_runs(page, tmp_path):
    commands = page_commands(PAGES[page].read_text())
    assert commands
    if page == "README.md":  # the README's tour runs in a clone, whose examples/ it reads
        (tmp_path / "examples").symlink_to(ROOT / "examples")
    setup = [c for c in commands if c.startswith(("pip ", "python -m pip", "git ", "cd "))]
    failed = run_in_order([c for c in commands if c not in setup], tmp_path)
    assert not failed, "documented commands that fail:\n" + "\n".join(failed)


def test_every_command_of_the_examples_docstrings_runs(tmp_path):
    commands = [command for _, command in docstring_commands()]
    assert commands
    failed = run_in_order(commands, tmp_path)
    assert not failed, "documented commands that fail:\n" + "\n".join(failed)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_python_snippet_of_the_page_runs(page, tmp_path, monkeypatch):
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # what a snippet may read; what it writes stays here
    monkeypatch.chdir(tmp_path)
    for i, code in enumerate(blocks(PAGES[page].read_text(), "python")):
        exec(compile(code, f"{page} snippet {i + 1}", "exec"), {})


def test_what_is_not_run_is_quoted_and_says_why():
    quoted = {c for page in PAGES.values() for c in page_commands(page.read_text())}
    assert set(NOT_RUN) <= quoted, f"NOT_RUN lists commands no page quotes: {sorted(set(NOT_RUN) - quoted)}"
