// Robots Love Ice Cream's match picture: the planet's columns (Spinston on top, robots below, the
// target of an attack marked, the sets that can destroy it), the Spinston Beam Track, the team's
// Ice Cream tokens, the viewer's hand and draw, every truck (upgrade slots, effects, spares), the
// store and equip phases, Variant D's Ice Cream Social, and what the last action set off.
// Views name cards by id; each card's title, type, price and text come from the catalog's `cards`.
// Levels count down from the top, on the planet and on the track alike (0: a Spinston, above the track).

import { h } from "../dom.js";
import {
  actionButton,
  actionsOfType,
  actionWords,
  builtActionButton,
  endedEarly,
  legalActions,
  perspective,
  pickerMemory,
  redraw,
  seatLabel,
  seatText,
  styleSheet,
  toggleButton,
  words,
} from "./parts.js";

const CARD_COLOURS = {
  single_serve: "#f6a5c6",
  rapid_pop: "#84c8f4",
  boomsicle: "#f57f4f",
  funday: "#a98ae0",
  brain_freeze: "#62e0d6",
  sprinkletonium: "#f5d142",
};
const WILD = new Set(["brain_freeze", "sprinkletonium"]);
const SPINSTON_COLOURS = { red: "#d84a4a", blue: "#3d76d6", green: "#3fa45b" };
const TOTAL_TOKENS = 13; // '13 Ice Cream Tokens'
const PLANETS = 5;
const ROUNDS = 3;
const equipPicks = pickerMemory();
const sharePicks = pickerMemory();

/** Draw a Robots Love Ice Cream match into root. */
export function render(root, ctx) {
  const view = ctx.match.view;
  root.append(
    styleSheet(CSS),
    h(
      "div",
      { class: "rl" },
      header(ctx, view),
      teamBar(view),
      h(
        "div",
        { class: "rl-table" },
        h("div", { class: "rl-planet-row" }, beamTrack(view), planet(ctx, view)),
        h("div", { class: "rl-side" }, yourMove(root, ctx, view), events(ctx, view)),
      ),
      trucks(ctx, view),
      decks(view),
    ),
  );
}

/** A Robots Love Ice Cream action in words, for the shell's list of moves and its hints. */
export function describe(action, ctx) {
  switch (action.type) {
    case "draw_up":
      return "draws up to 7 cards";
    case "decline_draw_up":
      return "does not draw up";
    case "keep_drawn":
      return action.cards ? `keeps ${cardsText(action.cards)}` : "keeps a card from the draw";
    case "attack":
      return `fires ${cardsText(action.cards)} at column ${action.column + 1}${action.upgrade ? ` (${boostTitle(ctx, action.upgrade)})` : ""}`;
    case "use_boost_in_play":
      return `uses ${boostTitle(ctx, action.boost)}${action.card === null ? ": gives a card" : boostChoiceText(ctx, action) === "Use it" ? "" : `: ${boostChoiceText(ctx, action)}`}`;
    case "resolve_bought_boost":
      return `resolves ${boostTitle(ctx, action.boost)}: ${boostChoiceText(ctx, action)}`;
    case "refill_hand":
      return action.weaponize ? "refills the hand with a weaponized Sprinkletonium" : "refills the hand";
    case "end_turn":
      return "ends the turn";
    case "buy_boost":
      return `buys ${boostTitle(ctx, action.boost)}`;
    case "flush_store":
      return "flushes the store";
    case "stop_buying":
      return "is done buying";
    case "equip_upgrades":
      return action.upgrades.length ? `equips ${action.upgrades.map((id) => boostTitle(ctx, id)).join(", ")}` : "equips nothing";
    case "share_social_cards":
      return `shares the social out: ${action.cards.map((card, seat) => `${seatLabel(ctx, seat)}: ${card ? words(card) : "nothing"}`).join(", ")}`;
    case "share_social_randomly":
      return "shares the social out at random";
    default:
      return actionWords(action);
  }
}

// --- where the game stands ---------------------------------------------------------------------

function header(ctx, view) {
  return h(
    "header",
    { class: "rl-head" },
    h("strong", {}, view.phase === "over" || endedEarly(ctx.match) ? overTitle(ctx) : `Planet ${view.planet} of ${PLANETS}`),
    view.phase !== "over" && h("span", { class: "rl-pill" }, `planet card ${view.planet_card}`),
    view.phase === "player" && h("span", { class: "rl-pill" }, `round ${view.round} of ${ROUNDS}`),
    h("span", { class: "rl-phase" }, phaseText(ctx, view)),
  );
}

function overTitle(ctx) {
  const success = ctx.match.result?.team_success;
  if (success === true) return "Group victory! The galaxy's ice cream is saved";
  if (success === false && endedEarly(ctx.match) === "the team gave up") return "Mission abandoned: the team gave up";
  if (success === false) return "Mission failed: too much ice cream was captured";
  return "The invasion is over";
}

