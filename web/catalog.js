// The game catalog (GET /v1/games), read once per page load.
import { api } from "./api.js";

let games = null;

/** Every game's catalog entry, in catalog order. */
export async function catalog() {
  games ??= api("/v1/games").then((answer) => answer.items);
  try {
    return await games;
  } catch (error) {
    games = null;
    throw error;
  }
}

/** One game's catalog entry (GET /v1/games/{id} as the catalog lists it). */
export async function gameEntry(id) {
  const entry = (await catalog()).find((game) => game.id === id);
  if (!entry) throw new Error(`the server has no game ${id}`);
  return entry;
}
