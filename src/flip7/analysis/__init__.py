"""Exact odds: the line solver (the best Hit/Stay play of one line, §4–5 and §8) and the
advisor built on it (bust odds, what the next card can be, the expected value of Hit and
Stay).

Standard library only; imports :mod:`flip7.core` and :mod:`flip7.engine`.
"""
