/**
 * Stand-ins of the n8n nodes through which anyone with a link writes into a workflow's items:
 * the Form Trigger and the Form (a later page), and the Chat Trigger. Each builds its items as
 * n8n 2.41 does, written from the behaviour of n8n's Form utils (prepareFormReturnItem,
 * addFormResponseDataToReturnItem) and of the Chat Trigger's webhook, because what the node
 * under test may trust depends on exactly where those put the submitted text and the files:
 *
 * - Form: one top-level field per element of the form definition (the node's parameters),
 *   named by its Field Name (from node version 2.4, when set) or else its label. A checkbox,
 *   radio or multiple-choice dropdown's submitted text is JSON-parsed, so its value can be any
 *   JSON a submitter types. Files: in binary mode "combined", the stored file object in the
 *   file element's own field; in "separate", a binary field named after the label (`\W` → `_`)
 *   with `{ filename, mimetype, size }` in the JSON field. Then `submittedAt`, `formMode` and
 *   (Form Trigger, when the address had a query) `formQueryParameters`.
 * - Chat Trigger: a JSON message is the item's JSON as sent, whole; a multipart message's text
 *   fields are its JSON, each file a binary field `data<i>` listed in `json.files` (the engine
 *   moves binary fields to `_files` in combined mode).
 *
 * Files are stored as a webhook's are (no execution id yet: `executions/temp`).
 */
import type {
	IBinaryData,
	IBinaryKeyData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import type { HarnessBinaryInput } from './HarnessInput.node';
import { storeAsWebhookFile, type WebhookRequest } from './WebhookUpload.node';

export const FORM_TRIGGER_TYPE = 'n8n-nodes-base.formTrigger';
export const FORM_TYPE = 'n8n-nodes-base.form';
export const WAIT_TYPE = 'n8n-nodes-base.wait';
export const CHAT_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.chatTrigger';
export const ITEM_FROM_FIELD_TYPE = 'n8n-nodes-harness.itemFromField';

type UploadedFile = Required<Pick<HarnessBinaryInput, 'data'>> & HarnessBinaryInput;

/** One submission: `body` holds the text of each element by its wire name (`field-<index>`). */
export interface FormSubmission {
	body?: Record<string, string>;
	/** Uploaded files by wire name (`field-<index>`); a list for several files in one element. */
	files?: Record<string, UploadedFile | UploadedFile[]>;
	/** The form address's query string, parsed (`a[b]=c` becomes an object). */
	query?: IDataObject;
}

/** One element of a form definition, as n8n saves it in the node's parameters. */
export interface FormElement {
	fieldLabel?: string;
	fieldName?: string;
	fieldType?: string;
	multiselect?: boolean;
	multipleFiles?: boolean;
	elementName?: string;
}

const formProperties: INodeProperties[] = [
	{
		displayName: 'Define Form',
		name: 'defineForm',
		type: 'options',
		options: [
			{ name: 'Using Fields Below', value: 'fields' },
			{ name: 'Using JSON', value: 'json' },
		],
		default: 'fields',
	},
	{ displayName: 'Form Fields', name: 'jsonOutput', type: 'string', default: '[]' },
	{
		displayName: 'Form Elements',
		name: 'formFields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		options: [
			{
				name: 'values',
				displayName: 'Values',
				values: [
					{ displayName: 'Field Label', name: 'fieldLabel', type: 'string', default: '' },
					{ displayName: 'Field Name', name: 'fieldName', type: 'string', default: '' },
					{ displayName: 'Element Type', name: 'fieldType', type: 'string', default: 'text' },
					{ displayName: 'Multiple Choice', name: 'multiselect', type: 'boolean', default: false },
					{
						displayName: 'Multiple Files',
						name: 'multipleFiles',
						type: 'boolean',
						default: false,
					},
					{ displayName: 'Element Name', name: 'elementName', type: 'string', default: '' },
				],
			},
		],
	},
];

