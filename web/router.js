// The client's routes live in the URL fragment (#/matches/<id>), so no server path is ever shadowed.

const ROUTES = [
  ["lobby", /^\/?$/],
  ["replay", /^\/matches\/([^/]+)\/replay$/],
  ["match", /^\/matches\/([^/]+)$/],
  ["tournaments", /^\/tournaments$/],
  ["tournament", /^\/tournaments\/([^/]+)$/],
  ["leaderboard", /^\/leaderboard$/],
  ["bots", /^\/bots$/],
  ["bot", /^\/bots\/([^/]+)$/],
];

/** The route of a fragment such as "#/matches/abc?seat=1": {name, id, query}; name "missing" when none matches. */
export function parseRoute(hash) {
  const [path, search = ""] = hash.replace(/^#/, "").split("?", 2);
  const query = Object.fromEntries(new URLSearchParams(search));
  for (const [name, pattern] of ROUTES) {
    const found = pattern.exec(path || "/");
    if (found) return { name, id: found[1] ? decodeURIComponent(found[1]) : null, query };
  }
  return { name: "missing", id: null, query, path };
}

/** The fragment of a match page (`seat` picks one held seat; "public" spectates). */
export function matchHref(id, seat) {
  return `#/matches/${encodeURIComponent(id)}${seat === undefined || seat === null ? "" : `?seat=${seat}`}`;
}

/** The fragment of a finished match's replay. */
export function replayHref(id) {
  return `#/matches/${encodeURIComponent(id)}/replay`;
}

/** The fragment of a tournament page. */
export function tournamentHref(id) {
  return `#/tournaments/${encodeURIComponent(id)}`;
}

/** The fragment of a game's leaderboard. */
export function leaderboardHref(game) {
  return `#/leaderboard?game=${encodeURIComponent(game)}`;
}

/** The fragment of a bot's page. */
export function botHref(id) {
  return `#/bots/${encodeURIComponent(id)}`;
}
