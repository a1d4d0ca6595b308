// Sundae Split's picture: the round and its Splitter, the Splitter's split builder (piles, face-down cards,
// the three rules checked as the piles are built), the piles to choose from, every sundae and the scorepad.
import { h } from "../dom.js";
import { seatName } from "../seat-names.js";
import { actionWords, endedEarly } from "./parts.js";
import { cardFace, cardBack, cardName } from "./sundae_split/cards.js";
import { splitBuilder } from "./sundae_split/builder.js";

const SCOREPAD = [
  ["bananas", "Banana bonus"],
  ["cherries", "Cherries × scoops"],
  ["flavour_sets", "Flavour sets"],
  ["sprinkles_and_whipped_cream", "Sprinkles + whipped cream"],
  ["scoops", "Scoops"],
  ["vegetables", "Vegetables"],
  ["total", "Total"],
];

/** Draw the round, the split builder or the piles, the sundaes and the scorepad. */
export function render(root, ctx) {
  const { match, legal, seat } = ctx;
  const view = match.view;
  root.append(h("div", { class: "sundae" },
    roundBar(view, match, seat),
    view.phase === "split" ? splitPhase(ctx) : null,
    view.phase === "choose" || (view.phase === null && view.piles.length) ? pilesRow(ctx) : null,
    legal?.kind === "enumerated" && legal.actions.some((a) => a.type === "choose")
      ? h("p", { class: "muted small" }, "Choose a pile: you cannot look at its face-down cards first.") : null,
    sundaesAndScores(view, match, seat)));
}

/** A Sundae Split action in words, naming the cards this viewer can see. */
export function describe(action, ctx) {
  if (action.type === "choose") return `${ctx?.suggest ? "Take" : "took"} pile ${action.pile + 1}`;
  if (action.type !== "split") return actionWords(action);
  const known = knownCards(ctx?.match?.view);
  const pileText = action.piles.map((pile, index) => {
    const up = pile.face_up.map((id) => (known.has(id) ? cardName(known.get(id)) : id));
    const down = pile.face_down.map((id) => (id && known.has(id) ? `${cardName(known.get(id))} (face down)` : "a face-down card"));
    return `pile ${index + 1}: ${[...up, ...down].join(", ") || "empty"}`;
  });
  return `${ctx?.suggest ? "Split" : "split"} the cards: ${pileText.join("; ")}`;
}

function roundBar(view, match, seat) {
  const who = (s) => (s === seat ? "you" : seatName(match, s));
  let phase;
  const early = (view.phase === "split" || view.phase === "choose") && endedEarly(match);
  if (early) {
    phase = `The match is over: ${early}.`;
  } else if (view.phase === "split") {
    phase = view.splitter === seat
      ? `Split phase: split your ${view.hand_count} cards into piles, ${view.face_down_per_round} face down.`
      : `Split phase: ${who(view.splitter)} is splitting ${view.hand_count} cards into piles, ${view.face_down_per_round} face down.`;
  } else if (view.phase === "choose") {
    phase = view.chooser === seat ? "Choose phase: your pick." : `Choose phase: ${who(view.chooser)} picks a pile.`;
  } else {
    phase = "The deck is empty: the game is over.";
  }
  return h("div", { class: "ss-round" },
    h("p", { class: "ss-facts" },
      h("span", {}, `Round ${view.round} of ${view.rounds}`),
      h("span", {}, `Splitter: ${who(view.splitter)}`),
      h("span", {}, `Deck: ${view.deck_count} cards`),
      h("span", { class: "muted" }, `${view.removed_count} removed unseen`)),
    h("p", { class: "ss-phase" }, phase));
}

