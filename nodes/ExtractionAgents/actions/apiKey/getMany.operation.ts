import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllAndLimit } from '../../shared/descriptions';
import { itemsUnder, listAllPages } from '../../shared/pagination';

const properties: INodeProperties[] = [...returnAllAndLimit({})];

export const description = updateDisplayOptions({ show: { resource: ['apiKey'], operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? Infinity : (this.getNodeParameter('limit', itemIndex, 50) as number);
	const keys = await listAllPages<IDataObject>(
		this,
		{ path: '/api-keys', itemIndex, what: 'the API key list' },
		itemsUnder('api_keys'),
		{ returnAll, limit },
	);
	return keys.map((key) => ({ json: key }));
}
