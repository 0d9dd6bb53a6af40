"""A corpus of bad inputs and faults. Every case runs the command line's entry function
in this process and must stop with its exit code (2 bad input, 1 internal, 130
interrupt), one paragraph naming the problem, no traceback, no input file modified and
no partial result left behind."""

import hashlib

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

from bandits.experiments import cli

CSV_HEADER = "Primary_FICO,Term,Amount_Approved,onemonth,CarType,Competition_rate,mp,apply,Approve_Date\n"
GOOD_LOAN = "720,60,25000,1.5,N,4.5,470,1,07/01/2002\n"


def loan_csv(path, rows=40, bad_row=None):
    lines = [GOOD_LOAN] * rows
    if bad_row is not None:
        lines[3] = bad_row
    path.write_text(CSV_HEADER + "".join(lines))


POLICIES = '''
class BadParams:
    problem_kinds = ("karmed",)
    def __init__(self, eta=0.1):
        self.eta = eta
    def check_params(self):
        if self.eta < 0:
            raise ValueError("eta must be >= 0")
    def reset(self, n_arms, horizon, rng, info):
        pass
    def select(self, t):
        return 0
    def update(self, t, arm, reward):
        pass


class CrashesInSelect(BadParams):
    def select(self, t):
        return [0][t]  # IndexError at round 1


class CrashesInUpdate(BadParams):
    def update(self, t, arm, reward):
        if t == 7:
            raise RuntimeError("my update is broken")


class CrashesInReset(BadParams):
    def reset(self, n_arms, horizon, rng, info):
        raise KeyError("missing")


class BadArm(BadParams):
    def select(self, t):
        return -1


class FloatArm(BadParams):
    def select(self, t):
        return 0.5


class NotAPolicy:
    pass
'''


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Every bad input file of the corpus, in one folder."""
    d = tmp_path_factory.mktemp("inputs")
    good = np.full((50, 2), 0.5)
    np.savez(d / "good.npz", means=good)
    (d / "folder.npz").mkdir()
    (d / "text.npz").write_text("hello, I am not an archive")
    (d / "empty.npz").write_bytes(b"")
    with open(d / "big.csv", "wb") as fh:  # 2 GB, sparse: nothing is written to disk
        fh.truncate(2 * 10 ** 9)
    np.savez(d / "no_means.npz", values=good)
    np.savez(d / "complex.npz", means=good.astype(complex))
    np.savez(d / "objects.npz", means=np.array([[1, "a"]] * 50, dtype=object))
    np.savez(d / "strings.npz", means=np.array([["0.1", "0.2"]] * 50))
    np.savez(d / "dates.npz", means=np.array([["2020-01-01", "2020-01-02"]] * 50, dtype="datetime64[D]"))
    np.savez(d / "flat.npz", means=np.zeros(50))
    for name, value in (("nan", np.nan), ("inf", np.inf), ("huge", 1e300), ("negative", -2.0)):
        bad = good.copy()
        bad[4, 1] = value
        np.savez(d / f"{name}.npz", means=bad)
    np.savez(d / "mismatch.npz", means=good, rewards=np.zeros((50, 3)))
    np.savez(d / "bad_actions.npz", means=good, actions=np.ones((50, 3, 2)))
    np.savez(d / "linear.npz", means=np.zeros((50, 3)), actions=np.ones((50, 3, 4)))
    (d / "inf.csv").write_text("mean_0,mean_1\n0.5,0.5\n0.5,inf\n" + "0.5,0.5\n" * 48)
    (d / "text_value.csv").write_text("mean_0,mean_1\n0.5,0.5\n0.5,abc\n" + "0.5,0.5\n" * 48)
    (d / "complex.csv").write_text("mean_0,mean_1\n" + "0.5,1+2j\n" * 50)
    (d / "no_means.csv").write_text("a,b\n" + "0.5,0.5\n" * 50)
    (d / "gap.csv").write_text("mean_0,mean_2\n" + "0.5,0.5\n" * 50)
    (d / "rewards_mismatch.csv").write_text("mean_0,mean_1,reward_0\n" + "0.5,0.5,1\n" * 50)
    (d / "binary.csv").write_bytes(b"mean_0,mean_1\n\x00\x01\x02\x00" * 10)
    (d / "empty.csv").write_bytes(b"")
    (d / "problem.txt").write_text("mean_0,mean_1\n0.5,0.5\n")
    frame = pd.DataFrame({"mean_0": pd.date_range("2020-01-01", periods=50), "mean_1": np.full(50, 0.5)})
    frame.to_parquet(d / "dates.parquet")
    pd.DataFrame({"mean_0": ["x"] * 50, "mean_1": np.full(50, 0.5)}).to_parquet(d / "strings.parquet")
    (d / "text.parquet").write_text("not parquet")
    loan_csv(d / "loan_good.csv")
    (d / "loan_missing_column.csv").write_text("Primary_FICO,Term\n720,60\n")
    loan_csv(d / "loan_bad_date.csv", bad_row="720,60,25000,1.5,N,4.5,470,1,2002-07-01\n")
    loan_csv(d / "loan_inf.csv", bad_row="720,60,inf,1.5,N,4.5,470,1,07/01/2002\n")
    loan_csv(d / "loan_fico.csv", bad_row="5000,60,25000,1.5,N,4.5,470,1,07/01/2002\n")
    loan_csv(d / "loan_huge.csv", bad_row="720,60,1e300,1.5,N,4.5,470,1,07/01/2002\n")
    loan_csv(d / "loan_apply.csv", bad_row="720,60,25000,1.5,N,4.5,470,2,07/01/2002\n")
    loan_csv(d / "loan_car.csv", bad_row="720,60,25000,1.5,X,4.5,470,1,07/01/2002\n")
    loan_csv(d / "loan_year.csv", bad_row="720,60,25000,1.5,N,4.5,470,1,07/01/1802\n")
    (d / "loan_binary.csv").write_bytes(b"\x00\x00\x00\x00PK")
    (d / "a_file").write_text("I am a file, not a folder")
    pets = "age,income,score,label,city\n" + "".join(f"{30 + i},{40 + i}.5,0.{i},{('cat', 'dog', 'fish')[i % 3]},Oslo\n"
                                                   for i in range(50))
    (d / "pets.csv").write_text(pets)
    lines = pets.splitlines(keepends=True)
    lines[4] = "33,,0.3,cat,Oslo\n"  # row 3: no income
    (d / "pets_missing.csv").write_text("".join(lines))
    pd.DataFrame({"age": np.arange(50.0), "label": ["cat", "dog"] * 24 + [None, "cat"]}).to_parquet(
        d / "pets_missing_label.parquet")
    (d / "ab.csv").write_text("control,variant\n" + "0.5,0.4\n" * 50)
    (d / "bad_policies.py").write_text(POLICIES)
    (d / "raising_module.py").write_text("RATE = 1 / 0\n\n\nclass Policy:\n    pass\n")
    return d


def table(path, *extra):
    return ["algo=ucb", "env=table", f"env.path={path}", "T=40", "trials=1", *extra]


def pets(path, *extra):
    return ["algo=epsilon_greedy", "env=contextual_table", "env.source=supervised", f"env.path={path}", "T=40",
            "env.fit_rows=0", "env.n_fitted=0", "trials=1", *extra]


def loans(path, *extra):
    return ["+experiment=fig5", f"env.data_path={path}", "T=30", "trials=1", "~algos.mw", *extra]


def policy(name, *extra):
    return ["algo=custom", f"algo._target_=bad_policies.{name}", "T=60", "trials=1", *extra]


# (id, arguments, exit code, fragments of the one-paragraph message); {d} is the inputs folder
CASES = [
    # ------------------------------------------------------------ files that are not what they claim
    ("missing_table", table("{d}/none.npz"), 2, ["does not exist"]),
    ("table_is_a_folder", table("{d}/folder.npz"), 2, ["is a folder, not a file"]),
    ("text_renamed_npz", table("{d}/text.npz"), 2, ["is not a .npz file", "signature"]),
    ("empty_npz", table("{d}/empty.npz"), 2, ["is empty"]),
    ("sparse_2GB_file", table("{d}/big.csv"), 2, ["2,000 MB", "over the limit", "env.max_file_mb"]),
    ("wrong_suffix", table("{d}/problem.txt"), 2, ["suffix '.txt'"]),
    ("text_renamed_parquet", table("{d}/text.parquet"), 2, ["is not a .parquet file"]),
    ("binary_csv", table("{d}/binary.csv"), 2, ["binary data"]),
    ("empty_csv", table("{d}/empty.csv"), 2, ["is empty"]),
    ("no_env_path", ["env=table", "T=40"], 2, ["needs env.path"]),
    # ------------------------------------------------------------ values that parse but are not sane
    ("npz_without_means", table("{d}/no_means.npz"), 2, ["no array named 'means'"]),
    ("complex_means", table("{d}/complex.npz"), 2, ["complex numbers"]),
    ("object_means", table("{d}/objects.npz"), 2, ["Python objects"]),
    ("text_means", table("{d}/strings.npz"), 2, ["holds text"]),
    ("datetime_means", table("{d}/dates.npz"), 2, ["holds dates"]),
    ("flat_means", table("{d}/flat.npz"), 2, ["T x K array"]),
    ("nan_mean", table("{d}/nan.npz"), 2, ["NaN or inf", "round 4, arm 1"]),
    ("inf_mean", table("{d}/inf.npz"), 2, ["NaN or inf", "round 4, arm 1"]),
    ("huge_mean", table("{d}/huge.npz"), 2, ["1e+300", "env.max_abs_value"]),
    ("mean_outside_declared_range", table("{d}/negative.npz", "env.reward_range=[0,1]"), 2,
     ["-2", "below the declared range"]),
    ("rewards_shape", table("{d}/mismatch.npz"), 2, ["'rewards' has shape"]),
    ("actions_shape", table("{d}/bad_actions.npz"), 2, ["'actions' must be"]),
    ("action_dimension", table("{d}/linear.npz", "env.d=2"), 2, ["dimension 4 but env.d=2"]),
    ("too_few_rounds", table("{d}/good.npz", "T=51"), 2, ["has 50 rounds but T=51"]),
    ("inf_text_in_csv", table("{d}/inf.csv"), 2, ["NaN or inf", "round 1, arm 1"]),
    ("text_in_csv", table("{d}/text_value.csv"), 2, ["'abc'", "not a number"]),
    ("complex_in_csv", table("{d}/complex.csv"), 2, ["'1+2j'", "not a number"]),
    ("csv_without_mean_columns", table("{d}/no_means.csv"), 2, ["no columns named mean_0"]),
    ("csv_mean_columns_gap", table("{d}/gap.csv"), 2, ["mean columns must be"]),
    ("csv_reward_columns", table("{d}/rewards_mismatch.csv"), 2, ["reward columns must match"]),
    ("datetime_parquet", table("{d}/dates.parquet"), 2, ["mean_0 holds timestamp", "numbers"]),
    ("string_parquet", table("{d}/strings.parquet"), 2, ["mean_0 holds", "string", "must hold numbers"]),
    ("bad_reward_range", table("{d}/good.npz", "env.reward_range=[1,0]"), 2, ["lo < hi"]),
    ("gaussian_noise_leaves_declared_range", table("{d}/good.npz", "env.reward_range=[0,1]"), 2,
     ["Gaussian noise", "unbounded", "env.noise=bernoulli", "env.noise=clipped"]),
    ("clipped_noise_without_range", table("{d}/good.npz", "env.noise=clipped"), 2, ["env.reward_range=[lo, hi]"]),
    ("unknown_noise", table("{d}/good.npz", "env.noise=uniform"), 2, ["env.noise must be one of"]),
    ("unknown_mean_column", table("{d}/ab.csv", "env.means=[control,varaint]"), 2,
     ["env.means names 'varaint'", "did you mean 'variant'", "its columns are 'control', 'variant'"]),
    ("mean_columns_named_for_npz", table("{d}/good.npz", "env.means=[a,b]"), 2, ["columns of a .csv or .parquet"]),
    # ------------------------------------------------------------ tables as they come (contextual_table)
    ("unknown_feature_name", pets("{d}/pets.csv", "env.features=[age,incom]"), 2,
     ["env.features names 'incom'", "did you mean 'income'", "'age', 'income', 'score', 'label', 'city'",
      "numeric context columns other than the label column"]),
    ("unknown_label_column", pets("{d}/pets.csv", "env.label=species"), 2,
     ["env.label names 'species'", "its columns are 'age', 'income'"]),
    ("non_numeric_feature", pets("{d}/pets.csv", "env.features=[age,city]"), 2,
     ["column city, row 0 holds 'Oslo', not a number", "encode a categorical column"]),
    ("missing_feature_value", pets("{d}/pets_missing.csv"), 2, ["column income, row 3 has no value"]),
    ("missing_label", pets("{d}/pets_missing_label.parquet"), 2, ["column label, row 48 has no value"]),
    ("feature_is_the_label", pets("{d}/pets.csv", "env.features=[age,label]"), 2,
     ["column 'label' is the label column"]),
    ("label_for_a_logged_table", pets("{d}/pets.csv", "env.source=file", "env.label=label"), 2,
     ["env.label names the label column of a classification table"]),
    ("auto_loan_missing_file", loans("{d}/none.csv"), 2, ["does not exist", "CPRM"]),
    ("auto_loan_missing_column", loans("{d}/loan_missing_column.csv"), 2, ["lacks column"]),
    ("auto_loan_bad_date", loans("{d}/loan_bad_date.csv"), 2, ["Approve_Date", "not a m/d/Y date"]),
    ("auto_loan_date_from_1802", loans("{d}/loan_year.csv"), 2, ["Approve_Date", "07/01/1802"]),
    ("auto_loan_inf", loans("{d}/loan_inf.csv"), 2, ["Amount_Approved holds inf", "plausible range"]),
    ("auto_loan_fico", loans("{d}/loan_fico.csv"), 2, ["Primary_FICO holds 5000", "[300, 850]"]),
    ("auto_loan_huge_amount", loans("{d}/loan_huge.csv"), 2, ["Amount_Approved holds 1e+300"]),
    ("auto_loan_apply", loans("{d}/loan_apply.csv"), 2, ["apply holds 2"]),
    ("auto_loan_car_type", loans("{d}/loan_car.csv"), 2, ["CarType must be one of"]),
    ("auto_loan_binary", loans("{d}/loan_binary.csv"), 2, ["binary data"]),
    ("auto_loan_too_few_rows", loans("{d}/loan_good.csv", "T=41"), 2, ["has 40 rows but T=41"]),
    # ------------------------------------------------------------ sizes with no limit
    ("exact_tv_for_K_22", ["algo=iltcb", "env=drifting_contextual", "env.K=22", "T=1000"], 2,
     ["env.K=22", "K <= 12", "env.tv=monte_carlo"]),
    ("policy_class_too_large", ["algo=iltcb", "env=drifting_contextual", "env.n_policies=100000000", "T=100000"],
     2, ["GB in memory", "n_jobs"]),
    ("lower_bound_too_large", ["algo=ucb", "env=lower_bound", "env.d=12", "T=100000000"], 2, ["GB in memory"]),
    ("table_over_max_cells", table("{d}/good.npz", "env.max_cells=10"), 2, ["over the limit of 10", "env.max_cells"]),
    ("T_beyond_limit", ["T=10000000000"], 2, ["T must be <= 1,000,000,000"]),
    # ------------------------------------------------------------ config values out of range, misspelt keys
    ("T_zero", ["T=0"], 2, ["T must be >= 1"]),
    ("T_negative", ["T=-5"], 2, ["T must be >= 1"]),
    ("T_text", ["T=abc"], 2, ["T must be an integer"]),
    ("trials_fraction", ["trials=2.5"], 2, ["trials must be an integer"]),
    ("trials_zero", ["trials=0"], 2, ["trials must be >= 1"]),
    ("seed_negative", ["seed=-1"], 2, ["seed must be >= 0"]),
    ("seed_beyond_int64", ["seed=1e20"], 2, ["seed must be <="]),
    ("n_jobs_zero", ["n_jobs=0"], 2, ["n_jobs must be a positive number"]),
    ("horizon_scale_zero", ["horizon_scale=0"], 2, ["horizon_scale must be > 0"]),
    ("overwrite_not_bool", ["overwrite=maybe"], 2, ["overwrite must be true or false"]),
    ("dry_run_not_bool", ["dry_run=yes"], 2, ["dry_run must be true or false"]),
    ("experiment_name_path", ["experiment_name=../up"], 2, ["experiment_name='../up'"]),
    ("unknown_new_top_level_key", ["+trails=3"], 2, ["unknown top-level key 'trails'", "did you mean 'trials'"]),
    ("unknown_top_level_key", ["tirals=3"], 2, ["no top-level key 'tirals'", "did you mean trials"]),
    ("unknown_algo_key", ["algo=sw_ucb", "algo.windw=3"], 2, ["no key 'windw'", "did you mean algo.window"]),
    ("unknown_new_algo_key", ["algo=sw_ucb", "+algo.windw=3"], 2, ["no parameter 'windw'", "did you mean 'window'"]),
    ("unknown_env_key", ["env.RR=1"], 2, ["no key 'RR'", "did you mean env.R"]),
    ("unknown_algo", ["algo=nope"], 2, ["no algo config named 'nope'", "sw_ucb_opt", "bob"]),
    ("unknown_env", ["env=nope"], 2, ["no env config named 'nope'", "sinusoid"]),
    ("unknown_experiment", ["+experiment=nope"], 2, ["no experiment config named 'nope'", "fig2a"]),
    # a misspelt name: a "did you mean" and the valid names, wherever it is given
    ("misspelt_algo", ["algo=glr_kl_ucb"], 2,
     ["no algo config named 'glr_kl_ucb' (did you mean 'glr_klucb'?); valid names: ", "sw_ucb_opt"]),
    ("misspelt_env", ["env=sinsoid"], 2,
     ["no env config named 'sinsoid' (did you mean 'sinusoid'?); valid names: ", "piecewise_bernoulli"]),
    ("misspelt_experiment", ["+experiment=ns_bench"], 2,
     ["no experiment config named 'ns_bench' (did you mean 'ns_benchmark'?); valid names: ", "fig2a"]),
    ("every_misspelt_name_of_a_list", ["algos=[ucb11,glr_kucb]", "env=piecewise_bernoulli"], 2,
     ["names 2 algorithms with no config: 'ucb11' (did you mean 'ucb1'", "'glr_kucb' (did you mean 'glr_klucb'"]),
    ("misspelt_target_of_ones_own", ["algos=[mine]", "algos.mine._targt_=examples.my_policies.DiscountedMeans",
                                     "env=piecewise_bernoulli"], 2,
     ["sets algos.mine._targt_ (did you mean algos.mine._target_?)"]),
    ("a_key_under_algos_in_a_run_of_one_algo", ["algo=ucb1", "env=piecewise_bernoulli", "algos.ucb1.foo=1"], 2,
     ["this run has no algorithm 'ucb1' under algos", "algo.foo=..."]),
    ("misspelt_algo_under_algos", ["+algo@algos.mine=glr_kl_ucb"], 2,
     ["no algo config named 'glr_kl_ucb' (did you mean 'glr_klucb'?)"]),
    ("misspelt_algo_in_a_sweep", ["-m", "algo=ucb1,glr_kl_ucb"], 2,
     ["no algo config named 'glr_kl_ucb' (did you mean 'glr_klucb'?)"]),
    ("misspelt_experiment_in_a_sweep", ["-m", "+experiment=fig2a,fig2x"], 2,
     ["no experiment config named 'fig2x' (did you mean 'fig2b' or 'fig2a'?)"]),
    ("misspelt_launcher", ["-m", "hydra/launcher=slrum", "algo=ucb1"], 2,
     ["no hydra/launcher config named 'slrum' (did you mean 'slurm'?)"]),
    ("override_syntax", ["trials=[1"], 2, ["cannot read the override 'trials=[1'"]),
    ("negative_noise", ["env.R=-0.1"], 2, ["env.R must be >= 0"]),
    ("window_zero", ["algo=sw_ucb", "algo.window=0"], 2, ["algo.window must be >= 1"]),
    ("lambda_zero", ["algo=sw_ucb", "algo.lam=0"], 2, ["algo.lam must be > 0"]),
    ("unknown_backend", ["parallel.backend=spark"], 2, ["parallel.backend must be loky or dask"]),
    ("experiment_and_algo", ["+experiment=fig2a", "algo=bob"], 2, ["drop algo=..."]),
    ("sweep_with_one_bad_point", ["-m", "T=1000,0"], 2, ["T must be >= 1"]),
    # a sweep over seeds checks the rest of the config once and every seed itself
    ("seed_sweep_with_one_bad_seed", ["-m", "seed=0,1,-1"], 2, ["seed must be >= 0"]),
    ("scenario_seed_sweep_with_one_bad_seed", ["-m", "+experiment=master_geo", "seed=3,-2", "T=100"], 2,
     ["seed must be >= 0"]),
    # ------------------------------------------------------------ wrong algorithm / environment pairs
    ("contextual_algo_on_karmed_env", ["algo=iltcb", "env=sinusoid"], 2,
     ["algorithm 'iltcb' does not fit env=sinusoid", "contextual", "Algorithms for env=sinusoid"]),
    ("karmed_algo_on_contextual_env", ["algo=bob", "env=drifting_contextual"], 2,
     ["algorithm 'bob' does not fit env=drifting_contextual", "Environments 'bob' runs on"]),
    ("pricing_algo_on_karmed_env", ["algo=mw", "env=sinusoid"], 2, ["algorithm 'mw' does not fit"]),
    ("semibandit_algo_on_karmed_env", ["algo=sw_ucb_comb_obl", "env=sinusoid"], 2, ["does not fit env=sinusoid"]),
    ("glb_algo_on_linear_env", ["algo=glm_ucb", "env=piecewise_linear"], 2, ["does not fit env=piecewise_linear"]),
    # ------------------------------------------------------------ the results folder
    ("results_dir_is_a_file", ["results_dir={d}/a_file"], 2, ["is a file, not a folder"]),
    ("results_dir_below_a_file", ["results_dir={d}/a_file/sub"], 2, ["is a file, not a folder"]),
    ("results_dir_not_writable", ["results_dir=/proc/drift-bandits-results"], 2, ["cannot be written"]),
    ("results_dir_empty", ["results_dir=' '"], 2, ["results_dir must be a folder path"]),
    # ------------------------------------------------------------ user code
    ("check_params_raises", policy("BadParams", "+algo.eta=-1"), 2,
     ["BadParams.check_params() raised ValueError: eta must be >= 0", "before any work"]),
    ("select_raises", policy("CrashesInSelect"), 2,
     ["CrashesInSelect.select() raised IndexError", "round 1", "cell algo=CrashesInSelect, T=60, trial 0",
      "debug=true"]),
    ("update_raises", policy("CrashesInUpdate"), 2, ["CrashesInUpdate.update() raised RuntimeError: my update "
                                                     "is broken", "round 7"]),
    ("reset_raises", policy("CrashesInReset"), 2, ["CrashesInReset.reset() raised KeyError", "before round 0"]),
    ("select_returns_bad_arm", policy("BadArm"), 2, ["BadArm.select(0) returned -1", "int arm in 0..1"]),
    ("select_returns_float", policy("FloatArm"), 2, ["FloatArm.select(0) returned 0.5"]),
    ("target_not_a_policy", policy("NotAPolicy"), 2, ["is not a policy"]),
    ("target_module_missing", ["algo=custom", "algo._target_=no_such_module.Policy"], 2,
     ["algo._target_=no_such_module.Policy: no module named 'no_such_module' is importable from the current folder (",
      "or the installed packages"]),
    ("target_module_misspelt", ["algo=custom", "algo._target_=bad_polices.BadParams", "T=60", "trials=1"], 2,
     ["no module named 'bad_polices' is importable", "(did you mean 'bad_policies'?)"]),
    ("target_class_misspelt", policy("BadParmas"), 2,
     ["algo._target_=bad_policies.BadParmas: the module bad_policies was found (", "bad_policies.py)",
      "no class 'BadParmas' (did you mean 'BadParams'?)", "its classes: BadArm, BadParams,"]),
    ("target_class_misspelt_under_algos", ["+algo@algos.mine=custom", "algos.mine._target_=bad_policies.BadParmas",
                                           "T=60", "trials=1"], 2,
     ["algos.mine._target_=bad_policies.BadParmas: the module bad_policies was found", "did you mean 'BadParams'?"]),
    ("env_target_class_misspelt", ["algo=ucb1", "env._target_=bandits.environments.Sinusiod"], 2,
     ["env._target_=bandits.environments.Sinusiod: the module bandits.environments was found (",
      "no class 'Sinusiod' (did you mean 'Sinusoid'?)"]),
    ("target_module_that_raises", ["algo=custom", "algo._target_=raising_module.Policy", "T=60", "trials=1"], 2,
     ["the module raising_module was found (", "raising_module.py), but importing it raised ZeroDivisionError"]),
    ("custom_without_target", ["algo=custom"], 2, ["has no _target_"]),
    ("user_policy_on_wrong_kind", policy("BadParams", "env=drifting_contextual"), 2, ["does not fit"]),
]


def fingerprint(folder):
    """Size, modification time and (below 1 MB) content of every input file."""
    out = {}
    for p in sorted(folder.iterdir()):
        st = p.stat()
        small = p.is_file() and st.st_size < 10 ** 6
        out[p.name] = (st.st_size, st.st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest() if small else None)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_stops_with_one_paragraph(case, inputs, tmp_path, capsys, monkeypatch):
    name, args, code, fragments = case
    monkeypatch.chdir(inputs)  # the user's policies are a module in the working directory
    results = tmp_path / "results"
    args = [a.format(d=inputs) for a in args]
    if not any(a.startswith("results_dir=") for a in args):
        args.append(f"results_dir={results}")
    before = fingerprint(inputs)
    assert cli.entry(args) == code
    out = capsys.readouterr()
    text = out.out + out.err
    assert "Traceback" not in text, text
    errors = [line for line in out.err.splitlines() if line.startswith(("error:", "internal error:"))]
    assert len(errors) == 1, out.err  # one paragraph
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
    assert fingerprint(inputs) == before  # no input file modified
    assert not list(results.glob("runs/*/*.parquet")) and not (results / "tables").exists()  # nothing partial
    assert not list(results.glob("hydra/*/run.log"))  # and no run folder


def test_the_corpus_covers_every_class_of_bad_input():
    assert len(CASES) >= 60
    assert len({c[0] for c in CASES}) == len(CASES)


# ----------------------------------------------------------------------------- faults while running

def run(args, tmp_path):
    return cli.entry([*args, f"results_dir={tmp_path}"])


def test_a_damaged_table_is_rebuilt_from_its_cells(tmp_path, capsys):
    args = ["algo=exp3s", "T=300", "trials=3"]
    assert run(args, tmp_path) == 0
    table = tmp_path / "tables" / "adhoc.parquet"
    good = pd.read_parquet(table)
    table.write_bytes(table.read_bytes()[:100])  # truncated
    capsys.readouterr()
    assert run(["algo=bob", "T=300", "trials=1"], tmp_path) == 0
    out = capsys.readouterr().out
    assert "was damaged" in out and "rebuilt from its 4 cells" in out  # exp3s's 3 and the new bob cell
    rebuilt = pd.read_parquet(table)
    assert set(rebuilt["label"]) == {"exp3s", "bob"}
    pd.testing.assert_frame_equal(rebuilt[rebuilt["algo"] == "exp3s"].reset_index(drop=True)[good.columns],
                                  good.reset_index(drop=True))
    assert (tmp_path / "tables" / "adhoc.parquet.corrupt").exists()


def test_a_full_disk_keeps_every_finished_cell(tmp_path, capsys, monkeypatch):
    from bandits.experiments.store import shards

    real, calls = shards.atomic_write, {"n": 0}

    def fills_up(table, path):
        calls["n"] += 1
        if calls["n"] > 2:
            raise OSError(28, "No space left on device", str(path))
        real(table, path)

    monkeypatch.setattr(shards, "atomic_write", fills_up)
    # batch_s=0: every finished cell is written at once; the third write finds the disk full.
    assert run(["algo=exp3s", "T=300", "trials=4", "parallel.batch_s=0"], tmp_path) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "No space left on device" in err
    assert "cells stored before this error are kept" in err
    stored = list((tmp_path / "runs" / "adhoc").glob("*.parquet"))
    assert sum(len(pd.read_parquet(p)) for p in stored) == 2


def test_an_internal_error_exits_1_and_debug_shows_the_traceback(tmp_path, capsys, monkeypatch):
    from bandits.algorithms import exp3

    def broken(*args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(exp3, "rexp3_kernel", broken)
    assert run(["algo=exp3s", "T=300", "trials=1"], tmp_path) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error: EXP3S.play() failed with ZeroDivisionError: a bug" in err
    assert "bug of drift-bandits" in err
    assert run(["algo=exp3s", "T=300", "trials=1", "debug=true"], tmp_path / "debug") == 1
    assert "Traceback" in capsys.readouterr().err


def test_an_interrupt_exits_130_and_keeps_finished_cells(tmp_path, monkeypatch):
    from bandits.experiments.run import worker

    real, calls = worker.run_cell, {"n": 0}

    def interrupted(*args):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(worker, "run_cell", interrupted)
    assert run(["algo=exp3s", "T=300", "trials=5"], tmp_path) == 130
    # The batch in flight writes the cells it finished before Ctrl-C reaches the command.
    stored = list((tmp_path / "runs" / "adhoc").glob("*.parquet"))
    assert sum(len(pd.read_parquet(p)) for p in stored) == 2


def test_exit_codes_and_limits_are_documented():
    page = (ROOT / "docs" / "errors.md").read_text()
    from bandits.experiments.outcomes import EXIT_CODES

    for code, meaning in EXIT_CODES.items():
        assert f"| {code} | {meaning} |" in page


# ----------------------------------------------------------------------------- every writer checks its target

def writer_fails(argv, capsys) -> str:
    """Run a writer through the command line; it must end with exit status 2 and one paragraph."""
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2, argv
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def test_every_writer_checks_its_target_before_writing(tmp_path, capsys):
    """docs --out, examples DIR, plots --results and the docs render: a target that is a
    file, or holds a folder where a file is written, gets one paragraph and nothing is written."""
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    assert "is a file, not a folder" in writer_fails(["docs", "--out", str(a_file / "sub")], capsys)
    assert "is a file, not a folder" in writer_fails(["examples", str(a_file)], capsys)
    (tmp_path / "guides" / "usage.md").mkdir(parents=True)
    err = writer_fails(["docs", "--out", str(tmp_path / "guides"), "usage", "--force"], capsys)
    assert "usage.md' is a folder, where a file of that name is written" in err
    (tmp_path / "mine" / "my_policies.py").mkdir(parents=True)
    assert "my_policies.py' is a folder" in writer_fails(["examples", str(tmp_path / "mine"), "--force"], capsys)
    assert "is a file, not a results folder" in writer_fails(["plots", "--results", str(a_file)], capsys)
    results = tmp_path / "results"
    assert cli.entry(["algo=ucb1", "env=piecewise_bernoulli", "T=200", "trials=1", f"results_dir={results}"]) == 0
    (results / "claims.csv").mkdir()
    capsys.readouterr()
    assert "claims.csv' is a folder" in writer_fails(["plots", "--results", str(results)], capsys)
    assert not (results / "figures").exists()  # refused before anything was drawn
    from bandits.experiments.docs.render import main as render

    assert render(["--results", "results", "--out", str(a_file)]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_plots_of_a_named_experiment_in_a_folder_without_tables_is_refused(tmp_path, capsys):
    for results in (tmp_path / "missing", tmp_path):  # no folder, and a folder with no tables
        err = writer_fails(["plots", "--results", str(results), "--experiment", "mine"], capsys)
        assert "no experiment 'mine'" in err and "holds no tables" in err
    with pytest.raises(SystemExit) as stop:  # without a name there is nothing to refuse: a notice, exit 0
        cli.main(["plots", "--results", str(tmp_path)])
    assert stop.value.code == 0 and "nothing to plot" in capsys.readouterr().err
