// The one DOM helper every page and game renderer builds with: h("button", {onclick, class: "x"}, "text", child).
// Text children are always text nodes (never parsed as HTML), so nothing a server answer carries can inject markup.

/** An element with attributes (`on*` functions become listeners, `class`/`style` as given, booleans toggle) and children. */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "dataset") {
      Object.assign(element.dataset, value);
    } else if (name === "style") {
      element.style.cssText = value; // through the CSSOM: a style attribute is inline style, which the policy refuses
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

/** Append children (nodes, strings, numbers, nested arrays; null and false are skipped). */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** Replace everything inside `parent` with `children`. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}
