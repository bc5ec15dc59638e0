/**
 * Agents: list (service note 11: paged like the other lists), read, PATCH metadata, copy (service note 27).
 */
import { Issues, issue, paginate, queryPaging, validationError } from '../errors';
import { tsNaive } from '../time';
import type { AgentRecord, EmulatorKnobs, MetadataValue, PromptRecord } from '../types';
import { isPlainObject, ok, requireAgent, Route, type RequestContext } from './context';

/**
 * The Agent as JSON. `n_runs` follows knobs.agentRunCounter: Runs ever made (default: a
 * delete does not lower it), the Runs there are now (a delete lowers it), or left out.
 */
export function agentView(
	agent: AgentRecord,
	counter: EmulatorKnobs['agentRunCounter'] = 'made',
	existingRuns?: number,
): Record<string, unknown> {
	const view: Record<string, unknown> = {
		id: agent.id,
		workspace_id: agent.workspaceId,
		name: agent.name,
		objective: agent.objective,
		created: tsNaive(agent.createdMs),
		updated: tsNaive(agent.updatedMs),
		created_by: agent.createdBy,
		agent_guidelines: agent.guidelines
			? {
					prompt: agent.guidelines.prompt,
					created: tsNaive(agent.guidelines.createdMs),
					updated: tsNaive(agent.guidelines.updatedMs),
				}
			: null,
		n_runs: agent.nRuns,
		prompts: agent.prompts.map(promptView),
		output_templates: agent.templates.map((t) => ({
			id: t.id,
			filename: t.filename,
			created: tsNaive(t.createdMs),
			updated: tsNaive(t.updatedMs),
		})),
		metadata: structuredClone(agent.metadata),
	};
	if (counter === 'absent') delete view.n_runs;
	else if (counter === 'existing') view.n_runs = existingRuns ?? agent.nRuns;
	return view;
}

/** agentView with the request's knobs. */
function agentViewFor(ctx: RequestContext): (agent: AgentRecord) => Record<string, unknown> {
	const counter = ctx.knobs.agentRunCounter ?? 'made';
	return (agent) =>
		agentView(
			agent,
			counter,
			counter === 'existing' ? ctx.state.runsOfAgent(agent.id).length : undefined,
		);
}

function promptView(p: PromptRecord): Record<string, unknown> {
	return {
		id: p.id,
		name: p.name,
		created: tsNaive(p.createdMs),
		updated: tsNaive(p.updatedMs),
		last_updated_by: p.lastUpdatedBy,
		documents: structuredClone(p.documents),
		input_prompt_ids: [...p.inputPromptIds],
		model: { ...p.model },
		options: structuredClone(p.options),
	};
}

const isPrimitive = (v: unknown): boolean =>
	v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** Spec metadata rules: keys are strings; values are primitives or lists of primitives. */
export function validateMetadata(
	metadata: unknown,
	issues: Issues,
): Record<string, MetadataValue> | undefined {
	const loc = ['body', 'metadata'];
	if (!isPlainObject(metadata)) {
		issues.add(issue.dictType(loc, metadata));
		return undefined;
	}
	const message = 'metadata values must be a string, number, boolean, null or a list of those';
	for (const [key, value] of Object.entries(metadata)) {
		if (isPrimitive(value)) continue;
		if (Array.isArray(value)) {
			value.forEach((item, i) => {
				if (!isPrimitive(item)) issues.add(issue.valueError([...loc, key, i], item, message));
			});
			continue;
		}
		issues.add(issue.valueError([...loc, key], value, message));
	}
	return metadata as Record<string, MetadataValue>;
}

/** A request body that must be a JSON object (FastAPI: missing body -> "Field required"). */
export function bodyObject(body: unknown): Record<string, unknown> {
	if (body === undefined) throw validationError([issue.missing(['body'], null)]);
	if (!isPlainObject(body)) {
		throw validationError([
			{
				loc: ['body'],
				msg: 'Input should be a valid dictionary or object to extract fields from',
				type: 'model_attributes_type',
				input: body,
			},
		]);
	}
	return body;
}