function splitPhase(ctx) {
  const { match, legal } = ctx;
  const view = match.view;
  if (legal?.kind === "constructed") return splitBuilder(ctx);
  if (view.hand.length) {
    return h("section", { class: "ss-hand", "aria-label": "Your drawn cards" }, h("h3", {}, "Your drawn cards"),
      h("div", { class: "ss-cards" }, view.hand.map((card) => cardFace(card))));
  }
  return h("section", { class: "ss-hand", "aria-label": "The Splitter's hand" },
    h("h3", {}, `The Splitter holds ${view.hand_count} cards`),
    h("div", { class: "ss-cards" }, Array.from({ length: view.hand_count }, () => cardBack())));
}

function pilesRow(ctx) {
  const { match, legal, busy, act, seat } = ctx;
  const view = match.view;
  const choosable = new Set((legal?.actions ?? []).filter((a) => a.type === "choose").map((a) => a.pile));
  return h("section", { class: "ss-piles", "aria-label": "This round's piles" },
    view.piles.map((pile) => {
      const action = { type: "choose", pile: pile.pile };
      const hidden = pile.face_down_count - pile.face_down.length;
      const taken = pile.taken_by !== null;
      return h("div", { class: `ss-pile${taken ? " taken" : ""}${choosable.has(pile.pile) ? " open" : ""}` },
        h("h3", {}, `Pile ${pile.pile + 1}`, taken ? h("span", { class: "ss-taken" }, ` taken by ${pile.taken_by === seat ? "you" : seatName(match, pile.taken_by)}`) : ""),
        h("div", { class: "ss-cards" },
          pile.face_up.map((card) => cardFace(card)),
          pile.face_down.map((card) => cardFace(card, { faceDown: !taken })),
          Array.from({ length: hidden }, () => cardBack())),
        choosable.has(pile.pile)
          ? h("button", {
            type: "button", class: "primary", disabled: busy, "data-action": JSON.stringify(action),
            "aria-label": `Take pile ${pile.pile + 1}: ${pileWords(pile)}`, onclick: () => act(action),
          }, `Take pile ${pile.pile + 1}`)
          : null);
    }));
}

function pileWords(pile) {
  const up = pile.face_up.map(cardName);
  const hidden = pile.face_down_count;
  return `${up.join(", ") || "nothing face up"}${hidden ? `, and ${hidden} face down` : ""}`;
}

function sundaesAndScores(view, match, seat) {
  const seats = view.sundaes.map((_, s) => s);
  return h("section", { class: "ss-sundaes", "aria-label": "Sundaes and scores" },
    h("div", { class: "ss-sundae-list" }, seats.map((s) => h("div", { class: `ss-sundae${s === seat ? " mine" : ""}` },
      h("h3", {}, s === seat ? "Your sundae" : `${seatName(match, s)}'s sundae`, ` · ${view.scores[s].total} points`),
      view.sundaes[s].length
        ? h("div", { class: "ss-cards mini" }, sortCards(view.sundaes[s]).map((card) => cardFace(card, { mini: true })))
        : h("p", { class: "muted small" }, "No cards yet.")))),
    h("table", { class: "ss-scorepad" },
      h("caption", {}, match.status === "finished" ? "Scorepad (final)" : "Scorepad so far"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Category"),
        seats.map((s) => h("th", { scope: "col" }, seatName(match, s, seat))))),
      h("tbody", {}, SCOREPAD.map(([key, label]) => h("tr", { class: key === "total" ? "total" : null },
        h("th", { scope: "row" }, label), seats.map((s) => h("td", {}, String(view.scores[s][key]))))))));
}

const KIND_ORDER = { scoop: 0, topping: 1, vegetable: 2 };

function sortCards(cards) {
  return [...cards].sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.name.localeCompare(b.name) || a.points - b.points);
}

function knownCards(view) {
  const known = new Map();
  if (!view) return known;
  const add = (card) => card && known.set(card.id, card);
  view.hand?.forEach(add);
  view.piles?.forEach((pile) => { pile.face_up.forEach(add); pile.face_down.forEach(add); });
  view.sundaes?.forEach((sundae) => sundae.forEach(add));
  return known;
}
