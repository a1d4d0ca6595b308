// Rock'em Sock'em Robots Dice Game's match picture: the Match Coin, each robot's corner (five Fight
// Cards, four Fight Dice), and for the viewer's robot the dice to keep and the roll; in rounds mode who
// has answered the current roll, in realtime mode the race as it runs; how the last round ended.

import { h } from "../dom.js";
import {
  actionButton,
  actionsOfType,
  actionWords,
  builtActionButton,
  endedEarly,
  perspective,
  pickerMemory,
  redraw,
  seatLabel,
  styleSheet,
  svg,
  toggleButton,
} from "./parts.js";

const ROBOTS = ["Red Rocker", "Blue Bomber"]; // the two sets of Fight Cards in the can, by seat
const DIE_COLOURS = { red: "#d8383b", blue: "#2f6fd6", yellow: "#f2c330" };
const FIGHT_CARDS = 5;
const DICE = 4;
const keeps = pickerMemory();

/** Draw a Rock'em Sock'em match into root. */
export function render(root, ctx) {
  const view = ctx.match.view;
  root.append(
    styleSheet(CSS),
    h(
      "div",
      { class: "rs" },
      header(ctx, view),
      h(
        "div",
        { class: "rs-ring" },
        corner(root, ctx, view, 0),
        coinPanel(ctx, view),
        corner(root, ctx, view, 1),
      ),
      lastRound(ctx, view),
      iconLegend(),
    ),
  );
}

/** A Rock'em Sock'em action in words, for the shell's list of moves and its hints. */
export function describe(action) {
  if (action.type === "flip") return "flips the Match Coin";
  if (action.type !== "roll") return actionWords(action);
  if (action.keep === null) return "rolls (the dice kept show once both robots have answered)";
  if (!action.keep.length) return "rolls all four dice";
  const kept = action.keep.map((die) => die + 1).join(" and ");
  return `keeps ${action.keep.length === 1 ? "die" : "dice"} ${kept}, rolls ${DICE - action.keep.length}`;
}

function robotName(ctx, seat) {
  return ctx.seat === seat ? `${ROBOTS[seat]} (you)` : ROBOTS[seat];
}

// --- the round and the coin ------------------------------------------------------------------------

function header(ctx, view) {
  const mode =
    view.mode === "rounds"
      ? "Rounds: both robots answer each roll, then both roll together."
      : "Realtime: every roll happens at once; the first match grabs the coin.";
  return h(
    "header",
    { class: "rs-head" },
    h("strong", {}, view.phase === null ? `Knock-out in round ${view.round}` : `Round ${view.round}`),
    h("span", {}, mode),
  );
}

function coinPanel(ctx, view) {
  const flip = actionsOfType(ctx, "flip");
  return h(
    "section",
    { class: "rs-coin-panel", "aria-label": "The Match Coin" },
    coin(view.coin),
    h("p", { class: "rs-coin-text" }, coinText(ctx, view)),
    flip.map((action) => actionButton(ctx, action, "Flip the Match Coin", { class: "rs-main" })),
  );
}

function coinText(ctx, view) {
  if (view.phase === null) return knockOutText(ctx);
  const early = endedEarly(ctx.match);
  if (early) return `The match is over: ${early}.`;
  if (view.coin === "colour") return "COLOUR: roll until all four of your dice are the same colour.";
  if (view.coin === "icon") return "ICON: roll until all four of your dice show the same icon.";
  const who = seatLabel(ctx, view.flipper);
  return who === "You" ? "You flip the Match Coin." : `${who} flips the Match Coin.`;
}

function knockOutText(ctx) {
  const winner = ctx.match.result?.winners?.[0];
  if (winner === undefined) return "The match is over.";
  return `KNOCKED OUT! ${robotName(ctx, 1 - winner)} shows 3 HITs; ${robotName(ctx, winner)} wins.`;
}

/** The Match Coin: a target of rings on the colour side, crossed fists on the icon side, a blank before the flip. */
function coin(side) {
  const label = side ? `Match Coin: ${side} side` : "Match Coin, not flipped yet";
  const face =
    side === "colour"
      ? [
          svg("circle", { cx: 30, cy: 30, r: 19, fill: DIE_COLOURS.red }),
          svg("circle", { cx: 30, cy: 30, r: 13, fill: DIE_COLOURS.yellow }),
          svg("circle", { cx: 30, cy: 30, r: 7, fill: DIE_COLOURS.blue }),
        ]
      : side === "icon"
        ? [fist(30, 30, 45), fist(30, 30, -45)]
        : [svg("text", { x: 30, y: 38, "text-anchor": "middle", "font-size": 22, fill: "#7a6a3a" }, "?")];
  return svg(
    "svg",
    { class: "rs-coin", viewBox: "0 0 60 60", role: "img", "aria-label": label },
    svg("title", {}, label),
    svg("circle", { cx: 30, cy: 30, r: 28, fill: "#e8c65a", stroke: "#a68523", "stroke-width": 3 }),
    face,
  );
}

