"""No two experiments, named or not, write the same file: an experiment_name that the plot
stage's other outputs would produce is refused (``<name>_leaderboard``, ``<name>_sweep_...``,
a scenario table's figure name), and two different unnamed -m sweeps draw their figures under
different, stable names; a --highlight that names nothing is refused; a long name is wrapped in its
figure's title, not cut."""

import shutil

import pytest

from bandits.experiments import cli

RUN = ["algo=ucb1", "env=piecewise_bernoulli", "T=100", "trials=2"]


@pytest.mark.parametrize("name", ["mine_leaderboard", "mine_sweep_window", "mine_sweep", "ns_benchmark_aggregate",
                                  "mine_leaderboard_overall", "x_ratios"])
def test_a_name_the_plot_stage_derives_is_refused(tmp_path, capsys, name):
    assert cli.entry([*RUN, f"experiment_name={name}", f"results_dir={tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert "which the plot stage appends" in err and "Traceback" not in err
    assert not (tmp_path / "tables").exists()


@pytest.mark.parametrize("name", ["sweeping", "leaderboards2", "my_ranking", "mine"])
def test_names_that_only_look_alike_are_accepted(tmp_path, name):
    assert cli.entry([*RUN, f"experiment_name={name}", f"results_dir={tmp_path}"]) == 0


def test_a_name_that_reads_like_another_tables_figures_is_refused(tmp_path, capsys):
    assert cli.entry([*RUN, "experiment_name=bench", f"results_dir={tmp_path}"]) == 0
    tables = tmp_path / "tables"
    shutil.copy(tables / "bench.parquet", tables / "bench.abrupt.parquet")  # a scenario table: bench_abrupt.png
    assert cli.entry([*RUN, "experiment_name=bench_abrupt", f"results_dir={tmp_path}"]) == 2
    assert "bench.abrupt" in capsys.readouterr().err
    assert not (tables / "bench_abrupt.parquet").exists()


def sweep(tmp_path, *args):
    assert cli.entry(["-m", "algo=sw_ucb_gm", "algo.window=50,200", "T=200", "trials=2", *args,
                      f"results_dir={tmp_path}", f"hydra.sweep.dir={tmp_path}/hydra"]) == 0
    return {p.name for p in (tmp_path / "figures").glob("adhoc_*sweep*.png")}


def test_two_unnamed_sweeps_draw_different_files_and_the_same_command_the_same(tmp_path):
    first = sweep(tmp_path, "env=piecewise_bernoulli", "env.K=3")
    second = sweep(tmp_path, "env=piecewise_bernoulli", "env.K=4") - first
    assert len(first) == 1 and len(second) == 1  # a file of its own
    again = sweep(tmp_path, "env=piecewise_bernoulli", "env.K=3")
    assert again == first | second  # the same command: the same file, rewritten


def test_a_highlight_that_names_nothing_is_refused(tmp_path, capsys):
    from bandits.experiments.plots.stage import main as plots

    assert cli.entry([*RUN, "experiment_name=mine", f"results_dir={tmp_path}"]) == 0
    assert plots(["--results", str(tmp_path), "--highlight", "ucb1"]) == 0
    capsys.readouterr()
    assert plots(["--results", str(tmp_path), "--highlight", "ucb1,nosuch"]) == 2
    err = capsys.readouterr().err
    assert "'nosuch' names no configuration" in err and "'ucb1'" not in err


def test_a_long_name_is_wrapped_in_its_title_not_cut(tmp_path, monkeypatch):
    """A figure's title fits inside the figure, whatever the experiment's name."""
    import matplotlib.pyplot as plt

    from bandits.experiments.plots.stage import main as plots

    name = "a_rather_long_experiment_name_" + "with_many_words_" * 4 + "end"
    assert cli.entry([*RUN, f"experiment_name={name}", f"results_dir={tmp_path}"]) == 0
    titles = []
    real_close = plt.close

    def keep(fig=None):  # the title as drawn, just before the figure is closed
        if fig is not None and hasattr(fig, "axes"):
            renderer = fig.canvas.get_renderer()
            titles.extend((ax.title.get_window_extent(renderer), fig.bbox) for ax in fig.axes if ax.get_title())
        real_close(fig)

    monkeypatch.setattr(plt, "close", keep)
    assert plots(["--results", str(tmp_path), "--jobs", "1"]) == 0
    assert titles
    for box, figure in titles:
        assert box.x0 >= figure.x0 - 1 and box.x1 <= figure.x1 + 1, (box, figure)


def test_a_run_logged_to_one_file_keeps_its_summary_on_lines_of_its_own(tmp_path):
    """stdout and stderr into one file (a cluster job's log): no progress bar's carriage returns
    in the summary's lines (the run lasts longer than the bar's 2 s delay)."""
    import subprocess
    import sys

    from conftest import ROOT

    log = tmp_path / "run.log"
    with open(log, "w") as out:
        done = subprocess.run([sys.executable, str(ROOT / "run.py"), "algo=ucb1", "env=piecewise_bernoulli", "T=300",
                               "trials=12000", f"results_dir={tmp_path}"], stdout=out, stderr=subprocess.STDOUT,
                              timeout=600)
    assert done.returncode == 0
    text = log.read_text()
    assert "\r" not in text and any(line.startswith("label ") for line in text.splitlines()), text[-2000:]
