// Generated from the report types of crates/contextree-read (src/contract.rs): do not edit.
// Write it again with `CONTEXTREE_WRITE_CONTRACT=1 cargo test -p contextree-read contract`.

export type Amounts = { 
/**
 * Prompt tokens not read from the cache.
 */
input: number, 
/**
 * Completion tokens.
 */
output: number, 
/**
 * Prompt tokens read from the cache.
 */
cacheRead: number, 
/**
 * Prompt tokens written to the cache.
 */
cacheWrite: number, 
/**
 * `totalTokens` as recorded (0 when absent).
 */
totalTokens: number, 
/**
 * `cost.total` as recorded (0 when absent).
 */
cost: number, };

export type AutoCheckReport = { 
/**
 * The rule set whose check ran: `pi@0.73`, `pi@1.6`, `omp@13` or `omp@18`.
 */
ruleSet: string, 
/**
 * The id of the assistant message checked (the context's last); `null` without one.
 */
assistantId: string | null, 
/**
 * That message's `stopReason`.
 */
stopReason: string | null, 
/**
 * What the agent would start: `none`, `threshold`, `overflow` or (omp 18) `incomplete`.
 */
decision: string, 
/**
 * Why the check stopped before the threshold test (`noAssistant`, `disabled`, `stale`,
 * …); `null` when it did not.
 */
skipped: string | null, 
/**
 * One sentence for people: the decision and why.
 */
reason: string, 
/**
 * The message's provider and model are the current model's.
 */
sameModel: boolean, 
/**
 * No current model was given, so the message's own model was assumed.
 */
modelAssumed: boolean, 
/**
 * The message predates the latest compaction on the path (omp `<`, pi `≤`).
 */
stale: boolean, 
/**
 * Why the agent sees a context overflow (checked whatever the other gates say); `null`
 * when it does not.
 */
overflow: OverflowReport | null, 
/**
 * `calculateContextTokens` of the message's usage (pi's error path: the estimate);
 * `null` without usage.
 */
usageTokens: number | null, 
/**
 * omp: tokens the pruning run before the threshold test saves (`tokensSaved`).
 */
pruningSavings: number, 
/**
 * omp: tool results that pruning run prunes.
 */
prunedCount: number, 
/**
 * The token count compared with the threshold (after pruning); `null` when the check
 * stopped before.
 */
contextTokens: number | null, 
/**
 * The threshold in tokens; `null` when the threshold rule never fires.
 */
thresholdTokens: number | null, 
/**
 * The context window the check used, in tokens.
 */
window: number, 
/**
 * `willRetry` of the automatic compaction: the agent retries the turn after compacting
 * (recovery from an overflow or a `length` stop, per rule set; never for the threshold).
 */
willRetry: boolean, 
/**
 * omp: context promotion is tried first (a configured larger model instead of compacting).
 */
contextPromotion: boolean, 
/**
 * Things the file cannot tell, or that change the outcome.
 */
notes: Array<string>, };

export type BranchMessage = { 
/**
 * Its entry.
 */
entryId: string, 
/**
 * Its role under the rule set.
 */
role: string | null, 
/**
 * Its estimate.
 */
tokens: number, 
/**
 * pi 1.6: the context_edit whose replacement it reads.
 */
editedBy?: string, };

export type BranchPoint = { 
/**
 * The entry.
 */
id: string | null, 
/**
 * How many children it has.
 */
children: number, };

export type BranchReport = { 
/**
 * The agent whose rules ran.
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * The old leaf.
 */
fromId: string | null, 
/**
 * The navigation target.
 */
toId: string | null, 
/**
 * The selection's token budget (0: none).
 */
budget: number, 
/**
 * Where the two paths meet.
 */
commonAncestorId: string | null, 
/**
 * The entries left behind (collected).
 */
entryIds: Array<string>, 
/**
 * Those the budget selects.
 */
selectedIds: Array<string>, 
/**
 * The selected messages with the role and estimate the summarizer sees.
 */
messages: Array<BranchMessage>, 
/**
 * Their estimate.
 */
totalTokens: number, 
/**
 * A summary squeezed in over the budget.
 */
squeezedId: string | null, 
/**
 * Where the selection stopped.
 */
stoppedAtId: string | null, 
/**
 * The file operations of the selection.
 */
fileOps: FileOpsReport, };

export type BranchSubagents = { 
/**
 * The leaf (as in the report's `branches`, same order).
 */
leafId: string, 
/**
 * The agents started on its path (nested ones included).
 */
subagents: Totals, 
/**
 * The branch's own records and its subagents'.
 */
withSubagents: Totals, };

export type BranchTotals = { 
/**
 * The leaf.
 */
leafId: string, 
/**
 * Entries on its path.
 */
pathLength: number, 
/**
 * Usage records summed.
 */
records: number, 
/**
 * Prompt tokens not read from the cache.
 */
input: number, 
/**
 * Completion tokens.
 */
output: number, 
/**
 * Prompt tokens read from the cache.
 */
cacheRead: number, 
/**
 * Prompt tokens written to the cache.
 */
cacheWrite: number, 
/**
 * `totalTokens` as recorded (0 when absent).
 */
totalTokens: number, 
/**
 * `cost.total` as recorded (0 when absent).
 */
cost: number, };

export type BreakdownRow = { 
/**
 * What it is.
 */
category: Category, 
/**
 * The tool, for tool calls and results (and a tool result's images).
 */
tool: string | null, 
/**
 * The system prompt's section (`None`: its content).
 */
section?: string, 
/**
 * Its share of the messages' estimate.
 */
tokens: number, 
/**
 * Messages counted here (each message once, in the row of its largest part).
 */
messages: number, };

export type BudgetReport = { 
/**
 * The agent whose rules ran.
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * The leaf.
 */
leafId: string | null, 
/**
 * Context window.
 */
window: number, 
/**
 * `override`, `model` or `default`.
 */
windowSource: string, 
/**
 * The path's model (`provider/id`).
 */
model: string | null, 
/**
 * The agent's estimate of the context (what it shows).
 */
used: number, 
/**
 * The agents show the size as unknown.
 */
unknownAfterCompaction: boolean, 
/**
 * Reserve tokens.
 */
reserve: number, 
/**
 * Auto-compaction threshold (`None`: never).
 */
threshold: number | null, 
/**
 * `keepRecentTokens`.
 */
keepRecent: number, 
/**
 * Where the kept-recent region starts on the bar.
 */
keepRecentFrom: number, 
/**
 * Over the threshold.
 */
overThreshold: boolean, 
/**
 * The agent's post-run check would compact now.
 */
wouldCompact: boolean, 
/**
 * `none`, `threshold`, `overflow` or `incomplete`.
 */
decision: string, 
/**
 * Why, in one sentence.
 */
reason: string, 
/**
 * The agent's number misleads (docs/decisions.md D24): the estimate beside it, and why.
 */
misleading: Misleading | null, };

export type ByteSizes = { 
/**
 * Now.
 */
before: number, 
/**
 * After.
 */
after: number, };

export type CallKind = "assistant" | "sideCall" | "summary" | "tool";

export type CallView = { 
/**
 * The system prompt.
 */
systemPrompt: string, 
/**
 * The user message.
 */
prompt: string, 
/**
 * `maxTokens` as sent (pi@1.6 sends none).
 */
maxTokens: number | null, 
/**
 * The `reasoning` option.
 */
reasoning: string | null, 
/**
 * `history`, `turnPrefix` or `short` (a compaction's calls; `None` for a branch summary).
 */
kind: string | null, };

export type Category = "systemPrompt" | "toolDefinitions" | "user" | "assistantText" | "thinking" | "toolCall" | "toolResult" | "bashExecution" | "compactionSummary" | "branchSummary" | "custom" | "image" | "other";

