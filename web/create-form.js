// The lobby's form for a new match, built from the chosen game's catalog entry.
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { optionFields } from "./option-fields.js";
import { matchHref } from "./router.js";
import { seatFields } from "./seat-fields.js";
import { rememberMatch } from "./seats.js";
import { problemText } from "./problems.js";

/** The create-match form for the catalog's games; `selected` is the game id shown first. */
export function createForm(games, selected) {
  const gameSelect = h("select", { id: "create-game" }, games.map((game) => h("option", { value: game.id }, game.name)));
  const players = h("input", { type: "number", id: "create-players", step: 1, inputmode: "numeric", required: true });
  const timer = h("input", { type: "number", id: "create-timer", min: 1, max: 86400, step: 1, placeholder: "none", inputmode: "numeric" });
  const unlisted = h("input", { type: "checkbox", id: "create-unlisted" });
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
  };
  const buildGame = () => {
    const entry = game();
    players.min = entry.min_players;
    players.max = entry.max_players;
    players.value = entry.min_players;
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
    h("div", { class: "field check" }, unlisted, h("label", { for: "create-unlisted" }, "Unlisted"),
      h("small", {}, "Left out of the lobby: only people with the match's link (its invite link) find it.")),
    h("div", { class: "form-actions" }, submit),
    status);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { game: gameSelect.value, players: Number(players.value), options: options.values(), seats: seats.seats() };
    if (timer.value) body.turn_timer = { seconds: Number(timer.value) };
    if (unlisted.checked) body.unlisted = true;
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
