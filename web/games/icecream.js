// IceCream's picture: two cones of scoops (bottom to top), the movement points left this turn, and moves
// made by clicking a scoop: it moves with every scoop above it onto the other cone, keeping their order.
import { h } from "../dom.js";
import { seatName } from "../seat-names.js";
import { endedEarly } from "./parts.js";

const FLAVOUR_INK = { yellow: "#f2c230", green: "#5fae4e", red: "#d9443a" };

/** Draw both cones, whose move it is, the points left, and a button on every scoop that may move now. */
export function render(root, ctx) {
  const { match, legal, seat, busy, act } = ctx;
  const view = match.view;
  const moves = movesAllowed(legal);
  root.append(
    h("div", { class: "icecream" },
      turnBar(view, match, seat),
      h("div", { class: "ic-cones" }, view.cones.map((scoops, cone) => coneColumn(view, cone, scoops, moves, busy, act))),
      legend(view, match, seat),
      legal ? h("p", { class: "ic-help muted small" },
        "Click a scoop to move it, with every scoop above it, onto the other cone. ",
        "Moving n scoops costs n points; the bottom scoop of each cone never moves.") : null));
}

/** An IceCream action in words: "moved the top 2 scoops from cone 1 to cone 2" ("Move ..." for a hint). */
export function describe(action, ctx) {
  const what = action.scoops === 1 ? "the top scoop" : `the top ${action.scoops} scoops`;
  return `${ctx?.suggest ? "Move" : "moved"} ${what} from cone ${action.from_cone + 1} to cone ${2 - action.from_cone}`;
}

function movesAllowed(legal) {
  const allowed = new Set();
  for (const action of legal?.actions ?? []) if (action.type === "move") allowed.add(`${action.from_cone}:${action.scoops}`);
  return allowed;
}

function turnBar(view, match, seat) {
  if (view.to_move === null) return h("p", { class: "ic-turn" }, `Turn ${view.turn}: the game is over.`);
  const early = endedEarly(match);
  if (early) return h("p", { class: "ic-turn" }, `Turn ${view.turn}: the match is over (${early}).`);
  const who = view.to_move === seat ? "Your move" : `${seatName(match, view.to_move)} to move`;
  const spent = view.points_this_turn - view.points_left;
  return h("div", { class: "ic-turn" },
    h("span", {}, `Turn ${view.turn} · ${who} (${view.flavours[view.to_move]})`),
    h("span", { class: "ic-points", role: "img", "aria-label": `${view.points_left} of ${view.points_this_turn} movement points left` },
      Array.from({ length: view.points_this_turn }, (_, i) => h("span", { class: `ic-pip${i < spent ? " spent" : ""}` })),
      h("span", { class: "ic-points-text", "aria-hidden": "true" }, ` ${view.points_left} of ${view.points_this_turn} points left`)));
}

function coneColumn(view, cone, scoops, moves, busy, act) {
  const other = 1 - cone;
  const stack = scoops.map((flavour, index) => {
    const count = scoops.length - index;
    const fixed = index < view.fixed_bottom_scoops;
    const colour = { style: `--scoop:${FLAVOUR_INK[flavour] ?? "#999"}` };
    if (moves.has(`${cone}:${count}`)) {
      const action = { type: "move", from_cone: cone, scoops: count };
      const moving = scoops.slice(index).reverse().join(", ");
      return h("button", {
        type: "button", class: `ic-scoop movable ${flavour}`, ...colour, disabled: busy,
        "data-action": JSON.stringify(action),
        "aria-label": `Move ${count === 1 ? "the top scoop" : `the top ${count} scoops`} (${moving}) from cone ${cone + 1} to cone ${other + 1}`,
        onclick: () => act(action),
      }, h("span", { class: "ic-name" }, flavour), h("span", { class: "ic-count", "aria-hidden": "true" }, `×${count}`));
    }
    return h("div", { class: `ic-scoop ${flavour}${fixed ? " fixed" : ""}`, ...colour, role: "img",
      "aria-label": `${flavour} scoop${fixed ? ", fixed at the bottom" : ""}` },
    h("span", { class: "ic-name", "aria-hidden": "true" }, fixed ? `${flavour} · fixed` : flavour));
  });
  return h("figure", { class: "ic-cone", "aria-label": `Cone ${cone + 1}, ${scoops.length} scoops, bottom to top: ${scoops.join(", ")}` },
    h("div", { class: "ic-stack" }, stack),
    h("div", { class: "ic-wafer", "aria-hidden": "true" }),
    h("figcaption", {}, `Cone ${cone + 1}`));
}

function legend(view, match, seat) {
  return h("p", { class: "ic-legend" },
    view.flavours.map((flavour, s) => h("span", { class: "ic-key" },
      h("span", { class: "ic-dot", style: `--scoop:${FLAVOUR_INK[flavour]}`, "aria-hidden": "true" }),
      `${seatName(match, s, seat)} plays ${flavour}`)),
    h("span", { class: "ic-key" }, h("span", { class: "ic-dot", style: `--scoop:${FLAVOUR_INK.red}`, "aria-hidden": "true" }),
      "red belongs to no one"),
    h("span", { class: "muted small" }, "Stack all four of your flavour in a row in one cone to win."));
}