export type CellMessage = { 
/**
 * Its place in the side's context (the context report's `messages[i]`).
 */
i: number, 
/**
 * Its role (`user`, `toolResult`, `compactionSummary`, …).
 */
role: string, 
/**
 * The dialect's estimate of the agent message.
 */
tokens: number, 
/**
 * The dialect's estimate of the LLM messages `convertToLlm` makes of it (0: not sent).
 */
llmTokens: number, 
/**
 * With text asked: the LLM message's readable text (the agent message's when it is not
 * sent), cut.
 */
text?: string, 
/**
 * `text` was cut.
 */
truncated?: boolean, };

export type ChildKind = "subagent" | "advisor";

export type ChildStatus = "read" | "missing" | "unreadable";

export type CompactionMark = { 
/**
 * The compaction entry.
 */
entryId: string, 
/**
 * Its position in the file.
 */
index: number, 
/**
 * `tokensBefore` as recorded.
 */
tokensBefore: number | null, };

export type CompareCell = { 
/**
 * The entry (a compaction's summary stands for the compaction entry).
 */
entryId: string | null, 
/**
 * Its number in the file.
 */
entryIndex: number, 
/**
 * Its state for this side's leaf (`kept`, `pruned`, `summarized`, `compaction`,
 * `hidden`, …, as `contextree tree` shows it).
 */
state: string, 
/**
 * The message this side sends of it; `None`: nothing (the other side sends it).
 */
message: CellMessage | null, };

export type CompareReport = { 
/**
 * The agent whose rules ran (`pi`, `omp`).
 */
dialect: string, 
/**
 * The rule set that ran and why (one for the session, so for both leaves).
 */
ruleSet: RuleChoice, 
/**
 * Whose wording wraps the summaries (docs/decisions.md D8).
 */
prompts: PromptsReport, 
/**
 * The deepest entry on both leaves' paths (`None`: they start at different roots).
 */
commonAncestorId: string | null, 
/**
 * That entry's number in the file.
 */
commonAncestorIndex: number | null, 
/**
 * Leaf A's context.
 */
a: CompareSide, 
/**
 * Leaf B's context.
 */
b: CompareSide, 
/**
 * B's totals minus A's.
 */
difference: TokenDifference, 
/**
 * Rows in all.
 */
rowCount: number, 
/**
 * The shared prefix: the leading `same` rows, the messages both contexts start with alike.
 */
sharedCount: number, 
/**
 * Their tokens.
 */
sharedTokens: number, 
/**
 * The first row that is not `same` (= `sharedCount`); `None`: the two contexts are alike.
 */
divergeAt: number | null, 
/**
 * `same` rows anywhere (the shared prefix and any after it).
 */
sameCount: number, 
/**
 * Their tokens.
 */
sameTokens: number, 
/**
 * `changed` rows: an entry on both paths that the two leaves send differently, or only one
 * of them sends (the other summarized it, an edit hid it, …).
 */
changedCount: number, 
/**
 * `diverged` rows: messages of entries past the common ancestor, the two branches' side by
 * side.
 */
divergedCount: number, 
/**
 * The rows, in order: every message of each context on exactly one row of its side.
 */
rows: Array<CompareRow>, };

export type CompareRow = { 
/**
 * Its place among the rows.
 */
i: number, 
/**
 * `same` (both send this message alike), `changed` (an entry on both paths the leaves
 * treat differently) or `diverged` (past the common ancestor: each cell an entry only its
 * own leaf's path has).
 */
op: string, 
/**
 * A's side (`None`: nothing of A at this row).
 */
a: CompareCell | null, 
/**
 * B's side.
 */
b: CompareCell | null, };

export type CompareSide = { 
/**
 * The leaf.
 */
leafId: string | null, 
/**
 * The leaf's entry number in the file.
 */
leafIndex: number | null, 
/**
 * Entries on the path from the root to the leaf.
 */
pathLength: number, 
/**
 * The model: pi's `{provider, modelId}`, omp's default role's.
 */
model: ModelReport, 
/**
 * omp: role → model.
 */
models?: Record<string, string>, 
/**
 * omp's mode.
 */
mode?: string, 
/**
 * Agent messages of the context.
 */
messageCount: number, 
/**
 * Their estimate.
 */
messageTokens: number, 
/**
 * Messages after `convertToLlm`.
 */
llmCount: number, 
/**
 * Their estimate.
 */
llmTokens: number, 
/**
 * The agent's `estimateContextTokens`.
 */
estimateContextTokens: ContextEstimate, 
/**
 * What the agent shows (pi ≥ 0.87: `estimateProjectedContextTokens`, pi-1.6.md §3.4).
 */
estimateProjectedContextTokens: ContextEstimate, 
/**
 * omp: the kept messages are the provider's native replacement history.
 */
providerReplay: boolean, 
/**
 * omp 18: whose counting the numbers are.
 */
tokenCount?: TokenCount, 
/**
 * What the request depends on that the file cannot tell (docs/decisions.md D23), for the
 * rule sets that name something (pi ≥ 0.86, omp ≥ 18).
 */
notReproducible?: Array<NotReproducible>, 
/**
 * Messages this leaf sends that the other does not send alike (its cells of the
 * `changed` and `diverged` rows).
 */
onlyCount: number, 
/**
 * Their tokens.
 */
onlyTokens: number, 
/**
 * Of them, those of entries past the common ancestor (its cells of the `diverged` rows).
 */
branchCount: number, 
/**
 * Their tokens.
 */
branchTokens: number, };

export type ContextEstimate = { 
/**
 * The estimate.
 */
tokens: number, 
/**
 * The usage part (0 without usage).
 */
usageTokens: number, 
/**
 * The estimate of the messages after the usage.
 */
trailingTokens: number, 
/**
 * Index (in the context's messages) of the message whose usage was used.
 */
lastUsageIndex: number | null, 
/**
 * A compaction is on the path and no assistant message after it reported
 * usable usage: the agents show the size as unknown (pi ≥ 0.87: only
 * assistants the projection still shows count, pi-1.6.md §3.4).
 */
unknownAfterCompaction: boolean, };

export type ContextReport = { 
/**
 * The agent whose rules ran (`pi`, `omp`).
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * The leaf.
 */
leafId: string | null, 
/**
 * The leaf's entry number in the file.
 */
leafIndex: number | null, 
/**
 * The model: pi's `{provider, modelId}`, omp's default role's.
 */
model: ModelReport, 
/**
 * omp: role → model.
 */
models?: Record<string, string>, 
/**
 * omp's mode.
 */
mode?: string, 
/**
 * The thinking level set on the path (as the file has it).
 */
thinkingLevel: unknown, 
/**
 * Entries on the path from the root to the leaf.
 */
pathLength: number, 
/**
 * Agent messages of the context.
 */
messageCount: number, 
/**
 * Their estimate.
 */
messageTokens: number, 
/**
 * When asked: `messageTokens` by category, summing to it exactly (see [`crate::breakdown`]).
 */
breakdown?: Array<BreakdownRow>, 
/**
 * Messages after `convertToLlm`.
 */
llmCount: number, 
/**
 * Their estimate.
 */
llmTokens: number, 
/**
 * The agent's `estimateContextTokens`.
 */
estimateContextTokens: ContextEstimate, 
/**
 * What the agent shows (pi ≥ 0.87: `estimateProjectedContextTokens`, pi-1.6.md §3.4).
 */
estimateProjectedContextTokens: ContextEstimate, 
/**
 * omp: the kept messages are the provider's native replacement history.
 */
providerReplay: boolean, 
/**
 * omp 18: whose counting the numbers are.
 */
tokenCount?: TokenCount, 
/**
 * What the request depends on that the file cannot tell (docs/decisions.md D23), for the
 * rule sets that name something (pi ≥ 0.86, omp ≥ 18).
 */
notReproducible?: Array<NotReproducible>, 
/**
 * omp 18: the thinking level of the session's settings.
 */
configuredThinkingLevel?: string | null, 
/**
 * omp 18: the `/clear` the context starts after.
 */
resetBoundaryId?: string | null, 
/**
 * Whose wording wraps the summaries (docs/decisions.md D8).
 */
prompts: PromptsReport, 
/**
 * The LLM messages counted with a tokenizer, when asked.
 */
tokenizer?: TokenizerCount, 
/**
 * pi ≥ 0.86, with text asked: the system prompt and tools the request leads with.
 */
system?: SystemText, 
/**
 * One per agent message, in order.
 */
messages: Array<MessageRow>, 
/**
 * One per LLM message, in order.
 */
llm: Array<LlmRow>, 
/**
 * Entries of the projection.
 */
contextEntryCount?: number, 
/**
 * `context_edit` entries on the path.
 */
contextEditsOnPath?: number, 
/**
 * The edits among the context's entries.
 */
contextEdits?: Array<Edit>, 
/**
 * Entries an edit hides.
 */
omittedEntryIds?: Array<string>, 
/**
 * Entries an edit replaces.
 */
replacedEntryIds?: Array<string>, 
/**
 * System messages in the context.
 */
systemMessageCount?: number, 
/**
 * The system message the request leads with.
 */
currentSystem?: CurrentSystem | null, };

