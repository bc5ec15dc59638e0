import type { DisplayCondition, INode, INodeProperties } from 'n8n-workflow';
import { hasBehaviour, versionsWith, versionsWithout } from './versions';

export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 60;
export const MAX_REQUEST_TIMEOUT_SECONDS = 3600;

/**
 * Items sent to the service at once. 10: with 300 ms a request and uploads at 2 MB/s
 * (emulator knobs), 50 documents took 31.7 s one at a time, 9.7 s at 5, 7.9 s at 10 and
 * 7.5 s at 20 (one Run: about 4 s); more at once only adds to the service's rate limit
 * (`npm run bench`, figure 6).
 */
export const DEFAULT_ITEMS_IN_PARALLEL = 10;
export const MAX_ITEMS_IN_PARALLEL = 20;

/**
 * The operations whose items are independent and safe to send side by side, by
 * resource: the router runs their items Options → Items in Parallel at once (Create Run
 * waits for every created Run together), and the option is shown for them only. Every
 * other operation handles one item after another.
 */
export const OPERATIONS_WITH_ITEMS_IN_PARALLEL: Readonly<Record<string, readonly string[]>> = {
	run: ['create', 'get', 'delete', 'downloadTemplatedOutput'],
	agent: ['get'],
};

/** Items in Parallel as the node versions that default to `defaultCount` show it. */
function itemsInParallelOption(
	versions: Array<number | DisplayCondition>,
	defaultCount: number,
): INodeProperties {
	return {
		displayName: 'Items in Parallel',
		name: 'itemsInParallel',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_ITEMS_IN_PARALLEL },
		default: defaultCount,
		description:
			'How many items to send at once. Extract Data From Files waits for all their Runs together. Set 1 to send items one by one.',
		// Shown for any of these resources with any of these operations: the pairs that would
		// add must name no operation (test/node/operations.test.ts checks it).
		displayOptions: {
			show: {
				'/resource': Object.keys(OPERATIONS_WITH_ITEMS_IN_PARALLEL),
				'/operation': [...new Set(Object.values(OPERATIONS_WITH_ITEMS_IN_PARALLEL).flat())],
				'@version': versions,
			},
		},
	};
}

/** Items in Parallel when the workflow does not set it: one at a time on version 1 (see above). */
export function defaultItemsInParallel(node: INode): number {
	return hasBehaviour(node, 'itemsInParallelByDefault') ? DEFAULT_ITEMS_IN_PARALLEL : 1;
}

/** The "Options" collection of both nodes (every operation of the action node). */
export const optionsField: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [
		// Version 1 sends one item after another, as 0.1.0 did: a saved workflow whose item
		// fails must not have created Runs for the items after it (Retry On Fail or a re-run
		// would duplicate them). Sending several at once came with version 1.1.
		itemsInParallelOption(versionsWithout('itemsInParallelByDefault'), 1),
		itemsInParallelOption(versionsWith('itemsInParallelByDefault'), DEFAULT_ITEMS_IN_PARALLEL),
		{
			displayName: 'Failed Runs',
			name: 'failedRuns',
			type: 'options',
			default: 'error',
			options: [
				{
					name: 'Send to Error Output',
					value: 'error',
					description:
						'The item fails: it goes to the error output when On Error is set to Continue (using error output), otherwise the workflow stops',
				},
				{
					name: 'Output as Results',
					value: 'results',
					description:
						'The Run is a result like any other, with its status in the status column (as before node version 1.3)',
				},
			],
			description:
				'What to do with a Run whose status is not success. A succeeded Run can still have failed Prompts, named in its failed_prompts column.',
			displayOptions: {
				show: {
					'/resource': ['run'],
					'/operation': ['create'],
					'/waitForCompletion': [true],
					'@version': versionsWith('failedRunsAreErrors'),
				},
			},
		},
		// 'error' by default from version 1.5: a document whose Prompts were partly answered
		// needs a person, and as a row it would only be a blank cell that nobody sees; on the
		// error output it reaches the review place with the values read and the reasons.
		{
			displayName: 'Runs with Failed Prompts',
			name: 'partlyReadRuns',
			type: 'options',
			default: 'error',
			options: [
				{
					name: 'Send to Error Output',
					value: 'error',
					description:
						'The item fails with the values that were read and the Prompts that failed, and why: for review, not a row with blank cells',
				},
				{
					name: 'Output as Results',
					value: 'results',
					description:
						'The Run is a result like any other; its failed_prompts column names the Prompts that failed (as before node version 1.5)',
				},
			],
			description:
				'What to do with a Run that succeeded although some of its Prompts could not be answered',
			displayOptions: {
				show: {
					'/resource': ['run'],
					'/operation': ['create'],
					'/waitForCompletion': [true],
					'@version': versionsWith('partlyReadRunsAreErrors'),
				},
			},
		},
		{
			displayName: 'Request Timeout (Seconds)',
			name: 'requestTimeout',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_REQUEST_TIMEOUT_SECONDS },
			default: DEFAULT_REQUEST_TIMEOUT_SECONDS,
			description:
				'How long one request may wait for the service to answer. A read that times out is tried again; creating a Run is not.',
		},
	],
};
