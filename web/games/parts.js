// Small pieces shared by the Freeze Factory, Rock'em Sock'em and Robots Love Ice Cream pictures:
// buttons that send a legal action (marked with data-action for tests), toggles for the pickers that
// build an action, seat names, a style sheet per renderer, and SVG elements (h() builds HTML only).

import { h, append } from "../dom.js";
import { namedText, playerName } from "../seat-names.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** The canonical text of an action: JSON with its keys sorted, so two spellings of one action compare equal. */
export function actionKey(action) {
  return JSON.stringify(sortKeys(action));
}

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys(value[key])]));
}

/** The seat's legal actions as listed by legal-actions (empty when it may not act). */
export function legalActions(ctx) {
  const legal = ctx.legal;
  if (!legal || !legal.may_act || legal.kind !== "enumerated") return [];
  return legal.actions ?? [];
}

/** The legal actions of one `type`. */
export function actionsOfType(ctx, type) {
  return legalActions(ctx).filter((action) => action.type === type);
}

/** The legal action equal to `action` (the server's own object), or null when it is not legal now. */
export function findLegal(ctx, action) {
  const key = actionKey(action);
  return legalActions(ctx).find((candidate) => actionKey(candidate) === key) ?? null;
}

/** Send an action through the shell; a refusal is the shell's to show, so it is only logged here. */
export function send(ctx, action) {
  Promise.resolve(ctx.act(action)).catch((error) => console.warn("action refused", action, error));
}

/** A real button that sends `action` when clicked: marked with data-action, disabled while an action is in flight. */
export function actionButton(ctx, action, label, attrs = {}) {
  return h(
    "button",
    {
      type: "button",
      "data-focus-key": JSON.stringify(action),
      ...attrs,
      disabled: ctx.busy || attrs.disabled,
      "data-action": JSON.stringify(action),
      onclick: () => send(ctx, action),
    },
    label,
  );
}

/** A button for an action built with a picker: sends the legal action it matches, disabled (no data-action) when none does. */
export function builtActionButton(ctx, action, label, attrs = {}) {
  const legal = findLegal(ctx, action);
  if (legal) return actionButton(ctx, legal, label, attrs);
  return h("button", { type: "button", ...attrs, disabled: true }, label);
}

/** A toggle button (aria-pressed) for a picker; `onToggle` gets the new state. */
export function toggleButton(pressed, label, onToggle, attrs = {}) {
  return h(
    "button",
    { type: "button", ...attrs, "aria-pressed": pressed ? "true" : "false", onclick: () => onToggle(!pressed) },
    label,
  );
}

/** Why the match ended (its result's reason, or its abort's), once it has; null while it runs. A renderer whose view
 *  still shows the game going on (a resignation, a team that gave up) says with it that the match is over. */
export function endedEarly(match) {
  if (match?.status !== "finished" && match?.status !== "aborted") return null;
  return namedText(match, match.result?.reason ?? match.abort_reason ?? "the match was aborted");
}

/** A text from the server (an event, a result's reason) with its seats named as the picture names them. */
export function seatText(ctx, text) {
  return namedText(ctx.match, text, ctx.seat ?? null);
}

/** The seat whose view is drawn: the viewer's own, or the seat a replay shows the match as (null: the public). */
export function perspective(ctx) {
  return ctx.seat ?? ctx.match?.viewer ?? null;
}

/** A seat's name in the picture: "You", else as the shell names seats ("Ada", "Easy AI", "Player 2"). */
export function seatLabel(ctx, seat) {
  if (ctx.seat === seat) return "You";
  return playerName(ctx.match, seat);
}

/** An action in words when a renderer has no wording of its own: "share social randomly (pile 2)", never JSON. */
export function actionWords(action) {
  if (action === null || typeof action !== "object") return words(action ?? "");
  const { type, ...rest } = action;
  const details = Object.entries(rest).map(([key, value]) => `${words(key)} ${valueWords(value)}`);
  return `${words(type ?? "action")}${details.length ? ` (${details.join(", ")})` : ""}`;
}

function valueWords(value) {
  if (Array.isArray(value)) return value.length ? value.map(valueWords).join(" and ") : "none";
  if (value === null || value === undefined) return "none";
  if (typeof value === "object") return Object.entries(value).map(([key, inner]) => `${words(key)} ${valueWords(inner)}`).join(", ");
  if (typeof value === "boolean") return value ? "yes" : "no";
  return words(value);
}

const adoptedSheets = new Set();

/**
 * Apply one renderer's CSS to the page, once (its classes carry the renderer's prefix); an empty fragment
 * to append where it is called. A constructed sheet, not a <style> element: the page's policy refuses inline style.
 */
export function styleSheet(css) {
  if (!adoptedSheets.has(css)) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    adoptedSheets.add(css);
  }
  return document.createDocumentFragment();
}

/** An SVG element with attributes and children. */
export function svg(tag, attrs = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null && value !== false) element.setAttribute(name, String(value));
  }
  return append(element, children);
}

/** Words for an id: "single_serve" becomes "single serve". */
export function words(id) {
  return String(id).replaceAll("_", " ");
}

/** Draw the picture again after a picker changed, keeping keyboard focus on the control that has `focusKey`. */
export function redraw(root, ctx, render, focusKey) {
  root.replaceChildren();
  render(root, ctx);
  if (focusKey) root.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`)?.focus({ preventScroll: true });
}

/** Memory for a picker's choice that outlives re-renders and resets when its situation (`key`) changes. */
export function pickerMemory() {
  let remembered = { key: null, value: null };
  return {
    /** The choice remembered for `key`, or `initial()` when the situation changed. */
    get(key, initial) {
      if (remembered.key !== key) remembered = { key, value: initial() };
      return remembered.value;
    },
    /** Remember a new choice for `key`. */
    set(key, value) {
      remembered = { key, value };
    },
  };
}