export type ContextSize = { 
/**
 * Agent messages.
 */
messageTokens: number, 
/**
 * Messages after `convertToLlm`.
 */
llmTokens: number, };

export type ContextSizes = { 
/**
 * Before.
 */
before: ContextSize, 
/**
 * After both passes.
 */
after: ContextSize, };

export type CostReport = { 
/**
 * The session's model and its prices (`prices: null`: unknown).
 */
sessionModel: string | null, 
/**
 * The model that would summarize.
 */
summaryModel: string | null, 
/**
 * The session model's prices.
 */
sessionPrices: PriceReport | null, 
/**
 * The summary model's prices.
 */
summaryPrices: PriceReport | null, 
/**
 * The summarizer calls' input, in the agents' estimate.
 */
summarizerInputTokens: number, 
/**
 * Their output at most (their `maxTokens`).
 */
summarizerOutputTokens: number, 
/**
 * The context now (the plan's `tokensBefore`).
 */
tokensBefore: number, 
/**
 * Right after compacting, at most (the plan's `estimatedTokensAfter`).
 */
tokensAfter: number, 
/**
 * The summarizer's input.
 */
summarizerInputCost: number | null, 
/**
 * Its output, at most.
 */
summarizerOutputCost: number | null, 
/**
 * The next turn writing the compacted context to the cache.
 */
cacheRewriteCost: number | null, 
/**
 * The three together.
 */
oneOffCost: number | null, 
/**
 * Saved on each later turn served from the cache.
 */
savingPerCachedTurn: number | null, 
/**
 * Saved on each later turn that is not.
 */
savingPerUncachedTurn: number | null, 
/**
 * Turns from the cache after which the saving covers the one-off cost.
 */
paysOffAfterCachedTurns: number | null, 
/**
 * The same, for turns not served from the cache.
 */
paysOffAfterUncachedTurns: number | null, };

export type Counted = "file" | "recorded" | "nothing";

export type CurrentSystem = { 
/**
 * pi's estimate of it.
 */
tokens: number, 
/**
 * Its content's length in UTF-16 units.
 */
contentLength: number, 
/**
 * Its sections' names.
 */
sections: Array<string>, 
/**
 * Its tools' names.
 */
tools: unknown[], 
/**
 * Its timestamp as stored.
 */
timestamp: unknown, };

export type CutReport = { 
/**
 * The agent whose rules ran.
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * The leaf whose path is cut.
 */
leafId: string | null, 
/**
 * The settings the plan used.
 */
settings: SettingsDoc, 
/**
 * The agent would not compact.
 */
nothingToCompact: boolean, 
/**
 * Why not, in the agent's words.
 */
reason: string | null, 
/**
 * The first entry kept verbatim.
 */
firstKeptEntryId: string | null, 
/**
 * Its entry number.
 */
firstKeptEntryIndex: number | null, 
/**
 * The cut falls inside a turn.
 */
isSplitTurn: boolean | null, 
/**
 * The split turn's first entry (none when the cut is the turn start).
 */
turnStartEntryId: string | null, 
/**
 * `tokensBefore` as the rule set computes it.
 */
tokensBefore: number, 
/**
 * `keepRecentTokens` as used (omp scales it).
 */
keepRecentTokensUsed: number, 
/**
 * The compaction this one follows.
 */
previousCompactionId: string | null, 
/**
 * Entries the history summary covers.
 */
messagesToSummarizeIds: Array<string>, 
/**
 * The split turn's entries before the cut.
 */
turnPrefixIds: Array<string>, 
/**
 * Entries kept verbatim.
 */
recentMessagesIds: Array<string>, 
/**
 * omp: entries the previous compaction kept that this one drops.
 */
droppedIds: Array<string>, 
/**
 * The raw sets sorted and the agents' lists.
 */
fileOps: FileOpsReport, 
/**
 * The raw `findCutPoint` facts.
 */
findCutPoint: FindCutPoint, 
/**
 * Everything worth telling about the plan.
 */
warnings: Array<string>, 
/**
 * `--window`: the agent's own check after its last run.
 */
autoCheck?: AutoCheckReport, };

export type Diagnostic = { 
/**
 * 1-based physical line number in the file.
 */
line: number, 
/**
 * Error or warning.
 */
severity: Severity, 
/**
 * What is wrong and what the dialect does about it.
 */
message: string, };

export type DropsReport = { 
/**
 * The agent whose rules ran.
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * Which compaction: `compaction ID`, or one of the leaf now.
 */
what: string, 
/**
 * There is a summary to check against (an existing compaction).
 */
hasSummary: boolean, 
/**
 * The user requests it summarizes, in order.
 */
requests: Array<Request>, 
/**
 * How many may be lost.
 */
mayBeLost: number, 
/**
 * The paths, commands and numbers of the summarized part, and the share the summary keeps.
 */
facts: KeptFacts, };

export type Edit = { 
/**
 * The `context_edit` entry.
 */
entryId: string, 
/**
 * Its entry number.
 */
entryIndex: number, 
/**
 * The entry it names.
 */
targetId: string, 
/**
 * That entry's number, when it exists.
 */
targetIndex: number | null, 
/**
 * `omit` or `replace`.
 */
action: string, 
/**
 * The last edit of a target in the context: this one applies.
 */
effective: boolean, };

export type EntryReport = { 
/**
 * Entry id.
 */
id: string, 
/**
 * 1-based line.
 */
line: number, 
/**
 * The entry's `type`.
 */
entryType: string, 
/**
 * The line's JSON, pretty-printed (key order kept); the raw text if it does not parse.
 */
json: string, 
/**
 * Migration changed the entry: the agents see it differently from the file's bytes.
 */
migrated: boolean, 
/**
 * Diagnostics on this line.
 */
diagnostics: Array<Diagnostic>, };

export type EntryTokens = { 
/**
 * Its index in the file.
 */
i: number, 
/**
 * Its id.
 */
id: string | null, 
/**
 * Its `type`.
 */
type: string | null, 
/**
 * The role of the message the entry produces.
 */
role: string | null, 
/**
 * Its estimate, when it produces a message.
 */
tokens: number | null, 
/**
 * pi ≥ 0.87: a compaction's system checkpoint (counted in `tokens`).
 */
systemTokens?: number, };

export type Fact = { 
/**
 * Normalised (contextree-read's `kept` module says how).
 */
text: string, 
/**
 * In the summary (`None`: no summary yet).
 */
kept: boolean | null, };

