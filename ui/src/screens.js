// The Library and Settings screens and the Open… picker, wired to the title bar buttons; the
// keys (`l` Library, `o` Open…, `,` Settings, Esc back to the session) are keys.js's, run by
// key-actions.js. A screen replaces the panes (`body[data-screen]`, styles.css), so the main
// screen keeps its full size when closed. At start, when the demo stands in for a session
// nobody named, the title bar offers the library's sessions (`offerLibrary`).

import { getSettings, inApp, listSessions, pickSessionFile, providers, saveSettings, searchIndex, searchSessions } from './ipc.js';
import { libraryOffer } from './library/format.js';
import { createLibraryView } from './library/view.js';
import { createSearchView } from './search/view.js';
import { applyTheme, createSettingsView } from './settings/view.js';
import { afterPaint } from './tree/perf.js';
import { $ } from './dom.js';

/**
 * `open(path, dialect)` opens a session and shows it (resolves to whether it worked);
 * `session()` is the open session (an `openSession` result or null); `report(err, doing)`
 * shows an error; `onSettings(settings)` gets the settings when read at start and when saved;
 * `reveal(entryId, leafId)` selects an entry of the open session with that leaf's context shown.
 */
export function initScreens({ open, session, report, onSettings, reveal }) {
  const body = document.body;
  const offer = $('library-offer');
  // Set once the user went on (the library shown, another session opened): no offer after.
  let offerDone = false;
  function dropOffer() {
    offerDone = true;
    offer.hidden = true;
  }

  function showScreen(name) {
    body.dataset.screen = name;
    $('library').hidden = name !== 'library';
    $('settings').hidden = name !== 'settings';
    $('search').hidden = name !== 'search';
  }
  function closeScreen() {
    delete body.dataset.screen;
    $('library').hidden = true;
    $('settings').hidden = true;
    $('search').hidden = true;
    $('tree').focus();
  }

  async function openAndClose(path, dialect = null) {
    if (await open(path, dialect)) {
      dropOffer(); // the user has a session of their own now
      closeScreen();
    }
  }

  async function pick() {
    try {
      const path = await pickSessionFile();
      if (path) await openAndClose(path);
    } catch (err) {
      report(err, 'Open…');
    }
  }

  const library = createLibraryView($('library'), {
    load: () => listSessions(null).catch((err) => {
      report(err, 'Reading the session library');
      return null;
    }),
    onOpen: (path) => openAndClose(path),
    onPick: pick,
    onClose: closeScreen,
  });

  const settings = createSettingsView($('settings'), {
    load: getSettings,
    save: saveSettings,
    providers,
    onSaved: (s) => onSettings(s),
    onDialect: (dialect) => {
      const current = session();
      if (current) openAndClose(current.file, dialect || null);
    },
    onClose: closeScreen,
  });

  const search = createSearchView($('search'), {
    index: (onProgress) => searchIndex(onProgress),
    query: (text) => searchSessions(text),
    // A hit: its session (unless open), then its entry selected with its leaf's context.
    onOpen: async (hit) => {
      if (session()?.file !== hit.file && !(await open(hit.file))) return;
      dropOffer();
      closeScreen();
      await reveal(hit.entryId, hit.leafId ?? null);
    },
    onClose: closeScreen,
  });

  function showSearch() {
    dropOffer();
    showScreen('search');
    search.show();
  }

  function showLibrary() {
    dropOffer(); // found: it has done its job
    showScreen('library');
    library.show(session()?.file ?? null).catch((err) => report(err, 'Reading the session library'));
  }
  function showSettings() {
    showScreen('settings');
    settings.show(session());
  }

  $('show-library').addEventListener('click', showLibrary);
  $('show-search').addEventListener('click', showSearch);
  offer.addEventListener('click', showLibrary);
  $('open-file').addEventListener('click', pick);
  // In a browser there is no file picker: the library (the server's roots) opens sessions.
  for (const button of [$('open-file'), $('library-open-file')]) if (button && !inApp()) button.hidden = true;
  $('show-settings').addEventListener('click', showSettings);

  /** Esc: back to the session; the settings screen first puts back the theme it was opened with. */
  function back() {
    if (body.dataset.screen === 'settings') settings.revertTheme();
    closeScreen();
  }

  // The stored theme and settings apply from the start; defaults if they cannot be read.
  getSettings()
    .then((answer) => {
      applyTheme(document, answer.settings.theme);
      onSettings(answer.settings);
    })
    .catch(() => {});

  /**
   * `first`: the session opened at start. When it is the demo, counts the library's sessions
   * after the first paint (`list_sessions` reads the folders on a blocking thread, so the
   * window never waits) and offers them in the title bar; the demo stays open.
   */
  async function offerLibrary(first) {
    if (libraryOffer(first, 1) == null) return;
    await afterPaint();
    let lib;
    try {
      lib = await listSessions(null);
    } catch {
      return; // only an offer: the Library screen reports what cannot be read
    }
    const text = libraryOffer(session(), lib?.sessionCount);
    if (!text || offerDone) return;
    offer.textContent = text;
    offer.dataset.sessions = String(lib.sessionCount);
    offer.hidden = false;
  }

  return { showLibrary, showSettings, showSearch, closeScreen, back, pick, offerLibrary };
}
