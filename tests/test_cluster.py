"""Beyond one machine: submitit (local path), Dask, concurrent writers, SIGKILL and
resume, corrupted cells, and code provenance. The commands are the README's
"Running on a cluster" ones with a tiny T."""

import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, compose

from bandits.experiments import figures
from bandits.experiments.run.planning import plan_config
from bandits.experiments.run.sweep import run_config

SWEEP = ["algo=sw_ucb_obl", "env=sinusoid", "T=[2000,4000]", "trials=3", "seed=5"]
SAME = lambda df: df.drop(columns=["wall_time_s"]).sort_values(["algo", "T", "trial"]).reset_index(drop=True)  # noqa


def run_py(*args, results, wait=True):
    flags = [a for a in args if a == "-m"]
    cmd = [sys.executable, "run.py", *flags, *[a for a in args if a != "-m"], f"results_dir={results}"]
    if not wait:
        return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc


def collect(*args, results):
    return subprocess.run([sys.executable, "-m", "bandits.experiments.collect", *args, f"results_dir={results}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference")
    rows = run_config(compose(SWEEP + [f"results_dir={out}"]), progress=False, full=True)
    return SAME(rows)


def test_submitit_local_multirun(tmp_path):
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    run_py("-m", "hydra/launcher=local", "algo=sw_ucb_obl,bob", "env=sinusoid", "T=2000", "trials=2", results=tmp_path)
    table = pd.read_parquet(tmp_path / "tables" / "adhoc.parquet")
    assert sorted(table["algo"].unique()) == ["bob", "sw_ucb_obl"] and len(table) == 4


def test_dask_backend_is_bit_identical_to_loky(tmp_path, reference):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", processes=True,
                                  dashboard_address=None) as cluster:
        rows = run_config(compose(SWEEP + [f"results_dir={tmp_path}", "parallel.backend=dask",
                                           f"parallel.address={cluster.scheduler_address}"]), progress=False,
                          full=True)
    pd.testing.assert_frame_equal(SAME(rows), reference)


def test_two_concurrent_writers_share_one_results_folder(tmp_path, reference):
    procs = [run_py(*SWEEP, results=tmp_path, wait=False) for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=600) == 0
    done = collect(*SWEEP, results=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    pd.testing.assert_frame_equal(SAME(pd.read_parquet(tmp_path / "tables" / "adhoc.parquet")), reference)


def stored_rows_of(paths) -> int:
    """Cells in some shards (each shard is whole or absent, so every file reads)."""
    return sum(pq.ParquetFile(p).metadata.num_rows for p in paths)


def stored_rows(folder) -> int:
    return stored_rows_of(folder.glob("*.parquet"))


def test_sigkill_mid_sweep_then_resume(tmp_path):
    # batch_s=0: each cell is a batch, written at once, so a kill loses only the cell in flight.
    sweep = ["algo=exp3s", "env=sinusoid", "T=[200000]", "trials=40", "seed=6", "n_jobs=1", "parallel.batch_s=0"]
    proc = run_py(*sweep, results=tmp_path / "killed", wait=False)
    cells = tmp_path / "killed" / "runs" / "adhoc"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(cells.glob("*.parquet"))) < 3:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = stored_rows(cells)
    assert 3 <= finished < 40, "the sweep should be killed part-way"
    assert not list(cells.glob(".*")) or all(p.suffix == ".tmp" for p in cells.glob(".*"))  # at most a temp file
    missing = collect(*sweep, results=tmp_path / "killed")
    assert missing.returncode == 3 and f"{40 - finished} missing" in missing.stdout
    run_py(*sweep, results=tmp_path / "killed")
    run_py(*sweep, results=tmp_path / "clean")
    resumed = pd.read_parquet(tmp_path / "killed" / "tables" / "adhoc.parquet")
    clean = pd.read_parquet(tmp_path / "clean" / "tables" / "adhoc.parquet")
    pd.testing.assert_frame_equal(SAME(resumed), SAME(clean))


def test_corrupted_or_partial_shard_is_reported_and_recomputed(tmp_path, reference, capsys):
    run_config(compose(SWEEP + [f"results_dir={tmp_path}", "parallel.batch_s=0"]), progress=False)  # a shard a cell
    shards = sorted((tmp_path / "runs" / "adhoc").glob("*.parquet"))
    assert len(shards) >= 3
    lost = stored_rows_of(shards[:3])
    data = shards[0].read_bytes()
    shards[0].write_bytes(data[: len(data) // 2])  # a partial file
    shards[1].write_bytes(b"not parquet at all")
    flip = bytearray(shards[2].read_bytes())
    flip[len(flip) // 3] ^= 0xFF  # one flipped byte inside a data page: caught by the page checksums
    shards[2].write_bytes(bytes(flip))
    plan = plan_config(compose(SWEEP + [f"results_dir={tmp_path}"]))
    assert len(plan.corrupt) == 3 and len(plan.todo) == lost
    assert all(p.name.endswith(".corrupt") for p in plan.corrupt)
    rows = run_config(compose(SWEEP + [f"results_dir={tmp_path}"]), progress=False, full=True)
    pd.testing.assert_frame_equal(SAME(rows), reference)


def test_cells_record_provenance(reference):
    row = reference.iloc[0]
    for col in ("package_version", "python_version", "numpy_version", "numba_version", "host", "code_fingerprint"):
        assert isinstance(row[col], str) and row[col]
    assert row["numpy_version"] == np.__version__


def test_mixing_code_versions_in_one_figure_warns(reference):
    rows = reference.copy()
    rows.loc[rows.index[:2], "code_fingerprint"] = "000000000000"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = figures.code_versions(rows, "demo")
    assert any("mixes cells from different code versions" in str(w.message) and "000000000000" in str(w.message)
               for w in caught)
    assert "000000000000" in text and ";" in text
