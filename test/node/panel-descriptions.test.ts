/**
 * Every text the panel shows under a field (a description, a hint, an option's description,
 * a notice) is at most 25 words, at every version of both nodes and in the credential: a
 * longer one is cut off in the panel's tooltip, or not read. The rules, limits and reasons
 * belong in the docs the README links to.
 */
import type {
	ICredentialType,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';
import { ExtractionAgents } from '../../nodes/ExtractionAgents/ExtractionAgents.node';
import { ExtractionAgentsTrigger } from '../../nodes/ExtractionAgents/ExtractionAgentsTrigger.node';
import { ExtractionAgentsApi } from '../../credentials/ExtractionAgentsApi.credentials';

const MAX_WORDS = 25;

type Property = INodeProperties | INodePropertyCollection | INodePropertyOptions;

interface PanelText {
	where: string;
	text: string;
}

/** Every description, hint and notice of the properties, nested options and collections included. */
function panelTexts(properties: readonly Property[], path: string[] = []): PanelText[] {
	const texts: PanelText[] = [];
	for (const property of properties) {
		const label = 'displayName' in property ? property.displayName : property.name;
		const where = [...path, label].join(' → ');
		if ('type' in property && property.type === 'notice')
			texts.push({ where: `${where} (notice)`, text: property.displayName });
		if ('description' in property && typeof property.description === 'string')
			if (property.description !== '') texts.push({ where, text: property.description });
		if ('hint' in property && typeof property.hint === 'string' && property.hint !== '')
			texts.push({ where: `${where} (hint)`, text: property.hint });
		if ('options' in property && Array.isArray(property.options))
			texts.push(...panelTexts(property.options as Property[], [...path, label]));
		if ('values' in property && Array.isArray(property.values))
			texts.push(...panelTexts(property.values, [...path, label]));
	}
	return texts;
}

const wordsOf = (text: string) => text.split(/\s+/).filter((word) => word !== '').length;

const sources: Array<[string, INodeTypeDescription | ICredentialType]> = [
	['Extraction Agents', new ExtractionAgents().description],
	['Extraction Agents Trigger', new ExtractionAgentsTrigger().description],
	['Extraction Agents API credential', new ExtractionAgentsApi()],
];

describe('the panel’s descriptions', () => {
	it.each(sources)('%s: every description, hint and notice is at most 25 words', (_, source) => {
		const texts = panelTexts(source.properties);
		expect(texts.length).toBeGreaterThan(0);
		const tooLong = texts
			.filter(({ text }) => wordsOf(text) > MAX_WORDS)
			.map(({ where, text }) => `${where}: ${wordsOf(text)} words`);
		expect(tooLong).toEqual([]);
	});

	it('reads nested options, collection entries and hints (a sample of each is found)', () => {
		const texts = panelTexts(new ExtractionAgents().description.properties);
		expect(texts.some(({ where }) => where.endsWith('(hint)'))).toBe(true);
		expect(texts.some(({ where }) => where.includes('Options → Items in Parallel'))).toBe(true);
		expect(texts.some(({ where }) => where.includes('Output → One Item per Prompt Result'))).toBe(
			true,
		);
	});

	it('the node descriptions in the nodes panel are at most 25 words', () => {
		for (const [, source] of sources)
			if ('description' in source && typeof source.description === 'string')
				expect(wordsOf(source.description)).toBeLessThanOrEqual(MAX_WORDS);
	});
});
