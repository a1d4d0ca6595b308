"""Sundae Split rules: every rule of ../shared/rules/sundae-split.txt, for 2 to 5 players.

Each round the Splitter draws cards and splits them into one pile per player, some face down
(one `split` action); then, clockwise from the Splitter's left, each player takes a pile (one
`choose` action each) and the Splitter gets the last one. The game ends when the deck is empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import CorruptState, IllegalAction, ViewMismatch
from engine.info import GameInfo
from engine.options import OptionSet
from engine.protocol import Action, Game, GameState, TooManyActions, View
from engine.result import Result
from engine.rng import Rng
from engine.sundae_split import split
from engine.sundae_split.cards import (
    ASSUMPTIONS,
    CARD_BY_ID,
    CARDS,
    REMOVED_AT_RANDOM,
    ROUND_SIZES,
    SCORING,
    VEGETABLE,
    rounds,
    starting_deck,
)
from engine.sundae_split.scoring import final_result, score_sundaes, score_without_bananas
from engine.view_reading import seat_index

SPLIT, CHOOSE = "split", "choose"


def game_length(players: int) -> int:
    """Every round is one split and a choice by each player but the Splitter, who takes the last pile."""
    return rounds(players) * players


# Every category but vegetables only grows with more non-vegetable cards, so one seat holding them all (and the
# top banana bonus) bounds the best score; holding every vegetable and nothing else bounds the worst.
BEST_SCORE = SCORING["banana_most"] + sum(score_without_bananas([c.id for c in CARDS if c.kind != VEGETABLE]).values())
WORST_SCORE = -sum(card.points for card in CARDS if card.kind == VEGETABLE)

INFO = GameInfo(
    id="sundae_split",
    name="Sundae Split",
    min_players=2,
    max_players=5,
    summary="The Splitter splits the drawn cards into piles, some face down; the others choose first.",
    information="imperfect",
    chance=True,
    cooperative=False,
    simultaneous=False,
    min_utility=WORST_SCORE,
    max_utility=BEST_SCORE,
    max_game_length=max(game_length(players) for players in ROUND_SIZES),
    options=OptionSet(()),
    assumptions=ASSUMPTIONS,
)


@dataclass
class Pile:
    """A pile of the current round: its face-up and face-down card ids, and who took it."""

    face_up: list[str]
    face_down: list[str]
    taken_by: int | None = None

    def cards(self) -> list[str]:
        """Every card of the pile."""
        return self.face_up + self.face_down

    def copy(self) -> Pile:
        """An independent copy."""
        return Pile(list(self.face_up), list(self.face_down), self.taken_by)


@dataclass
class SundaeSplitState(GameState):
    """The deck, the removed cards, the round, its piles and every player's sundae."""

    players: int
    options: dict[str, Any]
    rng: Rng
    deck: list[str]
    removed: list[str]
    splitter: int
    round: int = 1
    phase: str = SPLIT
    hand: list[str] = field(default_factory=list)
    piles: list[Pile] = field(default_factory=list)
    chooser: int | None = None
    sundaes: list[list[str]] = field(default_factory=list)
    outcome: Result | None = None

    game_id = "sundae_split"

    # --- whose move -------------------------------------------------------------------------
    def acting_seats(self) -> tuple[int, ...]:
        """The Splitter while splitting, then the player choosing; nobody once over."""
        if self.outcome:
            return ()
        return (self.splitter,) if self.phase == SPLIT else (self.chooser,)  # type: ignore[return-value]

    # --- what may be done -------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        """The piles a chooser may take; a split has too many forms to list (see action_space)."""
        if seat not in self.acting_seats():
            return []
        if self.phase == SPLIT:
            raise TooManyActions("a split is described by action_space")
        return [{"type": CHOOSE, "pile": index} for index in self.open_piles()]

    def action_space(self, seat: int) -> dict[str, Any]:
        """For the Splitter, the split's schema, constraints and an example; for a chooser, the open piles."""
        if self.phase == SPLIT and seat in self.acting_seats():
            return split.split_space(self.hand, self.players, ROUND_SIZES[self.players])
        return super().action_space(seat)

    def default_action(self, seat: int) -> Action:
        """The example split (cards dealt round the piles, the first face down), or the first open pile.

        Neither phase has a pass: 'The Splitter then chooses how to split the cards into piles' and
        'each player chooses one of the piles' (see assumption timeout-default-action).
        """
        if self.phase == SPLIT:
            return split.example_split(self.hand, self.players, ROUND_SIZES[self.players])
        return {"type": CHOOSE, "pile": self.open_piles()[0]}

    def sample_action(self, seat: int, rng: Rng) -> Action:
        """A random split, or a random open pile."""
        if self.phase == SPLIT:
            return split.random_split(self.hand, self.players, ROUND_SIZES[self.players], rng)
        return {"type": CHOOSE, "pile": rng.choice(self.open_piles())}

    def check_action(self, seat: int, action: Action) -> None:
        """A valid split from the Splitter, or an open pile from the chooser; IllegalAction says why not."""
        kind = action.get("type")
        if kind != self.phase:
            raise IllegalAction(f"this is the {self.phase} phase: send a {self.phase!r} action")
        if kind == SPLIT:
            split.check_split(action, self.hand, self.players, ROUND_SIZES[self.players])
            return
        pile = action.get("pile")
        if set(action) != {"type", "pile"} or type(pile) is not int:
            raise IllegalAction('a choice is {"type": "choose", "pile": n}')
        if pile not in self.open_piles():
            raise IllegalAction(f"pile {pile} is not open; open piles: {self.open_piles()}")

    def open_piles(self) -> list[int]:
        """Indexes of the piles nobody has taken yet."""
        return [index for index, pile in enumerate(self.piles) if pile.taken_by is None]

    # --- changing the state -----------------------------------------------------------------
    def apply_trusted(self, seat: int, action: Action) -> None:
        """Lay out the piles, or take one; the round and the game end as the rules say."""
        if action["type"] == SPLIT:
            self.piles = [Pile(list(p["face_up"]), list(p["face_down"])) for p in action["piles"]]
            self.hand = []
            self.phase = CHOOSE
            # 'Starting with the player to the left of the Splitter and continuing clockwise'
            self.chooser = (self.splitter + 1) % self.players
            return
        self._take(seat, action["pile"])
        self.chooser = (seat + 1) % self.players
        if self.chooser == self.splitter:
            # 'This means that the Splitter takes the last remaining pile every round.'
            self._take(self.splitter, self.open_piles()[0])
            self._end_round()

    def _take(self, seat: int, index: int) -> None:
        """'When you choose a pile, take those cards and immediately reveal them.'"""
        pile = self.piles[index]
        pile.taken_by = seat
        self.sundaes[seat].extend(pile.cards())

    def _end_round(self) -> None:
        """'If the ingredient deck is empty, the game is over'; otherwise the Splitter passes left."""
        if not self.deck:
            self.outcome = final_result(self.sundaes)
            self.chooser = None
            return
        self.splitter = (self.splitter + 1) % self.players
        self.round += 1
        self._start_round()

    def _start_round(self) -> None:
        """'the Splitter draws a number of cards ... from the ingredient deck'."""
        draw = ROUND_SIZES[self.players].draw
        self.hand = self.deck[-draw:]
        del self.deck[-draw:]
        self.piles = []
        self.phase = SPLIT
        self.chooser = None

    def clone(self) -> SundaeSplitState:
        """An independent copy."""
        return SundaeSplitState(
            self.players,
            self.options,
            self.rng.clone(),
            list(self.deck),
            list(self.removed),
            self.splitter,
            self.round,
            self.phase,
            list(self.hand),
            [pile.copy() for pile in self.piles],
            self.chooser,
            [list(sundae) for sundae in self.sundaes],
            self.outcome,
        )

    # --- what each viewer sees --------------------------------------------------------------
    def sees_face_down(self, viewer: int | None, pile: Pile) -> bool:
        """The Splitter knows the pile it made; everybody sees a pile once it is taken."""
        return pile.taken_by is not None or (viewer == self.splitter and self.phase == CHOOSE)

    def view(self, viewer: int | None) -> View:
        """Face-up cards and sundaes for all; the drawn cards and face-down ones only for the Splitter."""
        size = ROUND_SIZES[self.players]
        return {
            "round": self.round,
            "rounds": rounds(self.players),
            "phase": None if self.outcome else self.phase,
            "splitter": self.splitter,
            "chooser": self.chooser,
            "draw_per_round": size.draw,
            "face_down_per_round": size.face_down,
            "deck_count": len(self.deck),
            "removed_count": len(self.removed),
            "hand_count": len(self.hand),
            "hand": _cards(self.hand) if viewer == self.splitter else [],
            "piles": [self._pile_view(index, pile, viewer) for index, pile in enumerate(self.piles)],
            "sundaes": [_cards(sundae) for sundae in self.sundaes],
            "scores": score_sundaes(self.sundaes),
        }

    def _pile_view(self, index: int, pile: Pile, viewer: int | None) -> dict[str, Any]:
        """One pile as the viewer may see it."""
        return {
            "pile": index,
            "taken_by": pile.taken_by,
            "face_up": _cards(pile.face_up),
            "face_down_count": len(pile.face_down),
            "face_down": _cards(pile.face_down) if self.sees_face_down(viewer, pile) else [],
        }

    def redact_action(self, seat: int, action: Action, viewer: int | None) -> Action:
        """A split as others may see it: a face-down card shows as null until some sundae holds it."""
        if action.get("type") != SPLIT or viewer == seat:
            return action
        revealed = {card for sundae in self.sundaes for card in sundae}
        piles = [
            {**pile, "face_down": [card if card in revealed else None for card in pile["face_down"]]}
            for pile in action["piles"]
        ]
        return {**action, "piles": piles}

    def determinize(self, viewer: int | None, rng: Rng) -> SundaeSplitState:
        """Deal the cards the viewer cannot see (deck, removed, and the Splitter's secrets) at random."""
        copy = self.clone()
        copy.rng = Rng(rng.next_u64())
        slots: list[tuple[list[str], int]] = [(copy.deck, i) for i in range(len(copy.deck))]
        slots += [(copy.removed, i) for i in range(len(copy.removed))]
        if viewer != self.splitter:
            slots += [(copy.hand, i) for i in range(len(copy.hand))]
            slots += [(p.face_down, i) for p in copy.piles if p.taken_by is None for i in range(len(p.face_down))]
        unknown = [cards[i] for cards, i in slots]
        unknown.sort()  # the sample must not depend on where the hidden cards really are
        rng.shuffle(unknown)
        for (cards, i), card in zip(slots, unknown, strict=True):
            cards[i] = card
        return copy

    # --- storage ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON."""
        return {
            "game": self.game_id,
            "players": self.players,
            "options": dict(self.options),
            "rng": self.rng.state,
            "deck": list(self.deck),
            "removed": list(self.removed),
            "splitter": self.splitter,
            "round": self.round,
            "phase": self.phase,
            "hand": list(self.hand),
            "piles": [{"face_up": p.face_up, "face_down": p.face_down, "taken_by": p.taken_by} for p in self.piles],
            "chooser": self.chooser,
            "sundaes": [list(sundae) for sundae in self.sundaes],
            "outcome": self.outcome.to_json() if self.outcome else None,
        }


