// The debug panel: version, raw view JSON, the log as this viewer sees it, and the legal actions.
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { problemText } from "./problems.js";

/** A toggle button and a panel; update(state) redraws it while it is open. */
export function debugPanel(matchId) {
  const panel = h("section", { class: "debug card", id: "debug-panel", hidden: true, "aria-label": "Debug" });
  const button = h("button", { type: "button", class: "debug-toggle", "aria-expanded": "false", "aria-controls": "debug-panel",
    onclick: () => {
      panel.hidden = !panel.hidden;
      button.setAttribute("aria-expanded", String(!panel.hidden));
      button.textContent = panel.hidden ? "Show debug" : "Hide debug";
      if (!panel.hidden) draw();
    } }, "Show debug");
  let state = null;
  let logText = "";
  let logVersion = -1;

  const draw = () => {
    if (panel.hidden || !state?.match) return;
    const { match, legal, token } = state;
    replace(panel,
      h("h2", {}, "Debug"),
      h("dl", { class: "debug-facts" },
        h("dt", {}, "version"), h("dd", { "data-debug": "version" }, String(match.version)),
        h("dt", {}, "status"), h("dd", {}, match.status),
        h("dt", {}, "viewer"), h("dd", {}, match.viewer === null ? "public" : `seat ${match.viewer}`),
        h("dt", {}, "to_act"), h("dd", {}, JSON.stringify(match.to_act)),
        h("dt", {}, "waiting_for"), h("dd", {}, JSON.stringify(match.waiting_for))),
      h("h3", {}, "View"), h("pre", { class: "json", "data-debug": "view" }, JSON.stringify(match.view, null, 2)),
      h("h3", {}, "Legal actions"), h("pre", { class: "json", "data-debug": "legal" }, legal ? JSON.stringify(legal, null, 2) : "none: this viewer may not act now"),
      h("h3", {}, "Log"), h("pre", { class: "json", "data-debug": "log" }, logText || "loading…"));
    if (logVersion !== match.version) {
      logVersion = match.version;
      readLog(matchId, token).then((text) => {
        logText = text;
        if (state?.match?.version === logVersion) draw();
      }).catch((error) => { logText = problemText(error); draw(); });
    }
  };
  return { button, panel, update(next) { state = next; draw(); } };
}

/** The whole log as this viewer sees it (every page), one compact entry per line. */
async function readLog(matchId, token) {
  const lines = [];
  let url = `/v1/matches/${encodeURIComponent(matchId)}/log?limit=500`;
  while (url) {
    const page = await api(url, { token });
    for (const entry of page.entries) lines.push(JSON.stringify(entry));
    url = page.next;
  }
  return lines.join("\n") || "(empty)";
}
