"""Batched cell storage: shards of many cells, written whole or not at all; tables identical to
the cell-per-file layout's; folders of several hosts merge; a sweep of 20,000 cells leaves a
handful of files, survives kill -9 and resumes to the uninterrupted table; workers import
only what a cell needs."""

import pickle
import shutil
import signal
import subprocess
import sys
import time

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, compose

from bandits import simulate
from bandits.experiments.run.batching import Batches
from bandits.experiments.run.gathering import gather
from bandits.experiments.run.planning import plan, plan_config
from bandits.experiments.run.sweep import run_config
from bandits.experiments.setup.setups import setup_from_config
from bandits.experiments.store import shards
from bandits.experiments.store import table_store as store

SWEEP = ["~algo", "+algo@algos.sw_ucb_obl=sw_ucb_obl", "+algo@algos.exp3s=exp3s", "env=sinusoid", "T=[2000,4000]",
         "trials=3", "seed=5"]
MACHINE = ["wall_time_s"]  # the one column that depends on the run, not the config


def table(folder) -> pd.DataFrame:
    return pd.read_parquet(folder / "tables" / "adhoc.parquet").drop(columns=MACHINE)


def files(folder) -> list:
    return sorted((folder / "runs" / "adhoc").glob("*.parquet"))


def rows_in(paths) -> int:
    return sum(pq.ParquetFile(p).metadata.num_rows for p in paths)


def run(folder, *overrides, full=False):
    return run_config(compose([*SWEEP, f"results_dir={folder}", *overrides]), progress=False, full=full)


def cli(*args, results, wait=True):
    cmd = [sys.executable, "run.py", *args, f"results_dir={results}"]
    if not wait:
        return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_a_table_is_bit_identical_to_the_cell_per_file_layouts(tmp_path):
    run(tmp_path / "batched")
    run(tmp_path / "per_cell", "parallel.batch_cells=1", "parallel.batch_s=0")
    assert len(files(tmp_path / "batched")) < 12 and len(files(tmp_path / "per_cell")) == 12
    pd.testing.assert_frame_equal(table(tmp_path / "batched"), table(tmp_path / "per_cell"))
    # A folder of the earlier layout (one <cell key>.parquet per cell, as the store wrote until
    # shards) is read as it is: the table rebuilt from it is the same.
    old = tmp_path / "old_layout" / "runs" / "adhoc"
    old.mkdir(parents=True)
    for shard in files(tmp_path / "batched"):
        for row in pq.read_table(shard).to_pylist():
            pq.write_table(pa.Table.from_pylist([row], schema=shards.SCHEMA), old / f"{row['cell_key']}.parquet")
    plan = plan_config(compose([*SWEEP, f"results_dir={tmp_path / 'old_layout'}"]))
    assert len(plan.done) == 12 and not plan.todo and not plan.corrupt
    gather(plan)
    pd.testing.assert_frame_equal(table(tmp_path / "old_layout"), table(tmp_path / "batched"))


def test_a_table_written_in_buckets_equals_one_written_at_once(tmp_path, monkeypatch):
    run(tmp_path / "at_once")
    monkeypatch.setattr(store, "BUCKET_ROWS", 5)  # 12 rows in 3 buckets, each spilled and sorted
    run(tmp_path / "buckets")
    pd.testing.assert_frame_equal(table(tmp_path / "buckets"), table(tmp_path / "at_once"))
    assert not list((tmp_path / "buckets" / "tables").glob(".*"))[1:]  # only the lock file remains


