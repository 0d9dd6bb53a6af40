"""drift-bandits cite: BibTeX for the tool and for the sources of every algorithm and environment
of a table (bandits/experiments/report/citations.py)."""

import re

import pandas as pd
import pytest

from bandits import simulate
from bandits.examples.my_policies import DiscountedMeans
from bandits.experiments import cli
from bandits.experiments.compose.registry import names
from bandits.experiments.report.citations import ENTRIES, OWN, SOURCES, bibtex, cite


def test_every_shipped_algorithm_and_environment_has_its_sources_or_says_why_not():
    shipped = set(names("algo")) | set(names("env"))
    missing = shipped - set(SOURCES) - set(OWN)
    assert not missing, f"configs with no citation entry (add them to SOURCES, or to OWN with why): {missing}"
    assert set(SOURCES) | set(OWN) <= shipped, "citations for configs that do not exist"
    assert {k for keys in SOURCES.values() for k in keys} <= set(ENTRIES)


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_each_entry_is_balanced_bibtex_with_a_title(key):
    text = bibtex(key)
    assert text.startswith("@") and text.count("{") == text.count("}") and "title" in text


def test_a_tables_citations_name_each_algorithm_once_and_yours_as_yours(tmp_path, capsys):
    table = simulate(env="piecewise_bernoulli", algos={"mine": DiscountedMeans(gamma=0.99), "ucb1": "ucb1",
                                                       "w50": {"name": "sw_ucb_gm", "window": 50}},
                     T=200, trials=2, seed=0, results_dir=tmp_path, experiment="cited")
    text = cite(table[["algo", "algo_params", "env", "env_params"]].astype(str), "0.1.0", "f")
    assert text.startswith("@software{drift_bandits,")
    assert "% algorithm ucb1: auer_ucb1" in text and "% algorithm mine: your own class" in text
    assert "% algorithm w50: garivier_switching (config sw_ucb_gm)" in text  # found by its class
    assert len(re.findall(r"^@\w+\{auer_ucb1,", text, flags=re.M)) == 1
    assert cli.subcommand("cite", ["cited", "--results", str(tmp_path)]) == 0
    assert "@article{auer_ucb1," in capsys.readouterr().out


def test_a_missing_table_is_one_paragraph(tmp_path, capsys):
    assert cli.subcommand("cite", ["nothing", "--results", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no table 'nothing'") and "Traceback" not in err


def test_without_a_table_the_tool_and_its_two_papers(capsys):
    assert cli.subcommand("cite", []) == 0
    out = capsys.readouterr().out
    assert out.startswith("@software{drift_bandits,") and "cheung_hedging" in out and "chen_ada_iltcb" in out
    cff = (pd.io.common.Path(__file__).resolve().parent.parent / "CITATION.cff").read_text()
    assert "drift-bandits: bandits in changing environments" in cff and "drift-bandits: bandits in changing" in out
