"""The type of JSON data, written once: what ``json.loads`` returns and ``json.dumps`` takes.

>>> import json
>>> data: JSON = json.loads('{"seat": 1, "line": ["5", "L13"], "over": false, "meta": null}')
>>> json.dumps(data)
'{"seat": 1, "line": ["5", "L13"], "over": false, "meta": null}'

Standard library only; imports nothing of flip7.
"""

from __future__ import annotations

from typing import TypeAlias

__all__ = ["JSON", "JSONObject"]

JSON: TypeAlias = dict[str, "JSON"] | list["JSON"] | str | int | float | bool | None
"""Any JSON value."""

JSONObject: TypeAlias = dict[str, JSON]
"""A JSON object: what every ``to_json`` of flip7 returns."""
