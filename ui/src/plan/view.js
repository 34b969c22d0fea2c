// The PLAN panel: a compaction preview's cut, numbers, warnings and exact prompts. textContent
// only: prompts quote session text.

import { callTitle, keepInstructions, planLines, requestText, shareLines } from './format.js';
import { elementMaker, makeButton } from '../dom.js';

/**
 * Renders `plan` (a `compactionPreview` result) into `root`; `onKeep(text)` adds instructions
 * for the compaction dialog (the requests' terms).
 * @param {HTMLElement} root
 * @param {import('../generated/reports').PlanReport} plan
 * @param {((instructions: string) => void) | null} [onKeep]
 */
export function renderPlan(root, plan, onKeep = null) {
  const doc = root.ownerDocument;
  const el = elementMaker(doc);
  const parts = [el('p', 'plan-note', 'Preview only: nothing is called or written. Esc closes.')];
  for (const { key, text } of planLines(plan)) {
    const line = el('p', `plan-line plan-${key}`, text);
    line.dataset.key = key;
    parts.push(line);
  }
  const calls = plan.nothingToCompact === true ? [] : plan.calls;
  calls.forEach((call, i) => {
    const details = el('details', 'plan-call');
    details.append(el('summary', null, callTitle(call, i)));
    details.append(el('div', 'plan-call-label', 'system prompt'));
    details.append(el('pre', 'plan-prompt', call.systemPrompt));
    details.append(el('div', 'plan-call-label', 'prompt'));
    details.append(el('pre', 'plan-prompt', call.prompt));
    parts.push(details);
  });
  const facts = shareLines(plan.facts);
  if (facts.length) parts.push(factsBox(el, 'plan-facts', 'the paths, commands and numbers it summarizes: what the summary should keep', facts));
  const requests = plan.requests ?? [];
  if (requests.length) {
    const box = el('section', 'plan-requests');
    box.id = 'plan-requests';
    box.append(el('div', 'plan-call-label', `the user's requests it summarizes (${requests.length}): what the summary should keep`));
    box.append(el('p', 'plan-note', 'Plain term matching: the paths, identifiers and quoted text each request names.'));
    const list = el('ul');
    for (const r of requests) {
      const li = el('li', 'plan-request', requestText(r));
      li.dataset.entryId = r.entryId;
      list.append(li);
    }
    box.append(list);
    const keep = keepInstructions(requests);
    if (keep && onKeep) {
      box.append(makeButton(root.ownerDocument, 'plan-button', 'Add these to the instructions', {
        id: 'plan-keep',
        title: keep,
        onClick: (b) => {
          onKeep(keep);
          b.disabled = true;
          b.textContent = 'added to the compaction instructions';
        },
      }));
    }
    parts.push(box);
  }
  root.replaceChildren(...parts);
}

/**
 * Renders the requests an existing compaction summarized (a `compactionRequests` result).
 * @param {HTMLElement} root
 * @param {import('../generated/reports').DropsReport} report
 */
export function renderRequests(root, report) {
  const { requests } = report;
  const el = elementMaker(root.ownerDocument);
  const box = el('section', 'plan-requests');
  box.id = 'entry-requests';
  const lost = requests.filter((r) => r.mayBeLost).length;
  box.append(el('div', 'plan-call-label', `requests this compaction summarized: ${requests.length}, ${lost} may be lost`));
  box.append(el('p', 'plan-note', 'A request is flagged when none of the paths, identifiers or quoted text it names appears in the summary.'));
  const list = el('ul');
  for (const r of requests) {
    const li = el('li', `plan-request${r.mayBeLost ? ' may-be-lost' : ''}`, requestText(r));
    li.dataset.entryId = r.entryId;
    list.append(li);
  }
  box.append(list);
  root.append(box);
  const facts = shareLines(report.facts);
  if (facts.length) root.append(factsBox(el, 'entry-facts', 'what the summary keeps verbatim of the paths, commands and numbers it summarized', facts));
}

/** A section `id` titled `label` listing `lines` (`shareLines`). */
function factsBox(el, id, label, lines) {
  const box = el('section', 'plan-requests');
  box.id = id;
  box.append(el('div', 'plan-call-label', label));
  const list = el('ul');
  for (const line of lines) list.append(el('li', 'plan-fact', line));
  box.append(list);
  return box;
}
