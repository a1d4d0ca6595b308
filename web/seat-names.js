// How a seat is named on every page: by who holds it (a player's name, "Easy AI", a bot), never by its
// number, and what the server's texts say about seats ("seat 1 has the most points") in those names.

/** The name a seat goes by before duplicates are told apart: its player's name, "Easy AI", "bot Alpha", "Player 2". */
function baseName(info, seat) {
  if (info?.name) return info.name;
  if (info?.type === "ai") return `${capital(info.level ?? "")} AI`.trim();
  if (info?.type === "bot") return `bot ${info.bot}`;
  if (info && !info.filled) return `Open seat ${seat + 1}`;
  return `Player ${seat + 1}`; // a person who gave no name: counted from 1, as the table is
}

/** A seat's player name: "Ada", "Easy AI", "Easy AI 2" (two seats of one name are numbered in seat order). */
export function playerName(match, seat) {
  const seats = match?.seats ?? [];
  const base = baseName(seats[seat], seat);
  const same = seats.filter((info, index) => baseName(info, index) === base).map((info) => info.seat);
  if (same.length <= 1) return base;
  return `${base} ${same.indexOf(seat) + 1}`;
}

/** A seat's name with " (you)" for the viewer's own seat: "Ada (you)", "Easy AI". */
export function seatName(match, seat, mySeat = null) {
  return `${playerName(match, seat)}${seat === mySeat ? " (you)" : ""}`;
}

/** A list of seats in words: "Ada, Easy AI and Bo". */
export function seatList(match, seats, mySeat = null) {
  const names = seats.map((seat) => seatName(match, seat, mySeat));
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * A text from the server (a result's reason, a game's event) with its seats named: "seat 1 has the most points"
 * becomes "Ada has the most points", "seats [0, 1]: co-champions" becomes "Ada and Bo: co-champions".
 */
export function namedText(match, text, mySeat = null) {
  if (typeof text !== "string") return text === null || text === undefined ? "" : String(text);
  const list = (seats) => seatList(match, seats.split(/,| and /).filter((s) => s.trim()).map(Number), mySeat) || "nobody";
  // One pass, so a name put in ("Open seat 2") is never read again as a seat number.
  return text.replace(/\bseats \[([\d,\s]*)\]|\bseats (\d+(?:(?:, | and )\d+)+)|\bseat (\d+)('s)?/gi,
    (_, bracketed, listed, seat, owner, at) => {
      if (bracketed !== undefined) return list(bracketed);
      if (listed !== undefined) return list(listed);
      if (owner && Number(seat) === mySeat) return at === 0 ? "Your" : "your";
      return `${seatName(match, Number(seat), mySeat)}${owner ?? ""}`;
    });
}

function capital(text) {
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}
