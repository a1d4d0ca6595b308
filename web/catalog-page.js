// A page drawn from the game catalog that refreshes its lists while it is shown (the lobby, the tournaments).
import { catalog } from "./catalog.js";
import { h } from "./dom.js";
import { problemText } from "./problems.js";

const REFRESH_MS = 5000;

/** Once the catalog is in, `build(games)` draws the page and answers its refresh, run now and every 5 s; returns stop(). */
export function mountWithCatalog(root, build) {
  let timer = null;
  let stopped = false;
  catalog().then((games) => {
    if (stopped) return;
    const refresh = build(games);
    refresh();
    timer = setInterval(refresh, REFRESH_MS);
  }).catch((error) => root.append(h("p", { class: "error" }, problemText(error))));
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
