// The usage dialog's pure parts: the totals table's rows and the context-size chart's points.

import { formatCount } from '../entries/format.js';

const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 4, maximumFractionDigits: 4 });

/** `$0.0123`, `$1,234.5000`: the recorded cost, four decimals (a cent is too coarse for one reply). */
export function dollars(cost) {
  return USD.format(Number(cost ?? 0) + 0);
}

/**
 * The table: `[{ name, records, input, output, cacheRead, cacheWrite, cost }]`, session first;
 * with omp's subagents and advisors, their rows after the branches, then the session and each
 * branch that started some with them added.
 * @param {import('../generated/reports').UsageReport} report
 */
export function usageRows(report) {
  const row = (name, t) => ({
    name,
    records: formatCount(t.records),
    input: formatCount(t.input),
    output: formatCount(t.output),
    cacheRead: formatCount(t.cacheRead),
    cacheWrite: formatCount(t.cacheWrite),
    cost: dollars(t.cost),
  });
  const kinds = { replies: 'replies', sideCalls: 'side calls (cache warming, titles)', summaries: 'summaries', toolCalls: 'calls inside tools' };
  return [
    row('session', report.totals),
    ...Object.entries(report.byKind).map(([k, t]) => row(`  ${kinds[k] ?? k}`, t)),
    ...report.byModel.map((m) => row(`model ${m.model}`, m)),
    ...report.branches.map((b) => row(`branch to ${b.leafId} (${formatCount(b.pathLength)} entries)`, b)),
    ...subagentRows(report, row),
  ];
}

const NONE = { records: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 };

/**
 * The subagent part of the table (none without subagents). A missing or unreadable transcript
 * shows the usage omp recorded in the `task` result, when there is one.
 * @param {import('../generated/reports').UsageReport} report
 * @param {(name: string, t: any) => any} row
 */
function subagentRows(report, row) {
  const subs = report.subagents ?? [];
  if (subs.length === 0) return [];
  const lines = [row('subagents and advisors', report.subagentTotals)];
  for (const s of subs) {
    const what = [s.agent ?? (s.kind === 'advisor' ? 'advisor' : s.role ?? 'agent'), s.model].filter(Boolean).join(', ');
    const name = `  ${'  '.repeat(s.depth)}${s.file} (${what})`;
    if (s.status === 'read') lines.push(row(name, s.totals));
    else if (s.counted === 'recorded' && s.recorded) lines.push(row(`${name}: ${s.status}, as recorded`, { records: 1, ...s.recorded }));
    else lines.push({ ...row(`${name}: ${s.status}, spend unknown`, NONE), records: '', input: '', output: '', cacheRead: '', cacheWrite: '', cost: '' });
  }
  lines.push(row('session with subagents', report.withSubagents));
  for (const b of report.branchSubagents ?? []) {
    if (b.subagents.records > 0) lines.push(row(`branch to ${b.leafId} with its subagents`, b.withSubagents));
  }
  return lines;
}

/**
 * The chart: each reply's context size in file order (`points: [{ x, y, entryId }]` with `x`
 * the entry index), the compactions as marks (`marks: [{ x, entryId }]`), and the ranges.
 * @param {import('../generated/reports').UsageReport} report
 */
export function chartPoints(report) {
  const points = report.records.filter((r) => r.contextTokens != null).map((r) => ({ x: r.index, y: r.contextTokens, entryId: r.entryId }));
  const marks = report.compactions.map((c) => ({ x: c.index, entryId: c.entryId }));
  const xs = [...points.map((p) => p.x), ...marks.map((m) => m.x)];
  return {
    points,
    marks,
    xMax: xs.length ? Math.max(...xs) : 0,
    yMax: points.length ? Math.max(...points.map((p) => p.y)) : 0,
  };
}
