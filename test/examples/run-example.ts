/**
 * Runs an example workflow from examples/ in n8n-core's engine, as one execution: its own
 * connections, its own Extraction Agents nodes against the emulator (the Agent picked as a user
 * does), and n8n's own logic nodes (Edit Fields, If, Split Out) from the installed n8n. Two kinds
 * of stand-in only, where a Google, Microsoft or Slack account would be needed:
 * - the trigger becomes an input node of the same name giving the items the test passes, files
 *   included (for Google Drive, the file its *Download file* step would add);
 * - every other node that talks to such a service (Google Sheets, Google Drive, Microsoft Excel,
 *   Slack, Gmail, the Form pages) becomes a node of the same name that passes its items on and
 *   records, per item, the item it got and its own text parameters as n8n evaluated them (the
 *   row a sheet gets, the folder a file moves to, the text of a message or a page).
 * With a workbook (test/examples/excel-365.ts), the Microsoft Excel 365 nodes are n8n's own,
 * their Graph calls answered by it. n8n's Remove Duplicates across executions needs n8n's
 * database: here it is a stand-in that passes every item on (each test's items are new).
 * n8n-core routes the error output and resolves `$('Node').item` through the paired items, as
 * in n8n.
 */
import { existsSync } from 'fs';
import { homedir } from 'os';
import { join } from 'path';
import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	IVersionedNodeType,
} from 'n8n-workflow';
import { EXTRACTION_AGENTS_TYPE, runWorkflow, type WorkflowJson } from '../../dev/harness';
import type { RunWorkflowResult } from '../../dev/harness/execute';
import {
	HARNESS_INPUT_TYPE,
	createHarnessInput,
	type HarnessInputItem,
} from '../../dev/harness/nodes/HarnessInput.node';
import { installedMicrosoftExcelNode, type InMemoryWorkbook } from './excel-365';
import {
	N8N_VERSION,
	TRIGGER_TYPES,
	nodeTypeStub,
	withDemoAgent,
	type ExampleWorkflow,
} from './helpers';

type AnyNodeType = INodeType | IVersionedNodeType;

/** n8n's own logic nodes the examples use, loaded from the installed n8n. */
const LOGIC_NODES: Record<string, { file: string; exportName: string }> = {
	'n8n-nodes-base.set': { file: 'Set/Set.node.js', exportName: 'Set' },
	'n8n-nodes-base.if': { file: 'If/If.node.js', exportName: 'If' },
	'n8n-nodes-base.splitOut': {
		file: 'Transform/SplitOut/SplitOut.node.js',
		exportName: 'SplitOut',
	},
};

function installedNodesDir(): string | undefined {
	const cacheRoot =
		process.env.N8N_HOST_CACHE || join(homedir(), '.cache', 'n8n-nodes-extraction-agents');
	const dir = join(
		cacheRoot,
		`n8n-${N8N_VERSION}`,
		'node_modules',
		'n8n-nodes-base',
		'dist',
		'nodes',
	);
	return existsSync(join(dir, 'Set', 'Set.node.js')) ? dir : undefined;
}

/** Whether n8n's own logic nodes can be loaded (dev/n8n/host.ts installed n8n). */
export const canRunExamples = Boolean(installedNodesDir());

function installedLogicNode(type: string): AnyNodeType {
	const { file, exportName } = LOGIC_NODES[type];
	const loaded = require(join(installedNodesDir()!, file)) as Record<string, new () => AnyNodeType>;
	return new loaded[exportName]();
}

/** What a stand-in got: the item and its text parameters, evaluated for that item. */
export interface StandInCall {
	json: IDataObject;
	parameters: Record<string, string>;
}

/** A node's own parameters that hold text (resource locators by their value). */
function textParametersOf(node: INode): INodeProperties[] {
	const properties: INodeProperties[] = [];
	for (const [name, value] of Object.entries(node.parameters)) {
		if (typeof value === 'string')
			properties.push({ displayName: name, name, type: 'string', default: '' });
		else if (value && typeof value === 'object' && (value as IDataObject).__rl === true) {
			const mode = String((value as IDataObject).mode);
			properties.push({
				displayName: name,
				name,
				type: 'resourceLocator',
				default: { mode, value: '' },
				modes: [{ displayName: mode, name: mode, type: 'string' }],
			});
		}
	}
	return properties;
}

