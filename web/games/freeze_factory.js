// Freeze Factory's match picture: the 5x5 ice cream machine with its flavour tiles, arrows that slide a
// tile into an empty space (round arrows come in from the opposite edge), the die and movement points,
// the extra-cone choice after the die's symbol, the cones in hand with Fulfil and FREEZE!, the lines open
// to FREEZE!, and every player's fulfilled cones (the score).

import { h } from "../dom.js";
import {
  actionButton,
  actionsOfType,
  actionWords,
  endedEarly,
  perspective,
  pickerMemory,
  redraw,
  seatLabel,
  seatText,
  styleSheet,
  svg,
} from "./parts.js";

const DIRECTIONS = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] };
const ARROWS = { up: "▲", down: "▼", left: "◀", right: "▶" };
const ENTERS_FROM = { up: "bottom", down: "top", left: "right", right: "left" };
const LINE = 3; // 'three flavours in a connected, straight line'
const chosenSpace = pickerMemory(); // the empty space several tiles can slide into, chosen first (then its tile)

const FLAVOUR_COLOURS = {
  strawberry: "#f06d86",
  mint: "#7fdcb4",
  hazelnut: "#a87a4a",
  peach: "#ffbe8f",
  cherry: "#b3183f",
  lemon: "#f7e35a",
  chocolate: "#5b3521",
  mango: "#ffa630",
  vanilla: "#f6eed3",
  pistachio: "#a9cc6d",
  blueberry: "#4d5fbd",
  coconut: "#fbfbf8",
  raspberry: "#c8226a",
};
const DARK_FLAVOURS = new Set(["hazelnut", "cherry", "chocolate", "blueberry", "raspberry"]);

/** Draw a Freeze Factory match into root. */
export function render(root, ctx) {
  const view = ctx.match.view;
  root.append(
    styleSheet(CSS),
    h(
      "div",
      { class: "ff" },
      statusBar(ctx, view),
      h("div", { class: "ff-table" }, machine(root, ctx, view), h("div", { class: "ff-side" }, handPanel(ctx, view), seatsPanel(ctx, view))),
    ),
  );
}

/** A Freeze Factory action in words, for the shell's list of moves and its hints. */
export function describe(action, ctx) {
  const cone = () => coneWords(ctx.match.view, action.cone);
  switch (action.type) {
    case "roll":
      return "rolls the die";
    case "no_roll":
      return "does not roll: 3 movement points";
    case "take_cone":
      return "takes one more cone from the pile";
    case "leave_cone":
      return "leaves the extra cone in the pile";
    case "slide":
      return `slides the tile on row ${action.space[0] + 1}, column ${action.space[1] + 1} ${action.direction}`;
    case "fulfil":
      return `fulfils the cone ${cone()}`;
    case "freeze":
      return `calls FREEZE! for the cone ${cone()}`;
    case "end_turn":
      return "ends the turn";
    default:
      return actionWords(action);
  }
}

/** A cone's flavours when the view shows it (in the hand or fulfilled), else its number. */
function coneWords(view, id) {
  const cone = [...view.hand, ...view.fulfilled.flat()].find((c) => c.id === id);
  return cone ? cone.flavours.join(", ") : `#${id}`;
}

// --- the turn: whose it is, the die, the points --------------------------------------------------

function statusBar(ctx, view) {
  return h(
    "section",
    { class: "ff-status", "aria-label": "Turn" },
    h("div", { class: "ff-turn" }, h("strong", {}, turnText(ctx, view)), h("span", {}, phaseText(ctx, view))),
    view.active !== null && !endedEarly(ctx.match) && die(view.last_roll, view.phase),
    view.active !== null && !endedEarly(ctx.match) && view.phase !== "extra_cone" && pointsLeft(view),
    turnControls(ctx, view),
  );
}

function turnText(ctx, view) {
  if (view.active === null || endedEarly(ctx.match)) return `Game over after turn ${view.turn}`;
  const who = seatLabel(ctx, view.active);
  return `Turn ${view.turn}: ${who === "You" ? "your turn" : `${who} is playing`}`;
}

