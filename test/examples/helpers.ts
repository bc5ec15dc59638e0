/**
 * The fixtures and helpers of examples.test.ts: the example workflows and what they are checked
 * against (the core node versions, the demo Agent and its template), lookups in a workflow,
 * and the parameter checks against a node description.
 */
import { existsSync, readFileSync, readdirSync } from 'fs';
import { homedir } from 'os';
import { join, resolve } from 'path';
import type {
	IConnections,
	IDataObject,
	INode,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { DEMO_AGENT_IDS } from '../../dev/emulator';
import {
	EXTRACTION_AGENTS_TRIGGER_TYPE,
	EXTRACTION_AGENTS_TYPE,
	loadExtractionAgentsNode,
	loadExtractionAgentsTriggerNode,
} from '../../dev/harness';
import { toolVariantDescription } from '../../dev/harness/tool-variant';

export const EXAMPLES_DIR = resolve(__dirname, '../../examples');
export const INVOICES = DEMO_AGENT_IDS.invoices;
/** The demo Agent "Invoices" has the Excel template "Invoice lines.xlsx" (id 12). */
export const INVOICE_LINES_XLSX = 12;
export const N8N_VERSION = '2.41.1';

/** n8n's AI Agent tool variant of our action node (made by n8n from `usableAsTool`). */
export const EXTRACTION_AGENTS_TOOL_TYPE = `${EXTRACTION_AGENTS_TYPE}Tool`;
export const OUR_TYPES = new Set([
	EXTRACTION_AGENTS_TYPE,
	EXTRACTION_AGENTS_TRIGGER_TYPE,
	EXTRACTION_AGENTS_TOOL_TYPE,
]);
export const LANGCHAIN = '@n8n/n8n-nodes-langchain';

/**
 * The n8n core nodes the examples use, at a typeVersion both tested n8n versions know
 * (2.41.1 and 1.123.81: Gmail Trigger and Schedule Trigger stop at 1.3 in 1.x, Form Trigger
 * and Form at 2.3, Set at 3.4).
 */
export const CORE_NODE_VERSIONS: Record<string, number> = {
	'n8n-nodes-base.gmailTrigger': 1.3,
	'n8n-nodes-base.googleDriveTrigger': 1,
	'n8n-nodes-base.microsoftOutlookTrigger': 1,
	'n8n-nodes-base.formTrigger': 2.3,
	'n8n-nodes-base.form': 2.3,
	'n8n-nodes-base.microsoftExcel': 2.2,
	'n8n-nodes-base.splitOut': 1,
	'n8n-nodes-base.if': 2.3,
	'n8n-nodes-base.slack': 2.4,
	'n8n-nodes-base.googleSheets': 4.7,
	'n8n-nodes-base.gmail': 2.1,
	'n8n-nodes-base.googleDrive': 3,
	'n8n-nodes-base.aggregate': 1,
	'n8n-nodes-base.summarize': 1.1,
	'n8n-nodes-base.set': 3.4,
	'n8n-nodes-base.scheduleTrigger': 1.3,
	'n8n-nodes-base.manualTrigger': 1,
	'n8n-nodes-base.stickyNote': 1,
	// Remove Items Processed in Previous Executions (both n8n lines have version 2).
	'n8n-nodes-base.removeDuplicates': 2,
	'n8n-nodes-base.errorTrigger': 1,
	[`${LANGCHAIN}.chatTrigger`]: 1.4,
	[`${LANGCHAIN}.agent`]: 3,
	[`${LANGCHAIN}.lmChatOpenAi`]: 1.3,
};
export const TRIGGER_TYPES = new Set([
	'n8n-nodes-base.gmailTrigger',
	'n8n-nodes-base.googleDriveTrigger',
	'n8n-nodes-base.microsoftOutlookTrigger',
	'n8n-nodes-base.formTrigger',
	'n8n-nodes-base.scheduleTrigger',
	'n8n-nodes-base.manualTrigger',
	'n8n-nodes-base.errorTrigger',
	`${LANGCHAIN}.chatTrigger`,
	EXTRACTION_AGENTS_TRIGGER_TYPE,
]);

export interface ExampleWorkflow {
	name: string;
	nodes: INode[];
	connections: IConnections;
	settings: IDataObject;
	pinData?: IDataObject;
	active?: boolean;
}

export const exampleFiles = readdirSync(EXAMPLES_DIR)
	.filter((file) => file.endsWith('.json'))
	.sort();

export function loadExample(file: string): ExampleWorkflow {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as ExampleWorkflow;
}

export function nodeNamed(workflow: ExampleWorkflow, name: string): INode {
	const node = workflow.nodes.find((candidate) => candidate.name === name);
	if (!node) throw new Error(`${workflow.name}: no node "${name}"`);
	return node;
}

/** The one node of `type` (optionally with that operation). */
export function nodeOfType(workflow: ExampleWorkflow, type: string, operation?: string): INode {
	const nodes = workflow.nodes.filter(
		(node) =>
			node.type === type && (operation === undefined || node.parameters.operation === operation),
	);
	if (nodes.length !== 1)
		throw new Error(
			`${workflow.name}: expected one ${type} ${operation ?? ''} node, found ${nodes.length}`,
		);
	return nodes[0];
}

/** The nodes `name` sends its main output to. */
export function successors(workflow: ExampleWorkflow, name: string): string[] {
	return (workflow.connections[name]?.main ?? []).flatMap((targets) =>
		(targets ?? []).map((target) => target.node),
	);
}

/** Every `$json.<field>` / `$json["field"]` a node's parameters read. */
export function jsonFieldsRead(parameters: unknown): string[] {
	const text = JSON.stringify(parameters);
	const fields = new Set<string>();
	for (const match of text.matchAll(/\$json\.([A-Za-z_][A-Za-z0-9_]*)/g)) fields.add(match[1]);
	for (const match of text.matchAll(/\$json\[\\?["']([^"'\\]+)\\?["']\]/g)) fields.add(match[1]);
	return [...fields];
}

/** The example node's parameters with the Agent picked (as a user does after importing). */
export function withDemoAgent(
	parameters: INodeParameters,
	extra: INodeParameters = {},
): INodeParameters {
	const copy = structuredClone(parameters);
	if (copy.agent !== undefined)
		copy.agent = {
			__rl: true,
			mode: 'list',
			value: String(INVOICES),
			cachedResultName: 'Invoices',
		};
	return { ...copy, ...extra };
}

// ------------------------------------------------------------------------------------------
// Parameter checks against a node description (ours always; n8n's when it is installed)
// ------------------------------------------------------------------------------------------

/** n8n adds "Poll Times" to every polling node (NodeHelpers' special parameters). */
const POLL_TIMES: INodeProperties = {
	displayName: 'Poll Times',
	name: 'pollTimes',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	default: { item: [{ mode: 'everyMinute' }] },
	options: [
		{
			name: 'item',
			displayName: 'Item',
			values: [
				{
					displayName: 'Mode',
					name: 'mode',
					type: 'options',
					default: 'everyDay',
					options: [
						{ name: 'Every Minute', value: 'everyMinute' },
						{ name: 'Every Hour', value: 'everyHour' },
						{ name: 'Every Day', value: 'everyDay' },
						{ name: 'Every Week', value: 'everyWeek' },
						{ name: 'Every Month', value: 'everyMonth' },
						{ name: 'Every X', value: 'everyX' },
						{ name: 'Custom', value: 'custom' },
					],
				},
				{ displayName: 'Hour', name: 'hour', type: 'number', default: 14 },
				{ displayName: 'Minute', name: 'minute', type: 'number', default: 0 },
				{ displayName: 'Day of Month', name: 'dayOfMonth', type: 'number', default: 1 },
				{ displayName: 'Weekday', name: 'weekday', type: 'options', default: '1', options: [] },
				{ displayName: 'Cron Expression', name: 'cronExpression', type: 'string', default: '' },
				{ displayName: 'Value', name: 'value', type: 'number', default: 2 },
				{ displayName: 'Unit', name: 'unit', type: 'options', default: 'hours', options: [] },
			],
		},
	],
};

const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');

export function propertiesOf(description: INodeTypeDescription): INodeProperties[] {
	return description.polling ? [...description.properties, POLL_TIMES] : description.properties;
}

/**
 * Problems with a node's parameters: names the description does not declare or does not show
 * for these parameter values, option values it does not offer, collection and fixedCollection
 * entries it does not have, resource-locator modes it does not know.
 */
export function parameterProblems(node: INode, description: INodeTypeDescription): string[] {
	const properties = propertiesOf(description);
	const problems: string[] = [];
	const withDefaults =
		NodeHelpers.getNodeParameters(properties, node.parameters, true, false, node, description) ??
		{};
	const values: INodeParameters = { ...withDefaults, ...node.parameters };

	const checkValue = (property: INodeProperties, value: unknown, where: string) => {
		if (isExpression(value)) return;
		if (
			property.type === 'options' &&
			!property.typeOptions?.loadOptionsMethod &&
			property.options
		) {
			const allowed = (property.options as Array<{ value?: unknown }>).map(
				(option) => option.value,
			);
			// Options filled at runtime by the node (weekday, unit …) declare none here: skip them.
			if (allowed.length && !allowed.includes(value as never))
				problems.push(`${where}: ${JSON.stringify(value)} is not an option`);
		}
		if (
			property.type === 'multiOptions' &&
			!property.typeOptions?.loadOptionsMethod &&
			Array.isArray(value)
		) {
			const allowed = (property.options as Array<{ value?: unknown }>).map(
				(option) => option.value,
			);
			for (const entry of value)
				if (!allowed.includes(entry))
					problems.push(`${where}: ${JSON.stringify(entry)} is not an option`);
		}
		if (property.type === 'resourceLocator' && value && typeof value === 'object') {
			const mode = (value as { mode?: string }).mode;
			const modes = (property.modes ?? []).map((m) => m.name);
			if (modes.length && !modes.includes(String(mode)))
				problems.push(`${where}: mode ${JSON.stringify(mode)} is not one of ${modes.join(', ')}`);
			if ((value as { __rl?: boolean }).__rl !== true)
				problems.push(`${where}: a resource locator value needs "__rl": true`);
		}
		if (property.type === 'collection' && value && typeof value === 'object') {
			const options = (property.options ?? []) as INodeProperties[];
			for (const [key, entry] of Object.entries(value as IDataObject)) {
				const candidates = options.filter((option) => option.name === key);
				if (candidates.length === 0)
					problems.push(`${where}.${key}: not an option of the collection`);
				// Several options may share a name (shown for different versions/values): one must accept the value.
				else if (candidates.length === 1) checkValue(candidates[0], entry, `${where}.${key}`);
			}
		}
		if (property.type === 'fixedCollection' && value && typeof value === 'object') {
			const groups = (property.options ?? []) as Array<{ name: string; values: INodeProperties[] }>;
			for (const [groupName, entries] of Object.entries(value as IDataObject)) {
				const group = groups.find((candidate) => candidate.name === groupName);
				if (!group) {
					problems.push(`${where}.${groupName}: not a group of the fixedCollection`);
					continue;
				}
				for (const entry of (Array.isArray(entries) ? entries : [entries]) as IDataObject[]) {
					for (const [key, inner] of Object.entries(entry)) {
						const candidates = group.values.filter((option) => option.name === key);
						if (candidates.length === 0)
							problems.push(`${where}.${groupName}.${key}: not a field of the group`);
						else if (candidates.length === 1)
							checkValue(candidates[0], inner, `${where}.${groupName}.${key}`);
					}
				}
			}
		}
	};

	for (const [name, value] of Object.entries(node.parameters)) {
		const declared = properties.filter((property) => property.name === name);
		if (declared.length === 0) {
			problems.push(`${name}: not a parameter of ${description.name}`);
			continue;
		}
		const shown = declared.filter((property) =>
			NodeHelpers.displayParameter(values, property, node, description),
		);
		if (shown.length === 0) {
			problems.push(
				`${name}: not shown for ${JSON.stringify({ resource: values.resource, operation: values.operation })}`,
			);
			continue;
		}
		if (shown.length === 1) checkValue(shown[0], value, name);
	}
	return problems;
}

export function ourDescription(type: string): INodeTypeDescription {
	if (type === EXTRACTION_AGENTS_TRIGGER_TYPE)
		return (loadExtractionAgentsTriggerNode() as INodeType).description;
	const action = (loadExtractionAgentsNode() as INodeType).description;
	return type === EXTRACTION_AGENTS_TOOL_TYPE ? toolVariantDescription(action) : action;
}

/**
 * n8n 2.41.1's node descriptions (n8n-nodes-base's and the AI nodes' dist/types/nodes.json), when
 * dev/n8n/host.ts installed it; names qualified with their package.
 */
export function installedN8nDescriptions(): INodeTypeDescription[] | undefined {
	const cacheRoot =
		process.env.N8N_HOST_CACHE || join(homedir(), '.cache', 'n8n-nodes-extraction-agents');
	const modules = join(cacheRoot, `n8n-${N8N_VERSION}`, 'node_modules');
	const all: INodeTypeDescription[] = [];
	for (const pkg of ['n8n-nodes-base', LANGCHAIN]) {
		const file = join(modules, pkg, 'dist', 'types', 'nodes.json');
		if (!existsSync(file)) return undefined;
		for (const description of JSON.parse(readFileSync(file, 'utf8')) as INodeTypeDescription[])
			all.push({ ...description, name: `${pkg}.${description.name}` });
	}
	return all;
}

export function coreDescription(
	all: INodeTypeDescription[],
	type: string,
	version: number,
): INodeTypeDescription | undefined {
	return all.find((description) => {
		if (description.name !== type) return false;
		const versions = Array.isArray(description.version)
			? description.version
			: [description.version];
		return versions.includes(version);
	});
}

export function nodeTypeStub(
	displayName: string,
	name: string,
	properties: INodeProperties[],
): INodeTypeDescription {
	return {
		displayName,
		name,
		group: ['transform'],
		version: 1,
		description: displayName,
		defaults: { name: displayName },
		inputs: ['main'],
		outputs: ['main'],
		properties,
	} as unknown as INodeTypeDescription;
}