function identifierOf(element: FormElement, typeVersion: number): string {
	if (typeVersion >= 2.4 && element.fieldName) return element.fieldName;
	return element.fieldLabel ?? element.fieldName ?? '';
}

function elementsOf(context: IExecuteFunctions): FormElement[] {
	if (context.getNodeParameter('defineForm', 0, 'fields') === 'json') {
		return JSON.parse(String(context.getNodeParameter('jsonOutput', 0, '[]'))) as FormElement[];
	}
	return context.getNodeParameter('formFields.values', 0, []) as FormElement[];
}

/** The item n8n's Form utils make of one submission. */
async function formItem(
	context: IExecuteFunctions,
	submission: FormSubmission,
	isTrigger: boolean,
): Promise<INodeExecutionData> {
	const workflowId = String(context.getWorkflow().id);
	const combined = context.getWorkflowSettings().binaryMode === 'combined';
	const typeVersion = context.getNode().typeVersion;
	const elements = elementsOf(context);
	const bodyData: IDataObject = { ...(submission.body ?? {}) };
	let binary: IBinaryKeyData | undefined;
	for (const [key, given] of Object.entries(submission.files ?? {})) {
		const several = Array.isArray(given);
		const files = several ? given : [given];
		const index = Number(key.replace(/field-/g, ''));
		const element = Number.isNaN(index) ? undefined : elements[index];
		const label = element ? identifierOf(element, typeVersion) : key;
		const stored: IBinaryData[] = [];
		for (const file of files) stored.push(await storeAsWebhookFile(workflowId, label, file));
		if (combined) {
			bodyData[key] = (several ? stored : stored[0]) as unknown as IDataObject;
			continue;
		}
		const described = files.map((file, i) => ({
			filename: file.fileName,
			mimetype: stored[i].mimeType,
			size: file.data.length,
		}));
		bodyData[key] = several ? described : described[0];
		binary ??= {};
		stored.forEach((file, i) => {
			binary![`${label.replace(/\W/g, '_')}${several ? `_${i}` : ''}`] = file;
		});
	}
	const json: IDataObject = {};
	elements.forEach((element, index) => {
		const name = identifierOf(element, typeVersion);
		let value = bodyData[`field-${index}`] ?? null;
		if (value === null) {
			json[name] = null;
			return;
		}
		if (element.fieldType === 'html') {
			if (element.elementName) json[element.elementName] = value;
			return;
		}
		if (element.fieldType === 'number') value = Number(value);
		if (element.fieldType === 'text') value = String(value).trim();
		const choice =
			element.multiselect || element.fieldType === 'checkbox' || element.fieldType === 'radio';
		if (choice && typeof value === 'string') {
			value = JSON.parse(value) as IDataObject;
			if (element.fieldType === 'radio' && Array.isArray(value)) value = value[0] as IDataObject;
		}
		if (element.fieldType === 'file' && element.multipleFiles && !Array.isArray(value)) {
			value = [value as IDataObject];
		}
		json[name] = value;
	});
	json.submittedAt = '2026-11-28T06:00:00.000+00:00';
	json.formMode = 'production';
	if (isTrigger && Object.keys(submission.query ?? {}).length > 0) {
		json.formQueryParameters = submission.query;
	}
	return { json, ...(binary ? { binary } : {}), pairedItem: { item: 0 } };
}

const formDescription: INodeTypeDescription = {
	displayName: 'On form submission',
	name: FORM_TRIGGER_TYPE,
	group: ['trigger'],
	version: [1, 2, 2.1, 2.2, 2.3, 2.4],
	description: 'Emits the submissions given to the test as n8n’s Form Trigger emits them',
	defaults: { name: 'On form submission' },
	inputs: [],
	outputs: ['main'],
	properties: formProperties,
};

/** A Form Trigger that emits `submissions` (one item each). */
export function createFormUpload(submissions: FormSubmission[]): INodeType {
	return {
		description: formDescription,
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const out: INodeExecutionData[] = [];
			for (const submission of submissions) out.push(await formItem(this, submission, true));
			return [out];
		},
	};
}