def _cards(card_ids: list[str]) -> list[dict[str, Any]]:
    """Card ids as the cards they are."""
    return [CARD_BY_ID[card_id].to_json() for card_id in card_ids]


# --- a state from what a seat sees -------------------------------------------------------------


def state_from_view(view: View, seat: int, players: int, options: dict[str, Any], rng: Rng) -> SundaeSplitState:
    """The round, piles and sundaes the view shows; the cards the seat has not seen dealt at random to the deck,
    the removed cards and (unless the seat split them) the drawn and face-down cards."""
    size = ROUND_SIZES[players]
    phase, round_ = view["phase"], view["round"]
    splitter = seat_index(view["splitter"], players, "the Splitter")
    chooser = None if view["chooser"] is None else seat_index(view["chooser"], players, "the chooser")
    state = SundaeSplitState(players, options, Rng(rng.next_u64()), [], [], splitter, round_, phase or CHOOSE)
    state.chooser = chooser
    state.sundaes = [[card["id"] for card in sundae] for sundae in view["sundaes"]]
    slots: list[tuple[list[str], int]] = [(state.deck, view["deck_count"]), (state.removed, view["removed_count"])]
    state.hand = [card["id"] for card in view["hand"]]
    if not state.hand:
        slots.append((state.hand, view["hand_count"]))
    for shown in view["piles"]:
        pile = Pile([card["id"] for card in shown["face_up"]], [card["id"] for card in shown["face_down"]])
        pile.taken_by = shown["taken_by"]
        if not pile.face_down:
            slots.append((pile.face_down, shown["face_down_count"]))
        state.piles.append(pile)
    _check_round(state, view, size.draw)
    taken = [pile for pile in state.piles if pile.taken_by is not None]
    if any(not set(pile.cards()) <= set(state.sundaes[pile.taken_by]) for pile in taken):  # type: ignore[index]
        raise ViewMismatch("'When you choose a pile, take those cards': a taken pile's cards are in its taker's sundae")
    on_table = [card for pile in state.piles if pile.taken_by is None for card in pile.cards()]
    seen = [*state.hand, *on_table, *(card for sundae in state.sundaes for card in sundae)]
    unseen = sorted(set(starting_deck(players)) - set(seen))
    if len(set(seen)) != len(seen) or len(seen) + len(unseen) != len(starting_deck(players)):
        raise ViewMismatch("a card shows twice, or a card out of the game shows ('remove the 20 ... \"3+\" cards')")
    if sum(count for _, count in slots) != len(unseen):
        raise ViewMismatch(f"the counts of unseen cards do not add up to the {len(unseen)} cards the seat has not seen")
    rng.shuffle(unseen)
    for cards, count in slots:
        cards.extend(unseen[:count])
        del unseen[:count]
    if phase is None:
        state.outcome = final_result(state.sundaes)
    return state


