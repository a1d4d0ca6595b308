// A finished match's review on its replay page: GET .../review, or POST .../review to have it computed (following
// the job as it runs); drawn as an evaluation graph over the steps (SVG by hand) with the inaccuracies, mistakes and
// blunders marked, each seat's accuracy, and the marked moves listed. A point of the graph goes to its step.
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { followJob } from "./events.js";
import { svg } from "./games/parts.js";
import { problemText } from "./problems.js";

const WIDTH = 640;
const HEIGHT = 180;
const PAD = 14;
const SEAT_COLOURS = ["#b3245a", "#1a5fd0", "#1e7a3c", "#b86e00", "#6a3fb3", "#00838f"];
const CLASS_WORDS = { inaccuracy: "inaccuracy", mistake: "mistake", blunder: "blunder" };
const CLASS_MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

/**
 * The review section of finished match `matchId`. `go(step)` shows a step; `describe(action, suggest)` words a move;
 * `name(seat)` names a seat. show(step) marks the step the replay shows. start(cooperative) reads (or asks for)
 * the review (a co-operative game's seats share one line).
 */
export function reviewSection({ matchId, go, describe, name }) {
  const status = h("p", { class: "review-status", role: "status", "aria-live": "polite" });
  const body = h("div", { class: "review-body" });
  const element = h("section", { class: "review card", "aria-labelledby": "review-title", "data-review": "loading" },
    h("h2", { id: "review-title" }, "Review"), status, body);
  const url = `/v1/matches/${encodeURIComponent(matchId)}/review`;
  let stopJob = () => {};
  let review = null;
  let current = 0;
  let cursor = null;
  let cooperative = false;

  const setState = (value) => { element.dataset.review = value; };

  async function start(isCooperative = false) {
    cooperative = isCooperative;
    try {
      draw(await api(url));
    } catch (error) {
      notReady(error);
    }
  }

  /** A 404 review-not-ready says where its job is (`job_status`): waiting or running, failed, or never asked. */
  function notReady(error) {
    if (error.status !== 404 || error.code !== "review-not-ready") return failed(problemText(error));
    const job = error.problem?.job_status;
    if (job === "queued" || job === "started") return wait(job);
    offer(job === "failed" ? "The last review could not be computed. " : "This match has not been reviewed yet. ");
  }

  function offer(text) {
    setState("none");
    replace(status, text);
    replace(body, h("button", { type: "button", class: "review-ask", onclick: () => ask() }, "Review this match"),
      h("p", { class: "muted small" }, "The AI judges every move against the best it finds, off the request path; it takes a little while."));
  }

  async function ask() {
    setState("running");
    replace(status, "Asking for a review…");
    replace(body);
    try {
      const answer = await api(url, { method: "POST" });
      if (answer?.evaluation) return draw(answer); // 200: the review was stored already
      if (answer?.events_url) return follow(answer);
      wait(answer?.status ?? "queued");
    } catch (error) {
      failed(problemText(error));
    }
  }

  /** Wait for the review's job: its state shown, the review read again until it is stored. */
  function wait(job) {
    setState("running");
    const say = (state) => {
      replace(status, state === "started" ? "The AI is reviewing the moves…" : "The review is queued: the AI starts on it soon…");
      replace(body, h("progress", { class: "review-progress", "aria-label": "Review in progress" }));
    };
    say(job);
    let stopped = false;
    let timer = null;
    const again = async (pause) => {
      if (stopped) return;
      try {
        return draw(await api(url));
      } catch (error) {
        if (stopped) return;
        if (error.code !== "review-not-ready" || !["queued", "started"].includes(error.problem?.job_status)) return notReady(error);
        say(error.problem.job_status);
      }
      timer = setTimeout(() => again(Math.min(pause * 1.5, 3000)), pause);
    };
    timer = setTimeout(() => again(700), 500);
    stopJob = () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  function follow(job) {
    setState("running");
    replace(status, "The AI is reviewing the moves…");
    replace(body, h("progress", { class: "review-progress", "aria-label": "Review in progress" }));
    stopJob = followJob(job, {
      onProgress: (data) => {
        if (typeof data?.done === "number" && typeof data?.total === "number") {
          replace(body, h("progress", { class: "review-progress", max: data.total, value: data.done, "aria-label": "Review in progress" }));
          replace(status, `The AI is reviewing the moves: ${data.done} of ${data.total}…`);
        }
      },
      onDone: (done) => (done.result?.review ? draw(done.result.review) : api(url).then(draw).catch(notReady)),
      onFailed: (problem) => failed(problem?.detail ?? "The review failed."),
    });
  }

  function failed(text) {
    setState("failed");
    replace(status, h("span", { class: "error" }, text));
  }

  function draw(answer) {
    review = answer;
    setState("shown");
    element.dataset.moves = String(answer.moves.length);
    replace(status, h("span", { class: "muted small" },
      `Each move against the best the AI found at ${budgetText(answer.budget)}; marked: `,
      Object.keys(CLASS_WORDS).map((kind, index) => [index ? ", " : "", h("span", { class: `review-key review-${kind}` }, `${CLASS_MARKS[kind]} ${kind}`),
        ` from a loss of ${answer.thresholds[kind]}`]), "."));
    replace(body, graph(answer), accuracyTable(answer), markedMoves(answer));
    show(current);
  }

  function graph(answer) {
    const steps = Math.max(1, answer.evaluation.length - 1);
    const values = answer.evaluation.flat();
    const low = Math.min(-1, ...values);
    const high = Math.max(1, ...values);
    const x = (step) => PAD + (step * (WIDTH - 2 * PAD)) / steps;
    const y = (value) => PAD + ((high - value) * (HEIGHT - 2 * PAD)) / (high - low);
    // A co-operative game's seats share one result: one line for the team, not lines drawn over each other.
    const team = cooperative && answer.evaluation.every((row) => row.every((value) => Math.abs(value - row[0]) < 1e-9));
    const seats = team ? Math.min(1, answer.evaluation[0]?.length ?? 0) : (answer.evaluation[0]?.length ?? 0);
    const lines = Array.from({ length: seats }, (_, seat) => svg("polyline", {
      class: "review-line", fill: "none", stroke: SEAT_COLOURS[seat % SEAT_COLOURS.length], "stroke-width": 2.5,
      points: answer.evaluation.map((row, step) => `${x(step).toFixed(1)},${y(row[seat]).toFixed(1)}`).join(" "),
    }));
    cursor = svg("line", { class: "review-cursor", x1: x(0), x2: x(0), y1: PAD / 2, y2: HEIGHT - PAD / 2, stroke: "#1d1b22", "stroke-dasharray": "4 3" });
    const reach = Math.max(4, Math.min(22, (WIDTH - 2 * PAD) / steps / 2 - 1)); // a mark's target, never its neighbour's
    const marks = answer.moves.flatMap((move, index) => {
      if (!move.class) return [];
      const step = index + 1;
      const label = `Step ${step}: ${name(move.seat)} ${describe(move.action)}, ${CLASS_WORDS[move.class]} (lost ${move.loss.toFixed(2)})`;
      const value = answer.evaluation[step]?.[team ? 0 : move.seat] ?? 0;
      return [svg("g", { class: `review-mark review-${move.class}`, role: "button", tabindex: 0, "aria-label": label, "data-step": step },
        svg("title", {}, label),
        svg("circle", { cx: x(step), cy: y(value), r: 7 }),
        svg("circle", { class: "review-hit", cx: x(step), cy: y(value), r: reach, fill: "transparent" }))];
    });
    const area = svg("rect", { class: "review-area", x: 0, y: 0, width: WIDTH, height: HEIGHT, fill: "transparent" });
    const picture = svg("svg", { class: "review-graph", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "group", "aria-label": "Evaluation over the steps: click a point to go to its step" },
      area,
      svg("line", { x1: PAD, x2: WIDTH - PAD, y1: y(0), y2: y(0), stroke: "#c9beb2", "stroke-width": 1 }),
      lines, cursor, marks);
    picture.addEventListener("click", (event) => {
      const mark = event.target.closest?.(".review-mark");
      if (mark) return go(Number(mark.dataset.step));
      const box = picture.getBoundingClientRect();
      const at = ((event.clientX - box.left) / box.width) * WIDTH;
      go(Math.max(0, Math.min(steps, Math.round(((at - PAD) * steps) / (WIDTH - 2 * PAD)))));
    });
    picture.addEventListener("keydown", (event) => {
      const mark = event.target.closest?.(".review-mark");
      if (mark && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        go(Number(mark.dataset.step));
      }
    });
    const legend = h("p", { class: "review-legend small" }, Array.from({ length: seats }, (_, seat) =>
      h("span", { class: "review-seat" }, h("span", { class: "review-swatch", style: `background: ${SEAT_COLOURS[seat % SEAT_COLOURS.length]}` }), team ? "The team" : name(seat))),
    h("span", { class: "muted" }, "each seat's expected result, from −1 (lost) to +1 (won)"));
    picture.dataset.x0 = String(PAD);
    return h("figure", { class: "review-figure" }, picture, legend);
  }

  function accuracyTable(answer) {
    return h("div", { class: "table-scroll" }, h("table", { class: "review-seats" },
      h("caption", {}, "Accuracy"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Accuracy"),
        Object.keys(CLASS_WORDS).map((kind) => h("th", { scope: "col", title: `${kind[0].toUpperCase()}${kind.slice(1)}s`, class: `review-${kind}` },
          h("span", { "aria-hidden": "true" }, CLASS_MARKS[kind]), h("span", { class: "visually-hidden" }, `${kind}s`))))),
      h("tbody", {}, answer.seats.map((row) => h("tr", {},
        h("th", { scope: "row" }, name(row.seat)),
        h("td", {}, row.accuracy === null ? "—" : `${Math.round(row.accuracy)}%`),
        h("td", {}, String(row.inaccuracies)), h("td", {}, String(row.mistakes)), h("td", {}, String(row.blunders)))))));
  }

  function markedMoves(answer) {
    const marked = answer.moves.map((move, index) => ({ move, step: index + 1 })).filter(({ move }) => move.class);
    if (!marked.length) return h("p", { class: "muted" }, "No move was marked: nobody lost much against the best move found.");
    return h("ol", { class: "review-moves" }, marked.map(({ move, step }) => h("li", {},
      h("button", { type: "button", class: `link review-go review-${move.class}`, onclick: () => go(step) },
        `Step ${step}: ${name(move.seat)} ${describe(move.action)}`),
      ` — ${CLASS_MARKS[move.class]} ${CLASS_WORDS[move.class]}, lost ${move.loss.toFixed(2)}; the AI preferred: ${lowerFirst(describe(move.best, true))}`)));
  }

  /** Mark the step the replay shows. */
  function show(step) {
    current = step;
    if (!review || !cursor) return;
    const steps = Math.max(1, review.evaluation.length - 1);
    const at = PAD + (Math.min(step, steps) * (WIDTH - 2 * PAD)) / steps;
    cursor.setAttribute("x1", at);
    cursor.setAttribute("x2", at);
  }

  return { element, start, show, stop: () => stopJob() };
}

function lowerFirst(text) {
  return text ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

function budgetText(budget) {
  if (budget?.iterations) return `${budget.iterations} playouts a position`;
  if (budget?.milliseconds) return `${budget.milliseconds / 1000} s a position`;
  return "a fixed budget";
}
