/** Four bytes a token, rounded up. */
export function estimateTokens(text: string): number {
	return (Buffer.byteLength(text, "utf-8") + 3) >> 2;
}

export class Tokenizer {
	countTokens(text: string): number {
		return estimateTokens(text);
	}
}
