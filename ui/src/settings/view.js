// The Settings screen: theme, tokenizer, default context window, library folders (stored in
// contextree's config file by `save_settings`), the open session's dialect (re-opens it), and
// the configured providers, read only, keys masked. Owns the DOM of `#settings`.

import { shortPath } from '../paths.js';
import { elementMaker, makeButton } from '../dom.js';
import {
  THEMES, TOKENIZERS, agentModelLines, dialectChoices, formFromSettings, providerLines, readForm,
} from './model.js';

/** Draws `setting` (`system`, `light`, `dark`): `system` leaves it to prefers-color-scheme. */
export function applyTheme(doc, setting) {
  if (setting === 'light' || setting === 'dark') doc.documentElement.dataset.theme = setting;
  else delete doc.documentElement.dataset.theme;
}

/**
 * Builds the screen inside `root`. `load()` → a `settings` answer; `save(settings)` → the
 * same; `providers()` → a `providers` answer (rejects when the command does not exist);
 * `onSaved(settings)`; `onDialect(dialect)` re-opens the session (`''`: detect); `onClose()`.
 * Returns `{ show(session) }`.
 *
 * Long by design: the view's closure, whose small inner functions share its DOM and state
 * (splitting it would only hand them around).
 */
export function createSettingsView(root, { load, save, providers, onSaved, onDialect, onClose }) {
  const doc = root.ownerDocument;
  const el = elementMaker(doc);

  function field(label, control, note) {
    const row = el('label', 'settings-field');
    row.append(el('span', 'settings-label', label), control);
    if (note) row.append(el('span', 'settings-note', note));
    return row;
  }
  function select(id, choices) {
    const s = el('select');
    s.id = id;
    for (const c of choices) {
      const o = el('option', null, c.label);
      o.value = c.id;
      s.append(o);
    }
    return s;
  }
  function input(id, placeholder) {
    const i = el('input');
    i.id = id;
    i.type = 'text';
    i.placeholder = placeholder;
    i.autocomplete = 'off';
    i.spellcheck = false;
    return i;
  }

  const theme = select('settings-theme', THEMES);
  const tokenizer = select('settings-tokenizer', TOKENIZERS);
  const windowInput = input('settings-window', 'auto (from the model table)');
  const piRoot = input('settings-pi-root', '~/.pi/agent/sessions');
  const ompRoot = input('settings-omp-root', '~/.omp/agent/sessions');
  const onlyRoots = el('textarea');
  onlyRoots.id = 'settings-only-roots';
  onlyRoots.rows = 2;
  onlyRoots.placeholder = 'one folder per line: only these, no defaults';
  onlyRoots.spellcheck = false;
  const saveButton = makeButton(root.ownerDocument, 'screen-button primary', 'Save', { id: 'settings-save' });
  const closeButton = makeButton(root.ownerDocument, 'screen-button', 'Back (Esc)');
  const message = el('p', 'settings-message');
  message.id = 'settings-message';
  message.setAttribute('role', 'status');
  const where = el('p', 'settings-note');

  const dialect = select('settings-dialect', dialectChoices());
  const reopen = makeButton(root.ownerDocument, 'screen-button', 'Re-open with this dialect', { id: 'settings-reopen' });
  const detected = el('span', 'settings-note');

  const providerList = el('ul', 'settings-providers');
  providerList.id = 'settings-providers';
  const providerNote = el('p', 'settings-note');

  const head = el('header', 'screen-head');
  head.append(el('span', 'pane-title', 'Settings'), saveButton, closeButton);
  const app = el('section', 'settings-group');
  app.append(
    el('h3', null, 'App'),
    field('Theme', theme, 'follows the desktop’s light/dark preference unless set'),
    field('Tokenizer', tokenizer, 'the count shown next to the dialect’s estimate'),
    field('Context window', windowInput, 'default of the budget bar: 200000, 200k, 1m; empty: the model table'),
    el('h3', null, 'Library folders'),
    field('pi sessions', piRoot),
    field('omp sessions', ompRoot),
    field('Only these', onlyRoots),
    where,
  );
  const session = el('section', 'settings-group');
  const dialectRow = field('Dialect', dialect);
  dialectRow.append(reopen);
  session.append(el('h3', null, 'Open session'), dialectRow, detected);
  const prov = el('section', 'settings-group');
  prov.append(el('h3', null, 'Providers (read only)'), providerNote, providerList);
  const body = el('div', 'settings-body');
  body.append(app, session, prov);
  root.replaceChildren(head, message, body);

  let stored = null;

  function say(text, kind = 'info') {
    message.textContent = text;
    message.dataset.kind = kind;
  }

  function fill(answer) {
    stored = answer.settings;
    const form = formFromSettings(answer.settings);
    theme.value = form.theme;
    tokenizer.value = form.tokenizer;
    windowInput.value = form.contextWindow;
    piRoot.value = form.piRoot;
    ompRoot.value = form.ompRoot;
    onlyRoots.value = form.onlyRoots;
    where.textContent = answer.path ? `Stored in ${shortPath(answer.path)} under "app".` : 'No home folder: settings cannot be stored.';
    if (answer.warning) say(`The stored settings could not be read (defaults shown): ${answer.warning}`, 'error');
  }

  function currentForm() {
    return {
      theme: theme.value, tokenizer: tokenizer.value, contextWindow: windowInput.value,
      piRoot: piRoot.value, ompRoot: ompRoot.value, onlyRoots: onlyRoots.value,
    };
  }

  async function showProviders() {
    providerList.replaceChildren();
    let answer;
    try {
      answer = await providers();
    } catch (err) {
      providerNote.textContent = err.kind === 'unknown' || /not found|unknown command/i.test(err.message)
        ? 'Not available in this build.'
        : `Cannot read the providers: ${err.message}`;
      return;
    }
    const lines = providerLines(answer);
    const from = answer.configPath ? `from ${shortPath(answer.configPath)}` : 'no config file';
    providerNote.textContent = lines.length === 0
      ? `No provider configured (${from}): summaries use omp's remote endpoint if set, else the agent's own model below, else are made offline. Keys come from environment variables (OPENAI_API_KEY, ANTHROPIC_API_KEY, or a provider's apiKeyEnv) or the config file; they are never shown in full.`
      : `Tried in this order (${from}). Keys are never shown in full.`;
    for (const l of lines) {
      const item = el('li', 'settings-provider');
      item.append(
        el('span', 'settings-provider-name', l.label),
        el('span', 'settings-note', l.detail),
        el('span', 'settings-key', `key: ${l.key ?? '—'} (${l.source})`),
      );
      providerList.append(item);
    }
    if (answer.remoteEndpoint) providerList.append(el('li', 'settings-provider', `omp remote endpoint: ${answer.remoteEndpoint}`));
    // The agents' own models (read only from their files; keys masked).
    for (const l of agentModelLines(answer)) {
      const item = el('li', 'settings-provider');
      item.append(
        el('span', 'settings-provider-name', l.label),
        el('span', 'settings-note', l.detail),
        l.unavailable
          ? el('span', 'settings-key', `cannot be used: ${l.unavailable}`)
          : el('span', 'settings-key', `key: ${l.key ?? '—'} (${l.source})`),
      );
      providerList.append(item);
    }
  }

  // The theme shows at once; Save keeps it.
  theme.addEventListener('change', () => applyTheme(doc, theme.value));
  saveButton.addEventListener('click', async () => {
    const { settings, errors } = readForm(currentForm());
    if (!settings) return say(errors.join('\n'), 'error');
    try {
      const answer = await save(settings);
      fill(answer);
      say('Saved.', 'ok');
      root.dataset.saved = String(Number(root.dataset.saved ?? 0) + 1);
      onSaved(answer.settings);
    } catch (err) {
      say(`Not saved (${err.kind}): ${err.message}`, 'error');
    }
  });
  reopen.addEventListener('click', () => onDialect(dialect.value));
  closeButton.addEventListener('click', () => {
    // Leaving without saving puts the stored theme back.
    if (stored) applyTheme(doc, stored.theme);
    onClose();
  });

  return {
    /** Shows the screen for the open `session` (an `openSession` result or null). */
    async show(openSession) {
      say('');
      detected.textContent = openSession
        ? `${openSession.fileName}: ${openSession.ruleSet ? openSession.ruleSet.name : openSession.dialect}${openSession.requested ? ` (forced; the file reads as ${openSession.detectedDialect})` : ` (${openSession.ruleSet ? openSession.ruleSet.why : 'detected'})`}`
        : 'No session is open.';
      // The choices are the rule sets the backend knows (the session report's `ruleSets`).
      dialect.replaceChildren(...dialectChoices(openSession?.ruleSets).map((c) => {
        const o = el('option', null, c.label);
        o.value = c.id;
        return o;
      }));
      dialect.value = openSession?.requested ?? '';
      reopen.disabled = !openSession;
      theme.focus();
      try {
        fill(await load());
      } catch (err) {
        say(`Cannot read the settings (${err.kind}): ${err.message}`, 'error');
      }
      await showProviders();
    },
    /** The stored theme back (leaving with Esc). */
    revertTheme() {
      if (stored) applyTheme(doc, stored.theme);
    },
  };
}