function phaseText(ctx, view) {
  const early = view.active !== null && endedEarly(ctx.match);
  if (early) return `The match is over: ${early}.`;
  if (view.phase === "roll") return "Roll the die, or take exactly 3 movement points.";
  if (view.phase === "move" && view.points_left === 0) {
    // A spent turn waits when a line it formed matches a cone nobody has laid face up (the catalog's turn-end).
    const mine = seatLabel(ctx, view.active) === "You";
    return mine
      ? "No points left: a line you formed may fulfil a cone, so the turn waits for you to fulfil or end it."
      : "No points left: a line this turn formed may fulfil a cone, so the turn waits for its player.";
  }
  if (view.phase === "move") return "Slide tiles one space for a point each; fulfil cones your slides line up.";
  if (view.phase === "extra_cone") return "The die shows the cone: the turn is missed, but one more cone may be taken.";
  return `${seatText(ctx, ctx.match.result?.reason ?? "The game is over")}: the most cones fulfilled wins.`;
}

/** The die's last roll: pips for 2 to 5, the cone symbol (miss a turn, take a cone), or blank after no roll. */
function die(roll, phase) {
  const label = roll === null ? "No die rolled" : roll === "cone" ? "Die: the cone symbol" : `Die: ${roll}`;
  const face = h("div", { class: "ff-die", role: "img", "aria-label": label, title: label });
  if (roll === "cone") face.append(coneIcon(["vanilla", "strawberry", "mint"], 26));
  else if (typeof roll === "number") face.append(...pips(roll));
  else face.append(h("span", { class: "ff-die-blank" }, phase === "move" ? "3" : "?"));
  return face;
}

function pips(count) {
  const layouts = { 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8] };
  return Array.from({ length: 9 }, (_, spot) =>
    h("span", { class: layouts[count].includes(spot) ? "ff-pip" : "ff-pip ff-pip-off" }),
  );
}

function pointsLeft(view) {
  const label = `${view.points_left} movement point${view.points_left === 1 ? "" : "s"} left`;
  const dots = Array.from({ length: view.points_left }, () => h("span", { class: "ff-point" }));
  return h("div", { class: "ff-points", role: "img", "aria-label": label, title: label }, dots, h("span", {}, label));
}

function turnControls(ctx, view) {
  const buttons = [
    ...actionsOfType(ctx, "roll").map((action) => actionButton(ctx, action, "Roll the die", { class: "ff-main" })),
    ...actionsOfType(ctx, "no_roll").map((action) => actionButton(ctx, action, "Don't roll: 3 points")),
    ...actionsOfType(ctx, "take_cone").map((action) => actionButton(ctx, action, "Take one more cone", { class: "ff-main" })),
    ...actionsOfType(ctx, "leave_cone").map((action) => actionButton(ctx, action, "Leave the cone")),
    ...actionsOfType(ctx, "end_turn").map((action) => actionButton(ctx, action, "End turn")),
    ...freezeButtons(ctx, view),
  ];
  return buttons.length ? h("div", { class: "ff-controls" }, buttons) : null;
}

/** FREEZE!: one button per cone an open line matches (the next player's too, before it rolls), or a dark button
 * for a seat whose turn it is not while none does. */
function freezeButtons(ctx, view) {
  if (ctx.seat === null || ctx.seat === undefined || view.active === null) return [];
  if (ctx.match.options?.auto_freeze) return [];
  const claims = actionsOfType(ctx, "freeze");
  if (!claims.length) {
    if (view.active === ctx.seat) return [];
    const why = "FREEZE! lights up when another player's slide lines up one of your cones";
    return [h("button", { type: "button", class: "ff-freeze", disabled: true, title: why, "aria-label": why }, "FREEZE!")];
  }
  return claims.map((action) => {
    const cone = view.hand.find((held) => held.id === action.cone);
    const names = cone ? cone.flavours.join(", ") : `cone ${action.cone}`;
    return actionButton(ctx, action, ["FREEZE! ", h("small", {}, names)], {
      class: "ff-freeze ff-freeze-live",
      "aria-label": `FREEZE! Claim the cone ${names}`,
    });
  });
}

