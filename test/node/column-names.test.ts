/**
 * Simplify's columns when names collide. From node version 1.3 no value takes another's column:
 * a column name already taken (by the Run's own fields, or an earlier column: Prompts in the
 * Agent's order, an object's fields in their order) gets " (2)", " (3)"…, the first number
 * free (README "Simplify"). Prompt names that can collide form a space: Run field names,
 * "… (prompt)", "__proto__", "constructor", "A › b" joins of object fields, names listed twice
 * in `order`. A seeded generator (with shrinking) draws Runs from it, the emulator serves them,
 * Run → Get reads them through n8n's engine, and an oracle checks every Prompt value and every
 * object leaf is in the row exactly once, under the name the rule gives.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { executeNode, useHarness } from '../../dev/harness';
import { INVOICES, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 0 });

/** The Run's own columns in a simplified row (1.2 and later). */
const RUN_COLUMNS = [
	'run_id',
	'agent_id',
	'status',
	'run_url',
	'files',
	'user_defined_id',
	'created',
	'completed',
	'failed_prompts',
	'credits_used',
];
/** The row's own columns in "One Item per Prompt Result" (1.2 and later), besides `value`. */
const PROMPT_ROW_COLUMNS = [
	'run_id',
	'agent_id',
	'user_defined_id',
	'prompt',
	'status',
	'entry',
	'reasoning',
	'citations',
];
const SEPARATOR = ' › ';

type Value = string | null | string[] | { [field: string]: Value };

interface Case {
	prompts: Array<{ name: string; value: Value }>;
	/** The Run's `order`: may list a name twice, or a name with no result. */
	order: string[];
}

/** An object with these own fields, `__proto__` included (an assignment would set the prototype). */
function objectOf(entries: Array<[string, Value]>): { [field: string]: Value } {
	const target: { [field: string]: Value } = {};
	for (const [key, value] of entries)
		Object.defineProperty(target, key, {
			value,
			enumerable: true,
			writable: true,
			configurable: true,
		});
	return target;
}

// ---------------------------------------------------------------------------- the generator