function fist(cx, cy, angle) {
  return svg(
    "g",
    { transform: `rotate(${angle} ${cx} ${cy})` },
    svg("rect", { x: cx - 3.5, y: cy - 4, width: 7, height: 22, rx: 2, fill: "#6b5a2a" }),
    svg("rect", { x: cx - 8, y: cy - 20, width: 16, height: 16, rx: 5, fill: "#3b3b3b" }),
    svg("path", { d: `M${cx - 4} ${cy - 20} v5 M${cx} ${cy - 20} v5 M${cx + 4} ${cy - 20} v5`, stroke: "#bbb", "stroke-width": 1.2 }),
  );
}

// --- a corner: Fight Cards and dice --------------------------------------------------------------

function corner(root, ctx, view, seat) {
  const state = view.corners[seat];
  const mine = ctx.seat === seat;
  const seen = perspective(ctx) === seat; // view.my_keep is this seat's keep
  return h(
    "section",
    { class: `rs-corner rs-seat-${seat}${mine ? " rs-mine" : ""}`, "aria-label": robotName(ctx, seat) },
    h("h3", {}, ROBOTS[seat], h("span", { class: "rs-who" }, seatLabel(ctx, seat))),
    fightCards(state),
    mine && canRoll(ctx) ? keepPicker(root, ctx, view, seat) : diceRow(state.dice, seen ? (view.my_keep ?? []) : []),
    answerState(ctx, view, seat),
  );
}

/** Five Fight Cards: the HITs and MISSes shown, the rest face down (nobody knows which hide a HIT). */
function fightCards(state) {
  const cards = [
    ...Array.from({ length: state.hits_shown }, () => h("span", { class: "rs-card rs-hit" }, "HIT")),
    ...Array.from({ length: state.misses_shown }, () => h("span", { class: "rs-card rs-miss" }, "MISS")),
    ...Array.from({ length: state.face_down }, () => h("span", { class: "rs-card rs-down" }, "")),
  ];
  const label = `Fight Cards: ${state.hits_shown} HIT, ${state.misses_shown} MISS shown, ${state.face_down} face down`;
  return h(
    "div",
    { class: "rs-cards", role: "img", "aria-label": label, title: label },
    cards.slice(0, FIGHT_CARDS),
    h("span", { class: "rs-hits-count" }, `${state.hits_shown}/3 HITs`),
  );
}

function diceRow(dice, kept) {
  if (!dice) return h("p", { class: "rs-quiet rs-dice-empty" }, "Dice not rolled yet this round.");
  return h(
    "div",
    { class: "rs-dice" },
    dice.map((face, index) => h("span", { class: kept.includes(index) ? "rs-die-wrap rs-kept" : "rs-die-wrap" }, die(face, index))),
  );
}

/** One Fight Die: its colour, and its icon (punch, block, uppercut). */
function die(face, index) {
  const label = `die ${index + 1}: ${face.colour} ${face.icon}`;
  return svg(
    "svg",
    { class: "rs-die", viewBox: "0 0 40 40", role: "img", "aria-label": label },
    svg("title", {}, label),
    svg("rect", { x: 1, y: 1, width: 38, height: 38, rx: 8, fill: DIE_COLOURS[face.colour] ?? "#999", stroke: "#222", "stroke-width": 1.5 }),
    dieIcon(face.icon),
  );
}

function dieIcon(icon) {
  if (icon === "block") {
    return svg(
      "g",
      {},
      svg("rect", { x: 10, y: 10, width: 20, height: 20, fill: "#9a9a9a", stroke: "#fff", "stroke-width": 2 }),
      svg("path", { d: "M12 12 L28 28 M28 12 L12 28", stroke: "#fff", "stroke-width": 3 }),
    );
  }
  if (icon === "uppercut") {
    return svg("path", { d: "M20 7 L31 20 L24 20 L24 33 L16 33 L16 20 L9 20 Z", fill: "#fff", stroke: "#222", "stroke-width": 1 });
  }
  return svg("path", {
    d: "M20 6 L23 15 L33 12 L26 20 L34 27 L24 26 L20 35 L16 26 L6 27 L14 20 L7 12 L17 15 Z",
    fill: "#fff",
    stroke: "#222",
    "stroke-width": 1,
  });
}

