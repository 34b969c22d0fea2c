// Every script renders: the stylesheet's font lists reach fonts for CJK text and emoji, and
// scripts/install-deps.sh installs the Debian packages that provide them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (rel) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');
const css = read('ui/styles.css');

function fontList(name) {
  const m = css.match(new RegExp(`--${name}:\\s*([^;]+);`));
  assert.ok(m, `--${name} is defined`);
  return m[1].split(',').map((f) => f.trim().replace(/^"|"$/g, ''));
}

test('the sans and mono lists cover CJK and emoji before the generic family', () => {
  for (const [name, generic] of [['font-sans', 'sans-serif'], ['font-mono', 'monospace']]) {
    const list = fontList(name);
    const cjk = list.findIndex((f) => /^Noto Sans (Mono )?CJK/.test(f));
    const emoji = list.indexOf('Noto Color Emoji');
    assert.ok(cjk > 0 && emoji > 0, `${name}: ${list.join(', ')}`);
    assert.ok(cjk < list.indexOf(generic) && emoji < list.indexOf(generic), `${name}: before ${generic}`);
  }
});

test('no rule names a font family of its own', () => {
  const families = [...css.matchAll(/font-family:\s*([^;]+);/g)].map((m) => m[1].trim());
  assert.ok(families.length > 0);
  for (const f of families) assert.match(f, /^var\(--font-(sans|mono)\)$/);
});

test('install-deps.sh installs the fonts the lists name', () => {
  const deps = read('scripts/install-deps.sh');
  for (const pkg of ['fonts-dejavu-core', 'fonts-noto-cjk', 'fonts-noto-color-emoji']) {
    assert.match(deps, new RegExp(`\\b${pkg}\\b`), pkg);
  }
});
