// The lobby's form for a new match, built from the chosen game's catalog entry.
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { optionFields } from "./option-fields.js";
import { matchHref } from "./router.js";
import { seatFields } from "./seat-fields.js";
import { rememberMatch } from "./seats.js";
import { problemText } from "./problems.js";

/** The spectator pace offered when every seat is an AI seat, so a match between them can be watched move by move. */
export const DEFAULT_PACE = { milliseconds: 800, when: "watched" };
const PACE_MIN_MS = 100;
const PACE_MAX_MS = 10000;

/** The create-match form for the catalog's games; `selected` is the game id shown first. */
export function createForm(games, selected) {
  const gameSelect = h("select", { id: "create-game" }, games.map((game) => h("option", { value: game.id }, game.name)));
  const players = h("input", { type: "number", id: "create-players", step: 1, inputmode: "numeric", required: true });
  const timer = h("input", { type: "number", id: "create-timer", min: 1, max: 86400, step: 1, placeholder: "none", inputmode: "numeric" });
  const unlisted = h("input", { type: "checkbox", id: "create-unlisted" });
  const assistance = h("select", { id: "create-assistance", "aria-describedby": "create-assistance-hint" },
    h("option", { value: "" }, "The fair-play default for these seats"),
    h("option", { value: "allowed" }, "Allowed"),
    h("option", { value: "forbidden" }, "Forbidden"));
  const assistanceHint = h("small", { id: "create-assistance-hint" });
  const pace = h("select", { id: "create-pace", "aria-describedby": "create-pace-hint" },
    h("option", { value: "" }, "None: as fast as the AI plays"),
    h("option", { value: "watched" }, "While someone watches"),
    h("option", { value: "always" }, "Always"));
  const paceMs = h("input", { type: "number", id: "create-pace-ms", min: PACE_MIN_MS, max: PACE_MAX_MS, step: 100, value: DEFAULT_PACE.milliseconds,
    inputmode: "numeric", "aria-label": "Milliseconds at least between AI moves" });
  const paceHint = h("small", { id: "create-pace-hint" });
  const optionsBox = h("div");
  const seatsBox = h("div");
  const status = h("p", { class: "form-status", role: "status", "aria-live": "polite" });
  const submit = h("button", { type: "submit", class: "primary" }, "Create the match");
  let options = null;
  let seats = null;

  const game = () => games.find((entry) => entry.id === gameSelect.value);
  const buildSeats = () => {
    const count = Math.min(Math.max(Number(players.value) || game().min_players, game().min_players), game().max_players);
    seats = seatFields(game(), count, seats?.choices() ?? []);
    replace(seatsBox, seats.element);
    seatsBox.querySelectorAll("select").forEach((select) => select.addEventListener("change", syncFairPlay));
    syncFairPlay();
  };
  let paceTouched = false;
  /** The fair-play default and the spectator pace follow the seats: all AI seats are watched at a pace. */
  const syncFairPlay = () => {
    const specs = seats?.seats() ?? [];
    const allAi = specs.length > 0 && specs.every((spec) => spec.type === "ai");
    const people = specs.filter((spec) => spec.type !== "ai").length;
    assistanceHint.textContent = people >= 2
      ? "Hints and analysis for the seats while the match runs: forbidden by default with two or more players (fair play)."
      : "Hints and analysis for the seats while the match runs: allowed by default against the AI (such a match is never rated).";
    if (!paceTouched) {
      pace.value = allAi ? DEFAULT_PACE.when : "";
      paceMs.value = String(DEFAULT_PACE.milliseconds);
    }
    paceMs.disabled = pace.value === "";
    paceHint.textContent = allAi
      ? "Every seat is an AI seat: a pace lets you watch the match move by move instead of finding it over."
      : "A minimum time between AI moves.";
  };
  pace.addEventListener("change", () => { paceTouched = true; syncFairPlay(); });
  const buildGame = () => {
    const entry = game();
    players.min = entry.min_players;
    players.max = entry.max_players;
    players.value = entry.cooperative ? entry.max_players : entry.min_players; // a co-operative game: a full table
    players.disabled = entry.min_players === entry.max_players;
    options = optionFields(entry.options, `option-${entry.id}`);
    replace(optionsBox, options.element);
    seats = null;
    buildSeats();
  };
  gameSelect.addEventListener("change", buildGame);
  players.addEventListener("input", buildSeats);

  const form = h("form", { class: "create card", id: "create-form", "aria-labelledby": "create-title" },
    h("h2", { id: "create-title" }, "New match"),
    h("div", { class: "field" }, h("label", { for: "create-game" }, "Game"), gameSelect),
    h("div", { class: "field" }, h("label", { for: "create-players" }, "Players"), players),
    optionsBox,
    seatsBox,
    h("div", { class: "field" }, h("label", { for: "create-timer" }, "Turn timer (seconds)"), timer,
      h("small", {}, "Each seat's time to act; when it runs out the game's default action is played for it.")),
    h("div", { class: "field" }, h("label", { for: "create-assistance" }, "Hints and analysis"), assistance, assistanceHint),
    h("div", { class: "field" }, h("label", { for: "create-pace" }, "Spectator pace"), pace,
      h("span", { class: "inline" }, paceMs, h("span", { "aria-hidden": "true" }, "ms per AI move")), paceHint),
    h("div", { class: "field check" }, unlisted, h("label", { for: "create-unlisted" }, "Unlisted"),
      h("small", {}, "Left out of the lobby: only people with the match's link (its invite link) find it.")),
    h("div", { class: "form-actions" }, submit),
    status);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { game: gameSelect.value, players: Number(players.value), options: options.values(), seats: seats.seats() };
    if (timer.value) body.turn_timer = { seconds: Number(timer.value) };
    if (unlisted.checked) body.unlisted = true;
    if (assistance.value) body.assistance = assistance.value;
    if (pace.value) body.ai_pace = { milliseconds: Number(paceMs.value) || DEFAULT_PACE.milliseconds, when: pace.value };
    submit.disabled = true;
    status.textContent = "Creating…";
    try {
      const created = await api("/v1/matches", { method: "POST", body });
      rememberMatch(created.id, {
        game: created.game, tokens: created.tokens, owner: created.owner_token, commitment: created.seed_commitment,
      });
      location.hash = matchHref(created.id);
    } catch (error) {
      status.textContent = problemText(error);
      status.classList.add("error");
      submit.disabled = false;
    }
  });

  /** Show a game in the form (the catalog's "Set up a match" buttons). */
  form.choose = (id) => {
    gameSelect.value = id;
    buildGame();
    gameSelect.focus();
  };
  if (selected && games.some((entry) => entry.id === selected)) gameSelect.value = selected;
  buildGame();
  return form;
}
