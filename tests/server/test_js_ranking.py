"""The end screen's places (tableend.js placeOf), run as they are in Node: equal totals
share a place and the next place is counted past them (the review of issue "Tables that
wait": 179 and 179 were ranked 2 and 3)."""

from __future__ import annotations

from js_helpers import run_js_function


def test_equal_totals_share_a_place() -> None:
    cases = [[200, 179, 179, 150], [90, 90, 90], [12], [30, 20, 10], [5, 5, 1, 1]]
    places = run_js_function("tableend.js", "placeOf(totals, total)", cases,
                             "c.map((x) => placeOf(c, x))")  # fmt: skip
    assert places == [[1, 2, 2, 4], [1, 1, 1], [1], [1, 2, 3], [1, 1, 3, 3]]
