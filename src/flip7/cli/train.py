"""``flip7 train``: train the learned bot R6's Hit/Stay network from R5's searches
(:mod:`flip7.learn.distill`), or the first R6's value network by self-play (``--net
value``, :mod:`flip7.learn.train`); needs ``pip install 'flip7[train]'``.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="flip7 train")
>>> add_arguments(parser)
>>> args = parser.parse_args(["--games", "10", "--out", "r6.npz"])
>>> _config(args).games, _config(args).hidden, _config(args).jobs
(10, (128, 128), 1)
>>> args = parser.parse_args(["--net", "value", "--iterations", "1", "--out", "v.npz"])
>>> _config(args).games, _config(args).hidden
(2000, (32, 32))
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TYPE_CHECKING

from flip7.core.errors import Flip7Error

if TYPE_CHECKING:
    from flip7.learn.distill import DistillConfig
    from flip7.learn.train import Config

__all__ = ["DESCRIPTION", "EPILOG", "add_arguments", "run"]


DESCRIPTION = """\
Train R6's Hit/Stay network (flip7.bots.hitnet, --net hit, the default): play GAMES games of
R5 (mcts) in every seat, keep every Hit/Stay it searched near the end of a game with the
search's answer (how much Hit is worth more than Stay to the chance to win), and fit a small
network to those answers; with --uses-out, also fit a second network to the same games'
searches of the uses of Actions and Modifiers (each use's gain over R4's choice; R6 plays
it unless learned:uses=0). With --net value, train the first R6's value network
(flip7.bots.learned.ValueNet) by self-play instead: each iteration plays GAMES games and fits
the chance that each seat wins from the totals at the end of every round. Writes the network
(.npz, played with numpy alone) to --out; the bots read it with FLIP7_HIT_WEIGHTS=PATH
(FLIP7_USE_WEIGHTS=PATH for a uses network, FLIP7_LEARNED_WEIGHTS=PATH for a value
network), or from the package when --out is the shipped file. The same arguments give the
same weights."""

EPILOG = """\
examples:
  flip7 train --jobs 2 --out r6.npz --uses-out r6_uses.npz
                                                 the settings of the shipped networks
  flip7 train --games 20 --epochs 2 --out /tmp/tiny.npz      a quick try
  flip7 train --net value --out r6_value.npz     the first R6's value network
  FLIP7_HIT_WEIGHTS=r6.npz flip7 tournament --seats learned,winprob,winprob,winprob \\
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
    from flip7.learn.distill import DistillConfig
    from flip7.learn.train import Config

    d, v = DistillConfig(), Config()
    parser.add_argument(
        "--net", choices=("hit", "value"), default="hit",
        help="hit: R6's Hit/Stay network, from R5's searches (default); value: the first "
        "R6's value network, by self-play",
    )  # fmt: skip
    parser.add_argument("--out", required=True, metavar="PATH", help="where to write the .npz")
    parser.add_argument("--seed", type=int, default=d.seed, help=f"seed (default {d.seed})")
    parser.add_argument(
        "--games", type=int, metavar="N",
        help=f"games (default {d.games}; with --net value, {v.games} per iteration)",
    )  # fmt: skip
    parser.add_argument(
        "--players", type=_players, default=d.players, metavar="N,N,...",
        help="table sizes, in turn from game to game (default "
        + ",".join(map(str, d.players)) + ")",
    )  # fmt: skip
    parser.add_argument(
        "--hidden", type=_hidden, metavar="H,H",
        help="hidden layer sizes (default " + ",".join(map(str, d.hidden)) + "; with --net "
        "value, " + ",".join(map(str, v.hidden)) + ")",
    )  # fmt: skip
    parser.add_argument(
        "--epochs", type=int, help=f"epochs of the fit (default {d.epochs}; value {v.epochs})"
    )
    parser.add_argument(
        "--members", type=int, metavar="K",
        help=f"networks fitted from seeds --seed on and averaged, as one (default "
        f"{d.members}; --net hit)",
    )  # fmt: skip
    parser.add_argument(
        "--jobs", type=int, default=d.jobs,
        help=f"processes playing R5's games (default {d.jobs}; --net hit)",
    )  # fmt: skip
    parser.add_argument(
        "--iters", type=int, default=d.iters,
        help=f"R5's iterations per search (default {d.iters}; --net hit)",
    )  # fmt: skip
    parser.add_argument(
        "--uses-out", metavar="PATH",
        help="also fit R6's network for the uses of Actions and Modifiers to the same "
        "games' searches and write it to PATH (--net hit)",
    )  # fmt: skip
    parser.add_argument(
        "--samples", metavar="PATH",
        help="keep R5's searched decisions in PATH (.npz), or read them from it when it "
        "exists: another fit without playing the games again (--net hit)",
    )  # fmt: skip
    parser.add_argument(
        "--iterations", type=int, default=v.iterations, metavar="K",
        help=f"iterations of self-play and fitting (default {v.iterations}; --net value)",
    )  # fmt: skip
    parser.add_argument(
        "--share", type=float, default=v.share,
        help=f"share of seats R6 plays after the first iteration (default {v.share}; "
        "--net value)",
    )  # fmt: skip


def _config(args: argparse.Namespace) -> Config | DistillConfig:
    from flip7.learn.distill import DistillConfig
    from flip7.learn.train import Config

    if args.net == "value":
        v = Config()
        return Config(
            games=args.games or v.games, iterations=args.iterations, seed=args.seed,
            players=args.players, hidden=args.hidden or v.hidden,
            epochs=args.epochs or v.epochs, share=args.share,
        )  # fmt: skip
    d = DistillConfig()
    return DistillConfig(
        games=args.games or d.games, seed=args.seed, players=args.players,
        hidden=args.hidden or d.hidden, epochs=args.epochs or d.epochs, iters=args.iters,
        jobs=args.jobs, members=args.members or d.members,
    )  # fmt: skip


def _command(args: argparse.Namespace) -> str:
    """The command line that gives these settings (kept in the weights file); ``--jobs``
    and ``--samples`` are left out: they do not change the network."""
    words = ["flip7", "train"]
    if args.net != "hit":
        words += ["--net", args.net]
    add_arguments(parser := argparse.ArgumentParser())
    defaults = parser.parse_args(["--net", args.net, "--out", args.out])
    config, default = _config(args), _config(defaults)
    words += ["--seed", str(args.seed), "--games", str(config.games)]
    if args.net == "value":
        words += ["--iterations", str(args.iterations)]
    for name, flag in (("players", "--players"), ("hidden", "--hidden")):
        if getattr(config, name) != getattr(default, name):
            words += [flag, ",".join(map(str, getattr(config, name)))]
    names = ("epochs", "share") if args.net == "value" else ("epochs", "iters", "members")
    for name in names:
        if getattr(config, name) != getattr(default, name):
            words += [f"--{name}", str(getattr(config, name))]
    words += ["--out", args.out]
    if args.net == "hit" and args.uses_out:
        words += ["--uses-out", args.uses_out]
    return shlex.join(words)


def run(args: argparse.Namespace) -> int:
    """Train, print one line per iteration, write the network."""
    from flip7.learn.distill import distill
    from flip7.learn.train import Config, train

    config = _config(args)
    try:
        if isinstance(config, Config):
            train(args.out, config, command=_command(args))
        else:
            distill(
                args.out, config, command=_command(args), samples_path=args.samples,
                uses_out=args.uses_out,
            )  # fmt: skip
    except Flip7Error as exc:
        print(f"flip7 train: {exc}", file=sys.stderr)
        return 2
    return 0