function phaseText(ctx, view) {
  const early = view.phase !== "over" && endedEarly(ctx.match);
  if (early) return `The match is over: ${early}`;
  const who = view.active === null ? null : seatLabel(ctx, view.active);
  const yours = who === "You";
  if (view.phase === "player") {
    const steps = yours
      ? { draw_up: "you may draw up to 7", keep: "keep cards from your draw", act: "attack, use Boosts, end your turn" }
      : { draw_up: "may draw up to 7", keep: "keeps cards from the draw", act: "attacks, uses Boosts, ends the turn" };
    return yours ? `Player phase, your turn: ${steps[view.step] ?? ""}` : `Player phase: ${who} ${steps[view.step] ?? ""}`;
  }
  if (view.phase === "store") return yours ? "Store phase: your turn to buy" : `Store phase: ${who} is buying`;
  if (view.phase === "equip") return yours ? "Equip phase: load your truck" : `Equip phase: ${who} is loading the truck`;
  if (view.phase === "social") return yours ? "Ice Cream Social: share the cards out" : `Ice Cream Social: ${who} shares the cards out`;
  return eventText(ctx, ctx.match.result?.reason ?? "");
}

/**
 * An event or result text of the engine as the board labels things: seats by name, columns counted from 1 as
 * the board heads them, the Spinston's place (the engine's level 0) by name, robot levels 1 to 4 as drawn.
 */
export function eventText(ctx, text) {
  const level = (n) => (Number(n) === 0 ? "the Spinston's place" : `level ${n}`);
  return seatText(ctx, text)
    .replace(/\bcolumn (\d+)(?:,? level (\d+))?/g, (_, column, n) => `column ${Number(column) + 1}${n === undefined ? "" : `, ${level(n)}`}`)
    .replace(/^planet (\d+) \(([^)]+)\)/, "planet $1 (planet card $2)");
}

/** The co-operative goal: tokens saved by the team, captured by the Spinstons, still in play, out of 13. */
function teamBar(view) {
  const inPlay = view.track_levels.reduce((a, b) => a + b, 0) + view.above_track;
  const later = Math.max(0, TOTAL_TOKENS - view.saved - view.captured - inPlay);
  const segment = (count, cls, text) => (count ? h("span", { class: `rl-seg ${cls}`, style: `flex: ${count}`, title: text }, String(count)) : null);
  const label = `Team: ${view.saved} Ice Cream tokens saved of ${view.tokens_needed} needed; ${view.captured} captured; ${inPlay} on this planet; ${later} on planets to come`;
  return h(
    "section",
    { class: "rl-team", "aria-label": "The team's Ice Cream tokens" },
    h(
      "p",
      { class: "rl-team-text" },
      h("strong", {}, `Saved ${view.saved} / ${view.tokens_needed} needed`),
      ` · captured ${view.captured} · on this planet ${inPlay} · to come ${later}`,
    ),
    h(
      "div",
      { class: "rl-bar", role: "img", "aria-label": label, title: label },
      segment(view.saved, "rl-saved", "saved"),
      segment(inPlay, "rl-inplay", "on this planet"),
      segment(later, "rl-later", "planets to come"),
      segment(view.captured, "rl-captured", "captured"),
      h("span", { class: "rl-goal", style: `left: ${(100 * view.tokens_needed) / TOTAL_TOKENS}%` }),
    ),
  );
}

// --- the Spinston Beam Track ------------------------------------------------------------------

function beamTrack(view) {
  const levels = [
    ["above", "Above the track (level 0): captured when the planet ends", view.above_track],
    ...view.track_levels.map((count, index) => [index + 1, `Level ${index + 1}${index === view.track_levels.length - 1 ? " (the bottom, where tokens start)" : ""}`, count]),
  ];
  return h(
    "section",
    { class: "rl-track", "aria-label": "Spinston Beam Track" },
    h("h3", {}, "Beam track"),
    levels.map(([key, text, count]) =>
      h(
        "div",
        { class: `rl-level${key === "above" ? " rl-above" : ""}`, role: "img", "aria-label": `${text}: ${count} Ice Cream token${count === 1 ? "" : "s"}`, title: text },
        h("span", { class: "rl-level-name" }, key === "above" ? "above" : `L${key}`),
        Array.from({ length: count }, () => token()),
      ),
    ),
  );
}

function token() {
  return h("span", { class: "rl-token", "aria-hidden": "true" });
}

// --- the planet: columns of robots, and the attacks on them ----------------------------------

function planet(ctx, view) {
  if (view.phase === "store") return store(ctx, view);
  if (!view.columns.length) {
    const text = view.phase === "over" ? "No planet left to defend." : "Between planets: the next planet is revealed once the trucks are loaded.";
    return h("section", { class: "rl-planet rl-empty-planet" }, h("p", {}, text));
  }
  const attacks = actionsOfType(ctx, "attack");
  return h(
    "section",
    { class: "rl-planet", "aria-label": `Planet ${view.planet}` },
    view.columns.map((column, index) => planetColumn(ctx, column, index, attacks.filter((a) => a.column === index))),
  );
}

