import type {
	DisplayCondition,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { agentLocator, runOutputField, simplifyField } from '../../descriptions/parameters';
import { agentIdParameter } from '../../helpers/ids';
import { encodeMultipartStream, type MultipartField } from '../../transport/multipart';
import { asRun } from '../../helpers/runs';
import { runToItemsJson, type RunOutputMode } from '../../helpers/shapeRun';
import { userDateToIso } from '../../helpers/dates';
import { serviceRequest } from '../../transport/serviceRequest';
import type { ExecutionCache, ItemContext, ItemsSummary } from '../types';
import { failedRunError, failedRunsMode, runCountsHint } from '../../helpers/failedRuns';
import { filesForUpload, itemHasFiles, selectFiles } from './upload';
import { filesFromLinks, linksOf } from './links';
import { hasBehaviour, versionsWith, versionsWithout } from '../../descriptions/versions';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';
import { FILE_WORDS, FILE_WORDS_BEFORE_1_2, fileWordsOf } from '../../descriptions/panelWords';
import { withReviewerFields } from '../../helpers/reviewerFields';

const show = { resource: ['run'], operation: ['create'] };

/** Files and the field list, as the node versions in `versions` label them and default. */
function filesFields(
	defaultSource: 'fields' | 'all',
	versions: DisplayCondition[],
	labels: { fields: string; all: string; fieldList: string; hint: string; links?: boolean },
): INodeProperties[] {
	return [
		{
			displayName: 'Files',
			name: 'binarySource',
			type: 'options',
			default: defaultSource,
			options: [
				{ name: labels.all, value: 'all' },
				{ name: labels.fields, value: 'fields' },
				...(labels.links
					? [
							{
								name: 'Links',
								value: 'links',
								description: 'Download each file from its web address, then upload it',
							},
						]
					: []),
			],
			description: 'Which of the item’s files to upload. Each input item becomes one Run.',
			displayOptions: { show: { '@version': versions } },
		},
		{
			displayName: labels.fieldList,
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			placeholder: 'e.g. data, attachment_0',
			hint: labels.hint,
			displayOptions: { show: { binarySource: ['fields'], '@version': versions } },
		},
		...(labels.links
			? [
					{
						displayName: 'File Links',
						name: 'fileLinks',
						type: 'string' as const,
						typeOptions: { rows: 3 },
						default: '',
						required: true,
						placeholder: 'https://files.example.com/invoice-4711.pdf',
						hint: 'One link per line, or an expression such as {{ $json.url }}. Each link must give the file itself, not a page about it.',
						displayOptions: { show: { binarySource: ['links'], '@version': versions } },
					},
				]
			: []),
	];
}

const properties: INodeProperties[] = [
	agentLocator,
	// Version 1.2 speaks of files, not binary data, and uploads every file of the item by
	// default, so Gmail's attachment_0, attachment_1… work without a setting.
	...filesFields('fields', versionsWithout('allFilesByDefault'), {
		fields: FILE_WORDS_BEFORE_1_2.specific,
		all: FILE_WORDS_BEFORE_1_2.all,
		fieldList: FILE_WORDS_BEFORE_1_2.fieldList,
		hint: 'Comma-separated names of the binary fields to upload. To send files of several items in one Run, combine them first with the Aggregate node.',
	}),
	...filesFields('all', versionsWith('allFilesByDefault'), {
		fields: FILE_WORDS.specific,
		all: FILE_WORDS.all,
		fieldList: FILE_WORDS.fieldList,
		hint: 'Names of the item’s file fields, separated by commas (e.g. attachment_0). To send several items’ files as one Run, combine them first with Aggregate.',
		links: true,
	}),
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: true,
		description:
			'Whether to wait until every Prompt has finished and return the results; otherwise the Run is returned at once, still running',
	},
	// Whole minutes from version 1.3 (the field showed "10.00"); a workflow saved before keeps
	// the field that takes parts of a minute, so a saved 0.5 is shown as it is.
	...[
		{ versions: versionsWithout('wholeMinuteTimeout'), minValue: 0.05, numberPrecision: 2 },
		{ versions: versionsWith('wholeMinuteTimeout'), minValue: 1, numberPrecision: 0 },
	].map(
		({ versions, minValue, numberPrecision }): INodeProperties => ({
			displayName: 'Timeout (Minutes)',
			name: 'timeoutMinutes',
			type: 'number',
			default: 10,
			typeOptions: { minValue, numberPrecision },
			description:
				'How long to wait for the Run before failing the item. The Run goes on in the service either way.',
			displayOptions: { show: { waitForCompletion: [true], '@version': versions } },
		}),
	),
	...simplifyField({}),
	runOutputField({}),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Due Date',
				name: 'dueDate',
				type: 'dateTime',
				default: '',
				description: 'The service tries to finish all Prompts before this time',
			},
			{
				displayName: 'User-Defined ID',
				name: 'userDefinedId',
				type: 'string',
				default: '',
				placeholder: 'e.g. INV-2026-0042',
				description:
					'Your own identifier for the Run (e.g. the email or file ID it came from), returned with its results',
			},
		],
	},
];

