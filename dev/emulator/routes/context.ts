/**
 * What a route handler gets and returns. Handlers return a response object instead of writing to
 * the socket, so that the server can apply "after" faults (truncate, drop fields, replace) to it.
 */
import type { IncomingMessage } from 'node:http';
import { notFound, pathInt } from '../errors';
import type { EmulatorState } from '../store';
import type {
	AgentRecord,
	ApiKeyRecord,
	EmulatorKnobs,
	EndpointFamily,
	RequestLogEntry,
	UserRecord,
} from '../types';

export interface EmuResponse {
	status: number;
	headers?: Record<string, string>;
	/** JSON body (serialised by the server). */
	json?: unknown;
	/** Raw body (files, HTML). */
	body?: Buffer | string;
}

export interface RequestContext {
	state: EmulatorState;
	knobs: EmulatorKnobs;
	/** Emulator clock (ms) when the request was dispatched. */
	now: number;
	/** The emulator clock itself, for handlers that take long (uploads). */
	clock: () => number;
	user: UserRecord;
	apiKey: ApiKeyRecord;
	req: IncomingMessage;
	params: Record<string, string>;
	query: Record<string, string>;
	/** Parsed JSON body (undefined when empty); only for routes with body 'json'. */
	body: unknown;
	log: RequestLogEntry;
	/** Base of run_url links. */
	webUrl: string;
	/** Workspace for the access-log event; handlers set it when they know it. */
	workspaceId?: number;
}

export interface Route {
	method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
	/** Path under /api/v1/client with :params, e.g. '/agents/:agent_id/runs'. */
	path: string;
	/** Access-log operation name (the set is not shown in the spec; these are ours). */
	operation: string;
	family: EndpointFamily;
	body: 'none' | 'json' | 'multipart';
	handle(ctx: RequestContext): Promise<EmuResponse> | EmuResponse;
}

export const ok = (json: unknown): EmuResponse => ({ status: 200, json });
export const noContent = (): EmuResponse => ({ status: 204 });

/** The Agent named by :agent_id, visible to the caller, or 404 "Agent N not found". */
export function requireAgent(ctx: RequestContext): AgentRecord {
	const agentId = pathInt(ctx.params, 'agent_id');
	const agent = ctx.state.visibleAgent(ctx.user, agentId);
	if (!agent) throw notFound(`Agent ${agentId} not found`);
	ctx.workspaceId = agent.workspaceId;
	return agent;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
