// The lobby page: Quick match, the create form, your matches, the lists, and the catalog with each game's assumptions.
import { mountWithCatalog } from "./catalog-page.js";
import { api } from "./api.js";
import { createForm, DEFAULT_PACE } from "./create-form.js";
import { h, replace } from "./dom.js";
import { matchList } from "./match-lists.js";
import { problemText } from "./problems.js";
import { quickMatch } from "./quick-match.js";
import { matchHref, replayHref } from "./router.js";
import { forgetMatch, rememberedMatches } from "./seats.js";

/** Mount the lobby; returns the function that stops its refreshes (and a Quick match's waiting). */
export function mount(root, route) {
  root.append(h("h1", {}, "Parlour"), h("p", { class: "lead" }, "Tabletop games against the built-in AI, friends or bots."));
  const left = new AbortController();
  const stop = mountWithCatalog(root, (games) => {
    const form = createForm(games, route.query.game);
    const lists = ["waiting", "active", "finished"].map((status) => matchList(status, games));
    root.append(
      h("div", { class: "lobby" },
        h("div", { class: "lobby-main" }, quickMatch(games, left.signal), form, yourMatches(games)),
        h("div", { class: "lobby-side" }, lists.map((list) => list.element))),
      h("section", { class: "catalog", "aria-labelledby": "catalog-title" },
        h("h2", { id: "catalog-title" }, "The games"),
        h("div", { class: "game-cards" }, games.map((game) => gameCard(game, form)))));
    return () => lists.forEach((list) => list.refresh());
  });
  return () => {
    left.abort();
    stop();
  };
}

function gameCard(game, form) {
  const facts = [
    game.min_players === game.max_players ? `${game.min_players} players` : `${game.min_players}-${game.max_players} players`,
    game.information === "perfect" ? "nothing hidden" : "hidden information",
    game.chance ? "chance" : "no chance",
    game.cooperative ? "co-operative" : null,
    game.simultaneous ? "simultaneous" : null,
  ].filter(Boolean);
  return h("article", { class: "card game-card", "data-game": game.id },
    h("h3", {}, game.name),
    h("p", {}, game.summary),
    h("p", { class: "muted" }, facts.join(" · ")),
    h("details", {},
      h("summary", {}, `Assumptions (${game.assumptions.length})`),
      h("p", { class: "muted" }, "Where the rulebook is silent or unclear, this server chose:"),
      h("dl", { class: "assumptions" }, game.assumptions.map((a) => [
        h("dt", {}, a.choice), h("dd", {}, a.reason)]))),
    h("div", { class: "card-buttons" },
      h("button", { type: "button", onclick: () => { form.choose(game.id); form.scrollIntoView({ block: "start" }); } },
        `Set up ${game.name}`),
      watchButton(game)));
}

/** "Watch the AI play": a match between easy AI seats at the spectator pace, watched from its public page. */
function watchButton(game) {
  const level = game.ai_levels.includes("easy") ? "easy" : game.ai_levels[0];
  const players = game.cooperative ? game.max_players : Math.max(game.min_players, 2);
  const status = h("span", { class: "error", role: "status" });
  const button = h("button", { type: "button", class: "watch-ai", onclick: async () => {
    button.disabled = true;
    try {
      const created = await api("/v1/matches", { method: "POST", body: {
        game: game.id, players, seats: Array.from({ length: players }, () => ({ type: "ai", level })), ai_pace: DEFAULT_PACE,
      } });
      location.hash = matchHref(created.id, "public");
    } catch (error) {
      status.textContent = problemText(error);
      button.disabled = false;
    }
  } }, "Watch the AI play");
  return [button, status];
}

function yourMatches(games) {
  const section = h("section", { class: "card", "aria-labelledby": "yours-title" }, h("h2", { id: "yours-title" }, "Your matches"));
  const list = h("ul", {});
  const fill = () => {
    const entries = rememberedMatches().slice(0, 12);
    replace(list, entries.map(([id, entry]) => {
      const name = games.find((game) => game.id === entry.game)?.name ?? entry.game;
      const seats = Object.keys(entry.seats);
      const item = h("li", {},
        h("a", { href: matchHref(id) }, `${name} · ${seats.length ? `playing ${seats.length === 1 ? "one seat" : `${seats.length} seats`}` : "watching"}`),
        " ", h("a", { href: replayHref(id), class: "muted" }, "replay"), " ",
        h("button", { type: "button", class: "link", "aria-label": `Forget match ${id} and its tokens`,
          onclick: () => { forgetMatch(id); fill(); } }, "forget"));
      return item;
    }));
    if (!entries.length) replace(list, h("li", { class: "muted" }, "None yet: create one, or join an open match."));
  };
  fill();
  section.append(list, h("p", { class: "muted small" }, "Seat tokens are kept in this browser, so a reload resumes your seat."));
  return section;
}
