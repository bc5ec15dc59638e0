import type {
	DisplayCondition,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { agentLocator, runOutputField, simplifyField } from '../../descriptions/parameters';
import { agentIdParameter } from '../../helpers/ids';
import {
	encodeMultipartStream,
	type MultipartField,
	type MultipartFile,
} from '../../transport/multipart';
import { asRun, type Run } from '../../helpers/runs';
import { runToItemsJson, valuesReadOf, type RunOutputMode } from '../../helpers/shapeRun';
import { userDateToIso } from '../../helpers/dates';
import {
	FailedOutput,
	type ExecutionCache,
	type ItemContext,
	type ItemsSummary,
	type OperationOutput,
} from '../types';
import { asNodeError, ItemStopped } from '../itemPool';
import { attachErrorItemFields } from '../../helpers/runWaiter';
import { createRunOnce } from './createOnce';
import {
	failedRunError,
	failedRunsMode,
	isPartlyRead,
	partlyReadRunsMode,
	runCountsHint,
} from '../../helpers/failedRuns';
import { filesForUpload, itemHasFiles, selectFiles } from './upload';
import { checkLinks, filesFromLinks, linksOf } from './links';
import { shownLink } from './shownLink';
import { hasBehaviour, versionsWith, versionsWithout } from '../../descriptions/versions';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';
import { FILE_WORDS, FILE_WORDS_BEFORE_1_2, fileWordsOf } from '../../descriptions/panelWords';
import { withReviewerFields } from '../../helpers/reviewerFields';

const show = { resource: ['run'], operation: ['create'] };

/** Files and the field list, as the node versions in `versions` label them and default. */
function filesFields(
	defaultSource: 'fields' | 'all',
	versions: DisplayCondition[],
	labels: {
		fields: string;
		all: string;
		fieldList: string;
		hint: string;
		links?: boolean;
		/** The field's description, when not "Each input item becomes one Run". */
		runs?: string;
	},
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
			description:
				labels.runs ?? 'Which of the item’s files to upload. Each input item becomes one Run.',
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
		// From 1.5, Runs says how the files make Runs.
		runs: 'Which of the item’s files to upload',
	}),
	// One Run per File by default from 1.5: the Agent answers each Prompt once per Run, so two
	// invoices in one email sent as one Run gave one row, and an unreadable scan sent beside an
	// invoice vanished behind the invoice's values. A document is a file: each file its own Run,
	// its own row or review entry. Before 1.5 every item was one Run, as One Run per Item still is.
	{
		displayName: 'Runs',
		name: 'filesPerRun',
		type: 'options',
		default: 'file',
		options: [
			{
				name: 'One Run per File',
				value: 'file',
				description:
					'Each file is its own document: its own Run and its own output item, named in file_name',
			},
			{
				name: 'One Run per Item (All Its Files Together)',
				value: 'item',
				description:
					'The item’s files are read together as one document (e.g. an invoice and its delivery note)',
			},
		],
		description:
			'Whether each file is read as its own document. With several files, each Run’s User-Defined ID gets #1, #2… in file order.',
		hint: 'An email whose only images are in its text (a logo) sends nothing and gives no item.',
		displayOptions: { show: { '@version': versionsWith('runPerFile') } },
	},
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
					'Your own ID for the Run, returned with its results: the email’s or file’s ID, never a file name two documents can share',
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
): Promise<OperationOutput[]> {
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

	const perFile =
		hasBehaviour(this.getNode(), 'runPerFile') &&
		this.getNodeParameter('filesPerRun', itemIndex, 'file') === 'file';
	const userDefinedId = userDefinedIdField(this, additional.userDefinedId, itemIndex);
	const dueDate = dueDateField(this, additional.dueDate, itemIndex);

	const links =
		source === 'links'
			? linksOf(this, itemIndex, this.getNodeParameter('fileLinks', itemIndex))
			: undefined;
	// One Run per File with several links: each link is fetched just before its own Run, so a
	// link's answer is not held open through the other uploads, and a link that fails is its
	// own output item, as any file's failure is.
	const linkByLink = perFile && links !== undefined && links.length > 1;
	if (linkByLink) await checkLinks(this, itemIndex, links);
	const files = linkByLink
		? []
		: source === 'links'
			? await filesFromLinks(this, itemIndex, links ?? [])
			: await filesForUpload(
					this,
					itemIndex,
					selectFiles(this, item, itemIndex, source, fieldValue, (skipped) =>
						hintOnce(this, cache, inlineImagesHint(this, skipped)),
					),
					{ perFile },
				);
	if (!linkByLink && files.length === 0) {
		// Version 1.5: only images shown in an email's text (upload.ts), no document.
		hintOnce(this, cache, NO_DOCUMENT_HINT);
		return [];
	}

	// One Run per file, or one for all the item's files. Each Run's User-Defined ID is the
	// item's, numbered in file order when the item makes several (`INV-7#1`, `INV-7#2`): a
	// Run is then found by its own ID (createOnce.ts), and a file sent again gets the same one.
	const groups: Array<{ name?: string; files: () => Promise<MultipartFile[]> }> = linkByLink
		? (links ?? []).map((link) => ({
				name: shownLink(link),
				files: async () => await filesFromLinks(this, itemIndex, [link]),
			}))
		: perFile
			? files.map((file) => ({ name: file.fileName, files: async () => [file] }))
			: [{ files: async () => files }];
	const runs = groups.map((group, index) => {
		const fields: MultipartField[] = [];
		const id =
			userDefinedId && groups.length > 1
				? { ...userDefinedId, value: `${userDefinedId.value}#${index + 1}` }
				: userDefinedId;
		if (id) fields.push(id);
		if (dueDate) fields.push(dueDate);
		return { name: group.name, userDefinedId: id?.value, files: group.files, fields };
	});
	const shape = (run: Run) =>
		runToItemsJson(run, simplify, output, {
			sheetReady: hasBehaviour(this.getNode(), 'sheetReadyRuns'),
			collisionFree: hasBehaviour(this.getNode(), 'collisionFreeColumns'),
		});
	// An item of one Run fails as a whole, as before 1.5. With One Run per File a file's failure
	// is that file's output item only (On Error: Continue); without Continue the item fails.
	const oneFails = (error: unknown, fileName: string | undefined): FailedOutput => {
		if (error instanceof ItemStopped) throw error;
		const failure = asNodeError(this.getNode(), error, itemIndex);
		if (fileName !== undefined) {
			const fields = failure.context.errorItemFields as IDataObject | undefined;
			// `files` too, as a failed Run's item has it: a review row names the document whatever
			// failed (a 503 on its upload as much as a Run that could not read it).
			attachErrorItemFields(failure, { file_name: fileName, files: fileName, ...(fields ?? {}) });
		}
		if (groups.length === 1 || !this.continueOnFail()) throw failure;
		return new FailedOutput(failure);
	};

	const created: Array<Run | FailedOutput> = [];
	/** Each created entry's file (One Run per File), for its output item. */
	const createdNames: Array<string | undefined> = [];
	try {
		for (const { name, userDefinedId: id, fields, files: filesOfRun } of runs) {
			let group: MultipartFile[];
			try {
				// Another item failed meanwhile (without Continue On Fail): fetch no more links.
				if (linkByLink) throwIfStopped();
				group = await filesOfRun();
			} catch (error) {
				// The link could not be fetched (One Run per File): named by its link.
				createdNames.push(perFile ? name : undefined);
				created.push(oneFails(error, perFile ? name : undefined));
				continue;
			}
			// A link's file is named once it is fetched (its host may name it).
			const fileName = perFile ? (group[0]?.fileName ?? name) : undefined;
			createdNames.push(fileName);
			const body = encodeMultipartStream(group, fields);
			try {
				// POST runs creates a Run: never repeated blindly (createOnce.ts). The request's
				// timeout grows with the upload (helpers/requestTimeoutOption.ts).
				const response = await createRunOnce(this, {
					agentId,
					body,
					userDefinedId: id,
					fileNames: group.map((file) => file.fileName),
					itemIndex,
					timeoutMs: requestTimeoutMs(this, itemIndex, body.size),
					throwIfStopped,
				});
				const run = asRun(this, response, itemIndex, { created: true });
				runCreated(run, perFile);
				created.push(run);
			} catch (error) {
				created.push(oneFails(error, fileName));
			} finally {
				// A link's answer held open for the upload and never read (it stopped before it).
				body.release();
			}
		}
	} finally {
		// Files fetched for Runs never reached (another item failed): their answers let go.
		for (const file of files) file.release?.();
	}
	if (!wait && created.some((run) => !(run instanceof FailedOutput)))
		hintOnce(this, cache, STILL_RUNNING_HINT);

	const outcomes = await Promise.all(
		created.map(async (createdRun, index): Promise<OperationOutput[]> => {
			if (createdRun instanceof FailedOutput) return [createdRun];
			const fileName = createdNames[index];
			try {
				const run = wait
					? await finishedRun(this, createdRun, itemIndex, timeoutMinutes, waitForRun)
					: createdRun;
				return shape(run).map((json) => ({
					json: fileName === undefined ? json : { ...json, file_name: fileName },
				}));
			} catch (error) {
				return [oneFails(error, fileName)];
			}
		}),
	);
	return outcomes.flat();
}

const NO_DOCUMENT_HINT =
	'An item whose only files are images shown in its email’s text (a logo, a signature) has no document: nothing was sent for it, and it gives no item.';

/** Waits for the Run; a Run that ended without success, or (1.5) with failed Prompts, fails its item. */
async function finishedRun(
	context: IExecuteFunctions,
	created: Run,
	itemIndex: number,
	timeoutMinutes: number,
	waitForRun: ItemContext['waitForRun'],
): Promise<Run> {
	const run = await waitForRun(created, Number(timeoutMinutes) * 60_000).catch((error: unknown) => {
		throw withReviewerFields(context, error, created);
	});
	if (run.status !== 'success' && failedRunsMode(context, itemIndex) === 'error') {
		throw failedRunError(context, run, itemIndex);
	}
	if (isPartlyRead(run) && partlyReadRunsMode(context, itemIndex) === 'error') {
		throw failedRunError(context, run, itemIndex, { valuesRead: valuesReadOf(run) });
	}
	return run;
}
