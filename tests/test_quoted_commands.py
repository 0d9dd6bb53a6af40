"""Every command quoted in the README and the docs is valid: each ``run.py`` /
``drift-bandits`` / ``bandits.experiments.collect`` command is composed by Hydra (a multirun's
sweep expanded into its jobs) and validated as a dry run would (every horizon, every
algorithm/environment pair; no instance is drawn); each ``make`` command is a valid
target (``make -n``); each ``python -m experiments.*`` module answers ``--help``; each
Python example runs."""

import re
import shlex
import subprocess
import sys

import pytest
from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP = ("pip ", "python -m pip", "git ", "cd ", "umask ", "time ")  # setup steps, not the tool's commands


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def quoted_commands() -> list[tuple[str, str]]:
    out = []
    for page in PAGES:
        for block in blocks(page.read_text(), "bash"):
            for line in block.replace("\\\n", " ").splitlines():
                words = shlex.split(line, comments=True)
                if words and not " ".join(words).startswith(SKIP):
                    out.append((page.name, shlex.join(words)))
    return out


def docstring_commands() -> list[tuple[str, str]]:
    """The commands the examples' docstrings quote (``python run.py ...`` or ``drift-bandits
    ...``, a trailing backslash continuing the line)."""
    import ast

    out = []
    for path in sorted((ROOT / "bandits" / "examples").glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        for line in doc.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line.startswith(("python run.py ", "drift-bandits ")):
                out.append((f"examples/{path.name}", shlex.join(shlex.split(line))))
    return out


COMMANDS = quoted_commands() + docstring_commands()


def check_runner_command(args: list[str]) -> None:
    """The command line's own pre-flight, but for the results folder (a quoted folder such
    as /shared/results is the reader's, not this machine's)."""
    from bandits.experiments.cli import SUBCOMMANDS, algo_list
    from bandits.experiments.compose.composition import jobs
    from bandits.experiments.compose.registry import compose
    from bandits.experiments.setup.checks import check_setup
    from bandits.experiments.setup.setups import scenario_configs, setup_from_config

    if args and args[0] in SUBCOMMANDS:
        proc = subprocess.run([sys.executable, "run.py", args[0], "--help"], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return
    for job in jobs(algo_list(args)):
        for one in scenario_configs(compose(job)):
            check_setup(setup_from_config(one), folder=False)


def test_the_pages_quote_commands():
    assert len(COMMANDS) >= 10 and {page for page, _ in COMMANDS} >= {"README.md", "examples/batched_policies.py"}


@pytest.mark.parametrize("page,command", COMMANDS, ids=[f"{p}: {c[:60]}" for p, c in COMMANDS])
def test_quoted_command_is_valid(page, command):
    words = shlex.split(command)
    if words[:2] == ["python", "run.py"] or words[0] == "drift-bandits":
        check_runner_command(words[2:] if words[0] == "python" else words[1:])
    elif words[:2] == ["python", "-m"] and words[2] in ("experiments.collect", "bandits.experiments.collect"):
        check_runner_command(words[3:])
    elif words[:2] == ["python", "-m"] and words[2].startswith(("experiments.", "bandits.experiments.")):
        proc = subprocess.run([sys.executable, "-m", words[2], "--help"], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stderr
    elif words[0] == "make":
        proc = subprocess.run(["make", "-n", "PYTHON=python", *words[1:]], cwd=ROOT, capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 0, proc.stderr
    elif words[:2] in (["python", "examples/make_problem.py"], ["python", "scripts/bench.py"],
                       ["python", "scripts/compare_results.py"]):
        assert (ROOT / words[1]).is_file()
    elif words[:3] == ["python", "-m", "pytest"]:
        assert all((ROOT / w.split("::")[0]).exists() for w in words[3:] if w.startswith("tests/"))
    else:
        pytest.fail(f"{page} quotes a command this test does not know how to check: {command}")


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p.read_text(), "python")], ids=lambda p: p.name)
def test_python_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    for code in blocks(page.read_text(), "python"):
        if "simulate(" in code:
            exec(compile(code, f"{page.name} example", "exec"), {})


def test_the_layout_section_lists_the_real_tree():
    readme = (ROOT / "README.md").read_text()
    layout = blocks(readme.split("## Layout", 1)[1], "text")[0]
    listed, parents = set(), {0: ROOT}  # indent (two spaces a level) -> the folder it lists into
    for line in layout.splitlines():
        name = line.split()[0]
        level = (len(line) - len(line.lstrip(" "))) // 2
        path = parents[level] / name
        parents[level + 1] = path
        assert path.exists(), f"the README's layout lists {path.relative_to(ROOT)}, which does not exist"
        listed.add(path.relative_to(ROOT).parts[0].rstrip("/"))
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    top_dirs = {f.split("/")[0] for f in tracked if "/" in f and not f.startswith(".")}
    assert top_dirs <= listed, f"the layout omits {sorted(top_dirs - listed)}"