function planetColumn(ctx, column, index, attacks) {
  const levels = column.fourth_level_open ? [1, 2, 3, 4] : [1, 2, 3];
  return h(
    "div",
    { class: `rl-column${column.jammed ? " rl-jammed" : ""}`, role: "group", "aria-label": `Column ${index + 1}` },
    h("div", { class: "rl-column-head" }, `Column ${index + 1}`, column.jammed && h("span", { class: "rl-pill rl-syrup" }, "Sticky Syrup")),
    robotSpot(catalogCard(ctx, column.spinston), 0, column.target_level === 0),
    levels.map((level) => robotSpot(catalogCard(ctx, column.robots[level - 1]), level, column.target_level === level)),
    attacks.length > 0 && attackChoices(ctx, column, index, attacks),
  );
}

function robotSpot(robot, level, targeted) {
  if (!robot) return h("div", { class: "rl-spot rl-open" }, level === 0 ? "Spinston destroyed" : `level ${level}`);
  const colour = robot.colour ? SPINSTON_COLOURS[robot.colour] : "#6c7480";
  return h(
    "article",
    {
      class: `rl-spot rl-robot${targeted ? " rl-target" : ""}`,
      style: `--band: ${colour}`,
      "aria-label": `${robot.title}${robot.colour ? ` (${robot.colour})` : ""}, ${level === 0 ? "the Spinston's place" : `level ${level}`}, defense ${robot.defense}, reward ${robot.reward}${targeted ? ", the target of an attack on this column" : ""}`,
    },
    h(
      "div",
      { class: "rl-robot-band" },
      h("span", { class: "rl-defense", title: "defense: the size of the matching set" }, `♥${robot.defense}`),
      h("span", { class: "rl-robot-name" }, robot.title),
      h("span", { class: "rl-reward", title: "Sprinkletonium reward" }, `✦${robot.reward}`),
    ),
    h("p", { class: "rl-robot-text" }, robot.text),
    targeted && h("span", { class: "rl-target-mark" }, "target"),
  );
}

function attackChoices(ctx, column, index, attacks) {
  const target = catalogCard(ctx, column.target_level === 0 ? column.spinston : column.robots[column.target_level - 1]);
  return h(
    "div",
    { class: "rl-attacks" },
    h("span", { class: "rl-attacks-title" }, "Fire at it:"),
    attacks.map((action) =>
      actionButton(ctx, action, [cardRun(action.cards), action.upgrade && h("small", {}, ` (${boostTitle(ctx, action.upgrade)})`)], {
        class: "rl-fire",
        "aria-label": `Fire ${cardsText(action.cards)} at ${target?.title ?? "the robot"} in column ${index + 1}${action.upgrade ? `, the extra attack of ${boostTitle(ctx, action.upgrade)}` : ""}`,
      }),
    ),
  );
}

// --- the viewer's move -----------------------------------------------------------------------

function yourMove(root, ctx, view) {
  const holder = perspective(ctx);
  if (holder === null) return null;
  const me = view.seats[holder];
  const title = holder === ctx.seat ? "Your hand" : `${seatLabel(ctx, holder)}: hand`;
  return h(
    "section",
    { class: "rl-you", "aria-label": holder === ctx.seat ? "Your hand and your move" : title },
    h("h3", {}, title, h("span", { class: "rl-count" }, ` ${me.hand_count} card${me.hand_count === 1 ? "" : "s"}`)),
    handCards(me),
    drawn(ctx, view),
    turnButtons(ctx, view),
    boostUses(ctx),
    view.phase === "equip" && view.active === ctx.seat && equipPicker(root, ctx, view, me),
    view.phase === "social" && view.active === ctx.seat && sharePicker(root, ctx, view),
    waitingNote(ctx, view),
  );
}

function handCards(seat) {
  const cards = [...(seat.hand ?? []), ...Array(seat.weaponized_sprinkletonium).fill("sprinkletonium")];
  if (!seat.hand) return cardBacks(seat.hand_count);
  return cards.length ? h("div", { class: "rl-hand" }, cards.map((card) => iceCard(card))) : h("p", { class: "rl-quiet" }, "No cards in hand.");
}

function drawn(ctx, view) {
  const keeps = actionsOfType(ctx, "keep_drawn");
  if (!view.drawn || view.active !== perspective(ctx) || view.step !== "keep") return null;
  return h(
    "div",
    { class: "rl-drawn" },
    h("h4", {}, view.active === ctx.seat ? "You drew" : "Drawn"),
    h("div", { class: "rl-hand" }, view.drawn.map((card) => iceCard(card))),
    keeps.map((action) => {
      const rest = without(view.drawn, action.cards);
      const label = `Keep ${cardsText(action.cards)}${rest.length ? `, discard ${cardsText(rest)}` : ""}`;
      return actionButton(ctx, action, label, { class: "rl-main" });
    }),
  );
}

