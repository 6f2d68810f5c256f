"""Training R6's value network by self-play (``flip7 train``), with PyTorch on the CPU.

Each iteration plays games (:mod:`flip7.learn.selfplay`: R4 only at first, then R6 with the
latest network in about half the seats), adds their samples to those of the earlier
iterations, and fits a new network to all of them: a small MLP (tanh) with a logistic
output, by binary cross-entropy against the share of the win, with Adam. A tenth of each
iteration's games is held out: the report gives the held-out loss of the network next to
that of R4's normal model (:func:`flip7.bots.winprob.win_chance`).

Everything is seeded: the same arguments give the same games and, on one thread (it sets
``torch.set_num_threads(1)``), the same weights.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flip7.bots.learned import FEATURES, ValueNet
from flip7.core.errors import Flip7Error
from flip7.learn.selfplay import Samples, lineup, play_games

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Layers = list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]

__all__ = ["Config", "Report", "TrainError", "fit", "log_loss", "save", "train", "write"]


class TrainError(Flip7Error):
    """``flip7 train`` cannot run: PyTorch or numpy is missing, or a setting is wrong."""


@dataclass(frozen=True)
class Config:
    """What ``flip7 train`` was asked for (its defaults wrote the shipped weights)."""

    games: int = 2000
    iterations: int = 2
    seed: int = 1
    players: tuple[int, ...] = (4, 4, 3, 5)
    hidden: tuple[int, ...] = (32, 32)
    epochs: int = 30
    batch: int = 512
    lr: float = 3e-3
    share: float = 0.5
    holdout: float = 0.1

    def check(self) -> None:
        """Raise :class:`TrainError` on a setting out of range."""
        if self.games < 1 or self.iterations < 1 or self.epochs < 1 or self.batch < 1:
            raise TrainError("games, iterations, epochs and batch must be at least 1")
        if not self.hidden or min(self.hidden) < 1:
            raise TrainError("give at least one hidden layer of at least one unit")
        if not all(3 <= n <= 18 for n in self.players):
            raise TrainError(f"players must be 3 to 18 per table, got {self.players}")
        if not 0.0 <= self.share <= 1.0 or not 0.0 <= self.holdout < 1.0:
            raise TrainError("share must be in [0, 1] and holdout in [0, 1)")


@dataclass
class Report:
    """What each iteration did: samples, held-out loss of the network and of R4's model."""

    lines: list[str] = field(default_factory=list)
    samples: int = 0
    loss: float = 0.0
    baseline: float = 0.0
    seconds: float = 0.0


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise TrainError(
            "flip7 train needs PyTorch and numpy: pip install 'flip7[train]'"
        ) from None
    return torch


def log_loss(p: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
    """Mean binary cross-entropy of chances ``p`` against labels ``y`` (shares of a win)."""
    import numpy as np

    q = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))


def fit(samples: Samples, config: Config, seed: int) -> Layers:
    """A new network fitted to ``samples`` (see the module docstring)."""
    torch = _torch()
    import numpy as np

    torch.manual_seed(seed)
    sizes = [FEATURES, *config.hidden, 1]
    modules: list[Any] = []
    for i in range(len(sizes) - 1):
        modules.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            modules.append(torch.nn.Tanh())
    model = torch.nn.Sequential(*modules).double()
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    x = torch.from_numpy(samples.x)
    y = torch.from_numpy(samples.y)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    gen = torch.Generator().manual_seed(seed)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=config.epochs)
    for _ in range(config.epochs):
        order = torch.randperm(len(y), generator=gen)
        for start in range(0, len(y), config.batch):
            idx = order[start : start + config.batch]
            opt.zero_grad()
            loss = loss_fn(model(x[idx])[:, 0], y[idx])
            loss.backward()
            opt.step()
        sched.step()
    layers: Layers = []
    for m in modules:
        if isinstance(m, torch.nn.Linear):
            w = m.weight.detach().numpy().T.astype(np.float64)
            b = m.bias.detach().numpy().astype(np.float64)
            layers.append((w.copy(), b.copy()))
    return layers


