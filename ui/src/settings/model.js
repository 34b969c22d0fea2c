// The settings screen's pure logic: the choices, reading and checking the form, the theme in
// effect, and how providers and their keys are shown. The stored shape is `AppSettings` of
// crates/contextree-face/src/settings.rs: { theme, tokenizer, contextWindow, library: { pi, omp, only } }.

import { parseWindow } from '../budget/bar.js';

export const THEMES = [
  { id: 'system', label: 'Follow the system' },
  { id: 'light', label: 'Light' },
  { id: 'dark', label: 'Dark' },
];

export const TOKENIZERS = [
  { id: 'o200k_base', label: 'o200k_base (GPT-4o and later)' },
  { id: 'cl100k_base', label: 'cl100k_base (GPT-4, GPT-3.5)' },
  { id: 'none', label: 'None (estimate only)' },
];

/**
 * The open session's dialect choices (docs/decisions.md D22) for the rule sets the backend
 * knows (`session.ruleSets`, a `RuleSetRow[]`): `''` detects the agent and its rule set; an
 * agent name keeps the agent and lets the installed version, the file or the newest decide the
 * rules; an `agent@version` forces one rule set.
 * @param {import('../generated/reports').RuleSetRow[]} ruleSets
 * @returns {{ id: string, label: string }[]}
 */
export function dialectChoices(ruleSets = []) {
  const choices = [{ id: '', label: 'Detect from the file' }];
  for (const agent of [...new Set(ruleSets.map((r) => r.dialect))]) {
    choices.push({ id: agent, label: `${agent} (rules: installed version, file or newest)` });
    for (const r of ruleSets.filter((x) => x.dialect === agent)) {
      choices.push({ id: r.name, label: `${r.name} — ${r.reference} (${r.standsFor})` });
    }
  }
  return choices;
}

/** The title bar's words for the rules a session was read with: `pi@1.6` and why. */
export function ruleSetText(session) {
  const rs = session?.ruleSet;
  if (!rs) return { label: `dialect: ${session?.dialect ?? ''}`, title: '' };
  return {
    label: `rules: ${rs.name}`,
    title: `${rs.name} follows ${rs.reference}: ${rs.why}${session.requested ? '' : ' (pick other rules in the list beside it)'}`,
  };
}

const MAX_WINDOW = 100_000_000; // settings.rs MAX_WINDOW

/** The form's fields (all strings) for stored settings. */
export function formFromSettings(s = {}) {
  return {
    theme: s.theme ?? 'system',
    tokenizer: s.tokenizer ?? 'o200k_base',
    contextWindow: s.contextWindow == null ? '' : String(s.contextWindow),
    piRoot: s.library?.pi ?? '',
    ompRoot: s.library?.omp ?? '',
    onlyRoots: (s.library?.only ?? []).join('\n'),
  };
}

/** A library folder must be absolute or start at the home folder (`~/`). */
function folderError(label, path) {
  if (path === '' || path.startsWith('/') || path === '~' || path.startsWith('~/')) return null;
  return `${label}: \`${path}\` must be an absolute path (or start with ~/)`;
}

/**
 * `{ settings, errors }` for the form's fields; `settings` is null when there are errors.
 * The window takes what the budget bar's input takes (`200k`, `1m`, `128000`); empty is auto.
 */
export function readForm(form) {
  const errors = [];
  const pick = (value, choices, what) => {
    if (choices.some((c) => c.id === value)) return value;
    errors.push(`unknown ${what} \`${value}\``);
    return null;
  };
  const theme = pick(form.theme, THEMES, 'theme');
  const tokenizer = pick(form.tokenizer, TOKENIZERS, 'tokenizer');
  const windowText = String(form.contextWindow ?? '').trim();
  let contextWindow = null;
  if (windowText !== '') {
    contextWindow = parseWindow(windowText);
    if (contextWindow == null || contextWindow > MAX_WINDOW) {
      errors.push(`context window: \`${windowText}\` is not a number of tokens between 1 and ${MAX_WINDOW} (e.g. 200000 or 200k)`);
      contextWindow = null;
    }
  }
  const pi = String(form.piRoot ?? '').trim();
  const omp = String(form.ompRoot ?? '').trim();
  const only = String(form.onlyRoots ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  for (const [label, path] of [['pi folder', pi], ['omp folder', omp], ...only.map((p) => ['folder', p])]) {
    const e = folderError(label, path);
    if (e) errors.push(e);
  }
  if (errors.length > 0) return { settings: null, errors };
  return {
    settings: {
      theme, tokenizer, contextWindow,
      library: { pi: pi || null, omp: omp || null, only },
    },
    errors,
  };
}

/** The theme drawn: `light` or `dark`, following the system for `system`. */
export function resolveTheme(setting, systemPrefersDark) {
  if (setting === 'light' || setting === 'dark') return setting;
  return systemPrefersDark ? 'dark' : 'light';
}

/**
 * A key as it may be shown: never whole. The backend sends keys masked already
 * (`sk-…abcd`); anything else is masked again here, and short values are hidden entirely.
 */
export function maskKey(key) {
  if (key == null || key === '') return null;
  const s = String(key);
  if (s.includes('…') && s.length <= 12) return s;
  if (s.length < 12) return '…';
  return `${s.slice(0, 3)}…${s.slice(-4)}`;
}

/** Where a candidate's key comes from, in words. */
export function keySourceText(c) {
  const env = c.keyEnv ?? c.apiKeyEnv ?? null;
  switch (c.keySource) {
    case 'environment': return env ? `from the environment variable ${env}` : 'from the environment';
    case 'config': return 'from the config file';
    case 'none': return env ? `none (${env} is not set)` : 'none needed';
    default: return 'unknown';
  }
}

/**
 * Display lines of the agent's own models of a `providers()` answer: `{ label, detail, key,
 * source, unavailable }` (the key masked by the backend; `unavailable`: why contextree cannot
 * call it, or null).
 */
export function agentModelLines(answer) {
  return (answer?.agentModels ?? []).map((m) => ({
    label: m.name,
    detail: [m.setting, m.api, m.baseUrl].filter(Boolean).join(' · '),
    key: maskKey(m.key),
    source: m.keySource,
    unavailable: m.unavailable ?? null,
  }));
}

/**
 * Display lines of a `providers()` answer: `{ label, detail, key, source }` per candidate.
 * `null` answer: the command is not available (an older backend).
 */
export function providerLines(answer) {
  if (!answer) return [];
  return (answer.candidates ?? []).map((c, i) => ({
    label: `${i + 1}. ${c.name ?? c.kind}`,
    detail: [c.kind, c.model, c.baseUrl].filter(Boolean).join(' · '),
    key: maskKey(c.key),
    source: keySourceText(c),
  }));
}
