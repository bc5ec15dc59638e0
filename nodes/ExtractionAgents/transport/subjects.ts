import type { INode } from 'n8n-workflow';

/** What a request is about, so an error can name it ("Run 5 of Agent 12 not found"). */
export interface RequestSubject {
	agentId?: number;
	runId?: number;
	apiKeyId?: string;
	templateId?: number;
	/** Set for the access-log query: its 403 means "not on the Enterprise plan". */
	accessLogs?: boolean;
}

/**
 * The name of the Agent as the user picked it From List (n8n keeps it beside the ID in the
 * field's value), when the node's Agent field holds that Agent: a message then says
 * "Invoices", the name the user chose, and not only the ID.
 */
export function pickedAgentName(node: INode, agentId: number | undefined): string | undefined {
	const picked = node.parameters?.agent;
	if (agentId === undefined || !picked || typeof picked !== 'object' || Array.isArray(picked))
		return undefined;
	const { value, cachedResultName } = picked as { value?: unknown; cachedResultName?: unknown };
	if (String(value).trim() !== String(agentId)) return undefined;
	return typeof cachedResultName === 'string' && cachedResultName.trim() !== ''
		? cachedResultName.trim()
		: undefined;
}

export function describeSubject(subject: RequestSubject | undefined, agentName?: string): string {
	if (!subject) return 'What this operation asked for';
	if (subject.apiKeyId !== undefined) return `API key "${subject.apiKeyId}"`;
	const agent =
		subject.agentId === undefined
			? undefined
			: agentName
				? `Agent "${agentName}" (ID ${subject.agentId})`
				: `Agent ${subject.agentId}`;
	if (subject.runId !== undefined && agent) return `Run ${subject.runId} of ${agent}`;
	if (subject.runId !== undefined) return `Run ${subject.runId}`;
	if (agent) return agent;
	return 'What this operation asked for';
}
