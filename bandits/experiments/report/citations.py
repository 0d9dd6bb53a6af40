"""What to cite for a table: the tool, and the sources of every algorithm and environment in it.

``drift-bandits cite [TABLE | EXPERIMENT]`` prints BibTeX: the tool (as ``CITATION.cff``
states it), then each source of the table's algorithms and environments, in order of first
use, each once. The sources are the ones the fidelity rows of the docs name (the "source"
column of docs/baselines.md and docs/modern.md, the papers' own sections in docs/hedging.md
and docs/ada.md): :data:`SOURCES` maps a shipped config name to its entries, and an entry
gives only what those rows state (authors, title, venue and year), not what was not read
(pages, volumes, DOIs). An algorithm that a table lists under a key of its own (``w500``)
is found by its class (``_target_``); a class of your own is named as yours to cite.
"""

from __future__ import annotations

import json

TOOL = """@software{drift_bandits,
  title = {drift-bandits: bandits in changing environments},
  author = {{The drift-bandits developers}},
  version = {VERSION},
  note = {Code fingerprint FINGERPRINT. An experiment runner and Python library for non-stationary bandits}
}"""

# key -> (entry type, fields). Only what the docs' fidelity rows name.
ENTRIES: dict[str, tuple[str, dict]] = {
    "cheung_hedging": ("article", {
        "title": "Hedging the Drift: Learning to Optimize under Non-Stationarity",
        "author": "Cheung, Wang Chi and Simchi-Levi, David and Zhu, Ruihao"}),
    "chen_ada_iltcb": ("inproceedings", {
        "title": "A New Algorithm for Non-stationary Contextual Bandits: Efficient, Optimal, and Parameter-free",
        "author": "Chen, Yifang and Lee, Chung-Wei and Luo, Haipeng and Wei, Chen-Yu",
        "booktitle": "Conference on Learning Theory (COLT)", "year": "2019"}),
    "auer_ucb1": ("article", {
        "title": "Finite-time Analysis of the Multiarmed Bandit Problem",
        "author": "Auer, Peter and Cesa-Bianchi, Nicol{\\`o} and Fischer, Paul",
        "journal": "Machine Learning", "year": "2002"}),
    "garivier_klucb": ("inproceedings", {
        "title": "The {KL-UCB} Algorithm for Bounded Stochastic Bandits and Beyond",
        "author": "Garivier, Aur{\\'e}lien and Capp{\\'e}, Olivier",
        "booktitle": "Conference on Learning Theory (COLT)", "year": "2011"}),
    "thompson_1933": ("article", {
        "title": "On the Likelihood that One Unknown Probability Exceeds Another in View of the Evidence of "
                 "Two Samples",
        "author": "Thompson, William R.", "journal": "Biometrika", "year": "1933"}),
    "agrawal_ts": ("inproceedings", {
        "title": "Analysis of {Thompson} Sampling for the Multi-armed Bandit Problem",
        "author": "Agrawal, Shipra and Goyal, Navin",
        "booktitle": "Conference on Learning Theory (COLT)", "year": "2012"}),
    "kocsis_ducb": ("misc", {
        "title": "Discounted {UCB}", "author": "Kocsis, Levente and Szepesv{\\'a}ri, Csaba",
        "note": "2nd PASCAL Challenges Workshop", "year": "2006"}),
    "garivier_switching": ("inproceedings", {
        "title": "On Upper-Confidence Bound Policies for Switching Bandit Problems",
        "author": "Garivier, Aur{\\'e}lien and Moulines, Eric",
        "booktitle": "Algorithmic Learning Theory (ALT)", "year": "2011"}),
    "raj_dts": ("misc", {
        "title": "Taming Non-stationary Bandits: A {Bayesian} Approach",
        "author": "Raj, Vishnu and Kalyani, Sheetal", "note": "arXiv", "year": "2017"}),
    "trovo_swts": ("article", {
        "title": "Sliding-Window {Thompson} Sampling for Non-Stationary Settings",
        "author": "Trov{\\`o}, Francesco and Paladino, Stefano and Restelli, Marcello and Gatti, Nicola",
        "journal": "Journal of Artificial Intelligence Research", "year": "2020"}),
    "liu_cusum": ("inproceedings", {
        "title": "A Change-Detection based Framework for Piecewise-stationary Multi-Armed Bandit Problem",
        "author": "Liu, Fang and Lee, Joohyun and Shroff, Ness",
        "booktitle": "AAAI Conference on Artificial Intelligence", "year": "2018"}),
    "cao_mucb": ("inproceedings", {
        "title": "Nearly Optimal Adaptive Procedure with Change Detection for Piecewise-Stationary Bandit",
        "author": "Cao, Yang and Wen, Zheng and Kveton, Branislav and Xie, Yao",
        "booktitle": "International Conference on Artificial Intelligence and Statistics (AISTATS)",
        "year": "2019"}),
    "besson_glr": ("article", {
        "title": "Efficient Change-Point Detection for Tackling Piecewise-Stationary Bandits",
        "author": "Besson, Lilian and Kaufmann, Emilie and Maillard, Odalric-Ambrym and Seznec, Julien",
        "journal": "Journal of Machine Learning Research", "year": "2022"}),
    "wei_master": ("inproceedings", {
        "title": "Non-stationary Reinforcement Learning without Prior Knowledge: An Optimal Black-box Approach",
        "author": "Wei, Chen-Yu and Luo, Haipeng",
        "booktitle": "Conference on Learning Theory (COLT)", "year": "2021"}),
    "auer_adswitch": ("inproceedings", {
        "title": "Adaptively Tracking the Best Bandit Arm with an Unknown Number of Distribution Changes",
        "author": "Auer, Peter and Gajane, Pratik and Ortner, Ronald",
        "booktitle": "Conference on Learning Theory (COLT)", "year": "2019"}),
    "qi_dsts": ("misc", {
        "title": "Discounted {Thompson} Sampling for Non-Stationary Bandit Problems",
        "author": "Qi, Han and Wang, Yue and Zhu, Li", "note": "arXiv 2305.10718", "year": "2023"}),
    "baudry_lbsda": ("inproceedings", {
        "title": "On Limited-Memory Subsampling Strategies for Bandits",
        "author": "Baudry, Dorian and Russac, Yoan and Capp{\\'e}, Olivier",
        "booktitle": "International Conference on Machine Learning (ICML)", "year": "2021"}),
    "besbes_rexp3": ("inproceedings", {
        "title": "Stochastic Multi-Armed-Bandit Problem with Non-stationary Rewards",
        "author": "Besbes, Omar and Gur, Yonatan and Zeevi, Assaf",
        "booktitle": "Advances in Neural Information Processing Systems (NeurIPS)", "year": "2014"}),
    "auer_exp3": ("article", {
        "title": "The Nonstochastic Multiarmed Bandit Problem",
        "author": "Auer, Peter and Cesa-Bianchi, Nicol{\\`o} and Freund, Yoav and Schapire, Robert E.",
        "journal": "SIAM Journal on Computing", "year": "2002"}),
    "russac_dlinucb": ("inproceedings", {
        "title": "Weighted Linear Bandits for Non-Stationary Environments",
        "author": "Russac, Yoan and Vernade, Claire and Capp{\\'e}, Olivier",
        "booktitle": "Advances in Neural Information Processing Systems (NeurIPS)", "year": "2019"}),
    "kim_randomized": ("inproceedings", {
        "title": "Randomized Exploration for Non-Stationary Stochastic Linear Bandits",
        "author": "Kim, Baekjin and Tewari, Ambuj",
        "booktitle": "Conference on Uncertainty in Artificial Intelligence (UAI)", "year": "2020"}),
    "zhao_restart": ("inproceedings", {
        "title": "A Simple Approach for Non-stationary Linear Bandits",
        "author": "Zhao, Peng and Zhang, Lijun and Jiang, Yuan and Zhou, Zhi-Hua",
        "booktitle": "International Conference on Artificial Intelligence and Statistics (AISTATS)",
        "year": "2020"}),
    "vowpal_wabbit": ("misc", {"title": "Vowpal Wabbit", "note": "https://vowpalwabbit.org"}),
}

