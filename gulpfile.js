// Copies what tsc does not: node icons and codex JSON files, into dist/ beside the compiled nodes.
const { src, dest } = require('gulp');

function copyAssets() {
	return src(['nodes/**/*.{png,svg}', 'nodes/**/*.node.json', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:assets'] = copyAssets;
