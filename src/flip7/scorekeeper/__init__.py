"""The scorekeeper for people playing with the physical cards: a scorecard of rounds typed in
as lines, and live mode, which follows a round card by card, on the rules of
:mod:`flip7.core`.

Standard library only; imports :mod:`flip7.core`, :mod:`flip7.engine` and
:mod:`flip7.analysis`.
"""
