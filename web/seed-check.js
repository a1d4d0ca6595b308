// Checking a revealed seed against the commitment published when the match started: SHA-256 of its UTF-8 text.
// The hash is noble-hashes' (vendored by `make web`): the same on plain http, where crypto.subtle is missing.
import { sha256 } from "./vendor/noble-hashes/sha2.js";

/** The lowercase hex SHA-256 of a text's UTF-8 bytes. */
export function sha256Hex(text) {
  const digest = sha256(new TextEncoder().encode(text));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** {ok, digest}: whether sha256(seed) equals the commitment. */
export async function checkSeed(seed, commitment) {
  const digest = sha256Hex(String(seed));
  return { ok: digest === String(commitment).toLowerCase(), digest };
}
