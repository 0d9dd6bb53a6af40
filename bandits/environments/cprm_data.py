"""The CPRM-12-001 On-Line Auto Lending data: loader, price imputation, features,
and per-day recovery of theta (hedging §9.2, spec §2 autoloan).

The real file (``CPRM_AutoLOan_OnlineAutoLoanData.csv``, about 208,085 rows) is
licensed by Columbia University's Center for Pricing and Revenue Management and is
not redistributed here. The same code path reads the bundled synthetic surrogate
(:mod:`bandits.environments.cprm_surrogate`).

Steps, each a function:

1. :func:`load_cprm` checks the file (a regular CSV file of at most ``max_file_mb``),
   reads the columns used (read only: the user's file is never written), parses
   ``Approve_Date`` (m/d/Y, between 1970 and 2100), keeps file order within a day,
   takes the first T rows in application (date) order, and checks every numeric
   value against a plausible physical range (:data:`PLAUSIBLE`: FICO 300-850, terms of
   1-120 months, amounts and payments in dollars, rates in percent; no inf).
2. :func:`impute_price`: the price of a loan is the net present value of its
   payments, ``mp * (1 - (1 + r)^-Term) / r - Amount_Approved`` with monthly
   r = 0.0012 (as in public replications of Ban & Keskin 2018).
   :func:`rescale_prices` maps it onto the paper's scale: negative values become 0
   and the rest are multiplied by 400 / max (the paper: "the maximum of the imputed
   prices is about 400", so the grid is {0, 10, ..., 500}).
3. :func:`build_features`: x = [1, FICO, Term, Amount_Approved, onemonth,
   Competition_rate, CarType=U, CarType=R] with the five numeric columns
   standardised to mean 0 and sd 1 over the T rows used (new cars, N, are the
   baseline of the two dummies). d = 2 * 8 = 16 for the design [x; p x].
4. :func:`recover_theta`: for each day, least squares of ``apply`` on [x; p x]
   (minimum-norm solution: onemonth is constant within a day, so the day's design
   is rank-deficient and the intercept's weight is shared with it); a day with
   fewer than ``min_rows_ols`` (2 d) rows uses ridge regression with penalty
   ``ridge`` instead (documented deviation: least squares is too noisy there).
   theta is constant within a day; the realised B_T = sum_t ||theta_{t+1} - theta_t||_2.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from bandits.environments import files
from bandits.errors import ConfigError, last_line

WHERE_TO_GET = ("The file CPRM_AutoLOan_OnlineAutoLoanData.csv (dataset CPRM-12-001, On-Line Auto Lending) "
                "is distributed by Columbia University's Center for Pricing and Revenue Management; request it "
                "there, or leave env.data_path unset to use the bundled synthetic surrogate.")
COLUMNS = ["Primary_FICO", "Term", "Amount_Approved", "onemonth", "CarType", "Competition_rate", "mp", "apply",
           "Approve_Date"]
NUMERIC = ["Primary_FICO", "Term", "Amount_Approved", "onemonth", "Competition_rate"]
CAR_TYPES = ("N", "U", "R")
FEATURES = ["const", "fico", "term", "amount", "prime", "competitor_rate", "car_used", "car_refi"]
MONTHLY_RATE = 0.0012
PRICE_MAX_IMPUTED = 400.0


# Plausible physical ranges of the numeric columns (a value outside is a unit error or a
# corrupt row): FICO scores, loan terms in months, amounts and monthly payments in
# dollars, rates in percent.
PLAUSIBLE = {"Primary_FICO": (300.0, 850.0), "Term": (1.0, 120.0), "Amount_Approved": (1.0, 1e6),
             "onemonth": (0.0, 25.0), "Competition_rate": (0.0, 50.0), "mp": (1.0, 1e5), "apply": (0.0, 1.0)}
DATES = (pd.Timestamp("1970-01-01"), pd.Timestamp("2100-01-01"))


def load_cprm(path: str | Path, T: int, max_file_mb: float = files.MAX_FILE_MB) -> pd.DataFrame:
    """The first T rows in application order, columns checked; ConfigError on any defect."""
    if path is None or not Path(str(path)).expanduser().exists():
        raise ConfigError(f"auto-loan data file {str(path)!r} does not exist. {WHERE_TO_GET}")
    path = files.check_file(path, "auto-loan data file", (".csv",), max_file_mb)
    try:
        header = pd.read_csv(path, nrows=0).columns
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ConfigError(f"auto-loan data file {str(path)!r} could not be read as CSV ({last_line(exc)}).") from None
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise ConfigError(f"auto-loan data file {str(path)!r} lacks column(s) {missing} "
                          f"(needed: {COLUMNS}). {WHERE_TO_GET}")
    try:
        frame = pd.read_csv(path, usecols=COLUMNS, dtype={"CarType": str, "Approve_Date": str})
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ConfigError(f"auto-loan data file {str(path)!r} could not be read as CSV ({last_line(exc)}).") from None
    dates = pd.to_datetime(frame["Approve_Date"], format="%m/%d/%Y", errors="coerce")
    bad = dates.isna() | (dates < DATES[0]) | (dates >= DATES[1])
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise ConfigError(f"auto-loan data file {str(path)!r}: column Approve_Date, data row {row + 1} "
                          f"(line {row + 2}) holds {frame['Approve_Date'].iloc[row]!r}, not a m/d/Y date.")
    if len(frame) < T:
        raise ConfigError(f"auto-loan data file {str(path)!r} has {len(frame)} rows but T={T} customers are "
                          f"needed; set T <= {len(frame)}.")
    frame = frame.assign(date=dates)
    frame = frame.sort_values("date", kind="stable").head(T).reset_index(drop=True)
    for col in NUMERIC + ["mp", "apply"]:
        values = pd.to_numeric(frame[col], errors="coerce")
        if values.isna().any():
            row = int(np.flatnonzero(values.isna().to_numpy())[0])
            raise ConfigError(f"auto-loan data file {str(path)!r}: column {col} has a missing or non-numeric "
                              f"value among the first {T} rows (row {row + 1} in date order).")
        lo, hi = PLAUSIBLE[col]
        outside = ~values.between(lo, hi)  # also catches inf
        if outside.any():
            row = int(np.flatnonzero(outside.to_numpy())[0])
            raise ConfigError(f"auto-loan data file {str(path)!r}: column {col} holds {values.iloc[row]:g} (row "
                              f"{row + 1} in date order), outside its plausible range [{lo:g}, {hi:g}].")
        frame[col] = values.astype(np.float64)
    unknown = sorted(set(frame["CarType"].dropna()) - set(CAR_TYPES))
    if unknown or frame["CarType"].isna().any():
        raise ConfigError(f"auto-loan data file {str(path)!r}: column CarType must be one of {CAR_TYPES}, "
                          f"found {unknown or 'missing values'}.")
    if not set(np.unique(frame["apply"])) <= {0.0, 1.0}:
        raise ConfigError(f"auto-loan data file {str(path)!r}: column apply must be 0/1.")
    return frame


def impute_price(mp, term, amount, r: float = MONTHLY_RATE) -> np.ndarray:
    """Net present value of the payments minus the amount lent (spec §2)."""
    mp, term, amount = (np.asarray(v, dtype=np.float64) for v in (mp, term, amount))
    return mp * (1.0 - (1.0 + r) ** (-term)) / r - amount


def rescale_prices(npv: np.ndarray, target_max: float = PRICE_MAX_IMPUTED) -> tuple[np.ndarray, float]:
    """Negative NPVs to 0, then scale so the largest imputed price is ``target_max``."""
    npv = np.maximum(np.asarray(npv, dtype=np.float64), 0.0)
    top = float(npv.max())
    scale = target_max / top if top > 0 else 1.0
    return npv * scale, scale


def build_features(frame: pd.DataFrame) -> np.ndarray:
    """x_t = [1, standardised numeric columns, CarType U / R dummies] (see module doc)."""
    cols = [np.ones(len(frame))]
    for c in NUMERIC:
        v = frame[c].to_numpy(dtype=np.float64)
        sd = v.std()
        cols.append((v - v.mean()) / sd if sd > 0 else v - v.mean())
    cols.append((frame["CarType"] == "U").to_numpy(dtype=np.float64))
    cols.append((frame["CarType"] == "R").to_numpy(dtype=np.float64))
    return np.column_stack(cols)


def day_index(frame: pd.DataFrame) -> np.ndarray:
    """0, 1, 2, ... for consecutive calendar days present in the data."""
    return pd.factorize(frame["date"].dt.normalize(), sort=True)[0].astype(np.int64)


def recover_theta(x: np.ndarray, price: np.ndarray, accept: np.ndarray, days: np.ndarray,
                  ridge: float = 1.0, min_rows_ols: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """theta per day by least squares of acceptance on [x; p x]; returns (theta per day
    (n_days, 2k), which days used ridge)."""
    k = x.shape[1]
    design = np.hstack([x, price[:, None] * x])
    d = 2 * k
    min_rows = 2 * d if min_rows_ols is None else min_rows_ols
    n_days = int(days.max()) + 1
    theta = np.zeros((n_days, d))
    used_ridge = np.zeros(n_days, dtype=bool)
    for day in range(n_days):
        rows = days == day
        A, y = design[rows], accept[rows]
        if rows.sum() >= min_rows:
            # minimum-norm least squares: a column constant within the day (onemonth, the
            # prime-rate proxy, is a daily value) shares the intercept's weight
            theta[day] = np.linalg.lstsq(A, y, rcond=None)[0]
        else:
            used_ridge[day] = True
            theta[day] = np.linalg.solve(A.T @ A + ridge * np.eye(d), A.T @ y)
    return theta, used_ridge
