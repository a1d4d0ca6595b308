// Loading a game's renderer (web/games/<game id>.js) and drawing a match picture with it.
//
// The interface every renderer keeps (one module per game, written against the match's view):
//   export function render(root, ctx) {}  // draw the whole match picture into root (emptied before each call)
//   ctx = { match, legal, seat, game, act, busy }
// and, optionally, `export function describe(action, ctx)`: an action in words for the log ("moved ...");
// the shell sets ctx.suggest = true when it words a hint ("Move ...").
import { h } from "./dom.js";
import * as generic from "./generic-renderer.js";
import { actionWords } from "./games/parts.js";

const loaded = new Map();

/** The renderer module of a game; the generic one (a button per legal action) when the game has none. */
export function loadRenderer(game) {
  if (!loaded.has(game)) {
    loaded.set(
      game,
      import(`/web/games/${encodeURIComponent(game)}.js`).catch((error) => {
        console.warn(`no renderer for ${game}; using the generic one`, error);
        return generic;
      }),
    );
  }
  return loaded.get(game);
}

/** Draw the match picture into root with the renderer; a renderer that throws leaves the generic picture and the error. */
export function draw(renderer, root, ctx) {
  root.replaceChildren();
  try {
    renderer.render(root, ctx);
  } catch (error) {
    console.error(error);
    root.replaceChildren(h("p", { class: "error", role: "alert" }, `The picture failed to draw: ${error.message}`));
    if (renderer !== generic) generic.render(root, ctx);
  }
}

/** An action in words: the renderer's `describe` when it has one, else its type and fields in words (never JSON). */
export function describeAction(renderer, action, ctx) {
  if (action === null || action === undefined) return "";
  try {
    if (typeof renderer.describe === "function") return renderer.describe(action, ctx);
  } catch (error) {
    console.warn(error);
  }
  return actionWords(action);
}