// --- the machine: tiles, slide arrows, lines of three ----------------------------------------------

function machine(root, ctx, view) {
  const size = view.board.length;
  const arrivals = slideArrivals(ctx, size);
  const fresh = spaceSet(view.freeze_lines.filter((line) => standing(view.board, line)).flatMap((line) => line.spaces));
  const yours = spaceSet(linesMatchingHand(view).flat());
  // A space several tiles can slide into is chosen first; its tiles then become the slide buttons (each a whole
  // space, so every target is at least 44 px on a phone, where four arrows in one space could not be).
  const chosenKey = chosenSpace.get(`${ctx.match.id}:${ctx.match.version}`, () => null);
  const chosen = chosenKey && (arrivals.get(chosenKey)?.length ?? 0) > 1 ? chosenKey : null;
  const sources = new Map((chosen ? arrivals.get(chosen) : []).map((arrival) => [arrival.from.join(","), arrival]));
  const choose = (key) => {
    chosenSpace.set(`${ctx.match.id}:${ctx.match.version}`, key === chosen ? null : key);
    redraw(root, ctx, render, `ff-space-${key}`);
  };
  const cells = [];
  for (let row = 0; row < size; row += 1) {
    for (let column = 0; column < size; column += 1) {
      const flavour = view.board[row][column];
      const key = `${row},${column}`;
      const marks = [fresh.has(key) && "ff-fresh", yours.has(key) && "ff-yours", key === chosen && "ff-chosen"].filter(Boolean).join(" ");
      cells.push(
        flavour
          ? tile(ctx, flavour, row, column, marks, sources.get(key), chosen)
          : emptySpace(ctx, view, row, column, arrivals.get(key) ?? [], marks, choose),
      );
    }
  }
  return h(
    "section",
    { class: "ff-machine-wrap", "aria-label": "The ice cream machine" },
    h("div", { class: "ff-machine", role: "group", "aria-label": `Ice cream machine, ${size} by ${size}` }, cells),
    legend(arrivals.size > 0, fresh.size > 0, yours.size > 0, chosen !== null),
    movedLines(view),
  );
}

/** True if the open line still stands where it was formed, with the same flavours. */
function standing(board, line) {
  const now = line.spaces.map(([row, column]) => board[row][column]);
  return now.every(Boolean) && [...now].sort().join("|") === [...line.flavours].sort().join("|");
}

/** Open lines that later slides broke up: still open to FREEZE! until the turn ends, so they are named. */
function movedLines(view) {
  const moved = view.freeze_lines.filter((line) => !standing(view.board, line));
  if (!moved.length) return null;
  return h(
    "p",
    { class: "ff-quiet ff-moved" },
    "Still open to FREEZE! though moved since: ",
    moved.map((line) => line.flavours.join(", ")).join("; "),
  );
}

function tile(ctx, flavour, row, column, marks, source, chosen) {
  const style = `--flavour: ${FLAVOUR_COLOURS[flavour] ?? "#ccc"}; --ink: ${DARK_FLAVOURS.has(flavour) ? "#fff" : "#222"}`;
  if (source) {
    const [toRow, toColumn] = chosen.split(",").map(Number);
    const label = slideLabel(flavour, source, toRow, toColumn);
    return actionButton(ctx, source.action, [h("span", { class: "ff-name" }, flavour), arrowMark(source)], {
      class: `ff-space ff-tile ff-arrow ff-source ${marks}`,
      "aria-label": label,
      title: label,
      style,
    });
  }
  return h(
    "div",
    { class: `ff-space ff-tile ${marks}`, role: "img", "aria-label": `${flavour}, row ${row + 1}, column ${column + 1}`, style },
    h("span", { class: "ff-scoop" }),
    h("span", { class: "ff-name" }, flavour),
  );
}

