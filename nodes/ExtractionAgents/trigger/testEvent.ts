import type { IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { MAX_PAGE_SIZE } from '../transport/pagination';
import { isRunFinished, type Run } from '../helpers/runs';
import { detectOrder, finishedAtOf } from '../helpers/runList';
import type { PollBudget } from './pollBudget';
import { hasChosenStatus } from './runItems';
import { fetchRunPage } from './runsListedSince';
import { triggerHasBehaviour } from '../descriptions/versions';

/** The chosen statuses as the panel of the trigger's version names them: "Trigger On (Succeeded, Failed)". */
function statusesChosen(context: IPollFunctions, statuses: string[]): string {
	const current = triggerHasBehaviour(context.getNode(), 'settingsInOptions');
	const labels: Record<string, string> = current
		? { success: 'Succeeded', failed: 'Failed', other: 'Ended Another Way' }
		: { success: 'Success', failed: 'Failed', other: 'Other' };
	const names = statuses.map((status) => labels[status] ?? status).join(', ');
	return `${current ? 'Trigger On' : 'Statuses'} (${names})`;
}

/**
 * "Fetch Test Event": the newest finished Run, without touching the trigger's state. Each
 * Agent's list is read from its newest end (page 0, or the last page when it lists oldest
 * first) until a page holds a finished Run with a chosen status; once the budget is spent, no
 * Agent goes past its first page, and none is started once a Run was found: a long history
 * costs a page or two per Agent.
 */
export async function newestFinishedRun(
	context: IPollFunctions,
	agentIds: number[],
	statuses: string[],
	budget: PollBudget,
): Promise<Run> {
	let newest: Run | undefined;
	for (const agentId of agentIds) {
		if (newest && budget.isSpent()) break;
		for await (const page of pagesFromNewest(context, agentId)) {
			const found = page.filter((run) => isRunFinished(run) && hasChosenStatus(run, statuses));
			for (const run of found)
				if (!newest || finishedAtOf(run) > finishedAtOf(newest)) newest = run;
			if (found.length > 0 || budget.isSpent()) break;
		}
	}
	if (!newest) {
		throw new NodeOperationError(context.getNode(), 'No finished Run yet', {
			description: `${agentIds.length === 1 ? `Agent ${agentIds[0]} has` : 'The watched Agents have'} no finished Run with a status chosen in ${statusesChosen(context, statuses)}. Send a file to the Agent (Extraction Agents → Extract Data From Files), wait for the Run to finish, then fetch again.`,
		});
	}
	return newest;
}

/** An Agent's Run pages in the largest size, the newest end first when the order shows one. */
async function* pagesFromNewest(context: IPollFunctions, agentId: number): AsyncGenerator<Run[]> {
	const first = await fetchRunPage(context, agentId, 0, MAX_PAGE_SIZE);
	const oldestFirst = detectOrder(first.runs) === 'oldest-first' && first.totalPages > 1;
	if (!oldestFirst) yield first.runs;
	const pageNumbers = Array.from({ length: Math.max(0, first.totalPages - 1) }, (_, n) =>
		oldestFirst ? first.totalPages - 1 - n : n + 1,
	);
	for (const pageNumber of pageNumbers)
		yield (await fetchRunPage(context, agentId, pageNumber, MAX_PAGE_SIZE)).runs;
	if (oldestFirst) yield first.runs;
}
