// The lobby's "Quick match": enter the matchmaking pool of a game and player count under a name, wait (a
// long-poll, cancellable), and go straight to the match holding the seat token the server derived for this
// ticket. The ticket and its token are kept in localStorage while it waits, so a reload keeps waiting.
import { api, sleep } from "./api.js";
import { h } from "./dom.js";
import { problemText } from "./problems.js";
import { matchHref } from "./router.js";
import { rememberMatch } from "./seats.js";

const TICKET_KEY = "parlour.quickmatch.v1";
const NAME_KEY = "parlour.name.v1";
const WAIT_SECONDS = 25;
const RETRY_MS = 2000;

/** The Quick match card for the catalog's games; `signal` ends its waiting when the lobby is left. */
export function quickMatch(games, signal) {
  const gameSelect = h("select", { id: "quick-game" }, games.map((game) => h("option", { value: game.id }, game.name)));
  const players = h("input", { type: "number", id: "quick-players", step: 1, inputmode: "numeric", required: true });
  const name = h("input", {
    type: "text", id: "quick-name", required: true, maxlength: 64, autocomplete: "nickname",
    value: localStorage.getItem(NAME_KEY) ?? "",
  });
  const submit = h("button", { type: "submit", class: "primary" }, "Find a match");
  const cancel = h("button", { type: "button", hidden: true }, "Cancel");
  const status = h("p", { class: "form-status", role: "status", "aria-live": "polite" });
  const fields = h("div", {},
    h("div", { class: "field" }, h("label", { for: "quick-game" }, "Game"), gameSelect),
    h("div", { class: "field" }, h("label", { for: "quick-players" }, "Players"), players),
    h("div", { class: "field" }, h("label", { for: "quick-name" }, "Your name"), name,
      h("small", {}, "Paired with people and bots waiting for the same game and player count.")));
  const form = h("form", { class: "quick card", id: "quick-match", "aria-labelledby": "quick-title" },
    h("h2", { id: "quick-title" }, "Quick match"), fields, h("div", { class: "form-actions" }, submit, " ", cancel), status);
  let waiting = null; // the AbortController of the current wait

  const game = () => games.find((entry) => entry.id === gameSelect.value);
  const setGame = () => {
    const entry = game();
    players.min = entry.min_players;
    players.max = entry.max_players;
    players.value = Math.max(entry.min_players, Math.min(2, entry.max_players));
    players.disabled = entry.min_players === entry.max_players;
  };
  gameSelect.addEventListener("change", setGame);

  const show = (text, { error = false, busy = false } = {}) => {
    status.textContent = text;
    status.classList.toggle("error", error);
    form.dataset.state = busy ? "waiting" : "idle";
    fields.hidden = busy;
    submit.hidden = busy;
    submit.disabled = false;
    cancel.hidden = !busy;
    cancel.disabled = false;
  };

  const seated = (ticket) => {
    localStorage.removeItem(TICKET_KEY);
    rememberMatch(ticket.match, { game: ticket.game, tokens: [{ seat: ticket.seat, token: ticket.seat_token }] });
    location.hash = matchHref(ticket.match, ticket.seat);
  };

  const follow = async (held) => {
    const wait = new AbortController();
    waiting = wait;
    const stop = () => wait.abort();
    signal.addEventListener("abort", stop, { once: true });
    let ticket = held.ticket;
    const gameName = games.find((entry) => entry.id === ticket.game)?.name ?? ticket.game;
    const more = ticket.players - 1;
    show(`Looking for ${more} more ${more === 1 ? "player" : "players"} for ${gameName}…`, { busy: true });
    try {
      while (ticket.status === "waiting") {
        try {
          const url = `/v1/matchmaking/${encodeURIComponent(ticket.id)}?wait=${WAIT_SECONDS}`;
          ticket = await api(url, { token: held.token, signal: wait.signal });
        } catch (error) {
          if (wait.signal.aborted) return;
          if (error.status === 0 || error.status >= 500 || error.status === 429) {
            await sleep(RETRY_MS); // the server is away for a moment: the ticket still waits
            continue;
          }
          throw error;
        }
      }
      if (ticket.status === "matched") seated(ticket);
      else {
        localStorage.removeItem(TICKET_KEY);
        show(ticket.status === "expired" ? "Nobody came in time: try again, or create a match." : "Cancelled.");
      }
    } catch (error) {
      localStorage.removeItem(TICKET_KEY);
      show(problemText(error), { error: true });
    } finally {
      signal.removeEventListener("abort", stop);
      if (waiting === wait) waiting = null;
    }
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    localStorage.setItem(NAME_KEY, name.value);
    submit.disabled = true;
    status.textContent = "Entering…";
    try {
      const body = { game: gameSelect.value, players: Number(players.value), rated: false, name: name.value };
      const ticket = await api("/v1/matchmaking", { method: "POST", body });
      const held = { ticket, token: ticket.token };
      if (ticket.status === "matched") return seated(ticket);
      localStorage.setItem(TICKET_KEY, JSON.stringify(held));
      follow(held);
    } catch (error) {
      show(problemText(error), { error: true });
    }
  });

  cancel.addEventListener("click", async () => {
    const held = storedTicket();
    if (!held) return;
    cancel.disabled = true;
    try {
      await api(`/v1/matchmaking/${encodeURIComponent(held.ticket.id)}/cancel`, { method: "POST", token: held.token });
      waiting?.abort();
      localStorage.removeItem(TICKET_KEY);
      show("Cancelled.");
    } catch (error) {
      if (error.code === "ticket-matched" || error.code === "ticket-paired") return; // the wait answers with the match
      cancel.disabled = false;
      status.textContent = problemText(error);
    }
  });

  setGame();
  show("");
  const held = storedTicket();
  if (held) follow(held); // a reload while waiting keeps waiting
  return form;
}

function storedTicket() {
  try {
    const held = JSON.parse(localStorage.getItem(TICKET_KEY) ?? "null");
    return held?.ticket?.id && held.token ? held : null;
  } catch {
    return null;
  }
}
