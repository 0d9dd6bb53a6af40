"""The package's structure, read from its sources: no process-wide mutable state in the runner
(bandits/experiments/: no module-level container changed after import, no ``global``), and no
circle in the imports of bandits/ (a module never depends on itself through others)."""

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "bandits"
RUNNER = PACKAGE / "experiments"
MUTATORS = {"append", "add", "update", "clear", "pop", "extend", "insert", "remove", "setdefault", "discard",
            "popitem", "appendleft", "extendleft", "popleft", "sort", "reverse"}
CONTAINERS = {"dict", "list", "set", "deque", "Counter", "defaultdict", "OrderedDict"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def containers(tree: ast.Module) -> set:
    """The names a module binds at its top level to a mutable container (a literal, a
    comprehension or a call of a container type)."""
    out = set()
    for node in tree.body:
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        mutable = isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)) or (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in CONTAINERS)
        if mutable:
            out |= {t.id for t in targets if isinstance(t, ast.Name)}
    return out


def mutated(tree: ast.Module, names: set, modules: dict) -> list:
    """Where ``names`` (this module's containers) or ``module.NAME`` of another runner module's
    containers are changed: item assignment or deletion, or a mutating method."""
    def target(node):
        if isinstance(node, ast.Name) and node.id in names:
            return node.id
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.attr in modules.get(node.value.id, set()):
            return f"{node.value.id}.{node.attr}"
        return None

    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            for t in (node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]):
                if isinstance(t, ast.Subscript) and target(t.value):
                    found.append(f"{target(t.value)}[...] at line {node.lineno}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS \
                and target(node.func.value):
            found.append(f"{target(node.func.value)}.{node.func.attr}() at line {node.lineno}")
    return found


def test_the_runner_keeps_no_process_wide_mutable_state():
    """What a run needs is passed down (a sweep, a plot stage's drawing); constants may stay."""
    trees = {p: ast.parse(p.read_text()) for p in sorted(RUNNER.rglob("*.py"))}
    owned = {p.stem: containers(t) for p, t in trees.items()}
    problems = []
    for path, tree in trees.items():
        where = path.relative_to(ROOT)
        problems += [f"{where}: global {', '.join(n.names)} at line {n.lineno}"
                     for n in ast.walk(tree) if isinstance(n, ast.Global)]
        problems += [f"{where}: {m}" for m in mutated(tree, owned[path.stem], owned)]
    assert not problems, "module-level state changed after import:\n" + "\n".join(problems)


def test_the_scan_finds_what_it_looks_for():
    """The scan above is not blind: it finds each way of changing a module-level container."""
    source = "A = {}\nB: list = []\nC = set()\n" \
             "def f():\n    A['x'] = 1\n    B.append(2)\n    C.add(3)\n    global D\n"
    tree = ast.parse(source)
    assert containers(tree) == {"A", "B", "C"}
    assert len(mutated(tree, containers(tree), {})) == 3
    assert mutated(ast.parse("import m\ndef f():\n    m.X.update({})\n"), set(), {"m": {"X"}})


def import_graph() -> dict:
    """Module -> the modules of bandits/ it imports (at its top or inside a function)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                wanted = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, *([node.module] if node.module else [])])
                wanted = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            graph[name] |= {w for w in wanted if w in modules and w != name}
    return graph


def cycles(graph: dict) -> list:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_among_the_packages_modules():
    found = cycles(import_graph())
    assert not found, "modules that import each other (directly or through others): " + "; ".join(
        " <-> ".join(group) for group in found)


def test_the_circle_finder_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


# The runner's stages in the order the data flows (docs/architecture.md): a stage imports only
# the stages before it. The store stands before the run, which reads it (the cells done) and
# writes it (the cells new); the report (means, intervals, the printed summary) before the run,
# whose adaptive trials read intervals; the drawing library before the studies, so it imports
# none. The modules at the top (the commands: cli, api, check_command, collect, outcomes) may
# import any stage; no stage imports them. A package's __main__ is an entry point, like them.
STAGES = ("compose", "setup", "store", "report", "run", "figures", "studies", "plots", "docs")
TOP = "top"


def stage_of(module: str) -> str | None:
    """The stage of a module of the runner, TOP for its top-level modules, None outside it."""
    parts = module.split(".")
    if parts[:2] != ["bandits", "experiments"]:
        return None
    return parts[2] if len(parts) > 2 and parts[2] in STAGES else TOP


def backward_imports(graph: dict) -> list:
    """The imports that run against the stages' order: "a (stage) imports b (stage)"."""
    found = []
    for module, imported in sorted(graph.items()):
        mine = stage_of(module)
        if mine in (None, TOP) or module.endswith(".__main__"):
            continue
        for other in sorted(imported):
            theirs = stage_of(other)
            if theirs is None or theirs == mine:
                continue
            if theirs == TOP or STAGES.index(theirs) > STAGES.index(mine):
                found.append(f"{module} ({mine}) imports {other} ({theirs})")
    return found


def test_each_stage_imports_only_the_stages_before_it():
    found = backward_imports(import_graph())
    assert not found, "imports against the order of the stages " + " < ".join(STAGES) + ":\n" + "\n".join(found)


def test_the_stage_check_finds_an_import_against_the_order():
    graph = {"bandits.experiments.figures.charts": {"bandits.experiments.studies.hedging_fig2"},
             "bandits.experiments.setup.checks": {"bandits.experiments.compose.registry",
                                                  "bandits.experiments.cli"},
             "bandits.experiments.plots.__main__": {"bandits.experiments.cli"},
             "bandits.experiments.cli": {"bandits.experiments.docs.render"}}
    assert backward_imports(graph) == [
        "bandits.experiments.figures.charts (figures) imports bandits.experiments.studies.hedging_fig2 (studies)",
        "bandits.experiments.setup.checks (setup) imports bandits.experiments.cli (top)"]


def test_the_runner_is_its_stages_and_a_few_commands():
    """bandits/experiments/ holds its stages (each a package, named in docs/architecture.md in
    order) and at most 10 modules of its own."""
    top = sorted(p.name for p in RUNNER.glob("*.py"))
    assert len(top) <= 10, top
    packages = sorted(p.name for p in RUNNER.iterdir() if (p / "__init__.py").is_file())
    assert packages == sorted(STAGES)
    architecture = (ROOT / "docs" / "templates" / "architecture.md.j2").read_text()
    places = [architecture.index(f"`{stage}/`") for stage in STAGES]
    assert places == sorted(places), "docs/architecture.md names the stages out of order"
    for stage in STAGES:
        doc = ast.get_docstring(ast.parse((RUNNER / stage / "__init__.py").read_text()))
        assert doc and doc.splitlines()[0].startswith(f"Stage {STAGES.index(stage) + 1}, {stage}:"), stage
