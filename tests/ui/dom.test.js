import { test } from 'node:test';
import assert from 'node:assert/strict';
import { elementMaker, makeButton } from '../../ui/src/dom.js';

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

test('makeButton: a type="button" with its text as text, id, title, and a click that cannot submit', () => {
  const listeners = {};
  const doc = {
    createElement: (tag) => ({
      tag, className: '', textContent: '', addEventListener: (type, f) => { listeners[type] = f; },
      set innerHTML(_) { throw new Error('innerHTML used'); },
    }),
  };
  let clicked = null;
  const b = makeButton(doc, 'tool copy-json', '<b>Copy</b>', { id: 'x', title: 'Copy it', onClick: (button) => { clicked = button; } });
  assert.equal(b.tag, 'button');
  assert.equal(b.type, 'button');
  assert.equal(b.className, 'tool copy-json');
  assert.equal(b.textContent, '<b>Copy</b>');
  assert.equal(b.id, 'x');
  assert.equal(b.title, 'Copy it');
  let prevented = false;
  listeners.click({ preventDefault: () => { prevented = true; } });
  assert.equal(clicked, b);
  assert.ok(prevented);
  const plain = makeButton(doc, 'screen-button', 'Refresh');
  assert.equal(plain.id, undefined);
  assert.equal(plain.title, undefined);
});
