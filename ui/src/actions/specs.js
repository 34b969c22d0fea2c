// The write flows as data (actions/wizard.js says what a spec holds): compact, prune, continue
// from here (navigate), undo a compaction, edit a summary. `env` (flows.js): `ipc` (ipc.js),
// `current()` (what is on screen), `providers()` (the summary sources; null when unreadable),
// `readSource(fields, list)` (remembers the form, → `{ source, error }`), `remember(patch)`.

import {
  compactConfirmation, editConfirmation, navigateConfirmation, navigatePreviewLines, pruneConfirmation,
  prunePreviewLines, undoConfirmation,
} from './format.js';
import { lastEntry, refusal } from './wizard.js';

/** Row classes of the previews (styles.css: `.row.write-*`). */
export const WRITE_CLASSES = { pruned: 'write-pruned', abandoned: 'write-abandoned', target: 'write-target' };

const NEXT = 'Next: confirm…';
const nothingToCompact = (plan) => refusal(`nothing to compact: ${plan.reason ?? ''}`);

/** Compaction: of the plan on screen, with instructions and a summary source. */
export const compactFlow = {
  action: 'compact',
  title: 'Compact',
  can: ({ plan }) => Boolean(plan),
  async start({ current, providers }) {
    const { plan } = current();
    if (plan.nothingToCompact) throw nothingToCompact(plan);
    return { oldPlan: plan, list: await providers() };
  },
  steps: [
    {
      id: 'form',
      view: ({ oldPlan, list }, { form }) => ({
        lines: [`Compact the context of leaf ${oldPlan.leafId}: the plan on screen says what is summarized and kept.`],
        fields: [{ kind: 'instructions', value: form.instructions }, { kind: 'source', providers: list, value: form.source }],
      }),
      next: {
        label: NEXT,
        async leave({ oldPlan, list }, fields, { ipc, readSource }) {
          const { source, error } = readSource(fields, list);
          if (error) return { error };
          const { instructions } = fields;
          // The instructions change the prompt: plan again with them.
          const plan = await ipc.compactionPreview(oldPlan.leafId, null, instructions);
          if (plan.nothingToCompact) throw nothingToCompact(plan);
          return { patch: { plan, source, instructions } };
        },
      },
    },
    {
      id: 'confirm',
      back: 'form',
      view: ({ plan, source, list, instructions }, { session }) => {
        const first = plan.calls?.[0];
        return {
          lines: compactConfirmation({ plan, session, source, providers: list, instructions }),
          prompt: first ? { title: `the exact prompt (call 1 of ${plan.calls.length})`, ...first } : null,
        };
      },
      apply: () => 'Compact: append the entry',
    },
  ],
  before: ({ plan }) => plan.leafId,
  streamed: () => true,
  apply: ({ plan, instructions, source }, { ipc }, onEvent) => ipc.compact(plan.leafId, instructions, null, source, onEvent),
  selectAfter: lastEntry,
  // With the plan still on screen, the form again; after a reload (the file changed) the plan
  // is gone: the dialog closes and the plan is previewed afresh.
  again: ({ current, restart, close, openPlan }) => {
    if (current().plan) return restart();
    close();
    return openPlan();
  },
};

/** Prune: omp's tool-output pruning (offered for pi with a note, D20). */
export const pruneFlow = {
  action: 'prune',
  title: 'Prune tool outputs',
  can: (_state) => true,
  async start({ current, ipc }) {
    const { followFile, leafId } = current();
    const leaf = followFile ? null : leafId;
    return { leaf, preview: await ipc.prunePreview(leaf) };
  },
  marks: ({ preview }) => new Map((preview.prunedIds ?? []).map((id) => [id, WRITE_CLASSES.pruned])),
  steps: [
    { id: 'preview', final: ({ preview }) => preview.prunedIds.length === 0, view: ({ preview }) => ({ lines: prunePreviewLines(preview) }), next: { label: NEXT } },
    { id: 'confirm', view: ({ preview }, { session }) => ({ lines: pruneConfirmation({ preview, session }) }), apply: () => 'Prune: rewrite the file' },
  ],
  before: ({ leaf }) => leaf,
  streamed: () => false,
  apply: ({ leaf }, { ipc }) => ipc.prune(leaf),
  selectAfter: (result, { leaf, preview }) => ({ leafId: leaf, selectId: preview.prunedIds[0] ?? result.leafId }),
  again: 'restart',
};

