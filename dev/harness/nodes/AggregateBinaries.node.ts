/**
 * Test-only copy of what n8n's Aggregate node does with "All Item Data (Into a Single
 * List)" and the "Include Binaries" option: one item whose json holds the list of input
 * jsons and whose binary holds every input binary; a key seen before gets a `_1`, `_2`, …
 * suffix (n8n's addBinariesToItem), and "Keep Only Unique Binaries" drops binaries whose
 * mimeType, fileType, fileSize and fileExtension match an earlier one.
 */
import type {
	IBinaryData,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

export const AGGREGATE_BINARIES_TYPE = 'n8n-nodes-harness.aggregateBinaries';

export function addBinariesToItem(
	newItem: INodeExecutionData,
	items: INodeExecutionData[],
	uniqueOnly = false,
): INodeExecutionData {
	const seen: Array<Omit<IBinaryData, 'data'>> = [];
	const isUnique = (b: IBinaryData) => {
		const dup = seen.some(
			(s) =>
				s.mimeType === b.mimeType &&
				s.fileType === b.fileType &&
				s.fileSize === b.fileSize &&
				s.fileExtension === b.fileExtension,
		);
		if (!dup)
			seen.push({
				mimeType: b.mimeType,
				fileType: b.fileType,
				fileSize: b.fileSize,
				fileExtension: b.fileExtension,
			});
		return !dup;
	};
	for (const item of items) {
		if (item.binary === undefined) continue;
		for (const key of Object.keys(item.binary)) {
			newItem.binary ??= {};
			const binary = item.binary[key];
			if (uniqueOnly && !isUnique(binary)) continue;
			let binaryKey = key;
			let i = 1;
			while (newItem.binary[binaryKey] !== undefined) {
				binaryKey = `${key}_${i}`;
				i++;
			}
			newItem.binary[binaryKey] = binary;
		}
	}
	return newItem;
}

export class AggregateBinaries implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Aggregate Binaries',
		name: AGGREGATE_BINARIES_TYPE,
		group: ['transform'],
		version: 1,
		description:
			'Combines all items into one, including their binaries (like Aggregate → All Item Data + Include Binaries)',
		defaults: { name: 'Aggregate' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{
				displayName: 'Put Output in Field',
				name: 'destinationFieldName',
				type: 'string',
				default: 'data',
			},
			{ displayName: 'Include Binaries', name: 'includeBinaries', type: 'boolean', default: true },
			{
				displayName: 'Keep Only Unique Binaries',
				name: 'keepOnlyUnique',
				type: 'boolean',
				default: false,
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const destination = (this.getNodeParameter('destinationFieldName', 0) as string) || 'data';
		const includeBinaries = this.getNodeParameter('includeBinaries', 0) as boolean;
		const keepOnlyUnique = this.getNodeParameter('keepOnlyUnique', 0) as boolean;
		const newItem: INodeExecutionData = {
			json: { [destination]: items.map((item) => item.json) },
			pairedItem: items.map((_item, index) => ({ item: index })),
		};
		if (includeBinaries) addBinariesToItem(newItem, items, keepOnlyUnique);
		return [[newItem]];
	}
}
