"""Curve styles: a distinct (colour, marker) pair for every curve of a figure (up to 20; 40 with
repeated colours), the same label keeping its style across figures where it can
(:func:`curve_styles`), markers placed sparsely (:data:`MARKEVERY`)."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from bandits.experiments.figures.names import base_label

# Twenty colours told apart on white (matplotlib's ten, then ten darker or lighter others),
# each with its own marker, chosen so that similar colours never share a marker.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf", "#000075", "#469990", "#800000", "#808000", "#f032e6", "#e6b400", "#000000", "#a05195",
           "#5f9ed1", "#ff9896")
SLOT_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "s", "D", "^", "o", "P", "v", "X", ">", "<", "*")
MARKER_CYCLE = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
N_STYLES = len(PALETTE)
MARKEVERY = 0.1  # curves with many points: a marker every tenth of the axes' diagonal
# The style slot of the labels that share figures most often, so that a label keeps its
# colour and marker from one figure to the next; other labels take a slot from a hash of
# their name, the next free one when two want the same.
PREFERRED_SLOT = {
    # the hedging paper's algorithms, in the colours of its figures
    "sw_ucb_opt": 0, "exp3s": 1, "bob": 2, "sw_ucb_obl": 3, "ucb": 4, "ucb1": 4,
    # the change-detection and passive baselines of the non-stationary benchmark
    "glr_klucb": 5, "glr_klucb_global": 6, "cusum_ucb": 7, "m_ucb": 8, "master_ucb": 9, "d_ucb": 10,
    "sw_ucb_gm": 11, "discounted_ts": 12, "sw_ts": 13, "kl_ucb": 14, "thompson": 15, "oracle_restart_ucb": 16,
    "m_ucb_theorem": 17, "glr_klucb_alpha005": 18, "master_ucb_nolog": 19,
    # their counterparts elsewhere take the same slot
    "d_linucb": 10, "restart_linucb": 12, "restart_linucb_bob": 13, "master_oful": 9, "master_oful_nolog": 19,
    "oracle_restart_klucb": 16, "d_klucb": 10, "sw_klucb_gm": 11, "m_klucb": 8, "cusum_klucb": 7, "qcd_klucb": 18,
    "sw_linucb": 11, "linucb": 4, "exp3s_auer": 6,
    "mw": 5, "company": 7,
    "sw_ucb_glb_opt": 0, "bob_glb": 2, "sw_ucb_glb_obl": 3, "glm_ucb": 4,
    "sw_ucb_comb_opt": 0, "bob_semibandit": 2, "sw_ucb_comb_obl": 3, "cucb": 4,
    "iltcb": 0, "epsilon_greedy": 1, "exp4": 2, "vw_epsilon": 3, "vw_cover": 4, "ada_iltcb_plus": 5,
    "ada_iltcb_plus_theory": 6, "ada_iltcb_plus_noreplay": 7, "master_ctx": 8, "master_iltcb": 9,
    "oracle_restart": 16,
}


@dataclass(frozen=True)
class Style:
    color: str
    marker: str
    slot: int


def preferred_slot(label) -> int:
    base = base_label(label)
    return PREFERRED_SLOT.get(base, zlib.crc32(base.encode()) % N_STYLES)


def slot_style(slot: int) -> Style:
    """Slot k < 20: the k-th colour and its marker; beyond, the colours again with other markers."""
    color, marker = PALETTE[slot % N_STYLES], SLOT_MARKERS[slot % N_STYLES]
    if slot >= N_STYLES:
        marker = MARKER_CYCLE[(MARKER_CYCLE.index(marker) + 5 * (slot // N_STYLES)) % len(MARKER_CYCLE)]
    return Style(color, marker, slot)


def curve_styles(labels) -> dict:
    """label -> Style for the curves of one figure: distinct (colour, marker) pairs for up
    to 20 labels (40 with repeated colours), deterministic whatever the order given; a label
    gets its preferred slot unless a label with a fixed slot, or one earlier in name order,
    took it first."""
    labels = list(dict.fromkeys(str(label) for label in labels))
    order = sorted(labels, key=lambda lab: (base_label(lab) not in PREFERRED_SLOT, lab != base_label(lab), lab))
    used: set = set()
    out = {}
    for label in order:
        start, layer = preferred_slot(label), 0
        while True:
            free = [layer * N_STYLES + (start + k) % N_STYLES for k in range(N_STYLES)]
            free = [slot for slot in free if slot not in used]
            if free:
                break
            layer += 1
        used.add(free[0])
        out[label] = slot_style(free[0])
    return out