export const description = updateDisplayOptions({ show }, properties);

/** Shown under the output when Runs come back unfinished, where a user would wonder. */
const STILL_RUNNING_HINT =
	'The Runs are still running: Wait for Completion is off, so the node returned each Run as soon as the service took the files. Get the results later with Run → Get or the Extraction Agents Trigger, or turn Wait for Completion on.';

/** Said once per execution, so that leaving out an email's inline images is never silent. */
function inlineImagesHint(context: IExecuteFunctions, fileNames: string[]): string {
	return `Images shown inside an email's text (${fileNames.join(', ')}) were not uploaded: they are logos or signatures, not documents. To upload them, set Files to ${fileWordsOf(context.getNode()).specific} and name their fields.`;
}

/**
 * Adds an execution hint once per execution (n8n shows hints in the output pane). Older n8n
 * versions without execution hints simply show none.
 */
function hintOnce(context: IExecuteFunctions, cache: ExecutionCache, message: string): void {
	const key = `hint:${message}`;
	if (cache.has(key) || typeof context.addExecutionHints !== 'function') return;
	cache.set(key, Promise.resolve());
	context.addExecutionHints({ message, location: 'outputPane' });
}

function dueDateField(
	context: IExecuteFunctions,
	raw: unknown,
	itemIndex: number,
): MultipartField | undefined {
	const dueDate = userDateToIso(context, raw, 'Due Date', itemIndex);
	if (dueDate === undefined) return undefined;
	if (Date.parse(dueDate) <= Date.now()) {
		throw new NodeOperationError(context.getNode(), `Due Date ${dueDate} is in the past`, {
			description: 'Set a due date in the future, or leave it empty.',
			itemIndex,
		});
	}
	// docs/design/service-notes.md #15: ISO 8601 with an offset.
	return { fieldName: 'due_date', value: dueDate };
}

/** An object (not a Date or the like, whose text is meaningful): as text it reads "[object Object]". */
function isPlainObject(value: unknown): boolean {
	if (value === null || typeof value !== 'object') return false;
	const prototype: unknown = Object.getPrototypeOf(value);
	return prototype === Object.prototype || prototype === null;
}

/**
 * User-Defined ID as sent. An expression may give it an object (`{{ $json.ref }}` rather than
 * `{{ $json.ref.id }}`), which as text is "[object Object]": refused before the upload, so
 * that no Run is made under a useless ID. A list of plain values is sent as before (joined
 * with commas); a list holding objects is refused likewise.
 */
function userDefinedIdField(
	context: IExecuteFunctions,
	raw: unknown,
	itemIndex: number,
): MultipartField | undefined {
	const objectLike =
		isPlainObject(raw) ||
		(Array.isArray(raw) && raw.some((entry) => isPlainObject(entry) || Array.isArray(entry)));
	if (objectLike) {
		const kind = Array.isArray(raw) ? 'a list holding objects' : 'an object';
		const fieldNames = isPlainObject(raw) ? Object.keys(raw as object) : [];
		const expression = /^=\{\{\s*(\$json(?:\.[A-Za-z_$][\w$]*)*)\s*\}\}$/.exec(
			String(
				(context.getNode().parameters.additionalFields as { userDefinedId?: unknown } | undefined)
					?.userDefinedId ?? '',
			),
		);
		const example =
			expression && fieldNames.length > 0 && /^[A-Za-z_$][\w$]*$/.test(fieldNames[0])
				? `{{ ${expression[1]}.${fieldNames[0]} }}`
				: '{{ $json.reference.id }}';
		throw new NodeOperationError(context.getNode(), `User-Defined ID is ${kind}, not text`, {
			description: `The expression for Additional Fields → User-Defined ID gave ${kind}${fieldNames.length > 0 ? ` (fields: ${fieldNames.slice(0, 5).join(', ')})` : ''}, which cannot be sent as text. Point it at one text or number field, e.g. ${example}.`,
			itemIndex,
		});
	}
	const text = String(raw ?? '').trim();
	return text === '' ? undefined : { fieldName: 'user_defined_id', value: text };
}

