// How the page writes a file's path: inside the home folder as `~/…` (shorter, and the way the
// library folders are written in Settings), elsewhere whole. Display only: commands always get
// the real path.

let home = null;

/** Sets the home folder once the backend said it (`home_dir`); null or '' for none. */
export function setHome(dir) {
  home = typeof dir === 'string' && dir.startsWith('/') && dir.length > 1 ? dir.replace(/\/+$/, '') : null;
}

/** `path` as shown: `~` for the home folder itself, `~/rest` inside it, else unchanged. */
export function shortPath(path, dir = home) {
  if (typeof path !== 'string' || !dir) return path;
  if (path === dir) return '~';
  return path.startsWith(`${dir}/`) ? `~${path.slice(dir.length)}` : path;
}
