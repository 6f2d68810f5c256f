"""Training R6's networks (``flip7 train``): R5's searches, learned.

R5 (``mcts``) plays every seat of seeded games (tables of 4, 4, 3 and 5 players in turn),
its rollouts compiled where flip7[fast] is installed. At every Hit/Stay it searches (a
total within 150 points of the target) the game keeps the position's feature row
(:func:`flip7.bots.hitnet.hit_features`) and the search's answer: the mean paired
difference of Hit over Stay over its rollouts, in points of the chance to win. A network
(:class:`~flip7.bots.hitnet.HitNet`: ReLU hidden layers, a linear output, the inputs
standardised inside its first layer) is fitted to those answers by a Huber loss (5 points)
with Adam and a cosine decay of the learning rate. ``members`` such networks (3), fitted
from successive seeds, are averaged as one (:func:`merge`): the average chooses better than
any one of them.

At every use of an Action or Modifier it searches, the game keeps a row per use searched
(:func:`flip7.bots.hitnet.use_features`) and the search's gain of each over R4's choice.
With ``uses_out`` a second network (:class:`~flip7.bots.hitnet.UseNet`) is fitted the same
way to those gains: its output for a use less its output for R4's choice.

A tenth of the games is held out of the fit. The report scores the networks' choices there
by the searches' own answers: the points per decision that its choices gain over R4's where
they differ, next to R5's (R5's figure is scored by the searches it chose on, but a second,
independent search gives nearly the same: ``scripts/r6_second_search.py``).

Everything is seeded: the same arguments give the same games and, on one thread (it sets
``torch.set_num_threads(1)``), the same weights, whatever ``jobs``. One caveat: R5's 0.5 s
safety net on a search is wall-clock time, and a machine so loaded that a compiled search
reaches it plays differently (not seen: compiled searches take a few milliseconds).

>>> config = DistillConfig(games=2, iters=50)
>>> searched, uses = search_games(0, 1, config)  # one game of four R5
>>> searched.x.shape[1] == FEATURES, len(searched) > 5, set(searched.game.tolist())
(True, True, {0})
>>> uses.x.shape[1] == USE_FEATURES, bool(uses.r5.sum() == uses.decision.max() + 1)
(True, True)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from flip7.bots.hitnet import (
    FEATURES,
    USE_FEATURES,
    HitNet,
    UseNet,
    hit_features,
    use_features,
)
from flip7.bots.mcts import MCTSBot
from flip7.bots.public import PublicView
from flip7.core.decisions import HIT, Decision, DecisionKind
from flip7.core.errors import Flip7Error
from flip7.learn.selfplay import seeded_game

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Layers = list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]

__all__ = [
    "DistillConfig",
    "DistillReport",
    "Searched",
    "SearchedUses",
    "distill",
    "fit_hit",
    "fit_uses",
    "held_out_gains",
    "held_out_use_gains",
    "load_samples",
    "save_samples",
    "search_games",
]

_CHUNK = 50  # games per task handed to a worker process
_HS = DecisionKind.HIT_OR_STAY


@dataclass(frozen=True)
class DistillConfig:
    """What ``flip7 train`` was asked for (its defaults wrote the shipped network)."""

    games: int = 20000
    seed: int = 1
    players: tuple[int, ...] = (4, 4, 3, 5)
    hidden: tuple[int, ...] = (128, 128)
    epochs: int = 20
    batch: int = 1024
    lr: float = 1e-3
    holdout: float = 0.1
    iters: int = 2000
    jobs: int = 1
    members: int = 3

    def check(self) -> None:
        """Raise :class:`~flip7.learn.train.TrainError` on a setting out of range."""
        from flip7.learn.train import TrainError

        if min(self.games, self.epochs, self.batch, self.iters, self.jobs, self.members) < 1:
            raise TrainError("games, epochs, batch, iters, jobs and members must be at least 1")
        if not self.hidden or min(self.hidden) < 1:
            raise TrainError("give at least one hidden layer of at least one unit")
        if not all(3 <= n <= 18 for n in self.players):
            raise TrainError(f"players must be 3 to 18 per table, got {self.players}")
        if not 0.0 <= self.holdout < 1.0:
            raise TrainError("holdout must be in [0, 1)")


@dataclass(frozen=True)
class Searched:
    """Searched Hit/Stay decisions: feature rows ``x``, the search's ``gain`` of Hit over
    Stay (points), R4's choice (``r4_hit``) and R5's (``r5_hit``), and the game of each."""

    x: npt.NDArray[np.float32]
    gain: npt.NDArray[np.float64]
    r4_hit: npt.NDArray[np.bool_]
    r5_hit: npt.NDArray[np.bool_]
    game: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.gain)


@dataclass
class DistillReport:
    """What the run did: samples, and the held-out score of the network's choices."""

    lines: list[str] = field(default_factory=list)
    samples: int = 0
    net_gain: float = 0.0
    r5_gain: float = 0.0
    use_gain: float = 0.0
    r5_use_gain: float = 0.0
    seconds: float = 0.0