function slideLabel(flavour, arrival, row, column) {
  const edge = arrival.wrapped ? " off the edge, round to" : " to";
  return `Slide ${flavour} ${arrival.action.direction}${edge} row ${row + 1}, column ${column + 1}`;
}

function arrowMark(arrival) {
  return h("span", { class: `ff-arrow-mark${arrival.wrapped ? " ff-wrap" : ""}`, "aria-hidden": "true" }, ARROWS[arrival.action.direction], arrival.wrapped ? "↻" : "");
}

/** An empty space: a slide button when one tile can slide into it, a chooser when several can, else steel. */
function emptySpace(ctx, view, row, column, arrivals, marks, choose) {
  const key = `${row},${column}`;
  if (arrivals.length === 1) {
    const [arrival] = arrivals;
    const flavour = view.board[arrival.from[0]][arrival.from[1]];
    const label = slideLabel(flavour, arrival, row, column);
    return actionButton(ctx, arrival.action, arrowMark(arrival), {
      class: `ff-space ff-empty ff-arrow ff-from-${ENTERS_FROM[arrival.action.direction]} ${marks}`,
      "aria-label": label,
      title: label,
      style: `--flavour: ${FLAVOUR_COLOURS[flavour] ?? "#ccc"}`,
    });
  }
  if (arrivals.length > 1) {
    const names = arrivals.map((arrival) => view.board[arrival.from[0]][arrival.from[1]]).join(" or ");
    const chosen = marks.includes("ff-chosen");
    const label = chosen
      ? `Row ${row + 1}, column ${column + 1}: now press the tile to slide in (${names}), or here to cancel`
      : `Row ${row + 1}, column ${column + 1}: ${arrivals.length} tiles can slide in (${names}); choose which`;
    return h(
      "button",
      {
        type: "button",
        class: `ff-space ff-empty ff-choose ${marks}`,
        "aria-label": label,
        title: label,
        "aria-pressed": chosen ? "true" : "false",
        "data-focus-key": `ff-space-${key}`,
        disabled: ctx.busy,
        onclick: () => choose(key),
      },
      h("span", { class: "ff-choose-marks", "aria-hidden": "true" }, arrivals.map((arrival) => h("span", { style: `--flavour: ${FLAVOUR_COLOURS[view.board[arrival.from[0]][arrival.from[1]]] ?? "#ccc"}` }, ARROWS[arrival.action.direction]))),
    );
  }
  return h("div", { class: `ff-space ff-empty ${marks}`, title: `empty, row ${row + 1}, column ${column + 1}` });
}

function legend(slides, fresh, yours, choosing) {
  const items = [
    slides && "Press an arrowed space to slide the tile beside it in (↻: it comes round from the opposite edge). Where several tiles could slide in, press the space, then the tile.",
    choosing && "Now press one of the arrowed tiles to slide it into the chosen space.",
    fresh && "Glowing spaces: a line of three formed this turn, open to FREEZE! until the turn ends (a turn's last line until the next player rolls or not).",
    yours && "Gold spaces: a line of three matching a cone in your hand.",
  ].filter(Boolean);
  return items.length ? h("ul", { class: "ff-legend" }, items.map((text) => h("li", {}, text))) : null;
}

/** The legal slides grouped by the empty space they end on ("row,column"), each with its tile and whether it wraps. */
function slideArrivals(ctx, size) {
  const arrivals = new Map();
  for (const action of actionsOfType(ctx, "slide")) {
    const [row, column] = action.space;
    const [dRow, dColumn] = DIRECTIONS[action.direction];
    const [toRow, toColumn] = [row + dRow, column + dColumn];
    const wrapped = toRow < 0 || toRow >= size || toColumn < 0 || toColumn >= size;
    const key = `${(toRow + size) % size},${(toColumn + size) % size}`;
    arrivals.set(key, [...(arrivals.get(key) ?? []), { action, from: action.space, wrapped }]);
  }
  return arrivals;
}

/** Every line of three occupied spaces (never diagonal, never across the edge) whose flavours are a cone in the hand. */
function linesMatchingHand(view) {
  const wanted = new Set(view.hand.map((cone) => [...cone.flavours].sort().join("|")));
  return boardLines(view.board).filter((line) => wanted.has(line.map(([r, c]) => view.board[r][c]).sort().join("|")));
}