/**
 * n8n runs a tool (the AI Agent's `extractionAgentsTool`) with one item holding the model's
 * arguments and no binary data, so there is nothing to upload. The model sees only an
 * error's message: it says why, and what to do instead.
 */
function refuseAsToolWithoutFiles(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
): void {
	if (!context.getNode().type.endsWith('Tool') || itemHasFiles(context, item)) return;
	throw new NodeOperationError(
		context.getNode(),
		'Extract Data From Files cannot be used as an AI Agent tool: a tool receives no files to upload. Create the Run in the workflow before the AI Agent, and let the agent read it with Run → Get or Run → Get Many.',
		{ itemIndex },
	);
}

export function afterItems(this: IExecuteFunctions, summary: ItemsSummary): void {
	const hint = runCountsHint(this, summary);
	if (hint === undefined || typeof this.addExecutionHints !== 'function') return;
	this.addExecutionHints({ message: hint, location: 'outputPane' });
}

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex, item, cache, throwIfStopped, runCreated, waitForRun }: ItemContext,
): Promise<INodeExecutionData[]> {
	const agentId = agentIdParameter(this, itemIndex);
	const source = this.getNodeParameter('binarySource', itemIndex) as 'fields' | 'all' | 'links';
	if (source !== 'links') refuseAsToolWithoutFiles(this, item, itemIndex);
	// A name list, or (n8n 1.114+) a binary object or a list from an expression: see selectFiles.
	const fieldValue: unknown =
		source === 'fields' ? this.getNodeParameter('binaryPropertyName', itemIndex) : undefined;
	const wait = this.getNodeParameter('waitForCompletion', itemIndex) as boolean;
	const simplify = this.getNodeParameter('simplify', itemIndex) as boolean;
	const output = this.getNodeParameter('output', itemIndex) as RunOutputMode;
	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as {
		dueDate?: string;
		userDefinedId?: unknown;
	};

	// Checked before the upload: a wrong value here must not cost a Run.
	const timeoutMinutes = wait ? (this.getNodeParameter('timeoutMinutes', itemIndex) as number) : 0;
	if (wait && !(Number(timeoutMinutes) > 0)) {
		throw new NodeOperationError(
			this.getNode(),
			`Timeout (Minutes) must be more than 0, not "${String(timeoutMinutes)}"`,
			{
				description: 'Set how long to wait for the Run (e.g. 10), or turn off Wait for Completion.',
				itemIndex,
			},
		);
	}

	const fields: MultipartField[] = [];
	const userDefinedId = userDefinedIdField(this, additional.userDefinedId, itemIndex);
	if (userDefinedId) fields.push(userDefinedId);
	const dueDate = dueDateField(this, additional.dueDate, itemIndex);
	if (dueDate) fields.push(dueDate);

	const files =
		source === 'links'
			? await filesFromLinks(
					this,
					itemIndex,
					linksOf(this, itemIndex, this.getNodeParameter('fileLinks', itemIndex)),
				)
			: await filesForUpload(
					this,
					itemIndex,
					selectFiles(this, item, itemIndex, source, fieldValue, (skipped) =>
						hintOnce(this, cache, inlineImagesHint(this, skipped)),
					),
				);
	const body = encodeMultipartStream(files, fields);

	let response;
	try {
		// Another item failed meanwhile (without Continue On Fail): create nothing more.
		throwIfStopped();
		// POST runs creates a Run, so a 5xx, a dropped connection or a timeout is never
		// retried here (transport/retry.ts): a second attempt could create a duplicate Run.
		// The request's timeout grows with the upload (helpers/requestTimeoutOption.ts).
		response = await serviceRequest(this, {
			method: 'POST',
			path: `/agents/${agentId}/runs`,
			upload: body,
			subject: { agentId },
			itemIndex,
			timeoutMs: requestTimeoutMs(this, itemIndex, body.size),
		});
	} finally {
		// Links' answers held open for the upload and never read (it stopped before them).
		body.release();
	}
	let run = asRun(this, response.body, itemIndex, { created: true });
	runCreated(run);
	if (wait) {
		const created = run;
		run = await waitForRun(run, Number(timeoutMinutes) * 60_000).catch((error: unknown) => {
			throw withReviewerFields(this, error, created);
		});
		if (run.status !== 'success' && failedRunsMode(this, itemIndex) === 'error') {
			throw failedRunError(this, run, itemIndex);
		}
	} else {
		hintOnce(this, cache, STILL_RUNNING_HINT);
	}
	return runToItemsJson(run, simplify, output, {
		sheetReady: hasBehaviour(this.getNode(), 'sheetReadyRuns'),
		collisionFree: hasBehaviour(this.getNode(), 'collisionFreeColumns'),
	}).map((json) => ({ json }));
}
