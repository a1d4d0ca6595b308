// The Splitter's split builder: place each drawn card in a pile, face up or face down, with the rulebook's
// three rules checked as you go; the Split button sends the split once every rule holds.
import { h } from "../../dom.js";
import { cardFace, cardName } from "./cards.js";

const drafts = new Map();

const RULES = {
  piles: "There must be one pile per player.",
  size: "Each pile must have at least one card, and no more than four cards.",
  faceDown: "A specific number of cards must be face down; the rest of the cards must be face up.",
  every: "Every drawn card goes into exactly one pile.",
};

/** The split builder for the Splitter's constructed legal actions (ctx.legal.kind === "constructed"). */
export function splitBuilder(ctx) {
  const { match, legal } = ctx;
  const key = `${match.id}:${legal.version}`;
  if (!drafts.has(key)) {
    drafts.clear();
    drafts.set(key, emptyDraft(legal.constraints.piles));
  }
  const section = h("section", {
    class: "ss-builder", "aria-label": "Split your cards",
    dataset: { piles: String(legal.constraints.piles), faceDown: String(legal.constraints.face_down) },
  });
  const redraw = () => {
    const focused = section.contains(document.activeElement) ? document.activeElement.dataset.focusKey : null;
    section.replaceChildren(...builderParts(ctx, drafts.get(key), redraw));
    const again = focused && section.querySelector(`[data-focus-key="${focused}"]:not([disabled])`);
    (again || section.querySelector("[data-focus-key]:not([disabled])"))?.focus();
  };
  section.replaceChildren(...builderParts(ctx, drafts.get(key), redraw));
  return section;
}

function emptyDraft(piles) {
  return { piles: Array.from({ length: piles }, () => ({ face_up: [], face_down: [] })), selected: null };
}

