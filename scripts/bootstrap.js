#!/usr/bin/env node
// Installs the dev dependencies when node_modules is missing or older than the lockfile,
// so that `npm test` and `npm run demo` work on a fresh clone with only Node and npm.
// --ignore-scripts: no dependency's install script is needed to build or test (several build
// native add-ons or download binaries); .npmrc does not set it, because it would also skip
// the publish gate (prepublishOnly).
'use strict';
const { execSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const lockfile = path.join(root, 'package-lock.json');
const installed = path.join(root, 'node_modules', '.package-lock.json');

function mtime(file) {
	try {
		return fs.statSync(file).mtimeMs;
	} catch {
		return 0;
	}
}

const stale = mtime(installed) === 0 || mtime(installed) < mtime(lockfile);
if (stale) {
	const started = Date.now();
	console.log(
		'[bootstrap] node_modules is missing or older than package-lock.json: running npm ci ...',
	);
	execSync('npm ci --ignore-scripts --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
	console.log(`[bootstrap] installed in ${Math.round((Date.now() - started) / 1000)} s`);
}
