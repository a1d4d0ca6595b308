// How a seat is named on every page: its number (as the API counts, from 0), who holds it, and "you".

/** A seat's name: "Seat 0 · Ada", "Seat 1 · AI (easy)", with " (you)" for the viewer's own seat. */
export function seatName(match, seat, mySeat = null) {
  const info = match?.seats?.[seat];
  let who = "";
  if (info?.type === "ai") who = `AI (${info.level})`;
  else if (info?.name) who = info.name;
  else if (info?.type === "bot") who = `bot ${info.bot}`;
  else if (info && !info.filled) who = "open";
  const you = seat === mySeat ? " (you)" : "";
  return `Seat ${seat}${who ? ` · ${who}` : ""}${you}`;
}

/** A list of seats in words: "Seat 0 and Seat 1 · AI (easy)". */
export function seatList(match, seats, mySeat = null) {
  const names = seats.map((seat) => seatName(match, seat, mySeat));
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
