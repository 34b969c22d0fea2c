import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYS, isTyping, keyState, layerOf, routeKey } from '../../ui/src/keys.js';

// A stand-in target inside the elements named by `inside` (selectors such as `input`,
// `#plan`, `button`): `closest` answers for those.
const at = (...inside) => ({
  closest: (selector) => (selector.split(',').map((s) => s.trim()).some((s) => inside.includes(s)) ? {} : null),
});
const key = (k, target = at(), mods = {}) => ({ key: k, target, ...mods });
const MAIN = { screen: null, dialog: null, plan: false, planOpen: false };

test('isTyping: fields take every key, panes every key but Esc, buttons Enter and Space', () => {
  for (const k of ['a', 'Escape', 'Enter', 'ArrowDown']) {
    assert.ok(isTyping(key(k, at('input'))), k);
    assert.ok(isTyping(key(k, at('textarea'))), k);
  }
  assert.ok(isTyping(key('ArrowDown', at('#context'))));
  assert.ok(isTyping(key('c', at('#plan'))));
  assert.ok(!isTyping(key('Escape', at('#plan'))));
  assert.ok(isTyping(key('Enter', at('button'))));
  assert.ok(isTyping(key(' ', at('summary'))));
  assert.ok(!isTyping(key('m', at('button'))));
  assert.ok(!isTyping(key('Enter', at('#tree'))));
  assert.ok(!isTyping({ key: 'a', target: null }));
});

test('the layer: a screen, then a dialog, then the main screen', () => {
  assert.equal(layerOf(MAIN), 'main');
  assert.equal(layerOf({ ...MAIN, dialog: 'write' }), 'write');
  assert.equal(layerOf({ ...MAIN, dialog: 'compare' }), 'compare');
  assert.equal(layerOf({ ...MAIN, screen: 'library' }), 'screen');
});

test('the main screen keys, from the tree', () => {
  const cases = {
    c: 'plan', m: 'mark', '=': 'compare', $: 'usage', '/': 'search', p: 'prune', n: 'navigate', u: 'undo', e: 'edit',
    l: 'library', ',': 'settings', o: 'open', ArrowLeft: 'fold', ArrowRight: 'fold', ArrowDown: 'move', ArrowUp: 'move',
    PageDown: 'move', PageUp: 'move', Home: 'move', End: 'move', Enter: 'move', g: 'move', Escape: null, x: null,
  };
  for (const [k, action] of Object.entries(cases)) assert.equal(routeKey(key(k, at('#tree')), MAIN), action, k);
});

test('Enter compacts while the plan is on screen; Esc closes the plan', () => {
  const plan = { ...MAIN, plan: true, planOpen: true };
  assert.equal(routeKey(key('Enter', at('#tree')), plan), 'compact');
  assert.equal(routeKey(key('Enter', at('#tree')), { ...plan, planOpen: false }), 'move'); // still loading
  assert.equal(routeKey(key('Escape', at('#tree')), plan), 'close-plan');
  assert.equal(routeKey(key('Escape', at('#plan', 'summary')), plan), 'close-plan');
  assert.equal(routeKey(key('Escape', at('input')), plan), null); // the search field's Esc clears it
});

test('no command while typing, in a pane, or with a modifier', () => {
  for (const k of ['c', 'p', 'l', 'o', 'ArrowDown', 'Enter', '/']) {
    assert.equal(routeKey(key(k, at('input')), MAIN), null, k);
    assert.equal(routeKey(key(k, at('#context')), MAIN), null, k);
    assert.equal(routeKey(key(k, at('#entry')), MAIN), null, k);
  }
  assert.equal(routeKey(key('c', at('#tree'), { ctrlKey: true }), MAIN), null);
  assert.equal(routeKey(key('l', at('#tree'), { altKey: true }), MAIN), null);
  assert.equal(routeKey(key('=', at('#tree'), { metaKey: true }), MAIN), null);
  // Enter presses a focused button; other keys still reach the app.
  assert.equal(routeKey(key('Enter', at('button')), { ...MAIN, planOpen: true }), null);
  assert.equal(routeKey(key('m', at('button')), MAIN), 'mark');
});