@dataclass(frozen=True)
class SearchedUses:
    """Searched uses of Actions and Modifiers: a feature row ``x`` per candidate use
    (:func:`~flip7.bots.hitnet.use_features`), the search's ``gain`` of it over R4's choice
    (points; R4's own row, the first of its decision, 0), the ``decision`` each row belongs
    to (numbered in order), whether R5 chose it (``r5``), and the game of each."""

    x: npt.NDArray[np.float32]
    gain: npt.NDArray[np.float64]
    decision: npt.NDArray[np.int64]
    r5: npt.NDArray[np.bool_]
    game: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.gain)


_HitRow = tuple[list[float], float, bool, bool]
_UseRows = tuple[list[list[float]], list[float], int]


class _Recorder(MCTSBot):
    """R5, keeping what each of its searches found."""

    def __init__(self, seed: int, iters: int, hits: list[_HitRow], uses: list[_UseRows]):
        super().__init__(seed, iters=iters, time=0.9)
        self.hits = hits
        self.uses = uses

    def search(
        self, view: PublicView, candidates: list[Decision], default: Decision, deadline: float
    ) -> Decision:
        choice = super().search(view, candidates, default, deadline)
        if not self.last_iterations:
            return choice
        if view.kind is _HS:
            other = self.last_gains[1]  # the other option's gain over R4's
            gain = 100.0 * (-other if default is HIT else other)
            self.hits.append((hit_features(view), gain, default is HIT, choice is HIT))
        else:
            self.uses.append((
                candidate_rows(self, view, candidates),
                [100.0 * g for g in self.last_gains],
                candidates.index(choice),
            ))  # fmt: skip
        return choice


def candidate_rows(
    bot: MCTSBot, view: PublicView, candidates: Sequence[Decision]
) -> list[list[float]]:
    """The uses network's rows for the candidates of ``bot``'s search of a use (the
    judge's shortlist, R4's choice, its best, first)."""
    judge = bot.judge(view)
    worth = {d: v for v, d in judge.ranked(view.options)}
    return use_features(view, judge, [(worth[d], d) for d in candidates])


def _compile_rollouts() -> bool:
    try:
        from flip7.fast import rollout
    except ImportError:
        return False
    try:
        rollout.install()
    except Exception:
        return False
    return True