function turnButtons(ctx, view) {
  const refillTo = view.active === null ? 7 : view.seats[view.active].refill_to;
  const refills = actionsOfType(ctx, "refill_hand").map((action) =>
    actionButton(ctx, action, withTurnEnd(ctx, action, action.weaponize ? `Refill to ${refillTo}, one card a weaponized Sprinkletonium` : `Refill your hand to ${refillTo}`), {
      title: "Spend 1 Sprinkletonium (none with an unused Refill Station) to fill your hand back up",
    }),
  );
  const simple = {
    draw_up: "Draw up to 7 cards",
    decline_draw_up: "Don't draw up",
    end_turn: "End turn",
    flush_store: "Flush the store (1 Sprinkletonium)",
    stop_buying: "Done buying",
  };
  const buttons = [
    ...Object.entries(simple).flatMap(([type, label]) =>
      actionsOfType(ctx, type).map((action) => actionButton(ctx, action, type === "end_turn" ? label : withTurnEnd(ctx, action, label), { class: type === "draw_up" ? "rl-main" : "" })),
    ),
    ...refills,
  ];
  return buttons.length ? h("div", { class: "rl-buttons" }, buttons) : null;
}

/** The Boosts the viewer may use now, each with its choices (a seat, a card, a column, an upgrade). */
function boostUses(ctx) {
  const uses = [...actionsOfType(ctx, "use_boost_in_play"), ...actionsOfType(ctx, "resolve_bought_boost")];
  if (!uses.length) return null;
  const byBoost = new Map();
  for (const action of uses) byBoost.set(action.boost, [...(byBoost.get(action.boost) ?? []), action]);
  return h(
    "div",
    { class: "rl-boost-uses" },
    [...byBoost].map(([boost, actions]) =>
      h(
        "div",
        { class: "rl-boost-use" },
        h("strong", {}, `${actions[0].type === "resolve_bought_boost" ? "Resolve" : "Use"} ${boostTitle(ctx, boost)}`),
        h("span", { class: "rl-quiet" }, ` ${boostText(ctx, boost)}`),
        h("div", { class: "rl-buttons" }, actions.map((action) => actionButton(ctx, action, withTurnEnd(ctx, action, boostChoiceText(ctx, action)), { "aria-label": `Use ${boostTitle(ctx, boost)}: ${boostChoiceText(ctx, action)}` }))),
      ),
    ),
  );
}

function boostChoiceText(ctx, action) {
  const parts = [];
  if (action.card) parts.push(`give ${words(action.card)}`);
  if (action.upgrade) parts.push(`take ${boostTitle(ctx, action.upgrade)}`);
  if (action.target !== undefined) parts.push(`${action.card ? "to" : "from"} ${seatLabel(ctx, action.target)}`);
  if (action.column !== undefined) parts.push(`column ${action.column + 1}`);
  return parts.length ? parts.join(" ") : "Use it";
}

/** Equip phase: toggle the upgrades to load (at most the truck's slots), then equip that set. */
function equipPicker(root, ctx, view, me) {
  const owned = [...me.equipped, ...me.spare_upgrades].sort();
  const key = `${ctx.match.id}:${view.planet}:${owned.join(",")}`;
  const chosen = equipPicks.get(key, () => [...me.equipped].sort());
  const toggle = (upgrade, on) => {
    equipPicks.set(key, (on ? [...chosen, upgrade] : chosen.filter((u) => u !== upgrade)).sort());
    redraw(root, ctx, render, `rl-equip-${upgrade}`);
  };
  const full = chosen.length >= me.upgrade_slots;
  return h(
    "div",
    { class: "rl-picker", role: "group", "aria-label": "Equip your truck" },
    h("h4", {}, `Load your truck: ${chosen.length} of ${me.upgrade_slots} slots`),
    h(
      "div",
      { class: "rl-buttons" },
      owned.map((upgrade) =>
        toggleButton(chosen.includes(upgrade), `${chosen.includes(upgrade) ? "✓ " : ""}${boostTitle(ctx, upgrade)}`, (on) => toggle(upgrade, on), {
          class: "rl-toggle",
          title: boostText(ctx, upgrade),
          disabled: ctx.busy || (full && !chosen.includes(upgrade)),
          "data-focus-key": `rl-equip-${upgrade}`,
        }),
      ),
    ),
    builtActionButton(ctx, { type: "equip_upgrades", upgrades: chosen }, chosen.length ? `Equip ${chosen.length} upgrade${chosen.length === 1 ? "" : "s"}` : "Equip nothing", {
      class: "rl-main",
      "data-focus-key": "rl-equip",
    }),
  );
}

