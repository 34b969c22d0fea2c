import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setHome, shortPath } from '../../ui/src/paths.js';
import { rootsLine } from '../../ui/src/library/format.js';
import { resultLines } from '../../ui/src/actions/format.js';

test('paths inside the home folder are shown from ~', () => {
  assert.equal(shortPath('/home/ann/work/s.jsonl', '/home/ann'), '~/work/s.jsonl');
  assert.equal(shortPath('/home/ann', '/home/ann'), '~');
  assert.equal(shortPath('/home/anna/s.jsonl', '/home/ann'), '/home/anna/s.jsonl', 'a prefix of a name is not the folder');
  assert.equal(shortPath('/tmp/s.jsonl', '/home/ann'), '/tmp/s.jsonl');
  assert.equal(shortPath('/home/ann/s.jsonl', null), '/home/ann/s.jsonl');
  assert.equal(shortPath(null, '/home/ann'), null);
});

test('setHome takes an absolute folder only, without its trailing slash', () => {
  setHome('/home/ann/');
  assert.equal(shortPath('/home/ann/x'), '~/x');
  setHome('relative');
  assert.equal(shortPath('/home/ann/x'), '/home/ann/x');
  setHome('/');
  assert.equal(shortPath('/x'), '/x', 'the root is no home');
  setHome(null);
});

test('the library folders and a write result use the short form', () => {
  setHome('/home/ann');
  try {
    assert.equal(
      rootsLine([{ dialect: 'pi', path: '/home/ann/.pi/agent/sessions', exists: true, sessionCount: 2, origin: 'default' }]),
      'pi: ~/.pi/agent/sessions (2)',
    );
    const lines = resultLines({
      file: '/home/ann/p/s.jsonl',
      entries: [{ type: 'compaction', id: 'c1', parentId: 'a9', line: 12 }],
    });
    assert.equal(lines[0], 'Appended "compaction" entry c1 under a9 at line 12 of ~/p/s.jsonl.');
  } finally {
    setHome(null);
  }
});