def search_games(first: int, count: int, config: DistillConfig) -> tuple[Searched, SearchedUses]:
    """Play games ``first`` … ``first + count - 1`` (each seeded from ``config.seed`` and
    its index) and keep their searched decisions."""
    import numpy as np

    _compile_rollouts()
    rows: list[list[float]] = []
    gains: list[float] = []
    r4: list[bool] = []
    r5: list[bool] = []
    games: list[int] = []
    use_rows: list[list[float]] = []
    use_gains: list[float] = []
    use_decision: list[int] = []
    use_r5: list[bool] = []
    use_games: list[int] = []
    for i in range(first, first + count):
        game, rng = seeded_game(config.seed, i, config.players)
        hits: list[_HitRow] = []
        uses: list[_UseRows] = []
        game.play([_Recorder(rng.getrandbits(32), config.iters, hits, uses)
                   for _ in range(game.n)])  # fmt: skip
        for row, gain, r4_hit, r5_hit in hits:
            rows.append(row)
            gains.append(gain)
            r4.append(r4_hit)
            r5.append(r5_hit)
            games.append(i)
        for use_x, use_g, chosen in uses:
            number = use_decision[-1] + 1 if use_decision else 0
            for k, (row, gain) in enumerate(zip(use_x, use_g, strict=True)):
                use_rows.append(row)
                use_gains.append(gain)
                use_decision.append(number)
                use_r5.append(k == chosen)
                use_games.append(i)
    return (
        Searched(
            np.array(rows, dtype=np.float32).reshape(-1, FEATURES),
            np.array(gains, dtype=np.float64),
            np.array(r4, dtype=np.bool_),
            np.array(r5, dtype=np.bool_),
            np.array(games, dtype=np.int64),
        ),
        SearchedUses(
            np.array(use_rows, dtype=np.float32).reshape(-1, USE_FEATURES),
            np.array(use_gains, dtype=np.float64),
            np.array(use_decision, dtype=np.int64),
            np.array(use_r5, dtype=np.bool_),
            np.array(use_games, dtype=np.int64),
        ),
    )


def _concat(parts: Sequence[tuple[Searched, SearchedUses]]) -> tuple[Searched, SearchedUses]:
    import numpy as np

    hits = [p[0] for p in parts]
    uses = [p[1] for p in parts]
    offsets = np.cumsum([0] + [int(u.decision.max()) + 1 if len(u) else 0 for u in uses])
    return (
        Searched(
            np.concatenate([p.x for p in hits]),
            np.concatenate([p.gain for p in hits]),
            np.concatenate([p.r4_hit for p in hits]),
            np.concatenate([p.r5_hit for p in hits]),
            np.concatenate([p.game for p in hits]),
        ),
        SearchedUses(
            np.concatenate([u.x for u in uses]),
            np.concatenate([u.gain for u in uses]),
            np.concatenate([u.decision + off for u, off in zip(uses, offsets, strict=False)]),
            np.concatenate([u.r5 for u in uses]),
            np.concatenate([u.game for u in uses]),
        ),
    )


def play(
    config: DistillConfig, log: Callable[[str], None] = print
) -> tuple[Searched, SearchedUses]:
    """All of ``config``'s games, ``config.jobs`` processes at a time, in order."""
    starts = list(range(0, config.games, _CHUNK))
    sizes = [min(_CHUNK, config.games - s) for s in starts]
    if config.jobs == 1:
        parts = [search_games(s, k, config) for s, k in zip(starts, sizes, strict=True)]
    else:
        with ProcessPoolExecutor(config.jobs) as pool:
            futures = [
                pool.submit(search_games, s, k, config) for s, k in zip(starts, sizes, strict=True)
            ]
            parts = []
            for done, future in enumerate(futures, 1):
                parts.append(future.result())
                if done % 20 == 0:
                    log(f"  {sum(sizes[:done])} of {config.games} games played")
    return _concat(parts)


