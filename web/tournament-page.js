// Placeholder while the page is written.
import { h } from "./dom.js";

/** Mount the page. */
export function mount(root) {
  root.append(h("p", {}, "Coming soon."));
}