function boardLines(board) {
  const size = board.length;
  const found = [];
  for (let fixed = 0; fixed < size; fixed += 1) {
    for (let start = 0; start + LINE <= size; start += 1) {
      const row = Array.from({ length: LINE }, (_, k) => [fixed, start + k]);
      const column = Array.from({ length: LINE }, (_, k) => [start + k, fixed]);
      for (const line of [row, column]) if (line.every(([r, c]) => board[r][c])) found.push(line);
    }
  }
  return found;
}

function spaceSet(spaces) {
  return new Set(spaces.map(([row, column]) => `${row},${column}`));
}

// --- cones: the hand, Fulfil and FREEZE! ---------------------------------------------------------

function handPanel(ctx, view) {
  const holder = perspective(ctx);
  if (holder === null) return null;
  const title = holder === ctx.seat ? "Your cones in hand" : `${seatLabel(ctx, holder)}: cones in hand`;
  const fulfil = new Map(actionsOfType(ctx, "fulfil").map((action) => [action.cone, action]));
  const freeze = new Set(actionsOfType(ctx, "freeze").map((action) => action.cone));
  const cones = view.hand.map((cone) => handCone(ctx, cone, fulfil.get(cone.id), freeze.has(cone.id)));
  return h(
    "section",
    { class: "ff-hand", "aria-label": title },
    h("h3", {}, title),
    cones.length ? h("ul", { class: "ff-cones" }, cones) : h("p", { class: "ff-quiet" }, "No cone in hand."),
    freeze.size === 0 && freezeNote(ctx, view),
  );
}

function handCone(ctx, cone, fulfil, claimable) {
  const names = cone.flavours.join(", ");
  return h(
    "li",
    { class: "ff-cone-card" },
    coneIcon(cone.flavours, 44),
    h("span", { class: "ff-cone-names" }, names),
    fulfil && actionButton(ctx, fulfil, "Fulfil", { class: "ff-main", "aria-label": `Fulfil the cone ${names}` }),
    claimable && h("strong", { class: "ff-freeze-call" }, "On an open line: call FREEZE!"),
  );
}

/** How FREEZE! works for this seat, under its hand. */
function freezeNote(ctx, view) {
  if (ctx.seat === null || ctx.seat === undefined || view.active === null || view.active === ctx.seat) return null;
  if (ctx.match.options?.auto_freeze) return h("p", { class: "ff-quiet" }, "FREEZE! is called for you in this match.");
  return h("p", { class: "ff-quiet" }, "FREEZE! (at the top) lights up when another player's slide lines up one of your cones.");
}

/** A cone with three scoops, drawn in SVG. */
function coneIcon(flavours, size) {
  const scoops = flavours.map((flavour, index) =>
    svg("circle", {
      cx: 12 + (index - 1) * 5,
      cy: index === 1 ? 8 : 12,
      r: 6,
      fill: FLAVOUR_COLOURS[flavour] ?? "#ccc",
      stroke: "#6b4a2b",
      "stroke-width": 0.6,
    }),
  );
  const body = svg("path", { d: "M5 15 L19 15 L12 30 Z", fill: "#e0a85c", stroke: "#9b6a2e", "stroke-width": 0.8 });
  return svg(
    "svg",
    { viewBox: "0 0 24 31", width: size * 0.78, height: size, "aria-hidden": "true", class: "ff-cone" },
    body,
    scoops[0],
    scoops[2],
    scoops[1],
  );
}

// --- every player: cones held and fulfilled ------------------------------------------------------

function seatsPanel(ctx, view) {
  const best = Math.max(...view.fulfilled.map((cones) => cones.length));
  const rows = view.hand_counts.map((held, seat) => seatRow(ctx, view, seat, held, best));
  return h(
    "section",
    { class: "ff-seats", "aria-label": "Players" },
    h("h3", {}, "Players"),
    h("ul", {}, rows),
    h("p", { class: "ff-quiet" }, `Pile: ${view.pile_count} cones face down; ${view.removed_count} removed unseen.`),
  );
}

