import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { returnAllAndLimit } from '../../descriptions/parameters';
import { listAllByCursor } from '../../transport/pagination';
import { listLimitParameters } from '../../helpers/listLimit';
import { commaList, userDateToIso } from '../../helpers/dates';
import type { ItemContext } from '../types';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';

const properties: INodeProperties[] = [
	{
		displayName: 'Access logs are available on the Enterprise plan only',
		name: 'planNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Start Time',
		name: 'startTime',
		type: 'dateTime',
		default: '',
		required: true,
		description: 'Events from this time on',
	},
	{
		displayName: 'End Time',
		name: 'endTime',
		type: 'dateTime',
		default: '',
		description: 'Events up to this time. Leave empty for now.',
	},
	...returnAllAndLimit({}),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Client IPs',
				name: 'clientIps',
				type: 'string',
				default: '',
				placeholder: 'e.g. 203.0.113.7, 198.51.100.2',
				description: 'Comma-separated client IP addresses',
			},
			{
				displayName: 'Users',
				name: 'users',
				type: 'string',
				default: '',
				placeholder: 'e.g. ana@example.com, bo@example.com',
				description: 'Comma-separated user emails',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['accessLog'], operation: ['query'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const startTime = userDateToIso(
		this,
		this.getNodeParameter('startTime', itemIndex, ''),
		'Start Time',
		itemIndex,
	);
	if (!startTime) {
		throw new NodeOperationError(this.getNode(), 'Start Time is empty', {
			description: 'Set the time the access-log query starts from.',
			itemIndex,
		});
	}
	const endTime =
		userDateToIso(this, this.getNodeParameter('endTime', itemIndex, ''), 'End Time', itemIndex) ??
		new Date().toISOString();
	if (Date.parse(startTime) > Date.parse(endTime)) {
		throw new NodeOperationError(this.getNode(), 'Start Time is later than End Time', {
			description: 'Swap the two times, or clear End Time to query up to now.',
			itemIndex,
		});
	}
	const { returnAll, limit } = listLimitParameters(this, itemIndex);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const users = commaList(filters.users);
	const clientIps = commaList(filters.clientIps);
	const body: IDataObject = { time_range: { start_time: startTime, end_time: endTime } };
	if (users.length || clientIps.length) {
		body.filters = {
			...(users.length ? { users } : {}),
			...(clientIps.length ? { client_ips: clientIps } : {}),
		};
	}
	const events = await listAllByCursor<IDataObject>(
		this,
		{
			path: '/access-logs/query',
			body,
			itemIndex,
			timeoutMs: requestTimeoutMs(this, itemIndex),
			subject: { accessLogs: true },
			what: 'the access-log query',
		},
		'events',
		{ returnAll, limit },
	);
	return events.map((event) => ({ json: event }));
}