// --- the viewer's roll: pick the dice to keep, then roll -----------------------------------------

function canRoll(ctx) {
  return actionsOfType(ctx, "roll").length > 0;
}

function keepPicker(root, ctx, view, seat) {
  const dice = view.corners[seat].dice;
  if (!dice) {
    const [first] = actionsOfType(ctx, "roll");
    return h("div", { class: "rs-roll" }, actionButton(ctx, first, "Roll all four dice", { class: "rs-main", "data-focus-key": "rs-roll" }));
  }
  const memoryKey = `${ctx.match.id}:${view.round}:${JSON.stringify(dice)}`;
  const kept = keeps.get(memoryKey, () => []);
  const choose = (next, focusKey) => {
    keeps.set(memoryKey, [...next].sort());
    redraw(root, ctx, render, focusKey);
  };
  const toggles = dice.map((face, index) =>
    toggleButton(
      kept.includes(index),
      [die(face, index), h("span", { class: "rs-keep-label" }, kept.includes(index) ? "KEEP" : "re-roll")],
      (on) => choose(on ? [...kept, index] : kept.filter((d) => d !== index), `rs-die-${index}`),
      {
        class: kept.includes(index) ? "rs-die-toggle rs-kept" : "rs-die-toggle",
        "aria-label": `Keep die ${index + 1}: ${face.colour} ${face.icon}`,
        "data-focus-key": `rs-die-${index}`,
        disabled: ctx.busy,
      },
    ),
  );
  const best = bestGroup(dice, view.coin);
  const rolled = DICE - kept.length;
  const label = kept.length === DICE ? "Keep at most three" : `Roll ${rolled} ${rolled === 1 ? "die" : "dice"}`;
  return h(
    "div",
    { class: "rs-roll" },
    h("div", { class: "rs-dice", role: "group", "aria-label": "Your dice: press a die to keep it" }, toggles),
    h(
      "div",
      { class: "rs-roll-buttons" },
      builtActionButton(ctx, { type: "roll", keep: kept }, label, { class: "rs-main", "data-focus-key": "rs-roll" }),
      h("button", { type: "button", disabled: ctx.busy, "data-focus-key": "rs-best", onclick: () => choose(best, "rs-best") }, "Keep the largest match"),
      kept.length > 0 &&
        h("button", { type: "button", disabled: ctx.busy, "data-focus-key": "rs-none", onclick: () => choose([], "rs-none") }, "Keep none"),
    ),
  );
}

