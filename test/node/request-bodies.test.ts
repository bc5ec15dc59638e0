/**
 * What serviceRequest sends: an upload only when the request declares one, JSON otherwise,
 * whatever the JSON's fields are called.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { serviceRequest } from '../../nodes/ExtractionAgents/transport/serviceRequest';
import { executeNode, useHarness } from '../../dev/harness';
import { DEMO_AGENT_IDS } from '../../dev/emulator';
import { useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator();

/** A test-only node that sends one JSON request through the package's transport. */
class JsonRequestProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'JSON Request Probe',
		name: 'jsonRequestProbe',
		group: ['transform'],
		version: 1,
		description: 'Sends one JSON request through serviceRequest',
		defaults: { name: 'JSON Request Probe' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'extractionAgentsApi', required: true }],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const agentId = DEMO_AGENT_IDS.purchaseOrders;
		const { body } = await serviceRequest(this, {
			method: 'PATCH',
			path: `/agents/${agentId}`,
			body: { metadata: { channel: 'probe' }, stream: 'not an upload' },
			idempotency: 'idempotent',
			subject: { agentId },
			itemIndex: 0,
			timeoutMs: 60_000,
		});
		return [[{ json: body as INodeExecutionData['json'], pairedItem: { item: 0 } }]];
	}
}

describe('request bodies', () => {
	it('a JSON body with a field named "stream" is sent as JSON, not taken for an upload', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: new JsonRequestProbe(),
			credentials: ctx.credentials,
			parameters: {},
		});
		expect(result.error).toBeUndefined();
		const [sent] = ctx.emulator.requestsSince(seq);
		expect(sent.headers['content-type']).toMatch(/^application\/json/);
		expect(sent.body).toEqual({ metadata: { channel: 'probe' }, stream: 'not an upload' });
		expect(result.items[0].json.metadata).toEqual({ channel: 'probe' });
	});
});