/** Variant D: choose which of the social's face-up cards each seat gets, then share them out. */
function sharePicker(root, ctx, view) {
  const shares = actionsOfType(ctx, "share_social_cards");
  if (!shares.length) return null;
  const key = `${ctx.match.id}:${view.planet}:${view.social.join(",")}`;
  const chosen = sharePicks.get(key, () => [...shares[0].cards]);
  const pick = (seat, card) => {
    const next = [...chosen];
    next[seat] = card === "" ? null : card;
    sharePicks.set(key, next);
    redraw(root, ctx, render, `rl-share-${seat}`);
  };
  const options = [...new Set(view.social)];
  return h(
    "div",
    { class: "rl-picker", role: "group", "aria-label": "Ice Cream Social" },
    h("h4", {}, "Ice Cream Social"),
    h("div", { class: "rl-hand" }, view.social.map((card) => iceCard(card))),
    view.seats.map((_, seat) =>
      h(
        "label",
        { class: "rl-share-row" },
        ctx.seat === seat ? "You get " : `${seatLabel(ctx, seat)} gets `,
        h(
          "select",
          { "data-focus-key": `rl-share-${seat}`, disabled: ctx.busy, onchange: (event) => pick(seat, event.target.value) },
          h("option", { value: "", selected: chosen[seat] === null }, "nothing"),
          options.map((card) => h("option", { value: card, selected: chosen[seat] === card }, words(card))),
        ),
      ),
    ),
    h(
      "div",
      { class: "rl-buttons" },
      builtActionButton(ctx, { type: "share_social_cards", cards: chosen }, "Share them out", { class: "rl-main", "data-focus-key": "rl-share" }),
      actionsOfType(ctx, "share_social_randomly").map((action) => actionButton(ctx, action, "Share at random")),
    ),
    h("p", { class: "rl-quiet" }, "Every card goes to one player; a choice that does not give each card out once cannot be sent."),
  );
}

function waitingNote(ctx, view) {
  if (ctx.seat === null || ctx.seat === undefined) return null;
  if (legalActions(ctx).length || view.phase === "over" || view.active === null) return null;
  return h("p", { class: "rl-quiet" }, `Waiting for ${seatLabel(ctx, view.active)}.`);
}

// --- the store -----------------------------------------------------------------------------------

function store(ctx, view) {
  const buys = new Map(actionsOfType(ctx, "buy_boost").map((action) => [action.boost, action]));
  return h(
    "section",
    { class: "rl-store", "aria-label": "The store" },
    h(
      "h3",
      {},
      "Store",
      ctx.seat !== null && ctx.seat !== undefined && h("span", { class: "rl-pill" }, `you have ✦${view.seats[ctx.seat].sprinkletonium}`),
      view.pending_boost && h("span", { class: "rl-pill" }, `${boostTitle(ctx, view.pending_boost)} waits for its choice`),
    ),
    h(
      "div",
      { class: "rl-store-row" },
      view.store_row.map((id) => catalogCard(ctx, id)).map((boost) =>
        h(
          "article",
          { class: `rl-boost rl-${boost.type}` },
          h("div", { class: "rl-boost-head" }, h("strong", {}, boost.title), h("span", { class: "rl-price" }, `✦${boost.price}`)),
          h("div", { class: "rl-boost-kind" }, boost.type === "upgrade" ? "Truck Upgrade" : "Game Effect", ` · ${boost.timing}${boost.once_per_planet ? " · once per planet" : ""}`),
          h("p", {}, boost.text),
          buys.has(boost.id) && actionButton(ctx, buys.get(boost.id), withTurnEnd(ctx, buys.get(boost.id), `Buy for ${boost.price}`), { class: "rl-main", "aria-label": `Buy ${boost.title} for ${boost.price} Sprinkletonium` }),
        ),
      ),
    ),
  );
}

// --- every truck -------------------------------------------------------------------------------

function trucks(ctx, view) {
  return h(
    "section",
    { class: "rl-trucks", "aria-label": "Ice cream trucks" },
    view.seats.map((seat) => truck(ctx, view, seat)),
  );
}

