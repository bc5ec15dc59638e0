/**
 * What n8n's verification and the nodes panel read besides the code: the codex files
 * (`*.node.json`: categories, documentation links, search aliases) and the icons, in the
 * sources and — after `npm run build` — in dist/ where n8n loads them from.
 */
import { existsSync, readFileSync } from 'fs';
import { join, resolve } from 'path';
import type { INodeType } from 'n8n-workflow';
import { ExtractionAgentsApi } from '../../credentials/ExtractionAgentsApi.credentials';
import { loadExtractionAgentsNode, loadExtractionAgentsTriggerNode } from '../../dev/harness';

const ROOT = resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
	name: string;
	homepage: string;
	n8n: { nodes: string[]; credentials: string[] };
};
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The categories n8n's codex documentation lets a node choose from. */
const CATEGORIES = [
	'Data & Storage',
	'Finance & Accounting',
	'Marketing & Content',
	'Productivity',
	'Miscellaneous',
	'Sales',
	'Development',
	'Analytics',
	'Communication',
	'Utility',
];
const REQUIRED_ALIASES = ['OCR', 'invoice', 'extraction', 'document', 'parse', 'PDF'];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function readmeAnchors(markdown: string): Set<string> {
	const anchors = new Set<string>();
	let inFence = false;
	for (const line of markdown.split('\n')) {
		if (line.startsWith('```')) inFence = !inFence;
		const heading = !inFence && /^#{1,6}\s+(.*)$/.exec(line);
		if (!heading) continue;
		anchors.add(
			heading[1]
				.trim()
				.toLowerCase()
				.replace(/[^\p{L}\p{N}\s_-]/gu, '')
				.replace(/\s/g, '-'),
		);
	}
	return anchors;
}

interface Codex {
	node: string;
	nodeVersion: string;
	codexVersion: string;
	categories: string[];
	resources: Record<string, Array<{ url: string; label?: string }>>;
	alias: string[];
}

const nodes: Array<{ file: string; load: () => unknown }> = [
	{ file: 'ExtractionAgents.node.json', load: loadExtractionAgentsNode },
	{ file: 'ExtractionAgentsTrigger.node.json', load: loadExtractionAgentsTriggerNode },
];

describe.each(nodes)('codex $file', ({ file, load }) => {
	const text = readFileSync(join(ROOT, 'nodes/ExtractionAgents', file), 'utf8');
	const codex = JSON.parse(text) as Codex;
	const { description } = load() as INodeType;

	it('names the node as n8n does (<package>.<node name>) at its version', () => {
		expect(codex.node).toBe(`${pkg.name}.${description.name}`);
		// The codex names the node's current version: its default, when it has several.
		const current =
			description.defaultVersion ??
			(Array.isArray(description.version) ? Math.max(...description.version) : description.version);
		expect(Number(codex.nodeVersion)).toBe(current);
		expect(codex.codexVersion).toBe('1.0');
	});

	it('uses categories from n8n’s list', () => {
		expect(codex.categories.length).toBeGreaterThan(0);
		for (const category of codex.categories) expect(CATEGORIES).toContain(category);
	});

	it('links primary and credential documentation to sections of the README that exist', () => {
		expect(codex.resources.primaryDocumentation).toHaveLength(1);
		expect(codex.resources.credentialDocumentation).toHaveLength(1);
		const anchors = readmeAnchors(README);
		const base = pkg.homepage.replace(/#.*$/, '');
		for (const links of Object.values(codex.resources)) {
			for (const link of links) {
				const [page, anchor] = link.url.split('#');
				expect(page).toBe(base);
				expect(anchors).toContain(anchor);
			}
		}
	});

	it('has the aliases users search for', () => {
		const lower = codex.alias.map((alias) => alias.toLowerCase());
		for (const alias of REQUIRED_ALIASES) expect(lower).toContain(alias.toLowerCase());
		expect(new Set(lower).size).toBe(lower.length);
	});

	const built = join(ROOT, 'dist/nodes/ExtractionAgents', file);
	(existsSync(built) ? it : it.skip)('is copied into dist/ unchanged by the build', () => {
		expect(JSON.parse(readFileSync(built, 'utf8'))).toEqual(codex);
	});
});

describe('icons', () => {
	const iconDir = join(ROOT, 'nodes/ExtractionAgents/icons');
	const light = readFileSync(join(iconDir, 'extractionAgents.svg'), 'utf8');
	const dark = readFileSync(join(iconDir, 'extractionAgents.dark.svg'), 'utf8');
	const shape = (svg: string) => svg.replace(/#[0-9A-Fa-f]{3,8}\b/g, '#');

	it('has a light and a dark SVG of the same shape on a square 64 × 64 canvas', () => {
		for (const svg of [light, dark]) {
			expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
			expect(svg).toContain('viewBox="0 0 64 64"');
			expect(svg).not.toMatch(/<script|<image|xlink:href|<text/);
		}
		expect(shape(dark)).toBe(shape(light));
		expect(dark).not.toBe(light);
	});

	it('is the icon of both nodes and of the credential, and every reference resolves', () => {
		const expected = { light: 'extractionAgents.svg', dark: 'extractionAgents.dark.svg' };
		const check = (icon: unknown, fromDir: string) => {
			const { light: l, dark: d } = icon as { light: string; dark: string };
			for (const [reference, name] of [
				[l, expected.light],
				[d, expected.dark],
			]) {
				expect(reference).toMatch(/^file:/);
				const target = resolve(fromDir, reference.replace(/^file:/, ''));
				expect(target).toBe(join(iconDir, name));
			}
		};
		for (const { load } of nodes)
			check((load() as INodeType).description.icon, join(ROOT, 'nodes/ExtractionAgents'));
		check(new ExtractionAgentsApi().icon, join(ROOT, 'credentials'));
	});

	(existsSync(join(ROOT, 'dist/nodes/ExtractionAgents/icons')) ? it : it.skip)(
		'is copied into dist/ unchanged by the build',
		() => {
			for (const name of ['extractionAgents.svg', 'extractionAgents.dark.svg']) {
				expect(readFileSync(join(ROOT, 'dist/nodes/ExtractionAgents/icons', name), 'utf8')).toBe(
					readFileSync(join(iconDir, name), 'utf8'),
				);
			}
		},
	);
});