export type FactShare = { 
/**
 * Distinct facts in the summarized part.
 */
total: number, 
/**
 * How many the summary keeps (`None`: no summary yet).
 */
kept: number | null, 
/**
 * `kept / total` (`None` without a summary or without facts).
 */
share: number | null, 
/**
 * The facts, normalised.
 */
items: Array<Fact>, };

export type FileListsView = { 
/**
 * `readFiles`: read and never modified, in JS sort order.
 */
readFiles: Array<string>, 
/**
 * `modifiedFiles`: edited or written, in JS sort order.
 */
modifiedFiles: Array<string>, };

export type FileOpsReport = { 
/**
 * Files read.
 */
read: Array<string>, 
/**
 * Files written.
 */
written: Array<string>, 
/**
 * Files edited.
 */
edited: Array<string>, 
/**
 * The agents' `readFiles` (read and never modified).
 */
readFiles: Array<string>, 
/**
 * The agents' `modifiedFiles` (written or edited).
 */
modifiedFiles: Array<string>, };

export type FindCutPoint = { 
/**
 * `path`, or pi ≥ 0.87 `contextEntries`.
 */
indexSpace: string, 
/**
 * Where the range searched starts.
 */
boundaryStart: number, 
/**
 * Where it ends.
 */
boundaryEnd: number, 
/**
 * omp: the estimate that scales keepRecentTokens.
 */
estimatedTokens: number | null, 
/**
 * omp: the usage that scales keepRecentTokens.
 */
promptTokens: number | null, 
/**
 * `keepRecentTokens` as used.
 */
keepRecentTokensUsed: number, };

export type FitView = { 
/**
 * The test that decided: `bytes` (UTF-8 bytes within the budget), `tokens` (the agent's
 * exact count), `approximate` (an o200k_base count for a model with another tokenizer) or
 * `folded` (over the budget).
 */
by: string, 
/**
 * The size that test measured, in its unit (bytes, or o200k_base tokens).
 */
size: number, };

export type IndexedReport = { 
/**
 * Files read (new, rewritten or grown).
 */
files: number, 
/**
 * Bytes read from them.
 */
bytes: number, 
/**
 * Milliseconds taken.
 */
ms: number, 
/**
 * Files read whole (new or rewritten).
 */
whole: number, 
/**
 * Files read from the offset they had been indexed through (grown).
 */
grown: number, 
/**
 * Files dropped (deleted).
 */
dropped: number, 
/**
 * Entries added.
 */
entries: number, 
/**
 * Files the index holds.
 */
totalFiles: number, 
/**
 * Bytes the index takes on disk.
 */
indexBytes: number, 
/**
 * Another process was updating the index: nothing was read, the answers are from its
 * last commit.
 */
busy: boolean, };

export type KeptFacts = { 
/**
 * File paths.
 */
paths: FactShare, 
/**
 * Shell commands.
 */
commands: FactShare, 
/**
 * Numbers.
 */
numbers: FactShare, };

export type LibraryReport = { 
/**
 * The folders looked in, found or not.
 */
roots: Array<RootReport>, 
/**
 * Number of sessions listed.
 */
sessionCount: number, 
/**
 * Projects, the one with the newest session first.
 */
projects: Array<ProjectReport>, 
/**
 * Folders or files that could not be read.
 */
warnings: Array<string>, };

export type LlmRow = { 
/**
 * Its place among the LLM messages.
 */
i: number, 
/**
 * Its role.
 */
role: string, 
/**
 * The dialect's estimate.
 */
tokens: number, 
/**
 * The `context_edit` entry whose content this message carries.
 */
editedBy?: string, 
/**
 * A system message: the section names it sets.
 */
systemSections?: Array<string>, 
/**
 * The section names it removes.
 */
removedSections?: Array<string>, 
/**
 * The tools it adds.
 */
toolsAdded?: unknown[], 
/**
 * The tools it removes.
 */
toolsRemoved?: unknown[], 
/**
 * Its content's length in UTF-16 units.
 */
contentLength?: number, };

export type MessageRow = { 
/**
 * Its place in the context.
 */
i: number, 
/**
 * Its role (`user`, `toolResult`, `compactionSummary`, …).
 */
role: string, 
/**
 * The dialect's estimate.
 */
tokens: number, 
/**
 * The entry behind it (a summary stands for its compaction entry, as in the oracle).
 */
entryId: string | null, 
/**
 * That entry's number.
 */
entryIndex: number, 
/**
 * With the breakdown asked: the indices of its rows this message has a part in (the app
 * filters the messages by a row with them).
 */
breakdownRows?: Array<number>, 
/**
 * The `context_edit` entry whose content this message carries.
 */
editedBy?: string, 
/**
 * A system message: the section names it sets.
 */
systemSections?: Array<string>, 
/**
 * The section names it removes.
 */
removedSections?: Array<string>, 
/**
 * The tools it adds.
 */
toolsAdded?: unknown[], 
/**
 * The tools it removes.
 */
toolsRemoved?: unknown[], 
/**
 * Its content's length in UTF-16 units.
 */
contentLength?: number, 
/**
 * The role after `convertToLlm`; `null` when it is not sent.
 */
llmRole?: string | null, 
/**
 * The dialect's estimate of the LLM message (0 when not sent).
 */
llmTokens?: number, 
/**
 * Readable text of the LLM message (of the agent message when not sent), cut.
 */
text?: string, 
/**
 * `text` was cut.
 */
truncated?: boolean, };

export type MessageTextReport = { 
/**
 * Its place in the context.
 */
i: number, 
/**
 * The text, uncut.
 */
text: string, };

export type Misleading = { 
/**
 * The estimate without the agent's mistake.
 */
estimate: number, 
/**
 * Why the agent's number is off.
 */
note: string, };

export type ModelReport = PiModel | null | string | null;

export type ModelTotals = { 
/**
 * `provider/model` (`unknown` when the record does not say).
 */
model: string, 
/**
 * Usage records summed.
 */
records: number, 
/**
 * Prompt tokens not read from the cache.
 */
input: number, 
/**
 * Completion tokens.
 */
output: number, 
/**
 * Prompt tokens read from the cache.
 */
cacheRead: number, 
/**
 * Prompt tokens written to the cache.
 */
cacheWrite: number, 
/**
 * `totalTokens` as recorded (0 when absent).
 */
totalTokens: number, 
/**
 * `cost.total` as recorded (0 when absent).
 */
cost: number, };

export type NavigateReport = { 
/**
 * The agent whose rules ran.
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * The entry to continue from.
 */
targetId: string, 
/**
 * The leaf moved away from (the file's leaf).
 */
fromLeafId: string | null, 
/**
 * Whether a summary was asked for.
 */
summarize: boolean, 
/**
 * The abandoned entries the summary would cover.
 */
abandonedIds: Array<string>, 
/**
 * The parent of the entry to be written.
 */
placementParentId: string | null, 
/**
 * `branch_summary` or `custom`.
 */
entryType: string, 
/**
 * The summarizer call (`{systemPrompt, prompt, maxTokens?, reasoning?}`), when one is made.
 */
call: CallView | null, 
/**
 * The summarizer's budget.
 */
tokenBudget: number, 
/**
 * A summary was asked for but nothing is abandoned (the agents skip it too).
 */
nothingToSummarize: boolean, 
/**
 * The target is the leaf already: nothing would be written.
 */
nothingToDo: boolean, 
/**
 * Everything worth telling.
 */
warnings: Array<string>, };

export type NotReproducible = { 
/**
 * The entry it comes from (`None`: the whole context).
 */
entryId: string | null, 
/**
 * A short machine name (`openai-native-history`, `context-hooks`, …).
 */
kind: string, 
/**
 * What cannot be recomputed and why.
 */
reason: string, };

