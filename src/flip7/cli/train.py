"""``flip7 train``: train the learned bot R6's value network by self-play
(:mod:`flip7.learn.train`; needs ``pip install 'flip7[train]'``).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="flip7 train")
>>> add_arguments(parser)
>>> args = parser.parse_args(["--games", "10", "--iterations", "1", "--out", "r6.npz"])
>>> _config(args).games, _config(args).players
(10, (4, 4, 3, 5))
"""

from __future__ import annotations

import argparse
import shlex
import sys

from flip7.core.errors import Flip7Error

__all__ = ["DESCRIPTION", "EPILOG", "add_arguments", "run"]


DESCRIPTION = """\
Train R6's value network (flip7.bots.learned) by self-play: each iteration plays GAMES games
(R4 in every seat at first, then R6 with the latest network in about half the seats), and
fits a small network to the chance that each seat wins the game from the totals at the end
of every round, on all the games so far. Writes the network (.npz, played with numpy alone)
to --out; the bot reads it with FLIP7_LEARNED_WEIGHTS=PATH, or from the package when --out
is the shipped file. The same arguments give the same weights."""

EPILOG = """\
examples:
  flip7 train --out r6.npz                       the settings of the shipped weights
  flip7 train --games 50 --iterations 1 --epochs 5 --out /tmp/tiny.npz   a quick try
  FLIP7_LEARNED_WEIGHTS=r6.npz flip7 tournament --seats learned,winprob,winprob,winprob \\
      --compare winprob,winprob,winprob,winprob --paired --games 400
"""


def _players(text: str) -> tuple[int, ...]:
    try:
        out = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"players are table sizes separated by commas (such as 4,4,3,5), got {text!r}"
        ) from None
    if not out or not all(3 <= n <= 18 for n in out):
        raise argparse.ArgumentTypeError(f"each table size must be 3 to 18, got {text!r}")
    return out


def _hidden(text: str) -> tuple[int, ...]:
    try:
        out = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"hidden layers are sizes separated by commas (such as 32,32), got {text!r}"
        ) from None
    if not out or min(out) < 1 or max(out) > 256:
        raise argparse.ArgumentTypeError(f"each hidden layer must have 1 to 256 units: {text!r}")
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 train``."""
    from flip7.learn.train import Config

    d = Config()
    parser.add_argument("--out", required=True, metavar="PATH", help="where to write the .npz")
    parser.add_argument("--seed", type=int, default=d.seed, help=f"seed (default {d.seed})")
    parser.add_argument(
        "--games", type=int, default=d.games, metavar="N",
        help=f"self-play games per iteration (default {d.games})",
    )  # fmt: skip
    parser.add_argument(
        "--iterations", type=int, default=d.iterations, metavar="K",
        help=f"iterations of self-play and fitting (default {d.iterations})",
    )  # fmt: skip
    parser.add_argument(
        "--players", type=_players, default=d.players, metavar="N,N,...",
        help="table sizes, in turn from game to game (default "
        + ",".join(map(str, d.players)) + ")",
    )  # fmt: skip
    parser.add_argument(
        "--hidden", type=_hidden, default=d.hidden, metavar="H,H",
        help="hidden layer sizes (default " + ",".join(map(str, d.hidden)) + ")",
    )  # fmt: skip
    parser.add_argument(
        "--epochs", type=int, default=d.epochs, help=f"epochs per fit (default {d.epochs})"
    )
    parser.add_argument(
        "--share", type=float, default=d.share,
        help=f"share of seats R6 plays after the first iteration (default {d.share})",
    )  # fmt: skip


def _config(args: argparse.Namespace) -> object:
    from flip7.learn.train import Config

    return Config(
        games=args.games, iterations=args.iterations, seed=args.seed, players=args.players,
        hidden=args.hidden, epochs=args.epochs, share=args.share,
    )  # fmt: skip


def _command(args: argparse.Namespace) -> str:
    """The command line that gives these settings (kept in the weights file)."""
    words = ["flip7", "train", "--seed", str(args.seed), "--games", str(args.games)]
    words += ["--iterations", str(args.iterations)]
    add_arguments(parser := argparse.ArgumentParser())
    defaults = parser.parse_args(["--out", args.out])
    for name, flag in (("players", "--players"), ("hidden", "--hidden")):
        if getattr(args, name) != getattr(defaults, name):
            words += [flag, ",".join(map(str, getattr(args, name)))]
    for name in ("epochs", "share"):
        if getattr(args, name) != getattr(defaults, name):
            words += [f"--{name}", str(getattr(args, name))]
    return shlex.join([*words, "--out", args.out])


def run(args: argparse.Namespace) -> int:
    """Train, print one line per iteration, write the network."""
    from flip7.learn.train import Config, train

    config = _config(args)
    assert isinstance(config, Config)
    try:
        train(args.out, config, command=_command(args))
    except Flip7Error as exc:
        print(f"flip7 train: {exc}", file=sys.stderr)
        return 2
    return 0
