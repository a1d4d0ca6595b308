// The owner tokens of tournaments created in this browser (shown once by the server), for the cancel button.

const KEY = "parlour.tournaments.v1";

/** Keep a tournament's owner token. */
export function rememberTournament(id, ownerToken) {
  const all = JSON.parse(localStorage.getItem(KEY) ?? "{}");
  all[id] = ownerToken;
  localStorage.setItem(KEY, JSON.stringify(all));
}

/** The owner token of a tournament created here, or null. */
export function tournamentOwner(id) {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? "{}")[id] ?? null;
  } catch {
    return null;
  }
}
