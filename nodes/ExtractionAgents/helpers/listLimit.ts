import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { ListLimit } from '../transport/pagination';

/**
 * "Return All" and "Limit" of a Get Many operation. The editor allows a Limit of 1 or
 * more only, but an expression can give anything: 0, a negative or a fractional number
 * is refused here, before any request (it would otherwise silently return nothing).
 */
export function listLimitParameters(context: IExecuteFunctions, itemIndex: number): ListLimit {
	const returnAll = context.getNodeParameter('returnAll', itemIndex) as boolean;
	if (returnAll) return { returnAll: true, limit: Infinity };
	const limit = context.getNodeParameter('limit', itemIndex) as number;
	if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
		throw new NodeOperationError(
			context.getNode(),
			`Limit must be a whole number of 1 or more, not "${String(limit)}"`,
			{
				description: 'Set Limit to how many results you want (e.g. 50), or turn on Return All.',
				itemIndex,
			},
		);
	}
	return { returnAll: false, limit };
}
