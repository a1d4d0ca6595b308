// The picture of a game without a renderer of its own: the view as data and a button per legal action.
import { h } from "./dom.js";
import { actionWords } from "./games/parts.js";

/** Draw the view as JSON and one button per enumerated action (the example for a constructed one). */
export function render(root, ctx) {
  const { match, legal, busy, act } = ctx;
  root.append(h("pre", { class: "json view-json" }, JSON.stringify(match.view, null, 2)));
  if (!legal?.may_act) return;
  const actions = legal.kind === "constructed" ? [legal.example] : legal.actions;
  root.append(
    h(
      "div",
      { class: "actions" },
      actions.map((action) =>
        h(
          "button",
          { type: "button", disabled: busy, "data-action": JSON.stringify(action), onclick: () => act(action) },
          legal.kind === "constructed" ? `Send the example: ${actionWords(action)}` : actionWords(action),
        ),
      ),
    ),
  );
}
