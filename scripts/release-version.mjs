#!/usr/bin/env node
// The release workflow's first step (.github/workflows/publish.yml): the pushed tag must name
// the version in package.json, and the version decides npm's dist-tag. A prerelease version
// (0.4.0-rc.1) goes out under `next`, so `latest` (what `npm install` and n8n's community
// package installer take) stays on the last release; npm itself refuses a prerelease without
// a --tag. Prints `dist-tag=<tag>` (the workflow appends it to $GITHUB_OUTPUT); exit 1 when the
// tag and the version differ.
import fs from 'node:fs';

const { version } = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const tag = process.env.GITHUB_REF_NAME ?? '';
if (tag !== `v${version}`) {
	process.stderr.write(
		`The tag ${JSON.stringify(tag)} does not name the version in package.json (v${version}).\n`,
	);
	process.exit(1);
}
const prerelease = /^\d+\.\d+\.\d+-/.test(version);
process.stdout.write(`dist-tag=${prerelease ? 'next' : 'latest'}\n`);
