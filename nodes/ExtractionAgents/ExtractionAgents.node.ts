import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { nodeProperties, subtitleExpression } from './actions/nodeProperties';
import { router } from './actions/router';
import { listSearch, loadOptions } from './methods';
import { ACTION_NODE_VERSIONS } from './descriptions/versions';

/**
 * Programmatic rather than declarative: the routing engine sends one request per
 * operation with no hook between attempts, so it cannot retry a 429 after
 * Retry-After while never repeating a POST on a 5xx, wait for a Run, or stream a
 * multipart upload with Content-Length. See README "Design".
 */
export class ExtractionAgents implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Extraction Agents',
		name: 'extractionAgents',
		icon: {
			light: 'file:icons/extractionAgents.svg',
			dark: 'file:icons/extractionAgents.dark.svg',
		},
		group: ['transform'],
		// What each version changed: descriptions/versions.ts.
		version: ACTION_NODE_VERSIONS,
		defaultVersion: ACTION_NODE_VERSIONS[ACTION_NODE_VERSIONS.length - 1],
		subtitle: subtitleExpression(nodeProperties),
		description:
			'Extract structured data from documents with Extraction Agents: upload files, get each Prompt’s value, reasoning and citations',
		defaults: { name: 'Extraction Agents' },
		// n8n adds a tool variant (`extractionAgentsTool`) for the AI Agent. `true`, not the
		// object form with replacements: n8n 1.79 made tools only of `usableAsTool === true`.
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'extractionAgentsApi', required: true }],
		properties: nodeProperties,
	};

	methods = { listSearch, loadOptions };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
