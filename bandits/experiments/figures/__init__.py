"""Stage 6, figures: the drawing library, which imports no study.

Axes, charts, styles, legends, layout, pooled bands, claims rows, leaderboards, and the
generic figures of any table."""

from bandits.experiments.figures.charts import curve_figure, loglog_figure, plot_loglog, with_slopes  # noqa: F401
from bandits.experiments.figures.claims import CLAIM_COLUMNS, slope_claim, slope_verdict, write_claims  # noqa: F401
from bandits.experiments.figures.common import curve_band, fitted_slope, measured_slope, regret_by_T  # noqa: F401
from bandits.experiments.figures.drawing import Drawing, code_versions  # noqa: F401
