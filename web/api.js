// Talking to the Parlour API: JSON in and out; every refusal (problem+json) becomes an ApiError.

/** A refused or failed request: `status`, the problem's `code` and `detail`, and the whole `problem`. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `the server answered ${status}`);
    this.status = status;
    this.problem = problem ?? {};
    this.code = this.problem.code ?? null;
  }
}

/** Call the API, e.g. `api("/v1/games")` or `api(path, {method: "POST", body, token})`; resolves to the JSON answer. */
export async function api(path, { method = "GET", body, token, signal } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      cache: "no-store",
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError(0, { code: "network", detail: `the server cannot be reached (${error.message})` });
  }
  const text = await response.text();
  const data = text ? parseJson(text) : null;
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** Pause for `ms` milliseconds. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 200) };
  }
}
