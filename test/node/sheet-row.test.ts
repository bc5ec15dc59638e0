/**
 * The sheet-ready row of node version 1.2 for values the emulator's demo Agents do not give:
 * a list of objects, nested objects, empty values. (The engine tests in versions.test.ts and
 * run-create.test.ts show the row through n8n for the demo Agents.)
 */
import { sheetRowOfRun } from '../../nodes/ExtractionAgents/helpers/shapeRun';
import type { Run } from '../../nodes/ExtractionAgents/helpers/runs';

const run = {
	run_id: 7,
	agent_id: 4,
	status: 'success',
	files: ['po.pdf'],
	order: ['Lines', 'Delivery', 'Notes', 'Tags'],
	data: {
		Lines: {
			status: 'success',
			value: [
				{ sku: 'A-1', qty: 2 },
				{ sku: 'B-7', qty: 1 },
			],
		},
		Delivery: {
			status: 'success',
			value: { address: { city: 'Lyon', zip: '69001' }, express: true },
		},
		Notes: { status: 'failed', value: null },
		Tags: { status: 'success', value: [] },
	},
} as unknown as Run;

describe('sheetRowOfRun', () => {
	it('a list of objects is one line per entry; nested objects are columns; empty is empty', () => {
		const row = sheetRowOfRun(run);
		expect(row).toMatchObject({
			Lines: 'sku: A-1, qty: 2\nsku: B-7, qty: 1',
			'Delivery › address › city': 'Lyon',
			'Delivery › address › zip': '69001',
			'Delivery › express': true,
			Notes: null,
			Tags: '',
			failed_prompts: 'Notes',
			files: 'po.pdf',
		});
		expect(Object.keys(row).indexOf('run_id')).toBe(6);
	});
});