export type NothingDoc = { 
/**
 * The id of the leaf whose path was planned; `null` for an empty session or a reset leaf.
 */
leafId: string | null, 
/**
 * Always true: the document is a dry run's.
 */
dryRun: boolean, 
/**
 * Always true.
 */
nothingToCompact: true, 
/**
 * The agent's own text.
 */
reason: string, 
/**
 * `tokensBefore` as the dialect computes it (what the context holds now).
 */
tokensBefore: number, 
/**
 * The agent's settings files read, in merge order.
 */
settingsFiles: Array<string>, 
/**
 * Everything worth telling about the settings and the plan.
 */
warnings: Array<string>, 
/**
 * Whether and how the agent itself would compact after its last run.
 */
autoCheck: AutoCheckReport, };

export type OverflowDoc = { 
/**
 * The leaf.
 */
leafId: string | null, 
/**
 * The configuration.
 */
config: PruneConfigDoc, 
/**
 * The configuration is the agent's own.
 */
agentDefaultConfig: boolean, 
/**
 * The agent prunes by itself (pi never does, D20).
 */
agentPrunes: boolean, 
/**
 * Entries on the path.
 */
pathLength: number, 
/**
 * Tool results on the path.
 */
toolResultCount: number, 
/**
 * Their estimate.
 */
toolResultTokens: number, 
/**
 * Results it prunes.
 */
prunedCount: number, 
/**
 * Their estimated saving.
 */
tokensSaved: number, 
/**
 * The results it prunes.
 */
pruned: Array<PruneRow>, 
/**
 * Results pruned before.
 */
alreadyPruned: Array<PruneRow>, 
/**
 * The oracle's `belowMinimumSavings`: what it would prune, saving too little.
 */
belowMinimumSavings: PruneBelowMinimum | null, 
/**
 * Its notes, joined.
 */
note: string | null, };

export type OverflowReport = { "kind": "errorMessage", 
/**
 * The JS source of the first matching pattern (e.g. `/prompt is too long/i`).
 */
pattern: string, } | { "kind": "errorId", 
/**
 * omp 18's `errorId`, which carries the `ContextOverflow` flag.
 */
errorId: number, } | { "kind": "usage", 
/**
 * The input tokens compared (omp: input + cacheRead + cacheWrite; pi: input +
 * cacheRead).
 */
inputTokens: number, 
/**
 * The rule, as the agent's code writes it.
 */
rule: string, };

export type PiModel = { 
/**
 * The provider.
 */
provider: string | null, 
/**
 * The model id.
 */
modelId: string | null, };

export type PlanDoc = { 
/**
 * The id of the leaf whose path is compacted.
 */
leafId: string | null, 
/**
 * Always true: the document is a dry run's.
 */
dryRun: boolean, 
/**
 * Always false.
 */
nothingToCompact: false, 
/**
 * Everything worth telling (settings, the plan, the summary model, omp 18's fold).
 */
warnings: Array<string>, 
/**
 * omp 18: the transcript format the conversation is written in for the summary model.
 */
transcript: TranscriptView | null, 
/**
 * omp 18: the history calls after the first when the agent folds a long history, each
 * quoting the answer before it as [`FOLD_MARKER`](super::FOLD_MARKER).
 */
foldCalls: Array<CallView>, 
/**
 * The agent's settings files read, in merge order.
 */
settingsFiles: Array<string>, 
/**
 * Event → number of hooks configured for it (events without hooks left out).
 */
hooks: Record<string, number>, 
/**
 * Whether and how the agent itself would compact after its last run.
 */
autoCheck: AutoCheckReport, 
/**
 * The prompt pack the calls are written with.
 */
promptPack: string, 
/**
 * `firstKeptEntryId`: the first entry kept verbatim after the summary.
 */
firstKeptEntryId: string, 
/**
 * The cut falls inside a turn: its start is summarized separately (`turnPrefixIds`).
 */
isSplitTurn: boolean, 
/**
 * `tokensBefore` as the dialect computes it (omp: the last usable usage, pi: the
 * estimate).
 */
tokensBefore: number, 
/**
 * `keepRecentTokens` as the cut used it (omp divides it by the usage/estimate ratio).
 */
keepRecentTokensUsed: number, 
/**
 * Entries whose messages the history summary covers.
 */
messagesToSummarizeIds: Array<string>, 
/**
 * The split turn's entries before the cut (summarized separately).
 */
turnPrefixIds: Array<string>, 
/**
 * Entries kept verbatim after the summary.
 */
recentMessagesIds: Array<string>, 
/**
 * omp: entries the previous compaction kept that this one drops.
 */
droppedIds: Array<string>, 
/**
 * The agents' `readFiles` / `modifiedFiles`.
 */
fileOps: FileListsView, 
/**
 * Tokens before and after, message counts.
 */
preview: PreviewNumbers, 
/**
 * omp's history step without a call (`No prior history.`, a reused summary).
 */
historyLiteral: string | null, 
/**
 * Every call in order; omp's short call quotes the preview's marker.
 */
calls: Array<CallView>, 
/**
 * Says what the short call's marker stands for.
 */
shortSummaryNote: string | null, };

export type PlanReport = { 
/**
 * The agent whose rules ran.
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * The user requests it would summarize, with the paths, identifiers and quoted text they
 * name: what the summary should keep (no summary yet, so none is flagged).
 */
requests: Array<Request>, 
/**
 * The file paths, shell commands and numbers of the part it would summarize: what the
 * summary should keep (no summary yet, so none is counted kept).
 */
facts: KeptFacts, 
/**
 * When asked ([`PlanReport::with_cost`]; `compact --dry-run --json` and the app always
 * ask): what compacting now costs once and saves per later turn; absent when there is
 * nothing to compact.
 */
cost?: CostReport, } & (NothingDoc | PlanDoc);

export type PreviewNumbers = { 
/**
 * `tokensBefore` as the dialect computes it.
 */
tokensBefore: number, 
/**
 * The dialect's estimate (chars/4) of the messages kept verbatim.
 */
keptTokens: number, 
/**
 * Upper bound of the summary message's estimate: the summary calls' `maxTokens` (or a
 * literal history's own estimate) plus the split-turn separator and file tags.
 */
summaryBudget: number, 
/**
 * `keptTokens + summaryBudget`: an upper bound of the context right after compacting.
 */
estimatedTokensAfter: number, 
/**
 * Messages summarized: the history plus the turn prefix.
 */
messagesSummarized: number, 
/**
 * Of those, the messages in the split turn's prefix.
 */
turnPrefixMessages: number, 
/**
 * Messages kept verbatim after the summary.
 */
messagesKept: number, 
/**
 * omp: messages the previous compaction kept that this one neither summarizes nor keeps.
 */
messagesDropped: number, };

export type PriceReport = { 
/**
 * The model (`provider/id`).
 */
model: string, 
/**
 * Dollars per million input tokens.
 */
input: number, 
/**
 * Per million output tokens.
 */
output: number, 
/**
 * Per million tokens read from the prompt cache.
 */
cacheRead: number, 
/**
 * Per million tokens written to it.
 */
cacheWrite: number, 
/**
 * `agent` (the agent's models file) or `builtIn` (contextree's table).
 */
source: string, 
/**
 * The file, or the table's date.
 */
detail: string, };

export type ProjectReport = { 
/**
 * The project's folder.
 */
project: string, 
/**
 * How it was found: `header` (a session's cwd), `folder` (the folder name decoded to an
 * existing folder), `header-mismatch`, `guess` (dashes read as slashes), `folder-name`.
 */
source: ProjectSource, 
/**
 * False when the path is only a guess from the folder name.
 */
certain: boolean, 
/**
 * The session folders merged here (one per agent usually).
 */
folders: Array<string>, 
/**
 * Newest modification time of its sessions (`2026-01-01T00:00:00Z`).
 */
lastActivity: string | null, 
/**
 * The same, ms since the epoch.
 */
lastActivityMs: number | null, 
/**
 * Newest first.
 */
sessions: Array<SessionItem>, };

