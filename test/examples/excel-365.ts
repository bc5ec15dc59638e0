/**
 * n8n's own Microsoft Excel 365 node from the installed n8n (dev/n8n/host.ts cache), run in
 * n8n-core's engine with one stand-in: its calls to Microsoft Graph (`helpers.requestOAuth2`)
 * are answered by an in-memory workbook. Which ranges the node reads and writes, and what it
 * writes there, is n8n's code.
 *
 * The stand-in answers as Graph does for what the worksheet operations ask: a worksheet's used
 * range (`A1` alone when it is empty), a range's values (every cell, empty ones as ""), and
 * writing values at a range, which Graph refuses unless the values have the range's size.
 */
import { existsSync } from 'fs';
import { homedir } from 'os';
import { join } from 'path';
import type { IDataObject, INodeType, IVersionedNodeType } from 'n8n-workflow';
import { N8N_VERSION } from './helpers';

type AnyNodeType = INodeType | IVersionedNodeType;

function installedNodesDir(): string | undefined {
	const cacheRoot =
		process.env.N8N_HOST_CACHE || join(homedir(), '.cache', 'n8n-nodes-extraction-agents');
	const dir = join(
		cacheRoot,
		`n8n-${N8N_VERSION}`,
		'node_modules',
		'n8n-nodes-base',
		'dist',
		'nodes',
	);
	return existsSync(join(dir, 'Microsoft', 'Excel', 'MicrosoftExcel.node.js')) ? dir : undefined;
}

/** `A` → 1, `AA` → 27. */
function columnNumber(letters: string): number {
	return [...letters.toUpperCase()].reduce(
		(sum, letter) => sum * 26 + letter.charCodeAt(0) - 64,
		0,
	);
}

/** 1 → `A`, 27 → `AA`. */
function columnLetters(number: number): string {
	let letters = '';
	for (let rest = number; rest > 0; rest = Math.floor((rest - 1) / 26))
		letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
	return letters;
}

function parseCell(cell: string): { column: number; row: number } {
	const match = /^([A-Z]+)(\d+)$/i.exec(cell);
	if (!match) throw new Error(`The stand-in workbook cannot read the cell "${cell}"`);
	return { column: columnNumber(match[1]), row: Number(match[2]) };
}

/** One workbook's worksheets, as rows of cells (row 1 first). */
export class InMemoryWorkbook {
	readonly worksheets = new Map<string, string[][]>();

	readonly requests: Array<{ method: string; path: string }> = [];

	constructor(names: string[]) {
		for (const name of names) this.worksheets.set(name, []);
	}

	rows(name: string): string[][] {
		const rows = this.worksheets.get(name);
		if (!rows) throw new Error(`The stand-in workbook has no worksheet "${name}"`);
		return rows;
	}

	/** What `helpers.requestOAuth2` gets from the Excel node: request-style options. */
	answer(options: { method: string; uri: string; body?: IDataObject }): unknown {
		const url = new URL(options.uri);
		const path = decodeURIComponent(url.pathname);
		this.requests.push({ method: options.method, path });
		const match = /\/workbook\/worksheets\/([^/]+)\/(usedRange|range\(address='([^']+)'\))$/.exec(
			path,
		);
		if (!match) throw new Error(`The stand-in workbook does not answer ${options.method} ${path}`);
		const name = match[1];
		const rows = this.rows(name);
		if (match[2] === 'usedRange' && options.method === 'GET') {
			const width = Math.max(0, ...rows.map((row) => row.length));
			if (rows.length === 0 || width === 0) return { address: `${name}!A1`, values: [['']] };
			const values = rows.map((row) => Array.from({ length: width }, (_, i) => row[i] ?? ''));
			return { address: `${name}!A1:${columnLetters(width)}${rows.length}`, values };
		}
		const [from, to = from] = match[3].split(':').map(parseCell);
		const height = to.row - from.row + 1;
		const width = to.column - from.column + 1;
		if (options.method === 'GET') {
			const values = Array.from({ length: height }, (_, r) =>
				Array.from(
					{ length: width },
					(_, c) => rows[from.row - 1 + r]?.[from.column - 1 + c] ?? '',
				),
			);
			return { address: `${name}!${match[3]}`, values };
		}
		if (options.method === 'PATCH') {
			const values = (options.body?.values ?? []) as unknown[][];
			if (values.length !== height || values.some((row) => row.length !== width))
				throw new Error(
					`The number of rows or columns in the input array doesn't match the size or dimensions of the range (${match[3]}).`,
				);
			values.forEach((row, r) => {
				const at = from.row - 1 + r;
				while (rows.length <= at) rows.push([]);
				row.forEach((cell, c) => {
					rows[at][from.column - 1 + c] = cell === null || cell === undefined ? '' : String(cell);
				});
			});
			return { address: `${name}!${match[3]}`, values };
		}
		throw new Error(`The stand-in workbook does not answer ${options.method} ${path}`);
	}
}

/**
 * The installed n8n's Microsoft Excel 365 node type, its Graph calls answered by `workbook`
 * (each node's worksheet is the one named by its `worksheet` parameter's value); undefined
 * when that n8n is not installed.
 */
export function installedMicrosoftExcelNode(workbook: InMemoryWorkbook): AnyNodeType | undefined {
	const dir = installedNodesDir();
	if (!dir) return undefined;
	const { MicrosoftExcel } = require(join(dir, 'Microsoft', 'Excel', 'MicrosoftExcel.node.js')) as {
		MicrosoftExcel: new () => IVersionedNodeType;
	};
	const versioned = new MicrosoftExcel();
	for (const [version, type] of Object.entries(versioned.nodeVersions)) {
		const execute = type.execute!;
		versioned.nodeVersions[Number(version)] = Object.assign(Object.create(type) as INodeType, {
			async execute(this: object) {
				const helpers = {
					...(Reflect.get(this, 'helpers') as IDataObject),
					async requestOAuth2(_credentialType: string, options: never) {
						return workbook.answer(options);
					},
				};
				const standIn = new Proxy(this, {
					get(target, property) {
						if (property === 'helpers') return helpers;
						// Only the Graph address is read from the credential: Graph's own.
						if (property === 'getCredentials') return async () => ({});
						const value = Reflect.get(target, property, target) as unknown;
						return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
					},
				});
				return await execute.call(standIn as never);
			},
		});
	}
	return versioned;
}
