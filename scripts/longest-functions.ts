/**
 * The longest function in each folder of the shipped node code, in lines (first line to
 * last, comments inside included), to see where a function no longer fits on a screen
 * (docs/style: the anchors' longest are about 80 lines).
 *
 *   npx tsx scripts/longest-functions.ts [root]   (root: nodes/ExtractionAgents)
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';
import ts from 'typescript';

interface FunctionLength {
	file: string;
	name: string;
	lines: number;
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((entry) => {
		const path = join(dir, entry);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
	const named = node as ts.Node & { name?: ts.Node };
	if (named.name) return named.name.getText(source);
	const parent = node.parent;
	if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
		return parent.name.getText(source);
	if (ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node)) return 'constructor';
	return '(anonymous)';
}

function functionsOf(file: string): FunctionLength[] {
	const source = ts.createSourceFile(
		file,
		readFileSync(file, 'utf8'),
		ts.ScriptTarget.Latest,
		true,
	);
	const found: FunctionLength[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isFunctionLike(node) && 'body' in node && node.body) {
			const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
			const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
			found.push({ file, name: nameOf(node, source), lines: end - start + 1 });
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

const root = process.argv[2] ?? join('nodes', 'ExtractionAgents');
const byFolder = new Map<string, FunctionLength>();
for (const file of sourceFiles(root)) {
	const folder = relative(root, join(file, '..')) || '.';
	for (const fn of functionsOf(file)) {
		const longest = byFolder.get(folder);
		if (!longest || fn.lines > longest.lines) byFolder.set(folder, fn);
	}
}
const rows = [...byFolder.entries()].sort(([a], [b]) => a.localeCompare(b));
console.log('| folder | longest function | lines |');
console.log('| --- | --- | --- |');
for (const [folder, fn] of rows) {
	console.log(`| ${folder} | ${relative(root, fn.file)} \`${fn.name}\` | ${fn.lines} |`);
}