class _Fit:
    """A network being fitted (torch): ReLU hidden layers, a linear output, the inputs
    standardised by ``x``'s mean and spread (folded into the first layer on export)."""

    def __init__(self, x: Any, hidden: Sequence[int], seed: int) -> None:
        from flip7.learn.train import _torch

        torch = self.torch = _torch()
        import numpy as np

        torch.manual_seed(seed)
        x = x.astype(np.float32)
        self.mean = x.mean(axis=0)
        self.scale = x.std(axis=0) + 1e-6  # a constant input (no 5-player table) stays 0
        sizes = [x.shape[1], *hidden, 1]
        self.modules: list[Any] = []
        for i in range(len(sizes) - 1):
            self.modules.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
            if i < len(sizes) - 2:
                self.modules.append(torch.nn.ReLU())
        self.model = torch.nn.Sequential(*self.modules)
        self.xs = torch.from_numpy((x - self.mean) / self.scale)
        self.gen = torch.Generator().manual_seed(seed)

    def epochs(self, config: DistillConfig, size: int, loss: Callable[[Any], Any]) -> Any:
        """Each epoch's mean ``loss(indices)`` over shuffled batches of ``range(size)``,
        by Adam with a cosine decay of the learning rate (a generator: one per epoch)."""
        torch = self.torch
        opt = torch.optim.Adam(self.model.parameters(), lr=config.lr)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=config.epochs)
        for _ in range(config.epochs):
            order = torch.randperm(size, generator=self.gen)
            total = 0.0
            for start in range(0, size, config.batch):
                idx = order[start : start + config.batch]
                opt.zero_grad()
                value = loss(idx)
                value.backward()
                opt.step()
                total += float(value.item()) * len(idx)
            sched.step()
            yield total / size

    def layers(self) -> Layers:
        """The weights as numpy arrays, the standardisation folded into the first layer:
        the network reads raw rows."""
        import numpy as np

        out: Layers = []
        for m in self.modules:
            if isinstance(m, self.torch.nn.Linear):
                w = m.weight.detach().numpy().T.astype(np.float64)
                b = m.bias.detach().numpy().astype(np.float64)
                out.append((w.copy(), b.copy()))
        w0, b0 = out[0]
        inv = (1.0 / self.scale).astype(np.float64)
        out[0] = (w0 * inv[:, None], b0 - (self.mean.astype(np.float64) * inv) @ w0)
        return out


def merge(members: Sequence[Layers]) -> Layers:
    """One network whose output is the mean of ``members``' (networks of one shape): their
    hidden units side by side, each hidden layer block-diagonal, the output layer averaging.

    An average of networks fitted from different seeds chooses better than any one of
    them (on R5's searches held out, docs/strength.md), and as one network it needs no
    other file format or code to play.

    >>> import numpy as np
    >>> a = [(np.ones((2, 3)), np.zeros(3)), (np.ones((3, 1)), np.ones(1))]
    >>> b = [(-np.ones((2, 3)), np.ones(3)), (2 * np.ones((3, 1)), np.zeros(1))]
    >>> both = merge([a, b])
    >>> [w.shape for w, _ in both]
    [(2, 6), (6, 1)]
    >>> x = np.array([[1.0, 2.0], [-3.0, 0.5]])
    >>> relu = lambda h: np.maximum(h, 0.0)
    >>> def out(layers):
    ...     h = relu(x @ layers[0][0] + layers[0][1])
    ...     return (h @ layers[1][0] + layers[1][1])[:, 0]
    >>> bool(np.allclose(out(both), (out(a) + out(b)) / 2))
    True
    """
    import numpy as np

    if len(members) == 1:
        return list(members[0])
    k = len(members)
    merged: Layers = []
    last = len(members[0]) - 1
    for i in range(last + 1):
        ws = [m[i][0] for m in members]
        bs = [m[i][1] for m in members]
        if i == last:
            merged.append((np.concatenate(ws, axis=0) / k, np.mean(bs, axis=0)))
        elif i == 0:
            merged.append((np.concatenate(ws, axis=1), np.concatenate(bs)))
        else:
            w = np.zeros((sum(x.shape[0] for x in ws), sum(x.shape[1] for x in ws)))
            r = c = 0
            for x in ws:
                w[r : r + x.shape[0], c : c + x.shape[1]] = x
                r, c = r + x.shape[0], c + x.shape[1]
            merged.append((w, np.concatenate(bs)))
    return merged


