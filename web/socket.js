// A seat's WebSocket (GET /v1/socket, docs/reference/websocket.md): its match's events and its actions on one
// connection. Where the browser has no WebSocket, where the page has no seat token, or where the socket will not
// open, the page follows the stream and POSTs its actions instead (events.js, api.js): the same events and answers.
import { ApiError, api, sleep } from "./api.js";
import { followMatch } from "./events.js";

const RESUME = new Set([1001, 1006, 1011, 4000, 4429]); // going away, lost, store away, lagging, too many: reconnect
const OPEN_FAILURES = 2; // sockets that closed before their welcome, in a row, before the stream takes over

/**
 * Follow a match as `followMatch` does (same options and callbacks) and return its stop(), whose `act(body)`
 * plays an action (`{action, expected_version}`) and resolves to the answer of `POST .../actions` (or rejects
 * with its ApiError): over the seat's socket while it is open, else by POST.
 */
export function seatChannel(matchId, options) {
  const { token, rematch = false, onMatch, onEnd, onState = () => {} } = options;
  const post = (body) => api(`/v1/matches/${matchId}/actions`, { method: "POST", body, token });
  if (!token || typeof WebSocket === "undefined") {
    const stop = followMatch(matchId, options);
    stop.act = post;
    return stop;
  }
  let ws = null;
  let welcomed = false;
  let stopped = false;
  let lastId = null;
  let failures = 0;
  let refs = 0;
  let stopStream = null; // once the stream took over
  const pending = new Map(); // ref -> {resolve, reject}

  const fallBack = () => {
    stopStream = followMatch(matchId, options);
  };

  const connect = () => {
    if (stopped) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(`${scheme}//${location.host}/v1/socket`);
    welcomed = false;
    ws.onopen = () => ws.send(JSON.stringify({ type: "hello", token, ...(lastId === null ? {} : { after: lastId }) }));
    ws.onmessage = (message) => receive(JSON.parse(message.data));
    ws.onclose = (close) => closed(close.code);
  };

  const receive = (message) => {
    if (message.type === "welcome") {
      welcomed = true;
      failures = 0;
      onState("open");
    } else if (message.type === "event" && message.event === "match") {
      lastId = message.id;
      onMatch(message.data);
    } else if (message.type === "event" && message.event === "end") {
      if (rematch && message.data.reason === "finished") {
        stopped = true; // the rematch offer is followed on the stream, which stays open for it
        fallBack();
      } else {
        onEnd?.(message.data);
      }
    } else if ((message.type === "result" || message.type === "problem") && pending.has(message.ref)) {
      const { resolve, reject } = pending.get(message.ref);
      pending.delete(message.ref);
      if (message.type === "result") resolve(message.answer);
      else reject(new ApiError(message.problem.status, message.problem));
    } else if (message.type === "problem" && message.ref === null) {
      stopped = true; // the hello refused, or the token no longer valid: the socket closes for good
      onState("refused", message.problem);
    }
  };

  const closed = async (code) => {
    ws = null;
    for (const { reject } of pending.values()) {
      reject(new ApiError(0, { code: "network", detail: "the connection was lost before the answer came" }));
    }
    pending.clear();
    if (stopped || code === 1000 || (welcomed && !RESUME.has(code))) return;
    failures += welcomed ? 0 : 1;
    if (failures >= OPEN_FAILURES) return fallBack();
    onState("reconnecting");
    await sleep(Math.min(2000 * Math.max(failures, 1), 15000));
    connect();
  };

  connect();
  const stop = () => {
    stopped = true;
    ws?.close(1000);
    stopStream?.();
  };
  stop.act = (body) => {
    if (!ws || !welcomed || ws.readyState !== WebSocket.OPEN) return post(body);
    const ref = `a${++refs}`;
    return new Promise((resolve, reject) => {
      pending.set(ref, { resolve, reject });
      ws.send(JSON.stringify({ type: "action", ref, ...body }));
    });
  };
  return stop;
}
