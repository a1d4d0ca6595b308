// The end of a match: who won and why, the scores, and the revealed seed checked against its commitment.
import { h, replace } from "./dom.js";
import { replayHref } from "./router.js";
import { checkSeed } from "./seed-check.js";
import { namedText, seatList, seatName } from "./seat-names.js";

/** The result section of a finished or aborted match; `commitment` is the one this browser saw at the start. */
export function resultPanel(match, { commitment, mySeat }) {
  if (match.status === "aborted") {
    return h("section", { class: "result card", "aria-labelledby": "result-title" },
      h("h2", { id: "result-title" }, "Aborted"),
      h("p", {}, match.abort_reason ?? "The match ended without a result."),
      seedCheck(match, commitment));
  }
  const result = match.result;
  return h("section", { class: "result card", "aria-labelledby": "result-title", "data-result": "shown" },
    h("h2", { id: "result-title" }, headline(match, mySeat)),
    h("p", {}, namedText(match, result.reason, mySeat)),
    h("table", { class: "scores" },
      h("caption", {}, "Final scores"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Place"), h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Score"))),
      h("tbody", {}, result.ranking.flatMap((group, place) => group.map((seat) =>
        h("tr", { class: seat === mySeat ? "mine" : null },
          h("td", {}, String(place + 1)), h("td", {}, seatName(match, seat, mySeat)), h("td", {}, String(result.scores[seat]))))))),
    seedCheck(match, commitment),
    h("p", {}, h("a", { href: replayHref(match.id) }, "Replay this match step by step, with its review and analysis")));
}

function headline(match, mySeat) {
  const result = match.result;
  if ("team_success" in result) return result.team_success ? "The team won!" : "The team lost";
  if (result.draw) return "A draw";
  if (mySeat !== null && result.winners.includes(mySeat)) return result.winners.length > 1 ? "You share the win" : "You won!";
  return `${seatList(match, result.winners, mySeat)} won`;
}

function seedCheck(match, commitment) {
  const published = commitment ?? match.seed_commitment;
  const line = h("p", { class: "seed-check", "data-seed-check": "pending", role: "status" }, "Checking the seed…");
  const box = h("div", { class: "seed" },
    h("h3", {}, "Fair chance: the seed"),
    h("p", { class: "muted small" }, "Every shuffle and roll came from this seed. Its SHA-256 was published when the match started, before anyone moved."),
    h("dl", {},
      h("dt", {}, "Seed"), h("dd", {}, h("code", {}, String(match.seed))),
      h("dt", {}, "Commitment"), h("dd", {}, h("code", {}, published))),
    line);
  if (match.seed === null || match.seed === undefined) {
    replace(line, "The seed has not been revealed.");
    return box;
  }
  checkSeed(match.seed, published).then(({ ok, digest }) => {
    line.dataset.seedCheck = ok ? "ok" : "mismatch";
    line.classList.add(ok ? "ok" : "error");
    replace(line, ok
      ? "Seed check: OK — SHA-256 of the seed matches the commitment."
      : `Seed check FAILED: SHA-256 of the seed is ${digest}, not the commitment.`);
    if (commitment && commitment !== match.seed_commitment) {
      line.dataset.seedCheck = "mismatch";
      line.classList.replace("ok", "error");
      line.append(" The server now shows another commitment than the one it gave when the match was created!");
    }
  });
  return box;
}
