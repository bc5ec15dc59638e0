import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllAndLimit } from '../../descriptions/parameters';
import { itemsUnder, listAllPages } from '../../transport/pagination';
import { listLimitParameters } from '../../helpers/listLimit';
import type { ItemContext } from '../types';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';

const properties: INodeProperties[] = [...returnAllAndLimit({})];

export const description = updateDisplayOptions(
	{ show: { resource: ['apiKey'], operation: ['getAll'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const { returnAll, limit } = listLimitParameters(this, itemIndex);
	const keys = await listAllPages<IDataObject>(
		this,
		{
			path: '/api-keys',
			itemIndex,
			timeoutMs: requestTimeoutMs(this, itemIndex),
			what: 'the API key list',
			idOf: (key) => key.id,
		},
		itemsUnder('api_keys'),
		{ returnAll, limit },
	);
	return keys.map((key) => ({ json: key }));
}