def _check_round(state: SundaeSplitState, view: View, draw: int) -> None:
    """The counts and turns the rules allow in this round: ViewMismatch for any other."""
    players, removed = state.players, REMOVED_AT_RANDOM[state.players]
    if len(state.sundaes) != players or not 0 <= state.splitter < players or view["removed_count"] != removed:
        raise ViewMismatch(
            f"{players} players have {players} sundaes, a Splitter among them and {removed} removed cards"
        )
    if not 1 <= state.round <= rounds(players) or view["deck_count"] != draw * (rounds(players) - state.round):
        raise ViewMismatch("'the Splitter draws a number of cards ... from the ingredient deck' every round")
    taken = [pile.taken_by for pile in state.piles if pile.taken_by is not None]
    if view["phase"] == SPLIT:
        if state.piles or view["hand_count"] != draw or state.chooser is not None:
            raise ViewMismatch("while splitting, the Splitter holds the round's draw and no pile is laid out")
        return
    over = view["phase"] is None
    if (view["phase"] != CHOOSE and not over) or len(state.piles) != players or view["hand_count"]:
        raise ViewMismatch("after the split, the round's cards lie in one pile per player")
    if sum(len(pile.face_up) + view["piles"][i]["face_down_count"] for i, pile in enumerate(state.piles)) != draw:
        raise ViewMismatch(f"the piles hold the {draw} cards the Splitter drew")
    order = [(state.splitter + 1 + k) % players for k in range(players)]  # 'to the left of the Splitter ...'
    if sorted(taken) != sorted(order[: len(taken)]):
        raise ViewMismatch("'Starting with the player to the left of the Splitter and continuing clockwise'")
    if over and (state.chooser is not None or state.round != rounds(players) or len(taken) != players):
        raise ViewMismatch("a game shown as over has every pile of its last round taken")
    if not over and (len(taken) >= players - 1 or state.chooser != order[len(taken)]):
        raise ViewMismatch("'each player chooses one of the piles' in turn: the chooser is the next to the left")


