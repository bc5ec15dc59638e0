import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { unexpectedAnswer } from '../../transport/answers';
import { agentLocator, runLocator } from '../../descriptions/parameters';
import { agentIdParameter, parseResourceId, runIdParameter } from '../../helpers/ids';
import {
	DEFAULT_FORMAT_BY_KIND,
	FORMATS_BY_KIND,
	MIME_TYPE_BY_FORMAT,
	OUTPUT_FORMATS,
	fileNameFromContentDisposition,
	templateKindOf,
	templateNameOf,
	type OutputFormat,
} from '../../helpers/templates';
import { serviceRequest } from '../../transport/serviceRequest';
import { fetchAgent, type Agent } from '../../helpers/agents';
import { versionsWith, versionsWithout } from '../../descriptions/versions';
import type { ExecutionCache, ItemContext } from '../types';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';

const properties: INodeProperties[] = [
	agentLocator,
	runLocator,
	{
		displayName: 'Output Template Name or ID',
		name: 'outputTemplate',
		type: 'options',
		default: '',
		required: true,
		typeOptions: { loadOptionsMethod: 'getOutputTemplates', loadOptionsDependsOn: ['agent.value'] },
		description:
			'The Agent’s output template to render the Run with. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		displayOptions: { show: { '@version': versionsWithout('outputTemplateLocator') } },
	},
	{
		// From 1.2 a picker that also takes an ID, so an Agent chosen by expression still works.
		displayName: 'Output Template',
		name: 'outputTemplate',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The Agent’s output template to fill with the Run’s results',
		typeOptions: { loadOptionsDependsOn: ['agent.value'] },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a template...',
				typeOptions: { searchListMethod: 'searchOutputTemplates', searchable: true },
			},
			{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'e.g. 12' },
		],
		displayOptions: { show: { '@version': versionsWith('outputTemplateLocator') } },
	},
	{
		displayName: 'Format',
		name: 'format',
		type: 'options',
		default: 'default',
		options: [
			{ name: 'CSV (Excel Templates, First Sheet)', value: 'csv' },
			{ name: 'Excel (XLSX)', value: 'xlsx' },
			{ name: 'Excel With Macros (XLSM)', value: 'xlsm' },
			{ name: 'PDF (Word Templates)', value: 'pdf' },
			{
				name: 'Template’s Default',
				value: 'default',
				description: 'DOCX for a Word template, XLSX for an Excel one',
			},
			{ name: 'Word (DOCX)', value: 'docx' },
		],
		description: 'Word templates give DOCX or PDF; Excel templates give XLSX, XLSM or CSV',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the item’s field to put the file in (e.g. data)',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['run'], operation: ['downloadTemplatedOutput'] } },
	properties,
);

async function cachedAgent(
	context: IExecuteFunctions,
	cache: ExecutionCache,
	agentId: number,
	itemIndex: number,
): Promise<Agent> {
	const key = `agent:${agentId}`;
	if (!cache.has(key)) {
		const lookup = fetchAgent(context, agentId, itemIndex);
		// A failed lookup is not kept: the next item asks again.
		lookup.catch(() => cache.delete(key));
		cache.set(key, lookup);
	}
	return (await cache.get(key)) as Agent;
}

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex, item, cache }: ItemContext,
): Promise<INodeExecutionData[]> {
	const agentId = agentIdParameter(this, itemIndex);
	const runId = runIdParameter(this, itemIndex);
	const templateId = parseResourceId(
		this.getNode(),
		this.getNodeParameter('outputTemplate', itemIndex, '', { extractValue: true }) as string,
		'Output Template',
		itemIndex,
	);
	const requested = this.getNodeParameter('format', itemIndex) as OutputFormat | 'default';
	const binaryField =
		String(this.getNodeParameter('binaryPropertyName', itemIndex)).trim() || 'data';

	// The template's kind decides the allowed formats (docs/design/service-notes.md #24); checking it here
	// refuses a wrong pair before the render request.
	const agent = await cachedAgent(this, cache, agentId, itemIndex);
	if (!Array.isArray(agent.output_templates)) {
		throw unexpectedAnswer(
			this,
			`Agent ${agentId}`,
			'The answer was incomplete: it had no output_templates.',
			{
				itemIndex,
			},
		);
	}
	const template = agent.output_templates.find((candidate) => Number(candidate.id) === templateId);
	if (!template) {
		const known = agent.output_templates.map((t) => `${templateNameOf(t)} (${t.id})`).join(', ');
		throw new NodeOperationError(
			this.getNode(),
			`Agent ${agentId} has no output template ${templateId}`,
			{
				description: known
					? `Its templates are: ${known}.`
					: 'This Agent has no output templates; add one in the web app.',
				itemIndex,
			},
		);
	}
	const kind = templateKindOf(template.filename);
	const templateName = templateNameOf(template);
	const format = requested === 'default' ? DEFAULT_FORMAT_BY_KIND[kind] : requested;
	if (!format || !OUTPUT_FORMATS.includes(format)) {
		throw new NodeOperationError(this.getNode(), `Choose a Format for template "${templateName}"`, {
			description: 'Its kind cannot be told from the file name, so pick the format explicitly.',
			itemIndex,
		});
	}
	if (!FORMATS_BY_KIND[kind].includes(format)) {
		throw new NodeOperationError(
			this.getNode(),
			`Template "${templateName}" cannot be rendered as ${format.toUpperCase()}`,
			{
				description: `A ${kind === 'word' ? 'Word' : 'Excel'} template renders as ${FORMATS_BY_KIND[kind].map((f) => f.toUpperCase()).join(' or ')}. Change Format.`,
				itemIndex,
			},
		);
	}

	const response = await serviceRequest<Buffer>(this, {
		method: 'POST',
		path: `/agents/${agentId}/runs/${runId}/templated-output`,
		body: { output_template_id: templateId, format },
		// Rendering creates nothing on the service, so repeating it is safe.
		idempotency: 'idempotent',
		subject: { agentId, runId, templateId },
		binaryResponse: true,
		itemIndex,
		timeoutMs: requestTimeoutMs(this, itemIndex),
	});
	const fileName =
		fileNameFromContentDisposition(response.headers['content-disposition']) ??
		`run-${runId}.${format}`;
	const bytes = Buffer.isBuffer(response.body)
		? response.body
		: Buffer.from(response.body as ArrayBuffer);
	const binary = await this.helpers.prepareBinaryData(bytes, fileName, MIME_TYPE_BY_FORMAT[format]);
	return [
		{
			json: item.json,
			binary: { ...(item.binary ?? {}), [binaryField]: binary },
		},
	];
}
