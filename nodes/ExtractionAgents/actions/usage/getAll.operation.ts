import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { agentLocator, returnAllAndLimit } from '../../descriptions/parameters';
import { parseResourceId } from '../../helpers/ids';
import { itemsUnder, listAllPages } from '../../transport/pagination';
import { listLimitParameters } from '../../helpers/listLimit';
import { userDateToIso } from '../../helpers/dates';
import type { ItemContext } from '../types';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';

const properties: INodeProperties[] = [
	...returnAllAndLimit({}),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				// Named agentId, as when it was a number: saved workflows keep their filter.
				...agentLocator,
				name: 'agentId',
				required: false,
				description: 'Only records of this Agent',
			},
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
			{
				displayName: 'User',
				name: 'user',
				type: 'string',
				default: '',
				placeholder: 'e.g. name@example.com',
				description: 'Only records of the work of this user, by email address',
			},
			{
				displayName: 'Workspace ID',
				name: 'workspaceId',
				type: 'number',
				default: 0,
				description:
					'Only records of this workspace (the number in the web app’s workspace settings); 0 for every workspace the key can see',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['usage'], operation: ['getAll'] } },
	properties,
);

function positiveId(
	context: IExecuteFunctions,
	value: unknown,
	name: string,
	itemIndex: number,
): number | undefined {
	if (value === undefined || value === null || value === '' || value === 0) return undefined;
	const id = Number(value);
	if (!Number.isSafeInteger(id) || id < 0) {
		throw new NodeOperationError(
			context.getNode(),
			`${name} "${String(value)}" is not a valid ID`,
			{
				description: `${name} is a whole number.`,
				itemIndex,
			},
		);
	}
	return id;
}

/** The Agent filter: a picker value, or the number workflows saved before it was a picker hold. */
function agentFilter(
	context: IExecuteFunctions,
	value: unknown,
	itemIndex: number,
): number | undefined {
	const raw =
		value !== null && typeof value === 'object' ? (value as { value?: unknown }).value : value;
	if (raw === undefined || raw === null || raw === 0 || String(raw).trim() === '') return undefined;
	return parseResourceId(context.getNode(), raw as string | number, 'Agent', itemIndex);
}

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
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
	const agentId = agentFilter(this, filters.agentId, itemIndex);
	if (agentId !== undefined) qs.agent_id = agentId;
	const workspaceId = positiveId(this, filters.workspaceId, 'Workspace ID', itemIndex);
	if (workspaceId !== undefined) qs.workspace_id = workspaceId;
	const user = String(filters.user ?? '').trim();
	if (user) qs.user = user;
	// Records pass through untouched: unknown `type` values are kept (docs/design/service-notes.md #23).
	const records = await listAllPages<IDataObject>(
		this,
		{
			path: '/usage',
			qs,
			itemIndex,
			timeoutMs: requestTimeoutMs(this, itemIndex),
			what: 'usage records',
		},
		itemsUnder('records'),
		{ returnAll, limit },
	);
	return records.map((record) => ({ json: record }));
}
