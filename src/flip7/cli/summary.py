"""The readable round-by-round summary that ``flip7 replay`` prints (plain text, no Rich).

>>> from flip7.engine.record import Record, replay_events
>>> record = Record(players=("Ann", "Bob", "Cyd"), draws=("5", "11", "9"), decisions=())
>>> game, events = replay_events(record)
>>> print(replay_summary(record, game, events))
Ann, Bob, Cyd: 3 players, 1 deck, standard rules
<BLANKLINE>
Round 1 · dealer Ann (unfinished: the record stops here)
<BLANKLINE>
Unfinished game after 0 complete rounds. Totals: Ann 0, Bob 0, Cyd 0
"""

from __future__ import annotations

from collections.abc import Sequence

from flip7.cli.text import Names, cards_text, describe_event, winners_text
from flip7.core.events import Event, GameOver, RoundScored, RoundStarted
from flip7.engine.game import Game
from flip7.engine.record import Record

__all__ = ["replay_summary", "rules_text"]


def rules_text(record: Record) -> str:
    """``standard rules`` or the options that differ from the defaults."""
    options = record.rules.to_json()
    if not options:
        return "standard rules"
    shown = ", ".join(
        key if value is True else f"{key}={value}" for key, value in options.items()
    )
    return f"rules: {shown}"


def _note(event: RoundScored, seat: int, names: Names) -> str:
    notes = []
    if seat in event.busted:
        notes.append("bust")
    if event.flip7 == seat:
        notes.append("Flip 7")
        if event.minus15 is not None:
            notes.append(f"−15 to {names.names[event.minus15]}")
    if event.minus15 == seat:
        notes.append("−15")
    return ", ".join(notes)


def replay_summary(
    record: Record, game: Game, events: Sequence[Event], *, verbose: bool = False
) -> str:
    """Names, dealers, each round's lines, scores, busts, Flip 7 and −15, running totals
    and the winner; with ``verbose`` every event too."""
    names = Names(record.players)
    n = len(record.players)
    decks = "1 deck" if record.decks == 1 else f"{record.decks} decks"
    out = [f"{', '.join(record.players)}: {n} players, {decks}, {rules_text(record)}"]

    scored = [e for e in events if isinstance(e, RoundScored)]
    name_w = max(len(name) for name in record.players)
    line_w = max(
        [len(_line(e, s)) for e in scored for s in range(n)] + [4]
    )
    note_w = max([len(_note(e, s, names)) for e in scored for s in range(n)] + [0])

    in_round = False
    for event in events:
        if isinstance(event, RoundStarted):
            out.append("")
            out.append(f"Round {event.round} · dealer {names.names[event.dealer]}")
            in_round = True
        elif isinstance(event, RoundScored):
            for seat in range(n):
                score = event.scores[seat]
                out.append(
                    f"  {names.names[seat]:<{name_w}}  {_line(event, seat):<{line_w}} "
                    f"{score:>4}  {_note(event, seat, names):<{note_w}}  "
                    f"total {event.totals[seat]:>4}"
                )
            in_round = False
        elif isinstance(event, GameOver):
            pass
        elif verbose:
            out.append(f"    {describe_event(event, names)}")
    if in_round:
        out[_last_header(out)] += " (unfinished: the record stops here)"

    out.append("")
    totals = ", ".join(f"{names.names[s]} {t}" for s, t in enumerate(game.totals))
    if game.over:
        out.append(f"{winners_text(game.winners, game.totals, names)}.")
        out.append(f"Final totals after {_rounds(len(game.rounds))}: {totals}")
    else:
        done = _rounds(len(game.rounds), "complete ")
        out.append(f"Unfinished game after {done}. Totals: {totals}")
    return "\n".join(out)


def _rounds(k: int, what: str = "") -> str:
    return f"{k} {what}round{'' if k == 1 else 's'}"


def _last_header(lines: list[str]) -> int:
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("Round "):
            return i
    return len(lines) - 1


def _line(event: RoundScored, seat: int) -> str:
    numbers = cards_text(event.lines[seat])
    modifiers = cards_text(event.modifiers[seat])
    if numbers and modifiers:
        return f"{numbers}  {modifiers}"
    return numbers or modifiers or "-"
