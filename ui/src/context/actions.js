// What the context panel can ask for beyond its view: tokenizer counts, a message's whole text,
// the exports (copied, or saved where the native dialog says). Wiring only: IPC calls and the
// clipboard, so that view.js stays free of Tauri.

import { exportContext, messageText, saveContext, tokenCounts } from '../ipc.js';
import { copyText } from './clipboard.js';

/** The `actions` of `renderContext`; `tokenizer` is the settings' (`o200k_base` when unset). */
export function contextActions(doc, { tokenizer, report }) {
  return {
    tokenizer: tokenizer ?? 'o200k_base',
    counts: tokenCounts,
    fullText: messageText,
    exportText: exportContext,
    copy: (text) => copyText(doc, text),
    save: (leafId) => saveContext(leafId),
    report,
  };
}
