// The entry list: owns its part of the DOM. Session text is set with textContent only, never
// parsed as HTML: session files hold arbitrary model and tool output.

import { entryKind, entryLabel, formatCount, formatTokens, shortId } from './format.js';

/** Replaces the rows of `tbody` with one `<tr data-entry-id>` per entry, in file order. */
export function renderEntries(tbody, entries) {
  const doc = tbody.ownerDocument;
  const fragment = doc.createDocumentFragment();
  for (const entry of entries) {
    fragment.append(entryRow(doc, entry));
  }
  tbody.replaceChildren(fragment);
}

function entryRow(doc, entry) {
  const row = doc.createElement('tr');
  row.className = `kind-${entryKind(entry)}`;
  row.dataset.entryId = entry.id;
  row.append(
    cell(doc, 'col-line', String(entry.line)),
    cell(doc, 'col-id', shortId(entry.id), entry.id),
    cell(doc, 'col-parent', shortId(entry.parentId), entry.parentId ?? ''),
    cell(doc, 'col-kind', entryLabel(entry)),
    cell(doc, 'col-tokens', formatTokens(entry.tokens), `${formatCount(entry.tokens)} tokens`),
  );
  return row;
}

function cell(doc, className, text, title) {
  const td = doc.createElement('td');
  td.className = className;
  td.textContent = text;
  if (title) td.title = title;
  return td;
}
