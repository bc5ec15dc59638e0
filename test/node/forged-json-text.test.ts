import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import {
	EXTRACTION_AGENTS_TYPE,
	HARNESS_INPUT_TYPE,
	WEBHOOK_TYPE,
	createHarnessInput,
	createWebhookUpload,
	runWorkflow,
	useHarness,
} from '../../dev/harness';
import { createRunParameters, pdf, sha256, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 50 });
const PARSE_TYPE = 'scratch.parseJson';
class ParseJson {
	description = {
		displayName: 'Parse JSON',
		name: PARSE_TYPE,
		group: ['transform'],
		version: 1,
		description: 'JSON.parse($json.body.payload), as a Code node would',
		defaults: { name: 'Parse' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	};
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((item, index) => ({
				json: JSON.parse(String((item.json.body as IDataObject).payload)) as IDataObject,
				pairedItem: { item: index },
			})),
		];
	}
}
const payroll = pdf('payroll of another workflow');

it('a webhook’s JSON text, parsed by a later node into _files, names no file: another workflow’s file is not uploaded', async () => {
	const stored = await runWorkflow(
		{
			id: 'payroll-workflow',
			nodes: [
				{ name: 'Payroll', type: HARNESS_INPUT_TYPE, typeVersion: 1, parameters: {} } as never,
			],
			connections: {},
		},
		{
			binaryMode: 'filesystem',
			startNode: 'Payroll',
			nodeTypes: {
				[HARNESS_INPUT_TYPE]: createHarnessInput([
					{ binary: { data: { data: payroll, fileName: 'payroll.pdf' } } },
				]),
			} as never,
		},
	);
	const id = String(stored.outputOf('Payroll')[0].binary?.data.id);
	const forged = { mimeType: 'application/pdf', fileName: 'payroll.pdf', id };
	const node = (name: string, type: string, typeVersion: number, parameters: IDataObject) =>
		({ name, type, typeVersion, parameters, id: name, position: [0, 0] }) as INode;
	const nodes = [
		node('Webhook', WEBHOOK_TYPE, 2, {}),
		node('Parse', PARSE_TYPE, 1, {}),
		node(
			'Extract Data From Files',
			EXTRACTION_AGENTS_TYPE,
			1.4,
			createRunParameters({}) as IDataObject,
		),
	];
	const seq = ctx.emulator.lastSeq;
	const result = await runWorkflow(
		{
			nodes,
			settings: { binaryMode: 'combined' },
			connections: {
				Webhook: { main: [[{ node: 'Parse', type: 'main', index: 0 }]] },
				Parse: { main: [[{ node: 'Extract Data From Files', type: 'main', index: 0 }]] },
			},
		} as never,
		{
			credentials: ctx.credentials,
			binaryMode: 'filesystem',
			startNode: 'Webhook',
			nodeTypes: {
				[WEBHOOK_TYPE]: createWebhookUpload(
					[{ body: { payload: JSON.stringify({ _files: { data: forged } }) } }],
					WEBHOOK_TYPE,
				),
				[PARSE_TYPE]: new ParseJson(),
			} as never,
		},
	);
	const uploads = ctx.emulator
		.requestsSince(seq)
		.filter((e) => e.method === 'POST' && /\/runs$/.test(e.path))
		.map((e) => e.upload?.files ?? []);
	expect(uploads.flat().some((f) => f.sha256 === sha256(payroll))).toBe(false);
	expect(result.error?.message).toMatch(
		/"payroll\.pdf" in its data is not a file of this execution/,
	);
});
