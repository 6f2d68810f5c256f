"""Names a package loads on first use (PEP 562): the package names its public API, and the
module behind a name is imported only when the name is asked for, so that importing the
package costs nothing for the modules a program does not use.

>>> import types
>>> package = types.ModuleType("demo")
>>> names = LazyNames(vars(package), {"fractions": "Fraction", "decimal": "Decimal Context"})
>>> sorted(names)
['Context', 'Decimal', 'Fraction']
>>> names.attribute("Fraction")(1, 3)
Fraction(1, 3)
>>> "Fraction" in vars(package)  # kept: the next use is a plain lookup
True
>>> names.attribute("Nothing")
Traceback (most recent call last):
...
AttributeError: module 'demo' has no attribute 'Nothing'
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any


class LazyNames:
    """A package's lazily loaded names: ``public`` maps a module's absolute name to the
    names (space-separated) the package takes from it; ``namespace`` is the package's
    ``globals()``, where a loaded name is kept. The package sets ``__getattr__ =
    names.attribute`` and ``__dir__ = names.dir``."""

    def __init__(self, namespace: dict[str, Any], public: Mapping[str, str]) -> None:
        self._namespace = namespace
        self._module_of = {name: module for module, names in public.items()
                           for name in names.split()}  # fmt: skip

    def __iter__(self) -> Iterator[str]:
        return iter(self._module_of)

    def attribute(self, name: str) -> object:
        module = self._module_of.get(name)
        if module is None:
            raise AttributeError(
                f"module {self._namespace['__name__']!r} has no attribute {name!r}"
            )
        value = getattr(importlib.import_module(module), name)
        self._namespace[name] = value
        return value

    def dir(self) -> list[str]:
        return sorted({*self._namespace, *self._module_of})
