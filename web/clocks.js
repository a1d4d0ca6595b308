// Turn-timer clocks: each waited-for seat's time left, from the match's `deadlines`.
import { h, replace } from "./dom.js";
import { seatName } from "./seat-names.js";

/** A clock panel; update(match, mySeat) sets the deadlines, and it ticks by itself until stop(). */
export function clockPanel() {
  const element = h("div", { class: "clocks", role: "group", "aria-label": "Turn timers" });
  let match = null;
  let mySeat = null;
  const tick = () => {
    if (!match?.turn_timer) {
      element.hidden = true;
      return;
    }
    element.hidden = false;
    const deadlines = new Map((match.deadlines ?? []).map((d) => [d.seat, Date.parse(d.at)]));
    replace(element, match.seats.map(({ seat }) => {
      const at = deadlines.get(seat);
      const left = at === undefined ? null : Math.max(0, at - Date.now());
      const running = left !== null;
      return h("div", { class: `clock${running ? " running" : ""}${running && left < 10000 ? " low" : ""}`, "data-seat": seat },
        h("span", { class: "clock-seat" }, seatName(match, seat, mySeat)),
        h("span", { class: "clock-time", "aria-label": running ? `${Math.ceil(left / 1000)} seconds left` : "not timed now" },
          running ? formatLeft(left) : `${match.turn_timer.seconds}s a turn`));
    }));
  };
  const interval = setInterval(tick, 250);
  return {
    element,
    update(next, seat) {
      match = next;
      mySeat = seat;
      tick();
    },
    stop: () => clearInterval(interval),
  };
}

/** Milliseconds left as m:ss. */
export function formatLeft(ms) {
  const seconds = Math.ceil(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