export type ProjectSource = "header" | "folder" | "header-mismatch" | "guess" | "folder-name";

export type PromptsReport = { 
/**
 * `agent`, `own` or `custom`.
 */
source: string, 
/**
 * Short name: `pi 0.73.1`, `contextree's own wording`.
 */
name: string, 
/**
 * The full description (package path, verification).
 */
detail: string, };

export type PruneBelowMinimum = { 
/**
 * What it would prune and save.
 */
result: PruneTotals, 
/**
 * The results it would prune.
 */
candidates: Array<PruneRow>, };

export type PruneConfigDoc = { 
/**
 * The newest tool output kept whole (tokens).
 */
protectTokens: number, 
/**
 * The least saving worth a rewrite.
 */
minimumSavings: number, 
/**
 * Tools whose results are never pruned.
 */
protectedTools: Array<string>, };

export type PruneReport = { 
/**
 * The agent whose rules ran.
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * The passes that ran: `stale`, `overflow`.
 */
passes: Array<string>, 
/**
 * omp 18's stale pass, when it ran.
 */
stale: StaleDoc | null, 
/**
 * Both passes together.
 */
total: PruneTotals, 
/**
 * The leaf's context before and after.
 */
context: ContextSizes, 
/**
 * Nothing is written (a preview).
 */
dryRun: boolean, 
/**
 * Every entry either pass prunes, in order (the app outlines them).
 */
prunedIds: Array<string>, 
/**
 * The file's size now and after the rewrite.
 */
bytes: ByteSizes, 
/**
 * Both passes' notes (pi never prunes by itself, docs/decisions.md D20; …).
 */
notes: Array<string>, 
/**
 * Why nothing would be pruned, when nothing would.
 */
reason: string | null, } & (OverflowDoc | { 
/**
 * The leaf.
 */
leafId: string | null, });

export type PruneRow = { 
/**
 * The tool result.
 */
entryId: string, 
/**
 * Its tool.
 */
toolName: string | null, 
/**
 * Its estimate.
 */
tokens: number, 
/**
 * The notice that replaces it.
 */
notice: string, 
/**
 * Tool output tokens after it.
 */
newerTokens: number, 
/**
 * It is in the leaf's context (not behind a compaction).
 */
inContext: boolean, };

export type PruneTotals = { 
/**
 * Results whose output becomes a notice.
 */
prunedCount: number, 
/**
 * The agents' estimated saving.
 */
tokensSaved: number, };

export type RepeatedRead = { 
/**
 * The path the read calls name.
 */
path: string, 
/**
 * Read results of it in the context.
 */
reads: number, 
/**
 * Their estimate.
 */
tokens: number, 
/**
 * The estimate of every read but the last: what the repeats cost.
 */
repeatTokens: number, 
/**
 * The results' entries, in order.
 */
entryIds: Array<string>, };

export type Request = { 
/**
 * The user message's entry.
 */
entryId: string, 
/**
 * Its first line (at most 120 characters).
 */
preview: string, 
/**
 * The terms it names.
 */
terms: Array<Term>, 
/**
 * It names terms and the summary has none of them.
 */
mayBeLost: boolean, };

export type RootOrigin = "default" | "environment" | "override";

export type RootReport = { 
/**
 * The folder.
 */
path: string, 
/**
 * The agent that writes there, when known.
 */
dialect: string | null, 
/**
 * Where it came from.
 */
origin: RootOrigin, 
/**
 * It exists.
 */
exists: boolean, 
/**
 * Sessions found in it.
 */
sessionCount: number, };

export type RowPreview = { 
/**
 * Entry id.
 */
id: string, 
/**
 * First line of its text, cut at `max_chars`.
 */
text: string, };

export type RuleChoice = { 
/**
 * `pi@1.6`.
 */
name: string, 
/**
 * The release the rules follow (`pi 1.6.0`).
 */
reference: string, 
/**
 * [`RuleChoice::why`].
 */
why: string, };

export type RuleSetRow = { 
/**
 * `pi@1.6`: what `--dialect` and the app's switch take.
 */
name: string, 
/**
 * The agent: `pi` or `omp`.
 */
dialect: string, 
/**
 * The release whose code the rules were taken from (`pi 1.6.0`).
 */
reference: string, 
/**
 * The releases the rules stand for (`pi ≥ 0.86`).
 */
standsFor: string, };

export type SearchHit = { 
/**
 * The session file.
 */
file: string, 
/**
 * The header's session id.
 */
sessionId: string | null, 
/**
 * The project folder.
 */
project: string | null, 
/**
 * The entry's id (as the session reads it: v1 files get their migrated ids).
 */
entryId: string | null, 
/**
 * Its 1-based line in the file.
 */
line: number | null, 
/**
 * A message's role, else the entry type (`compaction`, `branch_summary`, `label`, …).
 */
role: string, 
/**
 * The tool of a tool result, or the first tool an assistant message calls.
 */
toolName: string | null, 
/**
 * Every tool the entry names.
 */
tools: Array<string>, 
/**
 * The best passage of the entry's text.
 */
snippet: string, 
/**
 * `[start, end)` of each match in `snippet`, in UTF-16 code units (JavaScript string
 * indices).
 */
highlights: Array<[number, number]>, 
/**
 * BM25 score.
 */
score: number, 
/**
 * The entry's time (`2026-01-01T00:00:00Z`).
 */
time: string | null, 
/**
 * The same, ms since the epoch.
 */
timeMs: number | null, 
/**
 * Its state for the session's current leaf: `context` (sent to the model), `summarized`
 * (only a compaction's summary of it is sent), `pruned` (sent with its output cut),
 * `offPath` (on another branch), `branchSummarized` (on another branch that a branch
 * summary on the path stands for), `notSent` (on the path but not sent: labels, excluded
 * messages, superseded compactions), `unknown` (the file could not be loaded).
 */
state: string, 
/**
 * The tree's finer state (`kept`, `old-compaction`, `branch-summary`, …; core's names).
 */
treeState: string | null, 
/**
 * For `summarized`: the id of the compaction entry whose summary stands for it; for
 * `branchSummarized`, the branch summary's.
 */
summarizedBy: string | null, 
/**
 * The leaf the state is for (the file's last entry, as the agents resume it).
 */
leafId: string | null, 
/**
 * The rule set the state was computed under (as `contextree info` chooses it).
 */
ruleSet: string | null, };

export type SearchReport = { 
/**
 * The query as typed.
 */
query: string, 
/**
 * The matching entries, best first.
 */
hits: Array<SearchHit>, 
/**
 * What bringing the index up to date took before answering.
 */
indexed: IndexedReport, 
/**
 * Milliseconds the query took: the index's search, the snippets, the hits' states.
 */
searchMs: number, 
/**
 * Hits' files that could not be loaded (their hits have no state).
 */
warnings: Array<string>, };

export type SessionItem = { 
/**
 * Absolute path (what opening it takes).
 */
path: string, 
/**
 * Its file name.
 */
fileName: string, 
/**
 * `pi`, `omp`, or null when neither the folder nor the id says.
 */
dialect: string | null, 
/**
 * Bytes.
 */
size: number, 
/**
 * Lines after the header (a fast count).
 */
entryCount: number, 
/**
 * The header's session id.
 */
id: string | null, 
/**
 * The header's cwd.
 */
cwd: string | null, 
/**
 * The header's creation timestamp.
 */
created: string | null, 
/**
 * pi: the `session_info` name; omp: the header title.
 */
name: string | null, 
/**
 * First line of the first user message (≤ 120 characters).
 */
firstRequest: string | null, 
/**
 * Last activity (file modification time), `2026-01-01T00:00:00Z`.
 */
modified: string | null, 
/**
 * The same, ms since the epoch.
 */
modifiedMs: number | null, 
/**
 * False when the first line is not a session header.
 */
valid: boolean, };

