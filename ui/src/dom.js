// The one way views build elements: a tag, a class and text set with textContent, never
// parsed as HTML (session text is untrusted).

/** `el(tag, className?, text?)` creating elements in `doc`. */
export function elementMaker(doc) {
  return (tag, className, text) => {
    const node = doc.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  };
}

/** The heading of a modal dialog: its title and a Close (Esc) button calling `onClose`. */
export function dialogHead(doc, title, onClose) {
  const el = elementMaker(doc);
  const head = el('header', 'dialog-head');
  head.append(el('h2', null, title));
  const close = el('button', 'screen-button', 'Close (Esc)');
  close.type = 'button';
  close.addEventListener('click', onClose);
  head.append(close);
  return head;
}