/** mulberry32: a small seeded generator, so a seed always draws the same case. */
function randomOf(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const FIELD_NAMES = ['currency', 'amount', 'a', 'b', 'a › b', '__proto__', 'constructor', 'x (2)'];
const PROMPT_NAMES = [
	...RUN_COLUMNS,
	'run_id (prompt)',
	'status (prompt)',
	'run_id (prompt) (2)',
	'__proto__',
	'constructor',
	'toString',
	'hasOwnProperty',
	'Total amount',
	'Total amount › currency',
	'Total amount › currency (2)',
	'Total amount (2)',
	'a',
	'a › b',
	'a › b › a',
	'value',
	'read_error',
	'Invoice number',
];

function generateCase(seed: number): Case {
	const random = randomOf(seed);
	const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
	let token = 0;
	const leaf = () => `v${seed}-${++token}`;
	const value = (depth: number): Value => {
		const roll = random();
		if (roll < 0.35 || depth > 2) return leaf();
		if (roll < 0.45) return null;
		if (roll < 0.55) return [leaf(), leaf()];
		const fields = new Map<string, Value>();
		const count = Math.floor(random() * 4);
		for (let n = 0; n < count; n++) fields.set(pick(FIELD_NAMES), value(depth + 1));
		return objectOf([...fields]);
	};
	const names = new Set<string>();
	const count = 1 + Math.floor(random() * 7);
	for (let n = 0; n < count; n++) names.add(pick(PROMPT_NAMES));
	const prompts = [...names].map((name) => ({ name, value: value(0) }));
	// The order: some of the names (the rest follow in the results' order), one maybe twice,
	// and maybe a name no result has (a Prompt still running).
	const order = prompts.map((prompt) => prompt.name).filter(() => random() < 0.8);
	for (let n = order.length - 1; n > 0; n--) {
		const other = Math.floor(random() * (n + 1));
		[order[n], order[other]] = [order[other], order[n]];
	}
	if (order.length > 0 && random() < 0.4)
		order.splice(Math.floor(random() * order.length), 0, pick(order));
	if (random() < 0.2) order.push(pick(PROMPT_NAMES.filter((name) => !names.has(name))));
	return { prompts, order };
}

/** Smaller cases than `failing`, the smallest changes first. */
function* shrinkCandidates(failing: Case): Generator<Case> {
	for (let index = 0; index < failing.prompts.length; index++)
		yield {
			prompts: failing.prompts.filter((_, other) => other !== index),
			order: failing.order.filter((name) => name !== failing.prompts[index].name),
		};
	for (let index = 0; index < failing.order.length; index++)
		yield { ...failing, order: failing.order.filter((_, other) => other !== index) };
	for (let index = 0; index < failing.prompts.length; index++) {
		const { value } = failing.prompts[index];
		const replace = (next: Value) => ({
			...failing,
			prompts: failing.prompts.map((prompt, other) =>
				other === index ? { ...prompt, value: next } : prompt,
			),
		});
		if (value && typeof value === 'object' && !Array.isArray(value)) {
			const entries = Object.entries(value);
			for (let field = 0; field < entries.length; field++)
				yield replace(objectOf(entries.filter((_, other) => other !== field)));
			for (let field = 0; field < entries.length; field++) {
				const [key, inner] = entries[field];
				if (inner && typeof inner === 'object')
					yield replace(
						objectOf(entries.map((entry, other) => (other === field ? [key, 'v-leaf'] : entry))),
					);
			}
		}
		if (value !== null && typeof value === 'object') yield replace('v-scalar');
	}
}

// ---------------------------------------------------------------------------- the oracle

/** The rule: a name already taken gets " (2)", " (3)"…, the first number free. */
function nameBy(taken: Set<string>, wanted: string): string {
	let number = 1;
	let name = wanted;
	while (taken.has(name)) name = `${wanted} (${++number})`;
	taken.add(name);
	return name;
}

/** What a sheet cell holds for a leaf: text as it is, a list of texts joined with ", ". */
const cellOf = (value: Value): string | null =>
	Array.isArray(value) ? value.join(', ') : (value as string | null);

/** An object value's leaves as [column wanted, cell], fields in their order; {} is one empty column. */
function leavesOf(column: string, value: Value): Array<[string, string | null]> {
	if (value === null || typeof value !== 'object' || Array.isArray(value))
		return [[column, cellOf(value)]];
	const entries = Object.entries(value);
	if (entries.length === 0) return [[column, null]];
	return entries.flatMap(([field, inner]) => leavesOf(`${column}${SEPARATOR}${field}`, inner));
}

/** Names in the Run's order, then the results the order does not name; each once. */
function promptOrder(testCase: Case): string[] {
	return [...new Set([...testCase.order, ...testCase.prompts.map((prompt) => prompt.name)])];
}

function valueOf(testCase: Case, name: string): Value {
	return testCase.prompts.find((prompt) => prompt.name === name)?.value ?? null;
}

/** The Prompt columns of the Run's row, by the rule, in the order they are taken. */
function expectedRowColumns(testCase: Case): Array<[string, string | null]> {
	const taken = new Set(RUN_COLUMNS);
	return promptOrder(testCase).flatMap((name) => {
		const column = RUN_COLUMNS.includes(name) ? `${name} (prompt)` : name;
		return leavesOf(column, valueOf(testCase, name)).map(
			([wanted, cell]): [string, string | null] => [nameBy(taken, wanted), cell],
		);
	});
}

/** Each Prompt's rows in "One Item per Prompt Result": its name, and its value columns by the rule. */
function expectedPromptRows(
	testCase: Case,
): Array<{ prompt: string | null; columns: Array<[string, string | null]> }> {
	const names = promptOrder(testCase);
	// A Run with no Prompt results still gives one row, so that no input item disappears.
	if (names.length === 0) return [{ prompt: null, columns: [['value', null]] }];
	return names.map((name): { prompt: string | null; columns: Array<[string, string | null]> } => {
		const taken = new Set(PROMPT_ROW_COLUMNS);
		const value = valueOf(testCase, name);
		// A list of texts is one row per entry; every entry here is a leaf.
		const columns = Array.isArray(value)
			? [['value', value[0]] as [string, string | null]]
			: leavesOf('value', value).map(([wanted, cell]): [string, string | null] => [
					nameBy(taken, wanted),
					cell,
				]);
		return { prompt: name, columns };
	});
}

/** Every leaf of the case, each a distinct token. */
function leafTokens(testCase: Case): string[] {
	const tokens: string[] = [];
	const walk = (value: Value) => {
		if (typeof value === 'string') tokens.push(value);
		else if (Array.isArray(value)) tokens.push(...value);
		else if (value) Object.values(value).forEach(walk);
	};
	testCase.prompts.forEach((prompt) => walk(prompt.value));
	return tokens;
}

/** What is wrong with the Run's row, or undefined. */
function rowProblem(testCase: Case, row: IDataObject): string | undefined {
	const expected = expectedRowColumns(testCase);
	const promptColumns = Object.keys(row).filter((key) => !RUN_COLUMNS.includes(key));
	const cells = promptColumns.map((key) => String(row[key]));
	for (const token of leafTokens(testCase)) {
		const found = cells.filter((cell) => cell.split(', ').includes(token)).length;
		if (found !== 1) return `value ${token} is in ${found} columns, not 1`;
	}
	const expectedKeys = expected.map(([key]) => key).sort();
	if (JSON.stringify([...promptColumns].sort()) !== JSON.stringify(expectedKeys))
		return `columns ${JSON.stringify(promptColumns)}, expected ${JSON.stringify(expected.map(([key]) => key))}`;
	for (const [key, cell] of expected)
		if (row[key] !== cell)
			return `column ${JSON.stringify(key)} holds ${JSON.stringify(row[key])}, expected ${JSON.stringify(cell)}`;
	return undefined;
}

/** What is wrong with the Prompt rows, or undefined. */
function promptRowsProblem(testCase: Case, rows: IDataObject[]): string | undefined {
	const expected = expectedPromptRows(testCase);
	// A list value gives one row per entry: keep the first of each Prompt's rows.
	const firsts = rows.filter((row) => row.entry === null || row.entry === 1);
	if (firsts.length !== expected.length)
		return `${firsts.length} Prompt rows (${JSON.stringify(firsts.map((row) => row.prompt))}), expected ${expected.length}`;
	for (let index = 0; index < expected.length; index++) {
		const row = firsts[index];
		if (row.prompt !== expected[index].prompt)
			return `row ${index + 1} is Prompt ${JSON.stringify(row.prompt)}, expected ${JSON.stringify(expected[index].prompt)}`;
		const valueColumns = Object.keys(row).filter((key) => !PROMPT_ROW_COLUMNS.includes(key));
		const wanted = expected[index].columns;
		if (
			JSON.stringify([...valueColumns].sort()) !== JSON.stringify(wanted.map(([key]) => key).sort())
		)
			return `Prompt ${JSON.stringify(row.prompt)}: columns ${JSON.stringify(valueColumns)}, expected ${JSON.stringify(wanted.map(([key]) => key))}`;
		for (const [key, cell] of wanted)
			if (row[key] !== cell)
				return `Prompt ${JSON.stringify(row.prompt)}: ${JSON.stringify(key)} holds ${JSON.stringify(row[key])}, expected ${JSON.stringify(cell)}`;
	}
	return undefined;
}

// ---------------------------------------------------------------------------- through the engine

type Output = 'run' | 'promptResult';

/** Each case as a Run in the emulator, read with Run → Get (Simplify on): the items per case. */
async function readThroughNode(
	cases: Case[],
	output: Output,
	typeVersion: number,
): Promise<IDataObject[][]> {
	const runIds = cases.map((testCase) =>
		Number(
			ctx.emulator.createRun(INVOICES, [{ name: 'doc.pdf' }], {
				durationMs: 0,
				prompts: testCase.prompts,
				order: testCase.order,
			}).run_id,
		),
	);
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		typeVersion,
		parameters: {
			resource: 'run',
			operation: 'get',
			agent: { __rl: true, mode: 'id', value: String(INVOICES) },
			run: '={{ $json.runId }}',
			simplify: true,
			output,
		},
		inputItems: runIds.map((runId) => ({ json: { runId } })),
	});
	expect(result.error).toBeUndefined();
	const perCase: IDataObject[][] = cases.map(() => []);
	for (const item of result.items as INodeExecutionData[])
		perCase[(item.pairedItem as { item: number }).item].push(item.json);
	return perCase;
}

