"""The constants table over drawn instances (bandits.experiments.report.constants): a value the
environment (or an algorithm) reports the same within each instance but differently between
instances is kept as '<name> by instance', in instance order; one that varies within an
instance is no constant; one the same everywhere stays a plain constant."""

import json

import pandas as pd

from bandits.experiments.report.constants import BY_INSTANCE, table_constants


def test_values_that_differ_only_between_instances_are_kept_in_instance_order(tmp_path):
    rows = []
    for instance in (2, 0, 1):  # stored out of order: the list is in instance order
        for trial in range(3):
            rows.append({"experiment": "fam", "algo": "a", "label": "a", "T": 100, "seed": 1,
                         "instance": instance, "trial": trial * 3 + instance,
                         "env_info": json.dumps({"Delta_TV": 10.0 + instance, "K": 5, "noise": trial + 0.5}),
                         "algo_params": json.dumps({"derived": {"c_mu": 0.1 * (instance + 1), "window": 7}})})
    path = tmp_path / "fam.parquet"
    pd.DataFrame(rows).to_parquet(path)
    c = table_constants(path).set_index(["label", "name"])["value"]
    assert c[("env", "Delta_TV" + BY_INSTANCE)] == "[10.0, 11.0, 12.0]"
    assert ("env", "Delta_TV") not in c.index and ("env", "noise" + BY_INSTANCE) not in c.index
    assert c[("env", "K")] == "5" and ("env", "K" + BY_INSTANCE) not in c.index
    assert c[("a", "c_mu" + BY_INSTANCE)] == "[0.1, 0.2, 0.30000000000000004]" and c[("a", "window")] == "7"
