import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { requireFields } from '../../transport/answers';
import { agentLocator } from '../../descriptions/parameters';
import { agentIdParameter } from '../../helpers/ids';
import { serviceRequest } from '../../transport/serviceRequest';
import type { ItemContext } from '../types';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';

const properties: INodeProperties[] = [
	agentLocator,
	{
		displayName: 'New Name',
		name: 'newName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Invoices (copy)',
		description: 'Name of the new Agent (1 to 255 characters)',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['copy'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const agentId = agentIdParameter(this, itemIndex);
	const name = String(this.getNodeParameter('newName', itemIndex, '') ?? '').trim();
	if (name === '' || name.length > 255) {
		throw new NodeOperationError(
			this.getNode(),
			name === '' ? 'New Name is empty' : `New Name is ${name.length} characters long`,
			{ description: 'Give the copy a name of 1 to 255 characters.', itemIndex },
		);
	}
	const { body } = await serviceRequest<IDataObject>(this, {
		method: 'POST',
		path: `/agents/${agentId}/copy`,
		body: { name },
		subject: { agentId },
		itemIndex,
		timeoutMs: requestTimeoutMs(this, itemIndex),
	});
	const copy = requireFields(this, body, ['id'], `the copy of Agent ${agentId}`, {
		itemIndex,
		afterCreate:
			'The copy may have been made all the same, and the request was not repeated: look for it in the Agent list before running the item again.',
	});
	return [{ json: copy }];
}