test('the write dialog keeps every key; Esc is its own, from a field too', () => {
  const write = { ...MAIN, dialog: 'write', plan: true, planOpen: true };
  assert.equal(routeKey(key('Escape', at('dialog')), write), 'write-escape');
  assert.equal(routeKey(key('Escape', at('dialog', 'textarea')), write), 'write-escape');
  for (const k of ['Enter', 'p', 'c', 'l', 'ArrowDown']) assert.equal(routeKey(key(k, at('dialog')), write), null, k);
});

test('the comparison dialog: no key is the app\'s (its own Esc closes it)', () => {
  for (const k of ['Escape', 'c', 'ArrowDown', 'l']) assert.equal(routeKey(key(k, at('dialog')), { ...MAIN, dialog: 'compare' }), null, k);
});

test('a screen: Esc goes back, also from its fields; l and , switch; the tree keys are off', () => {
  const library = { ...MAIN, screen: 'library' };
  const settings = { ...MAIN, screen: 'settings' };
  assert.equal(routeKey(key('Escape', at('input')), library), 'close-screen');
  assert.equal(routeKey(key('Escape', at('#library')), settings), 'close-screen');
  assert.equal(routeKey(key('l', at('#settings')), settings), 'library');
  assert.equal(routeKey(key('l', at('#library')), library), null);
  assert.equal(routeKey(key(',', at('#library')), library), 'settings');
  assert.equal(routeKey(key(',', at('#settings')), settings), null);
  assert.equal(routeKey(key('l', at('input')), settings), null);
  for (const k of ['o', 'c', 'ArrowDown', 'Enter', 'p']) assert.equal(routeKey(key(k, at('#library')), library), null, k);
});

test('every action of the table is named once per layer and key', () => {
  const seen = new Set();
  for (const k of KEYS) {
    for (const name of [k.key].flat()) {
      const id = `${k.layer} ${name} ${k.when ? k.when.toString() : ''}`;
      assert.ok(!seen.has(id), id);
      seen.add(id);
    }
  }
});

test('keyState: the write dialog first, then an overlay; a plan held, and open once drawn', () => {
  const app = { overlay: null, plan: null, planStatus: null };
  assert.deepEqual(keyState(app, { screen: null, writeOpen: false }), MAIN);
  assert.deepEqual(keyState({ ...app, overlay: 'compare' }, { screen: null, writeOpen: false }), { ...MAIN, dialog: 'compare' });
  assert.deepEqual(keyState({ ...app, overlay: 'compare' }, { screen: null, writeOpen: true }), { ...MAIN, dialog: 'write' });
  assert.deepEqual(keyState(app, { screen: 'library', writeOpen: false }), { ...MAIN, screen: 'library' });
  assert.deepEqual(keyState({ ...app, planStatus: 'loading' }, { screen: null, writeOpen: false }), MAIN);
  const plan = { entries: [] };
  assert.deepEqual(keyState({ ...app, plan, planStatus: 'open' }, { screen: null, writeOpen: false }), { ...MAIN, plan: true, planOpen: true });
  // Enter compacts only once the plan is on screen.
  assert.equal(routeKey(key('Enter'), keyState({ ...app, plan, planStatus: 'open' }, { screen: null, writeOpen: false })), 'compact');
  assert.equal(routeKey(key('Enter'), keyState({ ...app, planStatus: 'loading' }, { screen: null, writeOpen: false })), 'move');
});

test('Ctrl+Shift+F searches every session from the main screen and the screens, not from a dialog', () => {
  const chord = (target, mods = {}) => key('F', target, { ctrlKey: true, shiftKey: true, ...mods });
  assert.equal(routeKey(chord(at('#tree')), MAIN), 'search-all');
  assert.equal(routeKey(chord(at('input')), MAIN), 'search-all', 'from the tree search field too');
  assert.equal(routeKey(chord(at('input')), { ...MAIN, screen: 'library' }), 'search-all');
  assert.equal(routeKey(key('F', at('#tree'), { metaKey: true, shiftKey: true }), MAIN), 'search-all');
  assert.equal(routeKey(chord(at()), { ...MAIN, dialog: 'write' }), null);
  assert.equal(routeKey(chord(at()), { ...MAIN, dialog: 'compare' }), null);
  // Without Shift, or with Alt, it is not the app's; plain F is not a chord.
  assert.equal(routeKey(key('f', at('#tree'), { ctrlKey: true }), MAIN), null);
  assert.equal(routeKey(chord(at('#tree'), { altKey: true }), MAIN), null);
  assert.equal(routeKey(key('F', at('#tree'), { shiftKey: true }), MAIN), null);
});
