// The one way views build elements: a tag, a class and text set with textContent, never
// parsed as HTML (session text is untrusted); buttons and dialog heads are built here too.

/** `el(tag, className?, text?)` creating elements in `doc`. */
export function elementMaker(doc) {
  return (tag, className, text) => {
    const node = doc.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  };
}

/**
 * A `<button type="button">` in `doc` with `className` and `text` (as text); `id`, `title`
 * and `onClick(button, event)` are optional. The click's default is prevented, so a button
 * inside a `<summary>` does not fold its `<details>`.
 * @param {Document} doc
 * @param {string} className
 * @param {string} [text]
 * @param {{ id?: string, title?: string, onClick?: (button: HTMLButtonElement, event: MouseEvent) => void }} [options]
 */
export function makeButton(doc, className, text, { id, title, onClick } = {}) {
  const button = elementMaker(doc)('button', className, text);
  button.type = 'button';
  if (id) button.id = id;
  if (title) button.title = title;
  if (onClick) {
    button.addEventListener('click', (event) => {
      event.preventDefault();
      onClick(button, event);
    });
  }
  return button;
}

/**
 * A `<input type="search">` in `doc` for a screen's query: no autocomplete or spell check (ids,
 * paths and code are typed there), named for assistive technology by `label`.
 * @param {Document} doc
 * @param {{ className: string, id: string, placeholder: string, label: string }} options
 */
export function makeSearchInput(doc, { className, id, placeholder, label }) {
  const input = elementMaker(doc)('input', className);
  input.type = 'search';
  input.id = id;
  input.placeholder = placeholder;
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.setAttribute('aria-label', label);
  return input;
}

/** The heading of a modal dialog: its title and a Close (Esc) button calling `onClose`. */
export function dialogHead(doc, title, onClose) {
  const el = elementMaker(doc);
  const head = el('header', 'dialog-head');
  head.append(el('h2', null, title), makeButton(doc, 'screen-button', 'Close (Esc)', { onClick: () => onClose() }));
  return head;
}

/**
 * The page's element with this id. Typed loosely: index.html's fixed elements are inputs,
 * selects, dialogs and buttons alike, and each module knows which it asks for.
 * @param {string} id
 * @returns {any}
 */
export const $ = (id) => document.getElementById(id);
