"""The names the figures and claims give configurations, and which of them a figure
highlights.

* :data:`LABELS`: the display name of an algorithm key or a configuration's label in legends
  and claims (a name not listed is shown as it is);
* highlighting: the plot stage's ``--highlight LABEL[,LABEL]`` (or
  ``DRIFT_BANDITS_HIGHLIGHT``, :data:`HIGHLIGHT_ENV`) names configurations by label, by
  algorithm key or by display name (:func:`parse_highlight`, :func:`is_highlighted`); the
  stage's choice travels with its :class:`~bandits.experiments.figures.drawing.Drawing`.
"""

from __future__ import annotations

# The shipped experiments' algorithms (hedging paper, contextual, extensions).
CORE_LABELS = {"sw_ucb_opt": "SW-UCB-opt", "sw_ucb_obl": "SW-UCB-obl", "exp3s": "EXP3.S (Rexp3)",
               "exp3s_auer": "EXP3.S (Auer et al.)", "bob": "BOB",
               "ucb": "UCB", "sw_ucb": "SW-UCB", "obl_w050": "SW-UCB-obl, w x 1/2", "obl_w075": "SW-UCB-obl, w x 3/4",
               "obl_w133": "SW-UCB-obl, w x 4/3", "obl_w200": "SW-UCB-obl, w x 2", "obl_S1": "SW-UCB-obl, S = 1",
               "bob_S1": "BOB, S = 1", "mw": "MW (Keskin & Zeevi)", "company": "company (recorded prices)",
               "iltcb": "ILTCB (practical)", "iltcb_theory": "ILTCB (theory)",
               "oracle_restart": "ILTCB restarted at true changes",
               "epsilon_greedy": "epsilon-greedy", "exp4": "Exp4", "vw_epsilon": "VW --epsilon",
               "vw_cover": "VW --cover",
               "ada_iltcb_plus": "Ada-ILTCB+ (practical)", "ada_iltcb_plus_theory": "Ada-ILTCB+ (theory)",
               "ada_iltcb_plus_noreplay": "Ada-ILTCB+ without replay",
               "sw_ucb_glb_opt": "SW-UCB-GLB-opt", "sw_ucb_glb_obl": "SW-UCB-GLB-obl", "bob_glb": "BOB (GLB)",
               "glm_ucb": "GLM-UCB", "sw_ucb_comb_opt": "SW-UCB-comb-opt", "sw_ucb_comb_obl": "SW-UCB-comb-obl",
               "bob_semibandit": "BOB (semi-bandit)", "cucb": "CUCB",
               "d_linucb": "D-LinUCB", "d_linucb_horizon": "D-LinUCB, radius at delta / T (Wu 2026)",
               "d_linucb_anytime": "D-LinUCB, anytime radius (Wu 2026)",
               "restart_linucb": "RestartUCB", "restart_linucb_bob": "RestartUCB-BOB",
               "master_oful": "MASTER-OFUL", "master_oful_nolog": "MASTER-OFUL (earlier reading)",
               "master_ctx": "MASTER (epsilon-greedy, ours)", "master_iltcb": "MASTER-ILTCB",
               "d_lints": "D-LinTS (authors' code)", "d_randlinucb": "D-RandLinUCB (authors' code)"}