/** Continue from the selected entry, with or without a branch summary (D14). */
export const navigateFlow = {
  action: 'navigate',
  title: 'Continue from here',
  can: ({ row }) => Boolean(row),
  start: async ({ current, providers }) => ({ targetId: current().row.id, list: await providers() }),
  marks: ({ targetId, preview }, step) => {
    const marks = new Map(step === 'form' ? [] : (preview?.abandonedIds ?? []).map((id) => [id, WRITE_CLASSES.abandoned]));
    return marks.set(targetId, WRITE_CLASSES.target);
  },
  steps: [
    {
      id: 'form',
      view: ({ targetId, list }, { form }) => ({
        lines: [`Make ${targetId} the point the agent continues from.`],
        fields: [
          { kind: 'summarize', value: form.summarize },
          { kind: 'instructions', value: form.instructions },
          { kind: 'source', providers: list, value: form.source },
        ],
      }),
      next: {
        label: 'Preview…',
        async leave({ targetId, list }, fields, { ipc, readSource, remember }) {
          const summarize = fields.summarize !== false;
          const { source, error } = summarize ? readSource(fields, list) : { source: { offline: false, provider: null } };
          remember({ summarize });
          if (error) return { error };
          const instructions = summarize ? fields.instructions : null;
          const preview = await ipc.navigatePreview(targetId, summarize, instructions);
          return { patch: { summarize, source, instructions, preview } };
        },
      },
    },
    {
      id: 'preview',
      back: 'form',
      view: ({ preview }) => ({
        lines: navigatePreviewLines(preview),
        prompt: preview.call ? { title: `the exact prompt (maxTokens ${preview.call.maxTokens ?? 'not sent'})`, ...preview.call } : null,
      }),
      next: { label: NEXT },
    },
    {
      id: 'confirm',
      back: 'form',
      view: ({ preview, source, list, instructions }, { session }) => ({
        lines: navigateConfirmation({ preview, session, source, providers: list, instructions }),
      }),
      apply: ({ summarize }) => (summarize ? 'Continue: append the branch summary' : 'Continue: append the marker'),
    },
  ],
  before: ({ preview }) => preview.fromLeafId ?? null,
  streamed: ({ summarize, preview }) => summarize && !preview.nothingToSummarize,
  apply: (a, { ipc }, onEvent) => ipc.navigate(a.targetId, a.summarize, a.instructions, a.source, onEvent),
  selectAfter: lastEntry,
  again: 'restart',
};

/** Undo a compaction: continue from the entry before it (D14). */
export const undoFlow = {
  action: 'undo',
  title: 'Undo compaction',
  can: ({ row }) => row?.entryType === 'compaction',
  start: async ({ current, ipc }) => {
    const { row } = current();
    return { compactionId: row.id, preview: await ipc.undoCompactionPreview(row.id) };
  },
  marks: ({ preview }) => new Map([[preview.targetId, WRITE_CLASSES.target]]),
  steps: [
    { id: 'confirm', view: ({ preview }, { session }) => ({ lines: undoConfirmation({ preview, session }) }), apply: () => 'Undo: append the marker' },
  ],
  before: () => null,
  streamed: () => false,
  apply: ({ compactionId }, { ipc }) => ipc.undoCompaction(compactionId),
  selectAfter: lastEntry,
  again: null,
};

/** Edit the summary of the compaction in effect: a corrected entry, same boundary. */
export const editFlow = {
  action: 'edit',
  title: 'Edit summary',
  can: ({ row }) => row?.entryType === 'compaction',
  start: async ({ current, ipc }) => {
    const preview = await ipc.editSummaryPreview(current().row.id);
    return { preview, summary: preview.summary };
  },
  steps: [
    {
      id: 'form',
      view: ({ preview, summary }) => ({
        lines: [
          `Compaction ${preview.compactionId}: first kept entry ${preview.firstKeptEntryId}.`,
          ...(preview.note ? [preview.note] : []),
        ],
        fields: [{ kind: 'summary', value: summary }],
      }),
      next: {
        label: NEXT,
        leave: ({ preview }, fields) => {
          const summary = fields.summary ?? '';
          if (summary.trim() === '') return { error: 'The summary is empty.', patch: { summary } };
          if (summary === preview.summary) return { error: 'The summary is unchanged.', patch: { summary } };
          return { patch: { summary } };
        },
      },
    },
    {
      id: 'confirm',
      back: 'form',
      view: ({ preview, summary }, { session }) => ({ lines: editConfirmation({ preview, session, summary }) }),
      apply: () => 'Append the corrected summary',
    },
  ],
  before: () => null,
  streamed: () => false,
  apply: ({ preview, summary }, { ipc }) => ipc.editSummary(preview.compactionId, summary),
  selectAfter: lastEntry,
  again: null,
};

/** Every flow, by action (the keys and the bar's buttons start them by name). */
export const FLOWS = Object.fromEntries([compactFlow, pruneFlow, navigateFlow, undoFlow, editFlow].map((f) => [f.action, f]));
