/**
 * What `npm pack` (and so `npm publish`) puts in the tarball, after `npm run build`: only what
 * n8n loads — the compiled nodes and credential, their codex JSON and icons — plus what npm
 * always packs. No declarations, no source maps (they would point at sources that are not
 * shipped) and no copy of package.json inside dist/.
 */
import { spawnSync } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import { join, resolve } from 'path';
import glob from 'fast-glob';

const ROOT = resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
	main: string;
	n8n: { nodes: string[]; credentials: string[] };
};
/** What npm packs whatever `files` says. */
const ALWAYS_PACKED = ['package.json', 'README.md', 'LICENSE.md', pkg.main];

function packedFiles(): string[] {
	const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: ROOT,
		encoding: 'utf8',
	});
	if (result.status !== 0) throw new Error(`npm pack --dry-run failed: ${result.stderr}`);
	const [info] = JSON.parse(result.stdout.slice(result.stdout.indexOf('['))) as Array<{
		files: Array<{ path: string }>;
	}>;
	return info.files.map((file) => file.path).sort();
}

const built = existsSync(join(ROOT, 'dist/nodes'));

(built ? describe : describe.skip)('the packed tarball (after npm run build)', () => {
	const files = built ? packedFiles() : [];

	it('has no declarations, source maps or dist/package.json', () => {
		expect(files.filter((file) => /\.d\.ts$|\.map$/.test(file))).toEqual([]);
		expect(files).not.toContain('dist/package.json');
	});

	it('has every node and credential the n8n section lists, with each node’s codex JSON', () => {
		for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) expect(files).toContain(file);
		for (const node of pkg.n8n.nodes) expect(files).toContain(node.replace(/\.js$/, '.json'));
	});

	it('has the light and dark icons', () => {
		expect(files).toContain('dist/nodes/ExtractionAgents/icons/extractionAgents.svg');
		expect(files).toContain('dist/nodes/ExtractionAgents/icons/extractionAgents.dark.svg');
	});

	it('has one .js for each TypeScript source of nodes/ and credentials/, and nothing else in dist/ but codex JSON and icons', () => {
		const sources = glob.sync('{nodes,credentials}/**/*.ts', { cwd: ROOT });
		const compiled = sources.map((source) => `dist/${source.replace(/\.ts$/, '.js')}`);
		const assets = glob
			.sync('{nodes,credentials}/**/*.{node.json,svg,png}', { cwd: ROOT })
			.map((asset) => `dist/${asset}`);
		expect(files).toEqual([...ALWAYS_PACKED, ...compiled, ...assets].sort());
	});
});
