// The seats of a new match: each one you, an AI level, open for someone to join, or a registered bot.
import { h } from "./dom.js";

/** Rows of seat choices for `players` seats of a game; returns {element, seats()} giving the API's `seats` list. */
export function seatFields(game, players, previous = []) {
  const rows = [];
  for (let seat = 0; seat < players; seat += 1) rows.push(seatRow(game, seat, previous[seat]));
  const element = h("fieldset", { class: "seats" }, h("legend", {}, "Seats"), rows.map((row) => row.element));
  return { element, seats: () => rows.map((row) => row.spec()), choices: () => rows.map((row) => row.choice()) };
}

function seatRow(game, seat, previous) {
  const id = `seat-${seat}`;
  const kinds = [
    ["human", "You"],
    ...game.ai_levels.map((level) => [`ai:${level}`, `AI, ${level}`]),
    ["open", "Open for someone to join"],
    ["bot", "A registered bot"],
  ];
  const fallback = seat === 0 ? "human" : `ai:${game.ai_levels.includes("easy") ? "easy" : game.ai_levels[0]}`;
  const chosen = kinds.some(([value]) => value === previous?.kind) ? previous.kind : fallback;
  const kind = h("select", { id, name: id }, kinds.map(([value, text]) => h("option", { value, selected: value === chosen }, text)));
  const name = h("input", { type: "text", id: `${id}-name`, maxlength: 64, placeholder: "optional", value: previous?.name ?? "" });
  const bot = h("input", { type: "text", id: `${id}-bot`, maxlength: 64, placeholder: "bot id", value: previous?.bot ?? "" });
  const nameField = h("span", { class: "inline" }, h("label", { for: `${id}-name` }, "Name"), name);
  const botField = h("span", { class: "inline" }, h("label", { for: `${id}-bot` }, "Bot id"), bot);
  const sync = () => {
    nameField.hidden = !["human", "open"].includes(kind.value);
    botField.hidden = kind.value !== "bot";
    bot.required = kind.value === "bot";
  };
  kind.addEventListener("change", sync);
  sync();
  const element = h("div", { class: "field seat-row" }, h("label", { for: id }, `Player ${seat + 1}`), kind, nameField, botField);
  const choice = () => ({ kind: kind.value, name: name.value, bot: bot.value });
  const spec = () => {
    if (kind.value.startsWith("ai:")) return { type: "ai", level: kind.value.slice(3) };
    if (kind.value === "bot") return { type: "bot", bot: bot.value.trim() };
    const given = name.value.trim();
    return given ? { type: kind.value, name: given } : { type: kind.value };
  };
  return { element, spec, choice };
}
