import type {
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INode,
	INodeProperties,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

type RequestingContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 60;
export const MAX_REQUEST_TIMEOUT_SECONDS = 3600;
/**
 * n8n's HTTP client times a request until the answer starts, so an upload's own
 * sending time counts: each started MB of the upload adds this much.
 */
export const UPLOAD_ALLOWANCE_MS_PER_MB = 1000;

const TIMEOUT_PARAMETER = 'options.requestTimeout';

/**
 * Items sent to the service at once. 10: with 300 ms a request and uploads at 2 MB/s
 * (emulator knobs), 50 documents took 31.7 s one at a time, 9.7 s at 5, 7.9 s at 10 and
 * 7.5 s at 20 (one Run: about 4 s); more at once only adds to the service's rate limit
 * (`npm run bench`, figure 6).
 */
export const DEFAULT_ITEMS_IN_PARALLEL = 10;
export const MAX_ITEMS_IN_PARALLEL = 20;
const ITEMS_IN_PARALLEL_PARAMETER = 'options.itemsInParallel';

/** The "Options" collection of both nodes (every operation of the action node). */
export const requestOptionsField: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [
		{
			displayName: 'Items in Parallel',
			name: 'itemsInParallel',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_ITEMS_IN_PARALLEL },
			default: DEFAULT_ITEMS_IN_PARALLEL,
			description:
				'How many items are sent to the service at the same time. For Create Run this is how many uploads run at once; every created Run is then waited for together, so a batch of documents takes about as long as its slowest Run. Set 1 to send one item after another.',
			// Operations whose items are independent: Run → Create, Get, Delete, Download Templated Output; Agent → Get.
			displayOptions: {
				show: { '/resource': ['run', 'agent'], '/operation': ['create', 'get', 'delete', 'downloadTemplatedOutput'] },
			},
		},
		{
			displayName: 'Request Timeout (Seconds)',
			name: 'requestTimeout',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_REQUEST_TIMEOUT_SECONDS },
			default: DEFAULT_REQUEST_TIMEOUT_SECONDS,
			description:
				'How long one request to the service may wait for its answer before it fails. Uploads get 1 second more per MB. A read that times out is tried again; creating a Run is not.',
		},
	],
};

function configuredSeconds(context: RequestingContext, itemIndex: number | undefined): unknown {
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
	return (context as IPollFunctions).getNodeParameter(TIMEOUT_PARAMETER, DEFAULT_REQUEST_TIMEOUT_SECONDS);
}

/**
 * The timeout of one request (each attempt), from the node's "Request Timeout" option
 * (60 s when unset), plus the upload allowance. The only place that reads the option:
 * the transport calls it for every request that does not set its own `timeoutMs`.
 * A value that is not a number of seconds from 1 to 3600 is refused before any request.
 */
export function requestTimeoutMs(
	context: RequestingContext,
	itemIndex: number | undefined,
	uploadBytes = 0,
): number {
	const raw = configuredSeconds(context, itemIndex);
	const seconds = raw === undefined || raw === null || raw === '' ? DEFAULT_REQUEST_TIMEOUT_SECONDS : Number(raw);
	if (!Number.isFinite(seconds) || seconds < 1 || seconds > MAX_REQUEST_TIMEOUT_SECONDS) {
		throw invalidTimeout(context.getNode(), raw, itemIndex);
	}
	return Math.round(seconds * 1000) + Math.ceil(Math.max(0, uploadBytes) / 1_000_000) * UPLOAD_ALLOWANCE_MS_PER_MB;
}

function invalidTimeout(node: INode, raw: unknown, itemIndex: number | undefined): NodeOperationError {
	return new NodeOperationError(
		node,
		`Request Timeout "${String(raw).slice(0, 40)}" is not a number of seconds from 1 to ${MAX_REQUEST_TIMEOUT_SECONDS}`,
		{
			description: 'Set Options → Request Timeout (Seconds) to how long a request may wait for its answer, e.g. 60.',
			itemIndex,
		},
	);
}

/**
 * Options → Items in Parallel of the action node: a whole number from 1 to 20, read once
 * for the execution (it shapes how all items are run, so it is not per item).
 */
export function itemsInParallel(context: IExecuteFunctions): number {
	const raw = context.getNodeParameter(ITEMS_IN_PARALLEL_PARAMETER, 0, DEFAULT_ITEMS_IN_PARALLEL);
	const count = raw === undefined || raw === null || raw === '' ? DEFAULT_ITEMS_IN_PARALLEL : Number(raw);
	if (!Number.isInteger(count) || count < 1 || count > MAX_ITEMS_IN_PARALLEL) {
		throw new NodeOperationError(
			context.getNode(),
			`Items in Parallel "${String(raw).slice(0, 40)}" is not a whole number from 1 to ${MAX_ITEMS_IN_PARALLEL}`,
			{ description: `Set Options → Items in Parallel to how many items to send at once, e.g. ${DEFAULT_ITEMS_IN_PARALLEL}.` },
		);
	}
	return count;
}
