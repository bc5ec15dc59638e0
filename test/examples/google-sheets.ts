/**
 * n8n's own Google Sheets node (and Set node) from the installed n8n (dev/n8n/host.ts cache),
 * run in n8n-core's engine with one stand-in: the node's calls to Google's Sheets API
 * (`helpers.requestOAuth2`) are answered by an in-memory spreadsheet. Everything else, the
 * append operation's choice of columns, its header row and where it writes, is n8n's code.
 *
 * The stand-in answers as the Sheets API v4 does for what the append operation asks: the
 * spreadsheet's sheets, a range's values (trailing empty rows and cells left out, no `values`
 * for an empty range), writing rows at a range, and appending empty rows.
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
	return existsSync(join(dir, 'Google', 'Sheet', 'GoogleSheets.node.js')) ? dir : undefined;
}

/** The installed Google Sheets append operation's file (read by the test that quotes it). */
export function installedAppendOperationFile(): string | undefined {
	const dir = installedNodesDir();
	return dir && join(dir, 'Google', 'Sheet', 'v2', 'actions', 'sheet', 'append.operation.js');
}

/** One spreadsheet's sheets, as rows of cells (row 1 first). */
export class InMemorySpreadsheet {
	readonly sheets = new Map<string, { sheetId: number; rows: unknown[][] }>();

	readonly requests: Array<{ method: string; path: string }> = [];

	constructor(titles: string[], headerRows: Record<string, string[]> = {}) {
		titles.forEach((title, index) =>
			this.sheets.set(title, {
				sheetId: index + 1,
				rows: headerRows[title] ? [headerRows[title]] : [],
			}),
		);
	}

	rows(title: string): unknown[][] {
		return this.sheet(title).rows;
	}

	private sheet(title: string) {
		const sheet = this.sheets.get(title);
		if (!sheet) throw new Error(`The stand-in spreadsheet has no sheet "${title}"`);
		return sheet;
	}

	/** `'Needs review'`, `Needs review!2:3`: the sheet and the rows (1-based, inclusive). */
	private parseRange(encoded: string): { title: string; from?: number; to?: number } {
		const range = decodeURIComponent(encoded);
		const [name, rows] = range.split('!');
		const title = name.replace(/^'(.*)'$/, '$1');
		const match = /^(\d+):(\d+)$/.exec(rows ?? '');
		return match ? { title, from: Number(match[1]), to: Number(match[2]) } : { title };
	}

	/** What `helpers.requestOAuth2` gets from the Google Sheets node: request-style options. */
	answer(options: { method: string; uri: string; body?: IDataObject; qs?: IDataObject }): unknown {
		const url = new URL(options.uri);
		this.requests.push({ method: options.method, path: url.pathname });
		const path = url.pathname.replace(/^\/v4\/spreadsheets\/[^/:]+/, '');
		if (options.method === 'GET' && path === '') {
			return {
				sheets: [...this.sheets].map(([title, sheet]) => ({
					properties: { sheetId: sheet.sheetId, title, index: sheet.sheetId - 1 },
				})),
			};
		}
		if (options.method === 'POST' && path === ':batchUpdate') return { replies: [] }; // appendDimension
		const values = /^\/values\/(.+)$/.exec(path);
		if (values && options.method === 'GET') {
			const { title, from, to } = this.parseRange(values[1]);
			const rows = this.sheet(title).rows;
			const picked = (from ? rows.slice(from - 1, to) : rows).map((row) =>
				trimEnd(row.map((cell) => (cell === undefined || cell === null ? '' : String(cell)))),
			);
			while (picked.length && picked[picked.length - 1].length === 0) picked.pop();
			return picked.length ? { range: decodeURIComponent(values[1]), values: picked } : {};
		}
		if (values && options.method === 'PUT') {
			const { title, from } = this.parseRange(values[1]);
			const rows = this.sheet(title).rows;
			((options.body?.values ?? []) as unknown[][]).forEach((row, offset) => {
				const at = (from ?? 1) - 1 + offset;
				while (rows.length < at) rows.push([]);
				rows[at] = row;
			});
			return { updatedRange: decodeURIComponent(values[1]) };
		}
		throw new Error(`The stand-in spreadsheet does not answer ${options.method} ${url.pathname}`);
	}
}

function trimEnd(cells: string[]): string[] {
	const copy = [...cells];
	while (copy.length && copy[copy.length - 1] === '') copy.pop();
	return copy;
}

/**
 * The installed n8n's Google Sheets node type, its Google calls answered by `spreadsheet`;
 * undefined when that n8n is not installed.
 */
export function installedGoogleSheetsNode(
	spreadsheet: InMemorySpreadsheet,
): AnyNodeType | undefined {
	const dir = installedNodesDir();
	if (!dir) return undefined;
	const { GoogleSheets } = require(join(dir, 'Google', 'Sheet', 'GoogleSheets.node.js')) as {
		GoogleSheets: new () => IVersionedNodeType;
	};
	const versioned = new GoogleSheets();
	for (const [version, type] of Object.entries(versioned.nodeVersions)) {
		const execute = type.execute!;
		versioned.nodeVersions[Number(version)] = Object.assign(Object.create(type) as INodeType, {
			async execute(this: object) {
				const helpers = {
					...(Reflect.get(this, 'helpers') as IDataObject),
					async requestOAuth2(_credentialType: string, options: never) {
						return spreadsheet.answer(options);
					},
				};
				const standIn = new Proxy(this, {
					get(target, property) {
						if (property === 'helpers') return helpers;
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

/** The installed n8n's Set (Edit Fields) node type; undefined when that n8n is not installed. */
export function installedSetNode(): AnyNodeType | undefined {
	const dir = installedNodesDir();
	if (!dir) return undefined;
	const { Set } = require(join(dir, 'Set', 'Set.node.js')) as { Set: new () => IVersionedNodeType };
	return new Set();
}