def save(path: str | os.PathLike[str], layers: Layers, meta: dict[str, str]) -> None:
    """Write a network as ``.npz`` (float32 weights; ``meta_*`` strings say how it was
    made), the file :meth:`flip7.bots.learned.ValueNet.load` reads."""
    import numpy as np

    arrays: dict[str, Any] = {"layers": np.array(len(layers))}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"] = w.astype(np.float32)
        arrays[f"b{i}"] = b.astype(np.float32)
    for key, value in meta.items():
        arrays[f"meta_{key}"] = np.array(value)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)


def write(
    out: str | os.PathLike[str],
    layers: Layers,
    config: object,
    command: str,
    seconds: float,
    figures: dict[str, str],
    log: Callable[[str], None],
) -> None:
    """Save a trained network with how it was made (the command, the settings, the run's
    ``figures`` and time) and say so."""
    meta = {"command": command, "config": repr(config), **figures, "seconds": f"{seconds:.0f}"}
    save(out, layers, meta)
    log(f"wrote {out} ({Path(out).stat().st_size} bytes) in {seconds:.0f} s")


def _concat(parts: Sequence[Samples]) -> Samples:
    import numpy as np

    return Samples(
        np.concatenate([p.x for p in parts]),
        np.concatenate([p.y for p in parts]),
        np.concatenate([p.baseline for p in parts]),
        np.concatenate([p.game for p in parts]),
    )


def _split(samples: Samples, first: int, games: int, holdout: float) -> tuple[Samples, Samples]:
    cut = first + games - round(games * holdout)
    keep = samples.game < cut
    out = ~keep
    return (
        Samples(samples.x[keep], samples.y[keep], samples.baseline[keep], samples.game[keep]),
        Samples(samples.x[out], samples.y[out], samples.baseline[out], samples.game[out]),
    )


def train(
    out: str | os.PathLike[str],
    config: Config,
    log: Callable[[str], None] = print,
    command: str = "",
) -> Report:
    """Run ``config.iterations`` iterations of self-play and fitting; write the last
    network to ``out``."""
    config.check()
    torch = _torch()
    torch.set_num_threads(1)
    report = Report()
    started = time.perf_counter()
    fits: list[Samples] = []
    tests: list[Samples] = []
    net: ValueNet | None = None
    layers: Layers = []
    for it in range(config.iterations):
        first = it * config.games
        t0 = time.perf_counter()
        played = play_games(
            config.games, config.seed, config.players, lineup(net, config.share),
            first_game=first,
        )  # fmt: skip
        part, held = _split(played, first, config.games, config.holdout)
        fits.append(part)
        tests.append(held)
        t1 = time.perf_counter()
        data = _concat(fits)
        layers = fit(data, config, seed=config.seed * 1000 + it)
        net = ValueNet(layers, {})
        test = _concat(tests)
        t2 = time.perf_counter()
        if len(test):
            report.loss = log_loss(net.raw(test.x), test.y)
            report.baseline = log_loss(test.baseline, test.y)
        report.samples = len(data)
        who = "R4 only" if it == 0 else f"R6 in {config.share:.0%} of seats"
        line = (
            f"iteration {it + 1}/{config.iterations}: {config.games} games ({who}) "
            f"{t1 - t0:.0f} s, fit on {len(data)} samples {t2 - t1:.1f} s; held-out loss "
            f"{report.loss:.4f} (R4's model {report.baseline:.4f}, {len(test)} samples)"
        )
        report.lines.append(line)
        log(line)
    report.seconds = time.perf_counter() - started
    figures = {"held_out_loss": f"{report.loss:.5f}", "r4_model_loss": f"{report.baseline:.5f}"}
    write(out, layers, config, command, report.seconds, figures, log)
    return report
