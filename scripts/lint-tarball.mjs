#!/usr/bin/env node
// `npm run lint:tarball`: lints the package with n8n's verification scanner itself
// (@n8n/scan-community-package, a devDependency: its `analyzePackage` and
// `SOURCE_FILE_PATTERNS`, so its config, rules and plugin versions are the scanner's own and
// a new scanner release is one version bump). The two legs the scanner runs on a published
// version: the source leg (package.json, nodes/** and credentials/** .js/.ts/.json of the
// checkout) and the tarball leg (`npm pack`, extract, then every `.js` file and the
// package.json of the tarball). The scanner's other checks (provenance, fetching the source
// its attestation names) need a published version: docs/contributing.md, "Releasing".
//
// It also checks what verification asks of the package itself: no runtime
// dependencies, n8n-workflow as the only peer dependency, no script that runs on
// install, `files: ["dist"]`, every file of the `n8n` section, each node's codex JSON
// and every `file:` icon the compiled nodes and credentials reference in the tarball; and
// that the tarball ships only what n8n loads (no declarations, source maps or dist/package.json).
//
// dist/ is built first when it is missing or older than the sources (`npm test` builds
// just before, so there it is reused). Exit code 1 on any lint error or failed check.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import glob from 'fast-glob';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];
/** The files the scanner's tarball leg lints (its analyzePackageByName passes these). */
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];
const problems = [];
const fail = (message) => problems.push(message);

function run(command, args, options = {}) {
	const result = spawnSync(command, args, {
		cwd: root,
		encoding: 'utf8',
		stdio: 'pipe',
		...options,
	});
	if (result.status !== 0) {
		process.stderr.write(result.stdout ?? '');
		process.stderr.write(result.stderr ?? '');
		throw new Error(`${command} ${args.join(' ')} failed with exit code ${result.status}`);
	}
	return result.stdout;
}

function newestMtime(patterns, cwd) {
	const files = glob.sync(patterns, { cwd, absolute: true, ignore: ['**/node_modules/**'] });
	return files.reduce((newest, file) => Math.max(newest, fs.statSync(file).mtimeMs), 0);
}

/** Builds dist/ when a file the n8n section lists is missing or a source is newer than dist. */
function ensureBuilt(pkg) {
	const listed = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])].map((f) =>
		path.join(root, f),
	);
	const missing = listed.some((file) => !fs.existsSync(file));
	const sources = newestMtime(
		['{nodes,credentials}/**/*.{ts,json,svg,png}', 'package.json', 'tsconfig.json'],
		root,
	);
	// A build empties dist/ first (scripts/clean-dist.js), so its newest file is the build's time.
	const built = newestMtime(['dist/**/*'], root);
	if (missing || sources > built) {
		process.stdout.write('dist/ is missing or older than the sources: npm run build\n');
		run('npm', ['run', 'build', '--silent'], { stdio: ['ignore', 'inherit', 'inherit'] });
	}
}

/** `npm pack` into a temp dir, extracted as the scanner does (tar --strip-components=1). */
function packAndExtract(tempDir) {
	const out = run('npm', ['pack', '--json', '--pack-destination', tempDir]);
	const [info] = JSON.parse(out.slice(out.indexOf('[')));
	const tarball = path.join(tempDir, info.filename);
	const packageDir = path.join(tempDir, 'package');
	fs.mkdirSync(packageDir);
	run('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
	return { packageDir, info };
}

/**
 * One leg of the scanner: its own analyzePackage on `dir` with `patterns`. It answers passed or
 * not, with ESLint's stylish report of the files that have errors.
 */
async function scan(scanner, dir, patterns, what) {
	const result = await scanner.analyzePackage(dir, patterns);
	if (result.details) process.stdout.write(`${result.details.trimEnd()}\n`);
	// The number of files the scanner saw (it globs the same way) shows the leg was not empty.
	const files = glob.sync(patterns, {
		cwd: dir,
		ignore: ['node_modules/**', '**/package-lock.json'],
	}).length;
	if (files === 0) fail(`${what}: no files to lint`);
	return `${what}: ${files} files, ${result.passed ? 'passed' : `failed (${result.message})`}`;
}

function checkManifest(packed) {
	const dependencies = Object.keys(packed.dependencies ?? {});
	if (dependencies.length > 0)
		fail(`package.json "dependencies" must be empty, has: ${dependencies.join(', ')}`);
	for (const field of ['optionalDependencies', 'bundleDependencies', 'bundledDependencies']) {
		const value = packed[field];
		if (value && Object.keys(value).length > 0) fail(`package.json "${field}" must be empty`);
	}
	const peers = Object.keys(packed.peerDependencies ?? {});
	if (peers.some((name) => name !== 'n8n-workflow')) {
		fail(`package.json "peerDependencies" may hold only n8n-workflow, has: ${peers.join(', ')}`);
	}
	for (const script of INSTALL_SCRIPTS) {
		if (packed.scripts?.[script] !== undefined)
			fail(`package.json has an install lifecycle script "${script}"`);
	}
	if (JSON.stringify(packed.files) !== JSON.stringify(['dist'])) {
		fail(`package.json "files" must be ["dist"], is ${JSON.stringify(packed.files)}`);
	}
	if (!packed.keywords?.includes('n8n-community-node-package'))
		fail('keywords lack "n8n-community-node-package"');
	if (!packed.description) fail('package.json has no "description"');
	if (!packed.author?.name || !packed.author?.email)
		fail('package.json "author" needs a name and an email');
	if (!packed.homepage) fail('package.json has no "homepage"');
	if (!(packed.repository?.url ?? packed.repository)) fail('package.json has no "repository"');
	if (packed.license !== 'MIT')
		fail(`package.json "license" must be MIT, is ${JSON.stringify(packed.license)}`);
	if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(packed.version ?? '')) {
		fail(`package.json "version" ${JSON.stringify(packed.version)} is not semver`);
	}
}

