"""Reinforcement-learning environments over the engine (docs/envs.md).

- :mod:`flip7.envs.gymnasium`: ``flip7/Flip7-v0``, one seat against bots (extra
  ``flip7[gymnasium]``);
- :mod:`flip7.envs.pettingzoo`: an AEC environment, every seat an agent
  (``flip7[pettingzoo]``);
- :mod:`flip7.envs.openspiel`: the OpenSpiel game ``python_flip7``, every card drawn a
  chance node (``flip7[openspiel]``).

All three share :mod:`flip7.envs.encoding`: one fixed discrete action space and one
observation vector built from a seat's view. Importing this package registers
``flip7/Flip7-v0`` with Gymnasium when Gymnasium (and numpy) are installed; without them it
imports all the same.
"""

from __future__ import annotations

try:
    import flip7.envs.gymnasium  # noqa: F401  (registers flip7/Flip7-v0)
except ImportError as exc:  # only a missing optional library, never an error of ours
    if exc.name not in ("gymnasium", "numpy"):
        raise
