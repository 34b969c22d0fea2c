import { readFileSync } from "node:fs";

/** One entry per non-blank line. */
export function loadEntries(file: string): unknown[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter(line => line.trim() !== "")
		.map(line => JSON.parse(line));
}
