// Hints: ask the AI for the seat's move (POST .../ai-move, apply false), then poll its job until it ends.
import { api, ApiError, sleep } from "./api.js";

/** The AI's suggested action for the seat at `level`; resolves to {action, version} or throws ApiError. */
export async function askHint(matchId, token, level, { signal, timeoutMs = 90000 } = {}) {
  const job = await api(`/v1/matches/${encodeURIComponent(matchId)}/ai-move`, {
    method: "POST", body: { level, apply: false }, token, signal,
  });
  const until = Date.now() + timeoutMs;
  let pause = 150;
  while (Date.now() < until) {
    const state = await api(job.url, { token, signal });
    if (state.status === "finished") return state.result;
    if (state.status === "failed") throw new ApiError(409, { code: state.error?.code, detail: state.error?.detail ?? "the AI failed" });
    await sleep(pause);
    pause = Math.min(pause * 1.5, 1000);
  }
  throw new ApiError(0, { code: "timeout", detail: "the AI took too long to answer" });
}

/** The JSON of a value with object keys sorted, so two equal actions give the same text. */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