HEDGING = ["cheung_hedging"]
BESSON = ["besson_glr"]
SOURCES: dict[str, list[str]] = {  # config name -> entries (the docs' source column)
    "ucb1": ["auer_ucb1"], "kl_ucb": ["garivier_klucb"], "thompson": ["thompson_1933", "agrawal_ts"],
    "d_ucb": ["kocsis_ducb", "garivier_switching"], "sw_ucb_gm": ["garivier_switching"],
    "discounted_ts": ["raj_dts"], "sw_ts": ["trovo_swts"], "cusum_ucb": ["liu_cusum"], "m_ucb": ["cao_mucb"],
    "pht_ucb": ["liu_cusum"], "cusum_klucb": BESSON, "m_klucb": BESSON, "d_klucb": BESSON, "sw_klucb_gm": BESSON,
    "glr_klucb": BESSON, "glr_klucb_global": BESSON,
    "master_ucb": ["wei_master"], "master_ucb_nolog": ["wei_master"], "master_ucb_reimpl": ["wei_master"],
    "master_oful": ["wei_master"], "master_oful_nolog": ["wei_master"], "master_ctx": ["wei_master"],
    "master_iltcb": ["wei_master", "chen_ada_iltcb"],
    "adswitch": ["auer_adswitch"], "adswitch_literal": ["auer_adswitch"],
    "ds_ts": ["qi_dsts"], "ds_ts_authors": ["qi_dsts"], "sw_lb_sda": ["baudry_lbsda"],
    "exp3s": ["besbes_rexp3", "cheung_hedging"], "exp3s_auer": ["auer_exp3"],
    "d_linucb": ["russac_dlinucb"], "d_randlinucb": ["kim_randomized"], "d_lints": ["kim_randomized"],
    "restart_linucb": ["zhao_restart"], "restart_linucb_bob": ["zhao_restart", "cheung_hedging"],
    **{name: HEDGING for name in ("sw_ucb", "sw_ucb_opt", "sw_ucb_obl", "ucb", "bob", "bob_glb", "bob_semibandit",
                                  "sw_ucb_glb_obl", "sw_ucb_glb_opt", "glm_ucb", "sw_ucb_comb_obl",
                                  "sw_ucb_comb_opt", "cucb", "mw", "company")},
    "ada_iltcb_plus": ["chen_ada_iltcb"], "ada_iltcb_plus_theory": ["chen_ada_iltcb"],
    "ada_iltcb_plus_noreplay": ["chen_ada_iltcb"], "iltcb": ["chen_ada_iltcb"], "iltcb_theory": ["chen_ada_iltcb"],
    "exp4": ["auer_exp3"], "vw_cover": ["vowpal_wabbit"], "vw_epsilon": ["vowpal_wabbit"],
    # environments
    "sinusoid": HEDGING, "piecewise_linear": HEDGING, "autoloan": HEDGING, "drifting_logistic": HEDGING,
    "drifting_semibandit": HEDGING, "lower_bound": HEDGING, "drifting_contextual": ["chen_ada_iltcb"],
}
OWN = {  # shipped configs with no source to cite, and why
    "oracle_restart": "a reference learner of this tool (told the change points)",
    "oracle_restart_ucb": "a reference learner of this tool (told the change points)",
    "epsilon_greedy": "epsilon-greedy with the ERM oracle, a textbook baseline",
    "custom": "your own class",
    "piecewise_bernoulli": "this tool's problem family (docs/baselines.md)",
    "table": "your own data", "contextual_table": "your own data",
}


