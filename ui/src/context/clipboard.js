// Copying a text that is still being fetched. WebKit (WebKitGTK under Tauri) lets a page write
// to the clipboard only during the click that asked for it, and the text comes from an IPC call
// that outlives the click: so the write starts in the click, with a ClipboardItem whose content
// is a promise (WebKit's own answer to this). Where that is missing or refused, the text is
// written once it arrives (`writeText`), then through a selected textarea and
// `execCommand('copy')`. No capability is needed: this is the page's own clipboard access.

/**
 * Copies the text `textPromise` resolves to; resolves to the text once it is on the clipboard.
 * Call it from the click handler itself (no `await` before it).
 */
export async function copyText(doc, textPromise) {
  const text = Promise.resolve(textPromise);
  const clip = doc.defaultView?.navigator?.clipboard;
  const Item = doc.defaultView?.ClipboardItem;
  if (clip?.write && Item) {
    try {
      const blob = text.then((t) => new Blob([t], { type: 'text/plain' }));
      await clip.write([new Item({ 'text/plain': blob })]);
      return await text;
    } catch {
      // fall through: the text may still be copied another way
    }
  }
  const value = await text;
  if (clip?.writeText) {
    try {
      await clip.writeText(value);
      return value;
    } catch {
      // fall through
    }
  }
  const area = doc.createElement('textarea');
  area.className = 'offscreen';
  area.readOnly = true;
  area.value = value;
  doc.body.append(area);
  area.select();
  const ok = doc.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the clipboard refused the text');
  return value;
}
