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