const problemOf = (testCase: Case, output: Output, items: IDataObject[]) =>
	output === 'run' ? rowProblem(testCase, items[0]) : promptRowsProblem(testCase, items);

/** Shrinks a failing case through the engine: the smallest case found that still fails. */
async function shrink(
	failing: Case,
	output: Output,
	typeVersion: number,
): Promise<{ testCase: Case; problem: string }> {
	let current = failing;
	let problem =
		problemOf(current, output, (await readThroughNode([current], output, typeVersion))[0]) ?? '';
	for (let improved = true; improved; ) {
		improved = false;
		for (const candidate of shrinkCandidates(current)) {
			const candidateProblem = problemOf(
				candidate,
				output,
				(await readThroughNode([candidate], output, typeVersion))[0],
			);
			if (candidateProblem) {
				current = candidate;
				problem = candidateProblem;
				improved = true;
				break;
			}
		}
	}
	return { testCase: current, problem };
}

const SEEDS = Array.from({ length: 300 }, (_, index) => 2701 + index);

/** A case as readable JSON (`__proto__` fields included). */
const shown = (testCase: Case) => JSON.stringify(testCase);

describe.each<Output>(['run', 'promptResult'])(
	'version 1.3, Output %s: generated Prompt names',
	(output) => {
		it(`every Prompt value and object leaf is in its row exactly once, under the name the rule gives (${SEEDS.length} seeds)`, async () => {
			const cases = SEEDS.map(generateCase);
			const items = await readThroughNode(cases, output, 1.3);
			const failing = cases.findIndex((testCase, index) =>
				problemOf(testCase, output, items[index]),
			);
			if (failing >= 0) {
				const { testCase, problem } = await shrink(cases[failing], output, 1.3);
				throw new Error(
					`seed ${SEEDS[failing]} fails: ${problemOf(cases[failing], output, items[failing])}\n` +
						`shrunk: ${shown(testCase)}\n  ${problem}`,
				);
			}
		}, 120_000);
	},
);

