"""A set the rows keep (``testgen/row_state.py``): one format puts a value in, another takes it out."""

from __future__ import annotations

import random

from testgen.row_state import Toggle, read_toggle


def test_rows_that_break_a_guarantee_take_another_value_or_become_the_other_format():
    t = Toggle(put="+", take="-", column={"+": 0, "-": 0})
    rows = [["+", "1"], ["+", "1"], ["+", "2"], ["-", "9"], ["-", "1"], ["-", "2"], ["?", "1", "2"]]

    def draw(tag: str) -> list[str]:
        return [tag, "0"]

    for seed in range(20):
        kept = t.keep(rows, (1, 2), draw, random.Random(seed))
        assert kept is not None and t.holds(kept), kept
        assert kept[-1] == ["?", "1", "2"]  # other rows as they were
        assert all(1 <= int(r[1]) <= 2 for r in kept[:-1])
        # 1..2 is full after two puts, so the third put is a take: the row became the other format
        assert kept[2][0] == "-"
    assert t.holds([["+", "1"], ["-", "1"], ["+", "1"]]) and not t.holds([["-", "1"]])


def test_the_way_round_is_the_one_the_samples_keep_from_an_empty_set():
    samples = [[["c", "2"], ["c", "8"], ["?", "1", "9"], ["o", "8"]], [["c", "3"]]]
    t = read_toggle({"o": 0, "c": 0}, samples)
    assert t is not None and (t.put, t.take) == ("c", "o")
    assert read_toggle({"o": 0, "c": 0}, [[["?", "1", "2"]]]) is None  # both ways keep it
    assert read_toggle({"o": 0, "c": 0}, [[["c", "2"], ["c", "2"]], [["o", "1"]]]) is None  # neither does
    assert read_toggle({"o": 0}, samples) is None  # one guarded format: not a set put into and taken from