/** The tarball holds what npm always packs, and in dist/ only compiled .js, codex JSON and icons. */
function checkOnlyWhatN8nLoads(packed, tarballFiles) {
	const alwaysPacked = new Set(['package.json', 'README.md', 'LICENSE.md', packed.main]);
	for (const file of tarballFiles) {
		if (alwaysPacked.has(file)) continue;
		if (/^dist\/.+\.js$|^dist\/nodes\/.+\.node\.json$|^dist\/.+\.(svg|png)$/.test(file)) continue;
		fail(`${file} is in the tarball, but n8n does not load it`);
	}
}

/** Every n8n-section file, each node's codex JSON and every `file:` icon reference resolve in the tarball. */
function checkContents(packed, packageDir, tarballFiles) {
	const inTarball = (relative) => tarballFiles.has(path.posix.normalize(relative));
	const nodes = packed.n8n?.nodes ?? [];
	const credentials = packed.n8n?.credentials ?? [];
	if (nodes.length === 0) fail('package.json "n8n.nodes" lists no node');
	if (packed.n8n?.n8nNodesApiVersion !== 1) fail('package.json "n8n.n8nNodesApiVersion" must be 1');
	for (const file of [...nodes, ...credentials]) {
		if (!inTarball(file)) fail(`"n8n" section lists ${file}, which is not in the tarball`);
	}
	const icons = new Set();
	for (const file of nodes) {
		const codex = file.replace(/\.js$/, '.json');
		if (!inTarball(codex)) {
			fail(`codex file ${codex} (for ${file}) is not in the tarball`);
			continue;
		}
		try {
			const json = JSON.parse(fs.readFileSync(path.join(packageDir, codex), 'utf8'));
			if (!String(json.node ?? '').startsWith(`${packed.name}.`)) {
				fail(
					`${codex}: "node" is ${JSON.stringify(json.node)}, expected "${packed.name}.<node name>"`,
				);
			}
			if (!Array.isArray(json.categories) || json.categories.length === 0)
				fail(`${codex}: no categories`);
		} catch (error) {
			fail(`${codex} is not valid JSON: ${error.message}`);
		}
	}
	for (const file of [...nodes, ...credentials]) {
		if (!inTarball(file)) continue;
		const source = fs.readFileSync(path.join(packageDir, file), 'utf8');
		const references = [...source.matchAll(/["'`]file:([^"'`]+)["'`]/g)].map((match) => match[1]);
		if (references.length === 0) fail(`${file} references no icon (file:...)`);
		for (const reference of references) {
			const icon = path.posix.join(path.posix.dirname(file), reference);
			icons.add(icon);
			if (!inTarball(icon))
				fail(`${file} references icon file:${reference}; ${icon} is not in the tarball`);
		}
	}
	return icons;
}

function scannerVersion() {
	const manifest = path.join(root, 'node_modules/@n8n/scan-community-package/package.json');
	return JSON.parse(fs.readFileSync(manifest, 'utf8')).version;
}

async function main() {
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	ensureBuilt(pkg);
	const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lint-tarball-'));
	// The scanner's module makes a temp folder as it loads (for the packages it downloads, which
	// it does not do here) and leaves it behind: make it inside ours, which goes at the end.
	process.env.TMPDIR = tempDir;
	const scanner = await import('@n8n/scan-community-package/scanner/scanner.mjs');
	try {
		const { packageDir, info } = packAndExtract(tempDir);
		const tarballFiles = new Set(info.files.map((file) => path.posix.normalize(file.path)));
		const packed = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));

		const source = await scan(scanner, root, scanner.SOURCE_FILE_PATTERNS, 'source');
		const tarball = await scan(scanner, packageDir, TARBALL_FILE_PATTERNS, 'tarball');

		checkManifest(packed);
		checkOnlyWhatN8nLoads(packed, tarballFiles);
		const icons = checkContents(packed, packageDir, tarballFiles);

		for (const problem of problems) process.stdout.write(`✖ ${problem}\n`);
		const kb = (info.size / 1024).toFixed(1);
		process.stdout.write(
			`tarball ${info.filename} (${info.entryCount} entries, ${kb} kB, icons: ${[...icons].sort().join(', ') || 'none'})\n`,
		);
		process.stdout.write(`scanner (@n8n/scan-community-package ${scannerVersion()}) ${source}\n`);
		process.stdout.write(
			`scanner ${tarball}; package checks: ${problems.length === 0 ? 'passed' : `${problems.length} failed`}\n`,
		);
		const lintFailed = [source, tarball].some((line) => !line.endsWith('passed'));
		if (lintFailed || problems.length > 0) process.exitCode = 1;
	} finally {
		fs.rmSync(tempDir, { recursive: true, force: true });
	}
}

main().catch((error) => {
	process.stderr.write(`lint-tarball: ${error.stack ?? error}\n`);
	process.exitCode = 1;
});
