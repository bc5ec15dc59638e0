/**
 * Every message, hint and tooltip names the node's fields as the panel of the item's node
 * version shows them. The panel's words per version are collected from the node description
 * (field labels, option names, operation names); every text the code can produce is read
 * from the sources (each string and template literal under nodes/, parsed with TypeScript)
 * and every tooltip from the description at each version. A text fails when it names a
 * label that the version's panel lacks: "Input Binary Fields" where the panel says "File
 * Fields", "Run → Create" where it says "Extract Data From Files", "binary data" where the
 * panel speaks of files.
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';
import * as ts from 'typescript';
import type {
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { executeNode, useHarness } from '../../dev/harness';
import { ExtractionAgents } from '../../nodes/ExtractionAgents/ExtractionAgents.node';
import { ExtractionAgentsTrigger } from '../../nodes/ExtractionAgents/ExtractionAgentsTrigger.node';
import {
	ACTION_NODE_VERSIONS,
	TRIGGER_NODE_VERSIONS,
} from '../../nodes/ExtractionAgents/descriptions/versions';
import { fileWordsOf } from '../../nodes/ExtractionAgents/descriptions/panelWords';
import { createRunParameters } from './fixtures';

const NODES = join(__dirname, '..', '..', 'nodes');
const action = new ExtractionAgents().description;
const trigger = new ExtractionAgentsTrigger().description;
const NEWEST_ACTION = ACTION_NODE_VERSIONS[ACTION_NODE_VERSIONS.length - 1];

type Property = INodeProperties | INodePropertyCollection | INodePropertyOptions;

const isShownAt = (property: Property, version: number, description: INodeTypeDescription) =>
	!('displayOptions' in property) ||
	!property.displayOptions?.show?.['@version'] ||
	NodeHelpers.displayParameter(
		{},
		{
			...property,
			displayOptions: { show: { '@version': property.displayOptions.show['@version'] } },
		} as INodeProperties,
		{ typeVersion: version },
		description,
	);

/** Every property, option and collection entry shown at the version, nested ones included. */
function shownAt(description: INodeTypeDescription, version: number): Property[] {
	const shown: Property[] = [];
	const visit = (properties: readonly Property[]) => {
		for (const property of properties) {
			if (!isShownAt(property, version, description)) continue;
			shown.push(property);
			if ('options' in property && Array.isArray(property.options)) visit(property.options);
			if ('values' in property && Array.isArray(property.values)) visit(property.values);
		}
	};
	visit(description.properties);
	return shown;
}

/** The panel's words at the version: labels, option names, and "Resource → Operation" paths. */
function panelWords(description: INodeTypeDescription, version: number): Set<string> {
	const words = new Set<string>();
	for (const property of shownAt(description, version)) {
		if ('displayName' in property && property.displayName) words.add(property.displayName);
		if ('name' in property && 'value' in property) words.add(property.name);
	}
	const resources = description.properties.find((property) => property.name === 'resource');
	for (const resource of (resources?.options ?? []) as INodePropertyOptions[]) {
		const operations = description.properties.find(
			(property) =>
				property.name === 'operation' &&
				property.displayOptions?.show?.resource?.includes(resource.value),
		);
		for (const operation of (operations?.options ?? []) as INodePropertyOptions[])
			words.add(`${resource.name} → ${operation.name}`);
	}
	const options = description.properties.filter((property) => property.name === 'options');
	for (const collection of options)
		for (const option of (collection.options ?? []) as INodeProperties[])
			if (isShownAt(option, version, description)) words.add(`Options → ${option.displayName}`);
	return words;
}

const ACTION_PANELS = new Map(ACTION_NODE_VERSIONS.map((v) => [v, panelWords(action, v)]));
const TRIGGER_PANELS = new Map(TRIGGER_NODE_VERSIONS.map((v) => [v, panelWords(trigger, v)]));

/** Labels of several words (a single word such as "Links" is also an ordinary word). */
const allLabels = [...ACTION_PANELS.values(), ...TRIGGER_PANELS.values()]
	.flatMap((words) => [...words])
	.filter((label) => label.includes(' '));
/** Names no version's panel has, that texts used for its fields. */
const RETIRED_LABELS = ['Create Run', 'Run → Create'];
const LABELS = [...new Set([...allLabels, ...RETIRED_LABELS])].sort((a, b) => b.length - a.length);