describe('the examples of issue 27', () => {
	const oneRow = async (testCase: Case, typeVersion: number) =>
		(await readThroughNode([testCase], 'run', typeVersion))[0][0];

	it('1.3: Prompts "run_id" and "run_id (prompt)" each keep their value', async () => {
		const row = await oneRow(
			{
				prompts: [
					{ name: 'run_id', value: 'A' },
					{ name: 'run_id (prompt)', value: 'B' },
				],
				order: [],
			},
			1.3,
		);
		expect(row).toMatchObject({ 'run_id (prompt)': 'A', 'run_id (prompt) (2)': 'B' });
	});

	it('1.3: an object Prompt "Total amount" beside a Prompt "Total amount › currency" keeps both values', async () => {
		const row = await oneRow(
			{
				prompts: [
					{ name: 'Total amount', value: { currency: 'EUR' } },
					{ name: 'Total amount › currency', value: 'USD' },
				],
				order: ['Total amount', 'Total amount › currency'],
			},
			1.3,
		);
		expect(row).toMatchObject({
			'Total amount › currency': 'EUR',
			'Total amount › currency (2)': 'USD',
		});
	});

	it.each([1, 1.1, 1.2, 1.3])(
		'%s: a Prompt named "__proto__" is a column of its own',
		async (typeVersion) => {
			const row = await oneRow(
				{ prompts: [{ name: '__proto__', value: 'P' }], order: ['__proto__'] },
				typeVersion,
			);
			expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('P');
			expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
		},
	);

	it.each([1, 1.1, 1.2, 1.3])(
		'%s: a name the Run lists twice in its order gives one row in One Item per Prompt Result',
		async (typeVersion) => {
			const [rows] = await readThroughNode(
				[
					{
						prompts: [
							{ name: 'Vendor', value: 'Acme' },
							{ name: 'Total', value: '12' },
						],
						order: ['Vendor', 'Total', 'Vendor'],
					},
				],
				'promptResult',
				typeVersion,
			);
			expect(rows.map((row) => [row.prompt, row.value])).toEqual([
				['Vendor', 'Acme'],
				['Total', '12'],
			]);
		},
	);
});
