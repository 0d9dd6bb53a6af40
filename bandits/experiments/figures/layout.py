"""Text that fits its figure: the footer (what the bands are, what was pooled), the axes'
titles and the reduced-scale banner are wrapped onto more lines until their rendered width fits inside
the figure, and the axes make room for them (:func:`place_texts`)."""

from __future__ import annotations

import textwrap

MARGIN = 0.02  # of the figure's width, kept free at each side
MIN_CHARS = 12
AXIS_LABEL_CHARS = 40  # an axis label longer than this goes on two lines (it would run past the axes)


def fit_width(fig, artist, room: float | None = None) -> None:
    """Wrap ``artist``'s text (a figure text or suptitle) until it is at most ``room`` pixels
    wide (default: the figure's width less a margin at each side), as drawn."""
    renderer = fig.canvas.get_renderer()
    text = " ".join(artist.get_text().split())
    artist.set_text(text)
    room = fig.bbox.width * (1 - 2 * MARGIN) if room is None else room
    width = artist.get_window_extent(renderer).width
    chars = len(text)
    while width > room and chars > MIN_CHARS:
        chars = max(MIN_CHARS, min(chars - 1, int(chars * room / width)))
        artist.set_text("\n".join(textwrap.wrap(text, chars, break_on_hyphens=False)))
        width = artist.get_window_extent(renderer).width


def place_texts(fig, footer: str, banner: str = "") -> None:
    """The footer at the bottom right and the banner (if any) as the figure's title, each
    fitted to the figure's width, and the axes laid out in the room left between them."""
    note = fig.text(1 - MARGIN / 2, 0.01, footer, ha="right", va="bottom", fontsize=7)
    fit_width(fig, note)

    if banner:
        fit_width(fig, fig.suptitle(banner, color="firebrick", fontsize=9, fontweight="bold"))
    renderer = fig.canvas.get_renderer()
    bottom = note.get_window_extent(renderer).y1 / fig.bbox.height + 0.01
    fig.tight_layout(rect=(0, bottom, 1, 1))  # room for the footer below the axis label
    if fit_titles(fig):
        fig.tight_layout(rect=(0, bottom, 1, 1))


def fit_titles(fig) -> bool:
    """Wrap each axes' title (centred on its axes: an experiment's name, a problem's settings)
    until it lies inside the figure, a margin kept at each side; whether one was wrapped."""
    changed = False
    for ax in fig.axes:
        if not ax.get_title():
            continue
        renderer = fig.canvas.get_renderer()
        drawn = ax.title.get_window_extent(renderer)
        if drawn.x0 >= fig.bbox.x0 and drawn.x1 <= fig.bbox.x1:
            continue  # it fits as written (its own line breaks kept)
        box = ax.get_window_extent(renderer)
        centre = (box.x0 + box.x1) / 2
        room = 2 * min(centre - fig.bbox.x0, fig.bbox.x1 - centre) - 2 * MARGIN * fig.bbox.width
        fit_width(fig, ax.title, room)
        changed = True
    return changed


def axis_label(text: str) -> str:
    """An axis label on as many lines of at most :data:`AXIS_LABEL_CHARS` as it needs."""
    return textwrap.fill(text, AXIS_LABEL_CHARS, break_on_hyphens=False)
