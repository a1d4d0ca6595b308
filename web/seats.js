// The seat and owner tokens this browser holds, kept in localStorage so a reload resumes the seat.
// A token is shown once by the server (creation or join), so losing it loses the seat: keep it here.

const KEY = "parlour.matches.v1";

function readAll() {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? "{}") ?? {};
  } catch {
    return {};
  }
}

function writeAll(all) {
  localStorage.setItem(KEY, JSON.stringify(all));
}

/** Remember a match this browser created or joined: its game, seat tokens, owner token and seed commitment. */
export function rememberMatch(matchId, { game, tokens = [], owner = null, commitment = null }) {
  const all = readAll();
  const entry = all[matchId] ?? { game, seats: {}, owner: null, commitment: null, since: new Date().toISOString() };
  for (const { seat, token } of tokens) if (token) entry.seats[seat] = token;
  entry.owner = owner ?? entry.owner;
  entry.commitment = commitment ?? entry.commitment;
  all[matchId] = entry;
  writeAll(all);
}

/** The seats held in a match, as {seat number: token}; empty when none. */
export function seatsHeld(matchId) {
  const seats = readAll()[matchId]?.seats ?? {};
  return Object.fromEntries(Object.entries(seats).map(([seat, token]) => [Number(seat), token]));
}

/** What this browser remembers of a match (game, seats, owner token, commitment), or null. */
export function remembered(matchId) {
  return readAll()[matchId] ?? null;
}

/** Every remembered match, newest first, as [match id, entry]. */
export function rememberedMatches() {
  return Object.entries(readAll()).sort(([, a], [, b]) => (b.since ?? "").localeCompare(a.since ?? ""));
}

/** Forget one seat of a match (its token stopped working: the seat was left). */
export function forgetSeat(matchId, seat) {
  const all = readAll();
  if (all[matchId]?.seats) delete all[matchId].seats[seat];
  writeAll(all);
}

/** Forget a match (its tokens are dropped for good). */
export function forgetMatch(matchId) {
  const all = readAll();
  delete all[matchId];
  writeAll(all);
}