def _fit_member(
    samples: Searched | SearchedUses,
    test: Searched | SearchedUses,
    config: DistillConfig,
    seed: int,
    logged: bool,
) -> tuple[Layers, list[str]]:
    """One member's fit (in a worker process with ``jobs`` > 1), and its curve if
    ``logged``."""
    from flip7.learn.train import _torch

    _torch().set_num_threads(1)
    lines: list[str] = []
    log = lines.append if logged else None
    if isinstance(samples, Searched):
        assert isinstance(test, Searched)
        return fit_hit(samples, config, seed, test if logged else None, log), lines
    assert isinstance(test, SearchedUses)
    return fit_uses(samples, config, seed, test if logged else None, log), lines


def _fit_all(
    parts: Sequence[tuple[Searched | SearchedUses, Searched | SearchedUses]],
    config: DistillConfig,
    log: Callable[[str], None],
) -> list[Layers]:
    """For each (fit, held out) of ``parts``, ``config.members`` networks seeded
    ``config.seed`` on, merged into one; ``config.jobs`` processes fit them. The first
    member of each logs its curve."""
    tasks = [
        (fit, test, config, config.seed + j, j == 0)
        for fit, test in parts
        for j in range(config.members)
    ]
    if config.jobs == 1 or len(tasks) == 1:
        done = [_fit_member(*task) for task in tasks]
    else:
        with ProcessPoolExecutor(min(config.jobs, len(tasks))) as pool:
            futures = [pool.submit(_fit_member, *task) for task in tasks]
            done = [future.result() for future in futures]
    merged = []
    for i in range(len(parts)):
        members = done[i * config.members : (i + 1) * config.members]
        for line in members[0][1]:
            log(line)
        merged.append(merge([layers for layers, _ in members]))
    return merged


def fit_hit(
    samples: Searched,
    config: DistillConfig,
    seed: int,
    test: Searched | None = None,
    log: Callable[[str], None] | None = None,
) -> Layers:
    """A network fitted to ``samples`` (see the module docstring). With ``test`` and
    ``log``, each epoch logs its training loss and the held-out score of its choices
    (:func:`held_out_gains`): the training curve. Watching does not change the fit."""
    import numpy as np

    fit = _Fit(samples.x, config.hidden, seed)
    torch = fit.torch
    ys = torch.from_numpy(samples.gain.astype(np.float32))

    def loss(idx: Any) -> Any:
        return torch.nn.functional.huber_loss(fit.model(fit.xs[idx])[:, 0], ys[idx], delta=5.0)

    for epoch, mean_loss in enumerate(fit.epochs(config, len(ys), loss)):
        if test is not None and log is not None:
            gain, _ = held_out_gains(HitNet(fit.layers(), {}), test)
            log(f"  epoch {epoch + 1}: loss {mean_loss:.3f}, held-out gain {gain:+.3f}")
    return fit.layers()


def _pairs(uses: SearchedUses) -> tuple[Any, Any]:
    """Each row that is not R4's choice, and the row of R4's choice in its decision."""
    import numpy as np

    firsts = np.searchsorted(uses.decision, uses.decision)
    others = np.flatnonzero(firsts != np.arange(len(uses)))
    return others, firsts[others]