function seatRow(ctx, view, seat, held, best) {
  const cones = view.fulfilled[seat];
  const classes = ["ff-seat", view.active === seat && "ff-active", view.active === null && cones.length === best && "ff-winner"];
  return h(
    "li",
    { class: classes.filter(Boolean).join(" ") },
    h(
      "div",
      { class: "ff-seat-head" },
      h("strong", {}, seatLabel(ctx, seat)),
      view.active === seat && h("span", { class: "ff-badge" }, "playing"),
      h("span", { class: "ff-score" }, `${cones.length} cone${cones.length === 1 ? "" : "s"} fulfilled`),
    ),
    h("div", { class: "ff-held", "aria-label": `${held} cones in hand` }, `${held} in hand`),
    cones.length > 0 &&
      h(
        "div",
        { class: "ff-fulfilled", "aria-label": "Fulfilled cones" },
        cones.map((cone) => h("span", { title: cone.flavours.join(", ") }, coneIcon(cone.flavours, 28))),
      ),
  );
}

const CSS = `
.ff { --ff-ink: #2a2230; --ff-line: #d9cbb8; --ff-steel: #cfd8e3; color: var(--ff-ink); font-size: 15px; }
.ff button { font: inherit; min-height: 44px; min-width: 44px; padding: 4px 12px; border-radius: 8px; border: 1px solid #8a7c6d;
  background: var(--bg, #fff); color: var(--ff-ink); cursor: pointer; }
.ff button:hover:not([disabled]) { background: var(--bg, #fff); filter: brightness(.93); }
.ff button:disabled { opacity: .55; cursor: default; }
.ff button:focus-visible { outline: 3px solid #2d6cdf; outline-offset: 2px; }
.ff .ff-main { --bg: #2d6cdf; border-color: #2d6cdf; color: #fff; }
.ff-status { display: flex; flex-wrap: wrap; align-items: center; gap: 10px 16px; margin-bottom: 12px; }
.ff-turn { display: flex; flex-direction: column; flex: 1 1 220px; }
.ff-turn span { font-size: 13px; opacity: .8; }
.ff-die { width: 44px; height: 44px; border-radius: 8px; background: #fff; border: 2px solid #444;
  display: grid; grid-template-columns: repeat(3, 1fr); padding: 5px; box-sizing: border-box; place-items: center; }
.ff-die > svg, .ff-die > .ff-die-blank { grid-column: 1 / -1; grid-row: 1 / -1; }
.ff-die-blank { font-weight: bold; opacity: .5; }
.ff-pip { width: 7px; height: 7px; border-radius: 50%; background: #222; }
.ff-pip-off { visibility: hidden; }
.ff-points { display: flex; align-items: center; gap: 4px; font-size: 13px; }
.ff-point { width: 12px; height: 12px; border-radius: 50%; background: #2d6cdf; }
.ff-controls { display: flex; flex-wrap: wrap; gap: 8px; }
.ff-table { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.ff-machine-wrap { flex: 1 1 320px; max-width: 460px; }
.ff-machine { display: grid; grid-template-columns: repeat(5, 1fr); gap: 4px; padding: 6px; border-radius: 12px;
  background: linear-gradient(#b9c6d6, #8fa1b8); border: 3px solid #6d7f96; }
.ff-space { position: relative; aspect-ratio: 1; border-radius: 8px; display: flex; flex-direction: column;
  align-items: center; justify-content: center; min-width: 0; }
.ff-empty { background: var(--ff-steel); box-shadow: inset 0 2px 4px rgba(0,0,0,.25); }
.ff-tile { background: var(--flavour); color: var(--ink); box-shadow: 0 2px 3px rgba(0,0,0,.35);
  border: 1px solid rgba(0,0,0,.25); }
.ff-scoop { width: 42%; aspect-ratio: 1; border-radius: 50%; background: rgba(255,255,255,.35);
  border: 2px solid rgba(0,0,0,.15); }
.ff-name { font-size: 11px; line-height: 1.1; margin-top: 2px; overflow-wrap: anywhere; text-align: center; }
.ff-fresh { outline: 3px solid #35c2f0; outline-offset: -1px; box-shadow: 0 0 10px 2px #35c2f0; }
.ff-yours { outline: 3px solid #e6a800; outline-offset: -1px; }
.ff-fresh.ff-yours { outline-color: #e6a800; box-shadow: 0 0 12px 5px #35c2f0; }
.ff button.ff-space { min-height: 0; min-width: 0; width: 100%; height: 100%; padding: 0; border-radius: 8px; cursor: pointer; }
.ff button.ff-empty { --bg: #e6edf6; border: 3px solid var(--flavour, #5b6f89); }
.ff button.ff-choose { border: 3px dashed #1d3f8a; }
.ff button.ff-choose[aria-pressed="true"], .ff-chosen { box-shadow: 0 0 0 3px #1d3f8a, inset 0 0 0 3px #fff; }
.ff button.ff-source { --bg: var(--flavour); color: var(--ink); border: 3px solid #111; box-shadow: 0 0 0 3px #ffd54a; }
.ff-arrow-mark { font-size: 22px; line-height: 1; color: #111; text-shadow: 0 0 3px #fff, 0 0 3px #fff; }
.ff-source .ff-arrow-mark { position: absolute; right: 3px; bottom: 2px; font-size: 18px; }
.ff-arrow-mark.ff-wrap { color: #1d3f8a; }
.ff-choose-marks { display: flex; flex-wrap: wrap; gap: 1px 4px; justify-content: center; font-size: 16px; }
.ff-choose-marks span { color: #111; text-shadow: 0 0 3px var(--flavour), 0 0 2px var(--flavour); }
.ff-legend { font-size: 12px; margin: 8px 0 0; padding-left: 18px; opacity: .85; }
.ff-side { flex: 1 1 260px; display: flex; flex-direction: column; gap: 12px; min-width: 0; }
.ff h3 { margin: 0 0 6px; font-size: 16px; }
.ff-hand, .ff-seats { background: #fff; border: 1px solid var(--ff-line); border-radius: 10px; padding: 10px; }
.ff-cones, .ff-seats ul { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 8px; }
.ff-cone-card { display: flex; align-items: center; gap: 10px; flex-wrap: wrap; }
.ff-cone-names { flex: 1 1 120px; }
.ff .ff-freeze { --bg: #d7263d; border-color: #8d0f1f; color: #fff; font-weight: 800; letter-spacing: .04em; }
.ff-freeze-call { color: #b0141f; font-size: 13px; }
.ff .ff-freeze-live { font-size: 18px; min-height: 44px; box-shadow: 0 0 0 3px #ffd1d6; animation: ff-pulse 1s ease-in-out 3; }
.ff .ff-freeze small { font-size: 12px; font-weight: normal; letter-spacing: 0; }
@keyframes ff-pulse { 50% { transform: scale(1.06); } }
@media (prefers-reduced-motion: reduce) { .ff .ff-freeze-live { animation: none; } }
.ff-quiet { font-size: 13px; opacity: .75; margin: 6px 0 0; }
.ff-seat { border-radius: 8px; padding: 6px 8px; border: 1px solid transparent; }
.ff-active { border-color: #2d6cdf; background: #eef3fd; }
.ff-winner { border-color: #e6a800; background: #fff6d6; }
.ff-seat-head { display: flex; align-items: center; gap: 8px; }
.ff-badge { font-size: 11px; background: #2d6cdf; color: #fff; border-radius: 6px; padding: 1px 6px; }
.ff-score { margin-left: auto; font-weight: bold; }
.ff-held { font-size: 13px; opacity: .8; }
.ff-fulfilled { display: flex; flex-wrap: wrap; gap: 2px; margin-top: 4px; }
@media (max-width: 480px) { .ff-name { font-size: 10px; } .ff-table { gap: 10px; } }
`;
