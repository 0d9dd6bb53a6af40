"""Where a make figures spends its time: every run appends one row to <results>/timings.csv
(its cells, the workers' time and the kernels' of it), the plot and docs stages only when
timed (as make figures runs them), and docs/speed.md's breakdown groups a scenario's runs
under its experiment and sums them by hand."""

import pandas as pd
import pytest

from bandits.experiments.compose.registry import compose
from bandits.experiments.docs import context as doc_context
from bandits.experiments.docs import inputs as doc_inputs
from bandits.experiments.plots import stage
from bandits.experiments.run import timings
from bandits.experiments.run.sweep import run_config as run


def test_each_run_appends_one_row_with_its_cells_and_times(tmp_path):
    for trials in (2, 3):
        run(compose(["algo=ucb1", "env=piecewise_bernoulli", "T=200", f"trials={trials}", "seed=4",
                     f"results_dir={tmp_path}", "experiment_name=timed"]), progress=False)
    rows = pd.read_csv(tmp_path / timings.FILE)
    assert rows["stage"].tolist() == ["run", "run"]
    # the second run finds the first run's two cells stored and runs the third trial only
    assert rows["cells_run"].tolist() == [2, 1] and rows["cells_stored"].tolist() == [0, 2]
    assert (rows["kernel_s"] <= rows["worker_s"]).all() and (rows["start"] <= rows["end"]).all()
    assert (rows["process_start"] <= rows["start"]).all()


def test_the_plot_stage_records_its_time_only_when_timed(tmp_path):
    run(compose(["algo=ucb1", "env=piecewise_bernoulli", "T=200", "trials=2", f"results_dir={tmp_path}"]),
        progress=False)
    stage.main(["--results", str(tmp_path)])
    assert pd.read_csv(tmp_path / timings.FILE)["stage"].tolist() == ["run"]
    stage.main(["--results", str(tmp_path), "--timed"])
    assert pd.read_csv(tmp_path / timings.FILE)["stage"].tolist() == ["run", "plots"]


def test_the_breakdown_groups_scenarios_and_sums_by_hand(tmp_path):
    def row(stage_, experiment, start, end, cells=0, worker=0.0, kernel=0.0, write=0.0, gather=0.0, pid=1):
        return {"stage": stage_, "experiment": experiment, "cells_run": cells, "cells_stored": 0, "workers": 2,
                "process_start": 100.0, "start": start, "end": end, "plan_s": 0.5, "execute_s": 0.0,
                "worker_s": worker, "kernel_s": kernel, "write_s": write, "gather_s": gather, "pid": pid}

    pd.DataFrame([row("run", "ns_benchmark.stationary", 110, 120, 10, 16.0, 12.0, 0.5, 0.25),
                  row("run", "ns_benchmark.slow_drift", 120, 125, 5, 8.0, 7.0, 0.25, 0.25),
                  row("run", "ctx_delay_shift0.25", 126, 130, 4, 6.0, 6.0),
                  row("plots", "", 131, 140, pid=2), row("docs", "", 141, 150, pid=3)],
                 columns=timings.COLUMNS).to_csv(tmp_path / timings.FILE, index=False)
    sb = doc_context.context(doc_inputs.Inputs(tmp_path, tmp_path / "docs"))["speed_breakdown"]()
    by = {r["experiment"]: r for r in sb["rows"]}
    assert list(by) == ["ns_benchmark", "ctx_delay_shift0.25"]   # a dot before a digit is the name's own
    ns = by["ns_benchmark"]
    assert (ns["runs"], ns["cells"], ns["wall_s"], ns["kernel_s"]) == (2, 15, 15.0, 19.0)
    assert ns["bookkeeping_s"] == pytest.approx(5.0) and ns["storage_s"] == pytest.approx(1.25)
    assert sb["stages"] == {"docs": 9.0, "plots": 9.0}
    # the span runs from the first process start (100) to the last end (150); runs and stages
    # count 19 + 18 of it, the rest is starting processes
    assert sb["span_s"] == 50.0 and sb["starts_s"] == pytest.approx(13.0) and sb["processes"] == 3


def test_experiment_groups_strip_a_scenario_but_not_a_numbers_dot():
    names = pd.Series(["ns_benchmark.stationary", "ctx_delay_shift0.25", "fig3", "master_geo.normal_xi03"])
    assert timings.experiment_group(names).tolist() == ["ns_benchmark", "ctx_delay_shift0.25", "fig3", "master_geo"]


