"""Sundae Split as tokens and tensors: the Splitter places its drawn cards one by one, a chooser takes a pile.

The split cannot be listed (`legal_actions` raises TooManyActions: 750 splits of 6 cards for 2 players, 258,720 for 3,
133,182,000 for 4 and about 7 x 10^11 for 5),
so it is decomposed: the Splitter places its cards in a fixed order (by card id, so cards of one kind come
together), one token per card naming the card's kind, the pile and the side: `banana to pile 2 face down`. The
mask offers, for the card in hand, exactly the piles and sides from which the rest of the cards can still finish a
legal split ('one pile per player', 'at least one card, and no more than four', exactly `face_down` cards face
down), so every legal split is reachable and nothing illegal is. After the last card the split is played.

A split is a set of cards per pile and side: the order of the card ids inside a pile's `face_up` or `face_down`
list is no choice in the rules and changes no score, and the engine accepts any. The environment lists them in
card-id order, and `encode` maps a split in any order to the tokens of that one.

Because a token names the card's kind, the common `chosen` section (how often each token was chosen this decision)
is the partial split itself: how many of each kind lie in each pile, face up and face down (which copy of a kind
lies where is all it leaves out, and no score depends on it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, cast

from engine.protocol import Action, GameState, View
from engine.sundae_split import GAME
from engine.sundae_split.cards import CARDS, MAX_PILE, MIN_PILE, ROUND_SIZES, SCOOP, VEGETABLE, deck_size, starting_deck
from engine.sundae_split.game import BEST_SCORE, CHOOSE, SPLIT, WORST_SCORE, SundaeSplitState
from parlour_envs.encoding import Choice, Encoding, Section

KINDS: tuple[tuple[str, str, int], ...] = tuple(dict.fromkeys((card.kind, card.name, card.points) for card in CARDS))
"""The 16 kinds of card (kind, name, points): cards of a kind score alike (`three_plus` only marks the 2p deck)."""
KIND_OF: dict[str, int] = {card.id: KINDS.index((card.kind, card.name, card.points)) for card in CARDS}
"""Each card id's kind."""
SIDES = ("face up", "face down")
PILE_SCALE = MAX_PILE
"""Cards of a pile are counted over the most a pile holds."""


def kind_text(kind: tuple[str, str, int]) -> str:
    """A kind as the rulebook names it: `vanilla 2`, `broccoli -3`, `banana`."""
    category, name, points = kind
    if category == SCOOP:
        return f"{name} {points}"
    if category == VEGETABLE:
        return f"{name} -{points}"
    return name


def card_text(card: dict[str, Any]) -> str:
    """A card of a view as text."""
    return kind_text((card["kind"], card["name"], card["points"]))


