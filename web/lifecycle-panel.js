// Around play on the match page: resign (with a confirm step), leave a match not started, offer or
// accept a rematch and go to it, and the invite link of an unlisted match with open seats.
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { problemText } from "./problems.js";
import { matchHref } from "./router.js";
import { forgetSeat, rememberMatch } from "./seats.js";
import { seatList } from "./seat-names.js";

/** A resignation in a list of moves (its log entry has no action). */
export function resignText(entry) {
  return entry.handed_to ? `resigned; the ${entry.handed_to} AI plays the seat on` : "resigned";
}

/** The panel of match `id` for `seat` (null: the public) with its `token`; `onMatch(match)` takes an answer. */
export function lifecyclePanel({ id, seat, token, onMatch, onNotice }) {
  const element = h("div", { class: "lifecycle" });
  let confirming = false;
  let busy = false;
  let match = null;
  let cooperative = false;
  let answered = null; // the last rematch answer, shown until the stream brings that version
  let moved = false; // gone to the rematch already

  /** Once the rematch started, both players go to it: the accepting side from its answer, the offering side
   *  from the match stream's event (each carries the seat's own rematch seat and token). */
  const followRematch = (offer) => {
    if (moved || !offer?.match || seat === null) return;
    moved = true;
    if (offer.token) rememberMatch(offer.match, { game: match.game, tokens: [{ seat: offer.seat, token: offer.token }] });
    location.hash = matchHref(offer.match, offer.seat ?? undefined);
  };

  const post = async (what, then) => {
    if (busy) return;
    busy = true;
    onNotice(null);
    draw();
    try {
      then(await api(`/v1/matches/${id}/${what}`, { method: "POST", token }));
    } catch (error) {
      onNotice(problemText(error));
    }
    busy = false;
    confirming = false;
    draw();
  };

  const resignControls = () => {
    if (!confirming) {
      return h("button", { type: "button", class: "resign", disabled: busy, onclick: () => { confirming = true; draw(); } }, "Resign");
    }
    return h("p", { class: "confirm", role: "group", "aria-label": "Confirm resigning" },
      cooperative ? "Resign? The easy AI takes over your seat (the team gives up if no player is left). " : "Resign and lose this match? ",
      h("button", { type: "button", class: "danger", disabled: busy, onclick: () => post("resign", (answer) => {
        if (answer.seats[seat]?.type !== "ai") return onMatch(answer);
        forgetSeat(id, seat); // the AI plays the seat on: its token stopped working, so watch as the public
        location.hash = matchHref(id, "public");
      }) }, "Yes, resign"), " ",
      h("button", { type: "button", disabled: busy, onclick: () => { confirming = false; draw(); } }, "Cancel"));
  };

  const leaveControls = () => h("button", { type: "button", class: "leave", disabled: busy, onclick: () => post("leave", () => {
    forgetSeat(id, seat);
    location.hash = matchHref(id, "public");
  }) }, "Leave this seat");

  const rematchControls = () => {
    const offer = match.rematch;
    if (offer?.match) {
      return h("p", { class: "rematch" }, "The rematch has started: going there. ",
        h("a", { href: matchHref(offer.match, offer.seat ?? undefined), class: "rematch-link" }, "Go to the rematch"));
    }
    if (offer && offer.offered_by.includes(seat)) {
      return h("p", { class: "rematch" }, `Rematch offered; waiting for ${seatList(match, offer.waiting_for, seat)} to accept.`);
    }
    const label = offer ? "Accept the rematch" : "Offer a rematch";
    const said = offer ? `${seatList(match, offer.offered_by, seat)} offered a rematch. ` : "";
    return h("p", { class: "rematch" }, said,
      h("button", { type: "button", class: "rematch-button", disabled: busy, onclick: () => post("rematch", (answer) => {
        answered = answer;
        match = { ...match, rematch: answer.rematch };
        followRematch(answer.rematch);
      }) }, label));
  };

  const inviteLink = () => {
    const url = `${location.origin}${location.pathname}${matchHref(id)}`;
    return h("p", { class: "invite" }, "Unlisted: only people with the link find this match. Invite link: ",
      h("input", { type: "text", readonly: true, value: url, class: "invite-link", "aria-label": "Invite link", onfocus: (event) => event.target.select() }));
  };

  const draw = () => {
    if (!match) return;
    const playing = seat !== null && ["human", "bot"].includes(match.seats[seat]?.type);
    const open = match.seats.some((info) => !info.filled);
    replace(element,
      match.unlisted && match.status === "waiting" && open ? inviteLink() : "",
      playing && match.status === "active" ? resignControls() : "",
      playing && match.status === "waiting" ? leaveControls() : "",
      playing && match.status === "finished" && !match.tournament ? rematchControls() : "");
  };

  /** Show the match as it is now (`game`: its catalog entry). */
  const update = (current, game) => {
    if (match && current.status !== match.status) confirming = false;
    match = answered && current.version < answered.version ? { ...current, rematch: answered.rematch } : current;
    cooperative = Boolean(game?.cooperative);
    draw();
    if (match.status === "finished") followRematch(match.rematch);
  };
  return { element, update };
}
