// The branch graph's words (pure, node --test): what hovering a node says.

import { formatCount, formatTokens } from '../entries/format.js';
import { rowId } from '../tree/table.js';
import { MARK } from './layout.js';

const MARK_NAMES = ['turn', 'compaction', 'branch summary', 'entries'];

/**
 * The hover text of table row `row` of table `t` in graph `g` (`{ shape, paint, expanded }`):
 * its turn's kind, first id, size, tokens, state and label, then `preview` (the turn's first
 * request); an entry of an expanded turn speaks for itself.
 */
export function hoverText(t, g, row, preview) {
  if (!t || !g) return '';
  const { shape, paint } = g;
  const v = shape.nodeOfRow[row];
  const rows = shape.end[v] - shape.start[v];
  const parts = [];
  if (g.expanded.has(v)) {
    parts.push(`entry ${rowId(t, row)} · ${formatTokens(t.tokens[row])} tokens (${formatCount(t.tokens[row])}) · ${t.states[t.state[row]]}`);
    const label = t.labels.get(row);
    if (label) parts.push(`label: ${label}`);
  } else {
    const tokens = shape.tokens[v];
    parts.push(`${MARK_NAMES[shape.mark[v]]} ${rowId(t, shape.start[v])} · ${rows} ${rows === 1 ? 'entry' : 'entries'}`
      + ` · ${formatTokens(tokens)} tokens (${formatCount(tokens)}) · ${t.states[paint.state[v]]}`);
    const label = shape.labels.get(v);
    if (label) parts.push(`label: ${label}`);
  }
  if (preview) parts.push(preview);
  else if (shape.mark[v] === MARK.turn && row === shape.start[v]) parts.push('(loading the request…)');
  return parts.join('\n');
}
