// Sundae Split's ingredient cards as the picture shows them: a scoop, a vegetable or a topping, face up or down.
import { h } from "../../dom.js";

/** A card in words: "vanilla scoop (2)", "broccoli (−3)", "banana". */
export function cardName(card) {
  if (card.kind === "scoop") return `${card.name} scoop (${card.points})`;
  if (card.kind === "vegetable") return `${card.name} (−${card.points})`;
  return card.name;
}

/** A face-up card (`faceDown` marks one only its Splitter sees; `mini` for sundaes); a button when `onclick` is given. */
export function cardFace(card, { faceDown = false, mini = false, onclick = null, pressed = null, label = null, disabled = false, data = {} } = {}) {
  const classes = `ss-card ${card.kind} ${card.name.replaceAll(" ", "-")}${faceDown ? " secret" : ""}${mini ? " mini" : ""}`;
  const body = [
    h("span", { class: "ss-card-name" }, card.name),
    card.kind === "scoop" ? h("span", { class: "ss-card-points" }, `+${card.points}`) : null,
    card.kind === "vegetable" ? h("span", { class: "ss-card-points" }, `−${card.points}`) : null,
    card.kind === "topping" ? h("span", { class: "ss-card-points" }, "topping") : null,
    faceDown && !mini ? h("span", { class: "ss-card-flag" }, "face down") : null,
    card.three_plus && !mini ? h("span", { class: "ss-card-three", title: "3+ card: left out of 2-player games" }, "3+") : null,
  ];
  const name = label ?? `${cardName(card)}${faceDown ? ", face down (only you see it)" : ""}`;
  if (onclick) {
    return h("button", { type: "button", class: classes, onclick, disabled, "aria-pressed": pressed === null ? null : String(pressed),
      "aria-label": name, dataset: data }, body);
  }
  return h("span", { class: classes, role: "img", "aria-label": name }, h("span", { "aria-hidden": "true", class: "ss-card-inner" }, body));
}

/** A face-down card whose face this viewer may not see. */
export function cardBack() {
  return h("span", { class: "ss-card back", role: "img", "aria-label": "a face-down card" }, h("span", { "aria-hidden": "true" }, "?"));
}