def fit_uses(
    samples: SearchedUses,
    config: DistillConfig,
    seed: int,
    test: SearchedUses | None = None,
    log: Callable[[str], None] | None = None,
) -> Layers:
    """The uses network fitted to ``samples``: its output for a use less its output for
    R4's choice in the same decision, against the search's gain of that use over R4's
    choice (Huber loss, 5 points). Logged like :func:`fit_hit`."""
    import numpy as np

    fit = _Fit(samples.x, config.hidden, seed)
    torch = fit.torch
    rows, firsts = (torch.from_numpy(a) for a in _pairs(samples))
    ys = torch.from_numpy(samples.gain.astype(np.float32))

    def loss(idx: Any) -> Any:
        r, f = rows[idx], firsts[idx]
        out = fit.model(fit.xs[r])[:, 0] - fit.model(fit.xs[f])[:, 0]
        return torch.nn.functional.huber_loss(out, ys[r], delta=5.0)

    for epoch, mean_loss in enumerate(fit.epochs(config, len(rows), loss)):
        if test is not None and log is not None:
            gain, _ = held_out_use_gains(UseNet(fit.layers(), {}), test)
            log(f"  epoch {epoch + 1}: loss {mean_loss:.3f}, held-out gain {gain:+.3f}")
    return fit.layers()


def held_out_use_gains(net: UseNet, test: SearchedUses) -> tuple[float, float]:
    """Points of the chance to win per searched use that the network's choices, and R5's,
    gain over R4's, by the searches' own answers."""
    if not len(test):
        return 0.0, 0.0
    import numpy as np

    out = net.raw(test.x.astype(np.float64))
    firsts = np.searchsorted(test.decision, test.decision)
    edge = out - out[firsts]  # each use's predicted gain over R4's choice
    decisions = int(test.decision.max() - test.decision.min()) + 1
    net_gain = 0.0
    starts = np.flatnonzero(firsts == np.arange(len(test)))
    for start, stop in zip(starts, [*starts[1:], len(test)], strict=True):
        best = start + int(np.argmax(edge[start:stop]))
        if edge[best] > 0.0:
            net_gain += float(test.gain[best])
    return net_gain / decisions, float(test.gain[test.r5].sum()) / decisions


_S = TypeVar("_S", "Searched", "SearchedUses")


def _split(samples: _S, config: DistillConfig) -> tuple[_S, _S]:
    """The samples of the games fitted, and of the games held out (the last ones)."""
    cut = config.games - round(config.games * config.holdout)
    keep = samples.game < cut

    def part(mask: Any) -> _S:
        return type(samples)(*(getattr(samples, f.name)[mask] for f in fields(samples)))

    return part(keep), part(~keep)


def held_out_gains(net: HitNet, test: Searched) -> tuple[float, float]:
    """Points of the chance to win per searched decision that the network's choices, and
    R5's, gain over R4's where they differ, by the searches' own answers."""
    if not len(test):
        return 0.0, 0.0
    import numpy as np

    hit = net.raw(test.x.astype(np.float64)) > 0.0
    signed = np.where(test.r4_hit, -test.gain, test.gain)  # the other option's gain
    return (
        float(signed[hit != test.r4_hit].sum() / len(test)),
        float(signed[test.r5_hit != test.r4_hit].sum() / len(test)),
    )


def save_samples(
    path: str | os.PathLike[str], samples: tuple[Searched, SearchedUses], config: DistillConfig
) -> None:
    """Keep R5's searched decisions (``.npz``) with the settings that played them."""
    import numpy as np

    hits, uses = samples
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        np.savez_compressed(
            f, x=hits.x, gain=hits.gain, r4_hit=hits.r4_hit, r5_hit=hits.r5_hit,
            game=hits.game, uses_x=uses.x, uses_gain=uses.gain, uses_decision=uses.decision,
            uses_r5=uses.r5, uses_game=uses.game, games=_played(config),
        )  # fmt: skip


def _played(config: DistillConfig) -> str:
    """What decides the games played (the fit's settings do not)."""
    return repr((config.games, config.seed, config.players, config.iters, FEATURES, USE_FEATURES))


