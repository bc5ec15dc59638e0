import type { IExecuteFunctions } from 'n8n-workflow';
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
 * The item error of a Run that ended but not in `success` (docs/service-notes.md #17, #23):
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
		({ name, reason }) => `${name}: ${reason ?? 'the service gave no reason'}`,
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
