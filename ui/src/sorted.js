// Searches in ascending typed arrays of row numbers (the shown rows, changed rows), shared by
// the tree's table and the branch map.

/**
 * The first position in `index` (ascending) at or after `from` whose value is ≥ `r`.
 * @param {ArrayLike<number>} index
 * @param {number} r
 * @param {number} [from]
 */
export function lowerBound(index, r, from = 0) {
  let lo = from;
  let hi = index.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (index[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
