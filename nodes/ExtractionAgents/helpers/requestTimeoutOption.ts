import type { IExecuteFunctions, ILoadOptionsFunctions, INode, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import {
	DEFAULT_REQUEST_TIMEOUT_SECONDS,
	MAX_REQUEST_TIMEOUT_SECONDS,
} from '../descriptions/options';
import type { ServiceContext } from '../transport/types';
import { uploadAllowanceMs } from '../transport/uploadAllowance';

const TIMEOUT_PARAMETER = 'options.requestTimeout';

function configuredSeconds(context: ServiceContext, itemIndex: number | undefined): unknown {
	if ('getInputData' in context) {
		return (context as IExecuteFunctions).getNodeParameter(
			TIMEOUT_PARAMETER,
			itemIndex ?? 0,
			DEFAULT_REQUEST_TIMEOUT_SECONDS,
		);
	}
	if ('getCurrentNodeParameter' in context) {
		// The editor's pickers: the node being edited may not be saved yet.
		try {
			return (context as ILoadOptionsFunctions).getCurrentNodeParameter(TIMEOUT_PARAMETER);
		} catch {
			return undefined;
		}
	}
	return (context as IPollFunctions).getNodeParameter(
		TIMEOUT_PARAMETER,
		DEFAULT_REQUEST_TIMEOUT_SECONDS,
	);
}

/**
 * The timeout of one request (each attempt), from the node's "Request Timeout" option
 * (60 s when unset), plus the upload allowance (transport/uploadAllowance.ts). The only
 * place that reads the option: every request the nodes send is given its value.
 * A value that is not a number of seconds from 1 to 3600 is refused before any request.
 */
export function requestTimeoutMs(
	context: ServiceContext,
	itemIndex: number | undefined,
	uploadBytes = 0,
): number {
	const raw = configuredSeconds(context, itemIndex);
	const seconds =
		raw === undefined || raw === null || raw === '' ? DEFAULT_REQUEST_TIMEOUT_SECONDS : Number(raw);
	if (!Number.isFinite(seconds) || seconds < 1 || seconds > MAX_REQUEST_TIMEOUT_SECONDS) {
		throw invalidTimeout(context.getNode(), raw, itemIndex);
	}
	return Math.round(seconds * 1000) + uploadAllowanceMs(uploadBytes);
}

function invalidTimeout(
	node: INode,
	raw: unknown,
	itemIndex: number | undefined,
): NodeOperationError {
	return new NodeOperationError(
		node,
		`Request Timeout "${String(raw).slice(0, 40)}" is not a number of seconds from 1 to ${MAX_REQUEST_TIMEOUT_SECONDS}`,
		{
			description:
				'Set Options → Request Timeout (Seconds) to how long a request may wait for its answer, e.g. 60.',
			itemIndex,
		},
	);
}
