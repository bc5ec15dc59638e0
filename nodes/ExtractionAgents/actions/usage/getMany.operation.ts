import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { returnAllAndLimit } from '../../shared/descriptions';
import { itemsUnder, listAllPages, listLimitParameters } from '../../shared/pagination';
import { userDateToIso } from '../dates';

const properties: INodeProperties[] = [
	...returnAllAndLimit({}),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{ displayName: 'Agent ID', name: 'agentId', type: 'number', default: 0, description: 'Only records of this Agent' },
			{
				displayName: 'Created After',
				name: 'createdAfter',
				type: 'dateTime',
				default: '',
				description: 'Only records created at or after this time (inclusive)',
			},
			{
				displayName: 'Created Before',
				name: 'createdBefore',
				type: 'dateTime',
				default: '',
				description: 'Only records created at or before this time (inclusive)',
			},
			{ displayName: 'User', name: 'user', type: 'string', default: '', placeholder: 'e.g. name@example.com' },
			{ displayName: 'Workspace ID', name: 'workspaceId', type: 'number', default: 0 },
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['usage'], operation: ['getAll'] } }, properties);

function positiveId(context: IExecuteFunctions, value: unknown, name: string, itemIndex: number): number | undefined {
	if (value === undefined || value === null || value === '' || value === 0) return undefined;
	const id = Number(value);
	if (!Number.isSafeInteger(id) || id < 0) {
		throw new NodeOperationError(context.getNode(), `${name} "${String(value)}" is not a valid ID`, {
			description: `${name} is a whole number.`,
			itemIndex,
		});
	}
	return id;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const { returnAll, limit } = listLimitParameters(this, itemIndex);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const createdGte = userDateToIso(this, filters.createdAfter, 'Created After', itemIndex);
	const createdLte = userDateToIso(this, filters.createdBefore, 'Created Before', itemIndex);
	if (createdGte && createdLte && Date.parse(createdGte) > Date.parse(createdLte)) {
		throw new NodeOperationError(this.getNode(), 'Created After is later than Created Before', {
			description: 'Swap the two dates: no record can match this range.',
			itemIndex,
		});
	}
	const qs: IDataObject = {};
	if (createdGte) qs.created_gte = createdGte;
	if (createdLte) qs.created_lte = createdLte;
	const agentId = positiveId(this, filters.agentId, 'Agent ID', itemIndex);
	if (agentId !== undefined) qs.agent_id = agentId;
	const workspaceId = positiveId(this, filters.workspaceId, 'Workspace ID', itemIndex);
	if (workspaceId !== undefined) qs.workspace_id = workspaceId;
	const user = String(filters.user ?? '').trim();
	if (user) qs.user = user;
	// Records pass through untouched: unknown `type` values are kept (gaps.md #21).
	const records = await listAllPages<IDataObject>(
		this,
		{ path: '/usage', qs, itemIndex, what: 'usage records' },
		itemsUnder('records'),
		{ returnAll, limit },
	);
	return records.map((record) => ({ json: record }));
}
