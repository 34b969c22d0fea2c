// The write dialog (`<dialog id="write-dialog">`): one step of a write flow at a time: a form,
// a preview, the confirmation, the running summary, the result with its diff, or an error.
// Owns the dialog's DOM; every text (session text, prompts, summaries) goes in as text only.

import { elementMaker, makeButton } from '../dom.js';
import { renderDiff } from '../diff/view.js';
import { PROVIDER_KINDS, parseSourceValue, sourceOptions, sourceValue } from './format.js';
import { callHeading, progressStatus, timeLeft } from './progress.js';

/**
 * Renders `step` into `dialog`: `{ title, state, lines, error, fields, prompt, progress, diff,
 * buttons: [{ id, label, primary, onClick }] }` (all but `title`/`state`/`buttons` optional).
 * `fields`: `{ kind: 'instructions'|'source'|'summarize'|'summary', ... }`.
 */
export function renderStep(dialog, step) {
  const el = elementMaker(dialog.ownerDocument);
  const parts = [el('h2', 'write-title', step.title)];
  const body = el('div', 'write-body');
  body.id = 'write-body';
  if (step.error) {
    const error = el('p', 'write-error', step.error);
    error.id = 'write-error';
    error.setAttribute('role', 'alert');
    body.append(error);
  }
  if (step.lines?.length) {
    const list = el('ul', `write-lines write-lines-${step.state}`);
    list.id = step.state === 'confirm' ? 'write-confirm' : 'write-lines';
    for (const line of step.lines) list.append(el('li', line.startsWith('⚠') ? 'write-warning' : null, line));
    body.append(list);
  }
  for (const field of step.fields ?? []) body.append(fieldNode(el, field));
  if (step.prompt) body.append(promptNode(el, step.prompt));
  if (step.progress) body.append(progressNode(el, step.progress));
  if (step.diff) {
    const box = el('div', 'write-diff-box');
    renderDiff(box, step.diff);
    body.append(box);
  }
  parts.push(body);
  const buttons = el('div', 'write-buttons');
  for (const b of step.buttons ?? []) {
    buttons.append(makeButton(dialog.ownerDocument, `write-button${b.primary ? ' primary' : ''}`, b.label, { id: b.id, onClick: () => b.onClick() }));
  }
  parts.push(buttons);
  dialog.replaceChildren(...parts);
  dialog.dataset.state = step.state;
  if (!dialog.open) dialog.showModal();
  // The first field, else the primary button, gets the keys; but a confirmation starts on its
  // first button (Back / Cancel), so that a second Enter cannot write by accident.
  const focus = step.state === 'confirm'
    ? dialog.querySelector('.write-button')
    : dialog.querySelector('textarea, input, select') ?? dialog.querySelector('.write-button.primary');
  focus?.focus();
}

/** Updates only the running step's live text (no re-render: keeps the scroll and the Cancel button). */
export function renderProgress(dialog, progress, now = Date.now()) {
  const el = elementMaker(dialog.ownerDocument);
  const old = dialog.querySelector('#write-progress');
  if (old) old.replaceWith(progressNode(el, progress, now));
}

/** Updates only the countdown line (every second while a summary streams). */
export function renderTimeLeft(dialog, progress, now = Date.now()) {
  const line = dialog.querySelector('#write-time-left');
  if (!line) return;
  const text = timeLeft(progress, now);
  line.textContent = text ?? '';
  line.hidden = text == null;
}

function progressNode(el, progress, now = Date.now()) {
  const box = el('div', 'write-progress');
  box.id = 'write-progress';
  box.append(el('p', 'write-status', progressStatus(progress)));
  // Always present (hidden when there is no deadline) so the ticker has a line to update.
  const left = timeLeft(progress, now);
  const line = el('p', 'write-time-left', left ?? '');
  line.id = 'write-time-left';
  line.hidden = left == null;
  box.append(line);
  for (const c of progress.calls) {
    const section = el('section', 'write-call');
    section.dataset.call = c.call;
    section.append(el('h3', 'write-call-title', callHeading(c)));
    for (const note of c.notes) section.append(el('p', 'write-note', note));
    const pre = el('pre', 'write-stream', c.text);
    section.append(pre);
    box.append(section);
  }
  return box;
}