function truck(ctx, view, seat) {
  const slots = Array.from({ length: Math.max(seat.upgrade_slots, seat.equipped.length) }, (_, i) => seat.equipped[i] ?? null);
  const badges = [
    view.first_player === seat.seat && h("span", { class: "rl-pill rl-first" }, "First Player"),
    view.active === seat.seat && h("span", { class: "rl-pill rl-now" }, "deciding"),
    view.phase === "over" && ctx.match.result?.winners?.includes(seat.seat) && h("span", { class: "rl-pill rl-first" }, "Champion of the Galaxy"),
  ];
  return h(
    "article",
    { class: `rl-truck${view.active === seat.seat ? " rl-active" : ""}`, "aria-label": ctx.seat === seat.seat ? "Your truck" : `${seatLabel(ctx, seat.seat)}'s truck` },
    h("div", { class: "rl-truck-head" }, h("strong", {}, seatLabel(ctx, seat.seat)), badges),
    h(
      "div",
      { class: "rl-stats" },
      h("span", { title: "Ice Cream tokens saved" }, token(), ` ${seat.tokens}`),
      h("span", { title: "Sprinkletonium" }, `✦ ${seat.sprinkletonium}`),
      h("span", { title: "Victory Points: 2 per token, 1 per Sprinkletonium" }, `${seat.victory_points} VP`),
      h("span", { title: "cards in hand" }, `${seat.hand_count} in hand`),
    ),
    perspective(ctx) !== seat.seat && (seat.hand ? h("div", { class: "rl-hand rl-small" }, seat.hand.map((card) => iceCard(card))) : cardBacks(seat.hand_count, seat.weaponized_sprinkletonium)),
    h(
      "div",
      { class: "rl-slots", "aria-label": "Truck Upgrade slots" },
      slots.map((upgrade) => (upgrade ? boostChip(ctx, upgrade, "rl-upgrade") : h("span", { class: "rl-chip rl-free-slot" }, "empty slot"))),
    ),
    seat.effects.length > 0 && h("div", { class: "rl-effects", "aria-label": "Game Effects in play" }, seat.effects.map((effect) => boostChip(ctx, effect, `rl-effect${view.used_this_planet.includes(effect) ? " rl-used" : ""}`))),
    seat.spare_upgrades.length > 0 && h("div", { class: "rl-spares", "aria-label": "Spare upgrades" }, "spare: ", seat.spare_upgrades.map((upgrade) => boostChip(ctx, upgrade, "rl-spare"))),
    view.active === seat.seat && view.phase === "player" && turnUse(ctx, view),
  );
}

function turnUse(ctx, view) {
  if (view.step === "keep") return h("p", { class: "rl-quiet" }, `choosing from ${view.drawn_count} drawn card${view.drawn_count === 1 ? "" : "s"}`);
  if (view.step !== "act") return null;
  const used = view.extra_attacks_used.map((boost) => boostTitle(ctx, boost));
  const text = `${view.attacks_made} attack${view.attacks_made === 1 ? "" : "s"} made this turn${used.length ? `; extra attacks used: ${used.join(", ")}` : ""}`;
  return h("p", { class: "rl-quiet" }, text);
}

function boostChip(ctx, id, cls) {
  return h("span", { class: `rl-chip ${cls}`, title: boostText(ctx, id) }, boostTitle(ctx, id));
}

// --- what just happened, and the decks ---------------------------------------------------------

function events(ctx, view) {
  if (!view.events.length) return null;
  return h(
    "section",
    { class: "rl-events", "aria-label": "What the last action set off" },
    h("h3", {}, "What just happened"),
    h("ol", { "aria-live": "polite" }, view.events.map((text) => h("li", {}, eventText(ctx, text)))),
  );
}

function decks(view) {
  const top = view.ice_cream_discard.at(-1);
  return h(
    "section",
    { class: "rl-decks", "aria-label": "Decks and piles" },
    h("span", {}, `Ice cream deck ${view.ice_cream_deck_count}`),
    h("span", {}, `discard ${view.ice_cream_discard.length}`, top && [" (top: ", words(top), ")"]),
    h("span", {}, `Robot deck ${view.robot_deck_count}, discard ${view.robot_discard.length}`),
    h("span", {}, `Boost deck ${view.boost_deck_count}, discard ${view.boost_discard.length}`),
    h("span", {}, `Sprinkletonium supply ✦${view.sprinkletonium_supply}`),
  );
}

// --- cards and Boosts in words -----------------------------------------------------------------

function iceCard(card) {
  return h("span", { class: `rl-card${WILD.has(card) ? " rl-wild" : ""}`, style: `--card: ${CARD_COLOURS[card] ?? "#ddd"}`, title: WILD.has(card) ? `${words(card)} (wild)` : words(card) }, words(card));
}

function cardBacks(count, sprinkles = 0) {
  const label = `${count} card${count === 1 ? "" : "s"} in hand${sprinkles ? `, ${sprinkles} of them weaponized Sprinkletonium` : ""}`;
  return h(
    "div",
    { class: "rl-backs", role: "img", "aria-label": label, title: label },
    Array.from({ length: count }, (_, i) => h("span", { class: i < sprinkles ? "rl-back rl-back-sprinkle" : "rl-back" })),
  );
}

/** A set of cards as coloured chips, "boomsicle ×3" style. */
function cardRun(cards) {
  const counts = new Map();
  for (const card of cards) counts.set(card, (counts.get(card) ?? 0) + 1);
  return [...counts].map(([card, n]) => h("span", { class: "rl-card rl-mini", style: `--card: ${CARD_COLOURS[card] ?? "#ddd"}` }, `${words(card)}${n > 1 ? ` ×${n}` : ""}`));
}

function cardsText(cards) {
  const counts = new Map();
  for (const card of cards) counts.set(card, (counts.get(card) ?? 0) + 1);
  return [...counts].map(([card, n]) => (n > 1 ? `${n} ${words(card)}` : words(card))).join(" and ");
}

