import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupHits, resultLine, snippetParts, stateText, stepHit } from '../../ui/src/search/format.js';

const hit = (file, entryId, extra = {}) => ({ file, entryId, role: 'user', toolName: null, snippet: '', score: 1, state: 'context', summarizedBy: null, ...extra });

test('hits group by session in the order of each session\'s best hit, rank order inside', () => {
  const hits = [hit('b', '1'), hit('a', '2'), hit('b', '3'), hit('c', '4'), hit('a', '5')];
  const groups = groupHits(hits);
  assert.deepEqual(groups.map((g) => g.file), ['b', 'a', 'c']);
  assert.deepEqual(groups.map((g) => g.hits.map((h) => h.entryId)), [['1', '3'], ['2', '5'], ['4']]);
  assert.deepEqual(groupHits([]), []);
});

test('a snippet is cut into plain and matched parts that give the text back', () => {
  const text = 'fix the auth race in auth.rs';
  const parts = snippetParts(text, [[8, 12], [21, 25]]);
  assert.deepEqual(parts, [
    { text: 'fix the ', match: false }, { text: 'auth', match: true }, { text: ' race in ', match: false },
    { text: 'auth', match: true }, { text: '.rs', match: false },
  ]);
  assert.equal(parts.map((p) => p.text).join(''), text);
});

test('odd ranges still draw: unsorted, overlapping, empty, out of bounds', () => {
  const text = 'abcdefghij';
  for (const ranges of [[[5, 7], [1, 3]], [[1, 6], [4, 8]], [[3, 3]], [[-4, 2], [8, 99]], [[20, 30]], []]) {
    const parts = snippetParts(text, ranges);
    assert.equal(parts.map((p) => p.text).join(''), text, JSON.stringify(ranges));
    assert.ok(parts.every((p) => p.text.length > 0), 'no empty part');
  }
  assert.deepEqual(snippetParts(text, [[1, 6], [4, 8]]).filter((p) => p.match).map((p) => p.text), ['bcdef', 'gh']);
  assert.deepEqual(snippetParts('', []), [{ text: '', match: false }]);
  // UTF-16 offsets, as JS counts: an emoji is two units.
  assert.deepEqual(snippetParts('😀 ok', [[3, 5]]).filter((p) => p.match).map((p) => p.text), ['ok']);
});

test('a hit\'s state in words, naming the compaction that summarized it', () => {
  assert.equal(stateText('context').label, 'in context');
  const s = stateText('summarized', 'c0ffee');
  assert.equal(s.label, 'summarized');
  assert.match(s.help, /compaction c0ffee/);
  assert.equal(s.className, 'hit-state hit-summarized');
  assert.equal(stateText('offPath').label, 'other branch');
  assert.match(stateText('branchSummarized', 'b5').help, /branch summary b5/);
  assert.equal(stateText('somethingNew').label, 'somethingNew', 'an unknown state shows as it came');
});

test('the result line counts hits and sessions and says what the index holds', () => {
  const indexed = (over = {}) => ({ files: 0, bytes: 0, ms: 0, whole: 0, grown: 0, dropped: 0, entries: 0, totalFiles: 12, indexBytes: 0, busy: false, ...over });
  const hits = [hit('a', '1'), hit('a', '2'), hit('b', '3')];
  assert.equal(resultLine({ hits, indexed: indexed() }), '3 hits in 2 sessions · 12 sessions indexed');
  assert.equal(
    resultLine({ hits, indexed: indexed({ files: 2, bytes: 3_400_000, ms: 41 }) }),
    '3 hits in 2 sessions · 12 sessions indexed, 2 brought up to date (3.4 MB, 41 ms)',
  );
  assert.match(resultLine({ hits: [], indexed: indexed() }), /^No hit ·/);
  assert.match(resultLine({ hits: [hit('a', '1')], indexed: indexed({ totalFiles: 1 }) }), /^1 hit in 1 session · 1 session indexed$/);
  assert.match(resultLine({ hits, indexed: indexed({ busy: true }) }), /answered from its last state/);
});

test('↑/↓ step through the hits, clamped; the first when none is selected', () => {
  const order = ['x', 'y', 'z'];
  assert.equal(stepHit(order, null, 1), 'x');
  assert.equal(stepHit(order, 'x', 1), 'y');
  assert.equal(stepHit(order, 'z', 1), 'z');
  assert.equal(stepHit(order, 'x', -1), 'x');
  assert.equal(stepHit([], null, 1), null);
});
