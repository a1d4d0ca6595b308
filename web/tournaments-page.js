// The tournaments page: the list (newest first) and a form for a new tournament between AI levels and bots.
import { api } from "./api.js";
import { mountWithCatalog } from "./catalog-page.js";
import { h, replace } from "./dom.js";
import { optionFields } from "./option-fields.js";
import { problemText } from "./problems.js";
import { tournamentHref } from "./router.js";
import { rememberTournament } from "./tournament-store.js";

/** Mount the tournaments page; returns stop(). */
export function mount(root) {
  const list = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  root.append(h("h1", {}, "Tournaments"),
    h("p", { class: "lead" }, "AI levels and registered bots play each other; the server plays the matches and rates the entrants."));
  return mountWithCatalog(root, (games) => {
    root.append(h("div", { class: "lobby" },
      h("div", { class: "lobby-main" }, tournamentForm(games)),
      h("div", { class: "lobby-side" }, h("section", { class: "card", "aria-labelledby": "tournament-list-title" },
        h("h2", { id: "tournament-list-title" }, "Latest tournaments"), list))));
    return async () => {
      try {
        const page = await api("/v1/tournaments?limit=20");
        const name = (id) => games.find((game) => game.id === id)?.name ?? id;
        replace(list, page.items.length ? h("ul", {}, page.items.map((item) => h("li", {},
          h("a", { href: tournamentHref(item.id) }, `${name(item.game)}, ${item.format}`),
          ` · ${item.status} · ${item.progress.done}/${item.progress.total} matches`))) : h("p", { class: "muted" }, "None yet."));
      } catch (error) {
        replace(list, h("p", { class: "error" }, problemText(error)));
      }
    };
  });
}

function tournamentForm(games) {
  const gameSelect = h("select", { id: "tournament-game" }, games.map((game) => h("option", { value: game.id }, game.name)));
  const players = h("input", { type: "number", id: "tournament-players", step: 1, inputmode: "numeric" });
  const format = h("select", { id: "tournament-format" }, h("option", { value: "round-robin" }, "round robin"), h("option", { value: "swiss" }, "Swiss"));
  const rounds = h("input", { type: "number", id: "tournament-rounds", min: 1, max: 50, placeholder: "default", inputmode: "numeric" });
  const perPairing = h("input", { type: "number", id: "tournament-games", min: 1, max: 100, placeholder: "default: one per seat", inputmode: "numeric" });
  const bots = h("input", { type: "text", id: "tournament-bots", placeholder: "bot ids, separated by commas" });
  const optionsBox = h("div");
  const entrantsBox = h("fieldset", { class: "entrants" });
  const status = h("p", { class: "form-status", role: "status", "aria-live": "polite" });
  const submit = h("button", { type: "submit", class: "primary" }, "Start the tournament");
  let options = null;
  let counts = [];
  const game = () => games.find((entry) => entry.id === gameSelect.value);
  const build = () => {
    const entry = game();
    players.min = entry.min_players;
    players.max = entry.max_players;
    players.value = Math.max(2, entry.min_players);
    options = optionFields(entry.options, `tournament-option-${entry.id}`);
    replace(optionsBox, options.element);
    counts = entry.ai_levels.map((level, index) => [level, h("input", {
      type: "number", id: `entrant-${level}`, min: 0, max: 16, step: 1, value: index < 3 ? 1 : 0, inputmode: "numeric",
    })]);
    replace(entrantsBox, h("legend", {}, "Entrants"),
      counts.map(([level, input]) => h("div", { class: "field" }, h("label", { for: input.id }, `AI, ${level}`), input)),
      h("div", { class: "field" }, h("label", { for: "tournament-bots" }, "Bots"), bots));
  };
  gameSelect.addEventListener("change", build);
  const form = h("form", { class: "card", "aria-labelledby": "tournament-form-title" },
    h("h2", { id: "tournament-form-title" }, "New tournament"),
    h("div", { class: "field" }, h("label", { for: "tournament-game" }, "Game"), gameSelect),
    h("div", { class: "field" }, h("label", { for: "tournament-players" }, "Players per match"), players),
    optionsBox, entrantsBox,
    h("div", { class: "field" }, h("label", { for: "tournament-format" }, "Format"), format),
    h("div", { class: "field" }, h("label", { for: "tournament-rounds" }, "Swiss rounds"), rounds),
    h("div", { class: "field" }, h("label", { for: "tournament-games" }, "Games per pairing"), perPairing),
    h("div", { class: "form-actions" }, submit), status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const entrants = counts.flatMap(([level, input]) => Array.from({ length: Number(input.value) || 0 }, () => ({ type: "ai", level })));
    for (const bot of bots.value.split(",").map((text) => text.trim()).filter(Boolean)) entrants.push({ type: "bot", bot });
    const body = { game: gameSelect.value, players: Number(players.value), options: options.values(), entrants, format: format.value };
    if (format.value === "swiss" && rounds.value) body.rounds = Number(rounds.value);
    if (perPairing.value) body.games_per_pairing = Number(perPairing.value);
    submit.disabled = true;
    status.textContent = "Starting…";
    try {
      const created = await api("/v1/tournaments", { method: "POST", body });
      rememberTournament(created.id, created.owner_token);
      location.hash = tournamentHref(created.id);
    } catch (error) {
      status.textContent = problemText(error);
      status.classList.add("error");
      submit.disabled = false;
    }
  });
  build();
  return form;
}
