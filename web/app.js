// The web client's shell: reads the route from the URL fragment and mounts the page for it.
// Each page module exports `mount(root, route)`, which returns a function that stops it
// (closes its event stream, clears its timers) before the next page is mounted.
import { h, replace } from "./dom.js";
import { parseRoute } from "./router.js";

const PAGES = {
  lobby: () => import("./lobby.js"),
  match: () => import("./match-page.js"),
  replay: () => import("./replay-page.js"),
  tournaments: () => import("./tournaments-page.js"),
  tournament: () => import("./tournament-page.js"),
  leaderboard: () => import("./leaderboard-page.js"),
  bots: () => import("./bots-page.js"),
  bot: () => import("./bots-page.js"),
};

const root = document.getElementById("app");
let stopPage = null;
let mounting = 0;

async function show() {
  const route = parseRoute(location.hash);
  const ticket = ++mounting;
  stopPage?.();
  stopPage = null;
  if (!PAGES[route.name]) {
    replace(root, h("h1", {}, "Nothing here"), h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
    return;
  }
  try {
    const page = await PAGES[route.name]();
    if (ticket !== mounting) return;
    replace(root);
    stopPage = page.mount(root, route) ?? null;
  } catch (error) {
    replace(root, h("h1", {}, "This page failed to load"), h("p", { class: "error" }, String(error)));
    console.error(error);
  }
}

addEventListener("hashchange", () => {
  show();
  root.focus({ preventScroll: true });
});
show();
