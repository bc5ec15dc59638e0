import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { hasBehaviour } from '../descriptions/versions';
import type { ItemsSummary } from '../actions/types';
import { NodeOperationError } from 'n8n-workflow';
import { pickedAgentName } from '../transport/subjects';
import { reviewerFields } from './reviewerFields';
import type { Run } from './runs';
import { attachErrorItemFields, runErrorFields } from './runWaiter';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** Options → Failed Runs of Run → Create (node version 1.3 on). */
export type FailedRunsMode = 'error' | 'results';

/** The names of the Run's Prompts, in the Agent's order, then any the order leaves out. */
function promptNamesOf(run: Run): string[] {
	const names = Array.isArray(run.order) ? [...run.order] : [];
	for (const name of Object.keys(run.data ?? {})) if (!names.includes(name)) names.push(name);
	return names;
}

/** The Prompts of the Run that failed, in the Agent's order, each with the reason the service gave. */
export function failedPromptsOf(run: Run): Array<{ name: string; reason: string | null }> {
	const data = run.data ?? {};
	return promptNamesOf(run)
		.filter((name) => data[name]?.status === 'failed')
		.map((name) => {
			const reasoning = data[name]?.metadata?.reasoning;
			return { name, reason: typeof reasoning === 'string' && reasoning !== '' ? reasoning : null };
		});
}

/**
 * The item error of a Run that ended but not in `success` (docs/design/service-notes.md #17, #23).
 * From node version 1.4 it speaks to whoever reviews the document, whose sheet row it becomes
 * (docs/run-failures.md): which files, which Prompts failed and the service's reason for each,
 * the Run's link, the Agent's name. How to set the node up is said only when the workflow
 * stops, to whoever built it; with Continue the item leaves it out.
 */
export function failedRunError(
	context: IExecuteFunctions,
	run: Run,
	itemIndex: number,
	partlyRead?: { valuesRead: IDataObject },
): NodeOperationError {
	if (!hasBehaviour(context.getNode(), 'reviewerErrorItems'))
		return failedRunErrorOf1_3(context, run, itemIndex);
	const failedPrompts = failedPromptsOf(run);
	const reasons = failedPrompts.map(
		({ name, reason }) => `${name}: ${withoutFullStop(reason ?? 'the service gave no reason')}`,
	);
	const agentName = pickedAgentName(context.getNode(), Number(run.agent_id));
	const agent = agentName ? `the Agent "${agentName}"` : 'the Agent';
	const check =
		(run.files?.length ?? 0) > 1
			? `Check that the files are readable and are the kind of document ${agent} reads, then send them again.`
			: `Check that the file is readable and is the kind of document ${agent} reads, then send it again.`;
	const description = [
		reasons.length > 0 ? `The service’s reasons: ${reasons.join('; ')}.` : '',
		check,
		context.continueOnFail() ? '' : partlyRead ? PARTLY_READ_SETUP_STEPS : SETUP_STEPS,
		// Last, so that no full stop follows the link.
		run.run_url ? `See the Run: ${run.run_url}` : '',
	]
		.filter(Boolean)
		.join(' ');
	const error = new NodeOperationError(context.getNode(), reviewerMessage(run, failedPrompts), {
		description,
		itemIndex,
	});
	return attachErrorItemFields(error, {
		...reviewerFields(context, run),
		failed_prompts: failedPrompts.map(({ name }) => name).join(', '),
		failure_reasons: reasons.join('\n'),
		// A partly read document: what was read, as the success output's columns would hold it.
		...(partlyRead ? { values_read: partlyRead.valuesRead } : {}),
		...reviewerFieldsAfter(run),
	});
}

/** For whoever built the workflow: shown only when a partly read Run stops it. */
const PARTLY_READ_SETUP_STEPS =
	'To keep such Runs as rows, set Options → Runs with Failed Prompts to Output as Results; to send them on, set On Error to Continue (using error output).';

/** Options → Runs with Failed Prompts of Run → Create (node version 1.5 on). */
export type PartlyReadRunsMode = 'error' | 'results';

/**
 * What a Run that succeeded with failed Prompts is: from node version 1.5 an error of its
 * item (the document needs a person: a blank cell in a row would pass unnoticed), unless
 * Options → Runs with Failed Prompts says Output as Results; before, a result whose
 * failed_prompts column names them.
 */
