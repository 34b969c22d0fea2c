// @oh-my-pi/pi-natives for oh-my-pi 18.3.4. Its own natives (18.3.x) are not on the registry and
// 18.2.10 has no linux-x64 addon there, so this re-exports 18.2.3's, installed with its addon one
// folder up for --impl omp18. 18.3.4 imports nine names 18.2.3 lacks; none of them is on a path
// that reads, builds or sends a session (shell file-system ops, word prediction, Apple's on-device
// model, mermaid rendering), so they are inert stand-ins that say so when called.
export * from "../../node_modules/@oh-my-pi/pi-natives/native/index.js";

const absent = name => () => {
	throw new Error(`pi-natives ${name}: not in the natives 18.2.3 that contextree's tests run 18.3.4 with`);
};
export const ShellFsFileType = Object.freeze({});
export const ShellFsMissing = Object.freeze({});
export const ShellFsOp = Object.freeze({});
export const ShellFsResolve = Object.freeze({});
export class TextPredictor {
	constructor() {
		absent("TextPredictor")();
	}
}
export const appleFmAvailability = () => ({ available: false, reason: "not in natives 18.2.3" });
export const appleFmCancel = () => {};
export const appleFmGenerate = absent("appleFmGenerate");
export const renderMermaidAscii = absent("renderMermaidAscii");