function without(cards, removed) {
  const rest = [...cards];
  for (const card of removed) rest.splice(rest.indexOf(card), 1);
  return rest;
}

/** A card from the catalog's `cards` by id (null for no id); an id the catalog lacks gets its words as its title. */
function catalogCard(ctx, id) {
  if (!id) return null;
  const found = ctx.game?.cards?.find((entry) => entry.id === id);
  return found ?? { id, title: words(id).replace(/\b\w/g, (c) => c.toUpperCase()), type: "", text: "", defense: "?", reward: "?", price: "?" };
}

/** A button label, with "(ends turn)" when legal-actions flags the action as ending the seat's turn. */
function withTurnEnd(ctx, action, label) {
  const index = ctx.legal?.actions?.indexOf(action) ?? -1;
  return index >= 0 && ctx.legal.ends_turn?.[index] ? `${label} (ends turn)` : label;
}

function boostTitle(ctx, id) {
  return catalogCard(ctx, id).title;
}

function boostText(ctx, id) {
  return catalogCard(ctx, id).text;
}

const CSS = `
.rl { --rl-ink: #1d1b2b; color: var(--rl-ink); font-size: 15px; }
.rl button, .rl select { font: inherit; min-height: 44px; min-width: 44px; padding: 4px 10px; border-radius: 8px; border: 1px solid #77708c;
  background: var(--bg, #fff); color: var(--rl-ink); cursor: pointer; }
.rl button:hover:not([disabled]) { background: var(--bg, #fff); filter: brightness(.93); }
.rl button:disabled, .rl select:disabled { opacity: .55; cursor: default; }
.rl button:focus-visible, .rl select:focus-visible { outline: 3px solid #2d6cdf; outline-offset: 2px; }
.rl .rl-main { --bg: #2d6cdf; border-color: #2d6cdf; color: #fff; }
.rl .rl-toggle[aria-pressed="true"] { --bg: #1d7a3d; border-color: #1d7a3d; color: #fff; }
.rl h3 { margin: 0 0 6px; font-size: 16px; }
.rl h4 { margin: 8px 0 4px; font-size: 14px; }
.rl-head { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; }
.rl-phase { flex: 1 1 100%; font-size: 14px; }
.rl-pill { font-size: 12px; border-radius: 10px; padding: 1px 8px; background: #ddd6f0; }
.rl-first { background: #ffd76a; }
.rl-now { background: #2d6cdf; color: #fff; }
.rl-syrup { background: #c98b3a; color: #fff; }
.rl-team { margin: 8px 0 12px; }
.rl-team-text { margin: 0 0 4px; font-size: 14px; }
.rl-bar { position: relative; display: flex; height: 18px; border-radius: 9px; overflow: hidden; background: #ddd; }
.rl-seg { display: grid; place-items: center; font-size: 11px; color: #fff; min-width: 14px; }
.rl-saved { background: #2f9e55; }
.rl-inplay { background: #e2a23a; }
.rl-later { background: #a8a3b8; }
.rl-captured { background: #c43b3b; }
.rl-goal { position: absolute; top: 0; bottom: 0; width: 3px; background: #111; }
.rl-table { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.rl-planet-row { display: flex; gap: 10px; flex: 3 1 520px; min-width: 0; }
.rl-side { flex: 2 1 300px; display: flex; flex-direction: column; gap: 12px; min-width: 0; }
.rl-track { background: #241f3d; color: #fff; border-radius: 10px; padding: 8px; width: 86px; flex: none; }
.rl-track h3 { font-size: 13px; }
.rl-level { min-height: 44px; border-radius: 6px; background: #3a3360; margin-top: 4px; padding: 4px; display: flex; flex-wrap: wrap;
  gap: 3px; align-content: flex-start; }
.rl-above { background: #5a2430; }
.rl-level-name { width: 100%; font-size: 10px; opacity: .8; }
.rl-token { display: inline-block; width: 14px; height: 14px; border-radius: 50% 50% 3px 3px; background: #ffd0e0; border: 2px solid #e86a9a; }
.rl-planet { flex: 1; display: flex; gap: 8px; min-width: 0; }
.rl-empty-planet { background: #fff; border-radius: 10px; padding: 10px; }
.rl-column { flex: 1 1 0; min-width: 0; display: flex; flex-direction: column; gap: 6px; background: #e5e0f3; border-radius: 10px; padding: 6px; }
.rl-jammed { background: #f1dfc4; }
.rl-column-head { font-size: 12px; font-weight: bold; display: flex; gap: 4px; flex-wrap: wrap; align-items: center; }
.rl-spot { border-radius: 8px; min-height: 44px; position: relative; }
.rl-open { border: 2px dashed #b9b1d3; display: grid; place-items: center; font-size: 11px; color: #8a82a6; }
.rl-robot { background: #fff; border: 2px solid var(--band); overflow: hidden; }
.rl-robot-band { background: var(--band); color: #fff; display: flex; gap: 4px; align-items: center; padding: 2px 4px; font-size: 12px; }
.rl-robot-name { flex: 1; font-weight: bold; text-align: center; overflow-wrap: anywhere; }
.rl-robot-text { margin: 0; padding: 3px 5px; font-size: 11px; line-height: 1.25; }
.rl-target { box-shadow: 0 0 0 3px #ff5a36; }
.rl-target .rl-robot-text { padding-bottom: 15px; }
.rl-target-mark { position: absolute; right: 3px; bottom: 2px; font-size: 10px; background: #ff5a36; color: #fff; border-radius: 6px; padding: 0 4px; }
.rl-attacks { display: flex; flex-wrap: wrap; gap: 4px; }
.rl-attacks-title { font-size: 12px; font-weight: bold; width: 100%; }
.rl .rl-fire { display: inline-flex; flex-wrap: wrap; gap: 2px; padding: 3px 5px; align-items: center; justify-content: center;
  --bg: #fff3ee; border: 2px solid #ff5a36; }
.rl .rl-fire small { font-size: 11px; }
.rl-you, .rl-events, .rl-store, .rl-truck { background: #fff; border-radius: 10px; padding: 10px; border: 1px solid #d6cfe8; }
.rl-count { font-weight: normal; font-size: 13px; }
.rl-hand { display: flex; flex-wrap: wrap; gap: 4px; }
.rl-card { display: inline-block; background: var(--card); border: 1px solid rgba(0,0,0,.3); border-radius: 6px; padding: 6px 6px;
  font-size: 12px; min-width: 52px; text-align: center; color: #1b1b1b; }
.rl-wild { background: repeating-linear-gradient(135deg, var(--card), var(--card) 6px, #fff 6px, #fff 9px); font-weight: bold; }
.rl-mini { min-width: 0; padding: 2px 4px; font-size: 11px; }
.rl-small .rl-card { padding: 2px 4px; min-width: 0; font-size: 11px; }
.rl-backs { display: flex; flex-wrap: wrap; gap: 2px; margin: 4px 0; }
.rl-back { width: 14px; height: 20px; border-radius: 3px; background: repeating-linear-gradient(45deg, #6a4fb3, #6a4fb3 3px, #8469cc 3px, #8469cc 6px); }
.rl-back-sprinkle { background: #f5d142; }
.rl-drawn { margin-top: 8px; display: flex; flex-direction: column; gap: 6px; align-items: flex-start; }
.rl-buttons { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
.rl-boost-use { margin-top: 8px; font-size: 14px; }
.rl-picker { margin-top: 10px; display: flex; flex-direction: column; gap: 6px; align-items: flex-start; }
.rl-share-row { font-size: 14px; }
.rl-quiet { font-size: 13px; opacity: .75; margin: 6px 0 0; }
.rl-events ol { margin: 0; padding-left: 20px; font-size: 13px; }
.rl-store { flex: 1; min-width: 0; }
.rl-store h3 { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }
.rl-store-row { display: flex; flex-wrap: wrap; gap: 8px; }
.rl-boost { flex: 1 1 200px; border-radius: 8px; padding: 8px; border: 2px solid #999; display: flex; flex-direction: column; gap: 4px; }
.rl-boost p { margin: 0; font-size: 13px; flex: 1; }
.rl-upgrade, .rl-boost.rl-upgrade { border-color: #3d76d6; }
.rl-effect, .rl-boost.rl-effect { border-color: #b04fc4; }
.rl-boost-head { display: flex; justify-content: space-between; gap: 6px; }
.rl-boost-kind { font-size: 12px; opacity: .8; }
.rl-price { font-weight: bold; }
.rl-trucks { display: grid; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr)); gap: 8px; margin-top: 12px; }
.rl-active { border-color: #2d6cdf; box-shadow: 0 0 0 2px #2d6cdf; }
.rl-truck-head { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.rl-stats { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 13px; margin: 4px 0; align-items: center; }
.rl-slots, .rl-effects, .rl-spares { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 4px; font-size: 12px; align-items: center; }
.rl-chip { border-radius: 6px; padding: 2px 6px; border: 2px solid #999; background: #fafafa; font-size: 12px; }
.rl-free-slot { border-style: dashed; color: #888; }
.rl-used { opacity: .55; text-decoration: line-through; }
.rl-decks { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 12px; margin-top: 10px; opacity: .85; }
@media (max-width: 640px) {
  .rl-planet-row { flex-direction: column; flex-basis: 100%; }
  .rl-track { width: auto; display: flex; flex-direction: row-reverse; gap: 4px; align-items: stretch; }
  .rl-track h3 { writing-mode: vertical-rl; transform: rotate(180deg); margin: 0; order: 1; }
  .rl-level { flex: 1; margin-top: 0; min-height: 36px; }
  .rl-planet { gap: 4px; }
  .rl-column { padding: 4px; }
  .rl-robot-text { font-size: 10px; }
}
`;
