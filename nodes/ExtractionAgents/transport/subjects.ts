/** What a request is about, so an error can name it ("Run 5 of Agent 12 not found"). */
export interface RequestSubject {
	agentId?: number;
	runId?: number;
	apiKeyId?: string;
	templateId?: number;
	/** Set for the access-log query: its 403 means "not on the Enterprise plan". */
	accessLogs?: boolean;
}

export function describeSubject(subject: RequestSubject | undefined): string {
	if (!subject) return 'What this operation asked for';
	if (subject.apiKeyId !== undefined) return `API key "${subject.apiKeyId}"`;
	if (subject.runId !== undefined && subject.agentId !== undefined) {
		return `Run ${subject.runId} of Agent ${subject.agentId}`;
	}
	if (subject.runId !== undefined) return `Run ${subject.runId}`;
	if (subject.agentId !== undefined) return `Agent ${subject.agentId}`;
	return 'What this operation asked for';
}