/**
 * A Form (a later page of a form) whose page is filled with `submissions`; with `type`
 * WAIT_TYPE, a Wait node resumed by a form (parameter resume: "form"), which n8n builds alike.
 */
export function createFormPage(submissions: FormSubmission[], type = FORM_TYPE): INodeType {
	const wait = type === WAIT_TYPE;
	return {
		description: {
			...formDescription,
			displayName: wait ? 'Wait' : 'Form',
			name: type,
			group: ['transform'],
			version: wait ? [1, 1.1] : formDescription.version,
			defaults: { name: wait ? 'Wait' : 'Form' },
			inputs: ['main'],
			properties: wait
				? [
						{ displayName: 'Resume', name: 'resume', type: 'string', default: 'timeInterval' },
						...formProperties,
					]
				: formProperties,
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const out: INodeExecutionData[] = [];
			for (const submission of submissions) out.push(await formItem(this, submission, false));
			return [out];
		},
	};
}

/** A chat message: JSON (`body` is the whole item), or multipart when it has `files`. */
export type ChatMessage = Pick<WebhookRequest, 'body' | 'files'>;

/** A Chat Trigger (public chat) that emits `messages` (one item each). */
export function createChatTrigger(messages: ChatMessage[]): INodeType {
	return {
		description: {
			...formDescription,
			displayName: 'When chat message received',
			name: CHAT_TRIGGER_TYPE,
			version: [1, 1.1, 1.2, 1.3, 1.4],
			description: 'Emits the messages given to the test as n8n’s Chat Trigger emits them',
			defaults: { name: 'When chat message received' },
			properties: [],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const workflowId = String(this.getWorkflow().id);
			const out: INodeExecutionData[] = [];
			for (const message of messages) {
				const json: IDataObject = { ...(message.body ?? {}) };
				let binary: IBinaryKeyData | undefined;
				const files = Object.values(message.files ?? {});
				if (files.length > 0) {
					binary = {};
					const listed: IDataObject[] = [];
					for (const [index, file] of files.entries()) {
						const stored = await storeAsWebhookFile(workflowId, `data${index}`, file);
						binary[`data${index}`] = stored;
						listed.push({
							fileName: stored.fileName,
							mimeType: stored.mimeType,
							binaryKey: `data${index}`,
						});
					}
					json.files = listed;
				}
				out.push({ json, ...(binary ? { binary } : {}), pairedItem: { item: 0 } });
			}
			return [out];
		},
	};
}

/**
 * Stand-in of an Edit Fields (Set) node in JSON mode with `{{ $json.body }}`, or a Code node
 * returning `$json.body`: each item becomes the value of one of its fields (`field`, a dotted
 * path; empty: the item itself), so what sat nested in received data is now at the top level
 * of the item. With `target` "_files", the value goes to `_files.data` instead, as an Edit
 * Fields node setting `_files.data` to `{{ $json.body.file }}` puts it.
 */
export class ItemFromField implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Item From Field',
		name: ITEM_FROM_FIELD_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Replaces each item with the value of one of its fields',
		defaults: { name: 'Item From Field' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Field', name: 'field', type: 'string', default: 'body' },
			{ displayName: 'Target', name: 'target', type: 'string', default: '' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((item, index) => {
				const field = String(this.getNodeParameter('field', index));
				let value: unknown = item.json;
				for (const key of field === '' ? [] : field.split('.'))
					value = (value as IDataObject | undefined)?.[key];
				if (this.getNodeParameter('target', index) === '_files') {
					return { json: { _files: { data: value as IDataObject } }, pairedItem: { item: index } };
				}
				const json =
					value && typeof value === 'object' && !Array.isArray(value)
						? (value as IDataObject)
						: { value: value as IDataObject };
				return { json, pairedItem: { item: index } };
			}),
		];
	}
}
