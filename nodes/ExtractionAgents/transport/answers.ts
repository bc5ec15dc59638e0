import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

interface HasNode {
	getNode(): INode;
}

const CHECK_BASE_URL = 'Check that the Base URL points at the Extraction Agents service.';

/**
 * A 2xx answer that lacks what the operation needs. It becomes an error, never an
 * empty or half item: `what` names the thing ("the Runs of Agent 12"), `problem`
 * says what was missing, `afterCreate` tells the user the request may have taken
 * effect (a POST that created something is not repeated).
 */
export function unexpectedAnswer(
	context: HasNode,
	what: string,
	problem: string,
	options: { itemIndex?: number; afterCreate?: string } = {},
): NodeApiError {
	const message = `The Extraction Agents service sent an incomplete answer for ${what}`;
	return new NodeApiError(
		context.getNode(),
		{ message },
		{
			message,
			description: `${problem} ${options.afterCreate ?? CHECK_BASE_URL}`,
			itemIndex: options.itemIndex,
		},
	);
}

/** The body as an object holding every one of `fields` (not null), or an error naming the missing ones. */
export function requireFields(
	context: HasNode,
	body: unknown,
	fields: string[],
	what: string,
	options: { itemIndex?: number; afterCreate?: string } = {},
): IDataObject {
	if (!body || typeof body !== 'object' || Array.isArray(body)) {
		throw unexpectedAnswer(context, what, 'The answer held nothing the node could use.', options);
	}
	const missing = fields.filter(
		(field) => (body as IDataObject)[field] === undefined || (body as IDataObject)[field] === null,
	);
	if (missing.length > 0) {
		throw unexpectedAnswer(
			context,
			what,
			`The answer was incomplete: it had no ${missing.join(', ')}.`,
			options,
		);
	}
	return body as IDataObject;
}
