import type { IExecuteFunctions } from 'n8n-workflow';
import { hasBehaviour } from '../descriptions/versions';
import type { ItemsSummary } from '../actions/types';
import { NodeOperationError } from 'n8n-workflow';
import type { Run } from './runs';
import { attachErrorItemFields, runErrorFields } from './runWaiter';

/** Options → Failed Runs of Run → Create (node version 1.3 on). */
export type FailedRunsMode = 'error' | 'results';

/** The Prompts of the Run that failed, in the Agent's order, each with the reason the service gave. */
export function failedPromptsOf(run: Run): Array<{ name: string; reason: string | null }> {
	const data = run.data ?? {};
	const names = Array.isArray(run.order) ? [...run.order] : [];
	for (const name of Object.keys(data)) if (!names.includes(name)) names.push(name);
	return names
		.filter((name) => data[name]?.status === 'failed')
		.map((name) => {
			const reasoning = data[name]?.metadata?.reasoning;
			return { name, reason: typeof reasoning === 'string' && reasoning !== '' ? reasoning : null };
		});
}

/**
 * The item error of a Run that ended but not in `success` (docs/design/service-notes.md #17, #23):
 * what happened, the failed Prompts' reasons, where to see the Run and how to keep such
 * Runs as results. Its fields (the Run's identity, status, failed Prompts and their reasons)
 * go on the error item, so an error branch can write them to a sheet.
 */
export function failedRunError(
	context: IExecuteFunctions,
	run: Run,
	itemIndex: number,
): NodeOperationError {
	const failedPrompts = failedPromptsOf(run);
	const reasons = failedPrompts.map(
		// A reason's own full stop is dropped: the list ends with one.
		({ name, reason }) =>
			`${name}: ${(reason ?? 'the service gave no reason').replace(/[.\s]+$/, '')}`,
	);
	const message =
		run.status === 'failed'
			? `Run ${run.run_id} failed`
			: `Run ${run.run_id} ended with the status "${run.status}"`;
	const what =
		run.status === 'failed'
			? 'The service could not extract the data from this item’s files.'
			: 'The Run did not succeed, so it has no results to use.';
	const description = [
		what,
		reasons.length > 0 ? `Prompts that failed: ${reasons.join('; ')}.` : '',
		run.run_url ? `See the Run in Extraction Agents: ${run.run_url}` : '',
		'Check the files (a scan that is readable, the right document for this Agent) and run the item again. To get failed Runs as results instead, set Options → Failed Runs to Output as Results.',
	]
		.filter(Boolean)
		.join(' ');
	const error = new NodeOperationError(context.getNode(), message, { description, itemIndex });
	return attachErrorItemFields(error, {
		...runErrorFields(run),
		failed_prompts: failedPrompts.map(({ name }) => name).join(', '),
		failure_reasons: reasons.join('\n'),
	});
}

/**
 * What a Run that ends without success is (docs/design/service-notes.md #17, #23): from node version
 * 1.3 an error of its item unless Options → Failed Runs says Output as Results; before, a result.
 */
export function failedRunsMode(context: IExecuteFunctions, itemIndex: number): FailedRunsMode {
	if (!hasBehaviour(context.getNode(), 'failedRunsAreErrors')) return 'results';
	return context.getNodeParameter('options.failedRuns', itemIndex, 'error') as FailedRunsMode;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * The execution hint that counts what the Runs did, e.g. "3 Runs: 2 succeeded, 1 failed →
 * error output" (from node version 1.3, when the node waited for its Runs): the output
 * pane then says where the failed ones went without reading every item.
 */
export function runCountsHint(
	context: IExecuteFunctions,
	{ outcomes, createdRuns }: ItemsSummary,
): string | undefined {
	if (!hasBehaviour(context.getNode(), 'failedRunsAreErrors') || !createdRuns.waited) return;
	const finished = createdRuns.finished;
	const byStatus = new Map<string, number>();
	for (const run of finished) byStatus.set(run.status, (byStatus.get(run.status) ?? 0) + 1);
	const succeeded = byStatus.get('success') ?? 0;
	byStatus.delete('success');
	const unsuccessful = finished.length - succeeded;
	const parts = [`${succeeded} succeeded`];
	for (const [status, count] of byStatus) parts.push(`${count} ${status}`);
	const unfinished = createdRuns.createdCount - finished.length;
	if (unfinished > 0) parts.push(`${unfinished} not finished`);
	let hint = `${plural(createdRuns.createdCount, 'Run')}: ${parts.join(', ')}`;
	if (unsuccessful > 0) {
		const node = context.getNode();
		if (failedRunsMode(context, 0) === 'results')
			hint += ' → in the results (Failed Runs: Output as Results)';
		else if (node.onError === 'continueErrorOutput') hint += ' → error output';
		else if (context.continueOnFail()) hint += ' → error items in the output';
		else hint += ' → the workflow stopped';
	}
	const notSent = outcomes.filter(
		(outcome, itemIndex) => outcome?.kind === 'failed' && !createdRuns.hasRun(itemIndex),
	).length;
	if (notSent > 0) hint += `. ${plural(notSent, 'item')} failed before a Run was created`;
	return hint;
}
