// A TypeScript client of Parlour as the README's reader writes one: types generated from openapi.yaml by
// openapi-typescript with its default flags (into ./parlour.ts), calls made with openapi-fetch.
// tests/api/test_typescript_client.py compiles it with `tsc --strict --noEmit`; nothing runs it.
import createClient from "openapi-fetch";
import type { components, paths } from "./parlour";

type Schemas = components["schemas"];

const parlour = createClient<paths>({ baseUrl: "http://127.0.0.1:8000" });

function seat(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

// Only what is required: the game and the number of players; every other field keeps the server's default.
const minimal: Schemas["CreateMatchRequest"] = { game: "icecream", players: 2 };

export async function playOneMove(): Promise<Schemas["GameMatch"]> {
  const created = await parlour.POST("/v1/matches", { body: { game: "icecream", players: 2 } });
  if (created.error) throw new Error(`${created.error.code}: ${created.error.detail}`);
  const { id, tokens } = created.data;
  const token = tokens[0].token;

  const read = await parlour.GET("/v1/matches/{match_id}", { params: { path: { match_id: id } } });
  if (read.error) throw new Error(read.error.code);
  const match: Schemas["GameMatch"] = read.data;
  const cones = match.game === "icecream" ? match.view.cones : null; // narrowing on `game` gives the game's view
  if (cones === null) throw new Error("not an IceCream match");

  const legal = await parlour.GET("/v1/matches/{match_id}/legal-actions", {
    params: { path: { match_id: id } },
    headers: seat(token),
  });
  if (legal.error) throw new Error(legal.error.code);
  if (legal.data.kind !== "enumerated") throw new Error("IceCream lists its actions");
  const action: Schemas["ActionRequest"]["action"] = legal.data.actions[0];
  const body: Schemas["ActionRequest"] = { action, expected_version: legal.data.version };

  const acted = await parlour.POST("/v1/matches/{match_id}/actions", {
    params: { path: { match_id: id } },
    headers: seat(token),
    body,
  });
  if (acted.error) throw new Error(`${acted.error.code} at version ${acted.error.current_version}`);
  return acted.data;
}

export async function askTheAi(matchId: string, token: string): Promise<void> {
  const asked = await parlour.POST("/v1/matches/{match_id}/ai-move", {
    params: { path: { match_id: matchId } },
    headers: seat(token),
    body: {},
  });
  if (asked.error) throw new Error(asked.error.code);
}

export const createdWithDefaults = minimal;