class SundaeSplit(Game):
    """The Sundae Split game object."""

    info = INFO

    def max_game_length(self, players: int, options: dict[str, Any]) -> int | None:
        """Exactly the length of every game at this player count."""
        return game_length(players)

    def new_state_from_rng(self, players: int, options: dict[str, Any], rng: Rng) -> SundaeSplitState:
        """Remove cards, shuffle, remove more at random, pick the first Splitter, and draw."""
        deck = starting_deck(players)
        rng.shuffle(deck)
        removed = REMOVED_AT_RANDOM[players]
        state = SundaeSplitState(players, options, rng, deck[removed:], deck[:removed], splitter=rng.below(players))
        state.sundaes = [[] for _ in range(players)]
        state._start_round()
        return state

    def rebuild_from_view(
        self, view: View, seat: int, players: int, options: dict[str, Any], rng: Rng
    ) -> SundaeSplitState:
        """The position the view shows, the cards the seat has not seen dealt at random."""
        return state_from_view(view, seat, players, options, rng)

    def state_from_json(self, data: dict[str, Any]) -> SundaeSplitState:
        """Read back a state written by `to_json`."""
        try:
            outcome = data["outcome"]
            return SundaeSplitState(
                int(data["players"]),
                dict(data["options"]),
                Rng(int(data["rng"])),
                list(data["deck"]),
                list(data["removed"]),
                int(data["splitter"]),
                int(data["round"]),
                str(data["phase"]),
                list(data["hand"]),
                [Pile(list(p["face_up"]), list(p["face_down"]), p["taken_by"]) for p in data["piles"]],
                data["chooser"],
                [list(sundae) for sundae in data["sundaes"]],
                Result.from_json(outcome) if outcome else None,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise CorruptState(f"not a Sundae Split state: {error}") from error
