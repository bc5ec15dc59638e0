/**
 * Run → Create 1.5 makes a Run at most once (actions/run/createOnce.ts): after a 5xx it takes a
 * listed Run only when it is surely this item's, and never sends the files again.
 */
import type { INodeParameters } from 'n8n-workflow';
import { executeNode, useHarness, type HarnessInputItem } from '../../dev/harness';
import {
	AGENT_RUNS,
	itemWithFiles,
	runsWithUserDefinedId,
	uniqueId,
	uploadOnlyParameters,
	useEmulator,
	useShortBackoff,
} from '../../test/reliability/helpers';

useHarness();
useShortBackoff();
const ctx = useEmulator({ runDurationMs: 200 });

/** Run → Create 1.5 on one item, the files uploaded, no waiting. */
async function create(
	parameters: INodeParameters,
	item: HarnessInputItem,
	executionMode?: 'retry',
): ReturnType<typeof executeNode> {
	return await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		typeVersion: 1.5,
		parameters: uploadOnlyParameters(parameters),
		inputItems: [item],
		...(executionMode ? { executionMode } : {}),
	});
}

const failCreation = (kind: '503' | '504', timing: 'before' | 'after') =>
	ctx.emulator.injectFaults([{ match: { method: 'POST', path: AGENT_RUNS }, kind, timing }]);

it('a 504 after the Run was made, the Run listed 8 s late: not sent again, one Run', async () => {
	const id = uniqueId('INV-504');
	ctx.emulator.knobs.lateListing = { rate: 1, delayMs: 8_000 };
	failCreation('504', 'after');
	const result = await create(
		{ additionalFields: { userDefinedId: id } },
		itemWithFiles('invoice'),
	);
	ctx.emulator.knobs.lateListing = null;
	expect(result.error?.message).toBe('The Extraction Agents service failed (504)');
	expect(runsWithUserDefinedId(ctx.emulator, id)).toHaveLength(1);
}, 60_000);

it('a 503 before the Run was made does not take an earlier execution’s Run with the same User-Defined ID for this item’s', async () => {
	const sender = uniqueId('billing@acme.example'); // e.g. {{ $json.from }}: same for two emails
	const parameters = { additionalFields: { userDefinedId: sender } };
	const first = await create(parameters, itemWithFiles('invoice-A'));
	expect(first.error).toBeUndefined();
	failCreation('503', 'before');
	const second = await create(parameters, itemWithFiles('invoice-B'));
	// invoice-B must have its own Run (or an error): it must not come back as invoice-A's Run.
	expect(second.items[0]?.json.run_id).not.toBe(first.items[0]?.json.run_id);
	expect(second.error?.message).toBe('The Extraction Agents service failed (503)');
	expect(runsWithUserDefinedId(ctx.emulator, sender)).toHaveLength(1);
});

/** A scanner's file: every document it makes has the same name (here unique to this test run). */
function scanNamed(fileName: string, text: string): HarnessInputItem {
	const data = Buffer.from(`%PDF-1.4\n${text}\n%%EOF\n`);
	return { json: {}, binary: { data: { data, fileName, mimeType: 'application/pdf' } } };
}

describe('a User-Defined ID that is the file’s name (the Drive examples before 0.5.0) never takes another document’s Run', () => {
	const parametersFor = (fileName: string) => ({
		filesPerRun: 'file',
		additionalFields: { userDefinedId: fileName },
	});

	it('a 503 before the Run was made: the second Scan.pdf is an error naming why, not the first one’s Run', async () => {
		const fileName = `${uniqueId('Scan')}.pdf`;
		const first = await create(parametersFor(fileName), scanNamed(fileName, 'document A'));
		expect(first.error).toBeUndefined();
		failCreation('503', 'before');
		const second = await create(parametersFor(fileName), scanNamed(fileName, 'document B'));
		expect(second.items[0]?.json.run_id).toBeUndefined();
		expect(second.error?.message).toBe('The Extraction Agents service failed (503)');
		expect((second.error as Error & { description?: string }).description).toContain(
			`The User-Defined ID "${fileName}" is the file’s name`,
		);
		expect(runsWithUserDefinedId(ctx.emulator, fileName)).toHaveLength(1);
	});

	it('an execution retried from n8n’s list: a new Scan.pdf gets its own Run, not the old one’s', async () => {
		const fileName = `${uniqueId('Scan')}.pdf`;
		const first = await create(parametersFor(fileName), scanNamed(fileName, 'document A'));
		const retried = await create(
			parametersFor(fileName),
			scanNamed(fileName, 'document B'),
			'retry',
		);
		expect(retried.error).toBeUndefined();
		expect(retried.items[0]?.json.run_id).not.toBe(first.items[0]?.json.run_id);
		expect(runsWithUserDefinedId(ctx.emulator, fileName)).toHaveLength(2);
	});
});