function builderParts(ctx, draft, redraw) {
  const { match, legal, busy, act } = ctx;
  const constraints = legal.constraints;
  const cards = new Map(match.view.hand.map((card) => [card.id, card]));
  const placed = new Set(draft.piles.flatMap((pile) => [...pile.face_up, ...pile.face_down]));
  const unplaced = constraints.cards.filter((id) => !placed.has(id));
  const faceDown = draft.piles.reduce((sum, pile) => sum + pile.face_down.length, 0);
  const selected = draft.selected && cards.get(draft.selected);
  const checks = checkDraft(draft, constraints, unplaced.length);
  const valid = checks.every((check) => check.ok);
  const action = { type: "split", piles: draft.piles.map((pile) => ({ face_up: [...pile.face_up], face_down: [...pile.face_down] })) };

  const select = (id) => {
    draft.selected = id;
    redraw();
  };
  const takeBack = (id) => {
    for (const pile of draft.piles) for (const side of ["face_up", "face_down"]) pile[side] = pile[side].filter((card) => card !== id);
    draft.selected = id;
    redraw();
  };
  const place = (index, side) => {
    if (!draft.selected) return;
    draft.piles[index][side].push(draft.selected);
    draft.selected = unplaced.find((id) => id !== draft.selected) ?? null;
    redraw();
  };
  const fill = (split) => {
    draft.piles = split.piles.map((pile) => ({ face_up: [...pile.face_up], face_down: [...pile.face_down] }));
    draft.selected = null;
    redraw();
  };

  const hand = h("div", { class: "ss-builder-hand" },
    h("h3", {}, unplaced.length ? `Your drawn cards: ${unplaced.length} to place` : "Every card is in a pile"),
    h("p", { class: "muted small" }, unplaced.length
      ? "Pick a card, then put it in a pile face up or face down. Click a card in a pile to take it back."
      : "Click a card in a pile to take it back and place it again."),
    h("div", { class: "ss-cards" }, unplaced.map((id) => cardFace(cards.get(id), {
      onclick: () => select(id), pressed: draft.selected === id, disabled: busy,
      label: `${cardName(cards.get(id))}${draft.selected === id ? ", picked" : ""}`,
      data: { card: id, focusKey: `card-${id}` },
    }))));

  const piles = h("div", { class: "ss-builder-piles" }, draft.piles.map((pile, index) => {
    const size = pile.face_up.length + pile.face_down.length;
    const full = size >= constraints.pile_size.max;
    const target = (side, text) => {
      const blocked = full ? "the pile has four cards" : side === "face_down" && faceDown >= constraints.face_down ? `${constraints.face_down} cards are face down already` : null;
      return h("button", {
        type: "button", class: "ss-target", disabled: busy || !selected || Boolean(blocked),
        title: blocked ?? undefined,
        "aria-label": selected ? `Put ${cardName(selected)} in pile ${index + 1}, ${text}${blocked ? ` (not possible: ${blocked})` : ""}` : `Pile ${index + 1}, ${text}: pick a card first`,
        dataset: { pile: String(index), side, focusKey: `target-${index}-${side}` },
        onclick: () => place(index, side),
      }, `+ ${text}`);
    };
    const placedCard = (id, down) => cardFace(cards.get(id), {
      faceDown: down, onclick: () => takeBack(id), disabled: busy,
      label: `${cardName(cards.get(id))}, in pile ${index + 1} ${down ? "face down" : "face up"}: take it back`,
      data: { placed: id, focusKey: `placed-${id}` },
    });
    return h("div", { class: `ss-pile builder${size < constraints.pile_size.min ? " short" : ""}` },
      h("h3", {}, `Pile ${index + 1}`, h("span", { class: "muted small" }, ` · ${size} card${size === 1 ? "" : "s"}`)),
      h("div", { class: "ss-zones" },
        h("div", { class: "ss-zone" }, h("span", { class: "ss-zone-name" }, "Face up"),
          h("div", { class: "ss-cards" }, pile.face_up.map((id) => placedCard(id, false))), target("face_up", "face up")),
        h("div", { class: "ss-zone down" }, h("span", { class: "ss-zone-name" }, "Face down"),
          h("div", { class: "ss-cards" }, pile.face_down.map((id) => placedCard(id, true))), target("face_down", "face down"))));
  }));

  const rules = h("ul", { class: "ss-rules", "aria-label": "The rules of a split" }, checks.map((check) =>
    h("li", { class: check.ok ? "ok" : "todo" },
      h("span", { class: "ss-rule-mark", "aria-hidden": "true" }, check.ok ? "✓" : "✗"),
      h("span", { class: "visually-hidden" }, check.ok ? "Done: " : "Not yet: "),
      h("q", {}, check.rule), " ", h("span", { class: "ss-rule-now" }, check.now))));

  const buttons = h("div", { class: "ss-builder-buttons" },
    h("button", {
      type: "button", class: "primary", disabled: busy || !valid, "data-action": valid ? JSON.stringify(action) : null,
      "data-focus-key": "split", onclick: () => valid && act(action),
    }, valid ? "Split!" : "Split (every rule must hold)"),
    h("button", { type: "button", disabled: busy, "data-focus-key": "example", "data-build": "example", onclick: () => fill(legal.example) },
      "Lay out the server's example"),
    h("button", { type: "button", disabled: busy || placed.size === 0, "data-focus-key": "clear", onclick: () => fill(emptyDraft(constraints.piles)) },
      "Take every card back"));

  return [hand, piles, rules, buttons];
}

/** The rules of ../shared/rules/sundae-split.txt checked against the piles so far. */
function checkDraft(draft, constraints, unplaced) {
  const { min, max } = constraints.pile_size;
  const sizes = draft.piles.map((pile) => pile.face_up.length + pile.face_down.length);
  const badSizes = sizes.map((size, index) => [size, index]).filter(([size]) => size < min || size > max);
  const faceDown = draft.piles.reduce((sum, pile) => sum + pile.face_down.length, 0);
  return [
    { rule: RULES.piles, ok: draft.piles.length === constraints.piles, now: `${constraints.piles} piles, one per player.` },
    { rule: RULES.size, ok: badSizes.length === 0,
      now: badSizes.length ? badSizes.map(([size, index]) => `pile ${index + 1} has ${size}`).join(", ") + "." : "Every pile has 1 to 4 cards." },
    { rule: RULES.faceDown, ok: faceDown === constraints.face_down, now: `${faceDown} of ${constraints.face_down} face down.` },
    { rule: RULES.every, ok: unplaced === 0, now: unplaced ? `${unplaced} still to place.` : "All placed." },
  ];
}
