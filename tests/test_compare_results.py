"""scripts/compare_results.py, which shows that a refactoring changed no number: two results
folders that differ only in code stamps and timings compare identical (exit 0); a changed
regret, a missing figure or a claims verdict that changed is a difference (exit 1)."""

import importlib.util

import pandas as pd
from conftest import ROOT


def load():
    spec = importlib.util.spec_from_file_location("compare_results", ROOT / "scripts" / "compare_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def results(folder, regret=1.5, code="abc", wall=0.1, verdict="agrees", figures=("fig",)):
    (folder / "tables").mkdir(parents=True)
    (folder / "figures").mkdir()
    rows = pd.DataFrame({"label": ["b", "a"], "T": [10, 10], "trial": [0, 0], "final_regret": [regret, 2.0],
                         "code_fingerprint": [code, code], "cell_key": [code + "1", code + "2"],
                         "wall_time_s": [wall, wall]})
    rows.to_parquet(folder / "tables" / "t.parquet")
    pd.DataFrame({"T": [10], "mean": [regret]}).to_csv(folder / "figures" / "fig.csv", index=False)
    for name in figures:
        (folder / "figures" / f"{name}.png").write_bytes(b"png")
    pd.DataFrame({"claim": ["c"], "verdict": [verdict], "code": [code]}).to_csv(folder / "claims.csv", index=False)
    return folder


def test_stamps_and_timings_aside_the_folders_are_identical(tmp_path, capsys):
    compare = load()
    a = results(tmp_path / "a")
    b = results(tmp_path / "b", code="xyz", wall=0.7)
    rows = pd.read_parquet(b / "tables" / "t.parquet")
    rows.iloc[::-1].to_parquet(b / "tables" / "t.parquet")  # rows stored in another order: matched by key
    assert compare.main([str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "identical, code stamps and timings aside" in out and "'code_fingerprint' differs in 1 files" in out


def test_a_changed_number_figure_or_verdict_is_a_difference(tmp_path, capsys):
    compare = load()
    a = results(tmp_path / "a")
    assert compare.main([str(a), str(results(tmp_path / "b", regret=1.6))]) == 1
    assert "tables/t.parquet: column 'final_regret' differs" in capsys.readouterr().out
    assert compare.main([str(a), str(results(tmp_path / "c", verdict="disagrees"))]) == 1
    assert "claims.csv: column 'verdict' differs" in capsys.readouterr().out
    assert compare.main([str(a), str(results(tmp_path / "d", figures=()))]) == 1
    assert "figures drawn differ" in capsys.readouterr().out


def test_a_shipped_results_folder_without_tables_is_compared_on_its_figures_and_claims(tmp_path, capsys):
    compare = load()
    shipped = results(tmp_path / "shipped")
    for table in (shipped / "tables").iterdir():
        table.unlink()
    (shipped / "tables").rmdir()
    assert compare.main([str(shipped), str(results(tmp_path / "release", code="new"))]) == 0
    assert "compared 0 tables, 1 figure CSVs and 1 claims rows" in capsys.readouterr().out
    assert compare.main([str(shipped), str(results(tmp_path / "other", regret=9.0))]) == 1
