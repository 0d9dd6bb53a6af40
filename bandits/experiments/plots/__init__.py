"""Stage 8, plots: stored tables to figures, the data behind them, and the claims table.

``python -m bandits.experiments.plots [--results DIR] [--experiment NAME[,NAME]] [--force]
[--highlight LABEL[,LABEL]]`` reads the tables ``DIR/tables/*.parquet`` that changed since
their figures were drawn (all of them with ``--force``; the experiments NAME alone with
``--experiment``: ``stage``'s docstring) and writes

* ``DIR/figures/<fig>.png`` and ``.pdf``, and ``DIR/figures/<fig>.csv`` (the exact
  numbers plotted);
* ``DIR/figures/<experiment>_leaderboard.csv`` for every experiment with several
  algorithms, and ``<experiment>_leaderboard_overall.csv`` across its scenarios
  (``leaderboard``);
* ``DIR/claims.csv``: one row per claim of the paper that a figure checks
  (claim, figure, measured, expected, verdict, source, code, scale). Rows of figures not
  re-plotted are kept, so later experiments add to the same file.

It ends with one line per experiment: how many figures it wrote and where, and how many
of its claims agree, disagree, exceed their bound ... (``stage.summary_lines``).

Readable figures (``charts``' docstring): every curve its own colour and marker (up to
20 distinct), line style and legend heading by what the algorithm is told (knows B_T,
knows Upsilon_T, tuned by hand, told nothing, oracle), ``--highlight`` (or
DRIFT_BANDITS_HIGHLIGHT) curves thicker and on top, log-axis bands clipped above zero,
sparse log tick labels, integer ticks on count axes, the reported change points on figures
against t, a bar chart where a figure against T has a single T, captions that say what
was pooled and what the regret is measured against.

Reduced runs. Each table's run is compared with its experiment's shipped config
(``scale``: trials, horizons, seed, algorithms, settings); a table that differs gets a
banner on every figure drawn from it ("reduced scale: 2 of 50 trials, T x0.1 - not the
paper's figure") and its claims rows that text in ``scale`` ("paper" otherwise, also for
rows of an older claims.csv without the column). Ad-hoc tables are not compared.

Who draws what. Each study (a module of :mod:`bandits.experiments.studies`, found there, not
registered anywhere) lists the tables it owns in ``TABLES`` (names or shell-style patterns)
and has one function ``draw(tables, drawing) -> claims rows``, given those of its tables
that exist and the stage's ``drawing.Drawing`` (where the figures go, and what the stage
records as they are drawn).The
tables of every other experiment (a table and its scenarios ``NAME.*``) get the generic
figures of ``generic`` together (no claims; one set per environment configuration a table
holds, titled with the environment and the settings that tell it apart; the experiment's
leaderboard). Curves, legends and
claims are per configuration: a row's ``label``, or its ``algo`` where there is no
label (paper CSVs name that column ``algo``, as before).

Bands are 95% Student-t intervals of the mean over trials (over drawn instances, instances=N,
the two-stage bootstrap's interval over instances, then trials); where the regret cannot be
negative (against the best action of each round) their lower edge is clipped at 0, and
the figure's footer says so.

The slope rule. A slope is the least-squares fit of log(mean final regret) on log T,
fitted only where it means something: at least 3 horizons and a mean regret that is
positive and non-decreasing in T. Otherwise the slope is NaN in the CSV, the legend
shows none, and a slope claim says ``n/a (fewer than 3 horizons)`` or ``n/a (not
monotone in T)`` with the verdict ``not measured``. Each theoretical rate is drawn
once, as a grey dashed power law ("reference slope 2/3") anchored at the first point
of the first curve it applies to.

Notices. Anything the stage cannot use (no tables folder, an unreadable file, a table
without rows, a table with missing cells, a module that fails, claims whose inputs are
missing) gives one line on stderr, ``notice: <table or figure>: <problem>; <what
happens>``, and everything else is still drawn; claims are never made from missing
inputs.
"""
