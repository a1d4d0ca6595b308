// The tournament's ratings chart, drawn in SVG: each entrant's 95% interval, its skill mu and display rating.

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== null && value !== undefined) element.setAttribute(name, String(value));
  for (const child of children.flat()) if (child !== null && child !== undefined) element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return element;
}

/** An SVG chart of openskill ratings (best first): interval bars, a dot at mu, a tick at the display rating. */
export function ratingsChart(ratings) {
  const row = 30;
  const left = 120;
  const right = 20;
  const top = 28;
  const width = 480;
  const height = top + ratings.length * row + 30;
  const low = Math.min(...ratings.map((r) => Math.min(r.interval[0], r.rating)));
  const high = Math.max(...ratings.map((r) => r.interval[1]));
  const step = niceStep((high - low) / 6 || 1);
  const from = Math.floor(low / step) * step;
  const to = Math.ceil(high / step) * step;
  const x = (value) => left + ((value - from) / (to - from || 1)) * (width - left - right);
  const ticks = [];
  for (let value = from; value <= to + step / 2; value += step) ticks.push(value);
  const title = svg("title", {}, "Ratings: 95% interval of each entrant's skill, its mean (dot) and display rating (tick)");
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "ratings-chart", role: "img", "aria-labelledby": "ratings-chart-title" },
    Object.assign(title, { id: "ratings-chart-title" }),
    ticks.map((value) => svg("g", { class: "tick" },
      svg("line", { x1: x(value), x2: x(value), y1: top - 6, y2: height - 24, stroke: "#e3dbd2" }),
      svg("text", { x: x(value), y: height - 8, "text-anchor": "middle", "font-size": 11, fill: "#5d5866" }, round(value)))),
    svg("text", { x: left, y: 14, "font-size": 11, fill: "#5d5866" }, "— 95% interval   ● skill (mu)   ▏ display rating (mu − 3σ)"),
    ratings.map((rating, index) => {
      const y = top + index * row + row / 2;
      return svg("g", { class: "rating-row" },
        svg("text", { x: left - 8, y: y + 4, "text-anchor": "end", "font-size": 13, fill: "#1d1b22" }, truncate(rating.name, 16)),
        svg("line", { x1: x(rating.interval[0]), x2: x(rating.interval[1]), y1: y, y2: y, stroke: "#b3245a", "stroke-width": 4, "stroke-linecap": "round", opacity: 0.45 }),
        svg("line", { x1: x(rating.rating), x2: x(rating.rating), y1: y - 9, y2: y + 9, stroke: "#1d1b22", "stroke-width": 2 }),
        svg("circle", { cx: x(rating.mu), cy: y, r: 5, fill: "#b3245a" }));
    }));
}

function niceStep(raw) {
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((k) => k * power).find((candidate) => candidate >= raw);
}

function round(value) {
  return Math.abs(value) < 1e-9 ? "0" : String(Number(value.toFixed(2)));
}

function truncate(text, length) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
