/**
 * Test-only polling trigger used by the harness's own tests. It reads "events" from its
 * `events` parameter (JSON array of { id }), keeps a cursor in the node's static data, and
 * can be told to fail after having changed its static data.
 */
import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export const HARNESS_POLLER_TYPE = 'n8n-nodes-harness.harnessPoller';

export class HarnessPoller implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Harness Poller',
		name: HARNESS_POLLER_TYPE,
		group: ['trigger'],
		version: 1,
		description: 'Test-only polling trigger',
		defaults: { name: 'Harness Poller' },
		polling: true,
		inputs: [],
		outputs: ['main'],
		credentials: [{ name: 'extractionAgentsApi', required: true }],
		properties: [
			{ displayName: 'Events (JSON)', name: 'events', type: 'string', default: '[]' },
			{
				displayName: 'Fail After Changing Static Data',
				name: 'fail',
				type: 'boolean',
				default: false,
			},
			{ displayName: 'URL to GET with the Credential', name: 'url', type: 'string', default: '' },
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const staticData = this.getWorkflowStaticData('node');
		const events = JSON.parse(this.getNodeParameter('events') as string) as IDataObject[];
		const url = this.getNodeParameter('url') as string;
		let fetched: unknown;
		if (url) {
			fetched = await this.helpers.httpRequestWithAuthentication.call(this, 'extractionAgentsApi', {
				method: 'GET',
				url,
				json: true,
			});
		}
		if (this.getMode() === 'manual') {
			const latest = events[events.length - 1];
			return latest ? [[{ json: { ...latest, manual: true } }]] : null;
		}
		const cursor = (staticData.lastId as number | undefined) ?? 0;
		staticData.polls = ((staticData.polls as number | undefined) ?? 0) + 1;
		// A Date: n8n stores static data as JSON, so the next poll sees a string.
		staticData.lastPolledAt = new Date();
		if (this.getNodeParameter('fail') as boolean) {
			staticData.lastId = 999;
			throw new NodeOperationError(this.getNode(), 'The poll failed on purpose');
		}
		const fresh = events.filter((e) => (e.id as number) > cursor);
		if (fresh.length === 0) return null;
		staticData.lastId = Math.max(...fresh.map((e) => e.id as number));
		return [
			this.helpers.returnJsonArray(
				fresh.map((e) => (fetched === undefined ? e : { ...e, fetched: fetched as IDataObject })),
			),
		];
	}
}
