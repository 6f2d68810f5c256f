"""The state machine that plays a game: :class:`~flip7.engine.game.Game` (random or explicit
chance, typed decisions and events, ``fork``), the view a seat may see, and game records with
replay.

Standard library only; imports :mod:`flip7.core` and nothing above it.
"""
