// The session library's pure logic: ordering, searching, and the sizes and times shown.
// Input is `list_sessions`'s answer (crates/contextree-face/src/library.rs); no DOM, no IPC.

import { shortPath } from '../paths.js';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** `1536` → `1.5 KiB`: binary units, one decimal below 10, none above. */
export function humanSize(bytes) {
  if (!Number.isFinite(bytes) || bytes < 0) return '?';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${bytes} B`;
  // 9.96 would round to "10.0": such values print without a decimal.
  const text = value < 9.95 ? value.toFixed(1) : String(Math.round(value));
  return `${text} ${UNITS[unit]}`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long before `nowMs` the time `ms` was, in words: `5 min ago`, `yesterday`, `3 weeks ago`. */
export function relativeTime(ms, nowMs) {
  if (ms == null || !Number.isFinite(ms)) return 'unknown';
  const ago = nowMs - ms;
  // A clock a little ahead (another machine's file) is "just now", not "in the future".
  if (ago < MINUTE) return ago < -5 * MINUTE ? 'in the future' : 'just now';
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} min ago`;
  if (ago < DAY) return `${Math.floor(ago / HOUR)} h ago`;
  const days = Math.floor(ago / DAY);
  if (days === 1) return 'yesterday';
  if (days < 14) return `${days} days ago`;
  if (days < 60) return `${Math.floor(days / 7)} weeks ago`;
  if (days < 365) return `${Math.floor(days / 30)} months ago`;
  const years = Math.floor(days / 365);
  return years === 1 ? '1 year ago' : `${years} years ago`;
}

const pad = (n) => String(n).padStart(2, '0');

/**
 * `2026-12-02 15:50` in the time zone `offsetMinutes` behind UTC (`Date#getTimezoneOffset`'s
 * sign; the default is the machine's zone at that time).
 */
export function absoluteTime(ms, offsetMinutes = new Date(ms).getTimezoneOffset()) {
  if (ms == null || !Number.isFinite(ms)) return 'unknown';
  const d = new Date(ms - offsetMinutes * MINUTE);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** The line a session is known by: its name, else its first request, else its file name. */
export function sessionTitle(s) {
  for (const text of [s.name, s.firstRequest]) {
    if (typeof text === 'string' && text.trim() !== '') return text.trim();
  }
  return s.fileName || s.path || '(unnamed)';
}

/** `1 entry` / `12 entries`. */
export function entryCount(n) {
  return `${n} ${n === 1 ? 'entry' : 'entries'}`;
}

/** The words of a search, lower-cased; empty for a blank query. */
export function searchWords(query) {
  return String(query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** Whether `session` of project `projectPath` contains every word (any of its texts). */
export function sessionMatches(session, projectPath, words) {
  if (words.length === 0) return true;
  const hay = [session.name, session.firstRequest, session.fileName, session.id, session.cwd, projectPath, session.dialect]
    .filter((t) => typeof t === 'string')
    .join('\n')
    .toLowerCase();
  return words.every((w) => hay.includes(w));
}

const newest = (a, b) => (b ?? -Infinity) - (a ?? -Infinity);

/**
 * The projects newest first, each with its sessions newest first, keeping only the sessions
 * that match `query` (every word, case-insensitive) and the projects that keep one. Ties keep
 * the server's order (Array#sort is stable).
 * @param {import('../generated/reports').ProjectReport[]} projects
 * @param {string} [query]
 */
export function filterLibrary(projects, query = '') {
  const words = searchWords(query);
  const kept = [];
  for (const project of projects ?? []) {
    const sessions = project.sessions
      .filter((s) => sessionMatches(s, project.project, words))
      .sort((a, b) => newest(a.modifiedMs, b.modifiedMs));
    if (sessions.length === 0) continue;
    kept.push({ ...project, sessions, lastActivityMs: sessions[0].modifiedMs ?? project.lastActivityMs });
  }
  return kept.sort((a, b) => newest(a.lastActivityMs, b.lastActivityMs));
}

/** `{ projects, sessions }` counts of a (filtered) library. */
export function libraryCounts(projects) {
  return { projects: projects.length, sessions: projects.reduce((n, p) => n + p.sessions.length, 0) };
}

/** The paths of the sessions in display order (arrow keys move along it). */
export function sessionOrder(projects) {
  return projects.flatMap((p) => p.sessions.map((s) => s.path));
}

/** The path `step` places away from `path` in `order`, clamped; the first when `path` is absent. */
export function stepSession(order, path, step) {
  if (order.length === 0) return null;
  const at = order.indexOf(path);
  if (at < 0) return order[step < 0 ? order.length - 1 : 0];
  return order[Math.min(order.length - 1, Math.max(0, at + step))];
}

/** One line about the folders looked in: `pi: ~/.pi/agent/sessions (3) · omp: … (missing)`. */
export function rootsLine(roots) {
  return (roots ?? [])
    .map((r) => `${r.dialect ?? 'sessions'}: ${shortPath(r.path)} (${r.exists ? r.sessionCount : 'missing'}${r.origin === 'default' ? '' : `, ${r.origin}`})`)
    .join(' · ');
}

// Wrapped: a browser's setTimeout called as a method of another object throws.
const TIMERS = { setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (t) => clearTimeout(t) };

/** `fn` delayed until `ms` have passed without another call (the search box's typing). */
export function debounce(fn, ms, timers = TIMERS) {
  let timer = null;
  return (...args) => {
    if (timer != null) timers.clearTimeout(timer);
    timer = timers.setTimeout(() => {
      timer = null;
      fn(...args);
    }, ms);
  };
}

// `demo.rs`'s DEMO_FILE_NAME: the bundled demo, opened when no session is named at start.
export const DEMO_FILE_NAME = 'demo-session.jsonl';

/**
 * The title bar's offer at start, or null for none: when the demo stands in for a session the
 * user did not name and the library holds sessions of theirs, say how many and where they are.
 * `session`: the session opened at start; `sessionCount`: `list_sessions`'s count.
 */
export function libraryOffer(session, sessionCount) {
  if (session?.fileName !== DEMO_FILE_NAME || !(sessionCount > 0)) return null;
  return `${sessionCount} ${sessionCount === 1 ? 'session' : 'sessions'} found — open library (l)`;
}