def bibtex(key: str) -> str:
    kind, fields = ENTRIES[key]
    width = max(len(f) for f in fields)
    body = ",\n".join(f"  {name.ljust(width)} = {{{value}}}" for name, value in fields.items())
    return f"@{kind}{{{key},\n{body}\n}}"


def config_names_by_class() -> dict[str, str]:
    """Each shipped algorithm or environment class (its ``_target_``) -> the config that names it
    in its own file (``m_ucb`` for MonitoredUCB, not ``m_klucb``, which inherits it), else the
    first that inherits it."""
    import yaml

    from bandits.experiments.compose.registry import config_file, names, raw_config

    own: dict[str, str] = {}
    inherited: dict[str, str] = {}
    for group in ("algo", "env"):
        for name in names(group):
            target = (raw_config(group, name) or {}).get("_target_")
            if not isinstance(target, str):
                continue
            path = config_file(group, name)
            data = yaml.safe_load(path.read_text()) if path is not None else None
            (own if isinstance(data, dict) and "_target_" in data else inherited).setdefault(target, name)
    return {**inherited, **own}


def table_names(rows) -> list[tuple[str, str, str | None]]:
    """(what, name in the table, its shipped config or None) for each algorithm and environment,
    in order of first appearance."""
    by_class = None
    out, seen = [], set()
    for what, column in (("algorithm", "algo"), ("environment", "env")):
        for name, params in rows[[column, f"{column}_params"]].drop_duplicates(column).itertuples(index=False):
            if (what, name) in seen:
                continue
            seen.add((what, name))
            if name in SOURCES or name in OWN:
                out.append((what, name, name))
                continue
            target = (json.loads(params) if isinstance(params, str) and params else {}).get("_target_")
            by_class = config_names_by_class() if by_class is None else by_class
            out.append((what, name, by_class.get(target)))
    return out


def cite(rows, version: str, fingerprint: str) -> str:
    """The BibTeX of the tool and of every source of ``rows``' algorithms and environments, each
    once, with a comment line per algorithm and environment saying which entries are its."""
    lines, keys = [TOOL.replace("VERSION", version).replace("FINGERPRINT", fingerprint), ""], []
    for what, name, config in table_names(rows):
        if config in SOURCES:
            lines.append(f"% {what} {name}: {', '.join(SOURCES[config])}"
                         + (f" (config {config})" if config != name else ""))
            keys += [k for k in SOURCES[config] if k not in keys]
        elif config in OWN:
            lines.append(f"% {what} {name}: nothing to cite ({OWN[config]})")
        else:
            lines.append(f"% {what} {name}: your own class; cite its source yourself")
    return "\n".join([*lines, "", *(bibtex(k) + "\n" for k in keys)]).rstrip("\n") + "\n"
