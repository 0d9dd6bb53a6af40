"""The checks that run a policy, on the small problem of one kind (:mod:`.trials`): it runs
(valid actions, the rewards left alone), its trajectory is reproducible, it learns only from the
rewards it chose, it reads no ``info`` key beyond ``needs()``, and, batched, each trial of a batch
is independent of the others."""

from __future__ import annotations

import copy
import traceback
from dataclasses import dataclass

import numpy as np

from bandits.algorithms.batched import BatchedGenerator, play_trials
from bandits.conformance.trials import (
    PolicyRaised,
    T,
    action_problem,
    chosen_mask,
    declared_needs,
    first_difference,
    global_random_state,
    policy_stream,
    recording_info,
    reported,
    run,
    trial,
)
from bandits.environments.base import KIND_KEYS, Instance
from bandits.simulation import learner_info

RUN_CHECKS = ("runs", "determinism", "feedback", "needs", "independence")
BATCH = 3  # trials of the batch in which each trial is run again (batched policies)
CHANNELS = ("features", "oracle")  # info keys the runner adds itself: the action sets, an oracle's channel


@dataclass
class Outcome:
    """One check's result: ``status`` PASS, FAIL, SKIP (could not run) or n/a; ``detail`` says
    what failed; ``traceback`` the policy's, where it raised."""
    status: str
    detail: str = ""
    traceback: str = ""


def check_determinism(policy, kind: str, base: np.ndarray) -> Outcome:
    """Run again with the same seed (numpy's and Python's global state seeded otherwise): the
    same trajectory."""
    instance, rewards = trial(kind)
    try:
        again = np.asarray(run(policy, instance, rewards.copy(), seed=2))
    except PolicyRaised as exc:
        return Outcome("FAIL", f"on {kind}, run again with the same seed, {exc}", exc.detail)
    if not np.array_equal(again, base):
        return Outcome("FAIL", f"on {kind}, run again with the same seed, it chooses differently from round "
                               f"{first_difference(base, again)}: draw random numbers only from the rng it is "
                               "handed (not numpy's or Python's global state, the clock or a generator of its own)")
    return Outcome("PASS")


def check_feedback(policy, kind: str, base: np.ndarray) -> Outcome:
    """Rerun on a reward table in which every reward the policy did not choose is replaced (by
    NaN, then by other random values in the same range): the same trajectory."""
    instance, rewards = trial(kind)
    seen = chosen_mask(base, rewards.shape[1], bool(instance.info.get("semibandit")))
    lo, hi = float(rewards.min()), float(rewards.max())
    fillers = (("NaN", np.full(rewards.shape, np.nan)),
               ("other random values", np.random.default_rng(99).uniform(lo, hi, rewards.shape)))
    for label, filler in fillers:
        try:
            again = np.asarray(run(policy, instance, np.where(seen, rewards, filler)))
        except PolicyRaised as exc:
            return Outcome("FAIL", f"on {kind}, with every unchosen reward replaced by {label}, {exc}: it reads "
                                   "rewards it did not choose", exc.detail)
        if not np.array_equal(again, base):
            return Outcome("FAIL", f"on {kind}, with every unchosen reward replaced by {label}, it chooses "
                                   f"differently from round {first_difference(base, again)}: it reads rewards it did "
                                   "not choose (read only the reward of the arm chosen at round t, once chosen)")
    return Outcome("PASS")


def check_needs(policy, kind: str, base: np.ndarray) -> Outcome:
    """The contract: handed only its kind's structure (KIND_KEYS) and what it declares in
    ``needs()``, a policy runs exactly as with everything a learner may be told. The ``info`` it
    is handed records the keys it looks up, so that an undeclared one is named."""
    instance, rewards = trial(kind)
    declared = declared_needs(policy)
    keep = set(KIND_KEYS[kind]) | set(declared)
    bare = Instance(means=instance.means, info={k: v for k, v in instance.info.items() if k in keep},
                    evaluation=dict(instance.evaluation), features=instance.features, optimal=instance.optimal)
    held = f"info holding only {', '.join(sorted(bare.info))} (its kind's structure and what needs() declares)"
    looked_up: set = set()
    failed = None
    try:
        again = np.asarray(run(recording_info(policy, looked_up), bare, rewards.copy(), fresh=False))
    except PolicyRaised as exc:
        failed = exc
    undeclared = sorted(str(k) for k in looked_up if k not in keep and k not in CHANNELS)
    said = ", ".join(declared) or "nothing"
    named = (f"it looks up {', '.join(undeclared)}, which needs() does not declare (it declares {said}): add "
             f"{'it' if len(undeclared) == 1 else 'them'} to what needs() returns") if undeclared else ""
    if failed is not None:
        return Outcome("FAIL", f"on {kind}, with {held}, {failed}" + (f"; {named}" if named else ""), failed.detail)
    if not np.array_equal(again, base):
        return Outcome("FAIL", f"on {kind}, with {held}, it chooses differently from round "
                               f"{first_difference(base, again)}; " +
                       (named or "it reads info beyond what needs() declares (iterating over info, say)"))
    return Outcome("PASS")


