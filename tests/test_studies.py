"""The studies (bandits/experiments/studies/): each shipped experiment is declared by one study,
which also draws its tables; the release (what `make figures` and `make ctx-long` run) is read
from them and runs what the Makefile ran when it listed the experiments itself; the Makefile
names no experiment; and a new study needs its YAML, its module, its docs section and its test,
nothing else."""

import re
import shlex

import pandas as pd
import pytest
from conftest import ROOT

from bandits.experiments import cli, studies
from bandits.experiments.compose.registry import names
from bandits.experiments.plots import stage as plots
from bandits.experiments.studies import CTX_LONG, FIGURES

# The Makefile's lists before the studies declared them (commit 5bc4d0a): the release must run
# exactly these experiments with exactly these settings.
MAIN = ("fig2a fig2b fig2b_sensitivity fig3 fig4 fig5 ext_glb ext_semibandit lower_bound ns_benchmark ns_sensitivity "
        "fig2_modern modern_sensitivity glr_thesis glr_thesis_pb4_10k glr_thesis_pb3 glr_thesis_pb5 glr_thesis_ucb "
        "glr_journal glr_journal_k5 dlinucb_abrupt dlinucb_smooth master_geo_unif lbsda_paper lbsda_paper_gaussian "
        "lbsda_paper_gaussian_varying").split()
CTX = ("ctx_switch", "ctx_switch_growing", "ctx_drift")


def former_makefile(scale: str, ctx_scale: str, results: str) -> dict:
    """experiment -> the set of its settings, as the Makefile of 5bc4d0a ran it (and since then)."""
    plain = {f"results_dir={results}", *(("horizon_scale=0.1", "trials=3") if scale == "quick" else ())}
    ctx = {f"results_dir={results}", *(("horizon_scale=0.25", "trials=3") if scale == "quick" else ())}
    seeds, master = (2, 2) if scale == "quick" else (10, 50)
    out = {name: plain for name in MAIN}
    out["ctx_baselines"] = plain | {"env.n_pieces=1,5"}
    for name in CTX:
        out[name] = ctx | ({"T=[10000,17783,31623,56234,100000]"} if ctx_scale == "paper" else set())
    out["ctx_delay"] = ctx | {"env.shift=0.25,0.5,1.0"} | ({"T=100000"} if ctx_scale == "paper" else set())
    out["ctx_data"] = out["ctx_master_sensitivity"] = ctx
    out["fig3_instances"] = out["fig4_instances"] = plain | {f"seed=range({seeds})"}
    out["master_geo"] = plain | {f"seed=range({master})"}
    if scale == "quick":  # issue 46: the benchmark's drawn instances, 3 of its 10 at quick scale
        out["ns_benchmark"] = plain | {"instances=3"}
    return out


def per_experiment(lines: list[str]) -> dict:
    """experiment -> the set of its settings, from release command lines."""
    out = {}
    for line in lines:
        words = shlex.split(line)
        assert words[0] == "-m"
        chosen = [w for w in words if w.startswith("+experiment=")]
        assert len(chosen) == 1, line
        settings = {w for w in words[1:] if not w.startswith("+experiment=")}
        for name in chosen[0].split("=", 1)[1].split(","):
            assert name not in out, f"{name} runs twice"
            out[name] = settings
    return out


RELEASES = [("full", "quick", "results"), ("quick", "quick", "outputs/quick"), ("full", "paper", "results")]


@pytest.mark.parametrize("scale, ctx_scale, results", RELEASES)
def test_the_release_runs_what_the_makefile_ran(scale, ctx_scale, results):
    lines = studies.release_commands(FIGURES, scale, ctx_scale, results)
    assert per_experiment(lines) == former_makefile(scale, ctx_scale, results)


def test_the_long_release_runs_what_make_ctx_long_ran_and_the_runs_with_instances():
    lines = studies.release_commands(CTX_LONG, results="results")
    long = {f"{name}{suffix}": {"results_dir=results"} for suffix in ("", "_instances")
            for name in ("ctx_switch_long", "ctx_switch_growing_long", "ctx_drift_long")}
    assert per_experiment(lines) == {**long, "ctx_delay_long": {"results_dir=results", "env.shift=0.25,0.5,1.0"}}


def test_every_experiment_config_is_shipped_by_exactly_one_study():
    declared = [run.experiment for run in studies.runs()]
    assert len(declared) == len(set(declared)), "an experiment declared twice"
    assert sorted(declared) == sorted(names("experiment"))


def test_each_study_draws_the_tables_of_the_experiments_it_ships():
    """A study's experiments write tables that study owns (the plot stage hands them to it), and
    no table two studies could both claim: ownership does not hang on the order of the studies."""
    every = studies.studies()
    for study in every:
        for run in study.EXPERIMENTS:
            # a table is NAME, NAME.<scenario>, or the config's experiment_name with a swept value
            candidates = [run.experiment, f"{run.experiment}.scenario", f"{run.experiment}_S1",
                          f"{run.experiment}_shift0.25"]
            owners = {studies.owner(c) for c in candidates} - {None}
            assert owners == {study}, (run.experiment, [studies.short_name(m) for m in owners])
            for candidate in candidates:
                claimed = [m for m in every if any(re.fullmatch(_glob(p), candidate) for p in m.TABLES)]
                assert len(claimed) <= 1, (candidate, [studies.short_name(m) for m in claimed])


