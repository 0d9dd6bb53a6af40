"""Stage 4, report: a table's rows to what they say.

Means and 95% t-intervals, the summary a run prints, the constants the runs derived."""
