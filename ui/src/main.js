// Wiring only: ask for the session, hand it to the views, report errors.
// `body[data-state]` is `loading`, then `ready` or `error` (the end-to-end test waits on it).

import { openSession } from './ipc.js';
import { sessionSummary } from './entries/format.js';
import { renderEntries } from './entries/view.js';

const $ = (id) => document.getElementById(id);

async function start() {
  try {
    const view = await openSession(null);
    document.title = `${view.fileName} · contextree`;
    $('session-file').textContent = view.fileName;
    $('session-file').title = view.path;
    $('session-dialect').textContent = `dialect: ${view.dialect}`;
    $('session-dialect').hidden = false;
    $('session-summary').textContent = sessionSummary(view);
    renderEntries($('entry-rows'), view.entries);
    $('entries').hidden = false;
    $('status').hidden = true;
    document.body.dataset.state = 'ready';
  } catch (err) {
    $('status').textContent = `Could not open the session (${err.kind ?? 'error'}): ${err.message}`;
    document.body.dataset.state = 'error';
  }
}

start();