def _glob(pattern: str) -> str:
    import fnmatch

    return fnmatch.translate(pattern)


def test_the_makefile_names_no_experiment_and_runs_the_release():
    make = (ROOT / "Makefile").read_text()
    recipe_lines = [line for line in make.splitlines() if line.startswith("\t")]
    for name in names("experiment"):
        assert not any(re.search(rf"\b{re.escape(name)}\b", line) for line in recipe_lines), name
        assert not re.search(rf"^[A-Z_]+ [:+?]?= .*\b{re.escape(name)}\b", make, re.M), name
    assert "\t$(RUN) release --scale $(SCALE) --ctx-scale $(CTX_SCALE) --results $(RESULTS)" in make
    assert "scripts/ctx_long.py --results results --release ctx-long" in make
    # make collect's reduced scale is the release's (studies.QUICK)
    quick = re.search(r"^SCALE_ARGS := results_dir=\$\(RESULTS\)\$\(if \$\(filter quick,\$\(SCALE\)\), (.+)\)$", make,
                      re.M).group(1)
    assert quick.split() == [f"{k}={v}" for k, v in studies.QUICK.items()]


def test_the_scale_check_reads_the_full_runs_from_the_studies():
    assert studies.seed_sweeps() == {"fig3_instances": 10, "fig4_instances": 10, "master_geo": 50}
    paper = [10000, 17783, 31623, 56234, 100000]
    assert studies.other_full_horizons() == {**{name: paper for name in CTX}, "ctx_delay": [100000]}


def test_release_lists_its_commands_and_experiments(capsys):
    assert cli.release(["--list", "--scale", "quick", "--results", "out"]) == 0
    assert capsys.readouterr().out.splitlines() == studies.release_commands(FIGURES, "quick", "quick", "out")
    assert cli.release(["ctx-long", "--experiments"]) == 0
    assert capsys.readouterr().out.strip() == ("ctx_switch_long,ctx_switch_growing_long,ctx_drift_long,"
                                               "ctx_switch_long_instances,ctx_switch_growing_long_instances,"
                                               "ctx_drift_long_instances,ctx_delay_long")


TOY_STUDY = '''"""A study of a test: one experiment, one figure, one claim."""

from bandits.experiments.figures.charts import curve_figure
from bandits.experiments.studies import Run

EXPERIMENTS = (Run("toy_study_exp"),)
TABLES = ("toy_study_exp",)


def draw(tables, drawing):
    rows = tables["toy_study_exp"]
    curve_figure(rows, "toy_study_exp", "regret_curve", "dynamic regret", "a toy study", drawing, ["ucb1"])
    regret = float(rows["final_regret"].mean())
    return [{"claim": "the toy's regret is not negative", "figure": "toy_study_exp", "measured": f"{regret:.1f}",
             "expected": ">= 0", "verdict": "agrees" if regret >= 0 else "disagrees", "source": "simulation"}]
'''

TOY_YAML = """# @package _global_
defaults:
  - /algo@algos.ucb1: ucb1
  - override /env: piecewise_bernoulli
  - override /algo: null

experiment_name: toy_study_exp
T: 300
trials: 2
seed: 3
n_jobs: 1
"""


def test_a_new_study_is_its_yaml_and_its_module(tmp_path, monkeypatch):
    """Adding a study: a YAML in a folder of configs and a module in the studies' package; the
    release runs it, the plot stage draws its figure and writes its claim, and nothing else
    (no Makefile, no registration) is edited."""
    package, conf = tmp_path / "studies", tmp_path / "conf" / "experiment"
    package.mkdir()
    conf.mkdir(parents=True)
    (package / "toy_study.py").write_text(TOY_STUDY)
    (conf / "toy_study_exp.yaml").write_text(TOY_YAML)
    monkeypatch.setenv("DRIFT_BANDITS_CONF", str(tmp_path / "conf"))
    monkeypatch.setattr(studies, "__path__", [*studies.__path__, str(package)])
    studies.studies.cache_clear()
    try:
        found = {studies.short_name(m): m for m in studies.studies()}
        assert "toy_study" in found
        toy = found["toy_study"]
        assert studies.owner("toy_study_exp") is toy
        results = tmp_path / "results"
        lines = studies.release_commands(FIGURES, results=str(results))
        assert any("toy_study_exp" in line for line in lines)
        assert cli.commands(studies.release_commands(FIGURES, results=str(results), among=(toy,))) == 0
        assert plots.main(["--results", str(results), "--jobs", "1"]) == 0
        claims = pd.read_csv(results / "claims.csv")
        assert list(claims["claim"]) == ["the toy's regret is not negative"]
        assert claims["verdict"].tolist() == ["agrees"]
        assert (results / "figures" / "toy_study_exp.png").is_file()
    finally:
        studies.studies.cache_clear()
