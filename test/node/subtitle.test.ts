/**
 * The canvas subtitle under the node says what it does in Title Case ("Extract Data From
 * Files"), never the raw parameter values. Evaluated by n8n-workflow's expression engine, as
 * the editor does.
 */
import { Workflow, type INode } from 'n8n-workflow';
import {
	HarnessNodeTypes,
	EXTRACTION_AGENTS_TYPE,
	loadExtractionAgentsNode,
} from '../../dev/harness/node-types';

function subtitleFor(resource: string, operation: string): unknown {
	const nodeTypes = new HarnessNodeTypes();
	const type = loadExtractionAgentsNode() as { description: { subtitle?: string } };
	const node: INode = {
		id: 'subtitle-node',
		name: 'Extraction Agents',
		type: EXTRACTION_AGENTS_TYPE,
		typeVersion: 1.1,
		position: [0, 0],
		parameters: { resource, operation },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return workflow.expression.getSimpleParameterValue(
		node,
		type.description.subtitle,
		'internal',
		{},
	);
}

describe('canvas subtitle', () => {
	it.each([
		['run', 'create', 'Extract Data From Files'],
		['run', 'get', 'Get Run'],
		['run', 'getAll', 'Get Many Runs'],
		['run', 'downloadTemplatedOutput', 'Download Templated Output'],
		['agent', 'updateMetadata', 'Update Agent Metadata'],
		['apiKey', 'create', 'Create API Key'],
		['usage', 'getAll', 'Get Many Usage Records'],
		['accessLog', 'query', 'Query Access Logs'],
	])('%s / %s → "%s"', (resource, operation, expected) => {
		expect(subtitleFor(resource, operation)).toBe(expected);
	});
});
