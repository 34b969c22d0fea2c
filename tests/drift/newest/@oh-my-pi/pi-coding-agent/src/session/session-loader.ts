import { readFileSync } from "fs";

/**
 * One entry per non-blank line (the comment and the import changed, the code did not).
 */
export function loadEntries(file: string): unknown[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter(line => line.trim() !== "")
		.map(line => JSON.parse(line));
}
