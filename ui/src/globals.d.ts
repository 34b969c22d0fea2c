// What the page gets from outside its modules: Tauri's global API (withGlobalTauri), used by
// ipc.js only.
interface Window {
  __TAURI__: any;
}