export type SessionReport = { 
/**
 * The agent whose rules apply (`pi`, `omp`).
 */
dialect: string, 
/**
 * The rule set that ran and why (docs/decisions.md D22).
 */
ruleSet: RuleChoice, 
/**
 * The file, as it was opened (the app: an absolute path).
 */
file: string, 
/**
 * Its size when it was read.
 */
bytes: number, 
/**
 * The agent the file itself says; differs from `dialect` when it was forced.
 */
detectedDialect: string, 
/**
 * What the detection saw.
 */
dialectSignals: Array<string>, 
/**
 * The file has a session header.
 */
valid: boolean, 
/**
 * The header as stored.
 */
header: Record<string, unknown> | null, 
/**
 * The session's title (omp 18: the title line's).
 */
title: unknown, 
/**
 * omp 18's title line.
 */
titleSlot: TitleSlotReport | null, 
/**
 * The format version after migration (3).
 */
version: number, 
/**
 * The version the file says.
 */
originalVersion: number, 
/**
 * The file was migrated from v1 / v2 as the agents do on load.
 */
migrated: boolean, 
/**
 * Number of entries.
 */
entryCount: number, 
/**
 * The file's own leaf (its last entry), the leaf shown first.
 */
leafId: string | null, 
/**
 * Its entry number.
 */
leafIndex: number | null, 
/**
 * Entries per `type`, in first-seen order.
 */
types: Record<string, number>, 
/**
 * Messages per role, in first-seen order.
 */
roles: Record<string, number>, 
/**
 * The tree's roots.
 */
roots: Array<string | null>, 
/**
 * The tree's leaves.
 */
leaves: Array<string | null>, 
/**
 * Entries with more than one child.
 */
branchPoints: Array<BranchPoint>, 
/**
 * Label per entry id.
 */
labels: Record<string, string>, 
/**
 * Entries from the root to the file's leaf.
 */
leafPathLength: number, 
/**
 * Problems found while reading the file.
 */
diagnostics: Array<Diagnostic>, 
/**
 * Lines of the file.
 */
lines: number, 
/**
 * The file's name, for a title bar.
 */
fileName: string, 
/**
 * What the user asked for (`pi`, `omp@18`, …), `None` when detected.
 */
requested: string | null, 
/**
 * Sum of the entries' token estimates.
 */
totalTokens: number, 
/**
 * The rule sets one can switch to.
 */
ruleSets: Array<RuleSetRow>, };

export type SettingsDoc = { 
/**
 * `keepRecentTokens`.
 */
keepRecentTokens: number, 
/**
 * `reserveTokens`.
 */
reserveTokens: number, };

export type Severity = "error" | "warning";

export type SpawnedBy = { 
/**
 * The tool result entry.
 */
entryId: string, 
/**
 * Its position in the file.
 */
index: number, 
/**
 * The tool call's id.
 */
toolCallId: string, };

export type StaleConfigDoc = { 
/**
 * A newer read of the same file supersedes an older one.
 */
supersedeReads: boolean, 
/**
 * Useless results (empty, errors the agent marks) go.
 */
dropUseless: boolean, 
/**
 * Tools whose results are kept.
 */
protectedTools: [string, string], 
/**
 * The entry before which nothing is pruned (the cache boundary).
 */
keepBoundaryId: string | null, 
/**
 * Idle time after which the cache counts as cold.
 */
idleFlushMs: number, 
/**
 * Tokens after a result below which it is kept while the cache is warm.
 */
suffixTokenLimit: number, 
/**
 * The clock the pass ran with (ms).
 */
now: number, };

export type StaleDoc = { 
/**
 * The configuration.
 */
config: StaleConfigDoc, 
/**
 * Entries on the path.
 */
pathLength: number, 
/**
 * The last message's time (ms), which decides a cold cache.
 */
lastMessageTimestamp: number | null, 
/**
 * The cache is cold: no suffix limit.
 */
idle: boolean, 
/**
 * Results it prunes.
 */
prunedCount: number, 
/**
 * Their estimated saving.
 */
tokensSaved: number, 
/**
 * The results it prunes.
 */
pruned: Array<StaleRow>, 
/**
 * Every candidate, with its decision.
 */
candidates: Array<StaleRow>, 
/**
 * Its notes, joined.
 */
note: string | null, };

export type StaleRow = { 
/**
 * The tool result.
 */
entryId: string, 
/**
 * Its tool.
 */
toolName: string | null, 
/**
 * Why it is a candidate (`supersededRead`, `useless`).
 */
reason: string, 
/**
 * The file a superseded read read.
 */
readPath: string | null, 
/**
 * Its estimate now.
 */
tokens: number, 
/**
 * Its estimate with the notice.
 */
tokensAfter: number, 
/**
 * The notice that replaces it.
 */
notice: string, 
/**
 * Tokens after it on the path.
 */
suffixTokens: number, 
/**
 * It is in the leaf's context (not behind a compaction).
 */
inContext: boolean, 
/**
 * What the pass does with it.
 */
decision: string, };

export type SubagentRow = { 
/**
 * Its transcript under the session's folder (`Anna.jsonl`, `Anna/Anna.Bob.jsonl`).
 */
file: string, 
/**
 * The agent's id (the file's stem).
 */
agentId: string, 
/**
 * Subagent or advisor.
 */
kind: ChildKind, 
/**
 * The agent definition (`task`, `scout`, …), from the `task` result, else the file.
 */
agent: string | null, 
/**
 * The model role it ran under.
 */
role: string | null, 
/**
 * `provider/model`: as resolved when it started, else its costliest records'.
 */
model: string | null, 
/**
 * 0 for an agent the session started, 1 for one a subagent started, …
 */
depth: number, 
/**
 * Read, missing or unreadable.
 */
status: ChildStatus, 
/**
 * Why an unreadable file could not be read.
 */
error: string | null, 
/**
 * The `task` result that started it (for a nested agent, its top-level ancestor's);
 * none for an advisor or a transcript no result names.
 */
spawnedBy: SpawnedBy | null, 
/**
 * Its transcript's usage records (none when not read).
 */
totals: Totals, 
/**
 * The usage omp recorded for it in the `task` result, when it finished inside the call.
 */
recorded: Amounts | null, 
/**
 * Which of the two the session's sums count.
 */
counted: Counted, };

export type SystemSection = { 
/**
 * Its name (`preamble`, `tools`, …).
 */
name: string, 
/**
 * `ceil(chars / 4)` of its text: its share of the estimate.
 */
tokens: number, 
/**
 * The text, cut.
 */
text: string, 
/**
 * `text` was cut.
 */
truncated: boolean, };

export type SystemText = { 
/**
 * pi's estimate of the whole system message.
 */
tokens: number, 
/**
 * Its content text, cut.
 */
content: string, 
/**
 * Prompt sections in order.
 */
sections: Array<SystemSection>, 
/**
 * Declared tools in order.
 */
tools: Array<SystemTool>, 
/**
 * System messages in the context (the first, or a compaction's checkpoint, and patches).
 */
messages: number, };

export type SystemTool = { 
/**
 * The tool's name.
 */
name: string, 
/**
 * Length of its declaration (name, description, parameter schema) as JSON.
 */
schemaChars: number, 
/**
 * `ceil(schema_chars / 4)`: its share of the estimate.
 */
tokens: number, };

export type Term = { 
/**
 * The term as the user wrote it.
 */
text: string, 
/**
 * `path`, `identifier` or `quoted`.
 */
kind: string, 
/**
 * Found in the summary (`None` when there is no summary to look in).
 */
found: boolean | null, };

