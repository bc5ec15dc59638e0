/**
 * Run progression and the Run's JSON views.
 *
 * A Run is never "ticked": its state is computed from the clock on every read (lazily). Prompt i of
 * n runs from created + d*i/n to created + d*(i+1)/n, d being the Run's duration (service note 17: running ->
 * success | failed, both final). `data` holds only the Prompts that are done (spec: running Prompts
 * are omitted). Knobs are snapshotted into the Run at creation, so changing them later never
 * rewrites a Run's history.
 *
 * Outcomes:
 * - runOutcome 'success': every Prompt completes; Prompt failures (promptFailureRate) do not fail the Run
 *   (they show up as failed Prompt results inside a successful Run).
 * - runOutcome 'failed': the last Prompt fails and the Run ends `failed`.
 * - runOutcome 'never' or holdRun(): the last Prompt never completes, so the Run stays `running`
 *   until finishRun() (service note 17 tolerance: "a Run that stays running forever").
 * - finishRun(status): every Prompt not yet done completes now; with 'failed' those Prompts fail.
 * - failingPrompts: those Prompts fail and the Run still ends `success` (a partly readable document).
 */
import { chance } from './random';
import { buildResult, summariseResult, FullPromptResult, promptCredits } from './results';
import { tsOffset, tsZulu } from './time';
import type { RunRecord, RunStatus } from './types';

export interface PromptProgress {
	index: number;
	done: boolean;
	failed: boolean;
	startMs: number;
	endMs: number;
}

export interface RunProgress {
	status: RunStatus;
	completedMs: number | null;
	updatedMs: number;
	prompts: PromptProgress[];
}

export function finalStatusOf(run: RunRecord): 'success' | 'failed' {
	return run.forced?.status ?? (run.outcome === 'failed' ? 'failed' : 'success');
}

export function runProgress(run: RunRecord, at: number): RunProgress {
	// A Run finished when the clock was set back stays finished (EmulatorState.clockSetBack).
	const now =
		run.settled && run.finishedBeforeClockSetBack ? Math.max(at, run.settled.completedMs) : at;
	const n = run.prompts.length;
	const d = run.durationMs;
	const finalStatus = finalStatusOf(run);
	const prompts: PromptProgress[] = run.prompts.map((p, i) => {
		const schedStart = run.createdMs + (d * i) / n;
		const schedEnd = run.createdMs + (d * (i + 1)) / n;
		const blocked = i === n - 1 && (run.held || run.outcome === 'never');
		let endMs = schedEnd;
		let cut = false;
		if (run.forced) {
			if (blocked || schedEnd > run.forced.atMs) {
				endMs = run.forced.atMs;
				cut = true;
			}
		} else if (blocked) {
			endMs = Number.POSITIVE_INFINITY;
		}
		const failedByOutcome = finalStatus === 'failed' && (run.forced ? cut : i === n - 1);
		const failedByRate =
			run.failureRate > 0 && chance(run.seed, 'prompt-fail', run.runId, p.id) < run.failureRate;
		const failedByName = run.failingPrompts?.includes(p.name) ?? false;
		return {
			index: i,
			done: endMs <= now,
			failed: failedByOutcome || failedByRate || failedByName,
			startMs: Math.floor(Math.min(schedStart, endMs)),
			endMs: Math.floor(endMs),
		};
	});
	let allDone: boolean;
	let completedMs: number;
	if (n === 0) {
		completedMs = run.forced ? Math.min(run.forced.atMs, run.createdMs + d) : run.createdMs + d;
		allDone =
			completedMs <= now && !(run.outcome === 'never' && !run.forced) && !(run.held && !run.forced);
	} else {
		allDone = prompts.every((p) => p.done);
		completedMs = Math.max(...prompts.map((p) => p.endMs));
	}
	let updatedMs = run.createdMs;
	for (const p of prompts) if (p.done && p.endMs > updatedMs) updatedMs = p.endMs;
	if (allDone && completedMs > updatedMs) updatedMs = completedMs;
	return {
		status: allDone ? finalStatus : 'running',
		completedMs: allDone ? completedMs : null,
		updatedMs,
		prompts,
	};
}

/** Sets an own key, whatever its name (`__proto__` included). */
function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
	Object.defineProperty(target, key, {
		value,
		enumerable: true,
		writable: true,
		configurable: true,
	});
}

/** The full results of the done Prompts, keyed by Prompt name. */
export function runResults(
	run: RunRecord,
	progress: RunProgress,
): Record<string, FullPromptResult> {
	const files = run.files.map((f) => f.name);
	const data: Record<string, FullPromptResult> = {};
	for (const p of progress.prompts) {
		if (!p.done) continue;
		const prompt = run.prompts[p.index];
		// Defined, not assigned: a Prompt may be named `__proto__` (assigning would set the prototype).
		defineKey(
			data,
			prompt.name,
			buildResult({
				seed: run.seed,
				runId: run.runId,
				prompt,
				files,
				failed: p.failed,
				startMs: p.startMs,
				endMs: p.endMs,
			}),
		);
	}
	return data;
}

/** Total credits of the done Prompts. */
export function runCredits(run: RunRecord, progress: RunProgress): number {
	let total = 0;
	for (const p of progress.prompts) {
		if (p.done)
			total += promptCredits(
				run.seed,
				run.runId,
				run.prompts[p.index].id,
				run.files.length,
				p.failed,
			);
	}
	return Math.round(total * 100) / 100;
}

export interface RunViewContext {
	webUrl: string;
	/** Page-based billing: usage is null (service note 21). */
	billing: 'credits' | 'pages';
	/** knobs.omitUserDefinedId: the Run is served without `user_defined_id`. */
	omitUserDefinedId?: boolean;
}

export type RunViewMode = 'full' | 'summary' | 'created';

/**
 * The Run as JSON.
 * - 'full': single-Run read: per-Prompt start/end/usage, citations with regions, url_citations, Run usage.
 * - 'summary': list of Runs: results without timing/usage (as the spec's examples show).
 * - 'created': the creation response: status running and an empty data object (spec States table).
 */
export function runView(
	run: RunRecord,
	now: number,
	mode: RunViewMode,
	ctx: RunViewContext,
): Record<string, unknown> {
	const progress = runProgress(run, now);
	const created = mode === 'created';
	const results = created ? {} : runResults(run, progress);
	const data: Record<string, unknown> = {};
	for (const [name, result] of Object.entries(results))
		defineKey(data, name, mode === 'full' ? result : summariseResult(result));
	const status: RunStatus = created ? 'running' : progress.status;
	const view: Record<string, unknown> = {
		agent_id: run.agentId,
		run_id: run.runId,
		// service note 20; knobs.omitUserDefinedId: a service that leaves it out
		...(ctx.omitUserDefinedId ? {} : { user_defined_id: run.userDefinedId }),
		created: run.createdText ?? tsOffset(run.createdMs),
		updated: tsOffset(created ? run.createdMs : progress.updatedMs),
		// Gap 23: null while running and for historical Runs made before March 2026.
		completed:
			!created && progress.completedMs !== null && !run.completedNull
				? tsZulu(progress.completedMs)
				: null,
		files: run.files.map((f) => f.name),
		run_url: `${ctx.webUrl}/agents/${run.agentId}/runs/${run.runId}`,
		order: run.order ?? run.prompts.map((p) => p.name),
		data,
		status: run.reportedStatus ?? status,
	};
	if (mode === 'full')
		view.usage = ctx.billing === 'pages' ? null : { credits_used: runCredits(run, progress) };
	return view;
}
