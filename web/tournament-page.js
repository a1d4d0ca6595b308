// A tournament's page: progress, standings, the ratings chart, the crosstable and every match, kept current.
import { api } from "./api.js";
import { catalog } from "./catalog.js";
import { h, replace } from "./dom.js";
import { problemText } from "./problems.js";
import { ratingsChart } from "./ratings-chart.js";
import { botHref, matchHref, replayHref } from "./router.js";
import { checkSeed } from "./seed-check.js";
import { tournamentOwner } from "./tournament-store.js";

/** Mount the page of tournament `route.id`; it polls while the tournament runs; returns stop(). */
export function mount(root, route) {
  const id = route.id;
  let stopped = false;
  let timer = null;
  const body = h("div", { class: "tournament-page", "data-tournament": id }, h("p", { class: "muted" }, "Loading…"));
  root.append(body);
  const refresh = async () => {
    try {
      const [tournament, games] = await Promise.all([api(`/v1/tournaments/${encodeURIComponent(id)}`), catalog()]);
      if (stopped) return;
      const game = games.find((entry) => entry.id === tournament.game);
      replace(body, ...tournamentParts(tournament, game, refresh));
      Object.assign(body.dataset, { status: tournament.status, done: tournament.progress.done, total: tournament.progress.total });
      clearTimeout(timer);
      if (["running", "waiting"].includes(tournament.status)) timer = setTimeout(refresh, 2000);
    } catch (error) {
      replace(body, h("h1", {}, "Tournament"), h("p", { class: "error" }, problemText(error)));
    }
  };
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function tournamentParts(t, game, refresh) {
  const progress = t.progress;
  const names = new Map(t.entrants.map((entrant) => [entrant.entrant, entrant.name]));
  return [
    h("h1", {}, `${game?.name ?? t.game} tournament`),
    h("p", { class: "meta" }, `${t.format === "swiss" ? "Swiss" : "Round robin"} · ${t.players} players a match · ${t.entrants.length} entrants · ${t.status}`),
    h("div", { class: "card progress-card" },
      h("label", { for: "tournament-progress" }, `${progress.done} of ${progress.total} matches played`,
        progress.running ? `, ${progress.running} running` : "", t.format === "swiss" ? ` · round ${progress.round} of ${progress.rounds}` : ""),
      h("progress", { id: "tournament-progress", max: progress.total || 1, value: progress.done }),
      t.abort_reason ? h("p", { class: "error" }, t.abort_reason) : null,
      challengeList(t),
      cancelButton(t, refresh)),
    standingsTable(t),
    t.ratings ? h("section", { class: "card", "aria-labelledby": "ratings-title" },
      h("h2", { id: "ratings-title" }, "Ratings"), ratingsChart(t.ratings), ratingsTable(t.ratings)) : null,
    crosstable(t, names),
    matchList(t, names),
    seedBox(t),
  ];
}

/** The bots challenged to the tournament, each by its name (linked to its page) with its answer. */
function challengeList(t) {
  if (!t.challenges.length) return null;
  const names = new Map(t.entrants.filter((entrant) => entrant.bot).map((entrant) => [entrant.bot, entrant.name]));
  const items = t.challenges.flatMap((c, i) => [
    i ? ", " : null,
    h("a", { href: botHref(c.bot), "data-bot": c.bot }, names.get(c.bot) ?? c.bot),
    ` ${c.status}`,
  ]);
  return h("p", { class: "challenges" }, "Bots: ", ...items);
}

function cancelButton(t, refresh) {
  const owner = tournamentOwner(t.id);
  if (!owner || !["running", "waiting"].includes(t.status)) return null;
  const status = h("span", { class: "error", role: "status" });
  return h("p", {}, h("button", { type: "button", onclick: async () => {
    try {
      await api(`/v1/tournaments/${encodeURIComponent(t.id)}/cancel`, { method: "POST", token: owner });
      refresh();
    } catch (error) {
      status.textContent = problemText(error);
    }
  } }, "Cancel the tournament"), " ", status);
}

function standingsTable(t) {
  const coop = t.cooperative;
  const head = coop ? ["#", "Entrant", "Played", "Successes", "Success rate"] : ["#", "Entrant", "Played", "W", "D", "L", "Points", "Mean place"];
  return h("section", { class: "card", "aria-labelledby": "standings-title" },
    h("h2", { id: "standings-title" }, "Standings"),
    h("div", { class: "table-scroll" }, h("table", { class: "standings" },
      h("thead", {}, h("tr", {}, head.map((text) => h("th", { scope: "col" }, text)))),
      h("tbody", {}, t.standings.map((s) => h("tr", {},
        h("td", {}, String(s.rank)), h("th", { scope: "row" }, s.name), h("td", {}, String(s.played)),
        coop
          ? [h("td", {}, String(s.successes ?? 0)), h("td", {}, s.success_rate === null || s.success_rate === undefined ? "—"
            : `${pct(s.success_rate)} (${pct(s.success_interval[0])}–${pct(s.success_interval[1])})`)]
          : [h("td", {}, String(s.wins)), h("td", {}, String(s.draws)), h("td", {}, String(s.losses)),
            h("td", {}, String(s.points)), h("td", {}, s.mean_place === null ? "—" : s.mean_place.toFixed(2))]))))));
}

function ratingsTable(ratings) {
  return h("details", {}, h("summary", {}, "The ratings as a table"),
    h("div", { class: "table-scroll" }, h("table", { class: "standings" },
      h("thead", {}, h("tr", {}, ["Entrant", "Rating (mu − 3σ)", "mu", "σ", "95% interval"].map((text) => h("th", { scope: "col" }, text)))),
      h("tbody", {}, ratings.map((r) => h("tr", {}, h("th", { scope: "row" }, r.name), h("td", {}, r.rating.toFixed(1)),
        h("td", {}, r.mu.toFixed(1)), h("td", {}, r.sigma.toFixed(2)), h("td", {}, `${r.interval[0].toFixed(1)} – ${r.interval[1].toFixed(1)}`)))))));
}

function crosstable(t, names) {
  const ids = t.entrants.map((entrant) => entrant.entrant);
  const rows = new Map(t.crosstable.map((row) => [row.entrant, new Map(row.against.map((a) => [a.entrant, a]))]));
  const cell = (a, b) => {
    if (a === b) return "—";
    const record = rows.get(a)?.get(b);
    if (!record) return "";
    return t.cooperative ? `${record.successes ?? 0}/${record.matches}` : `${record.wins}-${record.draws}-${record.losses}`;
  };
  return h("section", { class: "card", "aria-labelledby": "crosstable-title" },
    h("h2", { id: "crosstable-title" }, "Crosstable"),
    h("p", { class: "muted small" }, t.cooperative ? "Successes / matches played together." : "Row against column: finished above, level, below."),
    h("div", { class: "table-scroll" }, h("table", { class: "crosstable" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), ids.map((b) => h("th", { scope: "col" }, names.get(b))))),
      h("tbody", {}, ids.map((a) => h("tr", {}, h("th", { scope: "row" }, names.get(a)), ids.map((b) => h("td", {}, cell(a, b)))))))));
}

