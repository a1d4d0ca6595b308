// The replay page: a finished match step by step (GET /v1/matches/{id}/replay/{step}), drawn by its renderer.
import { analysisPanel } from "./analysis-panel.js";
import { api } from "./api.js";
import { gameEntry } from "./catalog.js";
import { h, replace } from "./dom.js";
import { problemText } from "./problems.js";
import { describeAction, draw, loadRenderer } from "./renderer.js";
import { resignText } from "./lifecycle-panel.js";
import { reviewSection } from "./review-graph.js";
import { matchHref } from "./router.js";
import { namedText, seatName } from "./seat-names.js";

/** Mount the replay of match `route.id` (`?step=N` starts there, `?seat=N` shows that seat's view); returns stop(). */
export function mount(root, route) {
  const id = route.id;
  const steps = new Map();
  let match = null;
  let game = null;
  let renderer = null;
  let step = Number(route.query.step ?? 0) || 0;
  let total = 0;
  let viewer = route.query.seat === undefined ? null : Number(route.query.seat);
  let playing = null;
  let stopped = false;
  let ticket = 0;

  const title = h("h1", {}, "Replay");
  const where = h("p", { class: "replay-step", role: "status", "aria-live": "polite" });
  const slider = h("input", { type: "range", min: 0, value: 0, step: 1, id: "replay-slider", "aria-label": "Step" });
  const buttons = {
    first: h("button", { type: "button", "aria-label": "First step", onclick: () => go(0) }, "« First"),
    back: h("button", { type: "button", "aria-label": "Previous step", onclick: () => go(step - 1) }, "◀ Back"),
    play: h("button", { type: "button", "aria-label": "Play", onclick: () => togglePlay() }, "▶ Play"),
    next: h("button", { type: "button", "aria-label": "Next step", onclick: () => go(step + 1) }, "Next ▶"),
    last: h("button", { type: "button", "aria-label": "Last step", onclick: () => go(total) }, "Last »"),
  };
  const viewSelect = h("select", { id: "replay-viewer" });
  const picture = h("div", { class: "picture", role: "region", "aria-label": "The match at this step" });
  const outcome = h("div", { class: "replay-result" });
  let lastCtx = null; // the ctx of the step shown, for wording actions outside the picture
  const words = (action, suggest) => describeAction(renderer, action, { ...(lastCtx ?? {}), suggest });
  const review = reviewSection({ matchId: id, go: (n) => go(n), describe: (action, suggest = false) => words(action, suggest), name: (seat) => seatName(match, seat) });
  const analysis = analysisPanel({ matchId: id, token: null, describe: (action, seat, suggest) => words(action, suggest),
    name: (seat) => seatName(match, seat) });
  const extras = h("div", { class: "replay-extras" });
  // A match that is over as one file, for `parlour verify` (the server names it parlour-<game>-<id>.json).
  const download = h("span", { class: "replay-export" });
  const page = h("div", { class: "replay-page", "data-match": id },
    h("header", { class: "match-head" }, title,
      h("p", { class: "meta" }, h("a", { href: matchHref(id) }, "Back to the match page"), download)),
    h("div", { class: "replay-controls card" },
      h("div", { class: "replay-buttons" }, Object.values(buttons)),
      slider,
      h("span", { class: "inline" }, h("label", { for: "replay-viewer" }, "Seen by"), viewSelect),
      h("p", { class: "muted small" }, "Keys: ← and → step back and forth, Home and End jump.")),
    where, picture, outcome, extras);
  root.append(page);

  slider.addEventListener("input", () => go(Number(slider.value)));
  viewSelect.addEventListener("change", () => {
    viewer = viewSelect.value === "public" ? null : Number(viewSelect.value);
    steps.clear();
    go(step);
  });
  const onKey = (event) => {
    if (event.target.closest("input, select, textarea") && event.target !== slider) return;
    const moves = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: total };
    if (event.key in moves && event.target !== slider) {
      event.preventDefault();
      go(moves[event.key]);
    }
  };
  document.addEventListener("keydown", onKey);

  const fetchStep = (n) => {
    const key = `${viewer}:${n}`;
    if (!steps.has(key)) {
      const query = viewer === null ? "" : `?seat=${viewer}`;
      steps.set(key, api(`/v1/matches/${encodeURIComponent(id)}/replay/${n}${query}`).catch((error) => {
        steps.delete(key);
        throw error;
      }));
    }
    return steps.get(key);
  };

  async function go(target) {
    const n = Math.max(0, Math.min(target, total || target));
    const mine = ++ticket;
    try {
      const answer = await fetchStep(n);
      if (stopped || mine !== ticket) return;
      step = answer.step;
      total = answer.steps;
      show(answer);
      if (step + 1 <= total) fetchStep(step + 1).catch(() => {});
    } catch (error) {
      if (mine === ticket) replace(where, h("span", { class: "error" }, problemText(error)));
      stopPlaying();
    }
  }

  function show(answer) {
    page.dataset.step = String(answer.step);
    page.dataset.steps = String(answer.steps);
    slider.max = String(answer.steps);
    slider.value = String(answer.step);
    slider.setAttribute("aria-valuetext", `step ${answer.step} of ${answer.steps}`);
    buttons.first.disabled = buttons.back.disabled = answer.step === 0;
    buttons.next.disabled = buttons.last.disabled = answer.step >= answer.steps;
    const synthetic = {
      ...match, version: answer.step, view: answer.view, viewer: answer.viewer, to_act: answer.to_act,
      waiting_for: answer.to_act, deadlines: [], result: answer.result,
      status: answer.result ? "finished" : answer.step === answer.steps ? match.status : "active",
    };
    const ctx = { match: synthetic, legal: null, seat: null, game, act: async () => {}, busy: true };
    lastCtx = ctx;
    review.show(answer.step);
    analysis.update({ version: answer.step, step: answer.step, allowed: answer.step < answer.steps,
      why: "The match is over at this step: nothing to analyse." });
    const entry = answer.entry;
    replace(where, h("strong", {}, `Step ${answer.step} of ${answer.steps}`), ": ",
      entry ? [seatName(match, entry.seat), " ", entry.resign ? resignText(entry) : describeAction(renderer, entry.action, ctx), entry.timeout ? " (time ran out)" : ""] : "the start, before anyone moved");
    draw(renderer, picture, ctx);
    replace(outcome, answer.result
      ? h("p", { class: "card" }, h("strong", {}, answer.result.draw ? "A draw. " : `Won by ${answer.result.winners.map((s) => seatName(match, s)).join(" and ") || "nobody"}. `), namedText(match, answer.result.reason))
      : "");
    if (playing && answer.step >= answer.steps) stopPlaying();
  }

  function togglePlay() {
    if (playing) return stopPlaying();
    if (step >= total) go(0);
    playing = setInterval(() => go(step + 1), 900);
    buttons.play.textContent = "⏸ Pause";
    buttons.play.setAttribute("aria-label", "Pause");
  }

  function stopPlaying() {
    clearInterval(playing);
    playing = null;
    buttons.play.textContent = "▶ Play";
    buttons.play.setAttribute("aria-label", "Play");
  }

  api(`/v1/matches/${encodeURIComponent(id)}`).then(async (answer) => {
    match = answer;
    [game, renderer] = await Promise.all([gameEntry(match.game), loadRenderer(match.game)]);
    if (stopped) return;
    title.textContent = `${game.name}: replay`;
    replace(viewSelect, h("option", { value: "public" }, "the public"),
      match.seats.map((info) => h("option", { value: String(info.seat), selected: info.seat === viewer }, seatName(match, info.seat))));
    if (!["finished", "aborted"].includes(match.status)) {
      replace(where, h("span", { class: "error" }, "This match is still running: it can be replayed once it is over (its seed is secret until then)."));
      return;
    }
    replace(extras, review.element, analysis.element);
    review.start(Boolean(game.cooperative));
    replace(download, " · ", h("a", { href: `/v1/matches/${encodeURIComponent(id)}/export`, download: "", id: "replay-export" }, "Download (export)"));
    go(step);
  }).catch((error) => replace(where, h("span", { class: "error" }, problemText(error))));

  return () => {
    stopped = true;
    stopPlaying();
    review.stop();
    analysis.stop();
    document.removeEventListener("keydown", onKey);
  };
}