def test_kernel_seconds_sum_each_algorithms_cells_per_experiment(tmp_path):
    tables = {"exp.a": pd.DataFrame({"algo": ["x", "y", "x"], "wall_time_s": [1.0, 2.0, 0.5]}),
              "exp.b": pd.DataFrame({"algo": ["x"], "wall_time_s": [4.0]}),
              "other": pd.DataFrame({"algo": ["y", "y"], "wall_time_s": [0.25, 0.25]})}
    got = timings.kernel_seconds(tables)
    assert got.to_dict("records") == [{"experiment": "exp", "algo": "x", "cells": 3, "kernel_s": 5.5},
                                      {"experiment": "exp", "algo": "y", "cells": 1, "kernel_s": 2.0},
                                      {"experiment": "other", "algo": "y", "cells": 2, "kernel_s": 0.5}]
    # and the plot stage writes them next to the figures, for docs/speed.md
    run(compose(["algo=ucb1", "env=piecewise_bernoulli", "T=200", "trials=2", f"results_dir={tmp_path}"]),
        progress=False)
    stage.main(["--results", str(tmp_path)])
    written = pd.read_csv(tmp_path / "figures" / timings.KERNELS_FILE)
    table = pd.read_parquet(tmp_path / "tables" / "adhoc.parquet")
    assert written[["experiment", "algo", "cells"]].values.tolist() == [["adhoc", "ucb1", 2]]
    assert written["kernel_s"].iloc[0] == pytest.approx(table["wall_time_s"].sum(), abs=1e-3)


PER_CELL = r"per cell of work ([\d.]+) ms, of which the kernels ([\d.]+) ms"


def test_a_summarys_kernel_time_per_cell_never_exceeds_its_work_per_cell():
    """Both per cell of work, in one unit: the workers' seconds (compiling aside) and the kernels'
    part of them. The old line divided a job's wall time (which two workers halve, and which a job
    planned ahead of its turn hardly has) by its cells and set the kernels' sum next to it."""
    import re

    from bandits.experiments.report.summary import timing_text

    # a job whose batches ran while the job before it ran: 0.03 s of its own wall time, 9.6 s of work
    text = timing_text(0.03, 21, 2, {"worker_s": 9.7, "kernel_s": 9.6, "warm_s": 0.05})
    work, kernels = map(float, re.search(PER_CELL, text).groups())
    assert kernels <= work and work == pytest.approx(1e3 * 9.65 / 21, abs=0.01)
    assert "0.03 s wall on 2 workers" in text


def test_compiling_kernels_is_reported_on_its_own_line_not_per_cell():
    """A cold numba cache: 19 s of compiling, 4 ms of kernels per cell. The old line folded the
    19 s into 6849 ms "per cell" and named it nowhere."""
    import re

    from bandits.experiments.report.summary import timing_text

    text = timing_text(20.5, 3, 1, {"worker_s": 19.2, "kernel_s": 0.0132, "warm_s": 19.0})
    first, second = text.splitlines()
    work, kernels = map(float, re.search(PER_CELL, first).groups())
    assert work == pytest.approx(1e3 * 0.2 / 3, abs=0.01) and kernels == pytest.approx(4.4, abs=0.01)
    assert second.startswith("compiling and loading kernels: 19.00 s")


def test_a_run_records_its_compile_seconds_apart_and_its_printed_times_agree(tmp_path, caplog):
    import logging
    import re

    with caplog.at_level(logging.INFO, logger="drift_bandits"):
        run(compose(["algo=ucb1", "env=piecewise_bernoulli", "T=300", "trials=2", f"results_dir={tmp_path}"]),
            progress=False)
    rows = pd.read_csv(tmp_path / timings.FILE)
    assert (rows["warm_s"] >= 0).all() and (rows["warm_s"] + rows["kernel_s"] <= rows["worker_s"] + 1e-6).all()
    work, kernels = map(float, re.search(PER_CELL, caplog.text).groups())
    assert kernels <= work


def test_a_timings_file_of_an_older_version_keeps_its_columns(tmp_path):
    old = ["stage", "experiment", "cells_run", "pid"]
    (tmp_path / timings.FILE).write_text(",".join(old) + "\nrun,a,1,7\n")
    timings.record(tmp_path, stage="run", experiment="b", cells_run=2, warm_s=1.5)
    rows = pd.read_csv(tmp_path / timings.FILE)
    assert list(rows.columns) == old and rows["experiment"].tolist() == ["a", "b"]


def test_the_kernel_seconds_of_experiments_without_tables_here_are_kept(tmp_path):
    """A results folder holding some tables only (make ctx-long's, a fresh clone's) redraws
    them without dropping the other experiments' rows that make figures wrote."""
    path = tmp_path / timings.KERNELS_FILE
    pd.DataFrame([{"experiment": "fig2a", "algo": "bob", "cells": 10, "kernel_s": 3.0},
                  {"experiment": "adhoc", "algo": "ucb1", "cells": 1, "kernel_s": 9.0}]).to_csv(path, index=False)
    fresh = pd.DataFrame([{"experiment": "adhoc", "algo": "ucb1", "cells": 2, "kernel_s": 0.5}])
    stage.write_kernel_seconds(path, fresh)
    assert pd.read_csv(path).to_dict("records") == [
        {"experiment": "adhoc", "algo": "ucb1", "cells": 2, "kernel_s": 0.5},
        {"experiment": "fig2a", "algo": "bob", "cells": 10, "kernel_s": 3.0}]
