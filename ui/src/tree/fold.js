// Folding of branches: ← folds the selected row (hides everything below it), → unfolds it.
// Pure (node --test). Rows are in display order (pre-order) and carry `parentId`.

/** Ids of the rows that have children among `rows`. */
export function parentsOf(rows) {
  const parents = new Set();
  for (const row of rows) if (row.parentId != null) parents.add(row.parentId);
  return parents;
}

/**
 * Indexes of `rows` not hidden by `folded` (a set of ids): a row is hidden when one of its
 * ancestors is folded. One pass: parents come before their children in display order.
 */
export function unfoldedRows(rows, folded) {
  if (folded.size === 0) return rows.map((_, i) => i);
  const hidden = new Set();
  const out = [];
  rows.forEach((row, i) => {
    const p = row.parentId;
    if (p != null && (folded.has(p) || hidden.has(p))) hidden.add(row.id);
    else out.push(i);
  });
  return out;
}

/**
 * What ← / → do to the row `row` (`{ id, parentId }`): `{ fold: id }`, `{ unfold: id }`,
 * `{ select: id }` (← on a leaf or a folded row goes to the parent), or `null`.
 */
export function foldKey(row, key, folded, parents) {
  if (!row) return null;
  const hasChildren = parents.has(row.id);
  if (key === 'ArrowLeft') {
    if (hasChildren && !folded.has(row.id)) return { fold: row.id };
    return row.parentId != null ? { select: row.parentId } : null;
  }
  if (key === 'ArrowRight') {
    if (folded.has(row.id)) return { unfold: row.id };
    return null;
  }
  return null;
}