function standInFor(node: INode, calls: StandInCall[]): INodeType {
	const properties = textParametersOf(node);
	return {
		description: nodeTypeStub(`Stand-in for ${node.name}`, `stand-in.${node.name}`, properties),
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const items = this.getInputData();
			return [
				items.map((item, itemIndex) => {
					const parameters: Record<string, string> = {};
					for (const property of properties) {
						const value = this.getNodeParameter(property.name, itemIndex) as unknown;
						parameters[property.name] = String(
							value && typeof value === 'object' ? (value as IDataObject).value : value,
						);
					}
					calls.push({ json: item.json, parameters });
					return { json: item.json, binary: item.binary, pairedItem: { item: itemIndex } };
				}),
			];
		},
	};
}

export interface ExampleRun {
	result: RunWorkflowResult;
	/** Per stand-in node name, what each of its items was. */
	calls: Record<string, StandInCall[]>;
	/** The items of one output of a node that ran. */
	outputOf(name: string, outputIndex?: number): INodeExecutionData[];
}

/** n8n's Excel 365 nodes against an in-memory workbook, each node on the worksheet named. */
export interface ExcelWorkbook {
	workbook: InMemoryWorkbook;
	worksheetOf: (nodeName: string) => string;
}

/**
 * One execution of `workflow` from its trigger, the trigger giving `triggerItems`; our nodes'
 * Agent is `agentId` (the demo Agent "Invoices" by default).
 */
export async function runExample(
	workflow: ExampleWorkflow,
	triggerItems: HarnessInputItem[],
	credentials: { apiKey: string; baseUrl: string },
	agentId?: number,
	excel?: ExcelWorkbook,
): Promise<ExampleRun> {
	const calls: Record<string, StandInCall[]> = {};
	const nodeTypes: Record<string, AnyNodeType> = {};
	let trigger: string | undefined;
	const nodes = workflow.nodes
		.filter((node) => node.type !== 'n8n-nodes-base.stickyNote')
		.map((original): WorkflowJson['nodes'][number] => {
			const node = structuredClone(original);
			delete node.credentials;
			if (TRIGGER_TYPES.has(node.type)) {
				trigger = node.name;
				nodeTypes[HARNESS_INPUT_TYPE] = createHarnessInput(triggerItems);
				return { ...node, type: HARNESS_INPUT_TYPE, typeVersion: 1, parameters: {} };
			}
			if (node.type === EXTRACTION_AGENTS_TYPE) {
				const parameters = withDemoAgent(node.parameters);
				if (agentId !== undefined) (parameters.agent as IDataObject).value = String(agentId);
				return { ...node, parameters };
			}
			if (excel && node.type === 'n8n-nodes-base.microsoftExcel') {
				// The workbook and worksheet as the user picks them.
				nodeTypes[node.type] ??= installedMicrosoftExcelNode(excel.workbook)!;
				node.parameters.workbook = { __rl: true, mode: 'list', value: 'workbook-1' };
				node.parameters.worksheet = {
					__rl: true,
					mode: 'list',
					value: excel.worksheetOf(node.name),
				};
				return node;
			}
			if (LOGIC_NODES[node.type]) {
				nodeTypes[node.type] ??= installedLogicNode(node.type);
				return node;
			}
			calls[node.name] = [];
			const type = `stand-in.${node.name}`;
			nodeTypes[type] = standInFor(node, calls[node.name]);
			return { ...node, type, typeVersion: 1 };
		});
	if (!trigger) throw new Error(`${workflow.name}: no trigger`);
	const result = await runWorkflow(
		{ name: workflow.name, nodes, connections: workflow.connections } as WorkflowJson,
		{ credentials, startNode: trigger, nodeTypes },
	);
	return {
		result,
		calls,
		outputOf: (name, outputIndex = 0) => result.outputOf(name, outputIndex),
	};
}