export const agentRoutes: Route[] = [
	{
		method: 'GET',
		path: '/agents',
		operation: 'agents.list',
		family: 'agents',
		body: 'none',
		handle(ctx) {
			const issues = new Issues();
			const { pageNumber, pageSize } = queryPaging(ctx.query, issues);
			issues.throwIfAny();
			const hidden = new Set(ctx.knobs.hiddenAgentIds ?? []);
			const visible = ctx.state.agentsOf(ctx.user).filter((agent) => !hidden.has(agent.id));
			const page = paginate(visible, pageNumber, pageSize);
			if (ctx.knobs.agentsListShape === 'bare-array') return ok(page.items.map(agentViewFor(ctx)));
			return ok({
				agents: page.items.map(agentViewFor(ctx)),
				total_pages: page.totalPages,
				page_number: pageNumber,
				page_size: pageSize,
			});
		},
	},
	{
		method: 'GET',
		path: '/agents/:agent_id',
		operation: 'agents.get',
		family: 'agents',
		body: 'none',
		handle(ctx) {
			return ok(agentViewFor(ctx)(requireAgent(ctx)));
		},
	},
	{
		method: 'PATCH',
		path: '/agents/:agent_id',
		operation: 'agents.update',
		family: 'agents',
		body: 'json',
		handle(ctx) {
			const body = bodyObject(ctx.body);
			const issues = new Issues();
			let metadata: Record<string, MetadataValue> | undefined;
			if (!('metadata' in body)) issues.add(issue.missing(['body', 'metadata'], body));
			else metadata = validateMetadata(body.metadata, issues);
			issues.throwIfAny();
			const agent = requireAgent(ctx);
			// PATCH rules: only metadata; the new object replaces the old one entirely ({} clears it).
			agent.metadata = structuredClone(metadata!);
			agent.updatedMs = ctx.now;
			return ok(agentViewFor(ctx)(agent));
		},
	},
	{
		method: 'POST',
		path: '/agents/:agent_id/copy',
		operation: 'agents.copy',
		family: 'agents',
		body: 'json',
		handle(ctx) {
			const body = bodyObject(ctx.body);
			const issues = new Issues();
			const loc = ['body', 'name'];
			let name = '';
			// Gap 25: name required, 1..255 characters after trimming.
			if (!('name' in body) || body.name === null) issues.add(issue.missing(loc, body));
			else if (typeof body.name !== 'string') issues.add(issue.stringType(loc, body.name));
			else {
				name = body.name.trim();
				if (name.length < 1) issues.add(issue.stringTooShort(loc, body.name, 1));
				else if (name.length > 255) issues.add(issue.stringTooLong(loc, body.name, 255));
			}
			issues.throwIfAny();
			const source = requireAgent(ctx);
			const copy = copyAgent(ctx.state.nextId, source, name, ctx.user.email, ctx.now);
			ctx.state.addAgent(copy);
			return ok(agentViewFor(ctx)(copy));
		},
	},
];

/**
 * A copy is a new Agent (new id, n_runs 0) with the same Prompts and templates under new ids;
 * input_prompt_ids and prompt-reference tags are remapped to the new Prompt ids.
 */
function copyAgent(
	ids: { agent: number; prompt: number; template: number },
	source: AgentRecord,
	name: string,
	email: string,
	now: number,
): AgentRecord {
	const idMap = new Map<number, number>();
	for (const p of source.prompts) idMap.set(p.id, ids.prompt++);
	const remapText = (text: string): string =>
		text.replace(/(-prompt\s+id=")(\d+)(")/g, (m, a: string, id: string, b: string) =>
			idMap.has(Number(id)) ? `${a}${idMap.get(Number(id))}${b}` : m,
		);
	return {
		id: ids.agent++,
		workspaceId: source.workspaceId,
		name,
		objective: source.objective,
		createdMs: now,
		updatedMs: now,
		createdBy: email,
		guidelines: source.guidelines
			? { prompt: source.guidelines.prompt, createdMs: now, updatedMs: now }
			: null,
		nRuns: 0,
		prompts: source.prompts.map((p) => ({
			...structuredClone(p),
			id: idMap.get(p.id)!,
			createdMs: now,
			updatedMs: now,
			lastUpdatedBy: email,
			inputPromptIds: p.inputPromptIds.map((id) => idMap.get(id) ?? id),
			options: { ...structuredClone(p.options), prompt: remapText(p.options.prompt) },
		})),
		templates: source.templates.map((t) => ({
			id: ids.template++,
			filename: t.filename,
			createdMs: now,
			updatedMs: now,
		})),
		metadata: structuredClone(source.metadata),
	};
}
