import { test } from 'node:test';
import assert from 'node:assert/strict';
import { elementMaker } from '../../ui/src/dom.js';

// A stand-in document that records how text reaches the element.
function fakeDoc() {
  return { createElement: (tag) => ({ tag, className: '', textContent: '', set innerHTML(_) { throw new Error('innerHTML used'); } }) };
}

test('elements get their class and their text as text, never as HTML', () => {
  const el = elementMaker(fakeDoc());
  const node = el('p', 'note', '<img src=x onerror=alert(1)>');
  assert.equal(node.tag, 'p');
  assert.equal(node.className, 'note');
  assert.equal(node.textContent, '<img src=x onerror=alert(1)>');
});

test('class and text are optional; a zero or empty text is still set', () => {
  const el = elementMaker(fakeDoc());
  assert.equal(el('div').className, '');
  assert.equal(el('span', null, 0).textContent, 0);
  assert.equal(el('span', null, '').textContent, '');
});