/** The dice of the largest group showing the coin's side (same colour, or same icon), at most three. */
function bestGroup(dice, side) {
  const key = side === "icon" ? "icon" : "colour";
  const groups = new Map();
  dice.forEach((face, index) => groups.set(face[key], [...(groups.get(face[key]) ?? []), index]));
  const largest = [...groups.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  return largest.slice(0, DICE - 1);
}

function answerState(ctx, view, seat) {
  if (view.phase !== "race") return null;
  if (view.mode === "realtime") return h("p", { class: "rs-quiet" }, "Racing: rolls land as they are sent.");
  if (!view.answered[seat]) return h("p", { class: "rs-quiet" }, ctx.seat === seat ? "Your roll: choose the dice to keep." : "Deciding which dice to keep…");
  if (perspective(ctx) !== seat) return h("p", { class: "rs-answered" }, "Has answered this roll.");
  const kept = view.my_keep ?? [];
  const keptText = kept.length ? `keeping ${kept.map((d) => `die ${d + 1}`).join(", ")}` : "keeping nothing";
  const who = ctx.seat === seat ? "You" : seatLabel(ctx, seat);
  return h("p", { class: "rs-answered" }, `${who} answered (${keptText}); waiting for the other robot.`);
}

// --- how the last round ended --------------------------------------------------------------------

function lastRound(ctx, view) {
  const last = view.last_round;
  if (!last) return null;
  let text;
  if (last.grabbed_by === null) {
    text = "Both robots matched in the same roll: nobody grabbed the coin, and no card was turned.";
  } else {
    const parts = [`${robotName(ctx, last.grabbed_by)} grabbed the coin`];
    if (last.healed) parts.push("Down for the Count turned one of its cards back");
    if (last.turned) parts.push(`${robotName(ctx, last.turned.seat)} turned a ${last.turned.card}`);
    text = `${parts.join("; ")}.`;
  }
  const prefix = view.phase === null ? "Last round: " : "Round before: ";
  return h("p", { class: "rs-last", role: "status" }, prefix, text);
}

function iconLegend() {
  const item = (icon, text) => h("span", { class: "rs-legend-item" }, die({ colour: "legend", icon }, 0), text);
  return h(
    "p",
    { class: "rs-legend" },
    item("punch", "punch"),
    item("block", "block"),
    item("uppercut", "uppercut"),
    h("span", {}, "Four blocks grab the coin on either side and turn one of your cards back (Down for the Count)."),
  );
}

const CSS = `
.rs { --rs-ink: #1f1b24; color: var(--rs-ink); font-size: 15px; }
.rs button { font: inherit; min-height: 44px; min-width: 44px; padding: 4px 12px; border-radius: 8px; border: 1px solid #7d7468;
  background: var(--bg, #fff); color: var(--rs-ink); cursor: pointer; }
.rs button:hover:not([disabled]) { background: var(--bg, #fff); filter: brightness(.93); }
.rs button:disabled { opacity: .55; cursor: default; }
.rs button:focus-visible { outline: 3px solid #2d6cdf; outline-offset: 2px; }
.rs .rs-main { --bg: #2d6cdf; border-color: #2d6cdf; color: #fff; font-weight: bold; }
.rs-head { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; margin-bottom: 10px; }
.rs-head span { font-size: 13px; opacity: .8; }
.rs-ring { display: grid; grid-template-columns: 1fr auto 1fr; gap: 12px; align-items: start; }
.rs-corner { background: #fcfaf6; border-radius: 10px; padding: 10px; border: 3px solid #ccc; min-width: 0; }
.rs-seat-0 { border-color: #d8383b; }
.rs-seat-1 { border-color: #2f6fd6; }
.rs-mine { box-shadow: 0 0 0 3px #ffe08a; }
.rs-corner h3 { margin: 0 0 8px; font-size: 17px; display: flex; flex-wrap: wrap; gap: 2px 8px; align-items: baseline; }
.rs-seat-0 h3 { color: #b3262a; }
.rs-seat-1 h3 { color: #1f56b3; }
.rs-who { font-size: 13px; color: var(--rs-ink); font-weight: normal; }
.rs-cards { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; margin-bottom: 10px; }
.rs-card { width: 34px; height: 46px; border-radius: 5px; display: grid; place-items: center; font-size: 10px;
  font-weight: bold; border: 1px solid #333; }
.rs-hit { background: #ffd23f; color: #a0121a; }
.rs-miss { background: #e9e9e9; color: #555; }
.rs-down { background: repeating-linear-gradient(45deg, #54607a, #54607a 4px, #66738f 4px, #66738f 8px); }
.rs-hits-count { font-size: 12px; margin-left: 4px; }
.rs-dice { display: flex; gap: 6px; flex-wrap: wrap; }
.rs-die { width: 48px; height: 48px; display: block; }
.rs-die-wrap { border-radius: 10px; padding: 2px; border: 3px solid transparent; }
.rs-kept { border-color: #1d9a4a !important; background: #dff5e6 !important; }
.rs .rs-die-toggle { padding: 3px; display: flex; flex-direction: column; align-items: center; gap: 2px;
  border: 3px solid #bbb; border-radius: 10px; min-height: 0; }
.rs-keep-label { font-size: 11px; text-transform: uppercase; }
.rs-roll-buttons { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
.rs-coin-panel { display: flex; flex-direction: column; align-items: center; gap: 6px; max-width: 190px; text-align: center; }
.rs-coin { width: 84px; height: 84px; }
.rs-coin-text { margin: 0; font-size: 14px; }
.rs-quiet { font-size: 13px; opacity: .75; margin: 8px 0 0; }
.rs-answered { font-size: 13px; margin: 8px 0 0; color: #1d7a3d; font-weight: bold; }
.rs-last { margin: 12px 0 0; padding: 8px 10px; background: #fff7d6; border-radius: 8px; border: 1px solid #e6cf78; }
.rs-legend { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; font-size: 12px; margin: 10px 0 0; opacity: .85; }
.rs-legend-item { display: inline-flex; align-items: center; gap: 4px; }
.rs-legend .rs-die { width: 24px; height: 24px; }
.rs-legend .rs-die > rect { fill: #777; }
@media (max-width: 640px) {
  .rs-ring { grid-template-columns: 1fr; }
  .rs-coin-panel { order: -1; max-width: none; flex-direction: row; flex-wrap: wrap; justify-content: center; }
  .rs-coin { width: 64px; height: 64px; }
  .rs-coin-text { flex: 1 1 160px; text-align: left; }
}
`;