function matchList(t, names) {
  return h("section", { class: "card", "aria-labelledby": "matches-title" },
    h("details", { open: t.matches.length <= 12 },
      h("summary", { id: "matches-title" }, `Matches (${t.matches.length})`),
      h("ol", { class: "tournament-matches" }, t.matches.map((m) => h("li", {},
        `Round ${m.round}: ${m.seats.map((e) => names.get(e)).join(" v ")} · ${m.status}`,
        m.ranking ? ` · first: ${m.ranking[0].map((seat) => names.get(m.seats[seat])).join(", ")}` : "",
        m.match ? [" · ", m.status === "finished" ? h("a", { href: replayHref(m.match) }, "replay") : h("a", { href: matchHref(m.match, "public") }, "watch")] : "")))));
}

function seedBox(t) {
  const line = h("p", { class: "seed-check", "data-seed-check": "pending" }, t.seed === null ? "The seed stays secret until the tournament is over." : "Checking the seed…");
  if (t.seed !== null) {
    checkSeed(t.seed, t.seed_commitment).then(({ ok }) => {
      line.dataset.seedCheck = ok ? "ok" : "mismatch";
      line.className = `seed-check ${ok ? "ok" : "error"}`;
      line.textContent = ok ? "Seed check: OK — SHA-256 of the seed matches the commitment." : "Seed check FAILED: the seed does not match its commitment.";
    });
  }
  return h("section", { class: "card seed", "aria-labelledby": "seed-title" }, h("h2", { id: "seed-title" }, "Seed"),
    h("dl", {}, h("dt", {}, "Commitment"), h("dd", {}, h("code", {}, t.seed_commitment)),
      t.seed !== null ? [h("dt", {}, "Seed"), h("dd", {}, h("code", {}, t.seed))] : null), line);
}

function pct(value) {
  return `${Math.round(value * 100)}%`;
}