export type TitleSlotReport = { 
/**
 * The title (empty: none).
 */
title: string, 
/**
 * `auto` or `user`.
 */
source: string | null, 
/**
 * When it was set.
 */
updatedAt: string, 
/**
 * Its line (1).
 */
line: number, 
/**
 * Its length with the newline.
 */
bytes: number, };

export type TokenCount = { 
/**
 * The default role's model.
 */
model: string | null, 
/**
 * The native tokenizer omp counts that model with, if any.
 */
nativeTokenizer: string | null, 
/**
 * The numbers are omp's own (no native tokenizer).
 */
agentsOwn: boolean, 
/**
 * How the numbers are counted.
 */
method: string, 
/**
 * The same, in a sentence.
 */
note: string, };

export type TokenCountsReport = { 
/**
 * The leaf.
 */
leafId: string | null, 
/**
 * `o200k_base` or `cl100k_base`.
 */
tokenizer: string, 
/**
 * One per agent message of the context: its LLM message's count, `None` when not sent.
 */
messages: Array<number | null>, 
/**
 * Sum of the counts.
 */
total: number, };

export type TokenDifference = { 
/**
 * Of the agent messages' estimate.
 */
messageTokens: number, 
/**
 * Of the LLM messages' estimate.
 */
llmTokens: number, 
/**
 * Of what the agent shows (`estimateProjectedContextTokens`); `None` when either side's
 * is unknown after a compaction.
 */
estimate: number | null, };

export type TokenizerCount = { 
/**
 * `o200k_base` or `cl100k_base`.
 */
name: string, 
/**
 * The count.
 */
llmTokens: number, };

export type TokensReport = { 
/**
 * The agent whose rules ran.
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * Sum over the entries that make a message.
 */
totalTokens: number, 
/**
 * Per `type` (`message:role` for messages), in first-seen order.
 */
tokensByType: Record<string, number>, 
/**
 * One per entry, in file order.
 */
entries: Array<EntryTokens>, };

export type TopEntry = { 
/**
 * The entry behind it (a summary: its compaction).
 */
entryId: string | null, 
/**
 * That entry's number in the file.
 */
entryIndex: number, 
/**
 * Its role.
 */
role: string, 
/**
 * A tool result's tool.
 */
tool: string | null, 
/**
 * The turn it belongs to.
 */
turn: number | null, 
/**
 * The agent's estimate of it.
 */
tokens: number, };

export type Totals = { 
/**
 * Usage records summed.
 */
records: number, 
/**
 * Prompt tokens not read from the cache.
 */
input: number, 
/**
 * Completion tokens.
 */
output: number, 
/**
 * Prompt tokens read from the cache.
 */
cacheRead: number, 
/**
 * Prompt tokens written to the cache.
 */
cacheWrite: number, 
/**
 * `totalTokens` as recorded (0 when absent).
 */
totalTokens: number, 
/**
 * `cost.total` as recorded (0 when absent).
 */
cost: number, };

export type TranscriptView = { 
/**
 * The transcript format's name (`anthropic`, `harmony`, `xml`, …).
 */
format: string, 
/**
 * The summary model the format was chosen for; `null` when none is known (then `xml`).
 */
model: string | null, 
/**
 * The history call's input budget in tokens; a larger conversation is folded into
 * windows.
 */
budgetTokens: number, 
/**
 * How the history was found to fit that budget.
 */
fit: FitView, 
/**
 * The history's windows: more than one when the agent folds it (`foldCalls`).
 */
windows: number, };

export type TreeEntry = { 
/**
 * Its id.
 */
id: string | null, 
/**
 * Its depth (roots 0).
 */
depth: number, 
/**
 * Its `type`.
 */
type: string | null, 
/**
 * A message's role.
 */
role: string | null, 
/**
 * Its state for the leaf (`kept`, `summarized`, `pruned`, `offPath`, …).
 */
state: string, 
/**
 * The rule set's estimate of the entry.
 */
tokens: number, 
/**
 * Its label, if any.
 */
label: string | null, };

export type TreeReport = { 
/**
 * The agent whose rules ran.
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * The leaf the states are for.
 */
leafId: string | null, 
/**
 * The entries in display order.
 */
rows: Array<TreeEntry>, };

export type TurnRow = { 
/**
 * Its number on the path, from 0.
 */
turn: number, 
/**
 * Its first entry (the user message, but for entries before the first one).
 */
firstEntryId: string | null, 
/**
 * Its last entry: the leaf the context after it is taken from.
 */
lastEntryId: string | null, 
/**
 * That entry's number in the file.
 */
lastEntryIndex: number, 
/**
 * Entries in the turn.
 */
entries: number, 
/**
 * The context after the turn: the messages' estimate from its last entry.
 */
tokens: number, 
/**
 * `tokens` less the previous turn's (negative after a compaction).
 */
delta: number, 
/**
 * The estimate of the turn's own messages in that context.
 */
added: number, 
/**
 * A compaction entry in the turn (the last one).
 */
compactionId: string | null, 
/**
 * Tool results of the turn whose output was pruned (omp's `prunedAt`).
 */
pruned: number, 
/**
 * pi ≥ 0.87: `context_edit` entries in the turn.
 */
contextEdits: number, };

export type UsageRecord = { 
/**
 * The entry holding it.
 */
entryId: string, 
/**
 * Its position in the file (0-based entry index).
 */
index: number, 
/**
 * What kind of call.
 */
kind: CallKind, 
/**
 * `provider/model` when the record names it.
 */
model: string | null, 
/**
 * For a reply: the context size it reports (`totalTokens`, else the sum of the parts).
 */
contextTokens: number | null, 
/**
 * Prompt tokens not read from the cache.
 */
input: number, 
/**
 * Completion tokens.
 */
output: number, 
/**
 * Prompt tokens read from the cache.
 */
cacheRead: number, 
/**
 * Prompt tokens written to the cache.
 */
cacheWrite: number, 
/**
 * `totalTokens` as recorded (0 when absent).
 */
totalTokens: number, 
/**
 * `cost.total` as recorded (0 when absent).
 */
cost: number, };

export type UsageReport = { 
/**
 * The agent whose rules ran.
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * The whole file.
 */
totals: Totals, 
/**
 * By kind of call (`assistant`, `sideCall`, `summary`, `tool`).
 */
byKind: Record<string, Totals>, 
/**
 * By model, most expensive first.
 */
byModel: Array<ModelTotals>, 
/**
 * Per leaf, in the tree's order of leaves.
 */
branches: Array<BranchTotals>, 
/**
 * Every record, in file order.
 */
records: Array<UsageRecord>, 
/**
 * The compactions, in file order.
 */
compactions: Array<CompactionMark>, 
/**
 * omp's subagents and advisors: the ones the session's `task` results name, in file
 * order (each followed by its own subagents), then the transcripts no result names.
 */
subagents: Array<SubagentRow>, 
/**
 * What the subagents and advisors cost (each counted as its row's `counted` says).
 */
subagentTotals: Totals, 
/**
 * The whole file and its subagents and advisors.
 */
withSubagents: Totals, 
/**
 * Per leaf, as `branches`: the subagents started on its path.
 */
branchSubagents: Array<BranchSubagents>, };

export type WeightReport = { 
/**
 * The agent whose rules ran.
 */
dialect: string, 
/**
 * The rule set that ran and why.
 */
ruleSet: RuleChoice, 
/**
 * The leaf.
 */
leafId: string | null, 
/**
 * The leaf's context: its messages' estimate (`messageTokens`).
 */
contextTokens: number, 
/**
 * One per turn of the path, in order.
 */
turns: Array<TurnRow>, 
/**
 * The largest messages of the leaf's context, largest first.
 */
top: Array<TopEntry>, 
/**
 * Files the leaf's context holds more than one read of, costliest repeats first.
 */
repeatedReads: Array<RepeatedRead>, };
