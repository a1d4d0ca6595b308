// The bots pages: the list of registered bots with a search by name (GET /v1/bots), and one bot's profile,
// ratings and public history (GET /v1/bots/{id}, /matches?status=all).
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { problemText } from "./problems.js";
import { botHref, leaderboardHref, matchHref } from "./router.js";

const PAGE = 50;

/** Mount the bots list, or one bot's page when the route names one; returns stop(). */
export function mount(root, route) {
  return route.id ? mountBot(root, route.id) : mountList(root, route);
}

function mountList(root, route) {
  let stopped = false;
  let ticket = 0;
  const search = h("input", { type: "search", id: "bot-search", value: route.query.q ?? "", placeholder: "the start of a name", autocomplete: "off" });
  const list = h("ul", { class: "bot-list" });
  const status = h("p", { class: "muted", role: "status" });
  const more = h("button", { type: "button", hidden: true }, "More");
  root.append(h("h1", {}, "Bots"),
    h("p", { class: "lead" }, "Programs that play through the API. Register one with POST /v1/bots (see the API reference)."),
    h("form", { class: "card", role: "search", onsubmit: (event) => event.preventDefault() },
      h("div", { class: "field" }, h("label", { for: "bot-search" }, "Search by name"), search)),
    list, status, more);
  let cursor = null;
  const load = async (fresh) => {
    const mine = fresh ? ++ticket : ticket;
    if (fresh) cursor = null;
    more.disabled = true;
    try {
      const query = new URLSearchParams({ q: search.value.trim(), limit: PAGE });
      if (cursor) query.set("cursor", cursor);
      const page = await api(`/v1/bots?${query}`);
      if (stopped || mine !== ticket) return;
      if (fresh) replace(list);
      list.append(...page.items.map((bot) => h("li", { dataset: { bot: bot.id } },
        h("a", { href: botHref(bot.id) }, bot.name),
        h("span", { class: "muted" }, ` · ${bot.matches_finished} finished, ${bot.matches_playing} playing`))));
      cursor = page.next_cursor;
      more.hidden = cursor === null;
      status.textContent = list.children.length ? "" : "No bot by that name.";
    } catch (error) {
      status.textContent = problemText(error);
    }
    more.disabled = false;
  };
  search.addEventListener("input", () => load(true));
  more.addEventListener("click", () => load(false));
  load(true);
  return () => { stopped = true; };
}

function mountBot(root, botId) {
  let stopped = false;
  const body = h("div", { class: "bot-page" }, h("p", { class: "muted" }, "Loading…"));
  root.append(body);
  Promise.all([
    api(`/v1/bots/${encodeURIComponent(botId)}`),
    api(`/v1/bots/${encodeURIComponent(botId)}/matches?status=all&limit=50`),
  ]).then(([bot, history]) => {
    if (stopped) return;
    replace(body,
      h("h1", {}, bot.name),
      h("p", { class: "muted" }, `Registered ${bot.created_at.slice(0, 10)} · ${bot.matches_finished} matches finished · ${bot.matches_playing} playing`),
      h("section", { class: "card", "aria-labelledby": "bot-ratings-title" }, h("h2", { id: "bot-ratings-title" }, "Ladder ratings"),
        bot.ratings.length ? h("table", { class: "standings bot-ratings" },
          h("thead", {}, h("tr", {}, ["Game", "Rank", "Rating", "μ", "σ", "Games"].map((title) => h("th", { scope: "col" }, title)))),
          h("tbody", {}, bot.ratings.map((rating) => h("tr", {},
            h("td", {}, h("a", { href: leaderboardHref(rating.game) }, rating.game)), h("td", {}, rating.rank),
            h("td", {}, rating.rating.toFixed(2)), h("td", {}, rating.mu.toFixed(2)), h("td", {}, rating.sigma.toFixed(2)),
            h("td", {}, rating.games))))) : h("p", { class: "muted" }, "Not rated yet.")),
      h("section", { class: "card", "aria-labelledby": "bot-history-title" }, h("h2", { id: "bot-history-title" }, "Matches"),
        history.items.length ? h("ul", { class: "bot-history" }, history.items.map((match) => h("li", { dataset: { status: match.status } },
          h("a", { href: matchHref(match.match) }, `${match.game}: ${match.seats.map((seat) => seat.name ?? `seat ${seat.seat}`).join(" v ")}`),
          ` · ${outcome(match, botId)}`))) : h("p", { class: "muted" }, "No match yet.")));
  }).catch((error) => replace(body, h("h1", {}, "Bot"), h("p", { class: "error" }, problemText(error))));
  return () => { stopped = true; };
}

function outcome(match, botId) {
  if (match.status !== "finished" || !match.result) return "playing";
  const seats = match.seats.filter((seat) => seat.bot === botId).map((seat) => seat.seat);
  if (match.result.draw) return "draw";
  return seats.some((seat) => match.result.winners.includes(seat)) ? "won" : "lost";
}
