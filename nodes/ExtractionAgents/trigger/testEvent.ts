import type { IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { isRunFinished, type Run } from '../helpers/runs';
import { createdOf } from '../helpers/runList';
import { serviceTimestampMillis } from '../helpers/timestamps';
import { hasChosenStatus } from './runItems';
import { allRunsOf } from './runsListedSince';

/** "Fetch Test Event": the newest finished Run, without touching the trigger's state. */
export async function newestFinishedRun(
	context: IPollFunctions,
	agentIds: number[],
	statuses: string[],
): Promise<Run> {
	let newest: Run | undefined;
	for (const agentId of agentIds) {
		for (const run of await allRunsOf(context, agentId)) {
			if (!isRunFinished(run) || !hasChosenStatus(run, statuses)) continue;
			if (!newest || finishedAtOf(run) > finishedAtOf(newest)) newest = run;
		}
	}
	if (!newest) {
		throw new NodeOperationError(context.getNode(), 'No finished Run yet', {
			description: `${agentIds.length === 1 ? `Agent ${agentIds[0]} has` : 'The watched Agents have'} no Run that finished with status ${statuses.join(' or ')}. Send a file to the Agent (Extraction Agents → Extract Data From Files), wait for the Run to finish, then fetch again.`,
		});
	}
	return newest;
}

/** When the Run finished, for "Fetch Test Event" (its creation when `completed` is null). */
function finishedAtOf(run: Run): number {
	return serviceTimestampMillis(run.completed) ?? createdOf(run);
}
