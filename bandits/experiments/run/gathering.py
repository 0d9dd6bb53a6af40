"""From finished plans to tables: each plan's cells merged into
``<results>/tables/<experiment>.parquet`` (:func:`bandits.experiments.store.table_store.merge_into_table`),
and the plan's rows handed back labelled as that table labels them.

A table that several plans of one sweep add to (the 50 seeds of a master_geo sweep add to each
of its 12 tables) is written once, when the last of those plans is finished: the plans before
it keep their cells' keys and light rows (so that each one's summary is labelled as the merged
table will be), and the last writes them all. :class:`Tables` knows from the sweep, before any
plan runs, how many plans add to each table; a sweep that fails or is interrupted writes the
tables it still holds on its way out (:meth:`Tables.flush`). Until then, or after a kill, the
cells are in their shards, and the same command or ``collect`` writes the table.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from bandits.experiments.run.planning import Plan
from bandits.experiments.store import table_store as store

log = logging.getLogger("drift_bandits")


@dataclass
class Pending:
    """A table's cells held for the last plan that adds to it: their keys, and the light rows
    of the table and of the cells so far (oldest first)."""
    folder: Path
    keys: list
    light: list


class Tables:
    """The tables of one sweep: ``writers[path]`` plans add to the table at ``path`` (one each
    when not given); each table is written when the last of them is gathered."""

    def __init__(self, writers: Counter | None = None):
        self.remaining = Counter(writers or {})
        self.pending: dict = {}  # path -> Pending

    def gather(self, plan: Plan, tables: list | None = None, full: bool = False) -> tuple:
        """This plan's rows, labelled as in the experiment's table, and the light rows of the
        whole table (with their labels). With a results folder the finished cells are merged
        into the table first (unless a later plan of the sweep adds to it too, see the module),
        and the rows returned are the light columns with the labels (``full``: every column,
        curves included, and the table written now); without one, ``tables`` are the rows the
        plan's batches returned."""
        if plan.table_path is None:
            import pyarrow as pa
            rows = pa.concat_tables(tables).to_pandas() if tables else pd.DataFrame(columns=store.SCHEMA.names)
            rows = store.finish(rows)
            return rows, rows
        keys = [c.key for c in plan.done + plan.todo]
        path = plan.table_path
        stored = plan.stored if plan.stored is not None else store.scan(plan.folder, verify=False)
        self.remaining[path] -= 1
        if self.remaining[path] > 0 and not full:
            pending = self.pending.get(path)
            if pending is None:
                old = store.table_light(path)
                pending = self.pending[path] = Pending(plan.folder, [], [] if old is None else [old])
            pending.keys.extend(keys)
            pending.light.extend(store.cells_light(keys, stored))
            table = store.labelled_light(pending.light)
        else:
            pending = self.pending.pop(path, None)
            if pending is not None:  # the sweep's last plan of this table writes the cells of those before
                keys, stored = pending.keys + keys, store.scan(plan.folder, verify=False)
            if not any(k in stored.where for k in keys) and not path.exists():
                empty = pd.DataFrame(columns=[*store.LIGHT, "label"])
                return empty, empty
            table = store.merge_into_table(path, plan.folder, keys, stored)
        mine = set(c.key for c in plan.done + plan.todo)
        rows = store.read_rows(path, mine) if full else table[table["cell_key"].isin(mine)]
        return rows.sort_values(["label", "T", "trial"], kind="stable").reset_index(drop=True), table

    def will_write_later(self, plan: Plan) -> bool:
        """A later plan of the sweep writes this plan's table."""
        return plan.table_path is not None and self.remaining[plan.table_path] > 0

    def flush(self) -> None:
        """Write every table whose writing was left to a plan of the sweep that did not run."""
        while self.pending:
            path, pending = self.pending.popitem()
            store.merge_into_table(path, pending.folder, pending.keys, store.scan(pending.folder, verify=False))


def gather(plan: Plan, tables: list | None = None, full: bool = False) -> pd.DataFrame:
    """One plan's rows, its table written now (:meth:`Tables.gather` of a plan on its own)."""
    return Tables().gather(plan, tables, full)[0]


def problems_note(plan: Plan, table: pd.DataFrame, say=log.info) -> None:
    """One line when the table (``table``: its light rows) now holds several problems
    (environments or their parameters): the summary, labels and generic figures keep them
    apart; a name of its own gives a problem a table of its own."""
    if plan.table_path is None or table.empty:
        return
    table = table[["env", "env_params"]].astype(str)
    problems = table.drop_duplicates()
    if len(problems) > 1:
        names = ", ".join(sorted(problems["env"].astype(str).unique()))
        say(f"note: table {plan.experiment} holds {len(problems)} problems ({names}, with their parameters); "
            "labels, the summary and the generic figures keep them apart; experiment_name=<name> gives a "
            "problem a table of its own.")