function promptNode(el, prompt) {
  const details = el('details', 'write-prompt');
  details.append(el('summary', null, prompt.title));
  details.append(el('div', 'plan-call-label', 'system prompt'), el('pre', 'plan-prompt', prompt.systemPrompt ?? ''));
  details.append(el('div', 'plan-call-label', 'prompt'), el('pre', 'plan-prompt', prompt.prompt ?? ''));
  return details;
}

function labelled(el, text, control) {
  const label = el('label', 'write-field', text);
  label.append(control);
  return label;
}

function fieldNode(el, field) {
  switch (field.kind) {
    case 'instructions': {
      const area = el('textarea', 'write-textarea');
      area.id = 'write-instructions';
      area.rows = 3;
      area.placeholder = 'optional: what the summary should focus on';
      area.value = field.value ?? '';
      return labelled(el, 'Custom instructions', area);
    }
    case 'summary': {
      const area = el('textarea', 'write-textarea write-summary');
      area.id = 'write-summary';
      area.rows = 14;
      area.value = field.value ?? '';
      return labelled(el, 'Summary', area);
    }
    case 'summarize': {
      const box = el('input');
      box.type = 'checkbox';
      box.id = 'write-summarize';
      box.checked = field.value !== false;
      const label = el('label', 'write-check');
      label.append(box, el('span', null, ' with a branch summary of the entries left behind'));
      return label;
    }
    case 'source':
      return sourceNode(el, field);
    default:
      return el('p', null, '');
  }
}

/**
 * Summary source, one select: every configured provider in order, one of them alone, a typed
 * provider (its fields shown only then), or offline.
 */
function sourceNode(el, field) {
  const { providers, value = {} } = field;
  const set = el('fieldset', 'write-source');
  set.append(el('legend', null, 'Summary by'));
  const select = el('select');
  select.id = 'write-source-mode';
  const options = sourceOptions(providers);
  for (const o of options) {
    const option = el('option', null, o.label);
    option.value = o.value;
    if (o.disabled) option.disabled = true;
    select.append(option);
  }
  // A remembered choice the list no longer has (the config file changed) falls back to all.
  const wanted = sourceValue(value);
  select.value = options.some((o) => o.value === wanted && !o.disabled) ? wanted : 'configured';
  set.append(select);
  if (providers?.configPath) set.append(el('p', 'write-note', `config: ${providers.configPath}`));
  const row = el('div', 'write-provider');
  const kind = el('select');
  kind.id = 'write-provider-kind';
  for (const k of PROVIDER_KINDS) {
    const option = el('option', null, k);
    option.value = k;
    kind.append(option);
  }
  kind.value = value.kind ?? 'openai-compatible';
  const model = el('input');
  model.id = 'write-provider-model';
  model.placeholder = 'model';
  model.value = value.model ?? '';
  const url = el('input');
  url.id = 'write-provider-url';
  url.placeholder = 'base URL (e.g. http://127.0.0.1:11434/v1)';
  url.value = value.baseUrl ?? '';
  for (const input of [model, url]) {
    input.autocomplete = 'off';
    input.spellcheck = false;
  }
  row.append(kind, model, url);
  const showRow = () => { row.hidden = select.value !== 'custom'; };
  select.addEventListener('change', showRow);
  showRow();
  set.append(row);
  return set;
}

/** The form's values: `{ instructions, summarize, summary, source: { mode, candidate, kind, model, baseUrl } }`. */
export function readFields(dialog) {
  const value = (id) => dialog.querySelector(`#${id}`)?.value ?? null;
  const { mode, candidate } = parseSourceValue(value('write-source-mode'));
  return {
    instructions: value('write-instructions')?.trim() || null,
    summarize: dialog.querySelector('#write-summarize')?.checked ?? null,
    summary: value('write-summary'),
    source: { mode, candidate, kind: value('write-provider-kind'), model: value('write-provider-model'), baseUrl: value('write-provider-url') },
  };
}
