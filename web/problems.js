// A refusal in words for the page: the problem's detail, with the fields a 400 names.

/** The text to show for an error thrown by api(): detail, then each bad field and its messages. */
export function problemText(error) {
  const problem = error?.problem ?? {};
  const parts = [problem.detail || error?.message || String(error)];
  if (problem.errors) parts.push(...fieldMessages(problem.errors));
  return parts.join(" · ");
}

function fieldMessages(errors, prefix = "") {
  const out = [];
  for (const [field, value] of Object.entries(errors)) {
    const path = prefix ? `${prefix}.${field}` : field;
    if (Array.isArray(value)) out.push(`${path}: ${value.join(" ")}`);
    else if (value && typeof value === "object") out.push(...fieldMessages(value, path));
  }
  return out;
}
