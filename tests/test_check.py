"""``drift-bandits check MODULE.CLASS`` and ``bandits.check(policy)``: the conformance suite
(bandits/conformance/) on a user's policy. It passes on the shipped examples of the three routes
and on built-ins named by class path (tests/test_conformance.py runs the same checks on every
built-in config), and on a policy that breaks a rule it fails (exit 1), naming the check, while
the checks that policy keeps still pass. Bad input is one paragraph and exit 2.

The policies under check are the classes below, imported by the command as ``test_check.NAME``
(this file's module, as pytest imports it)."""

import math
import re
import time

import numpy as np
import pytest

from bandits.experiments import cli

RUN_CHECKS = ("runs", "determinism", "feedback", "needs")


def check_command(capsys, *argv):
    """``drift-bandits check ARGV``: (exit code, stdout, stderr)."""
    code = cli.subcommand("check", list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def statuses(out: str) -> dict:
    """Each check's status, from the command's lines."""
    return dict((name, status) for status, name in re.findall(r"^(PASS|FAIL|SKIP|n/a)\s+(\w+)\s", out, flags=re.M))


# --- the examples and built-ins pass

@pytest.mark.parametrize("target,params,route", [
    ("examples.my_policies.DiscountedMeans", ["gamma=0.95"], "per-trial"),
    ("examples.window_leader.WindowLeader", ["window=100"], "compiled"),
    ("examples.batched_policies.BatchedDiscountedUCB", ["gamma=0.99"], "batched"),
    ("examples.batched_policies.BatchedSlidingWindowUCB", ["--param", "window=100"], "batched"),
])
def test_the_examples_pass(capsys, target, params, route):
    code, out, err = check_command(capsys, target, *params)
    assert code == 0, out + err
    found = statuses(out)
    assert set(found) == {"protocol", "parameters", *RUN_CHECKS, "independence"}, out
    assert set(found.values()) == ({"PASS"} if route == "batched" else {"PASS", "n/a"}), out
    assert f"a {route} policy" in out and "verdict: PASS" in out


@pytest.mark.parametrize("argv", [
    ["bandits.algorithms.DiscountedUCB", "gamma=0.99", "reward_range=[0,1]"],
    ["bandits.reference.ReferenceSWUCB", "--param", "window=50", "--kind", "karmed"],
])
def test_built_ins_pass_by_class_path(capsys, argv):
    code, out, err = check_command(capsys, *argv)
    assert code == 0 and "verdict: PASS" in out, out + err
    assert "on karmed" in out.splitlines()[0]


def test_check_from_python():
    from bandits import check
    from bandits.examples.my_policies import DiscountedMeans

    found = check(DiscountedMeans(gamma=0.9))
    assert found.passed and found.failed == [] and "verdict: PASS" in str(found)
    assert check(DiscountedMeans).passed  # a class: built with its defaults


# --- policies that break a rule: the check named, exit 1

class DiscountedGreedy:
    """Greedy on discounted means after one pull of each arm: a correct per-trial policy that
    the broken ones below build on."""
    problem_kinds = ("karmed",)

    def __init__(self, gamma=0.99):
        self.gamma = gamma

    def reset(self, n_arms, horizon, rng, info):
        self.sums_, self.counts_ = np.zeros(n_arms), np.zeros(n_arms)

    def select(self, t):
        if self.counts_.min() == 0:
            return int(np.argmin(self.counts_))
        return int(np.argmax(self.sums_ / self.counts_))

    def update(self, t, arm, reward):
        self.sums_ *= self.gamma
        self.counts_ *= self.gamma
        self.sums_[arm] += reward
        self.counts_[arm] += 1.0


class FullInformationLeader:
    """Compiled-style play() that follows the leader on every arm's past rewards: it reads the
    rewards of arms it did not choose."""
    problem_kinds = ("karmed",)

    def play(self, rewards, info, rng, features=None):
        past = np.vstack([np.zeros(rewards.shape[1]), np.cumsum(rewards, axis=0)[:-1]])
        return np.argmax(past, axis=1)


class GlobalRandomExplorer(DiscountedGreedy):
    """Explores with numpy's global random state, not the rng it is handed."""

    def select(self, t):
        if np.random.random() < 0.1:
            return int(np.random.randint(len(self.sums_)))
        return super().select(t)


class ClockExplorer(DiscountedGreedy):
    """Explores when the clock says so."""

    def select(self, t):
        if time.perf_counter_ns() % 7 == 0:
            return int(time.perf_counter_ns() % len(self.sums_))
        return super().select(t)


class ComputesInConstructor(DiscountedGreedy):
    def __init__(self, gamma=0.99):
        self.gamma = gamma
        self.log_gamma = math.log(gamma)


class ValidatesInConstructor(DiscountedGreedy):
    def __init__(self, gamma=0.99):
        if not 0 < gamma <= 1:
            raise ValueError("gamma must lie in (0, 1]")
        self.gamma = gamma


class ConvertsInConstructor(DiscountedGreedy):
    def __init__(self, gamma=0.99):
        self.gamma = float(gamma)


class ResolvesItsDefault(DiscountedGreedy):
    def __init__(self, gamma=None):
        self.gamma = 0.99 if gamma is None else gamma


class StoresUnderAnotherName(DiscountedGreedy):
    def __init__(self, discount=0.99):
        self.gamma = discount


class BatchMeanGreedy:
    """Batched greedy on the means pooled over the batch: each trial depends on the others."""
    batched = True
    problem_kinds = ("karmed",)

    def reset(self, n_trials, n_arms, horizon, rng, info):
        self.sums_, self.counts_ = np.zeros((n_trials, n_arms)), np.zeros((n_trials, n_arms))
        self.rows_ = np.arange(n_trials)

    def select(self, t):
        K = self.sums_.shape[1]
        if t < K:
            return np.full(len(self.rows_), t, dtype=np.int64)
        pooled = self.sums_.sum(axis=0) / self.counts_.sum(axis=0)
        return np.full(len(self.rows_), int(np.argmax(pooled)), dtype=np.int64)

    def update(self, t, arms, rewards):
        self.sums_[self.rows_, arms] += rewards
        self.counts_[self.rows_, arms] += 1.0


class ReadsUndeclaredKey(DiscountedGreedy):
    """UCB with the noise scale R read from info without declaring it in needs()."""

    def reset(self, n_arms, horizon, rng, info):
        super().reset(n_arms, horizon, rng, info)
        self.scale_ = info["R"]

    def select(self, t):
        if self.counts_.min() == 0:
            return int(np.argmin(self.counts_))
        return int(np.argmax(self.sums_ / self.counts_ + self.scale_ * np.sqrt(np.log(t + 1) / self.counts_)))


class ReadsUndeclaredKeyWhenPresent(ReadsUndeclaredKey):
    def reset(self, n_arms, horizon, rng, info):
        DiscountedGreedy.reset(self, n_arms, horizon, rng, info)
        self.scale_ = info["R"] if "R" in info else 1.0


class ChangesTheRewards:
    """Centres the reward table it is handed, in place."""
    problem_kinds = ("karmed",)

    def play(self, rewards, info, rng, features=None):
        rewards -= rewards.mean()
        return np.zeros(rewards.shape[0], dtype=np.int64)


@pytest.mark.parametrize("policy,failed,phrase", [
    ("FullInformationLeader", "feedback", "it reads rewards it did not choose"),
    ("GlobalRandomExplorer", "determinism", "run again with the same seed"),
    ("ClockExplorer", "determinism", "run again with the same seed"),
    ("ComputesInConstructor", "parameters", "also sets log_gamma"),
    ("ValidatesInConstructor", "parameters", "the constructor raised TypeError"),
    ("ConvertsInConstructor", "parameters", "the constructor raised TypeError"),
    ("ResolvesItsDefault", "parameters", "stores gamma=0.99 (default None)"),
    ("StoresUnderAnotherName", "parameters", "discount is not stored as self.discount"),
    ("BatchMeanGreedy", "independence", "chooses differently from round"),
    ("ReadsUndeclaredKey", "needs", "it looks up R, which needs() does not declare"),
    ("ReadsUndeclaredKeyWhenPresent", "needs", "it looks up R, which needs() does not declare"),
    ("ChangesTheRewards", "runs", "output array is read-only"),  # the table is a read-only view (issue 47)
])
def test_a_policy_that_breaks_a_rule_fails_that_check(capsys, policy, failed, phrase):
    code, out, err = check_command(capsys, f"test_check.{policy}")
    assert code == 1, out + err
    found = statuses(out)
    assert [n for n, s in found.items() if s == "FAIL"] == [failed], out
    line = next(line for line in out.splitlines() if line.startswith(f"FAIL  {failed} "))
    assert phrase in line, line
    assert f"verdict: FAIL: test_check.{policy}() fails 1 of" in out and f"({failed})" in out
    # the checks it keeps pass (or could not run, after its trajectory proved not reproducible)
    kept = {"SKIP"} if failed in ("determinism", "runs") else {"PASS"}  # a policy that cannot run: no further check
    assert all(s in kept | {"PASS", "n/a"} for n, s in found.items() if n != failed), out


def test_the_correct_base_of_the_broken_policies_passes(capsys):
    code, out, err = check_command(capsys, "test_check.DiscountedGreedy", "gamma=0.9")
    assert code == 0, out + err


class WrongResetArguments(DiscountedGreedy):
    problem_kinds = ("k-armed",)

    def reset(self, K, T, rng, info):
        super().reset(K, T, rng, info)


def test_protocol_names_a_method_the_runner_cannot_call_and_an_unknown_kind(capsys):
    code, out, _ = check_command(capsys, "test_check.WrongResetArguments")
    assert code == 1
    line = next(line for line in out.splitlines() if line.startswith("FAIL  protocol "))
    assert "reset() cannot be called as the runner calls it, reset(n_arms=..., horizon=..., rng=..., info=...)" \
        in line and "'k-armed', which is no kind of problem (did you mean 'karmed'?)" in line, line
    assert statuses(out)["runs"] == "SKIP"  # no kind to run it on: not a pass
    assert "verdict: FAIL" in out


class NeedsWhatNoProblemReports(DiscountedGreedy):
    def needs(self):
        return ("Delta_TV",)


def test_a_check_that_cannot_run_is_no_pass(capsys):
    code, out, _ = check_command(capsys, "test_check.NeedsWhatNoProblemReports")
    assert code == 1 and statuses(out)["feedback"] == "SKIP"
    assert "needs() declares Delta_TV, which the suite's karmed problem does not report" in out
    assert "could not be checked in full" in out


# --- bad input: one paragraph, exit 2

class NotAPolicy:
    def act(self, t):
        return 0


@pytest.mark.parametrize("argv,phrase", [
    (["test_check.NotAPolicy"], "NotAPolicy is not a policy (it has none of these methods)"),
    (["no_such_module.Policy"], "no module named 'no_such_module'"),
    (["test_check.DiscountedGreedie"], "did you mean 'DiscountedGreedy'"),
    (["test_check.DiscountedGreedy", "gamm=0.9"], "did you mean 'gamma'"),
    (["test_check.DiscountedGreedy", "gamma"], "give NAME=VALUE"),
    (["test_check.DiscountedGreedy", "gamma=0.9,0.99"], "give one value"),
    (["test_check.ValidatesInConstructor", "gamma=2"], "raised ValueError: gamma must lie in (0, 1]"),
    (["examples.my_policies.DiscountedMeans", "gamma=5"], "DiscountedMeans needs 0 < gamma <= 1"),
    (["test_check.DiscountedGreedy", "--kind", "linear"], "does not declare linear"),
])
def test_bad_input_is_one_paragraph_and_exit_2(capsys, argv, phrase):
    code, out, err = check_command(capsys, *argv)
    assert code == 2, out + err
    assert err.startswith("error: ") and phrase in err and "Traceback" not in err + out, err
    assert len(err.strip().splitlines()) == 1, err


def test_usage(capsys):
    code, out, _ = check_command(capsys, "--help")
    assert code == 0 and out.startswith("usage: drift-bandits check MODULE.CLASS [NAME=VALUE ...]")
    for name in ("protocol", "parameters", "runs", "determinism", "feedback", "needs", "independence"):
        assert re.search(rf"^  {name}\s", out, flags=re.M), name
    assert "check" in cli.SUBCOMMANDS and "drift-bandits check MODULE.CLASS" in cli.HELP