def load_samples(
    path: str | os.PathLike[str], config: DistillConfig
) -> tuple[Searched, SearchedUses]:
    """R5's searched decisions kept by :func:`save_samples` for the same games."""
    import numpy as np

    from flip7.learn.train import TrainError

    with np.load(path, allow_pickle=False) as data:
        if str(data["games"]) != _played(config):
            raise TrainError(
                f"{path} holds other games ({data['games']}); give the settings that "
                f"played them, or another --samples file"
            )
        return (
            Searched(data["x"], data["gain"], data["r4_hit"], data["r5_hit"], data["game"]),
            SearchedUses(
                data["uses_x"], data["uses_gain"], data["uses_decision"], data["uses_r5"],
                data["uses_game"],
            ),
        )  # fmt: skip


def distill(
    out: str | os.PathLike[str],
    config: DistillConfig,
    log: Callable[[str], None] = print,
    command: str = "",
    samples_path: str | os.PathLike[str] | None = None,
    uses_out: str | os.PathLike[str] | None = None,
) -> DistillReport:
    """Play ``config``'s games, fit the Hit/Stay network, write it to ``out``, and with
    ``uses_out`` the uses network there. With
    ``samples_path``, the searched decisions are read from there if the file exists (no
    game is played), else kept there once played."""
    from flip7.learn.train import _torch, write

    config.check()
    torch = _torch()
    torch.set_num_threads(1)
    report = DistillReport()
    started = time.perf_counter()
    if samples_path is not None and Path(samples_path).is_file():
        samples, uses = load_samples(samples_path, config)
        log(f"read {len(samples)} searched Hit/Stay from {samples_path}")
    else:
        if not _compile_rollouts():
            log("flip7[fast] is not installed: R5's rollouts run in Python (far slower)")
        samples, uses = both = play(config, log)
        if samples_path is not None:
            save_samples(samples_path, both, config)
    t1 = time.perf_counter()
    if not len(samples):
        raise Flip7Error("no searched Hit/Stay in these games: play more of them")
    fit, test = _split(samples, config)
    parts: list[tuple[Searched | SearchedUses, Searched | SearchedUses]] = [(fit, test)]
    if uses_out is not None:
        fit_u, held_u = _split(uses, config)
        parts.append((fit_u, held_u))
        log(f"uses of Actions and Modifiers: {int(fit_u.decision.max(initial=-1)) + 1} "
            f"searched decisions, {len(fit_u)} uses")  # fmt: skip
    fitted = _fit_all(parts, config, log)
    t2 = time.perf_counter()
    layers = fitted[0]
    report.net_gain, report.r5_gain = held_out_gains(HitNet(layers, {}), test)
    report.samples = len(fit)
    line = (
        f"{config.games} games of R5 {t1 - started:.0f} s, {len(samples)} searched Hit/Stay; "
        f"fit on {len(fit)} ({config.members} networks averaged; with the uses network's, "
        f"{t2 - t1:.0f} s); held out ({len(test)}): the network's choices gain "
        f"{report.net_gain:+.3f} points a decision over R4's by the searches' answers (R5's "
        f"own {report.r5_gain:+.3f}, by its own searches)"
    )
    report.lines.append(line)
    log(line)
    report.seconds = time.perf_counter() - started
    figures = {"held_out_gain": f"{report.net_gain:.4f}", "r5_gain": f"{report.r5_gain:.4f}"}
    write(out, layers, config, command, report.seconds, figures, log)
    if uses_out is None:
        return report
    test_u = parts[1][1]
    assert isinstance(test_u, SearchedUses)
    report.use_gain, report.r5_use_gain = held_out_use_gains(UseNet(fitted[1], {}), test_u)
    line = (
        f"uses: held out ({len(test_u)} uses): the network's choices gain "
        f"{report.use_gain:+.3f} points a decision over R4's by the searches' answers (R5's "
        f"own {report.r5_use_gain:+.3f}, by its own searches)"
    )
    report.lines.append(line)
    log(line)
    figures = {"held_out_gain": f"{report.use_gain:.4f}", "r5_gain": f"{report.r5_use_gain:.4f}"}
    write(uses_out, fitted[1], config, command, report.seconds, figures, log)
    return report