/** The labels `text` names that the panel lacks; "binary" too when the panel speaks of files. */
function foreignWords(text: string, panel: Set<string>): string[] {
	const found: string[] = [];
	let rest = text;
	for (const label of LABELS) {
		const at = new RegExp(`(?<![\\w-])${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`);
		while (at.test(rest)) {
			if (!panel.has(label)) found.push(label);
			rest = rest.replace(at, ' ');
		}
	}
	const panelSaysBinary = [...panel].some((label) => /binary/i.test(label));
	if (!panelSaysBinary && /\bbinary (data|fields?)\b/i.test(rest))
		found.push(/\bbinary (data|fields?)\b/i.exec(rest)![0]);
	return found;
}

/** The texts of the description (tooltips, hints, option descriptions) at a version. */
function panelTexts(description: INodeTypeDescription, version: number): string[] {
	return shownAt(description, version).flatMap((property) =>
		[
			'description' in property ? property.description : undefined,
			'hint' in property ? property.hint : undefined,
			'placeholder' in property ? property.placeholder : undefined,
			'action' in property ? property.action : undefined,
		].filter((text): text is string => typeof text === 'string'),
	);
}

function sourceFiles(directory: string): string[] {
	return readdirSync(directory).flatMap((name) => {
		const path = join(directory, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

/** Every string and template literal of a source file ("…" where a template has a value). */
function literalsOf(path: string): string[] {
	const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
	const texts: string[] = [];
	const visit = (node: ts.Node) => {
		if (ts.isImportDeclaration(node) || ts.isLiteralTypeNode(node)) return;
		if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts.push(node.text);
		else if (ts.isTemplateExpression(node)) {
			texts.push(
				[node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join('…'),
			);
			node.templateSpans.forEach((span) => visit(span.expression));
			return;
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return texts.filter((text) => /\s/.test(text));
}

/** The versions whose items can get a file's messages (default: every action version). */
const FILE_VERSIONS: Record<string, number[]> = {
	// Reached only from version 1.3 (hasBehaviour 'failedRunsAreErrors' in create.operation.ts).
	'ExtractionAgents/helpers/failedRuns.ts': ACTION_NODE_VERSIONS.filter((v) => v >= 1.3),
	// Files → Links exists from version 1.2.
	'ExtractionAgents/actions/run/links.ts': ACTION_NODE_VERSIONS.filter((v) => v >= 1.2),
	'ExtractionAgents/actions/run/linkDownload.ts': ACTION_NODE_VERSIONS.filter((v) => v >= 1.2),
};

/** Texts a version test chooses (`triggerHasBehaviour(…) ? this : that`), with the versions that get them. */
const TEXT_VERSIONS: Record<string, number[]> = {
	// helpers/failedRuns.ts, a partly read Run's error: only from 1.5 ('partlyReadRunsAreErrors').
	'To keep such Runs as rows, set Options → Runs with Failed Prompts to Output as Results; to send them on, set On Error to Continue (using error output).':
		ACTION_NODE_VERSIONS.filter((v) => v >= 1.5),
	// trigger/poll.ts, 'settingsInOptions': trigger 1 says "Statuses" instead.
	'Choose Succeeded, Failed or both under Trigger On.': TRIGGER_NODE_VERSIONS.filter(
		(v) => v >= 1.1,
	),
};

/** Texts of the panel itself, checked per version by panelTexts rather than as messages. */
const PANEL_TEXTS = new Set(
	[
		...ACTION_NODE_VERSIONS.flatMap((v) => panelTexts(action, v)),
		...TRIGGER_NODE_VERSIONS.flatMap((v) => panelTexts(trigger, v)),
	].concat(LABELS),
);

/**
 * The words of both versions' file fields live in descriptions/panelWords.ts, chosen by the
 * item's version (fileWordsOf, checked below); its literals are not messages.
 */
const WORD_TABLES = new Set(['ExtractionAgents/descriptions/panelWords.ts']);

/**
 * Texts in files the lead is rewriting (links.ts, multipart.ts) that this test flags: each
 * entry must still be found, so that the list empties as they are fixed.
 */
const PENDING_REWRITE: Record<string, string[]> = {};

interface Finding {
	file: string;
	text: string;
	version: number;
	words: string[];
}

function messageFindings(): Finding[] {
	const findings: Finding[] = [];
	for (const path of sourceFiles(NODES)) {
		const file = relative(NODES, path);
		if (WORD_TABLES.has(file)) continue;
		const isTrigger = file.includes('/trigger/') || file.endsWith('Trigger.node.ts');
		const panels = isTrigger
			? TRIGGER_NODE_VERSIONS.map((v) => ({
					version: v,
					// The trigger's texts point to the action node as a new one shows it.
					words: new Set([...TRIGGER_PANELS.get(v)!, ...ACTION_PANELS.get(NEWEST_ACTION)!]),
				}))
			: (FILE_VERSIONS[file] ?? ACTION_NODE_VERSIONS).map((v) => ({
					version: v,
					words: ACTION_PANELS.get(v)!,
				}));
		for (const text of literalsOf(path)) {
			if (PANEL_TEXTS.has(text)) continue;
			for (const { version, words } of panels) {
				if (TEXT_VERSIONS[text] && !TEXT_VERSIONS[text].includes(version)) continue;
				const foreign = foreignWords(text, words);
				if (foreign.length > 0) findings.push({ file, text, version, words: foreign });
			}
		}
	}
	return findings;
}

describe('messages speak the panel’s words', () => {
	it('collects the panel of each version from the description', () => {
		expect(ACTION_PANELS.get(1.1)).toContain('Input Binary Fields');
		expect(ACTION_PANELS.get(1.1)).not.toContain('File Fields');
		expect(ACTION_PANELS.get(1.2)).toContain('File Fields');
		expect(ACTION_PANELS.get(1.2)).toContain('All Files of the Item');
		expect(ACTION_PANELS.get(1.2)).not.toContain('Input Binary Fields');
		expect(ACTION_PANELS.get(1.2)).toContain('Run → Extract Data From Files');
		expect(ACTION_PANELS.get(1.3)).toContain('Options → Failed Runs');
		expect(foreignWords('Put it in Input Binary Fields', ACTION_PANELS.get(1.2)!)).toEqual([
			'Input Binary Fields',
		]);
		expect(foreignWords('Upload it (Run → Create)', ACTION_PANELS.get(1.2)!)).toEqual([
			'Run → Create',
		]);
		expect(foreignWords('the item’s binary data', ACTION_PANELS.get(1.2)!)).toEqual([
			'binary data',
		]);
		expect(foreignWords('the item’s binary data', ACTION_PANELS.get(1.1)!)).toEqual([]);
	});

	it('no message or hint in the code names a label the panel of a version that can show it lacks', () => {
		const pending = new Set(
			Object.entries(PENDING_REWRITE).flatMap(([file, texts]) => texts.map((t) => `${file}\n${t}`)),
		);
		const findings = messageFindings();
		const unexpected = findings.filter(
			(finding) =>
				!pending.has(`${finding.file}\n${finding.text}`) &&
				!finding.words.every((word) => pending.has(`${finding.file}\n${word}`)),
		);
		expect(
			unexpected.map(({ file, text, version, words }) => ({ file, version, words, text })),
		).toEqual([]);
	});

	it('every text still listed as pending a rewrite is still there (remove it once fixed)', () => {
		const findings = messageFindings();
		for (const [file, texts] of Object.entries(PENDING_REWRITE)) {
			for (const text of texts) {
				expect({
					file,
					text,
					found: findings.some(
						(finding) =>
							finding.file === file && (finding.text === text || finding.words.includes(text)),
					),
				}).toEqual({ file, text, found: true });
			}
		}
	});

	it.each(ACTION_NODE_VERSIONS)(
		'every tooltip and hint of version %s uses its panel’s words',
		(version) => {
			const panel = ACTION_PANELS.get(version)!;
			const foreign = panelTexts(action, version)
				.map((text) => ({ text, words: foreignWords(text, panel) }))
				.filter(({ words }) => words.length > 0);
			expect(foreign).toEqual([]);
		},
	);

	it.each(ACTION_NODE_VERSIONS)(
		'the file words version %s’s messages use are its panel’s',
		(version) => {
			const words = fileWordsOf({ typeVersion: version } as never);
			const panel = ACTION_PANELS.get(version)!;
			expect(
				[words.fieldList, words.all, words.specific].filter((label) => !panel.has(label)),
			).toEqual([]);
			expect(foreignWords(`${words.field} ${words.fields} ${words.files}`, panel)).toEqual([]);
		},
	);
});

describe('the "no files" message', () => {
	useHarness();

	it('gives the Gmail Trigger steps that make attachments arrive', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { apiKey: 'ea_test_key', baseUrl: 'http://127.0.0.1:9' },
			parameters: createRunParameters(),
			inputItems: [{ json: { subject: 'Invoice', snippet: 'see attached' } }],
		});
		const error = result.error as Error & { description?: string };
		expect(error.message).toBe('Item 1 has no files');
		expect(error.description).toMatch(/Gmail Trigger.*Simplify off.*Download Attachments on/);
	});
});
