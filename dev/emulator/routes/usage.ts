/**
 * GET /usage: billed credit usage records of the caller's workspaces, newest first.
 */
import { Issues, issue, paginate, queryInt, queryPaging } from '../errors';
import { parseIsoMicros, tsNaiveFromMicros } from '../time';
import type { UsageRecord } from '../types';
import { ok, Route } from './context';

export function usageView(r: UsageRecord): Record<string, unknown> {
	return {
		type: r.type,
		workspace_id: r.workspaceId,
		agent_id: r.agentId,
		run_id: r.runId,
		validation_id: r.validationId,
		user: r.user,
		created: tsNaiveFromMicros(r.createdUs),
		credits_used: r.creditsUsed,
	};
}

function queryDate(
	query: Record<string, string>,
	name: string,
	issues: Issues,
): number | undefined {
	const raw = query[name];
	if (raw === undefined) return undefined;
	const us = parseIsoMicros(raw);
	if (us === null) issues.add(issue.datetime(['query', name], raw));
	return us ?? undefined;
}

export const usageRoutes: Route[] = [
	{
		method: 'GET',
		path: '/usage',
		operation: 'usage.list',
		family: 'usage',
		body: 'none',
		handle(ctx) {
			const issues = new Issues();
			const { pageNumber, pageSize } = queryPaging(ctx.query, issues);
			const gte = queryDate(ctx.query, 'created_gte', issues);
			const lte = queryDate(ctx.query, 'created_lte', issues);
			const agentId = queryInt(ctx.query, 'agent_id', {}, issues);
			const workspaceId = queryInt(ctx.query, 'workspace_id', {}, issues);
			issues.throwIfAny();
			const user = ctx.query.user;
			const workspaces = new Set(ctx.user.workspaces); // spec: limited to accessible workspaces
			const records = ctx.state.usageNewestFirst().filter(
				(r) =>
					r.workspaceId !== null &&
					workspaces.has(r.workspaceId) &&
					(gte === undefined || r.createdUs >= gte) && // both bounds inclusive
					(lte === undefined || r.createdUs <= lte) &&
					(agentId === undefined || r.agentId === agentId) &&
					(workspaceId === undefined || r.workspaceId === workspaceId) &&
					(user === undefined || r.user === user),
			);
			const page = paginate(records, pageNumber, pageSize);
			return ok({
				records: page.items.map(usageView),
				total_pages: page.totalPages,
				page_number: pageNumber,
				page_size: pageSize,
			});
		},
	},
];
