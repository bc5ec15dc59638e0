import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import {
	agentLocator,
	returnAllAndLimit,
	runOutputField,
	simplifyField,
} from '../../descriptions/parameters';
import { agentIdParameter, parseResourceId } from '../../helpers/ids';
import { listAllPages } from '../../transport/pagination';
import { listLimitParameters } from '../../helpers/listLimit';
import { newestRuns, sortNewestFirst } from '../../helpers/newestRuns';
import { flattenRunList, type Run } from '../../helpers/runs';
import { hasBehaviour } from '../../descriptions/versions';
import { runToItemsJson, type RunOutputMode } from '../../helpers/shapeRun';
import type { ItemContext } from '../types';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';

const properties: INodeProperties[] = [
	agentLocator,
	...returnAllAndLimit({}),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Run ID',
				name: 'runId',
				type: 'string',
				default: '',
				description: 'Only the Run with this ID',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'multiOptions',
				default: [],
				options: [
					{ name: 'Failed', value: 'failed', description: 'The Run’s status is failed' },
					{ name: 'Running', value: 'running', description: 'The Run is still running' },
					{ name: 'Succeeded', value: 'success', description: 'The Run’s status is success' },
				],
				description: 'Only Runs with these statuses',
			},
		],
	},
	...simplifyField({}),
	runOutputField({}),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['run'], operation: ['getAll'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const agentId = agentIdParameter(this, itemIndex);
	const { returnAll, limit } = listLimitParameters(this, itemIndex);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as {
		runId?: string;
		status?: string[];
	};
	const simplify = this.getNodeParameter('simplify', itemIndex) as boolean;
	const output = this.getNodeParameter('output', itemIndex) as RunOutputMode;
	const statuses = filters.status ?? [];
	const qs =
		filters.runId !== undefined && String(filters.runId).trim() !== ''
			? { run_id: parseResourceId(this.getNode(), filters.runId, 'Run', itemIndex) }
			: {};
	// The API cannot filter by status, so with that filter every page is read and the
	// filter applied here before cutting to the limit. Either way the newest Runs come
	// first, whatever order the service lists them in (docs/design/service-notes.md #13).
	const listing = {
		path: `/agents/${agentId}/runs`,
		qs,
		subject: { agentId },
		itemIndex,
		timeoutMs: requestTimeoutMs(this, itemIndex),
		what: `the Runs of Agent ${agentId}`,
		idOf: (run: Run) => run.run_id,
	};
	const runs =
		returnAll || statuses.length > 0
			? sortNewestFirst(
					await listAllPages<Run>(this, listing, flattenRunList, { returnAll: true, limit }),
				)
			: await newestRuns(this, { agentId, qs, itemIndex }, limit);
	return runs
		.filter((run) => statuses.length === 0 || statuses.includes(String(run.status)))
		.slice(0, limit)
		.flatMap((run) =>
			runToItemsJson(run, simplify, output, {
				sheetReady: hasBehaviour(this.getNode(), 'sheetReadyRuns'),
				collisionFree: hasBehaviour(this.getNode(), 'collisionFreeColumns'),
			}).map((json) => ({ json })),
		);
}
