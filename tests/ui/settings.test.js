import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TOKENIZERS, dialectChoices, formFromSettings, ruleSetText, keySourceText, maskKey, providerLines, readForm, resolveTheme,
} from '../../ui/src/settings/model.js';

const stored = {
  theme: 'dark', tokenizer: 'cl100k_base', contextWindow: 200000,
  library: { pi: '~/pi', omp: null, only: ['/a', '/b'] },
};

test('stored settings fill the form and read back unchanged', () => {
  const form = formFromSettings(stored);
  assert.deepEqual(form, {
    theme: 'dark', tokenizer: 'cl100k_base', contextWindow: '200000', piRoot: '~/pi', ompRoot: '', onlyRoots: '/a\n/b',
  });
  assert.deepEqual(readForm(form), { settings: stored, errors: [] });
});

test('an empty form is the defaults: system theme, o200k, the model table window, default folders', () => {
  assert.deepEqual(readForm(formFromSettings({})).settings, {
    theme: 'system', tokenizer: 'o200k_base', contextWindow: null, library: { pi: null, omp: null, only: [] },
  });
});

test('the window takes what the budget bar takes', () => {
  const withWindow = (contextWindow) => readForm({ ...formFromSettings({}), contextWindow });
  assert.equal(withWindow('200k').settings.contextWindow, 200_000);
  assert.equal(withWindow(' 1m ').settings.contextWindow, 1_000_000);
  assert.equal(withWindow('128,000').settings.contextWindow, 128_000);
  for (const bad of ['0', '-5', 'lots', '200000000']) {
    const { settings, errors } = withWindow(bad);
    assert.equal(settings, null, bad);
    assert.match(errors[0], /context window/);
  }
});

test('library folders must be absolute or under ~/; blank lines are ignored', () => {
  const form = { ...formFromSettings({}), piRoot: 'sessions', onlyRoots: '\n /x \n~/y\n\nrel' };
  const { settings, errors } = readForm(form);
  assert.equal(settings, null);
  assert.equal(errors.length, 2);
  assert.match(errors[0], /pi folder: `sessions`/);
  assert.match(errors[1], /`rel`/);
  const ok = readForm({ ...formFromSettings({}), onlyRoots: '\n /x \n~/y\n' });
  assert.deepEqual(ok.settings.library.only, ['/x', '~/y']);
});

test('unknown choices are refused', () => {
  const { errors } = readForm({ ...formFromSettings({}), theme: 'purple', tokenizer: 'p50k' });
  assert.deepEqual(errors, ['unknown theme `purple`', 'unknown tokenizer `p50k`']);
  // The choices are the backend's names (settings.rs): the dialect's `''` means detect.
  assert.deepEqual(TOKENIZERS.map((t) => t.id), ['o200k_base', 'cl100k_base', 'none']);
  // The rule sets come from the backend (the session report's `ruleSets`), agents in order.
  const ruleSets = [
    { name: 'pi@0.73', dialect: 'pi', reference: 'pi 0.73.1', standsFor: 'pi ≤ 0.85' },
    { name: 'pi@1.6', dialect: 'pi', reference: 'pi 1.6.0', standsFor: 'pi ≥ 0.86' },
    { name: 'omp@13', dialect: 'omp', reference: 'oh-my-pi 13.19.0', standsFor: 'oh-my-pi < 18' },
    { name: 'omp@18', dialect: 'omp', reference: 'oh-my-pi 18.2.3', standsFor: 'oh-my-pi ≥ 18' },
    { name: 'omp@18.3', dialect: 'omp', reference: 'oh-my-pi 18.3.4', standsFor: 'oh-my-pi ≥ 18.3' },
  ];
  assert.deepEqual(dialectChoices(ruleSets).map((d) => d.id), ['', 'pi', 'pi@0.73', 'pi@1.6', 'omp', 'omp@13', 'omp@18', 'omp@18.3']);
  assert.equal(dialectChoices(ruleSets)[3].label, 'pi@1.6 — pi 1.6.0 (pi ≥ 0.86)');
  assert.deepEqual(dialectChoices().map((d) => d.id), ['']);
});

test('the title bar names the rule set and says why it ran', () => {
  const session = { dialect: 'pi', ruleSet: { name: 'pi@1.6', reference: 'pi 1.6.0', why: 'the file shows system messages in the transcript (pi ≥ 0.86)' }, requested: null };
  const t = ruleSetText(session);
  assert.equal(t.label, 'rules: pi@1.6');
  assert.match(t.title, /^pi@1\.6 follows pi 1\.6\.0: the file shows system messages/);
  assert.match(t.title, /pick other rules/);
  assert.doesNotMatch(ruleSetText({ ...session, requested: 'pi@1.6' }).title, /pick other rules/);
  // An answer without a rule set (an older backend) still shows the dialect.
  assert.equal(ruleSetText({ dialect: 'omp' }).label, 'dialect: omp');
});

test('system follows the desktop preference; light and dark are fixed', () => {
  assert.equal(resolveTheme('system', true), 'dark');
  assert.equal(resolveTheme('system', false), 'light');
  assert.equal(resolveTheme('light', true), 'light');
  assert.equal(resolveTheme('dark', false), 'dark');
  assert.equal(resolveTheme(undefined, true), 'dark');
});

test('a key is never shown whole, even if the backend sent one unmasked', () => {
  assert.equal(maskKey('sk-…9f3a'), 'sk-…9f3a');
  assert.equal(maskKey('sk-ant-api03-abcdefghijklmnop-wxyz'), 'sk-…wxyz');
  assert.equal(maskKey('short'), '…');
  assert.equal(maskKey(null), null);
  assert.equal(maskKey(''), null);
});

test('providers show in order with where their key comes from', () => {
  const lines = providerLines({
    configPath: '/h/.config/contextree/config.json',
    candidates: [
      { name: 'local', kind: 'openai-compatible', model: 'qwen2.5:7b', baseUrl: 'http://127.0.0.1:11434/v1', key: null, keySource: 'none' },
      { name: null, kind: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: 'https://api.anthropic.com', key: 'sk-…1234', keySource: 'environment', keyEnv: 'ANTHROPIC_API_KEY' },
      { name: 'file', kind: 'openai-compatible', model: 'gpt-4.1-mini', baseUrl: null, key: 'sk-proj-0123456789abcdef', keySource: 'config' },
    ],
    remoteEndpoint: null,
  });
  assert.deepEqual(lines, [
    { label: '1. local', detail: 'openai-compatible · qwen2.5:7b · http://127.0.0.1:11434/v1', key: null, source: 'none needed' },
    { label: '2. anthropic', detail: 'anthropic · claude-sonnet-4-5 · https://api.anthropic.com', key: 'sk-…1234', source: 'from the environment variable ANTHROPIC_API_KEY' },
    { label: '3. file', detail: 'openai-compatible · gpt-4.1-mini', key: 'sk-…cdef', source: 'from the config file' },
  ]);
  assert.deepEqual(providerLines(null), []);
  assert.equal(keySourceText({ keySource: 'environment' }), 'from the environment');
  assert.equal(keySourceText({ keySource: 'none', apiKeyEnv: 'OPENAI_API_KEY' }), 'none (OPENAI_API_KEY is not set)');
});
