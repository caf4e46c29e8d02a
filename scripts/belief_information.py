"""How much does the opponents' play tell about their hands?  (issue 29)

The search samples the hidden cards with the weights of
:func:`kozyr.bots.inference.card_weights`.  Told the opponent's hand, level 10
scales with its budget; told half of it, or nothing, it does not.  This script
measures how far the public history can take a belief from a uniform deal:
it replays saved two-player games (``kozyr arena A B --save DIR``) and, at
every decision, makes one row per card the mover has not seen (features of
the public history and of the card; whether the card was in the opponent's
hand).  Three beliefs (four with ``--network``) are scored by their
held-out log loss per card (games whose index is a multiple of 5 are held
out), each shifted per decision so that the cards it expects in the hand add
up to the hand's hidden cards, as the deal sampler does:

- ``uniform``: every unseen card alike;
- ``today``: today's factors (the level-4 model of :mod:`kozyr.bots.inference`);
- ``logistic``: a logistic regression on the features (today's weight, each
  kind of evidence alone, the card's rank and trumpness, the game's phase and
  a few counts of the opponent's play);
- ``network`` (with ``--network``, minutes more): one hidden layer of 32
  (tanh) on the same features.

Beside each belief's log loss (how right it is) the table gives its entropy
per card (how narrow it is): a belief can be narrow and wrong.

Fits use numpy only and are deterministic::

    kozyr arena 10 10 --deals 300 --seed 2900 --workers 2 --save belief10
    python scripts/belief_information.py belief10 --weights-out belief_w.json

``--weights-out`` keeps the logistic fit (a JSON list in the order of
:func:`rows_of`'s features, six decimals) for a trial search to read
(``docs/runs/issue29/belief_trial.py``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))

from analysis_figures import records_in
from inference_calibration import KINDS, probe

from kozyr.bots.inference import LEVEL4_EVIDENCE, card_weights
from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import CARD_RANK, CARD_SUIT, cards_of
from kozyr.engine.record import GameRecord
from kozyr.engine.view import View, view_of

#: Each kind of evidence read alone at the calibration's factor, 0.5: -log2 of a
#: card's weight under one of them counts that kind's pieces against the card.
PROBES = tuple(probe(kind) for kind in KINDS)

Array = NDArray[np.float64]


def rows_of(view: View) -> tuple[list[int], list[list[float]], float, int] | None:
    """For a two-player view: the unseen cards, one feature row per card, the
    uniform deal's log odds that a card is in the opponent's hand, and the
    hand's hidden cards.  None when the hand holds none or all of them.  The
    first feature is the uniform log odds, the second today's log weight."""
    other = 1 - view.seat
    unseen = view.unseen()
    hidden = view.hand_counts[other] - view.known[other].bit_count()
    n = unseen.bit_count()
    if hidden <= 0 or hidden >= n:
        return None
    share = hidden / n
    base = math.log(share / (1 - share))
    today = card_weights(view, LEVEL4_EVIDENCE)
    per_kind = [card_weights(view, p) for p in PROBES]
    played_rank = [0] * 13
    led_suit = [0] * 4
    took = 0
    for a in view.history:
        if a.seat != other:
            continue
        took += a.kind == Kind.TAKE
        for c in cards_of(a.cards):
            played_rank[CARD_RANK[c]] += 1
            if a.kind in (Kind.ATTACK, Kind.THROW):
                led_suit[CARD_SUIT[c]] += 1
    cards = cards_of(unseen)
    unseen_suit = [0] * 4
    for c in cards:
        unseen_suit[CARD_SUIT[c]] += 1
    stock = view.deck_count / 24.0
    hand = min(view.hand_counts[other], 12) / 12.0
    trump_suit = view.trump_suit
    rows = []
    for c in cards:
        rank = min(max(CARD_RANK[c] - 4, 0), 8)  # 0 for a six in 36 cards
        trump = 1.0 if CARD_SUIT[c] == trump_suit else 0.0
        onehot = [0.0] * 9
        onehot[rank] = 1.0
        kinds = [-math.log2(pk[other][c]) if pk else 0.0 for pk in per_kind]
        rows.append(
            [
                base,
                math.log(today[other][c]) if today else 0.0,
                *kinds,
                trump,
                *onehot,
                trump * rank / 8.0,
                stock,
                hand,
                share,
                stock * trump,
                min(played_rank[CARD_RANK[c]], 3) / 3.0,
                min(took, 5) / 5.0,
                float(today is None),
                min(led_suit[CARD_SUIT[c]], 6) / 6.0,
                unseen_suit[CARD_SUIT[c]] / 9.0,
                1.0,
            ]
        )
    return cards, rows, base, hidden


def collect(paths: list[str]) -> dict[str, Array]:
    """Rows of every decision of the saved games: features ``X``, labels ``Y``,
    game ``G`` and decision ``D`` of each row, hidden cards ``K`` per decision."""
    X: list[list[float]] = []
    Y: list[float] = []
    G: list[int] = []
    D: list[int] = []
    K: list[int] = []
    for g, path in enumerate(paths):
        record = GameRecord.load(path)
        if record.rules.players != 2:
            raise SystemExit(f"{path}: two-player games only")
        if record.rules.deck != 36:
            # the features' rank one-hot starts at the six and the stock is read out of 24
            raise SystemExit(f"{path}: 36-card games only (this one has {record.rules.deck})")
        state = record.start()
        for data in record.actions:
            seat = state.to_move
            if seat is not None:
                found = rows_of(view_of(state, seat))
                if found:
                    cards, rows, _, hidden = found
                    hand = state.hands[1 - seat]
                    X += rows
                    Y += [float(hand >> c & 1) for c in cards]
                    G += [g] * len(cards)
                    D += [len(K)] * len(cards)
                    K.append(hidden)
            state.apply(Action.from_json(data))
    return {
        "X": np.array(X),
        "Y": np.array(Y),
        "G": np.array(G),
        "D": np.array(D),
        "K": np.array(K, dtype=float),
    }


