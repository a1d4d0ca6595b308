// The leaderboard page: one competitive game's ladder (GET /v1/games/{id}/leaderboard), bots among the fixed AI levels.
import { api } from "./api.js";
import { catalog } from "./catalog.js";
import { h, replace } from "./dom.js";
import { problemText } from "./problems.js";
import { botHref, leaderboardHref } from "./router.js";

const PAGE = 50;

/** Mount the leaderboard of `route.query.game` (the first competitive game if none); returns stop(). */
export function mount(root, route) {
  let stopped = false;
  const body = h("div", { class: "leaderboard-page" }, h("p", { class: "muted" }, "Loading…"));
  root.append(h("h1", {}, "Leaderboard"),
    h("p", { class: "lead" }, "Every finished match between bots and AI levels moves the bots' ratings; the AI levels stay put and anchor the scale."),
    body);
  catalog().then((games) => {
    if (stopped) return;
    const ranked = games.filter((game) => !game.cooperative);
    const chosen = ranked.find((game) => game.id === route.query.game) ?? ranked[0];
    const select = h("select", { id: "leaderboard-game" },
      ranked.map((game) => h("option", { value: game.id, selected: game.id === chosen.id }, game.name)));
    select.addEventListener("change", () => { location.hash = leaderboardHref(select.value); });
    const rows = h("tbody");
    const more = h("button", { type: "button", hidden: true }, "More");
    const status = h("p", { class: "muted", role: "status" }, "Loading…");
    replace(body,
      h("div", { class: "field" }, h("label", { for: "leaderboard-game" }, "Game"), select),
      h("div", { class: "table-scroll" }, h("table", { class: "standings leaderboard", dataset: { game: chosen.id } },
        h("thead", {}, h("tr", {}, ["#", "Entrant", "Kind", "Rating", "μ", "σ", "Games"].map((title) => h("th", { scope: "col" }, title)))),
        rows)),
      status, more);
    let cursor = null;
    const load = async () => {
      more.disabled = true;
      try {
        const page = await api(`/v1/games/${encodeURIComponent(chosen.id)}/leaderboard?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ""}`);
        if (stopped) return;
        rows.append(...page.items.map(row));
        cursor = page.next_cursor;
        more.hidden = cursor === null;
        status.textContent = rows.children.length ? "" : "No rated match yet: the ladder starts with the first match between bots or a bot and an AI level.";
      } catch (error) {
        status.textContent = problemText(error);
        status.className = "error";
      }
      more.disabled = false;
    };
    more.addEventListener("click", load);
    load();
  }).catch((error) => replace(body, h("p", { class: "error" }, problemText(error))));
  return () => { stopped = true; };
}

function row(entry) {
  const who = entry.kind === "bot" ? h("a", { href: botHref(entry.bot) }, entry.name) : `AI, ${entry.level}`;
  return h("tr", { dataset: { kind: entry.kind } },
    h("td", {}, entry.rank), h("td", {}, who), h("td", {}, entry.kind === "bot" ? "bot" : "AI level (fixed)"),
    h("td", {}, entry.rating.toFixed(2)), h("td", {}, entry.mu.toFixed(2)), h("td", {}, entry.sigma.toFixed(2)),
    h("td", {}, entry.games));
}
