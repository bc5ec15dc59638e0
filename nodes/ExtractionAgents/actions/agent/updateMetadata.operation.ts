import type {
	DisplayCondition,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { requireFields } from '../../transport/answers';
import { agentLocator } from '../../descriptions/parameters';
import { agentIdParameter } from '../../helpers/ids';
import { serviceRequest } from '../../transport/serviceRequest';
import { hasBehaviour, versionsWith, versionsWithout } from '../../descriptions/versions';
import type { ItemContext } from '../types';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';

/** The key/value pairs, shown with the hint of the node versions that read them one way. */
function metadataPairsField(
	versions: Array<number | DisplayCondition>,
	hint: string,
): INodeProperties {
	return {
		displayName: 'Pairs',
		name: 'metadataPairs',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Pair',
		default: {},
		hint,
		displayOptions: { show: { metadataMode: ['keyValue'], '@version': versions } },
		options: [
			{
				displayName: 'Pair',
				name: 'pair',
				values: [
					{
						displayName: 'Key',
						name: 'key',
						type: 'string',
						default: '',
						placeholder: 'e.g. team',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						placeholder: 'e.g. finance',
					},
				],
			},
		],
	};
}

/** Metadata (JSON), with the default of the node versions it is shown for. */
function metadataJsonField(
	versions: Array<number | DisplayCondition>,
	defaultJson: string,
): INodeProperties {
	return {
		displayName: 'Metadata (JSON)',
		name: 'metadataJson',
		type: 'json',
		default: defaultJson,
		placeholder: '{"team": "finance", "tags": ["q3", "eu"], "priority": 2}',
		hint: 'Replaces all existing metadata of the Agent. Values: text, numbers, true/false, null, or lists of those, e.g. {"team": "finance", "tags": ["q3", "eu"]}.',
		displayOptions: { show: { metadataMode: ['json'], '@version': versions } },
	};
}

const properties: INodeProperties[] = [
	agentLocator,
	{
		displayName: 'Metadata',
		name: 'metadataMode',
		type: 'options',
		default: 'keyValue',
		options: [
			{ name: 'Set Key/Value Pairs', value: 'keyValue' },
			{ name: 'Set From JSON', value: 'json' },
			{
				name: 'Clear All Metadata',
				value: 'clear',
				description: 'Remove every metadata key of the Agent',
			},
		],
	},
	{
		displayName:
			'The metadata you set here replaces the Agent’s existing metadata entirely: keys you leave out are removed',
		name: 'replaceNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { metadataMode: ['keyValue', 'json'] } },
	},
	// Version 1 sends every value as text, as 0.1.0 did; 1.1 sends typed values (typedPairValue).
	metadataPairsField(
		versionsWithout('typedMetadataPairs'),
		'Replaces all existing metadata of the Agent. Every value is sent as text; for numbers, true/false, null or lists, use Set From JSON.',
	),
	metadataPairsField(
		versionsWith('typedMetadataPairs'),
		'Replaces all the Agent’s metadata. 42, true/false and null are sent as such; for lists, or to send them as text, use Set From JSON.',
	),
	// Version 1 keeps 0.1.0's default: a workflow saved without touching the field sends it.
	// From 1.1 the field starts empty, so that nothing is sent that the user did not write.
	metadataJsonField(versionsWithout('metadataJsonStartsEmpty'), '{\n  "team": "finance"\n}'),
	metadataJsonField(versionsWith('metadataJsonStartsEmpty'), ''),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['updateMetadata'] } },
	properties,
);

