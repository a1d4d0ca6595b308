// The match page: header, turn clocks, the game's picture (its renderer), hints, the result with the
// seed check, and the debug panel; kept current by the match's event stream. Without a token it is the
// spectator's page (the public view, no controls). It shows only what this viewer's own answers carry.
import { analysisPanel } from "./analysis-panel.js";
import { api } from "./api.js";
import { gameEntry } from "./catalog.js";
import { clockPanel } from "./clocks.js";
import { debugPanel } from "./debug-panel.js";
import { lifecyclePanel, resignText } from "./lifecycle-panel.js";
import { h, replace } from "./dom.js";
import { askHint, canonicalJson } from "./hints.js";
import { problemText } from "./problems.js";
import { describeAction, draw, loadRenderer } from "./renderer.js";
import { resultPanel } from "./result-panel.js";
import { matchHref, replayHref } from "./router.js";
import { seatList, seatName } from "./seat-names.js";
import { remembered, seatsHeld } from "./seats.js";
import { seatChannel } from "./socket.js";

/** Mount the page of match `route.id` (`?seat=N` picks a held seat, `?seat=public` watches); returns stop(). */
export function mount(root, route) {
  const id = route.id;
  const held = seatsHeld(id);
  const heldSeats = Object.keys(held).map(Number).sort((a, b) => a - b);
  const wanted = route.query.seat;
  const seat = wanted === "public" ? null : (held[Number(wanted)] ? Number(wanted) : (heldSeats[0] ?? null));
  const token = seat === null ? null : held[seat];
  const state = {
    match: null, legal: null, busy: false, renderer: null, game: null, hint: null, notice: null,
    recent: [], live: "connecting", commitment: remembered(id)?.commitment ?? null,
  };
  let stopped = false;
  let stopStream = () => {};
  let legalTicket = 0;
  let lastFocus = null;

  const title = h("h1", {}, "Match");
  const meta = h("p", { class: "meta" });
  const turn = h("p", { class: "turn", role: "status", "aria-live": "polite" });
  const seatNav = h("nav", { class: "seat-nav", "aria-label": "Seats" });
  const clocks = clockPanel();
  const notice = h("p", { class: "notice", role: "alert", hidden: true });
  const picture = h("div", { class: "picture", role: "region", tabindex: "-1", "aria-label": "The match picture" });
  const recent = h("ol", { class: "recent", "aria-labelledby": "recent-title" });
  const hintLevel = h("select", { id: "hint-level", "aria-label": "Hint level", onchange: () => keepHintLevel(state.game.id, hintLevel.value) });
  const hintText = h("p", { class: "hint-text", role: "status", "aria-live": "polite", id: "hint-text" });
  const hintButton = h("button", { type: "button", class: "hint-button", "aria-describedby": "hint-text", onclick: () => hint() }, "Hint");
  const hintBox = h("div", { class: "hint", hidden: true }, hintButton, hintLevel, hintText);
  const analysis = seat === null ? null : analysisPanel({
    matchId: id,
    token,
    describe: (action, who, suggest) => describeAction(state.renderer, action, { ...ctx(), suggest }),
    name: (who) => seatName(state.match, who, seat),
  });
  const result = h("div", { class: "result-area" });
  const debug = debugPanel(id);
  const ownerBox = h("div", { class: "owner" });
  const lifecycle = lifecyclePanel({ id, seat, token, onMatch: (match) => { accept(match); drawAll(); }, onNotice: (text) => setNotice(text) });

  const page = h("div", { class: "match-page", "data-match": id },
    h("header", { class: "match-head" }, title, meta, turn, seatNav),
    clocks.element, notice, ownerBox, lifecycle.element,
    h("div", { class: "board" }, picture, h("aside", { class: "side" }, hintBox, analysis?.element, h("h2", { id: "recent-title", class: "recent-title" }, "Latest moves"), recent)),
    result,
    h("div", { class: "tools" }, debug.button),
    debug.panel);
  root.append(page);

  const setNotice = (text) => {
    state.notice = text;
    notice.hidden = !text;
    notice.textContent = text ?? "";
  };

  const ctx = () => ({
    match: state.match,
    legal: state.legal?.may_act ? state.legal : null,
    seat,
    game: state.game,
    act,
    busy: state.busy,
  });

  const drawAll = () => {
    if (stopped || !state.match || !state.game || !state.renderer) return;
    const match = state.match;
    Object.assign(page.dataset, { version: match.version, status: match.status, busy: state.busy, mayAct: Boolean(state.legal?.may_act) });
    title.textContent = state.game.name;
    replace(meta, `Version ${match.version} · ${match.status}`,
      match.tournament ? [" · ", h("a", { href: `#/tournaments/${match.tournament}` }, "its tournament")] : "",
      ["finished", "aborted"].includes(match.status) ? "" : ` · ${state.live}`);
    turn.textContent = turnText(match, seat, state.legal);
    drawSeatNav();
    clocks.update(match, seat);
    drawPicture();
    drawRecent();
    drawHint();
    drawAnalysis();
    drawOwner();
    lifecycle.update(match, state.game);
    replace(result, ["finished", "aborted"].includes(match.status) ? resultPanel(match, { commitment: state.commitment, mySeat: seat }) : "");
    debug.update({ match, legal: state.legal, seat, token });
  };

  const drawPicture = () => {
    const focused = document.activeElement;
    const hadFocus = picture.contains(focused);
    const key = hadFocus ? (focusKey(focused) ?? lastFocus) : null;
    if (key) lastFocus = key;
    draw(state.renderer, picture, ctx());
    if (state.hint?.version === state.match.version) markHint(picture, state.hint.action);
    if (hadFocus) restoreFocus(picture, key);
  };

  const drawSeatNav = () => {
    const links = heldSeats.map((held) => {
      const turn = held !== seat && state.match.waiting_for.includes(held);
      return h("a", { href: matchHref(id, held), "aria-current": held === seat ? "page" : null, class: turn ? "their-turn" : null },
        `Play as ${seatName(state.match, held)}${turn ? " (their turn)" : ""}`);
    });
    const watch = h("a", { href: matchHref(id, "public"), "aria-current": seat === null ? "page" : null }, "Watch (public view)");
    replace(seatNav,
      seat === null ? h("span", { class: "badge" }, "Spectating: the public view") : h("span", { class: "badge mine" }, `You are ${seatName(state.match, seat)}`),
      heldSeats.length > 1 || (heldSeats.length && seat === null) ? links : "",
      seat !== null ? watch : "",
      ["finished", "aborted"].includes(state.match.status) ? h("a", { href: replayHref(id) }, "Replay") : "");
  };

  const drawRecent = () => {
    if (!state.recent.length) {
      replace(recent, h("li", { class: "muted" }, "No moves yet."));
      return;
    }
    replace(recent, state.recent.slice(-4).reverse().map((entry) => h("li", {},
      h("span", { class: "who" }, seatName(state.match, entry.seat, seat)), ": ",
      entry.resign ? resignText(entry) : describeAction(state.renderer, entry.action, ctx()), entry.timeout ? " (time ran out)" : "")));
  };

  const drawAnalysis = () => {
    if (!analysis) return;
    const live = state.match.status === "active";
    analysis.element.hidden = !live;
    if (live) analysis.update({ version: state.match.version, allowed: !forbidden(state.match), why: FAIR_PLAY_TEXT });
  };

  const drawHint = () => {
    const mayAct = Boolean(state.legal?.may_act) && state.match.status === "active";
    hintBox.hidden = !mayAct;
    hintButton.disabled = state.busy || state.hint?.pending;
    if (!mayAct) return;
    if (forbidden(state.match)) {
      // Fair play: the match forbids hints while it runs; say so rather than offer what the server refuses.
      hintButton.disabled = true;
      hintLevel.hidden = true;
      hintBox.dataset.assistance = "forbidden";
      replace(hintText, h("span", { class: "assistance-off" }, HINTS_OFF_TEXT));
      return;
    }
    if (!hintLevel.options.length) {
      const levels = state.game.ai_levels;
      const kept = keptHintLevel(state.game.id);
      const chosen = levels.includes(kept) ? kept : (levels.includes("easy") ? "easy" : levels[0]);
      for (const level of levels) hintLevel.append(h("option", { value: level, selected: level === chosen }, `${level} AI`));
    }
    const current = state.hint;
    if (!current || (current.version !== state.match.version && !current.pending)) {
      replace(hintText, "Ask the AI what it would play.");
    } else if (current.pending) {
      replace(hintText, "The AI is thinking…");
    } else if (current.error) {
      replace(hintText, h("span", { class: current.code === "assistance-forbidden" ? "assistance-off error" : "error" }, current.error));
    } else {
      replace(hintText, "Hint: ", h("strong", {}, describeAction(state.renderer, current.action, { ...ctx(), suggest: true })), " ",
        h("button", { type: "button", class: "link", disabled: state.busy, onclick: () => act(current.action) }, "Play it"));
    }
  };

  const drawOwner = () => {
    const owner = remembered(id)?.owner;
    if (!owner || state.match.status !== "waiting") {
      replace(ownerBox);
      return;
    }
    replace(ownerBox, h("p", {}, "Waiting for players. Others join from the lobby's open matches. ",
      h("button", { type: "button", onclick: async () => {
        try {
          accept(await api(`/v1/matches/${id}/abort`, { method: "POST", token: owner }));
        } catch (error) {
          setNotice(problemText(error));
        }
      } }, "Abort this match")));
  };

  /** Show `match`; `legal`: the seat's legal actions that came with it (the answer to its action and its read
   * carry them in `legal_actions`, its stream's event beside the match), so no request is needed for them. */
  const accept = (match, legal = match.legal_actions) => {
    if (stopped) return;
    const current = state.match;
    if (current && match.version < current.version) return;
    if (current && match.version === current.version && match.viewer === current.viewer && current.status === match.status) {
      if (!state.legal && carries(legal, current)) useLegal(legal); // the same version, now with its legal actions
      return;
    }
    state.match = match;
    state.commitment ??= match.seed_commitment;
    refreshLegal(legal);
  };

  /** True when `legal` are this page's seat's legal actions at `match`'s version. */
  const carries = (legal, match) => Boolean(legal) && seat !== null && legal.seat === seat && legal.version === match.version;

  const useLegal = (legal) => {
    ++legalTicket; // a read still under way is for this version too: its answer is no longer needed
    state.legal = legal;
    drawAll();
  };

  const refreshLegal = async (carried) => {
    const match = state.match;
    if (seat === null || match.status !== "active" || !match.to_act.includes(seat)) {
      ++legalTicket;
      state.legal = null;
      drawAll();
      return;
    }
    if (carries(carried, match)) {
      useLegal(carried);
      return;
    }
    const ticket = ++legalTicket; // none came with this version (an older server, a resign's answer): read them
    state.legal = null;
    drawAll();
    try {
      const legal = await api(`/v1/matches/${id}/legal-actions`, { token });
      if (ticket !== legalTicket || stopped) return;
      if (legal.version > state.match.version) {
        accept(await api(`/v1/matches/${id}`, { token }));
        return;
      }
      state.legal = legal.version === state.match.version ? legal : null;
    } catch (error) {
      if (ticket === legalTicket) setNotice(problemText(error));
    }
    drawAll();
  };

  const reload = async () => {
    try {
      accept(await api(`/v1/matches/${id}`, { token }));
    } catch (error) {
      setNotice(problemText(error));
    }
  };

  /** Post the seat's action (pinned to the version it was chosen at, except in simultaneous games); re-render after. */
  async function act(action) {
    if (state.busy || seat === null || !state.match) return;
    state.busy = true;
    setNotice(null);
    drawAll();
    const body = { action };
    if (!state.game.simultaneous) body.expected_version = state.legal?.version ?? state.match.version;
    try {
      const answer = await stopStream.act(body);
      state.busy = false;
      accept(answer);
      drawAll(); // the stream may have brought this version first, so accept() drew nothing new
    } catch (error) {
      state.busy = false;
      setNotice(error.code === "stale-version"
        ? "The match moved on before your action arrived: here it is now; choose again."
        : problemText(error));
      await reload();
      drawAll();
    }
  }

  async function hint() {
    const version = state.match.version;
    state.hint = { version, pending: true };
    drawHint();
    try {
      const answer = await askHint(id, token, hintLevel.value);
      state.hint = { version: answer.version, action: answer.action };
      if (answer.version !== state.match.version) state.hint.error = "The match moved on while the AI thought; ask again.";
    } catch (error) {
      // A refusal (403 assistance-forbidden among them) is shown in the server's words.
      state.hint = { version, error: problemText(error), code: error.code };
    }
    drawAll();
  }

  api(`/v1/matches/${id}`, { token }).then(async (match) => {
    const [game, renderer] = await Promise.all([gameEntry(match.game), loadRenderer(match.game)]);
    if (stopped) return;
    Object.assign(state, { game, renderer });
    accept(match);
    stopStream = seatChannel(id, { // the seat's socket, else the stream (its `act` then POSTs)
      token,
      rematch: seat !== null && !match.tournament,
      onMatch: (event) => {
        state.recent = mergeEntries(state.recent, event.log);
        accept(event.match, event.legal_actions);
        drawAll();
      },
      onEnd: () => {
        state.live = "over";
        drawAll();
        reload();
      },
      onState: (live, problem) => {
        state.live = { open: "live", reconnecting: "reconnecting…", refused: "not following" }[live] ?? live;
        if (live === "refused") setNotice(`Live updates refused: ${problem?.detail ?? "unknown reason"}`);
        drawAll();
      },
    });
  }).catch((error) => {
    replace(root, h("h1", {}, "Match not available"), h("p", { class: "error" }, problemText(error)),
      error.status === 401 ? h("p", {}, "This browser's token for the match is no longer valid. ",
        h("a", { href: matchHref(id, "public") }, "Watch it as the public")) : "",
      h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
  });

  return () => {
    stopped = true;
    stopStream();
    clocks.stop();
    analysis?.stop();
  };
}

const HINTS_OFF_TEXT = "No hints in this match: it forbids the AI's help while it runs (fair play).";
const FAIR_PLAY_TEXT = "Analysis is off while this match runs: it forbids assistance (fair play, the rule for a match "
  + "between two or more players, or a rated one). Once it is over, anyone can analyse it from its replay.";

/** True when the match forbids its seats the AI's help while it runs (fair play). */
function forbidden(match) {
  return match.assistance === "forbidden";
}

const HINT_LEVEL_KEY = "parlour.hint-level.v1";

/** The hint level this browser last chose for a game (kept across reloads), or null. */
function keptHintLevel(game) {
  try {
    return JSON.parse(localStorage.getItem(HINT_LEVEL_KEY) ?? "{}")?.[game] ?? null;
  } catch {
    return null;
  }
}

function keepHintLevel(game, level) {
  let all = {};
  try {
    all = JSON.parse(localStorage.getItem(HINT_LEVEL_KEY) ?? "{}") ?? {};
  } catch {
    all = {};
  }
  localStorage.setItem(HINT_LEVEL_KEY, JSON.stringify({ ...all, [game]: level }));
}

/** The turn line: whose turn it is, in words, for this viewer. */
function turnText(match, seat, legal) {
  if (match.status === "waiting") {
    const open = match.seats.filter((info) => !info.filled).map((info) => info.seat);
    return `Waiting for players: ${open.length ? `${open.length} seat${open.length === 1 ? "" : "s"} open` : "challenged bots to accept"}.`;
  }
  if (match.status === "finished") return "The match is over.";
  if (match.status === "aborted") return "The match was aborted.";
  if (seat !== null && match.waiting_for.includes(seat)) return legal?.may_act ? "Your turn." : "Your turn: loading your moves…";
  if (seat !== null && legal?.may_act) return "You may act now.";
  return `Waiting for ${seatList(match, match.waiting_for, seat)}.`;
}

/** Keep the log entries seen on the stream, by version (later copies replace earlier, revealed ones). */
function mergeEntries(known, entries) {
  const byVersion = new Map(known.map((entry) => [entry.version, entry]));
  for (const entry of entries ?? []) byVersion.set(entry.version, entry);
  return [...byVersion.values()].sort((a, b) => a.version - b.version).slice(-20);
}

function focusKey(element) {
  if (!element) return null;
  if (element.dataset.action) return { action: element.dataset.action };
  if (element.dataset.focusKey) return { focus: element.dataset.focusKey };
  if (element.id) return { id: element.id };
  return null;
}

function restoreFocus(picture, key) {
  const candidates = [...picture.querySelectorAll("[data-action], [data-focus-key], [id]")];
  const match = key && candidates.find((element) =>
    (key.action && element.dataset.action === key.action) || (key.focus && element.dataset.focusKey === key.focus) || (key.id && element.id === key.id));
  const target = match && !match.disabled ? match : picture.querySelector("[data-action]:not([disabled])") ?? picture;
  target.focus({ preventScroll: true });
}

function markHint(picture, action) {
  const wanted = canonicalJson(action);
  for (const element of picture.querySelectorAll("[data-action]")) {
    try {
      if (canonicalJson(JSON.parse(element.dataset.action)) === wanted) element.classList.add("hinted");
    } catch {
      // a control whose data-action is not JSON is the renderer's bug; the hint text still says the move
    }
  }
}
