// Form fields built from a game's options as the catalog describes them (OptionSpec: int, bool, choice).
import { h } from "./dom.js";

/** A label for an option name: "turn_limit" -> "Turn limit". */
export function optionLabel(name) {
  const words = name.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Inputs for every option of a game; returns {element, values()} where values() reads them as the API takes them. */
export function optionFields(options, idPrefix) {
  const readers = [];
  const rows = options.map((option) => {
    const id = `${idPrefix}-${option.name}`;
    const hint = `${id}-hint`;
    let input;
    if (option.type === "bool") {
      input = h("input", { type: "checkbox", id, checked: option.default === true, "aria-describedby": hint });
      readers.push([option.name, () => input.checked]);
      return h("div", { class: "field checkbox" }, input, h("label", { for: id }, optionLabel(option.name)),
        h("small", { id: hint }, option.description));
    }
    if (option.type === "choice") {
      input = h("select", { id, "aria-describedby": hint },
        option.choices.map((choice) => h("option", { value: choice, selected: choice === option.default }, choice)));
      readers.push([option.name, () => input.value]);
    } else {
      input = h("input", {
        type: "number", id, value: option.default, min: option.minimum, max: option.maximum, step: 1,
        required: true, inputmode: "numeric", "aria-describedby": hint,
      });
      readers.push([option.name, () => Number(input.value)]);
    }
    return h("div", { class: "field" }, h("label", { for: id }, optionLabel(option.name)), input,
      h("small", { id: hint }, option.description, option.type === "int" ? rangeText(option) : ""));
  });
  const element = h("fieldset", { class: "options" }, h("legend", {}, "Options"),
    rows.length ? rows : h("p", { class: "muted" }, "This game has no options."));
  return { element, values: () => Object.fromEntries(readers.map(([name, read]) => [name, read()])) };
}

function rangeText(option) {
  const { minimum: low, maximum: high } = option;
  if (low !== undefined && high !== undefined) return ` (${low} to ${high})`;
  if (low !== undefined) return ` (at least ${low})`;
  if (high !== undefined) return ` (at most ${high})`;
  return "";
}
