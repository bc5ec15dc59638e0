/**
 * The AI Agent tool variant n8n makes of a `usableAsTool` node (`<name>Tool`, see n8n's
 * tool-generation/ai-tools convertNodeToAiTool): the same node with "Tool Description" fields,
 * for running it in the harness as n8n runs it for the AI Agent (node type ending in "Tool",
 * one item holding the model's `$fromAI()` arguments, no binary data). Inputs and outputs stay
 * `main` here so that the harness can feed it an item.
 */
import type { INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { loadExtractionAgentsNode } from './node-types';

/** The two properties n8n adds in front of the node's own (when it has resource/operation). */
export const TOOL_DESCRIPTION_PROPERTIES: INodeProperties[] = [
	{
		displayName: 'Tool Description',
		name: 'descriptionType',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Set Automatically',
				value: 'auto',
				description: 'Automatically set based on resource and operation',
			},
			{ name: 'Set Manually', value: 'manual', description: 'Manually set the description' },
		],
		default: 'auto',
	},
	{
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		default: '',
		required: true,
		typeOptions: { rows: 2 },
		displayOptions: { show: { descriptionType: ['manual'] } },
	},
];

export function toolVariantDescription(description: INodeTypeDescription): INodeTypeDescription {
	return {
		...description,
		name: `${description.name}Tool`,
		displayName: `${description.displayName} Tool`,
		usableAsTool: undefined,
		properties: [...TOOL_DESCRIPTION_PROPERTIES, ...description.properties],
	};
}

/** The Extraction Agents action node as n8n's `extractionAgentsTool`. */
export function loadExtractionAgentsToolNode(): INodeType {
	const node = loadExtractionAgentsNode() as INodeType;
	const tool = Object.create(node) as INodeType;
	tool.description = toolVariantDescription(node.description);
	return tool;
}
