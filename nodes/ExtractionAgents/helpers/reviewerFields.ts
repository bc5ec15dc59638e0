import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { hasBehaviour } from '../descriptions/versions';
import { pickedAgentName } from '../transport/subjects';
import type { Run } from './runs';
import { attachErrorItemFields } from './runWaiter';

/**
 * The fields that say which document an error item is about, first in its row: the files'
 * names and the Agent's name (when the Agent was picked From List; null otherwise).
 */
export function reviewerFields(context: IExecuteFunctions, run: Run): IDataObject {
	return {
		files: Array.isArray(run.files) ? run.files.map(String).join(', ') : '',
		agent_name: pickedAgentName(context.getNode(), Number(run.agent_id)) ?? null,
	};
}

/**
 * An error that ends the wait for a Run (it went missing, timed out, the execution stopped)
 * gets, from node version 1.4, the Run's files and the Agent's name beside the Run's fields,
 * so that its error item too says which document it is about.
 */
export function withReviewerFields(context: IExecuteFunctions, error: unknown, run: Run): unknown {
	if (!hasBehaviour(context.getNode(), 'reviewerErrorItems')) return error;
	if (!(error instanceof NodeApiError) && !(error instanceof NodeOperationError)) return error;
	const fields = error.context.errorItemFields as IDataObject | undefined;
	if (!fields) return error;
	return attachErrorItemFields(error, { ...reviewerFields(context, run), ...fields });
}
