// Analysis in the page: ask the AI for the position's best moves (POST .../analysis), follow the job's events as
// the search deepens, and draw an evaluation bar and the best lines in the game's words (the renderer's action
// text). A seat analyses its own view of a live match when the match allows assistance; anyone analyses a
// finished match's steps with full information (the replay page).
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { followJob } from "./events.js";
import { problemText } from "./problems.js";

const BUDGETS = [
  ["quick", "Quick (1 s)", { milliseconds: 1000 }],
  ["deeper", "Deeper (3 s)", { milliseconds: 3000 }],
  ["deepest", "Deepest (8 s)", { milliseconds: 8000 }],
];
const BUDGET_KEY = "parlour.analysis-budget.v1";
const LINE_STEPS = 8; // the principal line's moves shown (the rest of it is less sure)

function lowerFirst(text) {
  return text ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

/**
 * The analysis panel of match `matchId`. `token`: the seat's (a live match's own view), or null (a finished match,
 * at a `step`). `describe(action, seat, suggest)` words an action as the renderer does ("Move ..." when suggested); `name(seat)` names a seat.
 * update({version, step, allowed, why}) tells it the position shown and whether analysis is allowed (and why not).
 */
export function analysisPanel({ matchId, token, describe, name }) {
  const budget = h("select", { id: "analysis-budget", "aria-label": "How long the AI thinks" },
    BUDGETS.map(([key, text]) => h("option", { value: key, selected: key === (localStorage.getItem(BUDGET_KEY) ?? "quick") }, text)));
  budget.addEventListener("change", () => localStorage.setItem(BUDGET_KEY, budget.value));
  const button = h("button", { type: "button", class: "analyse-button", onclick: () => start() }, "Analyse");
  const status = h("p", { class: "analysis-status", role: "status", "aria-live": "polite" });
  const output = h("div", { class: "analysis-output" });
  const controls = h("div", { class: "analysis-controls" }, button, budget);
  const element = h("section", { class: "analysis card", "aria-labelledby": "analysis-title", "data-state": "idle" },
    h("h2", { id: "analysis-title" }, "Analysis"), controls, status, output);
  let position = { version: null, step: null, allowed: true, why: null };
  let run = null; // {version, step, stop}
  let shown = null; // {version, step} of the analysis drawn

  const setState = (value) => { element.dataset.state = value; };

  function start() {
    stopRun();
    const asked = { version: position.version, step: position.step };
    const body = { budget: BUDGETS.find(([key]) => key === budget.value)?.[2] ?? BUDGETS[0][2] };
    if (token === null && position.step !== null) body.step = position.step;
    setState("running");
    button.disabled = true;
    replace(status, "The AI is thinking…");
    replace(output);
    run = { ...asked, stop: () => {} };
    api(`/v1/matches/${encodeURIComponent(matchId)}/analysis`, { method: "POST", body, token }).then((job) => {
      if (!run || run.version !== asked.version || run.step !== asked.step) return;
      run.stop = followJob(job, {
        token,
        onProgress: (analysis) => draw(analysis, asked, false),
        onDone: (done) => {
          const analysis = done.result?.analysis;
          if (analysis) draw(analysis, asked, true);
          else replace(status, "The analysis ended without a result.");
          finish(analysis ? "done" : "failed");
        },
        onFailed: (problem) => {
          replace(status, h("span", { class: "error" }, problem?.detail ?? "The analysis failed."));
          finish("failed");
        },
      });
    }).catch((error) => {
      replace(status, h("span", { class: "error" }, problemText(error)));
      if (error.code === "assistance-forbidden") position = { ...position, allowed: false, why: problemText(error) };
      finish(error.code === "assistance-forbidden" ? "off" : "failed");
    });
  }

  function finish(state) {
    run = null;
    setState(state);
    button.disabled = !position.allowed;
  }

  function stopRun() {
    run?.stop();
    run = null;
  }

  /** Draw an analysis (the search so far, or its end) for the position it was asked at. */
  function draw(analysis, asked, final) {
    shown = asked;
    const moves = analysis.moves ?? [];
    element.dataset.moves = String(moves.length);
    const best = moves[0];
    replace(status, final ? "" : "Searching deeper…",
      h("span", { class: "muted small" }, ` ${analysis.exact ? "Exact (solved)" : `${analysis.iterations} playouts`} for ${name(analysis.seat)}.`));
    if (!best) {
      replace(output, h("p", { class: "muted" }, "No move to analyse here."));
      return;
    }
    replace(output,
      evaluationBar(best, name(analysis.seat)),
      h("ol", { class: "best-lines" }, moves.map((move, index) => h("li", { class: index === 0 ? "best" : null },
        h("strong", { class: "line-move" }, describe(move.action, analysis.seat, true)),
        h("span", { class: "line-value" }, ` ${valueText(move)}`, move.exact ? " (exact)" : move.visits ? ` · ${move.visits} visits` : ""),
        move.line?.length ? h("p", { class: "line-rest small" }, "then ", lineParts(move.line)) : null))));
  }

  /** The principal line in words: the seat's turns grouped ("Easy AI: move …, move …; Ada: …"), the first few. */
  function lineParts(line) {
    const turns = [];
    for (const step of line.slice(0, LINE_STEPS)) {
      const text = lowerFirst(describe(step.action, step.seat, true));
      const turn = turns.at(-1);
      if (turn?.seat !== step.seat) turns.push({ seat: step.seat, moves: [{ text, times: 1 }] });
      else if (turn.moves.at(-1).text === text) turn.moves.at(-1).times += 1;
      else turn.moves.push({ text, times: 1 });
    }
    return [turns.map((turn, at) => [at ? "; " : "", h("span", { class: "line-who" }, name(turn.seat)), ": ",
      turn.moves.map((move) => `${move.text}${move.times > 1 ? ` (×${move.times})` : ""}`).join(", ")]),
    line.length > LINE_STEPS ? " …" : ""];
  }

  /** Tell the panel the position shown now and whether it may be analysed. */
  function update(next) {
    position = { ...position, ...next };
    const off = !position.allowed;
    controls.hidden = off;
    button.disabled = off || run !== null;
    if (off) {
      stopRun();
      setState("off");
      replace(status, h("span", { class: "analysis-off" }, position.why ?? "Analysis is not available here."));
      replace(output);
      return;
    }
    if (element.dataset.state === "off") {
      setState("idle");
      replace(status);
    }
    const moved = shown && (shown.version !== position.version || shown.step !== position.step);
    if (run && (run.version !== position.version || run.step !== position.step)) {
      stopRun();
      setState("idle");
      button.disabled = false;
      replace(status, "The position changed: analyse again.");
      replace(output);
    } else if (moved && !run) {
      shown = null;
      setState("idle");
      replace(status, "The position changed since: analyse again.");
      replace(output);
    }
  }

  return { element, update, stop: stopRun };
}

/** A move's value in words: its win chance where the game has a winner, else its expected reward. */
export function valueText(move) {
  const reward = `${move.value >= 0 ? "+" : "−"}${Math.abs(move.value).toFixed(2)}`;
  if (move.win_probability === null || move.win_probability === undefined) return `expected ${reward}`;
  return `${Math.round(move.win_probability * 100)}% to win (${reward})`;
}

/** The evaluation bar of the best move: the win chance (or the reward from −1 to +1) as a filled share. */
function evaluationBar(best, who) {
  const share = best.win_probability ?? (best.value + 1) / 2;
  const percent = Math.round(Math.max(0, Math.min(1, share)) * 100);
  const label = `${who}: ${valueText(best)}`;
  return h("div", { class: "eval" },
    h("div", { class: "eval-bar", role: "meter", "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": percent, "aria-label": label, title: label },
      h("span", { class: "eval-fill", style: `width: ${percent}%` })),
    h("p", { class: "eval-text" }, label));
}