class SundaeSplitEncoding(Encoding):
    """Tokens `(kind * players + pile) * 2 + side` place the card in hand (side 0 face up, 1 face down); token
    `32 * players + pile` takes that pile. A split is `draw` tokens (6, 8, 10 or 13), a choice one."""

    game = GAME

    def __init__(self, players: int, options: dict[str, Any]) -> None:
        self.size = ROUND_SIZES[players]
        self.place_tokens = len(KINDS) * players * 2
        super().__init__(players, options)
        # Per placing token: its pile and whether it goes face down; per kind: the first of its tokens.
        self.token_pile = tuple((token // 2) % players for token in range(self.place_tokens))
        self.token_down = tuple(token % 2 for token in range(self.place_tokens))
        copies = Counter(KIND_OF[card] for card in starting_deck(players))
        self.share = tuple(1.0 / copies[kind] for kind in range(len(KINDS)))
        """What one card of each kind adds to a count over that kind's copies in the game."""
        self.deck_size = deck_size(players)
        self.places: dict[tuple[tuple[int, ...], int, int], tuple[int, ...]] = {}
        """`_places` by its arguments, filled as play meets them (bounded: under 15,000 for 5 players)."""

    # --- actions ----------------------------------------------------------------------------------------------
    def name_tokens(self) -> Sequence[str]:
        places = [
            f"{kind_text(kind)} to pile {pile} {side}"
            for kind in KINDS
            for pile in range(self.players)
            for side in SIDES
        ]
        return [*places, *(f"take pile {pile}" for pile in range(self.players))]

    def encode(self, state: GameState, seat: int, action: Action) -> tuple[int, ...]:
        if action["type"] == CHOOSE:
            return (self.place_tokens + action["pile"],)
        where: dict[str, int] = {}
        for pile, cards in enumerate(action["piles"]):
            for side, key in enumerate(("face_up", "face_down")):
                for card in cards[key]:
                    where[card] = pile * 2 + side
        hand = sorted(cast(SundaeSplitState, state).hand)
        return tuple(KIND_OF[card] * self.players * 2 + where[card] for card in hand)

    def choices(self, state: GameState, seat: int, chosen: tuple[int, ...]) -> dict[int, Choice]:
        sundae = cast(SundaeSplitState, state)
        if sundae.phase == CHOOSE:
            return {self.place_tokens + pile: {"type": CHOOSE, "pile": pile} for pile in sundae.open_piles()}
        hand = sorted(sundae.hand)
        left = len(hand) - len(chosen) - 1  # cards still to place after this one
        if left < 0:
            return {}
        sizes = [0] * self.players
        for token in chosen:
            sizes[self.token_pile[token]] += 1
        place = (tuple(sizes), sum(map(self.token_down.__getitem__, chosen)), left)
        places = self.places.get(place)
        if places is None:
            places = self.places[place] = self._places(*place)
        base = KIND_OF[hand[len(chosen)]] * self.players * 2
        if left == 0:
            return {base + offset: self._split(hand, (*chosen, base + offset)) for offset in places}
        return dict.fromkeys([base + offset for offset in places])

    def _places(self, sizes: tuple[int, ...], down: int, left: int) -> tuple[int, ...]:
        """The piles and sides (`pile * 2 + side`) where the card in hand may go, with `down` cards face down so far
        and `left` more cards to place after it: those from which the rest can still finish a legal split.

        The rest can finish one when they suffice to fill every pile to MIN_PILE and to reach the face-down count;
        room in the piles never runs short once it sufficed (each card takes one place and needs one).
        """
        short = sum(MIN_PILE - size for size in sizes if size < MIN_PILE)
        sides = [side for side, ok in enumerate((self.size.face_down - down <= left, down < self.size.face_down)) if ok]
        return tuple(
            pile * 2 + side
            for pile, size in enumerate(sizes)
            if size < MAX_PILE and short - (size < MIN_PILE) <= left
            for side in sides
        )

    def _split(self, hand: list[str], tokens: tuple[int, ...]) -> Action:
        """The split the tokens make: each card in its pile and side, in card-id order."""
        piles: list[dict[str, list[str]]] = [{"face_up": [], "face_down": []} for _ in range(self.players)]
        for card, token in zip(hand, tokens, strict=True):
            piles[self.token_pile[token]]["face_down" if self.token_down[token] else "face_up"].append(card)
        return {"type": SPLIT, "piles": piles}

    def max_tokens(self) -> int:
        return self.size.draw

    # --- observations -----------------------------------------------------------------------------------------
    def sections(self) -> Sequence[Section]:
        kinds, players = len(KINDS), self.players
        return [
            Section("hand", kinds, "cards of each kind in this seat's hand (while it splits), over the kind's copies"),
            Section(
                "piles",
                players * (2 + 2 * kinds + players),
                f"per pile: 1 if on offer (laid out, not taken); face-up cards of each kind over {PILE_SCALE}; "
                f"face-down cards over {PILE_SCALE}; face-down cards of each kind as this seat sees them (its own "
                f"split's, or a taken pile's) over {PILE_SCALE}; one-hot who took it, seats counted from this one",
            ),
            Section(
                "sundaes", players * kinds, "per seat from this one: each kind in its sundae, over the kind's copies"
            ),
            Section(
                "scores", players, f"per seat from this one: its score now, from {WORST_SCORE} (0) to {BEST_SCORE} (1)"
            ),
            Section("splitter", players, "one-hot: the Splitter, seats counted from this one (first: this seat)"),
            Section("chooser", players, "one-hot: the seat choosing a pile, counted from this one; else zeros"),
            Section("phase", 2, "1 while splitting, 1 while choosing (both 0 once the game is over)"),
            Section("round", 1, "the round over the game's rounds"),
            Section("deck", 1, "cards left in the ingredient deck over the cards dealt in the game"),
            Section("hand_count", 1, f"cards the Splitter holds over the {self.size.draw} drawn each round"),
        ]

    def observe(self, view: View, seat: int) -> list[float]:
        kinds, players, at, kind_of, share = len(KINDS), self.players, self.offsets, KIND_OF, self.share
        values = [0.0] * self.body_size
        start = at["hand"]
        for card in view["hand"]:
            kind = kind_of[card["id"]]
            values[start + kind] += share[kind]
        width, quarter = 2 + 2 * kinds + players, 1.0 / PILE_SCALE
        for pile in view["piles"]:
            start = at["piles"] + pile["pile"] * width
            taken = pile["taken_by"]
            if taken is None:
                values[start] = 1.0
            else:
                values[start + 2 + 2 * kinds + (taken - seat) % players] = 1.0
            for card in pile["face_up"]:
                values[start + 1 + kind_of[card["id"]]] += quarter
            values[start + 1 + kinds] = pile["face_down_count"] * quarter
            for card in pile["face_down"]:
                values[start + 2 + kinds + kind_of[card["id"]]] += quarter
        span = BEST_SCORE - WORST_SCORE
        for other, (sundae, score) in enumerate(zip(view["sundaes"], view["scores"], strict=True)):
            relative = (other - seat) % players
            start = at["sundaes"] + relative * kinds
            for card in sundae:
                kind = kind_of[card["id"]]
                values[start + kind] += share[kind]
            values[at["scores"] + relative] = (score["total"] - WORST_SCORE) / span
        values[at["splitter"] + (view["splitter"] - seat) % players] = 1.0
        if view["chooser"] is not None:
            values[at["chooser"] + (view["chooser"] - seat) % players] = 1.0
        if view["phase"] is not None:
            values[at["phase"] + (view["phase"] == CHOOSE)] = 1.0
        values[at["round"]] = view["round"] / view["rounds"]
        values[at["deck"]] = view["deck_count"] / self.deck_size
        values[at["hand_count"]] = view["hand_count"] / self.size.draw
        return values

    def render(self, view: View) -> str:
        phase = view["phase"]
        if phase is None:
            status = "game over"
        elif phase == SPLIT:
            status = f"seat {view['splitter']} splits {view['hand_count']} cards, {self.size.face_down} face down"
        else:
            status = f"seat {view['chooser']} chooses a pile"
        where = f"round {view['round']}/{view['rounds']}, Splitter seat {view['splitter']}, deck {view['deck_count']}"
        lines = [f"{where}: {status}"]
        if view["hand"]:
            in_order = sorted(view["hand"], key=lambda card: card["id"])
            lines.append("hand, in the order it is placed: " + ", ".join(card_text(card) for card in in_order))
        for pile in view["piles"]:
            up = ", ".join(card_text(card) for card in pile["face_up"]) or "-"
            down = ", ".join(card_text(card) for card in pile["face_down"])
            hidden = f"{pile['face_down_count']} face down" + (f" ({down})" if down else "")
            owner = "on offer" if pile["taken_by"] is None else f"taken by seat {pile['taken_by']}"
            lines.append(f"pile {pile['pile']}: {up} | {hidden} | {owner}")
        for seat, (sundae, score) in enumerate(zip(view["sundaes"], view["scores"], strict=True)):
            counts = Counter(card_text(card) for card in sorted(sundae, key=lambda card: KIND_OF[card["id"]]))
            cards = ", ".join(f"{name} x{n}" if n > 1 else name for name, n in counts.items()) or "-"
            lines.append(f"seat {seat}: {score['total']:+d} points, {len(sundae)} cards: {cards}")
        return "\n".join(lines)
