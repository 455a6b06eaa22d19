"""Row columns kept in order (``a <= b`` in every sample row, and said so by the statement when it
names both)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .constraints import normalize

if TYPE_CHECKING:
    from .smodel import StdioModel

ORDERED_MIN_ROWS = 4  # rows that must all show a <= b before generated rows keep it (chance: 1/16)


def ordered_columns(m: "StdioModel", statement: str) -> list[int]:
    """Adjacent numeric row columns j, j+1 with row[j] <= row[j+1] in every sample row (at least
    ``ORDERED_MIN_ROWS`` rows, one of them strict). When the statement names both columns, it
    must also say so (``a \\le b``): points (x, y) whose samples happen to have x <= y stay free."""
    start = 1 if m.shape == "counted" else 0
    rows = [r for t in m.seeds for r in t[start:]]
    out = []
    for j in range(len(m.row) - 1):
        a, b = m.row[j], m.row[j + 1]
        if a.kind not in ("int", "float") or b.kind not in ("int", "float"):
            continue
        try:
            pairs = [(float(r[j]), float(r[j + 1])) for r in rows]
        except (ValueError, IndexError):
            continue
        if not pairs or any(x > y for x, y in pairs) or not any(x < y for x, y in pairs):
            continue
        if a.name and b.name and not re.search(
                rf"(?<![A-Za-z]){re.escape(a.name)}\s*[≤<]\s*{re.escape(b.name)}(?![A-Za-z0-9_])",
                # "y_{i, 1}" is the name y_i1 (input_lines drops a subscript's comma too)
                re.sub(r"_([A-Za-z]),(\d)", r"_\1\2", re.sub(r"[{}\s]", "", normalize(statement)))
                .replace("≤", " ≤ ").replace("<", " < ").replace(" ", "")):
            continue
        if len(pairs) >= ORDERED_MIN_ROWS:
            out.append(j)
    return out


def strictly_ordered(m: "StdioModel", statement: str, j: int) -> bool:
    """Ordered columns j, j+1 that the statement names and orders strictly (``y_{i,1} < y_{i,2}``)
    and no sample row has equal: generated rows never make them equal either."""
    a, b = m.row[j], m.row[j + 1]
    if not (a.name and b.name):
        return False
    start = 1 if m.shape == "counted" else 0
    if any(r[j] == r[j + 1] for t in m.seeds for r in t[start:] if len(r) > j + 1):
        return False
    text = re.sub(r"_([A-Za-z]),(\d)", r"_\1\2", re.sub(r"[{}\s]", "", normalize(statement)))
    return bool(re.search(rf"(?<![A-Za-z]){re.escape(a.name)}<{re.escape(b.name)}(?![A-Za-z0-9_])", text))