def normalised(z: Array, d: NDArray[np.int64], k: Array) -> Array:
    """The chance of each card in the hand, from the log odds ``z`` shifted per
    decision so that the expected cards in the hand are its hidden cards ``k``."""
    cards = np.bincount(d, minlength=len(k))
    share = k / cards
    shift = np.log(share / (1 - share)) - np.bincount(d, z, len(k)) / cards
    for _ in range(60):  # Newton's method, every decision at once, steps kept short
        p = 1 / (1 + np.exp(-np.clip(z + shift[d], -30, 30)))
        total = np.bincount(d, p, len(k))
        slope = np.bincount(d, p * (1 - p), len(k))
        shift -= np.clip((total - k) / np.maximum(slope, 1e-9), -2, 2)
    return np.clip(1 / (1 + np.exp(-np.clip(z + shift[d], -30, 30))), 1e-9, 1 - 1e-9)


def log_loss(p: Array, y: Array) -> float:
    """Mean log loss per card (nats) of the chances ``p`` against the labels ``y``."""
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def normalised_loss(z: Array, y: Array, d: NDArray[np.int64], k: Array) -> float:
    """Mean log loss per card (nats) of the normalised belief."""
    return log_loss(normalised(z, d, k), y)


def entropy(p: Array) -> float:
    """Mean entropy per card (nats) of the chances ``p``: how narrow a belief is
    (its log loss against itself)."""
    return log_loss(p, p)


def _adam(params: list[Array], grads: list[Array], state: list[Array], t: int, lr: float) -> None:
    for q, g, m, v in zip(params, grads, state[0::2], state[1::2], strict=True):
        m *= 0.9
        m += 0.1 * g
        v *= 0.999
        v += 0.001 * g * g
        q -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)


def fit_logistic(X: Array, y: Array, iters: int = 600, l2: float = 1e-3) -> Array:
    """Log odds = X @ w, by full-batch Adam from the uniform belief (w = e0)."""
    w = np.zeros(X.shape[1])
    w[0] = 1.0
    state = [np.zeros_like(w), np.zeros_like(w)]
    for t in range(1, iters + 1):
        p = 1 / (1 + np.exp(-(X @ w)))
        _adam([w], [X.T @ (p - y) / len(y) + l2 * w], state, t, 0.025)
    return w


def fit_network(
    X: Array, y: Array, hidden: int = 32, iters: int = 1500, seed: int = 0
) -> tuple[Array, Array, Array, Array]:
    """Log odds = uniform log odds + tanh(standardised X @ W1) @ W2."""
    mu, sd = X.mean(0), X.std(0) + 1e-6
    mu[0], sd[0] = 0.0, 1.0
    Xs = (X - mu) / sd
    rng = np.random.default_rng(seed)
    W1 = rng.normal(0, 1 / math.sqrt(X.shape[1]), (X.shape[1], hidden))
    W2 = np.zeros(hidden)
    state = [np.zeros_like(W1), np.zeros_like(W1), np.zeros_like(W2), np.zeros_like(W2)]
    for t in range(1, iters + 1):
        H = np.tanh(Xs @ W1)
        e = (1 / (1 + np.exp(-(X[:, 0] + H @ W2))) - y) / len(y)
        gW1 = Xs.T @ (np.outer(e, W2) * (1 - H * H)) + 1e-4 * W1
        _adam([W1, W2], [gW1, H.T @ e + 1e-4 * W2], state, t, 0.003)
    return W1, W2, mu, sd


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dirs", nargs="+", help="directories of saved two-player records")
    p.add_argument("--weights-out", help="save the logistic fit (a JSON list)")
    p.add_argument("--network", action="store_true", help="fit the network too (slow)")
    args = p.parse_args(argv)
    # every record of the directories (not the arena.json summary), in one order
    paths = sorted(str(path) for path in records_in(args.dirs))
    start = time.perf_counter()
    data = collect(paths)
    X, Y, G, D, K = data["X"], data["Y"], data["G"], data["D"], data["K"]
    print(f"{len(paths)} games, {len(K)} decisions, {len(Y)} cards unseen by the mover")
    held = G % 5 == 0
    kept = np.unique(D[held])
    d_held = np.searchsorted(kept, D[held])
    k_held = K[kept]
    y_held, x_held = Y[held], X[held]
    w = fit_logistic(X[~held], Y[~held])
    beliefs = {
        "uniform": x_held[:, 0],
        "today": x_held[:, 0] + x_held[:, 1],
        "logistic": x_held @ w,
    }
    if args.network:
        W1, W2, mu, sd = fit_network(X[~held], Y[~held])
        beliefs["network"] = x_held[:, 0] + np.tanh(((x_held - mu) / sd) @ W1) @ W2
    uniform = normalised_loss(beliefs["uniform"], y_held, d_held, k_held)
    print("| belief | log loss per card (nats) | below uniform | entropy per card (nats) |")
    print("|---|---|---|---|")
    for name, z in beliefs.items():
        p_held = normalised(z, d_held, k_held)  # once per belief, for both columns
        loss, narrow = log_loss(p_held, y_held), entropy(p_held)
        print(f"| {name} | {loss:.4f} | {100 * (uniform - loss) / uniform:.1f} % | {narrow:.4f} |")
    if args.weights_out:
        with open(args.weights_out, "w") as out:
            json.dump([round(float(x), 6) for x in w], out)
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
