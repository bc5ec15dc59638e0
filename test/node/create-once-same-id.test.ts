import { executeNode, useHarness } from '../../dev/harness';
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

it('1.5: a 503 before the Run was made does not take an earlier execution’s Run with the same User-Defined ID for this item’s', async () => {
	const sender = uniqueId('billing@acme.example'); // e.g. {{ $json.from }}: same for two emails
	const first = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		typeVersion: 1.5,
		parameters: uploadOnlyParameters({ additionalFields: { userDefinedId: sender } }),
		inputItems: [itemWithFiles('invoice-A', 1)],
	});
	expect(first.error).toBeUndefined();
	ctx.emulator.injectFaults([
		{ match: { method: 'POST', path: AGENT_RUNS }, kind: '503', timing: 'before' },
	]);
	const second = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		typeVersion: 1.5,
		parameters: uploadOnlyParameters({ additionalFields: { userDefinedId: sender } }),
		inputItems: [itemWithFiles('invoice-B', 1)],
	});
	const runs = runsWithUserDefinedId(ctx.emulator, sender);
	// invoice-B must have its own Run (or an error): it must not come back as invoice-A's Run.
	expect(second.items[0]?.json.run_id).not.toBe(first.items[0]?.json.run_id);
	expect(second.error?.message).toBe('The Extraction Agents service failed (503)');
	expect(runs).toHaveLength(1);
});

/** A scanner's file: every document it makes has the same name (here unique to this test run). */
function scanNamed(fileName: string, text: string) {
	return {
		json: {},
		binary: {
			data: {
				data: Buffer.from(`%PDF-1.4\n${text}\n%%EOF\n`),
				fileName,
				mimeType: 'application/pdf',
			},
		},
	};
}

describe('1.5: a User-Defined ID that is the file’s name (the Drive examples before 0.5.0) never takes another document’s Run', () => {
	const parametersFor = (fileName: string) =>
		uploadOnlyParameters({ filesPerRun: 'file', additionalFields: { userDefinedId: fileName } });

	it('a 503 before the Run was made: the second Scan.pdf is an error naming why, not the first one’s Run', async () => {
		const fileName = `${uniqueId('Scan')}.pdf`;
		const first = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: parametersFor(fileName),
			inputItems: [scanNamed(fileName, 'document A')],
		});
		expect(first.error).toBeUndefined();
		ctx.emulator.injectFaults([
			{ match: { method: 'POST', path: AGENT_RUNS }, kind: '503', timing: 'before' },
		]);
		const second = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: parametersFor(fileName),
			inputItems: [scanNamed(fileName, 'document B')],
		});
		expect(second.items[0]?.json.run_id).toBeUndefined();
		expect(second.error?.message).toBe('The Extraction Agents service failed (503)');
		expect((second.error as Error & { description?: string }).description).toContain(
			`The User-Defined ID "${fileName}" is the file’s name`,
		);
		expect(runsWithUserDefinedId(ctx.emulator, fileName)).toHaveLength(1);
	});

	it('an execution retried from n8n’s list: a new Scan.pdf gets its own Run, not the old one’s', async () => {
		const fileName = `${uniqueId('Scan')}.pdf`;
		const first = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: parametersFor(fileName),
			inputItems: [scanNamed(fileName, 'document A')],
		});
		const retried = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: parametersFor(fileName),
			inputItems: [scanNamed(fileName, 'document B')],
			executionMode: 'retry',
		});
		expect(retried.error).toBeUndefined();
		expect(retried.items[0]?.json.run_id).not.toBe(first.items[0]?.json.run_id);
		expect(runsWithUserDefinedId(ctx.emulator, fileName)).toHaveLength(2);
	});
});