# The non-stationary benchmark's and its sensitivity runs' (bandits.experiments.studies.ns_benchmark).
BENCHMARK_LABELS = {"ucb1": "UCB1", "kl_ucb": "kl-UCB", "thompson": "Thompson sampling", "d_ucb": "D-UCB",
                    "sw_ucb_gm": "SW-UCB (G&M)", "discounted_ts": "discounted TS", "sw_ts": "SW-TS",
                    "ds_ts": "DS-TS (Gaussian)", "ds_ts_authors": "DS-TS (authors' code)",
                    "sw_lb_sda": "SW-LB-SDA (authors' code)",
                    "adswitch": "AdSwitch (Remark 3)", "adswitch_literal": "AdSwitch (every s)",
                    "adswitch_c16": "AdSwitch, C1 = 16.1", "adswitch_c1": "AdSwitch, C1 = 1",
                    "cusum_ucb": "CUSUM-UCB", "pht_ucb": "PHT-UCB (SMPyBandits' reading)", "m_ucb": "M-UCB",
                    "glr_klucb": "GLR-klUCB (local)", "pht_ucb_eps005": "PHT-UCB, eps = 0.05",
                    "cusum_klucb": "CUSUM-klUCB", "m_klucb": "M-klUCB", "d_klucb": "D-klUCB",
                    "sw_klucb_gm": "SW-klUCB (G&M)",
                    "glr_klucb_global": "GLR-klUCB (global)", "master_ucb": "MASTER (UCB)",
                    "oracle_restart_ucb": "UCB restarted at true changes (oracle)",
                    "d_ucb_xi0125": "D-UCB, xi = 1/8", "discounted_ts_g095": "discounted TS, gamma = 0.95",
                    "discounted_ts_g099": "discounted TS, gamma = 0.99", "sw_ts_c4": "SW-TS, window constant 4",
                    "glr_klucb_experiments": "GLR-klUCB (local), threshold of the authors' code",
                    "glr_klucb_alpha005": "GLR-klUCB (local), alpha_0 = 0.05",
                    "master_oful_tm1e-2": "MASTER-OFUL, thresholds x 1e-2",
                    "master_oful_tm1e-3": "MASTER-OFUL, thresholds x 1e-3",
                    "master_oful_tm1e-4": "MASTER-OFUL, thresholds x 1e-4",
                    "master_oful_tm1e-5": "MASTER-OFUL, thresholds x 1e-5",
                    "master_oful_tm1e-6": "MASTER-OFUL, thresholds x 1e-6",
                    "master_oful_cap": "MASTER-OFUL, rho capped at 1",
                    "master_oful_log2T": "MASTER-OFUL, epochs from order floor(log2 T)",
                    "master_ucb_nolog": "MASTER (UCB), earlier reading",
                    "m_ucb_theorem": "M-UCB, gamma of the theorem",
                    "master_ucb_reimpl": "MASTER (UCB), epochs from order floor(log2 T) (re-implementation)",
                    "master_ucb_c05": "MASTER (UCB), c = 0.5", "master_ucb_c1": "MASTER (UCB), c = 1",
                    "master_ucb_c4": "MASTER (UCB), c = 4", "master_ucb_cap": "MASTER (UCB), rho capped at 1",
                    "master_iltcb_c2_01": "MASTER-ILTCB, c2 = 0.1", "master_iltcb_c2_10": "MASTER-ILTCB, c2 = 10",
                    "master_iltcb_psi10": "MASTER-ILTCB, psi = 10", "master_iltcb_psi1000": "MASTER-ILTCB, psi = 1000",
                    "master_iltcb_cap": "MASTER-ILTCB, rho capped at 1",
                    "master_iltcb_log2T": "MASTER-ILTCB, epochs from order floor(log2 T)",
                    "master_iltcb_every_round": "MASTER-ILTCB, OP solved every round (Alg. 12)",
                    "restart_linucb_corrected": "RestartUCB, period of the corrected analysis"}
# The published experiments' (the studies glr_experiments, dlinucb_notebooks, master_geo): where a key is named above
# too, this name is the one shown.
PUBLISHED_LABELS = {
    "oracle_restart_klucb": "kl-UCB restarted at true changes (oracle)",
    "oracle_restart_ucb": "UCB restarted at true changes (oracle)",
    "glr_klucb_code": "GLR-klUCB (local), SMPyBandits' tuning",
    "glr_klucb_code_global": "GLR-klUCB (global), SMPyBandits' tuning",
    "glr_klucb_opt": "GLR-klUCB (local), constant alpha_opt", "glr_klucb_opt_global": "GLR-klUCB (global), alpha_opt",
    "qcd_klucb": "QCD+klUCB (GLR, global, no forced exploration)", "d_ucb_code": "D-UCB, gamma = 0.95",
    "m_ucb_code": "M-UCB, SMPyBandits' tuning", "cusum_ucb_code": "CUSUM-UCB, SMPyBandits' tuning",
    "m_ucb_w800": "M-UCB, w = 800", "cusum_ucb_m400": "CUSUM-UCB, M = 400, eps = 0.05",
    "m_klucb_w800": "M-klUCB, w = 800", "cusum_klucb_m400": "CUSUM-klUCB, M = 400, eps = 0.05",
    "sw_linucb": "SW-LinUCB (sw_ucb)", "linucb": "LinUCB (OFUL)",
    "d_klucb": "D-klUCB", "sw_klucb_gm": "SW-klUCB", "m_klucb": "M-klUCB", "cusum_klucb": "CUSUM-klUCB",
    "d_klucb_code": "D-klUCB, gamma = 0.95", "m_klucb_code": "M-klUCB, SMPyBandits' tuning",
    "cusum_klucb_code": "CUSUM-klUCB, SMPyBandits' tuning", "glr_ucb": "GLR-UCB (local)",
    "master_ucb_reimpl": "MASTER (UCB), their n_init = floor(log2 T)",
}
LABELS = {**CORE_LABELS, **BENCHMARK_LABELS, **PUBLISHED_LABELS}

HIGHLIGHT_ENV = "DRIFT_BANDITS_HIGHLIGHT"


def base_label(label) -> str:
    """A label without its bracket of settings (``sw_ucb[window=200]`` -> ``sw_ucb``)."""
    return str(label).split("[", 1)[0]


def parse_highlight(text) -> list:
    """``"a,b"`` (or a list of such) -> ["a", "b"]."""
    if text is None:
        return []
    parts = [text] if isinstance(text, str) else list(text)
    return [name.strip() for part in parts for name in str(part).split(",") if name.strip()]


def is_highlighted(label, chosen, algo=None) -> bool:
    """Whether ``label`` is one of ``chosen``: by its label, its name without settings, its
    algorithm or its display name."""
    if not chosen:
        return False
    names = {str(label), base_label(label), LABELS.get(str(label), str(label)), LABELS.get(base_label(label), "")}
    if algo is not None:
        names |= {str(algo), LABELS.get(str(algo), "")}
    return bool(names & set(chosen))
