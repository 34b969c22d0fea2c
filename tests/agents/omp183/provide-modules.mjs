// What oh-my-pi 18.3.4's session code imports that its published dependencies lack, for Bun.
//
// pi-utils 18.3.x is not on the registry; 18.2.9 (the newest there) has no `fs-open` module, which
// 18.3.4's session-storage.ts imports to open files close-on-exec. It is served as a virtual module
// so that omp183/node_modules stays exactly what package-lock.json says. Only the TypeScript
// sources need it (oracle.mjs --impl omp183, scripts/oracle-tree.mjs); the bundled dist/cli.js
// carries its own copy.
export function provideOmp183Modules() {
	globalThis.Bun.plugin({
		name: "contextree-omp183",
		setup(build) {
			build.module("@oh-my-pi/pi-utils/fs-open", () => ({
				loader: "js",
				contents: [
					'import * as fs from "node:fs";',
					"export function openCloexecSync(p, flags, mode) {",
					"\treturn fs.openSync(p, flags | (fs.constants.O_CLOEXEC ?? 0), mode);",
					"}",
				].join("\n"),
			}));
		},
	});
}
