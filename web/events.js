// A match's live events (GET /v1/matches/{id}/events, Server-Sent Events) read with fetch, so a seat's
// token can go in the Authorization header (EventSource cannot send one). Resumes with Last-Event-ID.
import { sleep } from "./api.js";

/** Follow a match: onMatch(data) for each `match` event (a MatchEvent), onEnd(data) at `end`; returns stop().
 * With `rematch` the stream stays open after the match finished, for its rematch offer, until the rematch starts. */
export function followMatch(matchId, { token = null, rematch = false, onMatch, onEnd, onState = () => {} }) {
  const controller = new AbortController();
  let lastId = null;
  let retry = 2000;
  let over = false;

  const handle = (event) => {
    if (event.retry) retry = event.retry;
    if (event.id !== null) lastId = event.id;
    if (event.type === "match") onMatch(JSON.parse(event.data));
    if (event.type === "end") {
      over = true;
      onEnd?.(JSON.parse(event.data));
    }
  };

  const run = async () => {
    let failures = 0;
    while (!over && !controller.signal.aborted) {
      try {
        const headers = { Accept: "text/event-stream" };
        if (token) headers.Authorization = `Bearer ${token}`;
        if (lastId !== null) headers["Last-Event-ID"] = lastId;
        const response = await fetch(`/v1/matches/${encodeURIComponent(matchId)}/events${rematch ? "?rematch=true" : ""}`, {
          headers, signal: controller.signal, cache: "no-store",
        });
        if (!response.ok) {
          const problem = await response.json().catch(() => ({}));
          if ([400, 401, 403, 404].includes(response.status)) {
            onState("refused", problem);
            return;
          }
          throw new Error(problem.detail ?? `HTTP ${response.status}`);
        }
        onState("open");
        failures = 0;
        await readEvents(response.body, handle);
      } catch (error) {
        if (controller.signal.aborted) return;
        failures += 1;
        console.warn("event stream lost", error);
      }
      if (over || controller.signal.aborted) return;
      onState("reconnecting");
      await sleep(Math.min(retry * Math.max(failures, 1), 15000));
    }
  };
  run();
  return () => controller.abort();
}

/**
 * Follow a job (an analysis, a review): its events stream (`events_url`, SSE) gives `progress` events (the result
 * so far) and one `done` (the job JSON) or `failed`; when the stream is not there or breaks, its JSON (`url`) is
 * polled until it ends. onProgress(data), onDone(job), onFailed(problem); returns stop().
 */
export function followJob(job, { token = null, onProgress = () => {}, onDone, onFailed }) {
  const controller = new AbortController();
  const headers = (accept) => ({ Accept: accept, ...(token ? { Authorization: `Bearer ${token}` } : {}) });
  let ended = false;
  const finish = (job) => {
    if (ended || controller.signal.aborted) return;
    ended = true;
    if (job.status === "failed") onFailed(job.error ?? { detail: "the job failed" });
    else onDone(job);
  };
  const poll = async () => {
    let pause = 200;
    while (!ended && !controller.signal.aborted) {
      const response = await fetch(job.url, { headers: headers("application/json"), signal: controller.signal, cache: "no-store" });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) {
        ended = true;
        onFailed(answer);
        return;
      }
      if (answer.result?.analysis) onProgress(answer.result.analysis);
      if (["finished", "failed"].includes(answer.status)) return finish(answer);
      await sleep(pause);
      pause = Math.min(pause * 1.5, 1000);
    }
  };
  const run = async () => {
    try {
      if (job.events_url) {
        const response = await fetch(job.events_url, { headers: headers("text/event-stream"), signal: controller.signal, cache: "no-store" });
        if (response.ok) {
          await readEvents(response.body, (event) => {
            if (!event.data) return;
            const data = JSON.parse(event.data);
            if (event.type === "progress") onProgress(data);
            else if (event.type === "done") finish({ status: "finished", ...data });
            else if (event.type === "failed") finish({ status: "failed", error: data.error ?? data });
          });
        }
      }
      if (!ended) await poll();
    } catch (error) {
      if (controller.signal.aborted) return;
      console.warn("job events lost", error);
      if (!ended) poll().catch((failure) => !controller.signal.aborted && onFailed({ detail: String(failure) }));
    }
  };
  run();
  return () => controller.abort();
}

/** Read a text/event-stream body, calling handle({type, data, id, retry}) for each event. */
export async function readEvents(body, handle) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = blankEvent();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      if (line === "") {
        if (event.data !== null || event.retry) handle(event);
        event = blankEvent();
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") event.data = event.data === null ? text : `${event.data}\n${text}`;
        else if (field === "event") event.type = text;
        else if (field === "id") event.id = text;
        else if (field === "retry" && /^\d+$/.test(text)) event.retry = Number(text);
      }
    }
  }
}

function blankEvent() {
  return { type: "message", data: null, id: null, retry: null };
}
