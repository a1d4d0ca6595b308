// The lobby's lists: matches waiting for players (to join), being played (to watch) and over (to replay).
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { problemText } from "./problems.js";
import { matchHref, replayHref } from "./router.js";
import { rememberMatch, seatsHeld } from "./seats.js";

/** A section listing matches of one status, each with its link or join button; returns {element, refresh()}. */
export function matchList(status, games) {
  const titles = { waiting: "Open matches to join", active: "Being played now", finished: "Finished: replay one" };
  const body = h("div", { class: "match-list" }, h("p", { class: "muted" }, "Loading…"));
  const element = h("section", { class: "card", "aria-labelledby": `list-${status}` },
    h("h2", { id: `list-${status}` }, titles[status]), body);
  const name = (id) => games.find((game) => game.id === id)?.name ?? id;
  const refresh = async () => {
    try {
      const page = await api(`/v1/matches?status=${status}&limit=10`);
      const items = page.items;
      replace(body, items.length
        ? h("ul", {}, items.map((item) => h("li", {}, matchLine(item, status, name(item.game)))))
        : h("p", { class: "muted" }, status === "waiting" ? "No match is waiting for players." : "None."));
    } catch (error) {
      replace(body, h("p", { class: "error" }, problemText(error)));
    }
  };
  return { element, refresh };
}

function matchLine(item, status, gameName) {
  const when = new Date(item.updated_at).toLocaleTimeString();
  const label = `${gameName}, ${item.players} players`;
  const mine = Object.keys(seatsHeld(item.id)).length > 0;
  if (status === "waiting") {
    return [
      h("span", {}, `${label} · ${item.open_seats.length} open seat${item.open_seats.length === 1 ? "" : "s"} · ${when}`),
      mine ? h("a", { href: matchHref(item.id) }, "Your match") : joinButton(item),
    ];
  }
  if (status === "active") {
    return [h("span", {}, `${label}${item.tournament ? " · tournament" : ""} · ${when}`),
      h("a", { href: matchHref(item.id, mine ? undefined : "public") }, mine ? "Your match" : "Watch")];
  }
  return [h("span", {}, `${label} · ${when}`), h("a", { href: replayHref(item.id) }, "Replay")];
}

function joinButton(item) {
  const name = h("input", { type: "text", maxlength: 64, placeholder: "your name (optional)", "aria-label": `Your name for match ${item.id}` });
  const status = h("span", { role: "status", class: "error" });
  const button = h("button", { type: "button", onclick: async () => {
    button.disabled = true;
    try {
      const body = name.value.trim() ? { name: name.value.trim() } : {};
      const joined = await api(`/v1/matches/${item.id}/join`, { method: "POST", body });
      rememberMatch(item.id, { game: item.game, tokens: [{ seat: joined.seat, token: joined.token }] });
      location.hash = matchHref(item.id);
    } catch (error) {
      status.textContent = problemText(error);
      button.disabled = false;
    }
  } }, "Join");
  return h("span", { class: "join" }, name, button, status);
}