def test_shards_from_two_hosts_merge(tmp_path):
    run(tmp_path / "one_host")
    run(tmp_path / "host_a", "T=[2000]")
    run(tmp_path / "host_b", "T=[4000]")
    for shard in files(tmp_path / "host_b"):  # what rsync of host b's runs/ into host a's does
        shutil.copy2(shard, tmp_path / "host_a" / "runs" / "adhoc" / shard.name)
    done = subprocess.run([sys.executable, "-m", "bandits.experiments.collect", *SWEEP,
                           f"results_dir={tmp_path / 'host_a'}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    pd.testing.assert_frame_equal(table(tmp_path / "host_a"), table(tmp_path / "one_host"))


def test_a_recomputed_cell_replaces_its_older_row(tmp_path):
    first = run(tmp_path, full=True)
    again = run(tmp_path, "overwrite=true", full=True)
    assert len(again) == 12 and rows_in(files(tmp_path)) == 24  # two rows of each cell on disk
    stored = table(tmp_path)
    assert len(stored) == 12
    pd.testing.assert_frame_equal(stored.reset_index(drop=True),
                                  again.drop(columns=MACHINE).sort_values(store.ORDER).reset_index(drop=True)
                                  [stored.columns])
    assert (first["final_regret"].to_numpy() == again["final_regret"].to_numpy()).all()


SMALL_SWEEP = ["algo=ucb1", "env=piecewise_bernoulli", "T=100", "trials=20000", "seed=3", "experiment_name=many"]


def test_a_sweep_of_20000_cells_leaves_few_files_and_resumes_after_kill_9(tmp_path):
    """The smaller version of the 10^6-cell benchmark (scripts/bench.py, sweep_1e6_cells)."""
    killed = tmp_path / "killed"
    # Shards of 2,500 cells here (8 for the sweep), so that the kill lands between two of them.
    proc = cli(*SMALL_SWEEP, "parallel.batch_cells=2500", results=killed, wait=False)
    folder = killed / "runs" / "many"
    deadline = time.time() + 300
    while time.time() < deadline and not list(folder.glob("*.parquet")) and proc.poll() is None:
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = sorted(folder.glob("*.parquet"))
    assert 0 < rows_in(written) < 20000, "the sweep should be killed part-way"
    cli(*SMALL_SWEEP, "parallel.batch_cells=2500", results=killed)
    cli(*SMALL_SWEEP, results=tmp_path / "clean")
    clean = tmp_path / "clean"
    shard_files = sorted((clean / "runs" / "many").glob("*.parquet"))
    assert len(shard_files) <= 40 and rows_in(shard_files) == 20000
    a = pd.read_parquet(killed / "tables" / "many.parquet").drop(columns=MACHINE)
    b = pd.read_parquet(clean / "tables" / "many.parquet").drop(columns=MACHINE)
    assert len(b) == 20000
    pd.testing.assert_frame_equal(a, b)
    plots = subprocess.run([sys.executable, "-m", "bandits.experiments.figures", "--results", str(clean)], cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
    assert plots.returncode == 0, plots.stderr
    assert list((clean / "figures").glob("many*.png"))


def test_workers_import_only_what_a_cell_needs(tmp_path):
    """A batch unpickled and run in a fresh interpreter, as a worker does, imports neither the
    runner nor pandas, pyarrow, Hydra, OmegaConf, tqdm, matplotlib, nor other algorithms and
    environments than its own."""
    cfg = compose(["algo=ucb1", "env=piecewise_bernoulli", "T=200", "trials=2", f"results_dir={tmp_path}"])
    plan = plan_config(cfg)
    batch = next(iter(Batches(plan, 20_000, 10.0, 1)))
    meta = {"seed": plan.setup.seed, "experiment": "adhoc", "env_name": "piecewise_bernoulli", "env_params": "{}",
            "code": "c", "version": "v", "save_actions": False, "provenance": {}, "env_info": {(200, None): "{}"}}
    payload = tmp_path / "batch.pkl"
    payload.write_bytes(pickle.dumps((meta, plan.setup.env, plan.instances[(200, None)], batch, 10.0)))
    probe = f"""
import pickle, sys
from bandits.experiments.run.worker import run_batch
done = run_batch(*pickle.loads(open({str(payload)!r}, 'rb').read()))
print(len(done.rows["cell_key"]))
print(' '.join(sorted(m for m in ('pandas', 'pyarrow', 'hydra', 'omegaconf', 'tqdm', 'matplotlib', 'joblib',
                                  'bandits.experiments.run.sweep', 'bandits.experiments.store.table_store',
                                  'bandits.environments.autoloan', 'bandits.algorithms.glr') if m in sys.modules)))
"""
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    cells, imported = (out.stdout.splitlines() + [""])[:2]
    assert cells == str(batch.cells) and imported == "", f"a worker imported {imported}"


@pytest.mark.parametrize("workers", [1, 2])
def test_batches_cover_every_pending_cell_once_and_grow(workers):
    setup = setup_from_config(compose(["+experiment=fig2a", "trials=40", "T=[1500,3000]"]))
    setup.results_dir = None
    made_plan = plan(setup)
    per_trial = len(setup.algos)
    made = list(Batches(made_plan, 20_000, 10.0, workers))
    keys = [c.key for b in made for _, cells in b.trials for c in cells]
    assert sorted(keys) == sorted(c.key for c in made_plan.todo)
    assert [b.T for b in made] == sorted((b.T for b in made), reverse=True)  # the longest horizon first
    first = [b for b in made if b.T == 3000]
    assert first[0].cells == per_trial and first[1].cells == 2 * per_trial  # one trial, then doubling
    trials = [(b.T, trial) for b in made for trial, _ in b.trials]
    assert len(trials) == len(set(trials))  # a trial is never split: its cells share one reward draw
    # One cell per batch (the cell-per-file layout): trials are split.
    single = list(Batches(made_plan, 1, 10.0, workers))
    assert len(single) == len(made_plan.todo) and all(b.cells == 1 for b in single)


def test_a_simulate_sweep_of_20000_cells_in_memory_and_stored_agree(tmp_path):
    mem = simulate(env="piecewise_bernoulli", algos=["ucb1"], T=100, trials=20000, seed=1)
    disk = simulate(env="piecewise_bernoulli", algos=["ucb1"], T=100, trials=20000, seed=1, results_dir=tmp_path)
    assert len(files(tmp_path)) <= 40
    pd.testing.assert_frame_equal(mem.drop(columns=MACHINE), disk.drop(columns=MACHINE))


def window_sweep(tmp_path):
    """The rows of each job of a -m sweep over SW-UCB's window, as the CLI's sweep gets them."""
    return [run_config(compose(["algo=sw_ucb", f"algo.window={w}", "env=sinusoid", "T=600", "trials=2",
                                f"results_dir={tmp_path}", "experiment_name=windows"]), progress=False)
            for w in (100, 400)]


def test_a_runs_rows_have_the_columns_of_its_table_and_a_sweep_draws_its_figure(tmp_path):
    """The merge holds repeated strings as categories; the rows a run returns must not: they
    have the dtypes a read of the table gives, and a -m sweep's combined figure is drawn from
    them (a category column does not add to a string)."""
    from bandits.experiments.compose.labels import assign_labels
    from bandits.experiments.plots.sweep_report import sweep_figure

    jobs = window_sweep(tmp_path)
    table = pd.read_parquet(tmp_path / "tables" / "windows.parquet")
    for rows in jobs:
        assert {c: rows[c].dtype for c in rows.columns} == {c: table[c].dtype for c in rows.columns}
    rows = pd.concat(jobs, ignore_index=True)
    names = sweep_figure(rows.assign(label=assign_labels(rows)), tmp_path / "figures")
    assert names == ["windows_sweep_window"] and (tmp_path / "figures" / "windows_sweep_window.png").is_file()


def test_a_sweep_over_algorithms_at_one_horizon_draws_regret_against_t(tmp_path):
    """A run hands the sweep its light rows; regret against t needs the curves, which the
    sweep reads back from each job's table by cell key (the figure failed with a KeyError)."""
    from bandits.experiments.compose.labels import assign_labels
    from bandits.experiments.plots.sweep_report import sweep_figure, with_curves

    jobs = [(tmp_path, run_config(compose([f"algo={a}", "env=piecewise_bernoulli", "T=500", "trials=2",
                                           f"results_dir={tmp_path}"]), progress=False))
            for a in ("ucb1", "glr_klucb")]
    rows = pd.concat([r for _, r in jobs], ignore_index=True)
    rows = rows.assign(label=assign_labels(rows))
    assert "regret_curve" not in rows.columns
    full = with_curves(jobs, rows)
    assert full["cell_key"].tolist() == rows["cell_key"].tolist() and full["label"].tolist() == rows["label"].tolist()
    assert full["final_regret"].tolist() == rows["final_regret"].tolist()
    assert all(len(c) > 0 for c in full["regret_curve"])
    with pytest.raises(KeyError):
        sweep_figure(rows, tmp_path / "figures")
    assert sweep_figure(rows, tmp_path / "figures", lambda: with_curves(jobs, rows)) == ["adhoc_sweep"]
    assert (tmp_path / "figures" / "adhoc_sweep.png").is_file()


def test_a_sweeps_figure_data_names_the_code_behind_it(tmp_path):
    """A run's light rows carry the code version, so a -m sweep's figure records it like any other."""
    from bandits.experiments.compose.labels import assign_labels
    from bandits.experiments.plots.sweep_report import sweep_figure

    jobs = window_sweep(tmp_path)
    rows = pd.concat(jobs, ignore_index=True)
    sweep_figure(rows.assign(label=assign_labels(rows)), tmp_path / "figures")
    data = pd.read_csv(tmp_path / "figures" / "windows_sweep_window.csv")
    table = pd.read_parquet(tmp_path / "tables" / "windows.parquet")
    assert set(data["code"]) == {" ".join(str(v) for v in table[["code_fingerprint", "git_commit"]].iloc[0]
                                          if v is not None and v == v)}


def test_a_scan_reads_each_unchanged_shard_once(tmp_path, monkeypatch):
    run(tmp_path, "parallel.batch_cells=2", "parallel.batch_s=0")
    folder = tmp_path / "runs" / "adhoc"
    paths = files(tmp_path)
    assert len(paths) >= 3
    cache = store.ShardCache()  # a sweep's: what it has read
    reads = []
    real = store.read_shard
    monkeypatch.setattr(store, "read_shard", lambda path, columns=None: reads.append(path) or real(path, columns))
    first = store.scan(folder, cache=cache)
    assert sorted(reads) == paths  # each shard read (and verified) once
    assert store.scan(folder, cache=cache).where == first.where
    assert store.scan(folder, verify=False, cache=cache).where == first.where
    assert sorted(reads) == paths  # not again: a shard never changes once written
    store.scan(folder)
    assert len(reads) == 2 * len(paths)  # another sweep's scan (no cache of its own) reads them all
    # a shard replaced by a damaged file (a new file at the same path) is read again and moved aside
    bad = paths[0]
    damaged = bad.with_name(".damaged")
    damaged.write_bytes(bad.read_bytes()[:-40])
    damaged.replace(bad)
    again = store.scan(folder, cache=cache)
    assert reads.count(bad) == 3 and [p.name for p in again.corrupt] == [bad.name + ".corrupt"]
    assert set(again.where) < set(first.where) and bad not in cache