function isPrimitive(value: unknown): boolean {
	return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/** Metadata values are primitives or lists of primitives (docs/design/service-notes.md #26). */
function assertValidMetadata(
	context: IExecuteFunctions,
	metadata: unknown,
	itemIndex: number,
): asserts metadata is IDataObject {
	if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) {
		throw new NodeOperationError(context.getNode(), 'Metadata must be a JSON object', {
			description: 'Enter an object such as {"team": "finance", "tags": ["q3", "eu"]}.',
			itemIndex,
		});
	}
	for (const [key, value] of Object.entries(metadata)) {
		const valid = isPrimitive(value) || (Array.isArray(value) && value.every(isPrimitive));
		if (!valid) {
			throw new NodeOperationError(
				context.getNode(),
				`Metadata key "${key}" holds a nested ${Array.isArray(value) ? 'list' : 'object'}`,
				{
					description:
						'Metadata values must be text, numbers, true/false, null, or lists of those. Flatten the value, e.g. into several keys, or store it as a JSON string.',
					itemIndex,
				},
			);
		}
	}
}

function metadataFromParameters(context: IExecuteFunctions, itemIndex: number): IDataObject {
	const mode = context.getNodeParameter('metadataMode', itemIndex) as string;
	if (mode === 'clear') return {};
	if (mode === 'json') {
		const raw = context.getNodeParameter('metadataJson', itemIndex, '') as unknown;
		if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
			throw new NodeOperationError(context.getNode(), 'Metadata (JSON) is empty', {
				description:
					'Enter an object such as {"team": "finance"}, or choose Clear All Metadata to remove every key.',
				itemIndex,
			});
		}
		let parsed = raw;
		if (typeof raw === 'string') {
			try {
				parsed = JSON.parse(raw);
			} catch (error) {
				throw new NodeOperationError(context.getNode(), 'Metadata (JSON) is not valid JSON', {
					description: `Check the Metadata (JSON) field: ${(error as Error).message}.`,
					itemIndex,
				});
			}
		}
		assertValidMetadata(context, parsed, itemIndex);
		return parsed;
	}
	const pairs =
		(
			context.getNodeParameter('metadataPairs', itemIndex, {}) as {
				pair?: Array<{ key: string; value: string }>;
			}
		).pair ?? [];
	if (pairs.length === 0) {
		// Sending {} would remove every key of the Agent: that is what Clear All Metadata is for.
		throw new NodeOperationError(context.getNode(), 'No metadata pair to set', {
			description:
				'The metadata you send replaces the Agent’s metadata entirely: add a pair, or choose Clear All Metadata to remove every key.',
			itemIndex,
		});
	}
	// Typed values came with node version 1.1: workflows saved at version 1 keep sending text.
	const typedValues = hasBehaviour(context.getNode(), 'typedMetadataPairs');
	const metadata: IDataObject = {};
	for (const { key, value } of pairs) {
		const trimmed = String(key ?? '').trim();
		if (trimmed === '') {
			throw new NodeOperationError(context.getNode(), 'A metadata pair has an empty key', {
				description: 'Give every pair a key, or remove the empty pair.',
				itemIndex,
			});
		}
		metadata[trimmed] = typedValues ? typedPairValue(value) : value;
	}
	return metadata;
}

/**
 * A pair's value as JSON would read it when it is exactly a number, true, false or
 * null as JSON writes them ("42", "-1.5", "true"); any other text stays text, so
 * "01234" or "1e3" are kept as typed.
 */
function typedPairValue(value: unknown): IDataObject[keyof IDataObject] {
	if (typeof value !== 'string') return value as IDataObject[keyof IDataObject];
	if (value === 'true') return true;
	if (value === 'false') return false;
	if (value === 'null') return null;
	if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(value)) {
		const number = Number(value);
		if (Number.isFinite(number) && String(number) === value) return number;
	}
	return value;
}

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const agentId = agentIdParameter(this, itemIndex);
	const metadata = metadataFromParameters(this, itemIndex);
	const { body } = await serviceRequest<IDataObject>(this, {
		method: 'PATCH',
		path: `/agents/${agentId}`,
		body: { metadata },
		// Replacing the metadata with the same object twice gives the same result.
		idempotency: 'idempotent',
		subject: { agentId },
		itemIndex,
		timeoutMs: requestTimeoutMs(this, itemIndex),
	});
	return [{ json: requireFields(this, body, ['id'], `Agent ${agentId}`, { itemIndex }) }];
}