export function partlyReadRunsMode(
	context: IExecuteFunctions,
	itemIndex: number,
): PartlyReadRunsMode {
	if (!hasBehaviour(context.getNode(), 'partlyReadRunsAreErrors')) return 'results';
	return context.getNodeParameter(
		'options.partlyReadRuns',
		itemIndex,
		'error',
	) as PartlyReadRunsMode;
}

/** Whether the Run succeeded but some of its Prompts failed. */
export function isPartlyRead(run: Run): boolean {
	return run.status === 'success' && failedPromptsOf(run).length > 0;
}

/** For whoever built the workflow, in the panel's words: shown only when a failed Run stops it. */
const SETUP_STEPS =
	'To keep such Runs as rows, set Options → Failed Runs to Output as Results; to send them on, set On Error to Continue (using error output).';

/** A reason's own full stop is dropped: the list it goes into ends with one. */
const withoutFullStop = (text: string) => text.replace(/[.\s]+$/, '');

/** The first three names, then how many more: `"a.pdf", "b.pdf", "c.pdf" and 2 more files`. */
function firstNames(names: string[], more: (count: number) => string): string {
	const shown = names.slice(0, 3);
	return names.length > shown.length
		? `${shown.join(', ')} and ${more(names.length - shown.length)}`
		: shown.join(', ');
}

/**
 * What happened, in the reviewer's words: `"invoice-39.pdf": 2 of 8 Prompts could not be
 * answered (Total, Due date)`. A sheet shows it as the row's problem.
 */
function reviewerMessage(run: Run, failedPrompts: Array<{ name: string }>): string {
	const files = Array.isArray(run.files) ? run.files.map(String) : [];
	const subject =
		files.length > 0
			? firstNames(
					files.map((name) => `"${name}"`),
					(count) => `${plural(count, 'more file')}`,
				)
			: `Run ${run.run_id}`;
	const failed = failedPrompts.map(({ name }) => name);
	const total = promptNamesOf(run).length;
	if (failed.length === 1 && total === 1)
		return `${subject}: the Prompt "${failed[0]}" could not be answered`;
	if (failed.length > 0 && failed.length === total)
		return `${subject}: none of the ${total} Prompts could be answered`;
	if (failed.length > 0)
		return `${subject}: ${failed.length} of ${plural(total, 'Prompt')} could not be answered (${firstNames(failed, (count) => `${count} more`)})`;
	if (run.status === 'failed')
		return `${subject}: the service could not read ${files.length > 1 ? 'the files' : 'the file'}`;
	return `${subject}: the Run ended with the status "${run.status}"`;
}

/** The Run's link and identity, after what the reviewer reads. */
function reviewerFieldsAfter(run: Run): IDataObject {
	const { run_url, run_id, agent_id, status } = runErrorFields(run);
	return { run_url, run_id, agent_id, status };
}

/**
 * Version 1.3's item error of a Run that ended but not in `success`, kept as it was for the
 * workflows saved with it: what happened, the failed Prompts' reasons, where to see the Run
 * and how to keep such Runs as results.
 */
function failedRunErrorOf1_3(
	context: IExecuteFunctions,
	run: Run,
	itemIndex: number,
): NodeOperationError {
	const failedPrompts = failedPromptsOf(run);
	const reasons = failedPrompts.map(
		({ name, reason }) => `${name}: ${withoutFullStop(reason ?? 'the service gave no reason')}`,
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
	// From 1.5, succeeded Runs with failed Prompts go where failed Runs go (partlyReadRunsMode).
	const partlyRead =
		partlyReadRunsMode(context, 0) === 'error' ? finished.filter(isPartlyRead).length : 0;
	const succeeded = (byStatus.get('success') ?? 0) - partlyRead;
	byStatus.delete('success');
	const unsuccessful = finished.length - succeeded - partlyRead;
	const parts = [`${succeeded} succeeded`];
	if (partlyRead > 0) parts.push(`${partlyRead} with failed Prompts`);
	for (const [status, count] of byStatus) parts.push(`${count} ${status}`);
	const unfinished = createdRuns.createdCount - finished.length;
	if (unfinished > 0) parts.push(`${unfinished} not finished`);
	let hint = `${plural(createdRuns.createdCount, 'Run')}: ${parts.join(', ')}`;
	if (unsuccessful > 0 || partlyRead > 0) {
		const node = context.getNode();
		if (failedRunsMode(context, 0) === 'results' && partlyRead === 0)
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
