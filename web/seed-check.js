// Checking a revealed seed against the commitment published when the match started: SHA-256 of its UTF-8 text.
import { sha256 } from "./sha256.js";

/** The lowercase hex SHA-256 of a text's UTF-8 bytes (crypto.subtle where the page may use it). */
export async function sha256Hex(text) {
  const bytes = new TextEncoder().encode(text);
  const digest = globalThis.crypto?.subtle
    ? new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))
    : sha256(bytes);
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** {ok, digest}: whether sha256(seed) equals the commitment. */
export async function checkSeed(seed, commitment) {
  const digest = await sha256Hex(String(seed));
  return { ok: digest === String(commitment).toLowerCase(), digest };
}
