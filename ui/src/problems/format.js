// The problems panel's pure logic: an error's one-line text, and the open file's diagnostics
// with the entry each line holds (so a click can jump to it). No DOM, no IPC.

/** At most this many diagnostics are listed (a broken file can have one per line). */
export const MAX_LISTED = 500;

/** `Error (load): cannot read …`: what failed, the kind the backend gave, and why. */
export function errorText(err, doing = null) {
  const kind = err?.kind ?? 'error';
  const message = err?.message ?? String(err);
  return doing ? `${doing} failed (${kind}): ${message}` : `Error (${kind}): ${message}`;
}

/** `line → entry id` for tree rows (`{ id, line }`). */
export function lineIndex(rows) {
  const index = new Map();
  for (const row of rows ?? []) {
    if (row.line != null && !index.has(row.line)) index.set(row.line, row.id);
  }
  return index;
}

/**
 * The diagnostics to list, errors first then by line, each with `entryId` (null when no entry
 * came from that line: a dropped line, or line 0 for the whole file); `more` counts the rest.
 */
export function diagnosticItems(diagnostics, index = new Map()) {
  const rank = (d) => (d.severity === 'error' ? 0 : 1);
  const sorted = [...(diagnostics ?? [])].sort((a, b) => rank(a) - rank(b) || a.line - b.line);
  const items = sorted.slice(0, MAX_LISTED).map((d) => ({
    line: d.line,
    severity: d.severity,
    message: d.message,
    where: d.line > 0 ? `line ${d.line}` : 'file',
    entryId: index.get(d.line) ?? null,
  }));
  return { items, more: Math.max(0, sorted.length - items.length) };
}

/** `3 problems (1 error)` for the title bar; empty when there are none. */
export function problemsSummary(diagnostics) {
  const n = diagnostics?.length ?? 0;
  if (n === 0) return '';
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const base = `${n} ${n === 1 ? 'problem' : 'problems'}`;
  return errors > 0 && errors < n ? `${base} (${errors} ${errors === 1 ? 'error' : 'errors'})` : base;
}

/** Whether the file read as no session at all, so the problems should show unasked. */
export function looksUnreadable(session) {
  return (session?.entryCount ?? 0) === 0 && (session?.diagnostics ?? []).some((d) => d.severity === 'error');
}