def batch_actions(policy, instance: Instance, tables: list) -> np.ndarray:
    """The actions (one row a trial) of a batched policy (a fresh copy) on the trials of
    ``tables`` at once, trial i with stream i, as the runner plays a batch. Raises
    :class:`PolicyRaised`."""
    out = np.zeros((len(tables), T), dtype=np.int64)

    def keep(t0, actions, _):
        out[:, t0:t0 + actions.shape[0]] = actions.T

    algo = copy.deepcopy(policy)
    try:
        with global_random_state(1), np.errstate(invalid="ignore"):
            play_trials(algo, [np.stack(tables, axis=1)], len(tables), T, tables[0].shape[1],
                        learner_info(algo, instance), BatchedGenerator([policy_stream(i) for i in range(len(tables))]),
                        instance.features, keep)
    except Exception as exc:  # the finding, raised again as one line
        raise reported(algo, exc, traceback.format_exc()) from None
    return out


def check_independence(policy, kind: str, base: np.ndarray) -> Outcome:
    """A batched policy: every trial of a batch of :data:`BATCH` (each with its own rewards and
    random numbers) chooses what it chooses alone, in a batch of one."""
    instance, _ = trial(kind)
    tables = [trial(kind, i)[1] for i in range(BATCH)]
    alone = [base]
    for i in range(1, BATCH):
        try:
            alone.append(np.asarray(run(policy, instance, tables[i].copy(), index=i)))
        except PolicyRaised as exc:
            return Outcome("FAIL", f"on {kind}, trial {i} alone, {exc}", exc.detail)
    try:
        together = batch_actions(policy, instance, tables)
    except PolicyRaised as exc:
        return Outcome("FAIL", f"on {kind}, in a batch of {BATCH} trials, {exc}", exc.detail)
    for i in range(BATCH):
        if not np.array_equal(together[i], alone[i]):
            return Outcome("FAIL", f"on {kind}, trial {i} of a batch of {BATCH} chooses differently from round "
                                   f"{first_difference(alone[i], together[i])} than alone: a trial's choices may "
                                   "depend only on its own rewards and random numbers (no statistic across the "
                                   "batch, nothing of n_trials)")
    return Outcome("PASS")


def kind_outcomes(policy, kind: str, batched: bool) -> tuple[dict, np.ndarray | None]:
    """The run checks (:data:`RUN_CHECKS`) on the problem of ``kind``, and the policy's
    trajectory there (None where it does not run)."""
    names = [n for n in RUN_CHECKS if n != "independence" or batched]
    instance, rewards = trial(kind)

    def skipped(why: str, outcomes: dict) -> dict:
        return outcomes | {n: Outcome("SKIP", f"on {kind}, not run: {why}") for n in names if n not in outcomes}

    missing = [k for k in declared_needs(policy) if k not in instance.info]
    if missing:
        return skipped(f"needs() declares {', '.join(missing)}, which the suite's {kind} problem does not report",
                       {}), None
    handed = rewards.copy()
    try:
        raw = run(policy, instance, handed)
    except PolicyRaised as exc:
        return skipped("the policy does not run (see runs)", {"runs": Outcome("FAIL", f"on {kind}, {exc}",
                                                                               exc.detail)}), None
    problem = action_problem(raw, instance)
    if problem is not None:
        return skipped("its actions are not valid (see runs)", {"runs": Outcome("FAIL", f"on {kind}, {problem}")}), \
            None
    base = np.asarray(raw, dtype=np.int64)
    changed = not np.array_equal(handed, rewards)  # each run below is handed a copy of its own
    out = {"runs": Outcome("FAIL", f"on {kind}, it changed the rewards it was handed (the other algorithms of a "
                                   "trial share them)") if changed else Outcome("PASS"),
           "determinism": check_determinism(policy, kind, base)}
    if out["determinism"].status != "PASS":
        return skipped("its trajectory is not reproducible (see determinism)", out), base
    steps = {"feedback": check_feedback, "needs": check_needs, "independence": check_independence}
    return out | {n: steps[n](policy, kind, base) for n in names if n not in out}, base
