// The context panel's breakdown bar and the plan panel's cost lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakdownLabel, breakdownParts, inRow, partTitle } from '../../ui/src/context/breakdown.js';
import { renderContext } from '../../ui/src/context/view.js';
import { costLines, dollars, planLines } from '../../ui/src/plan/format.js';

const rows = [
  { category: 'user', tool: null, tokens: 100, messages: 2 },
  { category: 'thinking', tool: null, tokens: 50, messages: 0 },
  { category: 'toolResult', tool: 'read', tokens: 250, messages: 1 },
  { category: 'systemPrompt', tool: null, section: 'preamble', tokens: 0, messages: 1 },
];

test('parts are the rows in order, each its share of the total, labelled with its tool or section', () => {
  const parts = breakdownParts(rows, 400);
  assert.deepEqual(parts.map((p) => p.share), [25, 12.5, 62.5, 0]);
  assert.deepEqual(parts.map((p) => p.label), ['user', 'thinking', 'tool results · read', 'system prompt · preamble']);
  assert.equal(partTitle(parts[2]), 'tool results · read: 250 tokens (62.5%), 1 message');
  assert.equal(breakdownLabel({ category: 'somethingNew', tool: null }), 'somethingNew');
  assert.deepEqual(breakdownParts(rows, 0).map((p) => p.share), [0, 0, 0, 0]);
  assert.ok(inRow({ breakdownRows: [0, 1] }, 1));
  assert.ok(!inRow({ breakdownRows: [0] }, 2));
  assert.ok(!inRow({}, 0));
});

// A stand-in document: elements record children, classes, data, style and their click handler.
function fakeDocument() {
  const make = (tag) => {
    const el = {
      tag, className: '', textContent: '', title: '', id: '', type: '', hidden: false, dataset: {}, style: {}, children: [],
      append(...kids) { this.children.push(...kids.filter((k) => typeof k === 'object')); },
      replaceChildren(...kids) { this.children = []; this.append(...kids); },
      addEventListener(type, fn) { if (type === 'click') this.onclick = fn; },
      contains(other) { return this.children.includes(other) || this.children.some((c) => c.contains?.(other)); },
      click() { this.onclick?.({ preventDefault() {} }); },
      classList: {
        toggle(name, on) {
          const set = new Set(el.className.split(' ').filter(Boolean));
          if (on) set.add(name); else set.delete(name);
          el.className = [...set].join(' ');
        },
        add(name) { this.toggle(name, true); },
      },
      set innerHTML(_) { throw new Error('innerHTML used'); },
    };
    return el;
  };
  return { createElement: make };
}

const find = (el, pred) => (pred(el) ? el : el.children.map((c) => find(c, pred)).find(Boolean));
const hasClass = (cls) => (el) => el.className.split(' ').includes(cls);

test('a click on a part shows only the messages with a part in its row; a second click all', () => {
  const doc = fakeDocument();
  const root = doc.createElement('section');
  root.ownerDocument = doc;
  const message = (i, role, breakdownRows) => ({
    i, role, entryId: `e${i}`, tokens: 10, entryIndex: i, llmRole: role, llmTokens: 10, text: 'text', truncated: false, breakdownRows,
  });
  const ctx = /** @type {any} */ ({
    leafId: 'e2', ruleSet: { name: 'pi@0.73' }, messageCount: 3, messageTokens: 400, llmCount: 3, llmTokens: 400,
    estimateProjectedContextTokens: { tokens: 400, usageTokens: 0, trailingTokens: 400, unknownAfterCompaction: false },
    prompts: { source: 'own', name: "contextree's own wording", detail: 'own' },
    breakdown: rows.slice(0, 3),
    messages: [message(0, 'user', [0]), message(1, 'assistant', [1]), message(2, 'toolResult', [2])],
  });
  renderContext(/** @type {any} */ (root), ctx, () => {});
  const bar = find(root, hasClass('breakdown-bar'));
  assert.deepEqual(bar.children.map((s) => s.style.width), ['25%', '12.5%', '62.5%']);
  assert.deepEqual(bar.children.map((s) => s.dataset.category), ['user', 'thinking', 'toolResult']);
  const items = find(root, hasClass('messages')).children;
  bar.children[2].click();
  assert.equal(root.dataset.filter, '2');
  assert.deepEqual(items.map((li) => li.hidden), [true, true, false]);
  assert.ok(hasClass('selected')(bar.children[2]));
  bar.children[2].click();
  assert.equal(root.dataset.filter, undefined);
  assert.deepEqual(items.map((li) => li.hidden), [false, false, false]);
});

const cost = {
  sessionModel: 'anthropic/claude-sonnet-4-5', summaryModel: 'anthropic/claude-sonnet-4-5',
  sessionPrices: { model: 'anthropic/claude-sonnet-4-5', input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, source: 'builtIn', detail: 'built-in table of 2025-11' },
  summaryPrices: null,
  summarizerInputTokens: 80000, summarizerOutputTokens: 8000, tokensBefore: 100000, tokensAfter: 20000,
  summarizerInputCost: null, summarizerOutputCost: null, cacheRewriteCost: 0.075, oneOffCost: null,
  savingPerCachedTurn: 0.024, savingPerUncachedTurn: 0.24, paysOffAfterCachedTurns: null, paysOffAfterUncachedTurns: null,
};

test('the cost lines: once, per later turn, pay-off, and whose prices', () => {
  const lines = costLines(/** @type {any} */ (cost));
  assert.deepEqual(lines.map((l) => l.key), ['cost-once', 'cost-saving', 'cost-payoff', 'cost-prices']);
  assert.equal(lines[0].text, 'cost once unknown: summarizer 80,000 in unknown + ≤ 8,000 out unknown + cache rewrite of 20,000 $0.0750');
  assert.equal(lines[1].text, 'saves per later turn $0.0240 from the cache, $0.2400 without (100,000 → 20,000 tokens)');
  assert.equal(lines[2].text, 'pays off never from the cache, never without');
  assert.equal(lines[3].text, 'prices: session anthropic/claude-sonnet-4-5 (built-in table of 2025-11) · summary anthropic/claude-sonnet-4-5 (no price known)');
  assert.equal(dollars(0.435), '$0.4350');
  const paid = costLines(/** @type {any} */ ({ ...cost, paysOffAfterCachedTurns: 19, paysOffAfterUncachedTurns: 1 }));
  assert.equal(paid[2].text, 'pays off after 19 turns from the cache, after 1 turn without');
});

test('a plan with cost lines shows them after its numbers; one without shows none', () => {
  const plan = {
    dialect: 'pi', leafId: 'l', nothingToCompact: false, firstKeptEntryId: 'k', isSplitTurn: false, tokensBefore: 100000,
    keepRecentTokensUsed: 20000, preview: { keptTokens: 12000, summaryBudget: 8000, estimatedTokensAfter: 20000 },
    messagesToSummarizeIds: ['a'], turnPrefixIds: [], recentMessagesIds: ['k'], droppedIds: [], historyLiteral: null, warnings: [], calls: [],
  };
  assert.ok(!planLines(/** @type {any} */ (plan)).some((l) => l.key.startsWith('cost')));
  const keys = planLines(/** @type {any} */ ({ ...plan, cost })).map((l) => l.key);
  assert.deepEqual(keys.slice(-4), ['cost-once', 'cost-saving', 'cost-payoff', 'cost-prices']);
});
